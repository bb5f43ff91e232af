"""Learning a new deck from one photo of all 52 cards face up in a 4 x 13 grid.

Rows by suit (C D H S), each from ace to king. Stored in ``decks/NAME/`` of the per-user data folder
(:func:`~solitaire_coach.vision.detector.deck_dir`): ``refs.npy``, the reader's embedding
of each card's corner index (rows in Card.index order); ``head.npz``, a 52-way classifier
fitted on the embeddings of varied cuts of the cards; ``deck.json``, the deck's own read
thresholds; ``patches.png``, the corners, to look at. A
:class:`~solitaire_coach.vision.detector.CardDetector` made with ``deck=NAME`` reads every
face-up card with that head as well as with the shipped model (see ``load_learnt_deck``).
"""

from __future__ import annotations

import json

import numpy as np

from ..core.cards import Card
from ..storage import write_atomic
from .detector import CardDetector, deck_dir, model_card_probs


class DeckLayoutError(ValueError):
    """The photo does not show 52 face-up cards in 4 rows of 13."""


def _groups(values: list[float], gap: float) -> list[float]:
    """Centres of runs of sorted values separated by more than ``gap``."""
    vs = sorted(values)
    groups = [[vs[0]]]
    for v in vs[1:]:
        if v - groups[-1][-1] > gap:
            groups.append([v])
        else:
            groups[-1].append(v)
    return [float(np.median(g)) for g in groups]


def grid_marks(detector: CardDetector, frame_bgr: np.ndarray):
    """The 52 corner marks of a 4 x 13 grid photo, in Card.index order. A card the locator
    missed is filled in from the grid's rows and columns."""
    from .detector import _Mark, _suppress

    marks = detector.locate(frame_bgr)
    kind, _, _, _ = detector.read_patches(detector.patches(frame_bgr, marks))
    faces = _suppress([m for m, k in zip(marks, kind) if k[2] < 0.5])
    if len(faces) < 40:
        raise DeckLayoutError(
            f"found {len(faces)} face-up cards, expected 52 in 4 rows of 13 "
            "(suits C D H S top to bottom, ace to king left to right)"
        )
    w = float(np.median([m.w for m in faces]))
    h = float(np.median([m.h for m in faces]))
    rows = _groups([m.y for m in faces], 0.5 * h)
    cols = _groups([m.x for m in faces], 0.5 * w)
    if len(rows) != 4 or len(cols) != 13:
        raise DeckLayoutError(
            f"found {len(faces)} face-up cards in {len(rows)} rows and {len(cols)} columns, "
            "expected 52 in 4 rows of 13 (suits C D H S top to bottom, ace to king left to right)"
        )
    ordered = []
    for ry in rows:
        for cx in cols:
            near = [m for m in faces if abs(m.y - ry) < 0.35 * h and abs(m.x - cx) < 0.35 * w]
            if near:
                ordered.append(min(near, key=lambda m: abs(m.y - ry) + abs(m.x - cx)))
            else:
                ordered.append(_Mark(cx, ry, w, h, 0.0, 0))
    return ordered


def augmented_patches(frame_bgr: np.ndarray, marks, rng: np.random.Generator, n: int, geom=None):
    """``n`` variants of each mark's corner patch, cut and lit the way a game photo varies."""
    import cv2

    from . import features as F

    out, labels = [], []
    for idx, m in enumerate(marks):
        for _ in range(n):
            w, h = m.w * rng.normal(1, 0.06), m.h * rng.normal(1, 0.06)
            p = F.corner_patch(
                frame_bgr,
                (m.x + rng.normal(0, 0.025) * m.w, m.y + rng.normal(0, 0.025) * m.h),
                (w, rng.normal(0, 0.03) * w),
                (rng.normal(0, 0.03) * h, h),
                geom or F.DEFAULT_GEOM,
            ).astype(np.float32)
            p = p * rng.uniform(0.6, 1.3) * rng.uniform(0.85, 1.15, 3)
            mean = p.mean()
            p = (p - mean) * rng.uniform(0.7, 1.3) + mean
            if rng.random() < 0.5:  # a smaller or farther card: fewer pixels in the corner
                k = rng.uniform(0.6, 1.0)
                small = cv2.resize(
                    p, (max(4, int(p.shape[1] * k)), max(4, int(p.shape[0] * k))), interpolation=cv2.INTER_AREA
                )
                p = cv2.resize(small, (p.shape[1], p.shape[0]), interpolation=cv2.INTER_LINEAR)
            if rng.random() < 0.3:
                p = cv2.GaussianBlur(p, (0, 0), rng.uniform(0.4, 1.0))
            p = p + rng.normal(0, rng.uniform(0, 6), p.shape)
            out.append(np.clip(p, 0, 255).astype(np.uint8))
            labels.append(idx)
    return np.stack(out), np.array(labels)


