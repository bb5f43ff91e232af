"""Pips: the suit symbols printed on a card's face, found as ink blobs (issue 40).

A fanned column's covered card shows its top band only. Many designs print the small suit
under the rank, where the next card hides it, but a number card's top row of pips still
shows in that band (the nicu designs); a whole card shows its pips even where its index is
in a font the corner reader does not know. The suit shapes are the one thing every
French-suited deck shares, so the pips tell the suit of a design nobody trained on.

This module only cuts: a card (or the part of it that shows) warped upright to
:data:`VIEW_W` x :data:`VIEW_H` px (:func:`card_view`), its ink blobs of a pip's size
found against the card's own paper colour, and each cut square to :data:`CROP` px
(:func:`pip_crops`). The pip reader (``models/pip_reader.onnx``, trained by
``training/train_pip_reader.py``) names each crop's suit or "no pip" (an index letter,
part of a court's picture), and :func:`suit_of_pips` puts their reads together.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .features import PatchGeom, corner_patch

VIEW_W = 64  # a card warped upright: 64 px wide, 90 tall (a card's 1:1.4)
VIEW_H = 90
CROP = 16  # a pip's crop, square
NO_PIP = 4  # the pip reader's fifth class: not a suit symbol


@dataclass(frozen=True)
class PipCrops:
    """The pip-sized ink blobs of one card view: ``crops`` N x CROP x CROP x 3 BGR uint8,
    ``boxes`` N x 4 (x, y, w, h in view px)."""

    crops: np.ndarray
    boxes: np.ndarray


def card_view(frame_bgr: np.ndarray, corner, u, v, shown: float = 1.0) -> np.ndarray:
    """The card whose top-left corner is ``corner`` and width and height vectors ``u``,
    ``v`` (frame px) warped upright, down to the ``shown`` fraction of its height (a strip's
    visible band): VIEW_W x round(VIEW_H * shown) px BGR."""
    shown = float(min(1.0, max(0.05, shown)))
    geom = PatchGeom(max(4, int(round(VIEW_H * shown))), VIEW_W, (0.0, 1.0), (0.0, shown))
    return corner_patch(frame_bgr, corner, u, v, geom)


def ink_mask(view_bgr: np.ndarray) -> np.ndarray:
    """Where ``view_bgr`` (a card view) is ink: darker than the card's paper (its bright
    90th percentile, channel by channel) by a quarter of the paper's brightness in some
    channel, so red ink (dark in green and blue) counts as black does."""
    v = view_bgr.astype(np.int16)
    paper = np.percentile(view_bgr.reshape(-1, 3), 90, axis=0).astype(np.int16)
    drop = (paper[None, None, :] - v).max(axis=2)
    return (drop > max(40, int(paper.mean()) // 4)).astype(np.uint8)


def ink_blobs(view_bgr: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """(x, y, w, h, area) of every ink blob of ``view_bgr`` (see :func:`ink_mask`); found
    once, it serves both :func:`pip_crops` and :func:`tip_crops` of one view."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink_mask(view_bgr), connectivity=8)
    return [tuple(int(v) for v in stats[k]) for k in range(1, n)]


