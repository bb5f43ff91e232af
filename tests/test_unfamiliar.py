"""An unfamiliar deck is said once, plainly, with the way to teach it (issue 40)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from solitaire_coach.app.cli import main
from solitaire_coach.app.unfamiliar import LEAST_PICTURES, DeckFamiliarity
from solitaire_coach.vision.render import render_random


def test_an_ordinary_deck_is_never_called_unfamiliar():
    f = DeckFamiliarity()
    assert all(f.observe(s) is None for s in [0.95, 0.9, 1.0, 0.85, 0.3, 0.92, 0.88, 0.97, 0.2, 0.9] * 3)
    assert not f.said


def test_an_unfamiliar_deck_is_said_once_with_learn_deck():
    f = DeckFamiliarity()
    notes = [f.observe(s) for s in [None, 0.1, 0.3, None, 0.2, 0.4, 0.3]]
    assert notes[:-1] == [None] * 6  # too few pictures with enough face-up cards yet
    assert notes[-1] is not None
    assert "learn-deck" in notes[-1] and "30%" in notes[-1] and "never guessed" in notes[-1]
    assert all(f.observe(0.0) is None for _ in range(20))  # once


def test_a_learnt_deck_that_reads_poorly_asks_to_learn_it_again():
    f = DeckFamiliarity(deck="mine")
    notes = [f.observe(0.2) for _ in range(LEAST_PICTURES)]
    assert notes[-1] is not None and "'mine'" in notes[-1] and "learn-deck PHOTO --name mine" in notes[-1]


@pytest.mark.parametrize("deck, noted", [("drawn-57", True), ("drawn-11", False)])
def test_detect_notes_a_deck_it_reads_few_cards_of(tmp_path, capsys, deck, noted):
    img, _ = render_random(500000, 1280, 720, decks=[deck])
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), img)
    assert main(["detect", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    share = json.loads(out)["sure_share"]
    assert (share < 0.5) is noted
    assert ("learn-deck PHOTO --name NAME" in err) is noted


class _UnfamiliarDetector:
    """A detector that finds five face-up cards in every picture and reads one of them sure."""

    deck = None

    def detect(self, image):
        from solitaire_coach.core.notation import parse_snapshot
        from solitaire_coach.vision.detector import DetectionResult

        return DetectionResult(parse_snapshot(",".join(["UU"] * 12)), [], 1.0, sure_share=0.2)


def test_the_live_coach_says_it_once():
    from solitaire_coach.app.coach import CoachSession
    from solitaire_coach.app.live import LiveCoach
    from solitaire_coach.capture.gate import ReadGate
    from solitaire_coach.capture.sources import Frame
    from solitaire_coach.core.advisor import make_strategy
    from solitaire_coach.core.rules import DEFAULT_RULES

    said: list[str] = []
    session = CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=lambda s: None)
    coach = LiveCoach(session, _UnfamiliarDetector(), ReadGate(hand_check=None), say=said.append)
    img = np.full((360, 640, 3), (40, 100, 35), np.uint8)
    for i in range(40):
        coach.step(Frame(img, i, i * 0.2, f"f{i}"))
    notes = [line for line in said if "new to the card reader" in line]
    assert len(notes) == 1 and "learn-deck" in notes[0]


def test_learn_deck_names_a_few_hard_cards_and_counts_many():
    from solitaire_coach.app.cmd_vision import HARD_CARDS_NAMED, hard_cards_words

    few = hard_cards_words(["AS (taken for AC)", "4H"])
    assert few.startswith("these 2 cards could not be told apart reliably: AS (taken for AC), 4H.")
    many = [f"{r}S" for r in "A234567890JQK"[:12]]
    words = hard_cards_words(many)
    assert words.startswith("12 of the 52 cards could not be told apart reliably")
    assert ", ".join(many[:HARD_CARDS_NAMED]) + f" and {12 - HARD_CARDS_NAMED} more" in words
    assert many[-1] not in words and "UU" in words
