"""Knowing when to look: read the table only when the picture is still, accept a read
only when two reads in a row agree, and never read while a hand is in the picture.

Three small, separate pieces, each testable on its own:

* :class:`MotionMeter` -- how much the picture changed since the previous frame (mean
  absolute difference of a blurred, downscaled grey image, 0..255).
* :class:`HandCheck` -- is there a hand (a large skin-coloured region) over the table?
* :class:`ObjectCheck` -- after a read: is something of any colour over the table that no
  card read accounts for (a gloved hand, a sleeve)?
* :class:`ReadGate` -- the policy: given motion and hand per frame, says when to run the
  detector, and given the detector's snapshots, says when a snapshot is accepted.

The gate only decides *when* to look; what the cards mean is the tracker's business.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

MOTION_SIZE = (320, 180)


def shrink(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` scaled down to ``size`` (w, h), smoothed (pyramid halvings, then linear):
    much faster than INTER_AREA and as free of aliasing for these checks."""
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        image = cv2.pyrDown(image)
    if image.shape[1] != size[0] or image.shape[0] != size[1]:
        image = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
    return image


CHANGE_LEVEL = 24  # a thumbnail pixel "changed" when its grey level moved this much
RESTING = "resting (table unchanged since the last read)"  # the reason of a view while nothing changed


class MotionMeter:
    """Change between pictures on a blurred 320x180 grey thumbnail: the mean absolute
    difference (0..255; whole-picture motion such as a hand) and the fraction of pixels
    that changed by more than ``CHANGE_LEVEL`` (small local changes such as one card
    replaced by another). Sensor noise moves neither."""

    def __init__(self, size: tuple[int, int] = MOTION_SIZE) -> None:
        self.size = size
        self._prev: np.ndarray | None = None
        self.last_fraction = 0.0

    def thumbnail(self, image: np.ndarray) -> np.ndarray:
        """The small, blurred grey picture that motion is measured on."""
        image = shrink(image, self.size)
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        return cv2.GaussianBlur(grey, (3, 3), 0).astype(np.int16)

    @staticmethod
    def compare(a: np.ndarray | None, b: np.ndarray | None) -> tuple[float, float]:
        """(mean absolute difference, fraction of changed pixels); (inf, 1) if not comparable."""
        if a is None or b is None or a.shape != b.shape:
            return float("inf"), 1.0
        diff = np.abs(a - b)
        return float(diff.mean()), float(np.count_nonzero(diff > CHANGE_LEVEL)) / diff.size

    @staticmethod
    def fine(image: np.ndarray, max_width: int = 1280) -> np.ndarray:
        """The picture at full resolution (up to ``max_width``) for small, slow changes
        (a K♠ turned where a K♣ lay changes only a suit sign); a 3x3 median takes out
        isolated noisy pixels."""
        if image.shape[1] > max_width:
            image = shrink(image, (max_width, round(image.shape[0] * max_width / image.shape[1])))
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        return cv2.medianBlur(grey, 3).astype(np.int16)

    @staticmethod
    def changed_pixels(a: np.ndarray | None, b: np.ndarray | None, level: int = 30) -> int:
        """How many pixels differ by more than ``level`` between two pictures (a huge number
        when they cannot be compared)."""
        if a is None or b is None or a.shape != b.shape:
            return 1 << 30
        return int(np.count_nonzero(np.abs(a - b) > level))

    def measure(self, image: np.ndarray) -> float:
        """Mean change since the previous call (``inf`` for the first frame or a size
        change); the changed fraction is left in ``last_fraction``."""
        thumb = self.thumbnail(image)
        prev, self._prev = self._prev, thumb
        mean, self.last_fraction = self.compare(prev, thumb)
        return mean

    @property
    def last(self) -> np.ndarray | None:
        """The thumbnail of the last picture measured (None before the first)."""
        return self._prev

    def reset(self) -> None:
        """Forget the last picture: the next one measures as a change."""
        self._prev = None


