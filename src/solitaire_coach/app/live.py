"""The live coach: frames in, advice out -- the logic behind ``play``, ``replay`` and ``demo``.

:class:`LiveCoach` is the path of one frame, one step a module (see docs/architecture.md):

1. the read gate says whether to look (:mod:`solitaire_coach.capture.gate`);
2. the card detector reads the cards (:mod:`solitaire_coach.vision.detector`);
3. the read's judgement makes a snapshot of them for the tracker, or says to look again
   (:mod:`solitaire_coach.app.judgement`);
4. two agreeing reads go to the :class:`~solitaire_coach.app.coach.CoachSession`
   (tracker, advisor, journal: :mod:`solitaire_coach.core`), and what it says is collected;
5. the serial rig, if any, gets the advice (:mod:`solitaire_coach.app.rig`).

It draws nothing and reads no keys, so ``play`` and ``replay`` print exactly the same
lines for the same frames. The loop that feeds it frames is :mod:`solitaire_coach.app.loop`;
the window's picture is :mod:`solitaire_coach.vision.overlay`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..capture.gate import GateView, ReadGate
from ..capture.serial_trigger import SerialTrigger
from ..capture.sources import Frame
from ..core.advisor import Advice
from ..core.notation import Snapshot
from ..core.state import GameState
from ..core.tracker import Placement, TrackerReport
from .coach import CoachSession, advice_for
from .judgement import Judgement, ReadJudge
from .rig import RigReplies
from .unfamiliar import DeckFamiliarity

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
    detection: object | None = None  # the detector's result when the frame was read
    snapshot: Snapshot | None = None
    accepted: bool = False  # two reads agreed: given to the tracker
    report: TrackerReport | None = None
    advice: Advice | None = None  # the advice in force after this frame
    lines: list[str] = field(default_factory=list)  # what was said for this frame
    timings_ms: dict[str, float] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)  # piles whose top face could not be read
    guessed: list[str] = field(
        default_factory=list
    )  # piles whose unsure read was taken (see judgement.ReadJudge._choose)
    doubted: list[str] = field(default_factory=list)  # a pile whose sure read was taken as a misread
    put_wrong: list[Placement] = field(default_factory=list)  # cards the read shows put down against the rules
    stock: bool | None = None  # accepted: the stock reading given with it (True a pile, False empty, None not read)

    def to_json(self) -> dict:
        d: dict = {
            "frame": self.frame.name,
            "index": self.frame.index,
            "t": round(self.frame.timestamp, 4),
            "read": self.snapshot is not None,
            "gate": self.gate.reason,
            "motion": round(self.gate.motion, 3) if math.isfinite(self.gate.motion) else None,
            "hand": self.gate.hand,
        }
        if self.snapshot is not None:
            d["snapshot"] = self.snapshot.line()
            d["accepted"] = self.accepted
            if self.unreadable:
                d["unreadable"] = list(self.unreadable)
            if self.guessed:
                d["guessed"] = list(self.guessed)
            if self.doubted:
                d["doubted"] = list(self.doubted)
            if self.accepted and self.stock is not None:
                d["stock"] = "pile" if self.stock else "empty"
        if self.report is not None:
            d["report"] = self.report.kind
            d["moves"] = [m.text for m in self.report.moves]
            if self.report.undone:
                d["undone"] = [m.text for m in self.report.undone]
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


FRESH_DEAL_WORDS = "if a new game was dealt, restart with --new"
"""What the session says of a fresh deal seen while a game is in hand: said once by play."""


class LiveCoach:
    """One coached game fed frame by frame. ``say`` gets every line meant for the person."""

    def __init__(
        self,
        session: CoachSession,
        detector: Detector,
        gate: ReadGate | None = None,
        *,
        say: Callable[[str], None] = print,
        trigger: SerialTrigger | None = None,
    ) -> None:
        self.session = session
        # the coach judges unsure faces itself: the detector gives its best card for every
        # face (down to GUESS_FLOOR) and the coach counts as read only those at the
        # detector's own threshold (see judgement.ReadJudge._choose)
        self.judge = ReadJudge(session, detector)
        self.detector = detector
        self.gate = gate if gate is not None else ReadGate()
        self.say = say
        self.trigger = trigger
        self.rig = RigReplies(trigger)
        self.last_detection = None
        self.last_accepted_detection = None
        self._said: list[str] = []
        self._last_advice_line: str | None = None
        self._last_waiting: str | None = None
        self._last_unread_note: str | None = None
        self._last_blank: str | None = None  # the last picture read was blank (said once)
        self._fresh_deal_said = False
        self._forced = False
        # what the last two reads showed beyond the slots: (stock reading, face-down counts)
        self._table_reads: list[tuple[bool | None, tuple[int, ...] | None]] = []
        self._pile_seen = False  # this camera has found the stock pile in its place
        # how sure the reads of this deck are: an unfamiliar deck is said once (unfamiliar.py)
        deck = getattr(detector, "deck", None)
        self.familiarity = DeckFamiliarity(deck=deck if isinstance(deck, str) else None)
        session.say = self._collect  # the session speaks through us

    # the session's lines, with a repeated unchanged advice left out ---------------------
    def _collect(self, line: str) -> None:
        if line.startswith("advice: "):
            if line == self._last_advice_line:
                return
            self._last_advice_line = line
        if line.startswith("cannot start a game"):
            if line == self._last_waiting:  # the still table is read again: say it once
                return
            self._last_waiting = line
        if FRESH_DEAL_WORDS in line:  # a fresh deal on the table while a game is in hand: said once a run
            if self._fresh_deal_said:
                return
            self._fresh_deal_said = True
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
        self.rig.request()

    def start(self) -> None:
        """Say the advice for a resumed game before the first frame."""
        if self.session.tracker.state is not None and self.session.last_advice is None:
            # as after any read: marked unsure where the position is a guess (a journal saved
            # while unsure) or the advice fails in an explanation followed aside
            self.session.last_advice = advice_for(self.session.strategy, self.session.tracker)
            self._collect("advice: " + self.session.last_advice.line())
        for line in self._said:
            self.say(line)
        self._said = []
        self._send_advice()

    def step(self, frame: Frame) -> StepResult:
        """One frame along the path: gate, detector, judgement, tracker and advisor, rig."""
        t0 = time.perf_counter()
        if frame.forced:
            self.force()
        view = self.gate.observe(frame.image)  # 1. the read gate: look or not
        result = StepResult(frame, view, advice=self.session.last_advice)
        result.timings_ms["gate"] = (time.perf_counter() - t0) * 1000
        if view.read and not self._blank(frame, view, result):
            detection, cards, t_read = self._detect(frame, result)  # 2. the card detector
            if not self._object_over(cards, view, result):  # (the gate again: no hand)
                self._note_table(detection)
                note = self.familiarity.observe(getattr(detection, "sure_share", None))
                if note:
                    self._said.append(note)
                judged = self.judge.judge(detection, frame.image, forced=self._forced)  # 3. the judgement
                result.detection, result.snapshot = detection, judged.snapshot
                result.guessed, result.doubted = judged.guessed, judged.doubted
                # a photo is read once: a column's top card it leaves unread cannot be
                # looked at again, so the read goes on without it (as if Enter had been
                # pressed). An unread waste or foundation is not gone on without: how many
                # cards went up or were drawn is then open, and the likeliest guess was
                # measured wrong more often than waiting for the next photo
                photo = bool(getattr(self.gate, "photos", False)) and all(
                    pile.startswith("column") for pile in judged.unread
                )
                if judged.look_again(self._forced or photo):
                    self._look_again(judged, result)
                elif self.gate.offer(judged.snapshot.text(), cards):  # two reads agree
                    if photo and judged.unread:
                        result.unreadable = judged.unread
                        self._said.append(
                            "cannot read the top card of "
                            + ", ".join(judged.unread)
                            + " in this photo: going on without it"
                        )
                    self._take(judged.snapshot, detection, frame, result, t_read)  # 4. tracker, advisor
                    self._send_advice(result.put_wrong)  # 5. the rig's reply
        self._flush(result)
        return result

    def _blank(self, frame: Frame, view: GateView, result: StepResult) -> bool:
        """Is the picture blank (all dark or all bright)? Then it is not read, and that is said once."""
        blank = blank_picture(self.gate.meter.last)
        if blank is not None:
            # nothing to read (a read would see no card anywhere and be taken for a table
            # that does not follow from the game): say what the picture is, once
            self.gate.reject()
            result.gate = GateView(False, True, False, view.motion, f"blank picture ({blank})")
            note = (
                f"the picture from {frame.name} is all {blank} (camera covered, light off or dazzled?): "
                f"nothing to read; the game is kept, waiting for the table"
            )
            if self._last_blank is None:
                self._said.append(note)
            self._last_blank = blank
            return True
        self._last_blank = None
        return False

    def _detect(self, frame: Frame, result: StepResult) -> tuple[object, list, float]:
        """The detector's result for ``frame`` (its cards fitted to the table's grid), its
        cards as (quad, card or None for a back) for the gate, and when the detector ended."""
        t1 = time.perf_counter()
        detection = self.detector.detect(frame.image)
        t2 = time.perf_counter()
        result.timings_ms["detect"] = (t2 - t1) * 1000
        self.last_detection = detection
        detection = self.judge.place(detection)
        self.last_detection = detection
        cards = [(c.quad, c.card if getattr(c, "face_up", True) else None) for c in _cards_of(detection)]
        return detection, cards, t2

    def _note_table(self, detection) -> None:
        """Keep what ``detection`` shows beyond the slots (see :meth:`table_hints`)."""
        reading = getattr(detection, "stock_reading", None)
        stock = reading(self._pile_seen) if callable(reading) else None
        self._pile_seen = self._pile_seen or stock is True
        down = getattr(detection, "down", None)
        down = tuple(int(n) for n in down) if down is not None and len(down) == 7 else None
        self._table_reads = (self._table_reads + [(stock, down)])[-2:]

    def table_hints(self) -> tuple[bool | None, tuple[int, ...] | None]:
        """The stock reading and the face-down counts the last two reads agree on (None
        where they differ, or where a read gave none): the hints the session takes with
        the read (see CoachSession.process_text). The stock counts as empty only once this
        camera has found the pile in its place (DetectionResult.stock_reading)."""
        if len(self._table_reads) < 2:
            return None, None
        (stock_a, down_a), (stock_b, down_b) = self._table_reads
        return (stock_b if stock_a == stock_b else None), (down_b if down_a == down_b else None)

    def _object_over(self, cards: list, view: GateView, result: StepResult) -> bool:
        """Does the gate see something that is not a card over the table? Then the read is not used."""
        if self.gate.object_seen(cards):
            # something that is not a card lies over the table (a hand of any colour, a
            # sleeve): this read is not used, whatever it says
            result.gate = GateView(False, True, True, view.motion, OBJECT_REASON, box=self.gate.object_box)
            return True
        return False

    def _look_again(self, judged: Judgement, result: StepResult) -> None:
        """A read not used: say which top cards could not be read (once), and look again."""
        unread = judged.unread
        # a face-up card on top of a pile could not be read (glare, a finger, blur)
        # and the read cannot be explained without it: it could hide a move, so it
        # is not used; look again (Enter or the trigger uses it anyway)
        self.gate.reject()
        result.unreadable = unread
        note = (
            (
                "cannot read the top card of " + ", ".join(unread) + ": looking again "
                "(if this stays, move the light or the card, or press Enter to go on without it)"
            )
            if unread
            else ""
        )
        if note and note != self._last_unread_note:
            self._said.append(note)
            self._last_unread_note = note

    def _take(self, snap: Snapshot, detection, frame: Frame, result: StepResult, t_read: float) -> None:
        """Two reads agree: the tracker and the advisor take the read (timed from ``t_read``)."""
        result.accepted = True
        self._last_unread_note = None
        self.last_accepted_detection = detection
        self.judge.accepted(frame.image)
        tracker = self.session.tracker
        if self.judge.needs_search(snap, forced=self._forced):
            tracker.update(snap, prefer=self.session.advised_move)
        stock, down = self.table_hints()
        result.stock = stock
        result.report = self.session.process_text(snap.text(), where=frame.name, stock_hint=stock, down_hint=down)
        self._forced = False
        self.judge.game_changed()
        result.advice = self.session.last_advice
        if result.report is not None and result.report.kind == "waiting":
            self.gate.wake()  # a camera gives a slightly different picture next time: look again
        if result.report is not None:
            result.put_wrong = list(result.report.put_wrong)
        result.timings_ms["track_advise"] = (time.perf_counter() - t_read) * 1000

    def _send_advice(self, put_wrong: Sequence[Placement] = ()) -> None:
        """Send the advice to the rig (see rig.RigReplies)."""
        self.rig.send_advice(self.session.last_advice, put_wrong)


def _cards_of(detection) -> list:
    return list(getattr(detection, "cards", []) or []) if detection is not None else []


def json_line(result: StepResult) -> str:
    """One strict JSON line (no NaN or Infinity, which JSON has no words for)."""
    return json.dumps(result.to_json(), ensure_ascii=False, allow_nan=False)


# the names that lived here before the frame's path was split into modules
_MOVED = {
    "judgement": ("GUESS_FLOOR", "DEAL_GUESS", "PLACE_CHANGE", "MISSED_CARD_MOVES", "PROBE_BUDGET", "unreadable_tops"),
    "loop": ("KeyReader", "run_loop", "kept_words", "OverlayNote"),
    "overlay": (
        "FONT",
        "slot_points",
        "arrow_for",
        "move_tag",
        "tag_box",
        "moving_quads",
        "take_back_quads",
        "label_box",
        "draw_overlay",
        "waiting_text",
        "NOTE_LINES",
        "LABEL_UNIT_FLOOR",
        "BAND_UNIT_FLOOR",
        "_wrap",
        "_urgent",
    ),
}


def __getattr__(name: str):
    """The old import paths (``from solitaire_coach.app.live import draw_overlay``) still work."""
    import importlib

    for module, names in _MOVED.items():
        if name in names:
            package = "solitaire_coach.vision" if module == "overlay" else "solitaire_coach.app"
            return getattr(importlib.import_module(f"{package}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
