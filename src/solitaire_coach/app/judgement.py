"""The read's judgement: a detection plus the game so far -> a snapshot the tracker can
take, or a reason to look again.

In: the detector's result for one still frame (every card's quad, slot, best card and
confidence, down to ``GUESS_FLOOR``) and the tracker's game. Out: a :class:`Judgement`,
the 12-slot :class:`~solitaire_coach.core.notation.Snapshot` to give the tracker, the
piles whose top card stays unread (the read is then not used: look again), the piles
filled in from an unsure guess and the pile whose sure read was taken as a misread.

:class:`ReadJudge` keeps what that needs from frame to frame: the slot grid the cards
are fitted to, the picture of the last accepted read, and the tracker copies already
tried on a read (``_probe``; the game itself is never changed here). How an unsure top
card is handled is ``ReadJudge._choose``; a sure read doubted, ``_doubt``; a card the
detector missed, ``_missed_card``.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ..core.cards import KING, Card
from ..core.moves import MoveKind
from ..core.notation import EMPTY, SLOT_NAMES, UNKNOWN, Snapshot
from ..core.state import GameState
from ..core.tracker import TrackerReport, illegal_placements, looks_like_a_deal
from ..vision.reading import SLOT_INDEX, Reading, SlotGrid, reading_of
from .coach import CoachSession

GUESS_FLOOR = 0.3  # the least confidence of a face's best card that the coach still looks at
DEAL_GUESS = 0.6  # ... and that it takes, unconfirmed, to start a game from a deal
PLACE_CHANGE = 12.0  # mean grey change of an empty column's place that shows a card was put there
MISSED_CARD_MOVES = 3  # a card missed on a column is preferred to taking moves back when fewer moves explain it
PROBE_BUDGET = 8  # readings tried on a copy of the tracker per read, at most (each costs a tracker update)


@dataclass(frozen=True)
class Judgement:
    """What the coach made of one read (see :meth:`ReadJudge.judge`)."""

    snapshot: Snapshot  # the read for the tracker (unread piles ``UNKNOWN``)
    unread: list[str]  # piles whose top card stays unread: the read is not used unless forced
    guessed: list[str]  # piles whose unsure read was taken
    doubted: list[str]  # a pile whose sure read was taken as a misread

    def look_again(self, forced: bool) -> bool:
        """Is the read not to be used (nothing read at all, or a top card unread and the
        person did not ask to go on without it)?"""
        return all(v is UNKNOWN for v in self.snapshot.slots) or bool(self.unread and not forced)


class ReadJudge:
    """The judgement of the reads of one coached game (``session``'s tracker)."""

    def __init__(self, session: CoachSession, detector) -> None:
        self.session = session
        # the coach judges unsure faces itself: the detector gives its best card for every
        # face (down to GUESS_FLOOR) and the coach counts as read only those at the
        # detector's own threshold (see _choose)
        self._sure: float | None = None
        self.grid = SlotGrid()
        self._probes: dict[str, tuple] = {}
        self._budget = PROBE_BUDGET
        self.doubted: list[str] = []
        self._sure_strip: float | None = None
        if isinstance(getattr(detector, "read_thresh", None), float):
            # (a detector handed to a second coach keeps its own thresholds)
            self._sure = float(getattr(detector, "sure_thresh", detector.read_thresh))
            detector.sure_thresh = self._sure
            detector.read_thresh = min(self._sure, GUESS_FLOOR)
            if isinstance(getattr(detector, "strip_thresh", None), float):
                self._sure_strip = float(getattr(detector, "sure_strip_thresh", detector.strip_thresh))
                detector.sure_strip_thresh = self._sure_strip
                detector.strip_thresh = min(self._sure_strip, GUESS_FLOOR)
        self.detector = detector
        self._image: np.ndarray | None = None  # the frame being read
        self._accepted_image: np.ndarray | None = None  # the frame of the last accepted read
        self._forced = False  # the person asked to use this read even with a card unread

    @property
    def judging(self) -> bool:
        """Does the coach judge unsure faces itself (a detector with thresholds)?"""
        return self._sure is not None

    def place(self, detection):
        """The detection with its cards fitted to the table's grid, when judging (else as it is)."""
        if self._sure is not None and getattr(detection, "cards", None):
            return self._place(detection)
        return detection

    def judge(self, detection, image: np.ndarray, *, forced: bool) -> Judgement:
        """What to make of ``detection``, read from ``image``, in the game so far (see ``_choose``)."""
        reading = reading_of(detection, self._sure, self._sure_strip)
        self._image = image
        self._forced = forced
        self.doubted = []
        self._budget = PROBE_BUDGET
        snap, unread, guessed = self._choose(reading, detection)
        return Judgement(snap, unread, guessed, self.doubted)

    def needs_search(self, snap: Snapshot, *, forced: bool) -> bool:
        """Does an accepted read (two reads agree) show a table the tracker cannot reach in a
        few moves, with no card put wrong and not a new deal? More moves than usual then
        happened unseen (while a card was unreadable, say): the tracker is to take it as
        seen twice, which lets it search for a longer explanation."""
        tracker = self.session.tracker
        return bool(
            self._sure is not None
            and tracker.state is not None
            and not forced
            and self._probe(snap)[1].kind == "inconsistent"
            and not self._probe(snap)[1].put_wrong
            and not looks_like_a_deal(snap, tracker.rules)
        )  # a new deal: the session decides, unsearched

    def accepted(self, image: np.ndarray) -> None:
        """The read of ``image`` was accepted: the next place changes are measured from it."""
        self._accepted_image = image

    def game_changed(self) -> None:
        """The tracker took a read: the copies tried on the old game are dropped."""
        self._probes.clear()

    def _choose(self, reading: Reading, detection) -> tuple[Snapshot, list[str], list[str]]:
        """What to make of a read: the snapshot for the tracker, the piles whose top card
        stays unread (the read is then not used), and the piles filled in from a guess.

        A surely read snapshot is used as it is. Where a top face was read unsurely:
        a guess that is the very card the game has there is taken (the position confirms
        it). If faces are still unsure, the remaining guesses are put in and the read is
        tried on a copy of the tracker: it is used when the tracker explains it by legal
        moves, none of which starts or ends on a pile still unread, and every pile still
        unread visibly holds what it held (a column shows as many face-up cards as
        before; an unread waste is never taken on trust). Else the read is not used."""
        state = self.session.tracker.state
        if (
            state is not None
            and not self._forced
            and not reading.guesses
            and not unreadable_tops(detection)
            and (
                (report := self._probe(reading.snapshot)[1]).misread
                or report.kind == "moves"
                and any(m.kind is MoveKind.REDEAL for m in report.moves)
            )
        ):
            # the tracker explains the read by a redeal, unseen, or by an earlier read
            # being wrong; a card put on a column (a king into an empty one) that the
            # detector missed may explain it in fewer moves (the waste shows the card that
            # was under it, or none)
            found = self._missed_card(
                reading.snapshot, detection, MISSED_CARD_MOVES if report.misread else len(report.moves)
            )
            if found is not None:
                return found, [], []
        missed_waste = (
            state is not None
            and reading.snapshot.slots[0] is EMPTY
            and len(state.stock) > 1
            and bool(state.waste)
            and _unseen_stock_pass(self._probe(reading.snapshot)[1])
        )
        if missed_waste:
            # no card seen on the waste, and the tracker explains that by turning more than
            # one stock card and then the waste over, all unseen: a waste card the detector
            # missed leaves the same read -- the waste counts as unread (a real redeal is
            # seen at the next stock turn)
            reading = replace(
                reading, snapshot=replace(reading.snapshot, slots=(UNKNOWN,) + reading.snapshot.slots[1:])
            )
        if (
            state is not None
            and not reading.guesses
            and not unreadable_tops(detection)
            and any(state.foundations)
            and looks_like_a_deal(reading.snapshot, state.rules)
        ):
            # every foundation empty, a card on each column and the waste, runs of one card:
            # a new deal, not foundation cards missed -- the session starts a new game if
            # the game in hand has ended, else says to restart with --new
            return reading.snapshot, [], []
        missed_foundations = set()
        if state is not None and (
            sum(1 for h in state.foundations if h > 0) > sum(1 for v in reading.snapshot.foundations if v is not EMPTY)
        ):
            # fewer foundation slots show a card than the game has foundations started, and
            # a foundation never empties (an ace cannot leave it): a card there was missed;
            # the slots seen empty count as unread
            missed_foundations = {i for i in range(1, 5) if reading.snapshot.slots[i] is EMPTY}
            slots = tuple(UNKNOWN if i in missed_foundations else v for i, v in enumerate(reading.snapshot.slots))
            reading = replace(reading, snapshot=replace(reading.snapshot, slots=slots))
        snap = reading.snapshot
        unread_idx = {SLOT_INDEX[n] for n in unreadable_tops(detection) if n in SLOT_INDEX}
        unread_idx |= {i for i in reading.guesses if snap.slots[i] is UNKNOWN}
        unread_idx |= missed_foundations
        if missed_waste:
            unread_idx.add(0)
        names = lambda idx: sorted(SLOT_NAMES[i] for i in idx)  # noqa: E731
        if (
            state is None
            and unread_idx
            and not self._forced
            and all(i in reading.guesses and reading.guesses[i].confidence >= DEAL_GUESS for i in unread_idx)
        ):
            # a deal has nothing to check a guess against; a fairly sure one is taken (the
            # line "new game started: ..." shows the person what was read)
            return reading.filled(unread_idx), [], names(unread_idx)
        if self._forced or state is None:
            return snap, names(unread_idx), []
        if not unread_idx:
            return self._doubt(snap, detection, reading, [])
        confirmed = {
            i for i in unread_idx if i in reading.guesses and _expected_here(state, i, reading.guesses[i].card)
        }
        if confirmed:
            snap = reading.filled(confirmed)
        rest = unread_idx - confirmed
        if not rest:
            return self._doubt(snap, detection, reading, names(confirmed))
        # the guesses that are left: all of them, else with as few as possible of them
        # left out (taken as unread); the first count of left-out guesses that gives
        # explanations must give just one.
        guessed = sorted(i for i in rest if i in reading.guesses)
        for k in range(min(len(guessed), 3) + 1):
            found = set()
            for out in itertools.combinations(guessed, k):
                trial = reading.filled(rest - set(out))
                blind = {i for i in rest if trial.slots[i] is UNKNOWN}
                result = self._explain_blind(trial, blind, detection, reading)
                if result is not None:
                    found.add(result)
            if len(found) == 1:
                return found.pop(), [], names(rest)
            if found:
                break
        return snap, names(rest), []

    def _explain_blind(self, trial: Snapshot, blind: set[int], detection, reading: Reading) -> Snapshot | None:
        """``trial`` (a read with the unread piles ``blind``) made whole, when exactly one
        way of filling them lets the tracker explain it by legal moves that agree with
        what can be seen of those piles; else None. An unread column's top can be the
        cards that its count of face-up cards allows; an unread waste is never assumed."""
        state = self.session.tracker.state
        if 0 in blind:
            return None  # a draw under an unread waste would go unseen
        options = [[(i, c) for c in _column_candidates(state, detection, i, trial)] for i in sorted(blind) if i >= 5]
        explained = []
        for combo in itertools.islice(itertools.product(*options), 24):
            if len({c for _, c in combo}) < len(combo):
                continue
            if self._budget <= 0:
                return None
            slots = list(trial.slots)
            for i, c in combo:
                slots[i] = c
            candidate = replace(trial, slots=tuple(slots))
            probe, report = self._probe(candidate)
            if (
                report.kind in ("moves", "no change", "revealed")
                and not report.corrected
                and _agrees_with_blind(
                    state, probe.state, candidate, detection, blind, self._sure_strip or self._sure or 0.0
                )
            ):
                explained.append((candidate, combo))
        if len(explained) > 1:  # more than one card fits: the detector's unsure guess may tell
            explained = [
                (c, combo)
                for c, combo in explained
                if all(i in reading.guesses and reading.guesses[i].card is card for i, card in combo)
            ]
        return explained[0][0] if len(explained) == 1 else None

    def _doubt(
        self, snap: Snapshot, detection, reading: Reading, guessed: list[str]
    ) -> tuple[Snapshot, list[str], list[str]]:
        """A read with every top card read, checked against the game. When the tracker
        cannot explain it and it shows no card put where it may not go, one card read
        surely may still be wrong (the detector is sometimes sure and wrong): first the
        cards read under the tops (the strips of fanned columns) are left out; then each
        pile that differs from the game is taken in turn as unread, and the read is used
        that way when exactly one such pile makes it explainable."""
        state = self.session.tracker.state
        _, report = self._probe(snap)
        if report.kind != "inconsistent" and not report.misread:
            return snap, [], guessed
        if snap.runs is not None and any(r is not None for r in snap.runs):
            # the cards under the tops (read from their strips) are doubted first
            bare = replace(snap, runs=None)
            if (found := self._probe(bare)[1]).kind in ("moves", "no change", "revealed") and not found.misread:
                self.doubted = ["the cards under the tops"]
                return bare, [], guessed
        if illegal_placements(state, snap, self.session.tracker.far_apart):
            return snap, [], guessed
        # what nothing explains goes on whole, the runs read under the tops with it: where
        # the coach gives up on the game and joins the table as it is (photos far apart),
        # those runs tell the cards face up under each top from the face-down ones
        whole, snap = snap, replace(snap, runs=None)
        surprising = _surprising_slots(state, snap) + _missed_columns(state, snap, detection)
        if len(surprising) > 3:
            return whole, [], guessed  # the table differs from the game in many places: not one misread
        results = []
        for i in surprising:
            if self._budget <= 0:
                break
            slots = list(snap.slots)
            slots[i] = UNKNOWN
            runs = snap.runs
            if runs is not None and i >= 5:
                runs = tuple(None if j == i - 5 else r for j, r in enumerate(runs))
            found = self._explain_blind(replace(snap, slots=tuple(slots), runs=runs), {i}, detection, reading)
            if found is not None:
                results.append((i, found))
        if len(results) == 1:
            i, found = results[0]
            self.doubted = [SLOT_NAMES[i]]
            return found, [], guessed
        return whole, [], guessed

    def _missed_card(self, snap: Snapshot, detection, moves: int) -> Snapshot | None:
        """``snap`` with a card put on a column that the detector missed: a king in a
        column read empty (nothing at all seen there, empty in the game), or a card that
        continues the run of a column whose top is read as the game has it; when exactly
        one such card lets the tracker explain the read by fewer than ``moves`` moves and
        no redeal; else None. No card was seen there, so the
        picture must show one: the place of the new card (an empty column's place, the
        band below a column's top card) must have changed since the last accepted read,
        clearly more than that of any other column tried. Without such a measure only the
        empty columns are tried. The cards the read shows elsewhere, and those already on
        a foundation, are not tried."""
        state = self.session.tracker.state
        seen = {v for v in snap.slots if isinstance(v, Card)}
        seen.update(c for run in snap.runs or () for c in run or ())
        options: dict[int, list[Card]] = {}
        for i, v in enumerate(snap.columns, start=5):
            run, hidden = state.faceup[i - 5], state.hidden[i - 5]
            if run and v is run[-1]:
                top = run[-1]
                cards = [
                    Card(top.rank - 1, suit)
                    for suit in range(4)
                    if top.rank > 1 and Card(top.rank - 1, suit).is_red != top.is_red
                ]
            elif not run and not hidden and v is EMPTY and not _slot_cards(detection, i):
                cards = [Card(KING, suit) for suit in range(4)]
            else:
                continue
            cards = [c for c in cards if c not in seen and state.foundations[c.suit] < c.rank]
            cards.sort(key=lambda c: c is not state.waste_top())  # the waste's card first (the likeliest)
            if cards:
                options[i] = cards
        change = {i: _place_change(self._accepted_image, self._image, detection, self.grid, i) for i in options}
        if options and all(v is not None for v in change.values()):
            top = max(change.values())
            options = {
                i: cards
                for i, cards in options.items()
                if change[i] == top and top >= PLACE_CHANGE and all(v * 3 <= top for j, v in change.items() if j != i)
            }
        else:
            options = {i: cards for i, cards in options.items() if state.faceup[i - 5] == ()}
        found = []
        for i, cards in options.items():
            for card in cards:
                if self._budget <= 0:
                    return None
                slots = list(snap.slots)
                slots[i] = card
                runs = None if snap.runs is None else tuple(None if j == i - 5 else r for j, r in enumerate(snap.runs))
                candidate = replace(snap, slots=tuple(slots), runs=runs)
                _, report = self._probe(candidate)
                if (
                    report.kind == "moves"
                    and not report.corrected
                    and len(report.moves) < moves
                    and not any(m.kind is MoveKind.REDEAL for m in report.moves)
                ):
                    found.append((i, candidate))
        if len(found) != 1:
            return None
        i, candidate = found[0]
        self.doubted = [f"{SLOT_NAMES[i]} (a {candidate.slots[i].symbol} put there missed)"]
        return candidate

    def _place(self, detection):
        """The detection with its cards' slots fitted to the table's grid (see SlotGrid)."""
        if getattr(self.detector, "calibration", None):
            return detection  # a calibration places the cards already
        self.grid.learn(detection.cards)
        state = self.session.tracker.state
        occupied = None if state is None else [bool(state.hidden[k] or state.faceup[k]) for k in range(7)]
        placed = self.grid.place(detection.cards, occupied)
        if placed is None:
            return detection
        try:
            return replace(detection, cards=placed)
        except TypeError:
            return detection

    def _probe(self, snap: Snapshot):
        """A copy of the tracker given ``snap``, and what it said (the game is not changed;
        kept until the game changes, as the same read comes again from the next frame)."""
        key = snap.text()
        if key not in self._probes:
            self._budget -= 1
            probe = copy.copy(self.session.tracker)
            self._probes[key] = (probe, probe.update(snap, prefer=self.session.advised_move))
        return self._probes[key]


def _face_up_cards(detection, index: int) -> list:
    """The face-up cards the detector saw in column slot ``index`` (5-11) after its last
    card back, from the first to the top one."""
    cards = sorted(
        _slot_cards(detection, index), key=lambda c: float(np.asarray(c.quad, np.float32).reshape(-1, 2)[0, 1])
    )
    run: list = []
    for c in cards:
        run = run + [c] if getattr(c, "face_up", True) else []
    return run


def _surprising_slots(state: GameState, snap: Snapshot) -> list[int]:
    """Slots whose card, read surely, is not what the game has there (a move, or a misread)."""
    out = []
    if isinstance(snap.waste, Card) and state.waste_top() is not snap.waste:
        out.append(0)
    for i, v in enumerate(snap.foundations, start=1):
        if isinstance(v, Card) and state.foundations[v.suit] != v.rank:
            out.append(i)
    for i, v in enumerate(snap.columns, start=5):
        run = state.faceup[i - 5]
        if isinstance(v, Card) and not (run and run[-1] is v):
            out.append(i)
    return out


def _slot_cards(detection, index: int) -> list:
    """Everything the detector saw in snapshot slot ``index`` (faces and backs)."""
    name = SLOT_NAMES[index]
    return [c for c in getattr(detection, "cards", []) or [] if c.slot == name]


def _missed_columns(state: GameState, snap: Snapshot, detection) -> list[int]:
    """Column slots read empty with nothing at all seen there, where the game has face-up
    cards: the whole pile may have been missed by the detector."""
    return [
        i
        for i, v in enumerate(snap.columns, start=5)
        if v is EMPTY and state.faceup[i - 5] and not _slot_cards(detection, i)
    ]


def _place_change(
    before: np.ndarray | None, after: np.ndarray | None, detection, grid: SlotGrid, index: int
) -> float | None:
    """How much the place of a new card on column slot ``index`` changed between two
    pictures (mean absolute grey difference): where the first card of an empty column
    lies, or the band just below where a column's lowest card ends (a card put on it
    covers that band). None when it cannot be told (no earlier picture, no grid pitch learnt, no
    column seen, the band off the picture)."""
    if before is None or after is None or before.shape != after.shape or grid.pitch_ratio is None:
        return None
    boxes = [
        (int(c.slot.split()[1]) - 1, np.asarray(c.quad, np.float32).reshape(-1, 2))
        for c in getattr(detection, "cards", []) or []
        if c.slot.startswith("column")
    ]
    if not boxes:
        return None
    width = float(np.median([q[:, 0].max() - q[:, 0].min() for _, q in boxes]))
    height = width * 88 / 63
    own = [q for k, q in boxes if k == index - 5]
    if own:
        # below where the column's lowest card ends when whole (a card put on it lies a
        # fan step, a fifth of a card or more, lower)
        low = max(own, key=lambda q: float(q[:, 1].min()))
        x, y = float(low[:, 0].min()), float(low[:, 1].min())
        y_a, y_b = y + 1.03 * height, y + 1.2 * height
    else:
        pitch = grid.pitch_ratio * width
        x = float(np.median([q[:, 0].min() - k * pitch for k, q in boxes])) + (index - 5) * pitch
        y0 = float(min(q[:, 1].min() for _, q in boxes))
        y_a, y_b = y0 + 0.1 * height, y0 + 0.9 * height
    h, w = after.shape[:2]
    xa, xb = max(0, int(x + 0.1 * width)), min(w, int(x + 0.9 * width))
    ya, yb = max(0, int(y_a)), min(h, int(y_b))
    if xb - xa < 4 or yb - ya < 4:
        return None
    grey = lambda img: cv2.cvtColor(img[ya:yb, xa:xb], cv2.COLOR_BGR2GRAY).astype(np.float32)  # noqa: E731
    return float(np.mean(np.abs(grey(after) - grey(before))))


def _column_candidates(state: GameState, detection, index: int, snap: Snapshot) -> list[Card]:
    """The cards the unread top of column slot ``index`` can be, judging by how many
    face-up cards the column shows: the same count, the same top; fewer, the card that
    was under the ones taken off; more, any card not seen elsewhere that continues the
    run by the rules (a newly turned card, which could be anything, gives none). A column
    where nothing at all was seen, but the game has face-up cards, may be a pile the
    detector missed whole: its top as the game has it."""
    run = state.faceup[index - 5]
    n = len(_face_up_cards(detection, index))
    if n == 0:
        return [run[-1]] if run and not _slot_cards(detection, index) else []
    if n == len(run) - 1:
        return [run[n - 1], run[-1]]  # the top taken off, or still there and missed
    if n <= len(run):
        return [run[n - 1]]
    added = n - len(run)
    if run:
        rank, red = run[-1].rank - added, run[-1].is_red if added % 2 == 0 else not run[-1].is_red
        if rank < 1:
            return []
        cards = [Card(rank, suit) for suit in range(4) if Card(rank, suit).is_red == red]
    elif not state.hidden[index - 5]:
        rank = 14 - added
        cards = [Card(rank, suit) for suit in range(4)] if rank >= 1 else []
    else:
        return []
    seen = {v for v in snap.slots if isinstance(v, Card)}
    return [c for c in cards if c not in seen]  # the tracker judges where each could come from


def _unseen_stock_pass(report: TrackerReport) -> bool:
    """Does the tracker explain a read by turning more than one stock card and then a
    redeal, or by an earlier read being wrong (``report.misread``: moves taken back, a
    card re-read)?"""
    if report.misread:
        return True
    draws = 0
    for m in report.moves:
        if m.kind is MoveKind.REDEAL:
            return draws > 1
        if m.kind is MoveKind.DRAW:
            draws += 1
    return False


def _agrees_with_blind(
    before: GameState, after: GameState, snap: Snapshot, detection, blind: set[int], sure: float
) -> bool:
    """Does the position the tracker explained (``after``) agree with what the read shows
    of the piles whose top card it could not read (``blind``)? A column must show as many
    face-up cards as ``after`` has there, and each one under the top read surely must be
    the card ``after`` has at that place; a foundation whose height changed must show its new top
    on a slot that was read. So a card put on (or taken off) an unread pile is never
    assumed: it is seen, or the read is not used."""
    for i in blind:
        if 1 <= i <= 4:
            continue
        seen = _face_up_cards(detection, i)
        run = after.faceup[i - 5]
        unchanged = (after.faceup[i - 5], after.hidden[i - 5]) == (before.faceup[i - 5], before.hidden[i - 5])
        if not _slot_cards(detection, i):
            # nothing seen there at all (a pile the detector missed whole): only a pile
            # left as it was is assumed
            if not unchanged:
                return False
            continue
        if unchanged and len(seen) == len(run) - 1 >= 1:
            seen = seen + [None]  # all but the top seen, and the pile as it was: its top missed
        if len(seen) != len(run):
            return False
        for c, card in zip(seen[:-1], run[:-1]):  # the top is the pile's unread (or doubted) card
            if c.card is not None and c.card is not card and c.confidence >= sure:
                return False
    if any(1 <= i <= 4 for i in blind):
        # a foundation's new top must be seen, or be hidden by an unread foundation slot
        # (one each); an unread foundation slot cannot hide a foundation that shrank
        shown = {v for v in snap.foundations if isinstance(v, Card)}
        hidden = 0
        for suit in range(4):
            h, was = after.foundations[suit], before.foundations[suit]
            if h == was or (h > 0 and Card(h, suit) in shown):
                continue
            if h < was:
                return False
            hidden += 1
        if hidden > sum(1 for i in blind if 1 <= i <= 4):
            return False
    return True


def _expected_here(state: GameState, index: int, card: Card) -> bool:
    """Is ``card`` what the game has on top at snapshot slot ``index``?"""
    if index == 0:
        return bool(state.waste) and state.waste[-1] is card
    if 1 <= index <= 4:
        return state.foundations[card.suit] == card.rank
    run = state.faceup[index - 5]
    return bool(run) and run[-1] is card


def unreadable_tops(detection) -> list[str]:
    """Piles (slot names) whose top card is face up but could not be read (``UU`` that is
    not a face-down card). A face-down card on top of a column, waiting to be turned,
    is fine: the tracker expects it."""
    by_slot: dict[str, list] = {}
    for det in getattr(detection, "cards", []) or []:
        by_slot.setdefault(det.slot, []).append(det)
    out = []
    for slot, dets in by_slot.items():
        if slot == "stock":
            continue
        if slot.startswith("column"):
            top = max(dets, key=lambda d: float(np.asarray(d.quad, np.float32).reshape(-1, 2)[:, 1].min()))
            if top.card is None and getattr(top, "face_up", False):
                out.append(slot)
        elif any(d.card is None and getattr(d, "face_up", False) for d in dets) and not any(
            d.card is not None for d in dets
        ):
            out.append(slot)
    return sorted(out)
