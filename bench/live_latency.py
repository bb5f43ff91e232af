"""Benchmark: from a still table to advice on screen, at 1280x720.

A camera is emulated in real time at ``--fps`` (default 30): for each position of a game
(played by the advice on the virtual table, rendered by the vision renderer at
1280x720 as by a camera on a stand: same view and light throughout, untouched cards
where they were) the camera first shows the new table with a hand and forearm resting on it
for ``--hand-frames`` frames (a still hand, the hardest case for the gate), then the
table alone. The hands take turns through five skin tones and three colours no skin
has (a blue glove, an olive arm, a grey sleeve), so both hand tests are exercised. The coach takes the newest frame each time it is free (a camera with a one-frame
buffer), so a slow detector makes it skip frames, as it would live.

Measured per position: wall time from the arrival of the first still frame of the new
position to the advice drawn on the frame (gate, two agreeing reads, detect, track,
advise, draw). Also: the time of one detector call and of track+advise+draw.

Run on 2 cores:  taskset -c 0,1 .venv/bin/python bench/live_latency.py [--positions 40]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import cv2
import numpy as np


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40, help="moves to play after the deal (default 40)")
    ap.add_argument("--deal", type=int, default=102)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--threads", type=int, default=2, help="OpenCV threads (default 2)")
    ap.add_argument(
        "--no-object-check",
        action="store_true",
        help="the gate without its colour-free object check (the skin-colour hand check only), to compare",
    )
    ap.add_argument(
        "--hand-frames", type=int, default=6, help="frames of a still hand before each still table (default 6)"
    )
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)

    from solitaire_coach.app.coach import CoachSession
    from solitaire_coach.app.live import LiveCoach
    from solitaire_coach.app.live_setup import make_detector
    from solitaire_coach.capture.gate import ReadGate
    from solitaire_coach.capture.sources import Frame
    from solitaire_coach.core.advisor import make_strategy
    from solitaire_coach.core.rules import DEFAULT_RULES
    from solitaire_coach.core.state import deal_for_seed
    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable
    from solitaire_coach.vision.overlay import draw_overlay
    from solitaire_coach.vision.render import TableLayout, render_layout

    # the positions of a game, rendered (not timed)
    table = VirtualTable.from_deal(deal_for_seed(args.deal))
    tracker = TableTracker()
    tracker.update(table.snapshot())
    strategy = make_strategy("baseline")
    from make_game_fixtures import GLOVES, SKIN, paint_hand  # (bench/ is the script's folder)

    HAND_COLOURS = [("skin", tone) for tone in SKIN] + list(zip(("blue glove", "olive", "grey sleeve"), GLOVES[:3]))
    hand_rng = random.Random(7)
    scenes = []
    for _ in range(args.positions + 1):
        layout = TableLayout.from_state(table.state)
        still, _ = render_layout(layout, 16, args.width, args.height, deck="drawn-5", difficulty=0.3, steady=True)
        colour = HAND_COLOURS[len(scenes) % len(HAND_COLOURS)]
        hand = paint_hand(still, hand_rng, colour[1])
        scenes.append((hand, still, "skin" if colour[0] == "skin" else "no skin colour"))
        advice = strategy.advise(tracker.state, tracker.history)
        if advice.status != "move":
            break
        table.perform(advice.move)
        tracker.update(table.snapshot())
    rng = np.random.default_rng(0)

    def noisy(img):  # a camera never gives the same picture twice
        return np.clip(img.astype(np.int16) + rng.integers(-2, 3, img.shape, dtype=np.int16), 0, 255).astype(np.uint8)

    detector = make_detector(None, None)
    session = CoachSession(DEFAULT_RULES, strategy, None, say=lambda s: None)
    coach = LiveCoach(session, detector, ReadGate(object_check=not args.no_object_check), say=lambda s: None)
    coach.start()
    period = 1.0 / args.fps
    latencies, detect_ms, after_ms, missed, hand_accepted = [], [], [], 0, 0
    hand_kinds: dict[str, list[int]] = {}  # kind of hand -> [positions, reads accepted on it]
    index = 0
    for k, (hand, still, kind) in enumerate(scenes):
        # the hand leaves: a few frames of hand, then the still table, in real time (the
        # deal is on the table, without a hand, when the coach starts: before its first
        # read the gate has no picture of the bare table to tell a resting hand from it)
        n_hand = args.hand_frames if k > 0 else 0
        if n_hand:
            hand_kinds.setdefault(kind, [0, 0])[0] += 1
        frames = [hand] * n_hand + [still] * int(args.fps * 2)
        t0 = time.perf_counter()
        arrival_still = t0 + n_hand * period
        done = None
        seen = set()
        while True:
            now = time.perf_counter()
            i = int((now - t0) / period)
            if i >= len(frames):
                break
            if i in seen:
                time.sleep(max(0.0, t0 + (i + 1) * period - time.perf_counter()))
                continue
            seen.add(i)
            index += 1
            frame = Frame(noisy(frames[i]), index, t0 + i * period, f"p{k}f{i}")
            result = coach.step(frame)
            if "detect" in result.timings_ms:
                detect_ms.append(result.timings_ms["detect"])
            if result.accepted and i < n_hand:
                hand_accepted += 1  # a read taken with the hand in the picture: a failure
                hand_kinds[kind][1] += 1
                continue
            if result.accepted:
                a = time.perf_counter()
                picture = draw_overlay(frame.image, result.detection, coach.advice, coach.state, gate=result.gate)
                assert picture.shape == frame.image.shape
                done = time.perf_counter()
                after_ms.append(result.timings_ms.get("track_advise", 0.0) + (done - a) * 1000)
                break
        if done is None:
            missed += 1
            continue
        if k > 0:  # the first is the deal (game start), not a move
            latencies.append((done - arrival_still) * 1000)
    history = len(session.tracker.history)
    print(
        f"positions {len(scenes)} (the deal and {len(scenes) - 1} moves), moves followed {history} of {len(scenes) - 1}, not accepted within 2 s: {missed}, "
        f"reads accepted on a hand frame: {hand_accepted} ("
        + ", ".join(f"{name} hands: {n[1]} of {n[0]} positions" for name, n in sorted(hand_kinds.items()))
        + ")"
    )
    print(
        f"cores {os.cpu_count()}, affinity {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}, "
        f"{args.width}x{args.height}, camera {args.fps:g} fps"
    )
    if latencies:
        print(
            f"still table -> advice on screen: median {statistics.median(latencies):.0f} ms, "
            f"p90 {percentile(latencies, 90):.0f} ms, max {max(latencies):.0f} ms (n={len(latencies)})"
        )
    if detect_ms:
        print(
            f"one detector call: median {statistics.median(detect_ms):.0f} ms, p90 {percentile(detect_ms, 90):.0f} ms"
        )
    if after_ms:
        print(f"track + advise + draw: median {statistics.median(after_ms):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
