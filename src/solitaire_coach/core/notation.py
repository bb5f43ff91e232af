"""Text formats, parsed and written in one place: the 12-slot snapshot, deal lines and game logs.

Everything here works on strings; reading and writing files (atomically) is done by
:mod:`solitaire_coach.storage`, outside the pure core.

12-slot snapshot
    One line of 12 comma-separated codes: slot 1 the top card of the waste, slots 2-5
    the four foundations (any order), slots 6-12 the top card of tableau columns 1-7.
    ``XX`` = no card, ``UU`` = could not be read. Optional extra lines follow; the one
    this module knows is ``runs: <col1>|<col2>|...|<col7>`` giving each column's whole
    visible face-up run bottom to top (space-separated codes, empty if unknown; an empty
    ``runs:`` line says nothing, as if it were not there), and
    ``waste: <c1> <c2> <c3>`` the visible fan of the waste bottom to top (the cards of
    the last stock turn still on the waste, 1 to 3 codes, the top card last), and
    ``stock: pile`` or ``stock: empty``: whether the picture shows cards in the stock's
    place (the 12 slots have no slot for the stock, so without this line an empty stock
    and a pile look the same).
    ``down: <n1> <n2> ... <n7>`` the number of face-down cards under each column's
    face-up run (column k is dealt k-1 face-down cards and never gets more), read when a
    game is joined in progress (:mod:`solitaire_coach.core.join`), as is
    ``redeals: <n>`` the times the waste has been turned over so far (no picture shows it).
    Other extra lines, blank lines and ``#`` comments are ignored.

Deal line
    52 codes separated by spaces (commas are read too): the 28 tableau cards (column 1's card, column 2's two
    cards bottom to top, ..., column 7's seven), then the 24 stock cards from the top.

Game log
    Line 1 the deal; then one move per line (``3-5`` or ``3-5 7H``); last line ``won``
    or ``lost``. ``#`` lines are comments.

Position and rules objects
    A position as a JSON-ready dict (``state_to_dict`` / ``state_from_dict``: hidden and
    face-up cards of each column, stock, waste, foundation heights, redeals used; ``??``
    for a card not known) and the rules object (``rules_from_dict``), as the journal and
    ``solve`` on a position hold them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .cards import Card, CardParseError, check_permutation, is_whole_number, quote
from .moves import Move, MoveParseError
from .rules import MAX_REDEAL_LIMIT, Rules
from .state import GameState, check_position


class SnapshotParseError(ValueError):
    """A snapshot line that cannot be read; the message names the slot and the text."""


class DealParseError(ValueError):
    """A deal line that is not a permutation of the 52 cards."""


class LogParseError(ValueError):
    """A malformed game log; the message names the line."""


class SlotMark:
    """``EMPTY`` (``XX``, no card) or ``UNKNOWN`` (``UU``, unreadable)."""

    __slots__ = ("code",)
    code: str

    def __init__(self, code: str) -> None:
        object.__setattr__(self, "code", code)

    def __setattr__(self, name, value):  # shared by every snapshot: immutable
        raise AttributeError("EMPTY and UNKNOWN are immutable")

    def __repr__(self) -> str:
        return self.code

    __str__ = __repr__

    def __reduce__(self):
        return (_slot_mark, (self.code,))


def _slot_mark(code: str) -> SlotMark:
    return EMPTY if code == "XX" else UNKNOWN


EMPTY = SlotMark("XX")
UNKNOWN = SlotMark("UU")

SlotValue = Card | SlotMark

SLOT_NAMES = ("waste",) + tuple(f"foundation {i}" for i in range(1, 5)) + tuple(f"column {i}" for i in range(1, 8))


MAX_RUN = 13
"""The most cards a column's visible run can hold (a king down to an ace)."""


def slot_name(index: int) -> str:
    """Human name of 0-based slot ``index`` (``slot 6 (column 1)``)."""
    return f"slot {index + 1} ({SLOT_NAMES[index]})"


