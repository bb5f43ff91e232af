"""The full-information solver: solutions replay, losses are real, limits are honoured."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from solitaire_coach.core import Card, GameState, Rules, deal_for_seed
from solitaire_coach.core import solver as solver_module
from solitaire_coach.core.moves import MoveKind
from solitaire_coach.core.solver import SolverError, SolveResult, _python_solve, has_extension, solve

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


def test_without_a_redeal_limit_safe_talon_cards_go_up_from_anywhere():
    """Draw 1 without a redeal limit, a safe card anywhere in the talon goes up at once (it
    can be reached at any time): tens buried in the stock under the kings are played
    without a search, and the line says how (draws, a redeal). With a redeal limit only the
    waste's top card is played that way."""
    talon = tuple(Card(r, s) for r in (13, 12, 11, 10) for s in range(4))  # the tens last
    state = GameState(EMPTY, EMPTY, talon, (), foundations=(9, 9, 9, 9), rules=Rules(redeal_limit=None))
    result = solve(state, quick_pass=False)
    assert result.won and result.nodes == 0
    assert state.play_all(result.moves).is_won()
    assert any(m.kind is MoveKind.REDEAL for m in result.moves)
    limited = solve(dataclasses.replace(state, rules=Rules(redeal_limit=3)), quick_pass=False, relaxation=False)
    assert limited.won and limited.nodes > 0


def test_unknown_cards_are_refused():
    state = GameState.from_deal(deal_for_seed(1))
    with pytest.raises(SolverError, match="unknown"):
        solve(state.masked())


def test_node_limit_gives_unknown():
    state = GameState.from_deal(deal_for_seed(13))
    result = solve(state, node_limit=50)
    assert result.status in ("unknown", "won")
    assert result.nodes <= 60


def test_closest_says_how_near_the_quick_pass_came_to_a_win():
    """``closest``: 0 for a win; for an undecided search a distance estimate that a larger
    budget brings nearer (never further); None without a quick pass."""
    state = GameState.from_deal(deal_for_seed(0), Rules(draw_count=3, redeal_limit=None))
    small, larger = solve(state, node_limit=40), solve(state, node_limit=400)
    assert small.status == "unknown" and 0 < small.closest < 4 * 21 + 2 * 52 + 24
    assert larger.status == "won" and larger.closest == 0 or 0 < larger.closest <= small.closest
    assert solve(state, node_limit=40, quick_pass=False).closest is None
    assert solve(GameState.from_deal(deal_for_seed(2)), node_limit=100_000).closest == 0


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
    return GameState(
        hidden, faceup, tuple(talon[n_waste:]), tuple(talon[:n_waste]), foundations=tuple(heights), rules=rules
    )


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(draw_count=3, redeal_limit=1),
        Rules(redeal_limit=0),
        Rules(foundation_return=True, redeal_limit=1),
    ],
)
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


# --- one test per pruning rule of the exhaustive search (see _csolver.c) ----------------


def _runs_endgame(rng: random.Random, rules: Rules) -> GameState:
    """A random position with face-up runs (so partial-run moves, moves that empty a column
    and kings into empty columns all occur), a few face-down cards, and a short talon."""
    heights = [rng.randint(6, 10) for _ in range(4)]
    rest = [Card(r, s) for s in range(4) for r in range(heights[s] + 1, 14)]
    rng.shuffle(rest)
    n_talon = rng.randint(0, min(5, len(rest)))
    talon, rest = rest[:n_talon], rest[n_talon:]
    pool = list(rest)  # (a list, not a set: the same positions in every run)
    hidden, faceup = [], []
    for _column in range(7):
        h = [pool.pop() for _ in range(min(len(pool), rng.choice((0, 0, 1, 2))))]
        run = []
        if pool and rng.random() < 0.85:
            run.append(pool.pop())
            while True:
                fit = [c for c in pool if c.rank + 1 == run[-1].rank and c.is_red != run[-1].is_red]
                if not fit or rng.random() < 0.25:
                    break
                run.append(fit[0])
                pool.remove(fit[0])
        if h and not run:
            run.append(h.pop())
        hidden.append(tuple(h))
        faceup.append(tuple(run))
    for card in pool:  # what no run took goes on top of some column, the old top face down under it
        column = rng.randrange(7)
        hidden[column] = hidden[column] + faceup[column]
        faceup[column] = (card,)
    n_waste = rng.randint(0, len(talon))
    return GameState(
        tuple(hidden),
        tuple(faceup),
        tuple(talon[n_waste:]),
        tuple(talon[:n_waste]),
        foundations=tuple(heights),
        rules=rules,
    )


