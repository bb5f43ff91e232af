"""Benchmark: how far the detector's stock pile (``stock_seen``) and face-down counts
(``down``) can be trusted, on rendered scenes with their ground truth.

Three sets of scenes, none with a hand:

* ``games``: positions along games the baseline plays from seeded deals (a fresh deal
  first), filmed by a camera on a stand (``render_layout(steady=True)``) in our own
  drawn decks, as the recorded games are: what the live coach sees;
* ``held-out``: random layouts in the deck designs held out of training (``TEST_DECKS``);
* ``any back``: the same with ``variety=1`` (backs of any kind, dark mats, cards askew).

For each model it prints: the stock read right (a pile seen where the stock holds cards,
none seen where it is empty) as a confusion table; how often "a pile seen" and "none
seen" were right; per column the face-down count right, too low and too high; scenes with
all seven counts right; on fresh deals the counts 0 1 2 3 4 5 6 and the pile; and, for the
games, what the live coach's join does with the counts as a hint
(:func:`solitaire_coach.core.join.join_with_hint`): taken and right, taken and wrong, or
left for the fewest that fit. ``--causes`` also groups the columns counted wrong by why:
the column's cards not slotted to it, the frame read turned, no face-up card found in the
column, the first face-up card's mark not on it, or every mark in place and the count still
wrong (the strip pitch, the row, the rounding: what the counting itself gets wrong).

Run:  python bench/stock_down_bench.py [--scenes 60] [--games 6] [--causes] [--model models models/v1 ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.core.baseline import BaselineStrategy  # noqa: E402
from solitaire_coach.core.join import TableView, join_with_hint  # noqa: E402
from solitaire_coach.core.state import GameState, deal_for_seed  # noqa: E402
from solitaire_coach.vision import detector as D  # noqa: E402
from solitaire_coach.vision.decks import TEST_DECKS  # noqa: E402
from solitaire_coach.vision.render import TableLayout, render_layout, render_random  # noqa: E402

GAME_DECKS = ("drawn-3", "drawn-5", "drawn-7", "drawn-11")


def game_scenes(games: int, every: int, seed: int):
    """(image, layout, fresh, truth) along ``games`` baseline games: the deal, then every ``every`` moves."""
    strategy = BaselineStrategy()
    for g in range(games):
        state = GameState.from_deal(deal_for_seed(seed + g))
        deck = GAME_DECKS[g % len(GAME_DECKS)]
        moves = 0
        while True:
            if moves % every == 0:
                layout = TableLayout.from_state(state)
                img, truth = render_layout(layout, seed + 100 * g, 960, 540, deck=deck, difficulty=0.3, steady=True)
                yield img, layout, moves == 0, truth
            advice = strategy.advise(state)
            if advice.move is None or moves >= 120:
                break
            state = state.play(advice.move)
            moves += 1


def random_scenes(count: int, seed: int, variety: float):
    """(image, layout, fresh, truth) of ``count`` random held-out-design scenes."""
    for n in range(count):
        img, truth = render_random(seed + n, 1280, 720, decks=list(TEST_DECKS), hand_p=0.0, variety=variety)
        layout = truth.layout
        yield img, layout, layout.down == (0, 1, 2, 3, 4, 5, 6) and not any(len(r) > 1 for r in layout.up), truth


CAUSES = (
    "not slotted to it",
    "frame read turned",
    "no face-up card found",
    "first face-up card's mark not on it",
    "marks in place, count wrong",
)


def wrong_cause(res, truth, column: int, turned: bool) -> str:
    """Why ``column`` (1..7) was counted wrong (one of ``CAUSES``), from the cards the detector
    slotted to it and the scene's truth."""
    cards = [d for d in res.cards if d.slot == f"column {column}"]
    if not cards:
        return CAUSES[0]
    if turned:
        return CAUSES[1]
    faces = sorted(float(d.quad[0][1]) for d in cards if d.face_up)
    if not faces:
        return CAUSES[2]
    mine = [t for t in truth.cards if t.slot == f"column {column}"]
    height = float(np.median([t.full_quad[3][1] - t.full_quad[0][1] for t in truth.cards]))
    first = min((float(t.full_quad[0][1]) for t in mine if t.card is not None), default=None)
    if first is not None and abs(faces[0] - first) > 0.05 * height:
        return CAUSES[3]
    return CAUSES[4]


