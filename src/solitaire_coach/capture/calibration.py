"""Camera calibration: the lens (from a printed chessboard) and the table (from a fresh deal).

Lens
    :func:`make_board_image` draws the board to print; :func:`find_board` finds its
    inner corners in a photo; :func:`calibrate_lens` turns several views into the camera
    matrix, the distortion coefficients and the RMS reprojection error (pixels).
    :func:`render_board_view` renders the board as seen by a known camera (with lens
    distortion); the tests use it to check that the known camera is recovered.

Table
    :func:`calibrate_table` finds the cards of a freshly dealt game in one frame (the
    stock, the turned waste card and seven columns) and from them the 12 slot positions,
    the card size in pixels and the table plane (a homography from the image to table
    millimetres, plus the plane's pose when the lens is known).

Both are kept in one readable JSON file, ``calibrations/NAME.json`` of the per-user data folder (see
:class:`Calibration`), written atomically; nothing is pickled.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ..repo import repo_root
from ..storage import NotTextError, describe_os_error, read_text_file, write_json_atomic
from ..userdata import user_calibrations_dir

DEFAULT_PATTERN = (9, 6)  # inner corners (columns, rows): a 10 x 7 squares board
DEFAULT_SQUARE_MM = 25.0
CARD_MM = (63.0, 88.0)  # a poker-size card
SLOT_KEYS = (
    ("stock", "waste") + tuple(f"foundation {i}" for i in range(1, 5)) + tuple(f"column {i}" for i in range(1, 8))
)
CALIBRATION_VERSION = 1
MIN_LENS_VIEWS = 5  # board views a lens calibration needs at least


class CalibrationError(ValueError):
    """Calibration input that cannot be used; the message says what and where."""


# ----------------------------------------------------------------------------- the board
def make_board_image(
    pattern: tuple[int, int] = DEFAULT_PATTERN, square_px: int = 120, margin_px: int | None = None
) -> np.ndarray:
    """A printable chessboard with ``pattern`` inner corners (white margin around it)."""
    cols, rows = pattern[0] + 1, pattern[1] + 1
    margin = square_px if margin_px is None else margin_px
    board = np.full((rows * square_px + 2 * margin, cols * square_px + 2 * margin), 255, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                y, x = margin + r * square_px, margin + c * square_px
                board[y : y + square_px, x : x + square_px] = 0
    return board


def board_object_points(pattern: tuple[int, int] = DEFAULT_PATTERN, square: float = DEFAULT_SQUARE_MM) -> np.ndarray:
    """3-D positions (z = 0) of the inner corners, row by row, in the units of ``square``."""
    cols, rows = pattern
    grid = np.zeros((rows * cols, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square
    return grid


def find_board(image: np.ndarray, pattern: tuple[int, int] = DEFAULT_PATTERN) -> np.ndarray | None:
    """The board's inner corners (N x 1 x 2 float32, sub-pixel) or None if not all are seen."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ok, corners = cv2.findChessboardCornersSB(grey, pattern, flags=cv2.CALIB_CB_ACCURACY | cv2.CALIB_CB_NORMALIZE_IMAGE)
    if ok:
        return corners.astype(np.float32).reshape(-1, 1, 2)
    ok, corners = cv2.findChessboardCorners(
        grey, pattern, flags=cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    )
    if not ok:
        return None
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 1e-3)
    return cv2.cornerSubPix(grey, corners, (5, 5), (-1, -1), criteria).reshape(-1, 1, 2)


