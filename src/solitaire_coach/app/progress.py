"""Progress of long work on stderr, so that stdout's results stay as they are: on a
terminal one line rewritten in place (``\\r``), elsewhere (a log file, a pipe) a plain line
now and then.

    progress = Progress(200, "simulate")
    for n, game in enumerate(games, start=1):
        progress.update(n, f"{wins} won")      # simulate: 12/200 deals, 3 won, 1.2 s a deal, about 3m48s left
    progress.close()

    with Ticker("seed 7", limit_s=30):         # solve: seed 7: searching, 4 s (at most 30 s)
        result = solve(...)
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

EVERY_S = 10.0
"""Seconds between progress lines when stderr is not a terminal."""


def duration(seconds: float) -> str:
    """``42 s``, ``3m05s``, ``2h07m``: a duration for a person."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """``DONE/TOTAL WHAT, EXTRA, S a WHAT, about T left`` on ``stream``: rewritten in place
    at most every ``tty_every_s`` on a terminal, else a line every ``every_s`` seconds
    (default EVERY_S; none
    for work that ends sooner). The time left is the mean time per item so far times the
    items left."""

    def __init__(
        self,
        total: int,
        what: str,
        command: str,
        stream: TextIO | None = None,
        every_s: float | None = None,
        tty_every_s: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.what, self.command = total, what, command
        self.stream = stream if stream is not None else sys.stderr
        self.tty = _is_terminal(self.stream)
        self.every_s = tty_every_s if self.tty else EVERY_S if every_s is None else every_s
        self.clock = clock
        self.start = clock()
        self._last = self.start
        self._shown = False

    def line(self, done: int, extra: str = "") -> str:
        """The progress line after ``done`` items."""
        elapsed = self.clock() - self.start
        text = f"{self.command}: {done}/{self.total} {self.what}" + (f", {extra}" if extra else "")
        if done:
            per = elapsed / done
            text += f", {per:.2f} s each, about {duration(per * (self.total - done))} left"
        return text

    def update(self, done: int, extra: str = "") -> None:
        """Show the progress after ``done`` items, if it is time to."""
        now = self.clock()
        if now - self._last < self.every_s or done >= self.total:
            return
        self._last = now
        self._write(self.line(done, extra))

    def _write(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r" + text + "\x1b[K")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        """End the progress line (on a terminal it is cleared, for the results that follow)."""
        if self._shown and self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


class Ticker:
    """A context manager that, while its block runs for longer than ``after_s``, says on
    ``stream`` that ``label`` is still being worked on, with the time so far and the
    limit: ``solve: seed 7: searching, 4 s of at most 30 s``. Rewritten in place on a
    terminal; elsewhere a line every ``every_s`` seconds. For work that releases the GIL
    (the C solver)."""

    def __init__(
        self,
        label: str,
        command: str,
        limit_s: float | None = None,
        stream: TextIO | None = None,
        after_s: float = 1.0,
        every_s: float = 5.0,
    ) -> None:
        self.label, self.command, self.limit_s = label, command, limit_s
        self.stream = stream if stream is not None else sys.stderr
        self.tty = _is_terminal(self.stream)
        self.after_s = after_s
        self.every_s = 0.5 if self.tty else every_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False

    def __enter__(self) -> Ticker:
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        wait = self.after_s
        while not self._stop.wait(wait):
            elapsed = time.monotonic() - self._start
            limit = f" of at most {duration(self.limit_s)}" if self.limit_s else " (no time limit)"
            text = f"{self.command}: {self.label}: searching, {duration(elapsed)}{limit}"
            self.stream.write(("\r" + text + "\x1b[K") if self.tty else text + "\n")
            self.stream.flush()
            self._shown = True
            wait = self.every_s

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._shown and self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
