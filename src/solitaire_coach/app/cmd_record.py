"""``record``: save camera frames into a folder, as they are read, for ``replay``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .argtypes import non_negative_int, positive_float, positive_int
from .live_setup import _err, _recording_folder_problem, _window_or_note


def jpeg_quality(text: str) -> int:
    """A JPEG quality, 0 to 100."""
    value = non_negative_int(text)
    if value > 100:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: JPEG quality goes from 0 to 100")
    return value


def register(sub) -> None:
    """Add the ``record`` command to ``sub``."""
    r = sub.add_parser(
        "record",
        help="save camera frames into a folder, as they are read, for replay",
        description="Save camera frames into a new or empty folder as they are read, with frames.jsonl, for replay.",
    )
    r.add_argument(
        "dir",
        type=Path,
        help="a new or empty folder: a folder that holds anything (say an earlier "
        "recording) is refused, so that one folder is one recording",
    )
    r.add_argument(
        "--camera",
        default="0",
        help="camera index or device path (default 0), or a video file "
        "played as a camera: recording stops when it ends",
    )
    r.add_argument("--width", type=positive_int, default=1280, help="camera picture width asked for (default 1280)")
    r.add_argument("--height", type=positive_int, default=720, help="camera picture height asked for (default 720)")
    r.add_argument("--fps", type=positive_float, default=5.0, help="frames saved per second (default 5)")
    r.add_argument("--quality", type=jpeg_quality, default=85, help="JPEG quality, 0 to 100 (default 85)")
    r.add_argument("--seconds", type=positive_float, default=None, help="stop after this long (default: q or Ctrl-C)")
    r.add_argument("--no-window", action="store_true", help="do not show the frames being recorded")
    r.add_argument("--no-dedupe", action="store_true", help="write every frame even when the picture did not change")
    r.set_defaults(func=cmd_record)


def cmd_record(args) -> int:
    """``record``: save frames from a camera into a folder that ``replay`` plays back."""
    import cv2

    from ..capture.sources import CameraSource, FrameRecorder, SourceError
    from .loop import KeyReader

    def say(line: str) -> None:
        print(line, flush=True)

    problem = _recording_folder_problem(args.dir, "record")
    if problem:
        return _err(problem)
    try:
        cam = CameraSource(
            args.camera,
            width=args.width,
            height=args.height,
            warn=lambda m: say("warning: " + m),
            purpose="the recording",
        )
    except SourceError as exc:
        return _err(str(exc))
    recorder = FrameRecorder(args.dir, quality=args.quality, dedupe=not args.no_dedupe)
    keys = KeyReader(sys.stdin)
    say(
        f"recording {cam.name} into {args.dir} at {args.fps:g} frames a second; q then Enter (or q in the window) stops"
    )
    start = time.monotonic()
    next_t = start
    window = not args.no_window and _window_or_note(say, "recording without a window (--no-window silences this)")
    try:
        while True:
            if keys.poll() == "quit":
                break
            if args.seconds is not None and time.monotonic() - start >= args.seconds:
                break
            frame = cam.read()
            if frame is None:
                if cam.ended:
                    say(f"{cam.name}: the video file ended")
                    break
                time.sleep(0.05)
                continue
            if frame.timestamp >= next_t:
                next_t = max(next_t + 1.0 / args.fps, frame.timestamp)
                recorder.add(frame, t=frame.timestamp - start)
            if window:
                cv2.imshow("solitaire-coach record", frame.image)
                if (cv2.waitKey(1) & 0xFF) in (ord("q"), 27):
                    break
    except KeyboardInterrupt:  # Ctrl-C is a way to stop recording (--seconds): what was recorded is kept
        say("interrupted: the recording stops here")
    finally:
        cam.close()
        recorder.close()
        if window:
            cv2.destroyAllWindows()
    say(
        f"recorded {recorder.listed} frames ({recorder.written} pictures written) into {args.dir}; "
        f"replay with: solitaire-coach replay {args.dir}"
    )
    return 0