@dataclass
class LensCalibration:
    """A camera's lens from chessboard views: its camera matrix and distortion, and how well
    they fit each view."""

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]  # (width, height)
    rms_px: float  # RMS reprojection error over all corners
    view_errors_px: list[float]  # RMS per view
    views: list[str]  # names of the views used
    skipped: list[str] = field(default_factory=list)  # "name: why" for views not used
    pattern: tuple[int, int] = DEFAULT_PATTERN
    square_mm: float = DEFAULT_SQUARE_MM

    @property
    def focal_px(self) -> tuple[float, float]:
        """The focal lengths (fx, fy) in pixels."""
        return float(self.camera_matrix[0, 0]), float(self.camera_matrix[1, 1])

    def to_dict(self) -> dict:
        return {
            "camera_matrix": [[float(v) for v in row] for row in self.camera_matrix],
            "dist_coeffs": [float(v) for v in np.ravel(self.dist_coeffs)],
            "image_size": list(self.image_size),
            "reprojection_error_px": round(self.rms_px, 4),
            "view_errors_px": [round(e, 4) for e in self.view_errors_px],
            "views": list(self.views),
            "skipped": list(self.skipped),
            "board": {"inner_corners": list(self.pattern), "square_mm": self.square_mm},
        }

    @staticmethod
    def from_dict(d: dict, where: str = "lens") -> LensCalibration:
        """The lens ``to_dict`` wrote (the ``camera`` of a calibration file); CalibrationError
        naming ``where`` and the field that is wrong."""
        need = "camera_matrix (3x3 numbers), dist_coeffs (4, 5, 8, 12 or 14 numbers) and image_size ([width, height])"
        if not isinstance(d, dict):
            raise CalibrationError(f"{where}: must be an object with {need}, not {_show(d)}")
        missing = [key for key in ("camera_matrix", "dist_coeffs", "image_size") if key not in d]
        if missing:
            raise CalibrationError(f"{where}: {', '.join(missing)} missing (a lens has {need})")
        k, dist = _number_array(d["camera_matrix"]), _number_array(d["dist_coeffs"])
        if k is None or k.shape != (3, 3):
            raise CalibrationError(f"{where}: camera_matrix must be 3x3 numbers, not {_show(d['camera_matrix'])}")
        if (
            dist is None
            or not (dist.ndim == 1 or (dist.ndim == 2 and 1 in dist.shape))
            or dist.size not in (4, 5, 8, 12, 14)
        ):
            raise CalibrationError(
                f"{where}: dist_coeffs must be 4, 5, 8, 12 or 14 numbers, not {_show(d['dist_coeffs'])}"
            )
        if not _positive_pair(d["image_size"]) or any(v != int(v) for v in d["image_size"]):
            raise CalibrationError(
                f"{where}: image_size must be [width, height] in whole pixels, not {_show(d['image_size'])}"
            )
        size = tuple(int(v) for v in d["image_size"])
        board = d.get("board", {})
        return LensCalibration(
            k,
            dist,
            size,
            float(d.get("reprojection_error_px", float("nan"))),
            list(d.get("view_errors_px", [])),
            list(d.get("views", [])),
            list(d.get("skipped", [])),
            tuple(board.get("inner_corners", DEFAULT_PATTERN)),
            float(board.get("square_mm", DEFAULT_SQUARE_MM)),
        )


def calibrate_lens(
    images: Iterable[tuple[str, np.ndarray]],
    pattern: tuple[int, int] = DEFAULT_PATTERN,
    square_mm: float = DEFAULT_SQUARE_MM,
    min_views: int = MIN_LENS_VIEWS,
) -> LensCalibration:
    """Intrinsics and distortion from named views of the board.

    Views where the board is not fully found, or whose size differs from the first
    view, are skipped and listed (``skipped``). Raises CalibrationError naming the
    problem when fewer than ``min_views`` views remain."""
    obj = board_object_points(pattern, square_mm)
    object_points, image_points, names, skipped = [], [], [], []
    size = None
    for name, image in images:
        if image is None:
            skipped.append(f"{name}: not a readable image")
            continue
        h, w = image.shape[:2]
        if size is None:
            size = (w, h)
        elif (w, h) != size:
            skipped.append(f"{name}: {w}x{h}, not {size[0]}x{size[1]} like the first view")
            continue
        corners = find_board(image, pattern)
        if corners is None:
            skipped.append(f"{name}: the {pattern[0]}x{pattern[1]} board is not (fully) visible")
            continue
        object_points.append(obj)
        image_points.append(corners)
        names.append(name)
    if len(names) < min_views:
        detail = (
            ("; ".join(skipped[:6]) + (" ..." if len(skipped) > 6 else ""))
            if skipped
            else "every view given was used"
            if names
            else "no views given"
        )
        raise CalibrationError(f"only {len(names)} usable view(s) of the board, {min_views} needed ({detail})")
    flags = cv2.CALIB_FIX_K3 if len(names) < 10 else 0
    rms, k, dist, rvecs, tvecs = cv2.calibrateCamera(object_points, image_points, size, None, None, flags=flags)
    errors = []
    for o, ip, r, t in zip(object_points, image_points, rvecs, tvecs):
        proj, _ = cv2.projectPoints(o, r, t, k, dist)
        errors.append(float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - ip.reshape(-1, 2)) ** 2, axis=1)))))
    return LensCalibration(k, dist, size, float(rms), errors, names, skipped, tuple(pattern), float(square_mm))


