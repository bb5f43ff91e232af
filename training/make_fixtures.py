"""Write the small rendered fixtures the vision tests use (fixtures/vision/).

Scenes of decks never used in training: our own drawn-11, and gnome-paris when the
rasterised Debian decks are present (training/prepare_decks.py). Usage:
python training/make_fixtures.py
"""

from __future__ import annotations

import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.storage import write_atomic  # noqa: E402
from solitaire_coach.vision.render import TableLayout, render_grid, render_layout  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "vision")


def save(name, img, truth=None):
    write_atomic(
        os.path.join(OUT, name + ".jpg"), cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 88])[1].tobytes()
    )
    if truth is not None:
        data = {
            "deck": truth.deck,
            "snapshot": truth.snapshot.line(),
            "cards": [
                {
                    "card": c.card.code if c.card else "back",
                    "slot": c.slot,
                    "visible": c.visible,
                    "corner": [round(float(v), 1) for v in c.full_quad[0]],
                }
                for c in truth.cards
            ],
        }
        write_atomic(os.path.join(OUT, name + ".json"), json.dumps(data, indent=1) + "\n")
    print("wrote", name)


def main():
    for deck, seed in [("drawn-11", 11), ("drawn-11", 12), ("gnome-paris", 13), ("kde-nicu-white", 14)]:
        rng = np.random.default_rng(seed)
        layout = TableLayout.random(rng)
        try:
            img, truth = render_layout(layout, seed, 1280, 720, deck, difficulty=0.6)
        except FileNotFoundError:
            continue
        save(f"scene_{deck}_{seed}", img, truth)
    img, _ = render_grid(21, "drawn-11", 1280, 720, difficulty=0.4)
    save("grid_drawn-11", img)


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(
        description="Write the rendered fixtures the vision tests use into fixtures/vision/ "
        "(deterministic: the files come out the same each time)."
    ).parse_args()
    main()
