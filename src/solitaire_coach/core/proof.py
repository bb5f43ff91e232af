"""Proofs that a game is won, or lost, whatever its few unseen cards are.

With only a few cards unseen (face down in the tableau, or not yet turned from the
stock), every arrangement of them can be listed: ``k`` unseen cards have ``k!``
arrangements, each a full layout the solver can search.

* **Lost**: if the solver proves every arrangement lost, no player can win, however the
  cards lie and whatever they learn on the way: the game is lost.
* **Won**: a line of play is a proof when it wins every arrangement *without looking at
  the unseen cards before they are turned up*. The search (:meth:`ProofSearch.prove`)
  takes a winning line of one arrangement and follows it for all of them: up to the first
  move that turns up an unseen card, its moves only touch cards the player sees, so they are
  legal on every arrangement. That move splits the arrangements by the card it shows;
  each part needs a proof of its own from there (the same search, one card fewer unseen),
  and the line is a proof when every part has one. A part with one arrangement left is a
  game with every card known, where the solver's win is the proof.

A card counts as turned up when it is flipped in a column or comes to the top of the
waste; in draw 3 the cards under the top of a turn (the fan) are not counted on, as a camera
need not read them (a line chosen with less is still one the player can follow).

Both answers are certain (the solver's wins are replayed move by move; its "lost" is an
exhaustive search) and depend only on what the player sees: the arrangements are listed
in a fixed order from the view, never from the true layout. Whether a proof is *found*
can depend on the limits: with ``time_limit`` (the advisor's think time) a loaded machine
may give up where an idle one finds it.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .cards import Card
from .moves import Move
from .solver import SolveResult, solve
from .state import GameState


def fill_unseen(view: GameState, cards: Iterable[Card]) -> GameState:
    """``view`` with its unknown places (tableau columns in order, then stock, then waste)
    given ``cards`` in that order; there must be exactly as many cards as places."""
    cards = list(cards)
    places = sum(x is None for pile in (*view.hidden, view.stock, view.waste) for x in pile)
    if len(cards) != places:
        raise ValueError(
            f"the position does not account for every card: {len(cards)} cards unseen for {places} unknown places"
        )
    it = iter(cards)

    def fill(pile):
        return tuple(next(it) if x is None else x for x in pile)

    return replace(view, hidden=tuple(fill(h) for h in view.hidden), stock=fill(view.stock), waste=fill(view.waste))


def arrangements(view: GameState) -> list[GameState]:
    """Every full layout consistent with ``view``, in a fixed order (one per arrangement of
    its unseen cards)."""
    return [fill_unseen(view, order) for order in itertools.permutations(view.unseen_cards())]


def _shows_unseen(view: GameState) -> bool:
    """True if the position just reached has a card to turn up that the player has not seen:
    a face-down card exposed in a column, or an unknown card on top of the waste."""
    if any(view.awaiting_flip(column) and view.hidden[column][-1] is None for column in range(7)):
        return True
    return bool(view.waste) and view.waste[-1] is None


def surely_shown(view: GameState, truth: GameState) -> GameState:
    """``view`` after a move, with the cards the move surely showed named from ``truth``:
    a flipped column card and the waste's top card. In draw 3 a turn of the stock may show
    the cards under the top as well (the fan), but a camera need not read them, so a proof
    does not count on them: a line chosen with less is still a line the player can follow."""
    for column in range(7):
        if view.awaiting_flip(column) and view.hidden[column][-1] is None:
            view = view.reveal_column(column, truth.faceup[column][0])
    if view.waste and view.waste[-1] is None:
        view = view.reveal_waste(truth.waste[-1])  # type: ignore[arg-type]
    return view


@dataclass(frozen=True)
class Proof:
    """A proven outcome: ``status`` ``"won"`` (``move`` starts a line that wins every
    arrangement) or ``"lost"``; ``unseen`` cards were unseen, in ``layouts`` arrangements."""

    status: str
    unseen: int
    layouts: int
    move: Move | None = None

    def reason(self) -> str:
        """The proof in words a person understands."""
        if self.unseen == 1:  # the card left, and its place, are known: no arrangement to choose
            if self.status == "won":
                return "this line wins: the one unseen card is known"
            return "The game cannot be won: the one unseen card is known"
        if self.status == "won":
            return f"this line wins however the {self.unseen} unseen cards lie"
        return f"The game cannot be won, however the {self.unseen} unseen cards lie"


class ProofSearch:
    """Searches for :class:`Proof` s in positions with at most ``max_unseen`` unseen cards,
    each solve with at most ``node_limit`` positions, and at most ``max_solves`` solves and
    ``time_limit`` seconds (None: no limit) a position. Remembers the moves of the proofs it
    found (and where it failed), so a game that follows a proof is answered at once;
    :meth:`clear` for a new game."""

    def __init__(
        self, max_unseen: int = 5, node_limit: int = 20_000, max_solves: int = 400, time_limit: float | None = None
    ) -> None:
        if max_unseen < 0 or node_limit < 1 or max_solves < 1:
            raise ValueError("max_unseen must be >= 0, node_limit and max_solves >= 1")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time limit must be positive, not {time_limit}")
        self.max_unseen = max_unseen
        self.node_limit = node_limit
        self.max_solves = max_solves
        self.time_limit = time_limit
        self._deadline = math.inf
        self.clear()

    def clear(self) -> None:
        """Forget every proof, failure and solve remembered so far, and the solve budget."""
        self._winning: dict[GameState, Move] = {}
        self._no_proof: set[GameState] = set()  # views prove() answered None (within its limits)
        self._no_line: set[GameState] = set()  # views where no line wins every arrangement
        self._solved: dict[GameState, SolveResult] = {}
        self._solves_left = 0
        self._spent = False  # the solve budget ran out: a failure then is not remembered

    def prove(self, view: GameState) -> Proof | None:
        """The proven outcome of ``view`` (the player's view, unseen cards ``None``), or None
        when there are too many unseen cards or the search found no proof within its limits."""
        unseen = len(view.unseen_cards())
        if unseen > self.max_unseen or view.is_won() or _shows_unseen(view):
            return None  # (a card to turn up first: the player will see it before choosing)
        layouts = math.factorial(unseen)
        if view in self._winning:
            return Proof("won", unseen, layouts, self._winning[view])
        if view in self._no_proof:
            return None
        self._start_budget(self.max_solves)
        truths = arrangements(view)
        results = [self._solve(t) for t in truths]
        if self._spent:
            return None
        if all(r.lost for r in results):  # type: ignore[union-attr]
            return Proof("lost", unseen, layouts)
        if all(r.won for r in results) and self._won(view, truths):  # type: ignore[union-attr]
            return Proof("won", unseen, layouts, self._winning[view])
        if not self._spent:
            self._no_proof.add(view)
        return None

    def _start_budget(self, solves: int) -> None:
        self._solves_left = solves
        self._spent = False
        self._deadline = math.inf if self.time_limit is None else time.perf_counter() + self.time_limit

    def _solve(self, truth: GameState) -> SolveResult | None:
        """The solver's result on one full layout (kept), None when the solve budget is spent."""
        result = self._solved.get(truth)
        if result is None:
            if self._solves_left <= 0 or time.perf_counter() > self._deadline:
                self._spent = True
                return None
            self._solves_left -= 1
            result = solve(truth, node_limit=self.node_limit, verify=False, relaxation=False)
            self._solved[truth] = result
        return result

    def _won(self, view: GameState, truths: list[GameState]) -> bool:
        """True if a line wins every layout of ``truths`` (all consistent with ``view``)
        choosing each move from what the player sees; records its moves."""
        if view in self._winning or view.is_won():
            return True
        if view in self._no_line:
            return False
        tried: set[tuple[Move, ...]] = set()
        for truth in truths:
            result = self._solve(truth)
            if result is None or not result.won:
                break  # the budget is spent, or an arrangement no line wins: no proof
            if result.moves in tried:
                continue
            tried.add(result.moves)
            if self._follow(view, truths, result.moves):
                return True
        if not self._spent:
            self._no_line.add(view)
        return False

    def _follow(self, view: GameState, truths: list[GameState], line: tuple[Move, ...]) -> bool:
        """True if ``line`` (a win on one of ``truths``), followed up to the first card it
        turns up and continued by a proof for each card that may show there, wins them all."""
        path: list[tuple[GameState, Move]] = []
        for move in line:
            path.append((view, move))
            view = view.play(move)
            truths = [t.play(move) for t in truths]
            if _shows_unseen(view):
                parts: dict[GameState, list[GameState]] = {}
                for truth in truths:
                    parts.setdefault(surely_shown(view, truth), []).append(truth)
                if not all(self._won(part, members) for part, members in parts.items()):
                    return False
                break
        else:
            if not view.is_won():
                return False
        for position, move in path:
            self._winning[position] = move
        return True