@dataclass(frozen=True)
class Snapshot:
    """What the camera saw: 12 slot values plus, optionally, each column's visible run
    and the visible fan of the waste (``waste_fan``: 1 to 3 cards bottom to top, the
    last one the waste's top card; with draw 3, the cards of the last turn still on
    the waste).

    The constructor checks the form (12 slots of Cards, ``EMPTY`` or ``UNKNOWN``; 7 runs,
    an empty one kept as None, not read; the fan against the waste slot), not whether the
    table could be: a camera's misread is a snapshot too, and the tracker judges it.
    ``parse_snapshot`` also refuses text that shows one card in two places."""

    slots: tuple[SlotValue, ...]
    runs: tuple[tuple[Card, ...] | None, ...] | None = None
    waste_fan: tuple[Card, ...] | None = None
    # what the picture shows of the stock: True a pile is there, False its place is empty,
    # None not read (the 12 slots have none for the stock: a ``stock: pile|empty`` line)
    stock: bool | None = None
    down: tuple[int, ...] | None = None  # face-down cards of each column (a ``down:`` line)
    redeals: int | None = None  # the waste turned over so far (a ``redeals:`` line)

    def __post_init__(self) -> None:
        slots = tuple(self.slots)
        if len(slots) != 12:
            raise SnapshotParseError(f"a snapshot has 12 slots, not {len(slots)}")
        for i, value in enumerate(slots):
            if not isinstance(value, Card) and value is not EMPTY and value is not UNKNOWN:
                raise SnapshotParseError(f"{slot_name(i)}: {value!r} is not a Card, EMPTY or UNKNOWN")
        object.__setattr__(self, "slots", slots)
        if self.runs is not None:
            runs = tuple(self.runs)
            if len(runs) != 7:
                raise SnapshotParseError(f"runs: one per column, 7, not {len(runs)}")
            checked = []
            for col, run in enumerate(runs):
                run = tuple(run) if run is not None else ()
                if not all(isinstance(c, Card) for c in run):
                    raise SnapshotParseError(f"runs of column {col + 1}: {run!r} is not a sequence of Cards")
                checked.append(run or None)  # an empty run is a run not read
            object.__setattr__(self, "runs", tuple(checked))
        if self.waste_fan is not None:
            object.__setattr__(self, "waste_fan", tuple(self.waste_fan))
            if not all(isinstance(c, Card) for c in self.waste_fan):
                raise SnapshotParseError(f"waste fan: {self.waste_fan!r} is not a sequence of Cards")
            problem = _fan_problem(self.waste_fan, self.slots[0])
            if problem:
                raise SnapshotParseError(f"waste fan: {problem}")
        if self.stock is not None and not isinstance(self.stock, bool):
            raise SnapshotParseError(f"stock: {self.stock!r} is not True (a pile), False (empty) or None (not read)")
        if self.down is not None:
            object.__setattr__(self, "down", tuple(self.down))
            problem = _down_problem(self.down)
            if problem:
                raise SnapshotParseError(f"down: {problem}")
        if self.redeals is not None and not (is_whole_number(self.redeals) and 0 <= self.redeals <= MAX_REDEAL_LIMIT):
            raise SnapshotParseError(f"redeals: {self.redeals!r} is not a count of redeals (0 to {MAX_REDEAL_LIMIT})")

    @property
    def waste(self) -> SlotValue:
        """What slot 1 (the waste's top card) reads."""
        return self.slots[0]

    @property
    def foundations(self) -> tuple[SlotValue, ...]:
        """What slots 2-5 (the four foundations) read."""
        return self.slots[1:5]

    @property
    def columns(self) -> tuple[SlotValue, ...]:
        """What slots 6-12 (the tops of columns 1-7) read."""
        return self.slots[5:12]

    def line(self) -> str:
        """The 12-slot line alone, comma-separated codes."""
        return ",".join(v.code for v in self.slots)

    def text(self) -> str:
        """The whole snapshot file content: the slot line, then the runs and waste lines when known."""
        out = self.line() + "\n"
        if self.runs is not None:
            out += "runs: " + "|".join(" ".join(c.code for c in run) if run else "" for run in self.runs) + "\n"
        if self.waste_fan is not None:
            out += "waste: " + " ".join(c.code for c in self.waste_fan) + "\n"
        if self.stock is not None:
            out += f"stock: {'pile' if self.stock else 'empty'}\n"
        if self.down is not None:
            out += "down: " + " ".join(str(n) for n in self.down) + "\n"
        if self.redeals is not None:
            out += f"redeals: {self.redeals}\n"
        return out

    def __str__(self) -> str:
        return self.line()


def _listed_twice(cards: tuple[Card, ...]) -> str:
    """Which of ``cards`` are listed more than once (``4D listed twice``), or '' if none."""
    dupes = sorted({c.code for c in cards if cards.count(c) > 1})
    return f"{' '.join(dupes)} listed twice" if dupes else ""


