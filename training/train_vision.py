"""Train the card locator and the corner-index reader on rendered scenes; export both to ONNX.

Training only (needs torch; the runtime needs onnxruntime alone). Renders scenes with
:func:`solitaire_coach.vision.render.render_random` from the training decks only (the
held-out designs in ``solitaire_coach.vision.decks`` are never seen), then trains

* locator: frame scaled to 640 px wide -> stride-4 heat maps of card top-left corners
  (face-up / back) with sub-cell offset and card size;
* reader: a corner patch (its geometry is written to ``vision.json``: the shipped v2's is
  taller than the first model's 48x36) -> kind (face/back/none), rank (13), suit (4),
  embedding.

Usage (as ``models/v2`` was made; see models/README.md):
PYTHONPATH=src python training/train_vision.py --out models/v2 --scenes 9000 --budget 545 --loc-share 0.45

``--out`` has no default: the shipped default model in ``models/`` (the first model, made
at commit aa16e42 by this script as it was then) is not overwritten by accident.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import sys
import time

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.vision import features as F  # noqa: E402
from solitaire_coach.vision.decks import TRAIN_EXCLUDE, available_decks  # noqa: E402
from solitaire_coach.vision.render import TableLayout, render_layout, render_random  # noqa: E402

cv2.setNumThreads(1)
# 960x540 is what the live coach records: small cards, so it gets a large share
SIZES = [(1280, 720)] * 4 + [(1920, 1080)] * 2 + [(960, 540)] * 4
N_DRAWN_EXTRA = 30  # drawn-12 .. drawn-41: the more varied drawn designs (drawn-10, -11 are held out)


def train_decks(wild: int = 0) -> list[str]:
    """Training designs: our drawn decks and every rasterised deck not held out. The
    rasterised decks are listed twice so that they are drawn about as often as ours.
    ``wild``: also that many of the widest drawn designs (drawn-60 on, see
    ``DrawnDeck._params``), the rasterised decks then listed as often as needed to stay
    about half of the designs drawn."""
    drawn = [f"drawn-{i}" for i in range(10)] + [f"drawn-{12 + i}" for i in range(N_DRAWN_EXTRA)]
    drawn += [f"drawn-{60 + i}" for i in range(wild)]
    art = [d for d in available_decks() if d not in TRAIN_EXCLUDE]
    times = max(2, round(len(drawn) / max(len(art), 1))) if wild else 2
    return [d for d in drawn + art * times if d not in TRAIN_EXCLUDE]


def make_sample(seed: int, decks: list[str], variety: float = 0.0, spread: float = 0.0, steady: float = 0.0):
    rng = np.random.default_rng(seed * 31 + 5)
    W, H = SIZES[seed % len(SIZES)]
    game = np.random.default_rng([seed, 6262])
    if steady and game.random() < steady:  # a camera on a stand over a game, as `play` records
        W, H = 960, 540
        layout = TableLayout.random(game)
        deck = decks[int(game.integers(0, len(decks)))]
        img, truth = render_layout(layout, seed, W, H, deck, difficulty=float(game.uniform(0.3, 1.0)), steady=True)
    else:
        img, truth = render_random(seed, W, H, decks=decks, hand_p=0.15, grid_p=0.05, variety=variety, spread_p=spread)
    loc, s = F.locator_input(img)
    corners = []  # x, y, w, h (locator px), kind (0 face, 1 back), visible, angle (radians)
    crops, labels = [], []
    truth_pts = []
    for c in truth.cards:
        q = c.full_quad
        w = float(np.linalg.norm(q[1] - q[0]))
        h = float(np.linalg.norm(q[3] - q[0]))
        x, y = q[0]
        angle = float(np.arctan2(q[1][1] - q[0][1], q[1][0] - q[0][0]))
        inside = 0 <= x < W and 0 <= y < H
        truth_pts.append((x, y, w, h))
        if not inside:
            continue
        kind = 0 if c.card is not None else 1
        corners.append((x * s, y * s, w * s, h * s, kind, int(c.visible), angle))
        for _ in range(2):
            # cut along the card's own axes (as the detector does with the locator's angle),
            # with the small errors of a real corner estimate
            a = angle + rng.normal(0, 0.03)
            jw, jh = w * rng.normal(1, 0.06), h * rng.normal(1, 0.06)
            p = (x + rng.normal(0, 0.025) * w, y + rng.normal(0, 0.025) * h)
            crops.append(F.corner_patch(img, p, (jw * np.cos(a), jw * np.sin(a)), (-jh * np.sin(a), jh * np.cos(a))))
            if not c.visible:
                labels.append((2, 0, 0))
            elif c.card is None:
                labels.append((1, 0, 0))
            else:
                labels.append((0, c.card.rank - 1, c.card.suit))
    tp = np.array(truth_pts, np.float32).reshape(-1, 4)
    mw = float(np.median(tp[:, 2])) if len(tp) else W / 10
    mh = mw * 1.4
    n_neg = max(6, len(corners) // 2)
    tries = 0
    while n_neg > 0 and tries < 200:
        tries += 1
        if rng.random() < 0.6 and len(tp):
            k = int(rng.integers(0, len(tp)))
            x = tp[k, 0] + rng.uniform(-0.6, 0.9) * tp[k, 2]
            y = tp[k, 1] + rng.uniform(-0.4, 0.9) * tp[k, 3]
        else:
            x, y = rng.uniform(0, W), rng.uniform(0, H)
        if len(tp):
            d = np.hypot((tp[:, 0] - x) / tp[:, 2], (tp[:, 1] - y) / tp[:, 3])
            if d.min() < 0.1:
                continue
        crops.append(F.corner_patch(img, (x, y), (mw * rng.normal(1, 0.1), 0), (0, mh * rng.normal(1, 0.1))))
        labels.append((2, 0, 0))
        n_neg -= 1
    return loc, np.array(corners, np.float32).reshape(-1, 7), np.stack(crops), np.array(labels, np.int64)


def _worker(args):
    seed, decks, variety, spread, steady = args
    return make_sample(seed, decks, variety, spread, steady)


def targets(corners: np.ndarray, hh: int, ww: int, sigma: float = 0.7):
    heat = np.zeros((2, hh, ww), np.float32)
    reg = np.zeros((5, hh, ww), np.float32)
    regm = np.zeros((hh, ww), np.float32)
    yy, xx = np.mgrid[0:hh, 0:ww]
    for x, y, w, h, kind, vis, angle in corners:
        if not vis:
            continue
        cx, cy = x / F.STRIDE, y / F.STRIDE
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < ww and 0 <= iy < hh):
            continue
        x0, x1, y0, y1 = max(ix - 3, 0), min(ix + 4, ww), max(iy - 3, 0), min(iy + 4, hh)
        g = np.exp(-((xx[y0:y1, x0:x1] - ix) ** 2 + (yy[y0:y1, x0:x1] - iy) ** 2) / (2 * sigma**2))
        k = int(kind)
        heat[k, y0:y1, x0:x1] = np.maximum(heat[k, y0:y1, x0:x1], g)
        heat[k, iy, ix] = 1.0
        reg[:, iy, ix] = (cx - ix, cy - iy, math.log(max(w, 1)), math.log(max(h, 1)), angle)
        regm[iy, ix] = 1.0
    return heat, reg, regm


def build_models(torch, reader_width: float = 1.0):
    """The locator, the reader (its channels scaled by ``reader_width``) and the reader's
    export wrapper."""
    nn = torch.nn

    def cbr(i, o, s=1, d=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, s, d, dilation=d, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    def dws(i, o, s=1, d=1):
        return nn.Sequential(
            nn.Conv2d(i, i, 3, s, d, dilation=d, groups=i, bias=False),
            nn.BatchNorm2d(i),
            nn.ReLU(inplace=True),
            nn.Conv2d(i, o, 1, bias=False),
            nn.BatchNorm2d(o),
            nn.ReLU(inplace=True),
        )

    class Locator(nn.Module):
        def __init__(self):
            super().__init__()
            self.s2 = cbr(3, 16, 2)
            self.s4 = nn.Sequential(cbr(16, 24, 2), dws(24, 24))
            self.s8 = nn.Sequential(dws(24, 48, 2), dws(48, 48), dws(48, 48, d=2), dws(48, 48, d=4))
            self.s16 = nn.Sequential(dws(48, 64, 2), dws(64, 64, d=2), dws(64, 64, d=4))
            self.up16 = dws(64 + 48, 48)
            self.up8 = dws(48 + 24, 32)
            # heat (face, back), offset (2), log size (2), the card's turn on the table (radians)
            self.head = nn.Sequential(dws(32, 32), nn.Conv2d(32, 7, 1))
            self.head[-1].bias.data[:2] = -4.0

        def forward(self, x):
            f4 = self.s4(self.s2(x))
            f8 = self.s8(f4)
            f16 = self.s16(f8)
            u = nn.functional.interpolate(f16, size=f8.shape[2:], mode="bilinear", align_corners=False)
            u = self.up16(torch.cat([u, f8], 1))
            u = nn.functional.interpolate(u, size=f4.shape[2:], mode="bilinear", align_corners=False)
            return self.head(self.up8(torch.cat([u, f4], 1)))

    class ReaderM(nn.Module):
        """The reader used in the shipped model: plain 3x3 convolutions, strided early."""

        def __init__(self):
            super().__init__()
            c = [int(round(n * reader_width)) for n in (16, 32, 48, 64, 64, 96)]
            self.f = nn.Sequential(
                cbr(3, c[0]),
                cbr(c[0], c[1], 2),
                cbr(c[1], c[2]),
                cbr(c[2], c[3], 2),
                cbr(c[3], c[4]),
                cbr(c[4], c[5], 2),
            )
            fh, fw = F.READ_H, F.READ_W
            for _ in range(3):
                fh, fw = (fh + 1) // 2, (fw + 1) // 2
            self.fc = nn.Sequential(
                nn.Flatten(), nn.Dropout(0.2), nn.Linear(c[5] * fh * fw, 128), nn.ReLU(inplace=True)
            )
            self.kind = nn.Linear(128, 3)
            self.rank = nn.Linear(128, 13)
            self.suit = nn.Linear(128, 4)

        def forward(self, x):
            e = self.fc(self.f(x))
            return self.kind(e), self.rank(e), self.suit(e), e

    Reader = ReaderM

    class ReaderExport(nn.Module):
        def __init__(self, r):
            super().__init__()
            self.r = r

        def forward(self, x):
            k, r, s, e = self.r(x)
            return (torch.softmax(k, 1), torch.softmax(r, 1), torch.softmax(s, 1), nn.functional.normalize(e, dim=1))

    return Locator, Reader, ReaderExport


def export_reader(torch, wrapped, path: str) -> None:
    """Write a reader (in its export wrapper: probabilities and a unit embedding) as ONNX to
    ``path``, any number of patches a run."""
    torch.onnx.export(
        wrapped,
        torch.zeros(1, 3, F.READ_H, F.READ_W),
        path,
        input_names=["patch"],
        output_names=["kind", "rank", "suit", "embedding"],
        opset_version=17,
        dynamic_axes={"patch": {0: "n"}, "kind": {0: "n"}, "rank": {0: "n"}, "suit": {0: "n"}, "embedding": {0: "n"}},
        dynamo=False,
    )


def photometric(torch, x):
    """Random gain, colour cast, contrast and grey-world changes on a float batch (GPU)."""
    n = x.shape[0]
    dev = x.device
    g = torch.empty(n, 1, 1, 1, device=dev).uniform_(0.6, 1.3)
    c = torch.empty(n, 3, 1, 1, device=dev).uniform_(0.85, 1.15)
    x = x * g * c
    m = x.mean((1, 2, 3), keepdim=True)
    k = torch.empty(n, 1, 1, 1, device=dev).uniform_(0.7, 1.3)
    x = (x - m) * k + m
    grey = (torch.rand(n, 1, 1, 1, device=dev) < 0.1).float()
    x = x * (1 - grey) + x.mean(1, keepdim=True) * grey
    return x.clamp(0, 1)


class Phase:
    """One training phase that runs for ``budget`` seconds of its own, in as many sittings
    as it takes: its model, optimiser and time spent are saved to ``path`` every minute
    (and at the end), and a run that finds the file goes on from there. Prints progress
    with the time left."""

    def __init__(self, torch, path: str, name: str, budget: float, model, opt):
        self.torch, self.path, self.name, self.budget = torch, path, name, budget
        self.model, self.opt = model, opt
        self.spent, self.step = 0.0, 0
        if os.path.exists(path):
            state = torch.load(path, map_location="cpu", weights_only=False)
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            self.spent, self.step = state["spent"], state["step"]
            print(f"{name}: resumed at step {self.step}, {self.spent:.0f} of {budget:.0f} s done", flush=True)
        self._since = time.time()
        self._saved = time.time()

    @property
    def done(self) -> bool:
        return self.spent >= self.budget

    @property
    def frac(self) -> float:
        """How far through its budget the phase is (the learning-rate schedule follows it)."""
        return min(1.0, self.spent / max(1.0, self.budget))

    def tick(self, loss_text: str) -> None:
        """Count one step's time; save every minute; print progress every 200 steps."""
        now = time.time()
        self.spent += now - self._since
        self._since = now
        self.step += 1
        if self.step % 200 == 0:
            left = max(0.0, self.budget - self.spent)
            print(
                f"{self.name} step {self.step} {loss_text}  {self.spent:.0f}/{self.budget:.0f} s, "
                f"about {left / 60:.1f} min left",
                flush=True,
            )
        if now - self._saved > 60 or self.done:
            self.save()

    def save(self) -> None:
        tmp = self.path + ".tmp"
        self.torch.save(
            {"model": self.model.state_dict(), "opt": self.opt.state_dict(), "spent": self.spent, "step": self.step},
            tmp,
        )
        os.replace(tmp, self.path)
        self._saved = time.time()