def colour_change(image: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Per pixel, the largest change of any colour channel between two same-sized pictures,
    after a light blur (float32, grey levels)."""
    a = cv2.GaussianBlur(image, (5, 5), 0).astype(np.int16)
    b = cv2.GaussianBlur(reference, (5, 5), 0).astype(np.int16)
    return np.abs(a - b).max(axis=2).astype(np.float32)


def edge_strength(image: np.ndarray) -> np.ndarray:
    """How strong an edge the picture has at or next to each pixel: the largest colour
    gradient (Sobel, grey levels a pixel) within two pixels."""
    blurred = cv2.GaussianBlur(image, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = cv2.magnitude(gx, gy) / 8.0
    if magnitude.ndim == 3:
        magnitude = magnitude.max(axis=2)
    return cv2.dilate(magnitude, np.ones((5, 5), np.uint8))


def sharp_region(
    mask: np.ndarray,
    diff: np.ndarray,
    min_pixels: float,
    edge: float,
    *,
    need_border: bool = False,
    present: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
    gain: float = 0.0,
    direction: bool = False,
    box: list | None = None,
) -> int:
    """The area in pixels of the largest region of ``mask`` (at least ``min_pixels``) whose
    outline is a sharp step in ``diff`` (median slope at least ``edge`` grey levels a pixel:
    an object, not a change of light fading in); with ``need_border`` only regions that reach
    the picture's edge count. With ``present`` (giving the edge strength of the picture
    and of the reference, see :func:`edge_strength`; called when first needed) a region
    whose outline is not a sharp step in ``diff`` counts too if its outer outline is an
    edge in the picture stronger by more than ``gain`` than in the reference (an object
    little different from the table it covers); with ``direction`` every region must be
    more of an edge there in the picture than in the reference (the object is there now:
    one that was in the reference and left changes the same pixels, but the table it
    uncovered has no edge there). 0 if none; ``box`` (a list) gets the region's (x, y, w, h)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return 0
    slope = None
    h, w = mask.shape[:2]
    for k in np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1:
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < min_pixels:
            break
        x, y, bw, bh = (int(v) for v in stats[k, :4])
        if need_border and x > 1 and y > 1 and x + bw < w - 1 and y + bh < h - 1:
            continue
        if slope is None:
            gx = cv2.Sobel(diff, cv2.CV_32F, 1, 0, ksize=3)
            gy = cv2.Sobel(diff, cv2.CV_32F, 0, 1, ksize=3)
            slope = cv2.magnitude(gx, gy) / 8.0
        region = (labels[y : y + bh, x : x + bw] == k).astype(np.uint8)
        outline = (
            region - cv2.erode(region, np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
        ) > 0
        sharp = float(np.median(slope[y : y + bh, x : x + bw][outline])) >= edge
        if not sharp and present is None:
            continue
        if present is not None and (direction or not sharp):
            # the region's outer outline, without the picture's own edge
            contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            outer = np.zeros_like(region)
            cv2.drawContours(outer, contours, -1, 1, 1)
            outer = outer > 0
            if x == 0:
                outer[:, 0] = False
            if y == 0:
                outer[0, :] = False
            if x + bw >= w:
                outer[:, -1] = False
            if y + bh >= h:
                outer[-1, :] = False
            if not outer.any():
                continue
            if callable(present):
                present = present()
            now, before = (float(np.median(e[y : y + bh, x : x + bw][outer])) for e in present)
            if (direction and now <= before) or (not sharp and now - before <= gain):
                continue
        if box is not None:
            box[:] = [x, y, bw, bh]
        return area
    return 0


class HandCheck:
    """Finds a hand: a large skin-coloured region where the picture has changed, with a
    sharp outline.

    * *Skin* is the usual YCrCb skin range, less strongly saturated pixels (red pips of
      hearts and diamonds are saturated). Pips and small face-card pictures are far below
      ``min_area`` (a fraction of the frame; a hand and wrist at table distance cover
      several percent, a card about 1.5%).
    * *Changed*: compared with the ``reference`` picture (the last one accepted without a
      hand; before the first read, the first still picture) a pixel's colour moved by more
      than ``change`` grey levels. A hand covers what was there; a skin-coloured table,
      or a pink blotch of a patterned cloth, was in the reference too and does not count,
      while a hand lying over such a blotch does (where its colour differs from it).
    * *Sharp outline*: a hand ends in a step against the table; a change of light (a lamp
      warming the cards, a bright spot moving over the cloth) fades in over many pixels.
      The median slope of the colour change along the region's outline must be at least
      ``edge`` grey levels a pixel (hands 9 to 30, light changes 2 to 6 on the recorded
      games).

    * ``from_edge``: only a region that reaches the picture's edge counts (an arm comes in
      from outside the picture). For photos taken every few moves: against the last photo
      taken, the wooden table uncovered where a fanned column's cards were is skin-coloured,
      changed and sharply outlined, and took 4 of game4's photos taken every 4 moves for
      hands; a camera compares with the picture before a move, where that is rare. The
      price: on a table of the arm's own colour only the part of a hand over the cards has
      changed, and that does not reach the edge, so such a hand is not seen in a photo
      (photos are taken on purpose, with the hands away).

    With no reference every skin-coloured pixel counts (the outline is not checked).
    Runs on a 320-pixel-wide thumbnail, about a millisecond.
    """

    def __init__(
        self, min_area: float = 0.02, width: int = 320, change: int = 30, edge: float = 8.0, from_edge: bool = False
    ) -> None:
        self.min_area = min_area
        self.width = width
        self.change = change
        self.edge = edge
        self.from_edge = from_edge
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))

    def small(self, image: np.ndarray) -> np.ndarray:
        """``image`` shrunk to the check's working width."""
        h, w = image.shape[:2]
        return image if w == self.width else shrink(image, (self.width, max(1, round(h * self.width / w))))

    def mask(self, image: np.ndarray) -> np.ndarray:
        """The skin-coloured pixels of ``image`` (at the working width), as a 0/255 mask."""
        small = self.small(image)
        ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
        skin = cv2.inRange(ycc, (40, 138, 85), (250, 175, 128))
        hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        skin &= cv2.inRange(hsv, (0, 25, 50), (25, 190, 255)) | cv2.inRange(hsv, (160, 25, 50), (180, 190, 255))
        return cv2.morphologyEx(skin, cv2.MORPH_OPEN, self._kernel)

    def largest_fraction(self, image: np.ndarray, reference: np.ndarray | None = None) -> float:
        """The area (fraction of the picture) of the largest hand-like region: skin-coloured,
        changed since ``reference`` (a picture) and sharply outlined; 0.0 if none."""
        small = self.small(image)
        mask = self.mask(small)
        diff = None
        if reference is not None:
            reference = self.small(reference)
            if reference.shape == small.shape:
                diff = colour_change(small, reference)
                changed = np.where(diff > self.change, 255, 0).astype(np.uint8)
                mask = cv2.morphologyEx(mask & changed, cv2.MORPH_OPEN, self._kernel)
        if diff is None:
            n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
            return float(stats[1:, cv2.CC_STAT_AREA].max()) / mask.size if n > 1 else 0.0
        return sharp_region(mask, diff, 0.5 * self.min_area, self.edge, need_border=self.from_edge) / mask.size

    def __call__(self, image: np.ndarray, reference: np.ndarray | None = None) -> bool:
        return self.largest_fraction(image, reference) >= self.min_area


