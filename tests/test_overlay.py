"""What the live coach draws on the frame: checked on the pixels and the computed geometry
of a synthetic table (no detector, no camera; fast)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from solitaire_coach.app.live import StepResult
from solitaire_coach.app.loop import OverlayNote
from solitaire_coach.capture.gate import GateView
from solitaire_coach.capture.sources import Frame
from solitaire_coach.core.advisor import Advice
from solitaire_coach.core.cards import Card
from solitaire_coach.core.moves import Move
from solitaire_coach.core.state import GameState, deal_for_seed
from solitaire_coach.core.tracker import Placement
from solitaire_coach.vision.detector import CardDetection
from solitaire_coach.vision.overlay import (
    arrow_for,
    draw_overlay,
    label_box,
    move_tag,
    moving_quads,
    tag_box,
    take_back_quads,
)

W, H = 1280, 720
YELLOW = np.array((0, 220, 255))


def _quad(x, y0, y1):
    return np.array([[x - 50, y0], [x + 50, y0], [x + 50, y1], [x - 50, y1]], np.float32)


def scene(state: GameState, width: int = W, height: int = H):
    """A green-cloth picture and the detection of ``state``'s cards laid out on it."""
    k = width / W
    img = np.zeros((height, width, 3), np.uint8)
    img[:] = (40, 110, 40)
    cards = []

    def put(card, slot, x, y0, y1, face_up=True):
        q = _quad(x, y0, y1) * k
        q[:, 0] = x * k + (q[:, 0] - x * k) * 1.0
        img_q = np.round(q).astype(np.int32)
        import cv2

        cv2.fillConvexPoly(img, img_q, (235, 235, 235) if face_up else (120, 60, 30))
        cards.append(CardDetection(card, q, 0.99, slot, face_up))

    xs = [120 + 150 * i for i in range(7)]
    if state.stock:
        put(None, "stock", xs[0], 40, 180, face_up=False)
    if state.waste:
        put(state.waste[-1], "waste", xs[1], 40, 180)
    for col in range(7):
        y = 230
        for _ in state.hidden[col]:
            put(None, f"column {col + 1}", xs[col], y, y + 18, face_up=False)
            y += 18
        for i, c in enumerate(state.faceup[col]):
            last = i == len(state.faceup[col]) - 1
            put(c, f"column {col + 1}", xs[col], y, y + (140 if last else 30))
            y += 30
    return img, SimpleNamespace(cards=cards)


def a_column_move():
    """The deal of seed 102 and a legal move from a column onto a column."""
    state = GameState.from_deal(deal_for_seed(102))
    move = next(m for m in state.legal_moves() if m.text[0].isdigit() and m.text[-1].isdigit())
    return state, Advice("move", move, f"Move {move.text}", "a reason")


def _yellow(img, x, y, r=3):
    patch = img[y - r : y + r + 1, x - r : x + r + 1].reshape(-1, 3).astype(int)
    return bool((np.abs(patch - YELLOW).sum(axis=1) < 60).any())


