"""bench/unknown_calibration.py: how often an undecided sampled layout is really won."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "unknown_calibration.py"


def test_tabulates_real_undecided_layouts():
    """One real game, draw 3, with a tiny budget a layout (100 positions) so that many are
    left undecided: each kept layout is solved again and counted in its distance band."""
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--first",
            "3",
            "--count",
            "1",
            "--workers",
            "1",
            "--draw",
            "3",
            "--redeals",
            "unlimited",
            "--every",
            "5",
            "--nodes",
            "5000",
            "--option",
            "samples=3",
            "--option",
            "min_samples=1",
            "--option",
            "node_limit=100",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    total = int(re.search(r"(\d+) undecided layouts", out).group(1))
    assert total >= 5, out
    rows = re.findall(r"^\s*(\d+)-(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", out, re.M)
    assert rows and sum(int(r[2]) for r in rows) == total, out
    assert all(int(r[2]) == int(r[3]) + int(r[4]) + int(r[5]) for r in rows), out
    assert any(int(r[3]) for r in rows), out  # some undecided at 100 positions are wins
