"""A whole card's far corner is read only where it may change the read (issue 38, latency):
in a frame of a deck the reader knows, a card its own corner reads surely is not looked at
twice."""

from __future__ import annotations

import json

import numpy as np
import pytest

from solitaire_coach.vision import detector as D
from solitaire_coach.vision.render import render_random


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"far_sure": 1.5}, "far_sure is a probability: it must be from 0 to 1, not 1.5"),
        ({"far_share": "most"}, 'far_share must be a number, not "most"'),
    ],
)
def test_far_corner_settings_are_checked(linked_models, entry, why):
    d, cfg = linked_models
    cfg.update(entry)
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match=why):
        D.CardDetector(d)


def test_the_share_read_counts_face_up_reads_only_and_needs_four():
    face, back, none = [0.9, 0.05, 0.05], [0.1, 0.85, 0.05], [0.2, 0.1, 0.7]
    kind = np.array([face, face, face, face, back, none])
    conf = np.array([0.9, 0.9, 0.9, 0.5, 0.99, 0.99])
    assert D._share_read(kind, conf, 0.85, 0.5) == pytest.approx(0.75)
    assert D._share_read(kind[:3], conf[:3], 0.85, 0.5) == 0.0  # three face-up reads: too few to tell


def _rows_and_reads(det, deck: str, seeds) -> tuple[int, list[list[str]]]:
    """How many corners ``det`` reads over frames of ``deck`` rendered from ``seeds``, and
    each frame's card codes."""
    rows = 0
    read_cuts = det.read_cuts

    def counting(frame, cuts):
        nonlocal rows
        rows += len(cuts)
        return read_cuts(frame, cuts)

    det.read_cuts = counting
    codes = []
    for seed in seeds:
        img, _ = render_random(seed, 1280, 720, decks=[deck], hand_p=0.0)
        codes.append([c.code for c in det.detect(img).cards])
    return rows, codes


def test_a_known_decks_sure_cards_are_not_read_twice():
    """drawn-0 (a training design): fewer corners read, the same cards."""
    det = D.CardDetector()
    assert det.far_sure < 1.0
    rows, codes = _rows_and_reads(det, "drawn-0", range(3))
    every = D.CardDetector()
    every.far_sure = 1.0
    rows_every, codes_every = _rows_and_reads(every, "drawn-0", range(3))
    assert codes == codes_every
    assert rows <= 0.85 * rows_every


def test_an_unknown_decks_far_corners_are_all_read():
    """drawn-57 (no small suit, never trained on: few sure reads) is read at every whole
    card's far corner, as with the skip turned off."""
    det = D.CardDetector()
    rows, codes = _rows_and_reads(det, "drawn-57", range(2))
    every = D.CardDetector()
    every.far_sure = 1.0
    rows_every, codes_every = _rows_and_reads(every, "drawn-57", range(2))
    assert (rows, codes) == (rows_every, codes_every)


def test_the_live_coachs_lowered_threshold_does_not_make_a_deck_known():
    """The live coach lowers read_thresh to look at guesses and keeps the detector's own in
    sure_thresh: a frame is of a known deck by the sure threshold, so an unknown design's
    far corners are still all read."""
    det = D.CardDetector()
    det.sure_thresh, det.read_thresh = det.read_thresh, 0.3
    rows, _ = _rows_and_reads(det, "drawn-57", range(2))
    every = D.CardDetector()
    every.sure_thresh, every.read_thresh = every.read_thresh, 0.3
    every.far_sure = 1.0
    rows_every, _ = _rows_and_reads(every, "drawn-57", range(2))
    assert rows == rows_every


def test_a_strip_on_the_very_corner_of_the_card_it_reads_as_gives_way_to_it():
    """The same corner found a few pixels higher reads as the card under it: that ghost strip
    gives way to the whole card even where it is a hair surer; a strip further up (a card of
    its own) that reads the same card is weighed by confidence as before."""
    from solitaire_coach.core import Card

    card = Card.parse("7H")
    whole = D._Mark(589, 203, 79, 112, 0.9, kind=0, card=card, conf=0.90)
    ghost = D._Mark(589, 196, 79, 112, 0.9, kind=0, card=card, conf=0.905, strip=True)
    D._dedupe_cards([ghost, whole])
    assert whole.card == card and ghost.card is None
    whole.card, above = card, D._Mark(589, 170, 79, 112, 0.9, kind=0, card=card, conf=0.95, strip=True)
    D._dedupe_cards([whole, above])
    assert above.card == card and whole.card is None


def test_recorded_game2s_column_top_is_read_with_the_far_corner_skip_in_the_coach():
    """Frame 159 of recorded game2, read as the live coach reads (its lowered thresholds,
    the far-corner skip): column 6's top card 7H had lost to its own ghost strip 7 px above
    it, leaving the column's top UU, and the coach inferred wrong moves (stop 60)."""
    import cv2

    from solitaire_coach.repo import repo_root

    img = cv2.imread(str(repo_root() / "fixtures" / "games" / "game2" / "frame_000159.jpg"))
    det = D.CardDetector()
    assert det.far_sure < 1.0
    det.sure_thresh, det.read_thresh = det.read_thresh, 0.3
    det.sure_strip_thresh, det.strip_thresh = det.strip_thresh, 0.3
    snap = det.detect(img).snapshot
    assert str(snap).split(",")[10] == "7H"
