"""Explanations dropped for the cap of kept ones: followed on the side, so that the coach
says it is not sure of the position where one of them would make its advice wrong, and
dropped as later reads rule them out; the kept explanations and the advice are the same
as without them."""

import pytest

from solitaire_coach.app.coach import UNSURE_NOTE, CoachSession
from solitaire_coach.core import Move, deal_for_seed
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.rules import DEFAULT_RULES
from solitaire_coach.core.tracker import TableTracker
from solitaire_coach.core.virtual_table import VirtualTable, in_sync


def _flicked(seed: int, cap: int, unseen: int = 4, with_stock: bool = True):
    """A coach keeping at most ``cap`` explanations, after ``unseen`` stock turns read as one."""
    table = VirtualTable.from_deal(deal_for_seed(seed))
    said: list[str] = []
    session = CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=said.append)
    session.tracker.max_hypotheses = cap
    session.process_text(table.snapshot(with_stock=with_stock).text())
    for _ in range(unseen):
        table.perform(Move.draw())
    said.clear()
    assert session.process_text(table.snapshot(with_stock=with_stock).text()).accepted
    return table, session, said


def _next_move(session, table):
    advice = session.last_advice
    if advice.status == "check":
        return next(m for m in advice.moves if table.state.is_legal(m))
    return advice.move


def test_the_cap_drops_the_real_count_of_turns_and_the_coach_says_it_is_not_sure_when_it_matters():
    # no stock line: the camera does not say whether a pile is left
    table, session, said = _flicked(0, cap=1, with_stock=False)
    tracker = session.tracker
    assert tracker.last_search.over_cap > 0
    # the one kept explanation is a single turn: the real count of four was dropped, and
    # is followed on the side
    assert not any(in_sync(s, table.state) for s in tracker.explanations)
    assert any(in_sync(s, table.state) for s in tracker.doubted)
    unsure_reads = 0
    for _ in range(60):
        said.clear()
        assert session.process_text(table.snapshot().text()).accepted
        assert any(in_sync(s, table.state) for s in tracker.explanations + tracker.doubted)
        advice = session.last_advice
        if advice.status == "move" and any(not s.is_legal(advice.move) for s in tracker.doubted):
            # a dropped explanation has the stock used up where the kept one has cards
            # left: "turn the next stock card" may be wrong, and the coach says so
            assert advice.unsure and any(UNSURE_NOTE in line for line in said), advice.line()
            unsure_reads += 1
        if advice.status == "move" and not table.state.is_legal(advice.move):
            assert advice.unsure, f"illegal advice given as if sure: {advice.line()}"
        move = _next_move(session, table)
        if move is None or not table.state.is_legal(move):
            break
        table.perform(move)
    assert unsure_reads > 0


def test_while_the_dropped_explanations_agree_with_a_kept_one_the_coach_is_sure():
    table, session, _ = _flicked(0, cap=1)
    tracker = session.tracker
    # the dropped ones differ from the kept one only in the stock's length, which no
    # advice rests on while both have cards left: not a guess, and the advice says so
    assert tracker.doubted and all(s.stock for s in tracker.doubted)
    assert not tracker.guessed and not session.last_advice.unsure


def test_a_read_rules_the_dropped_explanations_out_as_it_does_kept_ones():
    table, session, _ = _flicked(1, cap=1)
    tracker = session.tracker
    for _ in range(80):
        move = _next_move(session, table)
        if move is None or not table.state.is_legal(move):
            break
        before = tracker.doubted
        table.perform(move)
        assert session.process_text(table.snapshot(with_stock=True).text()).accepted
        assert any(in_sync(s, table.state) for s in tracker.explanations + tracker.doubted)
        if not table.state.stock:  # read "stock: empty": those with cards left are ruled out
            assert any(s.stock for s in before)
            assert tracker.doubted and not any(s.stock for s in tracker.doubted)
            assert len(tracker.doubted) < len(before)
            break
    else:
        pytest.fail("the stock was not used up")


@pytest.mark.parametrize("seed", [0, 3])
def test_following_the_dropped_explanations_changes_neither_the_kept_ones_nor_the_advice(monkeypatch, seed):
    def run():
        table = VirtualTable.from_deal(deal_for_seed(seed))
        session = CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=lambda _: None)
        session.tracker.max_hypotheses = 4
        seen = []
        for turn in range(40):
            if turn % 7 == 3:  # a flick through the stock, read as one turn
                for _ in range(3):
                    if table.state.is_legal(Move.draw()):
                        table.perform(Move.draw())
            session.process_text(table.snapshot(with_stock=True).text())
            advice = session.last_advice
            seen.append((session.tracker.explanations, advice.status, advice.move, advice.moves))
            move = _next_move(session, table)
            if move is None or not table.state.is_legal(move):
                break
            table.perform(move)
        return seen, session.tracker

    followed, tracker = run()
    assert tracker.last_search is not None
    monkeypatch.setattr(TableTracker, "_follow_doubts", lambda self, *args: None)
    assert run()[0] == followed


def test_the_dropped_explanations_are_journalled():
    table, session, _ = _flicked(0, cap=1)
    tracker = session.tracker
    data = tracker.to_dict()
    assert len(data["doubted"]) == len(tracker.doubted) and "guessed" not in data
    again = TableTracker.from_dict(data)
    assert again.doubted == tracker.doubted and again.guessed == tracker.guessed
    bad = {**data, "doubted": [{**data["doubted"][0], "misread": True}]}
    with pytest.raises(ValueError, match="doubted explanation 1 must not be marked misread"):
        TableTracker.from_dict(bad)
    with pytest.raises(ValueError, match="the doubted explanations must be a list"):
        TableTracker.from_dict({**data, "doubted": "some"})
    # set by hand (as the coach does after a resume), a guess lasts and forgets them
    again.guessed = False
    assert not again.doubted
    again.guessed = True
    assert again.guessed and TableTracker.from_dict(again.to_dict()).guessed
