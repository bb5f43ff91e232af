"""Face-down counts from the locator's marks (``detector._down_counts``), on constructed
marks: every column's strips, some of them missed, some marks a little off their place."""

from __future__ import annotations

import numpy as np
import pytest

from solitaire_coach.vision import detector as D

W, H = 70.0, 100.0  # card size (px)


def _mark(x: float, y: float, kind: int, slot: str) -> D._Mark:
    return D._Mark(x, y, W, H, 0.9, kind=kind, slot=slot)


def _table(
    down,
    pitch: float = 8.5,
    tilt: float = 0.0,
    found=None,
    faces: int = 2,
    noise: float = 0.0,
    rng: np.random.Generator | None = None,
    stock: bool = True,
) -> list[D._Mark]:
    """The marks of a table whose column c holds ``down[c-1]`` face-down cards, ``pitch`` px
    apart, on a row tilted by ``tilt`` (y per x); ``found(c, k)`` says whether the strip k of
    column c was found (all by default); each mark off by up to ``noise`` px."""
    rng = rng or np.random.default_rng(0)
    marks = [_mark(100.0, 40.0, 1, "stock")] if stock else []
    for c, n in enumerate(down, 1):
        x = 100.0 + 90.0 * (c - 1)
        y0 = 200.0 + tilt * x
        off = lambda: float(rng.uniform(-noise, noise)) if noise else 0.0  # noqa: E731
        for k in range(n):
            if found is None or found(c, k):
                marks.append(_mark(x, y0 + k * pitch + off(), 1, f"column {c}"))
        for f in range(faces):
            marks.append(_mark(x, y0 + n * pitch + f * 0.25 * H + off(), 0, f"column {c}"))
    return marks


def test_a_fresh_deal_with_every_strip_found_is_counted_exactly():
    down, stock = D._down_counts(_table(D.FRESH_DEAL, faces=1))
    assert down == D.FRESH_DEAL and stock


def test_strips_found_every_other_one_and_tops_missed_still_count_the_span():
    """The locator finds the strips of a column only in part: every other one, and the top
    strip of the longer columns missed. The span from the row to the first face counts."""
    truth = (0, 1, 2, 3, 4, 5, 6)

    def found(c, k):
        return k % 2 == 0 and not (c >= 5 and k == 0) or (c == 7 and k == 1)

    down, _ = D._down_counts(_table(truth, pitch=8.2, found=found, faces=1))
    assert down == truth


@pytest.mark.parametrize("tilt", [-0.08, 0.0, 0.05])
def test_a_game_in_progress_on_a_tilted_row(tilt):
    truth = (0, 0, 2, 1, 4, 4, 6)
    down, _ = D._down_counts(_table(truth, pitch=11.0, tilt=tilt, faces=3))
    assert down == truth


def test_a_stray_mark_above_a_column_is_left_out():
    """A mark found above where the columns start (a shadow, the top row's edge) neither
    moves the row nor counts as a card."""
    truth = (0, 1, 2, 3, 1, 0, 2)
    marks = _table(truth, pitch=10.0, faces=2)
    marks += [_mark(460.0, 170.0, 1, "column 5"), _mark(640.0, 168.0, 0, "column 7")]
    down, _ = D._down_counts(marks)
    assert down == truth


def test_a_face_read_as_a_back_below_the_run_is_not_counted():
    truth = (0, 1, 0, 0, 3, 0, 1)
    marks = _table(truth, pitch=10.0, faces=4)
    marks.append(_mark(190.0, 200.0 + 1 * 10.0 + 3 * 25.0, 1, "column 2"))  # the fourth face, read as a back
    down, _ = D._down_counts(marks)
    assert down == truth


def test_noisy_marks_with_strips_missed_at_random_are_counted_right_in_nearly_every_column():
    """200 random tables (column c with at most c-1 face-down cards, pitch 7-13% of a card, marks off by up to 2% of a card, a third
    of the strips after the top one missed): at least 95% of the columns right."""
    rng = np.random.default_rng(38)
    right = columns = 0
    for _ in range(200):
        # a Klondike table: column c holds at most c-1 face-down cards
        truth = tuple(min(int(n), c) for c, n in enumerate(rng.integers(0, 7, 7)))
        miss = rng.random((8, 8)) < 0.33
        marks = _table(
            truth,
            pitch=float(rng.uniform(7.0, 13.0)),
            tilt=float(rng.uniform(-0.05, 0.05)),
            found=lambda c, k, miss=miss: k == 0 or not miss[c, k],
            faces=int(rng.integers(1, 5)),
            noise=2.0,
            rng=rng,
        )
        down, _ = D._down_counts(marks)
        right += sum(a == b for a, b in zip(down, truth))
        columns += 7
    assert right >= 0.95 * columns, right / columns


