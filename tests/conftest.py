"""Every test runs with its own per-user data folder (``SOLITAIRE_COACH_HOME``), so no test
reads or writes the real one of whoever runs the suite. ``linked_models``: a model folder to
change the settings of; ``truth_card``: the true card under a detection of a rendered frame;
``rendered_reads``: how many cards a detector reads right and wrong in a design's rendered
frames."""

import json

import numpy as np
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


def _truth_card(truth, c):
    """The true card under detection ``c`` of a rendered frame whose ``truth`` the renderer
    gave (the card whose top-left corner lies nearest the detection's, within 12% of its
    width and 5% of its height), or None (none there, or a back). The nearest, not the
    first: a fanned waste's cards lie a strip's width apart, nearer than the tolerance."""
    best, best_d = None, None
    for t in truth.cards:
        q = t.full_quad
        w, h = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])
        dx, dy = abs(c.quad[0][0] - q[0][0]), abs(c.quad[0][1] - q[0][1])
        if dx < 0.12 * w and dy < 0.05 * h and (best_d is None or dx / w + dy / h < best_d):
            best, best_d = t, dx / w + dy / h
    return None if best is None else best.card


@pytest.fixture
def truth_card():
    """:func:`_truth_card`: (truth, detection) -> the true card under it, or None."""
    return _truth_card


def _rendered_reads(det, deck: str, seeds) -> tuple[int, int]:
    """How many of the face-up cards ``det`` finds in frames of ``deck`` rendered (no hand)
    from ``seeds`` it reads right, and how many it reads as another card."""
    from solitaire_coach.vision.render import render_random

    right = wrong = 0
    for seed in seeds:
        img, truth = render_random(seed, 1280, 720, decks=[deck], hand_p=0.0)
        for c in det.detect(img).cards:
            true = _truth_card(truth, c)
            if true is not None and c.card is not None:
                right += c.card == true
                wrong += c.card != true
    return right, wrong


@pytest.fixture
def rendered_reads():
    """:func:`_rendered_reads`: (detector, deck, seeds) -> (read right, read wrong)."""
    return _rendered_reads
