"""bench/strength.py: which deals it plays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from repo_scripts import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "strength.py"


def _module():
    return load_script(SCRIPT, "strength_bench")


def test_seed_lists():
    m = _module()
    assert m.parse_seeds("0-3,7") == [0, 1, 2, 3, 7]
    assert m.parse_seeds("9, 4") == [9, 4]
    with pytest.raises(ValueError, match="'x3'"):
        m.parse_seeds("1,x3")
    with pytest.raises(ValueError, match="'5-3'"):
        m.parse_seeds("5-3")  # a reversed range would play no deal at all
    assert m.describe_seeds([5, 6, 7]) == "seeds 5..7 (3)"
    assert m.describe_seeds([9, 4, 30]) == "3 listed seeds, 4..30"


def test_plays_the_listed_seeds_only(tmp_path):
    out_json = tmp_path / "run.json"
    run = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--strategy",
            "baseline",
            "--seeds",
            "7,2",
            "--workers",
            "1",
            "--json",
            str(out_json),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "deals: 2 listed seeds, 2..7" in run.stdout, run.stdout
    assert [row[0] for row in json.loads(out_json.read_text())["rows"]] == [7, 2]


def test_a_bad_seed_list_is_refused_by_name():
    run = subprocess.run([sys.executable, str(SCRIPT), "--seeds", "3-x"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "'3-x'" in run.stderr, run.stderr
