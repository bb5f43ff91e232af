"""Benchmark: how often the detector puts the cards it found in their slots, and why not.

Renders scenes with their truth (the sets of ``stock_down_bench.py``: positions along baseline
games, random held-out-design layouts, the same with any back (``variety=1``), and held-out
layouts with cards lying askew (``--askew`` degrees)), detects each, and prints per set:
the 12 slots right, snapshots exact, fresh deals exact (their 12 slots and 7 face-down
counts), face-down counts right per column, and every wrong slot by cause:

* ``slotting``: a card the detector found was put in another slot than its own, into or
  out of the wrong slot (split by what was confused: top row and columns, two columns, two
  top-row slots);
* ``reading``: every card found is in its slot, and the slot is still wrong (a card read
  wrong or ``UU``, a card not found, a mark where no card is).

The marks the detector slots are kept (``--dump FILE``), so that a change to the slotting
alone can be measured again in seconds on the same marks (``--replay FILE``): the reading is
not redone. A scene read turned (the frame taken as sideways) is counted as the detector
gave it and not replayed.

Run:  python bench/slot_bench.py [--scenes 100] [--games 12] [--askew 15] [--dump F | --replay F]
"""

from __future__ import annotations

import argparse
import copy
import os
import pickle
import sys
import time
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.vision import detector as D  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from solitaire_coach.vision.decks import TEST_DECKS  # noqa: E402
from solitaire_coach.vision.render import render_random  # noqa: E402
from stock_down_bench import game_scenes  # noqa: E402

TOP = ("stock", "waste", "foundation 1", "foundation 2", "foundation 3", "foundation 4")
SLOTS = ("waste", "foundation 1", "foundation 2", "foundation 3", "foundation 4") + tuple(
    f"column {i}" for i in range(1, 8)
)


def random_scenes(count: int, seed: int, variety: float, askew: float | None):
    for n in range(count):
        img, truth = render_random(
            seed + n, 1280, 720, decks=list(TEST_DECKS), hand_p=0.0, variety=variety, askew=askew
        )
        layout = truth.layout
        yield img, layout, layout.down == (0, 1, 2, 3, 4, 5, 6) and not any(len(r) > 1 for r in layout.up), truth


class _Recorder:
    """Keeps a copy of the marks every ``assign_slots`` call is given."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.real = D.assign_slots

    def __call__(self, marks, frame_w, calibration=None, frame_h=None):
        self.calls.append((copy.deepcopy(marks), frame_w, calibration, frame_h))
        return self.real(marks, frame_w, calibration, frame_h)


def record(det, scenes, rec: _Recorder) -> list[dict]:
    """One entry per scene: the marks given to the slotting (None where the frame was read
    turned), the detector's own result, and the truth."""
    out = []
    for img, layout, fresh, truth in scenes:
        rec.calls.clear()
        before = det.orientation
        res = det.detect(img)
        turned = det.orientation != before or before != 0
        out.append(
            {
                "marks": None if turned else rec.calls[0],
                "snapshot": res.snapshot,
                "down": res.down,
                "cards": [(tuple(map(float, c.quad[0])), c.slot) for c in res.cards],
                "layout": layout,
                "fresh": fresh,
                "truth": [(t.card, tuple(map(float, t.full_quad[0])), _size(t.full_quad), t.slot) for t in truth.cards],
                "true_snapshot": truth.snapshot,
            }
        )
    return out


def _size(q) -> tuple[float, float]:
    q = np.asarray(q, np.float64)
    return float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[3] - q[0]))


def reslot(entry: dict):
    """The snapshot, face-down counts and (corner, slot) of each mark from the kept marks,
    slotted by the current code."""
    if entry["marks"] is None:
        return entry["snapshot"], entry["down"], entry["cards"]
    marks, frame_w, calibration, frame_h = entry["marks"]
    marks = copy.deepcopy(marks)
    D.assign_slots(marks, frame_w, calibration, frame_h)
    D._cover(marks)
    down, _ = D._down_counts(marks)
    return D.build_snapshot(marks), down, [((m.x, m.y), m.slot) for m in marks]


def _kind(a: str, b: str) -> str:
    ta, tb = a in TOP, b in TOP
    if ta and tb:
        return "two top-row slots"
    if ta != tb:
        return "top row and a column"
    return "two columns"


