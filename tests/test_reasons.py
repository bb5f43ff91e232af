"""Every reason an advisor gives is true of its position (item 3 of issue 3).

Positions come from deterministic games of both strategies on the virtual table; each
clause of each reason is read back and checked against the position it was said for."""

from __future__ import annotations

import re
from dataclasses import replace

from solitaire_coach.app.simulate import play_game
from solitaire_coach.core import GameState, Rules, deal_for_seed
from solitaire_coach.core.advisor import describe_move, make_strategy
from solitaire_coach.core.best import BestStrategy, explain, go_round_reason
from solitaire_coach.core.cards import KING, Card
from solitaire_coach.core.moves import Move, MoveKind
from solitaire_coach.core.solver import solve

DRAW3 = Rules(draw_count=3, redeal_limit=None)
RETURNS = Rules(draw_count=1, redeal_limit=None, foundation_return=True)


def test_a_turn_of_the_last_cards_says_how_many_it_turns():
    """In draw 3 a turn of a stock with fewer than three cards left turns only those."""
    state = GameState.from_deal(deal_for_seed(0), DRAW3).play_all([Move.draw()] * 6)
    assert len(state.stock) == 3 and describe_move(state, Move.draw()) == "Turn the last three stock cards"
    said = {}
    for left in (1, 2, 3, 4):
        moved = len(state.stock) - left if left <= 3 else 0
        position = (
            state if left > 3 else replace(state, stock=state.stock[moved:], waste=state.waste + state.stock[:moved])
        )
        if left > 3:
            position = GameState.from_deal(deal_for_seed(0), DRAW3)
        said[left] = describe_move(position, Move.draw())
    assert said == {
        1: "Turn the last stock card",
        2: "Turn the last two stock cards",
        3: "Turn the last three stock cards",
        4: "Turn the next three stock cards",
    }
    assert describe_move(GameState.from_deal(deal_for_seed(0)), Move.draw()) == "Turn the next stock card"


# --- the reasons read back -------------------------------------------------------------


def _under(state: GameState, move: Move):
    """The card a column-to-column move uncovers (None when it takes the whole run)."""
    run = state.faceup[move.source]
    rest = run[: len(run) - len(state.moving_cards(move))]
    return rest[-1] if rest else None


def _fits_now(state: GameState, card) -> bool:
    return state.foundations[card.suit] + 1 == card.rank or any(
        (run and card.goes_on_tableau(run[-1])) or (not run and not state.hidden[c] and card.rank == KING)
        for c, run in enumerate(state.faceup)
    )


