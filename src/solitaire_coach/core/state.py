"""The Klondike game state: an immutable value, legal moves, and applying a move.

One type serves both the true layout (the virtual table and the solver know every
card) and what the coach knows (the tracker): a card the coach has not seen is
``None``. Face-down tableau cards and unseen stock cards are ``None`` in the
coach's state.

When a move uncovers a face-down card the person flips it as part of that move. If
the uncovered card is known (true layout) it is turned face up at once; if it is
unknown (coach's state) the column is left *awaiting a flip*: no face-up cards and a
face-down card on top, until :meth:`GameState.reveal_column` names the card.
Likewise a draw of an unknown stock card leaves an unknown card on top of the waste
until :meth:`GameState.reveal_waste`.

Positions are stored as:

* ``hidden[i]``: face-down cards of column i, bottom to top;
* ``faceup[i]``: face-up cards of column i, bottom to top (always a descending run of
  alternating colours);
* ``stock``: face-down stock, ``stock[0]`` is the next card to be turned;
* ``waste``: bottom to top, ``waste[-1]`` is the visible card;
* ``foundations``: the height (0..13) of each suit's foundation, suits C D H S.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from .cards import ACE, FULL_DECK, KING, RANK_NAMES, SUIT_SYMBOLS, Card, check_permutation
from .moves import IllegalMoveError, Move, MoveKind
from .rules import DEFAULT_RULES, Rules

MaybeCard = Card | None

COLUMN_COUNT = 7
TABLEAU_CARD_COUNT = 28


def _rank_words(rank: int, red: bool | None = None) -> str:
    name = {1: "ace", 11: "jack", 12: "queen", 13: "king"}.get(rank, RANK_NAMES[rank - 1])
    colour = "" if red is None else ("red " if red else "black ")
    text = colour + name
    return ("an " if text[0] in "a8" else "a ") + text


def foundation_card(suit: int, height: int) -> Card | None:
    """The top card of a foundation of ``suit`` holding ``height`` cards (None if empty)."""
    return Card(height, suit) if height else None


@dataclass(frozen=True)
class GameState:
    """An immutable Klondike position plus the rules it is played under.

    Built by ``from_deal`` and by playing moves; the constructor itself trusts its fields
    (tuples throughout, as the moves build them: it is on the search's hot path). A
    position built by hand or read from outside is checked with ``check_position``, which
    names what makes it no Klondike position."""

    hidden: tuple[tuple[MaybeCard, ...], ...]
    faceup: tuple[tuple[Card, ...], ...]
    stock: tuple[MaybeCard, ...]
    waste: tuple[MaybeCard, ...]
    foundations: tuple[int, int, int, int] = (0, 0, 0, 0)
    redeals_used: int = 0
    rules: Rules = field(default=DEFAULT_RULES)

    # construction -------------------------------------------------------------------
    @staticmethod
    def from_deal(deal: Sequence[Card], rules: Rules = DEFAULT_RULES) -> GameState:
        """The layout right after dealing ``deal`` (see :mod:`notation` for the deal order)
        and turning the first stock card(s) onto the waste, as the person does."""
        cards = list(deal)
        check_permutation(cards)
        hidden, faceup, pos = [], [], 0
        for column in range(COLUMN_COUNT):
            pile = cards[pos : pos + column + 1]
            pos += column + 1
            hidden.append(tuple(pile[:-1]))
            faceup.append((pile[-1],))
        stock = tuple(cards[TABLEAU_CARD_COUNT:])
        state = GameState(tuple(hidden), tuple(faceup), stock, (), rules=rules)
        return state.play(Move.draw())

    def masked(self, seen: Iterable[Card] = ()) -> GameState:
        """This position as a player sees it: face-down tableau cards become unknown, and
        stock cards unknown unless in ``seen``. Face-down waste cards (draw 3) also."""
        seen_set = set(seen)
        return replace(
            self,
            hidden=tuple(tuple(None for _ in h) for h in self.hidden),
            stock=tuple(c if c in seen_set else None for c in self.stock),
            waste=tuple(c if (c in seen_set or i == len(self.waste) - 1) else None for i, c in enumerate(self.waste)),
        )

    # queries --------------------------------------------------------------------------
    def foundation_top(self, suit: int) -> Card | None:
        """The top card of the foundation of ``suit`` (0..3), None if it is empty."""
        return foundation_card(suit, self.foundations[suit])

    def waste_top(self) -> MaybeCard:
        """The waste's top card, None if the waste is empty (or the card is unknown)."""
        return self.waste[-1] if self.waste else None

    def column_top(self, column: int) -> MaybeCard:
        """The top face-up card of ``column`` (0..6), None if it has none."""
        run = self.faceup[column]
        return run[-1] if run else None

    def awaiting_flip(self, column: int) -> bool:
        """True if the column's top card is face down (exposed but not yet turned)."""
        return not self.faceup[column] and bool(self.hidden[column])

    def is_won(self) -> bool:
        """True if every card is on the foundations."""
        return self.foundations == (13, 13, 13, 13)

    def is_complete_knowledge(self) -> bool:
        """True if no card of the position is unknown."""
        return (
            all(c is not None for h in self.hidden for c in h)
            and all(c is not None for c in self.stock)
            and all(c is not None for c in self.waste)
        )

    def __hash__(self) -> int:
        # positions are hashed often by searches; compute once (the value is immutable)
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(
                (self.hidden, self.faceup, self.stock, self.waste, self.foundations, self.redeals_used, self.rules)
            )
            object.__setattr__(self, "_hash", h)
        return h

    def known_cards(self) -> frozenset[Card]:
        """Every card whose place is known (cached: the value is immutable)."""
        cached = self.__dict__.get("_known")
        if cached is not None:
            return cached
        known = {Card(r, s) for s in range(4) for r in range(1, self.foundations[s] + 1)}
        for run in self.faceup:
            known.update(run)
        for pile in (*self.hidden, self.stock, self.waste):
            known.update(c for c in pile if c is not None)
        frozen = frozenset(known)
        object.__setattr__(self, "_known", frozen)
        return frozen

    def unseen_cards(self) -> list[Card]:
        """Cards whose place is not known (face-down or not yet seen), in index order."""
        known = self.known_cards()
        return [c for c in FULL_DECK if c not in known]

    def redeals_left(self) -> int | None:
        """How many more times the waste may be turned over (None: unlimited)."""
        return self.rules.redeals_left(self.redeals_used)

    # moves ----------------------------------------------------------------------------
    def legal_moves(self, include_pointless: bool = False) -> list[Move]:
        """Every legal move, in a fixed order: foundation moves, column moves, waste moves,
        foundation returns, then draw/redeal.

        Moving a whole column headed by a king from one empty space to another is legal
        but changes nothing that matters; it is left out unless ``include_pointless``."""
        moves: list[Move] = []
        f = self.foundations
        tops = [self.column_top(i) for i in range(COLUMN_COUNT)]
        for i, top in enumerate(tops):
            if top is not None and f[top.suit] + 1 == top.rank:
                moves.append(Move.column_to_foundation(i))
        w = self.waste_top()
        if w is not None and f[w.suit] + 1 == w.rank:
            moves.append(Move.waste_to_foundation())
        where: dict[Card, int] = {}
        for i, run in enumerate(self.faceup):
            for card in run:
                where[card] = i
        pairs = []
        for j, dest in enumerate(self.faceup):
            if dest:
                top = dest[-1]
                if top.rank == ACE:
                    continue
                for suit in (0, 3) if top.is_red else (1, 2):
                    i = where.get(Card(top.rank - 1, suit), j)
                    if i != j:
                        pairs.append((i, j))
            elif not self.hidden[j]:
                for i, run in enumerate(self.faceup):
                    # a run descends, so a king can only head it
                    if i != j and run and run[0].rank == KING and (self.hidden[i] or include_pointless):
                        pairs.append((i, j))
        pairs.sort()
        moves.extend(Move.column_to_column(i, j) for i, j in pairs)
        if w is not None:
            for j in range(COLUMN_COUNT):
                if self._fits_column(w, j):
                    moves.append(Move.waste_to_column(j))
        if self.rules.foundation_return:
            for s in range(4):
                if f[s]:
                    card = Card(f[s], s)
                    for j in range(COLUMN_COUNT):
                        if self._fits_column(card, j):
                            moves.append(Move.foundation_to_column(s, j))
        if self.stock:
            moves.append(Move.draw())
        elif self.waste and self.redeals_left() != 0:
            moves.append(Move.redeal())
        return moves

    def is_legal(self, move: Move) -> bool:
        """True if ``move`` may be played here (``check`` says why not)."""
        try:
            self.check(move)
        except IllegalMoveError:
            return False
        return True

    def _fits_column(self, card: Card, column: int) -> bool:
        run = self.faceup[column]
        if run:
            return card.goes_on_tableau(run[-1])
        return not self.hidden[column] and card.rank == KING

    def _run_start(self, source: int, target: int) -> int | None:
        """Index in column ``source``'s face-up run of the card that fits ``target``."""
        run = self.faceup[source]
        dest = self.faceup[target]
        if dest:
            top = dest[-1]
            for k, card in enumerate(run):
                if card.goes_on_tableau(top):
                    return k
            return None
        if self.hidden[target]:
            return None
        # empty column: only a king, or a run headed by a king (a king can only head a run)
        return 0 if run[0].rank == KING else None

    def moving_cards(self, move: Move) -> tuple[Card, ...]:
        """The card(s) the move takes (after checking it is legal)."""
        self.check(move)
        k = move.kind
        if k is MoveKind.DRAW:
            return tuple(c for c in self.stock[: self.rules.draw_count] if c is not None)
        if k is MoveKind.REDEAL:
            return ()
        if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.WASTE_TO_COLUMN):
            return (self.waste[-1],)  # type: ignore[return-value]
        if k is MoveKind.COLUMN_TO_FOUNDATION:
            return (self.faceup[move.source][-1],)
        if k is MoveKind.COLUMN_TO_COLUMN:
            start = self._run_start(move.source, move.target)
            return self.faceup[move.source][start:]
        return (Card(self.foundations[move.source], move.source),)

    def check(self, move: Move) -> None:
        """Raise IllegalMoveError saying why, for a player, unless ``move`` is legal."""
        k = move.kind
        if k is MoveKind.DRAW:
            if not self.stock:
                raise IllegalMoveError(
                    "the stock is empty: turn the waste over instead"
                    if self.waste
                    else "the stock and the waste are both empty"
                )
            return
        if k is MoveKind.REDEAL:
            if self.stock:
                raise IllegalMoveError("the waste can only be turned over when the stock is empty")
            if not self.waste:
                raise IllegalMoveError("the waste is empty: there is nothing to turn over")
            if self.redeals_left() == 0:
                limit = self.rules.redeal_limit
                if limit == 0:
                    raise IllegalMoveError("these rules allow no redeal: the waste cannot be turned over")
                times = "once" if limit == 1 else f"{limit} times"
                raise IllegalMoveError(f"the waste has already been turned over {times}, the most these rules allow")
            return
        if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.WASTE_TO_COLUMN):
            if not self.waste:
                raise IllegalMoveError("the waste is empty")
            card = self.waste[-1]
            if card is None:
                raise IllegalMoveError("the top card of the waste has not been seen yet")
            if k is MoveKind.WASTE_TO_FOUNDATION:
                self._check_foundation(card)
            else:
                self._check_column_target(card, move.target)
            return
        if k is MoveKind.COLUMN_TO_FOUNDATION:
            card = self._top_or_raise(move.source)
            self._check_foundation(card)
            return
        if k is MoveKind.COLUMN_TO_COLUMN:
            run = self.faceup[move.source]
            self._top_or_raise(move.source)
            if self._run_start(move.source, move.target) is None:
                dest = self.faceup[move.target]
                if dest:
                    top = dest[-1]
                    raise IllegalMoveError(
                        f"no card of column {move.source + 1} can go on {top.symbol} in column {move.target + 1}: "
                        f"{run[-1].symbol} cannot go on {top.symbol}: it needs {_rank_words(top.rank - 1, not top.is_red)}"
                    )
                if self.hidden[move.target]:
                    raise IllegalMoveError(f"column {move.target + 1} has a face-down card on top: turn it over first")
                if run[0].rank == KING and not self.hidden[move.source]:
                    raise IllegalMoveError(
                        f"{run[0].symbol} already heads column {move.source + 1}: moving it to another empty column gains nothing"
                    )
                raise IllegalMoveError(
                    f"only a king, or a run headed by a king, can go into the empty column {move.target + 1}"
                )
            return
        if k is MoveKind.FOUNDATION_TO_COLUMN:
            if not self.rules.foundation_return:
                raise IllegalMoveError("a card on a foundation never comes back to the tableau under these rules")
            height = self.foundations[move.source]
            if not height:
                raise IllegalMoveError(f"the {SUIT_SYMBOLS[move.source]} foundation is empty")
            self._check_column_target(Card(height, move.source), move.target)
            return
        raise IllegalMoveError(f"unknown move {move!r}")

    def _top_or_raise(self, column: int) -> Card:
        run = self.faceup[column]
        if not run:
            if self.hidden[column]:
                raise IllegalMoveError(f"column {column + 1} shows a face-down card: turn it over first")
            raise IllegalMoveError(f"column {column + 1} is empty")
        return run[-1]

    def _check_foundation(self, card: Card) -> None:
        height = self.foundations[card.suit]
        if card.rank != height + 1:
            if height == 0:
                raise IllegalMoveError(
                    f"{card.symbol} cannot go to the empty {SUIT_SYMBOLS[card.suit]} foundation: it needs the ace first"
                )
            top = Card(height, card.suit)
            if card.rank <= height:
                raise IllegalMoveError(f"{card.symbol} cannot go on {top.symbol}: it is already on the foundation")
            raise IllegalMoveError(
                f"{card.symbol} cannot go on {top.symbol} on the foundation: it needs {_rank_words(height + 1)} first"
            )

    def _check_column_target(self, card: Card, column: int) -> None:
        run = self.faceup[column]
        if run:
            top = run[-1]
            if not card.goes_on_tableau(top):
                if top.rank == ACE:
                    raise IllegalMoveError(
                        f"{card.symbol} cannot go on {top.symbol}: nothing goes on an ace in a column"
                    )
                raise IllegalMoveError(
                    f"{card.symbol} cannot go on {top.symbol}: it needs {_rank_words(top.rank - 1, not top.is_red)}"
                )
            return
        if self.hidden[column]:
            raise IllegalMoveError(f"column {column + 1} has a face-down card on top: turn it over first")
        if card.rank != KING:
            raise IllegalMoveError(f"{card.symbol} cannot go into the empty column {column + 1}: only a king can")

    def play(self, move: Move) -> GameState:
        """The position after ``move`` (including the flip it exposes); raises IllegalMoveError."""
        self.check(move)
        k = move.kind
        if k is MoveKind.DRAW:
            n = self.rules.draw_count
            drawn = self.stock[:n]
            return _evolve(self, stock=self.stock[n:], waste=self.waste + drawn)
        if k is MoveKind.REDEAL:
            return _evolve(self, stock=self.waste, waste=(), redeals_used=self.redeals_used + 1)
        if k is MoveKind.WASTE_TO_FOUNDATION:
            card = self.waste[-1]
            return _evolve(self, waste=self.waste[:-1], foundations=_raised(self.foundations, card.suit))  # type: ignore[union-attr]
        if k is MoveKind.WASTE_TO_COLUMN:
            card = self.waste[-1]
            return _evolve(
                self, waste=self.waste[:-1], faceup=_set(self.faceup, move.target, self.faceup[move.target] + (card,))
            )
        if k is MoveKind.COLUMN_TO_FOUNDATION:
            card = self.faceup[move.source][-1]
            state = _evolve(
                self,
                foundations=_raised(self.foundations, card.suit),
                faceup=_set(self.faceup, move.source, self.faceup[move.source][:-1]),
            )
            return state._flip(move.source)
        if k is MoveKind.COLUMN_TO_COLUMN:
            start = self._run_start(move.source, move.target)
            run = self.faceup[move.source]
            faceup = _set(self.faceup, move.source, run[:start])
            faceup = _set(faceup, move.target, faceup[move.target] + run[start:])
            return _evolve(self, faceup=faceup)._flip(move.source)
        # foundation to column
        card = Card(self.foundations[move.source], move.source)
        f = list(self.foundations)
        f[move.source] -= 1
        return _evolve(
            self, foundations=tuple(f), faceup=_set(self.faceup, move.target, self.faceup[move.target] + (card,))
        )

    def _flip(self, column: int) -> GameState:
        if self.faceup[column] or not self.hidden[column] or self.hidden[column][-1] is None:
            return self
        h = self.hidden[column]
        return _evolve(self, hidden=_set(self.hidden, column, h[:-1]), faceup=_set(self.faceup, column, (h[-1],)))

    def play_all(self, moves: Iterable[Move]) -> GameState:
        """The position after playing ``moves`` in order (IllegalMoveError at the first illegal one)."""
        state = self
        for move in moves:
            state = state.play(move)
        return state

    # revealing unknown cards (the tracker's view) ------------------------------------
    def reveal_column(self, column: int, card: Card) -> GameState:
        """Turn the face-down top card of an awaiting-flip column face up as ``card``."""
        if not self.awaiting_flip(column):
            raise ValueError(f"column {column + 1} has no face-down card waiting to be turned")
        h = self.hidden[column]
        if h[-1] is not None and h[-1] != card:
            raise ValueError(f"column {column + 1}: expected {h[-1].symbol} to be turned, saw {card.symbol}")
        self._check_unseen(card)
        return _evolve(self, hidden=_set(self.hidden, column, h[:-1]), faceup=_set(self.faceup, column, (card,)))

    def reveal_waste(self, card: Card) -> GameState:
        """Name the unknown top card of the waste."""
        if not self.waste or self.waste[-1] is not None:
            raise ValueError("the top card of the waste is not unknown")
        self._check_unseen(card)
        return _evolve(self, waste=self.waste[:-1] + (card,))

    def reveal_waste_card(self, depth: int, card: Card) -> GameState:
        """Name the unknown waste card ``depth`` places below the top (0 = the top), as
        seen in the fan of a draw-3 turn."""
        if not 0 <= depth < len(self.waste) or self.waste[-1 - depth] is not None:
            raise ValueError(f"the waste card {depth} below the top is not unknown")
        self._check_unseen(card)
        i = len(self.waste) - 1 - depth
        return _evolve(self, waste=self.waste[:i] + (card,) + self.waste[i + 1 :])

    def _check_unseen(self, card: Card) -> None:
        if card in self.known_cards():
            raise ValueError(f"{card.symbol} is already known to be elsewhere")

    # presentation -----------------------------------------------------------------
    def __str__(self) -> str:
        return render_text(self)


