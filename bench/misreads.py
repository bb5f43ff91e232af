"""Benchmark: the tracker against misread snapshots.

Plays baseline games of random deals (seeds 0..999) on a virtual table, and at a random
moment (after 0 to 79 moves) gives the tracker the true snapshot with 1 to 3 random slots
read as another card, an empty slot or UU. Then it gives the true table again and plays
40 more moves from the tracker's advice, each seen by a true snapshot. Prints what the
tracker made of the misread (refused as inconsistent, taken as moves, ...), what it made of
the true table next, how many games ended in sync with the table, and how long the
tracker's updates took.

Run:  .venv/bin/python bench/misreads.py [--count 300] [--seed 1] [--no-keep-misread]
"""

from __future__ import annotations

import argparse
import collections
import random
import statistics
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=300, help="misreads to try (default 300)")
    ap.add_argument("--seed", type=int, default=1, help="random seed of the games, moments and misreads")
    ap.add_argument(
        "--no-keep-misread",
        action="store_true",
        help="the tracker without its misread alternative (TableTracker(keep_misread=False))",
    )
    ap.add_argument(
        "--no-undo",
        action="store_true",
        help="the tracker without its memory of recent positions for undos (undo_depth=0)",
    )
    args = ap.parse_args(argv)
    from solitaire_coach.core import EMPTY, FULL_DECK, UNKNOWN, Snapshot, deal_for_seed
    from solitaire_coach.core.advisor import make_strategy
    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable, check_in_sync

    rng = random.Random(args.seed)
    first, then, ended = collections.Counter(), collections.Counter(), collections.Counter()
    update_ms: list[float] = []
    t0 = time.time()
    tried = 0
    while tried < args.count:
        seed, at = rng.randrange(1000), rng.randrange(80)
        strategy = make_strategy("baseline")
        table = VirtualTable.from_deal(deal_for_seed(seed))
        tracker = TableTracker(keep_misread=not args.no_keep_misread, undo_depth=0 if args.no_undo else 12)
        tracker.update(table.snapshot())

        def seen(snap, tracker=tracker):
            t = time.perf_counter()
            report = tracker.update(snap)
            update_ms.append((time.perf_counter() - t) * 1000)
            return report

        for _ in range(at):
            advice = strategy.advise(tracker.state, tracker.history)
            if advice.status != "move":
                break
            table.perform(advice.move)
            seen(table.snapshot())
        true = table.snapshot()
        wrong = list(true.slots)
        for _ in range(rng.randint(1, 3)):
            wrong[rng.randrange(12)] = rng.choice(list(FULL_DECK) + [EMPTY, UNKNOWN])
        if tuple(wrong) == true.slots:
            continue
        tried += 1
        report = seen(Snapshot(tuple(wrong)))
        first[report.kind] += 1
        if report.kind not in ("inconsistent", "no change"):
            then[(report.kind, seen(true).kind)] += 1
        else:
            seen(true)
        outcome = "in sync"
        for _ in range(40):
            advice = strategy.advise(tracker.state, tracker.history)
            if advice.status != "move":
                break
            try:
                table.perform(advice.move)
            except ValueError:
                outcome = "advised an illegal move"
                break
            if not seen(table.snapshot()).accepted:
                outcome = "true table refused"
                break
        if outcome == "in sync":
            try:
                check_in_sync(tracker.state, table.state)
            except AssertionError:
                outcome = "out of sync"
        ended[outcome] += 1
        if tried % 50 == 0:
            print(f"  {tried}/{args.count} misreads, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    print(
        f"misreads: {tried} (seed {args.seed}; misread alternative {'off' if args.no_keep_misread else 'on'}, "
        f"undo memory {'off' if args.no_undo else 'on'})"
    )
    print("the misread was: " + ", ".join(f"{k} {v}" for k, v in first.most_common()))
    for (kind, next_kind), v in then.most_common():
        print(f"  taken as {kind}, then the true table: {next_kind} ({v})")
    print("after 40 more moves: " + ", ".join(f"{k} {v}" for k, v in ended.most_common()))
    update_ms.sort()
    print(
        f"tracker updates: {len(update_ms)}, median {statistics.median(update_ms):.2f} ms, "
        f"p99 {update_ms[int(len(update_ms) * 0.99)]:.1f} ms, max {update_ms[-1]:.1f} ms; {time.time() - t0:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
