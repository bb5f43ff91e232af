"""What the camera shows beyond the 12 slots -- the stock pile and each column's face-down
count -- reaches the coach as hints: the counts join a game where they fit, the stock
reading narrows the open explanations, and a wrong stock reading never blocks the game."""

from dataclasses import replace

import pytest

from solitaire_coach.app.coach import CoachSession
from solitaire_coach.app.live import LiveCoach
from solitaire_coach.capture.gate import ReadGate
from solitaire_coach.capture.sources import Frame
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.baseline import BaselineStrategy
from solitaire_coach.core.join import JoinedTracker, JoinError, TableView, join_table, join_with_hint
from solitaire_coach.core.moves import Move
from solitaire_coach.core.notation import parse_snapshot
from solitaire_coach.core.rules import DEFAULT_RULES
from solitaire_coach.core.state import GameState, deal_for_seed
from solitaire_coach.core.tracker import OPEN_HYPOTHESES, TableTracker
from solitaire_coach.core.virtual_table import VirtualTable, in_sync
from solitaire_coach.vision.render import TableLayout, render_layout

TABLE = "9D,3C,AH,XX,XX,KS,QH,JC,9C,8S,7D,5C\nruns: KS|QH|JC|0D 9C|8S|7D|6H 5C"


def _session(said=None):
    return CoachSession(
        DEFAULT_RULES, make_strategy("baseline"), None, say=(said.append if said is not None else print)
    )


# the counts as a hint ------------------------------------------------------------------
def test_counts_that_fit_are_used_and_said():
    view = TableView.of_snapshot(parse_snapshot(TABLE))
    join = join_with_hint(view, (0, 1, 2, 3, 4, 5, 6))
    assert join.down == (0, 1, 2, 3, 4, 5, 6)
    assert join.assumed.startswith("face-down counts as the picture shows them, 0 1 2 3 4 5 6")
    assert join_with_hint(view, (0, 0, 1, 3, 4, 5, 6)).down == (0, 0, 1, 3, 4, 5, 6)


@pytest.mark.parametrize(
    "hint, why",
    [
        ((0, 1, 2, 3, 4, 5, 7), "slot 12 (column 7) holds at most 6 face-down cards"),
        ((0, 0, 0, 0, 0, 0, 0), "too few face-down cards"),
        ((0, 1, 2), "not one whole count per column"),
    ],
)
def test_counts_that_do_not_fit_are_left_for_the_fewest_and_said(hint, why):
    view = TableView.of_snapshot(parse_snapshot(TABLE))
    join = join_with_hint(view, hint)
    fewest = join_table(view)
    assert join.down == fewest.down
    assert join.assumed.startswith(f"the face-down counts read ({' '.join(map(str, hint))}) do not fit ({why}")
    assert f"assumed the fewest that fit, {' '.join(map(str, fewest.down))}" in join.assumed


def test_a_count_under_a_column_seen_empty_does_not_fit():
    snap = parse_snapshot("9D,3C,AH,XX,XX,KS,XX,JC,9C,8S,7D,5C\nruns: KS||JC|0D 9C|8S|7D|6H 5C")
    join = join_with_hint(TableView.of_snapshot(snap), (0, 1, 2, 3, 4, 5, 6))
    assert "slot 7 (column 2) shows no card, so none lies face down there" in join.assumed


def test_a_down_line_is_taken_as_given_and_a_hint_does_not_override_it():
    session = _session(said := [])
    session.process_text(TABLE + "\ndown: 0 0 0 1 4 5 6", down_hint=(0, 1, 2, 3, 4, 5, 6))
    assert tuple(len(h) for h in session.tracker.state.hidden) == (0, 0, 0, 1, 4, 5, 6)
    with pytest.raises(JoinError):  # the line itself is checked strictly, as before
        join_table(replace(TableView.of_snapshot(parse_snapshot(TABLE)), down=(0, 1, 2, 3, 4, 5, 7)))
    session = _session(said := [])
    session.process_text(TABLE, down_hint=(0, 1, 2, 3, 4, 5, 6))
    assert tuple(len(h) for h in session.tracker.state.hidden) == (0, 1, 2, 3, 4, 5, 6)
    assert any("face-down counts as the picture shows them" in line for line in said), said


# the stock reading ---------------------------------------------------------------------
def test_a_wrong_stock_line_forces_unseen_turns_but_the_camera_hint_never_does():
    """Why the camera's stock reading is only a hint: one draw from a fresh deal read with
    the stock said empty (22 cards are left there) is explained by a ``stock:`` line as
    the whole stock turned unseen; given as the camera's hint, the read is one draw."""
    table = VirtualTable.from_deal(deal_for_seed(5))
    tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
    tracker.update(table.snapshot())
    table.perform(Move.draw())
    forced = tracker.update(replace(table.snapshot(), stock=False))
    assert len(forced.moves) > 1 and not tracker.state.stock
    assert not any(in_sync(p, table.state) for p in tracker.explanations)
    session = _session(said := [])
    session.process_text(VirtualTable.from_deal(deal_for_seed(5)).snapshot().text())
    report = session.process_text(table.snapshot().text(), stock_hint=False)
    assert report.kind == "moves" and report.moves == (Move.draw(),)
    assert not any("not a legal continuation" in line for line in said), said
    assert any(in_sync(p, table.state) for p in session.tracker.explanations)


