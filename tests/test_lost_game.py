"""A coach that cannot follow says so once, plainly; with photos far apart it joins the
table as it is and coaches on (issue 43: "when it cannot follow, it says so once")."""

from __future__ import annotations

from solitaire_coach.app.coach import LOST_AFTER, CoachSession
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.moves import Move
from solitaire_coach.core.rules import DEFAULT_RULES
from solitaire_coach.core.state import deal_for_seed
from solitaire_coach.core.tracker import TableTracker
from solitaire_coach.core.virtual_table import VirtualTable


def _played(seed: int, n: int) -> list:
    """The tables of a game the baseline strategy plays from deal ``seed``, move by move."""
    table = VirtualTable.from_deal(deal_for_seed(seed))
    tracker = TableTracker()
    tracker.update(table.snapshot())
    strategy = make_strategy("baseline")
    snaps = [table.snapshot()]
    for _ in range(n):
        advice = strategy.advise(tracker.state, tracker.history)
        if advice.move is None:
            break
        table.perform(advice.move)
        tracker.update(table.snapshot())
        snaps.append(table.snapshot())
    return snaps


def _session(said: list[str], rejoin_after: int | None = None) -> CoachSession:
    return CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=said.append, rejoin_after=rejoin_after)


SEED, SEEN, LATER = 3, 4, (30, 45, 60, 75)  # moves seen one by one, then tables 15 moves apart


def test_lost_is_said_once_with_the_way_out():
    snaps = _played(SEED, 80)
    said: list[str] = []
    session = _session(said)
    for snap in snaps[:SEEN]:
        assert session.process_text(snap.text()).accepted
    kinds, lines = [], []
    for k in LATER:
        before = len(said)
        kinds.append(session.process_text(snaps[k].text()).kind)
        lines.append(said[before:])
    assert kinds == ["inconsistent"] * len(LATER)
    lost = [line for line in said if line.startswith("I cannot follow this game any more")]
    assert len(lost) == 1 and f"{LOST_AFTER} tables in a row" in lost[0] and "--new" in lost[0]
    assert lines[LOST_AFTER - 1] == lost  # the third refusal says it, instead of its own words
    assert lines[LOST_AFTER] == []  # and then nothing more until a table follows
    # the table put back where the coach last saw it: followed again, and lost can be said again later
    assert session.process_text(snaps[SEEN - 1].text()).accepted
    assert session._refused_tables == [] and not session._lost_said


def test_photos_far_apart_join_the_table_as_it_is():
    snaps = _played(SEED, 80)
    said: list[str] = []
    session = _session(said, rejoin_after=LOST_AFTER)
    for snap in snaps[:SEEN]:
        session.process_text(snap.text())
    kinds = [session.process_text(snaps[k].text()).kind for k in LATER[:LOST_AFTER]]
    assert kinds == ["inconsistent"] * (LOST_AFTER - 1) + ["started"]
    joined = [line for line in said if line.startswith("I could not follow the game")]
    assert len(joined) == 1 and f"{SEEN - 1} moves were followed" in joined[0], said
    assert said[-1].startswith("advice: ")
    # the next photo, a few moves on, is followed from the joined table
    nxt = LATER[LOST_AFTER - 1] + 1
    assert session.process_text(snaps[nxt].text()).accepted


def test_a_resumed_guess_is_advised_as_unsure_before_the_first_frame():
    """A journal saved while the position was a guess: the live coach's first advice, said
    before any frame is read, says it is not sure (as every later advice would)."""
    from solitaire_coach.app.live import LiveCoach

    snaps = _played(SEED, 6)
    said: list[str] = []
    session = _session(said)
    for snap in snaps:
        session.process_text(snap.text())
    session.tracker.guessed = True  # as a journal saved while unsure loads
    session.last_advice = None
    coach = LiveCoach(session, detector=None, say=said.append)  # type: ignore[arg-type]
    coach.start()
    assert session.last_advice is not None and session.last_advice.unsure
    assert "not sure of the position" in said[-1]


def _asked_to_join(said: list[str]) -> tuple[list, CoachSession]:
    """A game followed for its first SEEN tables, then the person asks to join (J)."""
    snaps = _played(SEED, 80)
    session = _session(said)
    for snap in snaps[:SEEN]:
        session.process_text(snap.text())
    session.join_next()
    return snaps, session


def test_asked_to_join_the_next_table_that_does_not_follow_is_joined():
    """The way out the lost coach offers, without a restart: ``join_next`` (the live
    window's J key) joins the next table that does not follow, at once (the first refused
    table, not the third); a table that follows instead cancels the request."""
    said: list[str] = []
    snaps, session = _asked_to_join(said)
    assert said[-1] == "the next table that does not follow from this game is joined as it is"
    assert session.process_text(snaps[SEEN].text()).kind == "moves"  # it follows: no join
    assert session._join_asked is False
    assert session.process_text(snaps[LATER[0]].text()).kind == "inconsistent"  # not asked again
    session.join_next()
    assert session.process_text(snaps[LATER[1]].text()).kind == "started"
    joined = [line for line in said if line.startswith("As asked, I join the table as it is")]
    assert len(joined) == 1 and f"({SEEN} moves were followed)" in joined[0], said
    assert said[-1].startswith("advice: ")
    assert session.process_text(snaps[LATER[1] + 1].text()).accepted


