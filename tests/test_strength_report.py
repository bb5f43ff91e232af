"""bench/strength_report.py: a run made in parts, joined by +."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "strength_report.py"
ARGS = {
    "strategy": "best",
    "ceiling": False,
    "draw": 1,
    "redeals": "3",
    "think_time": 20.0,
    "samples": None,
    "node_limit": None,
    "seed": 0,
    "solver_time": 10.0,
    "solver_memory": 1024,
    "option": [],
    "workers": 2,
}


def _write(path: Path, rows, **changes) -> str:
    args = {**ARGS, "first": rows[0][0], "count": len(rows), "json": str(path), **changes}
    path.write_text(json.dumps({"args": args, "rows": rows}))
    return str(path)


def _row(seed, result):
    return [seed, result, 100, [0.1, 50.0], 40.0]


def _report(*argv):
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True)


def test_parts_joined_count_as_one_run(tmp_path):
    a = _write(tmp_path / "a.json", [_row(0, "won"), _row(1, "lost")])
    b = _write(tmp_path / "b.json", [_row(2, "won"), _row(3, "won")], first=2)
    before = _write(tmp_path / "before.json", [_row(s, "lost") for s in range(4)], strategy="baseline")
    ceiling = _write(tmp_path / "c.json", [[s, "won", 10, 0.01, 100.0] for s in range(4)], ceiling=True)
    out = _report("--games", f"{a}+{b}", "--ceiling", ceiling)
    assert out.returncode == 0, out.stderr
    assert "4 deals (seeds 0..3), won 3 = 75.0%" in out.stdout
    out = _report("--paired", before, f"{a}+{b}")
    assert out.returncode == 0, out.stderr
    assert "4 deals both finished" in out.stdout and "gained 3 deals, lost 0" in out.stdout


def test_parts_of_different_runs_are_refused(tmp_path):
    a = _write(tmp_path / "a.json", [_row(0, "won")])
    b = _write(tmp_path / "b.json", [_row(1, "won")], option=["uct=48"])
    out = _report("--paired", a, f"{a}+{b}")
    assert out.returncode != 0
    assert "b.json: option is ['uct=48']" in out.stderr and "not parts of one run" in out.stderr


def test_a_deal_with_two_results_is_refused(tmp_path):
    a = _write(tmp_path / "a.json", [_row(0, "won"), _row(1, "lost")])
    b = _write(tmp_path / "b.json", [_row(1, "won")], first=1)
    out = _report("--paired", a, f"{a}+{b}")
    assert out.returncode != 0
    assert "b.json: seed 1 won, but lost in an earlier part" in out.stderr


def test_strength_bench_counts_the_redeals_of_won_games():
    from repo_scripts import load_script

    bench = load_script("bench/strength.py", "strength_bench")
    rows = [
        (0, "won", 100, [], 1.0, 60, 2),
        (1, "won", 90, [], 1.0, 90, 5),
        (2, "lost", 80, [], 1.0, 80, 3),
        (3, "won", 70, [], 1.0, None, 0),
        (4, "won", 50, [], 1.0, None),
    ]  # an old run's row: no 7th field
    assert bench.redeals_line(rows) == (
        "redeals used by won games: median 2, max 5; 0: 1, 1: 0, 2: 1, 3: 0, more than 3: 1 (of 3)"
    )
    assert bench.redeals_line(rows[-1:]) == "redeals used by won games: not kept in this run"
    # a run that won nothing kept the count: it says so, not that the count was not kept
    assert bench.redeals_line([rows[2], (5, "lost", 60, [], 1.0, None, 3)]) == "redeals used by won games: no game won"
    assert bench.redeals_line([]) == "redeals used by won games: no game won"
    seed, result, moves, _, _, _, redeals = bench._game(
        (2, "baseline", bench.rules_of(bench.argparse.Namespace(draw=1, redeals="3")), {}, None)
    )
    assert seed == 2 and 0 <= redeals <= 3


def test_the_peek_diagnostic_fills_in_only_what_it_names():
    from repo_scripts import load_script
    from solitaire_coach.core import GameState, deal_for_seed
    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable

    bench = load_script("bench/strength.py", "strength_bench")
    truth = GameState.from_deal(deal_for_seed(4))
    tracker = TableTracker()
    tracker.update(VirtualTable(truth).snapshot())
    known = tracker.state
    stock = bench.peek_view("stock")(known, truth)
    assert stock.stock == truth.stock and stock.hidden == known.hidden and None in sum(stock.hidden, ())
    tableau = bench.peek_view("tableau")(known, truth)
    assert tableau.hidden == truth.hidden and tableau.stock == known.stock and None in tableau.stock
    assert bench.peek_view("all")(known, truth).is_complete_knowledge()
    following = bench.peek_view("next")(known, truth)
    assert following.stock == known.stock
    for shown, true in zip(following.hidden, truth.hidden):
        # only the card the column's next flip shows; the rest stay unseen
        assert shown[-1:] == true[-1:] and all(c is None for c in shown[:-1])


def test_a_run_and_a_ceiling_that_share_no_deal_are_named_not_a_traceback(tmp_path):
    games = _write(tmp_path / "games.json", [_row(0, "won"), _row(1, "lost")])
    ceiling = _write(tmp_path / "c.json", [[s, "won", 10, 0.01, 100.0] for s in (100, 101)], ceiling=True)
    out = _report("--games", games, "--ceiling", ceiling)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "games.json and " in out.stderr and "c.json share no deal" in out.stderr


def test_a_ceiling_of_other_rules_or_no_ceiling_run_is_refused(tmp_path):
    """A draw-1 run against a draw-3 ceiling would print a ratio over 100% unnoticed."""
    games = _write(tmp_path / "games.json", [_row(0, "won"), _row(1, "won")])
    solver_rows = [[0, "won", 10, 0.01, 100.0], [1, "lost", 10, 0.01, 100.0]]
    d3 = _write(tmp_path / "d3.json", solver_rows, ceiling=True, draw=3, redeals="unlimited")
    out = _report("--games", games, "--ceiling", d3)
    assert out.returncode != 0
    assert "d3.json: draw is 3, but " in out.stderr and "games.json has 1: not the same rules" in out.stderr
    other = _write(tmp_path / "other.json", [_row(0, "won"), _row(1, "lost")], strategy="baseline")
    out = _report("--games", games, "--ceiling", other)
    assert out.returncode != 0 and "other.json: not a ceiling run" in out.stderr
    same = _write(tmp_path / "same.json", solver_rows, ceiling=True, redeals="3")
    assert _report("--games", games, "--ceiling", same).returncode == 0