def _after_unseen_draws(seed: int):
    """A fresh deal, the stock drawn card by card (each seen) down to its last 4, then those
    drawn in one gap the camera missed: (the session that read it all, the table, the
    snapshot after the gap)."""
    table = VirtualTable.from_deal(deal_for_seed(seed))
    session = _session([])
    session.process_text(table.snapshot().text())
    while len(table.state.stock) > 4:
        table.perform(Move.draw())
        session.process_text(table.snapshot().text())
    while table.state.stock:
        table.perform(Move.draw())
    return session, table, table.snapshot()


def test_a_stock_seen_empty_narrows_the_explanations_to_the_true_ones():
    session, table, snap = _after_unseen_draws(7)
    plain = _session([])
    plain.tracker = session.tracker
    plain.process_text(snap.text())  # without the reading: some explanations keep stock cards
    assert any(p.stock for p in plain.tracker.explanations)
    session, table, snap = _after_unseen_draws(7)
    report = session.process_text(snap.text(), stock_hint=False)
    assert report.accepted
    assert session.tracker.explanations and not any(p.stock for p in session.tracker.explanations)
    assert any(in_sync(p, table.state) for p in session.tracker.explanations)


# through the live coach, with the real detector ----------------------------------------
def _position(seed: int, moves: int) -> GameState:
    state = GameState.from_deal(deal_for_seed(seed))
    strategy = BaselineStrategy()
    for _ in range(moves):
        state = state.play(strategy.advise(state).move)
    return state


def _frames(images):
    return [Frame(img, i, i * 0.2, f"f{i}") for i, img in enumerate(images)]


def test_a_camera_join_takes_the_face_down_counts_the_picture_shows():
    from solitaire_coach.vision.detector import CardDetector

    state = _position(0, 24)  # 0 0 2 1 4 4 6 face down; the fewest that fit would be others
    truth = tuple(len(h) for h in state.hidden)
    view = TableView.of_snapshot(TableLayout.from_state(state).snapshot())
    assert join_table(view).down != truth
    image, _ = render_layout(TableLayout.from_state(state), 7, 960, 540, deck="drawn-5", difficulty=0.3, steady=True)
    said = []
    coach = LiveCoach(_session(said), CardDetector(), ReadGate(hand_check=None), say=said.append)
    coach.start()
    results = [coach.step(frame) for frame in _frames([image] * 4)]
    tracker = coach.session.tracker
    assert isinstance(tracker, JoinedTracker), said
    assert tuple(len(h) for h in tracker.joined_at.hidden) == truth
    assert any("face-down counts as the picture shows them" in line for line in said), said
    # the stock pile was seen in both reads: the read was given as 'stock: pile'
    assert [r.stock for r in results if r.accepted] == [True]


def test_a_replay_where_the_stock_is_seen_empty_keeps_only_an_empty_stock():
    from solitaire_coach.vision.detector import CardDetector

    state = _position(0, 24)
    before = state
    while len(state.stock) > 0:
        state = state.play(Move.draw())  # the rest of the stock turned while the camera looked away
    images = []
    for s in (before, state):
        image, _ = render_layout(TableLayout.from_state(s), 7, 960, 540, deck="drawn-5", difficulty=0.3, steady=True)
        images += [image] * 4
    said = []
    coach = LiveCoach(_session(said), CardDetector(), ReadGate(hand_check=None), say=said.append)
    coach.start()
    results = [coach.step(frame) for frame in _frames(images)]
    assert [r.stock for r in results if r.accepted] == [True, False], said
    explanations = coach.session.tracker.explanations
    assert explanations and not any(p.stock for p in explanations)
    assert any(p.faceup == state.faceup and len(p.waste) == len(state.waste) for p in explanations)
    assert not any("not a legal continuation" in line for line in said), said


# what one picture says, and what two reads agree on --------------------------------------
def _result(stock_seen: bool, down=(0, 1, 2, 3, 4, 5, 6)):
    from solitaire_coach.vision.detector import DetectionResult

    return DetectionResult(parse_snapshot(TABLE), [], 1.0, tuple(down), stock_seen)


def test_a_picture_says_empty_only_once_the_pile_was_seen_in_its_place():
    assert _result(True).stock_reading() is True
    assert _result(False).stock_reading() is None  # an unfamiliar back is missed there
    assert _result(False).stock_reading(pile_seen_before=True) is False


def test_the_live_coach_gives_what_the_last_two_reads_agree_on():
    coach = LiveCoach(_session([]), object(), ReadGate(hand_check=None), say=lambda line: None)
    assert coach.table_hints() == (None, None)
    coach._note_table(_result(False))
    coach._note_table(_result(False))
    assert coach.table_hints() == (None, (0, 1, 2, 3, 4, 5, 6))  # no pile seen yet: not read
    coach._note_table(_result(True, (0, 1, 2, 3, 4, 5, 5)))
    assert coach.table_hints() == (None, None)  # the two reads differ on both
    coach._note_table(_result(True, (0, 1, 2, 3, 4, 5, 5)))
    assert coach.table_hints() == (True, (0, 1, 2, 3, 4, 5, 5))
    coach._note_table(_result(False))
    coach._note_table(_result(False))
    assert coach.table_hints()[0] is False  # the pile was seen there before: now empty
