"""Learning a new deck from one photo of all 52 cards face up in a 4 x 13 grid.

Rows by suit (C D H S), each from ace to king. Stored in ``decks/NAME/`` of the per-user data folder
(:func:`~solitaire_coach.vision.detector.deck_dir`): ``refs.npy``, the reader's embedding
of each card's corner index (rows in Card.index order); ``head.npz``, a 52-way classifier
fitted on the embeddings of varied cuts of the cards; ``reader.npz``, the deck's own reader
of the card pixels (:mod:`.deckreader`), fitted on the photo's faces drawn into practice game
layouts by the renderer; ``deck.json``, the deck's own read thresholds (picked by the whole
detector on other practice layouts) and the cards it could not tell apart; ``patches.png``,
the corners, to look at. A :class:`~solitaire_coach.vision.detector.CardDetector` made with
``deck=NAME`` reads every face-up card with all of these as well as with the shipped model
(see ``load_learnt_deck``).
"""

from __future__ import annotations

import json
from collections import Counter

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
    reads = [det.read_patches(patches[i : i + batch], main_only=True) for i in range(0, len(patches), batch)]
    return tuple(np.concatenate(parts) for parts in zip(*reads))


# ---------------------------------------------------------------------- the deck's own pixel reader
def card_faces(frame_bgr: np.ndarray, marks) -> list[np.ndarray]:
    """Each grid mark's card face cut upright from the photo, ``FACE_W`` x ``FACE_H`` (the
    size the renderer draws faces from), in Card.index order."""
    from . import features as F
    from .decks import FACE_H, FACE_W

    geom = F.PatchGeom(FACE_H, FACE_W, (0.0, 1.0), (0.0, 1.0))
    return [F.corner_patch(frame_bgr, (m.x, m.y), *m.axes(), geom) for m in marks]


def _covered(t) -> bool:
    """Whether a rendered card is covered by the next one (only its strip shows)."""

    def area(q):
        q = np.asarray(q, np.float64)
        return 0.5 * abs(np.dot(q[:, 0], np.roll(q[:, 1], 1)) - np.dot(q[:, 1], np.roll(q[:, 0], 1)))

    return bool(area(t.quad) < 0.9 * area(t.full_quad))


def match_marks(truth, marks):
    """(true card, mark or None) for every visible face-up card of a rendered scene: the
    mark whose corner lies nearest the card's top-left corner (within 12% of its width and 5%
    of its height)."""
    out, used = [], set()
    for t in truth.cards:
        if t.card is None or not t.visible:
            continue
        q = t.full_quad
        w, h = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])
        best, bd = None, 1.0
        for j, m in enumerate(marks):
            pos = m.quad[0] if getattr(m, "quad", None) is not None else (m.x, m.y)
            d = max(abs(pos[0] - q[0][0]) / w / 0.12, abs(pos[1] - q[0][1]) / h / 0.05)
            if j not in used and d < bd:
                best, bd = j, d
        if best is not None:
            used.add(best)
        out.append((t, marks[best] if best is not None else None))
    return out


class _OwnDeck:
    """The learnt faces as a rasterised deck folder the renderer can draw scenes of (a
    temporary folder, named in ``SOLITAIRE_DECKS`` while it is in use)."""

    def __init__(self, faces: list[np.ndarray]):
        import tempfile

        import cv2

        from .decks import drawn_back

        self._tmp = tempfile.TemporaryDirectory(prefix="learn-deck-")
        self.name = "learnt-faces"
        folder = f"{self._tmp.name}/{self.name}"
        import os

        os.makedirs(folder)
        for i, face in enumerate(faces):
            cv2.imwrite(f"{folder}/{Card.from_index(i).code}.jpg", face, [cv2.IMWRITE_JPEG_QUALITY, 95])
        cv2.imwrite(f"{folder}/back.jpg", drawn_back(7, (150, 60, 40)))  # the deck's own back is not known

    def __enter__(self):
        import os

        self._old = os.environ.get("SOLITAIRE_DECKS")
        os.environ["SOLITAIRE_DECKS"] = self._tmp.name
        return self

    def __exit__(self, *exc):
        import os

        if self._old is None:
            os.environ.pop("SOLITAIRE_DECKS", None)
        else:
            os.environ["SOLITAIRE_DECKS"] = self._old
        self._tmp.cleanup()

    def scene(self, seed: int):
        """A rendered game layout of the learnt faces (image, truth); sizes and cameras vary."""
        from .render import render_random

        width, height = ((1280, 720), (960, 540))[seed % 2]
        return render_random(seed, width, height, decks=[self.name], hand_p=0.1)


