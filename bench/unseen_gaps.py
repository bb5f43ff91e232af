"""Benchmark: the coach against moves it did not see and journals a few moves behind.

Plays games of deals seeds 0..N-1 on a virtual table through the snapshot coach
(``CoachSession``, the tracker and the advisor as the live coach uses them). A simulated
person follows the coach's advice when it is a legal move on the real table, and
otherwise plays what a coach that saw every move would advise (a second tracker fed
every table, without the ``stock:`` line since 2026-11-27: it has seen every stock turn,
so needs none; where it asks to check something, the person plays the first of its moves
the table allows). Now and then the person plays 1 to 6 moves unseen before the next read
(each a stock turn with even chance, stock turns and redeals being what people flick
through fast), and now and then the coach is restarted from its journal as it was 1 to
6 moves before (a journal that was not saved, or a coach stopped while the person
played on; the coach journals every accepted read, sure of the position or not, and so
does this benchmark since 2026-11-27: before, only the reads advised as if sure were
kept as journals to restart from). Where the coach asks the person to check something (advice status
``check``), the person looks and plays the one of its moves the table allows; where it
says it cannot follow, the person keeps the table still for one more read (the way out
it offers) and then plays on; with ``--join-when-lost`` it takes the other way out instead
when the coach says it cannot follow: it joins the table as it is (the live window's J),
the table read for that with its runs and face-down counts. Snapshots say whether a stock pile is there
(``stock: pile|empty``) unless ``--no-stock``.

It counts, over all reads:

* advice illegal on the real table (a move the table does not allow);
* positions silently wrong (a won game said won is not counted: the redeals it used no
  longer matter): the read was accepted and the real position is in none of
  the explanations the coach holds open (those it keeps, and those it dropped for its
  cap and follows aside, ``TableTracker.doubted``: its advice must hold in them too, or
  say it is not sure), yet it advised as if sure (neither said it
  cannot follow, nor asked the person to check something, nor said it is not sure of
  the position); reads where only the likeliest explanation differs from the table, the
  real one still open, are not silently wrong (the advice is legal in every open one, or
  says what to check) and are counted apart;
* unsure and said: reads the coach refused (``that is not a legal continuation``),
  answered with a check for the person (advice status ``check``), or advised with the
  words that it is not sure of the position (``Advice.unsure``: its position is a guess
  among many explanations of moves it did not see, or its advice does not hold in one
  it dropped for its cap); of these, how many were advised "not sure" while the real
  position was among the open explanations (said although, had the coach known it, it
  need not have been);
* the reads where the real position was open only among the explanations dropped for
  the cap and followed aside;
* the reads that lost the real position from the open explanations, by cause (the
  unseen-move pattern and where the search dropped it; ``--verbose`` prints each);

and per game: how many ended in sync with the table, and how many ended as the same
deal ends with every move seen (won or not won alike, the same cards on the
foundations).

Each game's gaps and restarts come from a random stream of its own, seeded from ``--seed``
and the deal's seed: a game plays alike whichever games ran before it (since 2026-11-27;
before, one stream ran through all the games, so figures from before are not comparable
game for game).

A long run can be recorded, stopped, resumed and split: ``--record FILE`` appends one JSON
line per finished game (its deal, counts, how it ended, the options, the git commit and an
id of the code that decides the results); a run on the same FILE plays only the deals it
does not hold and prints the totals of all the deals asked for. A FILE whose games were
played with other options is refused; one played by other code (``src/solitaire_coach/core``,
``app`` or this script changed) too, unless ``--any-code``. ``--summary FILE`` prints the
totals of a record file.

Run:  .venv/bin/python bench/unseen_gaps.py [--games 1000] [--first 0] [--seed 1] [--strategy baseline]
          [--gap-rate 0.08] [--restart-rate 0.03] [--max-moves 300] [--no-stock] [--verbose]
          [--runs] [--join-when-lost] [--record FILE [--any-code]] [--progress 5]
      .venv/bin/python bench/unseen_gaps.py --summary FILE
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

# the options that decide a game's results: a record file holds games of one set of them
OPTION_KEYS = ("strategy", "seed", "gap_rate", "restart_rate", "max_moves", "stock", "stock_hint", "stock_misread")
# options a record line holds only when set (the records made before them stay valid)
SET_ONLY_KEYS = ("runs", "join_when_lost")
# the code that decides a game's results: a record's games count together only where it is the same
CODE_PATHS = ("src/solitaire_coach/core", "src/solitaire_coach/app", "bench/unseen_gaps.py")
ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games to play, deals seeds 0..N-1 (default 1000)")
    ap.add_argument("--first", type=int, default=0, help="the first deal's seed (default 0: deals 0..N-1)")
    ap.add_argument("--seed", type=int, default=1, help="random seed of the gaps and restarts (default 1)")
    ap.add_argument("--strategy", default="baseline", help="the advisor: baseline or best (default baseline)")
    ap.add_argument("--gap-rate", type=float, default=0.08, help="chance a read follows 1-6 unseen moves (0.08)")
    ap.add_argument(
        "--restart-rate",
        type=float,
        default=0.03,
        help="chance a read comes after a restart from a journal 1-6 moves behind (0.03)",
    )
    ap.add_argument("--max-moves", type=int, default=300, help="moves per game at most (default 300)")
    ap.add_argument(
        "--stock",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="snapshots say whether a stock pile is there (stock: pile|empty; default on)",
    )
    ap.add_argument(
        "--stock-hint",
        action="store_true",
        help="give the stock reading as a camera's hint (CoachSession.process_text stock_hint) "
        "instead of a stock: line",
    )
    ap.add_argument(
        "--stock-misread",
        type=float,
        default=0.0,
        help="chance that a stock reading is wrong (pile read empty or empty read as a pile; default 0)",
    )
    ap.add_argument(
        "--runs",
        action="store_true",
        help="snapshots carry each column's face-up run under its top (runs: lines), as the camera reads "
        "the strips of fanned columns where it can (default: the tops alone)",
    )
    ap.add_argument(
        "--join-when-lost",
        action="store_true",
        help="where the coach says it cannot follow, the person takes the way out it offers and joins "
        "the table as it is (J in the live window: CoachSession.join_next), the table read for the "
        "join with its runs and face-down counts, as the camera reads them (default: the person "
        "keeps the table still for one more read, then plays on)",
    )
    ap.add_argument(
        "--join-when-unsure",
        type=int,
        default=0,
        metavar="K",
        help="the person also presses J after K reads in a row advised 'not sure of the position' "
        "(CoachSession.join_next: while the position is a guess the next read is joined as it is), the "
        "table read with its runs and face-down counts (default 0: never)",
    )
    ap.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="append one JSON line per finished game to FILE; deals FILE already holds (same options) are "
        "not played again but counted in the totals: a long run can be stopped, resumed and split",
    )
    ap.add_argument(
        "--any-code",
        action="store_true",
        help="with --record: add to a FILE whose games were played by other code (src/solitaire_coach/core, "
        "app or this script changed) instead of refusing it",
    )
    ap.add_argument("--summary", type=Path, metavar="FILE", help="only print the totals of a --record FILE")
    ap.add_argument("--progress", type=int, default=5, help="print progress every N games (default 5)")
    ap.add_argument("--verbose", action="store_true", help="print each silently wrong read and illegal advice")
    ap.add_argument("--trace", action="store_true", help="print what the coach said at each read")
    args = ap.parse_args(argv)

    if args.summary is not None:
        try:
            lines = load_record(args.summary)
        except RecordError as exc:
            print(f"unseen_gaps: {exc}", file=sys.stderr)
            return 2
        if not lines:
            print(f"unseen_gaps: {args.summary} holds no games", file=sys.stderr)
            return 2
        options = lines[0]["options"]
        mixed = sorted({line["options"] == options for line in lines})
        if mixed != [True]:
            print(f"unseen_gaps: {args.summary} holds games played with different options", file=sys.stderr)
            return 2
        totals = collections.Counter()
        for line in lines:
            add_game(totals, line)
        report(totals, options, sorted(line["deal"] for line in lines), totals["seconds"])
        codes = collections.Counter((line["code"], line["commit"][:10]) for line in lines)
        for (code, commit), n in sorted(codes.items(), key=lambda kv: -kv[1]):
            print(f"  {n} games by code {code} (commit {commit})")
        return 0

    from solitaire_coach.app.simulate import play_game
    from solitaire_coach.core import deal_for_seed
    from solitaire_coach.core.advisor import make_strategy
    from solitaire_coach.core.virtual_table import VirtualTable

    options = bench_options(args)
    commit, code = code_identity()
    done: dict[int, dict] = {}
    if args.record is not None:
        try:
            done = recorded_games(args.record, options, code, args.any_code)
        except RecordError as exc:
            print(f"unseen_gaps: {exc}", file=sys.stderr)
            return 2
    deals = range(args.first, args.first + args.games)
    todo = [seed for seed in deals if seed not in done]
    totals = collections.Counter()
    for seed in deals:
        if seed in done:
            add_game(totals, done[seed])
    if done and todo:
        print(f"  {args.games - len(todo)} of the {args.games} games from {args.record}", file=sys.stderr, flush=True)
    t0 = time.time()
    for count, seed in enumerate(todo, 1):
        started, cpu = time.time(), time.process_time()
        deal = deal_for_seed(seed)
        reference_end = play_game(deal, args.strategy, check_sync=False, max_moves=args.max_moves)
        ref_table = VirtualTable.from_deal(deal)
        for move in reference_end.moves:
            ref_table.perform(move)
        # each game's gaps and restarts come from a stream of its own: a game's results do not
        # depend on which games were played before it (resumed and split runs play it alike)
        rng = random.Random(f"{args.seed}/{seed}")
        result = play_one(deal, args, rng, make_strategy)
        won_ref = ref_table.state.is_won()
        line = {
            "deal": seed,
            "counts": dict(result["counts"]),
            "in sync": result["in sync"],
            "won": result["won"],
            "foundations": list(result["foundations"]),
            "won with every move seen": won_ref,
            "foundations with every move seen": list(ref_table.state.foundations),
            "seconds": round(time.time() - started, 2),
            "cpu seconds": round(time.process_time() - cpu, 2),
            "options": options,
            "commit": commit,
            "code": code,
        }
        add_game(totals, line)
        if args.record is not None:
            append_record(args.record, line)
        if args.progress and (count % args.progress == 0 or count == len(todo)):
            spent = time.time() - t0
            left = spent / count * (len(todo) - count)
            print(
                f"  {count}/{len(todo)} games played ({args.games - len(todo) + count}/{args.games} done), "
                f"{spent:.0f} s, {spent / count:.1f} s a game, about {left / 60:.0f} min left",
                file=sys.stderr,
                flush=True,
            )
    report(totals, options, list(deals), totals["seconds"])
    if todo and done:
        print(f"  (this run played {len(todo)} games in {time.time() - t0:.0f} s)")
    return 0


class RecordError(Exception):
    """A record file that cannot be read or added to; the message says where and why."""


def bench_options(args) -> dict:
    """The options that decide a game's results, as a record line holds them."""
    options = {key: getattr(args, key) for key in OPTION_KEYS}
    options.update({key: True for key in SET_ONLY_KEYS if getattr(args, key, False)})
    if getattr(args, "join_when_unsure", 0):  # (kept out when 0: the records from before match)
        options["join_when_unsure"] = args.join_when_unsure
    return options


