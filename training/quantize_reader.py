"""Quantise a model folder's card reader to 8-bit integers (onnxruntime static quantisation).

The reader is most of a frame's reading time (one run per card corner); 8-bit weights and
activations run it in about half the time on an ordinary CPU. The activations' ranges are
calibrated on reader patches cut from rendered scenes of the training designs (never real
photos), as ``train_vision.py`` cuts them.

    python training/quantize_reader.py models/v4 --scenes 60

writes ``card_reader_int8.onnx`` beside ``card_reader.onnx``; ``vision.json``'s
``reader_file`` names which file the detector runs (see ``CardDetector``).
``--reader card_reader_2.onnx`` quantises the second reader instead (its patch, from
``vision.json``'s ``second_reader``, is cut from the same calibration patches: the rows of
its height range, scaled to its size), writing ``card_reader_2_int8.onnx``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
sys.path.insert(0, os.path.dirname(__file__))

from solitaire_coach.vision import features as F  # noqa: E402
from train_vision import make_sample, train_decks  # noqa: E402


class _Patches:
    """onnxruntime's calibration reader over a stack of patches, in batches."""

    def __init__(self, patches: np.ndarray, batch: int = 64):
        self.batches = [patches[i : i + batch] for i in range(0, len(patches), batch)]

    def get_next(self):
        if not self.batches:
            return None
        return {"patch": F.to_tensor(self.batches.pop(0))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="model folder holding card_reader.onnx")
    ap.add_argument("--scenes", type=int, default=60, help="rendered scenes to calibrate on (default 60)")
    ap.add_argument("--seed", type=int, default=900000, help="first scene's seed (default 900000)")
    ap.add_argument(
        "--reader", default="card_reader.onnx", help="the reader file to quantise (default card_reader.onnx)"
    )
    args = ap.parse_args()
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    t0 = time.time()
    cache = os.path.join("out", f"quant-cal-{args.seed}-{args.scenes}.npy")
    if os.path.exists(cache):
        cal = np.load(cache)
    else:
        decks = train_decks()
        patches = []
        for i in range(args.scenes):
            patches.append(make_sample(args.seed + i, decks, 0.5)[2])
            if (i + 1) % 10 == 0:
                left = (time.time() - t0) / (i + 1) * (args.scenes - i - 1)
                print(f"rendered {i + 1}/{args.scenes} scenes, about {left:.0f} s left", flush=True)
        cal = np.concatenate(patches)
        os.makedirs("out", exist_ok=True)
        np.save(cache, cal)
    rng = np.random.default_rng(0)
    cal = cal[rng.permutation(len(cal))[: min(3008, len(cal) // 64 * 64)]]  # whole batches of 64
    if args.reader != "card_reader.onnx":
        cal = _recut(cal, _geom_of(args.model, args.reader))
    stem = args.reader.removesuffix(".onnx")
    src = os.path.join(args.model, args.reader)
    pre = os.path.join(args.model, stem + "_pre.onnx")
    dst = os.path.join(args.model, stem + "_int8.onnx")
    quant_pre_process(src, pre)
    quantize_static(
        pre,
        dst,
        _Patches(cal),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        calibrate_method=CalibrationMethod.Percentile,
        # 7-bit weights: on a CPU without VNNI (AVX2 alone, e.g. many AMD EPYC and older Intel)
        # onnxruntime's 8-bit x 8-bit products saturate, and the full-range reader read the
        # held-out renders 64.3% instead of 68.0% there (cards missed 0.95% -> 3.95%)
        reduce_range=True,
        extra_options={"CalibPercentile": 99.99},
    )
    os.remove(pre)
    print(f"wrote {dst} ({os.path.getsize(dst) / 1e6:.1f} MB) from {len(cal)} patches in {time.time() - t0:.0f} s")


def _geom_of(model: str, reader: str) -> F.PatchGeom:
    """The patch geometry ``model``'s vision.json gives ``reader`` (the main or second reader)."""
    import json

    with open(os.path.join(model, "vision.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    second = cfg.get("second_reader") or {}
    if reader in (second.get("file"), str(second.get("file", "")).replace("_int8.onnx", ".onnx")):
        return F.PatchGeom.from_config(second["patch"])
    return F.PatchGeom.from_config(cfg.get("patch"))


def _recut(cal: np.ndarray, geom: F.PatchGeom) -> np.ndarray:
    """Calibration patches cut at the default geometry, recut to ``geom`` (same x range,
    a height range within the default one): the rows it covers, scaled to its size."""
    import cv2

    d = F.DEFAULT_GEOM
    if tuple(geom.x) != tuple(d.x) or not (d.y[0] <= geom.y[0] < geom.y[1] <= d.y[1]):
        raise SystemExit(f"a reader patch of x {geom.x}, y {geom.y} cannot be cut from the calibration patches")
    rows = d.read_h / (d.y[1] - d.y[0])
    r0, r1 = round((geom.y[0] - d.y[0]) * rows), round((geom.y[1] - d.y[0]) * rows)
    return np.stack([cv2.resize(p[r0:r1], (geom.read_w, geom.read_h), interpolation=cv2.INTER_AREA) for p in cal])


if __name__ == "__main__":
    main()