def occlude(
    patches: np.ndarray, labels: np.ndarray, clean: np.ndarray, rng: np.random.Generator, share: float, geom=None
):
    """Cover a ``share`` of the patches the way a fanned pile does: the next card of a column
    lies over the lower part (its top edge 20-33% of the card height down, about where
    the renderer and real fans put it), or the next waste card over the right part (its
    edge 15-25% of the card width in). What
    shows there is that card's own corner (another of the deck's ``clean`` patches).
    Returns the patches and a flag per patch (True: covered, a strip)."""
    from . import features as F

    g = geom or F.DEFAULT_GEOM
    out = patches.copy()
    covered = rng.random(len(patches)) < share
    h, w = out.shape[1:3]
    top = int(round(-g.y[0] / (g.y[1] - g.y[0]) * h))  # patch row of the card's top edge
    left = int(round(-g.x[0] / (g.x[1] - g.x[0]) * w))  # patch column of its left edge
    for i in np.flatnonzero(covered):
        other = clean[(labels[i] + rng.integers(1, 52)) % 52]
        if rng.random() < 0.75:  # column fan: the next card's top edge across the patch
            u = rng.uniform(0.20, 0.33)
            r = int(round((u - g.y[0]) / (g.y[1] - g.y[0]) * h))
            if r < h:
                out[i, r:] = other[top : top + h - r]
                out[i, r - 1 : r + 1] = (out[i, r - 1 : r + 1] * rng.uniform(0.5, 0.9)).astype(out.dtype)  # its edge
        else:  # waste fan: the next card's left edge down the patch
            f = rng.uniform(0.15, 0.25)
            c = int(round((f - g.x[0]) / (g.x[1] - g.x[0]) * w))
            if c < w:
                out[i, :, c:] = other[:, left : left + w - c]
                out[i, :, c - 1 : c + 1] = (out[i, :, c - 1 : c + 1] * rng.uniform(0.5, 0.9)).astype(out.dtype)
    return out, covered


def zero_wrong_threshold(conf: np.ndarray, right: np.ndarray, floor: float = 0.5, margin: float = 0.5) -> float:
    """The confidence above which no read of ``conf`` was wrong, moved ``margin`` of the way
    towards 1 (the varied cuts are kinder than a real frame), and at least ``floor``."""
    wrong = conf[~right]
    t = float(wrong.max()) if len(wrong) else 0.0
    return float(min(0.999, max(floor, t + margin * (1.0 - t))))


def fit_head(emb: np.ndarray, labels: np.ndarray, iters: int = 400, lr: float = 2.0, l2: float = 1e-4):
    """A 52-way softmax on the reader's embeddings (full-batch gradient descent, numpy)."""
    x = emb.astype(np.float64) * 10.0
    n, d = x.shape
    W = np.zeros((d, 52))
    b = np.zeros(52)
    y = np.zeros((n, 52))
    y[np.arange(n), labels] = 1.0
    for _ in range(iters):
        z = x @ W + b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        g = (p - y) / n
        W -= lr * (x.T @ g + l2 * W)
        b -= lr * g.sum(0)
    return (W * 10.0).astype(np.float32), b.astype(np.float32)


