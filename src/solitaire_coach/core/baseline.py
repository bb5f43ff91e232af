"""The ``baseline`` strategy: the original design's fixed priorities.

1. a card to a foundation (from a column first, then from the waste);
2. a king (or a run headed by a king) into an empty column;
3. column to column, when it turns a face-down card over, empties a column, or lets
   the card it uncovers go to a foundation;
4. the waste onto a column;
5. turn the next stock card, or turn the waste over.

It never moves the same card twice in a row (no column-to-column move from the
column the last move put cards on) and makes at most 2 column-to-column moves
in a row. It calls the game lost when it has nothing to do but turn the stock and has
turned through the whole stock and waste since its last play (or cannot turn at all).
"""

from __future__ import annotations

from collections.abc import Sequence

from .advisor import Advice, move_advice, terminal_advice
from .cards import KING
from .moves import Move, MoveKind
from .state import GameState

_STOCK_KINDS = (MoveKind.DRAW, MoveKind.REDEAL)


class BaselineStrategy:
    name = "baseline"

    def __init__(self, think_time: float | None = None, seed: int = 0) -> None:
        """``think_time`` and ``seed`` are the options every strategy takes, so one command
        line serves them all; the baseline decides at once and without chance, so it uses
        neither. Any other option is refused by ``make_strategy``."""

    def advise(self, state: GameState, history: Sequence[Move] = ()) -> Advice:
        done = terminal_advice(state)
        if done is not None:
            return done
        # the cards moved last lie on top of the last move's target column
        last_target = (
            history[-1].target
            if history
            and history[-1].kind in (MoveKind.COLUMN_TO_COLUMN, MoveKind.WASTE_TO_COLUMN, MoveKind.FOUNDATION_TO_COLUMN)
            else None
        )
        col_moves_in_a_row = 0
        for m in reversed(history):
            if m.kind is MoveKind.COLUMN_TO_COLUMN:
                col_moves_in_a_row += 1
            else:
                break
        moves = state.legal_moves()
        scored: list[tuple] = []
        for move in moves:
            priority, reason = self._priority(state, move)
            if priority is None:
                continue
            if move.kind is MoveKind.COLUMN_TO_COLUMN and move.source == last_target:
                continue  # never move the same card twice in a row
            if move.kind is MoveKind.COLUMN_TO_COLUMN and col_moves_in_a_row >= 2:
                continue
            scored.append((priority, len(scored), move, reason))
        play = [s for s in scored if s[2].kind not in _STOCK_KINDS]
        if play:
            _, _, move, reason = min(play)
            return move_advice(state, move, reason)
        stock = [s for s in scored if s[2].kind in _STOCK_KINDS]
        trailing = 0
        for m in reversed(history):
            if m.kind in _STOCK_KINDS:
                trailing += 1
            else:
                break
        if stock and trailing <= len(state.stock) + len(state.waste):
            _, _, move, reason = stock[0]
            return move_advice(state, move, reason)
        if not moves:
            return Advice("lost", None, "No moves left: the game is lost", proven=True)
        # moves are left, but none this player makes progress with (only turning the stock
        # round again, or moves it never plays): it gives up, without claiming a proof
        return Advice(
            "lost", None, "No move this player makes progress with is left: the baseline player gives up", proven=False
        )

    @staticmethod
    def _priority(state: GameState, move: Move) -> tuple[int | None, str]:
        k = move.kind
        if k in (MoveKind.COLUMN_TO_FOUNDATION, MoveKind.WASTE_TO_FOUNDATION):
            card = state.moving_cards(move)[0]
            return (0 if k is MoveKind.COLUMN_TO_FOUNDATION else 1), f"{card.symbol} goes to the foundation"
        if k is MoveKind.COLUMN_TO_COLUMN or k is MoveKind.WASTE_TO_COLUMN:
            cards = state.moving_cards(move)
            empty_target = not state.faceup[move.target]
            if empty_target and cards[0].rank == KING:
                if k is MoveKind.WASTE_TO_COLUMN:
                    return 2, "a king fills the empty column"
                if state.hidden[move.source]:
                    return 2, f"frees a face-down card in column {move.source + 1}"
                return None, ""
            if k is MoveKind.WASTE_TO_COLUMN:
                return 4, "plays the waste card"
            run = state.faceup[move.source]
            rest = run[: len(run) - len(cards)]
            if not rest:
                if state.hidden[move.source]:
                    return 3, f"frees a face-down card in column {move.source + 1}"
                return 3, f"empties column {move.source + 1}"
            below = rest[-1]
            if state.foundations[below.suit] + 1 == below.rank:
                return 3, f"lets {below.symbol} go to the foundation"
            return None, ""
        if k is MoveKind.DRAW:  # played only when no move above is left
            return 5, "no move on the table makes progress for this player"
        if k is MoveKind.REDEAL:
            return 5, "the stock is used up: go through it again"
        return None, ""
