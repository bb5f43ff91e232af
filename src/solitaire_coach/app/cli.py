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

from .errors import CommandError, say_error

# the modules whose register(subparsers) adds the commands (each imports its heavy
# dependencies inside the command, so building the parser stays quick)
COMMAND_MODULES = (
    "solitaire_coach.app.cmd_core",  # simulate, coach, check-log
)

# left out of the parser when the module itself is not there
OPTIONAL_COMMAND_MODULES = (
    "solitaire_coach.app.cmd_solve",  # solve
    "solitaire_coach.app.cmd_vision",  # detect, learn-deck
    "solitaire_coach.app.cmd_play",  # play
    "solitaire_coach.app.cmd_record",  # record
    "solitaire_coach.app.cmd_replay",  # replay
    "solitaire_coach.app.cmd_demo",  # demo
    "solitaire_coach.app.cmd_calibrate",  # calibrate
)


EXAMPLES = {
    "play": [
        "solitaire-coach calibrate --camera 0 --name desk     # once per camera set-up",
        "solitaire-coach play --calibration desk                # the live coach",
        "solitaire-coach play --frames fixtures/games/game1 --no-window --new",
    ],
    "record": [
        "solitaire-coach record mygame --seconds 600          # camera 0 into a new folder",
        "solitaire-coach replay mygame                         # then run the coach on it",
    ],
    "replay": [
        "solitaire-coach replay mygame --expect mygame/moves.log",
        "solitaire-coach replay game.mp4 --json > frames.jsonl",
    ],
    "demo": ["solitaire-coach demo", "solitaire-coach demo --game game2 --json"],
    "calibrate": [
        "solitaire-coach calibrate --print-board board.png   # print it, then:",
        "solitaire-coach calibrate --camera 0 --name desk",
        "solitaire-coach calibrate --table deal.jpg --name desk   # from a photo, no lens",
    ],
    "detect": ["solitaire-coach detect table.jpg", "solitaire-coach detect table.jpg --json --annotate seen.png"],
    "learn-deck": [
        "solitaire-coach learn-deck grid.jpg --name mydeck",
        "solitaire-coach detect table.jpg --deck mydeck",
    ],
    "simulate": [
        "solitaire-coach simulate --count 200 --strategy baseline --quiet",
        "solitaire-coach simulate --deals deals.txt --json > games.jsonl",
    ],
    "coach": [
        "solitaire-coach coach --snapshot-file snap.txt     # Enter reads it, q quits",
        "solitaire-coach coach --snapshot-file snap.txt --new --strategy baseline",
    ],
    "check-log": ["solitaire-coach check-log game.log", "solitaire-coach check-log logs/*.log --draw 3"],
    "solve": [
        "solitaire-coach solve --seed 7",
        "solitaire-coach solve deals.txt --quiet",
        "solitaire-coach solve game.journal.json --prove 5",
    ],
}
"""One or two example command lines per command, shown at the end of its --help."""

EXIT_STATUS = (
    "exit status: 0 done; 1 the answer asked for is negative (a log or a replay that is wrong); "
    "2 bad input or usage (said as 'solitaire-coach COMMAND: error: ...' on stderr)"
)


class HelpFormatter(argparse.HelpFormatter):
    """Help with each line of the description and epilog wrapped on its own (so example
    lines stay lines), and each option's default added where its help does not already say
    it (and it has one worth saying)."""

    def _fill_text(self, text, width, indent):
        return "\n".join(
            super(HelpFormatter, self)._fill_text(line, width, indent + line[: len(line) - len(line.lstrip())])
            if line.strip()
            else ""
            for line in text.splitlines()
        )

    def _get_help_string(self, action):
        text = action.help or ""
        if (
            "default" in text
            or action.default is None
            or action.default is False
            or action.default == argparse.SUPPRESS
            or not action.option_strings
            or "%(default)" in text
        ):
            return text
        return f"{text} (default: %(default)s)"


def _epilog(command: str) -> str:
    lines = EXAMPLES.get(command, [])
    examples = ("examples:\n" + "\n".join(f"  {ln}" for ln in lines) + "\n\n") if lines else ""
    return examples + EXIT_STATUS + ("; 3 some deal left undecided" if command == "solve" else "")


def build_parser() -> argparse.ArgumentParser:
    """The ``solitaire-coach`` argument parser with every command's sub-parser (an optional
    command module that is not there is left out)."""
    parser = argparse.ArgumentParser(
        prog="solitaire-coach",
        description="A webcam Klondike coach: reads the cards, tracks the game, advises the next move.",
    )
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
    for command, p in sub.choices.items():
        p.formatter_class = HelpFormatter
        p.epilog = _epilog(command)
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
    except CommandError as exc:
        say_error(args.command, str(exc))
        return exc.code
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