def _fan_problem(fan: tuple[Card, ...], top: SlotValue) -> str:
    """Why ``fan`` cannot be the visible waste fan under waste slot ``top`` ('' if it can)."""
    if not 1 <= len(fan) <= 3:
        return f"shows 1 to 3 cards, not {len(fan)}"
    repeated = _listed_twice(fan)
    if repeated:
        return repeated
    if top is EMPTY:
        return f"{slot_name(0)} reads XX (empty) but the fan shows {' '.join(c.code for c in fan)}"
    if isinstance(top, Card) and fan[-1] is not top:
        return f"its last card {fan[-1].code} must be the top card of the waste, but {slot_name(0)} reads {top.code}"
    return ""


def _down_problem(down: tuple) -> str:
    """Why ``down`` cannot be the face-down counts of the 7 columns ('' if it can): one
    whole number a column, column k holding 0 to k-1 (what the deal put there)."""
    if len(down) != 7:
        return f"one face-down count per column, 7, not {len(down)}"
    for col, n in enumerate(down):
        if not is_whole_number(n) or n < 0:
            return f"{slot_name(5 + col)}: {n!r} is not a count of cards (0 or more)"
        if n > col:
            return (
                f"{slot_name(5 + col)}: {n} face-down card{'s' if n != 1 else ''}, but the deal puts "
                f"{col} there and a column never gets more"
            )
    return ""


def repeated_cards(slots: Sequence[SlotValue]) -> str:
    """'' if no card is read in two of the 12 ``slots``, else what says which card is read
    where (``Q♣ is read in slot 6 (column 1) and slot 7 (column 2)``): one card cannot lie
    in two places, so one of the readings is wrong."""
    where: dict[Card, list[str]] = {}
    for index, value in enumerate(slots):
        if isinstance(value, Card):
            where.setdefault(value, []).append(slot_name(index))
    return "; ".join(
        f"{card.symbol} is read in {' and '.join(names)}" for card, names in where.items() if len(names) > 1
    )


def _run_problem(run: tuple[Card, ...] | None, top: SlotValue) -> str:
    """Why ``run`` cannot be the visible run of a column whose slot reads ``top`` ('' if it can)."""
    if not run:
        return ""
    repeated = _listed_twice(run)
    if repeated:
        return repeated
    if top is EMPTY:
        return f"the column's slot reads XX (empty) but its run shows {' '.join(c.code for c in run)}"
    if isinstance(top, Card) and run[-1] is not top:
        return f"its last card {run[-1].code} must be the column's top card, but the slot reads {top.code}"
    return ""


def parse_slot(text: str, index: int) -> SlotValue:
    """The card, EMPTY (``XX``) or UNKNOWN (``UU``) that ``text`` names in slot ``index``
    (0-11); SnapshotParseError naming the slot for anything else."""
    t = text.strip().upper()
    if t == "XX":
        return EMPTY
    if t == "UU":
        return UNKNOWN
    try:
        return Card.parse(t)
    except CardParseError:
        raise SnapshotParseError(
            f"{slot_name(index)}: {quote(text.strip())} is not a card code, XX (empty) or UU (unreadable)"
        ) from None


