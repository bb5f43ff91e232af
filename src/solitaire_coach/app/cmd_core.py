"""Core subcommands: ``simulate``, ``coach`` and ``check-log``."""

from __future__ import annotations

import argparse
import json
import stat
import sys
from pathlib import Path

from ..core.advisor import STRATEGY_FACTORIES, strategy_names
from ..core.log_check import replay_log
from ..core.moves import IllegalMoveError
from ..core.notation import DealParseError, LogParseError, parse_deals, parse_log_lines
from ..core.rules import MAX_REDEAL_LIMIT, Rules
from ..core.state import GameState, deal_for_seed
from ..storage import NotTextError, describe_os_error, file_kind, read_text_file
from .argtypes import positive_float, positive_int
from .coach import CoachSession, run_file_loop
from .errors import NEGATIVE, USAGE, CommandError, say_error
from .filekinds import wrong_kind_hint
from .journal import Journal
from .options import add_json_argument, add_strategy_arguments, strategy_from_args
from .paths import file_in_the_way
from .progress import Progress

DEFAULT_COUNT = 100
"""Seeded deals ``simulate`` plays when --count is not given."""


def default_strategy() -> str:
    """The strategy used when --strategy is not given: ``best`` when it is known, else ``baseline``."""
    return "best" if "best" in STRATEGY_FACTORIES else "baseline"


def strategy_help() -> str:
    """The help of a --strategy option: the known strategies and the default."""
    return f"advisor strategy: {', '.join(strategy_names())} (default {default_strategy()})"


def redeal_limit(text) -> int | None:
    """The redeal limit ``--redeals`` names: a whole number of 0 or more, or ``unlimited``
    (any case) for None. Anything else (-1, 'inf', 'none', more than MAX_REDEAL_LIMIT
    included) raises ValueError saying what is taken."""
    t = str(text).strip()
    if t.lower() == "unlimited":
        return None
    try:
        value = int(t)
    except ValueError:
        raise ValueError(f"{text!r} is neither a whole number nor 'unlimited'") from None
    if value < 0:
        raise ValueError(f"{value} is not allowed: give a whole number of 0 or more, or 'unlimited'")
    if value > MAX_REDEAL_LIMIT:
        raise ValueError(f"{value} is too large: give at most {MAX_REDEAL_LIMIT}, or 'unlimited'")
    return value