def _evolve(state: GameState, **changes) -> GameState:
    """A copy of ``state`` with some fields changed (a fast ``dataclasses.replace``)."""
    new = object.__new__(GameState)
    d = new.__dict__
    old = state.__dict__
    d["hidden"] = changes.get("hidden", old["hidden"])
    d["faceup"] = changes.get("faceup", old["faceup"])
    d["stock"] = changes.get("stock", old["stock"])
    d["waste"] = changes.get("waste", old["waste"])
    d["foundations"] = changes.get("foundations", old["foundations"])
    d["redeals_used"] = changes.get("redeals_used", old["redeals_used"])
    d["rules"] = old["rules"]
    return new


def _set(t: tuple, i: int, value) -> tuple:
    return t[:i] + (value,) + t[i + 1 :]


def _raised(f: tuple[int, int, int, int], suit: int) -> tuple[int, int, int, int]:
    lst = list(f)
    lst[suit] += 1
    return tuple(lst)  # type: ignore[return-value]


def check_position(state: GameState) -> None:
    """Raise ValueError naming the first thing that makes ``state`` no Klondike position:
    not 7 columns or 4 foundations, a foundation outside 0..13, a face-up column that is no
    descending run of alternating colours, a card in two places, not 52 cards in all, or
    more redeals used than the rules allow. For positions read from outside (a journal)."""
    if len(state.hidden) != COLUMN_COUNT or len(state.faceup) != COLUMN_COUNT:
        raise ValueError(
            f"the position has {len(state.hidden)} face-down and {len(state.faceup)} face-up "
            f"columns, not {COLUMN_COUNT}"
        )
    if len(state.foundations) != 4:
        raise ValueError(f"the position has {len(state.foundations)} foundations, not 4")
    for suit, height in enumerate(state.foundations):
        if not isinstance(height, int) or not 0 <= height <= KING:
            raise ValueError(f"the {SUIT_SYMBOLS[suit]} foundation holds {height!r} cards: 0 to 13 allowed")
    for i, run in enumerate(state.faceup):
        for lower, upper in zip(run, run[1:]):
            if upper.rank != lower.rank - 1 or upper.is_red == lower.is_red:
                raise ValueError(
                    f"column {i + 1}: {upper.symbol} lies on {lower.symbol}, which is no descending run "
                    f"of alternating colours"
                )
    places: dict[Card, str] = {
        Card(r, s): f"the {SUIT_SYMBOLS[s]} foundation" for s in range(4) for r in range(1, state.foundations[s] + 1)
    }
    piles = [(f"column {i + 1}", (*h, *f)) for i, (h, f) in enumerate(zip(state.hidden, state.faceup))]
    unknown = 0
    for name, pile in [*piles, ("the stock", state.stock), ("the waste", state.waste)]:
        for card in pile:
            if card is None:
                unknown += 1
            elif card in places:
                raise ValueError(f"{card.symbol} is in two places: {places[card]} and {name}")
            else:
                places[card] = name
    if len(places) + unknown != len(FULL_DECK):
        raise ValueError(
            f"the position holds {len(places) + unknown} cards ({len(places)} known, {unknown} unknown), not 52"
        )
    limit = state.rules.redeal_limit
    if state.redeals_used < 0 or (limit is not None and state.redeals_used > limit):
        raise ValueError(f"{state.redeals_used} redeals used: the rules allow 0 to {limit}")


