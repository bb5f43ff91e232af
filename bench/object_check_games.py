"""Benchmark: the gate's colour-free object check on recorded games, picture by picture.

For each picture of each game (in order), the check is run against the last picture
without a hand (the reference the gate would hold after accepting it), with the cards the
real detector reads in both. Counted: pictures without a hand where it finds an object
(false alarms: each would hold up a read), and pictures with a hand where it finds one,
separately for hands resting still (the case the check is for; a moving hand is already
refused by stillness).

Run:  python bench/object_check_games.py fixtures/games/game* [out/held_out_games/held*]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="+", type=Path, help="game folders (with truth.jsonl)")
    args = ap.parse_args(argv)
    missing = [str(f) for f in args.games if not (f / "truth.jsonl").is_file()]
    if missing:
        print(
            f"object_check_games: no truth.jsonl in {', '.join(map(repr, missing))} (a recorded game folder; "
            f"held-out games are made by python bench/make_game_fixtures.py --held-out)",
            file=sys.stderr,
        )
        return 2
    from solitaire_coach.app.live_setup import make_detector
    from solitaire_coach.capture.gate import MOTION_SIZE, ObjectCheck, shrink

    detector = make_detector(None, None)
    check = ObjectCheck()
    totals = [0, 0, 0, 0, 0, 0]  # no-hand pictures, false alarms, hand pictures, found, resting, found resting
    for folder in args.games:
        truth = [json.loads(line) for line in (folder / "truth.jsonl").read_text().splitlines()]
        reference = None
        counts = [0, 0, 0, 0, 0, 0]
        alarms = []
        for entry in truth:
            image = cv2.imread(str(folder / entry["file"]), cv2.IMREAD_COLOR)
            cards = [(c.quad, c.card if c.face_up else None) for c in detector.detect(image).cards]
            small = shrink(image, MOTION_SIZE)
            if reference is not None:
                scale = (MOTION_SIZE[0] / image.shape[1], MOTION_SIZE[1] / image.shape[0])
                found = check(small, reference[0], cards, reference[1], scale)
                if not entry["hand"]:
                    counts[0] += 1
                    counts[1] += found
                    if found:
                        alarms.append(entry["file"])
                else:
                    counts[2] += 1
                    counts[3] += found
                    if entry["what"] == "hand resting":
                        counts[4] += 1
                        counts[5] += found
            if not entry["hand"]:
                reference = (small, cards)
        totals = [t + c for t, c in zip(totals, counts)]
        print(
            f"{folder.name}: false alarms {counts[1]} of {counts[0]} pictures without a hand{' ' + str(alarms) if alarms else ''}; "
            f"hands found {counts[3]} of {counts[2]}, resting still {counts[5]} of {counts[4]}",
            flush=True,
        )
    print(
        f"all: false alarms {totals[1]} of {totals[0]}; hands found {totals[3]} of {totals[2]}, "
        f"resting still {totals[5]} of {totals[4]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
