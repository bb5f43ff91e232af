"""Frame sources, the serial trigger (pyserial loop:// and a pty pair) and the read gate."""

from __future__ import annotations

import os
import time

import cv2
import numpy as np
import pytest
import serial

from solitaire_coach.capture.gate import HandCheck, MotionMeter, ObjectCheck, ReadGate
from solitaire_coach.capture.serial_trigger import SerialTrigger, ascii_line
from solitaire_coach.capture.sources import (
    CameraSource,
    FolderSource,
    SourceError,
    VideoFileSource,
    iter_frames,
    jpeg_cut_short,
    open_source,
)


def _table(seed: int = 0, w: int = 320, h: int = 180) -> np.ndarray:
    img = np.full((h, w, 3), (40, 110, 30), np.uint8)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        x, y = int(rng.integers(0, w - 40)), int(rng.integers(0, h - 50))
        cv2.rectangle(img, (x, y), (x + 30, y + 45), (240, 240, 240), -1)
    return img


# ----------------------------------------------------------------------------- sources
def test_folder_source_natural_order_and_bad_file(tmp_path):
    for i in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame_{i}.png"), _table(i))
    (tmp_path / "frame_5.png").write_bytes(b"not an image")
    (tmp_path / "notes.txt").write_text("ignored")
    warnings = []
    src = FolderSource(tmp_path, warn=warnings.append)
    names = [f.name for f in iter_frames(src)]
    assert names == ["frame_1.png", "frame_2.png", "frame_10.png"]
    assert len(warnings) == 1 and "frame_5.png" in warnings[0]


def test_folder_source_errors_name_the_folder(tmp_path):
    with pytest.raises(SourceError, match="does not exist"):
        FolderSource(tmp_path / "nope")
    with pytest.raises(SourceError, match="holds no images"):
        FolderSource(tmp_path)


def test_video_file_source_reads_all_frames(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 180))
    assert writer.isOpened()
    for i in range(6):
        writer.write(_table(i))
    writer.release()
    src = open_source(frames=path)
    assert isinstance(src, VideoFileSource)
    frames = list(iter_frames(src))
    assert len(frames) == 6 and frames[0].image.shape == (180, 320, 3)
    with pytest.raises(SourceError, match="not a video"):
        open_source(frames=__file__)


class FakeCapture:
    """Stands in for cv2.VideoCapture: a camera that can be unplugged and plugged back."""

    def __init__(self, rig):
        self.rig = rig
        self.open = rig["plugged"]

    def isOpened(self):
        return self.open

    def set(self, *args):
        return True

    def read(self):
        if not self.rig["plugged"]:
            return False, None
        return True, _table(0)

    def release(self):
        self.open = False


def test_camera_unplugged_and_back_never_raises():
    rig = {"plugged": True}
    now = [0.0]
    warnings = []
    cam = CameraSource(0, opener=lambda dev: FakeCapture(rig), clock=lambda: now[0], warn=warnings.append, retry_s=0.5)
    assert cam.read() is not None
    rig["plugged"] = False
    for _ in range(5):
        now[0] += 0.3
        assert cam.read() is None
    assert any("unplugged" in w for w in warnings)
    rig["plugged"] = True
    frame = None
    for _ in range(40):
        now[0] += 0.3
        frame = cam.read()
        if frame is not None:
            break
    assert frame is not None and cam.reconnects == 1
    assert any("back again" in w for w in warnings)


def test_a_dropped_picture_now_and_then_is_skipped_without_reopening_the_camera():
    """USB cameras drop a picture now and then: that read gives nothing, but the camera is
    neither reported gone nor reopened (it was, at every single dropped picture, with two
    warnings); only MISSES_BEFORE_DOWN reads in a row without a picture are an outage."""
    from solitaire_coach.capture.sources import MISSES_BEFORE_DOWN

    reads, opened = [0], [0]

    class Dropping(FakeCapture):
        def read(self):
            reads[0] += 1
            return (True, _table(0)) if reads[0] % 3 else (False, None)

    def opener(dev):
        opened[0] += 1
        return Dropping({"plugged": True})

    warnings = []
    cam = CameraSource(0, opener=opener, warn=warnings.append)
    got = [cam.read() for _ in range(30)]
    assert sum(frame is not None for frame in got) == 20 and got[2] is None
    assert warnings == [] and opened[0] == 1 and cam.connected and cam.reconnects == 0
    assert MISSES_BEFORE_DOWN > 1


def test_a_camera_that_switches_to_grey_bgra_or_16_bit_pictures_mid_game_is_read_not_a_crash():
    """A camera (or its driver) may start giving pictures of another format mid-game: grey
    (a mono or infrared mode), BGRA, 16-bit. They reach the gate and the detector as 8-bit
    BGR, with one warning per kind naming the camera; a picture that cannot be converted is
    skipped with a warning, and the camera stays open."""
    colour = _table(0)
    grey = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
    pictures = [
        colour,
        grey,
        grey,
        grey[:, :, None],
        grey.astype(np.uint16) * 257,
        cv2.cvtColor(colour, cv2.COLOR_BGR2BGRA),
        colour.astype(np.float32),
        colour[:, :, :2],
        colour,
    ]

    class Switching(FakeCapture):
        def read(self):
            return True, pictures.pop(0)

    warnings = []
    cam = CameraSource(0, opener=lambda dev: Switching({"plugged": True}), warn=warnings.append)
    gate = ReadGate()
    got = []
    for _ in range(9):
        frame = cam.read()
        if frame is not None:
            assert frame.image.dtype == np.uint8 and frame.image.shape == colour.shape
            gate.observe(frame.image)
            got.append(frame.image)
    assert len(got) == 7 and cam.connected and cam.reconnects == 0
    assert np.array_equal(got[1], cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)) and np.array_equal(got[3], got[1])
    assert warnings == [
        "camera 0: gives grey pictures of uint8 pixels, converted to colour (BGR) for reading",
        "camera 0: gives grey pictures of uint16 pixels, converted to colour (BGR) for reading",
        "camera 0: gives colour with alpha (BGRA) pictures of uint8 pixels, converted to colour (BGR) for reading",
        "camera 0: gives colour pictures of float32 pixels, which cannot be read; skipped (the game is kept)",
        "camera 0: gives 2-channel pictures of uint8 pixels, which cannot be read; skipped (the game is kept)",
    ]


