"""Joining a game in progress (issue 42): from positions of simulated games, the refusals,
the down: line, the journal and a resume after a join."""

import json
import random
from dataclasses import replace

import pytest

from solitaire_coach.app.coach import CoachSession
from solitaire_coach.app.journal import Journal
from solitaire_coach.core import Card, Rules, parse_snapshot
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.best import sample_layout
from solitaire_coach.core.join import JoinedTracker, JoinError, TableView, join_table, try_join
from solitaire_coach.core.notation import SnapshotParseError, state_from_dict
from solitaire_coach.core.state import check_position, deal_for_seed
from solitaire_coach.core.virtual_table import VirtualTable, check_in_sync


def _played(seed: int, rules: Rules | None = None, most: int = 120) -> VirtualTable:
    """The table of deal ``seed`` after a random number of random legal moves."""
    rules = rules or Rules()
    rng = random.Random(seed)
    table = VirtualTable.from_deal(deal_for_seed(seed), rules)
    for _ in range(rng.randrange(most + 1)):
        moves = table.state.legal_moves()
        if not moves:
            break
        table.perform(rng.choice(moves))
    return table


def _seen(table: VirtualTable, down: bool = True):
    """The snapshot a perfect detector gives, runs and (with ``down``) face-down counts."""
    snap = table.snapshot(with_runs=True)
    return replace(snap, down=tuple(len(h) for h in table.state.hidden)) if down else snap


def test_joins_the_positions_of_1000_simulated_games_consistently():
    """Every position reached by random play joins; one of its splits is the true layout's
    shape, each split agrees with every card the table shows, the unseen cards are exactly
    those not visible (a foundation's lower cards are on it), and a sampled layout deals
    them into the unknown places only. Without a down: line the fewest that fit are
    assumed, never more than the truth."""
    splits = 0
    for seed in range(1000):
        table = _played(seed)
        truth = table.state
        join = join_table(TableView.of_snapshot(_seen(table)))
        shapes = [(len(p.stock), len(p.waste)) for p in join.positions]
        assert (len(truth.stock), len(truth.waste)) in shapes, seed
        assert join.down == tuple(len(h) for h in truth.hidden) and "face-down" not in join.assumed
        visible = {c for run in truth.faceup for c in run} | set(table.visible_waste())
        visible |= {Card(r, s) for s in range(4) for r in range(1, truth.foundations[s] + 1)}
        for position in join.positions:
            assert position.faceup == truth.faceup and position.foundations == truth.foundations
            assert set(position.known_cards()) == visible and len(position.unseen_cards()) == 52 - len(visible)
            assert len(position.stock) + len(position.waste) == len(truth.stock) + len(truth.waste)
        splits += len(join.positions)
        layout = sample_layout(join.position, random.Random(seed))
        assert layout.is_complete_knowledge() and layout.faceup == truth.faceup
        check_position(layout)  # 52 different cards: none of a foundation's dealt anywhere else
        assert all(c is not None for h in layout.hidden for c in h)
        fewest = join_table(TableView.of_snapshot(_seen(table, down=False)))
        assert fewest.assumed.startswith("no face-down counts given") and sum(fewest.down) <= sum(join.down)
    assert splits > 2000  # most tables leave the stock/waste split open


@pytest.mark.parametrize("rules, likeliest", [(Rules(), 22), (Rules(draw_count=3), 15)])
def test_a_joined_tracker_follows_the_game_and_settles_the_stock_waste_split(rules, likeliest):
    """After a join, random play is followed move by move: every snapshot is accepted, the
    true layout is always one of the explanations kept (the redeals made before the join,
    which no picture shows, among every count kept open), and mostly the likeliest but for
    those redeals: a stock/waste split stays open only while no turn of the stock or card
    off the waste tells (a game out of redeals)."""
    in_sync = 0
    games = 25
    for seed in range(games):
        table = _played(seed, rules, most=80)
        redeals_before = table.state.redeals_used
        tracker = JoinedTracker.join(join_table(TableView.of_snapshot(_seen(table)), rules), max_hypotheses=160)
        rng = random.Random(seed + 1000)
        for _ in range(80):
            moves = table.state.legal_moves()
            if not moves:
                break
            table.perform(rng.choice(moves))
            report = tracker.update(table.snapshot())
            assert report.accepted, (seed, report.message)
        kept = [tracker.state] + [state_from_dict(alt["state"], rules) for alt in tracker.to_dict()["alternatives"]]
        fits = []
        for state in kept:
            try:
                check_in_sync(replace(state, redeals_used=table.state.redeals_used), table.state)
                fits.append(state.redeals_used - table.state.redeals_used)
            except AssertionError:
                fits.append(None)
        assert 0 in fits, seed  # the real count open
        in_sync += fits[0] == -redeals_before  # the likeliest: the fewest redeals kept open
    assert in_sync >= likeliest


