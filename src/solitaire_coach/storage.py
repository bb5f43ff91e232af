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
