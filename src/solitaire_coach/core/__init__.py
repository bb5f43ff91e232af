"""The pure game core: no I/O, no imports from vision, capture or app."""

from .cards import FULL_DECK, Card, CardParseError
from .moves import IllegalMoveError, Move, MoveKind, MoveParseError
from .notation import (
    EMPTY,
    UNKNOWN,
    DealParseError,
    GameLog,
    LogParseError,
    Snapshot,
    SnapshotParseError,
    format_deal,
    format_log,
    parse_deal,
    parse_deals,
    parse_log,
    parse_snapshot,
)
from .rules import DEFAULT_RULES, Rules
from .state import GameState, check_position, deal_for_seed, random_deal

__all__ = [
    "Card",
    "CardParseError",
    "FULL_DECK",
    "IllegalMoveError",
    "Move",
    "MoveKind",
    "MoveParseError",
    "DEFAULT_RULES",
    "Rules",
    "GameState",
    "check_position",
    "deal_for_seed",
    "random_deal",
    "EMPTY",
    "UNKNOWN",
    "GameLog",
    "Snapshot",
    "SnapshotParseError",
    "parse_snapshot",
    "parse_deal",
    "parse_deals",
    "format_deal",
    "parse_log",
    "format_log",
    "DealParseError",
    "LogParseError",
]