def _load_folded(torch, body, folded, path: str, what: str) -> None:
    """Give ``body``'s convolution + batch norm pairs the exported folded weights (in the
    order the export ran them, which is the order the modules are built in): the
    convolution takes the folded weight, its batch norm the folded bias with unit
    statistics, so that in eval mode the module gives the exported outputs."""
    convs = [m for m in body.modules() if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in body.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if not (len(folded) == len(convs) == len(norms)):
        raise SystemExit(f"{path}: {len(folded)} folded convolutions, the {what} built here has {len(convs)}")
    with torch.no_grad():
        for (w, b), conv, bn in zip(folded, convs, norms):
            if tuple(conv.weight.shape) != w.shape:
                raise SystemExit(f"{path}: a convolution of {w.shape}, here {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)


def _onnx_weights(path: str):
    """An exported network's initialisers by name and its convolutions' (weight, bias) in order."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(path).graph
    init = {i.name: np.array(numpy_helper.to_array(i)) for i in graph.initializer}  # writable copies
    return init, [(init[n.input[1]], init[n.input[2]]) for n in graph.node if n.op_type == "Conv"]


def hold_batch_norms(torch, model) -> None:
    """Put ``model``'s batch norms in eval mode (after :func:`_load_folded` their statistics
    are the folded ones, so a fine-tune's start is the exported network exactly)."""
    for mod in model.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.eval()


def load_locator_onnx(torch, loc, path: str) -> None:
    """Copy an exported locator's weights into ``loc`` (the export folded its batch norms;
    see :func:`_load_folded`; its last convolution, the head's, has a bias of its own).
    Train it with its batch norms in eval mode."""
    _init, convs = _onnx_weights(path)
    head = loc.head[-1]
    if tuple(head.weight.shape) != convs[-1][0].shape:
        raise SystemExit(f"{path}: its head is {convs[-1][0].shape}, here {tuple(head.weight.shape)}")
    body = torch.nn.ModuleList([m for name, m in loc.named_children() if name != "head"] + [loc.head[0]])
    _load_folded(torch, body, convs[:-1], path, "locator")
    with torch.no_grad():
        head.weight.copy_(torch.from_numpy(convs[-1][0]))
        head.bias.copy_(torch.from_numpy(convs[-1][1]))


def load_reader_onnx(torch, rd, path: str) -> None:
    """Copy an exported reader's weights into ``rd`` (built with the same width; see
    :func:`_load_folded`). Train it with its batch norms in eval mode."""
    init, folded = _onnx_weights(path)
    _load_folded(torch, rd.f, folded, path, "reader")
    with torch.no_grad():
        state = rd.state_dict()
        for name in (
            "fc.2.weight",
            "fc.2.bias",
            "kind.weight",
            "kind.bias",
            "rank.weight",
            "rank.bias",
            "suit.weight",
            "suit.bias",
        ):
            state[name].copy_(torch.from_numpy(init["r." + name]))


def render_all(args, decks, work: str):
    """Every scene's locator input, corners, reader patches and labels, rendered in chunks
    of 500 kept in ``work`` (a run that stops keeps the chunks it finished)."""
    t0 = time.time()
    chunk = 500
    out = []
    todo = []
    for start in range(0, args.scenes, chunk):
        path = os.path.join(work, f"scenes_{start:06d}_{min(args.scenes, start + chunk):06d}.npz")
        if not os.path.exists(path):
            todo.append((start, path))
    done_before = args.scenes - sum(min(chunk, args.scenes - s) for s, _ in todo)
    if done_before:
        print(f"rendering: {done_before} scenes already rendered in {work}", flush=True)
    with mp.Pool(args.workers) as pool:
        for k, (start, path) in enumerate(todo):
            seeds = [
                (sd, decks, args.variety, args.spread, args.steady)
                for sd in range(start, min(args.scenes, start + chunk))
            ]
            rows = pool.map(_worker, seeds, chunksize=4)
            np.savez(
                path + ".tmp.npz",
                loc=np.stack([r[0] for r in rows]),
                corners=np.array([r[1] for r in rows], dtype=object),
                crops=np.concatenate([r[2] for r in rows]),
                labels=np.concatenate([r[3] for r in rows]),
            )
            os.replace(path + ".tmp.npz", path)
            spent = time.time() - t0
            left = spent / (k + 1) * (len(todo) - k - 1)
            print(
                f"rendered {min(args.scenes, start + chunk)}/{args.scenes} scenes  {spent:.0f} s, "
                f"about {left / 60:.1f} min left",
                flush=True,
            )
    for start in range(0, args.scenes, chunk):
        path = os.path.join(work, f"scenes_{start:06d}_{min(args.scenes, start + chunk):06d}.npz")
        with np.load(path, allow_pickle=True) as z:
            # the reader alone needs no frames: 9,000 of them are 6 GB, twice over once copied
            frames = None if args.only_reader else z["loc"]
            out.append((frames, [] if args.only_reader else list(z["corners"]), z["crops"], z["labels"]))
    locs = None if args.only_reader else np.concatenate([o[0] for o in out])
    corners = [c for o in out for c in o[1]]
    crops = np.concatenate([o[2] for o in out])
    labels = np.concatenate([o[3] for o in out])
    return locs, corners, crops, labels


def optimiser_to(torch, opt, dev: str) -> None:
    """Move a resumed optimiser's moments to ``dev``, where its model is."""
    for st in opt.state.values():
        for k, v in st.items():
            if torch.is_tensor(v):
                st[k] = v.to(dev)


def train_locator(torch, args, dev: str, work: str, t0: float, locs, corners, Locator) -> None:
    """Train the locator for its share of the budget (resumable), check it, export it."""
    n, H, W, _ = locs.shape
    hh, ww = H // F.STRIDE, W // F.STRIDE
    tg = [targets(c, hh, ww) for c in corners]
    heat = np.stack([t[0] for t in tg])
    reg = np.stack([t[1] for t in tg])
    regm = np.stack([t[2] for t in tg])
    # ------------------------------------------------------------------ locator
    nval = max(1, n // 40)
    loc = Locator()
    start = None  # the start's weights, for --anchor (taken before Phase loads a checkpoint)
    if args.init_locator:
        load_locator_onnx(torch, loc, args.init_locator)
        start = [p0.detach().clone() for p0 in loc.parameters()]
        print(f"locator starts from {args.init_locator} (batch norms held)", flush=True)
    opt = torch.optim.AdamW(loc.parameters(), args.locator_lr, weight_decay=1e-4)
    phase = Phase(
        torch,
        os.path.join(work, "locator.pt"),
        "locator",
        args.budget * (1 if args.only_locator else args.loc_share),
        loc,
        opt,
    )
    loc.to(dev)
    optimiser_to(torch, opt, dev)
    X = torch.from_numpy(locs[..., ::-1].copy()).to(dev)  # uint8 N H W 3 RGB
    HT = torch.from_numpy(heat).to(dev)
    RG = torch.from_numpy(reg).to(dev)
    RM = torch.from_numpy(regm).to(dev)
    bs = 32
    loc.train()
    if args.init_locator:
        hold_batch_norms(torch, loc)
    crop = args.locator_crop
    # --anchor pulls towards the weights the fine-tune started from
    anchor = [(p_, p0.to(dev)) for p_, p0 in zip(loc.parameters(), start)] if args.anchor and start else []
    rng = np.random.default_rng(phase.step)
    while not phase.done:
        idx = torch.randint(nval, n, (bs,), device=dev)
        if crop:  # squares of the frame (a third of the pixels: about 3x the steps on a CPU)
            xs, ts, rs, ms = [], [], [], []
            for i in idx.tolist():
                pts = [c for c in corners[i] if c[5] > 0]
                if pts and rng.random() < 0.7:  # around a card's corner, else anywhere
                    c = pts[int(rng.integers(0, len(pts)))]
                    cx, cy = c[0] - rng.uniform(0.2, 0.8) * crop, c[1] - rng.uniform(0.2, 0.8) * crop
                else:
                    cx, cy = rng.uniform(0, W - crop), rng.uniform(0, H - crop)
                # on the coarsest stride (16 px), so the network's grid is the frame's
                ox = int(np.clip(cx, 0, W - crop)) // 16 * 16
                oy = int(np.clip(cy, 0, H - crop)) // 16 * 16
                gx, gy, gc = ox // F.STRIDE, oy // F.STRIDE, crop // F.STRIDE
                xs.append(X[i, oy : oy + crop, ox : ox + crop])
                ts.append(HT[i, :, gy : gy + gc, gx : gx + gc])
                rs.append(RG[i, :, gy : gy + gc, gx : gx + gc])
                ms.append(RM[i, gy : gy + gc, gx : gx + gc])
            xb, t, rg, rm = torch.stack(xs), torch.stack(ts), torch.stack(rs), torch.stack(ms)
        else:
            xb, t, rg, rm = X[idx], HT[idx], RG[idx], RM[idx]
        x = xb.permute(0, 3, 1, 2).float() / 255.0
        x = photometric(torch, x)
        for gparam in opt.param_groups:
            gparam["lr"] = args.locator_lr * 0.5 * (1 + math.cos(math.pi * phase.frac))
        out = loc(x)
        p = torch.sigmoid(out[:, :2]).clamp(1e-4, 1 - 1e-4)
        pos = (t >= 0.999).float()
        neg = 1 - pos
        fl = -(pos * (1 - p) ** 2 * torch.log(p) + neg * (1 - t) ** 4 * p**2 * torch.log(1 - p))
        npos = pos.sum().clamp(min=1)
        l_heat = fl.sum() / npos
        m = rm.unsqueeze(1)
        l_reg = (torch.abs(out[:, 2:4] - rg[:, :2]) * m).sum() / npos
        l_size = (torch.abs(out[:, 4:6] - rg[:, 2:4]) * m).sum() / npos
        l_turn = (torch.abs(out[:, 6:7] - rg[:, 4:5]) * m).sum() / npos
        loss = l_heat + l_reg + 0.5 * l_size + 2.0 * l_turn
        if anchor:
            loss = loss + args.anchor * sum(((p_ - p0) ** 2).sum() for p_, p0 in anchor)
        opt.zero_grad()
        loss.backward()
        opt.step()
        phase.tick(
            f"loss {loss.item():.3f} heat {l_heat.item():.3f} reg {l_reg.item():.3f} "
            f"size {l_size.item():.3f} turn {l_turn.item():.3f}"
        )
    # quick validation: corner recall / precision at 0.3 on the first nval scenes
    loc.eval()
    tp = fp = fn = 0
    with torch.no_grad():
        for i in range(nval):
            o = loc(X[i : i + 1].permute(0, 3, 1, 2).float() / 255.0)[0].cpu().numpy()
            peaks = F.decode_peaks(o, 0.3)
            gt = [c for c in corners[i] if c[5] > 0]
            used = set()
            for px, py, *_rest in peaks:
                best = None
                for j, g in enumerate(gt):
                    if j not in used and abs(g[0] - px) < 0.06 * g[2] + 1.5 and abs(g[1] - py) < 0.04 * g[3] + 1.5:
                        best = j
                        break
                if best is None:
                    fp += 1
                else:
                    used.add(best)
                    tp += 1
            fn += len(gt) - len(used)
    print(f"locator val: recall {tp / max(1, tp + fn):.4f} precision {tp / max(1, tp + fp):.4f}", flush=True)
    loc.cpu()
    torch.onnx.export(
        loc,
        torch.zeros(1, 3, 360, 640),
        os.path.join(args.out, "card_locator.onnx"),
        input_names=["image"],
        output_names=["maps"],
        opset_version=17,
        dynamic_axes={"image": {0: "n", 2: "h", 3: "w"}, "maps": {0: "n", 2: "h4", 3: "w4"}},
        dynamo=False,
    )
    print("exported locator", round(time.time() - t0), "s", flush=True)


def main():
    ap = argparse.ArgumentParser(description="Train the card locator and reader on rendered scenes (resumable).")
    ap.add_argument("--out", required=True, help="model folder to write (the shipped ones: models/, models/v2)")
    ap.add_argument("--scenes", type=int, default=8000)
    ap.add_argument(
        "--budget",
        type=float,
        default=540.0,
        help="seconds of training in all (both networks, rendering not counted); a resumed run "
        "goes on to the same total",
    )
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--loc-share", type=float, default=0.55)
    ap.add_argument("--only-reader", action="store_true", help="train the reader alone (keep a locator)")
    ap.add_argument("--only-locator", action="store_true", help="train the locator alone (keep the readers)")
    ap.add_argument(
        "--init-locator",
        default=None,
        help="start the locator from this exported one (e.g. models/card_locator.onnx): a fine-tune, "
        "affordable on the CPU; its batch norms are held",
    )
    ap.add_argument("--locator-lr", type=float, default=2e-3, help="the locator's peak learning rate")
    ap.add_argument(
        "--locator-crop",
        type=int,
        default=0,
        help="train the locator on squares this wide (a multiple of 16, e.g. 256) cut from the "
        "640 px frames, mostly around a card's corner: about 3x the steps a second on a CPU (0: whole frames)",
    )
    ap.add_argument(
        "--spread",
        type=float,
        default=0.0,
        help="share of scenes of cards spread in rows fanned sideways or long tight columns "
        "(render.render_spread; the shipped models before stop 63: 0)",
    )
    ap.add_argument(
        "--steady",
        type=float,
        default=0.0,
        help="share of scenes of a camera on a stand over a game at 960x540 (render_layout(steady=True), "
        "as the recorded games are; the shipped models: 0)",
    )
    ap.add_argument(
        "--anchor",
        type=float,
        default=0.0,
        help="with --init-locator: pull the locator's weights towards the ones it started from "
        "(this times the summed squared change, added to the loss), so a fine-tune keeps what it knew",
    )
    ap.add_argument(
        "--variety",
        type=float,
        default=0.5,
        help="share of scenes with a person's own table: any back, dark mats, cards askew, fresh deals",
    )
    ap.add_argument(
        "--work",
        default=None,
        help="folder for rendered scenes and checkpoints (default out/train-<out's name>); a run "
        "that finds them there goes on where the last one stopped",
    )
    ap.add_argument(
        "--wild",
        type=int,
        default=0,
        help="also train on this many of the widest drawn designs (drawn-60 on; the shipped models: 0)",
    )
    ap.add_argument(
        "--init-reader",
        default=None,
        help="start the reader from this exported reader (its float ONNX, e.g. models/card_reader.onnx) "
        "instead of from scratch: a fine-tune, affordable on the CPU; its batch norms are held",
    )
    ap.add_argument("--reader-batch", type=int, default=512, help="the reader's batch (128 suits the CPU)")
    ap.add_argument("--reader-lr", type=float, default=2e-3, help="the reader's peak learning rate")
    ap.add_argument("--device", default="auto", help="cuda, cpu or auto (cuda when there is one)")
    ap.add_argument(
        "--reader-width",
        type=float,
        default=1.0,
        help="the reader's channels times this (1: the shipped readers; 2: models/v4's, 4x the compute)",
    )
    args = ap.parse_args()
    import torch

    t0 = time.time()
    work = args.work or os.path.join("out", "train-" + os.path.basename(os.path.normpath(args.out)))
    os.makedirs(work, exist_ok=True)
    decks = train_decks(args.wild)
    print("training decks:", len(set(decks)), " ".join(sorted(set(decks))), flush=True)
    locs, corners, crops, labels = render_all(args, decks, work)
    print(
        f"data: {args.scenes} scenes, {len(crops)} patches "
        f"({np.bincount(labels[:, 0], minlength=3)} face/back/none)  {time.time() - t0:.0f}s",
        flush=True,
    )
    dev = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    if dev == "cpu":
        torch.set_num_threads(max(1, args.workers))
    print(f"training on {dev}" + (f" ({torch.cuda.get_device_name(0)})" if dev == "cuda" else ""), flush=True)
    Locator, Reader, ReaderExport = build_models(torch, args.reader_width)
    os.makedirs(args.out, exist_ok=True)
    if not args.only_reader:
        train_locator(torch, args, dev, work, t0, locs, corners, Locator)
    if args.only_locator:
        print(f"locator alone; total {round(time.time() - t0)} s on {dev}", flush=True)
        return
    del locs, corners

    # ------------------------------------------------------------------ reader
    m = len(crops)
    perm = np.random.default_rng(0).permutation(m)
    crops, labels = crops[perm], labels[perm]
    mval = max(1, m // 40)
    rd = Reader()
    if args.init_reader:
        load_reader_onnx(torch, rd, args.init_reader)
        print(f"reader starts from {args.init_reader} (batch norms held)", flush=True)
    opt = torch.optim.AdamW(rd.parameters(), args.reader_lr, weight_decay=1e-4)
    phase = Phase(
        torch,
        os.path.join(work, "reader.pt"),
        "reader",
        args.budget * (1 if args.only_reader else 1 - args.loc_share),
        rd,
        opt,
    )
    rd.to(dev)
    optimiser_to(torch, opt, dev)
    XC = torch.from_numpy(crops[..., ::-1].copy()).to(dev)
    YL = torch.from_numpy(labels).to(dev)
    ce = torch.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.05)
    bs = args.reader_batch
    rd.train()
    if args.init_reader:
        hold_batch_norms(torch, rd)
    while not phase.done:
        idx = torch.randint(mval, m, (bs,), device=dev)
        x = XC[idx].permute(0, 3, 1, 2).float() / 255.0
        x = photometric(torch, x)
        x = (x + torch.randn_like(x) * 0.02 * torch.rand(bs, 1, 1, 1, device=dev)).clamp(0, 1)
        for gparam in opt.param_groups:
            gparam["lr"] = args.reader_lr * 0.5 * (1 + math.cos(math.pi * phase.frac))
        y = YL[idx]
        k, r, s, _ = rd(x)
        face = (y[:, 0] == 0).float()
        loss = ce(k, y[:, 0]).mean() + ((ce(r, y[:, 1]) + ce(s, y[:, 2])) * face).sum() / face.sum().clamp(min=1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        phase.tick(f"loss {loss.item():.3f}")
    rd.eval()
    with torch.no_grad():  # in slices: the whole held-back set at once is gigabytes of activations
        parts = [rd(XC[i : min(i + 1024, mval)].permute(0, 3, 1, 2).float() / 255.0)[:3] for i in range(0, mval, 1024)]
        k, r, s = (torch.cat([p[j] for p in parts]) for j in range(3))
        y = YL[:mval]
        kacc = (k.argmax(1) == y[:, 0]).float().mean().item()
        face = y[:, 0] == 0
        cacc = ((r.argmax(1) == y[:, 1]) & (s.argmax(1) == y[:, 2]))[face].float().mean().item()
    print(f"reader val (training decks): kind acc {kacc:.4f}  card acc {cacc:.4f}", flush=True)
    rd.cpu()
    export_reader(torch, ReaderExport(rd), os.path.join(args.out, "card_reader.onnx"))
    # the patch geometry the reader was trained on goes with it (the detector reads it from here)
    import json

    cfg_path = os.path.join(args.out, "vision.json")
    cfg = json.load(open(cfg_path)) if os.path.exists(cfg_path) else {}
    cfg["patch"] = F.DEFAULT_GEOM.to_config()
    with open(cfg_path, "w") as fh:
        json.dump(cfg, fh, indent=1)
    print(f"exported reader; total {round(time.time() - t0)} s on {dev}", flush=True)


if __name__ == "__main__":
    main()
