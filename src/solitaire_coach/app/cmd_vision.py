"""``detect`` and ``learn-deck``: read a layout from a photo; learn an unusual deck."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def register(subparsers) -> None:
    """Add the ``detect`` and ``learn-deck`` commands to ``subparsers``."""
    p = subparsers.add_parser("detect", help="read the 12-slot snapshot from a photo of the table",
                              description="Read the 12-slot snapshot (waste, foundations, columns) from a photo "
                              "of the table.")
    p.add_argument("image", help="photo or frame (any format OpenCV reads)")
    p.add_argument("--calibration", help="calibration NAME (calibration/NAME.json) or a .json path, "
                   "with the slot positions (optional)")
    p.add_argument("--deck", help="a deck learnt with learn-deck (its NAME under calibration/decks)")
    p.add_argument("--json", action="store_true", help="print every card seen as JSON")
    p.add_argument("--annotate", metavar="OUT.png", help="write the frame with what was read drawn on it")
    p.add_argument("--model", help="folder with card_locator.onnx and card_reader.onnx (default: shipped)")
    p.set_defaults(func=cmd_detect)
    q = subparsers.add_parser("learn-deck", help="learn a deck from a photo of its 52 cards in a 4x13 grid",
                              description="Learn an unusual deck from a photo of its 52 cards laid out in a "
                              "4x13 grid.")
    q.add_argument("image", help="photo: rows C D H S top to bottom, ace to king left to right, face up")
    q.add_argument("--name", help="deck name: letters, digits, - and _ (default: the photo's file name "
                   "without extension); written to calibration/decks/NAME (or the folder SOLITAIRE_DECK_REFS names), "
                   "with patches.png, the learnt corners to look at")
    q.set_defaults(func=cmd_learn_deck)


def _read(path: str):
    """The image at ``path`` (BGR), or None after saying why not: no such file, a folder,
    not readable, or not an image OpenCV can decode. A JPEG cut short (no end marker) is
    decoded as far as it goes, with a warning naming it."""
    import cv2

    from ..capture.sources import jpeg_cut_short

    p = Path(path)
    why = None
    if not p.exists():
        why = f"no such file {path!r}"
    elif p.is_dir():
        why = f"{path!r} is a folder, not an image"
    elif not os.access(p, os.R_OK):
        why = f"{path!r} cannot be read (permission denied)"
    img = cv2.imread(path, cv2.IMREAD_COLOR) if why is None else None
    if why is None and img is None:
        why = f"{path!r} is not an image OpenCV can decode (empty, damaged or not a picture)"
    if why is not None:
        print(f"error: {why}", file=sys.stderr)
        return None
    if p.suffix.lower() in (".jpg", ".jpeg"):
        with open(p, "rb") as fh:
            if jpeg_cut_short(fh.read()):
                print(f"warning: {path!r} is a JPEG cut short (no end marker): only the part decoded is read",
                      file=sys.stderr)
    return img


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def cmd_detect(args: argparse.Namespace) -> int:
    """``detect``: print the 12-slot snapshot read from a photo of the table."""
    from ..capture.calibration import CalibrationError, check_name, load_calibration
    from ..vision.annotate import draw_detections
    from ..vision.detector import CardDetector, DeckError, ModelError
    from .live_setup import write_image
    from .paths import output_problem

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
        det = CardDetector(args.model, calibration=cal, deck=args.deck, option="--model")
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
    """``learn-deck``: learn an unusual deck from a photo of its 52 cards in a 4x13 grid."""
    from ..capture.calibration import CalibrationError, check_name
    from ..vision.detector import ModelError, deck_dir
    from ..vision.learn import DeckLayoutError, learn_deck
    from .paths import output_problem

    img = _read(args.image)
    if img is None:
        return 2
    name = args.name if args.name is not None else Path(args.image).stem
    try:
        check_name(name, "--name" if args.name is not None else "deck name (the photo's file name; give --name)")
    except CalibrationError as exc:
        return _fail(str(exc))
    problem = output_problem(deck_dir(name), "deck folder", folder=True)
    if problem:
        return _fail(problem)
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
