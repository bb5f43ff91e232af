"""The game journal: the tracker's whole state saved after each accepted snapshot.

A JSON file written atomically, so a crash, a restart or an unplugged camera resumes
the same game. A journal that cannot be read is never overwritten silently: it is
renamed aside (``.bad-N``) and the reason is reported.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..core.join import tracker_from_dict
from ..core.notation import json_text, json_type
from ..core.tracker import TableTracker
from ..storage import NotTextError, describe_os_error, read_text_file, remove_stale_temporaries, write_json_atomic

JOURNAL_VERSION = 1


class JournalError(ValueError):
    """A journal file that cannot be read back; the message names the file and why."""


class Journal:
    """The coach's journal file: the tracker, saved after each accepted snapshot that changes
    the game, so that a restart resumes it."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    @classmethod
    def beside(cls, snapshot_path: str | os.PathLike) -> Journal:
        """The journal kept next to a snapshot file (``PATH.journal.json``)."""
        p = Path(snapshot_path)
        return cls(p.with_name(p.name + ".journal.json"))

    def exists(self) -> bool:
        """Whether the journal file exists."""
        return self.path.exists()

    def load(self) -> TableTracker | None:
        """The saved tracker, or None if there is no journal; raises JournalError naming the
        file and why when it cannot be read (not a file, unreadable, not UTF-8 JSON, or a
        tracker that is no Klondike game: a card twice, 3 columns, a foundation of 99)."""
        game = self.load_game()
        return None if game is None else game[0]

    def load_game(self) -> tuple[TableTracker, dict | None] | None:
        """The saved tracker and the advisor's memory saved with it (None when there is none:
        see :meth:`save`), or None if there is no journal; JournalError as :meth:`load`."""
        if not self.path.exists():
            return None
        try:
            text = read_text_file(self.path)
        except (OSError, NotTextError) as exc:
            raise JournalError(f"{self.path}: cannot read the journal: {describe_os_error(exc)}") from None
        return self.parse_game(text)

    def parse(self, text: str) -> TableTracker:
        """The tracker the journal text ``text`` (read from this journal's file) holds;
        raises JournalError naming the file and why, as :meth:`load`."""
        return self.parse_game(text)[0]

    def parse_game(self, text: str) -> tuple[TableTracker, dict | None]:
        """The tracker and the advisor's memory the journal text ``text`` holds (see
        :meth:`load_game`); JournalError as :meth:`load`. The memory is the advisor's to
        check (its ``restore``): one it cannot take back does not make the journal bad."""
        try:
            try:
                data = json.loads(text)
            except RecursionError:  # '[' * 100000: deeper than the JSON reader goes
                raise ValueError("it is JSON nested too deeply to be a journal") from None
            except json.JSONDecodeError as exc:
                raise ValueError(f"it is not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
            if not isinstance(data, dict):
                raise ValueError(f"it holds a JSON {json_type(data)}, not a journal object")
            if type(data.get("version")) is not int or data["version"] != JOURNAL_VERSION:
                found = json_text(data["version"]) if "version" in data else "none"
                raise ValueError(f"version {found}, expected {JOURNAL_VERSION}")
            if "tracker" not in data:
                raise ValueError("it has no 'tracker'")
            advisor = data.get("advisor")
            return tracker_from_dict(data["tracker"]), advisor if isinstance(advisor, dict) else None
        except ValueError as exc:
            raise JournalError(f"{self.path}: cannot read the journal: {exc}") from None

    def save(self, tracker: TableTracker, advisor: dict | None = None) -> None:
        """Write the tracker atomically (OSError when the file cannot be written), and remove
        the temporaries of earlier saves cut short by a crash. ``advisor``: the advisor's
        memory of the game (``{"strategy": name, "memory": ...}``, plain JSON values), kept
        beside the tracker so that a restarted coach advises as before (an optional part:
        a journal without it is read as before, and one with it by a coach that knows none)."""
        data = {"version": JOURNAL_VERSION, "tracker": tracker.to_dict()}
        if advisor is not None:
            data["advisor"] = advisor
        write_json_atomic(self.path, data)
        remove_stale_temporaries(self.path)

    def set_aside(self, tag: str = "bad") -> Path:
        """Rename the journal out of the way (``PATH.bad-N`` for an unreadable one,
        ``PATH.game-N`` for a finished game's); returns its new name. Raises JournalError,
        moving nothing, when the path is not a file, and OSError when the rename fails (a
        read-only folder)."""
        if not self.path.is_file():
            raise JournalError(f"{self.path} is not a file, so it is left as it is")
        n = 1
        while (target := self.path.with_name(f"{self.path.name}.{tag}-{n}")).exists():
            n += 1
        self.path.rename(target)
        return target
