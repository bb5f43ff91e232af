"""Cards: a small immutable value type, with parsing and formatting in one place.

A card is written as two characters, rank then suit: ``7H``, ``0S`` (the ten), ``KC``.
Ranks: ``A 2 3 4 5 6 7 8 9 0 J Q K``; suits: ``C D H S``. Parsing also accepts lower
case, surrounding whitespace, ``10``/``T`` for the ten and the suit symbols people see
(``7♥``, ``10♠``), which is how cards are written for them.

There are exactly 52 card objects (interned), so cards compare by identity as well as
by value and can be used as dictionary keys or indexed by ``card.index`` (0..51).
"""

from __future__ import annotations

from typing import TypeGuard

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_CODES = "A234567890JQK"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RED_SUITS = frozenset((1, 2))

ACE = 1
KING = 13


QUOTE_LIMIT = 60
"""The most characters of the user's text a message quotes (a line of a million characters
is not printed whole)."""


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """The user's ``text`` as every parsing message of the core quotes it: ``repr``, cut to
    ``limit`` characters with ``…`` and the whole length when it is longer."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


class CardParseError(ValueError):
    """Raised when text is not a card code; the message names the text."""


class Card:
    """One playing card: ``rank`` 1 (ace) .. 13 (king), ``suit`` 0..3 for C, D, H, S."""

    __slots__ = ("rank", "suit", "index", "is_red", "code")

    rank: int
    suit: int
    index: int
    is_red: bool
    code: str

    def __new__(cls, rank: int, suit: int) -> Card:
        if not (type(rank) is int and type(suit) is int and 1 <= rank <= 13 and 0 <= suit <= 3):  # hot: inline
            raise ValueError(f"no card with rank {rank!r} and suit {suit!r} (rank 1..13, suit 0..3 for C, D, H, S)")
        return _DECK[suit * 13 + rank - 1]

    @classmethod
    def _make(cls, rank: int, suit: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "index", suit * 13 + rank - 1)
        object.__setattr__(card, "is_red", suit in RED_SUITS)
        object.__setattr__(card, "code", RANK_CODES[rank - 1] + SUITS[suit])
        return card

    def __setattr__(self, name, value):  # immutable
        raise AttributeError("Card is immutable")

    def __reduce__(self):
        return (Card, (self.rank, self.suit))

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __str__(self) -> str:
        return self.code

    # ordered by index: clubs ace to king, then diamonds, hearts, spades
    def __lt__(self, other: object) -> bool:
        return self.index < other.index if isinstance(other, Card) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.index <= other.index if isinstance(other, Card) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.index > other.index if isinstance(other, Card) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.index >= other.index if isinstance(other, Card) else NotImplemented

    @property
    def symbol(self) -> str:
        """The card as people write it: ``7♥``, ``10♠``."""
        return RANK_NAMES[self.rank - 1] + SUIT_SYMBOLS[self.suit]

    @property
    def suit_code(self) -> str:
        """The suit letter: ``C``, ``D``, ``H`` or ``S``."""
        return SUITS[self.suit]

    def goes_on_tableau(self, other: Card) -> bool:
        """True if this card may be placed on ``other`` in a tableau column."""
        return self.rank + 1 == other.rank and self.is_red != other.is_red

    @staticmethod
    def from_index(index: int) -> Card:
        """The card of ``index`` 0..51 (``card.index``); ValueError for anything else."""
        if not (is_whole_number(index) and 0 <= index < 52):
            raise ValueError(f"no card with index {index!r} (0..51)")
        return _DECK[index]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse a card code (``7H``, `` 10s ``, ``th``) or a card as ``symbol`` writes it
        (``10♥``); raise CardParseError naming the text."""
        if not isinstance(text, str):
            raise CardParseError(f"{text!r} is not a card (expected text such as 7H)")
        code = text.strip().upper()
        if code and code[-1] in SUIT_SYMBOLS:
            code = code[:-1] + SUITS[SUIT_SYMBOLS.index(code[-1])]
        if len(code) == 3 and code.startswith("10"):
            code = "0" + code[2]
        elif len(code) == 2 and code[0] == "T":
            code = "0" + code[1]
        if len(code) != 2 or code[0] not in RANK_CODES or code[1] not in SUITS:
            raise CardParseError(f"{quote(text)} is not a card (expected rank A,2-9,10,J,Q,K then suit C,D,H,S)")
        return _DECK[SUITS.index(code[1]) * 13 + RANK_CODES.index(code[0])]


def is_whole_number(value: object) -> TypeGuard[int]:
    """True for an int that is not a bool (``True`` is no rank, no column, no redeal limit):
    the one check of the core's whole-number fields."""
    return isinstance(value, int) and not isinstance(value, bool)


_DECK: tuple[Card, ...] = tuple(Card._make(rank, suit) for suit in range(4) for rank in range(1, 14))
FULL_DECK: tuple[Card, ...] = _DECK


def check_permutation(cards: list[Card]) -> None:
    """Raise ValueError naming duplicate and missing cards unless ``cards`` is the full deck."""
    seen: dict[Card, int] = {}
    for card in cards:
        seen[card] = seen.get(card, 0) + 1
    duplicates = [c.code for c in FULL_DECK if seen.get(c, 0) > 1]
    missing = [c.code for c in FULL_DECK if c not in seen]
    if duplicates or missing or len(cards) != 52:
        parts = [f"{len(cards)} cards"]
        if duplicates:
            parts.append("duplicated: " + " ".join(duplicates))
        if missing:
            parts.append("missing: " + " ".join(missing))
        raise ValueError("not a full deck of 52 different cards (" + "; ".join(parts) + ")")
