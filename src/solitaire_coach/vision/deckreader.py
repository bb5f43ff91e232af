"""A learnt deck's own reader of card pixels (made by ``learn-deck``, see :mod:`.learn`).

The shipped reader sees one corner patch through a network trained on other designs; a deck
whose index or small suit lies elsewhere (beside the rank, low on the card, four colours) is
read poorly by it whatever head is fitted on its embedding. This reader looks at the pixels
themselves, in two cuts of every card corner the detector reads:

* the corner: from 4% left of the card's corner to 34% of its width, from 3% above it to 37%
  of its height (the rank index and the small suit, also where the suit sits low), 40 x 24;
* the card's head: its whole width, down to a third of its height (a suit beside the rank,
  the pips' top row, a court's picture), 24 x 40;

each as a histogram of edge directions in 4 x 4 cells, normalised grey levels and a redness
map (red against black, lit or dim), at half size; it reads
them with linear heads (a rank head and a suit head, whose product is the card) fitted on cuts
of the deck's own cards: for a whole card's corner, for its far corner (turned), for the strip a
fanned card shows. Its probabilities multiply the detector's own card probabilities (raised to
``prior``). Stored as ``reader.npz`` (float16 weights, about 0.1 MB).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from . import features as F

CORNER = F.PatchGeom(40, 24, (-0.04, 0.34), (-0.03, 0.37))
HEAD = F.PatchGeom(24, 40, (-0.03, 1.03), (-0.02, 0.34))
BINS = 8  # edge directions of the gradient histograms
CELL = 4  # their cells, in patch pixels
N_FEATURES = BINS * (40 * 24 + 24 * 40) // CELL**2 + 2 * (40 * 24 + 24 * 40) // 4


def _pool(a: np.ndarray, k: int) -> np.ndarray:
    """Mean over k x k cells of N x H x W (x C) arrays (H and W multiples of k)."""
    n, h, w = a.shape[:3]
    c = int(np.prod(a.shape[3:], dtype=int))
    # every patch and channel side by side as channels of one picture: one area resize
    flat = np.ascontiguousarray(a.reshape(n, h, w, c).transpose(1, 2, 0, 3).reshape(h, w, n * c), np.float32)
    parts = [
        cv2.resize(
            np.ascontiguousarray(flat[:, :, i : i + 128]), (w // k, h // k), interpolation=cv2.INTER_AREA
        ).reshape(h // k, w // k, -1)
        for i in range(0, n * c, 128)
    ]
    out = np.concatenate(parts, axis=2).reshape(h // k, w // k, n, c).transpose(2, 0, 1, 3)
    return out.reshape(n, h // k, w // k, *a.shape[3:])


def _patch_features(patches: np.ndarray) -> list[np.ndarray]:
    """Per patch: a histogram of edge directions in 4 x 4 cells (normalised: light and
    contrast do not matter, a pixel or two of shift little), the grey levels and a redness
    map (red minus the larger of green and blue, over the patch's mean light) at half size."""
    p = patches.astype(np.float32)
    b, g, r = p[..., 0], p[..., 1], p[..., 2]
    grey = 0.299 * r + 0.587 * g + 0.114 * b
    n, h, w = grey.shape
    tall = np.ascontiguousarray(grey.transpose(1, 2, 0))  # patches as channels: one blur for all
    sm = np.concatenate(
        [
            cv2.GaussianBlur(np.ascontiguousarray(tall[:, :, i : i + 128]), (0, 0), 0.7).reshape(h, w, -1)
            for i in range(0, n, 128)
        ],
        axis=2,
    ).transpose(2, 0, 1)
    gx = np.zeros_like(sm)
    gy = np.zeros_like(sm)
    gx[:, :, 1:-1] = sm[:, :, 2:] - sm[:, :, :-2]
    gy[:, 1:-1] = sm[:, 2:] - sm[:, :-2]
    mag = np.sqrt(gx * gx + gy * gy)
    ang = (np.arctan2(gy, gx) % np.pi) / np.pi * BINS
    lo = np.floor(ang)
    f = ang - lo
    lo = lo.astype(np.int64) % BINS
    cell = np.arange(mag.size, dtype=np.int64) * BINS
    hist = np.bincount((cell + lo.ravel()), (mag * (1 - f)).ravel(), minlength=mag.size * BINS)
    hist += np.bincount((cell + (lo.ravel() + 1) % BINS), (mag * f).ravel(), minlength=mag.size * BINS)
    hist = _pool(hist.reshape(n, h, w, BINS).astype(np.float32), CELL).reshape(n, -1)
    hist /= np.sqrt((hist**2).sum(1, keepdims=True)) + 1e-3
    mean = grey.mean(axis=(1, 2), keepdims=True)
    grey_n = _pool((grey - mean) / (grey.std(axis=(1, 2), keepdims=True) + 8.0), 2).reshape(n, -1)
    red = _pool((r - np.maximum(g, b)) / (mean + 20.0), 2).reshape(n, -1)
    return [hist, grey_n, red]


def cut_features(frame_bgr: np.ndarray, cuts: list[tuple]) -> np.ndarray:
    """N x ``N_FEATURES`` pixel features of the card corners ``cuts`` ((corner, width vector,
    height vector) each, frame px; a card's far corner is cut the same way, turned)."""
    if not cuts:
        return np.zeros((0, N_FEATURES), np.float32)
    corner = np.stack([F.corner_patch(frame_bgr, c, u, v, CORNER) for c, u, v in cuts])
    head = np.stack([F.corner_patch(frame_bgr, c, u, v, HEAD) for c, u, v in cuts])
    ch, cg, cr = _patch_features(corner)
    hh, hg, hr = _patch_features(head)
    return np.concatenate([ch, hh, cg, hg, cr, hr], axis=1).astype(np.float32)


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax."""
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def basis(x: np.ndarray, dims: int = 160):
    """Where a head is fitted: the features' mean and spread, and their ``dims`` main
    directions, whitened (every direction of spread 1); shared by every head of a reader."""
    x = x.astype(np.float32)
    mu = x.mean(0)
    sd = x.std(0) + 1e-3
    xs = (x - mu) / sd
    val, vec = np.linalg.eigh((xs.T @ xs).astype(np.float64) / len(x))
    order = np.argsort(val)[::-1][: int(min(dims, len(val)))]
    return mu, sd, vec[:, order] / np.sqrt(np.maximum(val[order], 1e-6))


def fit_linear(x: np.ndarray, labels: np.ndarray, base, k: int = 52, iters: int = 300, l2: float = 3e-3):
    """A ``k``-way softmax head on features ``x`` (N x F) in ``base`` (see :func:`basis`),
    fitted by gradient descent; returned folded back to one ``(W: F x k, b: k)`` on the raw
    features."""
    mu, sd, P = base
    z = ((x - mu) / sd) @ P
    n = len(z)
    y = np.zeros((n, k))
    y[np.arange(n), labels] = 1.0
    W = np.zeros((P.shape[1], k))
    b = np.zeros(k)
    vW, vb = np.zeros_like(W), np.zeros_like(b)
    lr = 0.5
    for _ in range(iters):
        p = softmax(z @ W + b)
        g = (p - y) / n
        vW = 0.9 * vW - lr * (z.T @ g + l2 * W)
        vb = 0.9 * vb - lr * g.sum(0)
        W += vW
        b += vb
    Wf = (P @ W) / sd[:, None]
    bf = b - mu @ Wf
    return Wf.astype(np.float32), bf.astype(np.float32)


PARTS = ("main", "far", "strip")  # a whole card's corner, its far corner (turned), a covered card's strip


def _head_probs(x: np.ndarray, rank: tuple, suit: tuple) -> np.ndarray:
    """N x 52 card probabilities (Card.index order: suit-major) from a rank and a suit head."""
    pr = softmax(x @ rank[0] + rank[1])
    ps = softmax(x @ suit[0] + suit[1])
    return (ps[:, :, None] * pr[:, None, :]).reshape(len(x), 52)


@dataclass(frozen=True)
class DeckReader:
    """A rank head (13) and a suit head (4) on :func:`cut_features` for each of ``PARTS``;
    ``far_own``: whether the far-corner heads are used (a deck with no index, or an unlike
    one, at its far corner reads a whole card's far corner as its main corner instead); and
    the power ``prior`` the detector's own card probabilities are raised to before they are
    multiplied by this reader's."""

    heads: dict  # part -> ((W rank, b rank), (W suit, b suit))
    far_own: bool = True
    prior: float = 0.5

    def probs_of(self, x: np.ndarray, part: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """N x 52 card probabilities of cut features ``x`` by this reader alone; ``part``: each
        cut's index in ``PARTS``; ``owner``: the row of the main cut of each cut's card."""
        out = np.full((len(x), 52), 1 / 52, np.float32)
        for k, name in enumerate(PARTS):
            mask = part == k
            if mask.any() and (name != "far" or self.far_own):
                out[mask] = _head_probs(x[mask], *self.heads[name])
        if not self.far_own:
            far = np.flatnonzero(part == 1)
            out[far] = out[owner[far]]
        return out

    def combine(
        self, frame_bgr: np.ndarray, cuts: list[tuple], part: list[int], owner: list[int], probs: np.ndarray
    ) -> np.ndarray:
        """The detector's card probabilities ``probs`` (one row per cut) combined with this
        reader's read of the same cuts (``part``, ``owner``: see :meth:`probs_of`)."""
        if not len(cuts):
            return probs
        pix = self.probs_of(cut_features(frame_bgr, cuts), np.asarray(part, int), np.asarray(owner, int))
        return combine(probs, pix, self.prior)

    def to_bytes(self) -> bytes:
        """The reader as the bytes of ``reader.npz`` (weights in float16)."""
        import io

        arrays = {}
        for name in PARTS:
            (wr, br), (ws, bs) = self.heads[name]
            arrays.update(
                {
                    f"{name}_rank_W": wr.astype(np.float16),
                    f"{name}_rank_b": br.astype(np.float32),
                    f"{name}_suit_W": ws.astype(np.float16),
                    f"{name}_suit_b": bs.astype(np.float32),
                }
            )
        buf = io.BytesIO()
        np.savez_compressed(buf, prior=np.float32(self.prior), far_own=np.bool_(self.far_own), **arrays)
        return buf.getvalue()


def combine(probs: np.ndarray, pix: np.ndarray, prior: float) -> np.ndarray:
    """Row-normalised ``probs ** prior * pix``."""
    p = (np.maximum(probs, 1e-12) ** prior) * pix + 1e-12
    return p / p.sum(1, keepdims=True)


def load_reader(path: Path) -> DeckReader:
    """The reader stored at ``path`` (``reader.npz``); ValueError saying what is wrong when it
    is not what :meth:`DeckReader.to_bytes` writes (nothing is unpickled)."""
    keys = [f"{n}_{h}_{w}" for n in PARTS for h in ("rank", "suit") for w in ("W", "b")]
    try:
        with np.load(path, allow_pickle=False) as z:
            parts = {k: z[k] for k in keys + ["prior", "far_own"]}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        if isinstance(exc, ValueError) and "pickled" in str(exc):
            raise ValueError("not a NumPy file") from None
        raise ValueError(str(exc).strip("'\"")) from None
    heads = {}
    for name in PARTS:
        pair = []
        for h, k in (("rank", 13), ("suit", 4)):
            W, b = parts[f"{name}_{h}_W"], parts[f"{name}_{h}_b"]
            if W.shape != (N_FEATURES, k) or b.shape != (k,):
                raise ValueError(f"{name} {h} head W {W.shape} and b {b.shape}, not {N_FEATURES} x {k} and {k} numbers")
            if not (np.all(np.isfinite(W)) and np.all(np.isfinite(b))):
                raise ValueError(f"{name} {h} head holds numbers that are not finite")
            pair.append((W.astype(np.float32), b.astype(np.float32)))
        heads[name] = tuple(pair)
    prior = float(parts["prior"])
    if not 0.0 <= prior <= 2.0:
        raise ValueError(f"prior {prior} is not from 0 to 2")
    return DeckReader(heads, bool(parts["far_own"]), prior)
