"""The loop that feeds frames: a frame source (camera, folder, video) through a
:class:`~solitaire_coach.app.live.LiveCoach`, with an optional window.

In: frames from a :class:`~solitaire_coach.capture.sources.FrameSource`, keys typed in
the terminal or the window (Enter forces a read, ``q`` quits, ``j`` joins the table as it is
when the coach cannot follow), the serial rig's trigger
(asks for a read, with the hand checks; a second trigger before the read forces it).
Out: each frame's :class:`~solitaire_coach.app.live.StepResult` (to ``on_result``), the
picture in the window (:func:`solitaire_coach.vision.overlay.draw_overlay`), and the
exit status when the source ends, ``q`` is pressed or the game ends.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from typing import TextIO

import cv2

from ..capture.gate import GateView
from ..capture.serial_trigger import SerialTrigger
from ..capture.sources import FrameRecorder, FrameSource
from ..core.tracker import Placement
from ..vision.overlay import _urgent, draw_overlay
from .live import LiveCoach, StepResult


class KeyReader:
    """Lines typed in the terminal, without blocking: Enter forces a read, q quits, j (then
    Enter) joins the table as it is at the next read that does not follow."""

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
        word = line.strip().lower()
        return "quit" if word in ("q", "quit") else "join" if word in ("j", "join") else "read"


def run_loop(
    coach: LiveCoach,
    source: FrameSource,
    *,
    window: bool = False,
    keys: KeyReader | None = None,
    on_result: Callable[[StepResult], None] | None = None,
    recorder: FrameRecorder | None = None,
    trigger: SerialTrigger | None = None,
    trigger_only: bool = False,
    exit_when_done: bool = False,
    idle_s: float = 0.01,
    max_frames: int | None = None,
    window_name: str = "solitaire-coach",
    calibration: dict | None = None,
) -> int:
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
                if k == "join":
                    coach.session.join_next()
                if k in ("read", "join"):
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
                if not source.live or getattr(source, "ended", False):  # a file, or a video file as the camera
                    coach.say(
                        f"{source.name}: "
                        + ("the video file ended" if getattr(source, "ended", False) else "no more frames")
                        + kept_words(coach)
                    )
                    return 0
                if window and shown:
                    if (cv2.waitKey(50) & 0xFF) in (ord("q"), 27):
                        return 0
                else:  # (no window shown yet to wait in: a camera down from the start must not spin)
                    time.sleep(idle_s)
                continue
            count += 1
            if recorder is not None:
                recorder.add(frame)
            if trigger_only and not pending_trigger and not frame.forced:
                result = StepResult(
                    frame, GateView(False, False, False, float("nan"), "waiting for the trigger"), advice=coach.advice
                )
            else:
                result = coach.step(frame)
                if result.accepted:
                    pending_trigger = 0
            if on_result is not None:
                on_result(result)
            if window:
                picture = overlay_picture(coach, frame.image, result, notes, calibration)
                cv2.imshow(window_name, picture)
                shown = True
                key = cv2.waitKey(1) & 0xFF
                if key in (ord("q"), 27):
                    return 0
                if key in (ord("j"), ord("J")):  # the way out when lost: join the table as it is
                    coach.session.join_next()
                if key in (13, 10, ord(" "), ord("j"), ord("J")):
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


def overlay_picture(coach: LiveCoach, image, result: StepResult, notes: OverlayNote, calibration) -> object:
    """The live window's picture of one frame: what was read (the last accepted read when
    this frame was not read), the advice and the position, the note of ``notes`` for this
    result, the gate's state and the calibration's slots (see ``vision.overlay``)."""
    return draw_overlay(
        image,
        coach.last_detection if result.snapshot is not None else coach.last_accepted_detection,
        coach.advice,
        coach.state,
        note=notes.update(result),
        take_back=notes.put_wrong,
        gate=result.gate,
        calibration=calibration,
    )


def kept_words(coach: LiveCoach) -> str:
    """``; the game (N moves) is journalled in PATH: run play again to continue`` for a
    coach with a journal, else nothing: where the game is, when play stops."""
    journal = coach.session.journal
    if journal is None or coach.session.tracker.state is None:
        return ""
    n = len(coach.session.tracker.history)
    return f"; the game ({n} move{'s' if n != 1 else ''}) is journalled in {journal.path}: run play again to continue"


class OverlayNote:
    """The note the picture shows: the latest line said other than the advice, exactly as
    printed (a card put down wrong first), kept until a later read says another or an
    accepted read says nothing -- a line shown on one frame alone would flash past."""

    def __init__(self) -> None:
        self.text = ""
        self.put_wrong: list[Placement] = []  # the cards the note says to take back

    def update(self, result: StepResult) -> str:
        said = [ln for ln in result.lines if not ln.startswith("advice: ")]
        if said:
            self.text = next((ln for ln in reversed(said) if _urgent(ln)), said[-1])
            self.put_wrong = list(result.put_wrong) if _urgent(self.text) else []
        elif result.accepted:
            self.text = ""
            self.put_wrong = []
        return self.text
