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

from .cards import SUITS, quote


class MoveKind(enum.Enum):
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

    # constructors -----------------------------------------------------------------
    @staticmethod
    def draw() -> "Move":
        return _DRAW

    @staticmethod
    def redeal() -> "Move":
        return _REDEAL

    @staticmethod
    def waste_to_foundation() -> "Move":
        return _WASTE_TO_FOUNDATION

    @staticmethod
    def waste_to_column(column: int) -> "Move":
        return Move(MoveKind.WASTE_TO_COLUMN, -1, column)

    @staticmethod
    def column_to_foundation(column: int) -> "Move":
        return Move(MoveKind.COLUMN_TO_FOUNDATION, column, -1)

    @staticmethod
    def column_to_column(source: int, target: int) -> "Move":
        return Move(MoveKind.COLUMN_TO_COLUMN, source, target)

    @staticmethod
    def foundation_to_column(suit: int, column: int) -> "Move":
        return Move(MoveKind.FOUNDATION_TO_COLUMN, suit, column)

    # notation -----------------------------------------------------------------------
    @property
    def text(self) -> str:
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
    def parse(text: str) -> "Move":
        """Parse one move in the game-log notation; a trailing card annotation is not allowed here."""
        t = text.strip().lower()
        if t == "draw":
            return _DRAW
        if t == "redeal":
            return _REDEAL
        parts = t.split("-")
        if len(parts) == 2:
            a, b = parts
            if a == "w":
                if b == "f":
                    return _WASTE_TO_FOUNDATION
                return Move.waste_to_column(_column(b, text))
            if len(a) == 2 and a[0] == "f" and a[1].upper() in SUITS:
                return Move.foundation_to_column(SUITS.index(a[1].upper()), _column(b, text))
            source = _column(a, text)
            if b == "f":
                return Move.column_to_foundation(source)
            target = _column(b, text)
            if target == source:
                raise MoveParseError(f"{quote(text)}: a column cannot move onto itself")
            return Move.column_to_column(source, target)
        raise MoveParseError(
            f"{quote(text)} is not a move (expected draw, redeal, w-f, w-N, N-f, N-M or fS-N with N, M in 1..7)"
        )


def _column(text: str, whole: str) -> int:
    if len(text) == 1 and text in "1234567":
        return int(text) - 1
    raise MoveParseError(f"{quote(whole)}: {quote(text)} is not a column number 1..7")


_DRAW = Move(MoveKind.DRAW)
_REDEAL = Move(MoveKind.REDEAL)
_WASTE_TO_FOUNDATION = Move(MoveKind.WASTE_TO_FOUNDATION)
