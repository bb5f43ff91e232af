"""The ``best`` strategy: hindsight optimisation over sampled layouts of the unseen cards.

The strategy sees only what the tracker knows: in its :class:`GameState` every card
the player has not seen (face-down tableau cards, stock cards not yet turned) is
``None``, and it never looks anywhere else. For each decision it

1. answers at once when the position decides it: the game is won, a column is
   waiting for a flip, no move is left (proven lost), a card may go to the
   foundation with no possible loss (a *safe* move: its tableau children are on
   the foundations already; in draw 3 only from a column, as taking a waste card
   shifts the talon's draws of three), or only one move is legal;
2. when every card is known, solves the position exactly (the full-information
   solver) and follows the solution, saying the game is won and how many moves are
   left, or that it is lost; with at most ``prove`` cards unseen (5 by default), lists
   every arrangement of them and says the game is lost when each is lost, or won when one
   line, choosing each move from what the player sees, wins them all, and follows that
   line (:mod:`.proof`);
3. otherwise deals the unseen cards at random into their places many times (every
   layout consistent with what has been seen is equally likely), solves each layout
   after each candidate move with a small node budget, and plays the move that wins
   most layouts (ties broken by a fixed order of preference). An unknown result
   (budget spent) counts half a win, or in draw 1 (``graded``: ``DEFAULT_GRADED``) the
   measured share of such layouts won at the distance to a win its search reached.
   Every move still in the running is searched on the same layouts; from the
   ``min_samples``-th layout (12 in draw 1, 4 in draw 3: ``DEFAULT_MIN_SAMPLES``) a move
   whose mean trails the leader's by more than
   ``drop / sqrt(layouts so far)`` is dropped, so the layouts left (up to
   ``samples``) go to the moves that are close: a decision between near-equal moves
   gets many layouts, a clear one few. A move that turns up an unseen card (a flip, or
   the draw of an unseen stock card) gets ``reveal_bonus`` on top of its mean (by default
   0.03 in draw 1; none in draw 3, where it measured no better: ``DEFAULT_REVEAL_BONUS``):
   the solver sees every card of a layout, so the search alone gives looking before
   committing no value.

A search over the player's information sets several moves deep (``uct`` > 0 kept
layouts; by default 48 in draw 3, off in draw 1: ``DEFAULT_UCT``): UCT over sampled
layouts, each close move's subtree searched on the same kept layouts, a node per view the player can
tell apart (a reveal is a chance node), UCB1 among a node's moves, the solver's score at
the leaves (``_uct_values``).

Options that measured no better were removed from the code (commit ``33971e0`` still has
them; their runs are in bench/RESULTS.md): a one-move look-ahead (``look``), a two-move
search over information sets (``tree``, ``tree_blend``), turning the stock in a near-tie
(``draw_margin``, ``known_draw_margin``) or charging a turn that shows nothing
(``known_turn_charge``), looking through the whole stock first (``scout``), the search
taking the stock as its plays (``uct_stock``), charging wins that need every pass left
(``tight_passes``) and the solver's relaxation on every layout (``relax``); commit ``99c8b05``
has two more: a close move valued by a line a player can follow to the next card it shows
(``lines``) and the reveal bonus for flips only (``reveal_stock``); commit ``80dd5cf`` four
(``uct_unseen_charge``, ``uct_paths``, ``uct_backup``, ``reveal_depth``); commit ``612c08d`` two
more: the same layouts for decisions with no card turned up between them (``same_layouts``)
and, in draw 1, a turn of the known stock split into one candidate for each card of the pass
it could bring up and play (``stock_plays``); commit ``655c5ab`` the reveal bonus of a flip
set apart from that of a turn of the stock (``flip_bonus``); commit ``0486a9c`` a run moved
between two equal parents counted as useful when the card it uncovers can take the moved
run's twin (``twin``); commit ``895bf10`` a waste card put on a column valued apart
(``waste_charge``).

When every move only repeats an earlier position of the game, it turns the stock once
more (at most once per position) rather than give up: back at a position where a card
was passed by, the move taken then is no longer new, so another one is chosen. That
memory of the game is kept by the number of moves (a take-back forgets only what came
after it) and journalled by the coach, so a restart changes no advice
(:class:`BestStrategy`, "The memory of a game").

The random numbers come from a generator seeded with the strategy's ``seed`` and
the visible position only, so the advice depends on nothing the player cannot see
(and is the same every time for the same position). ``think_time`` bounds the
sampling of one decision in seconds (at least ``min_samples`` layouts are always
searched).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .advisor import Advice, describe_move, terminal_advice
from .cards import KING, SUIT_SYMBOLS, Card
from .moves import Move, MoveKind
from .notation import state_from_dict, state_to_dict
from .proof import ProofSearch, fill_unseen
from .rules import Rules
from .solver import solve
from .state import GameState

_STOCK_KINDS = (MoveKind.DRAW, MoveKind.REDEAL)
LOOKS_LOST = "game looks lost"  # said after "wins 0 of N sampled layouts" when each was proven lost
REASON_MAX = 110  # characters: two lines of the live picture at 1280x720, read at a glance


def is_safe_foundation_card(state: GameState, card: Card) -> bool:
    """True if ``card`` may go to its foundation with no possible loss: an ace or a two,
    or a card whose two possible tableau children (the opposite colour, one lower)
    are on the foundations already. Needs the foundation to accept the card. (For a card
    on the waste in draw 3 the move can still lose: see ``is_safe_foundation_move``.)"""
    if state.foundations[card.suit] + 1 != card.rank:
        return False
    if card.rank <= 2:
        return True
    other = (0, 3) if card.is_red else (1, 2)
    return all(state.foundations[s] >= card.rank - 1 for s in other)


def _visible_key(state: GameState) -> str:
    """A text naming the visible position (unknown cards as ``??``); seeds the sampling."""

    def c(card):
        return "??" if card is None else card.code

    cols = "|".join(
        " ".join(c(x) for x in state.hidden[i]) + "/" + " ".join(x.code for x in state.faceup[i]) for i in range(7)
    )
    return (
        f"{cols}#{' '.join(c(x) for x in state.stock)}#{' '.join(c(x) for x in state.waste)}"
        f"#{state.foundations}#{state.redeals_used}#{state.rules}"
    )


def sample_layout(state: GameState, rng: random.Random) -> GameState:
    """A full layout consistent with ``state``: its unknown cards replaced by a random
    arrangement of the cards not seen anywhere."""
    unseen = state.unseen_cards()
    rng.shuffle(unseen)
    return fill_unseen(state, unseen)


def is_useful(state: GameState, move: Move) -> bool:
    """False for column-to-column moves that achieve nothing by themselves: a run moved
    between two equal parents, uncovering a card that cannot go to the foundation, or
    emptying a column when no king is left to fill it."""
    if move.kind is not MoveKind.COLUMN_TO_COLUMN:
        return True
    run = state.faceup[move.source]
    n = len(state.moving_cards(move))
    if n == len(run):
        if state.hidden[move.source]:
            return True
        return _king_wants_column(state)
    below = run[len(run) - n - 1]
    return state.foundations[below.suit] + 1 == below.rank


def is_pointless_return(state: GameState, move: Move) -> bool:
    """True for a card brought back from its foundation (``--foundation-return``) that would
    be a safe foundation card there (``is_safe_foundation_card``: an ace or a two, or a card
    whose two possible tableau children are on the foundations): the safe foundation move,
    played first, puts it straight back, so the return only loops. Such a return is never
    advised: a draw, the return and the card put back up made a loop the advisor called
    "the only move that makes progress" (measured: draw 1, unlimited redeals, returns
    allowed, seeds 1-10: 272 of 365 returns were aces and twos, and 3♥ came back and went
    up again 15 times in seed 9)."""
    if move.kind is not MoveKind.FOUNDATION_TO_COLUMN:
        return False
    suit = move.source
    card = Card(state.foundations[suit], suit)
    lowered = tuple(h - (s == suit) for s, h in enumerate(state.foundations))
    return is_safe_foundation_card(replace(state, foundations=lowered), card)  # type: ignore[arg-type]


def _king_wants_column(state: GameState) -> bool:
    """True unless every king is known to head a column already or is on a foundation."""
    placed = sum(1 for i in range(7) if not state.hidden[i] and state.faceup[i] and state.faceup[i][0].rank == 13)
    done = sum(1 for h in state.foundations if h == 13)
    return placed + done < 4


def _preference(state: GameState, move: Move) -> int:
    """Tie-break order (lower first): foundation, freeing a face-down card, others, stock."""
    k = move.kind
    if k is MoveKind.COLUMN_TO_FOUNDATION:
        return 0 if (len(state.faceup[move.source]) == 1 and state.hidden[move.source]) else 2
    if k is MoveKind.COLUMN_TO_COLUMN:
        run = state.faceup[move.source]
        if len(state.moving_cards(move)) == len(run):
            return 1 if state.hidden[move.source] else 4
        return 5
    if k is MoveKind.WASTE_TO_FOUNDATION:
        return 2
    if k is MoveKind.WASTE_TO_COLUMN:
        return 3
    if k in _STOCK_KINDS:
        return 6
    return 7


def explain(state: GameState, move: Move, short: bool = False) -> str:
    """Why a move helps, in a few words a person understands; ``short`` (for a reason with a
    long extra): a foundation move says only what it frees or empties, or else leaves out
    why no card can ever need the card."""
    k = move.kind
    if k is MoveKind.DRAW:
        shown = state.play(move).waste[-1]
        if _next_stock_card_unseen(state) or shown is None:
            if any(m.kind not in _STOCK_KINDS for m in state.legal_moves()):
                return "see what the stock holds before committing a card"
            return "nothing on the table can move: see what the stock holds"
        return _known_turn_reason(state, move)
    if k is MoveKind.REDEAL:
        return "the stock is used up: go through it again"
    cards = state.moving_cards(move)
    card = cards[0]
    if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.COLUMN_TO_FOUNDATION):
        effect = ""
        if k is MoveKind.COLUMN_TO_FOUNDATION and len(state.faceup[move.source]) == 1:
            effect = (
                f"frees a face-down card in column {move.source + 1}"
                if state.hidden[move.source]
                else f"empties column {move.source + 1}"
            )
        if short and effect:
            return effect
        text = f"the {card.symbol} is needed on the foundation"
        if is_safe_foundation_move(state, move):
            text = f"the {card.symbol} can go up safely" + ("" if short else ": no card can ever need it")
        elif is_safe_foundation_card(state, card) and not short:  # a draw-3 waste card: see is_safe_foundation_move
            text += ", and no card can ever need it"
        return f"{text}, and it {effect}" if effect else text
    if k is MoveKind.COLUMN_TO_COLUMN:
        run = state.faceup[move.source]
        if len(cards) == len(run):
            if state.hidden[move.source]:
                return f"frees a face-down card in column {move.source + 1}"
            return f"empties column {move.source + 1} for a king"
        below = run[len(run) - len(cards) - 1]
        if state.foundations[below.suit] + 1 == below.rank:
            return f"uncovers the {below.symbol} for the foundation"
        return f"uncovers the {below.symbol} in column {move.source + 1}"
    if k is MoveKind.WASTE_TO_COLUMN:
        if not state.faceup[move.target]:
            return f"gives the {card.symbol} the empty column {move.target + 1}"
        if len(state.waste) < 2:  # no card under it to reach
            return f"plays the {card.symbol} from the waste"
        under = state.waste[-2]
        return f"plays the {card.symbol} from the waste to reach the {under.symbol if under else 'card'} under it"
    taker = _taker_of_return(state, move, card)
    if taker:
        return f"brings the {card.symbol} back to hold {taker}"
    return f"brings the {card.symbol} back from the {SUIT_SYMBOLS[card.suit]} foundation"


def _taker_of_return(state: GameState, move: Move, card: Card) -> str:
    """For a card brought back from its foundation: the seen card that can go on it once it
    lies in its column, in words ("the 5♥ from the waste", "... from column 3", "... in the
    stock"), looked for in that order; empty when no seen card can."""

    def fits(other: Card | None) -> bool:
        return other is not None and other.goes_on_tableau(card)

    if state.waste and fits(state.waste[-1]):
        return f"the {state.waste[-1].symbol} from the waste"  # type: ignore[union-attr]
    for column, run in enumerate(state.faceup):
        held = next((c for c in run if fits(c)), None) if column != move.target else None
        if held is not None:
            return f"the {held.symbol} from column {column + 1}"
    for other in (*state.stock, *state.waste[:-1]):
        if fits(other):
            return f"the {other.symbol} in the stock"  # type: ignore[union-attr]
    return ""


def reason_for(state: GameState, move: Move, extra: str = "") -> str:
    """The reason for ``move``: ``explain`` and ``extra`` (a proof, a count of layouts won);
    with a foundation move's short explanation when the whole would pass ``REASON_MAX``."""
    reason = "; ".join(filter(None, (explain(state, move), extra)))
    if len(reason) > REASON_MAX:
        reason = "; ".join(filter(None, (explain(state, move, short=True), extra)))
    return reason


def _use_for(state: GameState, card: Card) -> str:
    """Where ``card`` could be played in ``state`` now, in words ("for the foundation"),
    or "" when it fits nowhere."""
    if state.foundations[card.suit] + 1 == card.rank:
        return "for the foundation"
    for column, run in enumerate(state.faceup):
        if run and card.goes_on_tableau(run[-1]):
            return f"to go on the {run[-1].symbol} in column {column + 1}"
        if not run and not state.hidden[column] and card.rank == KING:
            return f"for the empty column {column + 1}"
    return ""


def _known_turn_reason(state: GameState, move: Move) -> str:
    """Why turn the stock when the card it brings up is known: that card can be played, a
    later card of this pass can, or the turn only goes through the stock (said so)."""
    after = state.play(move)
    card = after.waste[-1]
    use = _use_for(state, card)  # type: ignore[arg-type]
    if use:
        return f"brings up the {card.symbol} {use}"  # type: ignore[union-attr]
    while after.stock:  # the cards later turns of this pass bring to the top of the waste
        after = after.play(Move.draw())
        later = after.waste[-1]
        if later is not None and _use_for(state, later):
            return f"goes on toward the {later.symbol} in the stock, playable now"
    return "goes through the stock: nothing this pass can be played yet"


def go_round_reason(state: GameState) -> str:
    """Why turn the stock once more when every move repeats an earlier position: a card
    passed by in the talon (not the waste's top) that can be played now, named, or only
    that nothing else is new (then no card is claimed). With no redeal left the turns only
    go on through the stock: the waste's cards never come round again, so only a card in
    the stock is named."""
    if state.stock and state.redeals_left() == 0:
        for card in state.stock:
            if card is not None and _use_for(state, card):
                return f"keep turning: the {card.symbol} in the stock is playable now"
        return "keep turning: each move repeats a past position"
    for card in (*state.stock, *state.waste[:-1]):
        if card is not None and _use_for(state, card):
            return f"go round again: the {card.symbol} passed by is playable now"
    return "go round again: each move repeats a past position"


def is_safe_foundation_move(state: GameState, move: Move) -> bool:
    """True if ``move`` puts a card on its foundation with no possible loss: a safe card
    (``is_safe_foundation_card``) from a column, or from the waste in draw 1.

    In draw 3 a card taken off the waste is never such a move, however safe the card: it
    shifts every talon card after it by one place, and so changes which cards the later
    draws of three turn up. That can lose a won game (seed 310, draw 3, unlimited redeals:
    the 2♥ from the waste made a won position lost), so there it is weighed like any other
    move. Column cards, and the waste in draw 1 (where every talon card stays reachable),
    are safe as the card is."""
    if move.kind is MoveKind.WASTE_TO_FOUNDATION:
        if state.rules.draw_count != 1:
            return False
    elif move.kind is not MoveKind.COLUMN_TO_FOUNDATION:
        return False
    return is_safe_foundation_card(state, state.moving_cards(move)[0])


def _safe_foundation_move(state: GameState, moves: list[Move]) -> Move | None:
    """The first of ``moves`` that puts a card on its foundation with no possible loss."""
    return next((move for move in moves if is_safe_foundation_move(state, move)), None)


def reveals_unseen(view: GameState, move: Move) -> bool:
    """True if ``move`` turns up a card the player has not seen: it leaves a face-down card
    to flip, or draws an unseen stock card onto the waste."""
    after = view.play(move)
    if any(after.awaiting_flip(column) and after.hidden[column][-1] is None for column in range(7)):
        return True
    drawn = min(len(after.waste), view.rules.draw_count) if move.kind is MoveKind.DRAW else 0
    return any(after.waste[-1 - depth] is None for depth in range(drawn))


def _seen_after(view: GameState, truth: GameState) -> GameState:
    """``view`` (the player's view after a move) with the cards the move turned up on the
    layout ``truth`` named: a flipped column card, drawn waste cards. ``view`` itself
    when the move showed nothing."""
    for column in range(7):
        if view.awaiting_flip(column):
            view = view.reveal_column(column, truth.faceup[column][0])
    for depth in range(min(len(view.waste), view.rules.draw_count)):
        if view.waste[-1 - depth] is None:
            view = view.reveal_waste_card(depth, truth.waste[-1 - depth])  # type: ignore[arg-type]
    return view


def _next_stock_card_unseen(state: GameState) -> bool:
    """True if the next turn of the stock shows a card the player has not seen."""
    return bool(state.stock) and state.stock[0] is None


# Share of the sampled layouts left undecided by the strategy's solve (3,000 positions) that
# a solve with 300,000 positions decides won, by how near to a win the quick pass came
# (``SolveResult.closest``; 0 is a win), as (distance, share) points joined by straight
# lines. Measured by ``bench/unknown_calibration.py --first 1000 --count 16 --every 4``
# (draw 1, 9,617 layouts) and ``... --draw 3 --redeals unlimited --every 8`` (6,341 layouts),
# on seeds 1000..1015 (none of the benchmark's), bands of 10 smoothed to fall with the
# distance; the layouts still undecided there are left out of the share. The README has the
# tables.
UNKNOWN_WON_SHARE = {
    1: ((45, 0.90), (75, 0.80), (95, 0.68), (115, 0.56), (135, 0.45), (155, 0.30), (175, 0.20), (190, 0.0)),
    3: (
        (55, 0.95),
        (85, 0.92),
        (95, 0.89),
        (105, 0.84),
        (115, 0.65),
        (125, 0.48),
        (135, 0.36),
        (145, 0.23),
        (155, 0.14),
        (165, 0.09),
        (175, 0.04),
        (190, 0.0),
    ),
}


def unknown_won_share(closest: int, draw_count: int) -> float:
    """How likely an undecided sampled layout is won, from how near to a win its search
    came (``UNKNOWN_WON_SHARE``)."""
    points = UNKNOWN_WON_SHARE[draw_count]
    if closest <= points[0][0]:
        return points[0][1]
    for (d0, v0), (d1, v1) in zip(points, points[1:]):
        if closest <= d1:
            return v0 + (v1 - v0) * (closest - d0) / (d1 - d0)
    return points[-1][1]


# How much more an easy win on a sampled layout counts than a hard one (``ease``), by draw
# count. Draw 3 (unlimited redeals) measured better at 2.0 than at 1.0 on three sets of 100
# to 200 deals each, 31 deals gained against 17 lost over seeds 0..399 (sign test p = 0.06);
# draw 1 keeps 1.0: 2.0 there won 551 of seeds 0..999 against 555 (55 gained, 59 lost), and
# 0.0 and 0.5 (with the reveal bonus) won 121 and 121 of seeds 0..199 against 120.
DEFAULT_EASE = {1: 1.0, 3: 2.0}

# How much more a move that turns up an unseen card is worth (``reveal_bonus``), by draw
# count. Hindsight optimisation gives seeing a card no value, and the losses traced in
# draw 1 were mostly near-ties (within 0.03) lost by a move that commits blind, where the
# draw (showing the next stock card) kept the game won. Draw 1 at 0.03 won 231 of seeds
# 0..399 against 210 (55 deals gained, 34 lost, sign test p = 0.03), 358 of seeds 400..999
# against 345, so 589 of 1,000 against 555 (121 gained, 87 lost, p = 0.02); 0.06 won 225 of
# seeds 0..399 (35 gained, 41 lost against 0.03). Draw 3 keeps 0:
# 0.03 there won 154 of seeds 0..399 against 154 (32 gained, 32 lost).
DEFAULT_REVEAL_BONUS = {1: 0.03, 3: 0.0}

# How many kept layouts the search over information sets (``uct``) gets, by draw count
# (0: off). Draw 3 (unlimited redeals) at 48 won 412 of seeds 0..999 against 382 (123 deals
# gained, 93 lost, sign test p = 0.05; 168 against 154 on seeds 0..399, 244 against 228 on
# 400..999), think time p99 0.8 s; the bar set before the run was 393. Draw 1 at 48 without
# the reveal bonus won 588 of 1,000 against the default's 589 (108 gained, 109 lost; the bar
# was 600), so it stays off there.
DEFAULT_UCT = {1: 0, 3: 48}

# Whether an undecided layout is valued by how near its search came to a win (``graded``,
# else ``unknown_value``), and how many layouts a decision samples at least before a move
# may be dropped (``min_samples``), by draw count. Draw 1 with both (graded, 12) against
# (plain, 4), paired deal by deal on 1,500 deals: seeds 0..499 305 against 293, 1000..1499
# 321 against 311, and 1500..1999 (fresh: the bar, p <= 0.05 over the 1,500, was set
# before them) 285 against 270; in all 911 against 874, 122 deals gained, 85 lost (sign
# test p = 0.012), think time p99 0.3 s. Draw 3 keeps (plain, 4): not measured there.
DEFAULT_GRADED = {1: True, 3: False}
DEFAULT_MIN_SAMPLES = {1: 12, 3: 4}


@dataclass
class _Asked:
    """One question of the game (``BestStrategy._asked``): the view asked about
    (``_visible_key``: the whole position), its position key (``_position_key``), whether
    the answer was "go round again", and the answer given, with its statistics."""

    view: str
    key: str
    looped: bool = False
    answer: Advice | None = None
    stats: dict = field(default_factory=dict)


class BestStrategy:
    """Hindsight optimisation over sampled layouts, with a full-information solver.

    Every solve here passes ``relaxation=False``: with the few thousand positions a sampled
    layout gets, the solver's first pass without the redeal limit would take half of them
    (on every layout it measured clearly weaker: 44 of draw-1 seeds 2150..2249 against 54),
    and the strength figures in the README were measured without it (the solver's default
    turned it on later).

    The memory of a game. ``advise(state, history)`` answers from what the player sees and
    from a memory of the game so far: the positions already seen (a move back to one is left
    out), those where it said "go round again" (once per position), the answer given at each
    point, the plan it follows when every card is known and the proofs found. The decision:
    that memory is a record of the questions asked along the game, one per number of moves
    (``_asked``), and is taken as a function of the game: a question asked with a history
    that shares only its first *n* moves with the last one's (a take-back, or the tracker's
    other explanation of the last moves) drops the questions asked after move *n*, and
    nothing else; a question asked before at the same point (the same view after the same
    moves: asked again with nothing changed, or after a take-back) gets the answer given
    then. A new game (no moves, another view than the last game's first) forgets everything.
    So an uninterrupted game decides as before, and a take-back gives the advice given at
    that point before (it used to forget the whole game and decide afresh).

    A restarted coach has a new strategy, with no memory: the memory is journalled with the
    tracker (``memory``, plain JSON values, and ``restore``; app/coach.py saves it after each
    advice), and not rebuilt from the game's moves. Rebuilding it would need the view after
    each move, and the journal keeps only the last one (and the tracker's few recent ones):
    which card each flip or draw showed cannot always be worked out from the moves (``w-f``
    and ``N-f`` name no suit, a draw-3 fan may have gone unread), and the memory holds only
    the positions it was asked about (two moves between two pictures leave the middle one
    out), which no replay can tell. The memory holds views only (an unseen card is ``None``,
    ``??`` in the journal), as the strategy sees them, so it learns nothing hidden. The
    proofs found are not journalled (a proof keeps a line for each card each flip may show:
    up to megabytes a game, written after every picture): after a restart the answer at that
    point is the journalled one, and a later proof is searched afresh, which may choose
    another line that wins as surely."""

    name = "best"

    def __init__(
        self,
        think_time: float | None = 1.0,
        seed: int = 0,
        samples: int = 96,
        min_samples: int | None = None,
        node_limit: int = 3000,
        solve_node_limit: int = 400_000,
        ease: float | None = None,
        unknown_value: float = 0.5,
        drop: float = 1.0,
        graded: bool | None = None,
        reveal_bonus: float | None = None,
        uct: int | None = None,
        uct_depth: int = 6,
        uct_explore: float = 0.5,
        uct_moves: int = 3,
        prove: int = 5,
    ) -> None:
        if samples < 1 or (min_samples is not None and min_samples < 1):
            raise ValueError("samples and min_samples must be at least 1")
        if node_limit < 1 or solve_node_limit < 1:
            raise ValueError("node limits must be positive")
        if think_time is not None and think_time <= 0:
            raise ValueError(f"think time must be positive, not {think_time}")
        self.think_time = think_time
        self.seed = seed
        self.samples = samples
        self.min_samples_option = min_samples
        self.node_limit = node_limit
        self.solve_node_limit = solve_node_limit
        if ease is not None and ease < 0:
            raise ValueError(f"ease must be >= 0, not {ease}")
        self.ease_option = ease
        self.unknown_value = unknown_value
        self.drop = drop
        if (uct is not None and uct < 0) or uct_depth < 1 or uct_explore < 0 or uct_moves < 2:
            raise ValueError(
                "uct must be >= 0 (layouts for the search), uct_depth >= 1, uct_explore >= 0 and uct_moves >= 2"
            )
        self.uct_option = uct
        self.uct_depth = uct_depth
        self.uct_explore = uct_explore
        self.uct_moves = uct_moves
        self.graded_option = graded
        if reveal_bonus is not None and reveal_bonus < 0:
            raise ValueError(f"reveal bonus must be >= 0, not {reveal_bonus}")
        self.reveal_bonus_option = reveal_bonus
        if prove < 0:
            raise ValueError(f"prove must be >= 0 (most unseen cards for a proof; 0 = none), not {prove}")
        self.prove = prove
        self._proofs = ProofSearch(max_unseen=prove, time_limit=think_time) if prove else None
        self._take_rules(1)  # ease, reveal_bonus, uct, graded, min_samples: set again from each advice's rules
        self._log_limit = math.log(node_limit + 1)
        self._plan: tuple[GameState, tuple[Move, ...]] | None = None
        self._failed_full: GameState | None = None
        # the memory of the game (see "The memory of a game" in the class docstring): the moves
        # of the last question, and each question asked along them by its number of moves
        self._moves: tuple[Move, ...] = ()
        self._asked: dict[int, _Asked] = {}
        self._visited: set[str] = set()  # the positions of ``_asked`` (derived)
        self._looped: set[str] = set()  # those where it said "go round again" (derived)
        self.last_stats: dict = {}

    # ---------------------------------------------------------------------------
    def _take_rules(self, draw_count: int) -> None:
        """Set the options whose default depends on the draw count (``ease``,
        ``reveal_bonus``, ``uct``, ``graded`` and ``min_samples``) for this game's rules,
        unless given explicitly."""

        def pick(option, defaults):
            return defaults[draw_count] if option is None else option

        self._draw_count = draw_count
        self.ease = pick(self.ease_option, DEFAULT_EASE)
        self.reveal_bonus = pick(self.reveal_bonus_option, DEFAULT_REVEAL_BONUS)
        self.uct = pick(self.uct_option, DEFAULT_UCT)
        self.graded = bool(pick(self.graded_option, DEFAULT_GRADED))
        self.min_samples = min(pick(self.min_samples_option, DEFAULT_MIN_SAMPLES), self.samples)

    def advise(self, state: GameState, history: Sequence[Move] = ()) -> Advice:
        history = tuple(history)
        done = terminal_advice(state)
        if done is not None:  # won, or a card to turn over: nothing to remember
            self.last_stats = {}
            return done
        view = _visible_key(state)
        self._follow(history, view)
        asked = self._asked.get(len(history))
        if asked is not None and asked.view == view:
            # asked before at this point of the game (again with nothing changed, after a
            # take-back, or after a restart that restored the memory): the same answer
            self.last_stats = dict(asked.stats)
            return asked.answer  # type: ignore[return-value]
        if asked is not None:  # the same moves, another view (a card re-read): that one is gone
            del self._asked[len(history)]
            self._derive()
        self._take_rules(state.rules.draw_count)
        asked = _Asked(view, self._position_key(state))
        self._asked[len(history)] = asked
        self._visited.add(asked.key)
        asked.answer = self._advise(state, asked)
        asked.stats = dict(self.last_stats)
        return asked.answer

    def _follow(self, history: tuple[Move, ...], view: str) -> None:
        """Bring the memory to the game of ``history``: the questions asked after the moves it
        shares with the last question's are dropped (a take-back, or the tracker's other
        explanation of the moves); a new game (no moves, another view than the last game's
        first) forgets the proofs and the plan too."""
        shared = 0
        for a, b in zip(history, self._moves):
            if a != b:
                break
            shared += 1
        self._moves = history
        if not history and (0 not in self._asked or self._asked[0].view != view):
            self._asked.clear()
            self._plan = None
            self._failed_full = None
            if self._proofs is not None:
                self._proofs.clear()
        later = [n for n in self._asked if n > shared]
        for n in later:
            del self._asked[n]
        if later or not self._asked:
            self._derive()

    def memory(self) -> dict:
        """The memory of the game as plain JSON values, for the coach's journal: a restarted
        coach gives it back (:meth:`restore`) and answers as if it had never stopped. It holds
        views only (an unseen card as ``??``), as the strategy itself does."""

        def advice(a: Advice) -> dict:
            return {
                "status": a.status,
                "move": a.move.text if a.move else None,
                "text": a.text,
                "reason": a.reason,
                "proven": a.proven,
            }

        asked = []
        for n in sorted(self._asked):
            q = self._asked[n]
            if q.answer is None:
                continue
            entry = {"at": n, "view": q.view, "answer": advice(q.answer), "stats": q.stats}
            if q.key != q.view:
                entry["key"] = q.key
            if q.looped:
                entry["looped"] = True
            asked.append(entry)
        memory: dict = {"moves": [m.text for m in self._moves], "asked": asked}
        if self._plan is not None:
            memory["plan"] = {"state": state_to_dict(self._plan[0]), "moves": [m.text for m in self._plan[1]]}
        return memory

    def restore(self, memory: dict, rules: Rules) -> None:
        """Take back the memory :meth:`memory` wrote, for a game under ``rules``, in place of
        the memory held now. ValueError says what is wrong; the memory is then unchanged."""

        def need(ok: bool, what: str) -> None:
            if not ok:
                raise ValueError(f"the advisor's memory: {what}")

        need(isinstance(memory, dict), "it is not an object")
        texts = memory.get("moves")
        need(isinstance(texts, list) and all(isinstance(t, str) for t in texts), "'moves' is not a list of moves")
        moves = tuple(Move.parse(t) for t in texts)  # type: ignore[union-attr]
        asked: dict[int, _Asked] = {}
        listed = memory.get("asked")
        need(isinstance(listed, list), "'asked' is not a list")
        for entry in listed:  # type: ignore[union-attr]
            need(
                isinstance(entry, dict)
                and type(entry.get("at")) is int
                and 0 <= entry["at"] <= len(moves)
                and isinstance(entry.get("view"), str)
                and isinstance(entry.get("key", ""), str)
                and isinstance(entry.get("stats", {}), dict)
                and isinstance(entry.get("answer"), dict),
                f"a question is not one it wrote: {entry!r:.80}",
            )
            a = entry["answer"]
            need(
                a.get("status") in ("move", "flip", "won", "lost")
                and isinstance(a.get("text"), str)
                and isinstance(a.get("reason", ""), str)
                and type(a.get("proven", False)) is bool
                and (a.get("move") is None) == (a["status"] != "move"),
                f"an answer is not one it wrote: {a!r:.80}",
            )
            move = Move.parse(a["move"]) if a.get("move") is not None else None
            asked[entry["at"]] = _Asked(
                entry["view"],
                entry.get("key", entry["view"]),
                entry.get("looped") is True,
                Advice(a["status"], move, a["text"], a.get("reason", ""), a.get("proven", False)),
                dict(entry.get("stats", {})),
            )
        plan = None
        if memory.get("plan") is not None:
            p = memory["plan"]
            need(isinstance(p, dict) and isinstance(p.get("moves"), list), "'plan' is not a position and moves")
            plan = (state_from_dict(p.get("state"), rules), tuple(Move.parse(t) for t in p["moves"]))
        self._moves, self._asked = moves, asked
        self._plan, self._failed_full = plan, None
        if self._proofs is not None:
            self._proofs.clear()
        self._derive()
        self.last_stats = {}

    def _derive(self) -> None:
        """``_visited`` and ``_looped`` from the questions of the game so far."""
        self._visited = {asked.key for asked in self._asked.values()}
        self._looped = {asked.key for asked in self._asked.values() if asked.looped}

    def _advise(self, state: GameState, asked: _Asked) -> Advice:
        self.last_stats = {}  # filled by a sampled decision
        moves = state.legal_moves()
        if not moves:
            return Advice("lost", None, "No move is left: the game is lost", proven=True)
        if state.is_complete_knowledge():
            full = self._advise_known(state)
            if full is not None:
                return full
        elif self.prove and len(state.unseen_cards()) <= self.prove:
            proof = self._proofs.prove(state)  # type: ignore[union-attr]
            if proof is not None and proof.status == "lost":
                return Advice("lost", None, proof.reason(), proven=True)
            if proof is not None:
                return self._advice(state, proof.move, proof.reason(), proven=True)  # type: ignore[arg-type]
        safe = _safe_foundation_move(state, moves)
        if safe is not None:
            return self._advice(state, safe, "")
        fresh = self._fresh_moves(state, moves)
        if not fresh:
            # every move repeats an earlier position. Going round the stock once more brings
            # back the positions where a card was passed by, and there the move that was
            # taken is no longer fresh, so another is chosen; at most once per position.
            key = self._position_key(state)
            turns = [m for m in moves if m.kind in _STOCK_KINDS]
            if turns and key not in self._looped:
                self._looped.add(key)
                asked.looped = True
                return self._advice(state, turns[0], go_round_reason(state))
            return Advice("lost", None, "No move makes progress: every move only repeats an earlier position")
        if len(fresh) == 1:
            return self._advice(
                state, fresh[0], "the only move that makes progress" if len(moves) > 1 else "the only move"
            )
        return self._sampled(state, fresh)

    def _fresh_moves(self, state: GameState, moves: list[Move]) -> list[Move]:
        """The moves that lead to a position not yet seen in this game; moves that achieve
        nothing by themselves only when nothing else is left."""
        fresh = [
            m
            for m in moves
            if not is_pointless_return(state, m) and self._position_key(state.play(m)) not in self._visited
        ]
        return [m for m in fresh if is_useful(state, m)] or fresh

    def _position_key(self, state: GameState) -> str:
        key = _visible_key(state)
        if state.rules.redeal_limit is None:  # with unlimited redeals the count says nothing
            key = key.replace(f"#{state.redeals_used}#", "#", 1)
        return key

    def _advice(self, state: GameState, move: Move, extra: str, proven: bool = False) -> Advice:
        return Advice("move", move, describe_move(state, move), reason_for(state, move, extra), proven=proven)

    def _advise_known(self, state: GameState) -> Advice | None:
        """Every card is known: follow an exact solution (or say the game is lost)."""
        if self._plan is not None and self._plan[0] == state and self._plan[1]:
            plan = self._plan[1]
        elif self._failed_full == state:
            return None
        else:
            result = solve(state, node_limit=self.solve_node_limit, relaxation=False)
            if result.status == "lost":
                return Advice("lost", None, "The game cannot be won from here: every line was searched", proven=True)
            if result.status != "won":
                self._failed_full = state
                return None
            plan = result.moves
        move = plan[0]
        self._plan = (state.play(move), plan[1:])
        left = len(plan)
        return self._advice(
            state, move, f"every card is known: this line wins in {left} move{'s' if left != 1 else ''}", proven=True
        )

    def _solve_layout(self, layout: GameState):
        """The solver on one sampled layout, with this strategy's budget a layout."""
        return solve(layout, node_limit=self.node_limit, verify=False, relaxation=False)

    def _layout_score(self, position: GameState) -> float:
        """The score of one sampled layout: the solver's result on it, scored by ``_score``."""
        return self._score(self._solve_layout(position))

    def _score(self, result) -> float:
        """A layout's value after a move: 0 lost, 1 to ``1 + ease`` won; undecided,
        ``unknown_value``, or with ``graded`` how likely such a layout is won by how near to
        a win its search came (``unknown_won_share``)."""
        if result.status == "won":
            # a win found with few nodes is a sturdy position (the solver sees every card;
            # a player who does not needs slack): easy wins count more
            return (
                1.0
                + self.ease * (1.0 - math.log(result.nodes + 1) / self._log_limit)
                + 0.001 * max(0, 400 - len(result.moves)) / 400
            )
        if result.status != "unknown":
            return 0.0
        if self.graded and result.closest is not None:
            return unknown_won_share(result.closest, self._draw_count)
        return self.unknown_value

    def _uct_values(
        self, state: GameState, candidates: list[Move], close: list[int], kept: list[GameState], start: float
    ) -> tuple[dict[int, float], int]:
        """Each close move's value in a search over the player's information sets several
        moves deep (UCT over sampled layouts).

        Every kept layout is played down one path below each close move (the same layout
        for every close move, so their comparison is paired). A node of the tree is what
        the player sees (``_visible_key``): a move that turns up a card leads to a
        different node for each card (a reveal is a chance node), and within a node one
        choice serves every layout that reaches it, as it must for a player who cannot
        tell them apart. A node's moves are tried once each (in the order of preference),
        then chosen by UCB1 (``uct_explore`` times the score range); a forced move (a safe
        foundation move, the only move that makes progress) is played without a choice.
        A path ends at a new node, a position with no blind choice left (won, lost, every
        card known) or after ``uct_depth`` choices (or many forced moves), where the layout
        is solved as in hindsight optimisation (``_layout_score``). A move is worth the mean of its paths.
        When the search would take more than ``think_time`` (judged after each layout),
        it stops; with fewer than 2 layouts done it returns no value."""
        nodes: dict[str, list] = {}  # key -> [moves, visits per move, total per move]
        totals = {j: 0.0 for j in close}
        after = {j: state.play(candidates[j]) for j in close}
        c = self.uct_explore * (1.0 + self.ease)
        done = 0
        for sample in kept:
            if done >= 2 and self.think_time is not None and time.perf_counter() - start > self.think_time:
                break
            for j in close:
                truth = sample.play(candidates[j])
                totals[j] += self._uct_path(_seen_after(after[j], truth), truth, nodes, c)
            done += 1
        if done < 2:
            return {}, 0
        return {j: t / done for j, t in totals.items()}, done

    def _uct_path(self, view: GameState, truth: GameState, nodes: dict[str, list], c: float) -> float:
        """One path of the UCT search (``_uct_values``) from ``view`` on the layout ``truth``;
        its value, added to the statistics of every choice along it."""
        path: list[tuple[list, int]] = []
        depth = 0
        for _step in range(8 * self.uct_depth + 40):  # forced moves too: a stock turned round and round ends
            options = self._choices(view)
            if not options or depth >= self.uct_depth:
                break
            if len(options) == 1:
                move = options[0]
            else:
                key = _visible_key(view)
                node = nodes.get(key)
                if node is None:
                    options.sort(key=lambda m: _preference(view, m))
                    nodes[key] = [options, [0] * len(options), [0.0] * len(options)]
                    break  # a new node: its value is the layout's hindsight value
                moves, visits, total = node
                untried = next((i for i, n in enumerate(visits) if n == 0), None)
                if untried is not None:
                    k = untried
                else:
                    log_n = math.log(sum(visits))
                    k = max(
                        range(len(moves)), key=lambda i: (total[i] / visits[i] + c * math.sqrt(log_n / visits[i]), -i)
                    )
                move = moves[k]
                path.append((node, k))
                depth += 1
            truth = truth.play(move)
            view = _seen_after(view.play(move), truth)
        value = self._layout_score(truth)
        for node, k in path:
            node[1][k] += 1
            node[2][k] += value
        return value

    def _choices(self, view: GameState) -> list[Move]:
        """The next moves the player would weigh in ``view``: none when the position is
        decided or every card is known (no choice made blind), one when it is forced."""
        if view.is_won() or terminal_advice(view) is not None or view.is_complete_knowledge():
            return []
        moves = view.legal_moves()
        if not moves:
            return []
        safe = _safe_foundation_move(view, moves)
        if safe is not None:
            return [safe]
        return self._fresh_moves(view, moves)

    def _sampled(self, state: GameState, moves: list[Move]) -> Advice:
        start = time.perf_counter()
        rng = random.Random(f"{self.seed}|{_visible_key(state)}")
        candidates = sorted(moves, key=lambda m: _preference(state, m))
        scores = [0.0] * len(candidates)
        won = [0] * len(candidates)
        tried = [0] * len(candidates)
        active = list(range(len(candidates)))
        complete = not state.unseen_cards()
        n_samples = 1 if complete else self.samples
        done = 0
        kept: list[GameState] = []  # the first ``uct`` layouts, for the search over information sets
        for i in range(n_samples):
            sample = sample_layout(state, rng)
            for j in active:
                result = self._solve_layout(sample.play(candidates[j]))
                tried[j] += 1
                won[j] += result.status == "won"
                scores[j] += self._score(result)
            if i < self.uct:
                kept.append(sample)
            done = i + 1
            if done >= self.min_samples:
                if self.think_time is not None and time.perf_counter() - start > self.think_time:
                    break
                if self.drop:
                    # the same layouts are searched for every move still in the running: a
                    # move that trails the leader clearly is dropped, and the rest of the
                    # layouts go to the moves that can still win the decision
                    lead = max(scores[j] for j in active) / done
                    margin = self.drop / math.sqrt(done)
                    active = [j for j in active if scores[j] / done >= lead - margin]
                    if len(active) == 1:
                        break
                else:
                    ordered = sorted(scores, reverse=True)
                    if len(ordered) > 1 and ordered[0] - ordered[1] > (n_samples - done) * (1 + self.ease) + 0.01:
                        break  # no other move can catch up
        value = {j: scores[j] / max(1, tried[j]) for j in range(len(candidates))}
        looked = 0
        if self.uct and not complete and len(active) > 1:
            close = sorted(active, key=lambda j: (-value[j], j))[: self.uct_moves]
            uct, looked = self._uct_values(state, candidates, close, kept, start)
            if uct:
                value.update(uct)
                active = close
        if self.reveal_bonus and not complete:
            # hindsight optimisation gives seeing a card no value (every layout is searched
            # as if all were seen): a move that turns up an unseen card is worth a little more
            for j in active:
                if reveals_unseen(state, candidates[j]):
                    value[j] += self.reveal_bonus
        best = max(active, key=lambda j: (value[j], -j))
        self.last_stats = {
            "samples": done,
            "looked": looked,
            "scores": {m.text: value[j] for j, m in enumerate(candidates)},
            "seconds": time.perf_counter() - start,
        }
        n = tried[best]
        extra = f"wins {won[best]} of {n} sampled layout{'s' if n != 1 else ''}"
        if scores[best] == 0 and n >= self.min_samples:
            # every layout searched after every move still weighed is proven lost: say so, so
            # that the player is not led on by moves that only shuffle runs
            extra += f": {LOOKS_LOST}"
        if complete:  # nothing was sampled: the one layout is the true one, its search undecided
            extra = (
                "every card is known: a win follows this move"
                if won[best]
                else "every card is known, but the search found no win"
            )
        return self._advice(state, candidates[best], extra)
