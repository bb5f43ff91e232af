"""The live coach: frames in, advice out -- the loop behind ``play``, ``replay`` and ``demo``.

:class:`LiveCoach` is the logic for one frame: the read gate says whether to look, the
card detector reads the 12-slot snapshot, two agreeing reads are given to the
:class:`~solitaire_coach.app.coach.CoachSession` (tracker, advisor, journal), and what it
says is collected. It draws nothing and reads no keys, so ``play`` and ``replay`` print
exactly the same lines for the same frames.

:func:`run_loop` drives a coach from a frame source (camera, folder, video), with an
optional window, Enter to force a read, the serial rig's trigger to ask for one (with
the hand checks; a second trigger before the read forces it), and ``q`` to quit.

:func:`draw_overlay` (at the end) is the picture: every card read boxed and labelled,
the advised move as an arrow from the card to where it goes, the advice and its reason
in large text. Drawing is separate from the logic and only used when a window is shown
or frames are saved.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import select
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Protocol, Sequence, TextIO

import cv2
import numpy as np

from ..capture.gate import RESTING, GateView, ReadGate
from ..vision.detector import calibrated_slots
from ..vision.reading import SLOT_INDEX, Reading, SlotGrid, reading_of
from ..capture.serial_trigger import SerialTrigger, ascii_line
from ..capture.sources import Frame, FrameRecorder, FrameSource
from ..core.open_advice import advise_open
from ..core.advisor import Advice
from ..core.cards import KING, RANK_NAMES, Card
from ..core.moves import MoveKind
from ..core.notation import EMPTY, SLOT_NAMES, UNKNOWN, Snapshot
from ..core.state import GameState
from ..core.tracker import Placement, TrackerReport, illegal_placements, looks_like_a_deal
from .coach import CoachSession


GUESS_FLOOR = 0.3   # the least confidence of a face's best card that the coach still looks at
DEAL_GUESS = 0.6    # ... and that it takes, unconfirmed, to start a game from a deal
PLACE_CHANGE = 12.0  # mean grey change of an empty column's place that shows a card was put there
MISSED_CARD_MOVES = 3  # a card missed on a column is preferred to taking moves back when fewer moves explain it
PROBE_BUDGET = 8    # readings tried on a copy of the tracker per read, at most (each costs a tracker update)
OBJECT_REASON = "something over the table that is not a card (a hand?)"
BLANK_STD = 4.0  # grey levels: a picture whose thumbnail varies less than this shows nothing


def blank_picture(thumbnail: np.ndarray | None) -> str | None:
    """``dark`` or ``bright`` when the gate's grey thumbnail of a picture is all one level
    (a camera covered or in the dark, or dazzled: no table to read), else None."""
    if thumbnail is None or thumbnail.size == 0 or float(np.std(thumbnail)) >= BLANK_STD:
        return None
    level = float(np.mean(thumbnail))
    return "dark" if level < 60 else "bright" if level > 200 else None


class Detector(Protocol):
    def detect(self, frame_bgr: np.ndarray): ...  # -> DetectionResult(snapshot, cards, elapsed_ms)


@dataclass
class StepResult:
    """What the coach made of one frame."""

    frame: Frame
    gate: GateView
    detection: object | None = None          # the detector's result when the frame was read
    snapshot: Snapshot | None = None
    accepted: bool = False                   # two reads agreed: given to the tracker
    report: TrackerReport | None = None
    advice: Advice | None = None             # the advice in force after this frame
    lines: list[str] = field(default_factory=list)   # what was said for this frame
    timings_ms: dict[str, float] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)  # piles whose top face could not be read
    guessed: list[str] = field(default_factory=list)     # piles whose unsure read was taken (see LiveCoach._choose)
    doubted: list[str] = field(default_factory=list)     # a pile whose sure read was taken as a misread
    put_wrong: list[Placement] = field(default_factory=list)  # cards the read shows put down against the rules

    def to_json(self) -> dict:
        d: dict = {"frame": self.frame.name, "index": self.frame.index, "t": round(self.frame.timestamp, 4),
                   "read": self.snapshot is not None, "gate": self.gate.reason,
                   "motion": round(self.gate.motion, 3) if math.isfinite(self.gate.motion) else None,
                   "hand": self.gate.hand}
        if self.snapshot is not None:
            d["snapshot"] = self.snapshot.line()
            d["accepted"] = self.accepted
            if self.unreadable:
                d["unreadable"] = list(self.unreadable)
            if self.guessed:
                d["guessed"] = list(self.guessed)
            if self.doubted:
                d["doubted"] = list(self.doubted)
        if self.report is not None:
            d["report"] = self.report.kind
            d["moves"] = [m.text for m in self.report.moves]
            if self.report.message:
                d["message"] = self.report.message
        if self.advice is not None:
            d["advice"] = self.advice.text
            d["advice_reason"] = self.advice.reason
            d["advised_move"] = self.advice.move.text if self.advice.move is not None else None
        if self.lines:
            d["said"] = list(self.lines)
        if self.timings_ms:
            d["ms"] = {k: round(v, 1) for k, v in self.timings_ms.items()}
        return d


class LiveCoach:
    """One coached game fed frame by frame. ``say`` gets every line meant for the person."""

    def __init__(self, session: CoachSession, detector: Detector, gate: ReadGate | None = None, *,
                 say: Callable[[str], None] = print, trigger: SerialTrigger | None = None) -> None:
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
        self.gate = gate if gate is not None else ReadGate()
        self.say = say
        self.trigger = trigger
        self.last_detection = None
        self.last_accepted_detection = None
        self._image: np.ndarray | None = None            # the frame being read
        self._accepted_image: np.ndarray | None = None   # the frame of the last accepted read
        self._said: list[str] = []
        self._last_advice_line: str | None = None
        self._sent: str | None = None
        self._last_waiting: str | None = None
        self._last_unread_note: str | None = None
        self._last_blank: str | None = None   # the last picture read was blank (said once)
        self._forced = False
        self._reply_due = False  # a trigger asked: the rig gets a line after the next read
        session.say = self._collect  # the session speaks through us

    # the session's lines, with a repeated unchanged advice left out ---------------------
    def _collect(self, line: str) -> None:
        if line.startswith("advice: "):
            if line == self._last_advice_line:
                return
            self._last_advice_line = line
        if line.startswith("cannot start a game"):
            if line == self._last_waiting:   # the still table is read again: say it once
                return
            self._last_waiting = line
        self._said.append(line)

    def _flush(self, result: StepResult) -> None:
        result.lines.extend(self._said)
        for line in self._said:
            self.say(line)
        self._said = []

    @property
    def advice(self) -> Advice | None:
        return self.session.last_advice

    @property
    def state(self) -> GameState | None:
        return self.session.tracker.state

    def force(self) -> None:
        """Read the table at the next still frame, even if nothing moved (and use the read
        even if a card in it could not be read)."""
        self.gate.force()
        self._forced = True

    def request(self) -> None:
        """Read the table at the next still frame with no hand in it, even if nothing
        moved (the serial rig's trigger), and answer the rig after that read even if the
        advice is unchanged."""
        self.gate.wake()
        self._reply_due = True

    def start(self) -> None:
        """Say the advice for a resumed game before the first frame."""
        if self.session.tracker.state is not None and self.session.last_advice is None:
            tr = self.session.tracker
            self.session.last_advice = advise_open(self.session.strategy, tr.explanations, tr.history)
            self._collect("advice: " + self.session.last_advice.line())
        for line in self._said:
            self.say(line)
        self._said = []
        self._send_advice()

    def step(self, frame: Frame) -> StepResult:
        t0 = time.perf_counter()
        if frame.forced:
            self.force()
        view = self.gate.observe(frame.image)
        result = StepResult(frame, view, advice=self.session.last_advice)
        result.timings_ms["gate"] = (time.perf_counter() - t0) * 1000
        if not view.read:
            self._flush(result)
            return result
        blank = blank_picture(self.gate.meter.last)
        if blank is not None:
            # nothing to read (a read would see no card anywhere and be taken for a table
            # that does not follow from the game): say what the picture is, once
            self.gate.reject()
            result.gate = GateView(False, True, False, view.motion, f"blank picture ({blank})")
            note = (f"the picture from {frame.name} is all {blank} (camera covered, light off or dazzled?): "
                    f"nothing to read; the game is kept, waiting for the table")
            if self._last_blank is None:
                self._said.append(note)
            self._last_blank = blank
            self._flush(result)
            return result
        self._last_blank = None
        t1 = time.perf_counter()
        detection = self.detector.detect(frame.image)
        t2 = time.perf_counter()
        result.timings_ms["detect"] = (t2 - t1) * 1000
        self.last_detection = detection
        if self._sure is not None and getattr(detection, "cards", None):
            detection = self._place(detection)
            self.last_detection = detection
        cards = [(c.quad, c.card if getattr(c, "face_up", True) else None) for c in _cards_of(detection)]
        if self.gate.object_seen(cards):
            # something that is not a card lies over the table (a hand of any colour, a
            # sleeve): this read is not used, whatever it says
            result.gate = GateView(False, True, True, view.motion, OBJECT_REASON, box=self.gate.object_box)
            self._flush(result)
            return result
        reading = reading_of(detection, self._sure, self._sure_strip)
        self._image = frame.image
        self.doubted = []
        self._budget = PROBE_BUDGET
        snap, unread, guessed = self._choose(reading, detection)
        result.detection, result.snapshot = detection, snap
        result.guessed, result.doubted = guessed, self.doubted
        key = snap.text()
        if all(v is UNKNOWN for v in snap.slots) or (unread and not self._forced):
            # a face-up card on top of a pile could not be read (glare, a finger, blur)
            # and the read cannot be explained without it: it could hide a move, so it
            # is not used; look again (Enter or the trigger uses it anyway)
            self.gate.reject()
            result.unreadable = unread
            note = ("cannot read the top card of " + ", ".join(unread) + ": looking again "
                    "(if this stays, move the light or the card, or press Enter to go on without it)") if unread else ""
            if note and note != self._last_unread_note:
                self._said.append(note)
                self._last_unread_note = note
            self._flush(result)
            return result
        if self.gate.offer(key, cards):
            result.accepted = True
            self._last_unread_note = None
            self.last_accepted_detection = detection
            self._accepted_image = frame.image
            tracker = self.session.tracker
            if (self._sure is not None and tracker.state is not None and not self._forced
                    and self._probe(snap)[1].kind == "inconsistent" and not self._probe(snap)[1].put_wrong
                    and not looks_like_a_deal(snap, tracker.rules)):  # a new deal: the session decides, unsearched
                # two reads agree on a table the tracker cannot reach in a few moves and
                # that shows no card put wrong: more moves than usual happened unseen
                # (while a card was unreadable, say). The tracker takes it as seen twice,
                # which lets it search for a longer explanation.
                tracker.update(snap, prefer=self.session.advised_move)
            result.report = self.session.process_text(key, where=frame.name)
            self._forced = False
            self._probes.clear()
            result.advice = self.session.last_advice
            if result.report is not None and result.report.kind == "waiting":
                self.gate.wake()  # a camera gives a slightly different picture next time: look again
            if result.report is not None:
                result.put_wrong = list(result.report.put_wrong)
            result.timings_ms["track_advise"] = (time.perf_counter() - t2) * 1000
            self._send_advice(result.put_wrong)
        self._flush(result)
        return result

    def _send_advice(self, put_wrong: Sequence[Placement] = ()) -> None:
        """Send the advice to the rig when it changed, or when a trigger asked for a read;
        after a read that shows a card put down wrong, what to take back instead."""
        advice = self.session.last_advice
        if self.trigger is None:
            return
        if put_wrong and self._reply_due:
            text = put_wrong[0].text
            self._reply_due = not self.trigger.send(text[0].upper() + text[1:])
            self._sent = None  # the advice is sent again once the table is right
            return
        if advice is None:
            return
        text = advice.text
        if (text != self._sent or self._reply_due) and self.trigger.send(text):
            self._sent = text
            self._reply_due = False

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
        if (state is not None and not self._forced and not reading.guesses and not unreadable_tops(detection)
                and ((report := self._probe(reading.snapshot)[1]).misread
                     or report.kind == "moves" and any(m.kind is MoveKind.REDEAL for m in report.moves))):
            # the tracker explains the read by a redeal, unseen, or by an earlier read
            # being wrong; a card put on a column (a king into an empty one) that the
            # detector missed may explain it in fewer moves (the waste shows the card that
            # was under it, or none)
            found = self._missed_card(reading.snapshot, detection,
                                      MISSED_CARD_MOVES if report.misread else len(report.moves))
            if found is not None:
                return found, [], []
        missed_waste = (state is not None and reading.snapshot.slots[0] is EMPTY and len(state.stock) > 1
                        and bool(state.waste) and _unseen_stock_pass(self._probe(reading.snapshot)[1]))
        if missed_waste:
            # no card seen on the waste, and the tracker explains that by turning more than
            # one stock card and then the waste over, all unseen: a waste card the detector
            # missed leaves the same read -- the waste counts as unread (a real redeal is
            # seen at the next stock turn)
            reading = replace(reading, snapshot=replace(reading.snapshot, slots=(UNKNOWN,) + reading.snapshot.slots[1:]))
        if (state is not None and not reading.guesses and not unreadable_tops(detection) and any(state.foundations)
                and looks_like_a_deal(reading.snapshot, state.rules)):
            # every foundation empty, a card on each column and the waste, runs of one card:
            # a new deal, not foundation cards missed -- the session starts a new game if
            # the game in hand has ended, else says to restart with --new
            return reading.snapshot, [], []
        missed_foundations = set()
        if state is not None and (sum(1 for h in state.foundations if h > 0)
                                  > sum(1 for v in reading.snapshot.foundations if v is not EMPTY)):
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
        if state is None and unread_idx and not self._forced and all(
                i in reading.guesses and reading.guesses[i].confidence >= DEAL_GUESS for i in unread_idx):
            # a deal has nothing to check a guess against; a fairly sure one is taken (the
            # line "new game started: ..." shows the person what was read)
            return reading.filled(unread_idx), [], names(unread_idx)
        if self._forced or state is None:
            return snap, names(unread_idx), []
        if not unread_idx:
            return self._doubt(snap, detection, reading, [])
        confirmed = {i for i in unread_idx if i in reading.guesses
                     and _expected_here(state, i, reading.guesses[i].card)}
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
            return None   # a draw under an unread waste would go unseen
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
            if (report.kind in ("moves", "no change", "revealed") and not report.corrected
                    and _agrees_with_blind(state, probe.state, candidate, detection, blind,
                                               self._sure_strip or self._sure or 0.0)):
                explained.append((candidate, combo))
        if len(explained) > 1:   # more than one card fits: the detector's unsure guess may tell
            explained = [(c, combo) for c, combo in explained
                         if all(i in reading.guesses and reading.guesses[i].card is card for i, card in combo)]
        return explained[0][0] if len(explained) == 1 else None

    def _doubt(self, snap: Snapshot, detection, reading: Reading,
               guessed: list[str]) -> tuple[Snapshot, list[str], list[str]]:
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
        if illegal_placements(state, snap):
            return snap, [], guessed
        snap = replace(snap, runs=None)
        surprising = _surprising_slots(state, snap) + _missed_columns(state, snap, detection)
        if len(surprising) > 3:
            return snap, [], guessed   # the table differs from the game in many places: not one misread
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
        return snap, [], guessed

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
                cards = [Card(top.rank - 1, suit) for suit in range(4)
                         if top.rank > 1 and Card(top.rank - 1, suit).is_red != top.is_red]
            elif not run and not hidden and v is EMPTY and not _slot_cards(detection, i):
                cards = [Card(KING, suit) for suit in range(4)]
            else:
                continue
            cards = [c for c in cards if c not in seen and state.foundations[c.suit] < c.rank]
            cards.sort(key=lambda c: c is not state.waste_top())   # the waste's card first (the likeliest)
            if cards:
                options[i] = cards
        change = {i: _place_change(self._accepted_image, self._image, detection, self.grid, i) for i in options}
        if options and all(v is not None for v in change.values()):
            top = max(change.values())
            options = {i: cards for i, cards in options.items() if change[i] == top and top >= PLACE_CHANGE
                       and all(v * 3 <= top for j, v in change.items() if j != i)}
        else:
            options = {i: cards for i, cards in options.items() if state.faceup[i - 5] == ()}
        found = []
        for i, cards in options.items():
            for card in cards:
                if self._budget <= 0:
                    return None
                slots = list(snap.slots)
                slots[i] = card
                runs = None if snap.runs is None else tuple(
                    None if j == i - 5 else r for j, r in enumerate(snap.runs))
                candidate = replace(snap, slots=tuple(slots), runs=runs)
                _, report = self._probe(candidate)
                if (report.kind == "moves" and not report.corrected and len(report.moves) < moves
                        and not any(m.kind is MoveKind.REDEAL for m in report.moves)):
                    found.append((i, candidate))
        if len(found) != 1:
            return None
        i, candidate = found[0]
        self.doubted = [f"{SLOT_NAMES[i]} (a {candidate.slots[i].symbol} put there missed)"]
        return candidate

    def _place(self, detection):
        """The detection with its cards' slots fitted to the table's grid (see SlotGrid)."""
        if getattr(self.detector, "calibration", None):
            return detection   # a calibration places the cards already
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
    cards = sorted(_slot_cards(detection, index),
                   key=lambda c: float(np.asarray(c.quad, np.float32).reshape(-1, 2)[0, 1]))
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
    return [i for i, v in enumerate(snap.columns, start=5)
            if v is EMPTY and state.faceup[i - 5] and not _slot_cards(detection, i)]


def _place_change(before: np.ndarray | None, after: np.ndarray | None, detection, grid: SlotGrid,
                  index: int) -> float | None:
    """How much the place of a new card on column slot ``index`` changed between two
    pictures (mean absolute grey difference): where the first card of an empty column
    lies, or the band just below where a column's lowest card ends (a card put on it
    covers that band). None when it cannot be told (no earlier picture, no grid pitch learnt, no
    column seen, the band off the picture)."""
    if before is None or after is None or before.shape != after.shape or grid.pitch_ratio is None:
        return None
    boxes = [(int(c.slot.split()[1]) - 1, np.asarray(c.quad, np.float32).reshape(-1, 2))
             for c in getattr(detection, "cards", []) or [] if c.slot.startswith("column")]
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
        return [run[n - 1], run[-1]]   # the top taken off, or still there and missed
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
    return [c for c in cards if c not in seen]   # the tracker judges where each could come from


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


def _agrees_with_blind(before: GameState, after: GameState, snap: Snapshot, detection, blind: set[int],
                       sure: float) -> bool:
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
            seen = seen + [None]   # all but the top seen, and the pile as it was: its top missed
        if len(seen) != len(run):
            return False
        for c, card in zip(seen[:-1], run[:-1]):   # the top is the pile's unread (or doubted) card
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
                d.card is not None for d in dets):
            out.append(slot)
    return sorted(out)


# ----------------------------------------------------------------------------- the loop
class KeyReader:
    """Lines typed in the terminal, without blocking: Enter forces a read, q quits."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        try:
            self.ok = stream is not None and stream.isatty()
        except (ValueError, AttributeError):
            self.ok = False

    def poll(self) -> str | None:
        if not self.ok:
            return None
        try:
            ready, _, _ = select.select([self.stream], [], [], 0)
        except (ValueError, OSError):
            self.ok = False
            return None
        if not ready:
            return None
        line = self.stream.readline()
        if line == "":
            self.ok = False
            return None
        return "quit" if line.strip().lower() in ("q", "quit") else "read"


