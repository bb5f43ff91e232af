"""The small suit read at a card's top right (issue 40: designs like tango_nuevo print it
there, level with the rank, and nothing under the rank), and the font designs' hooks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from solitaire_coach.core.cards import Card
from solitaire_coach.vision import detector as D
from solitaire_coach.vision.decks import FONTS_FROM, DrawnDeck

# a drawn design of the font styles' layout with the small suit at the top right; never
# trained on (training/make_font_decks.py draws drawn-300..449)
TOP_RIGHT_DECK = "drawn-503"


def _linked(tmp_path, top_right):
    d = tmp_path / "m"
    d.mkdir()
    models = D.repo_root() / "models"
    for f in models.glob("*.onnx"):
        (d / f.name).symlink_to(f)
    cfg = json.loads((models / "vision.json").read_text())
    cfg["top_right"] = top_right
    (d / "vision.json").write_text(json.dumps(cfg))
    return d


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"suit_sure": 0.9, "thresh": 0.9}, "top_right must hold suit_sure, rank_none and thresh"),
        ({"suit_sure": 0.9, "rank_none": 0.5, "thresh": 2}, "top_right's thresh must be a number from 0 to 1, not 2"),
        ({"suit_sure": True, "rank_none": 0.5, "thresh": 0.9}, "top_right's suit_sure must be a number"),
        ([0.9], "top_right must hold"),
    ],
)
def test_top_right_settings_are_checked(tmp_path, entry, why):
    with pytest.raises(D.ModelError, match=r"vision.json: " + why.replace("(", r"\(")):
        D.CardDetector(_linked(tmp_path, entry))


def test_a_card_covered_at_its_top_right_is_not_asked():
    m = D._Mark(100, 100, 60, 84, 1.0, kind=0)
    waste_next = D._Mark(120, 100, 60, 84, 1.0, kind=0)  # fanned to the right, over its top right
    column_next = D._Mark(100, 125, 60, 84, 1.0, kind=0)  # fanned down: the top right shows
    beside = D._Mark(175, 100, 60, 84, 1.0, kind=0)  # the next column
    assert D._covered_right(m, [m, waste_next])
    assert not D._covered_right(m, [m, column_next, beside])


def test_font_designs_write_the_rank_with_the_glyphs_given_and_may_print_the_suit_top_right():
    """DrawnDeck's ``glyphs`` hook draws the index (training/make_font_decks.py passes real
    fonts); the font styles put the small suit at the top right in some designs."""
    calls = []

    def blocks(text: str, height: int, thick: int) -> np.ndarray:
        calls.append((text, height))
        return np.full((height, max(4, height // 2) * len(text)), 255, np.uint8)

    style = next(s for s in range(FONTS_FROM, FONTS_FROM + 40) if DrawnDeck(s)._params()["suit_place"] == 4)
    plain = DrawnDeck(style).face(Card.from_index(12))  # the king of clubs
    drawn = DrawnDeck(style, glyphs=blocks).face(Card.from_index(12))
    assert calls and calls[0][0] == "K" and not np.array_equal(plain, drawn)
    # the top right holds ink (the small suit) in the top fifth of the card
    h, w = plain.shape[:2]
    top_right = plain[: h // 5, int(w * 0.7) :].astype(int)
    paper = np.median(plain[h // 2 - 5 : h // 2 + 5, 2:6].reshape(-1, 3), axis=0)
    assert np.abs(top_right - paper).sum(2).max() > 120
