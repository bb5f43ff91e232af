"""Proofs that a game is won or lost whatever its few unseen cards are (core/proof.py)."""

from __future__ import annotations

import math

import pytest

from solitaire_coach.core.best import BestStrategy
from solitaire_coach.core.cards import Card
from solitaire_coach.core.moves import Move
from solitaire_coach.core.proof import ProofSearch, arrangements, fill_unseen, surely_shown
from solitaire_coach.core.solver import solve
from solitaire_coach.core.state import GameState, deal_for_seed

EMPTY = ((), (), (), (), (), (), ())


def spades_left(hidden: tuple, top: Card) -> GameState:
    """Every card on the foundations but the J♠, Q♠ and K♠: ``hidden`` face down in column 1
    (``None`` unseen) under ``top``; the other columns, stock and waste empty."""
    return GameState(
        hidden=(hidden,) + EMPTY[1:], faceup=((top,),) + EMPTY[1:], stock=(), waste=(), foundations=(13, 13, 13, 10)
    )


J, Q, K = Card.parse("JS"), Card.parse("QS"), Card.parse("KS")


def test_every_arrangement_once_in_a_fixed_order():
    view = spades_left((None, None), J)
    layouts = arrangements(view)
    assert [layout.hidden[0] for layout in layouts] == [(Q, K), (K, Q)]
    assert arrangements(view) == layouts


def test_fill_unseen_needs_one_card_a_place():
    view = spades_left((None, None), J)
    with pytest.raises(ValueError, match="1 cards unseen for 2 unknown places"):
        fill_unseen(view, [Q])


def test_lost_whatever_the_cards_are():
    # the Q♠ on top can go nowhere: the J♠ is under it, and no red king is on the table
    view = spades_left((None, None), Q)
    proof = ProofSearch().prove(view)
    assert proof is not None and proof.status == "lost" and proof.move is None
    assert (proof.unseen, proof.layouts) == (2, 2)
    assert proof.reason() == "The game cannot be won, however the 2 unseen cards lie"


def test_won_whatever_the_cards_are_with_a_line_that_depends_on_what_shows():
    # J♠ up, then the card turned up decides: Q♠ goes up at once; K♠ first needs the empty column
    view = spades_left((None, None), J)
    search = ProofSearch()
    proof = search.prove(view)
    assert proof is not None and proof.status == "won" and proof.move.text == "1-f"
    assert proof.reason() == "this line wins however the 2 unseen cards lie"
    for truth in arrangements(view):
        assert follow(search, view, truth).is_won()


def test_no_proof_when_one_arrangement_is_lost():
    # K♠ moved to an empty column, then the card under it: J♠ wins, Q♠ is stuck
    view = spades_left((None, None), K)
    results = [solve(t).status for t in arrangements(view)]
    assert sorted(results) == ["lost", "won"]
    assert ProofSearch().prove(view) is None


def test_too_many_unseen_cards_or_budget_spent_gives_no_proof():
    view = spades_left((None, None), J)
    assert ProofSearch(max_unseen=1).prove(view) is None
    assert ProofSearch(max_solves=1).prove(view) is None
    assert ProofSearch(max_solves=1).prove(spades_left((None, None), Q)) is None  # lost needs both searched


def follow(search: ProofSearch, view: GameState, truth: GameState, limit: int = 400) -> GameState:
    """Play the proof's moves on ``truth``, asking with the player's view only."""
    for _ in range(limit):
        if truth.is_won():
            return truth
        proof = search.prove(view) if not view.is_complete_knowledge() else None
        if proof is None:
            assert view.is_complete_knowledge(), "a proven game lost its proof on the way"
            result = solve(truth)
            assert result.won
            return truth.play_all(result.moves)
        assert proof.status == "won"
        view = surely_shown(view.play(proof.move), truth := truth.play(proof.move))
    raise AssertionError("the proof's line did not end")