def test_camera_that_cannot_open_is_a_clear_error():
    with pytest.raises(SourceError, match="camera 7 could not be opened"):
        CameraSource(7, opener=lambda dev: FakeCapture({"plugged": False}))


def test_a_mistyped_camera_path_is_named_as_missing_not_tried_as_a_camera(tmp_path):
    tried = []
    with pytest.raises(SourceError, match="camera '.*nope.avi': no such file or device"):
        CameraSource(str(tmp_path / "nope.avi"), opener=tried.append)
    assert tried == []


def test_a_missing_camera_opens_without_opencv_log_lines(capfd):
    import cv2

    level = cv2.utils.logging.getLogLevel()
    with pytest.raises(SourceError, match="camera 99 could not be opened"):
        CameraSource(99)
    assert capfd.readouterr().err == ""
    assert cv2.utils.logging.getLogLevel() == level


# ----------------------------------------------------------------------------- serial
def test_serial_loop_trigger_partial_lines_and_garbage():
    warnings = []
    trig = SerialTrigger("loop://", warn=warnings.append)
    port = trig._port
    port.write(b"SNAP\r\n")
    assert trig.poll() == 1
    port.write(b"sn")  # a line cut in two
    assert trig.poll() == 0 and trig.pending == b"sn"
    port.write(b"ap\n")
    assert trig.poll() == 1
    port.write(b"\xff\xfe\x80\nHELLO\n\n")
    assert trig.poll() == 0
    assert len(warnings) == 2 and "garbled" in warnings[0] and "HELLO" in warnings[1]
    port.write(b"x" * 400)  # never ends: dropped, with a warning
    assert trig.poll() == 0 and trig.pending == b""
    assert "without an end of line" in warnings[-1]


def test_serial_noise_is_said_a_few_times_then_once_with_a_baud_hint_and_a_trigger_after_noise_counts():
    warnings = []
    trig = SerialTrigger("loop://", warn=warnings.append)
    port = trig._port
    port.write(b"".join(bytes([0xF0 + i]) + b"\x81garble\n" for i in range(10)))
    assert trig.poll() == 0
    assert len(warnings) == 4 and all("garbled" in w for w in warnings[:3])
    assert "3 lines in a row were not a clean SNAP or PING" in warnings[3] and "--baud 9600" in warnings[3]
    port.write(b"\xff\xfe\x80" * 30 + b"SNAP\n")  # noise ran into the trigger: it still counts
    assert trig.poll() == 1 and len(warnings) == 4  # (said no more: the run of noise goes on)
    port.write(b"SNAP\nHELLO\nNOSNAP\n")  # a clean trigger ends the run; a word ending in SNAP is no trigger
    assert trig.poll() == 1 and "HELLO" in warnings[-2] and "NOSNAP" in warnings[-1] and len(warnings) == 6


def test_serial_noise_with_no_end_of_line_is_said_once_not_at_every_poll():
    """A rig at another baud rate sends bytes that never make a line: they are dropped, and
    said once for the whole run (not at every poll, several times a second, for ever);
    once a line ends, a new run is said again."""
    warnings = []
    trig = SerialTrigger("loop://", warn=warnings.append)
    port = trig._port
    for i in range(20):  # 9600 baud of noise polled every quarter second, 5 s
        port.write(bytes(0x80 | (i + j) % 128 for j in range(240)))
        assert trig.poll() == 0
    assert len(warnings) == 1 and "bytes without an end of line, dropped" in warnings[0]
    assert "--baud 9600" in warnings[0]
    port.write(b"\nSNAP\n")
    assert trig.poll() == 1
    port.write(b"y" * 300)
    assert trig.poll() == 0 and len(warnings) == 2 and "without an end of line" in warnings[1]


def test_serial_lines_ended_by_a_lone_carriage_return_trigger():
    """screen, minicom and some rigs end a line with a carriage return alone: SNAP\\r is a
    trigger (it was never one: the bytes piled up until dropped as having no end of line)."""
    warnings = []
    trig = SerialTrigger("loop://", warn=warnings.append)
    trig._port.write(b"SNAP\r")
    assert trig.poll() == 1
    trig._port.write(b"SNAP\rSNAP\r\nSN")
    assert trig.poll() == 2 and trig.pending == b"SN"
    trig._port.write(b"AP\r")
    assert trig.poll() == 1 and warnings == []


def test_serial_send_is_one_ascii_line():
    assert ascii_line("Move 7♥ from column 3 onto 8♠ — now", 80) == "Move 7H from column 3 onto 8S - now"
    assert len(ascii_line("x" * 200, 32)) == 32