def code_identity() -> tuple[str, str]:
    """The git commit checked out and an id of the code that decides a game's results: the
    git trees of ``CODE_PATHS`` at that commit and any uncommitted change to them."""
    import hashlib
    import subprocess

    def git(*cmd: str) -> str:
        try:
            done = subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD").strip() or "unknown"
    trees = git("rev-parse", *(f"HEAD:{path}" for path in CODE_PATHS))
    if not trees:
        return commit, "unknown"
    digest = hashlib.sha1(trees.encode())
    diff = git("diff", "HEAD", "--", *CODE_PATHS)
    digest.update(diff.encode())
    return commit, digest.hexdigest()[:12] + ("+dirty" if diff else "")


def load_record(path: Path) -> list[dict]:
    """The games in a record file, one dict a line; a line that is not a game (a run killed
    mid-write) is left out with a warning; a deal played twice counts once (the first)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    lines: list[dict] = []
    seen: set[int] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            if not isinstance(line, dict) or not isinstance(line.get("deal"), int):
                raise ValueError("not a game")
            for key in ("counts", "options", "code", "commit"):
                if key not in line:
                    raise ValueError(f"no {key!r}")
        except ValueError as exc:
            print(f"unseen_gaps: {path} line {number} left out, not a game's record: {exc}", file=sys.stderr)
            continue
        if line["deal"] in seen:
            print(f"unseen_gaps: {path} line {number}: deal {line['deal']} again, left out", file=sys.stderr)
            continue
        seen.add(line["deal"])
        line["line"] = number
        lines.append(line)
    return lines


def recorded_games(path: Path, options: dict, code: str, any_code: bool) -> dict[int, dict]:
    """The games of ``path`` by deal, once checked that they were played with ``options``
    (and by ``code`` unless ``any_code``); raises RecordError where not."""
    games: dict[int, dict] = {}
    for line in load_record(path):
        if line["options"] != options:
            differ = ", ".join(
                f"{key} {line['options'].get(key)!r} there, {options.get(key)!r} here"
                for key in sorted(set(options) | set(line["options"]))
                if line["options"].get(key) != options.get(key)
            )
            raise RecordError(
                f"{path} line {line['line']} (deal {line['deal']}) was played with other options ({differ}): "
                f"its games do not add up with this run's; use another file or the same options"
            )
        if line["code"] != code and not any_code:
            raise RecordError(
                f"{path} line {line['line']} (deal {line['deal']}) was played by other code ({line['code']} at "
                f"commit {line['commit'][:10]}; this is {code}, {CODE_PATHS} differ): its games may end "
                f"otherwise; use another file, or --any-code to add to it anyway"
            )
        games[line["deal"]] = line
    return games


def append_record(path: Path, line: dict) -> None:
    """Appends one game's line to the record file (after a newline where a killed run left
    a line unfinished)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as out:
        out.seek(0, 2)
        if out.tell():
            out.seek(-1, 2)
            if out.read(1) != b"\n":
                out.write(b"\n")
        out.write((json.dumps(line, sort_keys=True) + "\n").encode())
        out.flush()


