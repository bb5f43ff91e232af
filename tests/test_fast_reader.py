"""The fast reader (issue 38, latency): a narrower reader taught by the main one reads every
corner first, and the main reader reads again only the corners it is not sure of."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from solitaire_coach.vision import detector as D
from solitaire_coach.vision.render import render_random


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"file": "card_reader.onnx"}, "fast_reader's sure must be a number from 0 to 1, not null"),
        ({"file": "card_reader.onnx", "sure": 1.5}, "fast_reader's sure must be a number from 0 to 1, not 1.5"),
        ({"sure": 0.9}, "fast_reader must hold file, a file name in the model folder, and sure"),
        ({"file": "../card_reader.onnx", "sure": 0.9}, "fast_reader must hold file"),
        ({"file": "nothing.onnx", "sure": 0.9}, "nothing.onnx: missing"),
    ],
)
def test_fast_reader_settings_are_checked(linked_models, entry, why):
    d, cfg = linked_models
    cfg["fast_reader"] = entry
    (d / "vision.json").write_text(json.dumps(cfg))
    with pytest.raises(D.ModelError, match=why):
        D.CardDetector(d)


class _Doubting:
    """A stand-in fast reader: the main reader's reads, each row's kind made unsure where
    ``doubt`` says so (and its embedding marked, to tell whose answer a row is)."""

    def __init__(self, main, doubt):
        self.main, self.doubt, self.rows = main, doubt, 0

    def run(self, names, feed):
        kind, rank, suit, emb = (a.copy() for a in self.main.run(names, feed))
        self.rows += len(kind)
        d = self.doubt[: len(kind)]
        kind[d] = 1 / 3
        emb[:, 0] = -5.0  # no unit embedding has that: the rows kept from here show it
        return kind, rank, suit, emb


def _patches(det):
    img, _ = render_random(3, 1280, 720, decks=["drawn-0"], hand_p=0.0)
    marks = D._suppress(det.locate_any_scale(img))
    return det.patches(img, marks)


def test_only_the_rows_the_fast_reader_doubts_are_read_again_by_the_main_reader(linked_models):
    d, cfg = linked_models
    cfg["fast_reader"] = {"file": "card_reader.onnx", "sure": 0.9}
    (d / "vision.json").write_text(json.dumps(cfg))
    det = D.CardDetector(d)
    patches = _patches(det)
    assert len(patches) >= 10
    main = det.reader.run(None, {"patch": D.F.to_tensor(patches)})
    doubt = np.arange(len(patches)) % 3 == 0
    det.fast_reader = _Doubting(det.reader, doubt)
    calls = []
    real_main = det.reader

    class Counting:
        def run(self, names, feed):
            calls.append(len(next(iter(feed.values()))))
            return real_main.run(names, feed)

    det.reader = Counting()
    kind, rank, suit, emb = det.read_patches(patches)
    # read again: the doubted rows, and those the fast reader (here the main one) is not sure of
    k, r, s = main[0], main[1], main[2]
    again = doubt | (np.maximum(np.maximum(k[:, 1], k[:, 2]), k[:, 0] * r.max(1) * s.max(1)) < 0.9)
    assert doubt.sum() < again.sum() < len(patches)
    assert calls == [int(again.sum())]  # the main reader read those rows alone
    np.testing.assert_allclose(kind[again], main[0][again], atol=1e-5)
    np.testing.assert_allclose(emb[again], main[3][again], atol=1e-5)
    assert (emb[~again, 0] == -5.0).all()  # the sure rows are the fast reader's
    # main_only: every row the main reader's, as learn-deck needs its embeddings
    calls.clear()
    kind, rank, _, emb = det.read_patches(patches, main_only=True)
    assert calls == [len(patches)]
    np.testing.assert_allclose(emb, main[3], atol=1e-5)


def test_a_model_without_a_fast_reader_reads_with_the_main_one_alone(linked_models):
    d, cfg = linked_models
    cfg.pop("fast_reader", None)
    (d / "vision.json").write_text(json.dumps(cfg))
    det = D.CardDetector(d)
    assert det.fast_reader is None
    patches = _patches(det)
    got = det.read_patches(patches)
    want = det.reader.run(None, {"patch": D.F.to_tensor(patches)})
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_the_shipped_fast_reader_is_the_main_readers_8_bit_copy_and_reads_as_it_on_this_cpu():
    """The shipped fast reader is ``card_reader_int8.onnx``, the main reader quantised with
    7-bit weights (``training/quantize_reader.py``), about a third of its time a corner on an
    AVX2 CPU. Where it is sure (``sure`` or surer, the rows the main reader does not read
    again), it must read as the float reader on whatever CPU runs it: the same kind and card,
    and a confidence within a few hundredths (the far-corner skip and the read thresholds
    lie near the real camera's confidences, about 0.9)."""
    import onnxruntime as ort

    models = D.repo_root() / "models"
    cfg = json.loads((models / "vision.json").read_text())
    assert cfg["fast_reader"]["file"] == "card_reader_int8.onnx"
    sure_at = cfg["fast_reader"]["sure"]
    det = D.CardDetector()
    fixtures = D.repo_root() / "fixtures" / "vision"
    patches = []
    for path in sorted(fixtures.glob("scene_*.jpg")):
        img = cv2.imread(str(path))
        patches.append(det.patches(img, det.locate_any_scale(img)))
    x = D.F.to_tensor(np.concatenate(patches))
    assert len(x) > 100
    outs = {}
    for file in ("card_reader.onnx", "card_reader_int8.onnx"):
        s = ort.InferenceSession(str(models / file), providers=["CPUExecutionProvider"])
        outs[file] = s.run(None, {"patch": x})
    (fk, fr, fs, _), (qk, qr, qs, _) = outs["card_reader.onnx"], outs["card_reader_int8.onnx"]
    pf, pq = D.model_card_probs(fr, fs), D.model_card_probs(qr, qs)
    sure = np.maximum(np.maximum(qk[:, 1], qk[:, 2]), qk[:, 0] * pq.max(1)) >= sure_at
    assert sure.sum() > 0.5 * len(x)
    assert (fk.argmax(1)[sure] == qk.argmax(1)[sure]).all()
    faces = sure & (qk.argmax(1) == 0)
    assert faces.sum() > 50 and (pf.argmax(1)[faces] == pq.argmax(1)[faces]).all()
    assert np.percentile(np.abs(pf.max(1) - pq.max(1))[faces], 95) < 0.05
    assert np.abs(fk - qk)[sure].max() < 0.15