def _jittered(cut, rng: np.random.Generator, k: float):
    """A card corner cut moved and scaled a little (by ``k`` of the locator's usual error)."""
    (x, y), (ux, uy), (vx, vy) = cut
    su, sv = rng.normal(1, 0.04 * k), rng.normal(1, 0.04 * k)
    dx, dy = rng.normal(0, 0.025 * k), rng.normal(0, 0.02 * k)
    return (
        (x + dx * ux + dy * vx, y + dx * uy + dy * vy),
        (ux * su, uy * su),
        (vx * sv, vy * sv),
    )


def scene_samples(det: CardDetector, img: np.ndarray, truth, rng: np.random.Generator, jitter: int = 1):
    """Features, card indices and parts (0: a whole card's corner, 1: its far corner, turned,
    2: a covered card's strip; see :data:`~.deckreader.PARTS`) of the face-up cards the
    locator finds in a rendered scene, cut where the detector cuts them, each also
    ``jitter`` times moved a little."""
    from .deckreader import cut_features
    from .detector import _suppress

    # practice scenes are our own renders at a camera's usual scale: no close-camera look
    # (it would take some of their large cards for larger ones and change what is learnt)
    marks = [m for m in _suppress(det.locate_any_scale(img, coarser=False)) if m.kind == 0]
    cuts, labels, parts = [], [], []
    for t, m in match_marks(truth, marks):
        if m is None:
            continue
        base = [(2 if _covered(t) else 0, ((m.x, m.y), *m.axes()))]
        if base[0][0] == 0:
            (ux, uy), (vx, vy) = m.axes()
            base.append((1, (m.far_corner(), (-ux, -uy), (-vx, -vy))))
        for part, c in base:
            for k in range(jitter + 1):
                cuts.append(c if k == 0 else _jittered(c, rng, 1.0))
                labels.append(t.card.index)
                parts.append(part)
    return cut_features(img, cuts), np.array(labels, int), np.array(parts, int)