def add_game(totals: collections.Counter, line: dict) -> None:
    """Adds one game's record line into the totals."""
    counts = line["counts"]
    totals.update(counts)
    totals["games"] += 1
    totals["seconds"] += line.get("seconds", 0)
    if "cpu seconds" in line:  # (not in the lines of the first version)
        totals["cpu seconds"] += line["cpu seconds"]
        totals["games timed on the CPU"] += 1
    totals["games in sync at the end"] += line["in sync"]
    same = line["won"] == line["won with every move seen"] and sum(line["foundations"]) == sum(
        line["foundations with every move seen"]
    )
    totals["games ending as with every move seen"] += same
    totals["games won"] += line["won"]
    totals["games won with every move seen"] += line["won with every move seen"]
    for key in ("illegal advice", "silently wrong"):
        totals[f"games with {key}"] += bool(counts.get(key))


def play_one(deal, args, rng: random.Random, make_strategy) -> dict:
    """One game with unseen gaps and restarts; the counts and how it ended."""
    from solitaire_coach.app.coach import CoachSession
    from solitaire_coach.app.journal import Journal
    from solitaire_coach.core.rules import DEFAULT_RULES
    from solitaire_coach.core.virtual_table import VirtualTable, check_in_sync, in_sync

    counts = collections.Counter()
    table = VirtualTable.from_deal(deal)
    # the stock misreads draw from a stream of their own: the gaps and restarts stay the same
    flip = random.Random(f"{args.seed}-{' '.join(c.code for c in deal)}")
    said: list[str] = []
    strategy = make_strategy(args.strategy)
    session = CoachSession(DEFAULT_RULES, strategy, None, say=said.append)
    reference = CoachSession(DEFAULT_RULES, make_strategy(args.strategy), None, say=lambda _: None)
    saved: list[dict] = []  # the coach's tracker after each read, newest last: the journals
    shown: list = [None]  # the advice the coach printed after the last read (None: none)

    def resumed(tracker: dict):
        """A coach started on a journal that holds ``tracker``, as a restart finds it."""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "journal.json"
            path.write_text(json.dumps({"version": 1, "tracker": tracker}))
            coach = CoachSession(DEFAULT_RULES, make_strategy(args.strategy), Journal(path), say=said.append)
        coach.journal = None  # (saving each read is not what is measured)
        if coach.tracker.state is None:
            counts["journals refused"] += 1
            print(f"journal refused: {said}", file=sys.stderr)
        return coach

    def read(join: bool = False, joined_key: str = "joined where lost") -> bool:
        # ``join``: the person asked to join the table as it is; the camera's read of the
        # table (its runs, its face-down counts) goes with it, as the live coach passes them
        snap = table.snapshot(with_stock=args.stock, with_runs=args.runs or join)
        down = tuple(len(pile) for pile in table.state.hidden) if join else None
        reference.process_text(table.snapshot().text())
        said.clear()
        seen = snap
        if snap.stock is not None and args.stock_misread and flip.random() < args.stock_misread:
            seen = replace(snap, stock=not snap.stock)  # the pile misread
            counts["stock misread"] += 1
        if args.stock_hint:
            report = session.process_text(replace(seen, stock=None).text(), stock_hint=seen.stock, down_hint=down)
        else:
            report = session.process_text(seen.text(), down_hint=down)
        if join and report is not None and report.kind == "started":
            counts[joined_key] += 1
            saved.clear()  # (the lost game's journal is set aside: a restart finds the joined one)
        counts["reads"] += 1
        if report is not None and report.accepted and session.tracker.state is not None:
            now_open = any(in_sync(state, table.state) for state in open_positions(session.tracker))
            if track["open"] and not now_open:
                why = lost_why(
                    session.tracker, table.state, table_moves[track["since"] :], track["restarted"], track["aside"]
                )
                counts["lost: " + why] += 1
                if args.verbose:
                    gap = " ".join(m.text for m in table_moves[track["since"] :])
                    print(f"lost, move {len(table_moves)} ({why}): played {gap}; said {said}", file=sys.stderr)
            aside = now_open and not any(in_sync(state, table.state) for state in session.tracker.explanations)
            track.update(open=now_open, since=len(table_moves), restarted=False, aside=aside)
            counts["the real position followed aside only"] += aside
        if args.trace:
            print(f"read {counts['reads']} at move {len(table_moves)}: {said}", file=sys.stderr)
        advice = session.last_advice
        unsure = (
            report is None
            or not report.accepted
            or (advice is not None and (advice.status == "check" or getattr(advice, "unsure", False)))
        )
        shown[0] = advice if report is not None and report.accepted else None
        if report is not None and report.accepted and session.tracker.state is not None:
            # the coach journals every accepted read, sure or not (a restart resumes it)
            saved.append((session.tracker.to_dict(), len(table_moves)))
            del saved[:-7]
        not_sure = report is not None and report.accepted and advice is not None and getattr(advice, "unsure", False)
        track["not sure in a row"] = track["not sure in a row"] + 1 if not_sure else 0
        if unsure:
            counts["unsure and said"] += 1
            if not_sure:
                counts["not sure of the position"] += 1
                real_open = any(in_sync(state, table.state) for state in open_positions(session.tracker))
                if real_open:
                    counts["not sure, the real position open"] += 1
                if len({_advice_key(state) for state in open_positions(session.tracker)}) == 1:
                    # a rule "sure again where every open explanation agrees on what the advice
                    # rests on" would have said these sure: how many of them wrongly
                    counts["not sure, all open agree"] += 1
                    counts["not sure, all open agree, the real position not open"] += not real_open
            return report is not None and report.accepted
        if session.tracker.state is None:
            return False
        if table.state.is_won() and session.tracker.state.is_won():
            return True  # (a won game has nothing left to be wrong about, the redeals used aside)
        try:
            check_in_sync(session.tracker.state, table.state)
        except AssertionError as exc:
            counts["likeliest differs"] += 1
            if not any(in_sync(state, table.state) for state in open_positions(session.tracker)):
                counts["silently wrong"] += 1
                if args.verbose:
                    print(f"silently wrong, move {len(table_moves)}: {exc}; said {said}", file=sys.stderr)
        if advice is not None and advice.status == "move" and not table.state.is_legal(advice.move):
            counts["illegal advice"] += 1
            if args.verbose:
                print(f"illegal advice, move {len(table_moves)}: {advice.line()}", file=sys.stderr)
        return True

    def person_move(unseen: bool):
        """What the person plays: a stock turn (unseen, by chance), the coach's advice when
        legal, else what a coach that saw everything advises."""
        moves = table.state.legal_moves()
        turns = [m for m in moves if m.kind.name in ("DRAW", "REDEAL")]
        if unseen and turns and rng.random() < 0.5:
            return turns[0]
        advice = shown[0]
        if not unseen and advice is not None and advice.status == "check":
            for move in advice.moves:  # the person looks, as asked, and does what the table allows
                if table.state.is_legal(move):
                    return move
        if not unseen and advice is not None and advice.status == "move" and table.state.is_legal(advice.move):
            return advice.move
        ref = reference.last_advice
        if ref is not None and ref.status == "move" and table.state.is_legal(ref.move):
            return ref.move
        if ref is not None and ref.status == "check":
            for move in ref.moves:
                if table.state.is_legal(move):
                    return move
        return None

    table_moves: list = []
    # whether the real position was open at the last accepted read, the moves played since,
    # and whether the coach was restarted since: to find the read that lost it, and why
    track = {"open": True, "since": 0, "restarted": False, "aside": False, "not sure in a row": 0}
    read()
    refused = 0
    while len(table_moves) < args.max_moves and not table.state.is_won():
        if refused == 1:
            if args.join_when_lost and any(line.startswith("I cannot follow this game any more") for line in said):
                # the coach said it cannot follow: the person joins the table as it is
                session.join_next()
                refused = 0 if read(join=True) else 2
                continue
            # the coach refused the table: the person holds it still for one more read (the
            # way out it offers: the longer search for moves it did not see)
            refused = 0 if read() else 2
            continue
        if args.join_when_unsure and track["not sure in a row"] >= args.join_when_unsure:
            # the person tires of "not sure" and asks the coach to take the table as it is
            session.join_next()
            track["not sure in a row"] = 0
            refused = 0 if read(join=True, joined_key="joined when not sure") else 1
            continue
        if rng.random() < args.restart_rate and len(saved) > 1:
            back = rng.randint(1, min(6, len(saved) - 1))
            journal, at = saved[-1 - back]
            session = resumed(journal)
            track.update(restarted=True, since=at)
            shown[0] = None
            counts["restarts"] += 1
            del saved[-back:]
            refused = 0 if read() else 1
            continue
        gap = rng.randint(1, 6) if rng.random() < args.gap_rate else 0
        stop = False
        for k in range(gap + 1):
            move = person_move(unseen=k < gap)
            if move is None:
                stop = True
                break
            table.perform(move)
            table_moves.append(move)
            if k < gap:
                counts["moves unseen"] += 1
                if args.trace:
                    print(f"  unseen: {move.text}", file=sys.stderr)
                reference.process_text(table.snapshot().text())
        if gap:
            counts["gaps"] += 1
        refused = 0 if read() else 1
        if stop:
            break
    synced = session.tracker.state is not None and in_sync(session.tracker.state, table.state)
    return {"counts": counts, "in sync": synced, "won": table.state.is_won(), "foundations": table.state.foundations}


