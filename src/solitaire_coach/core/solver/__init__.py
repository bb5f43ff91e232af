"""Full-information Klondike solver: is this position winnable, and how?

:func:`solve` takes a :class:`GameState` in which every card is known (the true layout,
not the coach's view) and answers with a :class:`SolveResult`:

* ``"won"``: ``moves`` is a winning line in the game-log notation's moves; it has been
  replayed with :meth:`GameState.play` before being returned, so it is legal;
* ``"lost"``: the search was exhaustive, so no sequence of moves wins;
* ``"unknown"``: a node, time or memory limit was hit first.

The search runs in a C extension (``_csolver``, built by the package build); if that
is missing a much slower pure-Python search gives the same kind of answers. See
``_csolver.c`` for the method (talon macro moves, a transposition table invariant under
column permutations) and for the sound pruning of its exhaustive pass, each rule with the
reason it loses no win: safe foundation moves, draw-1 talon dominance, part-run and
column-emptying moves only together with their purpose, and dead positions (a card that
can never leave its place).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import FULL_DECK
from ..moves import Move
from ..rules import Rules
from ..state import GameState

try:  # the compiled core
    from . import _csolver  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - exercised only without a compiler
    _csolver = None

__all__ = ["SolveResult", "SolverError", "solve", "has_extension", "DEFAULT_TABLE_MB"]

DEFAULT_TABLE_MB = 512
"""Memory for the exhaustive search when no limit is given: half for the transposition table
(16 bytes a position), half at most for the positions set aside for a later layer."""

WON, LOST, UNKNOWN = "won", "lost", "unknown"


class SolverError(ValueError):
    """The position cannot be solved as given (unknown cards, a broken layout)."""


@dataclass(frozen=True)
class SolveResult:
    """What the solver found: ``status`` is ``"won"``, ``"lost"`` or ``"unknown"``;
    ``moves`` a winning line when won (empty otherwise); ``nodes`` positions generated;
    ``seconds`` wall time of the search; ``closest`` how near to a win the quick pass came:
    the lowest estimate of the distance left (4 a face-down card, 2 a card not on the
    foundations, 1 a card left in the talon, 3 a redeal used) among the positions it made,
    0 when won, None when it made none (no quick pass, or the pure-Python solver)."""

    status: str
    moves: tuple[Move, ...]
    nodes: int
    seconds: float
    closest: int | None = None

    @property
    def decided(self) -> bool:
        """True if the search proved the position won or lost."""
        return self.status != UNKNOWN

    @property
    def won(self) -> bool:
        """True if the position is won (``moves`` win it)."""
        return self.status == WON

    @property
    def lost(self) -> bool:
        """True if the position is proven lost."""
        return self.status == LOST


def has_extension() -> bool:
    """True if the compiled solver core is available."""
    return _csolver is not None


def _detect_redeal_reverses() -> bool:
    """Whether :meth:`GameState.play` puts the waste back into the stock reversed, so the
    search follows exactly the rules the rest of the program plays by."""
    a, b = FULL_DECK[0], FULL_DECK[1]
    empty: tuple = ((),) * 7
    state = GameState(empty, empty, (), (a, b), rules=Rules(redeal_limit=None))
    return state.play(Move.redeal()).stock[0] is b


_REDEAL_REVERSES = _detect_redeal_reverses()

_OUT_MOVES = {
    0: lambda a, b: Move.draw(),
    1: lambda a, b: Move.redeal(),
    2: lambda a, b: Move.waste_to_foundation(),
    3: lambda a, b: Move.waste_to_column(b),
    4: lambda a, b: Move.column_to_foundation(a),
    5: lambda a, b: Move.column_to_column(a, b),
    6: lambda a, b: Move.foundation_to_column(a, b),
}


@functools.cache
def _out_move(kind: int, a: int, b: int) -> Move:
    """The move of one step of the C solver's line (kind and two numbers). Moves are
    immutable values, so each is made once and shared: a game of ``best`` turns about a
    million steps into moves, and making each anew cost about 6% of its time."""
    return _OUT_MOVES[kind](a, b)


def _check_known(state: GameState) -> None:
    if not state.is_complete_knowledge():
        unknown = (
            sum(c is None for h in state.hidden for c in h)
            + sum(c is None for c in state.stock)
            + sum(c is None for c in state.waste)
        )
        raise SolverError(
            f"the solver needs every card: {unknown} card(s) of this position are unknown "
            "(solve the true layout, or sample the unknown cards first)"
        )


def _table_bits(node_limit: int | None, memory_mb: float | None) -> int:
    budget = (DEFAULT_TABLE_MB if memory_mb is None else memory_mb) / 2
    bits = 10
    while bits < 30 and (1 << (bits + 1)) * 16 <= budget * 1024 * 1024:
        bits += 1
    if node_limit is not None:
        # the table never needs more than about 2 slots a generated position
        while bits > 10 and (1 << (bits - 1)) >= 2 * node_limit + 1024:
            bits -= 1
    return bits


QUICK_FRACTION = 0.5
QUICK_NODES_UNLIMITED = 3_000_000


def _quick_nodes(node_limit: int | None) -> int:
    """Nodes for the quick, incomplete first pass (it finds most wins much sooner; an
    exhaustive pass that can also prove a loss follows with the rest of the budget)."""
    if node_limit is None:
        return QUICK_NODES_UNLIMITED
    return min(int(node_limit * QUICK_FRACTION), QUICK_NODES_UNLIMITED)


def _layer_bytes(memory_mb: float | None) -> int:
    """Bytes the exhaustive search may use for positions set aside for a later layer (when
    they are used up it searches them at once, as a plain depth-first search would)."""
    return max(1, int((DEFAULT_TABLE_MB if memory_mb is None else memory_mb) / 2 * 1024 * 1024))


def solve(
    state: GameState,
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    memory_mb: float | None = None,
    verify: bool = True,
    quick_pass: bool = True,
    reductions: bool = True,
    relaxation: bool = True,
) -> SolveResult:
    """Solve ``state`` (every card known) under its own rules.

    ``node_limit`` bounds the positions generated, ``time_limit`` the seconds, and
    ``memory_mb`` the search's memory (default :data:`DEFAULT_TABLE_MB`: the transposition
    table and the positions set aside for later, half each); hitting any of them gives
    ``"unknown"``. ``quick_pass=False`` leaves out the quick incomplete first pass (so that
    tests can check the exhaustive search's own wins); ``reductions=False`` makes the exhaustive
    search generate the children it can tell are covered without making them (sleeping moves,
    a run moved straight back, without a redeal limit a talon card put on the tableau with no
    card put onto it at once), so that tests can check those leave every answer unchanged.
    ``relaxation=False`` leaves out, in draw 1 with a redeal limit, the first exhaustive pass
    over the same position without the limit (half the budget left after the quick pass:
    "lost" there is lost here, and a win there within the limit is a win here).
    A winning line is replayed before it is returned."""
    _check_known(state)
    if node_limit is not None and node_limit <= 0:
        raise ValueError(f"node limit must be positive, not {node_limit}")
    if time_limit is not None and time_limit <= 0:
        raise ValueError(f"time limit must be positive, not {time_limit}")
    start = time.perf_counter()
    if state.is_won():
        return SolveResult(WON, (), 0, 0.0, 0)
    rules = state.rules
    if _csolver is not None:
        columns = [
            (bytes(c.index for c in state.hidden[i]), bytes(c.index for c in state.faceup[i]))  # type: ignore[union-attr]
            for i in range(7)
        ]
        talon = bytes(c.index for c in state.waste + state.stock)  # type: ignore[union-attr]
        args = (
            columns,
            talon,
            len(state.waste),
            list(state.foundations),
            state.redeals_used,
            rules.draw_count,
            -1 if rules.redeal_limit is None else rules.redeal_limit,
            int(rules.foundation_return),
            int(_REDEAL_REVERSES),
            int(node_limit or 0),
            float(time_limit or 0.0),
            _table_bits(node_limit, memory_mb),
            _quick_nodes(node_limit) if quick_pass else 0,
            _layer_bytes(memory_mb),
        )
        code, raw, nodes, closest = _csolver.solve(*args, reductions, relaxation)
        status = {1: WON, 0: LOST}.get(code, UNKNOWN)
        moves = tuple(_out_move(*step) for step in raw)
    else:
        status, moves, nodes = _python_solve(state, node_limit, time_limit, memory_mb)
        closest = 0 if status == WON else -1
    seconds = time.perf_counter() - start
    if status == WON and verify:
        _verify(state, moves)
    return SolveResult(status, moves if status == WON else (), nodes, seconds, None if closest < 0 else closest)


def _verify(state: GameState, moves: Sequence[Move]) -> None:
    s = state
    for n, move in enumerate(moves, start=1):
        try:
            s = s.play(move)
        except ValueError as exc:  # IllegalMoveError
            raise AssertionError(f"solver bug: move {n} ({move}) of its solution is illegal: {exc}") from None
    if not s.is_won():
        raise AssertionError(f"solver bug: its {len(moves)}-move solution does not end in a won game")


# --- pure-Python fallback -------------------------------------------------------------


def _key(state: GameState) -> tuple:
    cols = sorted(
        zip(
            (tuple(c.index for c in h) for h in state.hidden),  # type: ignore[union-attr]
            (tuple(c.index for c in u) for u in state.faceup),
        )
    )
    return (tuple(cols), tuple(c.index for c in state.stock), tuple(c.index for c in state.waste))  # type: ignore[union-attr]


def _python_solve(
    state: GameState, node_limit: int | None, time_limit: float | None, memory_mb: float | None
) -> tuple[str, tuple[Move, ...], int]:
    """Plain DFS over single moves with a visited table (slow, but sound)."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    max_entries = int((DEFAULT_TABLE_MB if memory_mb is None else memory_mb) * 1024 * 1024 / 200)
    visited: dict[tuple, int] = {_key(state): state.redeals_used}
    stack: list[tuple[GameState, list[Move], int]] = [(state, state.legal_moves(), 0)]
    path: list[Move] = []
    nodes = 0
    while stack:
        s, moves, i = stack[-1]
        if i >= len(moves):
            stack.pop()
            if path:
                path.pop()
            continue
        stack[-1] = (s, moves, i + 1)
        move = moves[i]
        child = s.play(move)
        nodes += 1
        if (node_limit and nodes >= node_limit) or (deadline and nodes % 256 == 0 and time.perf_counter() > deadline):
            return UNKNOWN, (), nodes
        if child.is_won():
            return WON, tuple(path + [move]), nodes
        key = _key(child)
        old = visited.get(key)
        if old is not None and old <= child.redeals_used:
            continue
        if len(visited) >= max_entries:
            return UNKNOWN, (), nodes
        visited[key] = child.redeals_used
        path.append(move)
        stack.append((child, child.legal_moves(), 0))
    return LOST, (), nodes
