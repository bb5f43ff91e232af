"""``demo``: replay a built-in recorded game (``fixtures/games``) through the whole coach,
to see it work with no camera."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .cmd_replay import _replay_args, run_replay
from .errors import CommandError

DEMO_GAME = "game1"


def register(sub) -> None:
    """Add the ``demo`` command to ``sub``."""
    d = sub.add_parser(
        "demo",
        help="replay a built-in recorded game: see the coach work with no camera",
        description="Replay a built-in recorded game through the whole coach: see it work with no camera.",
    )
    d.add_argument(
        "--game",
        type=builtin_game,
        default=DEMO_GAME,
        help=f"which built-in game: {', '.join(builtin_games()) or DEMO_GAME} (default {DEMO_GAME})",
    )
    _replay_args(d)
    d.set_defaults(func=cmd_demo, fps=5.0)  # unused: every built-in game lists its frames in frames.jsonl


def cmd_demo(args) -> int:
    """``demo``: replay one of the built-in recorded games."""
    game = builtin_game_dir(args.game)
    print(
        f"demo: replaying the recorded game {game.name} ({game}) through the whole coach: detect, track, advise",
        file=sys.stderr if args.json else sys.stdout,
        flush=True,
    )
    return run_replay(args, game)


def builtin_games_dir() -> Path | None:
    """The built-in recorded games: ``fixtures/games`` among the shipped folders (inside
    the installed package, or the repository's own for an editable install; see
    :mod:`solitaire_coach.repo`), or None when it is not there."""
    from ..repo import repo_root

    candidate = repo_root() / "fixtures" / "games"
    return candidate if candidate.is_dir() else None


def builtin_games() -> list[str]:
    """The names of the built-in recorded games (the folders of ``fixtures/games``)."""
    base = builtin_games_dir()
    return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")) if base else []


def builtin_game(text: str) -> str:
    """``--game``: the name of a built-in game (checked when the built-in games are there)."""
    games = builtin_games()
    if games and text not in games:
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; the built-in games: {', '.join(games)}")
    return text


def builtin_game_dir(name: str = DEMO_GAME) -> Path:
    """The folder of built-in recorded game ``name``: ``fixtures/games/NAME``."""
    base = builtin_games_dir()
    if base is None:
        from ..repo import repo_root

        raise CommandError(
            f"the built-in games were not found in {repo_root() / 'fixtures' / 'games'} "
            "(a wheel built from a clone carries them; reinstall with pip install .)"
        )
    if name not in builtin_games():
        raise CommandError(f"unknown game {name!r}; the built-in games: {', '.join(builtin_games())}")
    return base / name
