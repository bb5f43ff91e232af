"""Pips: a card's suit symbols found as ink blobs and named by the pip reader (issue 40:
designs whose small suit a fanned column hides, whose index font the corner reader does
not know)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from solitaire_coach.core.cards import Card
from solitaire_coach.vision import detector as D
from solitaire_coach.vision import pips as P
from solitaire_coach.vision.decks import DrawnDeck

# a drawn design with no small suit at all: a strip shows its rank and, on a number card, its top pips
# (a validation design: never trained on)
LOW_SUIT_DECK = "drawn-57"


def _on_table(face: np.ndarray, width: int = 70):
    """``face`` scaled to ``width`` px on a green table: the frame and the card's corner,
    width and height vectors."""
    h = int(round(width * face.shape[0] / face.shape[1]))
    frame = np.full((h + 60, width + 60, 3), (40, 110, 40), np.uint8)
    frame[30 : 30 + h, 30 : 30 + width] = cv2.resize(face, (width, h), interpolation=cv2.INTER_AREA)
    return frame, (30, 30), (width, 0), (0, h)


def test_a_number_cards_pips_are_cut_and_named():
    det = D.CardDetector()
    deck = DrawnDeck(11)
    for code in ("9S", "7H", "4D", "10C"):
        card = Card.parse(code)
        frame, corner, u, v = _on_table(deck.face(card))
        pc = P.pip_crops(P.card_view(frame, corner, u, v))
        (read,) = det.pip_reader.run(None, {"crop": D.F.to_tensor(pc.crops)})
        assert P.pip_count(read, pc.boxes) == card.rank, code
        suit, looks = P.suit_of_pips(read)
        assert looks >= card.rank and int(suit.argmax()) == card.suit and suit.max() > 0.99, code


def test_a_strip_shows_its_top_pips_and_a_court_none():
    det = D.CardDetector()
    deck = DrawnDeck(11)
    frame, corner, u, v = _on_table(deck.face(Card.parse("8C")))
    pc = P.pip_crops(P.card_view(frame, corner, u, v, shown=0.33))
    (read,) = det.pip_reader.run(None, {"crop": D.F.to_tensor(pc.crops)})
    suit, looks = P.suit_of_pips(read)
    assert looks >= 1 and int(suit.argmax()) == Card.parse("8C").suit


@pytest.mark.parametrize("code", ["8C", "8S", "8H", "8D"])
def test_a_strip_cut_through_its_top_pips_shows_their_tips(code):
    """A fanned column whose next card cuts the top row's pips 5 px below their tops: the
    blobs are too low for pip_crops (under 6 px where the view ends), and tip_crops cuts
    both tips, which the pip reader names with the card's suit together."""
    det = D.CardDetector()
    card = Card.parse(code)
    frame, corner, u, v = _on_table(DrawnDeck(11).face(card))
    view = P.card_view(frame, corner, u, v, shown=0.26)
    tips = P.tip_crops(view)
    assert len(tips.crops) == 2 and all(y + h >= view.shape[0] - 3 and h < 6 for _, y, _, h in tips.boxes)
    assert not any(b.tolist() == t.tolist() for b in P.pip_crops(view).boxes for t in tips.boxes)
    (read,) = det.pip_reader.run(None, {"crop": D.F.to_tensor(tips.crops)})
    suit, looks = P.suit_of_pips(read, det.pips.none_max)
    assert looks == 2 and P.pips_agree(read, det.pips.none_max)
    assert int(suit.argmax()) == card.suit and suit.max() >= det.pips.tip_sure


def test_the_tips_of_pips_read_strips_and_no_card_wrong(rendered_reads):
    """drawn-57 prints no small suit: a strip shows its rank, and the tips of its top pips
    where the next card lies low enough (12 scenes: 118 -> 121 cards right, 1 wrong either
    way)."""
    import dataclasses

    det = D.CardDetector()
    rule = det.pips
    assert rule is not None and rule.tip_sure < 1.0
    det.pips = dataclasses.replace(rule, tip_sure=1.0)
    right0, wrong0 = rendered_reads(det, LOW_SUIT_DECK, range(700, 712))
    det.pips = rule
    right1, wrong1 = rendered_reads(det, LOW_SUIT_DECK, range(700, 712))
    assert right1 >= right0 + 2 and wrong1 <= wrong0


def test_a_lone_sure_tip_names_a_strips_suit_and_no_card_wrong(rendered_reads):
    """Where the next card leaves one tip of the top row in sight, that tip alone names the
    strip's suit at tip_one_sure (0.99) or surer: drawn-57's scenes 716, 743, 744 and 756
    read 54 -> 59 cards right, none wrong either way."""
    import dataclasses

    det = D.CardDetector()
    rule = det.pips
    assert rule is not None and rule.tip_one_sure < 1.0
    det.pips = dataclasses.replace(rule, tip_one_sure=1.0)
    right0, wrong0 = rendered_reads(det, LOW_SUIT_DECK, [716, 743, 744, 756])
    det.pips = rule
    right1, wrong1 = rendered_reads(det, LOW_SUIT_DECK, [716, 743, 744, 756])
    assert right1 >= right0 + 4 and wrong1 <= wrong0