def test_serial_pty_pair_both_ways_and_port_disappearing():
    master, slave = os.openpty()
    name = os.ttyname(slave)
    warnings = []
    trig = SerialTrigger(name, warn=warnings.append, retry_s=0.05)
    try:
        os.write(master, b"SNAP\n")
        deadline = time.monotonic() + 2
        got = 0
        while not got and time.monotonic() < deadline:
            got = trig.poll()
            time.sleep(0.01)
        assert got == 1
        assert trig.send("Put A♠ from the waste on the foundation")
        time.sleep(0.05)
        assert os.read(master, 200) == b"Put AS from the waste on the foundation\n"
        os.write(master, b"PING\n")
        time.sleep(0.05)
        trig.poll()
        time.sleep(0.05)
        assert os.read(master, 200) == b"PONG\n"
    finally:
        os.close(master)
    os.close(slave)
    time.sleep(0.05)
    for _ in range(5):  # the port is gone: warnings, no exception
        assert trig.poll() == 0
        assert trig.send("still here?") in (True, False)
        time.sleep(0.06)
    assert any("retrying" in w for w in warnings)
    trig.close()


def test_serial_port_reopens_after_it_comes_back():
    state = {"up": True, "opened": 0}

    class Flaky:
        def __init__(self):
            self.inner = serial.serial_for_url("loop://", timeout=0)

        def read(self, n):
            if not state["up"]:
                raise serial.SerialException("device disconnected")
            return self.inner.read(n)

        def write(self, data):
            return self.inner.write(data)

        def close(self):
            self.inner.close()

    def opener(port, baud):
        if not state["up"]:
            raise serial.SerialException(f"could not open port {port}")
        state["opened"] += 1
        return Flaky()

    now = [0.0]
    warnings = []
    trig = SerialTrigger("/dev/ttyACM0", opener=opener, warn=warnings.append, clock=lambda: now[0])
    state["up"] = False
    assert trig.poll() == 0 and not trig.connected
    for _ in range(10):
        now[0] += 1
        assert trig.poll() == 0
    state["up"] = True
    now[0] += 10
    trig.poll()
    assert trig.connected and trig.reconnects == 1
    trig._port.inner.write(b"SNAP\n")
    assert trig.poll() == 1
    assert sum("retrying" in w for w in warnings) == 1  # one warning per outage, not one per try


def test_serial_missing_port_is_a_clear_error():
    with pytest.raises(serial.SerialException) as caught:
        SerialTrigger("/dev/does-not-exist")
    assert str(caught.value) == (
        "serial port '/dev/does-not-exist' could not be opened: no such port (is the rig "
        "plugged in? on Linux, ls /dev/ttyUSB* /dev/ttyACM*)"
    )


# ----------------------------------------------------------------------------- gate
def _noisy(img, rng, sigma=2.0):
    return np.clip(img.astype(np.float32) + rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)


def test_motion_meter_sees_moves_not_noise():
    rng = np.random.default_rng(0)
    base = _table(1)
    meter = MotionMeter()
    assert meter.measure(base) == float("inf")
    assert meter.measure(_noisy(base, rng)) < 1.0
    moved = base.copy()
    cv2.rectangle(moved, (100, 60), (140, 120), (250, 250, 250), -1)
    assert meter.measure(moved) > 2.0


def _hand(img):
    out = img.copy()
    cv2.ellipse(out, (160, 150), (45, 70), 20, 0, 360, (120, 150, 215), -1)  # skin tone (BGR)
    for k in range(4):
        cv2.ellipse(out, (130 + 18 * k, 75), (7, 25), 0, 0, 360, (120, 150, 215), -1)
    return out


def test_hand_check_finds_a_hand_not_red_cards():
    table = _table(2)
    for k in range(6):  # red pips on cards are not a hand
        cv2.circle(table, (30 + 40 * k, 30), 5, (30, 30, 220), -1)
    check = HandCheck()
    assert not check(table)
    assert check(_hand(table))


def test_gate_reads_only_still_frames_and_needs_two_agreeing_reads():
    rng = np.random.default_rng(3)
    gate = ReadGate(hand_check=HandCheck())
    a, b = _table(4), _table(5)
    views = [gate.observe(_noisy(a, rng))]
    assert not views[0].read  # first frame: nothing to compare with
    v = gate.observe(_noisy(a, rng))
    assert v.read and v.still
    assert not gate.offer("snapshot A")  # one read is not enough
    v = gate.observe(_noisy(a, rng))
    assert v.read and gate.offer("snapshot A")
    v = gate.observe(_noisy(a, rng))  # resting: same still table is not read again
    assert not v.read and "resting" in v.reason
    v = gate.observe(_noisy(b, rng))  # something moved
    assert not v.read and v.reason == "moving"
    v = gate.observe(_noisy(_hand(b), rng))
    assert not v.read
    v = gate.observe(_noisy(_hand(b), rng))  # a still hand: never read
    assert not v.read and v.hand
    gate.observe(_noisy(b, rng))
    v = gate.observe(_noisy(b, rng))
    assert v.read and not gate.offer("B")
    v = gate.observe(_noisy(b, rng))
    assert v.read and not gate.offer("B'")  # disagreement starts over
    v = gate.observe(_noisy(b, rng))
    assert v.read and gate.offer("B'")


def test_gate_forced_read_after_rest():
    rng = np.random.default_rng(4)
    gate = ReadGate()
    a = _table(6)
    for key in (None, "A", "A"):
        gate.observe(_noisy(a, rng))
        if key:
            gate.offer(key)
    assert not gate.observe(_noisy(a, rng)).read
    gate.force()
    assert gate.observe(_noisy(a, rng)).read


