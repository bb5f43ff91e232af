"""Train the whole-face reader: a fully visible face-up card, cut whole along its own axes,
-> rank (13) and suit (4); export to ONNX.

Why a second kind of reader: the corner reader sees the index patch alone, so a deck whose
small suit is missing or lies outside the patch (issue 40: tango_nuevo, the ornamental and
nicu designs) leaves it guessing the suit. Every deck shares more than its corner: the
colour, the suit shapes in the middle and the pips' count on number cards. The face reader
looks at the whole card and learns those.

Training only (needs torch). The samples are made straight from card faces, no scene
rendering: each face is scaled to a camera's card size (36-130 px wide), turned, lit,
blurred, noised and JPEG-compressed on a table-coloured ground, then cut back out with the
small errors of a real corner estimate, exactly as the detector cuts it
(:func:`solitaire_coach.vision.features.corner_patch` with :data:`FACE_GEOM`). Designs: our
drawn decks (drawn-0..9, drawn-12..41 and drawn-60..259, the varied styles) and every
rasterised Debian deck not held out (``TRAIN_EXCLUDE``); the held-out designs are never
seen, the validation ones (``VAL_DECKS``) only to report progress.

Runs on 2 CPU cores in the background: a checkpoint every minute under ``--work``
(default ``out/train-face``), resumed on the next start, progress with a time estimate;
a GPU when one is there. Usage::

    PYTHONPATH=src python training/train_face_reader.py --steps 6000 --out models
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
from solitaire_coach.vision.decks import TRAIN_EXCLUDE, VAL_DECKS, available_decks, load_deck  # noqa: E402
from solitaire_coach.vision.detector import model_card_probs  # noqa: E402
from solitaire_coach.vision.features import (  # noqa: E402
    BAND_GEOM,
    DEFAULT_GEOM,
    FACE_GEOM,
    PatchGeom,
    corner_patch,
    to_tensor,
)

cv2.setNumThreads(1)
DRAWN = (
    [f"drawn-{i}" for i in range(10)] + [f"drawn-{i}" for i in range(12, 42)] + [f"drawn-{i}" for i in range(60, 260)]
)


def train_designs() -> tuple[list[str], list[str], list[str]]:
    """(drawn designs, rasterised Debian designs, font designs) used for training; none of
    them held out. The font designs are the ``font-N`` folders of training/make_font_decks.py."""
    art = [d for d in available_decks() if d not in TRAIN_EXCLUDE]
    fonts = [d for d in art if d.startswith("font-")]
    art = [d for d in art if not d.startswith("font-")]
    return [d for d in DRAWN if d not in TRAIN_EXCLUDE], art, fonts


def load_faces(names: list[str]) -> np.ndarray:
    """designs x 52 x FACE_H x FACE_W x 3 uint8 faces (index = Card.index)."""
    out = []
    for n in names:
        d = load_deck(n)
        out.append(np.stack([d.face(Card.from_index(i)) for i in range(52)]))
    return np.stack(out)


def _ground(rng, w: int, h: int) -> np.ndarray:
    """A table-like ground: a plain colour with a gradient and noise (float32)."""
    base = rng.integers(0, 256, 3).astype(np.float32)
    if rng.random() < 0.5:  # the usual tables: green felt, wood, grey, dark, white
        base = np.array(
            [[40, 110, 40], [40, 80, 140], [120, 120, 120], [30, 30, 30], [200, 200, 200]][int(rng.integers(0, 5))],
            np.float32,
        )
        base = base * np.float32(rng.uniform(0.6, 1.3))
    img = np.empty((h, w, 3), np.float32)
    cv2.randn(img, base.reshape(3, 1).astype(np.float64), np.full((3, 1), rng.uniform(2, 14)))
    return img


def _field(rng, w: int, h: int, spread: float) -> np.ndarray:
    """A smooth random field around 1 (shading across the card), h x w x 1 float32."""
    f = (1 + rng.uniform(-spread, spread, (3, 3))).astype(np.float32)
    return cv2.resize(f, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]


def cover(rng: np.random.Generator, face: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``face`` as a fanned pile shows it: in 3 of 10 whole, in 5 covered from below by
    ``other`` (a tableau column: 12-42% of its height shows), in 2 from the right (a fanned
    waste: 15-50% of its width shows); the covering card's edge casts a little shadow."""
    fh, fw = face.shape[:2]
    out = face.astype(np.float32)
    if rng.random() < 0.5:
        other = other[::-1, ::-1]
    other = other.astype(np.float32)
    r = rng.random()
    if r < 0.3:
        return face
    if r < 0.8:
        dy = int(rng.uniform(0.12, 0.42) * fh)
        dx = int(rng.normal(0, 0.03) * fw)
        x0, x1 = max(0, dx), fw + min(0, dx)
        out[dy:, x0:x1] = other[: fh - dy, x0 - dx : x1 - dx]
        s = max(1, fh // 60)
        out[max(0, dy - s) : dy, x0:x1] *= np.float32(rng.uniform(0.6, 0.95))
    else:
        dx = int(rng.uniform(0.15, 0.5) * fw)
        dy = int(rng.normal(0, 0.02) * fh)
        y0, y1 = max(0, dy), fh + min(0, dy)
        out[y0:y1, dx:] = other[y0 - dy : y1 - dy, : fw - dx]
        s = max(1, fw // 60)
        out[y0:y1, max(0, dx - s) : dx] *= np.float32(rng.uniform(0.6, 0.95))
    return out.astype(np.uint8)


def make_sample(
    rng: np.random.Generator, face: np.ndarray, geom: PatchGeom = FACE_GEOM, other: np.ndarray | None = None
) -> np.ndarray:
    """One training cut of ``face`` as the detector would see it on a camera frame, cut at
    ``geom``; with ``other``, the card may lie covered by it as on a fanned pile (:func:`cover`)."""
    fh, fw = face.shape[:2]
    if rng.random() < 0.5:
        face = face[::-1, ::-1]  # a card lying the other way up
    if other is not None:
        face = cover(rng, face, other)
    w = float(np.exp(rng.uniform(np.log(36), np.log(130))))
    h = w * fh / fw * rng.uniform(0.96, 1.04)
    cw, ch = int(w * 1.5), int(h * 1.32)
    img = _ground(rng, cw, ch)
    ang = rng.uniform(-0.2, 0.2)
    u = np.array([np.cos(ang), np.sin(ang)]) * w
    v = np.array([-np.sin(ang), np.cos(ang)]) * h
    corner = np.array([cw / 2, ch / 2]) - (u + v) / 2
    A = np.array([[u[0] / fw, v[0] / fh, corner[0]], [u[1] / fw, v[1] / fh, corner[1]]])
    # the face scaled down first (as a camera's pixels average it), then placed
    k = max(1.0, fw / (w * 1.5))
    small = cv2.resize(face, (int(fw / k), int(fh / k)), interpolation=cv2.INTER_AREA).astype(np.float32)
    A[:, :2] *= k
    if rng.random() < 0.3:  # a tint of the paper or the light
        small = small * rng.uniform(0.85, 1.05, 3).astype(np.float32)
    sh, sw = small.shape[:2]
    warped = cv2.warpAffine(small, A, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    mask = cv2.warpAffine(np.ones((sh, sw), np.float32), A, (cw, ch), flags=cv2.INTER_LINEAR)[..., None]
    img = img * (1 - mask) + warped * mask
    # light: brightness, contrast, a colour cast and a soft shading across the card
    gain = (rng.uniform(0.6, 1.15) * rng.uniform(0.88, 1.12, 3)).astype(np.float32)
    img = img * gain * _field(rng, cw, ch, rng.uniform(0, 0.25)) + np.float32(rng.uniform(-20, 20))
    if rng.random() < 0.15:  # a glare spot
        glare = np.zeros((ch, cw), np.float32)
        cv2.circle(glare, (int(rng.uniform(0, cw)), int(rng.uniform(0, ch))), int(rng.uniform(0.1, 0.3) * w), 130.0, -1)
        img = img + cv2.GaussianBlur(glare, (0, 0), 0.15 * w)[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    s = rng.uniform(0, 1.2) * w / 80
    if s > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), s)
    noise = np.empty(img.shape, np.int16)
    cv2.randn(noise, 0, float(rng.uniform(0, 7)))
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    # cut it back out as the detector does, with a corner estimate's errors
    a = ang + rng.normal(0, 0.03)
    jw, jh = w * rng.normal(1, 0.05), h * rng.normal(1, 0.05)
    p = corner + rng.normal(0, 0.025, 2) * (w, h)
    return corner_patch(img, p, (jw * np.cos(a), jw * np.sin(a)), (-jh * np.sin(a), jh * np.cos(a)), geom)


def make_batch(rng, faces_drawn, faces_art, n: int, band: bool = False, geom: PatchGeom | None = None, faces_font=None):
    """``n`` cuts of random cards of random designs, with their ranks and suits; ``band``:
    cuts (at ``geom``, default the band reader's) of cards that may lie covered (by a card
    of the same design in 3 of 4, else of another). Designs: half Debian's, half drawn; with
    ``faces_font`` a third each."""
    xs, ranks, suits = [], [], []
    pools = [p for p in (faces_art, faces_font) if p is not None and len(p)]
    share = len(pools) / (len(pools) + 1)
    for _ in range(n):
        pool = pools[int(rng.integers(0, len(pools)))] if (pools and rng.random() < share) else faces_drawn
        d = int(rng.integers(0, len(pool)))
        c = int(rng.integers(0, 52))
        if band:
            po = pool if rng.random() < 0.75 else faces_drawn
            do = d if po is pool else int(rng.integers(0, len(po)))
            other = po[do, int(rng.integers(0, 52))]
            xs.append(make_sample(rng, pool[d, c], geom or BAND_GEOM, other))
        else:
            xs.append(make_sample(rng, pool[d, c]))
        ranks.append(c % 13)
        suits.append(c // 13)
    return np.stack(xs), np.array(ranks), np.array(suits)


def build_model(torch):
    nn = torch.nn

    def cbr(i, o, s=1):
        return [nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    class FaceReader(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                *cbr(3, 24, 2),
                *cbr(24, 32),
                nn.MaxPool2d(2),
                *cbr(32, 64),
                *cbr(64, 64),
                nn.MaxPool2d(2),
                *cbr(64, 128),
                nn.AdaptiveAvgPool2d((4, 3)),
                nn.Flatten(),
                nn.Dropout(0.2),
                nn.Linear(128 * 12, 256),
                nn.ReLU(inplace=True),
            )
            self.rank = nn.Linear(256, 13)
            self.suit = nn.Linear(256, 4)

        def forward(self, x):
            f = self.body(x)
            return self.rank(f), self.suit(f)

    class Export(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, face):
            r, s = self.m(face)
            return torch.softmax(r, 1), torch.softmax(s, 1)

    return FaceReader, Export


def to_input(torch, xs: np.ndarray, device):
    """Cuts (N x H x W x 3 BGR) as the network's input, as the detector gives them."""
    return torch.from_numpy(to_tensor(xs)).to(device)


def _fixed_pool(torch, model, dummy):
    """A copy of ``model`` whose adaptive average pool is the plain average pool it amounts
    to at ``dummy``'s size (ONNX export takes no adaptive pool whose output size does not
    divide its input's, as 4 x 3 from the index reader's 8 x 4); checked to give the same
    outputs."""
    import copy

    nn = torch.nn
    fixed = copy.deepcopy(model)
    x = torch.rand_like(dummy)
    with torch.no_grad():
        want = model(x)
    for i, layer in enumerate(fixed.body):
        if not isinstance(layer, nn.AdaptiveAvgPool2d):
            continue
        seen = []
        hook = layer.register_forward_hook(lambda mod, inp, out, seen=seen: seen.append(inp[0].shape[-2:]))
        with torch.no_grad():
            fixed(dummy)
        hook.remove()
        (h, w), (oh, ow) = seen[0], layer.output_size

        def window(n: int, o: int) -> tuple[int, int]:
            starts = [(k * n) // o for k in range(o)]
            ends = [-(-((k + 1) * n) // o) for k in range(o)]
            sizes = {e - s for s, e in zip(starts, ends)}
            steps = {b - a for a, b in zip(starts, starts[1:])} or {1}
            if len(sizes) != 1 or len(steps) != 1:
                raise ValueError(f"an adaptive pool from {n} to {o} is no plain pool")
            return sizes.pop(), steps.pop()

        (kh, sh), (kw, sw) = window(int(h), oh), window(int(w), ow)
        fixed.body[i] = nn.AvgPool2d((kh, kw), (sh, sw))
    with torch.no_grad():
        got = fixed(x)
    for a, b in zip(want, got):
        assert torch.allclose(a, b, atol=1e-5), "the plain pool changed the outputs"
    return fixed


# which reader: its cut, whether its cards may lie covered, its checkpoint and ONNX file names
READERS = {
    "face": (FACE_GEOM, False, "face_reader"),
    "band": (BAND_GEOM, True, "band_reader"),
    # the index reader: the corner reader's own patch (a top-left corner, down to 45%), read
    # by a network that saw the font designs; asked about the corners the corner reader is
    # not sure of (vision.json's band_reader entry with this patch)
    "index": (DEFAULT_GEOM, True, "index_reader"),
}


def export_onnx(torch, model, Export, out: str, device, what: str = "face") -> None:
    """Write ``out``/face_reader.onnx (or band_reader.onnx, index_reader.onnx: ``what``;
    input ``face``, outputs ``rank`` and ``suit``), atomically."""
    model.eval()
    geom, _, name = READERS[what]
    dummy = torch.zeros(1, 3, geom.read_h, geom.read_w, device=device)
    model = _fixed_pool(torch, model, dummy)
    path = os.path.join(out, f"{name}.onnx")
    torch.onnx.export(
        Export(model),
        dummy,
        path + ".tmp",
        input_names=["face"],
        output_names=["rank", "suit"],
        dynamic_axes={"face": {0: "n"}, "rank": {0: "n"}, "suit": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    os.replace(path + ".tmp", path)
    print(f"wrote {path}", flush=True)


def evaluate(torch, model, val, device) -> str:
    xs, ranks, suits = val
    model.eval()
    with torch.no_grad():
        r, s = model(to_input(torch, xs, device))
        pr, ps = torch.softmax(r, 1).cpu().numpy(), torch.softmax(s, 1).cpu().numpy()
    model.train()
    p = model_card_probs(pr, ps)
    best, conf = p.argmax(1), p.max(1)
    right = best == suits * 13 + ranks
    sure = conf >= 0.9
    return (
        f"val cards right {right.mean():.3f}, rank {(pr.argmax(1) == ranks).mean():.3f}, suit {(ps.argmax(1) == suits).mean():.3f}; "
        f"at 0.9: read {(sure & right).mean():.3f} wrong {(sure & ~right).mean():.4f}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=6000, help="training steps in all (resumed runs count on)")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument(
        "--work", default=None, help="checkpoints go here (resumed from); default out/train-face or out/train-band"
    )
    ap.add_argument(
        "--band",
        action="store_true",
        help="train the band reader instead: the top band of a card that may lie covered on a fanned pile",
    )
    ap.add_argument(
        "--index",
        action="store_true",
        help="train the index reader instead: the corner reader's patch of a card that may lie covered",
    )
    ap.add_argument("--out", default=None, help="model folder to write face_reader.onnx into when done")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", default=None, help="start from this checkpoint's weights (a new schedule)")
    ap.add_argument(
        "--export-now", action="store_true", help="write --out's face_reader.onnx from the last checkpoint and stop"
    )
    args = ap.parse_args(argv)
    what = "index" if args.index else "band" if args.band else "face"
    geom, covered, name = READERS[what]
    args.work = args.work or f"out/train-{what}"

    import torch

    torch.set_num_threads(args.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(args.work, exist_ok=True)
    FaceReader, Export = build_model(torch)
    model = FaceReader().to(device)
    ckpt = os.path.join(args.work, f"{name}.pt")
    if args.export_now:
        if not args.out or not os.path.exists(ckpt):
            print(f"--export-now needs --out and a checkpoint ({ckpt})", file=sys.stderr)
            return 2
        model.load_state_dict(torch.load(ckpt, map_location=device, weights_only=False)["model"])
        export_onnx(torch, model, Export, args.out, device, what)
        return 0
    t0 = time.time()
    drawn, art, fonts = train_designs()
    faces_drawn = load_faces(drawn)
    faces_art = load_faces(art) if art else np.zeros((0, 52, 1, 1, 3), np.uint8)
    # the font designs only for the index reader (the face and band readers shipped without them)
    faces_font = load_faces(fonts) if fonts and what == "index" else None
    val_faces = load_faces(list(VAL_DECKS))
    print(
        f"{len(drawn)} drawn, {len(art)} rasterised and {0 if faces_font is None else len(fonts)} font designs "
        f"loaded in {time.time() - t0:.0f} s",
        flush=True,
    )
    vr = np.random.default_rng(7)
    val = make_batch(vr, val_faces, np.zeros((0,)), 1500, covered, geom)

    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    step = 0
    if args.init and not os.path.exists(ckpt):
        model.load_state_dict(torch.load(args.init, map_location=device, weights_only=False)["model"])
        print(f"weights from {args.init}", flush=True)
    if os.path.exists(ckpt):
        st = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        step = st["step"]
        print(f"resumed at step {step} of {args.steps}", flush=True)
    rng = np.random.default_rng(1000 + step)
    ce = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    last_save, t_run, s_run = time.time(), time.time(), step
    loss_avg = None
    while step < args.steps:
        xs, ranks, suits = make_batch(rng, faces_drawn, faces_art, args.batch, covered, geom, faces_font)
        r, s = model(to_input(torch, xs, device))
        loss = ce(r, torch.from_numpy(ranks).to(device)) + ce(s, torch.from_numpy(suits).to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        lv = float(loss.detach())
        loss_avg = lv if loss_avg is None else 0.98 * loss_avg + 0.02 * lv
        if step % 50 == 0 or step == args.steps:
            rate = (step - s_run) / max(time.time() - t_run, 1e-6)
            left = (args.steps - step) / max(rate, 1e-6)
            print(
                f"step {step}/{args.steps} loss {loss_avg:.3f} {rate * args.batch:.0f} cuts/s, {left / 60:.0f} min left",
                flush=True,
            )
        if step % 500 == 0 or step == args.steps:
            print("  " + evaluate(torch, model, val, device), flush=True)
        if time.time() - last_save > 60 or step == args.steps:
            tmp = ckpt + ".tmp"
            torch.save(
                {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step}, tmp
            )
            os.replace(tmp, ckpt)
            last_save = time.time()
    if args.out:
        export_onnx(torch, model, Export, args.out, device, what)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
