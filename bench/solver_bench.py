"""Solver benchmark: how many deals the full-information solver decides, how fast, in how much memory.

Deals are ``deal_for_seed(seed)`` for the seeds given (default 0..499). Each deal is solved
once with a time limit; prints a line per undecided deal (with ``--verbose`` every deal) to
stderr and a summary to stdout: decided share, won / proven lost / unknown, median, 90th and
99th percentile seconds, nodes, and the peak resident memory of a worker process.

    python bench/solver_bench.py --seeds 0-499 --time 5 --workers 2
    python bench/solver_bench.py --seeds-file undecided.txt --time 5 --json out.json
    python bench/solver_bench.py --draw 3 --redeals unlimited --seeds 0-199
    python bench/solver_bench.py --seeds-file undecided.txt --time 0 --nodes 150000000

``--nodes`` bounds the positions generated per deal: unlike a time limit, the answers then do
not depend on how loaded the machine is (compare builds that way).

``--ext DIR`` loads the compiled core from another build directory (for comparing a
development build with the installed one without replacing it).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

_EXT_DIR: str | None = None


def _load_ext(ext_dir: str | None) -> None:
    global _EXT_DIR
    if ext_dir is None or _EXT_DIR == ext_dir:
        return
    import glob
    import importlib.util
    import os

    from solitaire_coach.core import solver

    paths = glob.glob(os.path.join(ext_dir, "_csolver*.so"))
    if not paths:
        raise SystemExit(f"--ext {ext_dir}: no _csolver*.so there")
    spec = importlib.util.spec_from_file_location("_csolver", paths[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    solver._csolver = module
    _EXT_DIR = ext_dir


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _job(job):
    seed, draw, redeals, time_limit, node_limit, memory_mb, ext_dir = job
    _load_ext(ext_dir)
    from solitaire_coach.core import GameState, Rules, deal_for_seed
    from solitaire_coach.core.solver import solve

    rules = Rules(draw_count=draw, redeal_limit=redeals)
    cpu = time.process_time()
    result = solve(
        GameState.from_deal(deal_for_seed(seed), rules),
        time_limit=time_limit,
        node_limit=node_limit,
        memory_mb=memory_mb,
    )
    cpu = time.process_time() - cpu
    return seed, result.status, result.nodes, result.seconds, len(result.moves), _peak_mb(), cpu


def parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.replace(",", " ").split():
        if "-" in part:
            a, b = part.split("-", 1)
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def main(argv=None) -> int:
    from solitaire_coach.app.simulate import percentile

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0-499", help="seeds, e.g. '0-499' or '3,17,40-60' (default 0-499)")
    p.add_argument("--seeds-file", help="a file of seeds (whitespace or comma separated); overrides --seeds")
    p.add_argument("--time", type=float, default=5.0, help="seconds per deal (default 5; 0: none)")
    p.add_argument("--nodes", type=int, help="positions per deal (a limit that does not depend on the load)")
    p.add_argument("--memory-mb", type=float, default=1024, help="transposition table MB (default 1024)")
    p.add_argument("--draw", type=int, default=1, choices=(1, 3))
    p.add_argument("--redeals", default="3", help="redeal limit, or 'unlimited' (default 3)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--ext", help="directory of another build of the compiled core to load instead")
    p.add_argument("--json", help="write per-deal results here")
    p.add_argument("--verbose", action="store_true", help="a line per deal, not only per undecided deal")
    args = p.parse_args(argv)
    seeds = parse_seeds(open(args.seeds_file).read() if args.seeds_file else args.seeds)
    redeals = None if args.redeals == "unlimited" else int(args.redeals)
    jobs = [(s, args.draw, redeals, args.time or None, args.nodes, args.memory_mb, args.ext) for s in seeds]
    rows = []
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for row in pool.map(_job, jobs):
            rows.append(row)
            seed, status, nodes, secs, nmoves, peak, cpu = row
            if args.verbose or status == "unknown":
                print(
                    f"seed {seed}: {status} {nodes} nodes {secs:.2f} s (cpu {cpu:.2f} s) {nmoves} moves {peak:.0f} MB",
                    file=sys.stderr,
                    flush=True,
                )
    wall = time.perf_counter() - start
    counts = {k: sum(r[1] == k for r in rows) for k in ("won", "lost", "unknown")}
    secs = [r[3] for r in rows]
    decided = counts["won"] + counts["lost"]
    limit = f"{args.time:g} s" if args.time else "no time limit"
    if args.nodes:
        limit += f", {args.nodes:,} positions"
    print(
        f"draw {args.draw}, redeals {args.redeals}, {len(rows)} deals, {limit} a deal, "
        f"{args.workers} workers, {wall:.0f} s wall"
    )
    print(
        f"decided {decided}/{len(rows)} ({decided / len(rows):.1%}): won {counts['won']}, "
        f"lost {counts['lost']}, unknown {counts['unknown']}"
    )
    cpu = [r[6] for r in rows]
    print(
        f"seconds: median {statistics.median(secs):.3f}, p90 {percentile(secs, 0.9):.2f}, p99 {percentile(secs, 0.99):.2f}, "
        f"max {max(secs):.2f}; peak memory {max(r[5] for r in rows):.0f} MB per process"
    )
    print(
        f"CPU seconds (not slowed by other work on the machine): median {statistics.median(cpu):.3f}, "
        f"total {sum(cpu):.1f}; positions: total {sum(r[2] for r in rows):,}"
    )
    undecided = [r[0] for r in rows if r[1] == "unknown"]
    if undecided:
        print("undecided seeds:", " ".join(map(str, undecided)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                [dict(zip(("seed", "status", "nodes", "seconds", "moves", "peak_mb", "cpu_seconds"), r)) for r in rows],
                f,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
