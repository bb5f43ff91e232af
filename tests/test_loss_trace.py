"""bench/loss_trace.py: finding the move that turned a won game lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from repo_scripts import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "loss_trace.py"


def _module():
    if str(SCRIPT.parent) not in sys.path:  # it imports bench/strength.py, as it does when run
        sys.path.insert(0, str(SCRIPT.parent))
    return load_script(SCRIPT)


@pytest.mark.parametrize("turn", [1, 2, 5, 9])
def test_last_won_index_finds_the_turn(turn):
    statuses = ["won"] * turn + ["lost"] * (10 - turn)
    asked = []

    def status_of(i):
        asked.append(i)
        return statuses[i]

    assert _module().last_won_index(statuses, status_of) == turn - 1
    assert len(set(asked)) <= 6  # a binary search, not a scan


def test_last_won_index_needs_a_won_start_and_a_lost_end():
    m = _module()
    assert m.last_won_index(["lost", "lost"], lambda i: "lost") is None
    assert m.last_won_index(["won", "won"], lambda i: "won") is None
    assert m.last_won_index(["won", "unknown", "lost"], ["won", "unknown", "lost"].__getitem__) == 1


def test_seed_lists_and_kinds():
    m = _module()
    assert m.parse_seeds("0-3,7") == [0, 1, 2, 3, 7]
    assert m.mistake_kind("frees a face-down card; wins 3 of 8 sampled layouts") == "sampled"
    assert m.mistake_kind("the 2♥ can go up safely: no card can ever need it") == "can go up safely"


def test_traces_real_lost_games():
    """Seeds 0..3, draw 1, 3 redeals, with a tiny budget (two layouts of 50 positions a
    decision) so that the strategy loses most: the script plays them, solves along each
    lost game on a winnable deal and names the move that lost it."""
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--seeds",
            "0-3",
            "--workers",
            "1",
            "--nodes",
            "200000",
            "--option",
            "samples=2",
            "--option",
            "min_samples=1",
            "--option",
            "node_limit=50",
            "--alternatives",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    assert "4 games," in out, out
    assert "won until move" in out and "mistakes on won deals" in out, out
    if "sampled layout" in out:  # a sampled mistake lists every move weighed, the one taken lost after it
        assert "true position after it: lost" in out, out