def _table_text(slots: str, runs: str | None = None, down: str | None = None) -> str:
    return slots + "\n" + (f"runs: {runs}\n" if runs else "") + (f"down: {down}\n" if down else "")


# a table in play: foundations A♣-3♣ and A♥; columns 1-7 runs as given
_SLOTS = "9D,3C,AH,XX,XX,KS,QH,JC,9C,8S,7D,5C"
_RUNS = "KS|QH|JC|0D 9C|8S|7D|6H 5C"


def test_a_legal_table_joins_and_the_unseen_cards_are_counted():
    join = join_table(TableView.of_snapshot(parse_snapshot(_table_text(_SLOTS, _RUNS, "0 1 2 3 4 5 6"))))
    state = join.position
    assert state.foundations == (3, 0, 1, 0)
    # 9 face up in the columns, the waste's 9♦, 4 on the foundations, 21 face down: 17 left
    assert len(state.unseen_cards()) == 52 - 9 - 1 - 4
    # every split of the stock and the waste, each with every redeal count (none given: 0-3)
    assert [(len(p.stock), p.redeals_used) for p in join.positions] == [
        (n, r) for n in range(17, -1, -1) for r in range(4)
    ]
    assert all(len(p.stock) + len(p.waste) == 18 for p in join.positions)


@pytest.mark.parametrize(
    "text, words",
    [
        (
            _table_text("9D,3C,AH,XX,XX,KS,QH,JC,9C,8S,7D,2C", None, "0 1 2 3 4 5 6"),
            "2♣ is in slot 2 (foundation 1) (under 3♣ on the foundation) and in slot 12 (column 7)",
        ),
        (
            _table_text("9D,3C,AH,5H,XX,KS,QH,JC,9C,8S,7D,5C", None, "0 1 2 3 4 5 6"),
            "slot 3 (foundation 2) and slot 4 (foundation 3) both hold the ♥ foundation",
        ),
        (_table_text(_SLOTS, "KS|QH|JC|0D 9C|8S|7D|6C 5C", None), "slot 12 (column 7): 5♣ lies on 6♣"),
        (
            _table_text("9D,4C,6D,5H,7S,KS,QH,JC,9C,8S,7D,5C", _RUNS, "0 1 2 3 4 5 6"),
            "more than 52 cards: 9 face up in the columns, 1 on the waste, 22 on the foundations and 21 face down make 53",
        ),
        (_table_text(_SLOTS, _RUNS, "0 0 0 0 0 0 1"), "too few face-down cards (0 0 0 0 0 0 1 in columns 1-7)"),
        (_table_text("UU,3C,AH,XX,XX,KS,QH,JC,9C,8S,7D,5C", _RUNS, None), "slot 1 (waste) could not be read"),
    ],
)
def test_a_table_no_legal_game_shows_is_refused_naming_the_slot_and_nothing_starts(tmp_path, text, words):
    with pytest.raises(JoinError) as caught:
        join_table(TableView.of_snapshot(parse_snapshot(text)))
    assert words in str(caught.value)
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), Journal(tmp_path / "j.json"), say=said.append)
    report = session.process_text(text)
    assert report.kind == "waiting" and session.tracker.state is None and not (tmp_path / "j.json").exists()
    # (an unread slot: the tracker's own reason for waiting, which names the slot, is said)
    assert any((words if "could not be read" not in words else "slot 1 (waste)") in line for line in said)


@pytest.mark.parametrize(
    "line, words",
    [
        ("down: 0 1 2", "line 2: down: one face-down count per column, 7, not 3"),
        ("down: 0 1 2 3 4 5 7", "slot 12 (column 7): 7 face-down cards, but the deal puts 6 there"),
        ("down: 1 0 0 0 0 0 0", "slot 6 (column 1): 1 face-down card, but the deal puts 0 there"),
        ("down: 0 1 two 3 4 5 6", "the count for column 3, 'two', is not a number of face-down cards"),
    ],
)
def test_a_down_line_that_does_not_fit_the_12_slots_is_refused(line, words):
    with pytest.raises(SnapshotParseError, match="line 2") as caught:
        parse_snapshot(_SLOTS + "\n" + line)
    assert words in str(caught.value)


