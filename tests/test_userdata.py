"""The person's own files (calibrations, learnt decks, journals) go to the per-user data
folder, never into the package, the repository or the current folder."""

from pathlib import Path

from solitaire_coach import userdata
from solitaire_coach.capture.calibration import calibration_path
from solitaire_coach.repo import repo_root
from solitaire_coach.vision import detector as D


def test_the_home_is_the_env_folder_else_the_platforms(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", str(tmp_path / "h"))
    assert userdata.user_home() == tmp_path / "h"
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", "")  # set but empty counts as unset
    from platformdirs import user_data_dir

    assert userdata.user_home() == Path(user_data_dir("solitaire-coach", appauthor=False))
    monkeypatch.delenv("SOLITAIRE_COACH_HOME")
    assert userdata.user_home().name == "solitaire-coach"


def test_every_own_file_lands_under_the_home_and_outside_the_package(tmp_path, monkeypatch):
    home = tmp_path / "h"
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", str(home))
    monkeypatch.delenv("SOLITAIRE_DECK_REFS", raising=False)
    places = [calibration_path("desk"), D.deck_dir("mine"), userdata.default_journal()]
    assert places == [
        home / "calibrations" / "desk.json",
        home / "decks" / "mine",
        home / "journals" / "game.journal.json",
    ]
    package = Path(userdata.__file__).resolve().parent
    for p in places:
        assert not p.is_relative_to(package) and not p.is_relative_to(repo_root())
    assert not home.exists()  # nothing is made until something is written
    monkeypatch.setenv("SOLITAIRE_DECK_REFS", str(tmp_path / "refs"))
    assert D.deck_dir("mine") == tmp_path / "refs" / "mine"