def _kinds_of_moves(state: GameState, moves) -> set[str]:
    """Which pruned kinds of move a line plays: 'partial' (part of a run, leaving a face-up
    card) and 'empty' (a whole column with nothing under it, onto another card)."""
    kinds = set()
    for move in moves:
        if move.kind is MoveKind.COLUMN_TO_COLUMN and state.faceup[move.target]:
            top = state.faceup[move.target][-1]
            run = state.faceup[move.source]
            k = next(i for i, c in enumerate(run) if c.rank + 1 == top.rank and c.is_red != top.is_red)
            if k > 0:
                kinds.add("partial")
            elif not state.hidden[move.source]:
                kinds.add("empty")
        state = state.play(move)
    return kinds


def _against_plain_search(states, **solve_options):
    """Solve each state with the C solver and with the plain search; every answer the plain
    search decides must be the same and every win must replay. Returns (decided by the plain
    search, its outcomes, the C solver's winning lines)."""
    decided, outcomes, lines = 0, set(), []
    for state in states:
        fast = solve(state, **solve_options)
        slow, _, _ = _python_solve(state, 40_000, None, None)
        assert fast.decided
        if slow != "unknown":
            decided += 1
            outcomes.add(slow)
            assert fast.status == slow, f"C says {fast.status}, plain search says {slow}:\n{state}"
        if fast.won:
            assert state.play_all(fast.moves).is_won()
            lines.append((state, fast.moves))
    return decided, outcomes, lines


def _agree(states, min_decided: int, both: bool = True) -> set[str]:
    decided, outcomes, lines = _against_plain_search(states)
    assert decided >= min_decided and outcomes == ({"won", "lost"} if both else {"won"}), (decided, outcomes)
    return set().union(*(_kinds_of_moves(state, moves) for state, moves in lines))


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(redeal_limit=0),
        Rules(draw_count=3, redeal_limit=1),
        Rules(foundation_return=True, redeal_limit=1),
    ],
)
def test_runs_and_empty_columns_agree_with_plain_search(rules):
    """Partial-run moves are searched only together with their purpose (the card they
    uncover goes to the foundation or takes a card at once), and emptying a column only
    together with a king moving in: positions full of runs must still be decided exactly
    as a plain search decides them."""
    rng = random.Random(5)
    # (with foundation returns every one of these positions is won)
    kinds = _agree([_runs_endgame(rng, rules) for _ in range(40)], 20, both=not rules.foundation_return)
    assert kinds == {"partial", "empty"}  # the C solutions do play both kinds


