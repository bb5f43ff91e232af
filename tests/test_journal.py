"""The journal keeps the game through anything: a journal that is no game is set aside with
a reason that names what is wrong, one that cannot be moved or written is reported and the
game goes on from memory, and a position read back is checked to be a Klondike position."""

import json
import os
import subprocess
import sys
import time

import pytest

from solitaire_coach.app.coach import CoachSession
from solitaire_coach.app.journal import Journal, JournalError
from solitaire_coach.core import Card, Rules
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.notation import state_from_dict, state_to_dict
from solitaire_coach.core.state import GameState, check_position, deal_for_seed
from solitaire_coach.core.tracker import TableTracker
from solitaire_coach.core.virtual_table import VirtualTable


def _started_tracker() -> TableTracker:
    table = VirtualTable.from_deal(deal_for_seed(5))
    tracker = TableTracker(Rules())
    assert tracker.update(table.snapshot()).accepted
    return tracker


def _journal_data() -> dict:
    return {"version": 1, "tracker": _started_tracker().to_dict()}


def _spoil(data: dict, how: str) -> object:
    state = data["tracker"]["state"]
    if how == "list":
        return []
    if how == "null":
        return None
    if how == "three columns":
        state["hidden"], state["faceup"] = state["hidden"][:3], state["faceup"][:3]
    elif how == "two foundations":
        state["foundations"] = [0, 0]
    elif how == "foundation 99":
        state["foundations"] = [99, -1, 0, 0]
    elif how == "card twice":
        state["faceup"][1] = list(state["faceup"][0])
    elif how == "bad card":
        state["waste"] = ["ZZ"]
    elif how == "rules":
        data["tracker"]["rules"] = [1, 3]
    elif how == "history":
        data["tracker"]["history"] = ["draw", "9-9"]
    return data


@pytest.mark.parametrize(
    "how, words",
    [
        ("list", "JSON list, not a journal"),
        ("null", "it holds a JSON null, not a journal object"),
        ("three columns", "the position: the position has 3 face-down and 3 face-up columns, not 7"),
        ("two foundations", "the position has 2 foundations, not 4"),
        ("foundation 99", "the ♣ foundation holds 99 cards"),
        ("card twice", "is in two places: column 1 and column 2"),
        ("bad card", "the waste"),
        ("rules", "the rules must give draw_count"),
        ("history", "move 2 of the history"),
    ],
)
def test_a_journal_that_is_no_game_is_refused_by_name_and_set_aside(tmp_path, how, words):
    journal = Journal(tmp_path / "game.journal.json")
    journal.path.write_text(json.dumps(_spoil(_journal_data(), how)), encoding="utf-8")
    with pytest.raises(JournalError, match="cannot read the journal") as caught:
        journal.load()
    assert words in str(caught.value) and str(journal.path) in str(caught.value)
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), journal, say=said.append)
    assert session.tracker.state is None and "moved it to game.journal.json.bad-1" in said[0]
    assert (tmp_path / "game.journal.json.bad-1").exists()


def test_a_good_journal_reads_back_the_same_game(tmp_path):
    journal = Journal(tmp_path / "game.journal.json")
    tracker = _started_tracker()
    journal.save(tracker)
    assert journal.load().to_dict() == tracker.to_dict()


def test_a_journal_that_is_not_utf8_text_is_named(tmp_path):
    journal = Journal(tmp_path / "game.journal.json")
    journal.path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(JournalError, match="not UTF-8 text"):
        journal.load()


def _first_snapshot() -> str:
    return VirtualTable.from_deal(deal_for_seed(5)).snapshot().text()


def test_a_folder_given_as_journal_is_left_alone_and_the_game_goes_on(tmp_path):
    folder = tmp_path / "journal"
    folder.mkdir()
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), Journal(folder), say=said.append)
    assert folder.is_dir() and "not a file, so it is left as it is" in said[0]
    assert "this game is not journalled" in said[0]
    assert session.process_text(_first_snapshot()).accepted
    assert said[-1].startswith("advice: ")


def test_a_journal_that_cannot_be_written_is_reported_once_and_the_game_goes_on(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    journal = Journal(blocker / "game.journal.json")
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), journal, say=said.append)
    assert session.process_text(_first_snapshot()).accepted
    warnings = [s for s in said if s.startswith("warning: cannot save the journal")]
    assert len(warnings) == 1 and str(journal.path) in warnings[0] and said[-1].startswith("advice: ")
    # the advised move played: the game goes on, with no second warning for the same reason
    table = VirtualTable.from_deal(deal_for_seed(5))
    table.perform(session.last_advice.move)
    assert session.process_text(table.snapshot().text()).kind == "moves"
    assert len([s for s in said if s.startswith("warning: cannot save")]) == 1
    assert len(session.tracker.history) == 1