def _clause_problem(state: GameState, move: Move, clause: str) -> str | None:
    """Why ``clause`` (one part of a reason for ``move`` in ``state``) is false, or None when
    it is true; "unknown clause" for words this reader does not know."""
    k = move.kind
    on_foundation = k in (MoveKind.COLUMN_TO_FOUNDATION, MoveKind.WASTE_TO_FOUNDATION)
    cards = () if k in (MoveKind.DRAW, MoveKind.REDEAL) else state.moving_cards(move)
    after = state.play(move)
    if m := re.fullmatch(r"(?:and it )?frees a face-down card in column (\d)", clause):
        col = int(m[1]) - 1
        ok = (
            k in (MoveKind.COLUMN_TO_COLUMN, MoveKind.COLUMN_TO_FOUNDATION)
            and move.source == col
            and (after.awaiting_flip(col) or len(after.hidden[col]) < len(state.hidden[col]))
        )  # a known card flips
        return None if ok else "no face-down card is freed there"
    if m := re.fullmatch(r"(?:and it )?empties column (\d)( for a king)?", clause):
        col = int(m[1]) - 1
        return None if move.source == col and not after.faceup[col] and not after.hidden[col] else "not emptied"
    if m := re.fullmatch(r"(?:the )?(\S+) (?:goes to|is needed on) the foundation", clause):
        return None if on_foundation and cards[0].symbol == m[1] else "not a foundation move of that card"
    if m := re.fullmatch(r"the (\S+) can go up safely(?:: no card can ever need it)?", clause):
        card = cards[0] if on_foundation else None
        other = () if card is None else ((0, 3) if card.is_red else (1, 2))
        ok = (
            card is not None
            and card.symbol == m[1]
            and (card.rank <= 2 or all(state.foundations[s] >= card.rank - 1 for s in other))
        )
        return None if ok else "not safe"
    if clause == "and no card can ever need it":
        card = cards[0]
        other = (0, 3) if card.is_red else (1, 2)
        return None if card.rank <= 2 or all(state.foundations[s] >= card.rank - 1 for s in other) else "not safe"
    if m := re.fullmatch(r"(?:lets|uncovers the) (\S+) (?:go to|for) the foundation", clause):
        card = _under(state, move) if k is MoveKind.COLUMN_TO_COLUMN else None
        ok = card is not None and card.symbol == m[1] and state.foundations[card.suit] + 1 == card.rank
        return None if ok else "that card is not uncovered for the foundation"
    if m := re.fullmatch(r"uncovers the (\S+) in column (\d)", clause):
        card = _under(state, move) if k is MoveKind.COLUMN_TO_COLUMN else None
        return None if card is not None and card.symbol == m[1] and move.source + 1 == int(m[2]) else "not uncovered"
    if clause in ("a king fills the empty column", "plays the waste card") or re.fullmatch(
        r"gives the (\S+) the empty column (\d)", clause
    ):
        ok = k is MoveKind.WASTE_TO_COLUMN and (
            not clause.startswith(("a king", "gives")) or not state.faceup[move.target]
        )
        return None if ok else "not a waste card played to an empty column"
    if m := re.fullmatch(r"plays the (\S+) from the waste(?: to reach the (?:cards?|(\S+)) under it)?", clause):
        if k is not MoveKind.WASTE_TO_COLUMN or cards[0].symbol != m[1]:
            return "not that waste card"
        if "under it" in clause and len(state.waste) < 2:
            return "no card lies under it"
        if m[2] and (state.waste[-2] is None or state.waste[-2].symbol != m[2]):
            return "another card lies under it"
        return None
    if m := re.fullmatch(r"brings the (\S+) back from the (\S) foundation", clause):
        return None if k is MoveKind.FOUNDATION_TO_COLUMN and cards[0].symbol == m[1] else "not a foundation return"
    if m := re.fullmatch(
        r"brings the (\S+) back to hold the (\S+) (from the waste|from column (\d)|in the stock)", clause
    ):
        if k is not MoveKind.FOUNDATION_TO_COLUMN or cards[0].symbol != m[1]:
            return "not a foundation return"
        back = cards[0]
        place = (
            [state.waste[-1]]
            if m[3] == "from the waste" and state.waste
            else list(state.faceup[int(m[4]) - 1])
            if m[4]
            else list(state.stock) + list(state.waste[:-1])
        )
        held = [c for c in place if c is not None and c.symbol == m[2]]
        ok = held and held[0].rank == back.rank - 1 and held[0].is_red != back.is_red
        return None if ok else "that card is not there, or cannot go on it"
    if clause in (
        "see what the stock holds before committing a card",
        "nothing on the table can move: see what the stock holds",
    ):
        table = [x for x in state.legal_moves() if x.kind not in (MoveKind.DRAW, MoveKind.REDEAL)]
        ok = k is MoveKind.DRAW and after.waste[-1] is None or state.stock[0] is None
        ok = ok and bool(table) == clause.startswith("see")
        return None if ok else "the turn shows nothing unseen, or the table's moves are misstated"
    if m := re.fullmatch(
        r"brings up the (\S+) (for the foundation|for the empty column (\d)|"
        r"to go on the (\S+) in column (\d))",
        clause,
    ):
        card = after.waste[-1]
        if k is not MoveKind.DRAW or card is None or card.symbol != m[1]:
            return "the turn does not bring that card up"
        if m[2] == "for the foundation":
            return None if state.foundations[card.suit] + 1 == card.rank else "it cannot go to the foundation"
        if m[3]:
            return None if card.rank == KING and not state.faceup[int(m[3]) - 1] else "no place there"
        top = state.column_top(int(m[5]) - 1)
        return None if top is not None and top.symbol == m[4] and card.goes_on_tableau(top) else "it does not fit there"
    if clause == "brings the next stock card up to play":
        card = after.waste[-1] if k is MoveKind.DRAW else None
        return None if card is not None and _fits_now(state, card) else "the card it brings up cannot be played"
    if m := re.fullmatch(r"goes on toward the (\S+) in the stock, playable now", clause):
        card = next((c for c in after.stock if c is not None and c.symbol == m[1]), None)
        return None if k is MoveKind.DRAW and card is not None and _fits_now(state, card) else "no such card"
    if clause == "goes through the stock: nothing this pass can be played yet":
        turned, later = [], state
        while later.stock:  # the cards this pass brings to the top of the waste
            later = later.play(Move.draw())
            turned.append(later.waste[-1])
        ok = k is MoveKind.DRAW and not any(c is not None and _fits_now(state, c) for c in turned)
        return None if ok else "a card it turns up can be played"
    if clause == "the stock is used up: go through it again":
        return None if k is MoveKind.REDEAL and not state.stock else "the stock is not used up"
    if clause == "no move on the table makes progress for this player":  # the baseline's turn
        return None if k is MoveKind.DRAW else "not a turn of the stock"
    if clause in ("every card is known: a win follows this move", "every card is known, but the search found no win"):
        return None if state.is_complete_knowledge() else "a card is unseen"
    if clause == "the only move":
        return None if state.legal_moves() == [move] else "not the only move"
    if clause == "the only move that makes progress":
        return None
    if m := re.fullmatch(r"wins (\d+) of (\d+) sampled layouts?(: game looks lost)?", clause):
        return None if not m[3] or m[1] == "0" else "looks lost with a sampled win"
    if clause.startswith("go round again"):
        if m := re.fullmatch(r"go round again: the (\S+) passed by is playable now", clause):
            if state.stock and state.redeals_left() == 0:
                return "no redeal left: the talon does not come round again"
            talon = [c for c in (*state.stock, *state.waste[:-1]) if c is not None and c.symbol == m[1]]
            return None if talon and _fits_now(state, talon[0]) else "that card cannot be played"
        return None if clause == "go round again: each move repeats a past position" else "unknown clause"
    if clause.startswith("keep turning"):
        if state.redeals_left() != 0:
            return "a redeal is left: say go round again"
        if m := re.fullmatch(r"keep turning: the (\S+) in the stock is playable now", clause):
            talon = [c for c in state.stock if c is not None and c.symbol == m[1]]
            return None if talon and _fits_now(state, talon[0]) else "that card cannot be played"
        return None if clause == "keep turning: each move repeats a past position" else "unknown clause"
    if re.fullmatch(r"every card is known: this line wins in \d+ moves?", clause):
        return None if state.is_complete_knowledge() else "a card is unseen"  # the count: by the game's end
    if clause == "this line wins: the one unseen card is known":
        return None if len(state.unseen_cards()) == 1 else "not one card unseen"
    if m := re.fullmatch(r"this line wins however the (\d+) unseen cards lie", clause):
        ok = len(state.unseen_cards()) == int(m[1]) > 1
        return None if ok else "the unseen cards are miscounted"  # the win: by the game's end
    return "unknown clause"


