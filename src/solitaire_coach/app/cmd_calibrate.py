"""``calibrate``: a camera's lens from views of a printed chessboard and its table from a
fresh deal, live or from photos; or print the chessboard."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .argtypes import positive_float, positive_int
from .live_setup import _err, _window_or_note, write_image
from .paths import input_file_problem, output_problem


def lens_views(text: str) -> int:
    """How many board views to capture: at least as many as a lens calibration needs."""
    from ..capture.calibration import MIN_LENS_VIEWS

    value = positive_int(text)
    if value < MIN_LENS_VIEWS:
        raise argparse.ArgumentTypeError(
            f"{value} is not allowed: the lens calibration needs at least {MIN_LENS_VIEWS} views"
        )
    return value


def board_size(text: str) -> tuple[int, int]:
    """``--board``: the inner corners of a chessboard, COLSxROWS (at least 3x3, not square)."""
    try:
        a, b = text.lower().split("x")
        cols, rows = int(a), int(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected COLSxROWS inner corners, like 9x6") from None
    if cols < 3 or rows < 3 or cols == rows:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed: use at least 3x3 corners and different counts (like 9x6)"
        )
    return cols, rows


def register(sub) -> None:
    """Add the ``calibrate`` command to ``sub``."""
    c = sub.add_parser(
        "calibrate",
        help="calibrate a camera (lens from a chessboard, table from a fresh deal)",
        description="Calibrate a camera: the lens from views of a printed chessboard, the table "
        "from a picture of a fresh deal.",
    )
    c.add_argument("--name", help="calibration name: writes NAME.json into --folder")
    c.add_argument(
        "--camera", help="camera index or device path: capture the views live (a video file plays as a camera, once)"
    )
    c.add_argument("--images", type=Path, help="folder of chessboard photos (offline)")
    c.add_argument(
        "--table",
        type=Path,
        help="photo of a freshly dealt game (offline table calibration; "
        "alone, without --images, the table is calibrated without a lens)",
    )
    c.add_argument("--print-board", type=Path, metavar="PNG", help="write the chessboard to print, then stop")
    c.add_argument(
        "--board", type=board_size, default="9x6", help="inner corners of the board, COLSxROWS (default 9x6)"
    )
    c.add_argument("--square-mm", type=positive_float, default=25.0, help="printed square size in mm (default 25)")
    c.add_argument("--views", type=lens_views, default=12, help="board views to capture live (default 12, at least 5)")
    c.add_argument(
        "--width", type=positive_int, default=1280, help="with --camera: picture width asked for (default 1280)"
    )
    c.add_argument(
        "--height", type=positive_int, default=720, help="with --camera: picture height asked for (default 720)"
    )
    c.add_argument("--no-window", action="store_true", help="with --camera: do not show the camera's picture")
    c.add_argument(
        "--folder",
        type=Path,
        default=None,
        help="where calibration files go (default: calibrations/ of the per-user data folder, "
        "SOLITAIRE_COACH_HOME or the platform's, where --calibration NAME looks)",
    )
    c.set_defaults(func=cmd_calibrate)


def cmd_calibrate(args) -> int:
    """``calibrate``: the lens from chessboard views and the table from a fresh deal, live or
    from photos; or print the chessboard."""
    from ..capture.calibration import (
        Calibration,
        CalibrationError,
        calibrate_lens,
        calibrate_table,
        calibration_path,
        load_images,
        make_board_image,
        save_calibration,
    )
    from .live_setup import _try_detector

    pattern = args.board
    if args.print_board:
        problem = write_image(args.print_board, make_board_image(pattern, square_px=200), "--print-board")
        if problem:
            return _err(problem)
        print(
            f"wrote {args.print_board}: a {pattern[0]}x{pattern[1]}-corner chessboard; print it flat, "
            f"measure one square (default {args.square_mm:g} mm) and pass --square-mm"
        )
        return 0
    if not args.name:
        return _err("calibrate needs --name NAME (or --print-board PNG)")
    if args.folder is None:
        from ..userdata import user_calibrations_dir

        args.folder = user_calibrations_dir()
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
        return _err(
            "give --camera N (live), --images DIR (offline lens; with --table PHOTO the table too) "
            "or --table PHOTO alone (the table without a lens)"
        )
    problem = input_file_problem(args.table, "--table") if args.table is not None else None
    if problem:
        return _err(problem)
    lens = table = None
    try:
        if args.camera is not None:
            lens, table = _calibrate_live(args, pattern)
        else:
            if args.table is not None:  # read before the lens work, so a bad photo is said at once
                from ..capture.sources import PictureError, read_picture

                try:
                    img = read_picture(args.table)
                except PictureError as exc:
                    return _err(f"--table {exc}")
            if args.images is not None:
                lens = calibrate_lens(load_images(args.images), pattern, args.square_mm)
            if args.table is not None:
                table = calibrate_table(img, lens, detector=_try_detector())
    except CalibrationError as exc:
        return _err(str(exc))
    cal = Calibration(args.name, lens, table)
    save_calibration(cal, out_path)
    if lens is not None:
        print(
            f"lens: {len(lens.views)} views, focal {lens.focal_px[0]:.1f} x {lens.focal_px[1]:.1f} px, "
            f"reprojection error {lens.rms_px:.3f} px"
            + (f"; skipped {len(lens.skipped)}: " + "; ".join(lens.skipped[:5]) if lens.skipped else "")
        )
    else:
        print(
            "lens: not calibrated (table only: pictures are read as they come, not undistorted; "
            "give --images DIR of chessboard photos to calibrate the lens)"
        )
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
    from .live_setup import _try_detector
    from .loop import KeyReader

    try:
        cam = CameraSource(args.camera, width=args.width, height=args.height, warn=print, purpose="the calibration")
    except SourceError as exc:
        raise CalibrationError(str(exc)) from None
    keys = KeyReader(sys.stdin)
    meter = MotionMeter()
    views, poses = [], []
    window = not args.no_window and _window_or_note(print, "calibrating without a window (--no-window silences this)")
    print(
        f"show the printed {pattern[0]}x{pattern[1]} board to the camera in {args.views} different poses "
        "(tilted, near, far, corners of the picture); a view is taken when the board is held still"
    )
    try:
        while len(views) < args.views:
            if keys.poll() == "quit":
                raise CalibrationError("stopped before enough board views were taken")
            frame = cam.read()
            if frame is None:
                if cam.ended:
                    raise CalibrationError(
                        f"{cam.name}: the video file ended after {len(views)} of the {args.views} board views (--views)"
                    )
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
                cv2.putText(
                    show, f"views {len(views)}/{args.views}", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 255, 255), 3
                )
                cv2.imshow("solitaire-coach calibrate", show)
                if (cv2.waitKey(1) & 0xFF) in (ord("q"), 27):
                    raise CalibrationError("stopped before enough board views were taken")
        lens = calibrate_lens(views, pattern, args.square_mm)
        detector = _try_detector()
        print(
            f"lens done: reprojection error {lens.rms_px:.3f} px. Now deal a fresh game (stock, one card on the "
            "waste, seven columns), take your hands away and hold still"
        )
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
