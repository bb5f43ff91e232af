"""A virtual table: the true layout of a real deal, played as the person would.

It applies an advised move to the true layout (flipping newly exposed cards, as the
person does) and produces the snapshot a camera would see, so whole games run through
exactly the same tracker and advisor as the live coach.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import Card
from .moves import Move, MoveKind
from .notation import EMPTY, Snapshot
from .rules import DEFAULT_RULES, Rules
from .state import GameState


class OutOfSyncError(AssertionError):
    """The tracker's picture of the game disagrees with the true layout."""


@dataclass
class VirtualTable:
    """The true layout. Foundation piles sit in the order their aces were put down."""

    state: GameState
    pile_suits: list[int] = field(default_factory=list)
    fan: int = -1  # cards of the last stock turn still on the waste (-1: as dealt)

    @classmethod
    def from_deal(cls, deal: Sequence[Card], rules: Rules = DEFAULT_RULES) -> VirtualTable:
        """A table with ``deal`` dealt under ``rules``."""
        return cls(GameState.from_deal(deal, rules))

    def perform(self, move: Move) -> tuple[Card, ...]:
        """Do ``move`` on the table (raises IllegalMoveError); returns the cards moved."""
        cards = self.state.moving_cards(move)
        self._fan_after(move, cards)
        self.state = self.state.play(move)
        for suit in range(4):
            if self.state.foundations[suit] and suit not in self.pile_suits:
                self.pile_suits.append(suit)
        self.pile_suits = [s for s in self.pile_suits if self.state.foundations[s]]
        return cards

    def _fan_after(self, move: Move, cards: tuple[Card, ...]) -> None:
        if self.fan < 0:
            self.fan = min(self.state.rules.draw_count, len(self.state.waste))
        if move.kind is MoveKind.DRAW:
            self.fan = len(cards)
        elif move.kind is MoveKind.REDEAL:
            self.fan = 0
        elif move.kind in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.WASTE_TO_COLUMN):
            self.fan = max(0, self.fan - 1)

    def visible_waste(self) -> tuple[Card, ...]:
        """The waste cards a person sees, bottom to top: the cards of the last stock turn
        still on the waste (fanned, so each shows), or the top card alone when every card
        of that turn has been played (the older cards lie squared up under it)."""
        waste = self.state.waste
        if not waste:
            return ()
        fan = min(self.state.rules.draw_count, len(waste)) if self.fan < 0 else self.fan
        return tuple(waste[-max(1, fan) :])  # type: ignore[arg-type]

    def snapshot(self, with_runs: bool = False, with_waste: bool | None = None, with_stock: bool = False) -> Snapshot:
        """What a perfect detector would write for the table now: the 12 slots, each
        column's face-up run if ``with_runs``, the visible waste fan if ``with_waste``
        (default: with draw 3, where the fan shows cards the top slot does not), and
        whether a stock pile is there if ``with_stock``."""
        s = self.state
        waste = s.waste[-1] if s.waste else EMPTY
        piles = [s.foundation_top(suit) for suit in self.pile_suits]
        piles += [EMPTY] * (4 - len(piles))  # type: ignore[list-item]
        columns = [run[-1] if run else EMPTY for run in s.faceup]
        runs = tuple(run or None for run in s.faceup) if with_runs else None
        if with_waste is None:
            with_waste = s.rules.draw_count > 1
        fan = (self.visible_waste() or None) if with_waste else None
        return Snapshot(
            tuple([waste, *piles, *columns]),  # type: ignore[list-item]
            runs,
            fan,
            bool(s.stock) if with_stock else None,
        )


def in_sync(known: GameState, truth: GameState) -> bool:
    """Whether every card ``known`` claims is where ``truth`` has it (see :func:`check_in_sync`)."""
    try:
        check_in_sync(known, truth)
    except OutOfSyncError:
        return False
    return True


def check_in_sync(known: GameState, truth: GameState) -> None:
    """Raise OutOfSyncError unless every card ``known`` claims is where ``truth`` has it."""
    problems = []
    if known.faceup != truth.faceup:
        problems.append("face-up runs differ")
    if known.foundations != truth.foundations:
        problems.append(f"foundations {known.foundations} != {truth.foundations}")
    if known.redeals_used != truth.redeals_used:
        problems.append("redeal count differs")
    for name, a, b in [("stock", known.stock, truth.stock), ("waste", known.waste, truth.waste)] + [
        (f"column {i + 1} face-down", known.hidden[i], truth.hidden[i]) for i in range(7)
    ]:
        if len(a) != len(b):
            problems.append(f"{name}: {len(a)} cards tracked, {len(b)} on the table")
        elif any(x is not None and x is not y for x, y in zip(a, b)):
            problems.append(f"{name}: a tracked card is not where the table has it")
    if problems:
        raise OutOfSyncError("tracker out of sync: " + "; ".join(problems))