def reason_problems(state: GameState, move: Move, reason: str) -> list[str]:
    """Every false clause of ``reason`` for ``move`` in ``state``, with the reason."""
    clauses = re.split(r"; |, (?=and (?:it|no)\b)", reason)
    return [
        f"{clause!r}: {why} ({describe_move(state, move)})"
        for clause in clauses
        if (why := _clause_problem(state, move, clause)) is not None
    ]


def test_a_turn_of_known_stock_cards_says_what_it_brings_up_truly():
    """After a redeal every stock card is known: a turn "brings the next stock card up to
    play" only if that card can be played; otherwise the reason says what the pass is for."""
    state = GameState.from_deal(deal_for_seed(0))
    while state.stock:
        state = state.play(Move.draw())
    state = state.play(Move.redeal())
    said, problems = set(), []
    while state.stock:
        reason = explain(state, Move.draw())
        said.add(reason.split(" the ")[0])
        problems += reason_problems(state, Move.draw(), reason)
        state = state.play(Move.draw())
    assert not problems, "\n".join(problems)
    assert {"brings up", "goes on toward"} <= said


def test_every_reason_best_can_give_is_true_of_its_position():
    """``explain`` (and its short form) for every legal move of every position, as the player
    sees it (unseen cards masked), in 18 games of both draw counts and with returns from the
    foundations (a return names the seen card it makes room for): no clause of a reason is false."""
    problems, clauses, returns, held = [], 0, 0, 0
    for rules in (Rules(), DRAW3, RETURNS):
        for seed in range(6):
            record = play_game(deal_for_seed(seed), "baseline", rules, keep_states=True)
            seen = set()
            for truth in record.states:
                seen.update(c for run in truth.faceup for c in run)
                seen.update(c for c in truth.waste[-rules.draw_count :])
                view = truth.masked(seen)
                if any(view.awaiting_flip(c) for c in range(7)):
                    continue
                for move in view.legal_moves():
                    returns += move.kind is MoveKind.FOUNDATION_TO_COLUMN
                    held += "back to hold" in explain(view, move)
                    for short in (False, True):
                        reason = explain(view, move, short)
                        clauses += reason.count(";") + 1
                        problems += [
                            f"seed {seed} draw {rules.draw_count}: {p}" for p in reason_problems(view, move, reason)
                        ]
    assert clauses > 2000 and returns > 100 and held > 10
    assert not problems, "\n".join(problems[:10])


