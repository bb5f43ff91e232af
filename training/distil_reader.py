"""Distil the corner reader into a narrower one: the same patch, a quarter of the compute at
``--width`` 1 (the first model's channels), about 40% at 1.25.

Training only (needs torch and onnxruntime). The shipped reader (``models/card_reader.onnx``,
``--reader-width 2``, about 90 M multiply-adds a patch) is most of a frame's time on a
2-core CPU (issue 38's latency budget). This script renders scenes as
``train_vision.py`` does (the same training designs and ``variety``; the held-out designs
never), lets the shipped reader (the teacher) read every patch once, and trains a reader
of ``--width`` times the first model's channels (the student) to give the teacher's
probabilities (kind, rank, suit), its embedding (which ``learn-deck`` keeps), and, with a
smaller weight, the true labels. The student sees each patch with the photometric changes
and noise of ``train_vision.py``; the teacher's answer is for the clean patch, so the
student also learns to give it under them.

Resumable like the other training scripts: rendered chunks, the teacher's answers and a
checkpoint of the student (every minute) stay in ``--work``; a run that finds them goes on
where the last one stopped, printing the time left. Uses a GPU when there is one.

Usage (the candidate of stop 61, on this 2-core machine):
PYTHONPATH=src python training/distil_reader.py --out out/mdistil --scenes 6000 --budget 3600 --width 1.25
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

import train_vision as TV  # noqa: E402
from solitaire_coach.vision import features as F  # noqa: E402


def teacher_answers(path: str, crops: np.ndarray, work: str, batch: int = 256) -> dict[str, np.ndarray]:
    """The teacher's kind, rank, suit and embedding for every patch, computed once and kept
    in ``work/teacher.npz`` (in parts, so a stopped run keeps what it read)."""
    import onnxruntime as ort

    done_path = os.path.join(work, "teacher.npz")
    if os.path.exists(done_path):
        with np.load(done_path) as z:
            if len(z["kind"]) == len(crops):
                return {k: z[k] for k in ("kind", "rank", "suit", "emb")}
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 2
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    part = 50_000
    outs: dict[str, list[np.ndarray]] = {"kind": [], "rank": [], "suit": [], "emb": []}
    t0 = time.time()
    for start in range(0, len(crops), part):
        ppath = os.path.join(work, f"teacher_{start:07d}.npz")
        if not os.path.exists(ppath):
            got: dict[str, list[np.ndarray]] = {k: [] for k in outs}
            end = min(len(crops), start + part)
            for i in range(start, end, batch):
                k, r, s, e = sess.run(None, {"patch": F.to_tensor(crops[i : min(i + batch, end)])})
                got["kind"].append(k)
                got["rank"].append(r)
                got["suit"].append(s)
                got["emb"].append(e.astype(np.float16))
            np.savez(ppath + ".tmp.npz", **{k: np.concatenate(v) for k, v in got.items()})
            os.replace(ppath + ".tmp.npz", ppath)
            print(f"teacher read {end}/{len(crops)} patches  {time.time() - t0:.0f} s", flush=True)
        with np.load(ppath) as z:
            for k in outs:
                outs[k].append(z[k])
    res = {k: np.concatenate(v) for k, v in outs.items()}
    if len(res["kind"]) != len(crops):
        raise SystemExit(f"{work}: the teacher's answers are for {len(res['kind'])} patches, not {len(crops)}")
    np.savez(done_path, **res)
    return res


def soft_ce(torch, logits, target):
    """Cross-entropy against the teacher's probabilities, one value per row."""
    return -(target * torch.log_softmax(logits, 1)).sum(1)