def test_gate_on_a_skin_coloured_table():
    """A beige / wooden table is skin-coloured: it must not stop every read as a 'hand'."""
    rng = np.random.default_rng(7)
    table = np.full((180, 320, 3), (150, 185, 225), np.uint8)  # beige, skin-like (BGR)
    for x in (20, 90, 160, 230):
        cv2.rectangle(table, (x, 40), (x + 40, 100), (245, 245, 245), -1)
    gate = ReadGate()
    gate.observe(_noisy(table, rng))
    v = gate.observe(_noisy(table, rng))
    assert v.read and not v.hand
    assert gate.offer("A") is False
    v = gate.observe(_noisy(table, rng))
    assert v.read and gate.offer("A")


def _blotched_table() -> np.ndarray:
    """A green cloth with large soft pink (skin-toned) blotches, some reaching the edge,
    and cards on it: a fifth of the picture is skin-coloured."""
    img = np.full((180, 320, 3), (30, 100, 25), np.uint8)
    blotches = np.zeros((180, 320), np.uint8)
    for x, y, a, b in ((60, 150, 55, 40), (250, 40, 50, 35), (170, 95, 40, 30), (300, 170, 45, 30), (20, 30, 35, 45)):
        cv2.ellipse(blotches, (x, y), (a, b), 0, 0, 360, 255, -1)
    soft = cv2.GaussianBlur(blotches, (0, 0), 4).astype(np.float32)[..., None] / 255
    img = (img * (1 - soft) + np.float32((90, 95, 160)) * soft).astype(np.uint8)  # pink (BGR)
    for x in (20, 90, 160, 230):
        cv2.rectangle(img, (x, 60), (x + 40, 120), (240, 240, 240), -1)
    return img


def test_gate_on_a_blotched_skin_toned_cloth_still_sees_hands():
    """A cloth with pink blotches is there from the first picture: it is table, not a
    hand; a hand (coming in from the edge, lying over a blotch and a card) is one, and a
    warmer light fading over the table is not."""
    rng = np.random.default_rng(8)
    table = _blotched_table()
    check = HandCheck()
    assert check(table)  # with nothing to compare with, the blotches look like a hand
    assert not check(table, table)  # ... but they were there in the reference picture
    gate = ReadGate()
    gate.observe(_noisy(table, rng))
    v = gate.observe(_noisy(table, rng))
    assert v.read and not v.hand
    gate.offer("A")
    assert gate.observe(_noisy(table, rng)).read and gate.offer("A")

    hand = table.copy()  # a dark arm from the bottom edge over a blotch onto a card
    cv2.line(hand, (70, 200), (105, 95), (50, 65, 100), 26)
    cv2.ellipse(hand, (108, 88), (16, 13), -60, 0, 360, (50, 65, 100), -1)
    assert check(hand, table)
    gate.observe(_noisy(hand, rng))  # moving
    for _ in range(3):
        v = gate.observe(_noisy(hand, rng))
        assert not v.read and v.hand

    # a warm light fading in over the right half (cards and cloth turn pinker): not a hand
    yy, xx = np.mgrid[0:180, 0:320]
    glow = np.clip(1 - np.hypot(xx - 260, yy - 90) / 140, 0, 1)[..., None]
    warm = np.clip(table * (1 + glow * np.float32((-0.15, 0.0, 0.35))) + glow * np.float32((0, 10, 50)), 0, 255).astype(
        np.uint8
    )
    assert HandCheck().largest_fraction(warm, table) < 0.02
    gate.observe(_noisy(warm, rng))  # moving
    v = gate.observe(_noisy(warm, rng))
    assert v.read and not v.hand


# ----------------------------------------------------------------------------- reading
from solitaire_coach.core.cards import Card  # noqa: E402
from solitaire_coach.core.notation import UNKNOWN  # noqa: E402
from solitaire_coach.vision.detector import CardDetection  # noqa: E402
from solitaire_coach.vision.reading import SlotGrid, reading_of  # noqa: E402

W, H, PITCH = 60.0, 84.0, 80.0


def _det(code, slot, x, y, conf=0.97, face_up=True, h=H):
    card = Card.parse(code) if code else None
    quad = np.float32([[x, y], [x + W, y], [x + W, y + h], [x, y + h]])
    return CardDetection(card, quad, conf, slot, face_up)


def _layout(x0=100.0, columns=7, label_shift=0):
    """Cards of a layout: stock, waste, one foundation, and ``columns`` columns from
    column 1 (a back, then a face-up card), labelled ``label_shift`` places to the right."""
    cards = [
        _det(None, "stock", x0, 20, face_up=False),
        _det("4D", "waste", x0 + PITCH, 20),
        _det("AC", "foundation 1", x0 + 3 * PITCH, 20),
    ]
    faces = ["KS", "QH", "JC", "0D", "9S", "8H", "7C"]
    for k in range(columns):
        label = f"column {min(7, k + 1 + label_shift)}"
        cards.append(_det(None, label, x0 + k * PITCH, 130, face_up=False, h=12))
        cards.append(_det(faces[k], label, x0 + k * PITCH, 142))
    return cards


def test_reading_keeps_unsure_faces_as_guesses():
    cards = _layout()
    cards[-1] = _det("7C", "column 7", 100 + 6 * PITCH, 142, conf=0.6)  # unsure top
    cards.append(_det("6H", "column 1", 100, 162, conf=0.95))  # a run of two in column 1
    cards.append(_det("2D", "foundation 2", 100 + 4 * PITCH, 20, conf=0.5))  # unsure foundation
    res = type("R", (), {"cards": cards, "snapshot": None})()
    r = reading_of(res, 0.9)
    assert r.snapshot.line() == "4D,AC,UU,XX,XX,6H,QH,JC,0D,9S,8H,UU"
    assert {i: g.card.code for i, g in r.guesses.items()} == {2: "2D", 11: "7C"}
    assert r.snapshot.runs[0] == (Card.parse("KS"), Card.parse("6H"))
    assert r.snapshot.runs[6] is None  # an unsure card: no run claimed
    assert r.filled().line() == "4D,AC,2D,XX,XX,6H,QH,JC,0D,9S,8H,7C"
    assert r.filled({11}).slots[2] is UNKNOWN and r.filled({11}).slots[11] == Card.parse("7C")
    # a guess of a card read surely elsewhere is not put in
    cards.append(_det("QH", "waste", 100 + PITCH + 15, 20, conf=0.55))
    r2 = reading_of(type("R", (), {"cards": cards, "snapshot": None})(), 0.9)
    assert r2.snapshot.slots[0] is UNKNOWN and r2.filled().slots[0] is UNKNOWN


