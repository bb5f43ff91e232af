"""Whole games on the virtual table, through the same tracker and advisor as the live coach."""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..core.advisor import Strategy, make_strategy
from ..core.cards import Card
from ..core.moves import Move, MoveKind
from ..core.notation import format_log
from ..core.rules import DEFAULT_RULES, Rules
from ..core.state import GameState
from ..core.tracker import TableTracker
from ..core.virtual_table import OutOfSyncError, VirtualTable, check_in_sync
from ..storage import write_atomic


@dataclass
class GameRecord:
    """The outcome of one simulated game."""

    deal: tuple[Card, ...]
    moves: list[Move] = field(default_factory=list)
    cards: list[Card | None] = field(default_factory=list)
    result: str = "lost"
    seconds: float = 0.0
    think_ms: list[float] = field(default_factory=list)
    label: str = ""
    proven_at: int | None = None  # moves played when the advisor first said the outcome was certain
    states: list = field(default_factory=list)  # with keep_states: the true position at each advice
    advice: list = field(default_factory=list)  # with keep_states: each advice given
    stats: list = field(default_factory=list)  # with keep_states: the strategy's last_stats at each advice

    def log_text(self) -> str:
        """The game in the game-log format."""
        return format_log(self.deal, self.moves, self.cards, self.result)


def play_game(
    deal: Sequence[Card],
    strategy: str | Strategy = "baseline",
    rules: Rules = DEFAULT_RULES,
    max_moves: int = 1500,
    check_sync: bool = True,
    strategy_options: dict | None = None,
    label: str = "",
    keep_states: bool = False,
    view: Callable[[GameState, GameState], GameState] | None = None,
) -> GameRecord:
    """Play ``deal`` on a virtual table: advice from the tracker's knowledge only, the
    advised move done on the true layout, the camera's snapshot fed back to the tracker.
    ``strategy`` is a strategy's name (built with ``strategy_options``) or a ready-made
    one. With ``keep_states`` the record also keeps every true position, every advice and
    the strategy's ``last_stats`` (if it has them) for each. ``view`` is for diagnostics
    only (``bench/strength.py --peek``): it makes what the strategy is shown from the
    tracker's state and the true one, say with the stock's unseen cards filled in; the
    product never passes it."""
    if isinstance(strategy, str):
        strategy = make_strategy(strategy, **(strategy_options or {}))
    elif strategy_options:
        raise ValueError("strategy_options are for a strategy given by name, not a ready-made one")
    table = VirtualTable.from_deal(deal, rules)
    tracker = TableTracker(rules)
    record = GameRecord(tuple(deal), label=label)
    start = time.perf_counter()
    report = tracker.update(table.snapshot())
    if report.kind != "started":
        raise OutOfSyncError(f"the tracker did not start the game: {report.message}")
    for _ in range(max_moves):
        t0 = time.perf_counter()
        shown = tracker.state if view is None else view(tracker.state, table.state)
        advice = strategy.advise(shown, tracker.history)
        record.think_ms.append((time.perf_counter() - t0) * 1000)
        if keep_states:
            record.states.append(table.state)
            record.advice.append(advice)
            record.stats.append(dict(getattr(strategy, "last_stats", {})))
        if advice.proven and record.proven_at is None:
            record.proven_at = len(record.moves)
        if advice.status == "won":
            record.result = "won"
            break
        if advice.status != "move":
            break
        cards = table.perform(advice.move)
        record.moves.append(advice.move)
        record.cards.append(cards[0] if cards else None)
        report = tracker.update(table.snapshot())
        if report.kind != "moves":
            raise OutOfSyncError(f"after {advice.move.text} the tracker reported {report.kind}: {report.message}")
        if check_sync:
            check_in_sync(tracker.state, table.state)
    if table.state.is_won():
        record.result = "won"
    record.seconds = time.perf_counter() - start
    return record


def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _play_job(job):
    deal, strategy, rules, options, label = job
    return play_game(deal, strategy, rules, strategy_options=options, label=label)


