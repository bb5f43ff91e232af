"""The small suit read at a card's top right (issue 40: designs like tango_nuevo print it
there, level with the rank, and nothing under the rank), and the font designs' hooks."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from solitaire_coach.core.cards import Card
from solitaire_coach.vision import detector as D
from solitaire_coach.vision.decks import FONTS_FROM, DrawnDeck
from solitaire_coach.vision.render import render_random

# a drawn design of the font styles' layout with the small suit at the top right; never
# trained on (training/make_font_decks.py draws drawn-300..449)
TOP_RIGHT_DECK = "drawn-503"


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"suit_sure": 0.9, "thresh": 0.9}, "top_right must hold suit_sure, rank_none and thresh"),
        ({"suit_sure": 0.9, "rank_none": 0.5, "thresh": 2}, "top_right's thresh must be a number from 0 to 1, not 2"),
        ({"suit_sure": True, "rank_none": 0.5, "thresh": 0.9}, "top_right's suit_sure must be a number"),
        ([0.9], "top_right must hold"),
        (
            {"suit_sure": 0.9, "rank_none": 0.5, "thresh": 0.9, "index_sure": 1.5},
            "top_right's index_sure must be a number",
        ),
    ],
)
def test_top_right_settings_are_checked(linked_models, entry, why):
    d, cfg = linked_models
    cfg["top_right"] = entry
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match=r"vision.json: " + why.replace("(", r"\(")):
        D.CardDetector(d)


def test_the_shipped_model_reads_the_top_right_suit_and_asks_the_index_reader():
    det = D.CardDetector()
    rule = det.top_right
    assert rule is not None and rule.thresh >= det.read_thresh and rule.suit_sure >= 0.8
    assert det.band_reader is not None and det.band_reader[1] == det.geom


def test_the_index_readers_rank_stands_alone_only_where_set(linked_models):
    d, cfg = linked_models
    cfg["top_right"] = {k: v for k, v in cfg["top_right"].items() if k != "index_sure"}
    (d / "vision.json").write_text(json.dumps(cfg))
    assert D.CardDetector(d).top_right.index_sure == 1.0  # absent: never
    assert D.CardDetector().top_right.index_sure == 0.9  # the shipped rule


def test_the_index_readers_sure_rank_reads_more_top_right_cards_and_none_wrong(rendered_reads):
    """On frames of a top-right design never trained on whose index font the corner reader
    reads unsure or wrong (drawn-548), taking the index reader's sure rank alone reads more
    cards right and none more wrong (60 held-out scenes of 18 such designs: 71.3% -> 73.4%,
    wrong 0.65% either way; drawn-548 57.1% -> 67.3%)."""
    det = D.CardDetector()
    rule = det.top_right
    det.top_right = dataclasses.replace(rule, index_sure=1.0)
    right0, wrong0 = rendered_reads(det, "drawn-548", range(4))
    det.top_right = rule
    right1, wrong1 = rendered_reads(det, "drawn-548", range(4))
    assert right1 >= right0 + 3 and wrong1 <= wrong0


def test_a_card_covered_at_its_top_right_is_not_asked():
    m = D._Mark(100, 100, 60, 84, 1.0, kind=0)
    waste_next = D._Mark(120, 100, 60, 84, 1.0, kind=0)  # fanned to the right, over its top right
    column_next = D._Mark(100, 125, 60, 84, 1.0, kind=0)  # fanned down: the top right shows
    beside = D._Mark(175, 100, 60, 84, 1.0, kind=0)  # the next column
    assert D._covered_right(m, [m, waste_next])
    assert not D._covered_right(m, [m, column_next, beside])


def _reads_without_and_with_the_rule(det, seeds, truth_card):
    """(seed, read without the top-right rule, read with it, the true card) of every card
    ``det`` finds both times in frames of TOP_RIGHT_DECK rendered from ``seeds``."""
    rule = det.top_right
    det.pips = det.pip_reader = None  # the pips read some of the same cards: the rule alone here
    out = []
    for seed in seeds:
        img, truth = render_random(seed, 1280, 720, decks=[TOP_RIGHT_DECK], hand_p=0.0)
        det.top_right = None
        before = {(round(float(c.quad[0][0])), round(float(c.quad[0][1]))): c for c in det.detect(img).cards}
        det.top_right = rule
        for c in det.detect(img).cards:
            b = before.get((round(float(c.quad[0][0])), round(float(c.quad[0][1]))))
            if b is not None:
                out.append((seed, b, c, truth_card(truth, c)))
    return out


def test_a_suit_printed_at_the_top_right_is_read_there(truth_card):
    """On frames of a design whose small suit lies at the top right (the corner patch sees
    the rank and no suit; never trained on), the shipped rule reads cards the corners alone
    leave UU, each one right, and a card read without the rule keeps its read."""
    det = D.CardDetector()
    det.askew_turn, det.turn_tries, det.familiar = 0.0, (), None
    gained = 0
    for seed, b, c, true in _reads_without_and_with_the_rule(det, range(3), truth_card):
        if b.card is not None:
            assert c.card is b.card
        elif c.card is not None:
            assert c.card is true, (seed, c.code)
            gained += 1
    assert gained >= 3


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


def test_a_learnt_deck_reads_the_top_right_suit_too(tmp_path, monkeypatch, truth_card):
    """A deck learnt with learn-deck whose small suit lies at the top right: its learnt reads
    leave cards UU that the top-right rule then reads, each one right."""
    from solitaire_coach.vision import learn as L
    from solitaire_coach.vision.render import render_grid

    monkeypatch.setenv("SOLITAIRE_DECK_REFS", str(tmp_path))
    monkeypatch.setattr(L, "MODEL_KNOWS_DECK", 53)  # learnt even where the shipped model reads it
    grid_img, _ = render_grid(4712, TOP_RIGHT_DECK)
    L.learn_deck(grid_img, "corner-suit", D.CardDetector(), scenes=6, check_scenes=4)
    det = D.CardDetector(deck="corner-suit")
    assert det.refs is not None or det.head is not None
    gained = 0
    for seed, b, c, true in _reads_without_and_with_the_rule(det, range(2), truth_card):
        if b.card is None and c.card is not None:
            assert c.card is true, (seed, c.code)
            gained += 1
    assert gained >= 1


def _make_font_decks():
    """training/make_font_decks.py as a module (it needs Pillow and fonts only to draw)."""
    from repo_scripts import load_script

    return load_script("training/make_font_decks.py")


def test_a_font_design_may_write_its_courts_in_cyrillic():
    """DrawnDeck's ``letters`` replace the design's court letters (training/make_font_decks.py
    gives some font designs the Russian Т В Д К, which the Hershey fonts cannot write)."""
    mfd = _make_font_decks()
    calls = []

    def blocks(text: str, height: int, thick: int) -> np.ndarray:
        calls.append(text)
        return np.full((height, max(4, height // 2) * len(text)), 255, np.uint8)

    deck = DrawnDeck(FONTS_FROM + 1, glyphs=blocks, letters=mfd.CYRILLIC)
    for code in ("AS", "JH", "QD", "KC", "7C"):
        deck.face(Card.parse(code))
    assert list(dict.fromkeys(c for c in calls if c in mfd.CYRILLIC)) == list(mfd.CYRILLIC)
    assert "7" in calls
    assert DrawnDeck(FONTS_FROM + 1)._params().get("letters") != mfd.CYRILLIC


def test_a_font_without_cyrillic_letters_is_not_asked_to_write_them():
    mfd = _make_font_decks()
    box = np.full((40, 30), 255, np.uint8)
    assert not mfd.writes(lambda text, h, t: box.copy(), mfd.CYRILLIC)  # one "missing" box for all
    assert mfd.writes(lambda text, h, t: np.full((40, 20 + ord(text) % 7), 255, np.uint8), mfd.CYRILLIC)


def _top_right_read(card_suit, top_right_suit, rank=13):
    """The card the top-right rule makes of one whole, uncovered mark whose readers agreed on
    ``rank``, whose corners give the suits ``card_suit`` (C D H S) and whose mirrored top
    right shows ``top_right_suit`` and no rank; None where it stays UU."""
    det = D.CardDetector()
    m = D._Mark(100, 100, 60, 84, 1.0, kind=0)
    rank_p = np.full(13, 0.01)
    rank_p[rank - 1] = 0.88
    probs = (np.asarray(card_suit, float)[:, None] * rank_p[None, :]).reshape(1, 52)
    kind = np.array([[0.99, 0.005, 0.005]])
    suit2 = np.asarray([top_right_suit], np.float32)
    det.read_cuts = lambda frame, cuts: (kind, np.full((1, 13), 1 / 13, np.float32), suit2, None)
    det._read_top_right(np.zeros((300, 300, 3), np.uint8), [(m, 0)], probs, kind, [m], {}, {id(m): rank})
    return m.card


def test_a_sure_top_right_suit_stands_where_the_corners_only_know_its_colour():
    """Tango's kings and queens: the readers agree on the rank, the corners split a colour's
    two suits, the top right names one at 0.92: read. Where the corners name the twin suit
    surely (0.93; a drawn design's 7 of hearts was taken for a diamond at 0.86) or the other colour,
    the corners weigh in and the card stays UU."""
    hearts = [0.02, 0.03, 0.92, 0.03]
    assert D._twin_sure(np.array([0.02, 0.86, 0.1, 0.02]), np.array(hearts))
    assert not D._twin_sure(np.array([0.02, 0.55, 0.41, 0.02]), np.array(hearts))
    assert _top_right_read([0.03, 0.75, 0.19, 0.03], hearts) is Card.parse("KH")  # weighed in: 0.82
    assert _top_right_read([0.01, 0.93, 0.05, 0.01], hearts) is None
    assert _top_right_read([0.5, 0.02, 0.02, 0.46], hearts) is None
