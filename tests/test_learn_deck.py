"""learn-deck's own pixel reader (issue 40): a rendered grid of a drawn deck learns and reads
its own cards; a deck whose cards cannot be told apart says which."""

from __future__ import annotations

import numpy as np
import pytest

from solitaire_coach.vision import detector as D
from solitaire_coach.vision import learn as L
from solitaire_coach.vision.deckreader import N_FEATURES, PARTS, DeckReader, _head_probs, load_reader
from solitaire_coach.vision.render import render_grid

# drawn-47 (held out of training): the small suit beside the rank, where the shipped reader's
# corner patch hardly sees it
DECK = "drawn-47"


@pytest.fixture(scope="module")
def grid():
    det = D.CardDetector()
    img, _ = render_grid(4711, DECK)
    return det, img, L.grid_marks(det, img)


def test_the_pixel_reader_reads_its_own_cards_in_new_layouts(grid):
    det, img, marks = grid
    reader = L.fit_reader(det, img, marks, scenes=10, seed=3)
    assert set(reader.heads) == set(PARTS)
    # new practice layouts of the same faces, never fitted on: the reader alone (no shipped model)
    own = L._OwnDeck(L.card_faces(img, marks))
    xs, ys, ps = [], [], []
    with own:
        for n in range(5):
            scene, truth = own.scene(990_000 + n)
            x, y, p = L.scene_samples(det, scene, truth, np.random.default_rng(n), jitter=0)
            xs.append(x)
            ys.append(y)
            ps.append(p)
    x, y, p = np.concatenate(xs), np.concatenate(ys), np.concatenate(ps)
    main = p == 0
    assert main.sum() >= 15 and (p == 2).sum() >= 15
    got = reader.probs_of(x, p, np.arange(len(x)))
    # whole cards' corners: most right (of these 47: 38 with opencv-python 5.0.0, 35 with 5.1.0,
    # whose resizing differs a little); strips of covered cards: half or more
    assert (got[main].argmax(1) == y[main]).mean() >= 0.7
    assert (got[p == 2].argmax(1) == y[p == 2]).mean() >= 0.5
    # a reader fitted to wrong labels (cards shifted by one) reads them wrong: the figures above
    # come from the cards' pixels, not from anything else
    from solitaire_coach.vision.deckreader import basis

    wrong = L._fit_part(x[main], (y[main] + 1) % 52, basis(x))
    assert (_head_probs(x[main], *wrong).argmax(1) == y[main]).mean() < 0.2


def test_reader_file_round_trips_and_is_small(grid, tmp_path):
    rng = np.random.default_rng(0)

    def part():
        return (
            (rng.normal(size=(N_FEATURES, 13)).astype(np.float32), rng.normal(size=13).astype(np.float32)),
            (rng.normal(size=(N_FEATURES, 4)).astype(np.float32), rng.normal(size=4).astype(np.float32)),
        )

    reader = DeckReader({name: part() for name in PARTS}, far_own=False, prior=0.25)
    (tmp_path / "reader.npz").write_bytes(reader.to_bytes())
    back = load_reader(tmp_path / "reader.npz")
    assert back.far_own is False and back.prior == 0.25
    assert np.allclose(back.heads["strip"][0][0], reader.heads["strip"][0][0], atol=1e-2, rtol=1e-2)
    assert (tmp_path / "reader.npz").stat().st_size < 200_000
    # a far corner read as its card's main corner when the deck's far corners are not its own
    x = rng.normal(size=(3, N_FEATURES)).astype(np.float32)
    got = back.probs_of(x, np.array([0, 2, 1]), np.array([0, 1, 0]))
    assert np.allclose(got[2], got[0])
    np.savez(tmp_path / "bad.npz", prior=np.float32(0.5))
    with pytest.raises(ValueError, match="main_rank_W"):
        load_reader(tmp_path / "bad.npz")


def test_learn_deck_names_the_cards_it_cannot_tell_apart(grid, tmp_path, monkeypatch):
    det, img, marks = grid
    # the ace of spades' place shows the ace of clubs: the two cannot be told apart
    photo = img.copy()
    src, dst = marks[0], marks[39]  # AC, AS (Card.index order)
    w, h = int(src.w * 1.02), int(src.h * 1.02)
    x0, y0, x1, y1 = int(src.x - 0.01 * w), int(src.y - 0.01 * h), int(dst.x - 0.01 * w), int(dst.y - 0.01 * h)
    photo[y1 : y1 + h, x1 : x1 + w] = img[y0 : y0 + h, x0 : x0 + w]
    monkeypatch.setenv("SOLITAIRE_DECK_REFS", str(tmp_path))
    monkeypatch.setattr(L, "MODEL_KNOWS_DECK", 53)  # learnt even though the shipped model reads it
    info = L.learn_deck(photo, "twins", det, scenes=8, check_scenes=6)
    # (with the default model since v4 the practice layouts of this design read poorly, so
    # the list also names many cards learnt well enough: see docs, "Learning a deck")
    assert any(c.split()[0] == "AS" for c in info["hard_cards"]), info["hard_cards"]
    # the pixel reader is kept where it reads more practice cards than the detector without it
    # (its choice is in deck.json), and the learnt deck loads with it
    kept = (tmp_path / "twins" / "reader.npz").is_file()
    assert kept == info["pixel_reader"] == (D.CardDetector(deck="twins").deck_reader is not None)


def test_a_deck_the_shipped_model_reads_is_read_as_it_reads_it(grid, tmp_path, monkeypatch):
    """Learning a deck the shipped model already reads (51 or more of the grid's 52) would
    read it worse (the thresholds learnt on practice layouts are higher than the model's,
    and its familiar-deck rule is off): such a deck is read as the shipped model reads it."""
    det, img, _ = grid
    monkeypatch.setenv("SOLITAIRE_DECK_REFS", str(tmp_path))
    info = L.learn_deck(img, "plain", det, scenes=4, check_scenes=4)
    assert info["model_read_right_before"] >= L.MODEL_KNOWS_DECK and info["use_model"]
    learnt = D.CardDetector(deck="plain")
    plain = D.CardDetector()
    assert learnt.refs is None and learnt.head is None and learnt.deck_reader is None
    assert (learnt.read_thresh, learnt.strip_thresh) == (plain.read_thresh, plain.strip_thresh)
    got, want = learnt.detect(img), plain.detect(img)
    assert got.snapshot.line() == want.snapshot.line()
