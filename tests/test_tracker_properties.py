"""Random legal games (not the advisor's) seen through a bad camera: frames read twice,
slots a hand hides (UU), a card put down against the rules and taken back, a frame from
two moves ago sent again. Whatever comes, every position the tracker holds is a Klondike
position, the coach's advice is legal in it, a journal read back behaves the same, and
once the true table is seen again the tracker is in sync with it."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from solitaire_coach.app.coach import CoachSession
from solitaire_coach.core import EMPTY, UNKNOWN, GameState, MoveKind, Snapshot, check_position, deal_for_seed
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.rules import DEFAULT_RULES
from solitaire_coach.core.tracker import TableTracker
from solitaire_coach.core.virtual_table import VirtualTable, check_in_sync

STOCK_TURNS = {MoveKind.DRAW, MoveKind.REDEAL}
FRAMES = st.sampled_from(["true", "true", "twice", "hand", "wrong card", "stale"])


def _random_move(state, rng):
    """A random legal move, a card move more often than a stock turn."""
    moves = state.legal_moves()
    cards = [m for m in moves if m.kind not in (MoveKind.DRAW, MoveKind.REDEAL)]
    return rng.choice(cards if cards and rng.random() < 0.6 else moves)


def _put_down_wrong(table, rng):
    """The table with its top waste card or a column's top card put on a column it does
    not fit (not where it lay before: that is an undo); None when no card can be."""
    s = table.state
    slots = list(table.snapshot().slots)
    tops = []
    if s.waste and s.waste[-1] is not None:
        tops.append((0, s.waste[-2] if len(s.waste) > 1 else EMPTY, s.waste[-1]))
    for i, run in enumerate(s.faceup):
        if run:
            tops.append((5 + i, run[-2] if len(run) > 1 else (s.hidden[i][-1] if s.hidden[i] else EMPTY), run[-1]))
    wrong = [
        (src, under, card, j)
        for src, under, card in tops
        for j in range(7)
        if 5 + j != src and not s._fits_column(card, j)
    ]
    if not wrong:
        return None
    src, under, card, j = rng.choice(wrong)
    slots[src], slots[5 + j] = under, card
    return Snapshot(tuple(slots))


def _check_position(session, deal):
    tracker = session.tracker
    check_position(tracker.state)
    advice = session.last_advice
    if advice is not None and advice.status == "move":
        assert tracker.state.is_legal(advice.move), (advice.line(), tracker.history)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), frames=st.lists(FRAMES, min_size=10, max_size=30))
def test_a_bad_camera_never_leaves_the_tracker_wrong_once_the_true_table_is_seen(seed, frames):
    rng = random.Random(seed)
    deal = deal_for_seed(seed)
    table = VirtualTable.from_deal(deal)
    said = []
    session = CoachSession(DEFAULT_RULES, make_strategy("baseline"), say=said.append)
    session.process_text(table.snapshot().text())
    past = [(table.snapshot(), None)]
    for frame in frames:
        if not table.state.legal_moves():
            break
        move = _random_move(table.state, rng)
        table.perform(move)
        true = table.snapshot()
        past.append((true, move.kind))
        if frame == "twice":
            session.process_text(true.text())
        elif frame == "hand":
            slots = list(true.slots)
            for slot in rng.sample(range(12), rng.randint(1, 4)):
                slots[slot] = UNKNOWN
            session.process_text(Snapshot(tuple(slots)).text())
        elif frame == "wrong card":
            wrong = _put_down_wrong(table, rng)
            if wrong is not None:
                for _ in range(2):  # the table is still: the same frame twice
                    report = session.process_text(wrong.text())
                    assert report.kind != "started"
                    _check_position(session, deal)
        elif frame == "stale" and len(past) >= 3 and not {past[-1][1], past[-2][1]} & STOCK_TURNS:
            # (not one from before a stock turn: with the stock unseen, it and the true table
            # after are taken as the card turned last misread, a known limitation)
            session.process_text(past[-3][0].text())
        _check_position(session, deal)
        report = session.process_text(true.text())
        assert report.accepted, (frame, report.message)
        _check_position(session, deal)
        check_in_sync(session.tracker.state, table.state)
        # the history is a game of this deal that leads to the true table
        assert GameState.from_deal(deal).play_all(session.tracker.history) == table.state


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10**6),
    frames=st.lists(st.sampled_from(["true", "twice", "hand", "skip"]), min_size=5, max_size=30),
)
def test_a_tracker_read_back_from_its_journal_behaves_as_the_saved_one(seed, frames):
    """After every accepted snapshot (when the coach saves its journal) the tracker read back
    from the journal gives the same reports and the same journal on every next snapshot."""
    rng = random.Random(seed)
    table = VirtualTable.from_deal(deal_for_seed(seed))
    tracker = TableTracker()
    tracker.update(table.snapshot())
    saved = True
    for frame in frames:
        if not table.state.legal_moves():
            break
        table.perform(_random_move(table.state, rng))
        if frame == "skip":
            continue
        snap = table.snapshot()
        if frame == "hand":
            slots = list(snap.slots)
            for slot in rng.sample(range(12), rng.randint(1, 3)):
                slots[slot] = UNKNOWN
            snap = Snapshot(tuple(slots))
        for _ in range(2 if frame == "twice" else 1):
            copy = TableTracker.from_dict(json.loads(json.dumps(tracker.to_dict()))) if saved else None
            report = tracker.update(snap)
            saved = report.accepted  # the coach saves only accepted snapshots
            if copy is not None:
                again = copy.update(snap)
                assert (again.kind, again.moves, again.message) == (report.kind, report.moves, report.message)
                assert copy.to_dict() == tracker.to_dict()
