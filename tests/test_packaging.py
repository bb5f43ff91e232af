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
