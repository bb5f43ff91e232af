"""Live subcommands: ``play``, ``record``, ``replay``, ``demo`` and ``calibrate``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .argtypes import non_negative_int, positive_float, positive_int, strategy_name
from .paths import input_file_problem, output_problem

DEMO_GAME = "game1"


def jpeg_quality(text: str) -> int:
    """A JPEG quality, 0 to 100."""
    value = non_negative_int(text)
    if value > 100:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: JPEG quality goes from 0 to 100")
    return value


def lens_views(text: str) -> int:
    """How many board views to capture: at least as many as a lens calibration needs."""
    from ..capture.calibration import MIN_LENS_VIEWS

    value = positive_int(text)
    if value < MIN_LENS_VIEWS:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: the lens calibration needs at least "
                                         f"{MIN_LENS_VIEWS} views")
    return value


def _strategy_help() -> str:
    from .cmd_core import strategy_help

    return strategy_help()


def board_size(text: str) -> tuple[int, int]:
    """``--board``: the inner corners of a chessboard, COLSxROWS (at least 3x3, not square)."""
    try:
        a, b = text.lower().split("x")
        cols, rows = int(a), int(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected COLSxROWS inner corners, like 9x6") from None
    if cols < 3 or rows < 3 or cols == rows:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: use at least 3x3 corners and different counts "
                                         "(like 9x6)")
    return cols, rows


def _rules_args(p) -> None:
    from .cmd_core import add_rules_arguments

    add_rules_arguments(p)


def register(sub) -> None:
    """Add the ``play``, ``record``, ``replay``, ``demo`` and ``calibrate`` commands to ``sub``."""
    p = sub.add_parser("play", help="the live coach: camera (or serial trigger, or frames) -> advice on the frame",
                       description="The live coach: reads the table from a camera (or recorded frames) when it is "
                       "still, follows the game and says the next move, in a window and the terminal.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", help="camera index or device path (default 0)")
    src.add_argument("--frames", type=Path, help="a folder of recorded frames (or a video file) instead of a camera")
    p.add_argument("--serial", metavar="PORT", help="a serial port (or pyserial URL) whose SNAP lines trigger a read; "
                   "the advice is sent back as one line")
    p.add_argument("--baud", type=positive_int, default=9600, help="with --serial: its speed (default 9600)")
    p.add_argument("--auto", action="store_true", help="with --serial: also read whenever the table is still "
                   "(default: only when triggered)")
    p.add_argument("--calibration", help="calibration NAME (calibration/NAME.json) or a .json path")
    p.add_argument("--model", type=Path, help="card detector model (default: the packaged one)")
    p.add_argument("--width", type=positive_int, default=1280, help="camera picture width asked for (default 1280)")
    p.add_argument("--height", type=positive_int, default=720, help="camera picture height asked for (default 720)")
    p.add_argument("--no-window", action="store_true", help="no window: the terminal only")
    p.add_argument("--record", type=Path, metavar="DIR", help="also save the frames read into DIR (a new or empty folder)")
    p.add_argument("--journal", type=Path, default=Path("solitaire-coach-game.journal.json"),
                   help="the game journal (default ./solitaire-coach-game.journal.json): a restart resumes the game")
    p.add_argument("--new", action="store_true", help="start a new game even if the journal holds one")
    p.add_argument("--strategy", type=strategy_name, default=None, help=_strategy_help())
    p.add_argument("--json", action="store_true", help="print one JSON line per frame read (text goes to stderr)")
    p.add_argument("--exit-when-done", action="store_true",
                   help="stop when the game ends (won, or lost: no move left)")
    p.add_argument("--max-frames", type=positive_int, default=None,
                   help="stop after this many frames (tests, benchmarks)")
    _rules_args(p)
    p.set_defaults(func=cmd_play)

    r = sub.add_parser("record", help="save camera frames into a folder, as they are read, for replay",
                       description="Save camera frames into a new or empty folder as they are read, with "
                       "frames.jsonl, for replay.")
    r.add_argument("dir", type=Path, help="a new or empty folder: a folder that holds anything (say an earlier "
                   "recording) is refused, so that one folder is one recording")
    r.add_argument("--camera", default="0", help="camera index or device path (default 0), or a video file "
                   "played as a camera: recording stops when it ends")
    r.add_argument("--width", type=positive_int, default=1280, help="camera picture width asked for (default 1280)")
    r.add_argument("--height", type=positive_int, default=720, help="camera picture height asked for (default 720)")
    r.add_argument("--fps", type=positive_float, default=5.0, help="frames saved per second (default 5)")
    r.add_argument("--quality", type=jpeg_quality, default=85, help="JPEG quality, 0 to 100 (default 85)")
    r.add_argument("--seconds", type=positive_float, default=None, help="stop after this long (default: q or Ctrl-C)")
    r.add_argument("--no-window", action="store_true", help="do not show the frames being recorded")
    r.add_argument("--no-dedupe", action="store_true", help="write every frame even when the picture did not change")
    r.set_defaults(func=cmd_record)

    y = sub.add_parser("replay", help="run the whole pipeline on recorded frames and print what play would",
                       description="Run the whole coach (detect, track, advise) on recorded frames or a video "
                       "and print what play would.")
    y.add_argument("dir", type=Path, help="folder of frames (with frames.jsonl from record) or a video file")
    _replay_args(y)
    y.add_argument("--fps", type=positive_float, default=5.0,
                   help="frame rate of a folder without frames.jsonl (default 5)")
    y.set_defaults(func=cmd_replay)

    d = sub.add_parser("demo", help="replay a built-in recorded game: see the coach work with no camera",
                       description="Replay a built-in recorded game through the whole coach: see it work with "
                       "no camera.")
    d.add_argument("--game", type=builtin_game, default=DEMO_GAME,
                   help=f"which built-in game: {', '.join(builtin_games()) or DEMO_GAME} (default {DEMO_GAME})")
    _replay_args(d)
    d.set_defaults(func=cmd_demo, fps=5.0)  # unused: every built-in game lists its frames in frames.jsonl

    c = sub.add_parser("calibrate", help="calibrate a camera (lens from a chessboard, table from a fresh deal)",
                       description="Calibrate a camera: the lens from views of a printed chessboard, the table "
                       "from a picture of a fresh deal.")
    c.add_argument("--name", help="calibration name: writes calibration/NAME.json")
    c.add_argument("--camera", help="camera index or device path: capture the views live (a video file "
                   "plays as a camera, once)")
    c.add_argument("--images", type=Path, help="folder of chessboard photos (offline)")
    c.add_argument("--table", type=Path, help="photo of a freshly dealt game (offline table calibration; "
                   "alone, without --images, the table is calibrated without a lens)")
    c.add_argument("--print-board", type=Path, metavar="PNG", help="write the chessboard to print, then stop")
    c.add_argument("--board", type=board_size, default="9x6",
                   help="inner corners of the board, COLSxROWS (default 9x6)")
    c.add_argument("--square-mm", type=positive_float, default=25.0, help="printed square size in mm (default 25)")
    c.add_argument("--views", type=lens_views, default=12, help="board views to capture live (default 12, at least 5)")
    c.add_argument("--width", type=positive_int, default=1280,
                   help="with --camera: picture width asked for (default 1280)")
    c.add_argument("--height", type=positive_int, default=720,
                   help="with --camera: picture height asked for (default 720)")
    c.add_argument("--no-window", action="store_true", help="with --camera: do not show the camera's picture")
    c.add_argument("--folder", type=Path, default=Path("calibration"),
                   help="where calibration files go (default ./calibration)")
    c.set_defaults(func=cmd_calibrate)


def _replay_args(y) -> None:
    y.add_argument("--json", action="store_true", help="one JSON line per frame on stdout (text goes to stderr)")
    y.add_argument("--calibration", help="calibration NAME or .json path")
    y.add_argument("--model", type=Path, help="card detector model (default: the packaged one)")
    y.add_argument("--strategy", type=strategy_name, default=None, help=_strategy_help())
    y.add_argument("--window", action="store_true", help="show the frames with the advice drawn, as play does")
    y.add_argument("--save-overlay", type=Path, metavar="DIR", help="write every frame read (used or not), annotated, into DIR")
    y.add_argument("--expect", type=Path, help="a move log to check the inferred moves against "
                   "(default: moves.log in the folder, if there)")
    _rules_args(y)


# ----------------------------------------------------------------------------- helpers
def _err(message: str) -> int:
    print(f"solitaire-coach: {message}", file=sys.stderr)
    return 2


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
        raise SystemExit(f"solitaire-coach: the card detector is not available ({exc})")
    return CardDetector(model_path=str(model) if model else None, calibration=calibration, option="--model")


def _session(args, journal_path: Path | None, say, resume: bool):
    from ..core.advisor import make_strategy
    from .cmd_core import default_strategy, rules_from_args
    from .coach import CoachSession
    from .journal import Journal

    strategy = make_strategy(args.strategy or default_strategy())
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
        done = subprocess.run([sys.executable, "-c", WINDOW_PROBE], env=env, capture_output=True, text=True,
                              timeout=timeout)
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


def builtin_games_dir() -> Path | None:
    """``fixtures/games`` of the repository this package was installed from (``pip install
    -e .``), or None when it is not there."""
    for root in Path(__file__).resolve().parents:
        candidate = root / "fixtures" / "games"
        if candidate.is_dir():
            return candidate
    return None


def builtin_games() -> list[str]:
    """The names of the built-in recorded games (the folders of ``fixtures/games``)."""
    base = builtin_games_dir()
    return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")) if base else []


def builtin_game(text: str) -> str:
    """``--game``: the name of a built-in game (checked when the built-in games are there)."""
    games = builtin_games()
    if games and text not in games:
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; the built-in games: {', '.join(games)}")
    return text


def builtin_game_dir(name: str = DEMO_GAME) -> Path:
    """The folder of built-in recorded game ``name``: ``fixtures/games/NAME``."""
    base = builtin_games_dir()
    if base is None:
        raise SystemExit("solitaire-coach: the built-in games were not found; they live in fixtures/games of the "
                         "repository (install with pip install -e . from a clone)")
    if name not in builtin_games():
        raise SystemExit(f"solitaire-coach: unknown game {name!r}; the built-in games: {', '.join(builtin_games())}")
    return base / name


# ----------------------------------------------------------------------------- play
def cmd_play(args) -> int:
    """``play``: the live coach on a camera, serial-triggered rig or recorded frames."""
    from ..capture.calibration import CalibrationError
    from ..capture.gate import ReadGate
    from ..capture.serial_trigger import SerialTrigger
    from ..capture.sources import FrameRecorder, SourceError, open_source
    from ..vision.detector import ModelError
    from .live import KeyReader, LiveCoach, json_line, kept_words, run_loop

    text_out = sys.stderr if args.json else sys.stdout

    def say(line: str) -> None:
        print(line, file=text_out, flush=True)

    problem = output_problem(args.journal, "--journal") or (
        _recording_folder_problem(args.record, "--record") if args.record else None)
    if problem:
        return _err(problem)
    try:
        calibration = _load_calibration(args.calibration)
        detector = make_detector(args.model, calibration)
    except (CalibrationError, ModelError) as exc:
        return _err(str(exc))
    trigger = None
    if args.serial and args.frames is not None and not args.auto:
        return _err("--serial with --frames: recorded frames do not wait for the rig, so all of them would pass "
                    "before its first SNAP; add --auto to read them as usual and still answer the rig, or use "
                    "--camera")
    if args.serial:
        try:
            trigger = SerialTrigger(args.serial, args.baud, warn=lambda m: say("warning: " + m))
        except Exception as exc:
            return _err(str(exc))
    try:
        if args.frames is not None:
            source = open_source(frames=args.frames, warn=lambda m: say("warning: " + m))
        else:
            source = open_source(camera=args.camera if args.camera is not None else "0", width=args.width,
                                 height=args.height, warn=lambda m: say("warning: " + m))
    except SourceError as exc:
        return _err(str(exc))
    session = _session(args, args.journal, say, resume=not args.new)
    if args.frames is not None and session.tracker.history:
        say(f"note: recorded frames play from their start, so tables older than the journal's position "
            f"({len(session.tracker.history)} moves) come first and may be explained by extra turns of the "
            f"stock; a camera shows the table as it is now (--new plays the recording as a new game)")
    coach = LiveCoach(session, detector, ReadGate(), say=say, trigger=trigger)
    recorder = FrameRecorder(args.record) if args.record else None
    window = not args.no_window and _window_or_note(say, "running without a window (use --no-window to silence this)")
    say(f"watching {source.name}: the table is read when it is still"
        + (" and the rig sends SNAP" if trigger is not None and not args.auto else "")
        + "; press Enter to read now, q then Enter to quit" + ("; q in the window" if window else ""))
    on_result = (lambda r: print(json_line(r), flush=True)) if args.json else None
    try:
        return run_loop(coach, source, window=window, keys=KeyReader(sys.stdin), on_result=on_result,
                        recorder=recorder, trigger=trigger, trigger_only=bool(trigger) and not args.auto,
                        exit_when_done=args.exit_when_done, max_frames=args.max_frames, calibration=calibration)
    except KeyboardInterrupt:
        say("interrupted" + kept_words(coach))
        return 130
    finally:
        source.close()
        if recorder is not None:
            recorder.close()
        if trigger is not None:
            trigger.close()


# ----------------------------------------------------------------------------- record
def _recording_folder_problem(folder: Path, option: str) -> str | None:
    """Why ``folder`` cannot take a new recording (None if it can): it must be a new or
    empty folder, so that one folder is one recording (frames added to an earlier one
    would replay as one game jumping into another)."""
    problem = output_problem(folder, option, folder=True)
    if problem:
        return problem
    if folder.is_dir() and any(folder.iterdir()):
        return (f"{option} {str(folder)!r} is not empty"
                + (" (it holds a recording)" if (folder / "frames.jsonl").exists() else "")
                + ": give a new or empty folder")
    return None


def cmd_record(args) -> int:
    """``record``: save frames from a camera into a folder that ``replay`` plays back."""
    import cv2

    from ..capture.sources import CameraSource, FrameRecorder, SourceError
    from .live import KeyReader

    def say(line: str) -> None:
        print(line, flush=True)

    problem = _recording_folder_problem(args.dir, "record")
    if problem:
        return _err(problem)
    try:
        cam = CameraSource(args.camera, width=args.width, height=args.height, warn=lambda m: say("warning: " + m),
                           purpose="the recording")
    except SourceError as exc:
        return _err(str(exc))
    recorder = FrameRecorder(args.dir, quality=args.quality, dedupe=not args.no_dedupe)
    keys = KeyReader(sys.stdin)
    say(f"recording {cam.name} into {args.dir} at {args.fps:g} frames a second; q then Enter (or q in the window) stops")
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
    except KeyboardInterrupt:   # Ctrl-C is a way to stop recording (--seconds): what was recorded is kept
        say("interrupted: the recording stops here")
    finally:
        cam.close()
        recorder.close()
        if window:
            cv2.destroyAllWindows()
    say(f"recorded {recorder.listed} frames ({recorder.written} pictures written) into {args.dir}; "
        f"replay with: solitaire-coach replay {args.dir}")
    return 0


# ----------------------------------------------------------------------------- replay
def cmd_replay(args) -> int:
    """``replay``: run recorded frames (a folder from ``record``, or a video) through the whole coach."""
    return run_replay(args, args.dir)


def cmd_demo(args) -> int:
    """``demo``: replay one of the built-in recorded games."""
    game = builtin_game_dir(args.game)
    print(f"demo: replaying the recorded game {game.name} ({game}) through the whole coach: "
          "detect, track, advise", file=sys.stderr if args.json else sys.stdout, flush=True)
    return run_replay(args, game)


def run_replay(args, folder: Path) -> int:
    """Replay the recorded frames or video ``folder`` through the coach (detect, track, advise),
    optionally checking the moves against an expected move log; the exit status."""
    import cv2

    from ..capture.calibration import CalibrationError
    from ..capture.gate import ReadGate
    from ..capture.sources import SourceError, open_source
    from ..core.notation import LogParseError, parse_log
    from ..core.state import GameState, first_difference
    from ..storage import NotTextError, describe_os_error, read_text_file, write_atomic
    from ..vision.detector import ModelError
    from .live import LiveCoach, OverlayNote, draw_overlay, json_line

    text_out = sys.stderr if args.json else sys.stdout

    def say(line: str) -> None:
        print(line, file=text_out, flush=True)

    if args.window:
        problem = display_problem()
        if problem == NO_DISPLAY:
            say("note: no display found; replaying without a window")
            args.window = False
        elif problem:
            return _err(f"cannot open a window: {problem}; run without --window")
    if args.save_overlay:
        problem = output_problem(args.save_overlay, "--save-overlay", folder=True)
        if problem:
            return _err(problem)
    expect_path = args.expect if args.expect is not None else (folder / "moves.log" if folder.is_dir() else None)
    expected = None
    if args.expect is not None and args.expect.is_dir():
        return _err(f"--expect {str(args.expect)!r} is a folder, not a move log")
    if args.expect is not None and not args.expect.exists():
        return _err(f"--expect {str(args.expect)!r}: the move log does not exist")
    if expect_path is not None and expect_path.is_file():
        where = f"--expect {str(expect_path)!r}" if args.expect is not None else \
            f"{str(expect_path)!r} (the move log of the recording)"
        try:
            expected_log = parse_log(read_text_file(expect_path))
        except NotTextError as exc:
            return _err(f"{where}: {exc}")
        except OSError as exc:
            return _err(f"{where}: cannot be read ({describe_os_error(exc)})")
        except LogParseError as exc:
            return _err(f"{where}: {exc}")
        expected = [m.text for m in expected_log.moves]
    try:
        calibration = _load_calibration(args.calibration)
        if calibration is None and (folder / "calibration.json").is_file():
            calibration = _load_calibration(folder / "calibration.json")
        source = open_source(frames=folder, fps=args.fps, warn=lambda m: say("warning: " + m))
    except (CalibrationError, SourceError) as exc:
        return _err(str(exc))
    try:
        detector = make_detector(args.model, calibration)
    except ModelError as exc:
        source.close()
        return _err(str(exc))
    session = _session(args, None, say, resume=False)
    coach = LiveCoach(session, detector, ReadGate(), say=say)
    if args.save_overlay:
        args.save_overlay.mkdir(parents=True, exist_ok=True)
    coach.start()
    frames = reads = 0
    hand_moves = []
    detect_ms = []
    t_start = time.perf_counter()
    truth = _frame_truth(folder, say)
    notes = OverlayNote()
    while True:
        frame = source.read()
        if frame is None:
            break
        frames += 1
        result = coach.step(frame)
        if result.snapshot is not None:
            reads += 1
            detect_ms.append(result.timings_ms.get("detect", 0.0))
        if result.report is not None and result.report.moves and truth.get(frame.name, {}).get("hand"):
            hand_moves.append(frame.name)
        if args.json:
            print(json_line(result), flush=True)
        if args.window or args.save_overlay:
            picture = draw_overlay(frame.image, coach.last_detection if result.snapshot is not None
                                   else coach.last_accepted_detection, coach.advice, coach.state,
                                   note=notes.update(result), take_back=notes.put_wrong,
                                   gate=result.gate, calibration=calibration)
            if args.save_overlay and result.snapshot is not None:  # every frame read, used or not
                ok, jpeg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
                if ok:
                    write_atomic(args.save_overlay / f"{frame.index:05d}_{Path(frame.name).stem}.jpg", jpeg.tobytes())
            if args.window:
                cv2.imshow("solitaire-coach replay", picture)
                if (cv2.waitKey(1) & 0xFF) in (ord("q"), 27):
                    break
    elapsed = time.perf_counter() - t_start
    inferred = list(session.tracker.history)
    history = [m.text for m in inferred]
    summary = {"frames": frames, "reads": reads, "moves": len(history), "seconds": round(elapsed, 2),
               "detect_ms_median": round(sorted(detect_ms)[len(detect_ms) // 2], 1) if detect_ms else None,
               "moves_from_hand_frames": hand_moves,
               "advice": session.last_advice.text if session.last_advice else None,
               "joined": getattr(session.tracker, "joined_at", None) is not None}  # a game joined mid-way
    ok = True
    if expected is not None:
        # the same game as the log: move for move, or with moves seen in one picture (whose
        # order no picture shows) in another order that ends in the same position
        summary["expected_moves"] = len(expected)
        start = GameState.from_deal(expected_log.deal, session.tracker.rules)
        first = first_difference(start, inferred, expected_log.moves)
        summary["matches_expected"] = first is None
        summary["in_logged_order"] = history == expected
        if first is not None:
            ok = False
            summary["first_difference"] = {"index": first, "inferred": history[first:first + 3],
                                           "expected": expected[first:first + 3]}
    if hand_moves or frames == 0:
        ok = False  # moves from a hand, or no picture at all to replay: not a good replay
    say(f"replay: {frames} frames, {reads} read, {len(history)} moves inferred"
        + (_expected_words(summary, expect_path.name, start, inferred) if expected is not None else "")
        + f", {len(hand_moves)} from frames with a hand; {elapsed:.1f} s"
        + ("; no picture could be read" if frames == 0 else ""))
    if args.json:
        print(json.dumps({"summary": summary}, ensure_ascii=False), flush=True)
    return 0 if ok else 1


def _expected_words(summary: dict, log_name: str, start, inferred) -> str:
    """How the inferred game compares with the expected log, for the replay summary:
    the same moves (perhaps some seen together in another order), or where they first
    differ, and whether the moves seen fit the log's deal at all."""
    expected = summary["expected_moves"]
    if summary["matches_expected"]:
        order = "" if summary["in_logged_order"] else ", some seen together in another order"
        return f" (all as in {log_name}{order}: {expected} expected)"
    from ..core.moves import IllegalMoveError

    diff = summary["first_difference"]
    got = " ".join(diff["inferred"]) or "no more moves"
    want = " ".join(diff["expected"]) or "no more moves"
    try:
        start.play_all(inferred)
        deal = ""
    except IllegalMoveError:
        deal = f"; the moves seen cannot be played from {log_name}'s deal: another game?"
    return (f" (NOT as in {log_name}, {expected} expected: from move {diff['index'] + 1} "
            f"inferred {got}, expected {want}{deal})")