def test_going_round_the_stock_again_claims_a_playable_card_only_when_there_is_one():
    """Nothing can ever be played here (9♣ 9♠ Q♣ fit on neither black 5), so "a card passed
    by can still be played" would be false; with a 4♦ in the stock the card is named."""
    c = Card.parse
    hidden = ((None,) * 23, (None,) * 24) + ((),) * 5
    faceup = ((c("5C"),), (c("5S"),)) + ((),) * 5
    state = GameState(hidden, faceup, (c("9C"), c("9S")), (c("QC"),), rules=Rules(draw_count=1, redeal_limit=None))
    strategy, history, reasons = BestStrategy(think_time=None, samples=4, min_samples=2, node_limit=400), [], []
    for _ in range(20):
        advice = strategy.advise(state, history)
        if advice.status != "move":
            break
        reasons.append(advice.reason)
        assert not reason_problems(state, advice.move, advice.reason), advice.line()
        state = state.play(advice.move)
        history.append(advice.move)
    assert sum("go round again" in r for r in reasons) == 4
    fits = replace(state, stock=(c("9C"), c("4D")))
    assert go_round_reason(fits) == "go round again: the 4♦ passed by is playable now"


class _Recording:
    """A strategy that keeps every position it was shown with the advice it gave."""

    name = "best"

    def __init__(self, inner) -> None:
        self.inner, self.said = inner, []

    def advise(self, state, history=()):
        advice = self.inner.advise(state, history)
        self.said.append((state, advice))
        return advice


def test_every_advice_of_whole_best_games_is_true():
    """``best`` (deterministic settings) plays 8 games on the virtual table: every clause of
    every reason is true of the position it was said for; "this line wins in N moves" is
    won in exactly N moves and a proof of a win is followed by a win; a proven loss is lost on
    the true layout; once said proven, every later advice is proven too."""
    fast = dict(think_time=None, samples=4, min_samples=2, node_limit=400, solve_node_limit=50_000)
    problems, wins_said = [], 0
    for draw, seed in [(1, 0), (1, 2), (1, 3), (1, 4), (1, 5), (3, 0), (3, 1), (3, 2)]:
        rules = Rules(draw_count=draw, redeal_limit=3 if draw == 1 else None)
        strategy = _Recording(BestStrategy(**fast))
        record = play_game(deal_for_seed(seed), strategy, rules, keep_states=True)
        where = f"draw {draw} seed {seed}"
        proven = [advice.proven for _, advice in strategy.said]
        if True in proven and not all(proven[proven.index(True) :]):
            problems.append(f"{where}: proven, then not")
        for i, ((view, advice), truth) in enumerate(zip(strategy.said, record.states)):
            if advice.status == "move":
                assert advice.text == describe_move(view, advice.move)
                problems += [f"{where} move {i}: {p}" for p in reason_problems(view, advice.move, advice.reason)]
                if m := re.search(r"this line wins in (\d+) moves?", advice.reason):
                    wins_said += 1
                    if record.result != "won" or len(record.moves) - i != int(m[1]):
                        problems.append(f"{where} move {i}: {advice.line()}, but {len(record.moves) - i} were played")
                if "this line wins" in advice.reason and record.result != "won":
                    problems.append(f"{where} move {i}: said won, but lost")
            elif advice.status == "lost" and advice.proven and view.legal_moves():
                if solve(truth, node_limit=200_000, relaxation=False).won:
                    problems.append(f"{where} move {i}: said lost, but the true layout is won")
    assert wins_said > 50
    assert not problems, "\n".join(problems[:10])