def test_a_bad_journal_that_cannot_be_moved_aside_is_kept_and_reported(tmp_path, monkeypatch):
    """A read-only folder: the rename fails (monkeypatched, as the tests may run as root)."""
    journal = Journal(tmp_path / "game.journal.json")
    journal.path.write_text("{not json")

    def refuse(self, target):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(type(journal.path), "rename", refuse)
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), journal, say=said.append)
    assert "cannot be moved aside (permission denied)" in said[0] and session.journal is None
    assert journal.path.read_text() == "{not json"
    assert session.process_text(_first_snapshot()).accepted
    assert journal.path.read_text() == "{not json"  # never overwritten


def test_check_position_names_what_makes_a_position_impossible():
    state = GameState.from_deal(deal_for_seed(1))
    check_position(state)
    check_position(state.masked())
    data = state_to_dict(state)
    assert state_from_dict(data, state.rules) == state
    broken = dict(data, faceup=[list(data["faceup"][0]) + ["KS"], *data["faceup"][1:]])
    with pytest.raises(ValueError, match="column 1: K♠ lies on .*no descending run"):
        state_from_dict(broken, state.rules)
    short = dict(data, stock=data["stock"][1:])
    with pytest.raises(ValueError, match="holds 51 cards"):
        state_from_dict(short, state.rules)
    with pytest.raises(ValueError, match="4 redeals used: the rules allow 0 to 3"):
        state_from_dict(dict(data, redeals_used=4), state.rules)
    with pytest.raises(ValueError, match="'foundations' must be a list"):
        state_from_dict(dict(data, foundations="0000"), state.rules)


@pytest.mark.parametrize(
    "field, value, words",
    [
        (
            "redeal_limit",
            "unlimited",
            'redeal_limit must be a whole number from 0 to 1000 or null (unlimited), not "unlimited" (a string)',
        ),
        ("redeal_limit", 10**30, "redeal_limit must be a whole number from 0 to 1000 or null"),
        ("redeal_limit", 2.5, "not 2.5"),
        ("draw_count", "1", 'draw_count must be the number 1 or 3, not "1" (a string)'),
        ("draw_count", True, "draw_count must be the number 1 or 3, not true"),
        ("draw_count", 2, "draw_count must be the number 1 or 3, not 2"),
        ("foundation_return", "no", 'foundation_return must be true or false, not "no" (a string)'),
        ("foundation_return", None, "foundation_return must be true or false, not null"),
        (
            "colour",
            1,
            'the rules must give draw_count, redeal_limit and foundation_return, nothing else: unknown "colour"',
        ),
    ],
)
def test_the_rules_of_a_journal_are_checked_in_json_terms(tmp_path, field, value, words):
    data = _journal_data()
    data["tracker"]["rules"][field] = value
    journal = Journal(tmp_path / "game.journal.json")
    journal.path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(JournalError) as caught:
        journal.load()
    message = str(caught.value)
    assert "cannot read the journal: the rules" in message and words in message
    for python in ("not supported between", "None", "True", "'", "NoneType"):
        assert python not in message.replace(str(journal.path), "")


@pytest.mark.parametrize(
    "spoil, words",
    [
        (
            lambda d: d["tracker"].__setitem__("history", None),
            "the history must be a list of moves in the game-log notation, not null",
        ),
        (
            lambda d: d["tracker"]["state"].__setitem__("waste", [None]),
            "the waste must be a list of card codes, not [null]",
        ),
        (lambda d: d["tracker"]["state"].__setitem__("foundations", [True, 0, 0, 0]), "not [true, 0, 0, 0]"),
        (lambda d: d["tracker"].__setitem__("state", "x"), "a position must be an object, not string"),
        (lambda d: d.__setitem__("tracker", None), "the tracker must be an object, not null"),
        (lambda d: d["tracker"].__setitem__("alternatives", [{"x": None}]), 'not {"x": null}'),
        (lambda d: d.__setitem__("version", True), "version true, expected 1"),
        (lambda d: d["tracker"].pop("rules"), "the tracker has no rules"),
    ],
)
def test_journal_messages_write_values_as_json(tmp_path, spoil, words):
    data = _journal_data()
    spoil(data)
    journal = Journal(tmp_path / "game.journal.json")
    journal.path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(JournalError) as caught:
        journal.load()
    assert words in str(caught.value)


def test_redeals_beyond_what_the_solver_takes_is_a_usage_error(capsys):
    from solitaire_coach.app.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["solve", "x.txt", "--redeals", "99999999999"])
    assert exc.value.code == 2
    assert "argument --redeals: 99999999999 is too large: give at most 1000, or 'unlimited'" in capsys.readouterr().err


def test_a_journal_nested_too_deeply_is_refused_and_set_aside(tmp_path, capsys):
    from solitaire_coach.app.cli import main

    deep = "[" * 100_000 + "]" * 100_000
    journal = Journal(tmp_path / "game.journal.json")
    journal.path.write_text(deep)
    with pytest.raises(JournalError, match="cannot read the journal: it is JSON nested too deeply to be a journal"):
        journal.load()
    said = []
    CoachSession(Rules(), make_strategy("baseline"), journal, say=said.append)
    assert "nested too deeply" in said[0] and (tmp_path / "game.journal.json.bad-1").read_text() == deep
    given = tmp_path / "deep.json"
    given.write_text(deep)
    assert main(["solve", str(given)]) == 2
    assert f"{given}: cannot read the journal: it is JSON nested too deeply" in capsys.readouterr().err


