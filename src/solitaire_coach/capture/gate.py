"""Knowing when to look: read the table only when the picture is still, accept a read
only when two reads in a row agree, and never read while a hand is in the picture.

Three small, separate pieces, each testable on its own:

* :class:`MotionMeter` -- how much the picture changed since the previous frame (mean
  absolute difference of a blurred, downscaled grey image, 0..255).
* :class:`HandCheck` -- is there a hand (a large skin-coloured region) over the table?
* :class:`ReadGate` -- the policy: given motion and hand per frame, says when to run the
  detector, and given the detector's snapshots, says when a snapshot is accepted.

The gate only decides *when* to look; what the cards mean is the tracker's business.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MOTION_SIZE = (160, 90)


class MotionMeter:
    """Mean absolute grey-level change between consecutive frames on a 160x90 thumbnail."""

    def __init__(self, size: tuple[int, int] = MOTION_SIZE) -> None:
        self.size = size
        self._prev: np.ndarray | None = None

    def thumbnail(self, image: np.ndarray) -> np.ndarray:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(grey, self.size, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (5, 5), 0).astype(np.int16)

    def measure(self, image: np.ndarray) -> float:
        """Change since the previous call (``inf`` for the first frame or a size change)."""
        thumb = self.thumbnail(image)
        prev, self._prev = self._prev, thumb
        if prev is None or prev.shape != thumb.shape:
            return float("inf")
        return float(np.mean(np.abs(thumb - prev)))

    def reset(self) -> None:
        self._prev = None


class HandCheck:
    """Finds a hand: a large connected skin-coloured region (YCrCb skin range).

    Card faces have red pips and small face-card pictures; these are small regions,
    far below ``min_area`` (a fraction of the frame; a hand at table distance covers
    several percent). Works on a 320-pixel-wide thumbnail, well under a millisecond.
    """

    def __init__(self, min_area: float = 0.006, width: int = 320) -> None:
        self.min_area = min_area
        self.width = width
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))

    def mask(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        small = cv2.resize(image, (self.width, max(1, round(h * self.width / w))), interpolation=cv2.INTER_AREA)
        ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
        skin = cv2.inRange(ycc, (40, 138, 85), (250, 175, 128))
        # skin is never saturated red (hearts, diamonds are): drop strongly saturated pixels
        hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        skin &= cv2.inRange(hsv, (0, 25, 50), (25, 190, 255)) | cv2.inRange(hsv, (160, 25, 50), (180, 190, 255))
        return cv2.morphologyEx(skin, cv2.MORPH_OPEN, self._kernel)

    def largest_fraction(self, image: np.ndarray) -> float:
        mask = self.mask(image)
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n <= 1:
            return 0.0
        return float(stats[1:, cv2.CC_STAT_AREA].max()) / mask.size

    def __call__(self, image: np.ndarray) -> bool:
        return self.largest_fraction(image) >= self.min_area


@dataclass(frozen=True)
class GateView:
    """What the gate made of one frame. ``read``: run the detector on it."""

    read: bool
    still: bool
    hand: bool
    motion: float
    reason: str


class ReadGate:
    """When to read the table, and when a read counts.

    * A frame is *still* when it differs from the previous one by less than
      ``motion_threshold`` grey levels; the table is read once ``still_frames`` still
      frames have come in a row, and no hand is in the picture.
    * A read is only *accepted* when it agrees with the read before it (``agree`` reads
      in a row giving the same snapshot), with no motion or hand in between.
    * After an accepted read the gate rests until the picture moves again, so a still
      table is not read over and over; ``force()`` (Enter, the serial trigger) asks for
      a read anyway -- still subject to stillness, the hand check and agreement.
    """

    def __init__(self, *, motion_threshold: float = 2.0, still_frames: int = 1, agree: int = 2,
                 hand_check: HandCheck | None = None) -> None:
        self.motion_threshold = motion_threshold
        self.still_frames = still_frames
        self.agree = agree
        self.meter = MotionMeter()
        self.hand_check = hand_check if hand_check is not None else HandCheck()
        self._still_run = 0
        self._resting = False
        self._forced = False
        self._candidate: str | None = None
        self._candidate_count = 0

    def force(self) -> None:
        self._forced = True
        self._resting = False

    def _break(self) -> None:
        self._still_run = 0
        self._candidate = None
        self._candidate_count = 0

    def observe(self, image: np.ndarray) -> GateView:
        """Look at a frame; say whether to read it."""
        motion = self.meter.measure(image)
        still = motion < self.motion_threshold
        if not still:
            self._break()
            self._resting = False
            return GateView(False, False, False, motion, "moving")
        self._still_run += 1
        if self._resting and not self._forced:
            return GateView(False, True, False, motion, "resting (table unchanged since the last read)")
        if self._still_run < self.still_frames:
            return GateView(False, True, False, motion, "settling")
        hand = self.hand_check(image) if self.hand_check else False
        if hand:
            self._candidate = None
            self._candidate_count = 0
            return GateView(False, True, True, motion, "hand in the picture")
        return GateView(True, True, False, motion, "still")

    def offer(self, key: str) -> bool:
        """Give the gate the snapshot read from the last ``read`` frame (as a string key);
        True when it agrees with the reads before it and is accepted."""
        if key == self._candidate:
            self._candidate_count += 1
        else:
            self._candidate = key
            self._candidate_count = 1
        if self._candidate_count >= self.agree:
            self._resting = True
            self._forced = False
            self._candidate = None
            self._candidate_count = 0
            return True
        return False

    def reject(self) -> None:
        """The last read was unusable (e.g. a slot could not be read): start agreement over."""
        self._candidate = None
        self._candidate_count = 0

    def reset(self) -> None:
        self.meter.reset()
        self._break()
        self._resting = False