class ObjectCheck:
    """Finds something over the table that is not a card, whatever its colour (a gloved
    hand, a sleeve, an arm in a light that makes it look olive): a region that changed
    since the ``reference`` picture (the last accepted one), that lies outside every card
    read in either picture, that reaches the picture's edge (an arm comes in from outside
    the picture; a card put down does not touch the edge), whose outline is a sharp step
    of the change (``edge``, as in :class:`HandCheck`: a change of light fades in) or an
    edge in the picture stronger by more than ``gain`` grey levels a pixel than in the
    reference (a dark arm on a grey cloth changes the picture little, but still ends in
    an edge). It runs after the detector, since it needs the cards read. When the
    reference was accepted without this check having looked (the first read, a forced
    read, a moved camera), it may hold a hand itself, and a hand leaving changes the same
    pixels as one coming: then the outline must also be more of an edge in the picture
    than in the reference (the table a hand uncovers has no edge there), so the coach is
    not stuck behind a hand it once took for table.

    * Cards moved, turned, put down or taken away change only places where a card lies
      now or where a card lay that is accounted for, so these places (grown by ``margin``
      of a card's width for shadows and the detector's slack) are taken out of the change:
      every card read in the picture; and every card of the reference that is read again
      at its place (perhaps partly covered) or, face up, anywhere else (it was moved). A
      card of the reference that is read nowhere now does not explain a change at its
      place: an arm lying over a column hides its cards.
    * The change is only looked at while the camera stays put: when the cards read in both
      pictures moved (median more than ``shift`` thumbnail pixels: the camera was nudged,
      turned or zoomed, or the picture is of another scene) the reference says nothing
      about what is new, and the check finds nothing until the next accepted read gives
      a new reference (the skin-colour check still runs). Likewise when the light changed:
      the median colour change over the cards that stayed is more than ``light`` levels.
    * A change over more than ``scene`` of the picture outside the cards is not an object
      but a changed scene (the camera moved more than that, the light was switched); it is
      left to stillness and agreement, as before this check.

    The check cannot see an object that was already there in the reference (before the
    first accepted read it has no reference and finds nothing), nor the part of one that
    lies over places where cards moved; the part over the cloth and over unmoved cards
    must reach the picture's edge. Runs on a 320-pixel-wide thumbnail.
    """

    def __init__(
        self,
        min_area: float = 0.012,
        change: int = 20,
        edge: float = 8.0,
        gain: float = 3.0,
        margin: float = 0.15,
        scene: float = 0.35,
        shift: float = 1.5,
        light: float = 10.0,
        weak: float | None = 10.0,
    ) -> None:
        self.min_area = min_area
        self.gain = gain
        self.weak = weak
        self.light = light
        self.shift = shift
        self.change = change
        self.edge = edge
        self.margin = margin
        self.scene = scene
        self.looked = False
        self.box: tuple[float, float, float, float] | None = None  # the last object found (x, y, w, h), picture pixels
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))

    @staticmethod
    def camera_shift(now: list[tuple[np.ndarray, object]], before: list[tuple[np.ndarray, object]]) -> float | None:
        """How far the camera moved between the reference and the picture: the median
        distance (full-picture pixels) the face-up cards read in both moved; None when no
        card is read in both."""
        ref = {c: np.asarray(q, np.float32).reshape(-1, 2).mean(axis=0) for q, c in before if c is not None}
        moved = [
            float(np.hypot(*(np.asarray(q, np.float32).reshape(-1, 2).mean(axis=0) - ref[c])))
            for q, c in now
            if c is not None and c in ref
        ]
        return float(np.median(moved)) if moved else None

    def card_mask(
        self, shape: tuple[int, int], quads: list[np.ndarray], scale: tuple[float, float], grow: bool = True
    ) -> np.ndarray:
        """255 where a card (of ``quads``, in full-picture pixels, scaled by ``scale``) lies,
        grown by ``margin`` of a card's width unless ``grow`` is False."""
        mask = np.zeros(shape, np.uint8)
        polys = [np.asarray(q, np.float32).reshape(-1, 2) * np.float32(scale) for q in quads]
        polys = [p for p in polys if len(p) >= 3]
        if not polys:
            return mask
        for p in polys:  # one at a time: overlapping polygons drawn together leave holes
            cv2.fillConvexPoly(mask, np.round(cv2.convexHull(p)).astype(np.int32), 255)
        if not grow:
            return mask
        grow = max(1, int(round(self.margin * self.card_width([(q, None) for q in quads], scale))) + 1)
        return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * grow + 1, 2 * grow + 1)))

    @staticmethod
    def card_width(cards: list[tuple[np.ndarray, object]], scale: tuple[float, float]) -> float:
        """The median width of the cards (thumbnail pixels); 0 if none."""
        widths = [float(np.ptp(np.asarray(q, np.float32).reshape(-1, 2)[:, 0])) * scale[0] for q, _ in cards]
        return float(np.median(widths)) if widths else 0.0

    @staticmethod
    def accounted(
        now: list[tuple[np.ndarray, object]], before: list[tuple[np.ndarray, object]]
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(the quads of the places a move changed, the quads of the cards that stayed). The
        places a move changed: of each card read now that the reference
        did not have at its place (a card put down or turned up), and of each face-up card
        of the reference that is not read at its place now but is read elsewhere (moved).
        A card read at the same place in both pictures explains no change there (its own
        picture did not change; a hand over it did), nor does a card read nowhere now.
        Cards are (quad, card) pairs in full-picture pixels, card None for a back."""

        def parts(cards):
            quads = [np.asarray(q, np.float32).reshape(-1, 2) for q, _ in cards]
            return quads, [q.mean(axis=0) for q in quads], [float(q[:, 0].max() - q[:, 0].min()) for q in quads]

        def stays(q_centre, width, card, others, other_centres):
            return any(
                c == card and float(np.hypot(*(q_centre - oc))) < 0.35 * width
                for (_, c), oc in zip(others, other_centres)
            )

        now_q, now_c, now_w = parts(now)
        before_q, before_c, before_w = parts(before)
        seen = {c for _, c in now if c is not None}
        kept = [stays(c, w, card, before, before_c) for c, w, (_, card) in zip(now_c, now_w, now)]
        out = [q for q, k in zip(now_q, kept) if not k]
        out += [
            q
            for q, c, w, (_, card) in zip(before_q, before_c, before_w, before)
            if card is not None and card in seen and not stays(c, w, card, now, now_c)
        ]
        return out, [q for q, k in zip(now_q, kept) if k]

    def unexplained(
        self,
        picture: np.ndarray,
        reference: np.ndarray,
        now: list[tuple[np.ndarray, object]],
        before: list[tuple[np.ndarray, object]],
        scale: tuple[float, float],
    ) -> tuple[np.ndarray, np.ndarray]:
        """(mask of the changes no card accounts for, per-pixel colour change), on the
        thumbnails ``picture`` and ``reference`` (the reference warped by the camera's
        motion first)."""
        diff = colour_change(picture, reference)
        moved, stayed = self.accounted(now, before)
        free = ~self.card_mask(diff.shape, moved, scale)
        changed = cv2.morphologyEx(
            np.where(diff > self.change, 255, 0).astype(np.uint8) & free, cv2.MORPH_OPEN, self._kernel
        )
        if self.weak is None or not changed.any():
            return changed, diff, stayed
        # hysteresis: a region of weaker change on the bare table joined to a strong one
        # belongs to it (a sleeve nearly the colour of the cloth shows strongly only where it
        # lies over cards); not over cards, where a card nudged a pixel changes every pip edge
        table = ~self.card_mask(diff.shape, [q for q, _ in now] + [q for q, _ in before], scale)
        weak = (
            cv2.morphologyEx(np.where(diff > self.weak, 255, 0).astype(np.uint8) & table, cv2.MORPH_OPEN, self._kernel)
            | changed
        )
        n, labels = cv2.connectedComponents(weak, connectivity=8)
        keep = np.zeros(n, bool)
        reach = 2 * int(round(self.margin * self.card_width(now + before, scale))) + 5  # across the margin
        near = cv2.dilate(changed, cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
        keep[np.unique(labels[near > 0])] = True
        keep[0] = False
        return np.where(keep[labels], 255, 0).astype(np.uint8), diff, stayed

    def light_change(self, diff: np.ndarray, stayed: list[np.ndarray], scale: tuple[float, float]) -> float:
        """The median colour change over the cards that stayed in place (0 if none): their
        pictures did not change, so more than noise there is a change of light (or camera)."""
        if not stayed:
            return 0.0
        inside = cv2.erode(self.card_mask(diff.shape, stayed, scale, grow=False), np.ones((3, 3), np.uint8))
        values = diff[inside > 0]
        return float(np.median(values)) if values.size else 0.0

    def largest_fraction(
        self,
        picture: np.ndarray,
        reference: np.ndarray,
        now: list[tuple[np.ndarray, object]],
        before: list[tuple[np.ndarray, object]],
        scale: tuple[float, float],
        clean: bool = True,
    ) -> float:
        """The area (fraction of the picture) of the largest object found; 0.0 if none.
        ``clean`` False: the reference itself may hold an object (it was accepted without
        this check having looked), so a change counts only where the picture has more of an
        edge than the reference (the object came rather than left). ``looked`` says
        afterwards whether the check could look at all (see the class notes).
        ``now``/``before``: the cards read in the picture and in the reference, as
        (quad, card) pairs in full-picture pixels (card None for a back); ``scale`` takes
        full-picture pixels to the thumbnails'."""
        self.looked = False
        self.box = None
        if reference is None or picture.shape != reference.shape or not (now or before):
            return 0.0
        shift = self.camera_shift(now, before)
        if shift is None or shift * max(scale) > self.shift:
            return 0.0
        changed, diff, stayed = self.unexplained(picture, reference, now, before, scale)
        if np.count_nonzero(changed) > self.scene * changed.size or self.light_change(diff, stayed, scale) > self.light:
            return 0.0
        self.looked = True
        box: list = []
        area = sharp_region(
            changed,
            diff,
            self.min_area * changed.size,
            self.edge,
            need_border=True,
            gain=self.gain,
            present=lambda: (edge_strength(picture), edge_strength(reference)),
            direction=not clean,
            box=box,
        )
        if box:
            x, y, w, h = box
            self.box = (x / scale[0], y / scale[1], w / scale[0], h / scale[1])
        return area / changed.size

    def __call__(self, picture, reference, now, before, scale, clean: bool = True) -> bool:
        return self.largest_fraction(picture, reference, now, before, scale, clean) >= self.min_area


@dataclass(frozen=True)
class GateView:
    """What the gate made of one frame. ``read``: run the detector on it."""

    read: bool
    still: bool
    hand: bool
    motion: float
    reason: str
    box: tuple[float, float, float, float] | None = None  # where an object over the table was found (x, y, w, h)


class ReadGate:
    """When to read the table, and when a read counts.

    * A frame is *still* when it differs from the previous one by less than
      ``motion_threshold`` grey levels; the table is read once ``still_frames`` still
      frames have come in a row, and no hand is in the picture.
    * A read is only *accepted* when it agrees with the read before it (``agree`` reads
      in a row giving the same snapshot), with no motion or hand in between.
    * After an accepted read the gate rests until the picture moves again, so a still
      table is not read over and over; ``force()`` (Enter, or a second serial trigger
      before the read) asks for a read anyway -- still subject to stillness and
      agreement, but not to the hand check (the person says the table is clear: the way
      out when a skin-coloured table or light is taken for a hand); ``wake()`` (a serial
      trigger) asks for one with the hand check.
    """

    def __init__(
        self,
        *,
        motion_threshold: float = 2.0,
        change_fraction: float = 0.0005,
        still_frames: int = 1,
        agree: int = 2,
        hand_check: HandCheck | None = None,
        fine_pixels: int = 8,
        object_check: ObjectCheck | None | bool = True,
    ) -> None:
        self.motion_threshold = motion_threshold
        self.photos = False  # every picture a still photo (see for_photos)
        self.fine_pixels = fine_pixels
        self.change_fraction = change_fraction
        self.still_frames = still_frames
        self.agree = agree
        self.meter = MotionMeter()
        self.hand_check = hand_check if hand_check is not None else HandCheck()
        self.object_check = ObjectCheck() if object_check is True else (object_check or None)
        self._shape: tuple[int, int] | None = None  # (h, w) of the last frame looked at
        self._reference_cards: list | None = None  # the cards read in the reference picture
        self._reference_clean = False  # the object check looked at the reference when it was accepted
        self.object_box: tuple[float, float, float, float] | None = None  # where object_seen found one
        self._looked = False  # ... and at the last read
        self._still_run = 0
        self._resting = False
        self._forced = False
        self._candidate: str | None = None
        self._candidate_count = 0
        self._picture: np.ndarray | None = None  # thumbnail of the last frame looked at
        self._reference: np.ndarray | None = None  # thumbnail of the last accepted picture
        self._accepted_fine: np.ndarray | None = None
        self._read_fine: np.ndarray | None = None

    @classmethod
    def for_photos(cls) -> ReadGate:
        """A gate for photos of the table taken on purpose every few moves (a folder of
        pictures, not a video): each picture is a still table, read once and taken on its
        own read (no second read to agree with). The hand check stays (a hand region must
        reach the edge: ``HandCheck.from_edge``); the object check, which compares a picture
        with the last one taken, does not (a hand-held camera frames each photo
        differently)."""
        gate = cls(still_frames=1, agree=1, fine_pixels=0, object_check=None, hand_check=HandCheck(from_edge=True))
        gate.photos = True
        return gate

    def force(self) -> None:
        """Read the next still frame even if the table looks unchanged or a hand is seen
        (the person asked for a read)."""
        self._forced = True
        self._resting = False

    def _break(self) -> None:
        self._still_run = 0
        self._candidate = None
        self._candidate_count = 0

    def observe(self, image: np.ndarray) -> GateView:
        """Look at a frame; say whether to read it."""
        small = shrink(image, self.meter.size)  # one downscale for both checks
        motion = self.meter.measure(small)
        still = self.photos or (motion < self.motion_threshold and self.meter.last_fraction < self.change_fraction)
        fine = None
        if still and self._resting and self._accepted_fine is not None:
            # a change too slow or small to see frame to frame (a K♠ turned where a K♣
            # lay) still ends the rest
            fine = MotionMeter.fine(image)
            if MotionMeter.changed_pixels(self._accepted_fine, fine) >= self.fine_pixels:
                self._resting = False
        if not still:
            self._break()
            self._resting = False
            return GateView(False, False, False, motion, "moving")
        self._still_run += 1
        if self._resting and not self._forced:
            return GateView(False, True, False, motion, RESTING)
        if self._still_run < self.still_frames:
            return GateView(False, True, False, motion, "settling")
        hand = False
        self._picture = small
        self._shape = image.shape[:2]
        if self.hand_check:
            if self._reference is None:
                # nothing read yet: the table's own skin-coloured parts (wood, a beige or
                # blotched cloth) are what the first still picture shows
                self._reference = small
            hand = self.hand_check(small, self._reference)
        if hand and not self._forced:
            self._candidate = None
            self._candidate_count = 0
            return GateView(False, True, True, motion, "hand in the picture")
        self._read_fine = fine if fine is not None else MotionMeter.fine(image)
        return GateView(True, True, False, motion, "still")

    def object_seen(self, cards: list[tuple[np.ndarray, object]]) -> bool:
        """After the detector read the last ``read`` frame (``cards``: (quad, card) pairs,
        card None for a back): is something over the table that is not a card (see
        :class:`ObjectCheck`)? If so the read must not be used and agreement starts over.
        Never after ``force()``, and not before the first accepted read (no reference)."""
        self._looked = False
        self.object_box = None
        if (
            self.object_check is None
            or self._forced
            or self._reference_cards is None
            or self._picture is None
            or self._reference is None
            or self._shape is None
        ):
            return False
        h, w = self._shape
        scale = (self._picture.shape[1] / w, self._picture.shape[0] / h)
        found = self.object_check(
            self._picture, self._reference, cards, self._reference_cards, scale, clean=self._reference_clean
        )
        self._looked = self.object_check.looked
        self.object_box = self.object_check.box if found else None
        if found:
            self._candidate = None
            self._candidate_count = 0
            return True
        return False

    def offer(self, key: str, cards: list[tuple[np.ndarray, object]] | None = None) -> bool:
        """Give the gate the snapshot read from the last ``read`` frame (as a string key,
        with the cards read as for :meth:`object_seen`); True when it agrees with the reads
        before it and is accepted."""
        if key == self._candidate:
            self._candidate_count += 1
        else:
            self._candidate = key
            self._candidate_count = 1
        if self._candidate_count >= self.agree:
            self._reference = self._picture
            self._reference_cards = list(cards) if cards is not None else None
            self._reference_clean = self._looked and not self._forced
            self._looked = False
            self._accepted_fine = self._read_fine
            self._resting = True
            self._forced = False
            self._candidate = None
            self._candidate_count = 0
            return True
        return False

    def wake(self) -> None:
        """Read the still table again (the last accepted read could not be used, say a
        fresh deal with an unreadable card); unlike ``force`` the hand check stays."""
        self._resting = False

    def reject(self) -> None:
        """The last read was unusable (e.g. a slot could not be read): start agreement over."""
        self._candidate = None
        self._candidate_count = 0

    def reset(self) -> None:
        """Start over: no motion history, no candidate read."""
        self.meter.reset()
        self._break()
        self._resting = False