def _frame_truth(folder: Path, say) -> dict:
    """Per-frame truth of a rendered game (``truth.jsonl``: file -> {hand: bool, ...}), if any;
    one that cannot be read is ignored, with a warning through ``say``."""
    from ..storage import NotTextError, describe_os_error, read_text_file

    path = folder / "truth.jsonl" if folder.is_dir() else None
    out: dict = {}
    if path is None or not path.is_file():
        return out
    try:
        text = read_text_file(path)
    except (NotTextError, OSError) as exc:
        say(f"warning: {path}: {describe_os_error(exc)}; ignored")
        return out
    for line in text.splitlines():
        try:
            e = json.loads(line)
            out[e["file"]] = e
        except (ValueError, KeyError, TypeError):
            continue
    return out


# ----------------------------------------------------------------------------- calibrate
def cmd_calibrate(args) -> int:
    """``calibrate``: the lens from chessboard views and the table from a fresh deal, live or
    from photos; or print the chessboard."""
    import cv2

    from ..capture.calibration import (Calibration, CalibrationError, calibrate_lens, calibrate_table,
                                       calibration_path, load_images, make_board_image, save_calibration)

    pattern = args.board
    if args.print_board:
        problem = write_image(args.print_board, make_board_image(pattern, square_px=200), "--print-board")
        if problem:
            return _err(problem)
        print(f"wrote {args.print_board}: a {pattern[0]}x{pattern[1]}-corner chessboard; print it flat, "
              f"measure one square (default {args.square_mm:g} mm) and pass --square-mm")
        return 0
    if not args.name:
        return _err("calibrate needs --name NAME (or --print-board PNG)")
    try:
        out_path = calibration_path(args.name, args.folder)
    except CalibrationError as exc:
        return _err(str(exc))
    problem = output_problem(args.folder, "--folder", folder=True) or output_problem(out_path, "--name")
    if problem:
        return _err(problem)
    if args.camera is not None and (args.images is not None or args.table is not None):
        return _err("--camera calibrates lens and table live: give --images DIR and --table PHOTO only offline")
    if args.camera is None and args.images is None and args.table is None:
        return _err("give --camera N (live), --images DIR (offline lens; with --table PHOTO the table too) "
                    "or --table PHOTO alone (the table without a lens)")
    problem = input_file_problem(args.table, "--table") if args.table is not None else None
    if problem:
        return _err(problem)
    lens = table = None
    try:
        if args.camera is not None:
            lens, table = _calibrate_live(args, pattern)
        else:
            if args.table is not None:  # read before the lens work, so a bad photo is said at once
                img = cv2.imread(str(args.table), cv2.IMREAD_COLOR)
                if img is None:
                    return _err(f"--table {str(args.table)!r} is not an image OpenCV can decode")
            if args.images is not None:
                lens = calibrate_lens(load_images(args.images), pattern, args.square_mm)
            if args.table is not None:
                table = calibrate_table(img, lens, detector=_try_detector())
    except CalibrationError as exc:
        return _err(str(exc))
    cal = Calibration(args.name, lens, table)
    save_calibration(cal, out_path)
    if lens is not None:
        print(f"lens: {len(lens.views)} views, focal {lens.focal_px[0]:.1f} x {lens.focal_px[1]:.1f} px, "
              f"reprojection error {lens.rms_px:.3f} px" + (f"; skipped {len(lens.skipped)}: "
                                                              + "; ".join(lens.skipped[:5]) if lens.skipped else ""))
    else:
        print("lens: not calibrated (table only: pictures are read as they come, not undistorted; "
              "give --images DIR of chessboard photos to calibrate the lens)")
    if table is not None:
        print(f"table: 12 slots found, card {table.card_size_px[0]:.0f} x {table.card_size_px[1]:.0f} px")
    else:
        print("table: not calibrated (give --table PHOTO of a fresh deal, or calibrate live)")
    print(f"wrote {out_path}")
    return 0