def test_a_hand_in_the_picture_shows_waiting_and_no_stale_arrow():
    state, advice = a_column_move()
    img, det = scene(state)
    (x0, y0), (x1, y1) = arrow_for(advice, state, det, img.shape)
    mid = ((x0 + x1) // 2, (y0 + y1) // 2)
    calm = draw_overlay(img, det, advice, state, gate=GateView(False, True, False, 0.0, "resting"))
    assert _yellow(calm, *mid)  # the arrow is drawn when the table is clear
    hand = GateView(False, False, True, 9.0, "hand in the picture")
    drawn = draw_overlay(img, det, advice, state, gate=hand)
    assert not _yellow(drawn, *mid)  # ... and not over a hand
    # the waiting banner: amber text across the middle of the picture, large
    amber = np.abs(drawn.astype(int) - (0, 140, 255)).sum(axis=2) < 30
    rows = np.nonzero(amber.any(axis=1))[0]
    cols = np.nonzero(amber.any(axis=0))[0]
    assert rows.size and H * 0.3 < rows.mean() < H * 0.55
    assert rows.max() - rows.min() > 25 and cols.max() - cols.min() > W * 0.3
    # an object over the table (the colour-free check) waits too, with its outline
    obj = GateView(False, True, True, 0.0, "something over the table", box=(100, 300, 200, 100))
    drawn = draw_overlay(img, det, advice, state, gate=obj)
    assert not _yellow(drawn, *mid)
    assert (np.abs(drawn.astype(int) - (0, 140, 255)).sum(axis=2) < 30).sum() > 500


def _result(lines=(), accepted=False, reason="resting (table unchanged since the last read)"):
    frame = Frame(np.zeros((4, 4, 3), np.uint8), 0, 0.0, "f")
    return StepResult(frame, GateView(False, True, False, 0.0, reason), accepted=accepted, lines=list(lines))


def _red_rows(img):
    b, g, r = (img[:, :, i].astype(int) for i in range(3))
    red = (r > 200) & (g < 120) & (b < 120)
    return np.nonzero(red.any(axis=1))[0]


def test_a_take_it_back_note_stays_on_the_picture_until_the_table_is_read_again():
    """The frame of the read that found the card put down wrong is followed by frames the
    gate does not read (the table rests): the window shows the note on all of them, as
    printed, in red, until an accepted read says nothing more."""
    bad = "that is not a legal continuation: 5♠ was put on 10♠ in column 7: take it back (the game is unchanged)"
    notes = OverlayNote()
    assert notes.update(_result([bad], accepted=True)) == bad
    for _ in range(5):  # resting, moving, a hand: nothing said
        assert notes.update(_result()) == bad
    assert notes.update(_result(["seen: draw", "advice: Turn"], accepted=True)) == "seen: draw"
    assert notes.update(_result(accepted=False)) == "seen: draw"
    assert notes.update(_result(accepted=True)) == ""  # taken back: read, nothing to say
    # the card put down wrong wins over a line said after it in the same frame
    assert notes.update(_result([bad, "warning: cannot save the journal"], accepted=True)) == bad
    state, advice = a_column_move()
    img, det = scene(state)
    drawn = draw_overlay(img, det, advice, state, note=notes.text)
    rows = _red_rows(drawn)
    assert rows.size and rows.max() < H * 0.25  # red, at the top


def test_the_window_shows_the_line_printed_for_a_table_no_move_explains():
    """The note drawn is the printed line (with 'not a legal continuation'), in red, not the
    tracker's bare message."""
    from solitaire_coach.core.tracker import TrackerReport

    line = "that is not a legal continuation: the table does not follow from the last position (the game is unchanged)"
    r = _result([line], accepted=True)
    r.report = TrackerReport("inconsistent", message="the table does not follow from the last position")
    assert OverlayNote().update(r) == line


def test_while_a_card_must_be_taken_back_no_advice_arrow_is_drawn():
    """The advice in force is for the table before the card was put down wrong: its arrow
    would point at a move that is not the next thing to do. The band says 'then:'."""
    state, advice = a_column_move()
    img, det = scene(state)
    (x0, y0), (x1, y1) = arrow_for(advice, state, det, img.shape)
    mid = ((x0 + x1) // 2, (y0 + y1) // 2)
    note = "that is not a legal continuation: 5♠ was put on 10♠ in column 7: take it back (the game is unchanged)"
    assert _yellow(draw_overlay(img, det, advice, state, note="seen: draw"), *mid)
    drawn = draw_overlay(img, det, advice, state, note=note)
    assert not _yellow(drawn, *mid)
    assert not any(_yellow(drawn, x, y, r=0) for y in range(int(H * 0.75), H - 1, 3) for x in range(1, W - 1, 7))


def test_the_note_reads_on_a_white_table_and_the_status_keeps_clear_of_it():
    """White text straight on a white table (game3's) cannot be read: the note lies on a
    dark band; the gate's status (moving, settling) sits at the top right beside it."""
    img = np.full((H, W, 3), 232, np.uint8)
    note = (
        "cannot read the top card of column 1: looking again (if this stays, move the light or the card, "
        "or press Enter to go on without it)"
    )
    drawn = draw_overlay(img, None, None, None, note=note, gate=GateView(False, False, False, 3.0, "moving"))
    top = drawn[:60].astype(int).sum(axis=2) / 3
    assert np.median(top) < 110  # a dark band under the text
    assert (top > 200).sum() > 300  # and light text on it
    # the status (small, white, at the top right) does not overlap the note's first line
    light = (drawn[:40].astype(int).sum(axis=2) / 3 > 200).any(axis=0)
    xs = np.nonzero(light)[0]
    gaps = np.diff(xs)
    assert xs.max() > W * 0.9 and gaps.max() > 20 * W / 1280  # two groups, apart


def test_labels_keep_off_the_card_index_and_lie_over_the_arrow():
    """A label in the top left corner hid the index a person reads (and, in a fanned
    column, the only part of the card that shows); the arrow drawn after the labels hid
    the labels it crossed."""
    state, advice = a_column_move()
    img, det = scene(state)
    faces = [d for d in det.cards if d.card is not None]
    for d in faces:
        x0, y0, x1, y1 = label_box(d, 1.0)
        q = d.quad
        assert q[0][0] <= x0 and x1 <= q[1][0] and y0 >= q[0][1]  # inside the card, at the top
        assert x0 > q[0][0] + 0.35 * (q[1][0] - q[0][0])  # clear of the index corner
    assert label_box(next(d for d in det.cards if d.card is None), 1.0) is None
    # a card read right where the arrow passes (a card being moved over the table, say)
    (x0, y0), (x1, y1) = arrow_for(advice, state, det, img.shape)
    mx, my = (x0 + x1) // 2, (y0 + y1) // 2
    stray = CardDetection(Card.parse("9C"), _quad(mx - 10, my - 10, my + 130), 0.99, "column 4")
    det.cards.append(stray)
    assert arrow_for(advice, state, det, img.shape) == ((x0, y0), (x1, y1))
    drawn = draw_overlay(img, det, advice, state)
    for d in faces + [stray]:  # every label: a black patch, no yellow on it
        x0, y0, x1, y1 = label_box(d, 1.0)
        patch = drawn[y0 + 1 : y1 - 1, x0 + 1 : x1 - 1].reshape(-1, 3).astype(int)
        assert not (np.abs(patch - YELLOW).sum(axis=1) < 60).any()
        assert (patch.sum(axis=1) < 30).mean() > 0.4


def _tag_pixels(img, box):
    x0, y0, x1, y1 = box
    patch = img[y0:y1, x0:x1].reshape(-1, 3).astype(int)
    return int((np.abs(patch - YELLOW).sum(axis=1) < 60).sum())


def test_a_draw_a_redeal_and_a_move_to_the_foundation_are_told_apart():
    """An arrow from the stock to the waste, from the waste to the stock or from a card to a
    foundation looks like any other move: a word by the target says which it is, and the
    cards a column move takes are outlined."""
    state = GameState.from_deal(deal_for_seed(102))
    img, det = scene(state)
    tags = {}
    for text in ("draw", "1-f", "w-7", "3-6"):
        move = Move.parse(text)
        advice = Advice("move", move, text, "")
        tags[text] = move_tag(advice)
        drawn = draw_overlay(img, det, advice, state)
        (x0, y0), (x1, y1) = arrow_for(advice, state, det, img.shape)
        if tags[text]:
            cw = 100
            target = (int(x1 - cw / 2), int(y1 - cw * 0.7), int(x1 + cw / 2), int(y1 + cw * 0.7))
            box = tag_box(tags[text], target, 1.0, img.shape)
            assert 0 <= box[0] and box[2] <= W and 0 <= box[1] and box[3] <= H
            assert box[1] >= target[3] or box[3] <= target[1]  # beside the outline, not on the card
            assert _tag_pixels(drawn, box) > 40  # the word is drawn there
    assert tags["draw"] == "DRAW" and tags["1-f"] == "TO THE FOUNDATION" and tags["w-7"] == tags["3-6"] == ""
    assert move_tag(Advice("move", Move.parse("redeal"), "", "")) == "TURN THE WASTE OVER"
    # a column move: the cards that move are outlined (the AH of column 3 here)
    advice = Advice("move", Move.parse("3-6"), "", "")
    quads = moving_quads(advice, state, det)
    assert len(quads) == 1 and np.array_equal(
        quads[0], next(d.quad for d in det.cards if d.slot == "column 3" and d.card is not None)
    )


def test_text_stays_readable_and_the_bands_low_on_a_small_picture():
    """At 640x360 the labels keep a readable size (they shrank with the picture to a few
    pixels) and the advice band covers under a third of the picture (a long reason is cut,
    the terminal has it all)."""
    w, h = 640, 360
    state, advice = a_column_move()
    advice = Advice(
        "move",
        advice.move,
        "Move 8D (with the 2 cards on it) from column 1 onto 9S in column 5",
        "the 8D can go up safely: no card can ever need it in the tableau, and it frees a face-down "
        "card in column 5; wins 47 of 96 sampled layouts",
    )
    img, det = scene(state, w, h)
    note = (
        "cannot read the top card of column 1: looking again (if this stays, move the light or the card, "
        "or press Enter to go on without it)"
    )
    out = draw_overlay(img, det, advice, state, note=note)
    changed = (np.abs(out.astype(int) - img.astype(int)).sum(axis=2) > 30).mean(axis=1) > 0.9
    band = next(i for i in range(h) if not changed[h - 1 - i])
    assert 40 < band < h * 0.32
    top = next(i for i in range(h) if not changed[i])
    assert 20 < top < h * 0.25  # the note: two lines at most
    card = next(d for d in det.cards if d.card is not None and d.slot == "column 1")
    x, y = int(card.quad[1][0]) - 6, int(card.quad[1][1]) + 3
    dark = out[y : y + 40, x].astype(int).sum(axis=1) < 30
    assert np.argmin(dark) >= 14  # the label's patch: 14 pixels high or more


def test_the_card_put_down_wrong_is_outlined_in_red():
    """The note names the card; the picture shows which one it is, where it lies."""
    state, advice = a_column_move()
    img, det = scene(state)
    top7 = max((d for d in det.cards if d.slot == "column 7"), key=lambda d: d.quad[0][1])
    wrong = CardDetection(Card.parse("4D"), top7.quad + np.float32([0, 30]), 0.99, "column 7")
    det.cards.append(wrong)
    note = (
        f"that is not a legal continuation: 4♦ was put on {top7.card.symbol} in column 7: take it back "
        "(the game is unchanged)"
    )
    put_wrong = [Placement(Card.parse("4D"), "column 7", note)]
    assert [q.tolist() for q in take_back_quads(put_wrong, det)] == [wrong.quad.tolist()]
    assert take_back_quads([Placement(Card.parse("4D"), "column 6", note)], det) == []  # not where it lies
    assert take_back_quads([], det) == []
    # the note keeps the cards of the read that found them until the table is read right
    notes = OverlayNote()
    r = _result([note], accepted=True)
    r.put_wrong = put_wrong
    assert notes.update(r) == note and notes.put_wrong == put_wrong
    assert notes.update(_result()) == note and notes.put_wrong == put_wrong
    assert notes.update(_result(accepted=True)) == "" and notes.put_wrong == []
    drawn = draw_overlay(img, det, advice, state, note=note, take_back=put_wrong)
    x0, y0 = wrong.quad[0].astype(int)
    x1, y1 = wrong.quad[2].astype(int)
    edge = drawn[y0 + 20 : y1 - 20, x0 - 2 : x0 + 3].astype(int)  # its left edge
    b, g, r = edge[..., 0], edge[..., 1], edge[..., 2]
    assert ((r > 200) & (g < 120) & (b < 120)).mean() > 0.5
    middle = drawn[(y0 + y1) // 2 - 12 : (y0 + y1) // 2 + 12, x0 + 5 : x1 - 5].astype(int)  # TAKE BACK on it
    b, g, r = middle[..., 0], middle[..., 1], middle[..., 2]
    assert ((r > 200) & (g < 120) & (b < 120)).sum() > 30


def test_a_won_game_is_said_across_the_table():
    """'You have won' was a line in the band like any advice: the end of the game is said
    large in the middle of the picture, green."""
    state = GameState.from_deal(deal_for_seed(102))
    img, det = scene(state)
    drawn = draw_overlay(img, None, Advice("won", None, "You have won"), state)
    b, g, r = (drawn[int(H * 0.3) : int(H * 0.55), :, i].astype(int) for i in range(3))
    green = (g > 180) & (r < 120) & (b < 120)
    cols = np.nonzero(green.any(axis=0))[0]
    assert green.sum() > 800 and cols.max() - cols.min() > W * 0.2
