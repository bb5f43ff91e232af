"""How many distinct pictures of the built-in recorded games `record` keeps, with the old
dedupe rule (thumbnail mean change under 0.6: the same picture) and the current one (also
fewer than 8 pixels changed at full resolution): every distinct picture is a table worth
keeping, so any it merges into the one before is lost.

Usage: python bench/record_dedupe.py [GAME ...]      (default: every built-in game)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from solitaire_coach.app.cmd_demo import builtin_game_dir, builtin_games
from solitaire_coach.capture.sources import Frame, FrameRecorder, read_picture


def kept(folder: Path, fine_pixels: int) -> tuple[int, int]:
    """(pictures in the recording, pictures a recorder with ``fine_pixels`` writes)."""
    files = []
    for line in (folder / "frames.jsonl").read_text().splitlines():
        name = json.loads(line)["file"]
        if not files or files[-1] != name:
            files.append(name)
    with tempfile.TemporaryDirectory() as out:
        rec = FrameRecorder(out, fine_pixels=fine_pixels)
        for i, name in enumerate(files):
            rec.add(Frame(read_picture(folder / name), i, i * 0.2, name))
        rec.close()
    return len(files), rec.written


def main() -> None:
    games = sys.argv[1:] or builtin_games()
    print("game   pictures  kept-old-rule  kept-now")
    for game in games:
        folder = builtin_game_dir(game)
        n, old = kept(folder, fine_pixels=1 << 40)  # the old rule: the thumbnail's mean alone
        _, now = kept(folder, fine_pixels=8)
        print(f"{game:6} {n:8}  {old:13}  {now:8}")


if __name__ == "__main__":
    main()
