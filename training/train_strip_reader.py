"""Train the strip reader: a fanned column's covered card, its visible top band as
``vision.strips.strip_canvas`` shapes it -> its suit (C D H S) and rank (A-K); export to ONNX.

Why: a strip left UU on a design never trained on is most often one whose small suit the
next card hides (the ornamental, nicu and tango designs, issue 40); its suit then shows only
in the top pips or their tips, which the blob finder of ``vision.pips`` often cannot cut out
(they merge with a frame line or the index). This network sees the whole band.

Training only (needs torch). Samples are made straight from card faces as
``train_pip_reader.py`` makes its strips (a camera's card size 45-110 px wide, a little
turn, light, blur, noise, JPEG, a table-coloured ground, covered from below by another card
so that 11-55% of its height shows, cut back out upright with a corner estimate's small
errors by ``vision.pips.card_view``, exactly as the detector cuts it). In half the samples
the face's two top index corners are first painted over with its paper colour: the network
must then find the suit in the pips, as on a design whose small suit is hidden. Designs as
``train_face_reader.py``: our drawn decks, the Debian decks not held out, the font decks;
the validation designs (``VAL_DECKS``) only to report, the held-out ones never.

Small (48 x 64 px in, 115 k weights), but it reads every pixel of the band: on 2 CPU cores
cutting 80,000 strips takes about 6 minutes and each pass about 10 (the shipped model: 5
passes, stop 68). Checkpointed under ``--work`` (default ``out/train-strip``) after every pass and
resumed, with progress and a time estimate; a GPU when one is there. Usage::

    PYTHONPATH=src python training/train_strip_reader.py --samples 80000 --epochs 12 --out models
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
from solitaire_coach.vision.decks import VAL_DECKS  # noqa: E402
from solitaire_coach.vision.strips import STRIP_H, STRIP_W, strip_canvas  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from train_face_reader import load_faces, train_designs  # noqa: E402
from train_pip_reader import _scene, export_softmax, resume, to_input  # noqa: E402

cv2.setNumThreads(1)


def _paint_index(face: np.ndarray) -> np.ndarray:
    """``face`` with its two top index corners (left and right, the top 42% of a fifth of
    its width each) painted over with its paper colour (its bright 90th percentile)."""
    fh, fw = face.shape[:2]
    out = face.copy()
    paper = np.percentile(face.reshape(-1, 3), 90, axis=0).astype(np.uint8)
    y1, x1 = int(0.42 * fh), int(0.22 * fw)
    out[int(0.03 * fh) : y1, int(0.03 * fw) : x1] = paper
    out[int(0.03 * fh) : y1, fw - x1 : fw - int(0.03 * fw)] = paper
    return out


def strip_samples(rng, faces: np.ndarray, n: int):
    """``n`` strips of the designs ``faces`` (D x 52 x H x W x 3): canvases, suits, ranks."""
    X = np.empty((n, STRIP_H, STRIP_W, 3), np.uint8)
    S = np.empty(n, np.int64)
    R = np.empty(n, np.int64)
    t0 = time.time()
    for k in range(n):
        d = int(rng.integers(0, len(faces)))
        i = int(rng.integers(0, 52))
        card = Card.from_index(i)
        face = faces[d, i]
        if rng.random() < 0.5:
            face = _paint_index(face)
        other = faces[d, int(rng.integers(0, 52))]
        view = _scene(rng, face, other, True, shown_range=(0.11, 0.55))
        X[k] = strip_canvas(view)
        S[k], R[k] = card.suit, card.rank - 1
        if k and k % 10000 == 0:
            left = (time.time() - t0) / k * (n - k)
            print(f"  {k}/{n} strips cut, about {left / 60:.1f} min left", flush=True)
    return X, S, R


def build_model():
    import torch.nn as nn

    def block(a, b):
        return [nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU()]

    class StripNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                *block(3, 24),
                nn.MaxPool2d(2),
                *block(24, 32),
                *block(32, 32),
                nn.MaxPool2d(2),
                *block(32, 48),
                nn.MaxPool2d(2),
                *block(48, 64),
                *block(64, 96),
                nn.AdaptiveMaxPool2d(1),
                nn.Flatten(),
            )
            self.suit = nn.Linear(96, 4)
            self.rank = nn.Linear(96, 13)

        def forward(self, x):
            f = self.body(x)
            return self.suit(f), self.rank(f)

    return StripNet()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=80000, help="training strips to cut (default 80000)")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--work", default="out/train-strip")
    ap.add_argument("--out", default=None, help="model folder to export strip_reader.onnx into")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(2)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(args.work, exist_ok=True)
    data = os.path.join(args.work, f"data-{args.samples}-{args.seed}.npz")
    t0 = time.time()
    if os.path.exists(data):
        z = np.load(data)
        X, S, R, Xv, Sv, Rv = (z[k] for k in ("X", "S", "R", "Xv", "Sv", "Rv"))
    else:
        drawn, art, fonts = train_designs()
        names = drawn + art + fonts
        print(f"cutting {args.samples} strips of {len(names)} designs ...", flush=True)
        X, S, R = strip_samples(np.random.default_rng(args.seed), load_faces(names), args.samples)
        Xv, Sv, Rv = strip_samples(np.random.default_rng(args.seed + 1), load_faces(list(VAL_DECKS)), 6000)
        np.savez(data, X=X, S=S, R=R, Xv=Xv, Sv=Sv, Rv=Rv)
        print(f"  {len(X)} strips in {time.time() - t0:.0f} s", flush=True)
    model = build_model().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    ck = os.path.join(args.work, "strip_reader.pt")
    start = resume(torch, ck, model, opt, dev)
    steps = len(X) // 128 + 1
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=args.epochs * steps)
    for _ in range(start * steps):
        sched.step()
    xv = to_input(Xv).to(dev)
    sv, rv = torch.from_numpy(Sv).to(dev), torch.from_numpy(Rv).to(dev)
    t1 = time.time()
    for ep in range(start, args.epochs):
        model.train()
        perm = np.random.default_rng(args.seed * 100 + ep).permutation(len(X))
        for k in range(0, len(perm), 128):
            idx = perm[k : k + 128]
            xb = to_input(X[idx]).to(dev)
            ps, pr = model(xb)
            loss = F.cross_entropy(ps, torch.from_numpy(S[idx]).to(dev)) + 0.5 * F.cross_entropy(
                pr, torch.from_numpy(R[idx]).to(dev)
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            outs = [model(xv[j : j + 512]) for j in range(0, len(xv), 512)]
            qs = torch.softmax(torch.cat([o[0] for o in outs]), 1)
            qr = torch.softmax(torch.cat([o[1] for o in outs]), 1)
        conf, pred = qs.max(1)
        sure = conf >= 0.99
        rconf, rpred = qr.max(1)
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": ep + 1}, ck)
        per = (time.time() - t1) / (ep + 1 - start)
        print(
            f"pass {ep + 1}/{args.epochs}: loss {loss.item():.3f}; validation designs: suit "
            f"{(pred == sv).float().mean().item():.1%} right, {sure.float().mean().item():.1%} sure at 0.99 "
            f"({((pred != sv) & sure).float().mean().item():.2%} a sure wrong suit); rank "
            f"{(rpred == rv).float().mean().item():.1%} right; about {per * (args.epochs - ep - 1) / 60:.1f} min left",
            flush=True,
        )
    if args.out:
        path = os.path.join(args.out, "strip_reader.onnx")
        export_softmax(torch, model, torch.zeros(1, 3, STRIP_H, STRIP_W), path, ["strip"], ["suit", "rank"])


if __name__ == "__main__":
    main()
