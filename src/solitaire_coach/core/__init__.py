"""The pure game core: no I/O, no imports from vision, capture or app."""

from .cards import Card, CardParseError, FULL_DECK
from .moves import IllegalMoveError, Move, MoveKind, MoveParseError
from .rules import DEFAULT_RULES, Rules
from .state import GameState, deal_for_seed, random_deal
from .notation import (EMPTY, UNKNOWN, Snapshot, SnapshotParseError, parse_snapshot, parse_deal, format_deal,
                       parse_log, format_log, DealParseError, LogParseError)

__all__ = [
    "Card", "CardParseError", "FULL_DECK", "IllegalMoveError", "Move", "MoveKind", "MoveParseError",
    "DEFAULT_RULES", "Rules", "GameState", "deal_for_seed", "random_deal", "EMPTY", "UNKNOWN", "Snapshot",
    "SnapshotParseError", "parse_snapshot", "parse_deal", "format_deal", "parse_log", "format_log",
    "DealParseError", "LogParseError",
]
