"""A serial-port trigger: a button or microcontroller sends ``SNAP`` and the coach takes a frame.

Protocol (one ASCII line each way, ``\\n``, ``\\r\\n`` or ``\\r`` terminated, 9600 baud by default):

* rig -> coach: ``SNAP`` (take a frame now), ``PING`` (the coach answers ``PONG``);
  case and surrounding blanks do not matter.
* coach -> rig: one line of text, the advice (ASCII only, suit symbols written as
  letters, cut to ``max_line`` characters so a 2x16 or 4x20 display can show it).

Garbage bytes, unknown lines and partial lines are reported through ``warn`` and
dropped; a port that disappears (unplugged USB adapter) is closed, reported once, and
reopened at growing intervals. Nothing here raises after construction, so the coach
never stops for a serial problem.

Any URL pyserial understands works as the port (``/dev/ttyUSB0``, ``COM3``, ``loop://``,
``socket://host:port``, ``rfc2217://...``).
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable

import serial  # pyserial

TRIGGER_WORDS = ("SNAP",)
MAX_PENDING = 256  # bytes without a newline before the buffer is called garbage and dropped
MAX_IGNORED_SAID = 3  # ignored lines in a row said one by one; after that, one line for the rest

_PORT_ERRORS = {
    errno.ENOENT: "no such port (is the rig plugged in? on Linux, ls /dev/ttyUSB* /dev/ttyACM*)",
    errno.EACCES: "permission denied (on Linux, join the dialout group)",
    errno.EBUSY: "busy: another program has it open",
}


def describe_port_error(exc: BaseException) -> str:
    """Why a port could not be opened, in words: pyserial's message repeats the OS error
    inside its own ('[Errno 2] could not open port X: [Errno 2] No such file ...')."""
    code = getattr(exc, "errno", None)
    if code in _PORT_ERRORS:
        return _PORT_ERRORS[code]
    return str(exc) or exc.__class__.__name__


_ASCII = {
    "♣": "C",
    "♦": "D",
    "♥": "H",
    "♠": "S",
    "→": "->",
    "—": "-",
    "–": "-",
    "…": "...",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
}


def ascii_line(text: str, max_line: int = 80) -> str:
    """``text`` as one ASCII line for a small display (``7♥`` -> ``7H``), at most ``max_line`` long."""
    out = "".join(_ASCII.get(ch, ch) for ch in " ".join(text.split()))
    out = out.encode("ascii", "replace").decode("ascii")
    return out[:max_line]


class SerialTrigger:
    """Watch a serial port for trigger lines and send advice lines back.

    ``poll()`` is non-blocking: it returns how many ``SNAP`` lines arrived since the last
    call. ``send(text)`` writes one line; it returns False (after a warning) when the port
    is gone. ``opener(port, baudrate)`` builds the port object (default
    ``serial.serial_for_url`` with a zero read timeout); tests pass their own.
    """

    def __init__(
        self,
        port: str,
        baudrate: int = 9600,
        *,
        warn: Callable[[str], None] | None = None,
        opener: Callable[[str, int], object] | None = None,
        retry_s: float = 0.5,
        max_retry_s: float = 5.0,
        max_line: int = 80,
        clock: Callable[[], float] = time.monotonic,
        require_open: bool = True,
    ) -> None:
        self.port_name = port
        self.baudrate = baudrate
        self.max_line = max_line
        self._warn = warn or (lambda msg: None)
        self._opener = opener or (lambda p, b: serial.serial_for_url(p, baudrate=b, timeout=0, write_timeout=0.5))
        self._clock = clock
        self.retry_s, self.max_retry_s = retry_s, max_retry_s
        self._delay = retry_s
        self._next_try = 0.0
        self._port = None
        self._buffer = b""
        self._down = False
        self._ignored = 0  # lines ignored in a row
        self._overflowing = False  # bytes with no end of line are being dropped (said once)
        self.reconnects = 0
        self.warnings = 0
        error = self._open()
        if error and require_open:
            raise serial.SerialException(f"serial port {port!r} could not be opened: {error}")
        if error:
            self._report_down(error)

    # connection ------------------------------------------------------------------
    def _open(self) -> str | None:
        try:
            self._port = self._opener(self.port_name, self.baudrate)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._port = None
            return describe_port_error(exc)
        self._buffer = b""
        return None

    def _report_down(self, why: str) -> None:
        if not self._down:
            self._say(f"serial port {self.port_name}: {why}; retrying, the game is kept")
        self._down = True
        self._close_port()
        self._next_try = self._clock() + self._delay
        self._delay = min(self._delay * 2, self.max_retry_s)

    def _close_port(self) -> None:
        if self._port is not None:
            try:
                self._port.close()
            except Exception:
                pass
        self._port = None

    def _ensure(self) -> bool:
        if self._port is not None:
            return True
        if self._clock() < self._next_try:
            return False
        error = self._open()
        if error:
            self._next_try = self._clock() + self._delay
            self._delay = min(self._delay * 2, self.max_retry_s)
            return False
        if self._down:
            self._say(f"serial port {self.port_name}: connected again")
            self.reconnects += 1
        self._down = False
        self._delay = self.retry_s
        return True

    @property
    def connected(self) -> bool:
        """True while the serial port is open."""
        return self._port is not None

    def _say(self, message: str) -> None:
        self.warnings += 1
        self._warn(message)

    # reading -------------------------------------------------------------------
    def poll(self) -> int:
        """Read what has arrived (never blocks); return the number of SNAP lines."""
        if not self._ensure():
            return 0
        try:
            data = self._port.read(4096)  # the port has a zero timeout: returns what is there
        except (serial.SerialException, OSError) as exc:
            self._report_down(f"lost ({exc})")
            return 0
        if not data:
            return 0
        self._buffer += data
        triggers = 0
        while True:
            # a line ends at \n, \r\n or a lone \r (what a terminal program such as screen or
            # minicom sends for Enter, and some rigs' println)
            ends = [i for i in (self._buffer.find(b"\n"), self._buffer.find(b"\r")) if i >= 0]
            if not ends:
                break
            nl = min(ends)
            raw, self._buffer = self._buffer[:nl], self._buffer[nl + 1 :]
            self._overflowing = False
            triggers += self._handle_line(raw)
        if len(self._buffer) > MAX_PENDING:
            if not self._overflowing:
                # said once for a run of bytes with no end of line (a rig at another baud
                # rate sends such noise for ever), not again at every poll
                self._say(
                    f"serial port {self.port_name}: {len(self._buffer)} bytes without an end of line, dropped "
                    f"(starts {self._buffer[:16]!r}); more are dropped unsaid until a line ends (if this goes "
                    f"on, check that --baud {self.baudrate} is the rig's rate)"
                )
            self._overflowing = True
            self._buffer = b""
        return triggers

    def _handle_line(self, raw: bytes) -> int:
        raw = raw.strip(b"\r\x00 \t")
        if not raw:
            return 0
        word = raw.decode("ascii", "replace").strip().upper()
        if word in TRIGGER_WORDS or word == "PING":
            self._ignored = 0
            if word == "PING":
                self.send("PONG")
                return 0
            return 1
        if word.endswith(TRIGGER_WORDS) and not raw[: -len("SNAP")].isascii():
            # noise on the line (bytes no rig sends) ran into a trigger with no end of line
            # between them
            self._ignore(f"took the trigger at the end of {raw[:32]!r} (noise before it)")
            return 1
        try:
            line = raw.decode("ascii").strip()
        except UnicodeDecodeError:
            line = None
        if line is None or not line.isprintable():
            self._ignore(f"ignored a garbled line {raw[:32]!r} (expected SNAP)")
        else:
            self._ignore(f"ignored unknown line {line[:32]!r} (expected SNAP or PING)")
        return 0

    def _ignore(self, what: str) -> None:
        """Say a line that was not a clean trigger; after a few in a row, say once that the
        rest go unsaid (a baud rate mismatch garbles every line)."""
        self._ignored += 1
        if self._ignored <= MAX_IGNORED_SAID:
            self._say(f"serial port {self.port_name}: {what}")
        if self._ignored == MAX_IGNORED_SAID:
            self._say(
                f"serial port {self.port_name}: {MAX_IGNORED_SAID} lines in a row were not a clean SNAP or "
                f"PING; more such lines go unsaid until a clean one comes (if this goes on, check that --baud "
                f"{self.baudrate} is the rig's rate)"
            )

    @property
    def pending(self) -> bytes:
        """Bytes of a line that has not ended yet."""
        return self._buffer

    # writing -------------------------------------------------------------------
    def send(self, text: str) -> bool:
        """Send ``text`` as one ASCII line; False (after a warning) when the port is gone."""
        if not self._ensure():
            return False
        try:
            self._port.write((ascii_line(text, self.max_line) + "\n").encode("ascii"))
            flush = getattr(self._port, "flush", None)
            if flush:
                flush()
        except (serial.SerialException, OSError) as exc:
            self._report_down(f"lost while sending ({exc})")
            return False
        return True

    def close(self) -> None:
        """Close the serial port."""
        self._close_port()