def lost_why(tracker, truth, played, restarted: bool, aside: bool = False) -> str:
    """Why the read just accepted lost the real position from the open explanations."""
    from solitaire_coach.core.virtual_table import in_sync

    notes = getattr(tracker, "last_search", None)
    where = "after a restart, " if restarted else ""
    if aside:
        return where + "followed aside (dropped for the cap), then dropped"
    if notes is None:
        return where + "taken back as an undo"
    if notes.deep:
        return where + "the longer search picked one explanation"
    found = list(notes.found)
    for index, hyp in enumerate(found):
        if in_sync(hyp.state, truth):
            if hyp.misread:
                return where + "held as a misread"
            if index >= len(found) - notes.over_margin:
                return where + "pruned: over the margin"
            if index >= len(found) - notes.over_margin - notes.over_cap:
                return where + "pruned: over the cap"
            return where + "kept, then dropped"
    steps = sum(
        1
        for i, m in enumerate(played)
        if m.kind.name not in ("DRAW", "REDEAL") or i == 0 or played[i - 1].kind.name not in ("DRAW", "REDEAL")
    )
    if restarted:
        return where + "not found (the journal's moves not known)"
    if steps > tracker.max_steps:
        return f"not found: the gap takes {steps} steps, more than the {tracker.max_steps} searched"
    if notes.cut_short:
        return "not found: the node budget ran out"
    return "not found: a shorter explanation came first"