def render_text(state: GameState) -> str:
    """A plain-text picture of the position for the terminal (unknown cards as ``??``)."""

    def c(card: MaybeCard) -> str:
        return card.symbol if card is not None else "??"

    f = "  ".join(c(state.foundation_top(s)) if state.foundations[s] else "[" + SUIT_SYMBOLS[s] + "]" for s in range(4))
    lines = [
        f"stock {len(state.stock):2d}   waste {c(state.waste_top()) if state.waste else '--'} ({len(state.waste)})   foundations {f}"
    ]
    for i in range(COLUMN_COUNT):
        cards = ["##"] * len(state.hidden[i]) + [card.symbol for card in state.faceup[i]]
        lines.append(f"  {i + 1}: " + " ".join(cards))
    return "\n".join(lines)


def stock_cycle(state: GameState, max_moves: int | None = None) -> Iterator[tuple[tuple[Move, ...], GameState]]:
    """Positions reached by 1, 2, ... consecutive stock turns/redeals (one full cycle at most,
    or ``max_moves``), each with the turns that reach it."""
    moves: list[Move] = []
    limit = len(state.stock) + len(state.waste) + 1
    if max_moves is not None:
        limit = min(limit, max_moves)
    for _ in range(limit):
        if state.stock:
            move = Move.draw()
        elif state.waste and state.redeals_left() != 0:
            move = Move.redeal()
        else:
            return
        state = state.play(move)
        moves.append(move)
        yield tuple(moves), state


