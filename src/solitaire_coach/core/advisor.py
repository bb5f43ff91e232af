"""Advisors: given what the tracker knows (never a face-down card), say the next move.

Strategies are pluggable by name: :func:`make_strategy` builds one from the registry
``STRATEGY_FACTORIES`` (name -> "module:factory"), imported on first use. A strategy is
any object with a ``name`` and ``advise(state, history) -> Advice``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .cards import SUIT_SYMBOLS
from .moves import Move, MoveKind
from .state import GameState


@dataclass(frozen=True)
class Advice:
    """One piece of advice. ``status`` is ``"move"``, ``"flip"`` (turn a face-down card
    over first), ``"won"``, ``"lost"`` or ``"check"`` (moves went unseen and the positions
    that fit disagree about the next step: the text says what to look at, ``moves`` the
    moves that may be right; see :mod:`open_advice`); ``move`` is set when status is
    ``"move"``."""

    status: str
    move: Move | None
    text: str
    reason: str = ""
    proven: bool = False  # the outcome (won/lost) is certain, not just likely
    moves: tuple[Move, ...] = ()  # status "check": the moves that may be right, as the table shows
    unsure: bool = False  # the position may be wrong (moves went unseen; the text says so)

    def line(self) -> str:
        return self.text + (f" ({self.reason})" if self.reason else "")


class Strategy(Protocol):
    name: str

    def advise(self, state: GameState, history: Sequence[Move] = ()) -> Advice: ...


def describe_move(state: GameState, move: Move) -> str:
    """Say ``move`` for a person: "Move 7♥ from column 3 onto 8♠ in column 5"."""
    k = move.kind
    if k is MoveKind.DRAW:
        if state.rules.draw_count == 1:
            return "Turn the next stock card"
        if len(state.stock) > 3:
            return "Turn the next three stock cards"
        # the stock's last cards: say how many there are, not three
        return ("Turn the last stock card", "Turn the last two stock cards", "Turn the last three stock cards")[
            len(state.stock) - 1
        ]
    if k is MoveKind.REDEAL:
        limit = state.rules.redeal_limit
        if limit is None:
            return "Turn the waste over into the stock"
        return f"Turn the waste over (redeal {state.redeals_used + 1} of {limit})"
    cards = state.moving_cards(move)
    head = cards[0].symbol
    if len(cards) > 1:
        head = f"{cards[0].symbol} (with the {len(cards) - 1} card{'s' if len(cards) > 2 else ''} on it)"
    if k is MoveKind.WASTE_TO_FOUNDATION:
        return f"Put {head} from the waste on the foundation"
    if k is MoveKind.COLUMN_TO_FOUNDATION:
        return f"Put {head} from column {move.source + 1} on the foundation"
    if k is MoveKind.FOUNDATION_TO_COLUMN:
        src = f"from the {SUIT_SYMBOLS[move.source]} foundation"
    elif k is MoveKind.WASTE_TO_COLUMN:
        src = "from the waste"
    else:
        src = f"from column {move.source + 1}"
    top = state.column_top(move.target)
    dest = (
        f"onto {top.symbol} in column {move.target + 1}"
        if top is not None
        else f"into the empty column {move.target + 1}"
    )
    return f"Move {head} {src} {dest}"


def move_advice(state: GameState, move: Move, reason: str = "") -> Advice:
    return Advice("move", move, describe_move(state, move), reason)


def terminal_advice(state: GameState) -> Advice | None:
    """Advice that needs no search: won, a column awaiting a flip."""
    if state.is_won():
        return Advice("won", None, "You have won", proven=True)
    for column in range(7):
        if state.awaiting_flip(column):
            return Advice("flip", None, f"Turn over the face-down card on top of column {column + 1}")
    if state.waste and state.waste[-1] is None:
        return Advice("flip", None, "Show the top card of the waste to the camera")
    return None


STRATEGY_FACTORIES: dict[str, str] = {
    "baseline": "solitaire_coach.core.baseline:BaselineStrategy",
    "best": "solitaire_coach.core.best:BestStrategy",
}


def strategy_names() -> list[str]:
    return sorted(STRATEGY_FACTORIES)


def make_strategy(name: str, **options) -> Strategy:
    """Build the strategy registered as ``name`` (options go to its constructor). An option
    the strategy does not take raises ValueError naming it and the options it takes, so a
    misspelt option never runs a benchmark on the defaults unnoticed."""
    try:
        target = STRATEGY_FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(strategy_names())}") from None
    module_name, _, attr = target.partition(":")
    factory = getattr(importlib.import_module(module_name), attr)
    parameters = inspect.signature(factory).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        unknown = sorted(set(options) - set(parameters))
        if unknown:
            raise ValueError(
                f"strategy {name!r} takes no option {', '.join(map(repr, unknown))}; "
                f"its options: {', '.join(parameters)}"
            )
    return factory(**options)
