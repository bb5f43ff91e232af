"""Files written atomically (temporary file in the same folder, fsync, rename, then fsync
of the folder), and the user's text files read, with what goes wrong said in words."""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import stat
import time
from pathlib import Path
from typing import Any


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees either the old or the whole new content.
    A symbolic link is written through: the file it points to gets the new content and the
    link stays (renaming over the link would leave its file behind with the old content)."""
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp, mode = _create_temporary(path)
    try:
        if mode is not None:
            os.chmod(tmp, mode)  # by name: Windows takes no descriptor here before Python 3.13
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _sync_folder(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entries to disk, so that the rename survives a power cut (the
    new file's data is synced already). Where a folder cannot be opened (Windows) the
    rename is as durable as that system makes it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # a file system that cannot sync a folder: the rename is done all the same
    finally:
        os.close(fd)


def _create_temporary(path: Path) -> tuple[int, str, int | None]:
    """A new file beside ``path`` (a hidden name of its own), open for writing, and the
    mode of the file it replaces (None if there is none). It is made with mode 0666 less
    the umask, as ``open`` makes a file (``tempfile.mkstemp`` would make it 0600, so every
    file written here would be private to its owner); the caller gives it the replaced
    file's mode."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = None
    for _attempt in range(100):
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        return fd, tmp, mode
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def remove_stale_temporaries(path: str | os.PathLike, older_than_s: float = 60.0) -> list[str]:
    """Remove the temporary files of ``path`` that a writer killed mid-write left behind (a
    crash, ``kill -9`` or a power cut between making the temporary and the rename), so
    that they do not pile up beside a file written again and again (the journal); returns
    their names. Only files of this path's temporary name (``.NAME.<8 hex>.tmp``) older than
    ``older_than_s`` are removed: a write takes milliseconds, so such a file is no other
    writer's work in progress. What cannot be looked at or removed is left as it is."""
    path = Path(os.path.realpath(path))  # as write_atomic: beside the file a link points to
    name = re.compile(rf"\.{re.escape(path.name)}\.[0-9a-f]{{8}}\.tmp")
    removed = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not name.fullmatch(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and now - entry.stat(follow_symlinks=False).st_mtime > older_than_s:
                os.unlink(entry.path)
                removed.append(entry.name)
        except OSError:
            pass
    return removed


def write_json_atomic(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as indented JSON with sorted keys to ``path`` atomically (``write_atomic``)."""
    write_atomic(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


class NotTextError(ValueError):
    """A file given as text (a deal file, a game log, a snapshot) that cannot be read as
    text: not a regular file (a named pipe, a device), UTF-16, or not UTF-8."""


_ERRNO_WORDS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a folder, not a file",
    errno.ENOTDIR: "a folder on its path is a file, not a folder",
    errno.ELOOP: "a symlink loop (a symbolic link on its path leads back to itself)",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENAMETOOLONG: "the name is too long",
}


def json_error_text(exc: json.JSONDecodeError) -> str:
    """The JSON reader's words for what is wrong, without the "at" some of them end in
    ("Unterminated string starting at"), so that a message can go on "at column 10"."""
    return exc.msg.removesuffix(" at")


def describe_os_error(exc: BaseException) -> str:
    """What an OSError met with a file the user gave says, in words and without the file
    name (the caller names it): 'no such file', 'is a folder, not a file', never
    '[Errno 2] ...'. Also takes the RuntimeError ``Path.resolve`` raises for a symlink loop,
    and a NotTextError, whose message is its reason already: so a reader catches
    ``(OSError, NotTextError)`` of ``read_text_file`` in one clause."""
    if isinstance(exc, RuntimeError):  # Path.resolve() before Python 3.13
        return _ERRNO_WORDS[errno.ELOOP]
    code = getattr(exc, "errno", None)
    if code in _ERRNO_WORDS:
        return _ERRNO_WORDS[code]
    strerror = getattr(exc, "strerror", None)
    if strerror:
        return strerror[:1].lower() + strerror[1:]
    return str(exc) or type(exc).__name__


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words ('a named pipe (FIFO)')."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def read_file_bytes(path) -> bytes:
    """The bytes of a file the user gave: the one check of every file read by the command
    line. Raises OSError as reading does (IsADirectoryError for a folder), and NotTextError
    (its message without the file name) for what is not a regular file: a named pipe is
    never waited on (it is opened without blocking and refused), nor is a device read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise NotTextError(f"not a regular file: it is {file_kind(mode)}")
        return fh.read()


def read_text_file(path) -> str:
    """The text of a file the user gave: UTF-8, a leading byte-order mark (as Windows
    Notepad writes) dropped. Raises OSError as reading does (IsADirectoryError for a
    folder), and NotTextError (whose message does not repeat the file name) for what is not
    a regular file (a named pipe is never waited on: it is opened without blocking and
    refused), for UTF-16 text (as Windows PowerShell's ``>`` writes) and for bytes that are
    not UTF-8 text."""
    data = read_file_bytes(path)
    if data.startswith(_UTF16_BOMS):
        raise NotTextError("UTF-16 text, not UTF-8 text (as Windows PowerShell's > writes): save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotTextError(
            f"not a text file (UTF-8): byte {data[exc.start]:#04x} at offset {exc.start} is not UTF-8"
        ) from None
    if "\0" in text:
        raise NotTextError(f"not a text file (UTF-8): it holds a NUL byte at offset {data.index(0)}")
    return text