def test_the_strip_reader_names_strips_suits_and_no_card_wrong(rendered_reads):
    """Where neither pips nor tips tell a strip's suit, the strip reader (the whole band
    read by a network) tells it at strip_sure (0.999): drawn-42's scenes 708, 713 and 759
    (a validation design, never trained on) read 46 -> 54 cards right, none wrong either way."""
    import dataclasses

    det = D.CardDetector()
    rule = det.pips
    assert rule is not None and rule.strip_sure < 1.0 and det.strip_reader is not None
    det.pips = dataclasses.replace(rule, strip_sure=1.0)
    right0, wrong0 = rendered_reads(det, "drawn-42", [708, 713, 759])
    det.pips = rule
    right1, wrong1 = rendered_reads(det, "drawn-42", [708, 713, 759])
    assert right1 >= right0 + 6 and wrong1 <= wrong0


def test_a_strip_canvas_keeps_the_band_top_first_and_marks_its_end_black():
    from solitaire_coach.vision import strips as ST

    band = np.full((20, ST.STRIP_W, 3), 200, np.uint8)
    c = ST.strip_canvas(band)
    assert c.shape == (ST.STRIP_H, ST.STRIP_W, 3)
    assert (c[:20] == 200).all() and (c[20:] == 0).all()
    tall = np.arange(90 * ST.STRIP_W * 3, dtype=np.uint32).reshape(90, ST.STRIP_W, 3).astype(np.uint8)
    assert (ST.strip_canvas(tall) == tall[: ST.STRIP_H]).all()


def test_suit_of_pips_multiplies_the_pips_and_skips_what_is_no_pip():
    reads = np.array([[0.6, 0.1, 0.1, 0.1, 0.1], [0.7, 0.1, 0.1, 0.05, 0.05], [0.0, 0.0, 0.0, 0.1, 0.9]])
    suit, looks = P.suit_of_pips(reads)
    assert looks == 2 and suit.argmax() == 0 and suit[0] > 0.9
    assert P.suit_of_pips(reads[2:]) == (None, 0)


def test_blobs_in_the_index_corners_are_not_counted():
    assert P.in_index_corner((2, 3, 8, 12)) and P.in_index_corner((56, 80, 6, 8))
    assert not P.in_index_corner((30, 40, 8, 10))


def test_shown_is_the_part_above_the_next_card():
    m = D._Mark(100, 100, 60, 84, 1.0, kind=0)
    below = D._Mark(101, 125.2, 60, 84, 1.0, kind=0)
    beside = D._Mark(170, 110, 60, 84, 1.0, kind=0)
    assert D._shown(m, [m, below, beside]) == pytest.approx(25.2 / 84)
    assert D._shown(m, [m, beside]) == 1.0


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"file": "pip_reader.onnx", "none_max": 0.3}, "pips must hold file, none_max, suit_sure, weight, thresh"),
        (
            {"file": "pip_reader.onnx", "none_max": 0.3, "suit_sure": 0.9, "weight": 0.7, "thresh": 1.5},
            "pips' thresh must be a number from 0 to 1, not 1.5",
        ),
        ({"file": 3, "none_max": 0.3, "suit_sure": 0.9, "weight": 0.7, "thresh": 0.8}, "pips' file must name"),
        (
            {"file": "nothing.onnx", "none_max": 0.3, "suit_sure": 0.9, "weight": 0.7, "thresh": 0.8},
            "nothing.onnx: missing",
        ),
    ],
)
def test_pip_settings_are_checked(linked_models, entry, why):
    d, cfg = linked_models
    cfg["pips"] = entry
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match=why.replace("(", r"\(")):
        D.CardDetector(d)


def test_pips_read_strips_whose_small_suit_is_hidden_and_read_no_card_wrong(rendered_reads):
    det = D.CardDetector()
    rule = det.pips
    assert rule is not None
    seeds = range(700, 706)
    det.pips, reader = None, det.pip_reader
    det.pip_reader = None
    right_before, wrong_before = rendered_reads(det, LOW_SUIT_DECK, seeds)
    det.pips, det.pip_reader = rule, reader
    right_after, wrong_after = rendered_reads(det, LOW_SUIT_DECK, seeds)
    assert right_after >= right_before + 20
    assert wrong_after <= wrong_before


