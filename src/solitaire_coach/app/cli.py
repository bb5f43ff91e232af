"""The ``solitaire-coach`` command line.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds
its parser and sets ``func`` (called with the parsed arguments, returns an exit code).
Modules are imported lazily so a problem in one command (say a missing camera
library) does not break the others.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# the modules whose register(subparsers) adds the commands (each imports its heavy
# dependencies inside the command, so building the parser stays quick)
COMMAND_MODULES = (
    "solitaire_coach.app.cmd_core",       # simulate, coach, check-log
)

# left out of the parser when the module itself is not there
OPTIONAL_COMMAND_MODULES = (
    "solitaire_coach.app.cmd_solve",      # solve
    "solitaire_coach.app.cmd_vision",     # detect, learn-deck
    "solitaire_coach.app.cmd_play",       # play
    "solitaire_coach.app.cmd_record",     # record
    "solitaire_coach.app.cmd_replay",     # replay
    "solitaire_coach.app.cmd_demo",       # demo
    "solitaire_coach.app.cmd_calibrate",  # calibrate
)


def build_parser() -> argparse.ArgumentParser:
    """The ``solitaire-coach`` argument parser with every command's sub-parser (an optional
    command module that is not there is left out)."""
    parser = argparse.ArgumentParser(prog="solitaire-coach", description="A webcam Klondike coach: reads the cards, tracks the game, advises the next move.")
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"solitaire-coach {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for name in OPTIONAL_COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names (default: the process's arguments); the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # whoever read our output stopped reading (| head): nothing more to say to them,
        # and nothing left for Python to flush into the closed pipe at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
