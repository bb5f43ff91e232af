"""Combine the JSON files of ``bench/strength.py`` runs into the README figures.

    python bench/strength_report.py --games best.json --ceiling ceiling.json [--baseline baseline.json]
    python bench/strength_report.py --paired before.json after.json

Reports each strategy's win rate with a 95% interval, the solver's ceiling on the same
deals, the ratio of the two, and the share of the solver-won deals the strategy won. The
ceiling must be a ``--ceiling`` run under the same rules (draw, redeals) as each run.
``--paired`` compares two runs on the deals both finished: wins of each, the deals one
won and the other lost, and a two-sided sign test on those (the chance of a split at
least that uneven if neither run were better), with each run's think time.

A run made in parts is given as its files joined by ``+`` (``best_0.json+best_500.json``):
the parts must be runs of the same strategy, rules and options, and a deal in two parts
must have the same result in both.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics

from solitaire_coach.app.simulate import wilson_interval

# The settings that make two runs' games comparable (``first``, ``count``, ``workers`` and
# ``json`` may differ between the parts of one run).
SAME_IN_EVERY_PART = (
    "strategy",
    "ceiling",
    "draw",
    "redeals",
    "think_time",
    "samples",
    "node_limit",
    "seed",
    "solver_time",
    "solver_memory",
    "option",
)
# The rules a strategy run and its ceiling must share (strength.py's defaults where an old file lacks them).
RULES = {"draw": 1, "redeals": "3"}


def load(path: str):
    """A run's settings and rows by seed; ``path`` may name several parts joined by ``+``."""
    parts = path.split("+")
    first_args, rows = None, {}
    for part in parts:
        with open(part) as f:
            data = json.load(f)
        args = data["args"]
        if first_args is None:
            first_args = args
        else:
            for key in SAME_IN_EVERY_PART:
                if args.get(key) != first_args.get(key):
                    raise SystemExit(
                        f"{part}: {key} is {args.get(key)!r}, but {parts[0]} has "
                        f"{first_args.get(key)!r}: not parts of one run"
                    )
        for row in data["rows"]:
            seed = row[0]
            if seed in rows and rows[seed][1] != row[1]:
                raise SystemExit(f"{part}: seed {seed} {row[1]}, but {rows[seed][1]} in an earlier part")
            rows[seed] = row
    return first_args, rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--games", action="append", default=[], help="a strategy run's JSON, or its parts joined by + (repeatable)"
    )
    p.add_argument("--ceiling", help="the solver run's JSON")
    p.add_argument("--paired", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two runs deal by deal")
    args = p.parse_args()
    if args.paired:
        return paired(*args.paired)
    if not args.ceiling:
        p.error("--ceiling is needed unless --paired is given")
    ceil_args, ceil = load(args.ceiling)
    if not ceil_args.get("ceiling"):
        raise SystemExit(f"{args.ceiling}: not a ceiling run (made without --ceiling): give the solver's run")
    for path in args.games:
        run_args, rows = load(path)
        check_same_rules(path, run_args, args.ceiling, ceil_args)
        seeds = sorted(set(rows) & set(ceil))
        if not seeds:
            raise SystemExit(f"{path} and {args.ceiling} share no deal: run the ceiling on the same seeds")
        n = len(seeds)
        wins = sum(rows[s][1] == "won" for s in seeds)
        c_won = [s for s in seeds if ceil[s][1] == "won"]
        c_lost = sum(ceil[s][1] == "lost" for s in seeds)
        c_unknown = n - len(c_won) - c_lost
        won_of_winnable = sum(rows[s][1] == "won" for s in c_won)
        lo, hi = wilson_interval(wins, n)
        think = sorted(t for s in seeds for t in rows[s][3])
        p99 = _p99(think)
        print(
            f"{run_args['strategy']}: {n} deals (seeds {seeds[0]}..{seeds[-1]}), won {wins} = {100 * wins / n:.1f}% "
            f"(95% CI {100 * lo:.1f}-{100 * hi:.1f}%)"
        )
        print(
            f"  solver on the same deals: won {len(c_won)}, proven lost {c_lost}, undecided {c_unknown}; "
            f"ceiling {100 * len(c_won) / n:.1f}%..{100 * (len(c_won) + c_unknown) / n:.1f}%"
        )
        print(
            f"  ratio to ceiling: {100 * wins / max(1, len(c_won)):.1f}% (wins / solver wins); "
            f"won {won_of_winnable} of the {len(c_won)} deals the solver won ({100 * won_of_winnable / max(1, len(c_won)):.1f}%)"
        )
        print(
            f"  think time per decision: median {statistics.median(think):.1f} ms, p99 {p99:.0f} ms, "
            f"max {think[-1]:.0f} ms ({len(think)} decisions); peak memory {max(rows[s][4] for s in seeds):.0f} MB"
        )
        searched = [t for t in think if t >= 1.0]
        if searched:
            print(
                f"  decisions that searched (>= 1 ms, {len(searched)}): median {statistics.median(searched):.0f} ms, "
                f"p99 {_p99(searched):.0f} ms"
            )
    return 0


def check_same_rules(path: str, run_args: dict, ceiling_path: str, ceiling_args: dict) -> None:
    """Refuse a ceiling made under other rules than the run, naming the setting."""
    for key, default in RULES.items():
        ours, theirs = (str(a.get(key, default)).lower() for a in (run_args, ceiling_args))
        if ours != theirs:
            raise SystemExit(f"{ceiling_path}: {key} is {theirs}, but {path} has {ours}: not the same rules")


def _p99(ordered: list[float]) -> float:
    """The 99th percentile of values already sorted (the value at 99% of the way through)."""
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def sign_test(gained: int, lost: int) -> float:
    """Two-sided sign test: the chance of a split at least as uneven as gained/lost
    when each changed deal is equally likely to go either way."""
    n = gained + lost
    if n == 0:
        return 1.0
    k = min(gained, lost)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def _think(rows, seeds) -> str:
    think = sorted(t for s in seeds for t in rows[s][3])
    p99 = _p99(think)
    return (
        f"think time median {statistics.median(think):.1f} ms, p99 {p99:.0f} ms, max {think[-1]:.0f} ms "
        f"({len(think)} decisions)"
    )


def paired(before_path: str, after_path: str) -> int:
    _, before = load(before_path)
    _, after = load(after_path)
    seeds = sorted(set(before) & set(after))
    if not seeds:
        raise SystemExit(f"{before_path} and {after_path} share no deal")
    won_b = {s for s in seeds if before[s][1] == "won"}
    won_a = {s for s in seeds if after[s][1] == "won"}
    gained, lost = sorted(won_a - won_b), sorted(won_b - won_a)
    print(f"{len(seeds)} deals both finished (seeds {seeds[0]}..{seeds[-1]})")
    print(f"  before ({before_path}): won {len(won_b)}; {_think(before, seeds)}")
    print(f"  after  ({after_path}): won {len(won_a)}; {_think(after, seeds)}")
    print(f"  gained {len(gained)} deals, lost {len(lost)}; sign test p = {sign_test(len(gained), len(lost)):.3f}")
    print(f"  gained: {' '.join(map(str, gained)) or '-'}")
    print(f"  lost:   {' '.join(map(str, lost)) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
