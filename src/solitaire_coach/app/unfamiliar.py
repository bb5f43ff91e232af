"""Say once, plainly, when the deck on the table is one the card reader does not know.

The detector gives, for each picture with enough face-up cards, the share of them it read
sure (``DetectionResult.sure_share``). An ordinary deck reads most of its cards sure on a
real camera (a median of 0.93 a picture on the real webcam layouts; 0.92-1.0 on ordinary
rendered designs never trained on); a design the reader has never seen reads few (0.0-0.45
for the unusual held-out designs: tango_nuevo, the nicu and ornamental designs, a deck
with no small suit). Its unsure cards are left unread, never guessed, so the coach keeps
asking to look again: where the median share of the last pictures stays under
:data:`UNFAMILIAR_SHARE`, the person is told once why, and how to teach the deck
(``learn-deck``). Figures: bench/RESULTS.md, "Unfamiliar decks" (2026-11-27).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

# the median share of sure reads under which a deck counts as unfamiliar
UNFAMILIAR_SHARE = 0.5
# how many pictures (with enough face-up cards) the median is taken over, and the least
# number of them before anything is said
PICTURES = 8
LEAST_PICTURES = 5


@dataclass
class DeckFamiliarity:
    """The recent pictures' shares of sure reads, and whether the notice was given.

    ``deck``: the learnt deck in use (``--deck``), if any: its notice asks to learn it again."""

    deck: str | None = None
    shares: list[float] = field(default_factory=list)
    said: bool = False

    def observe(self, share: float | None) -> str | None:
        """Take one picture's share of sure reads (None: too few face-up cards to tell);
        the notice, the first time the deck reads as unfamiliar, else None."""
        if share is None or self.said:
            return None
        self.shares = (self.shares + [float(share)])[-PICTURES:]
        if len(self.shares) < LEAST_PICTURES:
            return None
        median = statistics.median(self.shares)
        if median >= UNFAMILIAR_SHARE:
            return None
        self.said = True
        return notice(median, len(self.shares), self.deck)


def notice(median: float, pictures: int, deck: str | None) -> str:
    """The words for a deck that reads ``median`` of its face-up cards sure over ``pictures``."""
    how = f"only {round(100 * median)}% of its face-up cards read with confidence over the last {pictures} pictures"
    if deck is not None:
        return (
            f"the learnt deck {deck!r} does not match the cards on the table ({how}); cards not read "
            f"sure are left unread, never guessed. Learn it again from a sharper photo of its 52 cards "
            f"taken straight from above: solitaire-coach learn-deck PHOTO --name {deck}"
        )
    return (
        f"this deck's design is new to the card reader ({how}); cards not read sure are left "
        "unread, never guessed, so the coach will often ask to look again. Teach it the deck once: "
        "solitaire-coach learn-deck PHOTO --name NAME (a photo of its 52 cards face up in 4 rows of 13: "
        "clubs, diamonds, hearts, spades, ace to king), then play with --deck NAME"
    )
