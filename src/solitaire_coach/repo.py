"""Where the program finds the folders it ships: ``models/``, ``calibration/`` (the example
calibration) and ``fixtures/games`` (the built-in recorded games).

The repository keeps them at its top level. A wheel (``pip install .``, ``python -m build``,
``pipx``) carries a copy inside the package, in ``solitaire_coach/data/`` (copied there by
``setup.py`` at build time), found with :mod:`importlib.resources`. An editable install
(``pip install -e .``) or a run from the sources has no such copy and uses the repository's
own folders, so a retrained model is seen at once.

A person's own files (learnt decks, calibrations, journals) never go here: see
:mod:`solitaire_coach.userdata`."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

#: The folder inside the package that a built wheel carries the shipped folders in.
PACKAGE_DATA = "data"


def packaged_data() -> Path | None:
    """``solitaire_coach/data`` of an installed wheel, or None when this package has none
    (an editable install or a run from the sources)."""
    base = files("solitaire_coach") / PACKAGE_DATA
    path = Path(str(base))
    return path if (path / "models").is_dir() else None


def checkout_root() -> Path:
    """The repository's root folder: the one that holds ``src/solitaire_coach`` (only
    meaningful when the package runs from a checkout)."""
    return Path(__file__).resolve().parents[2]


def repo_root() -> Path:
    """The folder that holds the shipped ``models/``, ``calibration/`` and ``fixtures/``:
    the package's own copy in an installed wheel, else the repository's root folder."""
    return packaged_data() or checkout_root()