def parse_snapshot(text: str) -> Snapshot:
    """Parse snapshot text (the slot line and optional extra lines)."""
    lines = [
        (n, ln) for n, ln in enumerate(text.splitlines(), start=1) if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not lines:
        raise SnapshotParseError("empty snapshot: expected one line of 12 comma-separated slots")
    n0, first = lines[0]
    fields = first.split(",")
    if len(fields) != 12:
        raise SnapshotParseError(
            f"line {n0}: expected 12 comma-separated slots, found {len(fields)}: {quote(first.strip())}"
        )
    slots = tuple(parse_slot(f, i) for i, f in enumerate(fields))
    repeated = repeated_cards(slots)
    if repeated:
        raise SnapshotParseError(f"line {n0}: {repeated}; a card lies in one place only")
    runs = None
    fan = None
    stock = None
    down = None
    redeals = None
    seen: dict[str, int] = {}  # the line each defined extra line came on
    for n, ln in lines[1:]:
        key, sep, value = ln.partition(":")
        name = key.strip().lower() if sep else ""
        if (
            name in ("waste", "runs", "stock", "down", "redeals") and value.strip()
        ):  # an empty one is no line (not read)
            if name in seen:
                raise SnapshotParseError(
                    f"line {n}: a second {name}: line (the first is line {seen[name]}): a snapshot shows the table once"
                )
            seen[name] = n
        if name == "waste":
            codes = value.split()
            if not codes:
                continue  # not read
            cards = []
            for k, code in enumerate(codes, start=1):
                try:
                    cards.append(Card.parse(code))
                except CardParseError as exc:
                    raise SnapshotParseError(f"line {n}: waste card {k}: {exc}") from None
            problem = _fan_problem(tuple(cards), slots[0])
            if problem:
                raise SnapshotParseError(f"line {n}: waste: {problem}")
            fan = tuple(cards)
        elif name == "stock":
            word = value.strip().lower()
            if not word:
                continue  # not read
            if word not in ("pile", "empty"):
                raise SnapshotParseError(
                    f"line {n}: stock: {quote(value.strip())} is not 'pile' (cards there) or 'empty' (no card there)"
                )
            stock = word == "pile"
        elif name == "redeals":
            text = value.strip()
            if not text:
                continue  # not read
            if not (text.isascii() and text.isdigit()) or len(text) > 3 or int(text) > MAX_REDEAL_LIMIT:
                raise SnapshotParseError(
                    f"line {n}: redeals: {quote(text)} is not a count of the times the waste "
                    f"was turned over (0 to {MAX_REDEAL_LIMIT})"
                )
            redeals = int(text)
        elif name == "down":
            codes = value.split()
            if not codes:
                continue  # not read
            counts = []
            for col, code in enumerate(codes, start=1):
                if not (code.isascii() and code.isdigit()) or len(code) > 2:
                    raise SnapshotParseError(
                        f"line {n}: down: the count for column {col}, {quote(code)}, is not a "
                        f"number of face-down cards (0 to {col - 1} in column {col})"
                    )
                counts.append(int(code))
            problem = _down_problem(tuple(counts))
            if problem:
                raise SnapshotParseError(f"line {n}: down: {problem}")
            down = tuple(counts)
        elif name == "runs":
            if not value.strip():
                continue  # not read, as an empty waste: line
            groups = value.split("|")
            if len(groups) != 7:
                raise SnapshotParseError(f"line {n}: runs needs 7 columns separated by '|', found {len(groups)}")
            parsed = []
            for col, group in enumerate(groups):
                try:
                    parsed.append(tuple(Card.parse(t) for t in group.split()) or None)
                except CardParseError as exc:
                    raise SnapshotParseError(f"line {n}: runs of column {col + 1}: {exc}") from None
                if len(parsed[-1] or ()) > MAX_RUN:
                    raise SnapshotParseError(
                        f"line {n}: runs of column {col + 1}: {len(parsed[-1] or ())} cards; a "
                        f"visible run holds {MAX_RUN} at most (a king down to an ace)"
                    )
                problem = _run_problem(parsed[-1], slots[5 + col])
                if problem:
                    raise SnapshotParseError(f"line {n}: runs of column {col + 1} ({slot_name(5 + col)}): {problem}")
            runs = tuple(parsed)
    problem = _impossible_table(slots, runs, fan, (n0, seen.get("runs"), seen.get("waste")))
    if problem:
        raise SnapshotParseError(problem)
    return Snapshot(slots, runs, fan, stock=stock, down=down, redeals=redeals)


def _impossible_table(slots: tuple[SlotValue, ...], runs, fan, lines: tuple[int, int | None, int | None]) -> str:
    """What makes the table a snapshot shows impossible ('' if nothing): a card shown in two
    places by the slots, the runs and the waste fan (a run's last card and the fan's are
    their slots' own), each place named with its line (``lines``: the lines of the slots,
    the runs and the waste fan). A card put down where the rules do not allow it (5♠ on
    10♠, a 4♦ on an empty foundation) is a table a person can make: it is read, and the
    tracker says to take it back."""
    slot_line, runs_line, fan_line = lines
    places: dict[Card, list[str]] = {}
    for i, value in enumerate(slots):
        if isinstance(value, Card):
            places.setdefault(value, []).append(f"{slot_name(i)} on line {slot_line}")
    for col, run in enumerate(runs or ()):
        for card in (run or ())[:-1]:
            places.setdefault(card, []).append(f"the run of column {col + 1} on line {runs_line}")
    for card in (fan or ())[:-1]:
        places.setdefault(card, []).append(f"the waste fan on line {fan_line}")
    return "; ".join(
        f"{card.symbol} is shown in {' and '.join(where)}: a card lies in one place only"
        for card, where in places.items()
        if len(where) > 1
    )


def format_deal(deal: Sequence[Card]) -> str:
    """The deal line of ``deal`` (52 codes); DealParseError naming duplicate and missing
    cards when it is not a deck, as reading the line would."""
    deal = list(deal)
    try:
        check_permutation(deal)
    except ValueError as exc:
        raise DealParseError(str(exc)) from None
    return " ".join(c.code for c in deal)


def deal_codes(line: str) -> list[str]:
    """The codes of a deal line: separated by spaces or commas (as a snapshot writes them)."""
    return line.replace(",", " ").split()


def parse_deal(line: str) -> list[Card]:
    """Parse a deal line (codes separated by spaces or commas); raise DealParseError naming
    bad codes, duplicates and missing cards."""
    codes = deal_codes(line)
    cards = []
    for i, code in enumerate(codes):
        try:
            cards.append(Card.parse(code))
        except CardParseError as exc:
            raise DealParseError(f"card {i + 1} of the deal: {exc}") from None
    try:
        check_permutation(cards)
    except ValueError as exc:
        raise DealParseError(f"deal: {exc}") from None
    return cards


def parse_deals(text: str) -> list[list[Card]]:
    """Parse a deal file: one deal per line, ``#`` comments and blank lines ignored."""
    deals = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            deals.append(parse_deal(line))
        except DealParseError as exc:
            raise DealParseError(f"line {n}: {exc}") from None
    return deals


@dataclass(frozen=True)
class GameLog:
    """A deal, the moves played (with the moved card, if recorded) and the result."""

    deal: tuple[Card, ...]
    moves: tuple[Move, ...]
    cards: tuple[Card | None, ...]
    result: str | None  # "won", "lost" or None (unfinished)

    def __post_init__(self) -> None:
        if len(self.cards) != len(self.moves):
            raise ValueError(
                f"a game log has a card (or None) for each move: {len(self.moves)} moves, {len(self.cards)} cards"
            )
        if self.result not in (None, "won", "lost"):
            raise ValueError(f"a game log's result is won, lost or None (unfinished), not {self.result!r}")

    def text(self) -> str:
        """The game log file's content: the deal line, one move a line, then the result if any."""
        lines = [format_deal(self.deal)]
        for move, card in zip(self.moves, self.cards):
            lines.append(move.text + (f" {card.code}" if card is not None else ""))
        if self.result:
            lines.append(self.result)
        return "\n".join(lines) + "\n"


def format_log(
    deal: Sequence[Card], moves: Iterable[Move], cards: Iterable[Card | None] | None = None, result: str | None = None
) -> str:
    moves = tuple(moves)
    cards_t = tuple(cards) if cards is not None else (None,) * len(moves)
    return GameLog(tuple(deal), moves, cards_t, result).text()


class LogLines(NamedTuple):
    """Where the parts of a game log stand in its text: 1-based line numbers of the deal,
    of each move (in order) and of the result line (None if there is none)."""

    deal: int
    moves: tuple[int, ...]
    result: int | None


def is_log_line(line: str) -> bool:
    """True if ``line`` reads as a line of a game log after the deal: it starts with a move
    (``3-5``, ``draw``; what follows is for :func:`parse_log` to judge) or the result
    (``won``, ``lost``). Tells a game log from a file of deal lines by its second line."""
    parts = line.split()
    if not parts:
        return False
    if parts[0].lower() in ("won", "lost"):
        return True
    try:
        Move.parse(parts[0])
    except MoveParseError:
        return False
    return True


def parse_log(text: str) -> GameLog:
    """Parse a game log; errors name the line number and the text found."""
    return parse_log_lines(text)[0]


def parse_log_lines(text: str) -> tuple[GameLog, LogLines]:
    """:func:`parse_log`, and the line number of the deal, of each move and of the result."""
    lines = [
        (n, ln.strip())
        for n, ln in enumerate(text.splitlines(), start=1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not lines:
        raise LogParseError("empty game log: the first line must be a deal")
    n0, first = lines[0]
    try:
        deal = tuple(parse_deal(first))
    except DealParseError as exc:
        raise LogParseError(f"line {n0}: {exc}") from None
    moves, cards, result = [], [], None
    move_lines, result_line = [], None
    for n, line in lines[1:]:
        if result is not None:
            raise LogParseError(f"line {n}: {quote(line)} after the result line {result!r}")
        if line.lower() in ("won", "lost"):
            result = line.lower()
            result_line = n
            continue
        parts = line.split()
        if len(parts) > 2:
            raise LogParseError(f"line {n}: {quote(line)}: expected a move and at most one card")
        try:
            moves.append(Move.parse(parts[0]))
            cards.append(Card.parse(parts[1]) if len(parts) == 2 else None)
        except (MoveParseError, CardParseError) as exc:
            raise LogParseError(f"line {n}: {exc}") from None
        move_lines.append(n)
    return GameLog(deal, tuple(moves), tuple(cards), result), LogLines(n0, tuple(move_lines), result_line)


# positions and rules as JSON objects (the journal, `solve` on a position) ---------------


def json_type(value) -> str:
    """The JSON name of the type of ``value`` (as ``json.loads`` gives it): null, true/false,
    number, string, list or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_text(value, limit: int = 60) -> str:
    """``value`` written as JSON (``null``, ``"1"``, ``{"x": 1}``, never Python's None or
    'x'), cut to ``limit`` characters with ``…`` and the length when longer."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return f"a {json_type(value)}"
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text):,} characters)"
    return text


