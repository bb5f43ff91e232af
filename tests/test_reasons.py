"""Every reason an advisor gives is true of its position (item 3 of issue 3).

Positions come from deterministic games of both strategies on the virtual table; each
clause of each reason is read back and checked against the position it was said for."""

from __future__ import annotations

from dataclasses import replace

from solitaire_coach.core import GameState, Rules, deal_for_seed
from solitaire_coach.core.advisor import describe_move
from solitaire_coach.core.moves import Move

DRAW3 = Rules(draw_count=3, redeal_limit=None)


def test_a_turn_of_the_last_cards_says_how_many_it_turns():
    """In draw 3 a turn of a stock with fewer than three cards left turns only those."""
    state = GameState.from_deal(deal_for_seed(0), DRAW3).play_all([Move.draw()] * 6)
    assert len(state.stock) == 3 and describe_move(state, Move.draw()) == "Turn the last three stock cards"
    said = {}
    for left in (1, 2, 3, 4):
        moved = len(state.stock) - left if left <= 3 else 0
        position = state if left > 3 else replace(state, stock=state.stock[moved:],
                                                   waste=state.waste + state.stock[:moved])
        if left > 3:
            position = GameState.from_deal(deal_for_seed(0), DRAW3)
        said[left] = describe_move(position, Move.draw())
    assert said == {1: "Turn the last stock card", 2: "Turn the last two stock cards",
                    3: "Turn the last three stock cards", 4: "Turn the next three stock cards"}
    assert describe_move(GameState.from_deal(deal_for_seed(0)), Move.draw()) == "Turn the next stock card"
