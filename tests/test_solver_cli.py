"""The ``solve`` command line."""

from __future__ import annotations

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
    assert "deal 1: won" in out and "deal 2: won" in out and "total: 2 deals" in out

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
