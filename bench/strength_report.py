"""Combine the JSON files of ``bench/strength.py`` runs into the README figures.

    python bench/strength_report.py --games best.json --ceiling ceiling.json [--baseline baseline.json]

Reports each strategy's win rate with a 95% interval, the solver's ceiling on the same
deals, the ratio of the two, and the share of the solver-won deals the strategy won.
"""

from __future__ import annotations

import argparse
import json
import statistics

from solitaire_coach.app.simulate import wilson_interval


def load(path):
    with open(path) as f:
        data = json.load(f)
    return data["args"], {row[0]: row for row in data["rows"]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", action="append", default=[], help="a strategy run's JSON (repeatable)")
    p.add_argument("--ceiling", required=True, help="the solver run's JSON")
    args = p.parse_args()
    _, ceil = load(args.ceiling)
    for path in args.games:
        run_args, rows = load(path)
        seeds = sorted(set(rows) & set(ceil))
        n = len(seeds)
        wins = sum(rows[s][1] == "won" for s in seeds)
        c_won = [s for s in seeds if ceil[s][1] == "won"]
        c_lost = sum(ceil[s][1] == "lost" for s in seeds)
        c_unknown = n - len(c_won) - c_lost
        won_of_winnable = sum(rows[s][1] == "won" for s in c_won)
        lo, hi = wilson_interval(wins, n)
        think = sorted(t for s in seeds for t in rows[s][3])
        p99 = think[min(len(think) - 1, int(0.99 * len(think)))]
        print(f"{run_args['strategy']}: {n} deals (seeds {seeds[0]}..{seeds[-1]}), won {wins} = {100 * wins / n:.1f}% "
              f"(95% CI {100 * lo:.1f}-{100 * hi:.1f}%)")
        print(f"  solver on the same deals: won {len(c_won)}, proven lost {c_lost}, undecided {c_unknown}; "
              f"ceiling {100 * len(c_won) / n:.1f}%..{100 * (len(c_won) + c_unknown) / n:.1f}%")
        print(f"  ratio to ceiling: {100 * wins / max(1, len(c_won)):.1f}% (wins / solver wins); "
              f"won {won_of_winnable} of the {len(c_won)} deals the solver won ({100 * won_of_winnable / max(1, len(c_won)):.1f}%)")
        print(f"  think time per decision: median {statistics.median(think):.1f} ms, p99 {p99:.0f} ms, "
              f"max {think[-1]:.0f} ms ({len(think)} decisions); peak memory {max(rows[s][4] for s in seeds):.0f} MB")
        searched = [t for t in think if t >= 1.0]
        if searched:
            print(f"  decisions that searched (>= 1 ms, {len(searched)}): median {statistics.median(searched):.0f} ms, "
                  f"p99 {searched[min(len(searched) - 1, int(0.99 * len(searched)))]:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