def test_the_fresh_deal_breaks_a_tie_but_does_not_overrule_the_marks():
    """Column 7's top strip missed and its first mark half a pitch below the row: the
    marks alone cannot tell 5 from 6 well, and the fresh deal's 6 is taken. A table whose
    column 7 plainly holds 5 (every strip found, on the row) keeps its 5."""

    def found(c, k):
        return not (c == 7 and k == 0)

    marks = _table(D.FRESH_DEAL, pitch=10.0, found=found, faces=1)
    for m in marks:
        if m.slot == "column 7":
            m.y -= 5.0  # its first mark half a pitch below the row: one strip missed, or none?
    down, _ = D._down_counts(marks)
    assert down == D.FRESH_DEAL
    near = (0, 1, 2, 3, 4, 5, 5)
    down, _ = D._down_counts(_table(near, pitch=10.0, faces=1))
    assert down == near


def test_no_columns_and_no_stock():
    assert D._down_counts([]) == ((0,) * 7, False)
    down, stock = D._down_counts(_table((0,) * 7, stock=False))
    assert down == (0,) * 7 and not stock


def test_no_column_is_counted_more_face_down_cards_than_it_was_dealt():
    """Column c is dealt c-1 face-down cards and never gets more: a fresh deal whose strips
    the marks put one pitch too far down in columns 2 and 7 (a strip's mark off its place,
    the first face found one strip low) counts 1 and 6 there, not 2 and 7."""
    marks = _table(D.FRESH_DEAL, pitch=12.0, faces=1)
    for m in marks:
        if m.slot in ("column 2", "column 7") and m.kind == 0:
            m.y += 12.0
    marks.append(_mark(190.0, 212.0, 1, "column 2"))
    down, _ = D._down_counts(marks)
    assert down[1] == 1 and down[6] == 6


def test_a_table_laid_out_as_a_fresh_deal_breaks_a_near_tie_for_the_fresh_counts():
    """Noisy marks with strips missed fit 0 1 2 3 4 4 6 a little better than the fresh
    deal's counts (by less than 2 in log-likelihood): where the face-up cards lie as on a
    fresh deal (one in each column, none elsewhere) the fresh counts are taken; with a waste
    card on the table (a game under way) the marks decide."""
    rng = np.random.default_rng(349)
    pitch = float(rng.uniform(7, 13))
    miss = rng.random((8, 8)) < 0.4
    marks = _table(D.FRESH_DEAL, pitch=pitch, faces=1, found=lambda c, k: k == 0 or not miss[c, k], noise=2.5, rng=rng)
    assert D._looks_fresh(marks)
    assert D._down_counts(marks)[0] == D.FRESH_DEAL
    under_way = marks + [_mark(190.0, 40.0, 0, "waste")]
    assert not D._looks_fresh(under_way)
    assert D._down_counts(under_way)[0] == (0, 1, 2, 3, 4, 4, 6)


def _paint(marks: list[D._Mark], backs_above: dict[int, int] | None = None) -> np.ndarray:
    """A frame of ``marks``: a light wooden table with a little grain, face-up cards white,
    backs dark blue with a white border, each card over those above it; ``backs_above``
    paints that many back strips (9 px apart) above a column's first mark as well, strips
    the locator did not find."""
    rng = np.random.default_rng(3)
    frame = np.empty((520, 760, 3), np.uint8)
    frame[:] = (150, 190, 215)  # BGR: light wood
    frame = np.clip(frame.astype(np.int16) + rng.integers(-6, 7, frame.shape[:2])[..., None], 0, 255).astype(np.uint8)

    def card(x: float, y: float, back: bool) -> None:
        x0, y0, x1, y1 = int(x), int(y), int(x + W), int(y + H)
        frame[y0:y1, x0:x1] = 245
        if back:
            frame[y0 + 4 : y1 - 4, x0 + 4 : x1 - 4] = (110, 40, 20)

    for c, n in (backs_above or {}).items():
        first = min((m for m in marks if m.slot == f"column {c}"), key=lambda m: m.y)
        for k in range(n, 0, -1):
            card(first.x, first.y - 9.0 * k, True)
    for m in sorted(marks, key=lambda m: m.y):
        card(m.x, m.y, m.kind == 1)
    return frame


