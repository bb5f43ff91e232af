"""Benchmark: camera calibration against known truth.

Renders a printed 9x6 chessboard exactly as seen by a known camera (focal length,
principal point and radial distortion chosen here) in ``--views`` random poses, runs
the lens calibration, and prints the recovered intrinsics and reprojection error. Then
renders a freshly dealt game with the vision renderer and runs the table calibration,
printing how far each of the 12 slots is from the renderer's truth. With ``--write`` it
saves the result as ``calibration/example.json`` (the file format, for reference).

Run:  .venv/bin/python bench/live_calibration_check.py [--views 12] [--write]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--views", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    from solitaire_coach.capture.calibration import (
        Calibration,
        calibrate_lens,
        calibrate_table,
        camera_rays,
        make_board_image,
        random_board_poses,
        render_board_view,
        save_calibration,
    )

    size = (1280, 720)
    k = np.array([[950.0, 0, 645.0], [0, 950.0, 355.0], [0, 0, 1]])
    dist = np.array([-0.15, 0.08, 0.0, 0.0, 0.0])
    board = make_board_image(square_px=60)
    rays = camera_rays(k, dist, size, supersample=2)
    poses = random_board_poses(args.views, np.random.default_rng(args.seed), distance_mm=560)
    views = [(f"view{i}", render_board_view(board, 60, 60, 25.0, rays, r, t, size)) for i, (r, t) in enumerate(poses)]
    lens = calibrate_lens(views)
    fx, fy = lens.focal_px
    print(
        f"lens: {len(lens.views)} of {args.views} views used; focal {fx:.2f} x {fy:.2f} px (true 950: "
        f"{100 * abs(fx - 950) / 950:.2f}% / {100 * abs(fy - 950) / 950:.2f}% off), centre "
        f"({lens.camera_matrix[0, 2]:.1f}, {lens.camera_matrix[1, 2]:.1f}) (true 645, 355), k1 "
        f"{lens.dist_coeffs.ravel()[0]:.3f} (true -0.150), reprojection error {lens.rms_px:.3f} px"
    )
    table = None
    try:
        from solitaire_coach.app.live_setup import _try_detector
        from solitaire_coach.core.state import GameState, deal_for_seed
        from solitaire_coach.vision.render import TableLayout, render_layout

        worst = []
        for seed in range(5):
            layout = TableLayout.from_state(GameState.from_deal(deal_for_seed(200 + seed)))
            image, truth = render_layout(layout, seed, size[0], size[1], difficulty=0.3)
            first = {}
            for tc in truth.cards:
                first.setdefault(tc.slot, np.asarray(tc.full_quad).mean(axis=0))
            try:
                t = calibrate_table(image, lens, detector=_try_detector())
            except Exception as exc:  # report, go on
                print(f"table, scene {seed}: {exc}")
                continue
            table = table or t
            errs = {s: float(np.linalg.norm(np.array(t.slots[s]) - p)) for s, p in first.items()}
            worst.append(max(errs.values()) / t.card_size_px[0])
            print(
                f"table, scene {seed}: 12 slots, worst of the 9 dealt piles {max(errs.values()):.1f} px "
                f"({max(errs, key=errs.get)}), card {t.card_size_px[0]:.0f} x {t.card_size_px[1]:.0f} px"
            )
        print(f"table: {len(worst)} of 5 scenes calibrated")
    except ImportError as exc:
        print(f"table: skipped ({exc})")
    if args.write:
        path = save_calibration(
            Calibration(
                "example",
                lens,
                table,
                {"note": "made by bench/live_calibration_check.py from a rendered camera; an example of the format"},
            ),
            "calibration/example.json",
        )
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
