"""bench/real_photos.py's matching of labels to detections: a photo turned a quarter is
matched as the upright one is (the label's reach measured along the upright photo's width)."""

from __future__ import annotations

import numpy as np

from repo_scripts import load_script

rp = load_script("bench/real_photos.py")


def _quad(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)


def test_a_turned_photo_matches_its_labels_as_the_upright_one():
    # upright: two column strips 100 px wide showing 10 px, each labelled 30 px left of its
    # corner (within 0.45 of the strips' width, their reach)
    W, H = 1000, 800
    dets = [("AS", 0.9, True, "AS", _quad(100, 100, 200, 110)), ("2S", 0.9, True, "2S", _quad(400, 100, 500, 110))]
    label = {"AS": [(70 / W, 100 / H)], "2S": [(370 / W, 100 / H)]}
    upright, _ = rp.score_frame(label, set(), dets, (W, H))

    def turn(q):  # the photo turned 90 degrees clockwise: (x, y) -> (H - y, x)
        return np.stack([H - q[:, 1], q[:, 0]], 1)

    turned_dets = [d[:4] + (turn(d[4]),) for d in dets]
    turned_label = {k: [rp.rotate_point(x, y, 90) for x, y in v] for k, v in label.items()}
    turned, _ = rp.score_frame(turned_label, set(), turned_dets, (H, W), across=1)
    assert [o for o, _, _ in upright] == [o for o, _, _ in turned] == ["read", "read"]
    # measured along the turned frame's x (the strips' 10 px there), the labels lie too far
    wrong_axis, _ = rp.score_frame(turned_label, set(), turned_dets, (H, W), across=0)
    assert [o for o, _, _ in wrong_axis] == ["missing", "missing"]
