"""The rows locator (``rows_locator`` in vision.json): a second locator, trained also on rows
of cards overlapped sideways, that only adds the face-up cards the main locator misses, and
only in frames where the main locator sees cards overlapped sideways."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from solitaire_coach.vision import detector as D
from solitaire_coach.vision.render import render_spread


def _face(x: float, y: float, kind: int = 0, w: float = 100.0, h: float = 140.0) -> D._Mark:
    return D._Mark(x, y, w, h, 0.9, kind)


RULE = D.RowsRule("rows.onnx", thresh=0.5, same=0.3, distinct=0.12, fanned=2)


def test_the_rows_locator_is_wanted_only_where_cards_overlap_sideways():
    waste = [_face(0, 0), _face(25, 0), _face(50, 0)]  # three fanned to the right: two covered
    assert RULE.wanted(waste)
    assert not RULE.wanted(waste[1:])  # two fanned: one covered
    column = [_face(0, 0), _face(0, 30), _face(0, 60)]  # fanned down: none covered at the right
    assert not RULE.wanted(column)
    assert not RULE.wanted([_face(0, 0), _face(25, 0, kind=1), _face(50, 0, kind=1)])  # backs do not count


def test_the_rows_locator_adds_only_new_face_up_cards_inside_the_frame():
    marks = [_face(100, 100), _face(125, 100)]
    found = [
        _face(105, 108),  # the first mark's card found again (the nearest, within 0.3 of a card)
        _face(127, 100),  # the second's
        _face(160, 100),  # a strip it missed: added
        _face(175, 100, kind=1),  # a back: never added
        _face(1250, 100),  # a card mostly off the frame's right edge
        _face(300, 660),  # mostly below the frame's bottom
    ]
    assert RULE.new_faces(marks, found, 1280, 720) == [found[2]]
    # a strip within 0.3 of a card of a mark whose own card was found again is another card
    strip = _face(150, 100)
    assert RULE.new_faces(marks, found[:2] + [strip], 1280, 720) == [strip]
    # ... but not where it is the nearest the mark has (the mark's card found a little off)
    assert RULE.new_faces(marks, found[:1] + [strip], 1280, 720) == []
    # and never within 0.12 of a card of a mark
    assert RULE.new_faces(marks, found[:2] + [_face(135, 100)], 1280, 720) == []


def test_faint_rows_marks_are_added_only_as_strips_of_a_row():
    rule = D.RowsRule("rows.onnx", thresh=0.5, same=0.3, distinct=0.12, fanned=2, faint=0.3)
    assert rule.least == 0.3 and RULE.least == 0.5
    marks = [_face(100, 100), _face(300, 400)]

    def faint(x, y, kind=0):
        m = _face(x, y, kind)
        m.score = 0.4
        return m

    sure = _face(140, 100)  # a sure strip beside the first mark: added, not faint
    strip = faint(170, 100)  # a faint strip that the next card covers at its top right: added, faint
    found = [
        sure,
        strip,
        _face(200, 100),  # the card over it (sure, added)
        faint(600, 100),  # faint and alone: a card pictured on a back, say
        faint(320, 200, kind=1),  # a faint back
        faint(190, 100),  # faint and covered, but the card over the strip found again
    ]
    got = rule.added(marks, found, 1280, 720)
    assert got == [sure, found[2], strip]
    assert [m.faint for m in got] == [False, False, True]
    # without ``faint`` only the sure ones, as before
    assert RULE.added(marks, found, 1280, 720) == [sure, found[2]]


def test_a_faint_mark_stands_only_as_a_card_read_surely():
    m = _face(0, 0)
    m.card, m.conf = D.Card.parse("7H"), 0.7
    assert D._stands(m, 0.85, 0.85)  # not faint: kept as read (the familiar rule's 0.6 and up)
    m.faint = True
    assert not D._stands(m, 0.85, 0.85)  # faint: the familiar rule's lower threshold is not enough
    assert D._stands(m, 0.65, 0.85)
    m.strip = True
    assert not D._stands(m, 0.65, 0.85)  # a strip at the strips' threshold
    m.card = None
    assert not D._stands(m, 0.0, 0.0)  # left UU
    back = _face(0, 0, kind=1)
    back.faint, back.conf = True, 0.99
    assert not D._stands(back, 0.0, 0.0)


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"thresh": 0.5}, "rows_locator's file must name the rows locator's ONNX file in the model folder, not null"),
        (
            {"file": "../x.onnx"},
            "rows_locator's file must name the rows locator's ONNX file in the model folder, not \"../x.onnx\"",
        ),
        ({"file": "card_locator_rows.onnx", "thresh": 2}, "rows_locator's thresh must be a number from 0 to 1, not 2"),
        (
            {"file": "card_locator_rows.onnx", "distinct": "x"},
            'rows_locator\'s distinct must be a number from 0 to 1, not "x"',
        ),
        (
            {"file": "card_locator_rows.onnx", "fanned": -1},
            "rows_locator's fanned must be a whole number of cards, not -1",
        ),
        (
            {"file": "card_locator_rows.onnx", "faint": 1.5},
            "rows_locator's faint must be a number from 0 to 1, not 1.5",
        ),
        ({"file": "missing.onnx"}, "missing.onnx: missing"),
    ],
    ids=["no-file", "outside", "thresh", "distinct", "fanned", "faint", "missing"],
)
def test_rows_locator_settings_are_checked(linked_models, entry, why):
    d, cfg = linked_models
    cfg["rows_locator"] = entry
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match="^" + re.escape(str(d)) + ".*" + re.escape(why)):
        D.CardDetector(d)


def test_a_row_overlapped_sideways_reads_more_cards_with_the_rows_locator(linked_models):
    """A rendered row spread (seed 6): the shipped folder reads more of its cards than the
    same folder without its rows locator, and reads no card that is not there."""
    d, cfg = linked_models
    assert cfg.get("rows_locator"), "the shipped vision.json names a rows locator"
    cfg.pop("rows_locator")
    (d / "vision.json").write_text(json.dumps(cfg))
    img, truth = render_spread(6, "drawn-5", 1280, 720)
    faces = {c.card for c in truth.cards if c.card is not None}
    with_rows = {c.card for c in D.CardDetector().detect(img).cards if c.card is not None}
    without = {c.card for c in D.CardDetector(d).detect(img).cards if c.card is not None}
    assert with_rows <= faces and without <= faces
    assert len(with_rows) >= len(without) + 5, (len(with_rows), len(without), len(faces))


def test_a_frame_refilled_in_place_is_read_anew():
    """The frame's scaled inputs are kept only within one look (for the rows locator's look
    at the same frame): a capture buffer refilled in place between two reads is read as the
    new frame it holds, by ``detect`` and by ``locate`` alike."""
    first, _ = render_spread(6, "drawn-5", 1280, 720)
    second, _ = render_spread(4, "drawn-5", 1280, 720)
    det = D.CardDetector()
    buf = first.copy()
    det.detect(buf)
    det.locate(buf, 640)
    buf[:] = second
    want = D.CardDetector().detect(second)
    got = det.detect(buf)
    assert got.snapshot == want.snapshot and [c.card for c in got.cards] == [c.card for c in want.cards]
    assert len(det.locate(buf, 640)) == len(D.CardDetector().locate(second, 640))


def test_the_rows_look_takes_marks_down_to_the_faint_score(monkeypatch):
    """``_with_rows`` asks the rows locator's output for marks down to ``faint`` and adds
    the faint strips flagged (the read then keeps them only where read surely)."""
    det = D.CardDetector()
    assert det.rows is not None and det.rows.faint is not None and det.rows.faint < det.rows.thresh
    marks = [_face(100, 100), _face(125, 100), _face(150, 100)]  # a row: the rows look is wanted
    strip = _face(300, 100)
    strip.score = (det.rows.faint + det.rows.thresh) / 2
    over = _face(330, 100)
    asked = []

    def fake_marks(out, thresh, pad, scale):
        asked.append(thresh)
        return [strip, over]

    monkeypatch.setattr(D, "_marks", fake_marks)
    frame = np.full((720, 1280, 3), 128, np.uint8)
    got = det._with_rows(frame, 640, marks, {})
    assert asked == [det.rows.faint]
    assert got == marks + [over, strip] and strip.faint and not over.faint
