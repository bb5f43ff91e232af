"""pyproject.toml: the build requirements can build what it declares."""

import re
from pathlib import Path

import tomllib

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_setuptools_floor_reads_a_licence_given_as_an_spdx_expression():
    """``license = "GPL-3.0-or-later"`` (PEP 639) is read from setuptools 77 on; 68 to 76 stop
    the build with "`project.license` must be valid exactly by one definition"."""
    data = tomllib.loads(PYPROJECT.read_text())
    assert isinstance(data["project"]["license"], str)
    floors = [re.fullmatch(r"setuptools\s*>=\s*(\d+)(?:\.\d+)*", r) for r in data["build-system"]["requires"]]
    major = [int(m.group(1)) for m in floors if m]
    assert major and major[0] >= 77, data["build-system"]["requires"]


def test_the_licence_text_is_there_and_declared():
    data = tomllib.loads(PYPROJECT.read_text())
    assert data["project"]["license-files"] == ["LICENSE"]
    text = (PYPROJECT.parent / "LICENSE").read_text()
    assert "GNU GENERAL PUBLIC LICENSE" in text.splitlines()[0] and "Version 3, 29 June 2007" in text
    assert "END OF TERMS AND CONDITIONS" in text and "How to Apply These Terms to Your New Programs" in text


def _setup_module(monkeypatch):
    """setup.py's names, read without running a build (``setup()`` made a no-op)."""
    import runpy

    import setuptools

    monkeypatch.setattr(setuptools, "setup", lambda **kw: None)
    return runpy.run_path(str(PYPROJECT.parent / "setup.py"), run_name="setup")


def test_the_wheel_ships_every_model_file_the_example_calibration_and_the_games(monkeypatch):
    """Every file in models/ at build time (globbed, so a retrained or added model ships too),
    calibration/*.json and the built-in games' pictures, frames.jsonl and moves.log; not the
    games' true snapshots (only tests read them) nor the vision test renders."""
    root = PYPROJECT.parent
    shipped = {str(rel) for _, rel in _setup_module(monkeypatch)["shipped_files"](root)}
    models = {
        str(p.relative_to(root)) for p in (root / "models").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    assert models and models <= shipped
    assert "calibration/example.json" in shipped and "models/vision.json" in shipped
    for game in (root / "fixtures" / "games").iterdir():
        if game.is_dir():
            name = f"fixtures/games/{game.name}"
            assert {f"{name}/frames.jsonl", f"{name}/moves.log", f"{name}/frame_000001.jpg"} <= shipped
            assert f"{name}/truth.jsonl" not in shipped
    assert not any(s.startswith("fixtures/vision") for s in shipped)