def _lower(marks: list[D._Mark], columns: dict[int, float]) -> list[D._Mark]:
    """The marks with columns moved down by so many px (a person's columns laid a little lower)."""
    out = []
    for m in marks:
        c = int(m.slot.split()[1]) if m.slot.startswith("column ") else 0
        out.append(D._Mark(m.x, m.y + columns.get(c, 0.0), W, H, 0.9, kind=m.kind, slot=m.slot))
    return out


def test_columns_laid_lower_on_a_bare_table_have_no_face_down_cards():
    marks = _lower(_table((0,) * 7, faces=2), {3: 30.0, 5: 45.0})
    # from the marks alone the space above the lower columns could hold strips not found
    assert D._down_counts(marks)[0] != (0,) * 7
    # the picture shows the table there
    assert D._down_counts(marks, _paint(marks))[0] == (0,) * 7


def test_strips_the_locator_missed_above_a_column_are_still_counted_with_the_frame():
    marks = _lower(_table((0,) * 7, faces=2), {3: 27.0, 5: 45.0})
    frame = _paint(marks, backs_above={3: 3, 5: 5})
    down, _ = D._down_counts(marks, frame)
    assert down[2] >= 1 and down[4] >= 1
    assert down == D._down_counts(marks)[0]  # the frame takes nothing the marks say away here


def test_a_lone_back_mark_over_a_face_whose_strip_shows_the_table_is_not_a_face_down_card():
    marks = _lower(_table((0,) * 7, faces=2), {4: 0.1 * H})
    # the locator's back mark on the row line, a tenth of a card above column 4's first face
    # (laid that much lower): its top margin and the table, taken for a strip
    face = min((m for m in marks if m.slot == "column 4"), key=lambda m: m.y)
    phantom = D._Mark(face.x, face.y - 0.1 * H, W, H, 0.9, kind=1, slot="column 4")
    assert D._down_counts(marks + [phantom])[0][3] == 1
    painted = _paint(marks)  # the back is not painted: the table shows there
    assert D._down_counts(marks + [phantom], painted)[0] == (0,) * 7
    # a real strip there (painted) stays counted
    real = _paint(marks, backs_above={4: 1})
    assert D._down_counts(marks + [phantom], real)[0][3] == 1


def _own_corners(m, spans):
    """A mark's card-frame corners summed one by one from its axes, as float32."""
    a0, a1, b0, b1 = spans
    (ux, uy), (vx, vy) = m.axes()
    pts = [(m.x + a * ux + b * vx, m.y + a * uy + b * vy) for a, b in ((a0, b0), (a1, b0), (a1, b1), (a0, b1))]
    return np.array(pts, np.float32)


def test_card_frames_of_many_marks_at_once_are_each_marks_own():
    rng = np.random.default_rng(5)
    marks = [
        D._Mark(*rng.uniform(0, 900, 2), *rng.uniform(20, 120, 2), 0.9, kind=int(rng.integers(0, 2)), angle=float(a))
        for a in rng.uniform(-0.6, 0.6, 30)
    ]
    for spans in ((-0.06, 1.06, -0.06, 1.12), (0.0, 1.0, 0.0, 1.12), (0, 0, 0, 1), (0.15, 0.85, -2.5, -0.03)):
        many = D._cards_corners(marks, spans)
        assert many.dtype == np.float32
        assert all(np.array_equal(many[i], _own_corners(m, spans)) for i, m in enumerate(marks))
    assert D._cards_corners([], (0, 1, 0, 1)).shape == (0, 4, 2)


@pytest.mark.parametrize("seed", range(6))
def test_the_table_pixels_nearest_a_column_are_those_of_the_whole_band(seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((int(rng.integers(3, 40)), int(rng.integers(50, 400)))) < rng.uniform(0.05, 0.9)
    mask[:, int(rng.integers(0, mask.shape[1])) :] &= rng.random() < 0.5  # a covered stretch
    x = float(rng.choice([rng.uniform(0, mask.shape[1]), int(rng.integers(0, mask.shape[1])) + 0.5]))
    for n in (1, 17, 300, mask.size):
        ys, xs = np.nonzero(mask)
        near = D._nearest(np.abs(xs - x), n)
        got = D._nearest_pixels(mask, mask.sum(0), x, n)
        assert np.array_equal(got[0], ys[near]) and np.array_equal(got[1], xs[near])
