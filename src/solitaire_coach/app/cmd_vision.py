"""``detect`` and ``learn-deck``: read a layout from a photo; learn an unusual deck."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers) -> None:
    p = subparsers.add_parser("detect", help="read the 12-slot snapshot from a photo of the table")
    p.add_argument("image", help="photo or frame (any format OpenCV reads)")
    p.add_argument("--calibration", help="calibration NAME (calibration/NAME.json) or a .json path, "
                   "with the slot positions (optional)")
    p.add_argument("--deck", help="a deck learnt with learn-deck (its NAME under calibration/decks)")
    p.add_argument("--json", action="store_true", help="print every card seen as JSON")
    p.add_argument("--annotate", metavar="OUT.png", help="write the frame with what was read drawn on it")
    p.add_argument("--model", help="folder with card_locator.onnx and card_reader.onnx (default: shipped)")
    p.set_defaults(func=cmd_detect)
    q = subparsers.add_parser("learn-deck", help="learn a deck from a photo of its 52 cards in a 4x13 grid")
    q.add_argument("image", help="photo: rows C D H S top to bottom, ace to king left to right, face up")
    q.add_argument("--name", help="deck name: letters, digits, - and _ (default: the photo's file name "
                   "without extension); written to calibration/decks/NAME")
    q.set_defaults(func=cmd_learn_deck)


def _read(path: str):
    import cv2

    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        print(f"error: cannot read image {path!r}", file=sys.stderr)
    return img


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def cmd_detect(args: argparse.Namespace) -> int:
    from ..capture.calibration import CalibrationError, check_name, load_calibration
    from ..vision.annotate import draw_detections
    from ..vision.detector import CardDetector, DeckError, ModelError
    from .cmd_live import output_problem, write_image

    if args.annotate:
        problem = output_problem(args.annotate, "--annotate", image=True)
        if problem:
            return _fail(problem)
    img = _read(args.image)
    if img is None:
        return 2
    try:
        cal = load_calibration(args.calibration) if args.calibration else None
        if args.deck is not None:
            check_name(args.deck, "--deck")
    except CalibrationError as exc:
        return _fail(str(exc))
    try:
        det = CardDetector(args.model, calibration=cal, deck=args.deck)
    except (ModelError, DeckError) as exc:
        return _fail(str(exc))
    res = det.detect(img)
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(res.snapshot.line())
    if args.annotate:
        problem = write_image(args.annotate, draw_detections(img, res), "--annotate")
        if problem:
            return _fail(problem)
    return 0


def cmd_learn_deck(args: argparse.Namespace) -> int:
    from ..capture.calibration import CalibrationError, check_name
    from ..vision.detector import ModelError, deck_dir
    from ..vision.learn import DeckLayoutError, learn_deck
    from .cmd_live import output_problem

    name = args.name if args.name is not None else Path(args.image).stem
    try:
        check_name(name, "--name" if args.name is not None else "deck name (the photo's file name; give --name)")
    except CalibrationError as exc:
        return _fail(str(exc))
    problem = output_problem(deck_dir(name), "--name", folder=True)
    if problem:
        return _fail(problem)
    img = _read(args.image)
    if img is None:
        return 2
    try:
        info = learn_deck(img, name)
    except ModelError as exc:
        return _fail(str(exc))
    except DeckLayoutError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"learnt deck {name!r}: references in {info['folder']} "
          f"(the shipped model alone read {info['model_read_right_before']}/52 of its cards); "
          f"use: solitaire-coach detect IMAGE --deck {name}")
    return 0
