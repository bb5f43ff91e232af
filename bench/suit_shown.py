"""Benchmark: how much of each face-up card's suit a rendered layout shows at all.

A ceiling for reading designs never trained on (issue 40). For every visible face-up card
of the scenes ``vision_bench.py`` renders (the same seeds), the part of its face that shows
(a fanned strip's top band, a fanned waste's left band, or the whole card) is compared, at
the card's size in the frame, with the same part of its twin's face: the same rank in the
other suit of its colour (clubs and spades, diamonds and hearts). Where the two parts
differ in few pixels, nothing in the picture tells the suit; no reader can name it, and the
detector must say ``UU`` (a game's tracker still knows the card from when it lay uncovered).

Two levels are printed, from the faces as drawn (before the camera's blur, noise and JPEG,
so an upper bound): the suit *shows a trace* (6 px or more differ by 60 grey levels in some
channel: a pip's tip) and *shows clearly* (20 px or more differ by 90). With ``--read`` the
detector reads the scenes too, and each level is split by what it read (right, UU, wrong).

Run:  python bench/suit_shown.py [--decks test|val|NAMES] [--scenes 100] [--read]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
sys.path.insert(0, os.path.dirname(__file__))

from solitaire_coach.core.cards import Card  # noqa: E402
from solitaire_coach.vision.decks import TEST_DECKS, VAL_DECKS, load_deck  # noqa: E402
from solitaire_coach.vision.render import render_random  # noqa: E402
from vision_bench import _covered, match  # noqa: E402

TWIN_SUIT = {0: 3, 3: 0, 1: 2, 2: 1}  # C<->S, D<->H
LEVELS = {"trace": (60, 6), "clearly": (90, 20)}  # (grey levels, pixels) a suit must differ by


def shown_part(face: np.ndarray, width_px: int, shown_w: float, shown_h: float) -> np.ndarray:
    """``face`` scaled to ``width_px`` wide (area averaging) and cut to the ``shown_w`` x
    ``shown_h`` fractions of it that show (from its top-left corner), as float32."""
    h = max(1, int(round(width_px * face.shape[0] / face.shape[1])))
    f = cv2.resize(face, (max(1, width_px), h), interpolation=cv2.INTER_AREA).astype(np.float32)
    return f[: max(1, int(shown_h * h)), : max(1, int(shown_w * width_px))]


def suit_shows(deck, card: Card, width_px: int, shown_w: float, shown_h: float) -> dict[str, bool]:
    """For each of :data:`LEVELS`, whether the part of ``card``'s face that shows differs
    from the same part of its twin's face by that level."""
    twin = Card.parse(str(card)[:-1] + "CDHS"[TWIN_SUIT[card.suit]])
    a = shown_part(deck.face(card), width_px, shown_w, shown_h)
    b = shown_part(deck.face(twin), width_px, shown_w, shown_h)
    diff = np.abs(a - b).max(axis=2)
    return {name: int((diff > grey).sum()) >= px for name, (grey, px) in LEVELS.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="How much of each face-up card's suit rendered layouts show.")
    ap.add_argument("--decks", default="test", help="test, val, or deck names separated by commas (default test)")
    ap.add_argument("--scenes", type=int, default=100)
    ap.add_argument("--seed", type=int, default=500000, help="seed of the first scene (vision_bench's default)")
    ap.add_argument("--read", action="store_true", help="also read the scenes with the shipped detector")
    ap.add_argument("--model", help="model folder for --read (default: the shipped one)")
    args = ap.parse_args(argv)
    decks = {"test": list(TEST_DECKS), "val": list(VAL_DECKS)}.get(args.decks) or args.decks.split(",")
    det = None
    if args.read:
        from solitaire_coach.vision.detector import CardDetector

        det = CardDetector(args.model)
    counts: dict[tuple[str, str], Counter] = {}
    for n in range(args.scenes):
        img, truth = render_random(args.seed + n, 1280, 720, decks=decks, hand_p=0.0)
        deck = load_deck(truth.deck)
        marks = {}
        if det is not None:
            det.orientation, det.orientation_settled = 0, True  # as vision_bench reads: upright
            pairs, _ = match(truth, det.detect(img).cards)
            marks = {id(t): m for t, m in pairs}
        for t in truth.cards:
            if t.card is None or not t.visible:
                continue
            full, vis = np.asarray(t.full_quad, np.float64), np.asarray(t.quad, np.float64)
            width = float(np.linalg.norm(full[1] - full[0]))
            shown_w = min(1.0, float(np.linalg.norm(vis[1] - vis[0])) / width)
            shown_h = min(1.0, float(np.linalg.norm(vis[3] - vis[0]) / np.linalg.norm(full[3] - full[0])))
            part = "strip" if _covered(t) else "whole"
            c = counts.setdefault((truth.deck, part), Counter())
            c["cards"] += 1
            shows = suit_shows(deck, t.card, int(round(width)), shown_w, shown_h)
            m = marks.get(id(t))
            read = (
                ""
                if det is None
                else ("UU" if m is None or m.card is None else "right" if m.card is t.card else "wrong")
            )
            for level, yes in shows.items():
                if yes:
                    c[level] += 1
                    if read:
                        c[f"{level} {read}"] += 1
    print(f"decks: {', '.join(decks)}  scenes: {args.scenes} (seeds from {args.seed})")
    head = f"  {'deck':24s} {'part':5s} {'cards':>6s} {'trace':>7s} {'clearly':>8s}"
    if det is not None:
        head += "   clearly shown: read right / UU / wrong"
    print("share of face-up cards whose suit the picture shows (a trace: a pip's tip; clearly: 20 px):")
    print(head)
    total = Counter()
    for (dk, part), c in sorted(counts.items()):
        total.update(c)
        n = c["cards"]
        line = f"  {dk:24s} {part:5s} {n:6d} {c['trace'] / n:7.1%} {c['clearly'] / n:8.1%}"
        if det is not None:
            k = max(1, c["clearly"])
            line += "   " + " / ".join(f"{c[f'clearly {r}'] / k:.1%}" for r in ("right", "UU", "wrong"))
        print(line)
    n = max(1, total["cards"])
    print(
        f"all {total['cards']} face-up cards: suit shows a trace {total['trace'] / n:.2%}, clearly {total['clearly'] / n:.2%}"
    )


if __name__ == "__main__":
    main()
