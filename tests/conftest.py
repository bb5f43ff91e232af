"""Every test runs with its own per-user data folder (``SOLITAIRE_COACH_HOME``), so no test
reads or writes the real one of whoever runs the suite. ``linked_models``: a model folder to
change the settings of."""

import json

import pytest


@pytest.fixture(autouse=True)
def _own_user_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", str(tmp_path_factory.mktemp("coach-home")))


@pytest.fixture
def linked_models(tmp_path):
    """A model folder of links to every shipped network, and the shipped settings (a dict,
    for the test to change and write as the folder's vision.json)."""
    from solitaire_coach.repo import repo_root

    models = repo_root() / "models"
    d = tmp_path / "m"
    d.mkdir()
    for f in models.glob("*.onnx"):
        (d / f.name).symlink_to(f)
    return d, json.loads((models / "vision.json").read_text())