def test_reading_of_a_reader_that_does_not_guess_is_its_snapshot():
    from solitaire_coach.core.notation import parse_snapshot

    snap = parse_snapshot("4D,XX,XX,XX,XX,AC,JD,AH,6H,5D,2S,5C")
    r = reading_of(type("R", (), {"cards": [], "snapshot": snap})(), 0.9)
    assert r.snapshot is snap and r.guesses == {}
    assert reading_of(type("R", (), {"cards": _layout(), "snapshot": snap})(), None).snapshot is snap


def test_slot_grid_learns_the_pitch_and_fixes_a_shifted_row():
    grid = SlotGrid()
    assert grid.place(_layout(), None) is None  # nothing learnt yet
    assert not grid.learn(_layout(columns=5))  # five columns do not show the pitch
    assert grid.learn(_layout())
    assert abs(grid.pitch_ratio - PITCH / W) < 1e-6
    # the detector put every column one place right, and the picture moved and grew
    shifted = [
        CardDetection(c.card, c.quad * 1.1 + np.float32([30, 5]), c.confidence, c.slot, c.face_up)
        for c in _layout(columns=7, label_shift=1)
    ]
    placed = grid.place(shifted, [True] * 7)
    cols = sorted({c.slot for c in placed if c.slot.startswith("column")})
    assert cols == [f"column {i}" for i in range(1, 8)]
    by_card = {c.card.code: c.slot for c in placed if c.card is not None}
    assert by_card["KS"] == "column 1" and by_card["7C"] == "column 7"
    assert by_card["4D"] == "waste" and by_card["AC"] == "foundation 1"
    assert [c.slot for c in placed if c.card is None and not c.face_up][0] == "stock"
    # only three columns left (1, 4, 7): the stock and the game's occupied columns place them
    few = [c for c in _layout() if c.slot not in ("column 2", "column 3", "column 5", "column 6")]
    few = [
        CardDetection(c.card, c.quad, c.confidence, "column 2" if c.slot == "column 4" else c.slot, c.face_up)
        for c in few
    ]
    placed = grid.place(few, [True, False, False, True, False, False, True])
    assert {c.card.code: c.slot for c in placed if c.card is not None}["0D"] == "column 4"


def test_slot_grid_leaves_out_a_stray_pile_beside_the_layout():
    """Column 1 empty, and a striped cloth right of column 7 taken for card backs: the
    piles stay where they are (not all moved one place left) and the stray is left out."""
    grid = SlotGrid()
    assert grid.learn(_layout())
    cards = [c for c in _layout() if c.slot != "column 1"]
    stray_x = 100 + 6 * PITCH + 0.7 * PITCH
    cards += [
        _det(None, "column 7", stray_x, 150, conf=0.7, face_up=False, h=12),
        _det(None, "column 7", stray_x, 165, conf=0.6, face_up=False, h=12),
    ]
    placed = grid.place(cards, [False] + [True] * 6)
    by_card = {c.card.code: c.slot for c in placed if c.card is not None}
    assert by_card["QH"] == "column 2" and by_card["7C"] == "column 7"
    assert by_card["4D"] == "waste" and by_card["AC"] == "foundation 1"
    assert len(placed) == len(cards) - 2  # the stray pile is gone


# ----------------------------------------------------------------------------- objects of any colour
_CARD_W, _CARD_H = 60, 84