def camera_rays(
    camera_matrix: np.ndarray, dist_coeffs: np.ndarray, size: tuple[int, int], supersample: int = 2
) -> np.ndarray:
    """Viewing rays (x, y, 1 in the camera frame) of every sub-pixel of a distorted camera;
    computed once per camera and reused by :func:`render_board_view`."""
    w, h = size
    s = supersample
    step = 4  # undistort a coarse grid of sub-pixels exactly, interpolate between (the field is smooth)
    ws, hs = w * s, h * s
    gx = np.arange(0, ws + step, step, dtype=np.float64)
    gy = np.arange(0, hs + step, step, dtype=np.float64)
    us, vs = np.meshgrid((gx + 0.5) / s - 0.5, (gy + 0.5) / s - 0.5)
    pix = np.stack([us.ravel(), vs.ravel()], axis=1).reshape(-1, 1, 2)
    norm = cv2.undistortPoints(
        pix,
        camera_matrix,
        dist_coeffs,
        R=None,
        P=None,
        criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10),
    )
    coarse = norm.reshape(len(gy), len(gx), 2).astype(np.float32)
    mx, my = np.meshgrid(np.arange(ws, dtype=np.float32) / step, np.arange(hs, dtype=np.float32) / step)
    fine = cv2.remap(coarse, mx, my, cv2.INTER_CUBIC)
    return np.concatenate([fine.astype(np.float64), np.ones((hs, ws, 1))], axis=2)


def render_board_view(
    board: np.ndarray,
    board_square_px: int,
    board_margin_px: int,
    square_mm: float,
    rays: np.ndarray,
    rvec: np.ndarray,
    tvec: np.ndarray,
    size: tuple[int, int],
    background: int = 128,
) -> np.ndarray:
    """Render ``board`` (from :func:`make_board_image`) as seen by the camera whose
    :func:`camera_rays` are given, in the given pose, exactly (ray-plane intersection per
    sub-pixel, then area-averaged), so a calibration can be checked against known truth.

    Board coordinates: the first inner corner is the origin, x along columns, in mm."""
    w, h = size
    hs, ws = rays.shape[:2]
    flat = rays.reshape(-1, 3)
    rot, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
    t = np.asarray(tvec, np.float64).reshape(3)
    n = rot[:, 2]  # plane z_board = 0: n . X = n . t
    lam = (n @ t) / (flat @ n)
    pts_board = (flat * lam[:, None] - t) @ rot  # rot^T (X - t)
    px_per_mm = board_square_px / square_mm
    origin = board_margin_px + board_square_px - 0.5  # the first inner corner, pixel-centre convention
    map_x = (pts_board[:, 0] * px_per_mm + origin).astype(np.float32).reshape(hs, ws)
    map_y = (pts_board[:, 1] * px_per_mm + origin).astype(np.float32).reshape(hs, ws)
    map_x[(lam <= 0).reshape(hs, ws)] = -1e6
    big = cv2.remap(board, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=background)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


# ----------------------------------------------------------------------------- the table
@dataclass
class TableCalibration:
    """Where a fresh deal's slots lie in the picture, the card size in pixels and the
    picture-to-table mapping."""

    slots: dict[str, tuple[float, float]]  # slot name -> centre of its first card, pixels
    card_size_px: tuple[float, float]  # (width, height) of an upright card
    image_size: tuple[int, int]
    homography: np.ndarray  # image pixels -> table millimetres (origin: stock card centre)
    plane_rvec: np.ndarray | None = None  # table plane pose in the camera frame (with a lens)
    plane_tvec: np.ndarray | None = None
    quads: dict[str, list[list[float]]] = field(default_factory=dict)  # the card outlines found

    def to_dict(self) -> dict:
        d = {
            "slots": {k: [round(float(v[0]), 1), round(float(v[1]), 1)] for k, v in self.slots.items()},
            "card_size_px": [round(float(self.card_size_px[0]), 1), round(float(self.card_size_px[1]), 1)],
            "image_size": list(self.image_size),
            "table": {
                "homography_image_to_mm": [[float(v) for v in row] for row in self.homography],
                "card_mm": list(CARD_MM),
            },
            "quads": self.quads,
        }
        if self.plane_rvec is not None:
            d["table"]["plane_rvec"] = [float(v) for v in np.ravel(self.plane_rvec)]
            d["table"]["plane_tvec_mm"] = [float(v) for v in np.ravel(self.plane_tvec)]
        return d