def _fit_part(x: np.ndarray, y: np.ndarray, base):
    """A rank head and a suit head (see :func:`~.deckreader.fit_linear`) for cards ``y``."""
    from .deckreader import fit_linear

    return fit_linear(x, y % 13, base, k=13), fit_linear(x, y // 13, base, k=4)


def fit_reader(det: CardDetector, frame_bgr: np.ndarray, marks, scenes: int = 60, seed: int = 0, log=None):
    """The deck's own pixel reader (:class:`~.deckreader.DeckReader`), fitted on the faces
    of the grid photo drawn into ``scenes`` rendered game layouts (and the grid's own cuts).
    Its far-corner heads are used only where they read the last fifth of the layouts (fitted
    on the rest) at least 90% right."""
    from .deckreader import DeckReader, _head_probs, basis, cut_features

    rng = np.random.default_rng(seed)
    grid_cuts = [((m.x, m.y), *m.axes()) for m in marks]
    xs = [cut_features(frame_bgr, [_jittered(c, rng, 0.5) for c in grid_cuts]) for _ in range(3)]
    ys = [np.arange(52)] * 3
    ps = [np.zeros(52, int)] * 3
    scene_of = [np.full(52, -1)] * 3
    own = _OwnDeck(card_faces(frame_bgr, marks))
    with own:
        for n in range(scenes):
            img, truth = own.scene(seed * 100_003 + 700_000 + n)
            x, y, p = scene_samples(det, img, truth, rng)
            xs.append(x)
            ys.append(y)
            ps.append(p)
            scene_of.append(np.full(len(y), n))
            if log and (n + 1) % 20 == 0:
                log(f"learn-deck: {n + 1}/{scenes} practice layouts drawn and cut")
    x, y, p, sc = np.concatenate(xs), np.concatenate(ys), np.concatenate(ps), np.concatenate(scene_of)
    base = basis(x)
    heads = {}
    for k, name in enumerate(("main", "far", "strip")):
        sel = p == k
        if len(set(y[sel].tolist())) < 52:  # too few of these cuts: the whole cards' corners stand in
            sel = p != 1
        heads[name] = _fit_part(x[sel], y[sel], base)
    far = p == 1
    test = far & (sc >= 0.8 * scenes)
    far_own = False
    if test.any() and len(set(y[far & ~test].tolist())) == 52:
        trial = _fit_part(x[far & ~test], y[far & ~test], base)
        far_own = bool((_head_probs(x[test], *trial).argmax(1) == y[test]).mean() >= 0.9)
    return DeckReader(heads, far_own, 0.5)


# how many of the grid's 52 cards the shipped model must read right for a learnt deck to be
# read as the shipped model reads it (``deck.json`` ``use_model``): with learning, such decks
# read 4-5 points fewer (kde-standard 96.4% -> 91.8%, drawn-11 93.3% -> 89.0%; bench/RESULTS.md)
MODEL_KNOWS_DECK = 51


def learn_deck(
    frame_bgr: np.ndarray,
    name: str,
    detector: CardDetector | None = None,
    scenes: int = 60,
    check_scenes: int = 30,
    log=None,
) -> dict:
    """Learn deck ``name`` from ``frame_bgr`` (its 52 cards in a 4 x 13 grid) and store it
    (references, head, thresholds, corner sheet; see the module's docstring); returns a
    summary: the folder written, how many cards the shipped model already read right,
    whether the deck is to be read as the shipped model reads it (``use_model``: it reads
    :data:`MODEL_KNOWS_DECK` or more of the grid), and the deck's thresholds."""
    det = detector or CardDetector()
    marks = grid_marks(det, frame_bgr)
    patches = det.patches(frame_bgr, marks)
    _, rank, suit, emb = det.read_patches(patches, main_only=True)
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
    # the deck's own reader of the card pixels, fitted on the faces drawn into practice layouts
    reader = fit_reader(det, frame_bgr, marks, scenes=scenes, log=log)
    # this deck's own read thresholds: from other practice layouts read by the whole detector
    # with everything learnt, the confidence above which no card was read wrong (and how much
    # the reader leans on the shipped model's read, or whether it is used at all: what reads more)
    thresholds = reader_thresholds(det, refs, (W, b), reader, frame_bgr, marks, check_scenes)
    import dataclasses

    prior = thresholds.pop("prior")
    if prior is None:  # the deck reads better without it (as the shipped model reads it well)
        (d / "reader.npz").unlink(missing_ok=True)
    else:
        write_atomic(d / "reader.npz", dataclasses.replace(reader, prior=prior).to_bytes())
    thresholds["pixel_reader"] = prior is not None
    import cv2

    sheet = np.vstack([np.hstack(list(patches[r * 13 : (r + 1) * 13])) for r in range(4)])
    write_atomic(d / "patches.png", cv2.imencode(".png", sheet)[1].tobytes())
    meta = {
        "name": name,
        "cards": [c.code for c in cards],
        "model_read_right_before": before,
        # a deck the shipped model already reads (MODEL_KNOWS_DECK of the grid's 52 cards) is
        # read as the shipped model reads it: its familiar-deck rule and turned re-reads read
        # more of an ordinary deck than the thresholds learnt on practice layouts do
        "use_model": before >= MODEL_KNOWS_DECK,
        "reader": det.reader_id,  # the card reader the references were made with
        "card_size_px": [float(np.median([m.w for m in marks])), float(np.median([m.h for m in marks]))],
        **thresholds,
    }
    write_atomic(d / "deck.json", json.dumps(meta, indent=2) + "\n")
    return {"folder": str(d), "model_read_right_before": before, "use_model": meta["use_model"], **thresholds}


def reader_thresholds(
    det: CardDetector,
    refs,
    head,
    reader,
    frame_bgr: np.ndarray,
    marks,
    scenes: int = 40,
    seed: int = 1,
    margin: float = 0.3,
    strip_margin: float = 0.5,
) -> dict:
    """``read_thresh`` (whole cards) and ``read_thresh_strip`` for a learnt deck: the whole
    detector, with the deck's references, head and pixel ``reader``, reads ``scenes``
    practice layouts of the grid's faces that the reader was not fitted on; each threshold is
    the confidence above which none of its reads was wrong, moved ``margin`` of the way to 1
    (``strip_margin`` for strips, whose small suit the next card may hide) and at least 0.5. ``prior``: how the reader is used, the one of none (None: not at all),
    0 and 0.5 (see :class:`~.deckreader.DeckReader`) that reads the most practice cards. Also ``practice_read``, the share of the practice cards read right
    at those thresholds, and ``hard_cards``: the cards read right in under 80% of their
    practice appearances, with what they were taken for, the ones taken for another card
    first and then the least often read."""
    import copy
    import dataclasses

    d = copy.copy(det)
    d.refs, d.head = refs, head
    d.read_thresh = d.strip_thresh = 0.0
    own = _OwnDeck(card_faces(frame_bgr, marks))
    best = None
    with own:
        scenes_drawn = [own.scene(seed * 100_003 + 800_000 + n) for n in range(scenes)]
        for prior in (None, 0.0, 0.5):  # None: without the pixel reader, if that reads more
            d.deck_reader = None if prior is None else dataclasses.replace(reader, prior=prior)
            rows = []  # (confidence, right, strip, true index, read index)
            for img, truth in scenes_drawn:
                res = d.detect(img)
                for t, m in match_marks(truth, [c for c in res.cards if c.face_up]):
                    if m is None:
                        continue
                    got = m.card.index if m.card is not None else -1
                    rows.append((m.confidence, got == t.card.index, m.strip, t.card.index, got))
            a = np.array(rows, np.float64).reshape(-1, 5)
            out = {"prior": prior}
            read = np.zeros(len(a), bool)
            for key, part, m in (
                ("read_thresh", a[:, 2] == 0, margin),
                ("read_thresh_strip", a[:, 2] == 1, strip_margin),
            ):
                t = zero_wrong_threshold(a[part, 0], a[part, 1] == 1, margin=m)
                out[key] = round(t, 4)
                read |= part & (a[:, 0] >= t) & (a[:, 1] == 1)
            if best is None or read.sum() > best[2].sum():
                best = (out, a, read)
    out, a, read = best
    hard = []  # (how often read right, wrong read or not, the words)
    for i in range(52):
        mine = a[:, 3] == i
        if mine.sum() >= 3 and read[mine].mean() < 0.8:
            taken = Counter(int(j) for j in a[mine & (a[:, 1] == 0), 4] if j >= 0).most_common(1)
            words = Card.from_index(i).code + (f" (taken for {Card.from_index(taken[0][0]).code})" if taken else "")
            hard.append((float(read[mine].mean()), not taken, words))
    # the cards taken for another card first, then the least often read: the ones to look at
    hard = [words for _, _, words in sorted(hard)]
    out["practice_read"] = round(float(read.mean()) if len(a) else 0.0, 4)
    out["practice_cards"] = int(len(a))
    out["hard_cards"] = hard
    return out