def run_games(
    deals: Iterable[tuple[str, Sequence[Card]]],
    strategy_name: str,
    rules: Rules,
    workers: int = 1,
    strategy_options: dict | None = None,
):
    """Yield GameRecords (in deal order) for labelled deals, over ``workers`` processes."""
    jobs = [(tuple(deal), strategy_name, rules, strategy_options or {}, label) for label, deal in deals]
    if workers <= 1:
        for job in jobs:
            yield _play_job(job)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_play_job, jobs, chunksize=4)


def certainty(games: Iterable[tuple[str, int, int | None]]) -> dict:
    """How early the advisor was sure of the outcome, from ``(result, moves, proven_at)`` of
    each game: for won games, the median of how many moves before the end it first said the
    game was won (0: only when it was) and how many it said so before their last move; for lost
    games, how many ended on a proof (rather than on "no move makes progress")."""
    won, lost, proven_lost = [], 0, 0
    for result, moves, proven_at in games:
        if result == "won":
            if proven_at is not None:
                won.append(moves - proven_at)
        else:
            lost += 1
            proven_lost += proven_at is not None
    return {
        "won_said_early_median": statistics.median(won) if won else None,
        "won_said_before_last": sum(a > 0 for a in won),
        "won_with_proof": len(won),
        "lost": lost,
        "lost_proven": proven_lost,
    }


def certainty_text(c: dict) -> str:
    """``certainty`` in one line."""
    parts = []
    if c["won_with_proof"]:
        parts.append(
            f"won games said won a median {c['won_said_early_median']:g} moves before the end "
            f"({c['won_said_before_last']} of {c['won_with_proof']} before their last move)"
        )
    if c["lost"]:
        parts.append(f"{c['lost_proven']} of {c['lost']} lost games ended on a proof")
    return "outcome certain: " + ("; ".join(parts) or "no game")


def percentile(values: Iterable[float], q: float) -> float:
    """The value that a share ``q`` (0..1) of ``values`` lies below (nearest rank); 0.0 for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def summarize(records: list[GameRecord]) -> dict:
    """Win count, win rate with its 95% interval, timings and how certain the outcomes are,
    over ``records``."""
    n = len(records)
    wins = sum(r.result == "won" for r in records)
    lo, hi = wilson_interval(wins, n)
    think = [t for r in records for t in r.think_ms]
    per_move = [r.seconds * 1000 / max(1, len(r.moves)) for r in records]
    return {
        "games": n,
        "wins": wins,
        "win_rate": wins / n if n else 0.0,
        "ci95": [lo, hi],
        "median_ms_per_move": statistics.median(per_move) if per_move else 0.0,
        "median_think_ms": statistics.median(think) if think else 0.0,
        "p99_think_ms": percentile(think, 0.99),
        "certainty": certainty((r.result, len(r.moves), r.proven_at) for r in records),
    }


def write_log(directory: str | os.PathLike, record: GameRecord) -> Path:
    """Write ``record``'s game log to ``directory/LABEL.log``; its path."""
    path = Path(directory) / f"{record.label}.log"
    write_atomic(path, record.log_text())
    return path


# joining a game in progress: what not having followed from the deal costs ------------------


@dataclass
class JoinPair:
    """One deal played on from the same position after ``warmup_moves`` moves, twice: by
    an advisor whose tracker ``followed`` the game from the deal (it knows every card it
    saw turned), and by one that ``joined`` there with everything not visible forgotten.
    ``unseen_followed`` and ``unseen_joined``: the cards each did not know at that point."""

    label: str
    warmup_moves: int
    followed: str
    joined: str
    unseen_followed: int
    unseen_joined: int
    splits: int  # the stock/waste splits the join kept open
    redeals_used: int = 0  # redeals made before the join


def _play_on(table: VirtualTable, tracker: TableTracker, strategy: Strategy, max_moves: int) -> str:
    """Play the game on ``table`` to its end with advice from ``tracker``'s knowledge; 'won'
    or 'lost'. A joined tracker may hold a wrong stock/waste split for a while: advised to
    turn a stock card when the stock is empty, the person turns the waste over instead
    (and the other way round), as the table allows; the tracker then learns the split."""
    for _ in range(max_moves):
        advice = strategy.advise(tracker.state, tracker.history)
        if advice.status != "move":
            break
        move = advice.move
        if not table.state.is_legal(move) and move.kind in (MoveKind.DRAW, MoveKind.REDEAL):
            move = Move.redeal() if move.kind is MoveKind.DRAW else Move.draw()
            if not table.state.is_legal(move):
                break
        table.perform(move)
        report = tracker.update(table.snapshot(), prefer=advice.move)
        if not report.accepted:
            raise OutOfSyncError(f"after {move.text} the tracker reported {report.kind}: {report.message}")
    return "won" if table.state.is_won() else "lost"


