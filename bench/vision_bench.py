"""Benchmark the card detector on rendered scenes of deck designs held out of training.

Usage: python bench/vision_bench.py [--decks test|val|NAME,...] [--scenes 200] [--seed 500000]
       [--model DIR] [--calibrate [--write]] [--learn] [--breakdown]
       python bench/vision_bench.py --games fixtures/games [--model DIR]

Prints per-card accuracy (face-up cards whose corner is visible), unreadable (UU) and
wrong rates, per-slot accuracy and whole-snapshot exact rate, the confusions of the hard
pairs, and detection latency. ``--calibrate`` picks the UU threshold on these scenes
(use --decks val) and prints it; with ``--write`` it also writes it into the model's
vision.json (saying the old and new values). ``--learn`` first learns each deck from
a rendered 4x13 grid photo and detects with ``deck=``. ``--breakdown`` prints, per deck,
where the face-up cards go (read right, UU, wrong, taken for a back, not found), whole cards and
the strips of covered cards apart. ``--games DIR`` instead reads every
picture of the recorded games in DIR (``gameN/truth.jsonl``: the true 12-slot snapshot of each
picture) and prints, per game and in all, how many of the face-up cards on top of the slots
are read right, UU or wrong, and how many snapshots are exactly right (pictures with and
without a hand apart).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.vision import detector as D  # noqa: E402
from solitaire_coach.vision.decks import TEST_DECKS, VAL_DECKS  # noqa: E402
from solitaire_coach.vision.render import render_grid, render_random  # noqa: E402

PAIRS = [("6", "9"), ("A", "4"), ("8", "3"), ("J", "Q"), ("S", "C"), ("H", "D")]


def match(truth, marks):
    """truth card -> mark (by top-left corner), for visible face-up cards inside the frame."""
    out = []
    used = set()
    for t in truth.cards:
        q = t.full_quad
        w, h = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])
        best, bd = None, 1e9
        for j, m in enumerate(marks):
            if j in used:
                continue
            d = max(abs(m.quad[0][0] - q[0][0]) / w / 0.12, abs(m.quad[0][1] - q[0][1]) / h / 0.05)
            if d < 1 and d < bd:
                best, bd = j, d
        if best is not None:
            used.add(best)
        out.append((t, marks[best] if best is not None else None))
    return out, len(marks) - len(used)


def bench_games(root: str, model) -> None:
    """Per-slot accuracy of the detector on the recorded games' pictures against truth.jsonl."""
    import glob

    import cv2

    from solitaire_coach.core.notation import parse_snapshot

    det = D.CardDetector(model)
    total = Counter()
    conf_pairs = Counter()
    games = sorted(glob.glob(os.path.join(root, "*", "truth.jsonl")))
    if not games:
        raise SystemExit(f"no */truth.jsonl under {root}")
    for tpath in games:
        g = Counter()
        folder = os.path.dirname(tpath)
        with open(tpath, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        for row in rows:
            img = cv2.imread(os.path.join(folder, row["file"]), cv2.IMREAD_COLOR)
            if img is None:
                raise SystemExit(f"{folder}: cannot read picture {row['file']}")
            res = det.detect(img)
            truth = parse_snapshot(row["snapshot"]).slots
            got = res.snapshot.slots
            hand = "hand" if row.get("hand") else "still"
            exact = True
            for t, d in zip(truth, got):
                tc, dc = getattr(t, "code", str(t)), getattr(d, "code", str(d))
                if tc == "XX":
                    g["empty"] += 1
                    g["empty right"] += dc == "XX"
                    exact &= dc == "XX"
                    continue
                g[f"cards {hand}"] += 1
                if dc == tc:
                    g[f"right {hand}"] += 1
                elif dc == "UU":
                    g[f"UU {hand}"] += 1
                    exact = False
                elif dc == "XX":
                    g[f"missed {hand}"] += 1
                    exact = False
                else:
                    g[f"wrong {hand}"] += 1
                    conf_pairs[f"{tc}->{dc}"] += 1
                    exact = False
            g[f"pictures {hand}"] += 1
            g[f"exact {hand}"] += exact
        total.update(g)
        _print_games(os.path.basename(folder), g)
    _print_games("all", total)
    print("wrong reads:", dict(conf_pairs.most_common(20)))


def _print_games(name: str, g: Counter) -> None:
    parts = []
    for hand in ("still", "hand"):
        n = max(1, g[f"cards {hand}"])
        parts.append(
            f"{hand}: {g[f'pictures {hand}']} pictures, top cards {g[f'cards {hand}']}: right "
            f"{g[f'right {hand}'] / n:.2%} UU {g[f'UU {hand}'] / n:.2%} wrong {g[f'wrong {hand}'] / n:.2%} "
            f"missed {g[f'missed {hand}'] / n:.2%}, snapshots exact "
            f"{g[f'exact {hand}'] / max(1, g[f'pictures {hand}']):.1%}"
        )
    print(f"{name}: " + " | ".join(parts) + f" | empty slots right {g['empty right']}/{g['empty']}", flush=True)


def _covered(t) -> bool:
    """Whether a true card is covered by the next one (only its strip shows): its visible
    part is clearly smaller than the whole card."""

    def area(q):
        q = np.asarray(q, np.float64)
        x, y = q[:, 0], q[:, 1]
        return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))

    return area(t.quad) < 0.9 * area(t.full_quad)


