"""Benchmark: the CPU time of one read in the snapshot coach (track and advise), every move seen.

Plays games of deals 0..N-1 on a virtual table through ``CoachSession`` as the live coach
uses it (the tracker with the open explanations of unseen stock turns, advice legal in all
of them), the person following each piece of advice, and times ``process_text`` for each
read in CPU seconds of this process (``time.process_time``), which a machine shared with
other work disturbs far less than wall time. ``--plain`` gives the coach the tracker
without open explanations (as before them), to compare.

Run:  .venv/bin/python bench/track_cost.py [--games 3] [--moves 60] [--plain]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3, help="games to play, deals 0..N-1 (default 3)")
    ap.add_argument("--moves", type=int, default=60, help="reads per game at most (default 60)")
    ap.add_argument("--plain", action="store_true", help="the tracker without open explanations, to compare")
    args = ap.parse_args(argv)

    from solitaire_coach.app.coach import CoachSession
    from solitaire_coach.core import deal_for_seed
    from solitaire_coach.core.advisor import make_strategy
    from solitaire_coach.core.rules import DEFAULT_RULES
    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable

    times: list[float] = []
    kept: list[int] = []
    for seed in range(args.games):
        table = VirtualTable.from_deal(deal_for_seed(seed))
        session = CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=lambda _: None)
        if args.plain:
            session.tracker = TableTracker(DEFAULT_RULES)
        for _ in range(args.moves):
            text = table.snapshot(with_stock=True).text()
            t0 = time.process_time()
            session.process_text(text)
            times.append(time.process_time() - t0)
            kept.append(session.tracker.hypothesis_count)
            advice = session.last_advice
            if advice is None or advice.status != "move" or not table.state.is_legal(advice.move):
                break
            table.perform(advice.move)
    times.sort()
    ms = [1000 * t for t in times]
    print(
        f"track + advise, {'plain tracker' if args.plain else 'open explanations'}: {len(ms)} reads of "
        f"{args.games} games, CPU median {statistics.median(ms):.1f} ms, p90 {ms[int(0.9 * len(ms))]:.1f} ms, "
        f"max {ms[-1]:.1f} ms; explanations kept median {statistics.median(kept):.0f}, max {max(kept)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
