"""Moves: a small immutable value type and its text notation (like UCI in python-chess).

Notation (columns are numbered 1..7, suits are C D H S):

==========  ===================================================
``draw``    turn the next stock card(s) onto the waste
``redeal``  turn the waste over into a new stock
``w-f``     top card of the waste to its foundation
``w-N``     top card of the waste onto column N
``N-f``     top card of column N to its foundation
``N-M``     from column N onto column M: the run whose head fits M
``fS-N``    top card of the foundation of suit S back to column N
==========  ===================================================

Flips of newly exposed face-down cards are implied by the move that exposed them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import cast

from .cards import SUITS, is_whole_number, quote


class MoveKind(enum.Enum):
    """The seven kinds of Klondike move; the value is the kind in words."""

    DRAW = "draw"
    REDEAL = "redeal"
    WASTE_TO_FOUNDATION = "waste to foundation"
    WASTE_TO_COLUMN = "waste to column"
    COLUMN_TO_FOUNDATION = "column to foundation"
    COLUMN_TO_COLUMN = "column to column"
    FOUNDATION_TO_COLUMN = "foundation to column"


class MoveParseError(ValueError):
    """Raised when text is not a move in the game-log notation."""


class IllegalMoveError(ValueError):
    """Raised when a move is not legal in a position; the message says why, for a player."""


@dataclass(frozen=True, slots=True)
class Move:
    """A Klondike move. ``source`` is a column (0..6) or a suit (0..3) for foundation
    moves; ``target`` is a column (0..6). Unused fields are -1."""

    kind: MoveKind
    source: int = -1
    target: int = -1

    def __post_init__(self) -> None:
        problem = _move_problem(self.kind, self.source, self.target)
        if problem:
            raise ValueError(problem)

    # constructors (each returns one of the 87 moves there are, made once) -----------
    @staticmethod
    def draw() -> Move:
        """Turn the stock onto the waste."""
        return _DRAW

    @staticmethod
    def redeal() -> Move:
        """Turn the waste over into a new stock."""
        return _REDEAL

    @staticmethod
    def waste_to_foundation() -> Move:
        """The waste's top card to its foundation."""
        return _WASTE_TO_FOUNDATION

    @staticmethod
    def waste_to_column(column: int) -> Move:
        """The waste's top card onto ``column`` (0..6)."""
        return _known(MoveKind.WASTE_TO_COLUMN, -1, column)

    @staticmethod
    def column_to_foundation(column: int) -> Move:
        """The top card of ``column`` (0..6) to its foundation."""
        return _known(MoveKind.COLUMN_TO_FOUNDATION, column, -1)

    @staticmethod
    def column_to_column(source: int, target: int) -> Move:
        """From column ``source`` onto column ``target`` (0..6): the run whose head fits."""
        return _known(MoveKind.COLUMN_TO_COLUMN, source, target)

    @staticmethod
    def foundation_to_column(suit: int, column: int) -> Move:
        """The top card of the foundation of ``suit`` (0..3) back onto ``column`` (0..6)."""
        return _known(MoveKind.FOUNDATION_TO_COLUMN, suit, column)

    # notation -----------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The move in the game-log notation: ``draw``, ``w-f``, ``3-5``, ``fH-2``."""
        k = self.kind
        if k is MoveKind.DRAW:
            return "draw"
        if k is MoveKind.REDEAL:
            return "redeal"
        if k is MoveKind.WASTE_TO_FOUNDATION:
            return "w-f"
        if k is MoveKind.WASTE_TO_COLUMN:
            return f"w-{self.target + 1}"
        if k is MoveKind.COLUMN_TO_FOUNDATION:
            return f"{self.source + 1}-f"
        if k is MoveKind.COLUMN_TO_COLUMN:
            return f"{self.source + 1}-{self.target + 1}"
        return f"f{SUITS[self.source]}-{self.target + 1}"

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Move.parse({self.text!r})"

    @staticmethod
    def parse(text: str) -> Move:
        """Parse one move in the game-log notation; a trailing card annotation is not allowed here."""
        if not isinstance(text, str):
            raise MoveParseError(f"{text!r} is not a move (expected text such as 3-5)")
        t = text.strip().lower()
        if t == "draw":
            return _DRAW
        if t == "redeal":
            return _REDEAL
        words = t.split()
        if len(words) == 2 and _is_card_code(words[1]):
            raise MoveParseError(
                f"{quote(text)}: expected one move with nothing after it (a card after the move, as in "
                f"'3-5 7H', is written only in a game log line)"
            )
        parts = text.strip().split("-")
        if len(parts) == 2:
            a, b = parts
            if a.lower() == "w":
                if b.lower() == "f":
                    return _WASTE_TO_FOUNDATION
                return Move.waste_to_column(_column(b, text))
            if len(a) == 2 and a[0].lower() == "f":
                if a[1].upper() not in SUITS:
                    raise MoveParseError(f"{quote(text)}: {quote(a[1])} is not a suit (C, D, H or S, as in fH-3)")
                return Move.foundation_to_column(SUITS.index(a[1].upper()), _column(b, text))
            source = _column(a, text)
            if b.lower() == "f":
                return Move.column_to_foundation(source)
            target = _column(b, text)
            if target == source:
                raise MoveParseError(f"{quote(text)}: a column cannot move onto itself")
            return Move.column_to_column(source, target)
        raise MoveParseError(
            f"{quote(text)} is not a move (expected draw, redeal, w-f, w-N, N-f, N-M or fS-N with N, M in 1..7)"
        )


