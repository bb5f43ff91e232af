"""A deck holds each card once: a card left UU is not one read elsewhere in the frame
(vision.json's ``elsewhere``, issue 40: a fanned strip whose suit the next card hides)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from solitaire_coach.core.cards import Card
from solitaire_coach.vision import detector as D

RULE = D.ElsewhereRule(max_share=0.5, thresh=0.85)


def _belief(**cards: float) -> np.ndarray:
    """52 card probabilities: the named cards (``S8=0.5``: suit letter, then rank) as given,
    the rest of 1 spread evenly."""
    out = np.zeros(52)
    for key, p in cards.items():
        out[Card.parse(key[1:] + key[0]).index] = p
    rest = 1.0 - out.sum()
    out[out == 0] = rest / int((out == 0).sum())
    return out


def _mask(*codes: str) -> np.ndarray:
    out = np.zeros(52, bool)
    for code in codes:
        out[Card.parse(code).index] = True
    return out


def test_the_card_read_elsewhere_is_set_aside_and_the_other_one_read():
    # a strip: an 8 for sure, black for sure, spade or club as a coin falls
    belief = _belief(S8=0.49, C8=0.49)
    assert RULE.read(belief, 0.99, _mask()) == (None, pytest.approx(0.49 * 0.99))
    card, conf = RULE.read(belief, 0.99, _mask("8S", "KD"))
    assert card == Card.parse("8C")
    assert conf == pytest.approx(0.49 / (1 - 0.49 - 0.02 / 50) * 0.99)  # the king of diamonds set aside too


def test_a_card_that_looks_most_like_one_read_elsewhere_stays_unread():
    # most like the 8 of spades read elsewhere: more likely a second look at it, misread
    belief = _belief(S8=0.6, C8=0.38)
    card, _ = RULE.read(belief, 0.99, _mask("8S"))
    assert card is None


def test_the_rule_is_no_surer_than_the_face_and_its_threshold():
    belief = _belief(S8=0.49, C8=0.49)
    assert RULE.read(belief, 0.8, _mask("8S"))[0] is None  # hardly a face: 0.96 x 0.8
    three = _belief(S8=0.33, C8=0.33, C9=0.32)
    assert RULE.read(three, 0.99, _mask("8S"))[0] is None  # 8 or 9 of clubs: still unsure


def test_apply_reads_against_the_frames_other_cards_and_only_faces_left_uu():
    read = D._Mark(0, 0, 10, 14, 1.0, kind=0, card=Card.parse("8S"), conf=0.97)
    strip = D._Mark(0, 20, 10, 14, 1.0, kind=0, belief=_belief(S8=0.49, C8=0.49), face=0.99, conf=0.49)
    back = D._Mark(30, 0, 10, 14, 1.0, kind=1, belief=_belief(C8=0.99), face=0.99)
    other = D._Mark(50, 0, 10, 14, 1.0, kind=0, belief=_belief(H2=0.5, D2=0.48), face=0.99, conf=0.49)
    assert RULE.apply([read, strip, back, other]) == 1
    assert strip.card == Card.parse("8C") and strip.conf > 0.85
    assert back.card is None and other.card is None


def test_a_learnt_decks_strip_is_read_by_the_models_own_probabilities_where_the_learnt_ones_agree():
    """A learnt deck's strip thresholds are high (0.94-0.99: its practice strips' hidden suits);
    a strip its learnt reads leave UU is read by the shipped model's own probabilities, at
    the model's thresholds, where the learnt reads find the same card likeliest of those
    left; never where they find another one likeliest, nor without ``model_thresh``."""
    read = D._Mark(0, 0, 10, 14, 1.0, kind=0, card=Card.parse("8S"), conf=0.97)

    def strip(learnt: np.ndarray) -> D._Mark:
        return D._Mark(
            0,
            20,
            10,
            14,
            1.0,
            kind=0,
            strip=True,
            face=0.99,
            conf=0.5,
            belief=learnt,
            model_belief=_belief(S8=0.5, C8=0.47),
        )

    agree = strip(_belief(S8=0.4, C8=0.5))  # set aside, 8C at 0.83 of the learnt: under 0.95
    assert RULE.apply([read, agree], 0.9, 0.95) == 0
    assert RULE.apply([read, agree], 0.9, 0.95, model_thresh=(0.85, 0.85)) == 1
    assert agree.card == Card.parse("8C") and agree.conf >= 0.85
    other = strip(_belief(S8=0.3, C8=0.2, D8=0.45))  # the learnt reads find the 8 of diamonds likeliest
    assert RULE.apply([read, other], 0.9, 0.95, model_thresh=(0.85, 0.85)) == 0 and other.card is None


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"thresh": 0.85}, "elsewhere must hold max_share and thresh"),
        ({"max_share": 1.5, "thresh": 0.85}, "elsewhere's max_share must be a number from 0 to 1"),
        ({"max_share": 0.5, "thresh": "high"}, "elsewhere's thresh must be a number from 0 to 1"),
        ([0.5, 0.85], "elsewhere must hold max_share and thresh"),
    ],
)
def test_elsewhere_settings_are_checked(linked_models, entry, why):
    d, cfg = linked_models
    cfg["elsewhere"] = entry
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match=why):
        D.CardDetector(d)


def test_the_shipped_detector_reads_more_strips_of_a_low_suit_design_and_none_wrong(rendered_reads):
    """drawn-57 (a validation design, never trained on) prints no small suit: its strips
    show rank and colour, and the rule names the suit where the other card of that rank
    and colour lies elsewhere."""
    det = D.CardDetector()
    rule = det.elsewhere
    assert rule is not None
    det.elsewhere = None
    right_before, wrong_before = rendered_reads(det, "drawn-57", range(700, 712))
    det.elsewhere = rule
    right_after, wrong_after = rendered_reads(det, "drawn-57", range(700, 712))
    assert right_after >= right_before + 5
    assert wrong_after <= wrong_before
