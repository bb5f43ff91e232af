"""Where a person's own files go: learnt decks, calibrations and game journals.

They belong to the person, not to the program, so they never go into the installed package
(a reinstall would lose them) nor into the repository or the current folder (each folder a
command runs from would hold its own). They go into one per-user data folder, the platform's
usual place as ``platformdirs`` names it:

* Linux: ``~/.local/share/solitaire-coach`` (or ``$XDG_DATA_HOME/solitaire-coach``)
* macOS: ``~/Library/Application Support/solitaire-coach``
* Windows: ``%LOCALAPPDATA%\\solitaire-coach``

``SOLITAIRE_COACH_HOME`` names another folder (tests use a temporary one; set but empty
counts as unset). In it:

* ``calibrations/NAME.json`` -- written by ``calibrate --name NAME``, read by
  ``--calibration NAME`` (then the shipped ones, such as ``example``);
* ``decks/NAME/`` -- written by ``learn-deck``, read by ``detect --deck NAME``
  (``SOLITAIRE_DECK_REFS`` still names another folder of decks);
* ``journals/game.journal.json`` -- the journal of ``play`` (``--journal`` names another).

An explicit path (``--folder``, ``--journal``, a ``.json`` calibration path) is used as given.
Nothing is created until something is written."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "SOLITAIRE_COACH_HOME"
APP_NAME = "solitaire-coach"


def user_home() -> Path:
    """The per-user data folder: ``SOLITAIRE_COACH_HOME`` when set, else the platform's."""
    given = os.environ.get(HOME_ENV)
    if given:
        return Path(given).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def user_calibrations_dir() -> Path:
    """Where ``calibrate --name NAME`` writes ``NAME.json`` by default."""
    return user_home() / "calibrations"


def user_decks_dir() -> Path:
    """Where ``learn-deck`` keeps the decks it learns (unless ``SOLITAIRE_DECK_REFS`` is set)."""
    return user_home() / "decks"


def default_journal() -> Path:
    """The journal ``play`` keeps its game in when no ``--journal`` is given."""
    return user_home() / "journals" / "game.journal.json"
