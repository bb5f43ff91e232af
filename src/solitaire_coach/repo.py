"""Where the repository this package runs from keeps its shipped folders (``models/``,
``calibration/``, ``fixtures/``, ``out/``)."""

from __future__ import annotations

from pathlib import Path


def repo_root() -> Path:
    """The repository's root folder: the one that holds ``src/solitaire_coach``."""
    return Path(__file__).resolve().parents[2]
