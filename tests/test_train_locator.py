"""training/train_vision.py's fine-tune start: the shipped locator loaded into the training
network gives the shipped ONNX's outputs (needs torch and onnx, training-only packages: the
test is skipped where they are not installed, as in CI)."""

from __future__ import annotations

import numpy as np
import pytest

from repo_scripts import ROOT, load_script

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")


def test_the_shipped_locator_loads_exactly_for_a_fine_tune():
    import onnxruntime as ort

    train_vision = load_script("training/train_vision.py")
    Locator, _reader, _export = train_vision.build_models(torch)
    loc = Locator()
    path = str(ROOT / "models" / "card_locator.onnx")
    train_vision.load_locator_onnx(torch, loc, path)
    loc.eval()
    x = np.random.default_rng(0).random((1, 3, 192, 320), dtype=np.float32)
    with torch.no_grad():
        ours = loc(torch.from_numpy(x)).numpy()
    shipped = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"image": x})[0]
    assert ours.shape == shipped.shape
    assert np.abs(ours - shipped).max() < 1e-3 * max(1.0, float(np.abs(shipped).max()))
    fresh = Locator().eval()
    with torch.no_grad():  # a network not loaded is far from it: the comparison can fail
        assert np.abs(fresh(torch.from_numpy(x)).numpy() - shipped).max() > 0.1