def measure(entries: list[dict]) -> Counter:
    c = Counter()
    for e in entries:
        snap, down, cards = reslot(e)
        # truth cards -> marks by the top-left corner
        slot_of: dict[int, str] = {}
        wrong_moves = []  # (true slot, given slot)
        used = set()
        for card, (tx, ty), (tw, th), tslot in e["truth"]:
            best, bd = None, 1e9
            for j, ((x, y), _) in enumerate(cards):
                if j in used:
                    continue
                d = max(abs(x - tx) / tw / 0.12, abs(y - ty) / th / 0.05)
                if d < 1 and d < bd:
                    best, bd = j, d
            if best is None:
                continue
            used.add(best)
            slot_of[best] = tslot
            given = cards[best][1]
            c["cards found"] += 1
            if given != tslot and not (tslot == "stock" and given == "waste" and card is not None):
                c["cards in another slot"] += 1
                wrong_moves.append((tslot, given))
        ts, ds = e["true_snapshot"].slots, snap.slots
        ok = [a is b or getattr(a, "code", a) == getattr(b, "code", b) for a, b in zip(ts, ds)]
        c["scenes"] += 1
        c["slots"] += 12
        c["slots right"] += sum(ok)
        c["snapshots exact"] += all(ok)
        want = e["layout"].down
        c["columns"] += 7
        c["down right"] += sum(a == b for a, b in zip(want, down))
        if e["fresh"]:
            c["fresh deals"] += 1
            c["fresh deals exact"] += all(ok) and tuple(down) == tuple(want)
        for name, good in zip(SLOTS, ok):
            if good:
                continue
            moves = [(a, b) for a, b in wrong_moves if name in (a, b if b != "stock" else "waste")]
            if moves:
                c["wrong slot: slotting"] += 1
                c["slotting: " + _kind(*moves[0])] += 1
            else:
                c["wrong slot: reading"] += 1
    return c


def report(name: str, c: Counter) -> None:
    n = max(1, c["scenes"])
    print(
        f"  {name}: {c['scenes']} scenes; slots right {c['slots right'] / max(1, c['slots']):.2%}, "
        f"snapshots exact {c['snapshots exact'] / n:.1%}, fresh deals exact {c['fresh deals exact']}/{c['fresh deals']}, "
        f"face-down counts right {c['down right'] / max(1, c['columns']):.1%} of columns"
    )
    print(
        f"    cards found {c['cards found']}, put in another slot {c['cards in another slot']}; wrong slots: "
        f"slotting {c['wrong slot: slotting']} (top row and a column {c['slotting: top row and a column']}, "
        f"two columns {c['slotting: two columns']}, two top-row slots {c['slotting: two top-row slots']}), "
        f"reading {c['wrong slot: reading']}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=100, help="random scenes per held-out set (default 100)")
    ap.add_argument("--games", type=int, default=12, help="baseline games (default 12; 0: none)")
    ap.add_argument("--every", type=int, default=6, help="games: a picture every N moves (default 6)")
    ap.add_argument("--askew", type=float, default=15.0, help="the askew set's spread in degrees (default 15)")
    ap.add_argument("--seed", type=int, default=500000, help="first seed (default 500000)")
    ap.add_argument("--model", default=None, help="model folder (default: the shipped one)")
    ap.add_argument("--dump", help="keep the marks of every scene in this file")
    ap.add_argument("--replay", help="slot the marks kept in this file again instead of detecting")
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.replay:
        with open(args.replay, "rb") as f:
            sets = pickle.load(f)
    else:
        det = D.CardDetector(args.model)
        rec = _Recorder()
        D.assign_slots = rec
        sources = [
            ("games (steady camera, drawn decks)", lambda: game_scenes(args.games, args.every, args.seed)),
            ("held-out designs", lambda: random_scenes(args.scenes, args.seed, 0.0, None)),
            ("held-out designs, any back (variety 1)", lambda: random_scenes(args.scenes, args.seed, 1.0, None)),
            (f"held-out designs, askew {args.askew:g}", lambda: random_scenes(args.scenes, args.seed, 0.0, args.askew)),
        ]
        sets = []
        for name, make in sources:
            if name.startswith("games") and not args.games:
                continue
            det.orientation, det.orientation_settled = 0, False  # each set as a new camera
            sets.append((name, record(det, make(), rec)))
            print(f"  ({name}: {time.time() - t0:.0f} s)", flush=True)
        D.assign_slots = rec.real
        if args.dump:
            with open(args.dump, "wb") as f:
                pickle.dump(sets, f)
    for name, entries in sets:
        report(name, measure(entries))
    print(f"  ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