def test_every_baseline_advice_has_a_true_reason():
    """The baseline says why for each move too, turns of the stock included, and truly."""
    problems, turns = [], 0
    for rules in (Rules(), DRAW3):
        for seed in range(6):
            strategy = _Recording(make_strategy("baseline"))
            play_game(deal_for_seed(seed), strategy, rules)
            for view, advice in strategy.said:
                if advice.status == "move":
                    turns += advice.move.kind in (MoveKind.DRAW, MoveKind.REDEAL)
                    if not advice.reason:
                        problems.append(f"seed {seed} draw {rules.draw_count}: no reason for {advice.text}")
                    problems += reason_problems(view, advice.move, advice.reason) if advice.reason else []
    assert turns > 100
    assert not problems, "\n".join(problems[:10])


def test_with_every_card_known_nothing_is_called_sampled():
    """When the exact search of a fully known position gives up at its limit, the move is
    chosen on that one true layout: the reason says so, not "wins 0 of 1 sampled layout"."""
    state = GameState.from_deal(deal_for_seed(1))
    strategy = BestStrategy(think_time=None, samples=4, min_samples=2, node_limit=50, solve_node_limit=1)
    advice = strategy.advise(state, [])
    assert state.is_complete_knowledge() and advice.status == "move", advice.line()
    assert "sampled" not in advice.reason and not reason_problems(state, advice.move, advice.reason), advice.line()


def test_every_reason_is_short_enough_to_read_at_a_glance():
    """Reasons are drawn under the advice on the camera picture: each fits in ``REASON_MAX``
    characters (two lines at 1280x720). Every advice of whole games of both strategies, and
    every legal move of their positions with the longest extra of each kind (going round the
    stock: as said there)."""
    from solitaire_coach.core.best import REASON_MAX, reason_for
    from solitaire_coach.core.proof import Proof

    extras = [
        "",
        "the only move that makes progress",
        "wins 100 of 100 sampled layouts",
        "wins 0 of 100 sampled layouts: game looks lost",
        "every card is known: this line wins in 150 moves",
        "every card is known, but the search found no win",
        "go round again: the 10♥ passed by is playable now",
        Proof("won", 5, 120).reason(),
        Proof("won", 1, 1).reason(),
    ]
    fast = dict(think_time=None, samples=4, min_samples=2, node_limit=400, solve_node_limit=50_000)
    long, reasons = [], 0
    for draw, seed in [(1, 0), (1, 3), (1, 5), (3, 0), (3, 2)]:
        rules = Rules(draw_count=draw, redeal_limit=3 if draw == 1 else None)
        for strategy in (_Recording(BestStrategy(**fast)), _Recording(make_strategy("baseline"))):
            play_game(deal_for_seed(seed), strategy, rules)
            for view, advice in strategy.said:
                said = [advice.reason or advice.text]
                if strategy.inner.name == "best" and advice.status == "move":
                    said += [
                        reason_for(view, move, extra)
                        for move in view.legal_moves()
                        for extra in (*extras, go_round_reason(view))
                    ]
                reasons += len(said)
                long += [f"draw {draw} seed {seed}: {len(r)} {r!r}" for r in said if len(r) > REASON_MAX]
    assert REASON_MAX <= 110 and reasons > 10_000
    assert not long, "\n".join(long[:10])


def test_going_on_through_the_stock_with_no_redeal_left_names_no_card_the_turns_cannot_reach():
    """With no redeal left (``--redeals 0``, or the last one used) turning the stock never
    brings back a card passed by in the waste: "go round again: the 4♦ passed by is
    playable now" was said of a 4♦ under the waste's top (h6 review). A card still in the
    stock is named; the turns go on through the stock, not round again."""
    c = Card.parse
    hidden = ((None,) * 22, (None,) * 24) + ((),) * 5
    faceup = ((c("5C"),), (c("5S"),)) + ((),) * 5
    for rules, used in (
        (Rules(redeal_limit=0), 0),
        (Rules(redeal_limit=2), 2),
        (Rules(draw_count=3, redeal_limit=1), 1),
    ):
        state = GameState(hidden, faceup, (c("9C"), c("9S")), (c("4D"), c("QC")), redeals_used=used, rules=rules)
        assert state.redeals_left() == 0
        said = go_round_reason(state)
        assert "4♦" not in said and "round again" not in said, said
        assert (
            go_round_reason(replace(state, stock=(c("9C"), c("4H"))))
            == "keep turning: the 4♥ in the stock is playable now"
        )
        # with a redeal left the waste's cards come round again
        more = replace(state, redeals_used=used - 1) if used else replace(state, rules=replace(rules, redeal_limit=1))
        assert go_round_reason(more) == "go round again: the 4♦ passed by is playable now"
