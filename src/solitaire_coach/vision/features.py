"""Shared pre-processing for the two networks (used by the detector and the training script).

* locator input: the frame scaled to ``LOC_W`` pixels wide (height padded to a multiple of
  8), RGB float 0..1, NCHW; its output is a stride-4 map of card top-left corners.
* reader input: the corner index patch of one card, cut from the full frame along the
  card's axes, ``READ_H`` x ``READ_W`` RGB float 0..1. The patch reaches down to 45% of the
  card's height: the rank and the small suit under it, also on decks whose suit sits low
  (the strip a fanned card shows is cut the same way; what lies below it is the next card).
  A model folder may name another geometry in ``vision.json`` (``patch``), see :class:`PatchGeom`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

LOC_W = 640
STRIDE = 4
READ_W = 36
READ_H = 64
# the patch, in fractions of the card width/height from its top-left corner
PATCH_X = (-0.05, 0.31)
PATCH_Y = (-0.03, 0.45)


@dataclass(frozen=True)
class PatchGeom:
    """Where the reader's patch lies on a card (fractions of its width / height from the
    top-left corner) and its size in pixels."""

    read_h: int = READ_H
    read_w: int = READ_W
    x: tuple[float, float] = PATCH_X
    y: tuple[float, float] = PATCH_Y

    @staticmethod
    def from_config(cfg: dict | None) -> PatchGeom:
        """From ``vision.json``'s ``patch`` entry; a model folder without one has the first
        shipped geometry (48 x 36, down to 30% of the card)."""
        if not cfg:
            return PatchGeom(48, 36, (-0.05, 0.31), (-0.03, 0.30))
        return PatchGeom(int(cfg["read_h"]), int(cfg["read_w"]), tuple(cfg["x"]), tuple(cfg["y"]))

    def to_config(self) -> dict:
        """The geometry as the ``patch`` entry of ``vision.json`` (read back by ``from_config``)."""
        return {"read_h": self.read_h, "read_w": self.read_w, "x": list(self.x), "y": list(self.y)}


DEFAULT_GEOM = PatchGeom()
# the whole-face reader's cut: a whole card with a little of what lies around it, 48 x 68 px
FACE_GEOM = PatchGeom(68, 48, (-0.03, 1.03), (-0.02, 1.02))
# the band reader's cut: the top of a card, its whole width down to 45% of its height, 48 x 32
# px: the index, a suit beside or below it, the top pips or the court's head. It is what a
# covered card of a fanned pile shows (the rest is the covering card, which the reader learnt
# to look past)
BAND_GEOM = PatchGeom(32, 48, (-0.03, 1.03), (-0.02, 0.45))


def locator_input(frame_bgr: np.ndarray, width: int = LOC_W) -> tuple[np.ndarray, float]:
    """Scaled, padded frame as uint8 HxWx3 (BGR) and the scale (locator px per frame px)."""
    h, w = frame_bgr.shape[:2]
    s = width / w
    nh = int(round(h * s))
    img = cv2.resize(frame_bgr, (width, nh), interpolation=cv2.INTER_AREA)
    ph = (nh + 7) // 8 * 8
    if ph != nh:
        img = cv2.copyMakeBorder(img, 0, ph - nh, 0, 0, cv2.BORDER_REPLICATE)
    return img, s


def to_tensor(imgs_bgr: np.ndarray) -> np.ndarray:
    """uint8 N x H x W x 3 BGR -> float32 N x 3 x H x W RGB in 0..1."""
    n, h, w, _ = imgs_bgr.shape
    out = np.empty((n, 3, h, w), np.float32)
    # one pass, straight into the network's layout (the same floats as casting, then dividing:
    # a tenth of the time for a locator input)
    np.divide(imgs_bgr.transpose(0, 3, 1, 2)[:, ::-1], np.float32(255.0), out=out, dtype=np.float32)
    return out


def corner_patch(frame_bgr: np.ndarray, corner, u, v, geom: PatchGeom = DEFAULT_GEOM) -> np.ndarray:
    """The index patch of a card whose top-left corner is ``corner`` and whose width and
    height vectors (image px) are ``u`` and ``v``; returns read_h x read_w x 3 uint8."""
    corner = np.asarray(corner, np.float64)
    u = np.asarray(u, np.float64)
    v = np.asarray(v, np.float64)
    o = corner + geom.x[0] * u + geom.y[0] * v
    ax = (geom.x[1] - geom.x[0]) * u / geom.read_w
    ay = (geom.y[1] - geom.y[0]) * v / geom.read_h
    # patch pixel (i, j) -> frame point o + i*ax + j*ay; warpAffine wants the inverse map
    A = np.array([[ax[0], ay[0], o[0]], [ax[1], ay[1], o[1]]], np.float64)
    return cv2.warpAffine(
        frame_bgr,
        A,
        (geom.read_w, geom.read_h),
        flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def decode_peaks(out: np.ndarray, thresh: float = 0.3) -> list[tuple[float, float, float, float, float, int, float]]:
    """Peaks of the locator output (6 x h x w: face, back heat logits, dx, dy, log w, log h;
    a locator that also finds how far each card is turned has a 7th map, the angle of its
    top edge in radians) as (x, y, w, h, score, kind, angle) in locator pixels; kind 0 face,
    1 back; angle 0 from a locator without the 7th map."""
    heat = 1.0 / (1.0 + np.exp(-out[:2]))
    peaks = []
    # face-up corners and backs are found apart: the first face-up card of a column lies
    # only a strip's height below the last back
    for kind in (0, 1):
        best = np.ascontiguousarray(heat[kind])
        dil = cv2.dilate(best, np.ones((3, 3), np.uint8))
        ys, xs = np.nonzero((best >= dil) & (best > thresh))
        peaks += _peaks(out, best, ys, xs, kind)
    return peaks


def _peaks(out, best, ys, xs, kind):
    peaks = []
    turned = out.shape[0] > 6
    for y, x in zip(ys, xs):
        px = (x + out[2, y, x]) * STRIDE
        py = (y + out[3, y, x]) * STRIDE
        angle = float(np.clip(out[6, y, x], -0.7, 0.7)) if turned else 0.0
        peaks.append(
            (
                float(px),
                float(py),
                float(np.exp(out[4, y, x])),
                float(np.exp(out[5, y, x])),
                float(best[y, x]),
                kind,
                angle,
            )
        )
    return peaks
