"""Train the pip reader: one ink blob of a card (``vision.pips.pip_crops``) -> its suit
(C D H S) or "no pip" (an index letter or digit, part of a court's picture); export to ONNX.

Why: a fanned column's covered card shows only its top band; designs that print the small
suit under the rank (the nicu and ornamental designs) hide it there, but a number card's top
pips often still show, and a whole card shows its pips whatever font its index uses. The
four suit shapes are what every French-suited deck shares.

Training only (needs torch). The samples are made straight from card faces: each face
scaled to a camera's card size (45-110 px wide), turned a little, lit, blurred, noised and
JPEG-compressed on a table-coloured ground, in 6 of 10 covered from below by another card
(a strip: 13-50% of its height shows), then cut back out upright with the small errors of a
real corner estimate (``vision.pips.card_view``), exactly as the detector cuts it, and its
blobs found by ``vision.pips.pip_crops``. Labels: on an ace or number card every blob
outside the two index corners is its suit; on a court every such blob is "no pip"; the blobs
inside the index corners are not used (a rank glyph and a small suit). Rank glyphs come
besides, drawn in the Hershey fonts, as "no pip". Designs as ``train_face_reader.py``:
our drawn decks, the Debian decks not held out, the font decks; the validation designs
(``VAL_DECKS``) only to report, the held-out ones never.

The network is small (16 x 16 px in, 47 k weights): a few minutes on 2 CPU cores.
Checkpointed under ``--work`` (default ``out/train-pip``) at the end of every pass and
resumed, with progress and a time estimate. Usage::

    PYTHONPATH=src python training/train_pip_reader.py --samples 40000 --epochs 8 --out models
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.core.cards import Card  # noqa: E402
from solitaire_coach.vision.decks import _FONTS, _FONTS_WILD, VAL_DECKS, _text_mask  # noqa: E402
from solitaire_coach.vision.pips import CROP, NO_PIP, card_view, in_index_corner, pip_crops, tip_crops  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from train_face_reader import _field, _ground, load_faces, train_designs  # noqa: E402

cv2.setNumThreads(1)
RANK_GLYPHS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "B", "D", "V", "R", "E", "1")


def _scene(rng, face: np.ndarray, other: np.ndarray, strip: bool, shown_range=(0.13, 0.5)):
    """``face`` as a camera sees it on a table (covered from below by ``other`` when
    ``strip``: ``shown_range`` of its height shows), and its upright view as the detector
    cuts it."""
    fh, fw = face.shape[:2]
    if strip:
        shown = rng.uniform(*shown_range)
        face = face.copy()
        dy = int(shown * fh)
        face[dy:] = other[: fh - dy]
        s = max(1, fh // 60)
        face[max(0, dy - s) : dy] = (face[max(0, dy - s) : dy] * rng.uniform(0.6, 0.95)).astype(np.uint8)
    else:
        shown = 1.0
    cw = rng.uniform(45, 110)
    ch = cw * fh / fw
    W, H = int(cw * 1.8) + 20, int(ch * 1.5) + 20
    img = _ground(rng, W, H)
    a = np.deg2rad(rng.uniform(-4, 4))
    u = np.array([np.cos(a), np.sin(a)]) * cw
    v = np.array([-np.sin(a), np.cos(a)]) * ch
    o = np.array([(W - cw) / 2, (H - ch) / 2])
    A = np.array([[u[0] / fw, v[0] / fh, o[0]], [u[1] / fw, v[1] / fh, o[1]]], np.float64)
    f = face.astype(np.float32) * _field(rng, fw, fh, 0.15) * np.float32(rng.uniform(0.7, 1.1))
    f = f + rng.uniform(-25, 25, 3).astype(np.float32)  # a colour cast
    warped = cv2.warpAffine(f, A, (W, H), flags=cv2.INTER_AREA)
    m = cv2.warpAffine(np.ones((fh, fw), np.float32), A, (W, H), flags=cv2.INTER_AREA)[..., None]
    img = img * (1 - m) + warped * m
    sig = rng.uniform(0, 1.2)
    if sig > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sig)
    img += rng.normal(0, rng.uniform(1, 7), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    e = rng.normal(0, 0.02, 4)  # a corner estimate's errors
    corner = o + e[0] * u + e[1] * v
    return card_view(img, corner, u * (1 + e[2]), v * (1 + e[3]), shown + rng.normal(0, 0.02))


def card_samples(rng, faces: np.ndarray, n: int, tips: bool = False):
    """``n`` cards of the designs ``faces`` (D x 52 x H x W x 3) as the detector would cut
    them: their blobs' crops and labels (suit 0-3 or NO_PIP). With ``tips``, a strip's
    blobs cut by the covering card (``vision.pips.tip_crops``: down to 3 px tall) come too,
    those pip_crops does not cut already."""
    X, Y = [], []
    for _ in range(n):
        d = int(rng.integers(0, len(faces)))
        i = int(rng.integers(0, 52))
        card = Card.from_index(i)
        other = faces[d, int(rng.integers(0, 52))]
        strip = rng.random() < 0.6
        view = _scene(rng, faces[d, i], other, strip)
        pc = pip_crops(view)
        for crop, box in zip(pc.crops, pc.boxes):
            if in_index_corner(box):
                continue
            X.append(crop)
            Y.append(NO_PIP if card.rank > 10 else card.suit)
        if tips and strip:
            cut = {tuple(b) for b in pc.boxes.tolist()}
            tc = tip_crops(view)
            for crop, box in zip(tc.crops, tc.boxes):
                if tuple(box.tolist()) not in cut:
                    X.append(crop)
                    Y.append(NO_PIP if card.rank > 10 else card.suit)
    return X, Y


def glyph_samples(rng, n: int):
    """``n`` rank glyphs (Hershey fonts, black or red, on paper) cut as blobs: "no pip"."""
    X, Y = [], []
    for _ in range(n):
        text = RANK_GLYPHS[int(rng.integers(0, len(RANK_GLYPHS)))]
        fonts = _FONTS + _FONTS_WILD
        mask = _text_mask(
            text, fonts[int(rng.integers(0, len(fonts)))], int(rng.integers(7, 17)), int(rng.integers(1, 4))
        )
        paper = rng.integers(215, 256, 3).astype(np.float32)
        ink = np.array([30, 30, 200] if rng.random() < 0.5 else [30, 30, 30], np.float32) + rng.uniform(-25, 25, 3)
        img = np.tile(paper, (40, 40, 1))
        hh, ww = min(mask.shape[0], 30), min(mask.shape[1], 30)
        a = mask[:hh, :ww, None].astype(np.float32) / 255
        img[5 : 5 + hh, 5 : 5 + ww] = img[5 : 5 + hh, 5 : 5 + ww] * (1 - a) + ink * a
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0)) + rng.normal(0, 3, img.shape)
        pc = pip_crops(np.clip(img, 0, 255).astype(np.uint8))
        X += list(pc.crops)
        Y += [NO_PIP] * len(pc.crops)
    return X, Y


def make_set(names: list[str], cards: int, glyphs: int, seed: int, tips: bool = False):
    rng = np.random.default_rng(seed)
    faces = load_faces(names)
    X, Y = card_samples(rng, faces, cards, tips)
    X2, Y2 = glyph_samples(rng, glyphs)
    X = np.stack(X + X2)
    Y = np.array(Y + Y2, np.int64)
    # pips are read either way up: a strip shows its top pips upright, a whole card both
    flip = rng.random(len(X)) < 0.5
    X[flip] = X[flip, ::-1, ::-1]
    return X, Y


def build_model():
    import torch.nn as nn

    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 48, 3, padding=1),
        nn.BatchNorm2d(48),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(48, 64, 3, padding=1),
        nn.BatchNorm2d(64),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, 5),
    )


def to_input(X: np.ndarray):
    import torch

    x = X[..., ::-1].astype(np.float32) / 255.0
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))


def resume(torch, ck: str, model, opt, dev) -> int:
    """Load the checkpoint ``ck`` (model and optimiser) where there is one, saying so; the
    passes done already (0 without one)."""
    if not os.path.exists(ck):
        return 0
    s = torch.load(ck, map_location=dev)
    model.load_state_dict(s["model"])
    opt.load_state_dict(s["opt"])
    print(f"resumed at pass {s['epoch']}")
    return s["epoch"]


def export_softmax(torch, model, dummy, path: str, inputs: list[str], outputs: list[str]) -> None:
    """``model`` (its output one tensor of scores, or a tuple of them) written to ONNX at
    ``path`` with a softmax on each output, the batch size free."""

    class WithSoftmax(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            out = self.m(x)
            return tuple(torch.softmax(o, 1) for o in out) if isinstance(out, tuple) else torch.softmax(out, 1)

    torch.onnx.export(
        WithSoftmax(model.eval().cpu()),
        dummy,
        path,
        input_names=inputs,
        output_names=outputs,
        dynamic_axes={k: {0: "n"} for k in inputs + outputs},
        opset_version=17,
        dynamo=False,
    )
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=40000, help="training cards to cut (default 40000)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--work", default="out/train-pip")
    ap.add_argument("--out", default=None, help="model folder to export pip_reader.onnx into")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tips", action="store_true", help="also the tips of pips a strip's covering card cuts")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(2)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(args.work, exist_ok=True)
    data = os.path.join(args.work, f"data-{args.samples}-{args.seed}{'-tips' if args.tips else ''}.npz")
    t0 = time.time()
    if os.path.exists(data):
        z = np.load(data)
        X, Y, Xv, Yv = z["X"], z["Y"], z["Xv"], z["Yv"]
    else:
        drawn, art, fonts = train_designs()
        names = drawn + art + fonts
        print(f"cutting {args.samples} cards of {len(names)} designs ...", flush=True)
        X, Y = make_set(names, args.samples, args.samples // 10, args.seed, args.tips)
        Xv, Yv = make_set(list(VAL_DECKS), 3000, 300, args.seed + 1, args.tips)
        np.savez_compressed(data, X=X, Y=Y, Xv=Xv, Yv=Yv)
        print(f"  {len(X)} crops ({np.bincount(Y, minlength=5).tolist()} C D H S none) in {time.time() - t0:.0f} s")
    model = build_model().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    ck = os.path.join(args.work, "pip_reader.pt")
    start = resume(torch, ck, model, opt, dev)
    xt, yt = to_input(X), torch.from_numpy(Y)
    xv, yv = to_input(Xv).to(dev), torch.from_numpy(Yv).to(dev)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=args.epochs * (len(X) // 256 + 1))
    for _ in range(start * (len(X) // 256 + 1)):
        sched.step()
    t1 = time.time()
    for ep in range(start, args.epochs):
        model.train()
        perm = torch.randperm(len(xt))
        for k in range(0, len(perm), 256):
            idx = perm[k : k + 256]
            loss = F.cross_entropy(model(xt[idx].to(dev)), yt[idx].to(dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            pv = torch.softmax(model(xv), 1)
        conf, pred = pv.max(1)
        right = (pred == yv).float().mean().item()
        sure = conf > 0.9
        wrong_sure = ((pred != yv) & sure & (pred < NO_PIP)).float().mean().item()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": ep + 1}, ck)
        per = (time.time() - t1) / (ep + 1 - start)
        print(
            f"pass {ep + 1}/{args.epochs}: loss {loss.item():.3f}, validation designs {right:.1%} right, "
            f"{sure.float().mean().item():.1%} sure, {wrong_sure:.2%} a sure wrong suit; "
            f"about {per * (args.epochs - ep - 1) / 60:.1f} min left",
            flush=True,
        )
    if args.out:
        export_softmax(
            torch, model, torch.zeros(1, 3, CROP, CROP), os.path.join(args.out, "pip_reader.onnx"), ["crop"], ["suit"]
        )


if __name__ == "__main__":
    main()
