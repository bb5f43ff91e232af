"""The rule options of a Klondike game, as one immutable value."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import is_whole_number

MAX_REDEAL_LIMIT = 1000
"""The largest finite redeal limit a game may have (the C solver takes an ``int``; more
than this is as good as unlimited): ``Rules``, ``--redeals`` and a journal's rules hold to it."""


@dataclass(frozen=True)
class Rules:
    """Klondike rule options.

    The defaults are the original design's rules: draw one card at a time, turn the
    waste over into a new stock at most 3 times (4 passes through the stock), and a
    card on a foundation never comes back to the tableau.

    ``redeal_limit`` is the number of times the waste may be turned over; ``None``
    means unlimited.
    """

    draw_count: int = 1
    redeal_limit: int | None = 3
    foundation_return: bool = False

    def __post_init__(self) -> None:
        if not is_whole_number(self.draw_count) or self.draw_count not in (1, 3):
            raise ValueError(f"draw count must be 1 or 3, not {self.draw_count!r}")
        if self.redeal_limit is not None and not (
            is_whole_number(self.redeal_limit) and 0 <= self.redeal_limit <= MAX_REDEAL_LIMIT
        ):
            raise ValueError(
                f"redeal limit must be a whole number 0 to {MAX_REDEAL_LIMIT} (or None: unlimited), "
                f"not {self.redeal_limit!r}"
            )
        if not isinstance(self.foundation_return, bool):
            raise ValueError(f"foundation return must be True or False, not {self.foundation_return!r}")

    def describe(self) -> str:
        """The rules in words: ``draw 1, 3 redeals``."""
        redeals = "unlimited redeals" if self.redeal_limit is None else f"{self.redeal_limit} redeals"
        back = ", foundation cards may come back" if self.foundation_return else ""
        return f"draw {self.draw_count}, {redeals}{back}"

    def redeals_left(self, used: int) -> int | None:
        """How many more times the waste may be turned over (None: unlimited)."""
        return None if self.redeal_limit is None else max(0, self.redeal_limit - used)


DEFAULT_RULES = Rules()