def _is_card_code(text: str) -> bool:
    from .cards import Card, CardParseError

    try:
        Card.parse(text)
    except CardParseError:
        return False
    return True


def _column(text: str, whole: str) -> int:
    if len(text) == 1 and text in "1234567":
        return int(text) - 1
    raise MoveParseError(f"{quote(whole)}: {quote(text)} is not a column number 1..7")


def _is_index(value: object, size: int) -> bool:
    return is_whole_number(value) and 0 <= value < size


def _move_problem(kind: object, source: object, target: object) -> str:
    """Why ``Move(kind, source, target)`` is no move ('' if it is one): columns are 0..6,
    suits 0..3, a field the kind does not use is -1, and a run never moves onto its own
    column."""
    if not isinstance(kind, MoveKind):
        return f"{kind!r} is not a MoveKind"
    column = "a column 0..6 (1..7 in the notation)"
    uses_source = kind in (MoveKind.COLUMN_TO_FOUNDATION, MoveKind.COLUMN_TO_COLUMN, MoveKind.FOUNDATION_TO_COLUMN)
    uses_target = kind in (MoveKind.WASTE_TO_COLUMN, MoveKind.COLUMN_TO_COLUMN, MoveKind.FOUNDATION_TO_COLUMN)
    if kind is MoveKind.FOUNDATION_TO_COLUMN:
        if not _is_index(source, 4):
            return f"{kind.value}: source {source!r} is not a suit 0..3 (C, D, H, S)"
    elif uses_source and not _is_index(source, 7):
        return f"{kind.value}: source {source!r} is not {column}"
    if uses_target and not _is_index(target, 7):
        return f"{kind.value}: target {target!r} is not {column}"
    if not uses_source and source != -1:
        return f"{kind.value} has no source (it is -1), not {source!r}"
    if not uses_target and target != -1:
        return f"{kind.value} has no target (it is -1), not {target!r}"
    if kind is MoveKind.COLUMN_TO_COLUMN and source == target:
        return f"column {cast(int, source) + 1} cannot move onto itself"
    return ""


_DRAW = Move(MoveKind.DRAW)
_REDEAL = Move(MoveKind.REDEAL)
_WASTE_TO_FOUNDATION = Move(MoveKind.WASTE_TO_FOUNDATION)
_MOVES: dict[tuple[MoveKind, int, int], Move] = {
    (m.kind, m.source, m.target): m
    for m in (
        [_DRAW, _REDEAL, _WASTE_TO_FOUNDATION]
        + [Move(MoveKind.WASTE_TO_COLUMN, -1, c) for c in range(7)]
        + [Move(MoveKind.COLUMN_TO_FOUNDATION, c, -1) for c in range(7)]
        + [Move(MoveKind.COLUMN_TO_COLUMN, a, b) for a in range(7) for b in range(7) if a != b]
        + [Move(MoveKind.FOUNDATION_TO_COLUMN, s, c) for s in range(4) for c in range(7)]
    )
}


def _known(kind: MoveKind, source: int, target: int) -> Move:
    """The move of these fields, made once; ValueError naming a field out of range."""
    if type(source) is not int or type(target) is not int:
        return Move(kind, source, target)  # raises, naming the field
    try:
        return _MOVES[(kind, source, target)]
    except (KeyError, TypeError):
        return Move(kind, source, target)  # raises, naming the field