def play_from_join(
    deal: Sequence[Card],
    strategy: str = "baseline",
    rules: Rules = DEFAULT_RULES,
    after: int = 30,
    warmup: str = "baseline",
    seed: int = 0,
    label: str = "",
    strategy_options: dict | None = None,
    max_moves: int = 1500,
    redeals_known: bool = False,
) -> JoinPair:
    """Play ``deal`` for ``after`` moves (``warmup``: the baseline's advice, or ``random``
    legal moves drawn with ``seed``), then on to the end twice from that same position
    with ``strategy``: once followed from the deal, once joined from a snapshot with runs
    and face-down counts (:mod:`solitaire_coach.core.join`). ``redeals_known``: the join
    is told the redeals used so far (as a person could say); else it assumes none."""
    import random
    from dataclasses import replace

    from ..core.join import JoinedTracker, TableView, join_table

    if warmup not in ("baseline", "random"):
        raise ValueError(f"warmup is 'baseline' or 'random', not {warmup!r}")
    table = VirtualTable.from_deal(deal, rules)
    tracker = TableTracker(rules)
    tracker.update(table.snapshot())
    rng = random.Random(seed)
    guide = make_strategy("baseline") if warmup == "baseline" else None
    played = 0
    for _ in range(after):
        if guide is not None:
            advice = guide.advise(tracker.state, tracker.history)
            if advice.status != "move":
                break
            move = advice.move
        else:
            moves = table.state.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
        table.perform(move)
        report = tracker.update(table.snapshot(), prefer=move)
        if not report.accepted:
            raise OutOfSyncError(f"warm-up: after {move.text} the tracker reported {report.kind}: {report.message}")
        played += 1
    snap = replace(table.snapshot(with_runs=True), down=tuple(len(h) for h in table.state.hidden))
    # whether the stock holds cards shows on the table (its pile is there or not)
    view = TableView.of_snapshot(snap, stock=bool(table.state.stock))
    # (not known: none assumed, the one count the advisor plans on; a join of the coach keeps
    # every count open since 2026-11-28, with the fewest likeliest, which plans alike)
    view = replace(view, redeals_used=table.state.redeals_used if redeals_known else 0)
    join = join_table(view, rules)
    joined_tracker = JoinedTracker.join(join)
    unseen = (len(tracker.state.unseen_cards()), len(join.position.unseen_cards()))
    twin = VirtualTable(table.state, list(table.pile_suits), table.fan)
    redeals_before = table.state.redeals_used
    followed = _play_on(table, tracker, make_strategy(strategy, **(strategy_options or {})), max_moves)
    joined = _play_on(twin, joined_tracker, make_strategy(strategy, **(strategy_options or {})), max_moves)
    return JoinPair(label, played, followed, joined, unseen[0], unseen[1], len(join.positions), redeals_before)


def _join_job(job):
    deal, strategy, rules, options, label, after, warmup, seed, redeals_known = job
    return play_from_join(deal, strategy, rules, after, warmup, seed, label, options, redeals_known=redeals_known)


def run_join_pairs(
    deals: Iterable[tuple[str, Sequence[Card]]],
    strategy: str,
    rules: Rules,
    after: int,
    warmup: str = "baseline",
    workers: int = 1,
    strategy_options: dict | None = None,
    redeals_known: bool = False,
):
    """Yield a JoinPair per labelled deal (in order), over ``workers`` processes."""
    jobs = [
        (tuple(deal), strategy, rules, strategy_options or {}, label, after, warmup, n, redeals_known)
        for n, (label, deal) in enumerate(deals)
    ]
    if workers <= 1:
        yield from map(_join_job, jobs)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_join_job, jobs, chunksize=2)