def run_loop(coach: LiveCoach, source: FrameSource, *, window: bool = False, keys: KeyReader | None = None,
             on_result: Callable[[StepResult], None] | None = None, recorder: FrameRecorder | None = None,
             trigger: SerialTrigger | None = None, trigger_only: bool = False,
             exit_when_done: bool = False, idle_s: float = 0.01, max_frames: int | None = None,
             window_name: str = "solitaire-coach", calibration: dict | None = None) -> int:
    """Feed ``source`` through ``coach`` until it ends (files), ``q`` is pressed, or the game
    ends (with ``exit_when_done``). A live camera that stops answering is waited for.

    With ``trigger_only`` (a serial rig and no camera motion watching), frames are only
    read after a trigger: the gate then still asks for a still, agreeing picture."""
    coach.start()
    shown = False
    count = 0
    pending_trigger = 0
    notes = OverlayNote()
    try:
        while True:
            if keys is not None:
                k = keys.poll()
                if k == "quit":
                    return 0
                if k == "read":
                    coach.force()
                    pending_trigger += 1
            if trigger is not None:
                n = trigger.poll()
                if n:
                    # a trigger asks for a read at the next still picture with no hand in
                    # it; a second one before that read forces it (the way out when the
                    # table or light is taken for a hand)
                    if pending_trigger or n > 1:
                        coach.force()
                    coach.request()
                    pending_trigger += n
            frame = source.read()
            if frame is None:
                if not source.live or getattr(source, "ended", False):   # a file, or a video file as the camera
                    coach.say(f"{source.name}: " + ("the video file ended" if getattr(source, "ended", False)
                                                     else "no more frames") + kept_words(coach))
                    return 0
                if window and shown:
                    if (cv2.waitKey(50) & 0xFF) in (ord("q"), 27):
                        return 0
                else:   # (no window shown yet to wait in: a camera down from the start must not spin)
                    time.sleep(idle_s)
                continue
            count += 1
            if recorder is not None:
                recorder.add(frame)
            if trigger_only and not pending_trigger and not frame.forced:
                result = StepResult(frame, GateView(False, False, False, float("nan"), "waiting for the trigger"),
                                    advice=coach.advice)
            else:
                result = coach.step(frame)
                if result.accepted:
                    pending_trigger = 0
            if on_result is not None:
                on_result(result)
            if window:
                picture = draw_overlay(frame.image, coach.last_detection if result.snapshot is not None
                                       else coach.last_accepted_detection, coach.advice, coach.state,
                                       note=notes.update(result), take_back=notes.put_wrong, gate=result.gate,
                                       calibration=calibration)
                cv2.imshow(window_name, picture)
                shown = True
                key = cv2.waitKey(1) & 0xFF
                if key in (ord("q"), 27):
                    return 0
                if key in (13, 10, ord(" ")):
                    coach.force()
                try:
                    if cv2.getWindowProperty(window_name, cv2.WND_PROP_VISIBLE) < 1:
                        coach.say("window closed: the game is journalled; run play again to continue")
                        return 0
                except cv2.error:
                    return 0
            if exit_when_done and coach.session.finished:
                return 0
            if max_frames is not None and count >= max_frames:
                return 0
    finally:
        if window and shown:
            cv2.destroyWindow(window_name)


