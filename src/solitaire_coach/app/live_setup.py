"""What the live commands share: the camera and its calibration, the card detector, the
coach session, the window, and errors said in one line.

``play``, ``record``, ``replay``, ``demo`` and ``calibrate`` (one module each,
``cmd_play`` ... ``cmd_calibrate``) set up what they need here, so a camera, a
calibration or a model is opened, and its problems said, the same way in every command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .errors import CommandError
from .paths import output_problem


def _rules_args(p) -> None:
    from .cmd_core import add_rules_arguments

    add_rules_arguments(p)


def _err(message: str) -> int:
    """End the command on bad input: raises CommandError (cli.main says it, exit 2)."""
    raise CommandError(message)


def write_image(path, image, option: str) -> str | None:
    """Encode ``image`` by ``path``'s suffix (PNG without one) and write it atomically,
    making missing folders; returns why it could not be written, or None."""
    import cv2

    from ..storage import describe_os_error, write_atomic

    problem = output_problem(path, option, image=True)
    if problem:
        return problem
    ok, buf = cv2.imencode(Path(path).suffix or ".png", image)
    if not ok:
        return f"{option} {str(path)!r}: the picture could not be encoded"
    try:
        write_atomic(path, buf.tobytes())
    except OSError as exc:
        return f"{option} {str(path)!r}: cannot be written ({describe_os_error(exc)})"
    return None


def _load_calibration(name):
    if not name:
        return None
    from ..capture.calibration import load_calibration

    return load_calibration(name)


def _try_detector():
    """The card detector for table calibration, or None (then cards are found by colour)."""
    try:
        from ..vision.detector import CardDetector

        return CardDetector()
    except Exception:
        return None


def make_detector(model: Path | None, calibration: dict | None):
    """The vision card detector (imported here so the other commands work without it);
    a model folder that cannot be used raises ModelError (from vision.detector)."""
    try:
        from ..vision.detector import CardDetector
    except ImportError as exc:
        raise CommandError(f"the card detector is not available ({exc})") from None
    return CardDetector(model_path=str(model) if model else None, calibration=calibration, option="--model")


def _session(args, journal_path: Path | None, say, resume: bool):
    from .cmd_core import rules_from_args
    from .coach import CoachSession
    from .journal import Journal
    from .options import strategy_from_args

    strategy = strategy_from_args(args)
    journal = Journal(journal_path) if journal_path is not None else None
    return CoachSession(rules_from_args(args), strategy, journal, say=say, resume=resume)


NO_DISPLAY = "no display found"
WINDOW_PROBE = "import cv2; cv2.namedWindow('solitaire-coach'); cv2.waitKey(1); cv2.destroyAllWindows()"


def display_problem(environ=None, timeout: float = 20.0) -> str | None:
    """Why no window can be opened here, or None when one can. On Linux a window needs a
    display (``DISPLAY`` or ``WAYLAND_DISPLAY``): ``NO_DISPLAY`` when neither is set. One
    that is set is tried first by opening a window in a child process (``WINDOW_PROBE``),
    as OpenCV's Qt aborts the whole program, uncatchably, on a display that does not answer
    or refuses it (a stale ``ssh -X`` DISPLAY): the child's own words say why."""
    if not sys.platform.startswith("linux"):
        return None
    env = dict(os.environ if environ is None else environ)
    shown = " ".join(f"{k}={env[k]}" for k in ("DISPLAY", "WAYLAND_DISPLAY") if env.get(k))
    if not shown:
        return NO_DISPLAY
    try:
        done = subprocess.run(
            [sys.executable, "-c", WINDOW_PROBE], env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"{shown} does not answer within {timeout:g} s"
    if done.returncode == 0:
        return None
    lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
    why = next((ln for ln in lines if "display" in ln.lower()), lines[-1] if lines else f"exit {done.returncode}")
    return f"{shown} does not open a window ({why})"


def _window_or_note(say, doing: str) -> bool:
    """Whether a window can be shown; if not, says so in one line (``note: ...; DOING``)."""
    problem = display_problem()
    if problem:
        say(f"note: {problem}; {doing}")
    return problem is None


def _recording_folder_problem(folder: Path, option: str) -> str | None:
    """Why ``folder`` cannot take a new recording (None if it can): it must be a new or
    empty folder, so that one folder is one recording (frames added to an earlier one
    would replay as one game jumping into another)."""
    problem = output_problem(folder, option, folder=True)
    if problem:
        return problem
    if folder.is_dir() and any(folder.iterdir()):
        return (
            f"{option} {str(folder)!r} is not empty"
            + (" (it holds a recording)" if (folder / "frames.jsonl").exists() else "")
            + ": give a new or empty folder"
        )
    return None
