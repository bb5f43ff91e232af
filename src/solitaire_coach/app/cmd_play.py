"""``play``: the live coach on a camera, a serial-triggered rig or recorded frames."""

from __future__ import annotations

import sys
from pathlib import Path

from .argtypes import positive_int
from .live_setup import (
    _err,
    _load_calibration,
    _recording_folder_problem,
    _rules_args,
    _session,
    _window_or_note,
)
from .options import add_calibration_argument, add_json_argument, add_model_argument, add_strategy_arguments
from .paths import output_problem


def register(sub) -> None:
    """Add the ``play`` command to ``sub``."""
    p = sub.add_parser(
        "play",
        help="the live coach: camera (or serial trigger, or frames) -> advice on the frame",
        description="The live coach: reads the table from a camera (or recorded frames) when it is "
        "still, follows the game and says the next move, in a window and the terminal.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", help="camera index or device path (default 0)")
    src.add_argument("--frames", type=Path, help="a folder of recorded frames (or a video file) instead of a camera")
    p.add_argument(
        "--serial",
        metavar="PORT",
        help="a serial port (or pyserial URL) whose SNAP lines trigger a read; the advice is sent back as one line",
    )
    p.add_argument("--baud", type=positive_int, default=9600, help="with --serial: its speed (default 9600)")
    p.add_argument(
        "--auto",
        action="store_true",
        help="with --serial: also read whenever the table is still (default: only when triggered)",
    )
    add_calibration_argument(p)
    add_model_argument(p)
    p.add_argument("--width", type=positive_int, default=1280, help="camera picture width asked for (default 1280)")
    p.add_argument("--height", type=positive_int, default=720, help="camera picture height asked for (default 720)")
    p.add_argument("--no-window", action="store_true", help="no window: the terminal only")
    p.add_argument(
        "--record", type=Path, metavar="DIR", help="also save the frames read into DIR (a new or empty folder)"
    )
    p.add_argument(
        "--journal",
        type=Path,
        default=None,
        help="the game journal, so a restart resumes the game (default: journals/game.journal.json "
        "of the per-user data folder, SOLITAIRE_COACH_HOME or the platform's)",
    )
    p.add_argument("--new", action="store_true", help="start a new game even if the journal holds one")
    add_strategy_arguments(p)
    add_json_argument(p, "one object per frame read")
    p.add_argument("--exit-when-done", action="store_true", help="stop when the game ends (won, or lost: no move left)")
    p.add_argument(
        "--max-frames", type=positive_int, default=None, help="stop after this many frames (tests, benchmarks)"
    )
    _rules_args(p)
    p.set_defaults(func=cmd_play)


def cmd_play(args) -> int:
    """``play``: the live coach on a camera, serial-triggered rig or recorded frames."""
    from ..capture.calibration import CalibrationError
    from ..capture.gate import ReadGate
    from ..capture.serial_trigger import SerialTrigger
    from ..capture.sources import FrameRecorder, SourceError, open_source
    from ..vision.detector import ModelError
    from .live import LiveCoach, json_line
    from .live_setup import make_detector
    from .loop import KeyReader, kept_words, run_loop

    text_out = sys.stderr if args.json else sys.stdout

    def say(line: str) -> None:
        print(line, file=text_out, flush=True)

    if args.journal is None:
        from ..userdata import default_journal

        args.journal = default_journal()
    problem = output_problem(args.journal, "--journal") or (
        _recording_folder_problem(args.record, "--record") if args.record else None
    )
    if problem:
        return _err(problem)
    try:
        calibration = _load_calibration(args.calibration)
        detector = make_detector(args.model, calibration)
    except (CalibrationError, ModelError) as exc:
        return _err(str(exc))
    trigger = None
    if args.serial and args.frames is not None and not args.auto:
        return _err(
            "--serial with --frames: recorded frames do not wait for the rig, so all of them would pass "
            "before its first SNAP; add --auto to read them as usual and still answer the rig, or use "
            "--camera"
        )
    if args.serial:
        try:
            trigger = SerialTrigger(args.serial, args.baud, warn=lambda m: say("warning: " + m))
        except Exception as exc:
            return _err(str(exc))
    try:
        if args.frames is not None:
            source = open_source(frames=args.frames, warn=lambda m: say("warning: " + m))
        else:
            source = open_source(
                camera=args.camera if args.camera is not None else "0",
                width=args.width,
                height=args.height,
                warn=lambda m: say("warning: " + m),
            )
    except SourceError as exc:
        return _err(str(exc))
    session = _session(args, args.journal, say, resume=not args.new)
    if args.frames is not None and session.tracker.history:
        say(
            f"note: recorded frames play from their start, so tables older than the journal's position "
            f"({len(session.tracker.history)} moves) come first and may be explained by extra turns of the "
            f"stock; a camera shows the table as it is now (--new plays the recording as a new game)"
        )
    coach = LiveCoach(session, detector, ReadGate(), say=say, trigger=trigger)
    recorder = FrameRecorder(args.record) if args.record else None
    window = not args.no_window and _window_or_note(say, "running without a window (use --no-window to silence this)")
    say(
        f"watching {source.name}: the table is read when it is still"
        + (" and the rig sends SNAP" if trigger is not None and not args.auto else "")
        + "; press Enter to read now, q then Enter to quit"
        + ("; q in the window" if window else "")
    )
    on_result = (lambda r: print(json_line(r), flush=True)) if args.json else None
    try:
        return run_loop(
            coach,
            source,
            window=window,
            keys=KeyReader(sys.stdin),
            on_result=on_result,
            recorder=recorder,
            trigger=trigger,
            trigger_only=bool(trigger) and not args.auto,
            exit_when_done=args.exit_when_done,
            max_frames=args.max_frames,
            calibration=calibration,
        )
    except KeyboardInterrupt:
        say("interrupted" + kept_words(coach))
        return 130
    finally:
        source.close()
        if recorder is not None:
            recorder.close()
        if trigger is not None:
            trigger.close()
