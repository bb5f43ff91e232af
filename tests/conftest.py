"""Every test runs with its own per-user data folder (``SOLITAIRE_COACH_HOME``), so no test
reads or writes the real one of whoever runs the suite."""

import pytest


@pytest.fixture(autouse=True)
def _own_user_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", str(tmp_path_factory.mktemp("coach-home")))