def first_difference(start: GameState, played: Sequence[Move], other: Sequence[Move], window: int = 4) -> int | None:
    """The index (in ``played``) of the first move at which two move lists from ``start``
    are different games, or None when they are the same game: move for move, or with a few
    moves in a row (at most ``window``) played in another order that ends in the same
    position, or with a move and its reverse made at once (a pair that changes nothing) in
    one list only.

    A camera that misses a picture sees two moves at once, say a draw and a card put from
    column 6 on column 1, and no picture can show which came first; either order is the
    same game. A stretch counts as reordered only when it holds the same moves (as
    written) and both orders are legal and end in the same position. The coach's tracker
    takes a move made straight back as the move taken back (no picture tells it from a
    misread), so a log that holds the pair and a history that does not are the same game.
    A move that cannot be played from where the lists have led (two lists of another deal
    than ``start``'s) is a difference there."""
    position = start
    i = k = 0
    while i < len(played) and k < len(other):
        if played[i].text == other[k].text:
            try:
                position = position.play(played[i])
            except IllegalMoveError:
                return i  # not a game from ``start`` at all (a log of another deal, say)
            i += 1
            k += 1
            continue
        if _made_straight_back(position, played, i):
            i += 2
            continue
        if _made_straight_back(position, other, k):
            k += 2
            continue
        for n in range(2, min(window, len(played) - i, len(other) - k) + 1):
            if sorted(m.text for m in played[i : i + n]) != sorted(m.text for m in other[k : k + n]):
                continue
            try:
                ends = [position.play_all(played[i : i + n]), position.play_all(other[k : k + n])]
            except IllegalMoveError:
                continue
            if ends[0] == ends[1]:
                position = ends[0]
                i += n
                k += n
                break
        else:
            return i
    while i < len(played) and _made_straight_back(position, played, i):
        i += 2
    while k < len(other) and _made_straight_back(position, other, k):
        k += 2
    return None if i == len(played) and k == len(other) else i