def test_asked_to_join_a_table_that_cannot_be_joined_says_why_and_tries_the_next():
    said: list[str] = []
    snaps, session = _asked_to_join(said)
    slots = snaps[LATER[0]].text().strip().split(",")
    unread = ",".join(slots[:5] + ["UU"] + slots[6:])  # column 1 not read: a join waits for it
    report = session.process_text(unread)
    assert report.kind == "inconsistent" and "this table cannot be joined yet" in report.message, report.message
    assert session.process_text(snaps[LATER[1]].text()).kind == "started"


def test_j_in_the_terminal_asks_to_join():
    import io

    from solitaire_coach.app.loop import KeyReader

    keys = KeyReader(None)
    keys.ok, keys.stream = True, io.StringIO("j\n")
    import select as _select

    original = _select.select
    _select.select = lambda r, w, x, t: (r, [], [])
    try:
        assert keys.poll() == "join"
    finally:
        _select.select = original


def test_a_join_asked_for_keeps_every_count_of_redeals_open():
    """No picture shows how often the waste was turned over: a join from a lost game keeps
    every count open, from none (not the fewest the lost game held: it may hold a redeal
    never made, deal 75 of the benchmark), so the advice never counts on redeals already
    made nor on ones never made."""
    table = VirtualTable.from_deal(deal_for_seed(SEED))
    said: list[str] = []
    session = _session(said)
    session.process_text(table.snapshot().text())
    while table.state.stock:
        table.perform(Move.draw())
        assert session.process_text(table.snapshot().text()).accepted
    table.perform(Move.redeal())
    table.perform(Move.draw())
    assert session.process_text(table.snapshot().text()).accepted
    assert session.tracker.state.redeals_used == 1
    elsewhere = _played(SEED + 2, 12)[-1]  # another game's table: it does not follow
    session.join_next()
    assert session.process_text(elsewhere.text()).kind == "started"
    assert {s.redeals_used for s in session.tracker.explanations} == {0, 1, 2, 3}
    assert any("every count from 0 to the rules' 3 kept open" in line for line in said), said


def test_a_joined_game_keeps_unseen_stock_turns_open_as_a_dealt_one():
    """A game joined mid-way (no journal, a rejoin or J) is tracked as a dealt one: every
    count of stock turns read as one stays open. Before, a join got a bare tracker's
    options (one turn a turn read) until a restart resumed it with the coach's: deal 15 of
    the benchmark with ``--join-when-lost`` lost the real count of five draws read as one."""
    from solitaire_coach.core.tracker import OPEN_HYPOTHESES
    from solitaire_coach.core.virtual_table import in_sync

    table = VirtualTable.from_deal(deal_for_seed(SEED))
    strategy = make_strategy("baseline")
    shadow = TableTracker()
    shadow.update(table.snapshot())
    for _ in range(12):  # into the game, with moves on the table
        advice = strategy.advise(shadow.state, shadow.history)
        if advice.move is None or advice.move.kind.name in ("DRAW", "REDEAL"):
            break
        table.perform(advice.move)
        shadow.update(table.snapshot())
    said: list[str] = []
    session = _session(said)
    down = tuple(len(pile) for pile in table.state.hidden)
    report = session.process_text(table.snapshot(with_runs=True, with_stock=True).text(), down_hint=down)
    assert report.kind == "started", said
    assert session.tracker.open_turns and session.tracker.max_hypotheses == OPEN_HYPOTHESES
    for _ in range(5):
        table.perform(Move.draw())
    assert session.process_text(table.snapshot(with_stock=True).text()).accepted
    assert any(in_sync(s, table.state) for s in session.tracker.explanations)


def test_asked_to_join_while_not_sure_joins_the_next_table_read_whole():
    """A position that is a guess makes every advice "not sure" for the rest of the game.
    J is the way out of it too: while the position is a guess the next table is joined as
    it is though it follows, but only from a read of the whole table (a join that assumed
    the runs or the face-down counts would be a guess not said); until then the game goes
    on as followed and the request stands."""
    from solitaire_coach.app.coach import UNSURE_NOTE

    table = VirtualTable.from_deal(deal_for_seed(SEED))
    strategy = make_strategy("baseline")
    said: list[str] = []
    session = _session(said)
    session.process_text(table.snapshot(with_stock=True).text())
    for _ in range(12):
        table.perform(strategy.advise(session.tracker.state, session.tracker.history).move)
        assert session.process_text(table.snapshot(with_stock=True).text()).accepted
    session.tracker.guessed = True  # (as after a gap too long to be sure of)
    table.perform(session.last_advice.move)
    session.process_text(table.snapshot(with_stock=True).text())
    assert session.last_advice.unsure and UNSURE_NOTE in said[-1] and "J joins the table" in said[-1]
    session.join_next()
    assert said[-1] == "not sure of this game's position: the next table read is joined as it is"
    table.perform(session.last_advice.move)
    report = session.process_text(table.snapshot(with_stock=True).text())  # the tops alone
    assert report.kind == "moves" and session.tracker.guessed and session._join_asked
    assert any(line.startswith("not joined yet: a join needs the whole table read") for line in said), said
    down = tuple(len(pile) for pile in table.state.hidden)
    report = session.process_text(table.snapshot(with_stock=True, with_runs=True).text(), down_hint=down)
    assert report.kind == "started", report
    assert any(line.startswith("As asked, I join the table as it is") for line in said)
    assert not session.tracker.guessed and not session.last_advice.unsure, session.last_advice.line()
    assert not session._join_asked