def test_a_save_cut_short_by_a_crash_leaves_the_journal_whole_and_its_temporary_is_removed_later(tmp_path):
    journal = Journal(tmp_path / "game.journal.json")
    tracker = _started_tracker()
    journal.save(tracker)
    before = journal.path.read_text()
    killed_mid_write = (
        "import os, sys; from solitaire_coach.storage import write_atomic\n"
        "os.fsync = lambda fd: os._exit(9)\n"
        "write_atomic(sys.argv[1], 'half a journal')"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    assert subprocess.run([sys.executable, "-c", killed_mid_write, str(journal.path)], env=env).returncode == 9
    left = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1 and journal.path.read_text() == before  # the old journal, whole
    assert journal.load().to_dict() == tracker.to_dict()
    fresh = tmp_path / ".game.journal.json.0123abcd.tmp"  # another writer's work in progress
    fresh.write_text("in progress")
    other = tmp_path / ".notes.txt.0123abcd.tmp"  # another file's
    other.write_text("not ours")
    hour_ago = time.time() - 3600
    for p in (left[0], other):
        os.utime(p, (hour_ago, hour_ago))
    journal.save(tracker)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([journal.path.name, fresh.name, other.name])


def test_a_new_game_asked_for_keeps_the_old_games_journal_aside(tmp_path):
    journal = Journal(tmp_path / "game.journal.json")
    old = _started_tracker()
    journal.save(old)
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), journal, say=said.append, resume=False)
    assert said == [
        f"starting a new game (the old journal {journal.path} is kept, renamed game.journal.json.game-N, "
        f"at the first accepted read)"
    ]
    assert Journal(journal.path).load().to_dict() == old.to_dict()  # nothing read yet: still the old game
    session.process_text(VirtualTable.from_deal(deal_for_seed(9)).snapshot().text())
    assert "the old journal is kept as game.journal.json.game-1" in said
    assert Journal(tmp_path / "game.journal.json.game-1").load().to_dict() == old.to_dict()
    assert journal.load().to_dict() == session.tracker.to_dict() != old.to_dict()


def test_a_restarted_coach_advises_as_the_one_that_never_stopped(tmp_path):
    """The advisor's memory of the game is journalled with the tracker: a coach restarted
    from the journal after any snapshot gives the advice the running one gives. Here nothing
    can ever be played, so the memory decides each advice: without it a restarted ``best``
    said a plain "draw" where the running one said "go round again", and "draw" again where
    the running one had given the game up (every move only repeats an earlier position)."""
    from solitaire_coach.core.best import BestStrategy
    from solitaire_coach.core.proof import fill_unseen

    fast = dict(think_time=None, samples=4, min_samples=2, node_limit=400, solve_node_limit=50_000)
    c = Card.parse
    rules = Rules(draw_count=1, redeal_limit=None)
    view = GameState(
        ((None,) * 23, (None,) * 24) + ((),) * 5,
        ((c("5C"),), (c("5S"),)) + ((),) * 5,
        (c("9C"), c("9S")),
        (c("QC"),),
        rules=rules,
    )
    table = VirtualTable(fill_unseen(view, view.unseen_cards()))
    journal = Journal(tmp_path / "game.journal.json")
    journal.save(TableTracker(rules, view, []))
    session = CoachSession(rules, BestStrategy(**fast), journal, say=[].append)
    said, again = [], []
    for _ in range(12):
        report = session.process_text(table.snapshot().text())
        assert report.accepted
        restarted = CoachSession(rules, BestStrategy(**fast), journal, say=[].append)
        restarted.process_text(table.snapshot().text())
        said.append(session.last_advice.line())
        again.append(restarted.last_advice.line())
        if session.last_advice.status != "move":
            break
        table.perform(session.last_advice.move)
    assert again == said
    assert sum("go round again" in line for line in said) == 4 and said[-1].startswith("No move makes progress")


def test_a_move_is_journalled_even_when_advising_on_it_fails(tmp_path):
    """The coach journals after advising (the advisor's memory holds that advice); an advisor
    that fails must not cost the move it was asked about: the journal still has it."""

    class Failing:
        name = "failing"

        def advise(self, state, history=()):
            if history:
                raise RuntimeError("advisor broke")
            return make_strategy("baseline").advise(state, history)

    deal = deal_for_seed(3)
    table = VirtualTable(GameState.from_deal(deal))
    journal = Journal(tmp_path / "game.journal.json")
    session = CoachSession(Rules(), Failing(), journal, say=[].append)
    assert session.process_text(table.snapshot().text()).accepted
    move = next(m for m in table.state.legal_moves() if m.kind.value != "draw")
    table.perform(move)
    with pytest.raises(RuntimeError, match="advisor broke"):
        session.process_text(table.snapshot().text())
    assert [m.text for m in journal.load().history] == [move.text]
