"""README.md: a user's guide that stays one; the reference lives in docs/."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_shows_the_test_command_that_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest -q" in ci and "python -m pytest -q" in README


def test_every_link_of_the_readme_leads_to_a_file_of_the_repository():
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert "docs/install.md" in links and "docs/live-window.jpg" in links
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert missing == []


def test_the_readme_names_no_commit_hash_and_no_issue_number():
    hashes = re.findall(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", README)
    issues = re.findall(r"\bissue #?\d+|#\d+\b", README, re.IGNORECASE)
    assert hashes == [] and issues == []