def kept_words(coach: LiveCoach) -> str:
    """``; the game (N moves) is journalled in PATH: run play again to continue`` for a
    coach with a journal, else nothing: where the game is, when play stops."""
    journal = coach.session.journal
    if journal is None or coach.session.tracker.state is None:
        return ""
    n = len(coach.session.tracker.history)
    return f"; the game ({n} move{'s' if n != 1 else ''}) is journalled in {journal.path}: run play again to continue"


def _urgent(line: str) -> bool:
    """A line the person must act on (a card put down wrong, a table no move explains)."""
    return "take it back" in line or "not a legal continuation" in line


class OverlayNote:
    """The note the picture shows: the latest line said other than the advice, exactly as
    printed (a card put down wrong first), kept until a later read says another or an
    accepted read says nothing -- a line shown on one frame alone would flash past."""

    def __init__(self) -> None:
        self.text = ""
        self.put_wrong: list[Placement] = []   # the cards the note says to take back

    def update(self, result: StepResult) -> str:
        said = [ln for ln in result.lines if not ln.startswith("advice: ")]
        if said:
            self.text = next((ln for ln in reversed(said) if _urgent(ln)), said[-1])
            self.put_wrong = list(result.put_wrong) if _urgent(self.text) else []
        elif result.accepted:
            self.text = ""
            self.put_wrong = []
        return self.text


