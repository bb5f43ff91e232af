"""How often is a sampled layout the strategy's solver left undecided really won?

``best`` solves each sampled layout with a small budget; a layout left undecided
("unknown") was valued one half whatever the search had reached. This plays games as
``bench/strength.py`` does, keeps every ``--every``-th undecided layout with how near to a
win the solver's quick pass came (``SolveResult.closest``: the lowest estimate of the
distance left, 0 won), solves the kept layouts again with a large budget, and prints the
share won by bands of that distance. The table is where ``best``'s value of an undecided
layout comes from (``UNKNOWN_WON_SHARE`` in ``core/best.py``).

    python bench/unknown_calibration.py --first 1000 --count 20 --draw 3 --redeals unlimited
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from solitaire_coach.app.simulate import play_game
from solitaire_coach.core import best, deal_for_seed
from solitaire_coach.core.solver import solve
from strength import best_run, rules_of, strategy_options  # bench/strength.py: options built as its runs build them


class RecordingBest(best.BestStrategy):
    """``best`` that keeps every ``every``-th sampled layout its solve leaves undecided,
    with the quick pass's distance estimate (``closest``)."""

    def __init__(self, every: int, **options):
        super().__init__(**options)
        self.every, self.seen, self.kept = every, 0, []

    def _solve_layout(self, layout):
        result = super()._solve_layout(layout)
        if result.status == "unknown" and result.closest is not None:
            self.seen += 1
            if self.seen % self.every == 0:
                self.kept.append((layout, result.closest))
        return result


def collect(job) -> list[tuple[int, str]]:
    """Play one seed; return (closest, status at the large budget) for each kept layout."""
    seed, rules, options, every, nodes = job
    strategy = RecordingBest(every, **options)
    play_game(deal_for_seed(seed), strategy, rules)
    return [(closest, solve(layout, node_limit=nodes, verify=False).status) for layout, closest in strategy.kept]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--first", type=int, default=1000)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--draw", type=int, default=1, choices=(1, 3))
    p.add_argument("--redeals", default="3", help="redeal limit, or 'unlimited'")
    p.add_argument("--every", type=int, default=10, help="keep every n-th undecided layout")
    p.add_argument("--nodes", type=int, default=300_000, help="positions for the second solve of a kept layout")
    p.add_argument("--band", type=int, default=10, help="width of a distance band")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args = p.parse_args(argv)
    run = best_run(args.draw, args.redeals, 20.0, args.option)
    options, rules = strategy_options(run), rules_of(run)
    jobs = [(s, rules, options, args.every, args.nodes) for s in range(args.first, args.first + args.count)]
    rows, start = [], time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for n, part in enumerate(pool.map(collect, jobs, chunksize=1), 1):
            rows.extend(part)
            print(
                f"[{n}/{len(jobs)}] {len(rows)} layouts, {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    bands: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for closest, status in rows:
        bands[closest // args.band * args.band][status] += 1
    print(f"{len(rows)} undecided layouts, solved again with {args.nodes:,} positions")
    print("distance   layouts   won  lost  unknown   won share of decided")
    for lo in sorted(bands):
        c = bands[lo]
        decided = c["won"] + c["lost"]
        share = f"{c['won'] / decided:.2f}" if decided else "-"
        print(
            f"{lo:3d}-{lo + args.band - 1:<3d}  {sum(c.values()):8d}  {c['won']:4d}  {c['lost']:4d}  {c['unknown']:7d}"
            f"   {share}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
