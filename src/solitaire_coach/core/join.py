"""Joining a game in progress: the coach starts from whatever position is on the table.

A join starts from what can be seen (:class:`TableView`): the waste's visible cards,
the top card of each foundation, each column's face-up run, how many face-down cards lie
under each run, and (when known) whether the stock holds cards. Every card that is not
visible and not under a foundation top is unseen; the coach plays on as after a deal,
with the unseen cards unknown (``None``), so the advisor's sampling deals exactly those
cards into exactly those places (a foundation's lower cards are on it, never sampled).

Decisions (the issue leaves them open):

* **The stock and the waste.** The unseen cards that are not face down in a column lie
  in the stock or under the waste's visible cards; the camera does not tell how they
  are split. A join keeps every split that fits as an explanation of the table (the
  tracker's hypotheses, all equally likely at first), the stock holding all of them
  first, then one fewer, ... down to none (or one, when the stock is known to hold
  cards). Later pictures rule the wrong splits out: a waste card seen where the split
  had none under the top costs a stock turn more, and a waste turned over while the
  split still had stock cards cannot be explained at all.
* **Face-down counts** come from the ``down:`` line of a snapshot (or the detector).
  When none is given, the fewest face-down cards that fit are assumed and said: the
  stock and the waste never hold more than the 24 cards the deal left there, so at least
  ``28 - face-up tableau cards - foundation cards`` lie face down, put in the rightmost
  columns first (each at most what the deal put there), columns that read empty none.
* **Redeals used** are not visible: a join takes a snapshot's ``redeals:`` line, else it
  keeps every count open, from none to the rules' limit, the fewest likeliest, and says so
  (also joining from a game it lost: that game may hold a redeal never made); the advice that rests
  on the count (a redeal at the limit) then asks. Before 2026-11-28 it assumed none:
  ``bench/join_strength.py`` found most of what a join costs late in a game to be redeals
  the advisor counted on that had already been made, and ``bench/unseen_gaps.py
  --join-when-lost`` counted every read after such a join silently wrong.

Refused (:class:`JoinError`, naming the slot; nothing starts): an unread slot, two
foundations of one suit, a card in two places (a foundation's lower cards count as on
it), a column's run that is no descending run of alternating colours, a column with
more face-down cards than the deal put there, more than 52 cards in all, too few
face-down cards (more than 24 left for the stock and the waste), and a stock said to be
empty, or to hold cards, that the counts contradict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import SUIT_SYMBOLS, Card, is_whole_number
from .notation import EMPTY, UNKNOWN, Snapshot, slot_name, state_from_dict, state_to_dict
from .rules import DEFAULT_RULES, Rules
from .state import COLUMN_COUNT, TABLEAU_CARD_COUNT, GameState, check_position
from .tracker import TableTracker, _Hypothesis

STOCK_CARD_COUNT = 52 - TABLEAU_CARD_COUNT
"""The cards a deal leaves for the stock (and the waste): they never hold more."""


class JoinError(ValueError):
    """A table no legal game can show (or one not read whole); the message names the slot."""


@dataclass(frozen=True)
class TableView:
    """What can be seen of a table in play: ``waste`` the visible waste cards bottom to
    top (the top last; empty for an empty waste), ``foundations`` the top card of each
    foundation slot (None where empty), ``runs`` each column's face-up run bottom to top,
    ``down`` the face-down cards of each column (None: not known), ``stock`` whether the
    stock holds cards (None: not known), ``redeals_used`` the redeals made so far (None:
    not known: every count up to the rules' limit is kept open)."""

    waste: tuple[Card, ...]
    foundations: tuple[Card | None, ...]
    runs: tuple[tuple[Card, ...], ...]
    down: tuple[int, ...] | None = None
    stock: bool | None = None
    redeals_used: int | None = None  # None: not known (every count that fits kept open)
    runs_read: bool = True  # False: only each column's top card was read (no runs: line)

    @staticmethod
    def of_snapshot(snap: Snapshot, stock: bool | None = None) -> TableView:
        """The view a snapshot gives: its waste fan (or top card), its foundation slots, each
        column's ``runs:`` run (or its top card alone where no run is read: the cards under
        it then count as face down), and its ``down:`` line. JoinError names an unread slot."""
        unread = [slot_name(i) for i, v in enumerate(snap.slots) if v is UNKNOWN]
        if unread:
            raise JoinError(f"{', '.join(unread)} could not be read (UU): a game is joined from a table read whole")
        waste = (
            snap.waste_fan if snap.waste_fan is not None else ((snap.waste,) if isinstance(snap.waste, Card) else ())
        )
        foundations = tuple(v if isinstance(v, Card) else None for v in snap.foundations)
        runs = []
        for i, top in enumerate(snap.columns):
            seen = snap.runs[i] if snap.runs is not None else None
            runs.append(tuple(seen) if seen else ((top,) if top is not EMPTY else ()))
        return TableView(
            tuple(waste),
            foundations,
            tuple(runs),  # type: ignore[arg-type]
            snap.down,
            stock,
            snap.redeals,
            runs_read=snap.runs is not None,
        )


@dataclass(frozen=True)
class Join:
    """A table joined: ``positions`` every position it can be (the stock/waste splits),
    the likeliest first; ``down`` the face-down counts used; ``assumed`` what was
    assumed rather than seen ('' when nothing), to tell the person."""

    positions: tuple[GameState, ...]
    down: tuple[int, ...]
    assumed: str = ""

    @property
    def position(self) -> GameState:
        """The likeliest position (the first)."""
        return self.positions[0]


def _column(i: int) -> str:
    return slot_name(5 + i)


def _check_cards(view: TableView) -> None:
    """Two foundations of one suit, a card in two places, a run out of order."""
    suits: dict[int, int] = {}
    for k, top in enumerate(view.foundations):
        if top is None:
            continue
        if top.suit in suits:
            j = suits[top.suit]
            raise JoinError(
                f"{slot_name(1 + j)} and {slot_name(1 + k)} both hold the {SUIT_SYMBOLS[top.suit]} "
                f"foundation ({view.foundations[j].symbol} and {top.symbol}): "  # type: ignore[union-attr]
                "one pile a suit"
            )
        suits[top.suit] = k
    places: dict[Card, str] = {}

    def put(card: Card, where: str) -> None:
        if card in places:
            raise JoinError(f"{card.symbol} is in {places[card]} and in {where}: a card lies in one place only")
        places[card] = where

    for k, top in enumerate(view.foundations):
        if top is not None:
            put(top, slot_name(1 + k))
            for rank in range(1, top.rank):
                put(Card(rank, top.suit), f"{slot_name(1 + k)} (under {top.symbol} on the foundation)")
    for card in view.waste:
        put(card, slot_name(0))
    for i, run in enumerate(view.runs):
        for card in run:
            put(card, _column(i))
        for lower, upper in zip(run, run[1:]):
            if not upper.goes_on_tableau(lower):
                raise JoinError(
                    f"{_column(i)}: {upper.symbol} lies on {lower.symbol}, which no legal move does "
                    f"(a run descends by one and alternates colours)"
                )


def _fewest_down(view: TableView, face_up: int, on_foundations: int) -> tuple[int, ...]:
    """The fewest face-down cards that fit (module docstring), rightmost columns first."""
    need = max(0, TABLEAU_CARD_COUNT - face_up - on_foundations)
    if view.stock is False and not view.waste:  # no stock and no waste: every unseen card is face down
        need = 52 - face_up - on_foundations
    counts = [0] * COLUMN_COUNT
    for i in range(COLUMN_COUNT - 1, -1, -1):
        if need <= 0:
            break
        if view.runs[i]:
            counts[i] = min(i, need)
            need -= counts[i]
    if need > 0:
        room = sum(i for i in range(COLUMN_COUNT) if view.runs[i])
        raise JoinError(
            f"the table shows only {face_up} face-up tableau cards and {on_foundations} on the "
            f"foundations: the columns showing a card hold at most {room} face-down cards, and the stock "
            f"and the waste never more than {STOCK_CARD_COUNT}, so {need} cards are missing"
        )
    return tuple(counts)


def join_table(view: TableView, rules: Rules = DEFAULT_RULES) -> Join:
    """Every position ``view`` can be (see the module docstring), the likeliest first;
    JoinError naming the slot when no legal game shows such a table."""
    if len(view.foundations) != 4 or len(view.runs) != COLUMN_COUNT:
        raise JoinError(
            f"a table has 4 foundations and {COLUMN_COUNT} columns, not {len(view.foundations)} and {len(view.runs)}"
        )
    _check_cards(view)
    limit = rules.redeal_limit
    redeals = 0 if view.redeals_used is None else view.redeals_used
    if not is_whole_number(redeals) or redeals < 0 or (limit is not None and redeals > limit):
        raise JoinError(f"{redeals!r} redeals used: the rules ({rules.describe()}) allow 0 to {limit}")
    face_up = sum(len(run) for run in view.runs)
    on_foundations = sum(top.rank for top in view.foundations if top is not None)
    shown = face_up + len(view.waste) + on_foundations
    assumed = []
    if view.down is None:
        down = _fewest_down(view, face_up, on_foundations)
        assumed.append(
            f"no face-down counts given (a down: line): assumed the fewest that fit, "
            f"{' '.join(map(str, down))} in columns 1-7"
        )
    else:
        down = tuple(view.down)
        if len(down) != COLUMN_COUNT:
            raise JoinError(f"one face-down count per column, {COLUMN_COUNT}, not {len(down)}")
        for i, n in enumerate(down):
            if not is_whole_number(n) or not 0 <= n <= i:
                raise JoinError(
                    f"{_column(i)}: {n!r} face-down cards; the deal puts {i} there and a column never gets more"
                )
    face_down = sum(down)
    rest = 52 - shown - face_down  # unseen cards in the stock and under the waste's visible ones
    if rest < 0:
        raise JoinError(
            f"more than 52 cards: {face_up} face up in the columns, {len(view.waste)} on the waste, "
            f"{on_foundations} on the foundations and {face_down} face down make {shown + face_down}"
        )
    if rest + len(view.waste) > STOCK_CARD_COUNT:
        raise JoinError(
            f"too few face-down cards ({' '.join(map(str, down))} in columns 1-7): that leaves "
            f"{rest + len(view.waste)} cards for the stock and the waste, which never hold more than the "
            f"{STOCK_CARD_COUNT} the deal left there"
            + (
                ""
                if view.runs_read
                else " (no runs: line was read, so each column counts its top card alone as face up)"
            )
        )
    if not view.waste:
        if view.stock is False and rest:
            raise JoinError(
                f"{slot_name(0)}: the stock and the waste are both empty, but {rest} cards are "
                f"neither seen nor face down"
            )
        if view.stock is True and not rest:
            raise JoinError("the stock is said to hold cards, but every card is seen or face down in a column")
        splits = [rest]
    elif view.stock is False:
        splits = [0]
    elif view.stock is True:
        if not rest:
            raise JoinError("the stock is said to hold cards, but every card is seen or face down in a column")
        splits = list(range(rest, 0, -1))
    else:
        splits = list(range(rest, -1, -1))
    counts = [redeals]
    if view.redeals_used is None and limit is not None:
        counts = list(range(limit + 1))
        assumed.append(
            f"no redeals given (a redeals: line): every count from 0 to the rules' {limit} kept open "
            "(the likeliest 0), so advice that rests on it asks"
        )
    heights = [0, 0, 0, 0]
    for top in view.foundations:
        if top is not None:
            heights[top.suit] = top.rank
    hidden = tuple((None,) * n for n in down)
    positions = []
    for in_stock in splits:
        for used in counts:
            state = GameState(
                hidden,
                tuple(tuple(run) for run in view.runs),
                (None,) * in_stock,
                (None,) * (rest - in_stock) + tuple(view.waste),
                tuple(heights),  # type: ignore[arg-type]
                used,
                rules,
            )
            check_position(state)  # the checks above cover it: a last guard, never expected to fire
            positions.append(state)
    return Join(tuple(positions), down, "; ".join(assumed))


def describe_join(join: Join) -> str:
    """One line for the person: the game joined, its unseen cards, and what was assumed."""
    state = join.position
    unseen = len(state.unseen_cards())
    stock = len({len(p.stock) for p in join.positions}) > 1
    text = (
        f"joined a game in progress: {sum(join.down)} face-down cards ({' '.join(map(str, join.down))}), "
        f"{unseen} cards unseen" + (", split between the stock and the waste as later pictures show" if stock else "")
    )
    return text + (f"; {join.assumed}" if join.assumed else "")


class JoinedTracker(TableTracker):
    """A tracker of a game joined in progress: its history counts from the join, and
    ``joined_at`` (the likeliest position joined) is journalled with it (``"joined"``),
    so that a resumed or replayed game says it was joined, not dealt."""

    def __init__(self, *args, joined_at: GameState | None = None, join_note: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.joined_at = joined_at
        self.join_note = join_note

    @classmethod
    def join(cls, join: Join, **options) -> JoinedTracker:
        """A tracker holding every position of ``join`` as an equally likely explanation
        (at most ``max_hypotheses``), the likeliest first. ``options`` as TableTracker's."""
        first = join.position
        tracker = cls(first.rules, first, joined_at=first, join_note=describe_join(join), **options)
        tracker._hypotheses += [_Hypothesis(0, p, ()) for p in join.positions[1 : tracker.max_hypotheses]]
        return tracker

    def to_dict(self) -> dict:
        """TableTracker's, with the position joined (``"joined"``)."""
        data = super().to_dict()
        if self.joined_at is not None:
            data["joined"] = {"position": state_to_dict(self.joined_at), "note": self.join_note}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> JoinedTracker:
        """The tracker ``to_dict`` wrote; ValueError names what is wrong."""
        tracker = super().from_dict(data)
        assert isinstance(tracker, JoinedTracker)  # TableTracker.from_dict makes a cls
        joined = data.get("joined")
        if not isinstance(joined, dict) or not isinstance(joined.get("note", ""), str):
            raise ValueError("'joined' must be an object with the position joined and a note")
        try:
            tracker.joined_at = state_from_dict(joined.get("position") or {}, tracker.rules)
        except ValueError as exc:
            raise ValueError(f"the position joined: {exc}") from None
        tracker.join_note = joined.get("note", "")
        return tracker


def tracker_from_dict(data: dict) -> TableTracker:
    """The tracker a journal holds: a JoinedTracker where it records a join, else a TableTracker."""
    if isinstance(data, dict) and "joined" in data:
        return JoinedTracker.from_dict(data)
    return TableTracker.from_dict(data)


def join_with_hint(view: TableView, hint: tuple[int, ...] | None, rules: Rules = DEFAULT_RULES) -> Join:
    """Join ``view`` (its own ``down`` ignored) with face-down counts a camera read,
    ``hint``, taken only as a hint: used where they fit the table (each column at most
    what the deal put there, none under a column seen empty, and a join that
    :func:`join_table` accepts with them), else left, and the fewest that fit assumed; the
    join's ``assumed`` says which and why. JoinError, as join_table's, when the table
    cannot be joined at all."""
    bare = replace(view, down=None)
    if hint is None:
        return join_table(bare, rules)
    shown = " ".join(str(n) for n in hint)
    why = ""
    if len(hint) != COLUMN_COUNT or not all(is_whole_number(n) for n in hint):
        why = f"not one whole count per column ({len(hint)} given)"
    else:
        empty = [i for i, n in enumerate(hint) if n and not view.runs[i]]
        high = [i for i, n in enumerate(hint) if n > i]
        if high:
            why = f"{_column(high[0])} holds at most {high[0]} face-down cards"
        elif empty:
            why = f"{_column(empty[0])} shows no card, so none lies face down there"
    if not why:
        try:
            join = join_table(replace(view, down=tuple(hint)), rules)
        except JoinError as exc:
            why = str(exc)
        else:
            note = f"face-down counts as the picture shows them, {shown} in columns 1-7"
            return replace(join, assumed="; ".join(x for x in (note, join.assumed) if x))
    join = join_table(bare, rules)
    fewest = " ".join(map(str, join.down))
    note = (
        f"the face-down counts read ({shown}) do not fit ({why}): assumed the fewest that fit, {fewest} in columns 1-7"
    )
    rest = join.assumed.split("; ", 1)[1] if "; " in join.assumed else ""
    return replace(join, assumed="; ".join(x for x in (note, rest) if x))


def try_join(
    snap: Snapshot,
    rules: Rules = DEFAULT_RULES,
    hint: tuple[int, ...] | None = None,
    **options,
) -> tuple[JoinedTracker | None, str]:
    """A tracker joined at the table ``snap`` shows and the line to say, or None and why not.
    The snapshot's ``down:`` line is taken as given; without one, face-down counts a camera
    read (``hint``) are used only where they fit (see :func:`join_with_hint`). ``options``
    as TableTracker's (the coach's: ``open_turns``, ``max_hypotheses``)."""
    try:
        view = TableView.of_snapshot(snap)
        join = join_table(view, rules) if snap.down is not None or hint is None else join_with_hint(view, hint, rules)
    except JoinError as exc:
        return None, f"cannot join the game on the table: {exc}"
    tracker = JoinedTracker.join(join, **options)
    return tracker, tracker.join_note


__all__ = [
    "JoinError",
    "TableView",
    "Join",
    "join_table",
    "join_with_hint",
    "describe_join",
    "JoinedTracker",
    "tracker_from_dict",
    "try_join",
]