def _advice_key(state) -> tuple:
    """What the advice rests on in ``state``: the columns, the foundations, whether the
    stock is empty, the waste's top and the redeals used."""
    return (state.faceup, state.hidden, state.foundations, bool(state.stock), state.waste[-1:], state.redeals_used)


def open_positions(tracker) -> list:
    """Every position the tracker still holds possible (its likeliest first): the
    explanations it keeps, and those dropped for the cap that it follows on the side
    (``doubted``: it says it is not sure while one of them differs in what the advice
    rests on)."""
    positions = getattr(tracker, "explanations", None)
    if positions is None:  # (the tracker before it said so: its hypotheses)
        positions = [h.state for h in tracker._hypotheses if not h.misread]
    return list(positions) + list(getattr(tracker, "doubted", ()))


def report(t: collections.Counter, options: dict, deals: list[int], seconds: float) -> None:
    """Prints the totals of the games ``deals`` played with ``options``."""
    args = argparse.Namespace(**options)
    games = t["games"] or 1
    print(
        f"unseen gaps: {t['games']} games (deals {deal_span(deals)}, {args.strategy}, "
        f"seed {args.seed}, "
        f"gap rate {args.gap_rate}, restart rate {args.restart_rate}, at most {args.max_moves} moves, "
        f"stock {('read, a hint' if args.stock_hint else 'read, a stock: line') if args.stock else 'not read'}"
        + (f", misread with chance {args.stock_misread}: {t['stock misread']} times" if args.stock_misread else "")
        + (", the runs under the tops read" if getattr(args, "runs", False) else "")
        + (", joined where lost" if getattr(args, "join_when_lost", False) else "")
        + (
            f", J pressed after {args.join_when_unsure} reads 'not sure' in a row"
            if getattr(args, "join_when_unsure", 0)
            else ""
        )
        + ")"
    )
    print(
        f"  reads {t['reads']}, gaps {t['gaps']} ({t['moves unseen']} moves unseen), restarts {t['restarts']}"
        + (f", joined where lost {t['joined where lost']}" if getattr(args, "join_when_lost", False) else "")
        + (f", joined when not sure {t['joined when not sure']}" if getattr(args, "join_when_unsure", 0) else "")
    )
    print(f"  advice illegal on the real table: {t['illegal advice']} (in {t['games with illegal advice']} games)")
    print(
        f"  positions silently wrong (the real one in no open explanation, advice given as if sure): "
        f"{t['silently wrong']} (in {t['games with silently wrong']} games)"
    )
    print(
        f"  the likeliest explanation differs from the table (the real one still open): "
        f"{t['likeliest differs'] - t['silently wrong']}"
    )
    print(f"  unsure and said: {t['unsure and said']}; journals refused on a restart: {t['journals refused']}")
    print(
        f"    of them advised 'not sure of the position': {t['not sure of the position']} "
        f"(the real position among the open explanations: {t['not sure, the real position open']}; every open "
        f"explanation alike in what the advice rests on: {t['not sure, all open agree']}, of them the real "
        f"position not open: {t['not sure, all open agree, the real position not open']})"
    )
    print(
        f"  games in sync at the end: {t['games in sync at the end']} ({100 * t['games in sync at the end'] / games:.1f}%)"
    )
    print(
        f"  games ending as with every move seen: {t['games ending as with every move seen']} "
        f"({100 * t['games ending as with every move seen'] / games:.1f}%); won {t['games won']} "
        f"(every move seen: {t['games won with every move seen']})"
    )
    print(
        f"  reads where the real position was only among those dropped for the cap and followed aside: "
        f"{t['the real position followed aside only']}"
    )
    lost = sorted((k, v) for k, v in t.items() if k.startswith("lost: "))
    if lost:
        print("  reads that lost the real position from the open explanations, by cause:")
        for key, value in lost:
            print(f"    {key[6:]}: {value}")
    print(
        f"  {seconds:.0f} s of play ({seconds / games:.1f} s a game; CPU "
        f"{t['cpu seconds'] / max(1, t['games timed on the CPU']):.1f} s a game over {t['games timed on the CPU']} "
        f"games timed so, the rest of the time waiting for a core on a busy machine)"
    )


def deal_span(deals: list[int]) -> str:
    """The deals' seeds as ranges: ``0..9, 12, 20..29``."""
    spans: list[list[int]] = []
    for seed in sorted(deals):
        if spans and seed == spans[-1][1] + 1:
            spans[-1][1] = seed
        else:
            spans.append([seed, seed])
    return ", ".join(f"{a}..{b}" if b > a else str(a) for a, b in spans) or "none"


if __name__ == "__main__":
    sys.exit(main())