def test_the_down_line_is_written_and_read_back():
    snap = parse_snapshot(_table_text(_SLOTS, _RUNS, "0 1 2 3 4 5 6"))
    assert snap.down == (0, 1, 2, 3, 4, 5, 6)
    assert parse_snapshot(snap.text()) == snap
    assert parse_snapshot(_SLOTS + "\ndown:\n").down is None  # an empty line says nothing


def test_a_redeals_line_gives_the_redeals_made_before_a_join_and_without_one_none_are_assumed_and_said():
    with_line = parse_snapshot(_table_text(_SLOTS, _RUNS, "0 1 2 3 4 5 6") + "redeals: 2\n")
    assert with_line.redeals == 2 and parse_snapshot(with_line.text()) == with_line
    join = join_table(TableView.of_snapshot(with_line))
    assert all(p.redeals_used == 2 for p in join.positions) and "redeals" not in join.assumed
    plain = join_table(TableView.of_snapshot(parse_snapshot(_table_text(_SLOTS, _RUNS, "0 1 2 3 4 5 6"))))
    assert plain.position.redeals_used == 0 and "no redeals given (a redeals: line)" in plain.assumed
    assert not join_table(
        TableView.of_snapshot(parse_snapshot(_table_text(_SLOTS, _RUNS, "0 1 2 3 4 5 6"))), Rules(redeal_limit=None)
    ).assumed  # unlimited: the count does not matter
    with pytest.raises(JoinError, match="4 redeals used: the rules"):
        join_table(TableView.of_snapshot(parse_snapshot(_SLOTS + "\nredeals: 4")))
    with pytest.raises(SnapshotParseError, match="line 2: redeals: 'two' is not a count"):
        parse_snapshot(_SLOTS + "\nredeals: two")


def test_without_a_down_line_the_fewest_face_down_cards_that_fit_are_assumed_and_said(tmp_path):
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), None, say=said.append)
    report = session.process_text(_table_text(_SLOTS, _RUNS))
    assert report.kind == "started"
    # 9 face up + 4 on the foundations: at least 15 face down, rightmost first
    assert [len(h) for h in session.tracker.state.hidden] == [0, 0, 0, 0, 4, 5, 6]
    assert any("assumed the fewest that fit, 0 0 0 0 4 5 6" in line for line in said)


def test_a_snapshot_file_with_a_down_line_starts_a_game_midway_and_a_restart_resumes_it(tmp_path):
    """Join from a played table's snapshot (runs and down lines), play on, restart the coach
    from the journal half-way: the resumed game goes on as the one that never stopped."""
    table = _played(11, most=60)
    snaps = [_seen(table).text()]
    rng = random.Random(5)
    for _ in range(30):
        moves = table.state.legal_moves()
        if not moves:
            break
        table.perform(rng.choice(moves))
        snaps.append(table.snapshot().text())
    path = tmp_path / "game.journal.json"
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), Journal(path), say=said.append)
    first = session.process_text(snaps[0])
    assert first.kind == "started" and isinstance(session.tracker, JoinedTracker)
    assert any(line.startswith("joined a game in progress") for line in said)
    data = json.loads(path.read_text())
    assert data["tracker"]["joined"]["position"]["foundations"] == list(session.tracker.state.foundations)
    for text in snaps[1:15]:
        assert session.process_text(text).accepted
    said.clear()
    resumed = CoachSession(Rules(), make_strategy("baseline"), Journal(path), say=said.append)
    assert isinstance(resumed.tracker, JoinedTracker) and resumed.tracker.history == session.tracker.history
    assert any("since it was joined mid-way" in line for line in said)
    for text in snaps[15:]:
        assert session.process_text(text).accepted
        assert resumed.process_text(text).accepted
    assert resumed.tracker.history == session.tracker.history and resumed.tracker.state == session.tracker.state
    assert resumed.tracker.joined_at == session.tracker.joined_at


def test_a_table_of_another_game_in_progress_is_offered_to_join_once(tmp_path):
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), None, say=said.append)
    session.process_text(VirtualTable.from_deal(deal_for_seed(3)).snapshot().text())
    other = _seen(_played(12, most=60)).text()
    for _ in range(3):
        assert session.process_text(other).kind == "inconsistent"
    assert sum("restart with --new to join it as a new game" in line for line in said) == 1
    said.clear()
    fresh = CoachSession(Rules(), make_strategy("baseline"), None, say=said.append, resume=False)
    assert fresh.process_text(other).kind == "started"


def test_try_join_says_why_not():
    tracker, line = try_join(parse_snapshot(_table_text(_SLOTS, _RUNS, "0 0 0 0 0 0 1")))
    assert tracker is None and line.startswith("cannot join the game on the table: too few face-down cards")
