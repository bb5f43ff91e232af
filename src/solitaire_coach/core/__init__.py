"""The pure game core: no I/O, no imports from vision, capture or app."""

from .cards import Card, CardParseError, FULL_DECK
from .moves import IllegalMoveError, Move, MoveKind, MoveParseError
from .rules import DEFAULT_RULES, Rules
from .state import GameState, check_position, deal_for_seed, random_deal
from .notation import (EMPTY, UNKNOWN, GameLog, Snapshot, SnapshotParseError, parse_snapshot, parse_deal,
                       parse_deals, format_deal, parse_log, format_log, DealParseError, LogParseError)

__all__ = [
    "Card", "CardParseError", "FULL_DECK", "IllegalMoveError", "Move", "MoveKind", "MoveParseError",
    "DEFAULT_RULES", "Rules", "GameState", "check_position", "deal_for_seed", "random_deal", "EMPTY", "UNKNOWN",
    "GameLog", "Snapshot", "SnapshotParseError", "parse_snapshot", "parse_deal", "parse_deals", "format_deal",
    "parse_log", "format_log",
    "DealParseError", "LogParseError",
]