def _talon_endgame(rng: random.Random, rules: Rules) -> GameState:
    heights = [rng.randint(8, 11) for _ in range(4)]
    rest = [Card(r, s) for s in range(4) for r in range(heights[s] + 1, 14)]
    rng.shuffle(rest)
    n_talon = rng.randint(len(rest) // 2, len(rest) - 1)
    talon, rest = rest[:n_talon], rest[n_talon:]
    columns = [[] for _ in range(7)]
    for card in rest:
        columns[rng.randrange(7)].append(card)
    n_waste = rng.randint(0, len(talon))
    return GameState(
        tuple(tuple(c[:-1]) for c in columns),
        tuple((c[-1],) if c else () for c in columns),
        tuple(talon[n_waste:]),
        tuple(talon[:n_waste]),
        foundations=tuple(heights),
        rules=rules,
    )


@pytest.mark.parametrize(
    "rules",
    [Rules(redeal_limit=0), Rules(redeal_limit=1), Rules(redeal_limit=None), Rules(draw_count=3, redeal_limit=None)],
)
def test_talon_dominance_agrees_with_plain_search(rules):
    """Draw 1 (and draw 3 without a redeal limit): a position is pruned when a visited one
    with the same cards reaches it by drawing and redealing alone (fewer cards in the waste,
    or fewer redeals used; in draw 3 a waste size three cards on, or one a redeal gives).
    Talon-heavy positions under tight redeal limits must be decided as a plain search
    decides them."""
    rng = random.Random(7)
    _agree([_talon_endgame(rng, rules) for _ in range(40)], 25)


@pytest.mark.parametrize("rules", [Rules(redeal_limit=1), Rules(redeal_limit=2), Rules(draw_count=3, redeal_limit=1)])
@pytest.mark.parametrize("room", ["layers", "little room"])
def test_layered_search_alone_agrees_with_plain_search(rules, room, monkeypatch):
    """The exhaustive search sets a position aside after a redeal (and in draw 1 after drawing
    on) and searches it in a later layer, fewest redeals first; a win found there is written
    out from the start through the trie of lines. Without the quick pass (so the wins are its
    own), talon-heavy positions must be decided as a plain search decides them and every win
    must replay, some of them across a redeal; with room for only a few set-aside positions it
    goes on in the plain order once that is used up, and must agree just as well."""
    if room == "little room":
        monkeypatch.setattr(solver_module, "_layer_bytes", lambda memory_mb: 150_000)
    rng = random.Random(11)
    states = [_talon_endgame(rng, rules) for _ in range(30)] + [_random_endgame(rng, rules) for _ in range(30)]
    decided, outcomes, lines = _against_plain_search(states, quick_pass=False)
    redeals = sum(any(m.kind is MoveKind.REDEAL for m in moves) for _, moves in lines)
    # (every "lost" in the other tests is the exhaustive search's too: only it proves a loss)
    assert decided >= 40 and "won" in outcomes and redeals >= 3, (decided, outcomes, redeals)


def test_exhaustive_search_alone_wins_a_deal():
    # a whole deal, won by the layered exhaustive search itself (no quick pass)
    state = GameState.from_deal(deal_for_seed(29))
    result = solve(state, node_limit=30_000_000, quick_pass=False)
    assert result.won and state.play_all(result.moves).is_won()


def test_quick_pass_second_estimate_wins_deals_the_first_misses():
    # seeds 383 and 732: 40 million positions with the quick pass ordered by one estimate (then
    # the exhaustive search) found no win; its second queue (a charge for cards above a lower
    # card of their suit) wins them in about 2 thousand and 1 million positions after the
    # 100 thousand of the first queue alone
    for seed, limit in ((383, 240_000), (732, 2_600_000)):
        state = GameState.from_deal(deal_for_seed(seed))
        result = solve(state, node_limit=limit)
        assert result.won, f"seed {seed}: {result.status} in {result.nodes} positions"
        assert state.play_all(result.moves).is_won()
    # seed 868: the first queue alone wins it in 250 positions, the two queues together not in
    # 3 million: the quick pass begins with the first queue alone
    state = GameState.from_deal(deal_for_seed(868))
    result = solve(state, node_limit=2_000)
    assert result.won and state.play_all(result.moves).is_won()


def _cards(text: str) -> tuple:
    return tuple(Card.parse(code) for code in text.split())


def test_stuck_card_over_a_lower_card_of_its_suit_is_lost_at_once():
    # 5C lies on 2C; both red sixes are on the foundations, so 5C can only go to the
    # foundation, which needs the 2C under it first: lost, without searching.
    hidden = (_cards("2C"),) + ((),) * 6
    faceup = (_cards("5C"), _cards("7C")) + ((),) * 5
    stock = _cards("3C 4C 6C 8C 9C TC JC QC KC")
    state = GameState(hidden, faceup, stock, (), foundations=(1, 13, 13, 13))
    result = solve(state)
    assert result.status == "lost" and result.nodes == 0
    assert _python_solve(state, 500_000, None, None)[0] == "lost"


def test_card_with_a_parent_in_play_is_not_stuck():
    # the same, but the 6D is still in play: 5C can go onto it, and the game is won
    hidden = (_cards("2C"),) + ((),) * 6
    faceup = (_cards("5C"), _cards("7C")) + ((),) * 5
    stock = _cards("6D 3C 4C 6C 8C 9C TC JC QC KC 7D 8D 9D TD JD QD KD")
    state = GameState(hidden, faceup, stock, (), foundations=(1, 5, 13, 13))
    result = solve(state)
    assert result.won and state.play_all(result.moves).is_won()


# --- reductions: children the exhaustive search can tell are covered are not made ------


def _played_out(seed: int, rules: Rules, n: int, rng: random.Random) -> GameState:
    """A deal after n random legal moves: real positions, many of them lost, some won."""
    state = GameState.from_deal(deal_for_seed(seed), rules)
    for _ in range(n):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.play(rng.choice(moves))
    return state


def _same_answers(states, node_limit: int, label: str, **rule_off):
    """Solve each state (exhaustive search only) as the solver is and with ``rule_off`` (the
    options that turn a rule off): every answer both decide must be the same, and none may be
    "lost" only with the rule off. Returns the common answers and the positions each used."""
    answers, nodes = [], [0, 0]
    for n, state in enumerate(states):
        on = solve(state, node_limit=node_limit, quick_pass=False)
        off = solve(state, node_limit=node_limit, quick_pass=False, **rule_off)
        if on.decided and off.decided:
            assert on.status == off.status, f"position {n}: {on.status} with {label}, {off.status} without"
            answers.append(on.status)
            nodes[0] += on.nodes
            nodes[1] += off.nodes
        else:  # a position only one of them decides is decided within the other's budget too
            assert not (off.decided and off.lost), f"position {n}: lost without {label}, unknown with"
    return answers, nodes


@pytest.mark.parametrize("rules", [Rules(redeal_limit=1), Rules(redeal_limit=2), Rules(redeal_limit=3)])
def test_reductions_leave_every_answer_unchanged(rules, monkeypatch, capfd):
    """The exhaustive search does not make children it can tell the table covers: a run moved
    straight back, and "sleeping" moves at a set-aside position (a column move, or a talon
    card another way round, whose child the search reached from an earlier position). On real
    positions (deals after random moves; most lost, some won) it must answer exactly as the
    same search making every child, with fewer positions, and the reductions must occur."""
    monkeypatch.setenv("SOLVER_DEBUG", "1")
    rng = random.Random(3)
    states = [_played_out(seed, rules, 70, rng) for seed in range(30)]
    answers, nodes = _same_answers(states, 300_000, "reductions", reductions=False)
    assert answers.count("lost") >= 8 and answers.count("won") >= 1, answers
    assert nodes[0] < nodes[1], nodes
    stats = re.findall(r"(\d+) asleep \((\d+) talon\)", capfd.readouterr().err)
    assert sum(int(a) for a, _ in stats) > 0 and sum(int(t) for _, t in stats) > 0


def test_talon_pairs_without_a_redeal_limit_leave_every_answer_unchanged():
    """Draw 1 without a redeal limit, a talon card goes on the tableau only together with a
    card put onto it at once (every talon card can be reached at any time, so that move can
    wait for its purpose). On real positions the answers must be those of the same search
    without the rule, in fewer positions; and small positions must be decided as the plain
    search decides them."""
    rules = Rules(redeal_limit=None)
    rng = random.Random(13)
    states = [_played_out(seed, rules, rng.choice((30, 50, 70)), rng) for seed in range(30)]
    answers, nodes = _same_answers(states, 400_000, "talon pairs", reductions=False)
    assert answers.count("lost") >= 5 and answers.count("won") >= 5, answers
    assert nodes[0] < nodes[1] * 0.7, nodes
    rng = random.Random(17)
    _agree([_runs_endgame(rng, rules) for _ in range(30)] + [_talon_endgame(rng, rules) for _ in range(30)], 40)


@pytest.mark.parametrize("rules", [Rules(redeal_limit=0), Rules(redeal_limit=1), Rules(redeal_limit=3)])
def test_relaxation_without_the_redeal_limit_agrees(rules, monkeypatch, capfd):
    """Draw 1 with a redeal limit, the exhaustive search first tries the same position without
    the limit: "lost" there is lost here, a win there counts only if it redeals within the
    limit (else the search under the limit decides). Both outcomes of that first pass must
    occur, and every answer must be the plain search's (small positions) or the answer
    without the relaxation (real positions)."""
    monkeypatch.setenv("SOLVER_DEBUG", "1")
    rng = random.Random(19)
    states = [_talon_endgame(rng, rules) for _ in range(30)] + [_random_endgame(rng, rules) for _ in range(20)]
    decided, outcomes, _ = _against_plain_search(states, quick_pass=False)
    assert decided >= 30 and "won" in outcomes, (decided, outcomes)
    _same_answers(
        [_played_out(seed, rules, 60, rng) for seed in range(15)], 400_000, "the relaxation", relaxation=False
    )
    passes = re.findall(r"dfs: status (-?\d+) .* layered (\d)", capfd.readouterr().err)
    relaxed_lost = sum(1 for status, layered in passes if status == "0" and layered == "0")
    relaxed_won = sum(1 for (s1, l1), (_, l2) in zip(passes, passes[1:]) if s1 == "1" and l1 == "0" and l2 != "0")
    assert relaxed_lost >= 3, passes
    if rules.redeal_limit == 0:  # wins that need a redeal: the search under the limit takes over
        assert relaxed_won >= 1, passes
