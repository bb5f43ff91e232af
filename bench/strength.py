"""Strength benchmark: win rates of strategies and the solver's ceiling on fixed deals.

Deals are ``deal_for_seed(seed)`` for seeds ``first .. first+count-1`` (default 0..999),
or for the seeds listed by ``--seeds`` (``0-99,120``).
Games are played as ``simulate`` plays them (virtual table, tracker, advice from what
the tracker knows only). Prints progress to stderr and the figures to stdout.

    python bench/strength.py --strategy best --count 1000 --workers 2
    python bench/strength.py --ceiling --count 1000 --workers 2
    python bench/strength.py --strategy best --draw 3 --redeals unlimited
    python bench/strength.py --strategy best --seeds 1,6,9,23 --option ease=2.0   # chosen deals only
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from solitaire_coach.app.simulate import certainty, certainty_text, percentile, wilson_interval
from solitaire_coach.core import GameState, Rules, deal_for_seed
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.moves import MoveKind
from solitaire_coach.core.solver import solve


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def parse_seeds(text: str) -> list[int]:
    """``0-99``, ``3,5,8`` or a mix: ``0-9,20``."""
    seeds: list[int] = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        try:
            low = int(a)
            high = int(b) if b else low
        except ValueError:
            raise ValueError(f"bad seed list {text!r}: {part!r} is neither a seed nor a range like 0-99") from None
        if high < low:  # a reversed range would play no deal at all
            raise ValueError(f"bad seed list {text!r}: the range {part!r} runs backwards (write {high}-{low})")
        seeds.extend(range(low, high + 1))
    return seeds


def describe_seeds(seeds: list[int]) -> str:
    """``seeds 0..199 (200)`` for a run of consecutive seeds, else ``42 listed seeds, 1..196``."""
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}..{seeds[-1]} ({len(seeds)})"
    return f"{len(seeds)} listed seeds, {min(seeds)}..{max(seeds)}"


def peek_view(what: str):
    """A diagnostic that breaks the strategy's honesty on purpose, to measure what not
    seeing costs: the tracker's state with the unseen cards of the stock and waste
    (``stock``), of the face-down tableau (``tableau``) or both (``all``), or only the next
    face-down card of each column, the one its next flip shows (``next``), filled in from
    the true table. Never used by the product."""

    def view(known: GameState, truth: GameState) -> GameState:
        if what in ("stock", "all"):
            known = replace(known, stock=truth.stock, waste=truth.waste)
        if what in ("tableau", "all"):
            known = replace(known, hidden=truth.hidden)
        if what == "next":
            known = replace(known, hidden=tuple(h[:-1] + t[-1:] for h, t in zip(known.hidden, truth.hidden)))
        return known

    return view


def _game(job):
    seed, strategy, rules, options, peek = job
    from solitaire_coach.app.simulate import play_game

    record = play_game(
        deal_for_seed(seed), strategy, rules, strategy_options=options, view=peek_view(peek) if peek else None
    )
    redeals = sum(m.kind is MoveKind.REDEAL for m in record.moves)
    return (
        seed,
        record.result,
        len(record.moves),
        record.think_ms,
        _peak_mb(),
        getattr(record, "proven_at", None),
        redeals,
    )


def _ceiling(job):
    seed, rules, time_limit, memory_mb = job
    result = solve(GameState.from_deal(deal_for_seed(seed), rules), time_limit=time_limit, memory_mb=memory_mb)
    return seed, result.status, result.nodes, result.seconds, _peak_mb()


def rules_of(args) -> Rules:
    """The rules named by a run's ``draw`` and ``redeals`` (a number or "unlimited")."""
    return Rules(draw_count=args.draw, redeal_limit=None if args.redeals == "unlimited" else int(args.redeals))


def best_run(draw: int, redeals: str, think_time: float, option: list[str]) -> argparse.Namespace:
    """The ``args`` of a ``best`` run with these rules, think time and ``--option`` items
    and every other setting at its default (for scripts that play games as this one does)."""
    return argparse.Namespace(
        strategy="best",
        draw=draw,
        redeals=redeals,
        think_time=think_time,
        seed=0,
        samples=None,
        node_limit=None,
        option=option,
    )