# ----------------------------------------------------------------------------- drawing
FONT = cv2.FONT_HERSHEY_SIMPLEX
_GREEN = (60, 220, 60)
_YELLOW = (0, 220, 255)
_RED = (40, 40, 235)
_WHITE = (255, 255, 255)
_AMBER = (0, 140, 255)
_RED_ON_DARK = (70, 70, 255)
_BACK = (200, 160, 60)


def _cards_of(detection) -> list:
    return list(getattr(detection, "cards", []) or []) if detection is not None else []


def _centre(quad) -> tuple[float, float]:
    q = np.asarray(quad, np.float32).reshape(-1, 2)
    return float(q[:, 0].mean()), float(q[:, 1].mean())


def _label(card: Card | None) -> str:
    return "back" if card is None else RANK_NAMES[card.rank - 1] + card.suit_code


def slot_points(detection, image_shape: tuple[int, ...], calibration: dict | None = None) -> dict[str, tuple[float, float]]:
    """Where each of the 12 slots (and ``stock``) is in the picture: the centre of the top
    card read there; for an empty slot the calibration's point, else a point estimated
    from the other slots (columns and the upper row share seven evenly spaced x places)."""
    points: dict[str, tuple[float, float]] = {}
    per_slot: dict[str, list] = {}
    for det in _cards_of(detection):
        per_slot.setdefault(det.slot, []).append(det)
    heights = []
    for slot, dets in per_slot.items():
        if slot.startswith("column"):
            top = max(dets, key=lambda d: _centre(d.quad)[1])
        elif slot == "waste":
            top = max(dets, key=lambda d: _centre(d.quad)[0])
        else:
            top = dets[-1]
        points[slot] = _centre(top.quad)
        q = np.asarray(top.quad, np.float32).reshape(-1, 2)
        heights.append(float(np.linalg.norm(q[3] - q[0])) if len(q) == 4 else 0.0)
    for slot, xy in calibrated_slots(calibration, image_shape[1], image_shape[0]).items():
        points.setdefault(slot, xy)
    # estimate the missing ones from a 7-place grid
    place = {"stock": 0, "waste": 1, **{f"foundation {i}": 2 + i for i in range(1, 5)},
             **{f"column {i}": i - 1 for i in range(1, 8)}}
    xs = [(place[s], p[0]) for s, p in points.items() if s in place and s != "waste"]
    h, w = image_shape[:2]
    card_h = float(np.median(heights)) if heights else h / 5
    if len(xs) >= 2 and len({i for i, _ in xs}) >= 2:
        a, b = np.polyfit([i for i, _ in xs], [x for _, x in xs], 1)
    else:
        a, b = w / 7.5, w / 14
    upper = [p[1] for s, p in points.items() if not s.startswith("column")]
    upper_y = float(np.median(upper)) if upper else card_h * 0.7
    # an empty column's card would lie where the columns begin: half a card below the
    # top edge of their first cards (a covered card shows only a strip, whose centre is
    # well above its card's)
    column_tops = [float(np.asarray(d.quad, np.float32).reshape(-1, 2)[:, 1].min())
                   for s, dets in per_slot.items() if s.startswith("column") for d in dets]
    lower_y = min(column_tops) + card_h / 2 if column_tops else upper_y + 1.3 * card_h
    for slot, i in place.items():
        if slot not in points:
            points[slot] = (float(a * i + b), upper_y if not slot.startswith("column") else lower_y)
    return points


