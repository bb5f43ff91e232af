"""Argument types for the command line: each turns a bad value into a usage error that
names the value and what was wanted (argparse adds the option's name), never a traceback.

    p.add_argument("--count", type=positive_int)
    p.add_argument("--think-time", type=positive_float)
    p.add_argument("--strategy", type=strategy_name)
"""

from __future__ import annotations

import argparse


def _number(text: str, kind: type, what: str):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_int(text: str) -> int:
    """A whole number of at least 1."""
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: it must be at least 1")
    return value


def non_negative_int(text: str) -> int:
    """A whole number of at least 0."""
    value = _number(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: it must be 0 or more")
    return value


def positive_float(text: str) -> float:
    """A number above 0 (not NaN or infinite)."""
    value = _number(text, float, "a number")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not allowed: it must be a number above 0")
    return value


def strategy_name(text: str) -> str:
    """The name of a registered advisor strategy."""
    from ..core.advisor import strategy_names

    if text not in strategy_names():
        raise argparse.ArgumentTypeError(f"unknown strategy {text!r}; known: {', '.join(strategy_names())}")
    return text


def non_negative_float(text: str) -> float:
    """A number of 0 or more (not NaN or infinite)."""
    value = _number(text, float, "a number")
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not allowed: it must be a number of 0 or more")
    return value


def at_most(kind, maximum, unit: str = ""):
    """The argument type ``kind`` (one of the above) that also refuses a value above
    ``maximum`` (infinity included), saying the maximum: for a value the code behind the
    option cannot take (a C ``long long``, a table size), not an OverflowError later.

        p.add_argument("--memory-mb", type=at_most(positive_float, 1_048_576, " MB"))
    """

    def parse(text: str):
        try:
            big = float(text) > maximum  # before kind(), which refuses inf as "not above 0"
        except (ValueError, OverflowError):  # not a number: kind() says so
            big = False
        if big:
            raise argparse.ArgumentTypeError(f"{text} is too large: at most {maximum:,}{unit}")
        value = kind(text)
        if value > maximum:
            raise argparse.ArgumentTypeError(f"{text} is too large: at most {maximum:,}{unit}")
        return value

    parse.__name__ = kind.__name__
    return parse
