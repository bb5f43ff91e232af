"""Where did a lost game go wrong? The move that turned a won position lost, for each lost game.

Each seed's game is played as ``bench/strength.py`` plays it (the strategy sees what the
tracker knows only). For a game the strategy loses on a deal the full-information solver
wins, the true positions along the game are solved (binary search: once lost, a position
stays lost) to find the last one still won; the advice given there is the mistake. An
undecided solve is taken as won, so the mistake found is at or after the real one. Prints a
line per lost game (stderr: progress) and a count of the mistakes by kind of advice: a
sampled decision, or one of the strategy's shortcuts (a safe foundation move, the only move
that makes progress, going round the stock again).

    python bench/loss_trace.py --seeds 300-370 --draw 3 --redeals unlimited
    python bench/loss_trace.py --from-json best_d3.json --nodes 3000000 --json trace.json
    python bench/loss_trace.py --seeds 0,45 --alternatives   # and every move weighed there
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from solitaire_coach.app.simulate import play_game
from solitaire_coach.core import deal_for_seed
from solitaire_coach.core.solver import solve
from strength import (  # bench/strength.py: options built as its runs build them
    best_run,
    parse_seeds,
    rules_of,
    strategy_options,
)


def last_won_index(states, status_of) -> int | None:
    """Index of the last position still won in ``states`` (``status_of(i)`` gives "won",
    "lost" or "unknown" for position i; unknown counts as won), or None when the first
    is not won or the last is not lost."""
    if status_of(0) != "won" or status_of(len(states) - 1) != "lost":
        return None
    lo, hi = 0, len(states) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if status_of(mid) == "lost":
            hi = mid
        else:
            lo = mid
    return lo


def mistake_kind(reason: str) -> str:
    """The kind of decision an advice's reason names."""
    if "sampled layout" in reason:
        return "sampled"
    for words in ("can go up safely", "only move that makes progress", "go round again", "the only move"):
        if words in reason:
            return words
    return "other"


def trace(job) -> dict:
    seed, rules, options, nodes, alternatives = job
    record = play_game(deal_for_seed(seed), "best", rules, strategy_options=options, keep_states=True)
    row = {"seed": seed, "result": record.result, "moves": len(record.moves)}
    if record.result == "won":
        return row
    cache: dict[int, str] = {}

    def status_of(i: int) -> str:
        if i not in cache:
            cache[i] = solve(record.states[i], node_limit=nodes).status
        return cache[i]

    row["deal"] = status_of(0)
    at = last_won_index(record.states, status_of) if row["deal"] == "won" else None
    if at is not None:
        advice = record.advice[at]
        row.update(
            at=at,
            move=advice.move.text,
            reason=advice.reason,
            kind=mistake_kind(advice.reason),
            hidden=sum(len(h) for h in record.states[at].hidden),
        )
        if alternatives:
            row["alternatives"] = weigh_alternatives(record.states[at], record.stats[at].get("scores", {}), nodes)
    return row


def weigh_alternatives(truth, scores: dict, nodes: int) -> list:
    """For each move the strategy weighed (``scores``: move text -> its sampled value), the
    value and what the solver makes of the true position after it: [text, value, status],
    best value first. Shows whether another move would have kept the game won, and how
    far the sampling put it behind."""
    legal = {m.text: m for m in truth.legal_moves()}
    rows = [
        [text, round(value, 3), solve(truth.play(legal[text]), node_limit=nodes).status]
        for text, value in scores.items()
        if text in legal
    ]
    return sorted(rows, key=lambda r: -r[1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", help="seeds, e.g. 0-99 or 3,5,8")
    p.add_argument("--from-json", help="the lost games of a bench/strength.py --json file (its rules and options)")
    p.add_argument("--draw", type=int, default=1, choices=(1, 3))
    p.add_argument("--redeals", default="3", help="redeal limit, or 'unlimited'")
    p.add_argument("--think-time", type=float, default=20.0)
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--nodes", type=int, default=3_000_000, help="solver positions a solve (default 3 M)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--alternatives",
        action="store_true",
        help="also solve the true position after each move weighed at the mistake, and print them",
    )
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args(argv)
    if args.from_json:
        with open(args.from_json) as f:
            data = json.load(f)
        seeds = [row[0] for row in data["rows"] if row[1] != "won"]
        run = argparse.Namespace(**data["args"])  # the options and rules that run played with
        run.option = run.option + args.option
    elif args.seeds:
        try:
            seeds = parse_seeds(args.seeds)
        except ValueError as exc:
            p.error(str(exc))
        run = best_run(args.draw, args.redeals, args.think_time, args.option)
    else:
        p.error("give --seeds or --from-json")
    options, rules = strategy_options(run), rules_of(run)
    jobs = [(s, rules, options, args.nodes, args.alternatives) for s in seeds]
    rows, start = [], time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for n, row in enumerate(pool.map(trace, jobs, chunksize=1), 1):
            rows.append(row)
            print(f"[{n}/{len(jobs)}] {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
            if row["result"] != "won":
                where = (
                    f"won until move {row['at'] + 1}: {row['move']} ({row['reason']}), {row['hidden']} face down"
                    if "at" in row
                    else ""
                )
                print(f"seed {row['seed']}: lost after {row['moves']} moves; deal {row['deal']}; {where}".rstrip("; "))
                for text, value, status in row.get("alternatives", ()):
                    print(f"    {text:8} sampled {value:.3f}  true position after it: {status}")
    lost = [r for r in rows if r["result"] != "won"]
    traced = [r for r in lost if "at" in r]
    print(
        f"{len(rows)} games, {len(lost)} lost; deals: "
        + ", ".join(f"{k} {v}" for k, v in collections.Counter(r["deal"] for r in lost).most_common())
    )
    print(
        f"mistakes on won deals ({len(traced)}): "
        + ", ".join(f"{k} {v}" for k, v in collections.Counter(r["kind"] for r in traced).most_common())
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "rows": rows}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
