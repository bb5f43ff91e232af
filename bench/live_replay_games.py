"""Benchmark: replay every recorded game in fixtures/games through the whole coach
(read gate, real card detector, tracker, advisor) and print, per game, whether every
move was inferred as in its log, how many moves came from frames with a hand, and the
time a detector read takes.

Run:  .venv/bin/python bench/live_replay_games.py [--games game1 game2 | --games out/held_out_games/*]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

GAMES_DIR = Path(
    __import__("os").environ.get("GAMES_DIR") or Path(__file__).resolve().parents[1] / "fixtures" / "games"
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=None, help="game names in fixtures/games, or game folders")
    ap.add_argument("--strategy", default="baseline", help="advisor during replay (default baseline)")
    args = ap.parse_args(argv)
    from solitaire_coach.app.cli import main as cli

    names = args.games or sorted(p.name for p in GAMES_DIR.glob("game*") if (p / "frames.jsonl").is_file())
    ok_all = True
    missing = [n for n in names if not Path(n).is_dir() and not (GAMES_DIR / n).is_dir()]
    if missing:
        print(
            f"live_replay_games: no game folder {', '.join(map(repr, missing))} (neither a folder nor a game in "
            f"{GAMES_DIR}; held-out games are made by python bench/make_game_fixtures.py --held-out)",
            file=sys.stderr,
        )
        return 2
    for name in names:
        folder = Path(name) if Path(name).is_dir() else GAMES_DIR / name
        name = folder.name
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli(["replay", str(folder), "--json", "--strategy", args.strategy])
        lines = out.getvalue().splitlines()
        summary = json.loads(lines[-1])["summary"]
        frames = [json.loads(ln) for ln in lines[:-1]]
        detect = sorted(f["ms"]["detect"] for f in frames if "ms" in f and "detect" in f["ms"])
        inconsistent = sum(1 for f in frames if f.get("report") == "inconsistent")
        print(
            f"{name}: {summary['moves']} of {summary.get('expected_moves')} moves inferred, "
            f"all as logged: {summary.get('matches_expected')} (in the logged order: "
            f"{summary.get('in_logged_order')}), moves from hand frames: "
            f"{len(summary['moves_from_hand_frames'])}, reads {summary['reads']} of {summary['frames']} frames, "
            f"'not legal' reports {inconsistent}, detector median {detect[len(detect) // 2] if detect else 0:.0f} ms, "
            f"{summary['seconds']:.0f} s"
            + ("" if summary.get("matches_expected") else f"; first difference {summary.get('first_difference')}"),
            flush=True,
        )
        ok_all &= code == 0
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
