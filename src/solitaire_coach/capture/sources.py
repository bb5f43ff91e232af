"""Frame sources behind one interface: a camera, a video file, a folder of images.

Every source yields :class:`Frame` objects from :meth:`FrameSource.read`, which
returns ``None`` when there is (for now) no frame: the end of a file or folder, or a
camera that stopped answering. A camera that stops answering is not an error: the
:class:`CameraSource` closes it, warns once, and tries to open it again at growing
intervals, so a camera unplugged mid-game and plugged back continues the same game.

Sources never decide anything about cards or rules; they only deliver pictures.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Protocol

import cv2
import numpy as np

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
    forced: bool = False  # the person asked for a read (Enter / serial trigger)
    meta: dict = field(default_factory=dict)


class FrameSource(Protocol):
    name: str
    live: bool  # True for a camera: frames keep coming, None is a hiccup not the end

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


def _natural_key(path: Path) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


class FolderSource:
    """The images of a folder in natural name order (``frame_2`` before ``frame_10``).

    A file that cannot be decoded is skipped with a warning naming it (through ``warn``),
    never a crash. ``timestamp`` is the frame index divided by ``fps`` (recordings are
    taken at a steady rate) unless a ``frames.json``-style timestamp is supplied.
    """

    live = False

    def __init__(self, folder: str | os.PathLike, *, fps: float = 5.0,
                 warn: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"frames folder {str(self.folder)!r} does not exist or is not a folder")
        self.paths = sorted((p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
                            key=_natural_key)
        if not self.paths:
            raise SourceError(f"frames folder {str(self.folder)!r} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps
        self.name = f"folder {self.folder}"
        self._warn = warn or (lambda msg: None)
        self._next = 0

    def __len__(self) -> int:
        return len(self.paths)

    def read(self) -> Frame | None:
        while self._next < len(self.paths):
            i = self._next
            self._next += 1
            path = self.paths[i]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self._warn(f"{path}: not a readable image, skipped")
                continue
            return Frame(image, i, i / self.fps, path.name)
        return None

    def close(self) -> None:
        self._next = len(self.paths)


class VideoFileSource:
    """The frames of a video file (anything OpenCV's FFmpeg backend reads)."""

    live = False

    def __init__(self, path: str | os.PathLike, *, step: int = 1) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"video file {str(self.path)!r} does not exist")
        self.cap = cv2.VideoCapture(str(self.path))
        if not self.cap.isOpened():
            raise SourceError(f"video file {str(self.path)!r} could not be opened (not a video OpenCV can read?)")
        fps = self.cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 30.0
        self.step = max(1, int(step))
        self.name = f"video {self.path.name}"
        self._index = 0

    def read(self) -> Frame | None:
        if self.cap is None:
            return None
        for _ in range(self.step - 1):
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


def parse_camera(spec: str | int) -> int | str:
    """``0`` -> camera index 0; ``/dev/video2`` -> that device path."""
    if isinstance(spec, int):
        return spec
    s = str(spec).strip()
    if s.isdigit():
        return int(s)
    return s


class CameraSource:
    """A live camera through ``cv2.VideoCapture``, by index or device path, at a chosen size.

    ``read`` returns ``None`` (and warns once per outage through ``warn``) while the camera
    gives no picture; it then reopens the camera after ``retry_s`` seconds, doubling up to
    ``max_retry_s``. Nothing is raised after the first successful open, so unplugging the
    camera mid-game never ends the game. ``opener`` builds the capture object; tests pass a
    fake, the default is ``cv2.VideoCapture``.
    """

    live = True

    def __init__(self, camera: str | int = 0, *, width: int = 1280, height: int = 720,
                 warn: Callable[[str], None] | None = None, retry_s: float = 0.5, max_retry_s: float = 5.0,
                 opener: Callable[[int | str], object] | None = None, clock: Callable[[], float] = time.monotonic,
                 require_open: bool = True) -> None:
        self.device = parse_camera(camera)
        self.width, self.height = int(width), int(height)
        self.name = f"camera {self.device}"
        self._warn = warn or (lambda msg: None)
        self._opener = opener or (lambda dev: cv2.VideoCapture(dev))
        self._clock = clock
        self.retry_s, self.max_retry_s = retry_s, max_retry_s
        self._delay = retry_s
        self._next_try = 0.0
        self._cap = None
        self._index = 0
        self._down = False
        self.reconnects = 0
        if not self._open() and require_open:
            raise SourceError(f"{self.name} could not be opened: is it plugged in, and not used by another program? "
                              f"(on Linux check ls /dev/video*)")

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
        now = self._clock()
        if self._cap is None:
            if now < self._next_try:
                return None
            if not self._open():
                self._next_try = now + self._delay
                self._delay = min(self._delay * 2, self.max_retry_s)
                return None
            if self._down:
                self._warn(f"{self.name}: back again; the game continues")
                self.reconnects += 1
        try:
            ok, image = self._cap.read()
        except Exception as exc:
            ok, image = False, None
            self._warn(f"{self.name}: read failed ({exc})")
        if not ok or image is None or image.size == 0:
            if not self._down:
                self._warn(f"{self.name}: no picture (unplugged?); retrying every few seconds, the game is kept")
            self._down = True
            self._drop()
            self._next_try = now + self._delay
            self._delay = min(self._delay * 2, self.max_retry_s)
            return None
        if self._down:
            self._down = False
            self._delay = self.retry_s
        i = self._index
        self._index += 1
        return Frame(image, i, now, f"{self.name} #{i}")

    @property
    def connected(self) -> bool:
        return self._cap is not None and not self._down

    def close(self) -> None:
        self._drop()


def open_source(*, camera: str | int | None = None, frames: str | os.PathLike | None = None,
                video: str | os.PathLike | None = None, width: int = 1280, height: int = 720,
                fps: float = 5.0, warn: Callable[[str], None] | None = None) -> FrameSource:
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
        raise SourceError(f"{str(path)!r} is a file but not a video ({', '.join(VIDEO_SUFFIXES)}); give a folder of frames")
    raise SourceError(f"frames source {str(path)!r} does not exist")


def iter_frames(source: FrameSource) -> Iterator[Frame]:
    """All frames of a finite source (folder or video file)."""
    while True:
        frame = source.read()
        if frame is None:
            return
        yield frame