def _order_quad(pts: np.ndarray) -> np.ndarray:
    """Corners in order top-left, top-right, bottom-right, bottom-left."""
    pts = np.asarray(pts, np.float32).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # from -pi: top-left first for a roughly upright card
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def find_card_blobs(image: np.ndarray, min_area_frac: float = 0.002) -> list[np.ndarray]:
    """Outlines (contours) of everything that stands out from the table cloth.

    The cloth colour is taken as the median of the frame's border; pixels far from it
    (in Lab) are card material: white faces and printed backs alike."""
    h, w = image.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    b = max(4, min(h, w) // 40)
    border = np.concatenate(
        [lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3), lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)]
    )
    cloth = np.median(border, axis=0)
    spread = np.percentile(np.linalg.norm(border - cloth, axis=1), 90)
    dist = np.linalg.norm(lab - cloth, axis=2)
    mask = (dist > max(25.0, 3.0 * spread)).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [c for c in contours if cv2.contourArea(c) >= min_area_frac * h * w]


def calibrate_table(image: np.ndarray, lens: LensCalibration | None = None, detector=None) -> TableCalibration:
    """Slot positions, card size and table plane from one frame of a freshly dealt game.

    Expects the usual layout: the stock and the one turned waste card top left, the four
    (empty) foundation places top right above columns 4-7, and seven columns below.
    With a card ``detector`` (anything with ``detect(frame) -> result.cards``, each with
    ``quad`` and ``slot``) the cards it finds are used; without one, or when it does not
    find the 9 piles, the cards are found as regions that stand out from a plain cloth.
    Raises CalibrationError saying what was found when the picture does not show that."""
    if detector is not None:
        try:
            return _table_from_detections(image, detector.detect(image), lens)
        except CalibrationError as exc:
            first_error = exc
        try:
            return _table_from_blobs(image, lens)
        except CalibrationError:
            raise first_error from None
    return _table_from_blobs(image, lens)


def _table_from_detections(image: np.ndarray, result, lens: LensCalibration | None) -> TableCalibration:
    piles: dict[str, list[np.ndarray]] = {}
    for det in getattr(result, "cards", []):
        piles.setdefault(det.slot, []).append(np.asarray(det.quad, np.float32).reshape(4, 2))
    wanted = ["stock", "waste"] + [f"column {i}" for i in range(1, 8)]
    missing = [k for k in wanted if k not in piles]
    if missing:
        raise CalibrationError(
            "the card detector did not find "
            + ", ".join(missing)
            + " (calibrate on a freshly dealt game with one card turned onto the waste)"
        )
    extra = [k for k in piles if k.startswith("foundation")]
    if extra:
        raise CalibrationError(f"cards seen on {', '.join(sorted(extra))}: a fresh deal has empty foundations")
    waste = _order_quad(piles["waste"][-1])
    card_w, card_h, homography, rvec, tvec = _card_geometry(waste, lens)
    slots: dict[str, tuple[float, float]] = {}
    for key in wanted:
        quads = piles[key]
        first = min(quads, key=lambda q: float(q[:, 1].min()))  # the first card of a column lies highest
        # the detector gives the *visible* part of a covered card: go from its top-left
        # corner along its edges by half a whole card
        tl = first[0]
        u = first[1] - first[0]
        u = u / max(1e-6, float(np.linalg.norm(u)))
        v = np.array([-u[1], u[0]], np.float32)
        c = tl + u * card_w / 2 + v * card_h / 2
        slots[key] = (float(c[0]), float(c[1]))
    _add_foundations(slots)
    quads = {"waste": [[round(float(x), 1), round(float(y), 1)] for x, y in waste]}
    h, w = image.shape[:2]
    return TableCalibration({k: slots[k] for k in SLOT_KEYS}, (card_w, card_h), (w, h), homography, rvec, tvec, quads)