def _cut(view_bgr: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> PipCrops:
    """Each blob box (x, y, w, h) of ``view_bgr`` cut square (1.3 times its larger side,
    about its centre) and scaled to CROP x CROP."""
    if not boxes:
        return PipCrops(np.zeros((0, CROP, CROP, 3), np.uint8), np.zeros((0, 4), np.int32))
    geom = PatchGeom(CROP, CROP, (0.0, 1.0), (0.0, 1.0))
    crops = []
    for x, y, bw, bh in boxes:
        side = 1.3 * max(bw, bh)
        cx, cy = x + bw / 2.0, y + bh / 2.0
        crops.append(corner_patch(view_bgr, (cx - side / 2, cy - side / 2), (side, 0.0), (0.0, side), geom))
    return PipCrops(np.stack(crops), np.array(boxes, np.int32))


def pip_crops(view_bgr: np.ndarray, margin: int = 2, blobs: list | None = None) -> PipCrops:
    """The ink blobs of ``view_bgr`` of a pip's size (4-20 px across at the view's 64 px
    card width, at least a third of their box inked) that touch neither side nor the top of
    the view (nor ``margin`` px within them: the card's border), each cut square (1.3 times
    its larger side) and scaled to CROP x CROP. A blob may touch the bottom: a strip's top
    pips are often cut there by the covering card; the pip reader learnt such cut pips.
    ``blobs``: the view's :func:`ink_blobs`, where found already."""
    h, w = view_bgr.shape[:2]
    boxes = []
    for x, y, bw, bh, area in ink_blobs(view_bgr) if blobs is None else blobs:
        if not (4 <= bw <= 20 and 4 <= bh <= 20 and area >= 10 and area >= 0.33 * bw * bh):
            continue
        if x < margin or y < margin or x + bw > w - margin or (y + bh > h - margin and bh < 6):
            continue
        boxes.append((x, y, bw, bh))
    return _cut(view_bgr, boxes)


def tip_crops(view_bgr: np.ndarray, margin: int = 2, blobs: list | None = None) -> PipCrops:
    """The tips of pips a covering card cuts, in a strip's view (``view_bgr``, down to where
    the next card lies): ink blobs touching the bottom of the view, at least 3 px tall and
    4-20 px wide (at the view's 64 px card width), a third of their box inked, away from
    the sides and the top and from the index columns (their centre between a quarter and
    four fifths of the width). On a fanned column of a design whose small suit lies low, the
    next card hides it, and the top row's pips peek out only so (a spade's point, a club's
    round leaf, a heart's two lobes, a diamond's point); each is cut as :func:`pip_crops`
    cuts, for the pip reader, which learnt such cut pips. ``blobs``: as for :func:`pip_crops`."""
    h, w = view_bgr.shape[:2]
    boxes = []
    for x, y, bw, bh, area in ink_blobs(view_bgr) if blobs is None else blobs:
        if not (4 <= bw <= 20 and 3 <= bh <= 20 and area >= 0.33 * bw * bh):
            continue
        if x < margin or y < margin or x + bw > w - margin or y + bh < h - 3:
            continue
        if 0.25 < (x + bw / 2.0) / w < 0.8:
            boxes.append((x, y, bw, bh))
    return _cut(view_bgr, boxes)


def in_index_corner(box) -> bool:
    """Whether a blob's ``box`` (x, y, w, h in view px) lies in one of a card's two index
    corners (its top-left or, upside down, bottom-right quarter-ish): a rank glyph or a
    small suit, not one of the pips that count the rank."""
    x, y, w, h = box
    cx, cy = (x + w / 2) / VIEW_W, (y + h / 2) / VIEW_H
    return bool((cx < 0.27 and cy < 0.42) or (cx > 0.73 and cy > 0.58))


def is_pip(probs: np.ndarray, none_max: float = 0.3) -> np.ndarray:
    """Which blobs of ``probs`` (N x 5 pip reads) count as pips: "no pip" under ``none_max``."""
    return probs[:, NO_PIP] < none_max


def pip_count(probs: np.ndarray, boxes: np.ndarray, none_max: float = 0.3) -> int:
    """How many of a whole card's blobs (their pip reads ``probs`` and ``boxes``) are pips
    outside the index corners: a number card's rank, where its pips stand apart."""
    return int(sum(1 for pip, b in zip(is_pip(probs, none_max), boxes) if pip and not in_index_corner(b)))


def pips_agree(probs: np.ndarray, none_max: float = 0.3) -> bool:
    """Whether every blob of ``probs`` (N x 5 pip reads) that counts as a pip names the same
    suit likeliest."""
    keep = probs[is_pip(probs, none_max)]
    return len(keep) > 0 and len(set(keep[:, :NO_PIP].argmax(1).tolist())) == 1


def suit_of_pips(probs: np.ndarray, none_max: float = 0.3) -> tuple[np.ndarray | None, int]:
    """The suit (4 probabilities, C D H S) that the pip reader's reads ``probs`` (N x 5, the
    fifth "no pip") of one card's blobs tell together, and how many blobs told it: every
    blob whose "no pip" is under ``none_max`` counts as one independent look at the same
    suit (their suit probabilities multiplied). None where no blob counts."""
    keep = probs[is_pip(probs, none_max)]
    if not len(keep):
        return None, 0
    s = keep[:, :NO_PIP] / keep[:, :NO_PIP].sum(1, keepdims=True)
    logp = np.log(s + 1e-6).sum(0)
    p = np.exp(logp - logp.max())
    return p / p.sum(), len(keep)
