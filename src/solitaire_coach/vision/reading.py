"""From the card detector's list of cards to what the live coach gives the tracker.

The detector reports every card it saw (face up or back, whole or a fanned strip), each
with its slot, outline and confidence, and -- when it is allowed to guess -- its best
card even when unsure. :func:`reading_of` turns that list into a :class:`Reading`:

* ``snapshot`` -- the 12 slots (and each column's readable run) using only cards read
  with at least the detector's own confidence threshold; an unsure face is ``UU``;
* ``guesses`` -- for each slot whose top face was unsure: the best card and its
  confidence. A guess is weak evidence: the coach uses one only when the game's
  position confirms it (the card expected there) or when the tracker can explain the
  whole read with it.

Nothing here knows the rules; it only sorts cards by slot and position, the way the
detector builds its own snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..core.cards import Card
from ..core.notation import EMPTY, UNKNOWN, SlotValue, Snapshot
from .detector import cluster_positions

SLOT_INDEX = {"waste": 0, **{f"foundation {i}": i for i in range(1, 5)}, **{f"column {i}": 4 + i for i in range(1, 8)}}


@dataclass(frozen=True)
class Guess:
    """The best card for an unsure face, and how sure the reader was of it."""

    card: Card
    confidence: float


@dataclass(frozen=True)
class Reading:
    """A frame as the coach reads it: the sure snapshot and the guesses for unsure top faces."""

    snapshot: Snapshot
    guesses: dict[int, Guess] = field(default_factory=dict)  # slot index -> best card of an unsure top face

    def filled(self, indices=None) -> Snapshot:
        """The snapshot with the guesses put in (all of them, or those at ``indices``);
        a guess of a card that is read surely elsewhere is left out."""
        slots = list(self.snapshot.slots)
        sure = {v for v in slots if isinstance(v, Card)}
        for i, g in self.guesses.items():
            if (indices is None or i in indices) and slots[i] is UNKNOWN and g.card not in sure:
                slots[i] = g.card
                sure.add(g.card)
        return replace(self.snapshot, slots=tuple(slots))


def _xy(card) -> tuple[float, float]:
    """The card's top-left corner in the picture."""
    q = _quad(card)
    return float(q[0, 0]), float(q[0, 1])


def reading_of(detection, sure: float | None, sure_strip: float | None = None) -> Reading:
    """The :class:`Reading` of a detector result. ``sure``: the confidence a face needs to
    count as read (the detector's own threshold); ``sure_strip``: the same for a card of
    which only the strip left by the next card shows (default ``sure``); None: take the
    detector's snapshot as it is (a reader that does not guess)."""
    cards = list(getattr(detection, "cards", []) or [])
    if sure is None or not cards or not all(hasattr(c, "face_up") for c in cards):
        return Reading(detection.snapshot)
    by_slot: dict[str, list] = {}
    for c in cards:
        by_slot.setdefault(c.slot, []).append(c)

    def value(c) -> tuple[SlotValue, Guess | None]:
        if not c.face_up:
            return UNKNOWN, None
        need = sure_strip if sure_strip is not None and getattr(c, "strip", False) else sure
        if c.card is not None and c.confidence >= need:
            return c.card, None
        return UNKNOWN, (Guess(c.card, float(c.confidence)) if c.card is not None else None)

    slots: list[SlotValue] = [EMPTY] * 12
    guesses: dict[int, Guess] = {}
    waste = [c for c in by_slot.get("waste", []) if c.face_up]
    if waste:
        slots[0], g = value(max(waste, key=lambda c: _xy(c)[0]))
        if g is not None:
            guesses[0] = g
    for f in range(1, 5):
        ms = by_slot.get(f"foundation {f}", [])
        if ms:
            slots[f], g = value(max(ms, key=lambda c: c.confidence))
            if g is not None:
                guesses[f] = g
    runs: list[tuple[Card, ...] | None] = []
    for col in range(1, 8):
        ms = sorted(by_slot.get(f"column {col}", []), key=lambda c: _xy(c)[1])
        if not ms:
            runs.append(None)
            continue
        i = 4 + col
        slots[i], g = value(ms[-1])
        if g is not None:
            guesses[i] = g
        run: list = []
        for c in ms:
            run = [] if not c.face_up else run + [c]
        runs.append(tuple(c.card for c in run) if run and all(value(c)[0] is c.card for c in run) else None)
    return Reading(Snapshot(tuple(slots), tuple(runs)), guesses)


# ----------------------------------------------------------------------------- slots
def _quad(card) -> np.ndarray:
    return np.asarray(card.quad, np.float32).reshape(-1, 2)