def _calibrate_live(args, pattern):
    """Capture board views from a camera (automatically, when the board is still and in a
    new pose), then one frame of a fresh deal."""
    import cv2
    import numpy as np

    from ..capture.calibration import CalibrationError, calibrate_lens, calibrate_table, find_board
    from ..capture.gate import MotionMeter
    from ..capture.sources import CameraSource, SourceError
    from .live import KeyReader

    try:
        cam = CameraSource(args.camera, width=args.width, height=args.height, warn=print, purpose="the calibration")
    except SourceError as exc:
        raise CalibrationError(str(exc)) from None
    keys = KeyReader(sys.stdin)
    meter = MotionMeter()
    views, poses = [], []
    window = not args.no_window and _window_or_note(print, "calibrating without a window (--no-window silences "
                                                                  "this)")
    print(f"show the printed {pattern[0]}x{pattern[1]} board to the camera in {args.views} different poses "
          "(tilted, near, far, corners of the picture); a view is taken when the board is held still")
    try:
        while len(views) < args.views:
            if keys.poll() == "quit":
                raise CalibrationError("stopped before enough board views were taken")
            frame = cam.read()
            if frame is None:
                if cam.ended:
                    raise CalibrationError(f"{cam.name}: the video file ended after {len(views)} of the "
                                           f"{args.views} board views (--views)")
                time.sleep(0.05)
                continue
            still = meter.measure(frame.image) < 1.5
            corners = find_board(frame.image, pattern) if still else None
            if corners is not None:
                c = corners.reshape(-1, 2)
                pose = np.array([*c.mean(axis=0), np.ptp(c[:, 0]), np.ptp(c[:, 1])])
                scale = max(frame.image.shape[:2])
                if all(np.abs(pose - p).max() > 0.08 * scale for p in poses):
                    views.append((f"view {len(views) + 1}", frame.image.copy()))
                    poses.append(pose)
                    print(f"view {len(views)} of {args.views} taken")
            if window:
                show = frame.image.copy()
                if corners is not None:
                    cv2.drawChessboardCorners(show, pattern, corners, True)
                cv2.putText(show, f"views {len(views)}/{args.views}", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2,
                            (0, 255, 255), 3)
                cv2.imshow("solitaire-coach calibrate", show)
                if (cv2.waitKey(1) & 0xFF) in (ord("q"), 27):
                    raise CalibrationError("stopped before enough board views were taken")
        lens = calibrate_lens(views, pattern, args.square_mm)
        detector = _try_detector()
        print(f"lens done: reprojection error {lens.rms_px:.3f} px. Now deal a fresh game (stock, one card on the "
              "waste, seven columns), take your hands away and hold still")
        table, last_error = None, ""
        while table is None:
            if keys.poll() == "quit":
                print(f"table not calibrated ({last_error or 'stopped'})")
                break
            frame = cam.read()
            if frame is None:
                if cam.ended:
                    print(f"table not calibrated (the video file ended{': ' + last_error if last_error else ''})")
                    break
                time.sleep(0.05)
                continue
            if meter.measure(frame.image) < 1.0:
                try:
                    table = calibrate_table(frame.image, lens, detector=detector)
                except CalibrationError as exc:
                    if str(exc) != last_error:
                        print(f"not yet: {exc}")
                        last_error = str(exc)
            if window:
                cv2.imshow("solitaire-coach calibrate", frame.image)
                if (cv2.waitKey(1) & 0xFF) in (ord("q"), 27):
                    print("table not calibrated (stopped)")
                    break
        return lens, table
    finally:
        cam.close()
        if window:
            cv2.destroyAllWindows()
