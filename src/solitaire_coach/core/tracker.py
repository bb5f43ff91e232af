"""The table tracker: merges each 12-slot snapshot into the full game state.

The camera shows only the top card of each pile; the tracker remembers everything
else: how many face-down cards each column has, every column's face-up run, the
foundations, the stock and waste (contents and order, as far as seen) and the redeals
used. Unknown cards are ``None`` in its :class:`GameState`, so it never claims to know
a face-down card.

On each snapshot it looks for the shortest sequence of legal moves that explains the
change (iterative deepening over moves, where a run of stock turns and redeals counts
as one step, up to :attr:`TableTracker.max_steps` steps) and reports one of

* ``started``      the first snapshot of a fresh deal started a game;
* ``moves``        the move(s) the player made (``report.moves``);
* ``taken back``   the snapshot shows the position before the last move(s) again, which
  no legal move leads back to (or only a longer way round): the read that showed those
  moves was wrong, and they are taken back (``report.undone``); or it shows, exactly, one
  of the last ``undo_depth`` positions of the game: the person put the cards back as
  they were (an undo, which no rule allows but every person does), and the moves since
  are taken back. Where the last move can be made back by one legal move (a run moved
  between two equal parents, a king's run between empty columns, a card put up and
  taken down), that is a take-back too, not a second move: the pair would change
  nothing, and no picture tells a person's move made back from a misread that looked
  like a legal move, so it leaves no trace in the history (the recorded game1 has such
  a pair, ``5-6`` and ``6-5``; :func:`state.first_difference` passes over it). The move
  back is reported as a move only where the coach advised it;
* ``revealed``     no move, but a card that was unknown was seen (a late flip);
* ``no change``    nothing happened;
* ``waiting``      the snapshot cannot start a game yet (for instance a UU column);
* ``inconsistent`` the snapshot cannot follow from the last state by legal moves. The
  message names the slot, what was expected and what was seen (or an illegal
  placement: "5♥ was put on 7♣: take it back"). The state is kept, so the next good
  snapshot continues the game.

Decisions (documented here because the issue leaves them open):

* A column whose newly exposed card has not been turned yet may read ``UU`` or ``XX``
  (the detector sees a card back, which has no code of its own).
* Foundation slots are compared as a set of piles, in any order; ``UU`` matches any.
* When several sequences explain a snapshot equally, the first found wins (moves to
  the foundation before column moves before waste moves before stock turns), except
  that one starting with the move the coach advised (``update(snap, prefer=move)``)
  wins over any other of as few moves: the person more likely followed the advice.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from .cards import KING, SUIT_NAMES, Card, is_whole_number
from .moves import Move, MoveKind
from .notation import (
    EMPTY,
    UNKNOWN,
    SlotValue,
    Snapshot,
    json_text,
    json_type,
    repeated_cards,
    rules_from_dict,
    slot_name,
    state_from_dict,
    state_to_dict,
)
from .rules import DEFAULT_RULES, Rules
from .state import COLUMN_COUNT, GameState, stock_cycle


class Placement(NamedTuple):
    """A card the snapshot shows where no legal move could have put it: the card, the pile
    it lies on (``column 4``, ``foundation``) and what to tell the player."""

    card: Card
    pile: str
    text: str


@dataclass(frozen=True)
class TrackerReport:
    """What the tracker made of one snapshot: its ``kind`` (started, moves, no change,
    revealed, taken back, waiting or inconsistent), the moves found and a message."""

    kind: str
    moves: tuple[Move, ...] = ()
    message: str = ""
    corrected: bool = False  # earlier moves were re-read to explain this snapshot
    undone: tuple[Move, ...] = ()  # moves of the earlier explanation that the re-read drops
    misread: bool = False  # the explanation holds that an earlier snapshot was misread
    put_wrong: tuple[Placement, ...] = ()  # inconsistent: the cards put down against the rules, to take back

    @property
    def accepted(self) -> bool:
        """True if the snapshot was merged into the state (anything but inconsistent/waiting)."""
        return self.kind in ("started", "moves", "taken back", "revealed", "no change")


class _Mismatch(Exception):
    pass


def _view_matches(state: GameState, snap: Snapshot) -> GameState | None:
    """If ``snap`` is what a camera could see of ``state``, return ``state`` with the
    unknown cards that the snapshot shows filled in; else None."""
    try:
        return _merge_view(state, snap)
    except _Mismatch:
        return None


def _merge_view(state: GameState, snap: Snapshot) -> GameState:
    reveals: list[tuple[str, int, Card]] = []
    if snap.stock is not None and bool(state.stock) != snap.stock:  # a pile seen, or its place seen empty
        raise _Mismatch
    # waste
    w = snap.waste
    if state.waste:
        top = state.waste[-1]
        if top is None:
            if isinstance(w, Card):
                reveals.append(("waste", 0, w))
            elif w is EMPTY:
                raise _Mismatch
        elif w is not UNKNOWN and w is not top:
            raise _Mismatch
    elif w is not EMPTY and w is not UNKNOWN:
        raise _Mismatch
    fan = snap.waste_fan
    if fan is not None:  # the visible fan of the last draw-3 turn: the top cards of the waste
        if len(fan) > len(state.waste):
            raise _Mismatch
        for depth in range(len(fan)):
            card = fan[-1 - depth]
            have = state.waste[-1 - depth]
            if have is None:
                if depth or not isinstance(w, Card):
                    reveals.append(("waste", depth, card))
            elif have is not card:
                raise _Mismatch
    # foundations (a set of piles in any order) and columns
    if not _table_fits(state, snap):
        raise _Mismatch
    for i, v in enumerate(snap.columns):  # a card seen where a column's top is face down: turned up
        if not state.faceup[i] and state.hidden[i] and isinstance(v, Card):
            reveals.append(("column", i, v))
    if snap.runs is not None:
        for i, seen in enumerate(snap.runs):
            if seen is None:
                continue
            run = state.faceup[i]
            if not run and any(r[0] == "column" and r[1] == i for r in reveals):
                run = (seen[-1],)
            if tuple(run[-len(seen) :]) != tuple(seen) or len(seen) > len(run):
                raise _Mismatch
    if not reveals:
        return state
    cards = [c for _, _, c in reveals]
    if len(set(cards)) != len(cards):
        raise _Mismatch
    known = state.known_cards()
    if any(c in known for c in cards):
        raise _Mismatch
    for where, i, card in reveals:
        state = state.reveal_waste_card(i, card) if where == "waste" else state.reveal_column(i, card)
    return state


def _steps(
    state: GameState, max_moves: int | None = None, novel: frozenset[Card] = frozenset(), open_turns: bool = False
) -> Iterator[tuple[tuple[Move, ...], GameState]]:
    """One tracker step: a single non-stock move, or a run of stock turns (at most
    ``max_moves`` moves). ``novel`` are cards the snapshot shows that were unknown: an
    unseen waste top or an unturned column top may have been one of them and been
    moved on before the snapshot."""
    if max_moves is not None and max_moves < 1:
        return
    for move in state.legal_moves(include_pointless=True):
        if move.kind in (MoveKind.DRAW, MoveKind.REDEAL):
            continue
        yield (move,), state.play(move)
    if novel:
        yield from _novel_steps(state, novel)
    # with ``open_turns`` a run of stock turns is one step of any length: a person flicks
    # through the stock faster than a camera reads, so how many turns went unseen is kept
    # open (see _Hypothesis.slack)
    # (a run of n turns adds at most 1 + (n + 1) // 3 to an explanation's weight, so
    # ``max_moves``, the room left in weight, bounds it at 3 * max_moves + 1 turns)
    if open_turns:
        yield from stock_cycle(state, None if max_moves is None else 3 * max_moves + 1)
    else:
        yield from stock_cycle(state, max_moves)


def _novel_steps(state: GameState, novel: frozenset[Card]) -> Iterator[tuple[tuple[Move, ...], GameState]]:
    """The steps of :func:`_steps` that name a card of ``novel`` unseen before: the
    waste's unknown top played on, or a column's card turned over (and maybe covered)."""
    waste_unknown = bool(state.waste) and state.waste[-1] is None
    if not waste_unknown and not any(state.awaiting_flip(column) for column in range(COLUMN_COUNT)):
        return  # (no card to name: the known cards need not be worked out)
    candidates = novel - state.known_cards()
    if candidates and waste_unknown:
        for card in sorted(candidates):
            # (the waste moves of ``legal_moves`` once the top is named, in its order, worked
            # out without it: most candidates fit nowhere, and naming the card costs more)
            moves = _waste_moves(state, card)
            if moves:
                seen = state.reveal_waste(card)
                for move in moves:
                    yield (move,), seen.play(move)
    for column in range(COLUMN_COUNT):
        if candidates and state.awaiting_flip(column):
            # the person turned the card over and went on before the snapshot:
            # a step of no move that names the card (it may since have been covered), and
            # the card named and at once played on or covered, one step like the waste's
            # (a card turned over and moved on between two photos: 4-3 draw 4-5 of game1
            # every 3 moves took four steps, past the search's horizon)
            for card in sorted(candidates):
                seen = state.reveal_column(column, card)
                yield (), seen
                for move in seen.legal_moves(include_pointless=True):
                    if (move.kind in _FROM_COLUMN and move.source == column) or (
                        move.kind in _ONTO_COLUMN and move.target == column
                    ):
                        yield (move,), seen.play(move)


def _waste_moves(state: GameState, card: Card) -> list[Move]:
    """The moves of ``card`` as the waste's top in ``state``, in :meth:`GameState.legal_moves`'
    order: to its foundation, then to each column it fits."""
    moves = [Move.waste_to_foundation()] if state.foundations[card.suit] + 1 == card.rank else []
    moves += [Move.waste_to_column(j) for j in range(COLUMN_COUNT) if state._fits_column(card, j)]
    return moves


def _extra_turns(path: Sequence[Move]) -> int:
    """Stock turns of ``path`` beyond the first of each run of them (draws and redeals in a
    row): the turns an explanation assumes went unseen between two reads."""
    extra = 0
    for before, move in zip(path, path[1:]):
        if move.kind in (MoveKind.DRAW, MoveKind.REDEAL) and before.kind in (MoveKind.DRAW, MoveKind.REDEAL):
            extra += 1
    return extra


@dataclass(frozen=True)
class _Hypothesis:
    cost: int  # moves assumed since the start (fewer is likelier)
    state: GameState
    history: tuple[Move, ...]
    misread: bool = False  # holds that a snapshot since the last report was misread
    slack: int = 0  # stock turns of ``cost`` assumed unseen beyond one a run (see _extra_turns)
    widened: bool = False  # one of the splits of a talon kept open (see _widened), or grown from one

    def weight(self, open_turns: bool) -> int:
        """The cost that decides whether the explanation is kept open. With ``open_turns``
        stock turns assumed unseen count one for each three (a person flicks through the
        stock faster than the camera reads, and the camera cannot count the turns), so that
        with the default margin of 2 a run of up to 7 unseen turns stays open beside one
        seen turn; else each counts one, as any move."""
        return self.cost - self.slack + (self.slack + 2) // 3 if open_turns else self.cost


class SearchNotes(NamedTuple):
    """How the last accepted read was explained (for benchmarks and for saying when the
    explanations kept may not hold the real position): every explanation found (``found``,
    ranked), how many were dropped as too costly (``over_margin``) and for the cap
    (``over_cap``), whether the search stopped at its node budget (``cut_short``) and
    whether the longer search for many unseen moves gave the explanation (``deep``)."""

    found: tuple
    over_margin: int
    over_cap: int
    cut_short: bool
    deep: bool


DEEP_MORE_NODES = 4000
"""How many more positions the longer search looks at after its first explanation."""

DEEP_ALTERNATIVES = 3
"""How many explanations besides the likeliest the longer search starts from, one after
another, where none is found from the likeliest (each costs up to ``deep_node_limit``)."""

WIDENED_CLASSES = 4
"""After a read that moves went unseen before, for how many of the explanations (those
that differ outside the stock and the waste) every split of the talon is kept open."""

TURNED_CLASSES = 1
"""After a read explained with a stock turn, where the picture says whether a stock pile is
there, for how many explanations every split of the talon (with the same redeals or one
more, and a stock empty or not as in the explanation) is kept open: a turn seen may have
been several, and a redeal among them."""


_TURNS = (MoveKind.DRAW, MoveKind.REDEAL)
_FROM_COLUMN = (MoveKind.COLUMN_TO_FOUNDATION, MoveKind.COLUMN_TO_COLUMN)
_ONTO_COLUMN = (MoveKind.COLUMN_TO_COLUMN, MoveKind.WASTE_TO_COLUMN, MoveKind.FOUNDATION_TO_COLUMN)
_TABLE_MOVES = (MoveKind.COLUMN_TO_FOUNDATION, MoveKind.COLUMN_TO_COLUMN, MoveKind.FOUNDATION_TO_COLUMN)
_KIND_ORDER = {
    MoveKind.COLUMN_TO_FOUNDATION: 0,
    MoveKind.WASTE_TO_FOUNDATION: 1,
    MoveKind.COLUMN_TO_COLUMN: 2,
    MoveKind.WASTE_TO_COLUMN: 3,
    MoveKind.FOUNDATION_TO_COLUMN: 4,
}


def _legal_order(move: Move) -> tuple[int, int, int]:
    """Where ``move`` comes in :meth:`GameState.legal_moves`' order (stock turns aside)."""
    return (_KIND_ORDER[move.kind], move.source, move.target)