class SlotGrid:
    """Which pile each card lies in, from where the columns are.

    The layout is a grid of seven places: stock, waste, (gap), four foundations on the
    upper row; seven columns below, under the same places. How far apart the places are,
    in card widths, is a property of the table (fixed for a game); it is learnt from a
    read showing all seven columns (a fresh deal does). Then, in each read, the columns'
    left edges are fitted to seven evenly spaced places of that pitch (the cards' width
    in the picture gives the scale, so a camera moved nearer or farther is followed), and
    every card takes the slot of its place. ``occupied`` (which columns the game has
    cards in) breaks near ties, for a read that shows only a few columns.

    It keeps the detector's split between the upper row and the columns and only
    re-places cards sideways: the detector's own guess of the grid, made afresh on every
    picture, can shift a whole row by one place when the stock sits left of column 1 or
    few columns are left."""

    UPPER_FACES = np.array([1.0, 3.0, 4.0, 5.0, 6.0])  # places of the waste and the four foundations
    STRAY = 1.0  # the cost of leaving a pile of backs out as a stray (a place's misfit is at most 0.5)

    def __init__(self) -> None:
        self.pitch_ratio: float | None = None  # place-to-place distance / card width

    @staticmethod
    def _piles(xs: list[float], width: float) -> tuple[list[list[int]], list[float]]:
        """Column cards grouped into piles by their left edges ``xs``: the groups (indices
        into ``xs``) and each pile's median left edge."""
        groups = cluster_positions(xs, 0.5 * width)
        return groups, [float(np.median([xs[i] for i in g])) for g in groups]

    @staticmethod
    def _width(cards) -> float | None:
        ws = [float(_quad(c)[1, 0] - _quad(c)[0, 0]) for c in cards if c.slot.startswith("column")]
        return float(np.median(ws)) if ws else None

    def learn(self, cards) -> bool:
        """Take the pitch from a read whose columns show seven evenly spaced piles."""
        w = self._width(cards)
        low = [c for c in cards if c.slot.startswith("column")]
        if w is None or not low:
            return False
        groups, centres = self._piles([_xy(c)[0] for c in low], w)
        if len(groups) != 7:
            return False
        gaps = np.diff(centres)
        pitch = float(np.median(gaps))
        if pitch < 1.02 * w or np.any(np.abs(gaps - pitch) > 0.2 * pitch):
            return False
        self.pitch_ratio = pitch / w
        return True

    def place(self, cards, occupied: list[bool] | None = None) -> list | None:
        """The cards with their slots re-placed on the fitted grid, or None when it
        cannot say (no pitch learnt yet, no column seen)."""
        if self.pitch_ratio is None:
            return None
        w = self._width(cards)
        low = [k for k, c in enumerate(cards) if c.slot.startswith("column")]
        if w is None or not low:
            return None
        pitch = self.pitch_ratio * w
        groups, centres = self._piles([_xy(cards[k])[0] for k in low], w)
        centres = np.array(centres)
        stock = [float(_quad(c)[0, 0]) for c in cards if c.slot == "stock"]
        # every origin that puts some column pile on some place, scored at once; a pile
        # that lands off the seven places, or on a place another pile fits better, is left
        # out at a cost, small for a pile of card backs only (a stray detection beside the
        # layout, such as a striped cloth taken for card backs, must not shift every pile
        # by one place), prohibitive for a pile showing a face
        x0s = (centres[:, None] - np.arange(7)[None, :] * pitch).ravel()
        ks = np.rint((centres[None, :] - x0s[:, None]) / pitch).astype(int)  # origins x piles
        resid = np.abs(centres[None, :] - x0s[:, None] - ks * pitch) / pitch
        keep = (ks >= 0) & (ks <= 6)
        for a in range(len(centres)):  # of two piles on one place, the nearer stays
            for b in range(len(centres)):
                if a != b:
                    worse = (ks[:, a] == ks[:, b]) & (
                        (resid[:, a] > resid[:, b]) | ((resid[:, a] == resid[:, b]) & (a > b))
                    )
                    keep[:, a] &= ~worse
        # a pile of card backs only may be a stray; one showing a face is a column
        stray = np.array(
            [10.0 if any(getattr(cards[low[i]], "face_up", True) for i in g) else self.STRAY for g in groups]
        )
        cost = np.where(keep, resid, stray[None, :]).sum(1)
        if stock:
            cost += np.minimum(2.0, np.abs(min(stock) - x0s) / pitch)
        # the faces on the upper row lie on the waste's place or a foundation's (places 1
        # and 3-6): an origin that puts one on the stock's place, the gap or off the row
        # is worse (with one column left, a card back taken for the stock beside the
        # layout must not pull the column one place over)
        upper = np.array(
            [float(_quad(c)[0, 0]) for c in cards if not c.slot.startswith("column") and getattr(c, "face_up", True)]
        )
        if upper.size:
            places = (upper[None, :] - x0s[:, None]) / pitch  # origins x faces
            off = np.min(np.abs(places[:, :, None] - self.UPPER_FACES[None, None, :]), axis=2)
            cost += np.minimum(1.0, off).sum(1)
        if occupied is not None:
            occ = np.asarray(occupied, bool)
            hit = np.zeros((len(x0s), 7), bool)
            rows = np.repeat(np.arange(len(x0s)), ks.shape[1])
            inside = keep.ravel()
            hit[rows[inside], ks.ravel()[inside]] = True
            cost += 0.3 * (hit & ~occ).sum(1) + 0.3 * (~hit & occ).sum(1)
        best = int(np.argmin(cost))  # the first of equal costs
        x0, kept, ks = float(x0s[best]), keep[best].tolist(), ks[best].tolist()
        if not any(kept):
            return None
        # the fitted origin, from all the columns kept at once
        x0 = float(np.mean([x - k * pitch for x, k, on in zip(centres, ks, kept) if on]))
        slot_of: dict[int, str | None] = {}
        for g, k, on in zip(groups, ks, kept):
            for i in g:
                slot_of[low[i]] = f"column {k + 1}" if on else None
        out = []
        for n, c in enumerate(cards):
            if n in slot_of:
                slot = slot_of[n]
                if slot is None:
                    continue  # a stray pile off the grid
            elif c.slot.startswith("column"):
                slot = c.slot
            else:
                k = int(round((float(_quad(c)[0, 0]) - x0) / pitch))
                if k <= 0 and not getattr(c, "face_up", True):
                    slot = "stock"
                elif k <= 2:
                    slot = "waste"
                else:
                    slot = f"foundation {min(4, k - 2)}"
            out.append(c if slot == c.slot else replace(c, slot=slot))
        return out