def arrow_for(advice: Advice | None, state: GameState | None, detection, image_shape,
              calibration: dict | None = None) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The advised move as (from, to) pixel points, or None."""
    if advice is None or advice.move is None or state is None:
        return None
    move = advice.move
    pts = slot_points(detection, image_shape, calibration)
    by_card = {(d.card, d.slot): _centre(d.quad) for d in _cards_of(detection) if getattr(d, "card", None) is not None}

    def foundation_for(suit: int) -> tuple[float, float]:
        for d in _cards_of(detection):
            if d.slot.startswith("foundation") and d.card is not None and d.card.suit == suit:
                return _centre(d.quad)
        taken = {d.slot for d in _cards_of(detection) if d.slot.startswith("foundation")}
        for i in range(1, 5):
            if f"foundation {i}" not in taken:
                return pts[f"foundation {i}"]
        return pts["foundation 1"]

    k = move.kind
    try:
        if k is MoveKind.DRAW:
            a, b = pts["stock"], pts["waste"]
        elif k is MoveKind.REDEAL:
            a, b = pts["waste"], pts["stock"]
        else:
            cards = state.moving_cards(move)
            head = cards[0] if cards else None
            # the moving card where the picture shows it in the move's source pile (a card
            # read elsewhere -- already moved, or misread -- does not start the arrow)
            if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.WASTE_TO_COLUMN):
                a = by_card.get((head, "waste"), pts["waste"])
            elif k is MoveKind.FOUNDATION_TO_COLUMN:
                a = foundation_for(move.source)
            else:
                source = f"column {move.source + 1}"
                a = by_card.get((head, source), pts[source])
            if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.COLUMN_TO_FOUNDATION):
                b = foundation_for(head.suit)
            else:
                b = pts[f"column {move.target + 1}"]
    except Exception:  # an advice the picture cannot place: no arrow rather than a crash
        return None
    return (int(a[0]), int(a[1])), (int(b[0]), int(b[1]))


def move_tag(advice: Advice | None) -> str:
    """A word by the target for the moves an arrow alone does not tell apart: a card
    drawn from the stock, the waste turned over, a card put up on a foundation."""
    if advice is None or advice.move is None:
        return ""
    k = advice.move.kind
    if k is MoveKind.DRAW:
        return "DRAW"
    if k is MoveKind.REDEAL:
        return "TURN THE WASTE OVER"
    if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.COLUMN_TO_FOUNDATION):
        return "TO THE FOUNDATION"
    return ""


def tag_box(tag: str, target: tuple[int, int, int, int], unit: float, shape) -> tuple[int, int, int, int]:
    """Where ``tag`` goes: a patch centred under the target outline (above it near the
    picture's foot), kept inside the picture."""
    h, w = shape[:2]
    bw, bh = _tag_size(tag, unit)
    x0 = min(max(0, (target[0] + target[2]) // 2 - bw // 2), w - bw)
    y0 = target[3] + int(4 * unit)
    if y0 + bh > h * 0.7:
        y0 = max(0, target[1] - int(4 * unit) - bh)
    return x0, y0, x0 + bw, y0 + bh


def _tag_size(tag: str, unit: float) -> tuple[int, int]:
    """Width and height of the dark patch a tag word is written on."""
    (tw, th), _ = cv2.getTextSize(tag, FONT, 0.7 * unit, max(1, int(2 * unit)))
    return tw + int(10 * unit), th + int(14 * unit)


def _draw_tag(img: np.ndarray, tag: str, box: tuple[int, int, int, int], colour: tuple, unit: float) -> None:
    """``tag`` in ``colour`` on a dark patch filling ``box`` (drawn in place)."""
    x0, y0, x1, y1 = box
    cv2.rectangle(img, (x0, y0), (x1, y1), (0, 0, 0), -1)
    cv2.putText(img, tag, (x0 + int(5 * unit), y1 - int(7 * unit)), FONT, 0.7 * unit, colour, max(1, int(2 * unit)),
                cv2.LINE_AA)


def moving_quads(advice: Advice | None, state: GameState | None, detection) -> list:
    """The quads of the cards the advised move takes, where the picture shows them in the
    move's source pile (a column's run from the moving card down, the waste's top)."""
    if advice is None or advice.move is None or state is None:
        return []
    move = advice.move
    if move.kind in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.WASTE_TO_COLUMN):
        source = "waste"
    elif move.kind in (MoveKind.COLUMN_TO_FOUNDATION, MoveKind.COLUMN_TO_COLUMN):
        source = f"column {move.source + 1}"
    else:
        return []
    try:
        cards = set(state.moving_cards(move))
    except Exception:  # an advice the position cannot play: nothing outlined rather than a crash
        return []
    return [d.quad for d in _cards_of(detection) if d.slot == source and d.card in cards]


def take_back_quads(put_wrong: Sequence[Placement], detection) -> list:
    """The quads of the cards put down wrong (``StepResult.put_wrong``), where the picture
    shows each on its pile."""
    return [d.quad for p in put_wrong for d in _cards_of(detection)
            if d.card == p.card and d.slot.startswith(p.pile)]


def label_box(det, unit: float) -> tuple[int, int, int, int] | None:
    """Where a face-up card's label goes: (x0, y0, x1, y1) inside the card's top right
    corner -- the index a person reads is in the top left, and in a fanned column the strip
    a covering card leaves shows that corner alone. None for a card back."""
    if det.card is None and not getattr(det, "face_up", False):
        return None
    label = _label(det.card) if det.card is not None else "??"
    (tw, th), _ = cv2.getTextSize(label, FONT, 0.75 * unit, max(1, int(2 * unit)))
    q = np.asarray(det.quad, np.float32).reshape(-1, 2)
    x1, y0 = int(q[1][0]) - 2, int(q[1][1]) + 2   # the top right corner
    return x1 - tw - 6, y0, x1, y0 + th + int(8 * unit)


def _text(img, text: str, org, scale: float, colour, thick: int) -> None:
    cv2.putText(img, text, org, FONT, scale, (0, 0, 0), thick + 4, cv2.LINE_AA)
    cv2.putText(img, text, org, FONT, scale, colour, thick, cv2.LINE_AA)


NOTE_LINES = 3  # lines of a note drawn at the top of the picture
LABEL_UNIT_FLOOR = 0.6  # card labels and tags never shrink below their size on a 768-pixel-wide picture
BAND_UNIT_FLOOR = 0.5   # the advice and the note: their size on a 640-pixel-wide picture


def _lines(text: str, scale: float, thick: int, width: int, most: int) -> list[str]:
    """``text`` wrapped to ``width`` pixels, at most ``most`` lines (the last ending in ...)."""
    wrapped = _wrap(text, scale, thick, width)
    if len(wrapped) > most:
        wrapped = wrapped[:most - 1] + [_fit(wrapped[most - 1] + " ...", scale, thick, width)]
    return wrapped


def _fit(line: str, scale: float, thick: int, width: int) -> str:
    """``line`` (ending in `` ...``) cut until it fits ``width`` pixels."""
    while len(line) > 4 and cv2.getTextSize(line, FONT, scale, thick)[0][0] > width:
        line = line[:-5].rstrip() + " ..."
    return line


def _wrap(text: str, scale: float, thick: int, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for word in words:
        trial = (cur + " " + word).strip()
        if cur and cv2.getTextSize(trial, FONT, scale, thick)[0][0] > width:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


def draw_overlay(image: np.ndarray, detection, advice: Advice | None, state: GameState | None, *,
                 note: str = "", take_back: Sequence[Placement] = (), gate: GateView | None = None,
                 calibration: dict | None = None) -> np.ndarray:
    """The frame with every card read boxed and labelled, the advised move as an arrow, the
    advice and its reason in large text, the latest note (a deviation, an illegal move), and
    the cards of ``take_back`` (put down wrong) outlined in red."""
    out = image.copy()
    h, w = out.shape[:2]
    unit = w / 1280.0
    tu = max(unit, LABEL_UNIT_FLOOR)   # text scales with the picture, but never too small to read
    bu = max(unit, BAND_UNIT_FLOOR)    # ... and the bands of text never cover a small picture
    waiting = waiting_text(gate)
    if waiting:   # the last read's boxes and arrow would be stale over a hand moving cards
        detection = None
    for det in _cards_of(detection):
        q = np.asarray(det.quad, np.float32).reshape(-1, 1, 2).astype(np.int32)
        colour = _GREEN if det.card is not None else (_RED if getattr(det, "face_up", False) else _BACK)
        cv2.polylines(out, [q], True, colour, max(1, int(2 * unit)), cv2.LINE_AA)
    urgent = _urgent(note)   # a card to take back first: the advised move is not the next thing to do
    arrow = None if waiting or urgent else arrow_for(advice, state, detection, out.shape, calibration)
    if arrow is not None:
        (x0, y0), (x1, y1) = arrow
        length = max(1.0, float(np.hypot(x1 - x0, y1 - y0)))
        heights = [float(np.linalg.norm(np.asarray(d.quad, np.float32).reshape(-1, 2)[1] -
                                        np.asarray(d.quad, np.float32).reshape(-1, 2)[0]))
                   for d in _cards_of(detection)]
        cw = float(np.median(heights)) if heights else 90 * unit
        ch = cw * 1.4
        target = (int(x1 - cw / 2), int(y1 - ch / 2), int(x1 + cw / 2), int(y1 + ch / 2))
        cv2.rectangle(out, target[:2], target[2:], _YELLOW, max(2, int(3 * unit)), cv2.LINE_AA)
        for q in moving_quads(advice, state, detection):   # the cards that move, outlined
            cv2.polylines(out, [np.asarray(q, np.float32).reshape(-1, 1, 2).astype(np.int32)], True, _YELLOW,
                          max(2, int(3 * unit)), cv2.LINE_AA)
        cv2.arrowedLine(out, (x0, y0), (x1, y1), (0, 0, 0), int(14 * unit), cv2.LINE_AA, tipLength=min(0.4, 45 * unit / length))
        cv2.arrowedLine(out, (x0, y0), (x1, y1), _YELLOW, int(8 * unit), cv2.LINE_AA, tipLength=min(0.4, 45 * unit / length))
        cv2.circle(out, (x0, y0), int(12 * unit), _YELLOW, -1, cv2.LINE_AA)
        tag = move_tag(advice)
        if tag:
            _draw_tag(out, tag, tag_box(tag, target, tu, out.shape), _YELLOW, tu)
    for det in _cards_of(detection):   # over the arrow, so that no label is hidden under it
        box = label_box(det, tu)
        if box is not None:
            (x0, y0, x1, y1), label = box, _label(det.card) if det.card is not None else "??"
            cv2.rectangle(out, (x0, y0), (x1, y1), (0, 0, 0), -1)
            cv2.putText(out, label, (x0 + 3, y1 - int(5 * tu) - 1), FONT, 0.75 * tu,
                        _GREEN if det.card is not None else _RED_ON_DARK, max(1, int(2 * tu)), cv2.LINE_AA)
    # the advice, large, on a dark band at the bottom
    lines: list[tuple[str, float, tuple, int]] = []
    width = int(w - 40 * unit)
    if advice is not None:
        head = ("then: " if urgent else "") + ascii_line(advice.text, 200)
        for ln in _lines(head, 1.4 * bu, max(2, int(3 * bu)), width, 2):
            lines.append((ln, 1.4 * bu, _YELLOW if advice.status == "move" and not urgent else _WHITE,
                          max(2, int(3 * bu))))
        if advice.reason:   # the terminal has it all; the picture keeps the band low
            for ln in _lines(ascii_line(advice.reason, 200), 0.95 * bu, max(2, int(2 * bu)), width, 2 if h >= 500 else 1):
                lines.append((ln, 0.95 * bu, _WHITE, max(2, int(2 * bu))))
    elif state is None:
        lines.append(("Deal a new game and hold still", 1.0 * bu, _WHITE, max(2, int(3 * bu))))
    if lines:
        band = sum(int(44 * s) + 6 for _, s, _, _ in lines) + int(16 * bu)
        overlay = out.copy()
        cv2.rectangle(overlay, (0, h - band), (w, h), (0, 0, 0), -1)
        out = cv2.addWeighted(overlay, 0.55, out, 0.45, 0)
        y = h - band + int(8 * bu)
        for ln, s, colour, thick in lines:
            y += int(40 * s) + 6
            _text(out, ln, (int(20 * unit), y), s, colour, thick)
    for q in ([] if waiting else take_back_quads(take_back, detection)):   # the card to take back, in red
        q = np.asarray(q, np.float32).reshape(-1, 1, 2).astype(np.int32)
        cv2.polylines(out, [q], True, _RED_ON_DARK, max(3, int(5 * unit)), cv2.LINE_AA)
        x0, y0 = q.reshape(-1, 2).min(axis=0)
        x1, y1 = q.reshape(-1, 2).max(axis=0)
        bw, bh = _tag_size("TAKE BACK", tu)   # on the card's middle: its index and the pile's stay seen
        tx0, ty0 = int((x0 + x1) / 2 - bw / 2), int((y0 + y1) / 2 - bh / 2)
        _draw_tag(out, "TAKE BACK", (tx0, ty0, tx0 + bw, ty0 + bh), _RED_ON_DARK, tu)
    status = ""
    if not waiting and gate is not None and not gate.read and gate.reason != RESTING:
        status = gate.reason
    if note or status:
        _top_band(out, note, status, bu)
    if gate is not None and gate.box is not None:   # the object over the table, outlined
        x, y, bw, bh = (int(round(v)) for v in gate.box)
        cv2.rectangle(out, (x, y), (x + bw, y + bh), _RED, max(2, int(3 * unit)))
        _text(out, "not a card", (x + 6, max(int(24 * tu), y + int(28 * tu))), 0.8 * tu, _RED, max(2, int(2 * tu)))
    if waiting:
        _banner(out, waiting, tu)
    elif advice is not None and advice.status in ("won", "lost"):   # the game is over: say so across the table
        _banner(out, ascii_line(advice.text, 200), tu, _GREEN if advice.status == "won" else _WHITE, size=2.2)
    return out


def _shade(img: np.ndarray, x0: int, y0: int, x1: int, y1: int, alpha: float = 0.65) -> None:
    """Darken a rectangle of ``img`` in place (text on it reads on any table)."""
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(img.shape[1], x1), min(img.shape[0], y1)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = (img[y0:y1, x0:x1] * (1.0 - alpha)).astype(img.dtype)


def _top_band(img: np.ndarray, note: str, status: str, unit: float) -> None:
    """The note (red when a card must be taken back) on a dark band across the top, and the
    gate's status small at the top right, clear of the note (drawn in place)."""
    h, w = img.shape[:2]
    s_scale, s_thick = 0.6 * unit, max(1, int(2 * unit))
    (sw, sh), _ = cv2.getTextSize(status, FONT, s_scale, s_thick) if status else ((0, 0), 0)
    margin = int(20 * unit)
    scale, thick = 1.0 * unit, max(2, int(2.5 * unit))
    width = int(w - 2 * margin - (sw + margin if status else 0))
    most = NOTE_LINES if h >= 500 else NOTE_LINES - 1   # the terminal has it all; the picture says there is more
    wrapped = _lines(ascii_line(note, 400), scale, thick, width, most) if note else []
    step = int(42 * unit)
    if wrapped:
        _shade(img, 0, 0, w, step * len(wrapped) + int(14 * unit))
        colour = _RED_ON_DARK if _urgent(note) else _WHITE
        for i, ln in enumerate(wrapped):
            cv2.putText(img, ln, (margin, int(36 * unit) + step * i), FONT, scale, colour, thick, cv2.LINE_AA)
    if status:
        x = w - sw - margin // 2
        if not wrapped:
            _shade(img, x - margin // 2, 0, w, sh + int(24 * unit))
        cv2.putText(img, status, (x, sh + int(10 * unit)), FONT, s_scale, _WHITE, s_thick, cv2.LINE_AA)


def waiting_text(gate: GateView | None) -> str:
    """What the picture says while a hand (or anything not a card) is over the table, else ''."""
    if gate is None or not gate.hand:
        return ""
    return "Hand in the picture: waiting" if gate.box is None else "Something over the table: waiting"


def _banner(img: np.ndarray, text: str, unit: float, colour: tuple = _AMBER, size: float = 1.3) -> None:
    """``text`` large, centred across the picture on a dark band (drawn in place)."""
    h, w = img.shape[:2]
    thick = max(2, int(3 * unit))
    scale = size * unit
    while scale > 0.4 and cv2.getTextSize(text, FONT, scale, thick)[0][0] > w - 40 * unit:
        scale *= 0.9
    (tw, th), _ = cv2.getTextSize(text, FONT, scale, thick)
    y0, y1 = int(h * 0.42 - th), int(h * 0.42 + th)
    band = img.copy()
    cv2.rectangle(band, (0, y0), (w, y1), (0, 0, 0), -1)
    cv2.addWeighted(band, 0.6, img, 0.4, 0, dst=img)
    _text(img, text, ((w - tw) // 2, (y0 + y1 + th) // 2), scale, colour, thick)


def json_line(result: StepResult) -> str:
    """One strict JSON line (no NaN or Infinity, which JSON has no words for)."""
    return json.dumps(result.to_json(), ensure_ascii=False, allow_nan=False)
