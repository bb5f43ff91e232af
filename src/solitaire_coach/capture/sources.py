"""Frame sources behind one interface: a camera, a video file, a folder of images.

Every source yields :class:`Frame` objects from :meth:`FrameSource.read`, which
returns ``None`` when there is (for now) no frame: the end of a file or folder, or a
camera that stopped answering. A camera that stops answering is not an error: the
:class:`CameraSource` closes it, warns once, and tries to open it again at growing
intervals, so a camera unplugged mid-game and plugged back continues the same game.

Sources never decide anything about cards or rules; they only deliver pictures.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from ..storage import json_error_text

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm", ".mjpg", ".mjpeg")


class SourceError(RuntimeError):
    """A frame source that cannot be opened at all; the message names it and why."""


@dataclass
class Frame:
    """One picture: BGR ``image``, its sequence ``index`` within the source, the time it
    was taken (``time.monotonic`` seconds, or the file's position for recordings) and a
    ``name`` (file name, or ``camera 0 #17``) for messages."""

    image: np.ndarray
    index: int
    timestamp: float
    name: str
    forced: bool = False  # the person forced a read (Enter), as a recording's manifest says
    meta: dict = field(default_factory=dict)


class FrameSource(Protocol):
    """Where frames come from: a camera, a video file or a folder of recorded frames."""

    name: str
    live: bool  # True for a camera: frames keep coming, None is a hiccup not the end

    def read(self) -> Frame | None:
        """The next frame, or None when there is none now (a live source) or any more."""

    def close(self) -> None:
        """Let go of the camera or file."""


def looks_like_photos(source: FolderSource, sample: int = 8) -> bool:
    """Are the pictures of a folder without ``frames.jsonl`` photos of a table taken every
    few moves rather than the frames of a video? Each photo differs from the one before
    (at least a card moved); a video's frames are mostly alike (a still table filmed, a
    few frames a second). Decided on the first ``sample`` pictures: photos when most
    neighbours differ (over 0.1% of a 160x90 thumbnail changed by more than 30 grey
    levels: a card moved, not sensor noise or JPEG)."""
    if source.has_manifest:
        return False
    if len(source.paths) < 2:
        return True
    small = []
    for path in source.paths[:sample]:
        image = cv2.imread(str(path), cv2.IMREAD_REDUCED_GRAYSCALE_4)
        if image is not None:
            small.append(cv2.resize(image, (160, 90), interpolation=cv2.INTER_AREA).astype(np.int16))
    changed = [float((np.abs(a - b) > 30).mean()) for a, b in zip(small, small[1:])]
    return bool(changed) and sum(c > 0.001 for c in changed) * 2 > len(changed)


def jpeg_cut_short(data: bytes) -> bool:
    """Whether ``data`` is a JPEG cut short: no end marker after its last scan (OpenCV
    decodes such a file as far as it goes, the rest of the picture grey, and says only
    'Premature end of JPEG file', naming no file). An end marker inside an earlier
    thumbnail does not count."""
    return data.startswith(b"\xff\xd8") and data.rfind(b"\xff\xd9") < data.rfind(b"\xff\xda")


MAX_PICTURE_PIXELS = 1 << 30
"""The most pixels OpenCV decodes in one picture (its CV_IO_MAX_IMAGE_PIXELS default)."""
MIN_PICTURE_SIDE = 16
"""A picture narrower or lower than this (in pixels) holds no card to read: refused."""
SMALL_PICTURE = (320, 180)
"""A picture smaller than this (width, height) is read with a warning: its cards are a few
pixels each, too small to read (a camera frame is 1280x720)."""


class PictureError(ValueError):
    """A file that is no picture to read; the message names the file and says why."""


def _declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) a PNG or JPEG header claims, or None when it is neither (or cut)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(data) and data[i] == 0xFF:
            marker, length = data[i + 1], int.from_bytes(data[i + 2 : i + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
                return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
            i += 2 + length
    return None


def read_picture(path: str | os.PathLike) -> np.ndarray:
    """The picture in file ``path`` (BGR). Raises PictureError naming the file and saying
    why there is none: not there, a folder, not a regular file (a named pipe is never
    waited on), not readable, a JPEG cut short (only part of it is there), more pixels than
    OpenCV decodes, not a picture OpenCV decodes, or fewer than MIN_PICTURE_SIDE pixels
    on a side."""
    from ..storage import NotTextError, describe_os_error, read_file_bytes

    name = repr(str(path))
    try:
        data = read_file_bytes(path)
    except (OSError, NotTextError) as exc:
        raise PictureError(f"{name}: {describe_os_error(exc)}") from None
    if jpeg_cut_short(data):
        raise PictureError(f"{name}: a JPEG cut short (no end marker): only part of the picture is there")
    size = _declared_size(data)
    if size is not None and size[0] * size[1] > MAX_PICTURE_PIXELS:
        image = None
    else:
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        except cv2.error as exc:
            if "CV_IO_MAX_IMAGE_PIXELS" not in str(exc):
                raise PictureError(
                    f"{name} is not an image OpenCV can decode ({str(exc).strip().splitlines()[-1]})"
                ) from None
            size = size or (0, 0)
        else:
            if image is None:
                raise PictureError(f"{name} is not an image OpenCV can decode (empty, damaged or not a picture)")
    if image is None:
        said = f"{size[0]}x{size[1]} pixels" if size and size[0] else "larger than that"
        raise PictureError(
            f"{name}: the picture is {said}: OpenCV reads at most {MAX_PICTURE_PIXELS:,} pixels (shrink it first)"
        )
    h, w = image.shape[:2]
    if min(h, w) < MIN_PICTURE_SIDE:
        raise PictureError(
            f"{name}: the picture is {w}x{h} pixels: too small to show any card (a camera frame is 1280x720)"
        )
    return image


def small_picture_warning(path, image: np.ndarray) -> str | None:
    """A warning for a picture smaller than SMALL_PICTURE (its cards too small to read), or None."""
    h, w = image.shape[:2]
    if w < SMALL_PICTURE[0] or h < SMALL_PICTURE[1]:
        return (
            f"{str(path)!r}: the picture is only {w}x{h} pixels: its cards are likely too small to read "
            f"(a camera frame is 1280x720)"
        )
    return None


def _natural_key(path: Path) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


MANIFEST = "frames.jsonl"
ENTRY_FORM = (
    'a JSON object like {"file": "frame_000001.jpg", "t": 0.2}: "file" a picture in the folder, "t" its time in seconds'
)


def _frame_entry(line: str, default_t: float) -> dict | str:
    """The frame entry of one ``frames.jsonl`` line, or what is wrong with it."""
    try:
        e = json.loads(line)
    except ValueError as exc:
        why = f"{json_error_text(exc)} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else "bad text"
        return f"not JSON ({why}); each line is {ENTRY_FORM}"
    if not isinstance(e, dict):
        kind = {list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(type(e), "a number")
        return f"it is {kind}, but each line is {ENTRY_FORM}"
    if "file" not in e:
        return f'no "file"; each line is {ENTRY_FORM}'
    name, t = e["file"], e.get("t", default_t)
    if not isinstance(name, str) or not name:
        return f'"file" must be the name of a picture in the folder, not {json.dumps(name)}'
    if "/" in name or "\\" in name or name.startswith("."):
        return f"{name!r} is not a file name in the folder"
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not np.isfinite(t):
        return f'"t" must be a number of seconds, not {json.dumps(t)}'
    return {"file": name, "t": float(t), "forced": bool(e.get("forced", False))}


class FolderSource:
    """Recorded frames: the images of a folder.

    With a ``frames.jsonl`` manifest (written by :class:`FrameRecorder`) the frames come
    in its order with its timestamps; a still picture recorded once may be listed several
    times. Without one, every image in natural name order (``frame_2`` before
    ``frame_10``) at ``fps`` frames a second.

    A file that cannot be decoded (or only in part: a JPEG cut short), or a manifest line
    that cannot be read, is skipped with a warning naming it (through ``warn``), never a
    crash.
    """

    live = False

    def __init__(
        self, folder: str | os.PathLike, *, fps: float = 5.0, warn: Callable[[str], None] | None = None
    ) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"frames folder {str(self.folder)!r} does not exist or is not a folder")
        self._warn = warn or (lambda msg: None)
        self.fps = fps
        self.entries: list[dict] = []
        manifest = self.folder / MANIFEST
        self.has_manifest = manifest.is_file()
        if manifest.is_file():
            self.entries = self._read_manifest(manifest)
        else:
            paths = sorted(
                (p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
                key=_natural_key,
            )
            self.entries = [{"file": p.name, "t": i / fps} for i, p in enumerate(paths)]
        if not self.entries and manifest.is_file():
            raise SourceError(f"{manifest}: lists no frames (each line: {ENTRY_FORM})")
        if not self.entries:
            raise SourceError(f"frames folder {str(self.folder)!r} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.paths = [self.folder / e["file"] for e in self.entries]
        self.name = f"folder {self.folder}"
        self._next = 0
        self._cache: tuple[str, np.ndarray] | None = None
        self._warned: set[str] = set()  # files already said to be missing or unreadable

    def _read_manifest(self, manifest: Path) -> list[dict]:
        from ..storage import NotTextError, describe_os_error, read_text_file

        entries = []
        try:
            text = read_text_file(manifest)
        except NotTextError as exc:
            raise SourceError(f"{manifest}: not a frames list ({exc})") from None
        except OSError as exc:
            raise SourceError(f"{manifest}: cannot be read ({describe_os_error(exc)})") from None
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            entry = _frame_entry(line, len(entries) / self.fps)
            if isinstance(entry, str):
                self._warn(f"{manifest}: line {n} skipped: {entry}")
                continue
            entries.append(entry)
        return entries

    def __len__(self) -> int:
        return len(self.entries)

    def read(self) -> Frame | None:
        while self._next < len(self.entries):
            i = self._next
            self._next += 1
            entry = self.entries[i]
            path = self.folder / entry["file"]
            if self._cache is not None and self._cache[0] == entry["file"]:
                image = self._cache[1].copy()
            else:
                if not path.is_file():  # checked first: OpenCV would print its own warning
                    self._warn_once(entry["file"], f"{path}: no such file, skipped")
                    continue
                try:
                    image = read_picture(path)
                except PictureError as exc:
                    why = str(exc).removeprefix(repr(str(path))).lstrip(": ")
                    if "not an image OpenCV can decode" in why:
                        why = "not a readable image"
                    self._warn_once(entry["file"], f"{path}: {why}, skipped")
                    continue
                self._cache = (entry["file"], image)
                image = image.copy()
            return Frame(image, i, entry["t"], entry["file"], forced=entry.get("forced", False))
        return None

    def _warn_once(self, file: str, message: str) -> None:
        """Warn about ``file`` the first time only (a still picture is listed many times)."""
        if file not in self._warned:
            self._warned.add(file)
            n = sum(e["file"] == file for e in self.entries)
            self._warn(message + (f" (all {n} times it is listed)" if n > 1 else ""))

    def close(self) -> None:
        self._next = len(self.entries)


class FrameRecorder:
    """Saves frames as they are read: JPEG files plus a ``frames.jsonl`` manifest line each.

    Image files are written atomically; the manifest is appended line by line (a line cut
    short by a crash is skipped, with a warning, on replay). With ``dedupe`` a frame that
    is the same picture as the last one saved (change below ``dedupe_level`` grey levels,
    i.e. sensor noise) and in which fewer than ``fine_pixels`` pixels changed at full
    resolution (a waste card turned changes the thumbnail's mean less than noise does, so
    the mean alone would lose it) is listed again instead of being written again: a picture
    the live coach's gate would read as changed is always written.
    """

    def __init__(
        self,
        folder: str | os.PathLike,
        *,
        quality: int = 85,
        dedupe: bool = True,
        dedupe_level: float = 0.6,
        fine_pixels: int = 8,
    ) -> None:
        from .gate import MotionMeter

        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.quality = int(quality)
        self.dedupe = dedupe
        self.dedupe_level = dedupe_level
        self._meter = MotionMeter()
        existing = [p for p in self.folder.glob("frame_*.jpg")]
        self._count = 1 + max(
            (int(p.stem.split("_")[1]) for p in existing if p.stem.split("_")[1].isdigit()), default=0
        )
        self._last_file: str | None = None
        self._last_thumb = None
        self._last_fine = None
        self.fine_pixels = fine_pixels
        self._manifest = open(self.folder / MANIFEST, "a", encoding="utf-8")
        self.written = 0
        self.listed = 0

    def add(self, frame: Frame, t: float | None = None) -> str:
        """Record ``frame``; returns the file name listed for it."""
        from ..storage import write_atomic
        from .gate import MotionMeter

        thumb = self._meter.thumbnail(frame.image)
        same = (
            self.dedupe
            and self._last_thumb is not None
            and self._last_file is not None
            and thumb.shape == self._last_thumb.shape
            and float(np.mean(np.abs(thumb - self._last_thumb))) < self.dedupe_level
        )
        fine = MotionMeter.fine(frame.image) if self.dedupe else None
        if same:
            # a small change (a waste card turned, a suit sign) moves the thumbnail's mean
            # less than noise does: the picture is the same only if no card-sized spot of it
            # changed at full resolution either -- the check the live coach's gate makes
            same = MotionMeter.changed_pixels(self._last_fine, fine) < self.fine_pixels
        if not same:
            self._last_fine = fine
            name = f"frame_{self._count:06d}.jpg"
            self._count += 1
            ok, data = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            if not ok:
                raise SourceError(f"could not encode frame {frame.name} as JPEG")
            write_atomic(self.folder / name, data.tobytes())
            self._last_file, self._last_thumb = name, thumb
            self.written += 1
        entry = {"file": self._last_file, "t": round(frame.timestamp if t is None else t, 4)}
        if frame.forced:
            entry["forced"] = True
        self._manifest.write(json.dumps(entry) + "\n")
        self._manifest.flush()
        self.listed += 1
        return self._last_file

    def close(self) -> None:
        if not self._manifest.closed:
            self._manifest.flush()
            os.fsync(self._manifest.fileno())
            self._manifest.close()


class VideoFileSource:
    """The frames of a video file (anything OpenCV's FFmpeg backend reads)."""

    live = False

    def __init__(self, path: str | os.PathLike, *, step: int = 1) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"video file {str(self.path)!r} does not exist")
        with _stderr_silenced():  # FFmpeg's own lines for a file that is no video ("moov atom not found")
            self.cap = _open_capture_quietly(str(self.path))
            ok, first = self.cap.read() if self.cap.isOpened() else (False, None)
        if not self.cap.isOpened():
            raise SourceError(f"video file {str(self.path)!r} could not be opened (not a video OpenCV can read?)")
        if not ok or first is None:
            self.cap.release()
            raise SourceError(
                f"video file {str(self.path)!r} holds no frame OpenCV can read (not a video, or a damaged one?)"
            )
        self._first = first  # read at the open, to know it is a video: the first frame read() gives
        fps = self.cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 30.0
        self.step = max(1, int(step))
        self.name = f"video {self.path.name}"
        self._index = 0

    def read(self) -> Frame | None:
        if self.cap is None:
            return None
        skip = self.step - 1
        if self._first is not None:
            image, self._first = self._first, None
            if skip == 0:
                self._index += 1
                return Frame(image, 0, 0.0, f"{self.path.name} #0")
            self._index += 1
            skip -= 1
        for _ in range(skip):
            if not self.cap.grab():
                return None
            self._index += 1
        ok, image = self.cap.read()
        if not ok or image is None:
            return None
        i = self._index
        self._index += 1
        return Frame(image, i, i / self.fps, f"{self.path.name} #{i}")

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


def bgr_picture(image) -> tuple[np.ndarray | None, str | None]:
    """``image`` as the 8-bit BGR picture the read gate and the card detector take, and what
    it was when it was not one (None when it was): a camera may give grey, BGRA or 16-bit
    pictures (a mono or infrared camera, a driver's other pixel format), which are converted;
    (None, what) for one that cannot be (no pixels, an odd channel count or pixel type)."""
    if not isinstance(image, np.ndarray) or image.size == 0 or image.ndim not in (2, 3):
        shape = "x".join(map(str, getattr(image, "shape", ()))) or "no"
        return None, f"an empty or shapeless picture ({shape} pixels)"
    channels = 1 if image.ndim == 2 else image.shape[2]
    what = {1: "grey", 3: "colour", 4: "colour with alpha (BGRA)"}.get(channels, f"{channels}-channel")
    if image.dtype not in (np.uint8, np.uint16) or channels not in (1, 3, 4):
        return None, f"{what} pictures of {image.dtype} pixels"
    out = image
    if out.dtype == np.uint16:
        out = (out >> 8).astype(np.uint8)
    if channels == 1:
        out = cv2.cvtColor(out.reshape(out.shape[:2]), cv2.COLOR_GRAY2BGR)
    elif channels == 4:
        out = cv2.cvtColor(out, cv2.COLOR_BGRA2BGR)
    if out is image:
        return image, None
    return out, f"{what} pictures of {image.dtype} pixels"


def parse_camera(spec: str | int) -> int | str:
    """``0`` -> camera index 0; ``/dev/video2`` -> that device path."""
    if isinstance(spec, int):
        return spec
    s = str(spec).strip()
    if s.isdigit():
        return int(s)
    return s


@contextmanager
def _stderr_silenced():
    """Standard error (file descriptor 2) sent to the null device for the block: FFmpeg
    prints its own log there itself ("moov atom not found" for a file that is no video),
    which OpenCV's log level does not reach. For a short open at start only: another
    thread's error printed meanwhile would be lost too."""
    try:
        sys.stderr.flush()
    except (AttributeError, ValueError, OSError):
        pass  # no Python stderr, or a closed one: nothing of ours waits to be written
    try:
        saved = os.dup(2)
    except OSError:  # no standard error at all: nothing to silence
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _open_capture_quietly(device: int | str):
    """``cv2.VideoCapture(device)`` with OpenCV's own log silenced while it opens: each
    backend it tries for a missing camera prints its warnings and errors (ten lines
    before ours, which says what to check)."""
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        return cv2.VideoCapture(device)
    finally:
        logging.setLogLevel(level)


MISSES_BEFORE_DOWN = 5
"""Reads in a row without a picture before a camera counts as gone (unplugged) and is
reopened: USB cameras drop a single picture now and then, which is no outage."""


class CameraSource:
    """A live camera through ``cv2.VideoCapture``, by index or device path, at a chosen size.

    ``read`` returns ``None`` while the camera gives no picture; a picture dropped now and
    then is only skipped, but after ``MISSES_BEFORE_DOWN`` reads in a row without one it warns
    (once per outage, through ``warn``) and reopens the camera after ``retry_s`` seconds,
    doubling up to ``max_retry_s``. Nothing is raised after the first successful open, so unplugging the
    camera mid-game never ends the game. ``purpose`` names what is kept meanwhile in those
    warnings (``the game``, ``the recording``). ``opener`` builds the capture object; tests
    pass a fake, the default is ``cv2.VideoCapture``.

    A video file given as the camera stands in for one: its frames come at the file's
    frame rate, and once it has ended ``read`` returns ``None`` with ``ended`` True (it is
    not reopened: that would play it again from the start, for ever).
    """

    live = True

    def __init__(
        self,
        camera: str | int = 0,
        *,
        width: int = 1280,
        height: int = 720,
        warn: Callable[[str], None] | None = None,
        retry_s: float = 0.5,
        max_retry_s: float = 5.0,
        opener: Callable[[int | str], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        require_open: bool = True,
        purpose: str = "the game",
    ) -> None:
        self.device = parse_camera(camera)
        if (
            isinstance(self.device, str)
            and not any(mark in self.device for mark in ("://", "%", "!"))
            and not Path(self.device).exists()
        ):
            # (a stream URL, an image sequence such as img_%04d.png and a GStreamer
            # pipeline go to OpenCV as they are)
            raise SourceError(
                f"camera {self.device!r}: no such file or device (a camera is an index such as 0, "
                f"a device path such as /dev/video0, a stream URL, or a video file)"
            )
        self.file = isinstance(self.device, str) and Path(self.device).is_file()
        self.ended = False
        self.purpose = purpose
        self._fps = 30.0
        self._start: float | None = None
        self.width, self.height = int(width), int(height)
        self.name = f"camera {self.device}"
        self._warn = warn or (lambda msg: None)
        self._opener = opener or _open_capture_quietly
        self._clock = clock
        self.retry_s, self.max_retry_s = retry_s, max_retry_s
        self._delay = retry_s
        self._next_try = 0.0
        self._cap = None
        self._index = 0
        self._down = False
        self._misses = 0  # reads in a row without a picture
        self._formats_said: set[str] = set()  # the picture formats warned of
        self.reconnects = 0
        if not self._open() and require_open:
            if self.file:
                raise SourceError(
                    f"camera {str(self.device)!r}: the file could not be opened as a video (damaged, "
                    f"or not a video format OpenCV reads)"
                )
            raise SourceError(
                f"{self.name} could not be opened: is it plugged in, and not used by another program? "
                f"(on Linux check ls /dev/video*)"
            )

    def _open(self) -> bool:
        try:
            cap = self._opener(self.device)
        except Exception as exc:  # a backend exception is a hiccup, not a crash
            self._warn(f"{self.name}: could not open ({exc})")
            return False
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            return False
        try:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
            if self.file:
                fps = float(cap.get(cv2.CAP_PROP_FPS))
                self._fps = fps if 0 < fps < 1000 else 30.0
        except Exception:
            pass
        self._cap = cap
        return True

    def _drop(self) -> None:
        if self._cap is not None:
            try:
                self._cap.release()
            except Exception:
                pass
        self._cap = None

    def read(self) -> Frame | None:
        if self.ended:
            return None
        now = self._clock()
        if self._cap is None:
            if now < self._next_try:
                return None
            if not self._open():
                self._next_try = now + self._delay
                self._delay = min(self._delay * 2, self.max_retry_s)
                return None
            if self._down:
                self._warn(f"{self.name}: back again; {self.purpose} continues")
                self.reconnects += 1
        try:
            ok, image = self._cap.read()
        except Exception as exc:
            ok, image = False, None
            self._warn(f"{self.name}: read failed ({exc})")
        if (not ok or image is None or image.size == 0) and self.file:
            self.ended = True
            self._drop()
            return None
        if not ok or image is None or image.size == 0:
            self._misses += 1
            if not self._down and self._misses < MISSES_BEFORE_DOWN:
                return None  # a dropped picture: the camera stays open
            if not self._down:
                self._warn(f"{self.name}: no picture (unplugged?); retrying every few seconds, {self.purpose} is kept")
            self._down = True
            self._drop()
            self._next_try = now + self._delay
            self._delay = min(self._delay * 2, self.max_retry_s)
            return None
        self._misses = 0
        if self._down:
            self._down = False
            self._delay = self.retry_s
        image, other = bgr_picture(image)
        if other is not None and other not in self._formats_said:
            # once per kind: a camera that gives grey pictures gives them all along
            self._formats_said.add(other)
            self._warn(
                f"{self.name}: gives {other}, "
                + (
                    "converted to colour (BGR) for reading"
                    if image is not None
                    else f"which cannot be read; skipped ({self.purpose} is kept)"
                )
            )
        if image is None:
            return None
        i = self._index
        self._index += 1
        if self.file:  # a file stands in for a camera: its frames come at its frame rate
            if self._start is None:
                self._start = time.monotonic()
            time.sleep(max(0.0, self._start + i / self._fps - time.monotonic()))
            now = self._clock()
        return Frame(image, i, now, f"{self.name} #{i}")

    @property
    def connected(self) -> bool:
        """True while the camera is open and giving pictures."""
        return self._cap is not None and not self._down

    def close(self) -> None:
        self._drop()


def open_source(
    *,
    camera: str | int | None = None,
    frames: str | os.PathLike | None = None,
    video: str | os.PathLike | None = None,
    width: int = 1280,
    height: int = 720,
    fps: float = 5.0,
    warn: Callable[[str], None] | None = None,
) -> FrameSource:
    """Open exactly one of ``camera``, ``frames`` (folder, or a video file) or ``video``."""
    given = [x for x in (camera, frames, video) if x is not None]
    if len(given) != 1:
        raise SourceError("give exactly one frame source: a camera, a frames folder or a video file")
    if camera is not None:
        return CameraSource(camera, width=width, height=height, warn=warn)
    path = Path(frames if frames is not None else video)
    if path.is_dir():
        return FolderSource(path, fps=fps, warn=warn)
    if path.is_file() and (video is not None or path.suffix.lower() in VIDEO_SUFFIXES):
        return VideoFileSource(path)
    if path.is_file():
        raise SourceError(
            f"{str(path)!r} is a file but not a video ({', '.join(VIDEO_SUFFIXES)}); give a folder of frames"
        )
    raise SourceError(f"frames source {str(path)!r} does not exist")


def iter_frames(source: FrameSource) -> Iterator[Frame]:
    """All frames of a finite source (folder or video file)."""
    while True:
        frame = source.read()
        if frame is None:
            return
        yield frame