def _foundations_fit(state: GameState, snap: Snapshot) -> bool:
    """Can the four foundation slots of ``snap`` (a set of piles in any order) be a view of
    ``state``'s foundations?"""
    unknown_slots = empty_slots = 0
    shown = set()
    for v in snap.foundations:
        if v is UNKNOWN:
            unknown_slots += 1
        elif v is EMPTY:
            empty_slots += 1
        else:
            if state.foundations[v.suit] != v.rank or v.suit in shown:  # type: ignore[union-attr]
                return False
            shown.add(v.suit)  # type: ignore[union-attr]
    empty_piles = sum(1 for h in state.foundations if h == 0)
    return empty_slots <= empty_piles and (unknown_slots > 0 or len(shown) == 4 - empty_piles)


def _table_fits(state: GameState, snap: Snapshot) -> bool:
    """False when the foundations or the columns of ``snap`` cannot be a view of
    ``state``'s (the waste and the stock aside; a loose test: True may still not fit)."""
    if not _foundations_fit(state, snap):
        return False
    for i, v in enumerate(snap.columns):
        run = state.faceup[i]
        if run:
            if v is not UNKNOWN and v is not run[-1]:
                return False
        elif state.hidden[i]:
            h = state.hidden[i][-1]
            if isinstance(v, Card) and h is not None and h is not v:
                return False
        elif v is not EMPTY and v is not UNKNOWN:
            return False
    return True


def step_count(path: Sequence[Move]) -> int:
    """Search steps of ``path``: each move but a stock turn, and each run of stock turns."""
    turns = (MoveKind.DRAW, MoveKind.REDEAL)
    return sum(1 for i, m in enumerate(path) if m.kind not in turns or i == 0 or path[i - 1].kind not in turns)


def _talon_splits(state: GameState, snap: Snapshot, alike: bool = False) -> list[GameState]:
    """``state`` with its stock and waste forgotten but for the waste's visible top cards
    (one, or the draw's count), their cards split between the two every way that ``snap``
    allows (its waste, its stock line), with the redeals used as in ``state`` or one more
    or one fewer (where the rules allow); with ``alike``, only the splits with the redeals
    used as in ``state`` or one more, and a stock empty or not as in ``state``."""
    total = len(state.stock) + len(state.waste)
    keep = min(len(state.waste), state.rules.draw_count)
    visible = state.waste[len(state.waste) - keep :]
    limit = state.rules.redeal_limit
    # (alike: a redeal among the turns flicked through is as unseen as the turns; deals 137
    # and 743 of the benchmark lost the real count of redeals so)
    choices = (
        (state.redeals_used, state.redeals_used + 1)
        if alike
        else (state.redeals_used, state.redeals_used + 1, state.redeals_used - 1)
    )
    out = []
    for redeals in choices:
        if redeals < 0 or (limit is not None and redeals > limit):
            continue
        for waste_len in range(keep, total + 1):
            if keep == 0 and waste_len:
                break
            if alike and (total > waste_len) != bool(state.stock):
                continue
            candidate = replace(
                state,
                stock=(None,) * (total - waste_len),
                waste=(None,) * (waste_len - keep) + visible,
                redeals_used=redeals,
            )
            merged = _view_matches(candidate, snap)
            if merged is not None:
                out.append(merged)
    return out


def _covered_turns(before: GameState, after: GameState, snap: Snapshot) -> list[tuple[tuple[Move, ...], GameState]]:
    """Other explanations of a read in which ``after`` (an explanation of ``snap`` from
    ``before``, of moves unseen) shows a card ``X`` turned over on a column: the card
    turned over there was another, ``Y`` (any unknown card ``X`` goes on), and ``X`` was
    put on it, from the stock (after turns unseen) or turned over on another column that
    this read shows a new card on, or a back (a column awaiting a flip reads as an empty
    one does: deal 119). With the tops alone the camera cannot tell them apart,
    and each holds a card fewer in the stock, or under that other column, than ``after``.
    Only ``X`` on ``Y`` is looked at, no longer runs; a king (which goes on no card) never.
    Each comes with the moves it adds to those that led to ``after`` (a draw and the waste
    card put on ``Y``, or the card moved over from the other column)."""
    known_before = before.known_cards()
    known = after.known_cards()
    novel_tops = [
        c for c in range(COLUMN_COUNT) if len(after.faceup[c]) == 1 and after.faceup[c][0] not in known_before
    ]
    if not novel_tops:
        return []
    out: list[tuple[tuple[Move, ...], GameState]] = []
    for c in novel_tops:
        x = after.faceup[c][0]
        if x.rank == KING:
            continue
        under = [y for y in (Card(x.rank + 1, s) for s in range(4)) if x.goes_on_tableau(y) and y not in known]
        if not under:
            continue
        # where X came from: one unknown card fewer in the stock, or under another column
        sources: list[tuple[tuple[Move, ...], dict]] = []
        if None in after.stock:
            i = after.stock.index(None)
            sources.append(((Move.draw(), Move.waste_to_column(c)), {"stock": after.stock[:i] + after.stock[i + 1 :]}))
        # (a column left awaiting a flip reads as a back, as an empty one does: its card may
        # have been turned and moved on, the column then empty or its next card face down)
        awaiting = [d for d in range(COLUMN_COUNT) if after.awaiting_flip(d)]
        for d in novel_tops + awaiting:
            if d != c and after.hidden[d] and after.hidden[d][-1] is None:
                hidden = after.hidden[:d] + (after.hidden[d][:-1],) + after.hidden[d + 1 :]
                sources.append(((Move.column_to_column(d, c),), {"hidden": hidden}))
        for y in under:
            faceup = after.faceup[:c] + ((y, x),) + after.faceup[c + 1 :]
            for moves, fields in sources:
                merged = _view_matches(replace(after, faceup=faceup, **fields), snap)
                if merged is not None:
                    out.append((moves, merged))
    return out