def _add_foundations(slots: dict[str, tuple[float, float]]) -> None:
    """Foundations sit above columns 4..7, on the stock row (following the row's tilt)."""
    sx, sy = slots["stock"]
    wx, wy = slots["waste"]
    tilt = (wy - sy) / max(1e-6, wx - sx)
    for f in range(4):
        cx = slots[f"column {4 + f}"][0]
        slots[f"foundation {f + 1}"] = (cx, sy + tilt * (cx - sx))


def _card_geometry(quad: np.ndarray, lens: LensCalibration | None):
    """Card size (px), image->table-mm homography and plane pose from one card's corners."""
    card_w = float((np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2)
    card_h = float((np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2)
    cw, ch = CARD_MM
    mm = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]], np.float32)
    homography = cv2.getPerspectiveTransform(quad.astype(np.float32), mm)
    rvec = tvec = None
    if lens is not None:
        obj = np.concatenate([mm, np.zeros((4, 1), np.float32)], axis=1)
        ok, rvec, tvec = cv2.solvePnP(
            obj, quad.astype(np.float64), lens.camera_matrix, lens.dist_coeffs, flags=cv2.SOLVEPNP_IPPE
        )
        if not ok:
            rvec = tvec = None
    return card_w, card_h, homography, rvec, tvec