def late_view(seed: int, face_down: int) -> tuple[GameState, GameState]:
    """A real position late in a solved deal with ``face_down`` face-down cards left, as
    the player sees it (the stock seen, the face-down cards unknown), and the true one."""
    truth = GameState.from_deal(deal_for_seed(seed))
    result = solve(truth, node_limit=200_000)
    if not result.won:
        return None, None
    for move in result.moves:
        if sum(len(h) for h in truth.hidden) <= face_down:
            break
        truth = truth.play(move)
    seen = [c for c in (*truth.stock, *truth.waste)]
    return truth.masked(seen), truth


@pytest.mark.parametrize("face_down", [4, 5])
@pytest.mark.parametrize("seed", range(8))
def test_a_proof_wins_every_arrangement_played_from_the_view_alone(seed, face_down):
    view, truth = late_view(seed, face_down)
    if view is None:
        pytest.skip("the solver did not win this deal")
    search = ProofSearch()
    proof = search.prove(view)
    if proof is None:
        return  # no proof: nothing promised
    assert proof.layouts == math.factorial(len(view.unseen_cards()))
    for layout in arrangements(view):
        if proof.status == "won":
            assert follow(search, view, layout).is_won()
        else:
            assert solve(layout, node_limit=1_000_000).status == "lost"


def test_real_positions_are_proven():
    proofs = [ProofSearch().prove(late_view(seed, 3)[0]) for seed in range(8)]
    assert sum(p is not None and p.status == "won" for p in proofs) >= 4


def test_best_says_lost_as_soon_as_every_arrangement_is_lost():
    # the Q♣ may still go up from the waste, but the Q♠ never moves off the J♠, K♠ and K♣
    view = GameState(
        hidden=((None, None, None),) + EMPTY[1:],
        faceup=((Q,),) + EMPTY[1:],
        stock=(),
        waste=(Card.parse("QC"),),
        foundations=(11, 13, 13, 10),
    )
    assert view.legal_moves()
    advice = BestStrategy(think_time=None, samples=4).advise(view, ())
    assert advice.status == "lost" and advice.proven
    assert advice.text == "The game cannot be won, however the 3 unseen cards lie"
    # without the proof search it cannot know yet: it plays on
    advice = BestStrategy(think_time=None, samples=4, prove=0).advise(view, ())
    assert advice.status == "move" and not advice.proven


def test_best_follows_a_proof_and_says_why():
    view = spades_left((None, None), J)
    advice = BestStrategy(think_time=None, samples=4).advise(view, ())
    assert advice.status == "move" and advice.proven and advice.move.text == "1-f"
    assert advice.reason.endswith("; this line wins however the 2 unseen cards lie")
    with pytest.raises(ValueError, match="prove must be >= 0"):
        BestStrategy(prove=-1)


def test_simulate_records_when_the_outcome_was_certain():
    from solitaire_coach.app.simulate import play_game

    record = play_game(deal_for_seed(3), "best", strategy_options={"think_time": None, "samples": 8})
    assert record.result == "won"
    assert record.proven_at is not None and 0 < record.proven_at < len(record.moves)
    before = play_game(deal_for_seed(3), "best", strategy_options={"think_time": None, "samples": 8, "prove": 0})
    assert before.proven_at is not None and record.proven_at < before.proven_at


def test_strength_bench_says_how_early_the_outcome_was_certain():
    from repo_scripts import load_script

    bench = load_script("bench/strength.py", "strength_bench")
    rows = [
        (0, "won", 100, [], 1.0, 60),
        (1, "won", 90, [], 1.0, 90),
        (2, "lost", 80, [], 1.0, 80),
        (3, "lost", 70, [], 1.0, None),
        (4, "won", 50, [], 1.0),
    ]  # an old run's row: no 6th field
    assert bench.certainty_line(rows) == (
        "outcome certain: won games said won a median 20 moves before the end "
        "(1 of 2 before their last move); 1 of 2 lost games ended on a proof"
    )