def print_breakdown(per_deck: dict) -> None:
    """Per deck, whole cards and strips apart: the share of face-up cards read right, UU,
    read wrong, taken for a back, and not found by the locator."""
    print("breakdown (share of each deck's face-up cards; whole = uncovered, strip = covered by the next card):")
    print(
        f"  {'deck':24s} {'part':5s} {'cards':>6s} {'right':>7s} {'UU':>7s} {'wrong':>7s} {'back':>7s} {'missed':>7s}"
    )
    for k, v in sorted(per_deck.items()):
        for part in ("whole", "strip"):
            n = max(1, v[part])
            print(
                f"  {k:24s} {part:5s} {v[part]:6d} "
                + " ".join(f"{v[f'{what} {part}'] / n:7.1%}" for what in ("right", "UU", "wrong", "back", "missed"))
            )


def calibrate(c: np.ndarray, limit: float, split: bool = False) -> tuple[float, float, int, int]:
    """The read threshold (rows of ``c``: confidence, right, strip) that reads the most cards
    with at most ``limit`` wrong reads in all (never below 0.3); with ``split`` one for whole
    cards and one for strips, picked together."""

    def curve(rows):
        """Cut points of the confidence-sorted reads: threshold, cards read, wrong reads (a
        threshold reads every card of its confidence, so ties are never split)."""
        rows = rows[np.argsort(-rows[:, 0], kind="stable")]
        wrong = np.concatenate([[0], np.cumsum(1 - rows[:, 1])])
        thr = np.concatenate([[1.0 + 1e-6], np.maximum(rows[:, 0], 0.3)])
        n = np.arange(len(rows) + 1)
        ok = np.ones(len(n), bool)
        ok[1:-1] = thr[1:-1] > thr[2:]
        return thr[ok], n[ok], wrong[ok]

    if not split:
        t, n, w = curve(c)
        k = int(np.searchsorted(w, limit, side="right")) - 1
        return float(t[k]), float(t[k]), int(n[k]), int(w[k])
    t_top, n_top, w_top = curve(c[c[:, 2] == 0])
    t_str, n_str, w_str = curve(c[c[:, 2] == 1])
    best = (-1, 0, 0)
    for i in range(len(t_top)):
        if w_top[i] > limit:
            break
        j = int(np.searchsorted(w_str, limit - w_top[i], side="right")) - 1
        if n_top[i] + n_str[j] > best[0]:
            best = (n_top[i] + n_str[j], i, j)
    _, i, j = best
    return float(t_top[i]), float(t_str[j]), int(n_top[i] + n_str[j]), int(w_top[i] + w_str[j])


