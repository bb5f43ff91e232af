"""Files written atomically keep the permissions a user expects."""

from __future__ import annotations

import os
import stat

from solitaire_coach.storage import write_atomic, write_json_atomic


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_file_gets_the_umask_mode_not_a_private_one(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.txt", "hello\n")
        write_json_atomic(tmp_path / "b.json", {"x": 1})
        os.umask(0o077)
        write_atomic(tmp_path / "c.txt", b"\x00\x01")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a.txt") == 0o644
    assert _mode(tmp_path / "b.json") == 0o644
    assert _mode(tmp_path / "c.txt") == 0o600
    assert (tmp_path / "c.txt").read_bytes() == b"\x00\x01"


def test_a_replaced_file_keeps_its_mode_and_no_temporary_is_left(tmp_path):
    path = tmp_path / "journal.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    write_atomic(path, "new")
    assert path.read_text() == "new" and _mode(path) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.json"]


def test_the_folder_is_synced_after_the_rename_so_the_new_name_reaches_the_disk(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(tmp_path / "journal.json", "new")
    assert synced == [False, True]  # the data first, then the folder holding the new name


def test_a_symbolic_link_is_written_through_not_replaced_by_a_file(tmp_path):
    (tmp_path / "synced").mkdir()
    target = tmp_path / "synced" / "game.journal.json"
    target.write_text("old")
    link = tmp_path / "game.journal.json"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    dangling = tmp_path / "later.json"
    dangling.symlink_to(tmp_path / "synced" / "later.json")
    write_json_atomic(dangling, {"x": 1})
    assert dangling.is_symlink() and (tmp_path / "synced" / "later.json").read_text() == '{\n  "x": 1\n}\n'
    assert sorted(p.name for p in (tmp_path / "synced").iterdir()) == ["game.journal.json", "later.json"]