def strategy_options(args) -> dict:
    """The strategy's options for a run (its ``args``, or the ``args`` a --json file keeps):
    think time, seed, samples, node limit and each ``--option NAME=VALUE``; none but for
    ``best``."""
    if args.strategy != "best":
        return {}
    options = {"think_time": args.think_time, "seed": args.seed}
    if args.samples:
        options["samples"] = args.samples
    if args.node_limit:
        options["node_limit"] = args.node_limit
    for item in args.option:
        name, _, value = item.partition("=")
        try:
            options[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise ValueError(
                f"--option {item}: wants NAME=VALUE with a Python literal for VALUE, e.g. ease=1.0 or graded=True"
            ) from None
    return options


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--strategy", default="best")
    p.add_argument("--ceiling", action="store_true", help="run the full-information solver instead of a strategy")
    p.add_argument("--first", type=int, default=0, help="first deal seed (default 0)")
    p.add_argument("--count", type=int, default=1000, help="number of deals (default 1000)")
    p.add_argument(
        "--seeds",
        help="the deals' seeds instead of --first/--count, e.g. 0-99,120 (say, the "
        "winnable deals a run lost, to screen a change on them first)",
    )
    p.add_argument("--draw", type=int, default=1, choices=(1, 3))
    p.add_argument("--redeals", default="3", help="redeal limit, or 'unlimited'")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--think-time", type=float, default=1.0)
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--node-limit", type=int, default=None, help="best: solver nodes per sampled layout and move")
    p.add_argument("--seed", type=int, default=0, help="strategy random seed")
    p.add_argument("--solver-time", type=float, default=10.0, help="ceiling: seconds per deal (default 10)")
    p.add_argument("--solver-memory", type=float, default=1024, help="ceiling: table megabytes (default 1024)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra strategy option (a Python literal), e.g. --option ease=1.0",
    )
    p.add_argument("--json", help="write per-deal results here")
    p.add_argument(
        "--peek",
        choices=("stock", "tableau", "all", "next"),
        default=None,
        help="diagnostic: show the strategy the true unseen cards of the stock, the face-down tableau, "
        "or both, or the next face-down card of each column (what not seeing them costs; "
        "never the product)",
    )
    args = p.parse_args(argv)
    rules = rules_of(args)
    try:
        seeds = parse_seeds(args.seeds) if args.seeds else list(range(args.first, args.first + args.count))
    except ValueError as exc:
        p.error(str(exc))
    if not seeds:
        p.error("no deals to play: --count must be at least 1")
    start = time.perf_counter()
    rows = []
    if args.ceiling:
        jobs = [(s, rules, args.solver_time, args.solver_memory) for s in seeds]
        fn = _ceiling
    else:
        try:
            options = strategy_options(args)
            make_strategy(args.strategy, **options)  # an unknown name or option fails here, once
        except ValueError as exc:
            p.error(str(exc))
        jobs = [(s, args.strategy, rules, options, args.peek) for s in seeds]
        fn = _game
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for n, row in enumerate(pool.map(fn, jobs, chunksize=1), start=1):
            rows.append(row)
            if n % 10 == 0 or n == len(jobs):
                good = sum(r[1] == "won" for r in rows)
                print(
                    f"[{n}/{len(jobs)}] won {good} ({100 * good / n:.1f}%), {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
                if args.json:  # what is done so far survives an interrupted run
                    _write_json(args.json, args, rows)
    n = len(rows)
    wins = sum(r[1] == "won" for r in rows)
    lo, hi = wilson_interval(wins, n)
    print(f"rules: {rules.describe()}; deals: {describe_seeds([r[0] for r in rows])}")
    peak = max(r[4] for r in rows)
    if args.ceiling:
        lost = sum(r[1] == "lost" for r in rows)
        unknown = n - wins - lost
        secs = [r[3] for r in rows]
        print(
            f"solver: won {wins} ({100 * wins / n:.1f}%, 95% CI {100 * lo:.1f}-{100 * hi:.1f}%), "
            f"proven lost {lost}, undecided {unknown} at {args.solver_time:g} s "
            f"-> decided {100 * (n - unknown) / n:.1f}%"
        )
        print(
            f"solve time: median {statistics.median(secs):.3f} s, p90 {percentile(secs, 0.9):.2f} s, "
            f"p99 {percentile(secs, 0.99):.2f} s, max {max(secs):.2f} s; peak memory {peak:.0f} MB per process"
        )
    else:
        think = [t for r in rows for t in r[3]]
        print(f"{args.strategy}: won {wins} of {n} = {100 * wins / n:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)")
        print(
            f"think time per move: median {statistics.median(think):.1f} ms, p99 {percentile(think, 0.99):.0f} ms, "
            f"max {max(think):.0f} ms over {len(think)} decisions; peak memory {peak:.0f} MB per process"
        )
        print(certainty_line(rows))
        print(redeals_line(rows))
    print(f"wall time {time.perf_counter() - start:.0f} s with {args.workers} workers")
    if args.json:
        _write_json(args.json, args, rows)
    return 0


def certainty_line(rows) -> str:
    """How early the advisor was sure of the outcome (``simulate.certainty``); rows of runs
    made before ``proven_at`` was kept count as never sure."""
    return certainty_text(certainty((r[1], r[2], r[5] if len(r) > 5 else None) for r in rows))


def redeals_line(rows) -> str:
    """How many redeals (passes through the stock after the first) the won games used:
    how many used 0, 1, 2, 3 and more than 3; rows of runs made before the count was kept
    (no 7th field) are left out."""
    won = [r for r in rows if r[1] == "won"]
    if not won:
        return "redeals used by won games: no game won"
    used = sorted(r[6] for r in won if len(r) > 6)
    if not used:
        return "redeals used by won games: not kept in this run"
    counts = [sum(u == k for u in used) for k in range(4)] + [sum(u > 3 for u in used)]
    return (
        f"redeals used by won games: median {statistics.median(used):g}, max {used[-1]}; "
        f"0: {counts[0]}, 1: {counts[1]}, 2: {counts[2]}, 3: {counts[3]}, more than 3: {counts[4]} "
        f"(of {len(used)})"
    )


def _write_json(path, args, rows) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump({"args": vars(args), "rows": rows}, f)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