def main():
    ap = argparse.ArgumentParser(
        description="Benchmark the card detector on rendered scenes of held-out deck "
        "designs, or on the recorded games (--games)."
    )
    ap.add_argument("--decks", default="test", help="test, val, or deck names separated by commas (default test)")
    ap.add_argument("--scenes", type=int, default=200, help="scenes to render (default 200)")
    ap.add_argument("--seed", type=int, default=500000, help="seed of the first scene (default 500000)")
    ap.add_argument("--model", help="model folder (default: the shipped models/)")
    ap.add_argument("--calibrate", action="store_true", help="pick the read thresholds on these scenes and print them")
    ap.add_argument("--write", action="store_true", help="with --calibrate: write them into the model's vision.json")
    ap.add_argument("--max-wrong", type=float, default=0.0005, help="wrong-read share allowed when calibrating")
    ap.add_argument(
        "--split-thresh",
        action="store_true",
        help="calibrate: one threshold for whole cards, another for strips (default: one for both)",
    )
    ap.add_argument("--learn", action="store_true", help="learn each deck from a rendered grid photo first")
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="per deck: where the face-up cards not read go (missed, taken for a back, UU, wrong), whole cards and strips apart",
    )
    ap.add_argument("--hand", type=float, default=0.0, help="share of scenes with a hand over the table")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument(
        "--askew",
        type=float,
        default=None,
        help="the spread (degrees) of the cards' turns on the table in every scene (each at most 30); "
        "prints read right by how far a card is turned",
    )
    ap.add_argument(
        "--spread",
        type=float,
        default=0.0,
        help="share of scenes of cards spread in rows fanned sideways or long tight columns "
        "(render.render_spread); their snapshots are not counted (they are no layout)",
    )
    ap.add_argument("--games", help="read the recorded games under this folder (gameN/truth.jsonl) instead")
    args = ap.parse_args()
    if args.games:
        bench_games(args.games, args.model)
        return
    decks = {"test": list(TEST_DECKS), "val": list(VAL_DECKS)}.get(args.decks) or args.decks.split(",")
    W, H = (int(v) for v in args.size.split("x"))
    base = D.CardDetector(args.model)
    if args.calibrate:
        base.read_thresh = base.strip_thresh = 0.0
    dets = {}
    if args.learn:
        import tempfile

        from solitaire_coach.vision.learn import learn_deck

        os.environ["SOLITAIRE_DECK_REFS"] = tempfile.mkdtemp(prefix="bench-decks-")  # not calibration/
        for i, dk in enumerate(decks):
            img, _ = render_grid(args.seed + 10_000 + i, dk)
            t_learn = time.time()
            try:
                info = learn_deck(img, f"bench-{dk}", base)
            except ValueError as exc:
                print(f"learn-deck failed on {dk}: {exc}")
                continue
            print(
                f"learnt {dk}: shipped model alone read {info['model_read_right_before']}/52; thresholds "
                f"{info.get('read_thresh')} whole, {info.get('read_thresh_strip')} strips "
                f"(practice layouts: {info.get('practice_read')} of {info.get('practice_cards')} cards read right; "
                f"hard cards {info.get('hard_cards')}; {time.time() - t_learn:.0f} s)",
                flush=True,
            )
            det = D.CardDetector(args.model, deck=f"bench-{dk}")
            if args.calibrate:
                det.read_thresh = det.strip_thresh = 0.0
            dets[dk] = det
    per_deck: dict[str, Counter] = {}
    stats = Counter()
    confs = []  # (confidence, right, read from a strip) for every matched face-up card
    conf_pairs = Counter()
    times = []
    t0 = time.time()
    for n in range(args.scenes):
        seed = args.seed + n
        img, truth = render_random(seed, W, H, decks=decks, hand_p=args.hand, askew=args.askew, spread_p=args.spread)
        det = dets.get(truth.deck, base)
        res = det.detect(img)
        times.append(res.elapsed_ms)
        pairs, extra = match(truth, res.cards)
        dstat = per_deck.setdefault(truth.deck, Counter())
        stats["extra marks"] += extra
        for t, m in pairs:
            if t.card is None:
                stats["backs"] += 1
                stats["backs found"] += m is not None and not m.face_up
                continue
            if not t.visible:
                continue
            stats["face cards"] += 1
            dstat["face"] += 1
            (tx, ty), (rx, ry) = t.full_quad[0], t.full_quad[1]
            turn = f"turned {min(20, int(abs(np.degrees(np.arctan2(ry - ty, rx - tx)))) // 10 * 10)}+"
            stats[turn] += 1
            stats[f"{turn} right"] += m is not None and m.face_up and m.card is t.card
            part = "strip" if _covered(t) else "whole"
            dstat[part] += 1
            if m is None:
                stats["missed"] += 1
                dstat[f"missed {part}"] += 1
                continue
            if not m.face_up:
                stats["read as back"] += 1
                dstat[f"back {part}"] += 1
                continue
            right = m.card is t.card
            if args.calibrate or m.card is not None:
                confs.append((m.confidence, right, m.strip))
            if m.card is None:
                stats["UU"] += 1
                dstat[f"UU {part}"] += 1
            elif right:
                stats["right"] += 1
                dstat["right"] += 1
                dstat[f"right {part}"] += 1
            else:
                stats["wrong"] += 1
                dstat["wrong"] += 1
                dstat[f"wrong {part}"] += 1
                a, b = t.card.code, m.card.code
                for x, y in PAIRS:
                    if {a[0], b[0]} == {x, y} or ({a[1], b[1]} == {x, y} and a[0] == b[0]):
                        conf_pairs[f"{x}/{y}"] += 1
                if len(conf_pairs) < 50:
                    conf_pairs[f"{a}->{b}"] += 1
        if any(c.slot for c in truth.cards) or not truth.cards:  # a spread of cards has no slots
            ts, ds = truth.snapshot.slots, res.snapshot.slots
            ok = [a is b or (getattr(a, "code", a) == getattr(b, "code", b)) for a, b in zip(ts, ds)]
            stats["slots"] += 12
            stats["slots right"] += sum(ok)
            stats["snapshots"] += 1
            stats["snapshots exact"] += all(ok)
        if (n + 1) % 50 == 0:
            print(f"{n + 1}/{args.scenes} scenes  {time.time() - t0:.0f}s", flush=True)
    fc = max(1, stats["face cards"])
    print(f"decks: {', '.join(decks)}  scenes: {args.scenes} at {W}x{H}  (hand share {args.hand})")
    print(
        f"face-up cards: {stats['face cards']}  read right {stats['right'] / fc:.4%}  UU {stats['UU'] / fc:.4%}  "
        f"wrong {stats['wrong'] / fc:.4%}  missed {stats['missed'] / fc:.4%}  read as back {stats['read as back'] / fc:.4%}"
    )
    print(f"backs found {stats['backs found']}/{stats['backs']}  extra marks {stats['extra marks']}")
    if stats["snapshots"]:
        print(
            f"slots right {stats['slots right'] / stats['slots']:.4%}  snapshots exact "
            f"{stats['snapshots exact'] / stats['snapshots']:.4%}"
        )
    else:
        print("slots: no layout among these scenes (spreads of cards have none)")
    print(
        "per deck (read right / wrong):",
        ", ".join(
            f"{k} {v['right'] / max(1, v['face']):.1%}/{v['wrong'] / max(1, v['face']):.1%}"
            for k, v in sorted(per_deck.items())
        ),
    )
    print(
        "read right by turn on the table (degrees):",
        ", ".join(
            f"{k} {stats[f'{k} right'] / stats[k]:.1%} of {stats[k]}"
            for k in ("turned 0+", "turned 10+", "turned 20+")
            if stats[k]
        ),
    )
    if args.breakdown:
        print_breakdown(per_deck)
    print("hard pairs (wrong reads either way):", ", ".join(f"{x}/{y} {conf_pairs[f'{x}/{y}']}" for x, y in PAIRS))
    print("confusions:", dict(conf_pairs.most_common(20)))
    print(f"latency ms: median {np.median(times):.1f}  p90 {np.percentile(times, 90):.1f}")
    if args.calibrate and confs:
        rows = np.array(confs, np.float64)
        for t in (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
            sel = rows[:, 0] >= t
            print(
                f"   at {t:.2f}: read {np.sum(sel & (rows[:, 1] == 1)) / fc:.2%}, "
                f"wrong {np.sum(sel & (rows[:, 1] == 0)) / fc:.2%}"
            )
        thr, thr_strip, n_read, n_wrong = calibrate(np.array(confs, np.float64), args.max_wrong * fc, args.split_thresh)
        print(
            f"calibrated read thresholds: whole cards {thr:.4f}, strips {thr_strip:.4f}: would read "
            f"{n_read / fc:.4%}, wrong {n_wrong / fc:.4%}"
        )
        path = os.path.join(args.model or str(D.default_model_dir()), "vision.json")
        suffix = "_learnt" if args.learn else ""
        if not args.write:
            print(f"not written (add --write to put them into {path})")
            return
        cfg = json.load(open(path)) if os.path.exists(path) else {}
        for key, value in (("read_thresh" + suffix, thr), ("read_thresh_strip" + suffix, thr_strip)):
            print(f"{key}: {cfg.get(key)} -> {round(value, 4)}")
            cfg[key] = round(value, 4)
        from solitaire_coach.storage import write_json_atomic

        write_json_atomic(path, cfg)
        print("wrote", path)


if __name__ == "__main__":
    try:
        main()
    except FileNotFoundError as exc:  # a deck or game folder that is not there: said, not a traceback
        sys.exit(f"vision_bench: {exc}")