def _read_in_batches(det: CardDetector, patches: np.ndarray, batch: int = 256):
    """The reader's kind, rank, suit and embedding arrays for many patches, read in batches."""
    reads = [det.read_patches(patches[i : i + batch]) for i in range(0, len(patches), batch)]
    return tuple(np.concatenate(parts) for parts in zip(*reads))


def learn_deck(frame_bgr: np.ndarray, name: str, detector: CardDetector | None = None) -> dict:
    """Learn deck ``name`` from ``frame_bgr`` (its 52 cards in a 4 x 13 grid) and store it
    (references, head, thresholds, corner sheet; see the module's docstring); returns a
    summary: the folder written, how many cards the shipped model already read right, and
    the deck's thresholds (:func:`deck_thresholds`)."""
    det = detector or CardDetector()
    marks = grid_marks(det, frame_bgr)
    patches = det.patches(frame_bgr, marks)
    _, rank, suit, emb = det.read_patches(patches)
    cards = [Card.from_index(i) for i in range(52)]  # row-major C D H S, A..K == index order
    p = model_card_probs(rank, suit)
    before = int(sum(int(p[i].argmax()) == i for i in range(52)))
    refs = np.asarray(emb, np.float32)
    refs /= np.linalg.norm(refs, axis=1, keepdims=True) + 1e-9
    d = deck_dir(name)
    d.mkdir(parents=True, exist_ok=True)
    import io

    buf = io.BytesIO()
    np.save(buf, refs)
    write_atomic(d / "refs.npy", buf.getvalue())
    # a per-deck classifier on the reader's embeddings, fitted to varied cuts of the 52 cards,
    # a third of them covered as on a fanned pile
    aug, labels = augmented_patches(frame_bgr, marks, np.random.default_rng(0), 24, det.geom)
    aug, _ = occlude(aug, labels, patches, np.random.default_rng(1), 1 / 3, det.geom)
    aug_emb = _read_in_batches(det, aug)[3]
    W, b = fit_head(np.concatenate([aug_emb, refs]), np.concatenate([labels, np.arange(52)]))
    buf = io.BytesIO()
    np.savez(buf, W=W, b=b)
    write_atomic(d / "head.npz", buf.getvalue())
    # this deck's own read thresholds: from other varied cuts (half covered), the confidence
    # above which the learnt reader made no mistake, for whole cards and for strips
    thresholds = deck_thresholds(det, W, b, frame_bgr, marks, patches)
    import cv2

    sheet = np.vstack([np.hstack(list(patches[r * 13 : (r + 1) * 13])) for r in range(4)])
    write_atomic(d / "patches.png", cv2.imencode(".png", sheet)[1].tobytes())
    meta = {
        "name": name,
        "cards": [c.code for c in cards],
        "model_read_right_before": before,
        "card_size_px": [float(np.median([m.w for m in marks])), float(np.median([m.h for m in marks]))],
        **thresholds,
    }
    write_atomic(d / "deck.json", json.dumps(meta, indent=2) + "\n")
    return {"folder": str(d), "model_read_right_before": before, **thresholds}


def deck_thresholds(
    det: CardDetector, W: np.ndarray, b: np.ndarray, frame_bgr: np.ndarray, marks, patches, per_card: int = 16
) -> dict:
    """``read_thresh`` (whole cards) and ``read_thresh_strip`` for a learnt deck, picked on
    varied cuts of its 52 cards (half covered as on a fanned pile) that the head was not
    fitted to."""
    aug, labels = augmented_patches(frame_bgr, marks, np.random.default_rng(2), per_card, det.geom)
    aug, covered = occlude(aug, labels, patches, np.random.default_rng(3), 0.5, det.geom)
    kind, rank, suit, emb = _read_in_batches(det, aug)
    probs = det.card_probs(rank, suit, emb, head=(W, b))
    conf = probs.max(1) * (kind[:, 0] + kind[:, 1])
    right = probs.argmax(1) == labels
    return {
        "read_thresh": round(zero_wrong_threshold(conf[~covered], right[~covered]), 4),
        "read_thresh_strip": round(zero_wrong_threshold(conf[covered], right[covered]), 4),
        "cuts_read_right": round(float(right.mean()), 4),
    }
