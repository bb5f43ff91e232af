"""Benchmark: the CPU time of one read in the snapshot coach (track and advise), every move seen.

Plays games of deals 0..N-1 on a virtual table through ``CoachSession`` as the live coach
uses it (the tracker with the open explanations of unseen stock turns, advice legal in all
of them), the person following each piece of advice, and times ``process_text`` for each
read in CPU seconds of this process (``time.process_time``), which a machine shared with
other work disturbs far less than wall time. ``--plain`` gives the coach the tracker
without open explanations (as before them), to compare. It also counts the reads the
coach advised "not sure of the position" (every move seen, so each is said needlessly,
though the coach cannot know it) or answered with a check, and the explanations dropped
for the cap that it follows aside; ``--no-stock``: the snapshots do not say whether a
stock pile is there (where the coach asks to check, the person does what the table allows).

Run:  .venv/bin/python bench/track_cost.py [--games 3] [--moves 60] [--plain] [--no-stock]
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
    ap.add_argument("--no-stock", action="store_true", help="snapshots without the stock: line")
    args = ap.parse_args(argv)

    from solitaire_coach.app.coach import CoachSession
    from solitaire_coach.core import deal_for_seed
    from solitaire_coach.core.advisor import make_strategy
    from solitaire_coach.core.rules import DEFAULT_RULES
    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable

    times: list[float] = []
    kept: list[int] = []
    aside: list[int] = []
    unsure = checks = 0
    for seed in range(args.games):
        table = VirtualTable.from_deal(deal_for_seed(seed))
        session = CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=lambda _: None)
        if args.plain:
            session.tracker = TableTracker(DEFAULT_RULES)
        for _ in range(args.moves):
            text = table.snapshot(with_stock=not args.no_stock).text()
            t0 = time.process_time()
            session.process_text(text)
            times.append(time.process_time() - t0)
            kept.append(session.tracker.hypothesis_count)
            aside.append(len(getattr(session.tracker, "doubted", ())))
            advice = session.last_advice
            if advice is None:
                break
            unsure += advice.unsure
            checks += advice.status == "check"
            move = advice.move
            if advice.status == "check":  # the person looks and does what the table allows
                move = next((m for m in advice.moves if table.state.is_legal(m)), None)
            elif advice.status != "move":
                break
            if move is None or not table.state.is_legal(move):
                break
            table.perform(move)
    times.sort()
    ms = [1000 * t for t in times]
    print(
        f"track + advise, {'plain tracker' if args.plain else 'open explanations'}: {len(ms)} reads of "
        f"{args.games} games, CPU median {statistics.median(ms):.1f} ms, p90 {ms[int(0.9 * len(ms))]:.1f} ms, "
        f"max {ms[-1]:.1f} ms; explanations kept median {statistics.median(kept):.0f}, max {max(kept)}"
        + ("" if args.no_stock else " (snapshots with a stock: line)")
    )
    print(
        f"  advised 'not sure of the position': {unsure} reads; checks: {checks}; explanations dropped for the "
        f"cap and followed aside: median {statistics.median(aside):.0f}, max {max(aside)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
