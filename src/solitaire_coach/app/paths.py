"""Paths the user gives: checked before any work, so a bad one is a clear usage error
naming the option and the path, not a traceback at the end."""

from __future__ import annotations

import os
from pathlib import Path


def nearest_existing(path: Path) -> Path:
    """``path`` itself if it exists, else the nearest folder above it that does."""
    path = Path(path)
    for p in (path, *path.parents):
        if p.exists():
            return p
    return path


def file_in_the_way(path: Path) -> Path | None:
    """The file (not a folder) that is ``path`` or one of the folders above it, so that
    ``path`` cannot be a folder or lie in one; None if there is none."""
    p = nearest_existing(path)
    return p if p.exists() and not p.is_dir() else None


def output_problem(path, option: str, *, folder: bool = False, image: bool = False) -> str | None:
    """Why ``path``, given as ``option``, cannot be written, or None if it can.

    The one check of every output path of the command line, made before any work is done
    so that a bad path is a clear usage error naming the option, not a traceback at the
    end. ``path`` is a file (with ``image``, one whose suffix OpenCV can encode; no suffix
    means PNG) or, with ``folder``, a folder; missing folders on the way are made when it is
    written, so only an ordinary file on the way, a file where a folder is wanted (or the
    other way round) and a folder that cannot be written into are problems."""
    if not str(path):
        return f"{option}: an empty path: give a file name"
    path = Path(path)
    where = f"{option} {str(path)!r}"
    if path.exists():
        if folder and not path.is_dir():
            return f"{where} is a file, not a folder"
        if not folder and path.is_dir():
            return f"{where} is a folder, not a file"
    base = nearest_existing(path if folder and path.is_dir() else path.parent)
    if not base.is_dir():
        return f"{where}: {str(base)!r} is a file, not a folder"
    if not os.access(base, os.W_OK | os.X_OK):
        return f"{where}: the folder {str(base)!r} cannot be written into"
    if image:
        import cv2

        if not cv2.haveImageWriter(str(path if path.suffix else path.with_suffix(".png"))):
            return f"{where}: OpenCV cannot write {path.suffix!r} images (use .png or .jpg)"
    return None


def input_file_problem(path, option: str) -> str | None:
    """Why ``path``, given as ``option``, cannot be read as a file, or None if it can: no
    such file, a folder, or no permission; checked before any work (and before OpenCV
    prints its own warning for a missing image)."""
    path = Path(path)
    where = f"{option} {str(path)!r}"
    if not path.exists():
        return f"{where}: no such file"
    if path.is_dir():
        return f"{where} is a folder, not a file"
    if not os.access(path, os.R_OK):
        return f"{where} cannot be read (permission denied)"
    return None