def _redeals_argument(text: str) -> str:
    try:
        limit = redeal_limit(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return "unlimited" if limit is None else str(limit)


def add_rules_arguments(p) -> None:
    """Add --draw, --redeals and --foundation-return to parser ``p``."""
    p.add_argument(
        "--draw", type=int, choices=(1, 3), default=1, help="cards turned from the stock at a time (default 1)"
    )
    p.add_argument(
        "--redeals",
        type=_redeals_argument,
        default="3",
        help=f"times the waste may be turned over: a whole number from 0 to {MAX_REDEAL_LIMIT}, or "
        f"'unlimited' (default 3; -1, inf and none are refused)",
    )
    p.add_argument("--foundation-return", action="store_true", help="cards may come back from the foundations")


def rules_from_args(args) -> Rules:
    """The Rules that the --draw, --redeals and --foundation-return options of ``args`` give."""
    try:
        limit = redeal_limit(args.redeals)
    except ValueError as exc:  # only where args did not come from add_rules_arguments' parser
        raise CommandError(f"--redeals: {exc}") from None
    return Rules(draw_count=args.draw, redeal_limit=limit, foundation_return=args.foundation_return)


def register(sub) -> None:
    """Add the ``simulate``, ``coach`` and ``check-log`` commands to ``sub``."""
    p = sub.add_parser(
        "simulate",
        help="play whole games on the virtual table and report the win rate",
        description="Play whole games with a strategy on the virtual table (seeded deals or a "
        "file of deal lines) and report the win rate with its 95% interval, think time and, with "
        "--ceiling, how many of the deals a player who sees every card wins.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--deals", type=Path, help="file of deal lines")
    src.add_argument("--seed", type=int, default=None, help="first deal seed (default 1; not with --deals)")
    p.add_argument(
        "--count",
        type=positive_int,
        default=None,
        help=f"number of seeded deals (default {DEFAULT_COUNT}; not with --deals, which plays each of its deals)",
    )
    add_strategy_arguments(p)
    add_rules_arguments(p)
    p.add_argument("--logs", type=Path, help="write one game log per deal into this folder")
    add_json_argument(p, "one object per game, then the summary")
    p.add_argument("--workers", type=positive_int, default=1, help="processes to spread deals over")
    p.add_argument("--ceiling", action="store_true", help="also solve each deal with full information (the ceiling)")
    p.add_argument("--solver-time", type=positive_float, default=5.0, help="seconds per deal for --ceiling (default 5)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.set_defaults(func=cmd_simulate)

    c = sub.add_parser(
        "coach",
        help="coach a game from a snapshot file written by a detector",
        description="Coach a game from a 12-slot snapshot file: each time the file changes (or "
        "Enter is pressed) it is read, the moves made since the last one are worked out, and the "
        "next move is advised. The game is journalled, so a restart resumes it.",
    )
    c.add_argument("--snapshot-file", type=Path, required=True, help="the 12-slot snapshot file to watch")
    c.add_argument("--journal", type=Path, help="journal file (default: beside the snapshot file)")
    c.add_argument("--new", action="store_true", help="start a new game even if a journal exists")
    add_strategy_arguments(c)
    c.add_argument("--exit-when-done", action="store_true", help="quit when the game is won or lost")
    add_rules_arguments(c)
    c.set_defaults(func=cmd_coach)

    k = sub.add_parser(
        "check-log",
        help="replay game logs and check every move is legal",
        description="Replay each game log (a deal line, then one move per line, then won or lost) "
        "and check that every move is legal and the result is right; a bad one names the line.",
    )
    k.add_argument(
        "logs",
        nargs="+",
        type=Path,
        metavar="LOG",
        help="game log files (a deal line, then one move per line, then won or lost); each is checked",
    )
    add_rules_arguments(k)
    k.set_defaults(func=cmd_check_log)


def _strategy_options(args) -> dict:
    return {"think_time": args.think_time} if args.think_time is not None else {}


def cmd_simulate(args) -> int:
    """``simulate``: play seeded deals or a file of deals with a strategy and report the win rate."""
    from .simulate import certainty_text, run_games, summarize, write_log

    rules = rules_from_args(args)
    strategy = args.strategy or default_strategy()
    strategy_from_args(args)  # fail early on a think time the strategy does not take
    if args.deals and args.count is not None:
        raise CommandError(
            f"--count {args.count} cannot be used with --deals {args.deals}: a deal file plays each "
            f"of its deals once (--count is for seeded deals)"
        )
    if args.deals:
        try:
            text = read_text_file(args.deals)
        except (OSError, NotTextError) as exc:
            raise CommandError(f"{args.deals}: {describe_os_error(exc)}") from None
        try:
            deals = parse_deals(text)
        except DealParseError as exc:
            raise CommandError(f"{args.deals}: {exc}{wrong_kind_hint(text)}") from None
        if not deals:
            raise CommandError(f"{args.deals}: holds no deal lines (only blank lines and # comments)")
        labelled = [(f"deal-{i + 1:04d}", d) for i, d in enumerate(deals)]
    else:
        count = DEFAULT_COUNT if args.count is None else args.count
        first = 1 if args.seed is None else args.seed
        labelled = [(f"seed-{s}", deal_for_seed(s)) for s in range(first, first + count)]
    if args.logs:
        blocker = file_in_the_way(args.logs)
        if blocker is not None:
            raise CommandError(f"--logs {args.logs}: {blocker} is a file, not a folder")
        try:
            args.logs.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"--logs {args.logs}: cannot make the folder: {describe_os_error(exc)}") from None
    if not args.json and not args.quiet:
        print(f"simulate: {len(labelled)} deals, strategy {strategy}, {rules.describe()}, {args.workers} worker(s)")
    records = []
    progress = Progress(len(labelled), "deals", "simulate")
    for rec in run_games(labelled, strategy, rules, workers=args.workers, strategy_options=_strategy_options(args)):
        records.append(rec)
        if args.logs:
            try:
                write_log(args.logs, rec)
            except OSError as exc:
                raise CommandError(
                    f"--logs {args.logs}: cannot write the log of {rec.label}: {describe_os_error(exc)}"
                ) from None
        if args.json:
            print(
                json.dumps(
                    {"deal": rec.label, "result": rec.result, "moves": len(rec.moves), "seconds": round(rec.seconds, 4)}
                ),
                flush=True,
            )
        elif not args.quiet:
            print(
                f"{rec.label}: {rec.result} in {len(rec.moves)} moves, {rec.seconds:.3f} s "
                f"[{len(records)}/{len(labelled)}]",
                flush=True,
            )
        progress.update(len(records), f"{sum(r.result == 'won' for r in records)} won")
    progress.close()
    summary = summarize(records)
    summary["strategy"] = strategy
    summary["rules"] = rules.describe()
    if args.ceiling:
        summary.update(_ceiling([d for _, d in labelled], rules, summary["wins"], args.solver_time, quiet=args.json))
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        lo, hi = summary["ci95"]
        print(
            f"games {summary['games']}, wins {summary['wins']}, win rate {summary['win_rate']:.1%} "
            f"(95% CI {lo:.1%}-{hi:.1%}), median {summary['median_ms_per_move']:.2f} ms per move, "
            f"think median {summary['median_think_ms']:.2f} ms p99 {summary['p99_think_ms']:.2f} ms"
        )
        print(certainty_text(summary["certainty"]))
        if "ceiling_won" in summary:
            print(
                f"ceiling (full information): won {summary['ceiling_won']}, proven lost {summary['ceiling_lost']}, "
                f"unknown {summary['ceiling_unknown']}; strategy wins / winnable = {summary['ratio_to_ceiling']:.1%}"
            )
    return 0


def _ceiling(deals, rules: Rules, wins: int, seconds: float, quiet: bool = False) -> dict:
    """Solve every deal with full information (at most ``seconds`` each): the ceiling."""
    from ..core.solver import solve

    won = lost = unknown = 0
    for n, deal in enumerate(deals, start=1):
        result = solve(GameState.from_deal(deal, rules), time_limit=seconds)
        won += result.status == "won"
        lost += result.status == "lost"
        unknown += result.status == "unknown"
        if not quiet:
            print(
                f"ceiling: {n}/{len(deals)} solved ({won} won, {lost} proven lost, {unknown} unknown)",
                file=sys.stderr,
                flush=True,
            )
    return {
        "ceiling_won": won,
        "ceiling_lost": lost,
        "ceiling_unknown": unknown,
        "ratio_to_ceiling": wins / won if won else 0.0,
    }


def _coach_paths_problem(snapshot: Path, journal: Path, journal_option: str) -> str:
    """Why the snapshot file and the journal cannot be used ('' if they can)."""
    for option, path in (("--snapshot-file", snapshot), (journal_option, journal)):
        if path.is_dir():
            return f"{option} {path}: is a folder, not a file"
        blocker = file_in_the_way(path.parent)
        if blocker is not None:
            return f"{option} {path}: {blocker} is a file, not a folder"
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            continue  # not written yet: the snapshot file is waited for, the journal made
        except OSError as exc:  # a symlink loop, no permission to look
            return f"{option} {path}: cannot be read: {describe_os_error(exc)}"
        if not stat.S_ISREG(mode):
            return f"{option} {path}: is not a regular file: it is {file_kind(mode)}"
    try:
        same = snapshot.resolve() == journal.resolve() or (
            snapshot.exists() and journal.exists() and snapshot.samefile(journal)
        )
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        same = False
    if same:
        return (
            f"{journal_option} {journal} is the snapshot file itself: the journal must be another file "
            f"(default: {Journal.beside(snapshot).path})"
        )
    return ""


def cmd_coach(args) -> int:
    """``coach``: coach a game from a snapshot file, journalled so that a restart resumes it."""
    rules = rules_from_args(args)
    journal = Journal(args.journal) if args.journal else Journal.beside(args.snapshot_file)
    problem = _coach_paths_problem(args.snapshot_file, journal.path, "--journal" if args.journal else "the journal")
    if problem:
        raise CommandError(problem)
    strategy = strategy_from_args(args)
    session = CoachSession(rules, strategy, journal, say=lambda s: print(s, flush=True), resume=not args.new)
    return run_file_loop(session, args.snapshot_file, exit_when_done=args.exit_when_done)


def cmd_check_log(args) -> int:
    """``check-log``: replay each game log and name its first illegal move or wrong result."""
    rules = rules_from_args(args)
    bad = unreadable = 0
    for path in args.logs:
        text = ""
        try:
            text = read_text_file(path)
            log, where = parse_log_lines(text)
            replay_log(log, where, rules)
            print(f"{path}: ok, {len(log.moves)} moves, {log.result or 'unfinished'}")
        except (OSError, NotTextError) as exc:  # not a log that can be checked: bad input
            unreadable += 1
            say_error(args.command, f"{path}: {describe_os_error(exc)}")
        except (LogParseError, IllegalMoveError) as exc:  # a log that is wrong: the answer asked for
            bad += 1
            print(f"{path}: {exc}{wrong_kind_hint(text, ('game log',)) if isinstance(exc, LogParseError) else ''}")
    return USAGE if unreadable else NEGATIVE if bad else 0