def without_moves_made_back(start: GameState, moves: Sequence[Move]) -> list[Move]:
    """``moves`` from ``start`` without each move made and at once made back (a pair that
    changes nothing): the history the coach's tracker keeps of such a game. Stops leaving
    out at the first move that cannot be played."""
    out: list[Move] = []
    position = start
    i = 0
    while i < len(moves):
        if _made_straight_back(position, moves, i):
            i += 2
            continue
        out.append(moves[i])
        try:
            position = position.play(moves[i])
        except IllegalMoveError:
            return out + list(moves[i + 1 :])
        i += 1
    return out


def _made_straight_back(position: GameState, moves: Sequence[Move], i: int) -> bool:
    """Whether ``moves[i]`` and the move after it, played from ``position``, are a move and
    its reverse: the position afterwards the same."""
    if i + 1 >= len(moves):
        return False
    try:
        return position.play(moves[i]).play(moves[i + 1]) == position
    except IllegalMoveError:
        return False


def random_deal(rng: random.Random) -> list[Card]:
    """A shuffled deck in deal order."""
    cards = list(FULL_DECK)
    rng.shuffle(cards)
    return cards


def deal_for_seed(seed: int) -> list[Card]:
    """The deal numbered ``seed`` (deterministic on every machine)."""
    return random_deal(random.Random(seed))
