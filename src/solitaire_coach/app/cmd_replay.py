"""``replay``: run the whole coach on recorded frames (a folder from ``record``, or a video)
and print what ``play`` would; ``demo`` replays a built-in game the same way."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .argtypes import positive_float
from .live_setup import NO_DISPLAY, _err, _load_calibration, _rules_args, _session, display_problem
from .options import add_calibration_argument, add_json_argument, add_model_argument, add_strategy_arguments
from .paths import output_problem


def register(sub) -> None:
    """Add the ``replay`` command to ``sub``."""
    y = sub.add_parser(
        "replay",
        help="run the whole pipeline on recorded frames and print what play would",
        description="Run the whole coach (detect, track, advise) on recorded frames or a video "
        "and print what play would.",
    )
    y.add_argument("dir", type=Path, help="folder of frames (with frames.jsonl from record) or a video file")
    _replay_args(y)
    y.add_argument(
        "--fps", type=positive_float, default=5.0, help="frame rate of a folder without frames.jsonl (default 5)"
    )
    kind = y.add_mutually_exclusive_group()
    kind.add_argument(
        "--photos",
        dest="photos",
        action="store_true",
        default=None,
        help="the folder's pictures are photos of the table taken every few moves: each is read "
        "once and taken on its own read (default for a folder without frames.jsonl whose "
        "pictures differ one from the next)",
    )
    kind.add_argument(
        "--video-frames",
        dest="photos",
        action="store_false",
        help="the folder's pictures are a video's frames: read a still table, twice alike, as play does",
    )
    y.set_defaults(func=cmd_replay)


def _replay_args(y) -> None:
    add_json_argument(y, "one object per frame, then the summary")
    add_calibration_argument(y, "the recording's own calibration.json if it has one, else none")
    add_model_argument(y)
    add_strategy_arguments(y)
    y.add_argument("--window", action="store_true", help="show the frames with the advice drawn, as play does")
    y.add_argument(
        "--save-overlay", type=Path, metavar="DIR", help="write every frame read (used or not), annotated, into DIR"
    )
    y.add_argument(
        "--expect",
        type=Path,
        help="a move log to check the inferred moves against (default: moves.log in the folder, if there)",
    )
    _rules_args(y)


def cmd_replay(args) -> int:
    """``replay``: run recorded frames (a folder from ``record``, or a video) through the whole coach."""
    return run_replay(args, args.dir)


def run_replay(args, folder: Path) -> int:
    """Replay the recorded frames or video ``folder`` through the coach (detect, track, advise),
    optionally checking the moves against an expected move log; the exit status."""
    import cv2

    from ..capture.calibration import CalibrationError
    from ..capture.gate import ReadGate
    from ..capture.sources import FolderSource, SourceError, looks_like_photos, open_source
    from ..core.notation import LogParseError, parse_log
    from ..core.state import GameState, first_difference, without_moves_made_back
    from ..storage import NotTextError, describe_os_error, read_text_file, write_atomic
    from ..vision.detector import ModelError
    from .coach import LOST_AFTER
    from .live import LiveCoach, json_line
    from .live_setup import make_detector
    from .loop import OverlayNote, overlay_picture

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
        where = (
            f"--expect {str(expect_path)!r}"
            if args.expect is not None
            else f"{str(expect_path)!r} (the move log of the recording)"
        )
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
    photos = getattr(args, "photos", None)
    if photos is None:
        photos = isinstance(source, FolderSource) and looks_like_photos(source)
    if photos:
        say(
            "reading each picture as a photo of the table (taken every few moves); --video-frames to read them as a video"
        )
        # photos far apart may leave moves no picture explains: lost, the coach joins the
        # table as it is and coaches on (said), rather than refusing every later photo
        session.rejoin_after = LOST_AFTER
    coach = LiveCoach(session, detector, ReadGate.for_photos() if photos else ReadGate(), say=say)
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
            picture = overlay_picture(coach, frame.image, result, notes, calibration)
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
    summary = {
        "frames": frames,
        "reads": reads,
        "moves": len(history),
        "seconds": round(elapsed, 2),
        "detect_ms_median": round(sorted(detect_ms)[len(detect_ms) // 2], 1) if detect_ms else None,
        "moves_from_hand_frames": hand_moves,
        "advice": session.last_advice.text if session.last_advice else None,
        "joined": getattr(session.tracker, "joined_at", None) is not None,
    }  # a game joined mid-way
    ok = True
    if expected is not None:
        # the same game as the log: move for move, or with moves seen in one picture (whose
        # order no picture shows) in another order that ends in the same position
        summary["expected_moves"] = len(expected)
        start = GameState.from_deal(expected_log.deal, session.tracker.rules)
        first = first_difference(start, inferred, expected_log.moves)
        summary["matches_expected"] = first is None
        # (a move made and at once made back is taken as the move taken back: not in the history)
        summary["in_logged_order"] = history in (
            expected,
            [m.text for m in without_moves_made_back(start, expected_log.moves)],
        )
        if first is not None:
            ok = False
            summary["first_difference"] = {
                "index": first,
                "inferred": history[first : first + 3],
                "expected": expected[first : first + 3],
            }
    if hand_moves or frames == 0:
        ok = False  # moves from a hand, or no picture at all to replay: not a good replay
    say(
        f"replay: {frames} frames, {reads} read, {len(history)} moves inferred"
        + (_expected_words(summary, expect_path.name, start, inferred) if expected is not None else "")
        + f", {len(hand_moves)} from frames with a hand; {elapsed:.1f} s"
        + ("; no picture could be read" if frames == 0 else "")
    )
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
    return (
        f" (NOT as in {log_name}, {expected} expected: from move {diff['index'] + 1} "
        f"inferred {got}, expected {want}{deal})"
    )


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
