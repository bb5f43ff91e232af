"""The ``solve`` command line."""

from __future__ import annotations

import pytest

from solitaire_coach.app.cli import main
from solitaire_coach.core import GameState, Move, deal_for_seed, format_deal
from solitaire_coach.core.notation import format_log


def test_solve_deal_line(capsys):
    deal = deal_for_seed(3)
    assert main(["solve", format_deal(deal)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("deal: won in ")
    moves = [Move.parse(t) for t in out[1].split()]
    assert GameState.from_deal(deal).play_all(moves).is_won()


def test_solve_deal_file_and_game_log(tmp_path, capsys):
    deals = tmp_path / "deals.txt"
    deals.write_text("# two deals\n" + format_deal(deal_for_seed(3)) + "\n" + format_deal(deal_for_seed(4)) + "\n")
    assert main(["solve", str(deals), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "deal 1: won" in out and "deal 2: won" in out and "total of 2: won 2" in out

    state = GameState.from_deal(deal_for_seed(3))
    first = state.legal_moves()[0]
    log = tmp_path / "game.log"
    log.write_text(format_log(deal_for_seed(3), [first]))
    assert main(["solve", str(log), "--quiet"]) == 0
    assert "after 1 moves: won" in capsys.readouterr().out


def test_solve_log_output_and_rules(capsys):
    deal = deal_for_seed(5)
    assert main(["solve", format_deal(deal), "--log", "--draw", "3", "--redeals", "unlimited"]) in (0, 3)
    out = capsys.readouterr().out
    if ": won" in out:
        assert out.rstrip().endswith("won")


def test_solve_bad_input(capsys):
    assert main(["solve", "AH", "2H"]) == 2
    assert "not a full deck" in capsys.readouterr().err


def _journal_text() -> str:
    import json

    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable

    tracker = TableTracker()
    assert tracker.update(VirtualTable.from_deal(deal_for_seed(3)).snapshot()).accepted
    return json.dumps({"version": 1, "tracker": tracker.to_dict()}, indent=2)


def test_solve_tells_a_journal_from_a_deal_file_by_content_not_name(tmp_path, capsys):
    journal = tmp_path / "mygame.jnl"
    journal.write_text(_journal_text())
    assert main(["solve", str(journal)]) == 3
    out = capsys.readouterr().out
    assert "mygame.jnl: 44 cards are unknown in this position" in out and "--prove" not in out  # 44 > 8
    deal = tmp_path / "deal.json"
    deal.write_text(format_deal(deal_for_seed(3)) + "\n")
    assert main(["solve", str(deal), "--quiet"]) == 0
    assert "deal.json deal 1: won" in capsys.readouterr().out
    log = tmp_path / "game.json"
    log.write_text(format_log(deal_for_seed(3), [GameState.from_deal(deal_for_seed(3)).legal_moves()[0]]))
    assert main(["solve", str(log), "--quiet"]) == 0
    assert "game.json after 1 moves: won" in capsys.readouterr().out


def test_solve_a_bad_json_file_is_read_as_a_journal(tmp_path, capsys):
    bad = tmp_path / "notes.txt"
    bad.write_text("  [1, 2]\n")
    assert main(["solve", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: cannot read the journal: it holds a JSON " in err and "not a journal object" in err


def test_solve_a_deal_file_with_a_short_second_line_is_read_as_deals(tmp_path, capsys):
    """Line 2 holds cards, not a move: the deal file's own error, as simulate --deals gives."""
    deals = tmp_path / "deals.txt"
    deals.write_text(format_deal(deal_for_seed(3)) + "\nQC 6D 0C\n")
    assert main(["solve", str(deals)]) == 2
    err = capsys.readouterr().err
    assert f"{deals}: line 2: deal: not a full deck of 52 different cards (3 cards; missing" in err
    deals.write_text(format_deal(deal_for_seed(3)) + "\n\n# two words\nhello there\n")
    assert main(["solve", str(deals)]) == 2
    assert (
        f"{deals}: line 4: 'hello there' is neither a move (as in a game log) nor a deal line of 52 cards"
        in capsys.readouterr().err
    )


def test_solve_a_log_whose_line_2_is_a_move_with_more_gets_the_log_error(tmp_path, capsys):
    log = tmp_path / "game.log"
    log.write_text(format_deal(deal_for_seed(3)) + "\n1-2 JS  # note\n")
    assert main(["solve", str(log)]) == 2
    assert f"{log}: line 2: '1-2 JS  # note': expected a move and at most one card" in capsys.readouterr().err


def test_solve_a_journal_that_is_not_valid_json_says_where(tmp_path, capsys):
    bad = tmp_path / "game.jnl"
    bad.write_text('{"version": 1,\n}')
    assert main(["solve", str(bad)]) == 2
    assert f"{bad}: cannot read the journal: it is not valid JSON: line 2, column 1: " in capsys.readouterr().err


def _late_journal(seed: int, unknown: int) -> tuple[str, int]:
    """A coach journal of deal ``seed`` played along the solver's win until at most
    ``unknown`` cards are unseen, and how many are."""
    import json

    from solitaire_coach.core.solver import solve
    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable

    table = VirtualTable.from_deal(deal_for_seed(seed))
    tracker = TableTracker()
    assert tracker.update(table.snapshot()).accepted
    for move in solve(table.state, node_limit=200_000).moves:
        if len(tracker.state.unseen_cards()) <= unknown:
            break
        table.perform(move)
        assert tracker.update(table.snapshot()).accepted
    return json.dumps({"version": 1, "tracker": tracker.to_dict()}), len(tracker.state.unseen_cards())


def test_solve_proves_a_journal_won_whatever_its_few_unknown_cards_are(tmp_path, capsys):
    text, unknown = _late_journal(3, 4)
    assert 0 < unknown <= 4
    journal = tmp_path / "late.json"
    journal.write_text(text)
    assert main(["solve", str(journal)]) == 0
    out = capsys.readouterr().out
    assert f"late.json: won whatever the {unknown} unknown cards are: a line that chooses each move" in out
    assert "its first move: " in out
    assert main(["solve", str(journal), "--prove", "0"]) == 3  # as before: the solver needs every card
    out = capsys.readouterr().out
    assert f"{unknown} cards are unknown in this position" in out
    assert f"(solve the deal, --prove {unknown} to prove it won or lost whatever they are" in out


def test_solve_proves_a_position_lost_whatever_its_unknown_cards_are(tmp_path, capsys):
    import json

    from solitaire_coach.core.cards import Card
    from solitaire_coach.core.notation import state_to_dict

    # the Q♠ never moves off the J♠, K♠ and K♣ face down under it; the Q♣ can still go up
    empty = ((),) * 6
    state = GameState(
        hidden=((None, None, None),) + empty,
        faceup=((Card.parse("QS"),),) + empty,
        stock=(),
        waste=(Card.parse("QC"),),
        foundations=(11, 13, 13, 10),
    )
    rules = {"draw_count": 1, "redeal_limit": 3, "foundation_return": False}
    journal = tmp_path / "stuck.json"
    journal.write_text(
        json.dumps(
            {
                "version": 1,
                "tracker": {"rules": rules, "state": state_to_dict(state), "history": [], "alternatives": []},
            }
        )
    )
    assert main(["solve", str(journal)]) == 0
    assert (
        "stuck.json: lost whatever the 3 unknown cards are: each of the 6 ways they can lie was searched and is lost"
    ) in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["solve", str(journal), "--prove", "9"])
    assert "at most 8" in capsys.readouterr().err


def test_solve_a_journal_with_one_unknown_card(tmp_path, capsys):
    text, unknown = _late_journal(3, 1)
    assert unknown == 1
    journal = tmp_path / "one.json"
    journal.write_text(text)
    assert main(["solve", str(journal)]) == 0
    assert "one.json: won: only one card is unknown, so its place is known; first move: " in capsys.readouterr().out


def test_solve_a_journal_of_other_rules_says_which_rules_it_is_solved_with(tmp_path, capsys):
    text, unknown = _late_journal(3, 1)
    journal = tmp_path / "one.json"
    journal.write_text(text)
    assert main(["solve", str(journal), "--draw", "3"]) == 0
    out = capsys.readouterr()
    assert out.err == (
        f"note: {journal}: the journal's game uses draw 1, 3 redeals; it is solved with those rules, "
        f"not draw 3, 3 redeals\n"
    )
    assert "one.json: won: only one card is unknown" in out.out
    assert main(["solve", str(journal)]) == 0
    assert capsys.readouterr().err == ""  # the same rules: nothing to say


def test_solve_log_output_is_a_game_log_check_log_accepts(tmp_path, capsys):
    """``solve DEAL --log > game.log`` gives a log: its summary line is a # comment."""
    assert main(["solve", format_deal(deal_for_seed(3)), "--log"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# deal: won in ")
    log = tmp_path / "game.log"
    log.write_text(out)
    assert main(["check-log", str(log)]) == 0
    assert "ok, " in capsys.readouterr().out


def test_solve_refuses_every_log_check_log_refuses(tmp_path, capsys):
    """One checker for both: a wrong card named after a move, two moves swapped, the result
    line flipped; each refused by check-log and by solve alike, naming the same line."""
    from solitaire_coach.app.simulate import play_game

    record = play_game(deal_for_seed(3), "baseline")
    assert record.result == "won" and len(record.moves) > 12
    good = record.log_text().splitlines()
    mutants = {
        "wrong card": [
            ln if n != 3 else ln.split()[0] + " " + ("KS" if "KS" not in ln else "KH")
            for n, ln in enumerate(good, start=1)
        ],
        "result flipped": [("lost" if ln.strip() == "won" else ln) for ln in good],
    }
    for name, lines in mutants.items():
        log = tmp_path / f"{name.replace(' ', '_')}.log"
        log.write_text("\n".join(lines) + "\n")
        assert main(["check-log", str(log)]) == 1, name
        checked = capsys.readouterr().out
        assert main(["solve", str(log), "--quiet"]) != 0, name
        solved = capsys.readouterr()
        line = checked.split(": ", 1)[1].split(",")[0].split(":")[0]
        assert line.startswith("line ") and line in solved.out + solved.err, (name, checked, solved)
