"""The Python examples in the docs run: every ``>>>`` example in docs/*.md is a doctest."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.glob("*.md") if ">>> " in p.read_text(encoding="utf-8"))


def test_the_docs_have_examples():
    assert any(p.name == "core.md" for p in PAGES), f"no page with >>> examples in {DOCS}"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_examples_in_the_docs_run(page):
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{page.name}: {result.failed} of {result.attempted} examples failed (printed above)"
