"""Where a design's cards go unread: each visible face-up card's true corners read directly.

Usage: python bench/true_corners.py [--decks test|val|NAME,...] [--scenes 40] [--seed 500000] [--model DIR]

For every face-up card of rendered scenes (the renderer's true card outline, not the
locator's), per design and part (whole card or strip): how often the corner readers name
the rank and the suit right and surely (at 0.9), how often the mirrored top-right corner
(the ``top_right`` rule's cut) names the suit right, surely, or surely wrong, and how often
it is sure of a rank (it should never be: a plain top right holds no index), and how often
the index reader (``index_reader`` in the model's vision.json) names the rank right. This
is the diagnosis behind the index reader and the top-right suit (docs/vision-and-training.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
sys.path.insert(0, os.path.dirname(__file__))

from solitaire_coach.vision import detector as D  # noqa: E402
from solitaire_coach.vision import features as F  # noqa: E402
from solitaire_coach.vision.decks import TEST_DECKS, VAL_DECKS  # noqa: E402
from solitaire_coach.vision.render import render_random  # noqa: E402
from vision_bench import _covered  # noqa: E402

SURE = 0.9
# rank / suit: named right by the corner readers; sure: and at SURE or more; TR suit / TR
# sure: the mirrored top-right corner names the suit right (surely); TR wrong: it names
# another suit surely; TR rank: it is sure of some rank; idx rank: the index reader names
# the rank right
COLUMNS = ("rank", "rank sure", "suit", "suit sure", "TR suit", "TR sure", "TR wrong", "TR rank", "idx rank")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decks", default="test", help="test, val, or deck names separated by commas")
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--seed", type=int, default=500000)
    ap.add_argument("--model", default=None, help="model folder (default: the shipped models/)")
    args = ap.parse_args(argv)
    decks = list({"test": TEST_DECKS, "val": VAL_DECKS}.get(args.decks, args.decks.split(",")))
    det = D.CardDetector(args.model)
    counts: dict[tuple[str, str], np.ndarray] = defaultdict(lambda: np.zeros(len(COLUMNS) + 1))
    for n in range(args.scenes):
        img, truth = render_random(args.seed + n, 1280, 720, decks=decks, hand_p=0.0)
        for t in truth.cards:
            if t.card is None or not t.visible:
                continue
            q = t.full_quad
            u, v = q[1] - q[0], q[3] - q[0]
            cuts = [((q[0][0], q[0][1]), tuple(u), tuple(v)), ((q[1][0], q[1][1]), tuple(-u), tuple(v))]
            _, rank, suit, _ = det.read_cuts(img, cuts)
            r, s = t.card.rank - 1, t.card.suit
            index_rank = np.nan
            if det.band_reader is not None:
                session, geom = det.band_reader
                ir, _ = session.run(None, {"face": F.to_tensor(D._cut_patches(img, cuts[:1], geom))})
                index_rank = float(ir[0].argmax() == r)
            row = [
                rank[0].argmax() == r,
                rank[0].argmax() == r and rank[0].max() >= SURE,
                suit[0].argmax() == s,
                suit[0].argmax() == s and suit[0].max() >= SURE,
                suit[1].argmax() == s,
                suit[1].argmax() == s and suit[1].max() >= SURE,
                suit[1].argmax() != s and suit[1].max() >= SURE,
                rank[1].max() >= SURE,
                index_rank,
            ]
            counts[(truth.deck, "strip" if _covered(t) else "whole")] += [1.0, *row]
    print(
        f"true corners of {args.scenes} scenes from seed {args.seed}; sure = at {SURE}; TR = the mirrored top-right corner"
    )
    print(f"  {'deck':24s} {'part':5s} {'cards':>5s} " + " ".join(f"{c:>10.10s}" for c in COLUMNS))
    for (deck, part), c in sorted(counts.items()):
        share = " ".join(f"{x / c[0]:>10.1%}" for x in c[1:])
        print(f"  {deck:24s} {part:5s} {int(c[0]):5d} {share}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
