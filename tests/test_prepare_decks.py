"""The deck rasteriser's check of face shapes (training/prepare_decks.py; the rasterising
itself needs Debian's card packages and rsvg-convert, which CI does not install)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from repo_scripts import load_script

prepare_decks = load_script("training/prepare_decks.py")


def _face(folder: Path, name: str, h: int, w: int = 144) -> None:
    cv2.imwrite(str(folder / f"{name}.jpg"), np.full((h, w, 3), 255, np.uint8))


def test_a_face_cut_twice_as_tall_is_named(tmp_path):
    """kde-standard's ace of spades once came out 390x144 among faces of 195x144."""
    for code in ("AH", "2H", "3H", "KS"):
        _face(tmp_path, code, 195)
    _face(tmp_path, "AS", 390)
    _face(tmp_path, "back", 158)  # a back of its own shape is no face
    assert prepare_decks.odd_shapes(tmp_path) == ["AS"]


def test_a_pixel_of_rounding_is_no_odd_shape(tmp_path):
    for code in ("AH", "2H", "3H"):
        _face(tmp_path, code, 215)
    _face(tmp_path, "KS", 216)
    assert prepare_decks.odd_shapes(tmp_path) == []
