"""Lens calibration against a rendered chessboard from a known camera; table calibration;
the calibration file."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from solitaire_coach.capture.calibration import (
    SLOT_KEYS,
    Calibration,
    CalibrationError,
    calibrate_lens,
    calibrate_table,
    calibration_path,
    camera_rays,
    find_board,
    load_calibration,
    make_board_image,
    random_board_poses,
    render_board_view,
    save_calibration,
)

SQUARE_PX = 60
SIZE = (960, 540)
K_TRUE = np.array([[700.0, 0, 478.0], [0, 700.0, 272.0], [0, 0, 1]])
DIST_TRUE = np.array([-0.12, 0.05, 0.0, 0.0, 0.0])


@pytest.fixture(scope="module")
def board_views():
    board = make_board_image(square_px=SQUARE_PX)
    rays = camera_rays(K_TRUE, DIST_TRUE, SIZE, supersample=2)
    poses = random_board_poses(10, np.random.default_rng(1), distance_mm=420)
    return [
        (f"view{i}.png", render_board_view(board, SQUARE_PX, SQUARE_PX, 25.0, rays, r, t, SIZE))
        for i, (r, t) in enumerate(poses)
    ]


def test_recovers_known_camera(board_views):
    cal = calibrate_lens(board_views)
    fx, fy = cal.focal_px
    assert abs(fx - 700.0) / 700.0 < 0.01 and abs(fy - 700.0) / 700.0 < 0.01
    assert cal.rms_px < 0.5
    assert abs(cal.camera_matrix[0, 2] - 478.0) < 5 and abs(cal.camera_matrix[1, 2] - 272.0) < 5
    assert cal.dist_coeffs.ravel()[0] == pytest.approx(-0.12, abs=0.03)
    assert cal.image_size == SIZE and len(cal.views) == 10


def test_unusable_views_are_named(board_views):
    blank = np.full((SIZE[1], SIZE[0], 3), 90, np.uint8)
    small = cv2.resize(board_views[0][1], (640, 360))
    with pytest.raises(CalibrationError, match=r"only 2 usable view.*blank.png: the 9x6 board is not"):
        calibrate_lens(board_views[:2] + [("blank.png", blank), ("small.png", small)])
    cal = calibrate_lens(board_views[:6] + [("blank.png", blank), ("small.png", small), ("gone.png", None)])
    assert len(cal.skipped) == 3 and any("640x360" in s for s in cal.skipped)


def test_printable_board_is_found_flat():
    board = make_board_image(square_px=40)
    corners = find_board(cv2.cvtColor(board, cv2.COLOR_GRAY2BGR))
    assert corners is not None and len(corners) == 54


def _fresh_deal_picture(w=1280, h=720):
    """A plain drawing of a freshly dealt game: stock, waste, 7 columns of backs + one face."""
    img = np.full((h, w, 3), (35, 100, 30), np.uint8)
    cw, ch, gap = 90, 126, 40
    x0, y0, y1 = 150, 40, 220
    truth = {}

    def card(x, y, face):
        cv2.rectangle(img, (x, y), (x + cw, y + ch), (245, 245, 245) if face else (150, 60, 40), -1)
        cv2.rectangle(img, (x, y), (x + cw, y + ch), (20, 20, 20), 1)

    card(x0, y0, False)
    truth["stock"] = (x0 + cw / 2, y0 + ch / 2)
    card(x0 + cw + gap, y0, True)
    truth["waste"] = (x0 + cw + gap + cw / 2, y0 + ch / 2)
    for c in range(7):
        x = x0 + c * (cw + gap)
        for k in range(c + 1):
            card(x, y1 + 22 * k, k == c)
        truth[f"column {c + 1}"] = (x + cw / 2, y1 + ch / 2)
        if c >= 3:
            truth[f"foundation {c - 2}"] = (x + cw / 2, y0 + ch / 2)
    return img, truth, (cw, ch)


def test_table_calibration_finds_the_twelve_slots():
    img, truth, (cw, ch) = _fresh_deal_picture()
    table = calibrate_table(img)
    assert tuple(table.slots) == SLOT_KEYS
    for key, (x, y) in truth.items():
        sx, sy = table.slots[key]
        assert abs(sx - x) < 4 and abs(sy - y) < 4, key
    assert table.card_size_px[0] == pytest.approx(cw, abs=3) and table.card_size_px[1] == pytest.approx(ch, abs=3)
    # the homography maps the waste card to a 63 x 88 mm rectangle
    quad = np.array(table.quads["waste"], np.float32).reshape(-1, 1, 2)
    mm = cv2.perspectiveTransform(quad, table.homography).reshape(-1, 2)
    assert np.linalg.norm(mm[1] - mm[0]) == pytest.approx(63, abs=0.5)


def test_table_calibration_says_what_is_wrong():
    img = np.full((720, 1280, 3), (35, 100, 30), np.uint8)
    with pytest.raises(CalibrationError, match="found 0 card region"):
        calibrate_table(img)


def test_calibration_file_round_trip(tmp_path, board_views):
    lens = calibrate_lens(board_views[:6])
    img, _, _ = _fresh_deal_picture()
    cal = Calibration("desk", lens, calibrate_table(img, lens))
    path = save_calibration(cal, calibration_path("desk", tmp_path))
    assert path == tmp_path / "desk.json"
    d = load_calibration("desk", tmp_path)
    assert set(d["slots"]) == set(SLOT_KEYS) and len(d["card_size_px"]) == 2
    assert d["camera"]["reprojection_error_px"] < 0.5
    assert "plane_rvec" in d["table"]
    json.loads(path.read_text())  # readable JSON, nothing pickled


def test_bad_calibration_files(tmp_path):
    with pytest.raises(CalibrationError, match="no file"):
        load_calibration("nothing", tmp_path)
    (tmp_path / "bad.json").write_text("{ nope")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_calibration("bad", tmp_path)
    (tmp_path / "odd.json").write_text(json.dumps({"slots": {"column 9": [1, 2]}}))
    with pytest.raises(CalibrationError, match="unknown slot 'column 9'"):
        load_calibration("odd", tmp_path)
    with pytest.raises(CalibrationError, match="letters, digits"):
        calibration_path("../etc/x")


def test_a_shipped_calibration_name_is_found_from_any_folder_and_the_persons_own_comes_first(tmp_path, monkeypatch):
    """A NAME is looked for in the per-user calibrations folder, then among the shipped ones;
    the current folder plays no part."""
    home = tmp_path / "home"
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    shipped = load_calibration("example")
    assert set(shipped["slots"]) == set(SLOT_KEYS)
    mine = dict(shipped, slots={**shipped["slots"], "waste": [5.0, 6.0]})
    (tmp_path / "calibration").mkdir()  # the current folder's calibration/ is not looked in
    (tmp_path / "calibration" / "example.json").write_text(json.dumps(mine))
    assert load_calibration("example")["slots"]["waste"] == shipped["slots"]["waste"]
    assert calibration_path("example") == home / "calibrations" / "example.json"
    (home / "calibrations").mkdir(parents=True)
    (home / "calibrations" / "example.json").write_text(json.dumps(mine))
    assert load_calibration("example")["slots"]["waste"] == [5.0, 6.0]
    with pytest.raises(
        CalibrationError, match="no file '.*/home/calibrations/nothing.json' nor '.*/calibration/nothing.json'"
    ):
        load_calibration("nothing")  # both places a name is looked for are named


def test_table_calibration_on_rendered_deals_with_the_card_detector():
    try:
        from solitaire_coach.vision.detector import CardDetector
        from solitaire_coach.vision.render import TableLayout, render_layout

        detector = CardDetector()
    except Exception as exc:  # the model is not shipped with the sources
        pytest.skip(f"card detector not available: {exc}")
    from solitaire_coach.core.state import GameState, deal_for_seed

    done = 0
    for seed in range(3):
        layout = TableLayout.from_state(GameState.from_deal(deal_for_seed(200 + seed)))
        image, truth = render_layout(layout, seed, 1280, 720, difficulty=0.3)
        first = {}
        for tc in truth.cards:
            first.setdefault(tc.slot, np.asarray(tc.full_quad).mean(axis=0))
        table = calibrate_table(image, detector=detector)
        for slot, centre in first.items():
            assert np.linalg.norm(np.array(table.slots[slot]) - centre) < 0.25 * table.card_size_px[0], slot
        done += 1
    assert done == 3


def test_calibration_files_that_are_not_calibrations(tmp_path):
    (tmp_path / "bin.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(CalibrationError, match="binary"):
        load_calibration("bin", tmp_path)
    (tmp_path / "empty.json").write_text("\n")
    with pytest.raises(CalibrationError, match="empty"):
        load_calibration("empty", tmp_path)
    (tmp_path / "nothing.json").write_text("{}")
    with pytest.raises(CalibrationError, match="neither 'slots'"):
        load_calibration("nothing", tmp_path)
    (tmp_path / "lens.json").write_text(
        json.dumps(
            {
                "camera": {
                    "camera_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                    "dist_coeffs": [0] * 5,
                    "image_size": [640, 480],
                }
            }
        )
    )
    assert "camera" in load_calibration("lens", tmp_path)  # a lens alone is a calibration


def _table_file(tmp_path, **changes):
    """A table calibration as calibrate writes one (1280x720 picture), with ``changes``."""
    d = {
        "version": 1,
        "name": "desk",
        "image_size": [1280, 720],
        "card_size_px": [120.0, 170.0],
        "slots": {key: [100.0 + 80 * i, 120.0 if i < 6 else 310.0] for i, key in enumerate(SLOT_KEYS)},
    }
    for key, value in changes.items():
        if key in SLOT_KEYS:
            d["slots"][key] = value
        elif value is None:
            d.pop(key)
        else:
            d[key] = value
    (tmp_path / "desk.json").write_text(json.dumps(d))
    return tmp_path / "desk.json"


@pytest.mark.parametrize(
    "changes, why",
    [
        (
            {"column 1": [1e9, -1e9]},
            "slots: 'column 1' at [1000000000.0, -1000000000.0] lies outside the 1280x720 "
            "picture the calibration was made on (image_size)",
        ),
        ({"column 1": [float("nan"), 300]}, "slots: 'column 1' must be [x, y] in pixels, not [NaN, 300]"),
        ({"stock": [float("inf"), 300]}, "slots: 'stock' must be [x, y] in pixels, not [Infinity, 300]"),
        ({"waste": [True, 300]}, "slots: 'waste' must be [x, y] in pixels, not [true, 300]"),
        (
            {"column 7": [1400.0, 300]},
            "slots: 'column 7' at [1400.0, 300] lies outside the 1280x720 picture "
            "the calibration was made on (image_size)",
        ),
        (
            {"image_size": None, "column 2": [-5, 300]},
            "slots: 'column 2' at [-5, 300]: a slot centre is in pixels from "
            "the picture's top-left corner, never negative",
        ),
        ({"image_size": [1280, float("nan")]}, "image_size must be [width, height] in pixels, not [1280, NaN]"),
        ({"card_size_px": [120, float("inf")]}, "card_size_px must be [width, height] in pixels, not [120, Infinity]"),
    ],
    ids=["far", "nan", "inf", "bool", "right-of-picture", "negative-no-size", "bad-size", "inf-card"],
)
def test_slot_positions_that_cannot_be_in_the_picture_are_refused(tmp_path, capsys, changes, why):
    from solitaire_coach.app.cli import main

    path = _table_file(tmp_path, **changes)
    with pytest.raises(CalibrationError) as exc:
        load_calibration(str(path))
    assert str(exc.value) == f"{path}: {why}"
    assert main(["replay", str(tmp_path), "--calibration", str(path)]) == 2
    assert capsys.readouterr().err == f"solitaire-coach replay: error: {path}: {why}\n"


def test_slot_positions_in_or_just_off_the_picture_are_taken(tmp_path):
    # a card centre half a card off the edge still shows half the card (foundations are extrapolated)
    assert load_calibration(str(_table_file(tmp_path, **{"foundation 4": [1330.0, -80.0]})))["slots"]
    assert load_calibration(str(_table_file(tmp_path, image_size=None, **{"column 7": [5000.0, 9000.0]})))
    (tmp_path / "bom.json").write_text("\ufeff" + (tmp_path / "desk.json").read_text(), encoding="utf-8")
    assert load_calibration(str(tmp_path / "bom.json"))["name"] == "desk"  # Windows Notepad's byte-order mark


@pytest.mark.parametrize(
    "camera, why",
    [
        (
            {"camera_matrix": [[1, 2], [3]], "dist_coeffs": [0] * 5, "image_size": [640, 480]},
            "camera_matrix must be 3x3 numbers, not [[1, 2], [3]]",
        ),
        (
            {"camera_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "dist_coeffs": "x", "image_size": [640, 480]},
            'dist_coeffs must be 4, 5, 8, 12 or 14 numbers, not "x"',
        ),
        (
            {"camera_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "dist_coeffs": [0] * 5, "image_size": "x"},
            'image_size must be [width, height] in whole pixels, not "x"',
        ),
        ({"camera_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "dist_coeffs, image_size missing (a lens has "),
        (
            "x",
            "must be an object with camera_matrix (3x3 numbers), dist_coeffs (4, 5, 8, 12 or 14 numbers) and "
            'image_size ([width, height]), not "x"',
        ),
    ],
    ids=["matrix", "dist", "size", "missing", "string"],
)
def test_a_lens_that_is_not_one_is_named_without_python_text(tmp_path, camera, why):
    (tmp_path / "lens.json").write_text(json.dumps({"camera": camera}))
    with pytest.raises(CalibrationError) as exc:
        load_calibration("lens", tmp_path)
    assert str(exc.value).startswith(f"{tmp_path / 'lens.json'}: camera: {why}")