def test_no_proof_is_sought_while_a_card_waits_to_be_turned_up():
    # column 1 waits for its face-down card to be turned: the player sees it before choosing
    view = GameState(
        hidden=((None, None),) + EMPTY[1:],
        faceup=EMPTY,
        stock=(),
        waste=(Card.parse("JS"),),
        foundations=(13, 13, 13, 10),
    )
    search = ProofSearch()
    assert search.prove(view) is None


def test_one_unseen_card_is_no_guess():
    from solitaire_coach.core.proof import Proof

    assert Proof("won", 1, 1, None).reason() == "this line wins: the one unseen card is known"
    assert Proof("lost", 1, 1).reason() == "The game cannot be won: the one unseen card is known"


def test_simulate_says_how_early_the_outcome_was_certain(capsys):
    from solitaire_coach.app.cli import main
    from solitaire_coach.app.simulate import certainty

    c = certainty([("won", 100, 60), ("won", 90, 90), ("lost", 80, 80), ("lost", 70, None)])
    assert c == {
        "won_said_early_median": 20,
        "won_said_before_last": 1,
        "won_with_proof": 2,
        "lost": 2,
        "lost_proven": 1,
    }
    assert main(["simulate", "--seed", "3", "--count", "1", "--strategy", "baseline", "--quiet"]) == 0
    assert "outcome certain: " in capsys.readouterr().out


def test_asking_again_in_the_same_game_keeps_what_was_found():
    # the coach asks again after a picture that changed nothing: same history, same game
    view = spades_left((None, None), J)
    strategy = BestStrategy(think_time=None, samples=4)
    first = strategy.advise(view, [Move.parse("2-1")])  # any history: a game under way
    truth = arrangements(view)[0]
    after = surely_shown(view.play(first.move), truth.play(first.move))  # the card under it turned up
    history = [Move.parse("2-1"), first.move]
    second = strategy.advise(after, history)
    seen, found = set(strategy._visited), dict(strategy._proofs._winning)
    assert second.proven and len(seen) == 2 and found
    assert strategy.advise(after, history) == second
    assert strategy._visited == seen and strategy._proofs._winning == found


def test_a_view_proven_lost_stays_lost_after_a_search_that_failed_to_win_it():
    # the search for a winning line marks the view; asked again it still proves the loss
    view = spades_left((None, None), Q)
    search = ProofSearch()
    search._start_budget(search.max_solves)
    assert not search._won(view, arrangements(view))
    assert search._no_line, "the failed search for a winning line is remembered"
    proof = search.prove(view)
    assert proof is not None and proof.status == "lost"


def test_draw_3_counts_only_the_waste_top_as_shown_and_the_table_follows_the_proof():
    # J♥ Q♥ K♥ on top of two waste cards never seen (the Q♠ and J♠), the K♠ in column 1:
    # a proof may count on each waste card only once it is on top, as a camera shows it
    from solitaire_coach.core.rules import Rules
    from solitaire_coach.core.tracker import TableTracker
    from solitaire_coach.core.virtual_table import VirtualTable

    rules = Rules(draw_count=3, redeal_limit=0)
    view = GameState(
        hidden=EMPTY,
        faceup=((K,),) + EMPTY[1:],
        stock=(),
        waste=(None, None, Card.parse("KH"), Card.parse("QH"), Card.parse("JH")),
        foundations=(13, 13, 10, 10),
        rules=rules,
    )
    assert ProofSearch().prove(view).status == "won"
    for truth in arrangements(view):
        search = ProofSearch()
        table = VirtualTable(truth, fan=3)
        tracker = TableTracker(rules, state=view, history=[])
        for _ in range(12):
            if table.state.is_won():
                break
            proof = search.prove(tracker.state)
            assert proof is not None and proof.status == "won", "the proof was lost on the way"
            table.perform(proof.move)
            assert tracker.update(table.snapshot()).kind == "moves"
        assert table.state.is_won()
