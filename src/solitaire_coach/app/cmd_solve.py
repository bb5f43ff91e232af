"""The ``solve`` subcommand: is a deal (or a position) winnable with every card known?

Input, one or more of (each solved in turn):

* a deal line (52 card codes, quoted; or, alone, as separate arguments);
* a file of deal lines (``#`` comments allowed): every deal is solved;
* a game log (a deal line then moves): the position after the moves is solved;
* a coach journal (JSON, whatever its name): the tracker's position. It has unknown cards
  unless every card has been seen. With at most ``--prove`` of them (default 5) every
  arrangement of them is searched (:mod:`..core.proof`): the position is ``won`` whatever
  they are (a line that chooses each move from the cards it has seen wins every
  arrangement), ``lost`` whatever they are, or neither; otherwise, or when neither, the
  command says so, and with ``--samples N`` it deals the unknown cards at random N times
  and solves each.

Each answer is ``won`` with the winning moves in the game-log notation, ``lost``
(proven: the search was exhaustive) or ``unknown`` (a limit was hit first). The exit
status is 0 if every deal was decided, 3 if some were not, 2 for bad input.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

from ..core.cards import Card, CardParseError
from ..core.log_check import replay_log
from ..core.moves import IllegalMoveError
from ..core.notation import (
    DealParseError,
    LogParseError,
    deal_codes,
    format_log,
    is_log_line,
    parse_deal,
    parse_deals,
    parse_log_lines,
    quote,
)
from ..core.solver import SolverError, solve
from ..core.state import GameState, deal_for_seed
from ..storage import NotTextError, describe_os_error, read_text_file
from .argtypes import at_most, non_negative_float, non_negative_int, positive_float, positive_int
from .cmd_core import add_rules_arguments, rules_from_args
from .errors import CommandError
from .filekinds import wrong_kind_hint
from .progress import Ticker

MAX_NODE_LIMIT = 10**18
"""The most --node-limit takes: the C solver counts positions in a 64-bit signed integer
and adds to the limit (2**63 would overflow)."""
MAX_MEMORY_MB = 1_048_576
"""The most --memory-mb takes (a terabyte): the solver turns it into a byte count for C."""
MAX_PROVE = 8
"""The most unknown cards --prove takes: 8 cards have 40,320 arrangements to solve."""
MAX_TIME_LIMIT = 86_400
"""The most --time-limit takes: a day (0 means no limit)."""


def register(sub) -> None:
    """Add the ``solve`` command to ``sub``."""
    p = sub.add_parser(
        "solve",
        help="solve a deal, game log or coach journal: won (with the moves), lost or unknown; "
        "with a few cards unknown, won or lost whatever they are",
        description="Solve with every card seen: a deal line, a file of deal lines, the position "
        "at the end of a game log, or a coach journal's position. Each is won (the moves are "
        "printed), proven lost, or unknown at the limits. A position with unknown cards is "
        "proven won or lost whatever they are when there are few (--prove), or solved on random "
        "layouts of them (--samples). Exit status 3 when any is left undecided.",
    )
    p.add_argument(
        "source",
        nargs="*",
        help="a deal line (52 codes), or a deal file, game log or journal; several are solved in turn",
    )
    p.add_argument(
        "--seed",
        type=int,
        action="append",
        default=None,
        metavar="N",
        help="also solve the deal of seed N, as simulate --seed deals it (may be given again)",
    )
    add_rules_arguments(p)
    p.add_argument(
        "--node-limit",
        type=at_most(positive_int, MAX_NODE_LIMIT),
        default=None,
        help=f"positions to search at most per deal (at most {MAX_NODE_LIMIT:,})",
    )
    p.add_argument(
        "--time-limit",
        type=at_most(non_negative_float, MAX_TIME_LIMIT, " seconds"),
        default=30.0,
        help=f"seconds per deal (default 30; 0 for none; at most {MAX_TIME_LIMIT:,}, a day)",
    )
    p.add_argument(
        "--memory-mb",
        type=at_most(positive_float, MAX_MEMORY_MB, " MB"),
        default=1024,
        help=f"transposition table size in MB (default 1024; at most {MAX_MEMORY_MB:,}, a terabyte)",
    )
    p.add_argument(
        "--samples",
        type=non_negative_int,
        default=0,
        help="for a position with unknown cards: solve this many random layouts of them",
    )
    p.add_argument(
        "--sample-seed", type=int, default=0, metavar="N", help="random seed of the --samples layouts (default 0)"
    )
    p.add_argument(
        "--prove",
        type=at_most(non_negative_int, MAX_PROVE),
        default=5,
        help="for a position with at most this many unknown cards, search every arrangement of them "
        f"for a proof that it is won or lost whatever they are (default 5; 0 for none; at most {MAX_PROVE})",
    )
    p.add_argument("--log", action="store_true", help="print each winning line as a full game log")
    p.add_argument("--quiet", action="store_true", help="print one line per deal, no moves")
    p.set_defaults(func=cmd_solve)


def _positions(args, rules) -> list[tuple[str, GameState, tuple]]:
    """(label, position, deal or ()) for each thing to solve; raises ValueError saying why.

    Every source is a file (deal file, game log or journal) or a deal line of 52 codes
    given as one argument; with no file among them, single card codes given as separate
    arguments make one deal line."""
    sources = args.source
    seeded = [
        (f"seed {n}", GameState.from_deal(deal_for_seed(n), rules), tuple(deal_for_seed(n))) for n in args.seed or ()
    ]
    if not sources and not seeded:
        raise ValueError("give a deal line, a deal file, a game log or a journal to solve, or --seed N")
    if not sources:
        return seeded
    return _source_positions(sources, rules) + seeded


def _source_positions(sources: list[str], rules) -> list[tuple[str, GameState, tuple]]:
    """(label, position, deal or ()) for each source given by argument (see _positions)."""
    if len(sources) > 1 and all(len(s.split()) == 1 and not os.path.lexists(s) for s in sources):
        for code in sources:
            try:
                Card.parse(code)
            except CardParseError:
                raise ValueError(
                    f"{quote(code)} is neither a file nor a card code (a deal given as separate "
                    f"arguments is 52 card codes)"
                ) from None
        deal = parse_deal(" ".join(sources))
        return [("deal", GameState.from_deal(deal, rules), tuple(deal))]
    jobs = []
    for n, source in enumerate(sources, start=1):
        path = Path(source)
        if os.path.isdir(source):  # False, not OSError, for a name too long to be a file's
            raise ValueError(f"{quote(source)} is a folder, not a deal file, game log or journal")
        elif os.path.lexists(source):  # a file, or something that is none (a named pipe, a link loop): said why
            jobs += _file_positions(path, rules)
        elif len(deal_codes(source)) < 52 and not _all_cards(deal_codes(source), min_cards=2):
            raise ValueError(f"{quote(source)} is neither a file nor a deal line of 52 cards")
        elif len(deal_codes(source)) < 52:  # card codes, too few: the deal's own error names the missing ones
            try:
                parse_deal(source)
            except DealParseError as exc:
                raise ValueError(f"the deal line given is {exc}") from None
        else:
            deal = parse_deal(source)
            label = "deal" if len(sources) == 1 else f"deal (argument {n})"
            jobs.append((label, GameState.from_deal(deal, rules), tuple(deal)))
    return jobs


def _all_cards(codes: list[str], min_cards: int) -> bool:
    """Whether ``codes`` are at least ``min_cards`` card codes, every one a card."""
    try:
        return len(codes) >= min_cards and all(Card.parse(c) for c in codes)
    except CardParseError:
        return False


_SOLVED_KINDS = ("journal", "game log")  # and deal files: what solve reads


def _file_positions(path: Path, rules) -> list[tuple[str, GameState, tuple]]:
    """The positions a deal file, game log or journal gives; errors name the file.

    Told apart by content, not by name: text that starts (after blanks) with ``{`` or ``[``
    is JSON, a journal; text whose second line is a move (or the result) is a game log;
    any other text is a file of deal lines."""
    try:
        text = read_text_file(path)
    except (OSError, NotTextError) as exc:
        raise ValueError(f"{path}: {describe_os_error(exc)}") from None
    lines = [
        (n, ln) for n, ln in enumerate(text.splitlines(), start=1) if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not lines:
        raise ValueError(f"{path}: holds no deal, position or game (only blank lines and # comments)")
    if text.lstrip()[:1] in ("{", "["):
        from .journal import Journal, JournalError

        try:
            tracker = Journal(path).parse(text)
        except JournalError as exc:
            raise ValueError(str(exc)) from None
        if tracker.state is None:
            raise ValueError(f"{path}: the journal holds no game")
        if tracker.rules != rules:  # the game was played under its own rules: said, as the coach says it
            print(
                f"note: {path}: the journal's game uses {tracker.rules.describe()}; it is solved with those "
                f"rules, not {rules.describe()}",
                file=sys.stderr,
            )
        return [(path.name, tracker.state, ())]
    try:
        if len(lines) > 1 and is_log_line(lines[1][1]):  # a game log: deal, then moves
            log, where = parse_log_lines(text)
            try:  # as strictly as check-log: one checker for both
                state = replay_log(log, where, rules)
            except IllegalMoveError as exc:
                raise ValueError(f"{path}: {exc}") from None
            return [(f"{path.name} after {len(log.moves)} moves", state, ())]
        if len(lines) > 1:
            n, second = lines[1]
            first = deal_codes(second)[0]
            try:
                Card.parse(first)
            except CardParseError:
                raise ValueError(
                    f"{path}: line {n}: {quote(second.strip())} is neither a move (as in a game log) "
                    f"nor a deal line of 52 cards{wrong_kind_hint(text, _SOLVED_KINDS)}"
                ) from None
        return [
            (f"{path.name} deal {i}", GameState.from_deal(d, rules), tuple(d))
            for i, d in enumerate(parse_deals(text), start=1)
        ]
    except (DealParseError, LogParseError) as exc:
        raise ValueError(f"{path}: {exc}{wrong_kind_hint(text, _SOLVED_KINDS)}") from None


def cmd_solve(args) -> int:
    """``solve``: solve deals, a game log's end position or a journal's position."""
    rules = rules_from_args(args)
    try:
        jobs = _positions(args, rules)
    except (ValueError, OSError, DealParseError, LogParseError) as exc:
        raise CommandError(str(exc)) from None
    time_limit = args.time_limit or None
    undecided = 0
    counts = {"won": 0, "lost": 0, "unknown": 0}
    for n, (label, state, deal) in enumerate(jobs, start=1):
        if not state.is_complete_knowledge():
            unknown = len(state.unseen_cards())
            with Ticker(label, "solve", limit_s=None):
                proof = _proof(state, args, time_limit) if unknown <= args.prove else None
            if proof is not None:
                counts[proof.status] += 1
                if unknown == 1:
                    print(
                        f"{label}: {proof.status}: only one card is unknown, so its place is known"
                        + (f"; first move: {proof.move.text}" if proof.move else ": every line was searched")
                    )
                elif proof.status == "won":
                    print(
                        f"{label}: won whatever the {unknown} unknown cards are: a line that chooses each move "
                        f"from the cards it has seen wins all {proof.layouts} ways they can lie; its first move: "
                        f"{proof.move.text}"
                    )
                else:
                    print(
                        f"{label}: lost whatever the {unknown} unknown cards are: each of the {proof.layouts} "
                        f"ways they can lie was searched and is lost"
                    )
                continue
            if args.samples <= 0 and unknown <= args.prove:
                print(
                    f"{label}: unknown: no proof that this position is won or lost whatever its {unknown} unknown "
                    f"cards are (some of their arrangements are won and some lost, the right move depends on "
                    f"cards not yet seen, or a limit was reached; pass --samples N to solve N random layouts)"
                )
                undecided += 1
                continue
            if args.samples <= 0:
                prove = (
                    f", --prove {unknown} to prove it won or lost whatever they are (every arrangement "
                    f"is searched: slower with more cards)"
                    if unknown <= MAX_PROVE
                    else ""
                )
                print(
                    f"{label}: {unknown} cards are unknown in this position; the solver needs every card "
                    f"(solve the deal{prove}, or pass --samples N to solve N random layouts of the unknown cards)"
                )
                undecided += 1
                continue
            _sampled(label, state, args, time_limit)
            continue
        with Ticker(label, "solve", limit_s=time_limit):
            result = solve(state, node_limit=args.node_limit, time_limit=time_limit, memory_mb=args.memory_mb)
        counts[result.status] += 1
        where = f"{result.nodes} position{'s' if result.nodes != 1 else ''}, {result.seconds:.2f} s"
        if result.status == "won":
            as_log = args.log and deal and state == GameState.from_deal(deal, rules)
            # with --log the summary is a comment line, so the output is a log check-log reads
            print(f"{'# ' if as_log else ''}{label}: won in {len(result.moves)} moves ({where})")
            if as_log:
                print(format_log(deal, result.moves, result="won"), end="")
            elif not args.quiet:
                print(" ".join(m.text for m in result.moves))
        elif result.status == "lost":
            print(f"{label}: lost: no line wins, every one was searched ({where})")
        else:
            undecided += 1
            print(f"{label}: unknown: a limit was reached before a decision ({where})")
        if len(jobs) > 1 and n % 10 == 0:
            print(
                f"[{n}/{len(jobs)}] won {counts['won']}, lost {counts['lost']}, unknown {counts['unknown']}",
                file=sys.stderr,
                flush=True,
            )
    if len(jobs) > 1:
        print(f"total of {len(jobs)}: won {counts['won']}, lost {counts['lost']}, unknown {counts['unknown']}")
    return 3 if undecided else 0


def _proof(state: GameState, args, time_limit):
    """The proven outcome of a position with few unknown cards (None: no proof)."""
    from ..core.proof import ProofSearch

    search = ProofSearch(
        max_unseen=args.prove, node_limit=args.node_limit or 200_000, max_solves=10**9, time_limit=time_limit
    )
    return search.prove(state)


def _sampled(label: str, state: GameState, args, time_limit) -> None:
    from ..core.best import sample_layout

    rng = random.Random(args.sample_seed)
    tally = {"won": 0, "lost": 0, "unknown": 0}
    for _ in range(args.samples):
        try:
            result = solve(
                sample_layout(state, rng), node_limit=args.node_limit, time_limit=time_limit, memory_mb=args.memory_mb
            )
        except SolverError as exc:
            print(f"{label}: {exc}")
            return
        tally[result.status] += 1
    print(
        f"{label}: of {args.samples} random layouts of the {len(state.unseen_cards())} unknown cards, "
        f"{tally['won']} are won, {tally['lost']} lost, {tally['unknown']} unknown"
    )
