"""Kill-and-restart harness: the coach process is killed (SIGKILL, no chance to clean up)
at random moments of a game, mid-read and mid-save included, and restarted on its
journal; the game must go on move for move as without kills."""

from __future__ import annotations

import json
import random
import signal
import time

import pytest

from solitaire_coach.core import deal_for_seed
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.open_advice import advise_open
from solitaire_coach.core.tracker import OPEN_HYPOTHESES, TableTracker
from solitaire_coach.core.virtual_table import VirtualTable
from solitaire_coach.storage import write_atomic
from test_coach_cli import Coach


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("seed", [3, 8])
def test_the_coach_killed_at_random_moments_resumes_the_same_game(tmp_path, seed):
    rng = random.Random(seed)
    snap_file = tmp_path / "snapshot.txt"
    table = VirtualTable.from_deal(deal_for_seed(seed))
    mirror = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)  # the coach's tracker, never killed
    strategy = make_strategy("baseline")
    write_atomic(snap_file, table.snapshot().text())
    coach = Coach(snap_file)
    coach.wait_for("advice:")
    mirror.update(table.snapshot())
    kill_at = set(rng.sample(range(1, 20), 3))
    kills = 0
    try:
        for n in range(20):
            advice = advise_open(strategy, mirror.explanations, mirror.history)
            if advice.status == "check":
                move = next(m for m in advice.moves if table.state.is_legal(m))
            elif advice.status == "move":
                move = advice.move
            else:
                break
            table.perform(move)
            write_atomic(snap_file, table.snapshot().text())
            mirror.update(table.snapshot())
            if n in kill_at:  # at a random moment of the read: before it, during it or during the save
                time.sleep(rng.uniform(0.0, 0.15))
                coach.proc.send_signal(signal.SIGKILL)
                coach.proc.wait(timeout=20)
                kills += 1
                coach = Coach(snap_file)
            lines = coach.wait_for("advice:")
            expected = advise_open(strategy, mirror.explanations, mirror.history)
            assert lines[-1] == "advice: " + expected.line(), (n, lines)
        assert coach.quit() == 0
    finally:
        if coach.proc.poll() is None:
            coach.proc.kill()
    assert kills == 3
    journal = json.loads((tmp_path / "snapshot.txt.journal.json").read_text())
    assert journal["tracker"]["history"] == [m.text for m in mirror.history]
