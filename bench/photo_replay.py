"""Benchmark: a recorded game replayed as a folder of photos taken every N moves.

A person may photograph the table every few moves instead of filming it. From each
recorded game in fixtures/games this takes the still pictures without a hand after every
N-th move (the deal first, the last position last), writes them into a folder of photos
with no ``frames.jsonl`` (``replay`` then reads each picture once, on its own: see
``ReadGate.for_photos``) and replays it with the real detector against the game's log.
It prints, per game and N, whether the game was followed (every move, perhaps some of one
picture in another order ending in the same position), the moves inferred, and the
'not legal' reports; where the coach was lost and joined the table as it is (``replay``
does that for photos after 3 different tables in a row that do not follow), how many
times, and how many reads it followed from there.

Run:  python bench/photo_replay.py [--every 1 2 3] [--games game1 game3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path

GAMES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "games"


def photo_folder(game: Path, every: int, out: Path) -> int:
    """Write the game's still pictures after every ``every``-th move into ``out`` (with
    its moves.log); returns how many pictures."""
    entries = [json.loads(line) for line in (game / "truth.jsonl").read_text().splitlines()]
    still = [e for e in entries if not e["hand"] and (e["what"] == "deal" or e["what"].startswith("after"))]
    picked = still[::every]
    if (len(still) - 1) % every:
        picked.append(still[-1])
    out.mkdir(parents=True, exist_ok=True)
    for i, e in enumerate(picked):
        shutil.copy(game / e["file"], out / f"photo_{i:03d}{Path(e['file']).suffix}")
    shutil.copy(game / "moves.log", out / "moves.log")
    return len(picked)


def _same_end(game: Path, inferred: list[str]) -> str:
    """Do the moves inferred, played from the log's deal, end in the very position the log's
    moves end in (every card in its place, the stock's order included)? Moves between two
    photos whose order or split between stock and waste no photo shows can be inferred
    otherwise and still end there: ``first_difference`` compares only a few moves at a time.
    Says "yes", "the same table, another stock/waste order" (every visible card alike, the
    hidden order of the stock and waste not), or "no"."""
    from solitaire_coach.core.moves import IllegalMoveError, Move
    from solitaire_coach.core.notation import parse_log
    from solitaire_coach.core.rules import DEFAULT_RULES
    from solitaire_coach.core.state import GameState

    log = parse_log((game / "moves.log").read_text())
    start = GameState.from_deal(log.deal, DEFAULT_RULES)
    try:
        ends = start.play_all([Move.parse(m) for m in inferred]), start.play_all(log.moves)
    except (IllegalMoveError, ValueError):
        return "no (not legal from the deal)"
    if ends[0] == ends[1]:
        return "yes"

    def visible(s):
        return s.faceup, s.foundations, s.waste[-1:], tuple(len(h) for h in s.hidden), bool(s.stock)

    return "the same table, another stock/waste order" if visible(ends[0]) == visible(ends[1]) else "no"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, nargs="*", default=[1, 2, 3], help="moves between photos (default 1 2 3)")
    ap.add_argument("--games", nargs="*", default=None, help="game names in fixtures/games (default all)")
    ap.add_argument("--strategy", default="baseline")
    args = ap.parse_args(argv)
    from solitaire_coach.app.cli import main as cli

    names = args.games or sorted(p.name for p in GAMES_DIR.glob("game*") if (p / "truth.jsonl").is_file())
    for name in names:
        for every in args.every:
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp) / name
                n = photo_folder(GAMES_DIR / name, every, folder)
                out = io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                    cli(["replay", str(folder), "--json", "--strategy", args.strategy])
            lines = out.getvalue().splitlines()
            summary = json.loads(lines[-1])["summary"]
            frames = [json.loads(ln) for ln in lines[:-1]]
            same_end = _same_end(GAMES_DIR / name, [m for f in frames for m in f.get("moves", [])])
            reports = [f.get("report") for f in frames if f.get("report")]
            # a game start after the first: lost, the coach joined the table as it is
            rejoins = [i for i, r in enumerate(reports) if r == "started" and i > 0]
            after = reports[rejoins[0] :] if rejoins else []
            print(
                f"{name} every {every}: {n} photos, {summary['reads']} read, {summary['moves']} of "
                f"{summary['expected_moves']} moves inferred, followed: {summary['matches_expected']}"
                f" (in order: {summary['in_logged_order']}), ends in the log's position: {same_end}, "
                f"'not legal' reports "
                f"{sum(1 for f in frames if f.get('report') == 'inconsistent')}"
                + ("" if summary["matches_expected"] else f"; first difference {summary['first_difference']}")
                + (
                    f"; lost and joined the table as it is {len(rejoins)} time(s), first at read {rejoins[0] + 1}: "
                    f"then {sum(1 for r in after if r != 'inconsistent')} of {len(after)} reads followed, the "
                    f"last photo {'followed' if reports[-1] != 'inconsistent' else 'not followed'}"
                    if rejoins
                    else ""
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
