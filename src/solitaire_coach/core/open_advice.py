"""Advice that holds in every explanation the tracker keeps open.

After moves the camera did not see, several positions may fit everything seen: the
stock turned once or five times, a redeal made or not. The advisor speaks from the
likeliest; :func:`advise_open` makes sure the move it names is legal in every position
still open, and where they disagree about the next step it says what to check instead
of guessing ("turn the waste over if the stock is empty").
"""

from __future__ import annotations

from collections.abc import Sequence

from .advisor import Advice, Strategy, describe_move
from .moves import Move, MoveKind
from .state import GameState

MAX_ASKED = 6
"""How many of the open positions the advisor is asked about when they disagree."""


def advise_open(strategy: Strategy, positions: Sequence[GameState], history: Sequence[Move] = ()) -> Advice:
    """The strategy's advice for ``positions[0]`` (the likeliest) when its move is legal in
    every one of ``positions``; else the first move another open position's advice names
    that is legal in all; else an advice of status ``check`` that names what the person
    should look at and the moves (``Advice.moves``) that may be right."""
    if not positions:
        raise ValueError("advise_open needs at least one position")
    advice = strategy.advise(positions[0], history)
    if (
        advice.status != "move"
        or advice.move is None
        or len(positions) == 1
        or all(p.is_legal(advice.move) for p in positions)
    ):
        return advice
    asked = [advice]
    for position in _distinct(positions[1:])[: MAX_ASKED - 1]:
        other = strategy.advise(position, history)
        if other.status == "move" and other.move is not None:
            if all(p.is_legal(other.move) for p in positions):
                return other
            asked.append(other)
    return check_advice(positions, [a.move for a in asked if a.move is not None])


def check_advice(positions: Sequence[GameState], moves: Sequence[Move]) -> Advice:
    """What to tell the person when no one move is legal in every open position: the
    stock turned or the waste turned over depending on whether the stock is empty, or a
    redeal the rules may no longer allow, or else which moves may be right."""
    kinds = {m.kind for m in moves}
    stock_states = {bool(p.stock) for p in positions}
    if kinds <= {MoveKind.DRAW, MoveKind.REDEAL} and len(stock_states) > 1:
        return Advice(
            "check",
            None,
            "Turn the next stock card, or if the stock is empty, turn the waste over",
            reason="I did not see every stock turn, so I do not know whether the stock is used up",
            moves=(Move.draw(), Move.redeal()),
        )
    if MoveKind.REDEAL in kinds and any(p.redeals_left() == 0 for p in positions):
        return Advice(
            "check",
            None,
            "Turn the waste over if the rules still allow it; if not, the game is over",
            reason="I may have missed a redeal, so I do not know how many are left",
            moves=(Move.redeal(),),
        )
    named = []
    for m in dict.fromkeys(moves):
        for p in positions:
            if p.is_legal(m):
                named.append(describe_move(p, m))
                break
    text = " or ".join(named) if named else "Show the table still for a moment"
    return Advice(
        "check",
        None,
        f"Check the table: {text}, whichever the table allows",
        reason=f"I missed some moves, and {len(positions)} positions fit what I saw",
        moves=tuple(dict.fromkeys(moves)),
    )


def holds_in(advice: Advice, positions: Sequence[GameState]) -> bool:
    """Whether ``advice`` holds in every one of ``positions`` (the explanations the tracker
    dropped for its cap and follows on the side: :attr:`TableTracker.doubted`): its move
    is legal in each; a check, a card to turn over and a won table hold as they are (they
    say what to look at, or what shows); a verdict that the game is lost rests on the
    position, and holds only where there are none."""
    if advice.status == "move":
        return advice.move is not None and all(p.is_legal(advice.move) for p in positions)
    if advice.status in ("check", "flip", "won"):
        return True
    return not positions


def _distinct(positions: Sequence[GameState]) -> list[GameState]:
    """``positions`` with the ones the advisor sees alike (the same cards where it can see
    them: stock and waste lengths aside) left out after the first."""
    out: list[GameState] = []
    keys = set()
    for p in positions:
        key = (p.faceup, p.foundations, bool(p.stock), p.redeals_used, p.waste[-1:] if p.waste else ())
        if key not in keys:
            keys.add(key)
            out.append(p)
    return out