def _dealt(
    places: dict, shift: tuple[int, int] = (0, 0), tint: tuple[float, float, float] = (1, 1, 1), checked: bool = True
):
    """A 640x360 picture of a checked cloth with cards (drawn at ``places``: card name ->
    top-left corner, moved by ``shift`` as a camera nudged would; ``tint`` a colour cast of
    the light on the white cards, per BGR channel; the dark cloth hardly shows it), and the cards as the detector gives them: (quad, card)
    pairs, card None for a back."""
    yy, xx = np.mgrid[0:360, 0:640]
    check = (((xx - shift[0]) // 80 + (yy - shift[1]) // 80) % 2).astype(np.float32) * checked
    img = np.dstack([30 + 60 * check, 90 + 110 * check, 25 + 50 * check]).astype(np.uint8)
    cards = []
    for name, (x, y) in places.items():
        x, y = x + shift[0], y + shift[1]
        colour = (150, 70, 60) if name == "back" else tuple(min(255, int(235 * t)) for t in tint)
        cv2.rectangle(img, (x, y), (x + _CARD_W, y + _CARD_H), colour, -1)
        if name != "back":
            cv2.putText(img, name, (x + 6, y + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
        quad = np.float32([[x, y], [x + _CARD_W, y], [x + _CARD_W, y + _CARD_H], [x, y + _CARD_H]])
        cards.append((quad, None if name == "back" else name))
    return img, cards


def _sleeve(img, colour=(160, 80, 30)):
    """A blue sleeve and glove (no skin colour anywhere) from the bottom edge onto the table."""
    out = img.copy()
    cv2.line(out, (420, 380), (300, 170), colour, 46)
    cv2.ellipse(out, (292, 150), (30, 36), 30, 0, 360, colour, -1)
    return out


def _check(picture, reference, now, before, **options):
    small = lambda im: cv2.resize(im, (320, 180), interpolation=cv2.INTER_AREA)  # noqa: E731
    return ObjectCheck(**options).largest_fraction(small(picture), small(reference), now, before, (0.5, 0.5))


TABLE = {
    "back": (40, 30),
    "7H": (130, 30),
    "KS": (60, 150),
    "9C": (200, 150),
    "4D": (340, 150),
    "QH": (480, 150),
    "5S": (560, 290),
}  # (the 5S reaches the picture's bottom edge)


def test_object_check_sees_a_sleeve_of_any_colour_not_moves():
    before, cards_before = _dealt(TABLE)
    assert not HandCheck()(_sleeve(before), before)  # not skin-coloured: the hand check misses it
    assert _check(_sleeve(before), before, cards_before, cards_before) >= 0.012
    # the same sleeve while a card was also moved (7H onto the table's right), over the 9C
    moved = dict(TABLE, **{"7H": (560, 250)})
    after, cards_after = _dealt(moved)
    assert _check(after, before, cards_after, cards_before) == 0.0  # a move alone: nothing
    assert _check(_sleeve(after), before, cards_after, cards_before) >= 0.012
    # a card turned up on the stock's place and one put down that the detector missed
    turned = dict(TABLE, **{"8S": (40, 30), "2C": (340, 250)})
    del turned["back"]
    after, cards_after = _dealt(turned)
    missed = [c for c in cards_after if c[1] != "2C"]
    assert _check(after, before, missed, cards_before) == 0.0
    # a hand that hides the cards under it from the detector: they do not explain it
    hidden = [c for c in cards_before if c[1] not in ("9C", "4D")]
    assert _check(_sleeve(before), before, hidden, cards_before) >= 0.012


def test_object_check_leaves_a_moved_camera_or_changed_light_alone():
    """A nudged camera shifts the checked cloth and a colour cast changes every card: both
    change the picture at the edge where no card moved, so the check does not look then
    (without its two guards it would take them for objects)."""
    before, cards_before = _dealt(TABLE)
    nudged, cards_nudged = _dealt(TABLE, shift=(12, 0))  # the whole picture moved 12 px
    assert ObjectCheck.camera_shift(cards_nudged, cards_before) == pytest.approx(12)
    assert _check(nudged, before, cards_nudged, cards_before, shift=1e9) >= 0.012  # unguarded: a false object
    assert _check(nudged, before, cards_nudged, cards_before) == 0.0
    assert _check(_sleeve(nudged), before, cards_nudged, cards_before) == 0.0  # cannot tell: not looked at
    pink, cards_pink = _dealt(TABLE, tint=(0.85, 0.8, 1.1))  # a warmer lamp
    assert _check(pink, before, cards_pink, cards_before, light=1e9) >= 0.012
    assert _check(pink, before, cards_pink, cards_before) == 0.0
    assert _check(before, before, cards_before, cards_before) == 0.0
    assert _check(before, before, [], []) == 0.0  # no card read at all: nothing to go on


def test_object_check_a_sleeve_the_colour_of_the_cloth_and_a_hand_that_left():
    """A sleeve nearly the colour of a plain cloth changes it little (under the strong
    level) and strongly only over the cards: the weak change joins the pieces to the
    picture's edge. A sleeve that was in the reference and left changes the same pixels:
    counted as an object when the reference was checked (it cannot be there), and not
    when the reference may hold one (``clean=False``: the change must add an edge)."""
    table, cards = _dealt(TABLE, checked=False)
    cloth = tuple(int(v) + 12 for v in table[5, 5])  # just off the cloth's colour
    sleeve = _sleeve(table, cloth)
    assert _check(sleeve, table, cards, cards, weak=None) == 0.0  # strong change only: pieces inside
    assert _check(sleeve, table, cards, cards) >= 0.012
    left, _ = _dealt(TABLE)
    gone = _sleeve(left)
    assert _check(left, gone, cards, cards) >= 0.012
    small = lambda im: cv2.resize(im, (320, 180), interpolation=cv2.INTER_AREA)  # noqa: E731
    assert ObjectCheck().largest_fraction(small(left), small(gone), cards, cards, (0.5, 0.5), clean=False) == 0.0
    assert ObjectCheck().largest_fraction(small(gone), small(left), cards, cards, (0.5, 0.5), clean=False) >= 0.012


def test_gate_is_not_stuck_behind_a_hand_it_took_for_table():
    """A read forced with a sleeve in the picture makes a reference with the sleeve in it;
    when the sleeve goes, the bare table is read (not taken for an object), and after
    that a sleeve coming back is one."""
    rng = np.random.default_rng(4)
    table, cards = _dealt(TABLE)
    sleeve = _sleeve(table)
    gate = ReadGate()

    def read(picture):
        for _ in range(6):
            view = gate.observe(_noisy(picture, rng))
            if view.read:
                if gate.object_seen(cards):
                    return "object"
                if gate.offer("A", cards):
                    return "accepted"
        return "nothing"

    gate.observe(_noisy(sleeve, rng))
    gate.force()
    assert read(sleeve) == "accepted"  # the person said the table is clear
    assert read(table) == "accepted"  # the sleeve left: not an object
    assert read(sleeve) == "object"  # ... and coming back, it is


def test_camera_warnings_name_what_is_kept():
    from solitaire_coach.capture.sources import MISSES_BEFORE_DOWN

    rig = {"plugged": True}
    now = [0.0]
    warnings = []
    cam = CameraSource(
        0,
        opener=lambda dev: FakeCapture(rig),
        clock=lambda: now[0],
        warn=warnings.append,
        retry_s=0.5,
        purpose="the recording",
    )
    assert cam.read() is not None
    rig["plugged"] = False
    for _ in range(MISSES_BEFORE_DOWN):  # an outage, not a dropped picture
        now[0] += 0.3
        assert cam.read() is None
    rig["plugged"] = True
    for _ in range(10):
        now[0] += 0.3
        if cam.read() is not None:
            break
    assert any("the recording is kept" in w for w in warnings)
    assert any("back again; the recording continues" in w for w in warnings)
    assert not any("game" in w for w in warnings)


def test_a_video_file_as_the_camera_plays_once_at_its_frame_rate(tmp_path):
    path = tmp_path / "cam.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 20, (64, 48))
    for i in range(6):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    cam = CameraSource(str(path), retry_s=0.05)
    start = time.monotonic()
    frames = [cam.read() for _ in range(6)]
    assert all(f is not None for f in frames) and time.monotonic() - start >= 5 / 20 * 0.9
    assert not cam.ended
    deadline = time.monotonic() + 0.6
    while time.monotonic() < deadline:  # long past the retry time: never opened again
        assert cam.read() is None
        time.sleep(0.02)
    assert cam.ended


def test_folder_source_binary_manifest_and_missing_frame_are_named(tmp_path, capfd):
    cv2.imwrite(str(tmp_path / "frame_000001.jpg"), _table(1))
    (tmp_path / "frames.jsonl").write_bytes(b"\x00\xff\xfe\x89PNG garbage\x80")
    with pytest.raises(SourceError, match="frames.jsonl: not a frames list"):
        FolderSource(tmp_path)
    (tmp_path / "frames.jsonl").write_text(
        '{"file": "frame_000001.jpg", "t": 0}\n{"file": "frame_000002.jpg", "t": 1}\n'
    )
    warnings = []
    src = FolderSource(tmp_path, warn=warnings.append)
    assert [f.name for f in iter_frames(src)] == ["frame_000001.jpg"]
    assert warnings == [f"{tmp_path / 'frame_000002.jpg'}: no such file, skipped"]
    assert "WARN" not in capfd.readouterr().err


def test_frames_list_lines_that_are_not_frame_entries_say_what_a_line_must_be(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "frame_000001.jpg"), _table(1))
    lines = [
        '{"file": "frame_000001.jpg", "t": 0}',
        '{"t": 0.4}',
        "[1, 2]",
        '{"file": "frame_000001.jpg", "t": ',
        '{"file": 7}',
        '{"file": "frame_000001.jpg", "t": "x"}',
        '{"file": "frame_000001.jpg", "t": NaN}',
        '"frame_000001.jpg"',
        '{"file": "../x.jpg"}',
        '{"file": "frame_0',
        '{"file": "frame_000001.jpg", "t": 0.2}',
    ]
    (tmp_path / "frames.jsonl").write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")
    warnings = []
    src = FolderSource(tmp_path, warn=warnings.append)
    assert [e["t"] for e in src.entries] == [0.0, 0.2]  # a byte-order mark does not spoil line 1
    manifest = tmp_path / "frames.jsonl"
    form = (
        'a JSON object like {"file": "frame_000001.jpg", "t": 0.2}: "file" a picture in the folder, '
        '"t" its time in seconds'
    )
    assert warnings == [
        f'{manifest}: line 2 skipped: no "file"; each line is {form}',
        f"{manifest}: line 3 skipped: it is a list, but each line is {form}",
        f"{manifest}: line 4 skipped: not JSON (Expecting value at column 35); each line is {form}",
        f'{manifest}: line 5 skipped: "file" must be the name of a picture in the folder, not 7',
        f'{manifest}: line 6 skipped: "t" must be a number of seconds, not "x"',
        f'{manifest}: line 7 skipped: "t" must be a number of seconds, not NaN',
        f"{manifest}: line 8 skipped: it is a string, but each line is {form}",
        f"{manifest}: line 9 skipped: '../x.jpg' is not a file name in the folder",
        f"{manifest}: line 10 skipped: not JSON (Unterminated string starting at column 10); each line is {form}",
    ]
    assert all("list indices" not in w and "('file')" not in w for w in warnings)
    manifest.write_text('{"t": 0.4}\n[]\n')
    with pytest.raises(SourceError, match=r"frames.jsonl: lists no frames \(each line: a JSON object like"):
        FolderSource(tmp_path, warn=warnings.append)
    from solitaire_coach.app.cli import main

    assert main(["replay", str(tmp_path)]) == 2
    out = capsys.readouterr()
    assert out.err.startswith(f"solitaire-coach replay: error: {manifest}: lists no frames (each line: a JSON object")
    assert f"warning: {manifest}: line 2 skipped: it is a list, but each line is a JSON object" in out.out


def test_a_frame_missing_from_a_still_listed_many_times_is_said_once(tmp_path):
    cv2.imwrite(str(tmp_path / "frame_000001.jpg"), _table(1))
    (tmp_path / "frames.jsonl").write_text(
        "".join(f'{{"file": "frame_00000{1 + (i > 0)}.jpg", "t": {i}}}\n' for i in range(4))
    )
    warnings = []
    assert [f.name for f in iter_frames(FolderSource(tmp_path, warn=warnings.append))] == ["frame_000001.jpg"]
    assert warnings == [f"{tmp_path / 'frame_000002.jpg'}: no such file, skipped (all 3 times it is listed)"]


def test_a_recorded_frame_cut_short_is_skipped_by_name_not_read_half_grey(tmp_path, capfd):
    ok, data = cv2.imencode(".jpg", _table(1))
    whole = data.tobytes()
    (tmp_path / "frame_000001.jpg").write_bytes(whole)
    (tmp_path / "frame_000002.jpg").write_bytes(whole[: len(whole) // 2])  # a copy cut short
    (tmp_path / "frames.jsonl").write_text(
        "".join(f'{{"file": "frame_00000{n}.jpg", "t": {t}}}\n' for t, n in enumerate((1, 2, 2, 1)))
    )
    warnings = []
    frames = [f.name for f in iter_frames(FolderSource(tmp_path, warn=warnings.append))]
    assert frames == ["frame_000001.jpg", "frame_000001.jpg"]
    assert warnings == [
        f"{tmp_path / 'frame_000002.jpg'}: a JPEG cut short (no end marker): only part of the "
        f"picture is there, skipped (all 2 times it is listed)"
    ]
    assert "Premature end" not in capfd.readouterr().err
    assert not jpeg_cut_short(whole) and jpeg_cut_short(whole[:-2]) and not jpeg_cut_short(whole + b"\0\0")


@pytest.mark.parametrize(
    "content, words",
    [
        (bytes(range(256)) * 20, "could not be opened"),  # no video: "moov atom not found"
        (b"\xff\xd8\xff\xe0 a JPEG cut short" * 3, "holds no frame"),  # opens, no frame: "No JPEG data found"
    ],
)
def test_a_file_that_is_no_video_gives_our_error_and_none_of_ffmpegs_lines(tmp_path, content, words):
    """FFmpeg prints its own log on standard error past OpenCV's log level: the open is
    silenced, so the project's error is the only line (checked in a child process, whose
    file descriptor 2 is its own)."""
    import subprocess
    import sys

    fake = tmp_path / "game.mp4"
    fake.write_bytes(content)
    code = (
        "import sys\nfrom solitaire_coach.capture.sources import SourceError, open_source\n"
        "try:\n    open_source(frames=sys.argv[1])\nexcept SourceError as exc:\n    print(exc, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(fake)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == ""
    assert out.stderr.splitlines() == [next(line for line in out.stderr.splitlines() if words in line)], out.stderr
    assert str(fake) in out.stderr


def test_a_photo_gate_reads_every_picture_once_on_its_own():
    """ReadGate.for_photos: the first picture is read (no motion history needed), each read
    is taken at once (no second read to agree with), and the same picture again is read again."""
    from solitaire_coach.capture.gate import ReadGate

    gate = ReadGate.for_photos()
    rng = np.random.default_rng(3)
    pictures = [rng.integers(0, 255, (90, 160, 3), dtype=np.uint8) for _ in range(3)]
    for i, picture in enumerate(pictures + pictures[-1:]):
        view = gate.observe(picture)
        assert view.read, (i, view.reason)
        assert gate.offer(f"snapshot {i}")


def test_a_folder_of_photos_is_told_from_a_videos_frames(tmp_path):
    """Photos differ one from the next; a video's frames of a still table are alike."""
    from solitaire_coach.capture.sources import FolderSource, looks_like_photos

    photos, video = tmp_path / "photos", tmp_path / "video"
    photos.mkdir()
    video.mkdir()
    base = np.full((360, 640, 3), 90, np.uint8)
    for i in range(6):
        picture = base.copy()
        cv2.rectangle(picture, (40 + 80 * i, 60), (100 + 80 * i, 140), (255, 255, 255), -1)  # a card moved
        cv2.imwrite(str(photos / f"p{i}.png"), picture)
        noisy = np.clip(base.astype(int) + np.random.default_rng(i).integers(-4, 5, base.shape), 0, 255)
        cv2.imwrite(str(video / f"f{i}.png"), noisy.astype(np.uint8))
    assert looks_like_photos(FolderSource(photos))
    assert not looks_like_photos(FolderSource(video))
    (photos / "frames.jsonl").write_text('{"file": "p0.png", "t": 0}\n')
    assert not looks_like_photos(FolderSource(photos))  # a recording: its manifest says how to play it


def test_photos_take_only_a_hand_that_reaches_the_edge():
    """Against the last photo taken, the wooden table uncovered where a column of cards lay
    is skin-coloured, changed and sharply outlined, like a hand: for photos
    (``ReadGate.for_photos``) only a region reaching the picture's edge is a hand (an arm
    comes in from outside), so the uncovered table is not; a hand reaching in still is."""
    wood = np.zeros((240, 320, 3), np.uint8)
    wood[:] = (110, 150, 200)  # a light wooden table (BGR, skin-toned)
    before = wood.copy()
    cv2.rectangle(before, (120, 60), (175, 200), (245, 245, 245), -1)  # a fanned column of cards
    cv2.rectangle(before, (190, 60), (245, 200), (245, 245, 245), -1)
    after = wood.copy()  # the cards moved away: the table shows there
    assert HandCheck()(after, before)  # a camera's check takes it for a hand
    photos = ReadGate.for_photos().hand_check
    assert photos.from_edge and not photos(after, before)
    # a hand reaching in from the left edge over a green cloth still is one
    cloth = _table(2, 320, 240)
    arm = cloth.copy()
    cv2.rectangle(arm, (0, 150), (150, 185), (120, 150, 215), -1)
    cv2.ellipse(arm, (165, 165), (40, 30), 0, 0, 360, (120, 150, 215), -1)
    assert photos(arm, cloth)
    # (on a table of the arm's own colour, only the part over the cards changes, and that does
    # not reach the edge: such a photo is read; photos are taken with the hands away)