def measure(det, scenes, hint: bool, causes: bool = False) -> Counter:
    """The counts of one model over one set of scenes."""
    c = Counter()
    for img, layout, fresh, truth in scenes:
        res = det.detect(img)
        pile = layout.stock > 0
        c[f"stock {'pile' if pile else 'empty'} seen {'pile' if res.stock_seen else 'none'}"] += 1
        c["scenes"] += 1
        if not res.stock_seen:
            backs = any(not d.face_up and d.slot.startswith("column") for d in res.cards)
            c[f"none seen, backs elsewhere {backs}"] += 1
            c[f"none seen, backs elsewhere {backs}, right"] += not pile
        right = 0
        for k, (want, got) in enumerate(zip(layout.down, res.down), 1):
            c["columns"] += 1
            c["down right" if got == want else ("down low" if got < want else "down high")] += 1
            right += got == want
            if causes and got != want:
                c["cause " + wrong_cause(res, truth, k, det.orientation != 0)] += 1
        c["all 7 right"] += right == 7
        if fresh:
            c["fresh deals"] += 1
            c["fresh deals down right"] += res.down == layout.down
            c["fresh deals pile seen"] += res.stock_seen
        if hint and all(r or not d for r, d in zip(layout.up, layout.down)):
            # the join the live coach makes from this table (read right), the counts a hint
            snap = layout.snapshot()
            view = TableView.of_snapshot(snap)
            try:
                join = join_with_hint(view, tuple(res.down))
            except ValueError:
                c["join refused"] += 1
                continue
            c["joins"] += 1
            c["fewest alone right"] += join_with_hint(view, None).down == layout.down
            if "do not fit" in join.assumed:
                c["hint left, fewest assumed"] += 1
                c["fewest right"] += join.down == layout.down
            else:
                c["hint taken, right" if join.down == layout.down else "hint taken, wrong"] += 1
    return c


def report(name: str, c: Counter) -> None:
    pile_pile, pile_none = c["stock pile seen pile"], c["stock pile seen none"]
    empty_pile, empty_none = c["stock empty seen pile"], c["stock empty seen none"]
    n = max(1, c["scenes"])
    print(
        f"  {name}: {c['scenes']} scenes; stock right {(pile_pile + empty_none) / n:.1%} "
        f"(pile: seen {pile_pile}/{pile_pile + pile_none}; empty: none seen {empty_none}/{empty_pile + empty_none}); "
        f"'pile seen' right {pile_pile}/{pile_pile + empty_pile}, 'none seen' right {empty_none}/{empty_none + pile_none}"
    )
    print(
        "    'none seen' right where backs were found in the columns "
        f"{c['none seen, backs elsewhere True, right']}/{c['none seen, backs elsewhere True']}, where none were "
        f"{c['none seen, backs elsewhere False, right']}/{c['none seen, backs elsewhere False']}"
    )
    cols = max(1, c["columns"])
    print(
        f"    face-down counts: columns right {c['down right'] / cols:.1%} (too low {c['down low'] / cols:.1%}, "
        f"too high {c['down high'] / cols:.1%}); scenes with all 7 right {c['all 7 right'] / n:.1%}; "
        f"fresh deals: counts right {c['fresh deals down right']}/{c['fresh deals']}, "
        f"pile seen {c['fresh deals pile seen']}/{c['fresh deals']}"
    )
    if any(c["cause " + k] for k in CAUSES):
        print("    columns counted wrong, by cause: " + "; ".join(f"{k} {c['cause ' + k]}" for k in CAUSES))
    if c["joins"] or c["join refused"]:
        print(
            f"    join with the counts as a hint: {c['joins']} joins: taken and right {c['hint taken, right']}, "
            f"taken and wrong {c['hint taken, wrong']}, left for the fewest {c['hint left, fewest assumed']} "
            f"(the fewest right {c['fewest right']}); refused {c['join refused']}; the fewest alone (no hint) "
            f"right {c['fewest alone right']}"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=60, help="random scenes per held-out set (default 60)")
    ap.add_argument("--games", type=int, default=6, help="baseline games for the games set (default 6)")
    ap.add_argument("--every", type=int, default=6, help="games: a picture every N moves (default 6)")
    ap.add_argument("--seed", type=int, default=500000, help="first seed (default 500000)")
    ap.add_argument("--causes", action="store_true", help="group the columns counted wrong by cause")
    ap.add_argument(
        "--model",
        nargs="*",
        default=None,
        help="model folders (default: the shipped one and models/v1, the first model)",
    )
    args = ap.parse_args(argv)
    root = os.path.join(os.path.dirname(__file__), "..")
    models = args.model or [str(D.default_model_dir()), os.path.join(root, "models", "v1")]
    for model in models:
        det = D.CardDetector(model)
        print(f"model {os.path.relpath(model, root)}", flush=True)
        t0 = time.time()
        sets = [
            ("games (steady camera, drawn decks)", game_scenes(args.games, args.every, args.seed), True),
            ("held-out designs", random_scenes(args.scenes, args.seed, 0.0), False),
            ("held-out designs, any back (variety 1)", random_scenes(args.scenes, args.seed, 1.0), False),
        ]
        for name, scenes, hint in sets:
            det.orientation, det.orientation_settled = 0, False  # each set as a new camera
            report(name, measure(det, scenes, hint, args.causes))
        print(f"  ({time.time() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