def _covered_seeds(state: GameState, snap: Snapshot) -> list[GameState]:
    """``state`` with the face-down card next to be turned over on a column named, one
    way for each card the read may show covering it at once: where ``snap`` shows on
    column ``c`` a card ``Z`` that ``state`` holds elsewhere (on the waste, in the stock,
    on a foundation, or on top of another column's run), the run of ``c`` may have been
    moved away unseen, the card under it turned over (``Y``, never seen) and ``Z``, or a
    run ending in ``Z``, put on it at once. ``Y`` is any card not known yet that the
    run's base ``X`` goes on. The search cannot put a card on a face-down card it does
    not know, so it is named here first: from these, the moves are searched as from
    ``state`` (deal 186: the waste's card played on a card turned over a step before)."""
    known = state.known_cards()
    out: list[GameState] = []
    for c, z in enumerate(snap.columns):
        if not isinstance(z, Card) or z not in known or state.column_top(c) is z:
            continue
        if not state.hidden[c] or state.hidden[c][-1] is not None or z in state.faceup[c]:
            continue
        bases: list[Card] = [z]
        for d in range(COLUMN_COUNT):
            if d != c and state.column_top(d) is z:
                bases = list(state.faceup[d])
        for x in bases:
            if x.rank == KING:
                continue
            for y in (Card(x.rank + 1, s) for s in range(4)):
                if y not in known and x.goes_on_tableau(y):
                    if state.faceup[c]:  # (turned over when the run is moved off it)
                        column = state.hidden[c][:-1] + (y,)
                        out.append(replace(state, hidden=state.hidden[:c] + (column,) + state.hidden[c + 1 :]))
                    else:  # (awaiting its flip: turned over as it is named)
                        out.append(state.reveal_column(c, y))
    return out


OPEN_HYPOTHESES = 160
"""How many explanations the coach keeps with ``open_turns``: each read of a stock turn
opens up to seven (one to seven turns), and the real count must not be crowded out
before a card shows which it was (64 lost it within 40 moves after three unseen turns)."""

DOUBTED_HYPOTHESES = 2 * OPEN_HYPOTHESES
"""How many explanations dropped for the cap of ``max_hypotheses`` the tracker follows on
the side (:attr:`TableTracker.doubted`), to check the advice against them; with more, it
stops following them and counts its position a guess for the rest of the game."""


REDEAL_MARGIN = 2
"""How far past the margin an explanation of a read is still kept open where it differs
from every kept one with the same columns and foundations only in how many redeals were
used (an unseen redeal: the stock turned through and over, some turns of it unseen, costs
three to four more than the margin lets in, while a count of redeals silently wrong makes
a later "turn the waste over" wrong). Deals 241 and 480 of the unseen-gaps benchmark with
J pressed when not sure: the real explanation 3 past the best, the margin 2."""


def _forgotten_talon(state: GameState) -> GameState:
    """``state`` with the cards of its stock and its waste forgotten but for the waste's
    visible top (one card, or the draw's count): as many cards in each, none known."""
    keep = min(len(state.waste), state.rules.draw_count)
    stock = (None,) * len(state.stock)
    waste = (None,) * (len(state.waste) - keep) + state.waste[len(state.waste) - keep :]
    if stock == state.stock and waste == state.waste:
        return state
    return replace(state, stock=stock, waste=waste)


def _meet(a: GameState, b: GameState) -> GameState:
    """``a`` knowing only the cards of its stock and waste that ``b`` (the same but for
    which of those cards it knows) knows at the same places."""
    stock = tuple(x if x is y else None for x, y in zip(a.stock, b.stock))
    waste = tuple(x if x is y else None for x, y in zip(a.waste, b.waste))
    if stock == a.stock and waste == a.waste:
        return a
    return replace(a, stock=stock, waste=waste)


def _merge_alike(merged: dict[GameState, _Hypothesis], key: GameState, hyp: _Hypothesis) -> None:
    """Put ``hyp`` into ``merged`` under ``key`` (its state with the talon's cards forgotten,
    :func:`_forgotten_talon`): where one is there already, the two (alike but for which
    talon cards they know) become the cheaper one knowing only the cards both know."""
    known = merged.get(key)
    if known is None:
        merged[key] = hyp
    else:
        cheaper = hyp if hyp.cost < known.cost else known
        merged[key] = replace(cheaper, state=_meet(known.state, hyp.state))


def _claims_no_more(a: GameState, b: GameState) -> bool:
    """Whether every card of ``a``'s stock and waste that ``a`` knows, ``b`` (the same but
    for which of those cards it knows) knows at the same place: where ``b`` fits the
    table, so does ``a``."""
    return all(x is None or x is y for x, y in zip(a.stock, b.stock)) and all(
        x is None or x is y for x, y in zip(a.waste, b.waste)
    )


def _table_key(state: GameState) -> tuple:
    """The table of ``state`` but for the stock and the waste: the columns (face-up runs,
    face-down cards) and the foundations."""
    return (state.faceup, state.hidden, state.foundations)


