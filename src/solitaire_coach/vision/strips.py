"""Strips: the visible band of a card in a fanned column, read whole for its suit (issue 40).

A covered card of a fanned column shows its top band only (13-50% of its height). Many
designs print the small suit under the rank, where the next card hides it; what shows of the
suit then is the top row's pips, often cut by the next card into tips a few pixels tall, and
merged with a frame line or the index into one ink blob (the nicu, ornamental and tango
designs), so :func:`.pips.tip_crops` finds no tip on about half such strips. The strip
reader (``models/strip_reader.onnx``, trained by ``training/train_strip_reader.py``) looks
at the whole band instead: the band as :func:`.pips.card_view` cuts it (64 px wide), put top
first on a :data:`STRIP_H` x :data:`STRIP_W` canvas (:func:`strip_canvas`), -> the suit
(C D H S). It was trained with the index corners often painted out, so it learnt to name the
suit from the pips and their tips as well as from a small suit.

This module only shapes the input; the detector decides where a read is used.
"""

from __future__ import annotations

import numpy as np

from .pips import VIEW_W

STRIP_H = 48  # the canvas: a band of up to 53% of the card (at the view's 90 px height)
STRIP_W = VIEW_W


def strip_canvas(view_bgr: np.ndarray) -> np.ndarray:
    """A strip's view (``view_bgr``, VIEW_W px wide, any height) on a black STRIP_H x
    STRIP_W canvas, its top row first; a view taller than STRIP_H keeps its top STRIP_H rows
    (where a design's small suit and top pips lie). Black below marks where the band ends."""
    out = np.zeros((STRIP_H, STRIP_W, 3), np.uint8)
    h = min(STRIP_H, view_bgr.shape[0])
    out[:h] = view_bgr[:h, :STRIP_W]
    return out
