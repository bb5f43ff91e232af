"""Which of the project's text formats a file looks like, so that a command given the
wrong kind of file can say what it seems to be and which command reads it."""

from __future__ import annotations

from ..core.notation import deal_codes, is_log_line


def looks_like(text: str) -> tuple[str, int] | None:
    """``(kind, line)`` for text that looks like a coach ``journal`` (JSON), a 12-slot
    ``snapshot`` (a first line of 12 comma-separated codes) or a ``game log`` (a second
    line that is a move), with the line that shows it; None for anything else (a file of
    deal lines among them)."""
    lines = [
        (n, ln) for n, ln in enumerate(text.splitlines(), start=1) if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not lines:
        return None
    n, first = lines[0]
    if first.lstrip()[:1] in ("{", "["):
        return "journal", n
    if len(first.split(",")) == 12 and len(deal_codes(first)) == 12:
        return "snapshot", n
    for n, line in lines[1:]:
        if is_log_line(line):
            return "game log", n
    return None


_READERS = {
    "journal": "solve reads the position in a journal",
    "snapshot": "coach --snapshot-file reads snapshots",
    "game log": "check-log replays a log and solve solves the position after it",
}


def wrong_kind_hint(text: str, accepted: tuple[str, ...] = ()) -> str:
    """'' unless ``text`` looks like a kind of file not among ``accepted``: then words to add
    to the error, such as `` (the file looks like a game log: line 2 is a move; check-log
    replays a log ...)``."""
    kind = looks_like(text)
    if kind is None or kind[0] in accepted:
        return ""
    what, n = kind
    shown = {
        "journal": "a coach journal (JSON)",
        "snapshot": f"a 12-slot snapshot: line {n} has 12 slots",
        "game log": f"a game log: line {n} is a move",
    }[what]
    return f" (the file looks like {shown}; {_READERS[what]})"