def _one_hot_card(rank: int, suit: int, p: float = 0.4) -> np.ndarray:
    """52 card probabilities: ``p`` on one card, the rest spread evenly (an unsure read)."""
    out = np.full(52, (1 - p) / 51)
    out[suit * 13 + rank - 1] = p
    return out


def test_a_rank_three_readers_find_likeliest_alike_is_agreed_on_whole_straight_cards_only():
    det = D.CardDetector()
    assert det.agreed_rank == pytest.approx(0.99)
    whole = D._Mark(100, 100, 60, 84, 1.0, kind=0)
    strip = D._Mark(200, 100, 60, 84, 1.0, kind=0, strip=True)
    turned = D._Mark(300, 100, 60, 84, 1.0, kind=0, angle=np.radians(15))
    split = D._Mark(400, 100, 60, 84, 1.0, kind=0)
    marks = [whole, strip, turned, split]
    probs = np.stack([_one_hot_card(9, 2)] * 4)  # the corners: a 9, unsure
    faces = {id(m): _one_hot_card(9, 3) for m in marks}  # the face reader: a 9 too (another suit)
    index = {id(m): _one_hot_card(9, 2) for m in marks}
    index[id(split)] = _one_hot_card(6, 2)  # the index reader finds a 6 likeliest
    unsure = [(m, k) for k, m in enumerate(marks)]
    assert det._agreed_ranks(unsure, probs, faces, index) == {id(whole): 9}
    assert det._agreed_ranks(unsure, probs, {}, index) == {}  # no face read: no agreement
    det.agreed_rank = 0.0
    assert det._agreed_ranks(unsure, probs, faces, index) == {}


def test_agreed_rank_is_a_probability(linked_models):
    d, cfg = linked_models
    cfg["agreed_rank"] = 1.5
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match="agreed_rank is a probability: it must be from 0 to 1, not 1.5"):
        D.CardDetector(d)


def test_the_pips_suit_must_have_the_colour_the_card_itself_gives():
    black = np.array([0.45, 0.05, 0.05, 0.45])  # the corners: a black card, club or spade
    assert D._same_colour(black, np.array([0.0, 0.0, 0.01, 0.99]))  # spade pips
    assert not D._same_colour(black, np.array([0.0, 0.01, 0.99, 0.0]))  # heart pips: refused


def test_twin_suits_share_a_colour_and_differ():
    S, C, D_, H = (Card.parse(c).suit for c in ("AS", "AC", "AD", "AH"))
    assert D._twin_suit(S, C) and D._twin_suit(H, D_)
    assert not D._twin_suit(S, S) and not D._twin_suit(S, H) and not D._twin_suit(C, D_)


@pytest.mark.parametrize("key", ["doubt", "veto", "tip_sure", "tip_one_sure", "strip_sure"])
def test_the_pips_veto_settings_are_checked(linked_models, key):
    d, cfg = linked_models
    cfg["pips"][key] = 1.5
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match=f"pips' {key} must be a number from 0 to 1"):
        D.CardDetector(d)


def test_without_veto_settings_the_pips_veto_nothing(linked_models):
    d, cfg = linked_models
    for key in ("doubt", "veto", "tip_sure", "tip_one_sure", "strip_sure", "strip_file"):
        cfg["pips"].pop(key, None)
    (d / "vision.json").write_text(json.dumps(cfg))
    det = D.CardDetector(d)
    rule = det.pips
    assert rule is not None and rule.doubt == 0.0 and rule.veto == 1.0
    assert rule.tip_sure == 1.0 and rule.tip_one_sure == 1.0
    assert rule.strip_file == "" and rule.strip_sure == 1.0 and det.strip_reader is None


def test_the_strip_readers_file_is_checked(linked_models):
    d, cfg = linked_models
    cfg["pips"]["strip_file"] = 7
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match="pips' strip_file must name the strip reader's ONNX file, not 7"):
        D.CardDetector(d)
    cfg["pips"]["strip_file"] = "no_such_reader.onnx"
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match="no_such_reader.onnx"):
        D.CardDetector(d)


def test_the_pips_veto_a_doubtful_read_of_the_twin_suit(rendered_reads):
    """drawn-531 (a top-right design never trained on) has hearts read as diamonds by
    their corners just over the threshold; their pips name hearts surely, and the read is
    taken back (left UU), while no card read right is lost."""
    import dataclasses

    det = D.CardDetector()
    rule = det.pips
    assert rule is not None and rule.doubt > 0 and rule.veto < 1
    counts = {}
    for name, r in (("off", dataclasses.replace(rule, doubt=0.0)), ("on", rule)):
        det.pips = r
        counts[name] = rendered_reads(det, "drawn-531", range(700, 712))
    assert counts["on"][1] < counts["off"][1]
    assert counts["on"][0] >= counts["off"][0] - 1