def _table_from_blobs(image: np.ndarray, lens: LensCalibration | None) -> TableCalibration:
    h, w = image.shape[:2]
    blobs = find_card_blobs(image)
    if len(blobs) < 9:
        raise CalibrationError(
            f"found {len(blobs)} card region(s), expected 9 (stock, waste and 7 columns of a fresh deal); "
            "check that the whole layout is in view, the cards do not touch, and the cloth is plain"
        )
    rects = [(cv2.boundingRect(c), c) for c in blobs]
    # the upper row holds the two cards whose top edges are highest; columns are the rest
    rects.sort(key=lambda rc: rc[0][1])
    areas = sorted(cv2.contourArea(c) for _, c in rects)
    card_area = np.median(areas[: max(2, len(areas) // 3)])
    # keep card-sized or larger regions only (specks of glare are dropped)
    rects = [rc for rc in rects if cv2.contourArea(rc[1]) > 0.5 * card_area]
    if len(rects) < 9:
        raise CalibrationError(f"found {len(rects)} card-sized region(s), expected 9 (stock, waste and 7 columns)")
    top_y = rects[0][0][1]
    card_h_guess = np.sqrt(card_area * CARD_MM[1] / CARD_MM[0])
    upper = [rc for rc in rects if rc[0][1] < top_y + 0.5 * card_h_guess]
    lower = [rc for rc in rects if rc[0][1] >= top_y + 0.5 * card_h_guess]
    upper.sort(key=lambda rc: rc[0][0])
    lower.sort(key=lambda rc: rc[0][0])
    if len(upper) != 2 or len(lower) != 7:
        raise CalibrationError(
            f"expected 2 cards in the upper row (stock, waste) and 7 columns below, found {len(upper)} and {len(lower)}; "
            "calibrate on a freshly dealt game with one card turned onto the waste"
        )
    # the waste card gives a clean single-card outline: card size and table plane
    waste_contour = upper[1][1]
    quad = cv2.approxPolyDP(waste_contour, 0.02 * cv2.arcLength(waste_contour, True), True)
    if len(quad) != 4:
        box = cv2.boxPoints(cv2.minAreaRect(waste_contour))
        quad = box
    quad = _order_quad(quad)
    card_w, card_h, homography, rvec, tvec = _card_geometry(quad, lens)

    def centre_of_first_card(rect) -> tuple[float, float]:
        x, y, bw, bh = rect
        return (x + bw / 2.0, y + card_h / 2.0)

    slots: dict[str, tuple[float, float]] = {}
    slots["stock"] = centre_of_first_card(upper[0][0])
    slots["waste"] = centre_of_first_card(upper[1][0])
    for i, rc in enumerate(lower, start=1):
        slots[f"column {i}"] = centre_of_first_card(rc[0])
    _add_foundations(slots)
    slots = {k: slots[k] for k in SLOT_KEYS}
    quads = {"waste": [[round(float(x), 1), round(float(y), 1)] for x, y in quad]}
    return TableCalibration(slots, (card_w, card_h), (w, h), homography, rvec, tvec, quads)


# ----------------------------------------------------------------------------- the file
@dataclass
class Calibration:
    """One camera set-up: its name, lens (optional) and table (optional)."""

    name: str
    lens: LensCalibration | None = None
    table: TableCalibration | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d: dict = {
            "version": CALIBRATION_VERSION,
            "name": self.name,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        d.update(self.extra)
        if self.lens is not None:
            d["camera"] = self.lens.to_dict()
        if self.table is not None:
            d.update(self.table.to_dict())
        return d


def check_name(name: str, what: str = "calibration name") -> str:
    """``name`` if it is a plain name (letters, digits, - and _) that stays inside the folder
    of calibrations (or decks); else CalibrationError naming it (``what``: which name)."""
    if not str(name).replace("-", "").replace("_", "").isalnum():
        raise CalibrationError(f"{what} {str(name)!r}: use letters, digits, - and _ only")
    return str(name)


def calibration_path(name_or_path: str | os.PathLike, folder: str | os.PathLike | None = None) -> Path:
    """``NAME`` -> ``FOLDER/NAME.json`` (default folder: the person's calibrations,
    :func:`~solitaire_coach.userdata.user_calibrations_dir`); a path ending in .json is used
    as it is."""
    p = Path(name_or_path)
    if p.suffix.lower() == ".json":
        return p
    return Path(user_calibrations_dir() if folder is None else folder) / f"{check_name(str(name_or_path))}.json"


def save_calibration(cal: Calibration, path: str | os.PathLike) -> Path:
    """Write ``cal`` as JSON to ``path`` atomically; the path."""
    path = Path(path)
    write_json_atomic(path, cal.to_dict())
    return path


def _show(value, limit: int = 60) -> str:
    """``value`` as JSON text, cut short after ``limit`` characters, for messages."""
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _number_array(value) -> np.ndarray | None:
    """``value`` (JSON) as an array of finite numbers, or None when it is not one."""
    if isinstance(value, (str, bool, dict)) or value is None:
        return None
    try:
        a = np.array(value, np.float64)
    except (TypeError, ValueError):
        return None
    flat = np.array(value, dtype=object).ravel() if a.size else []
    if any(isinstance(v, (bool, str)) for v in flat) or not np.isfinite(a).all():
        return None
    return a


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _positive_pair(value) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(_finite(v) and v > 0 for v in value)


SHIPPED_CALIBRATIONS = repo_root() / "calibration"


def load_calibration(name_or_path: str | os.PathLike, folder: str | os.PathLike | None = None) -> dict:
    """Read a calibration file as a dict: ``NAME`` (``FOLDER/NAME.json``) or a .json path.

    Without ``folder``, a ``NAME`` is looked up among the person's calibrations (where
    ``calibrate --name`` writes by default: ``calibrations/`` of the per-user data folder,
    see :mod:`solitaire_coach.userdata`), then among the calibrations shipped with the
    package (``SHIPPED_CALIBRATIONS``), so ``--calibration example`` works from any folder
    and a person's own calibration of the same name comes first.

    The one loader of every command that takes ``--calibration``. Checked: the file exists
    and is a JSON object holding a table (``slots``) or a lens (``camera``), and slots, card
    size, picture size and lens, when present, are sane: a slot centre is a finite [x, y]
    within the picture the calibration was made on (``image_size``; half a card beyond its
    edge still shows that card), or at least not negative when no picture size is recorded.
    Anything else raises CalibrationError naming the file and what is wrong."""
    path = calibration_path(name_or_path, folder)
    shipped = calibration_path(name_or_path, SHIPPED_CALIBRATIONS)
    if not path.exists() and path != shipped and folder is None and shipped.is_file():
        path = shipped  # a name not among this folder's calibrations, but shipped with the package
    if not path.is_file():
        looked = repr(str(path))
        if path != shipped and folder is None:
            looked += f" nor {str(shipped)!r}"  # a name is looked for among the shipped ones too
        raise CalibrationError(
            f"calibration {str(name_or_path)!r}: no file {looked} "
            f"(make one with: solitaire-coach calibrate --camera 0 --name {Path(str(name_or_path)).stem})"
        )
    try:
        text = read_text_file(path)
    except NotTextError as exc:
        detail = str(exc).removeprefix("not a text file (UTF-8): ")
        raise CalibrationError(f"{path}: not a calibration file (binary, not JSON text: {detail})") from None
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot be read ({describe_os_error(exc)})") from None
    if not text.strip():
        raise CalibrationError(f"{path}: the file is empty, not a calibration")
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(d, dict):
        raise CalibrationError(f"{path}: expected a JSON object at the top")
    if "slots" not in d and "camera" not in d:
        raise CalibrationError(
            f"{path}: holds neither 'slots' (the table) nor 'camera' (the lens): "
            "not a calibration written by solitaire-coach calibrate"
        )
    size = d.get("card_size_px")
    if size is not None and not _positive_pair(size):
        raise CalibrationError(f"{path}: card_size_px must be [width, height] in pixels, not {json.dumps(size)}")
    picture = d.get("image_size")
    if picture is not None and not _positive_pair(picture):
        raise CalibrationError(f"{path}: image_size must be [width, height] in pixels, not {json.dumps(picture)}")
    slots = d.get("slots")
    if slots is not None:
        if not isinstance(slots, dict):
            raise CalibrationError(f"{path}: 'slots' must be an object of slot name -> [x, y]")
        half = (size[0] / 2, size[1] / 2) if size is not None else (0.0, 0.0)
        for key, value in slots.items():
            if key not in SLOT_KEYS:
                raise CalibrationError(f"{path}: slots: unknown slot {key!r} (known: {', '.join(SLOT_KEYS)})")
            if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(_finite(v) for v in value)):
                raise CalibrationError(f"{path}: slots: {key!r} must be [x, y] in pixels, not {json.dumps(value)}")
            x, y = value
            if picture is not None and not (
                -half[0] <= x <= picture[0] + half[0] and -half[1] <= y <= picture[1] + half[1]
            ):
                raise CalibrationError(
                    f"{path}: slots: {key!r} at {json.dumps(value)} lies outside the "
                    f"{picture[0]:g}x{picture[1]:g} picture the calibration was made on "
                    "(image_size)"
                )
            if picture is None and (x < 0 or y < 0):
                raise CalibrationError(
                    f"{path}: slots: {key!r} at {json.dumps(value)}: a slot centre is in pixels "
                    "from the picture's top-left corner, never negative"
                )
    if "camera" in d:
        LensCalibration.from_dict(d["camera"], where=f"{path}: camera")
    return d


def load_images(folder: str | os.PathLike) -> list[tuple[str, np.ndarray | None]]:
    """All images of a folder, sorted by name, as (name, image or None if unreadable)."""
    from .sources import IMAGE_SUFFIXES, _natural_key

    folder = Path(folder)
    if not folder.is_dir():
        raise CalibrationError(f"images folder {str(folder)!r} does not exist")
    paths = sorted((p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES), key=_natural_key)
    if not paths:
        raise CalibrationError(f"images folder {str(folder)!r} holds no images")
    from .sources import PictureError, read_picture

    def read(p: Path) -> np.ndarray | None:
        try:
            return read_picture(p)
        except PictureError:  # named as unreadable by the lens calibration
            return None

    return [(p.name, read(p)) for p in paths]


def random_board_poses(
    n: int,
    rng: np.random.Generator,
    pattern: tuple[int, int] = DEFAULT_PATTERN,
    square_mm: float = DEFAULT_SQUARE_MM,
    distance_mm: float = 450.0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n`` varied, plausible board poses (tilted up to ~35 degrees) in front of a camera."""
    cx = (pattern[0] - 1) * square_mm / 2
    cy = (pattern[1] - 1) * square_mm / 2
    poses = []
    for _ in range(n):
        angles = rng.uniform(-0.6, 0.6, size=3) * np.array([1.0, 1.0, 0.5])
        rot, _ = cv2.Rodrigues(angles.reshape(3, 1))
        centre = np.array([rng.uniform(-60, 60), rng.uniform(-40, 40), distance_mm * rng.uniform(0.85, 1.25)])
        t = centre - rot @ np.array([cx, cy, 0.0])
        poses.append((angles.reshape(3, 1), t.reshape(3, 1)))
    return poses
