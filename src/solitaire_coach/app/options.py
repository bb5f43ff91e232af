"""Options shared by several commands, added by one function each so that an option means
the same thing, with the same help, in every command that has it:

* ``--strategy`` and ``--think-time``: the advisor, and its seconds per decision;
* ``--model``: the card detector's model folder;
* ``--calibration``: a camera calibration, by NAME or .json path;
* ``--json``: JSON on stdout, one object a line; the words that are not JSON go to stderr.

(``--seed`` is the seed of a deal everywhere: the first of ``simulate``'s deals, the deal
``solve`` solves; the rules options are ``cmd_core.add_rules_arguments``.)
"""

from __future__ import annotations

from pathlib import Path

from .argtypes import positive_float, strategy_name
from .errors import CommandError


def add_strategy_arguments(p) -> None:
    """Add ``--strategy`` (the known ones listed, the default named) and ``--think-time``."""
    from .cmd_core import strategy_help

    p.add_argument("--strategy", type=strategy_name, default=None, help=strategy_help())
    p.add_argument(
        "--think-time",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="seconds per decision for a searching strategy such as best (default: the strategy's "
        "own, 1 s for best; baseline does not search)",
    )


def strategy_from_args(args):
    """The strategy that ``--strategy`` and ``--think-time`` of ``args`` name; CommandError
    when the strategy cannot take that think time."""
    from ..core.advisor import make_strategy
    from .cmd_core import default_strategy

    name = args.strategy or default_strategy()
    think = getattr(args, "think_time", None)
    try:
        return make_strategy(name, **({"think_time": think} if think is not None else {}))
    except ValueError as exc:
        raise CommandError(f"--think-time {think:g} cannot be used with --strategy {name}: {exc}") from None


def add_model_argument(p) -> None:
    """Add ``--model``: the card detector's model folder."""
    p.add_argument(
        "--model",
        type=Path,
        metavar="FOLDER",
        help="card detector model: a folder holding card_locator.onnx and card_reader.onnx "
        "(default: the shipped models, or the folder SOLITAIRE_MODELS names)",
    )


def add_calibration_argument(p, default: str = "none: the slots are found in the picture") -> None:
    """Add ``--calibration``: a camera calibration by NAME or .json path (``default`` says
    what is used without it)."""
    p.add_argument(
        "--calibration",
        metavar="NAME|FILE",
        help="camera calibration: NAME (as calibrate --name writes it in the per-user data folder; then "
        f"the shipped ones, such as example) or a .json path (default: {default})",
    )


def add_json_argument(p, what: str) -> None:
    """Add ``--json``: ``what`` as JSON on stdout, one object a line; other words on stderr."""
    p.add_argument("--json", action="store_true", help=f"JSON on stdout, {what} (other words go to stderr)")
