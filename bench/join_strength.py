"""What joining a game in progress costs: the same position played on by an advisor that
followed the game from the deal and by one that joined it there, everything not visible
forgotten (issue 42).

Each deal ``deal_for_seed(seed)`` is played for ``--after`` moves (the baseline's advice,
or random legal moves with ``--warmup random``), then on to its end twice from that same
position with ``--strategy``: followed (the tracker that saw every card turned since the
deal) and joined (a tracker joined from a snapshot with runs and face-down counts, and
whether the stock holds cards; the stock/waste split is left to later pictures). Prints
the two win counts, the paired difference (deals won by one only) with a two-sided sign
test, and how many cards each did not know at the join.

    python bench/join_strength.py --strategy baseline --count 200
    python bench/join_strength.py --strategy best --count 100 --think-time 0.5 --workers 2
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from solitaire_coach.app.simulate import run_join_pairs, wilson_interval
from solitaire_coach.core import deal_for_seed

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from strength import parse_seeds, rules_of, strategy_options  # noqa: E402  (this folder's script)


def sign_test(gained: int, lost: int) -> float:
    """Two-sided exact sign test p-value of ``gained`` against ``lost`` paired changes."""
    n = gained + lost
    if n == 0:
        return 1.0
    k = min(gained, lost)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--strategy", default="baseline")
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seeds", help="the deals' seeds instead of --first/--count, e.g. 0-99,120")
    p.add_argument("--after", type=int, default=30, help="moves played before the join (default 30)")
    p.add_argument("--warmup", choices=("baseline", "random"), default="baseline")
    p.add_argument("--draw", type=int, default=1, choices=(1, 3))
    p.add_argument("--redeals", default="3", help="redeal limit, or 'unlimited'")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--think-time", type=float, default=1.0)
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--node-limit", type=int, default=None)
    p.add_argument("--seed", type=int, default=0, help="strategy random seed")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument(
        "--redeals-known", action="store_true", help="tell the join the redeals used before it (else it assumes none)"
    )
    args = p.parse_args(argv)
    seeds = parse_seeds(args.seeds) if args.seeds else list(range(args.first, args.first + args.count))
    rules = rules_of(args)
    options = strategy_options(args)
    start = time.perf_counter()
    pairs = []
    for n, pair in enumerate(
        run_join_pairs(
            ((str(s), deal_for_seed(s)) for s in seeds),
            args.strategy,
            rules,
            args.after,
            args.warmup,
            args.workers,
            options,
            args.redeals_known,
        ),
        start=1,
    ):
        pairs.append(pair)
        if n % 20 == 0:
            print(f"  {n}/{len(seeds)} deals, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    n = len(pairs)
    followed = sum(p.followed == "won" for p in pairs)
    joined = sum(p.joined == "won" for p in pairs)
    gained = sum(p.joined == "won" and p.followed != "won" for p in pairs)
    lost = sum(p.followed == "won" and p.joined != "won" for p in pairs)

    def rate(wins: int) -> str:
        lo, hi = wilson_interval(wins, n)
        return f"{wins} ({wins / n:.1%}, 95% {lo:.1%}-{hi:.1%})"

    print(
        f"join_strength: {args.strategy} {options or ''}, {rules.describe()}, {n} deals (seeds "
        f"{seeds[0]}..{seeds[-1]}), joined after {args.after} {args.warmup} moves "
        f"(median {statistics.median(p.warmup_moves for p in pairs):g} played), redeals used before it "
        f"{'told' if args.redeals_known else 'not told (none assumed)'}"
    )
    lost_redealt = sum(p.followed == "won" and p.joined != "won" and p.redeals_used > 0 for p in pairs)
    print(f"  followed from the deal: {rate(followed)}")
    print(f"  joined there:           {rate(joined)}")
    print(
        f"  paired: joined won {gained} the followed lost, lost {lost} it won (sign test p = "
        f"{sign_test(gained, lost):.3g}); a join costs {followed - joined} wins in {n} "
        f"({(followed - joined) / n:.1%} of the deals); of the {lost} lost, {lost_redealt} after redeals made "
        f"before the join (deals with any: {sum(p.redeals_used > 0 for p in pairs)})"
    )
    print(
        f"  cards unknown at the join: followed median {statistics.median(p.unseen_followed for p in pairs):g}, "
        f"joined median {statistics.median(p.unseen_joined for p in pairs):g}; stock/waste splits kept open: "
        f"median {statistics.median(p.splits for p in pairs):g}"
    )
    print(f"  {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