class TableTracker:
    """Follows a game from snapshots. ``max_steps`` bounds how many steps (moves, or
    runs of stock turns) may happen between two snapshots; ``node_limit`` bounds the
    search per hypothesis and snapshot.

    Some changes are ambiguous when they happen: two stock turns of unseen cards look
    like one, since the camera does not count the stock. So the tracker keeps a few
    hypotheses (at most ``max_hypotheses``, none more than ``margin`` moves costlier
    than the best) that all explain every snapshot so far; ``state`` and ``history``
    are those of the likeliest (fewest moves). When a later snapshot rules the
    likeliest out, the next one takes over and the report is marked ``corrected``.
    One missed snapshot in a pass through unseen stock cards makes as many equally likely
    hypotheses as there are turns in the pass (where the hidden turn was), hence 32.

    ``deep_after``: how many times in a row an unexplained snapshot must come before the
    longer search for many hidden moves is tried (see :meth:`_deep_search`).

    ``far_apart``: the reads come several moves apart (photos taken every few moves): a
    foundation grown by more than one card is not taken for a card put down wrong where
    none of the cards between shows anywhere on the table (they may have gone up unseen);
    the search decides (see :func:`misplaced_cards`). Off for a camera that watches every
    move, where such a card is far likelier put down wrong.

    ``open_turns``: keep open every number of stock turns (up to 7 in a run beside one
    seen) that explains a read, not only the fewest: the coach's setting, for a person who
    flicks through the stock faster than the camera reads; :attr:`explanations` lists the
    positions kept open, and :func:`open_advice.advise_open` advises in all of them. Off by
    default (about eight times the searching per read: the simulations stay fast)."""

    def __init__(
        self,
        rules: Rules = DEFAULT_RULES,
        state: GameState | None = None,
        history: list[Move] | None = None,
        max_steps: int = 3,
        node_limit: int = 20000,
        max_hypotheses: int = 32,
        margin: int = 2,
        deep_after: int = 2,
        keep_misread: bool = True,
        misread_cost: int = 2,
        undo_depth: int = 12,
        open_turns: bool = False,
        far_apart: bool = False,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, not {rules!r}")
        if state is not None:
            if not isinstance(state, GameState):
                raise TypeError(f"state must be a GameState, not {state!r}")
            if state.rules != rules:
                raise ValueError(
                    f"the state is played under other rules ({state.rules.describe()}) than the "
                    f"tracker's ({rules.describe()})"
                )
        self.rules = rules
        self.open_turns = open_turns
        self.far_apart = far_apart
        self.keep_misread = keep_misread
        self.misread_cost = misread_cost
        self.max_steps = max_steps
        self.node_limit = node_limit
        self.max_hypotheses = max_hypotheses
        self.margin = margin
        self.deep_node_limit = 30000
        self.deep_after = deep_after
        self._unexplained: tuple[str, int] | None = None  # (snapshot line, times seen in a row)
        if not is_whole_number(undo_depth) or undo_depth < 0:
            raise ValueError(f"undo_depth must be a whole number >= 0 (0: no undo), not {undo_depth!r}")
        self.undo_depth = undo_depth
        # the likeliest explanation before each of the last accepted changes, newest last,
        # for an undo (journalled as "recent")
        self._recent: list[_Hypothesis] = []
        self._hypotheses: list[_Hypothesis] = []
        if state is not None:
            hist = tuple(history or ())
            self._hypotheses = [_Hypothesis(len(hist), state, hist)]
        self._nodes = 0
        self._cut_short = False  # the last update's search stopped at its node budget
        # per read: for each set of columns and foundations, whether the table fits the
        # snapshot and the moves touching neither stock nor waste that make it fit
        self._shared_steps: dict[tuple, tuple[bool, list[Move]]] = {}
        # an accepted read was explained by a guess among many explanations (the longer
        # search, a search cut at its node budget): the real position may be in none kept,
        # for the rest of the game (journalled as "guessed")
        self._lost = False
        # explanations that fit every read since, dropped from those kept for the cap of
        # ``max_hypotheses``: followed on the side, not advised on (journalled as "doubted")
        self._doubts: list[_Hypothesis] = []
        self.last_search: SearchNotes | None = None

    @property
    def guessed(self) -> bool:
        """True when the position is a guess: the real one may be in none of
        :attr:`explanations`, nor of :attr:`doubted`, or differ from them all in the columns
        or the foundations. Either a read was explained by a guess among many (the longer
        search, a search cut at its node budget, an explanation at the search's horizon; for
        the rest of the game), or an explanation dropped for the cap of ``max_hypotheses``
        that still fits every read since (:attr:`doubted`) differs from every kept one in
        the columns or the foundations (where they differ in the stock and the waste alone,
        whether the advice holds in them is the advisor's to check:
        :func:`open_advice.holds_in`). Setting it True makes the guess last for the game;
        setting it False forgets the explanations dropped too."""
        if self._lost:
            return True
        if not self._doubts:
            return False
        kept = {_table_key(h.state) for h in self._hypotheses if not h.misread}
        return any(_table_key(h.state) not in kept for h in self._doubts)

    @guessed.setter
    def guessed(self, value: bool) -> None:
        self._lost = bool(value)
        if not value:
            self._doubts = []

    @property
    def doubted(self) -> tuple[GameState, ...]:
        """The positions of explanations dropped for the cap of ``max_hypotheses`` that
        still fit every read since (those alike but for the cards of the stock and the waste
        they know merged into one that knows the cards they agree on): the advice is not
        worked out for them, but it must hold in them too, or say it is not sure
        (:attr:`guessed`, :func:`open_advice.holds_in`).
        Empty when none was dropped, or once later reads ruled them all out."""
        return tuple(h.state for h in self._doubts)

    @property
    def state(self) -> GameState | None:
        """The likeliest game state (None before the first snapshot)."""
        return self._hypotheses[0].state if self._hypotheses else None

    @property
    def history(self) -> list[Move]:
        """The moves of the likeliest explanation, from the deal."""
        return list(self._hypotheses[0].history) if self._hypotheses else []

    @property
    def explanations(self) -> tuple[GameState, ...]:
        """Every position that fits all the tracker has seen, the likeliest first: it keeps
        them open (how many stock cards were turned unseen, which cards lie under the
        waste's top) and drops each as soon as a read rules it out. Positions that hold the
        last read misread are not among them."""
        if not self._hypotheses:
            return ()
        return (self._hypotheses[0].state,) + tuple(h.state for h in self._hypotheses[1:] if not h.misread)

    @property
    def hypothesis_count(self) -> int:
        """How many explanations of the snapshots so far the tracker still keeps."""
        return len(self._hypotheses)

    # starting -------------------------------------------------------------------------
    def _start(self, snap: Snapshot) -> TrackerReport:
        problems = []
        for i, v in enumerate(snap.columns):
            if not isinstance(v, Card):
                problems.append(f"{slot_name(5 + i)}: a fresh deal shows a card here, saw {v.code}")
        if not isinstance(snap.waste, Card):
            problems.append(
                f"{slot_name(0)}: a fresh deal has the first stock card turned onto the waste, saw {snap.waste.code}"
            )
        for i, v in enumerate(snap.foundations):
            if isinstance(v, Card):
                problems.append(f"{slot_name(1 + i)}: a fresh deal has empty foundations, saw {v.code}")
        for i, run in enumerate(snap.runs or ()):
            if run is not None and len(run) > 1:
                problems.append(
                    f"{slot_name(5 + i)}: a fresh deal shows one face-up card on each column, the run "
                    f"read shows {len(run)} ({' '.join(c.code for c in run)}): a game in progress"
                )
        repeated = repeated_cards(snap.slots)
        if repeated:
            problems.append(repeated)
        if problems:
            return TrackerReport("waiting", (), "cannot start a game: " + "; ".join(problems))
        n = self.rules.draw_count
        hidden = tuple((None,) * i for i in range(COLUMN_COUNT))
        faceup = tuple((v,) for v in snap.columns if isinstance(v, Card))  # every one a card (checked above)
        waste: tuple[Card | None, ...] = (None,) * (n - 1) + (snap.waste,) if isinstance(snap.waste, Card) else ()
        state = GameState(hidden, faceup, (None,) * (24 - n), waste, rules=self.rules)
        if snap.waste_fan is not None:
            merged = _view_matches(state, snap)
            if merged is None:
                fan = " ".join(c.code for c in snap.waste_fan)
                return TrackerReport(
                    "waiting",
                    (),
                    f"cannot start a game: the waste fan {fan} does not fit a fresh "
                    f"deal (at most {n} card{'s' if n > 1 else ''}, none seen elsewhere)",
                )
            state = merged
        self._hypotheses = [_Hypothesis(0, state, ())]
        return TrackerReport("started", (), "new game started: " + snap.line())

    # updating -------------------------------------------------------------------------
    def update(self, snap: Snapshot, prefer: Move | None = None, stock_hint: bool | None = None) -> TrackerReport:
        """Merge one snapshot; see the module docstring for the reports. ``prefer``: the
        move the person was advised to make; of the explanations with the fewest moves,
        one that starts with it comes first (the search order decides the rest).

        ``stock_hint``: what a camera read of the stock (True a pile, False its place
        empty), weaker than a ``stock:`` line: it only narrows the explanations the read
        keeps open without it to those whose stock agrees, and is passed over when none
        does, or only ones that hold an earlier read misread (the stock pile itself may be
        what was misread). A ``stock:`` line rules out every explanation that disagrees and
        may bring in longer ones (one draw read with the stock said empty explained as the
        whole stock turned unseen); the hint never does."""
        if not isinstance(snap, Snapshot):
            raise TypeError(f"update takes a Snapshot (parse_snapshot reads one from text), not {snap!r:.80}")
        if not self._hypotheses:
            return self._start(snap)
        old = self._hypotheses[0]
        children: dict[GameState, _Hypothesis] = {}
        parent: dict[GameState, int] = {}  # which hypothesis each child came from (0: the likeliest)
        best: int | None = None
        self._nodes = 0
        self._cut_short = False
        self._shared_steps = {}
        self.last_search = None
        deep_used = False
        steps: dict[GameState, int] = {}  # how many search steps each child's explanation took
        for index, hyp in enumerate(self._hypotheses):
            # a misread alternative only counts where it explains the snapshot at least as
            # cheaply as the best so far: searching it within the margin too costs a search
            # two moves deep from the position before every snapshot, for nothing
            budget = None if best is None else best + (0 if hyp.misread else self.margin) - hyp.weight(self.open_turns)
            if budget is not None and budget < 0:
                continue
            extended = self._extended(hyp, snap, budget, prefer)
            if not extended and not hyp.misread and not hyp.widened:
                # a card turned over unseen and covered at once by one the table showed
                # elsewhere: searched from the card under it named each way it may be
                for seeded in _covered_seeds(hyp.state, snap):
                    extended += self._extended(replace(hyp, state=seeded, widened=True), snap, budget, prefer)
            for path, child in extended:
                merged = child.state
                known = children.get(merged)
                if known is None or child.cost < known.cost or _a_move_straight_back(known, child, prefer):
                    children[merged] = child
                    parent[merged] = index
                    steps[merged] = step_count(path)
                best = child.weight(self.open_turns) if best is None else min(best, child.weight(self.open_turns))
        if not children:
            undo = self._undo(old, snap)
            if undo is not None:
                return undo
            deep_found = self._deep_search(self._hypotheses[: 1 + DEEP_ALTERNATIVES], snap)
            if not deep_found:
                put_wrong = (
                    () if repeated_cards(snap.slots) else tuple(misplaced_cards(old.state, snap, self.far_apart))
                )
                return TrackerReport(
                    "inconsistent", (), explain_inconsistency(old.state, snap, put_wrong), put_wrong=put_wrong
                )
            for found_deep in deep_found:
                children.setdefault(found_deep.state, found_deep)
                parent.setdefault(found_deep.state, 0)
            deep_used = True
            deep = deep_found[0]
            # the snapshot may also have been misread: keep the old positions in mind
            for index, hyp in enumerate(self._hypotheses):
                if hyp.state not in children:
                    cost = self._cost_for(deep.weight(self.open_turns) + 1, hyp.slack)
                    children[hyp.state] = _Hypothesis(cost, hyp.state, hyp.history, True, hyp.slack)
                    parent[hyp.state] = index
        self._unexplained = None
        # stable: search order breaks ties, but a redeal loses one to a take-back of the same table
        taken_back = [h for h in children.values() if h.misread]
        advised_else = prefer is not None and prefer.kind is not MoveKind.REDEAL
        ranked = sorted(
            children.values(),
            key=lambda h: (h.weight(self.open_turns), h.cost, advised_else and _a_redeal_for_nothing(h, taken_back)),
        )
        limit = min(h.weight(self.open_turns) for h in ranked) + self.margin
        if deep_used or self._cut_short or steps.get(ranked[0].state, 0) >= self.max_steps:
            # the explanation is one of many, or at the search's horizon (a longer one, a card
            # moved there and back while another was turned, may be the real one)
            self._lost = True
        within = [h for h in ranked if h.weight(self.open_turns) <= limit]
        if stock_hint is not None and snap.stock is None:
            agree = [h for h in within if bool(h.state.stock) == stock_hint]
            if any(not h.misread for h in agree):  # (never makes a read a misread)
                within = agree
        kept = within[: self.max_hypotheses]
        self.last_search = SearchNotes(
            tuple(ranked), len(ranked) - len(within), len(within) - len(kept), self._cut_short, deep_used
        )
        self._follow_doubts(snap, kept, within[len(kept) :], limit, deep_used, prefer)
        new = kept[0]
        misread = new.misread
        if self.open_turns and not new.misread and (deep_used or self._cut_short or steps.get(new.state, 0) > 1):
            # moves went unseen between two reads, and another order of them (stock turns
            # between the other moves: a card played from the stock, not from under the
            # waste's top) may explain the table as well: the stock and the waste are
            # kept open as every split of their cards, unknown but the visible top
            limit = min(h.weight(self.open_turns) for h in kept) + self.margin
            covered = self._covered(old, new, kept, snap, limit)
            kept += self._widened(kept, snap, limit=limit) + covered + self._widened(covered, snap, limit=limit)
        elif (
            self.open_turns
            and not new.misread
            and (snap.stock is not None or stock_hint is not None)
            and any(m.kind in _TURNS for m in new.history[len(old.history) :])
        ):
            # a stock turn seen may have been several (the camera cannot count them): with
            # the picture saying whether a pile is left, every split of the talon that
            # agrees stays open, so that a person who flicks through the stock again and
            # again is followed however far the count drifts from the likeliest (without
            # it, a split with an empty stock would make every advice ask)
            kept += self._widened(kept, snap, classes=TURNED_CLASSES, alike=True)
        if self.open_turns and self.rules.redeal_limit is not None:
            others = self._other_redeals(ranked, kept)
            if stock_hint is not None and snap.stock is None:  # (the hint narrows them too)
                others = [h for h in others if bool(h.state.stock) == stock_hint]
            kept += others
        if misread:  # reported now: the alternatives are measured from this explanation on
            kept = [replace(h, misread=False) for h in kept]
        if self.keep_misread and all(h.state != old.state for h in kept):
            # the snapshot itself may have been misread (a card read as another that legal
            # moves can explain): the position before it stays in mind, last, so that the
            # next snapshots can take the moves back
            kept.append(
                _Hypothesis(old.cost + self._misread_cost(old.state, snap), old.state, old.history, True, old.slack)
            )
        elif self.keep_misread and new.state == old.state:
            # nothing changed: the misread alternatives still stand (the camera may read the
            # same wrong table again before the true one), though no cheaper than the position
            kept += [h for h in self._hypotheses if h.misread and all(k.state != h.state for k in kept)]
        self._hypotheses = kept
        if new.state != old.state and self.undo_depth:  # a new list: a copy of the tracker shares the old one
            earlier = [h for h in self._recent if h.history != old.history]
            self._recent = earlier[len(earlier) - (self.undo_depth - 1) :] if self.undo_depth > 1 else []
            self._recent = self._recent + [old]
        report = self._report(old, new, parent[new.state] == 0)
        return replace(report, misread=True) if misread else report

    def _follow_doubts(
        self,
        snap: Snapshot,
        kept: list[_Hypothesis],
        dropped: list[_Hypothesis],
        limit: int,
        deep_used: bool,
        prefer: Move | None,
    ) -> None:
        """Follow the explanations dropped for the cap (``dropped`` now, and those of
        earlier reads) through ``snap``, on the side: the ones that still fit within the
        margin (``limit``) and no kept one covers become :attr:`doubted`. Those that differ
        only in which cards of the stock and the waste they know (under the waste's visible
        top) are merged into one that knows the cards they agree on (the explanations
        dropped differ mostly in where the unseen turns fell: kept apart, they grew from 6 to
        over 300 in four reads); merged, they stay open at least as long as each would.
        Searched with a node budget of their own after the kept ones, so that these (and the
        advice) are the same as without them. Past the budget, or more than
        ``DOUBTED_HYPOTHESES`` of them, or after the longer search, they are given up and
        the position is a guess for good."""
        if self._lost or deep_used:
            self._doubts = []
            return
        if not self._doubts and not dropped:
            return
        # the kept explanations by their table with the talon's cards forgotten: one covers
        # a doubted one of the same lengths that knows every talon card it knows
        cover: dict[GameState, list[GameState]] = {}
        for h in kept:
            if not h.misread and not h.widened:
                cover.setdefault(_forgotten_talon(h.state), []).append(h.state)
        doubts: dict[GameState, _Hypothesis] = {}

        def add(hyp: _Hypothesis) -> None:
            _merge_alike(doubts, _forgotten_talon(hyp.state), hyp)

        for hyp in dropped:
            if not hyp.misread:
                add(hyp)
        nodes, cut_short = self._nodes, self._cut_short
        self._nodes, self._cut_short = 0, False
        try:
            for hyp in self._doubts:
                room = limit - hyp.weight(self.open_turns)
                if room < 0:
                    continue
                for _, child in self._extended(hyp, snap, room, prefer):
                    if child.weight(self.open_turns) <= limit:
                        add(child)
            lost = self._cut_short or len(doubts) > DOUBTED_HYPOTHESES
        finally:
            self._nodes, self._cut_short = nodes, cut_short
        if lost:
            self._lost = True
            self._doubts = []
            return
        left = [
            h for key, h in doubts.items() if not any(_claims_no_more(state, h.state) for state in cover.get(key, ()))
        ]
        self._doubts = sorted(left, key=lambda h: (h.weight(self.open_turns), h.cost))

    def _other_redeals(self, ranked: list[_Hypothesis], kept: list[_Hypothesis]) -> list[_Hypothesis]:
        """The explanations of ``ranked`` past the margin by at most :data:`REDEAL_MARGIN`
        that show the table of a kept one (columns and foundations) with another count of
        redeals used than the likeliest (a redeal the camera did not see), where no kept one
        with the same count claims no more of the talon's cards than they do. Those alike but
        for the cards of the talon they know are merged into one that knows the cards they
        agree on; each is ranked last within the margin (flagged ``widened``)."""
        if not kept:
            return []
        limit = min(h.weight(self.open_turns) for h in kept) + self.margin
        likeliest = kept[0].state.redeals_used
        tables = {_table_key(h.state) for h in kept}
        cover: dict[GameState, list[GameState]] = {}
        for h in kept:
            cover.setdefault(_forgotten_talon(h.state), []).append(h.state)
        merged: dict[GameState, _Hypothesis] = {}
        for hyp in ranked:
            weight = hyp.weight(self.open_turns)
            if hyp.misread or not limit < weight <= limit + REDEAL_MARGIN:
                continue
            if hyp.state.redeals_used == likeliest or _table_key(hyp.state) not in tables:
                continue
            key = _forgotten_talon(hyp.state)
            if any(_claims_no_more(state, hyp.state) for state in cover.get(key, ())):
                continue
            _merge_alike(merged, key, hyp)
        return [
            replace(h, cost=self._cost_for(limit, h.slack), widened=True)
            for h in sorted(merged.values(), key=lambda h: (h.weight(self.open_turns), h.cost))
        ]

    def _cost_for(self, weight: int, slack: int) -> int:
        """The cost that gives an explanation of ``slack`` unseen turns the ``weight`` (so
        that an alternative ranked behind another stays behind it, whatever its slack)."""
        return weight + slack - (slack + 2) // 3 if self.open_turns else weight

    def _widened(
        self,
        kept: list[_Hypothesis],
        snap: Snapshot,
        classes: int = WIDENED_CLASSES,
        alike: bool = False,
        limit: int | None = None,
    ) -> list[_Hypothesis]:
        """For the first explanations of ``kept`` that differ outside the stock and the
        waste (at most ``classes``): the same position with the stock and the waste
        forgotten but for the waste's visible top cards, split every way that fits the
        snapshot, and with one redeal more or fewer used (with ``alike``: only the splits
        with the same redeals used or one more, and a stock empty or not as in the
        explanation). Ranked
        last within the margin (``limit``, the highest weight kept; by default the margin
        above the cheapest of ``kept``)."""
        have = {h.state for h in kept}
        if limit is None:
            limit = min(h.weight(self.open_turns) for h in kept) + self.margin
        seen: set = set()
        out: list[_Hypothesis] = []
        for hyp in kept:
            if hyp.misread:
                continue
            key = (hyp.state.faceup, hyp.state.hidden, hyp.state.foundations)
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > classes:
                break
            extra = limit - hyp.weight(self.open_turns)
            for state in _talon_splits(hyp.state, snap, alike):
                if state not in have:
                    have.add(state)
                    out.append(replace(hyp, cost=hyp.cost + extra, state=state, widened=True))
        return out

    def _covered(
        self, old: _Hypothesis, new: _Hypothesis, kept: list[_Hypothesis], snap: Snapshot, limit: int
    ) -> list[_Hypothesis]:
        """The explanations of :func:`_covered_turns` for the likeliest explanation ``new``
        of a read from ``old`` (a card turned over unseen may have been covered at once by
        the card the table shows), those within the margin (``limit``) and not in
        ``kept``. Flagged ``widened``: the card named under the top is a guess among two."""
        have = {h.state for h in kept}
        read = new.history[len(old.history) :]  # the moves the read was explained with
        out = []
        for moves, state in _covered_turns(old.state, new.state, snap):
            if state in have:
                continue
            have.add(state)
            slack = new.slack + _extra_turns(read + moves) - _extra_turns(read)
            hyp = _Hypothesis(new.cost + len(moves), state, new.history + moves, slack=slack, widened=True)
            if hyp.weight(self.open_turns) <= limit:
                out.append(hyp)
        return out

    def _misread_cost(self, before: GameState, snap: Snapshot) -> int:
        """What it costs to hold that ``snap`` was misread and the table still showed
        ``before``: ``misread_cost`` (2 moves) for a read that differs from ``before`` in at
        most two slots (one card moved: its old place and its new one), and one move more
        for each further slot it would have to have read wrong. A misread of one or two
        slots happens; one of three or more slots that happens to look like legal moves is
        rarer than those moves. Without it two moves between two snapshots (a draw and a
        card moved), then two more (a draw and that card put back), were read as a misread
        plus one draw (2 + 1 < 2 + 2): the cards the camera had shown turned were made
        unseen again and the tracker was one stock turn short for the rest of the pass."""
        return self.misread_cost + max(0, _changed_slot_count(before, snap) - 2)

    def _undo(self, old: _Hypothesis, snap: Snapshot) -> TrackerReport | None:
        """The table put back as it was at one of the last positions of the game, newest
        first: that position, with the moves since it taken back; None when the snapshot
        shows none of them (or shows too little to tell: more than one slot unread)."""
        if sum(v is UNKNOWN for v in snap.slots) > 1:
            return None
        for k in range(len(self._recent) - 1, -1, -1):
            past = self._recent[k]
            if len(past.history) >= len(old.history) or old.history[: len(past.history)] != past.history:
                continue
            merged = _view_matches(past.state, snap)
            if merged is None:
                continue
            undone = old.history[len(past.history) :]
            # the position before stays in mind, as after a misread: the cards may be put
            # forward again, or this read may be the wrong one
            self._hypotheses = [_Hypothesis(past.cost, merged, past.history, False, past.slack)] + (
                [
                    _Hypothesis(
                        self._cost_for(past.weight(self.open_turns) + self.misread_cost, old.slack),
                        old.state,
                        old.history,
                        True,
                        old.slack,
                    )
                ]
                if self.keep_misread
                else []
            )
            self._recent = self._recent[:k]
            self._unexplained = None
            if self._doubts:  # (they explain the position before the undo, not this one)
                self._lost, self._doubts = True, []
            return TrackerReport(
                "taken back",
                (),
                f"taken back: {' '.join(m.text for m in undone)} (the table is as it was after "
                f"move {len(past.history)})",
                corrected=True,
                undone=undone,
            )
        return None

    def _report(self, old: _Hypothesis, new: _Hypothesis, from_likeliest: bool) -> TrackerReport:
        """What changed from the likeliest explanation ``old`` to ``new``."""
        if len(new.history) < len(old.history) and old.history[: len(new.history)] == new.history:
            undone = old.history[len(new.history) :]
            return TrackerReport(
                "taken back",
                (),
                f"taken back: {' '.join(m.text for m in undone)} (after move {len(new.history)}); "
                f"the table is as it was before {'them' if len(undone) > 1 else 'it'}: put back, or the read that "
                f"showed {'them' if len(undone) > 1 else 'it'} was wrong",
                corrected=True,
                undone=undone,
            )
        if new.history[: len(old.history)] == old.history and not from_likeliest:
            # the same moves and more, but from another position than the likeliest: a card
            # the camera showed before was read wrong
            moves = new.history[len(old.history) :]
            lost = sorted(old.state.known_cards() - new.state.known_cards())
            note = (
                f"the {', '.join(c.symbol for c in lost)} read before {'was' if len(lost) == 1 else 'were'} a misread"
                if lost
                else "an earlier read was wrong"
            )
            if moves:
                return TrackerReport(
                    "moves", moves, f"played: {' '.join(m.text for m in moves)} ({note})", corrected=True
                )
            return TrackerReport(
                "revealed", (), f"re-read: {_describe_rereads(old.state, new.state)} ({note})", corrected=True
            )
        if new.history[: len(old.history)] == old.history:
            moves = new.history[len(old.history) :]
            if moves:
                return TrackerReport("moves", moves, "played: " + " ".join(m.text for m in moves))
            if new.state == old.state:
                return TrackerReport("no change")
            return TrackerReport("revealed", (), "turned over: " + _describe_reveals(old.state, new.state))
        common = 0
        while common < min(len(old.history), len(new.history)) and old.history[common] == new.history[common]:
            common += 1
        moves = new.history[len(old.history) :] if len(new.history) > len(old.history) else ()
        return TrackerReport(
            "moves",
            tuple(moves),
            f"played: {' '.join(m.text for m in moves) or 'nothing new'} (the moves after move {common} "
            f"re-read as {' '.join(m.text for m in new.history[common:])} instead of "
            f"{' '.join(m.text for m in old.history[common:]) or 'nothing'})",
            corrected=True,
            undone=old.history[common:],
        )

    def searches_longer_if_read_again(self, snap: Snapshot) -> bool:
        """True when ``snap``, just found no legal continuation, would start the longer
        search for many moves made unseen if it came again (``deep_after`` reads in a
        row; never for a card put down against the rules, which must be taken back)."""
        return (
            self._unexplained is not None
            and self._unexplained[0] == snap.text()
            and self._unexplained[1] < self.deep_after
            and self.state is not None
            and not illegal_placements(self.state, snap, self.far_apart)
        )

    def _deep_search(self, hyps: list[_Hypothesis], snap: Snapshot) -> list[_Hypothesis]:
        """A longer explanation, for a table that stayed the same and unexplained: the
        person may have made several moves while a hand hid the table. Only tried when
        the same snapshot comes twice in a row and shows no illegal placement (a card put
        down wrong must be taken back, not explained away). Best-first search guided by
        how far each position is from the snapshot, at most ``deep_node_limit`` nodes,
        from each of ``hyps`` in turn (the likeliest first) until one gives explanations:
        the likeliest may have named the cards no read showed otherwise than the table
        has them."""
        line = snap.text()
        count = self._unexplained[1] + 1 if self._unexplained and self._unexplained[0] == line else 1
        self._unexplained = (line, count)
        if count < self.deep_after:
            return []
        for hyp in hyps:
            hits = self._deep_from(hyp, snap)
            if hits:
                return hits
        return []

    def _deep_from(self, hyp: _Hypothesis, snap: Snapshot) -> list[_Hypothesis]:
        """The longer search of :meth:`_deep_search` from explanation ``hyp``."""
        if illegal_placements(hyp.state, snap, self.far_apart):
            return []
        counter = 0
        hits: list[_Hypothesis] = []
        stop = self.deep_node_limit
        heap: list[tuple[int, int, int, tuple[Move, ...], GameState]] = [
            (_distance(hyp.state, snap), 0, counter, (), hyp.state)
        ]
        seen = {hyp.state}
        novel = _novel_cards(hyp.state, snap)
        while heap and counter < stop:
            _, depth, _, path, node = heapq.heappop(heap)
            for step, child in _steps(node, None, novel, self.open_turns):
                counter += 1
                if child in seen:
                    continue
                seen.add(child)
                merged = _view_matches(child, snap)
                if merged is not None:
                    moves = path + step
                    if not hits:
                        # the first explanation found is one of many: search on a while for
                        # the others of about as many moves, all kept open
                        stop = min(stop, counter + DEEP_MORE_NODES)
                    if not hits or len(moves) <= len(hits[0].history) - len(hyp.history) + self.margin:
                        hits.append(
                            _Hypothesis(
                                hyp.cost + len(moves),
                                merged,
                                hyp.history + moves,
                                False,
                                hyp.slack + _extra_turns(moves),
                            )
                        )
                    continue
                heapq.heappush(heap, (_distance(child, snap) + depth + 1, depth + 1, counter, path + step, child))
        return hits

    def _extended(
        self, hyp: _Hypothesis, snap: Snapshot, budget: int | None, prefer: Move | None
    ) -> list[tuple[tuple[Move, ...], _Hypothesis]]:
        """Each explanation of ``snap`` from ``hyp`` within ``budget`` moves (those that
        start with ``prefer`` first), as its path and the hypothesis it makes."""
        found = self._explanations(hyp.state, snap, budget)
        if prefer is not None and found:
            found = self._preferred(hyp.state, snap, prefer, found) + found
        return [
            (
                path,
                _Hypothesis(
                    hyp.cost + len(path),
                    merged,
                    hyp.history + path,
                    hyp.misread,
                    hyp.slack + _extra_turns(path),
                    hyp.widened,
                ),
            )
            for path, merged in found
        ]

    def _preferred(
        self, state: GameState, snap: Snapshot, prefer: Move, found: list[tuple[tuple[Move, ...], GameState]]
    ) -> list[tuple[tuple[Move, ...], GameState]]:
        """Explanations that start with ``prefer`` and use no more moves than the fewest of
        ``found`` (the explanations the search gave); none when one of those starts with
        it already, or when it is not a legal move in ``state``. Searched with a node
        budget of its own, so that the plain search is unchanged."""
        fewest = min(len(path) for path, _ in found)
        if fewest < 2 or any(path[:1] == (prefer,) for path, _ in found):
            return []
        if prefer not in state.legal_moves(include_pointless=True):
            return []
        nodes = self._nodes
        self._nodes = 0
        try:
            rest = self._explanations(state.play(prefer), snap, fewest - 1)
        finally:
            self._nodes = nodes
        return [((prefer,) + path, merged) for path, merged in rest if 1 + len(path) <= fewest]

    def _one_step(
        self, state: GameState, snap: Snapshot, max_moves: int | None, novel: frozenset[Card]
    ) -> list[tuple[tuple[Move, ...], GameState]]:
        """The explanations of ``snap`` one search step from ``state`` (``novel``: the
        cards it shows that ``state`` does not know), as the search's first depth finds them and in its order,
        only quicker: the many explanations kept open with ``open_turns`` mostly differ
        in the stock and the waste alone, so the moves that touch neither (and whether the
        table but for them fits) are worked out once per read for all that share the
        columns and the foundations; the rest of a step is a waste move or a stock run."""
        found: list[tuple[tuple[Move, ...], GameState]] = []
        seen = {state}
        for path, child in self._one_step_children(state, snap, max_moves, novel):
            self._nodes += 1
            if child not in seen:
                seen.add(child)
                merged = _view_matches(child, snap)
                if merged is not None:
                    found.append((path, merged))
        return found

    def _one_step_children(
        self, state: GameState, snap: Snapshot, max_moves: int | None, novel: frozenset[Card]
    ) -> Iterator[tuple[tuple[Move, ...], GameState]]:
        """The positions one search step from ``state`` that may fit ``snap`` (see
        :meth:`_one_step`), in the search's order."""
        if max_moves is not None and max_moves < 1:
            return
        key = (state.faceup, state.hidden, state.foundations)
        shared = self._shared_steps.get(key)
        if shared is None:
            moves = [
                m
                for m in state.legal_moves(include_pointless=True)
                if m.kind in _TABLE_MOVES and _table_fits(state.play(m), snap)
            ]
            shared = (_table_fits(state, snap), moves)
            self._shared_steps[key] = shared
        table_fits, candidates = shared
        w = state.waste_top()
        if w is not None:
            waste_moves = _waste_moves(state, w)
            if waste_moves:
                candidates = sorted(candidates + waste_moves, key=_legal_order)
        for move in candidates:
            yield (move,), state.play(move)
        if novel:
            yield from _novel_steps(state, novel)
        if table_fits:  # a run of stock turns leaves the table as it is
            yield from stock_cycle(state, None if max_moves is None else 3 * max_moves + 1)

    def _explanations(
        self, state: GameState, snap: Snapshot, max_moves: int | None = None
    ) -> list[tuple[tuple[Move, ...], GameState]]:
        """The shortest explanations of ``snap`` from ``state`` using at most ``max_moves``
        moves: every consistent position at the first search depth that has any (a run
        of stock turns is one step). Shares the per-snapshot node budget."""
        merged = _view_matches(state, snap)
        if merged is not None:
            return [((), merged)]
        if max_moves is not None and max_moves < 1:
            return []
        novel = _novel_cards(state, snap)
        if self.open_turns:
            quick = self._one_step(state, snap, max_moves, novel)
            if quick or (max_moves is not None and max_moves <= 1):
                return quick  # (with room for one step only, the first depth was all)
        frontier: list[tuple[tuple[Move, ...], GameState]] = [((), state)]
        seen = {state}
        for _depth in range(self.max_steps):
            found = []
            next_frontier = []
            for path, node in frontier:
                room = (
                    None
                    if max_moves is None
                    else max_moves - len(path) + (_extra_turns(path) if self.open_turns else 0)
                )
                # at the last depth, or where no child has room for one more step (a stock
                # run after a stock run keeps its room), only the children that may fit matter
                last = self.open_turns and (
                    _depth == self.max_steps - 1
                    or (room is not None and (room < 1 or (room == 1 and not (path and path[-1].kind in _TURNS))))
                )
                if last and room is not None and room < 1:
                    continue
                children = (
                    self._one_step_children(node, snap, room, novel)
                    if last
                    else _steps(node, room, novel, self.open_turns)
                )
                for step, child in children:
                    self._nodes += 1
                    if child in seen:
                        continue
                    seen.add(child)
                    # (the first depth's explanations, with open turns, were looked for above)
                    merged = None if self.open_turns and _depth == 0 else _view_matches(child, snap)
                    if merged is not None:
                        found.append((path + step, merged))
                    if not last:
                        next_frontier.append((path + step, child))
                    if self._nodes >= self.node_limit:
                        self._cut_short = True
                        return found
            if found:
                return found
            frontier = next_frontier
        return []

    # journal ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-ready description of the tracker (rules, state, history, alternatives)."""
        return {
            "rules": {
                "draw_count": self.rules.draw_count,
                "redeal_limit": self.rules.redeal_limit,
                "foundation_return": self.rules.foundation_return,
            },
            "state": None if self.state is None else state_to_dict(self.state),
            "history": [m.text for m in self.history],
            # the likeliest explanation's cost: more than its moves once a misread was taken
            # back, and the alternatives are ranked against it
            # (at least the history's length, as from_dict demands: a bench run found a
            # likeliest one move cheaper than its history after a take-back with open turns,
            # cause not yet found; the ranking only is at stake)
            **({"cost": max(self._hypotheses[0].cost, len(self._hypotheses[0].history))} if self._hypotheses else {}),
            **({"slack": self._hypotheses[0].slack} if self._hypotheses and self._hypotheses[0].slack else {}),
            **({"guessed": True} if self._lost else {}),
            **({"doubted": [_hypothesis_to_dict(h) for h in self._doubts]} if self._doubts else {}),
            "alternatives": [_hypothesis_to_dict(h) for h in self._hypotheses[1:]],
            "recent": [_hypothesis_to_dict(h) for h in self._recent],
        }

    @classmethod
    def from_dict(cls, data: dict) -> TableTracker:
        """The tracker ``to_dict`` wrote. ValueError says which part is wrong ("the rules",
        "the position", "move 3 of the history", "alternative 2") and why."""
        if not isinstance(data, dict):
            raise ValueError(f"the tracker must be an object, not {json_type(data)}")
        if "rules" not in data:
            raise ValueError("the tracker has no rules: they must give draw_count, redeal_limit and foundation_return")
        rules_data = data["rules"]
        fields = ("draw_count", "redeal_limit", "foundation_return")
        if not isinstance(rules_data, dict):
            raise ValueError(
                f"the rules must give {', '.join(fields[:2])} and {fields[2]}, not {json_text(rules_data)}"
            )
        missing = [f for f in fields if f not in rules_data]
        unknown = sorted(f for f in rules_data if f not in fields)
        if missing or unknown:
            raise ValueError(
                f"the rules must give {', '.join(fields[:2])} and {fields[2]}, nothing else: "
                + "; ".join(
                    ([f"missing {', '.join(missing)}"] if missing else [])
                    + ([f"unknown {', '.join(json_text(f) for f in unknown)}"] if unknown else [])
                )
            )
        rules = rules_from_dict(rules_data)

        def moves(value, where: str) -> list[Move]:
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                raise ValueError(f"{where} must be a list of moves in the game-log notation, not {json_text(value)}")
            out = []
            for n, text in enumerate(value, start=1):
                try:
                    out.append(Move.parse(text))
                except ValueError as exc:
                    raise ValueError(f"move {n} of {where}: {exc}") from None
            return out

        def position(value, where: str) -> GameState:
            try:
                return state_from_dict(value, rules)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None

        def hypotheses(key: str, name: str) -> list[_Hypothesis]:
            listed = data.get(key, [])
            if not isinstance(listed, list):
                raise ValueError(f"the {name}s must be a list, not {json_text(listed)}")
            out = []
            for n, alt in enumerate(listed, start=1):
                where = f"{name} {n}"
                if not isinstance(alt, dict) or type(alt.get("cost")) is not int:
                    raise ValueError(f"{where} must be an object with a whole-number cost, not {json_text(alt)}")
                if type(alt.get("misread", False)) is not bool:
                    raise ValueError(
                        f"the misread flag of {where} must be true or false, not {json_text(alt['misread'])}"
                    )
                slack = alt.get("slack", 0)
                if type(slack) is not int or not 0 <= slack <= alt["cost"]:
                    raise ValueError(
                        f"the slack of {where} must be a whole number 0 to its cost, not {json_text(slack)}"
                    )
                if type(alt.get("widened", False)) is not bool:
                    raise ValueError(
                        f"the widened flag of {where} must be true or false, not {json_text(alt['widened'])}"
                    )
                out.append(
                    _Hypothesis(
                        alt["cost"],
                        position(alt.get("state"), where),
                        tuple(moves(alt.get("history"), f"the history of {where}")),
                        alt.get("misread", False),
                        slack,
                        alt.get("widened", False),
                    )
                )
            return out

        state = None if data.get("state") is None else position(data["state"], "the position")
        tracker = cls(rules, state, moves(data.get("history", []), "the history"))
        if tracker._hypotheses and "cost" in data:  # (a journal written before the cost was kept has none)
            cost = data["cost"]
            if type(cost) is not int or cost < len(tracker.history):
                raise ValueError(
                    f"the cost must be a whole number, at least the {len(tracker.history)} moves of the "
                    f"history, not {json_text(cost)}"
                )
            slack = data.get("slack", 0)
            if type(slack) is not int or not 0 <= slack <= cost:
                raise ValueError(f"the slack must be a whole number 0 to the cost, not {json_text(slack)}")
            tracker._hypotheses[0] = replace(tracker._hypotheses[0], cost=cost, slack=slack)
        if type(data.get("guessed", False)) is not bool:
            raise ValueError(f"the guessed flag must be true or false, not {json_text(data['guessed'])}")
        tracker.guessed = data.get("guessed", False)
        tracker._doubts = hypotheses("doubted", "doubted explanation")
        for n, doubt in enumerate(tracker._doubts, start=1):
            if doubt.misread:
                raise ValueError(f"doubted explanation {n} must not be marked misread (only the alternatives are)")
        tracker._hypotheses += hypotheses("alternatives", "alternative")
        tracker._recent = hypotheses("recent", "recent position")[-tracker.undo_depth :] if tracker.undo_depth else []
        return tracker


def _hypothesis_to_dict(h: _Hypothesis) -> dict:
    return {
        "cost": h.cost,
        "state": state_to_dict(h.state),
        "history": [m.text for m in h.history],
        **({"misread": True} if h.misread else {}),
        **({"slack": h.slack} if h.slack else {}),
        **({"widened": True} if h.widened else {}),
    }


def _a_redeal_for_nothing(hyp: _Hypothesis, taken_back: Sequence[_Hypothesis]) -> bool:
    """True when ``hyp`` ends in a redeal and one of ``taken_back`` (explanations that hold
    the last snapshot misread, or its moves put back) is as likely and shows the same table
    with one redeal fewer used.

    Decision: the whole talon turned onto an empty waste (draw 1: the stock's last card;
    draw 3: its last 1 to 3) and then the table as before the turn, when the coach advised
    another move than the redeal (``update(snap, prefer=move)``, as the coach calls it), is
    read as the turn taken back, not as a redeal, although a redeal gives the same table
    and legal moves win other ties. A person who did not follow the advice is more likely
    to have taken back the turn just made than to have turned a waste of those cards over
    again, which only puts the table back as it was and spends one of the few redeals (3 by
    default) for nothing; and a count one too low only lets a redeal through that the
    rules may not allow, where one too high refuses a legal one later (and says "redeal 2
    of 3" for the first). When the redeal was advised it wins, as any advised move does
    (the strategies advise it when nothing else is left: each redeal brings the end of the
    game nearer); with no advice known (``prefer`` None: a tracker used on its own, the
    simulations, or the coach after "lost") the legal redeal wins the tie as before."""
    if hyp.misread or not hyp.history or hyp.history[-1].kind is not MoveKind.REDEAL:
        return False
    # only an explanation that takes back this redeal's turn (its moves a beginning of
    # ``hyp``'s): one that keeps the redeal and drops an earlier one (an earlier read held
    # misread) is no take-back, and counted one redeal short (seen: draw 1, 5 redeals, seed 32)
    return any(
        other.cost == hyp.cost
        and len(other.history) < len(hyp.history)
        and hyp.history[: len(other.history)] == other.history
        and _same_table(hyp.state, other.state, more_redeals=1)
        for other in taken_back
    )


def _a_move_straight_back(hyp: _Hypothesis, taken_back: _Hypothesis, prefer: Move | None) -> bool:
    """True when ``hyp`` explains the read as the last move made and then made back (a card
    or run moved between two columns and back, a card put up and taken down again) and
    ``taken_back`` (which holds the last read misread) reaches the same position as
    cheaply without the two moves.

    Decision (the unseen-moves issue: a move and its reverse that were only a misread leave
    no trace in the history): the read is taken as the last move taken back, not as a
    second move. No picture tells a misread that looked like a legal move from a move a
    person made and took back at once (the recorded game1 has one, ``5-6 4S`` and ``6-5
    4S``); either way the position is the same, and a pair that changes nothing is left out
    of the history (:func:`state.first_difference` passes over such pairs in a move log).
    The move back wins where the coach advised it (``prefer``), as any advised move does."""
    return (
        taken_back.misread
        and not hyp.misread
        and taken_back.cost == hyp.cost
        and len(hyp.history) >= 2
        and taken_back.history == hyp.history[:-2]
        and (prefer is None or hyp.history[-1] != prefer)
    )


def _same_table(a: GameState, b: GameState, more_redeals: int = 0) -> bool:
    """True when ``a`` and ``b`` lie the same way (every pile as long, no card known in
    both at different places) and ``a`` has used ``more_redeals`` more redeals."""

    def fits(x: tuple, y: tuple) -> bool:
        return len(x) == len(y) and all(p is None or q is None or p is q for p, q in zip(x, y))

    return (
        a.redeals_used == b.redeals_used + more_redeals
        and a.faceup == b.faceup
        and a.foundations == b.foundations
        and fits(a.stock, b.stock)
        and fits(a.waste, b.waste)
        and all(fits(x, y) for x, y in zip(a.hidden, b.hidden))
    )


def _shown_cards(snap: Snapshot) -> set[Card]:
    """The cards the snapshot shows: its slots' cards, its runs' and its waste fan's."""
    shown = {v for v in snap.slots if isinstance(v, Card)}
    for run in snap.runs or ():
        shown.update(run or ())
    shown.update(snap.waste_fan or ())
    return shown


def _novel_cards(state: GameState, snap: Snapshot) -> frozenset[Card]:
    """Cards the snapshot shows or implies (a foundation showing 4♠ holds A♠-3♠ too)
    whose place ``state`` does not know: candidates for a card turned over unseen."""
    shown = _shown_cards(snap)
    for v in snap.foundations:
        if isinstance(v, Card):
            shown.update(Card(rank, v.suit) for rank in range(1, v.rank))
    return frozenset(shown) - state.known_cards()


def _changed_slot_count(state: GameState, snap: Snapshot) -> int:
    """How many slots show something other than ``state`` would (unread slots and
    unknown cards do not count)."""
    changed = 0
    for exp, seen in zip(_expected_slots(state), snap.slots):
        if seen is not UNKNOWN and exp is not None and seen is not exp:
            changed += 1
    for v in snap.foundations:
        if isinstance(v, Card) and state.foundations[v.suit] != v.rank:
            changed += 1
    return changed


def _distance(state: GameState, snap: Snapshot) -> int:
    """A rough count of moves still needed to make ``state`` look like ``snap``."""
    d = 0
    for v in snap.foundations:
        if isinstance(v, Card):
            d += abs(v.rank - state.foundations[v.suit])
    for i, v in enumerate(snap.columns):
        top = state.column_top(i)
        if isinstance(v, Card) and top is not v:
            d += 1
        elif v is EMPTY and (state.faceup[i] or state.hidden[i]):
            d += 1
    w = snap.waste
    if isinstance(w, Card) and state.waste_top() is not w:
        d += 1
    return d


def _describe_reveals(before: GameState, after: GameState) -> str:
    parts = []
    for i in range(COLUMN_COUNT):
        if before.faceup[i] != after.faceup[i]:
            parts.append(f"{after.faceup[i][-1].symbol} in column {i + 1}")
    if before.waste != after.waste:
        parts.append(f"{after.waste[-1].symbol} on the waste")  # type: ignore[union-attr]
    return ", ".join(parts)


def _describe_rereads(before: GameState, after: GameState) -> str:
    """The piles whose cards a re-read changed (``after`` may know less than ``before``)."""
    parts = []
    for i in range(COLUMN_COUNT):
        if before.faceup[i] != after.faceup[i] or before.hidden[i] != after.hidden[i]:
            top = after.faceup[i][-1].symbol if after.faceup[i] else "a card not yet turned"
            parts.append(f"{top} in column {i + 1}")
    if before.waste != after.waste:
        card = after.waste[-1] if after.waste else None
        parts.append(f"{card.symbol if card else 'a card not yet seen'} on the waste")
    return ", ".join(parts) or "the table"


# explaining a snapshot that cannot follow --------------------------------------------


def _expected_slots(state: GameState) -> list[SlotValue | None]:
    """What each slot should show (None where the state does not know)."""
    out: list[SlotValue | None] = []
    out.append(EMPTY if not state.waste else state.waste[-1])
    out.extend([None] * 4)
    for i in range(COLUMN_COUNT):
        if state.faceup[i]:
            out.append(state.faceup[i][-1])
        elif state.hidden[i]:
            out.append(None)
        else:
            out.append(EMPTY)
    return out


def _sym(v: SlotValue | None) -> str:
    if v is None:
        return "an unknown card"
    if isinstance(v, Card):
        return v.symbol
    return "no card" if v is EMPTY else "an unreadable card"


def looks_like_a_deal(snap: Snapshot, rules: Rules = DEFAULT_RULES) -> bool:
    """True when ``snap`` shows a table as dealt: a card on each column and on the waste,
    empty foundations, and each column's run (where read) one card. A game's table early
    on looks the same when its runs are not read; callers use this only to start a new
    game once the game in hand has ended, or to say that a new deal may be on the table."""
    if snap.runs is not None and any(run is not None and len(run) != 1 for run in snap.runs):
        return False
    if any(v is not EMPTY for v in snap.foundations):  # read empty, not unread
        return False
    return TableTracker(rules).update(snap).kind == "started"


def illegal_placements(state: GameState, snap: Snapshot, far_apart: bool = False) -> list[str]:
    """Cards the snapshot shows where no legal move could have put them, said for the
    player ("5♥ was put on 7♣ in column 4: take it back"): the texts of
    :func:`misplaced_cards`."""
    return [p.text for p in misplaced_cards(state, snap, far_apart)]


def misplaced_cards(state: GameState, snap: Snapshot, far_apart: bool = False) -> list[Placement]:
    """Cards the snapshot shows where no legal move could have put them. Only when the
    table differs from the last position as one move would (the card's old place and its
    new one), or from the position after one legal move (a card put down wrong while
    another was played); a table changed in many places is not blamed on one card.

    ``far_apart`` (reads several moves apart): a card on a foundation more than one above
    its top is blamed only where a card between shows elsewhere on the table (a pile's
    top, or a run read under one); else the cards between may have gone up unseen (a waste
    card under the one seen, a face-down card turned up and played)."""
    placements = _placements(state, snap, far_apart)
    for move in [] if placements else state.legal_moves():
        placements = _placements(state.play(move), snap, far_apart)
        if placements:
            break
    return placements


def _placements(state: GameState, snap: Snapshot, far_apart: bool = False) -> list[Placement]:
    """:func:`misplaced_cards` from ``state`` itself."""
    if _changed_slot_count(state, snap) > 2:
        return []
    placements = []
    for i, v in enumerate(snap.columns):
        if not isinstance(v, Card) or (state.faceup[i] and state.faceup[i][-1] is v):
            continue
        if v not in _movable_cards(state) or v in state.faceup[i]:
            continue  # (a card of the column's own run shows: its top was taken off, or missed)
        below = state.column_top(i)
        pile = f"column {i + 1}"
        seen = snap.runs[i] if snap.runs is not None else None
        if seen is not None and len(seen) > 1 and seen[-1] is v and seen[-2] is not below:
            # the runs line shows what lies under the card, and it is not what the position
            # says: moves went unseen there, and the card may lie legally (no take-back)
            continue
        if below is not None:
            if not v.goes_on_tableau(below):
                placements.append(Placement(v, pile, f"{v.symbol} was put on {below.symbol} in {pile}: take it back"))
        elif not state.hidden[i] and v.rank != KING:
            placements.append(
                Placement(v, pile, f"{v.symbol} was put into the empty {pile}, where only a king may go: take it back")
            )
    shown = _shown_cards(snap) if far_apart else set()
    for v in snap.foundations:
        if isinstance(v, Card) and state.foundations[v.suit] + 1 < v.rank and v in _movable_cards(state):
            between = [Card(rank, v.suit) for rank in range(state.foundations[v.suit] + 1, v.rank)]
            if far_apart and not any(c in shown for c in between):
                continue  # the cards between may have gone up while no picture was taken
            have = state.foundation_top(v.suit)
            where = f"on {have.symbol}" if have else "on an empty foundation"
            placements.append(Placement(v, "foundation", f"{v.symbol} was put on the foundation {where}: take it back"))
    return placements


def explain_inconsistency(state: GameState, snap: Snapshot, placements: Sequence[Placement] | None = None) -> str:
    """Why ``snap`` cannot follow from ``state``: an illegal placement if one explains it,
    else every slot that differs, naming the slot, the expected and the seen card.
    ``placements``: :func:`misplaced_cards` of the two, when the caller has them already."""
    repeated = repeated_cards(snap.slots)
    if repeated:  # a misreading, not a move: no placement to take back
        return f"{repeated}: one of them is misread"
    if placements is None:
        placements = misplaced_cards(state, snap)
    if placements:
        return "; ".join(p.text for p in placements)
    expected = _expected_slots(state)
    diffs = []
    for idx, (exp, seen) in enumerate(zip(expected, snap.slots)):
        if seen is UNKNOWN or (exp is not None and seen is exp) or 1 <= idx <= 4:
            continue
        if exp is None and isinstance(seen, Card):
            continue
        diffs.append(f"{slot_name(idx)}: expected {_sym(exp)}, saw {_sym(seen)}")
    for depth, seen in enumerate(reversed(snap.waste_fan or ())):
        if depth == 0 or depth >= len(state.waste):
            continue
        exp = state.waste[-1 - depth]
        if exp is not None and exp is not seen:
            diffs.append(f"waste fan, card {depth + 1} from the top: expected {exp.symbol}, saw {seen.symbol}")
    for i, v in enumerate(snap.foundations, start=1):
        if isinstance(v, Card) and state.foundations[v.suit] != v.rank:
            have = state.foundation_top(v.suit)
            diffs.append(
                f"{slot_name(i)}: expected {_sym(have) if have else 'no card of the ' + SUIT_NAMES[v.suit]}, "
                f"saw {v.symbol}"
            )
    if not diffs:
        diffs.append("no sequence of legal moves leads from the last position to this one")
    return "the table does not follow from the last position by legal moves: " + "; ".join(diffs)


def _movable_cards(state: GameState) -> set[Card]:
    cards: set[Card] = set()
    if state.waste and state.waste[-1] is not None:
        cards.add(state.waste[-1])
    for run in state.faceup:
        cards.update(run)
    return cards