def _described(value) -> str:
    """``value`` as JSON, and "(a string)" after a string, whose quotes are easy to miss (``"1"``)."""
    return f"{json_text(value)} (a string)" if isinstance(value, str) else json_text(value)


def rules_from_dict(data: dict) -> Rules:
    """The Rules of a journal's ``rules`` object, each value's JSON type checked first, so
    that a message says what is wrong in JSON terms (``"1"`` is a string)."""
    draw, limit, back = data["draw_count"], data["redeal_limit"], data["foundation_return"]
    if type(draw) is not int or draw not in (1, 3):
        raise ValueError(f"the rules: draw_count must be the number 1 or 3, not {_described(draw)}")
    if limit is not None and (type(limit) is not int or not 0 <= limit <= MAX_REDEAL_LIMIT):
        raise ValueError(
            f"the rules: redeal_limit must be a whole number from 0 to {MAX_REDEAL_LIMIT} or null "
            f"(unlimited), not {_described(limit)}"
        )
    if type(back) is not bool:
        raise ValueError(f"the rules: foundation_return must be true or false, not {_described(back)}")
    return Rules(draw_count=draw, redeal_limit=limit, foundation_return=back)


def _code(card: Card | None) -> str:
    return card.code if card is not None else "??"


def state_to_dict(state: GameState) -> dict:
    """``state`` as plain JSON values, an unknown card as ``??``; the rules are left out
    (``state_from_dict`` takes them apart)."""
    return {
        "hidden": [[_code(c) for c in h] for h in state.hidden],
        "faceup": [[c.code for c in run] for run in state.faceup],
        "stock": [_code(c) for c in state.stock],
        "waste": [_code(c) for c in state.waste],
        "foundations": list(state.foundations),
        "redeals_used": state.redeals_used,
    }


