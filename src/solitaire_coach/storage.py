"""Files written atomically (temporary file in the same folder, fsync, then rename)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees either the old or the whole new content."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_json_atomic(path: str | os.PathLike, obj: Any) -> None:
    write_atomic(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def read_text(path: str | os.PathLike) -> str:
    return Path(path).read_text(encoding="utf-8")


class NotTextError(ValueError):
    """A file given as text (a deal file, a game log) that is not UTF-8 text."""


def read_text_file(path) -> str:
    """The text of a file the user gave: UTF-8, a leading byte-order mark (as Windows
    Notepad writes) dropped. Raises OSError as reading does, and NotTextError (whose
    message does not repeat the file name) when the bytes are not UTF-8 text."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotTextError(f"not a text file (UTF-8): byte {data[exc.start]:#04x} at offset {exc.start} "
                           f"is not UTF-8") from None
    if "\0" in text:
        raise NotTextError(f"not a text file (UTF-8): it holds a NUL byte at offset {data.index(0)}")
    return text
