"""One checker for game logs: every move legal, every card named the card moved, the
result line true. ``check-log`` and ``solve`` both replay a log with it, so a log one
of them refuses the other refuses too."""

from __future__ import annotations

from .moves import IllegalMoveError
from .notation import GameLog
from .rules import Rules
from .state import GameState


def replay_log(log: GameLog, where, rules: Rules) -> GameState:
    """The position at the end of ``log`` (``where``: the line numbers ``parse_log_lines``
    gives with it). Raises IllegalMoveError naming the line and move of the first illegal
    move, of a card named after a move that is not the card it moves, or the result line
    when the log says won and the game is not, or lost when it is won."""
    state = GameState.from_deal(log.deal, rules)
    for n, (move, card, line) in enumerate(zip(log.moves, log.cards, where.moves), start=1):
        try:
            moved = state.moving_cards(move)
            state = state.play(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"line {line}, move {n} ({move.text}): {exc}") from None
        if card is not None and moved and moved[0] is not card:
            raise IllegalMoveError(
                f"line {line}, move {n} ({move.text}) moves {moved[0].symbol}, the log says {card.symbol}"
            )
    if log.result == "won" and not state.is_won():
        raise IllegalMoveError(f"line {where.result}: the log says won but the foundations are not complete")
    if log.result == "lost" and state.is_won():
        raise IllegalMoveError(
            f"line {where.result}: the log says lost but the game is won (every card is on the foundations)"
        )
    return state