def main() -> None:
    ap = argparse.ArgumentParser(description="Distil the corner reader into a narrower one (resumable).")
    ap.add_argument("--out", required=True, help="folder for the student's card_reader.onnx")
    ap.add_argument("--teacher", default="models/card_reader.onnx")
    ap.add_argument("--width", type=float, default=1.0, help="the student's channels (1: the first model's)")
    ap.add_argument("--scenes", type=int, default=6000)
    ap.add_argument("--budget", type=float, default=3600.0, help="seconds of training (rendering not counted)")
    ap.add_argument("--variety", type=float, default=0.6, help="as train_vision.py (the shipped reader: 0.6)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hard", type=float, default=0.3, help="weight of the true labels beside the teacher's")
    ap.add_argument("--work", default=None, help="folder for scenes, answers and checkpoints")
    ap.add_argument(
        "--online",
        action="store_true",
        help="the teacher reads each patch as the student sees it (changed light, noise), not the clean "
        "patch: its robustness taught too, at about twice the time a step",
    )
    ap.add_argument("--init", default=None, help="start the student from this checkpoint (a student.pt)")
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    import torch

    t0 = time.time()
    work = args.work or os.path.join("out", "train-" + os.path.basename(os.path.normpath(args.out)))
    os.makedirs(work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    decks = TV.train_decks(0)
    args.only_reader = True  # render_all keeps no frames then
    _, _, crops, labels = TV.render_all(args, decks, work)
    print(f"data: {len(crops)} patches ({np.bincount(labels[:, 0], minlength=3)} face/back/none)", flush=True)
    teach = teacher_answers(args.teacher, crops, work)
    print(f"teacher's answers ready  {time.time() - t0:.0f} s", flush=True)

    dev = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    if dev == "cpu":
        torch.set_num_threads(max(1, args.workers))
    _, Reader, ReaderExport = TV.build_models(torch, args.width)
    rd = Reader()
    if args.init:
        rd.load_state_dict(torch.load(args.init, map_location="cpu", weights_only=False)["model"])
    teacher = None
    if args.online:
        _, Teacher, _ = TV.build_models(torch, 2.0)
        teacher = Teacher()
        TV.load_reader_onnx(torch, teacher, args.teacher)
        teacher.eval().to(dev)
    opt = torch.optim.AdamW(rd.parameters(), args.lr, weight_decay=1e-4)
    phase = TV.Phase(torch, os.path.join(work, "student.pt"), "student", args.budget, rd, opt)
    rd.to(dev)
    TV.optimiser_to(torch, opt, dev)
    m = len(crops)
    mval = max(1, m // 40)  # the last patches, never trained on (scenes are rendered in seed order)
    XC = torch.from_numpy(crops[..., ::-1].copy())
    YL = torch.from_numpy(labels)
    TK = torch.from_numpy(teach["kind"])
    TR = torch.from_numpy(teach["rank"])
    TS = torch.from_numpy(teach["suit"])
    TE = torch.from_numpy(teach["emb"].astype(np.float32))
    ce = torch.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.05)
    bs = args.batch
    rd.train()
    while not phase.done:
        idx = torch.randint(0, m - mval, (bs,))
        x = XC[idx].to(dev).permute(0, 3, 1, 2).float() / 255.0
        x = TV.photometric(torch, x)
        x = (x + torch.randn_like(x) * 0.02 * torch.rand(bs, 1, 1, 1, device=dev)).clamp(0, 1)
        for gparam in opt.param_groups:
            gparam["lr"] = args.lr * 0.5 * (1 + math.cos(math.pi * phase.frac))
        y = YL[idx].to(dev)
        if teacher is None:
            tk, tr, ts, te = TK[idx].to(dev), TR[idx].to(dev), TS[idx].to(dev), TE[idx].to(dev)
        else:
            with torch.no_grad():
                lk, lr_, ls, le = teacher(x)
                tk, tr, ts = torch.softmax(lk, 1), torch.softmax(lr_, 1), torch.softmax(ls, 1)
                te = torch.nn.functional.normalize(le, dim=1)
        k, r, s, e = rd(x)
        # rank and suit where the patch is a face by its label or by the teacher's word
        face = ((y[:, 0] == 0) | (tk[:, 0] > 0.5)).float()
        nf = face.sum().clamp(min=1)
        l_soft = soft_ce(torch, k, tk).mean() + ((soft_ce(torch, r, tr) + soft_ce(torch, s, ts)) * face).sum() / nf
        hface = (y[:, 0] == 0).float()
        l_hard = ce(k, y[:, 0]).mean() + ((ce(r, y[:, 1]) + ce(s, y[:, 2])) * hface).sum() / hface.sum().clamp(min=1)
        cos = (torch.nn.functional.normalize(e, dim=1) * te).sum(1)
        l_emb = ((1 - cos) * face).sum() / nf
        loss = l_soft + args.hard * l_hard + l_emb
        opt.zero_grad()
        loss.backward()
        opt.step()
        phase.tick(f"loss {loss.item():.3f} soft {l_soft.item():.3f} hard {l_hard.item():.3f} emb {l_emb.item():.3f}")
    rd.eval()
    with torch.no_grad():
        parts = []
        for i in range(m - mval, m, 1024):
            x = XC[i : min(i + 1024, m)].to(dev).permute(0, 3, 1, 2).float() / 255.0
            parts.append([t.cpu() for t in rd(x)[:3]])
        k, r, s = (torch.cat([p[j] for p in parts]) for j in range(3))
    tk, tr, ts = TK[m - mval :], TR[m - mval :], TS[m - mval :]
    y = YL[m - mval :]
    face = y[:, 0] == 0
    agree = ((r.argmax(1) == tr.argmax(1)) & (s.argmax(1) == ts.argmax(1)))[face].float().mean().item()
    right = ((r.argmax(1) == y[:, 1]) & (s.argmax(1) == y[:, 2]))[face].float().mean().item()
    t_right = ((tr.argmax(1) == y[:, 1]) & (ts.argmax(1) == y[:, 2]))[face].float().mean().item()
    kacc = (k.argmax(1) == y[:, 0]).float().mean().item()
    print(
        f"held-back patches: student card right {right:.4f} (teacher {t_right:.4f}), agrees with the "
        f"teacher {agree:.4f}, kind right {kacc:.4f}",
        flush=True,
    )
    rd.cpu()
    TV.export_reader(torch, ReaderExport(rd), os.path.join(args.out, "card_reader.onnx"))
    print(f"exported the student; total {time.time() - t0:.0f} s on {dev}", flush=True)


if __name__ == "__main__":
    main()
