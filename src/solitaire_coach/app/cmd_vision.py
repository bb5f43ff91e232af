"""``detect`` and ``learn-deck``: read a layout from a photo; learn an unusual deck."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .errors import CommandError
from .options import add_calibration_argument, add_json_argument, add_model_argument


def register(subparsers) -> None:
    """Add the ``detect`` and ``learn-deck`` commands to ``subparsers``."""
    p = subparsers.add_parser(
        "detect",
        help="read the 12-slot snapshot from a photo of the table",
        description="Read the 12-slot snapshot (waste, foundations, columns) from a photo of the table.",
    )
    p.add_argument("image", help="photo or frame (any format OpenCV reads)")
    add_calibration_argument(p)
    p.add_argument("--deck", help="a deck learnt with learn-deck (its NAME, under decks/ of the per-user data folder)")
    add_json_argument(p, "one object: the snapshot and every card seen")
    p.add_argument("--annotate", metavar="OUT.png", help="write the frame with what was read drawn on it")
    add_model_argument(p)
    p.set_defaults(func=cmd_detect)
    q = subparsers.add_parser(
        "learn-deck",
        help="learn a deck from a photo of its 52 cards in a 4x13 grid",
        description="Learn an unusual deck from a photo of its 52 cards laid out in a 4x13 grid.",
    )
    q.add_argument("image", help="photo: rows C D H S top to bottom, ace to king left to right, face up")
    q.add_argument(
        "--name",
        help="deck name: letters, digits, - and _ (default: the photo's file name "
        "without extension); written to decks/NAME of the per-user data folder (SOLITAIRE_COACH_HOME or the platform's; or the folder SOLITAIRE_DECK_REFS names), "
        "with patches.png, the learnt corners to look at",
    )
    q.add_argument(
        "--practice",
        type=_practice_count,
        default=60,
        metavar="N",
        help="practice layouts of the photo's cards to learn from (default 60, about a minute or two; "
        "half as many more are drawn to pick the deck's thresholds)",
    )
    q.set_defaults(func=cmd_learn_deck)


def _practice_count(text: str) -> int:
    """``--practice``: a whole number from 4 to 1000."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--practice must be a whole number, not {text!r}") from None
    if not 4 <= n <= 1000:
        raise argparse.ArgumentTypeError(f"--practice must be from 4 to 1000, not {n}")
    return n


def _read(path: str):
    """The image at ``path`` (BGR); bad input raises CommandError naming the file: no such
    file, a folder, not a regular file (a named pipe), not readable, a JPEG cut short, more
    pixels than OpenCV decodes, not a picture, or too small to show a card. A picture too
    small to read its cards well is read with a warning naming its size."""
    from ..capture.sources import PictureError, read_picture, small_picture_warning

    p = Path(path)
    if not p.exists():
        raise CommandError(f"no such file {path!r}")
    if p.is_dir():
        raise CommandError(f"{path!r} is a folder, not an image")
    if not os.access(p, os.R_OK):
        raise CommandError(f"{path!r} cannot be read (permission denied)")
    try:
        img = read_picture(p)
    except PictureError as exc:
        raise CommandError(str(exc)) from None
    warning = small_picture_warning(path, img)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return img


def _fail(message: str) -> int:
    """End the command on bad input: raises CommandError (cli.main says it, exit 2)."""
    raise CommandError(message)


def cmd_detect(args: argparse.Namespace) -> int:
    """``detect``: print the 12-slot snapshot read from a photo of the table (and a note on
    stderr where most of its face-up cards could not be read sure: see app/unfamiliar.py)."""
    from ..capture.calibration import CalibrationError, check_name, load_calibration
    from ..vision.annotate import draw_detections
    from ..vision.detector import CardDetector, DeckError, ModelError
    from .live_setup import write_image
    from .paths import output_problem
    from .unfamiliar import UNFAMILIAR_SHARE

    if args.annotate is not None:
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
        det = CardDetector(str(args.model) if args.model else None, calibration=cal, deck=args.deck, option="--model")
    except (ModelError, DeckError) as exc:
        return _fail(str(exc))
    res = det.detect(img)
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(res.snapshot.line())
    if res.sure_share is not None and res.sure_share < UNFAMILIAR_SHARE:
        faces = sum(1 for c in res.cards if c.face_up)
        print(
            f"note: only {round(100 * res.sure_share)}% of the {faces} face-up cards were read with confidence "
            f"(the rest are UU, not guessed): "
            + (
                f"the learnt deck {args.deck!r} may not be this one, or the photo is blurred; learn-deck again "
                "from a sharper photo"
                if args.deck
                else "this deck's design may be new to the card reader; teach it once with solitaire-coach "
                "learn-deck PHOTO --name NAME, then detect with --deck NAME"
            ),
            file=sys.stderr,
        )
    if args.annotate:
        problem = write_image(args.annotate, draw_detections(img, res), "--annotate")
        if problem:
            return _fail(problem)
    return 0


# at most this many hard cards are named one by one; more mean the photo, not the cards
HARD_CARDS_NAMED = 8


def hard_cards_words(hard: list[str]) -> str:
    """What ``learn-deck`` says of the cards its practice layouts read right under 80% of
    the time (``hard``, the most misleading first): a few are named; many (a blurred or
    slanted grid photo, or a design whose small suit a fanned card hides) are counted, the
    worst named, with what to do."""
    fix = (
        "A sharper photo taken straight from above, the grid filling the frame and no glare, may help "
        "(learn-deck again); a card whose small suit the next card hides on a fanned pile may stay UU there"
    )
    if len(hard) <= HARD_CARDS_NAMED:
        return f"these {len(hard)} cards could not be told apart reliably: {', '.join(hard)}. {fix}"
    return (
        f"{len(hard)} of the 52 cards could not be told apart reliably on the practice layouts, so many "
        f"of this deck's cards will be left UU (unread, never guessed); the worst: "
        f"{', '.join(hard[:HARD_CARDS_NAMED])} and {len(hard) - HARD_CARDS_NAMED} more. {fix}"
    )


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
        info = learn_deck(img, name, scenes=args.practice, check_scenes=max(4, args.practice // 2))
    except ModelError as exc:
        return _fail(str(exc))
    except DeckLayoutError as exc:  # the grid photo is not one of 52 cards: bad input
        return _fail(str(exc))
    print(
        f"learnt deck {name!r}: references in {info['folder']} "
        f"(the shipped model alone read {info['model_read_right_before']}/52 of its cards); "
        f"use: solitaire-coach detect IMAGE --deck {name}"
    )
    if info.get("use_model"):
        print(
            f"the shipped model already reads this deck ({info['model_read_right_before']}/52 of the grid): "
            f"--deck {name} reads it as the shipped model does, which reads an ordinary deck best"
        )
        return 0
    print(
        f"on practice layouts drawn from the photo, {info['practice_read']:.0%} of "
        f"{info['practice_cards']} face-up cards were read; the rest are reported unreadable (UU), not guessed"
    )
    hard = info["hard_cards"]
    if hard:
        print(hard_cards_words(hard))
    return 0
