"""The full-information solver: solutions replay, losses are real, limits are honoured."""

from __future__ import annotations

import random

import pytest

from solitaire_coach.core import Card, GameState, Move, Rules, deal_for_seed
from solitaire_coach.core.solver import SolveResult, SolverError, _python_solve, has_extension, solve

EMPTY = ((),) * 7


def test_extension_is_built():
    assert has_extension(), "the C solver core was not built (pip install -e . builds it)"


@pytest.mark.parametrize("seed", range(12))
def test_solutions_replay_legally(seed):
    state = GameState.from_deal(deal_for_seed(seed))
    result = solve(state, node_limit=300_000)
    assert isinstance(result, SolveResult)
    if result.status == "won":
        end = state.play_all(result.moves)  # raises if any move is illegal
        assert end.is_won()
    else:
        assert result.moves == ()


def test_draw_three_and_unlimited_redeals_replay():
    for seed in range(6):
        for rules in (Rules(draw_count=3, redeal_limit=None), Rules(draw_count=1, redeal_limit=0)):
            state = GameState.from_deal(deal_for_seed(seed), rules)
            result = solve(state, node_limit=200_000)
            if result.won:
                assert state.play_all(result.moves).is_won()


def test_blocked_position_is_lost():
    # 3C covers the 2C it needs; nothing can take the 3C
    clubs = [Card(r, 0) for r in range(4, 14)]
    hidden = ((Card(2, 0),),) + ((),) * 6
    faceup = ((Card(3, 0),),) + ((),) * 6
    state = GameState(hidden, faceup, tuple(clubs), (), foundations=(1, 13, 13, 13))
    result = solve(state)
    assert result.status == "lost"
    assert _python_solve(state, None, None, None)[0] == "lost"


def test_trivial_endgame_is_won():
    faceup = ((Card(13, 0),), (Card(13, 1),)) + ((),) * 5
    state = GameState(EMPTY, faceup, (), (), foundations=(12, 12, 13, 13))
    result = solve(state)
    assert result.status == "won"
    assert state.play_all(result.moves).is_won()
    assert [m.text for m in result.moves] == ["1-f", "2-f"]


def test_unknown_cards_are_refused():
    state = GameState.from_deal(deal_for_seed(1))
    with pytest.raises(SolverError, match="unknown"):
        solve(state.masked())


def test_node_limit_gives_unknown():
    state = GameState.from_deal(deal_for_seed(13))
    result = solve(state, node_limit=50)
    assert result.status in ("unknown", "won")
    assert result.nodes <= 60


def _random_endgame(rng: random.Random, rules: Rules) -> GameState:
    """A random position with few cards left: foundations high, the rest scattered."""
    heights = [rng.randint(8, 12) for _ in range(4)]
    rest = [Card(r, s) for s in range(4) for r in range(heights[s] + 1, 14)]
    rng.shuffle(rest)
    n_talon = rng.randint(0, min(5, len(rest)))
    talon, rest = rest[:n_talon], rest[n_talon:]
    columns = [[] for _ in range(7)]
    for card in rest:
        columns[rng.randrange(7)].append(card)
    hidden = tuple(tuple(c[:-1]) for c in columns)
    faceup = tuple((c[-1],) if c else () for c in columns)
    n_waste = rng.randint(0, len(talon))
    return GameState(hidden, faceup, tuple(talon[n_waste:]), tuple(talon[:n_waste]),
                     foundations=tuple(heights), rules=rules)


@pytest.mark.parametrize("rules", [Rules(), Rules(draw_count=3, redeal_limit=1), Rules(redeal_limit=0),
                                   Rules(foundation_return=True, redeal_limit=1)])
def test_agrees_with_plain_search_on_random_endgames(rules):
    """The C search (macro moves, auto-play, pruning) and a plain move-by-move search must
    agree on every small position both decide."""
    rng = random.Random(1234)
    decided = 0
    outcomes = set()
    for _ in range(60):
        state = _random_endgame(rng, rules)
        fast = solve(state)
        slow, moves, _ = _python_solve(state, 200_000, None, None)
        assert fast.decided
        if slow != "unknown":
            decided += 1
            outcomes.add(slow)
            assert fast.status == slow, f"C says {fast.status}, plain search says {slow}:\n{state}"
        if slow == "won":
            assert state.play_all(moves).is_won()
    assert decided >= 40 and outcomes == {"won", "lost"}
