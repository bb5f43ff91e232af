"""The command line's one way to end on bad input, and its exit statuses.

A command raises :class:`CommandError` (bad input or usage: exit 2) and ``cli.main``
prints ``solitaire-coach CMD: error: MESSAGE`` on stderr, the form argparse itself uses for
a bad option. A command that goes on after a bad input (``check-log`` given several
files) says it with :func:`say_error` and ends with ``USAGE``.

Exit statuses: ``DONE`` 0; ``NEGATIVE`` 1, a result the user asked about is negative (a
log with an illegal move, a replay that does not match its log); ``USAGE`` 2, bad input or
usage; ``solve`` also ends with 3 when a deal is left undecided at its limits; 130 when
interrupted.
"""

from __future__ import annotations

import sys

DONE = 0
NEGATIVE = 1
USAGE = 2


class CommandError(Exception):
    """Bad input or usage, said in ``message`` (which names the option, file or value);
    ``cli.main`` prints it as ``solitaire-coach CMD: error: MESSAGE`` and exits with ``code``."""

    def __init__(self, message: str, code: int = USAGE):
        super().__init__(message)
        self.code = code


def error_line(command: str | None, message: str) -> str:
    """``solitaire-coach CMD: error: MESSAGE`` (without CMD when there is none)."""
    who = f"solitaire-coach {command}" if command else "solitaire-coach"
    return f"{who}: error: {message}"


def say_error(command: str | None, message: str) -> None:
    """Print :func:`error_line` on stderr, for a command that goes on after it."""
    print(error_line(command, message), file=sys.stderr, flush=True)