def state_from_dict(data: dict, rules: Rules) -> GameState:
    """The position ``state_to_dict`` wrote; ValueError names the field that is wrong (a
    card code, a list of the wrong shape) or what makes it no position (``check_position``)."""
    if not isinstance(data, dict):
        raise ValueError(f"a position must be an object, not {json_type(data)}")

    def field(name: str):
        if name not in data:
            raise ValueError(f"the position has no {name!r}")
        return data[name]

    def cards(value, where: str, unknown_allowed: bool = True) -> tuple[Card | None, ...]:
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise ValueError(f"{where} must be a list of card codes, not {json_text(value)}")
        try:
            return tuple(None if (c == "??" and unknown_allowed) else Card.parse(c) for c in value)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None

    def columns(name: str, unknown_allowed: bool) -> tuple[tuple[Card | None, ...], ...]:
        value = field(name)
        if not isinstance(value, list):
            raise ValueError(f"{name!r} must be a list of columns, not {json_text(value)}")
        return tuple(cards(col, f"{name} of column {i + 1}", unknown_allowed) for i, col in enumerate(value))

    foundations, redeals = field("foundations"), field("redeals_used")
    if not isinstance(foundations, list) or not all(type(h) is int for h in foundations):
        raise ValueError(f"'foundations' must be a list of 4 heights, not {json_text(foundations)}")
    if type(redeals) is not int:
        raise ValueError(f"'redeals_used' must be a whole number, not {json_text(redeals)}")
    state = GameState(
        hidden=columns("hidden", True),
        faceup=columns("faceup", False),  # type: ignore[arg-type]
        stock=cards(field("stock"), "the stock"),
        waste=cards(field("waste"), "the waste"),
        foundations=tuple(foundations),
        redeals_used=redeals,
        rules=rules,
    )
    check_position(state)
    return state
