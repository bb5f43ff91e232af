"""Moves the coach did not see: every count of unseen stock turns kept open, the stock
pile read from the picture, advice legal in every open explanation, a game in progress
never taken for a fresh deal."""

import pytest

from solitaire_coach.core import UNKNOWN, Move, MoveKind, Snapshot, SnapshotParseError, deal_for_seed, parse_snapshot
from solitaire_coach.core.advisor import Advice, make_strategy
from solitaire_coach.core.open_advice import advise_open
from solitaire_coach.core.tracker import OPEN_HYPOTHESES, TableTracker
from solitaire_coach.core.virtual_table import VirtualTable, in_sync


def test_the_stock_line_is_read_written_and_checked():
    line = "7H,XX,XX,XX,XX,2C,3D,4S,5H,6C,7D,8S"
    assert parse_snapshot(line + "\nstock: pile\n").stock is True
    assert parse_snapshot(line + "\nstock: EMPTY\n").stock is False
    assert parse_snapshot(line + "\nstock:\n").stock is None
    snap = parse_snapshot(line + "\nstock: empty\n")
    assert parse_snapshot(snap.text()) == snap
    with pytest.raises(SnapshotParseError, match="line 2: stock: 'some' is not 'pile'"):
        parse_snapshot(line + "\nstock: some\n")
    with pytest.raises(SnapshotParseError, match="stock"):
        Snapshot(snap.slots, stock="yes")


@pytest.mark.parametrize("unseen", [2, 4])
def test_several_unseen_stock_turns_stay_open_until_a_card_shows_which(unseen):
    """Draws seen as one: the tracker with open turns keeps the real count among its
    explanations, and advice in every explanation is legal on the real table."""
    strategy = make_strategy("baseline")
    for seed in range(3):
        table = VirtualTable.from_deal(deal_for_seed(seed))
        tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
        tracker.update(table.snapshot())
        for _ in range(unseen):
            table.perform(Move.draw())
        assert tracker.update(table.snapshot()).accepted
        assert any(in_sync(s, table.state) for s in tracker.explanations)
        for _ in range(30):
            advice = advise_open(strategy, tracker.explanations, tracker.history)
            if advice.status == "move":
                move = advice.move
            elif advice.status == "check":
                move = next(m for m in advice.moves if table.state.is_legal(m))
            else:
                break
            assert table.state.is_legal(move), (seed, advice)
            table.perform(move)
            assert tracker.update(table.snapshot()).accepted
            assert any(in_sync(s, table.state) for s in tracker.explanations), seed


def test_a_person_who_flicks_through_the_stock_again_and_again_is_followed():
    """Four draws seen as one, four times over, with the stock pile in the picture: the
    real count drifts ever further from the likeliest (12 turns more by the fourth read,
    over the margin), yet stays among the explanations kept open (every split of the
    stock and the waste is kept after a read of a stock turn). Before, it was dropped at
    the third read, and nothing said so."""
    for seed in range(2):
        table = VirtualTable.from_deal(deal_for_seed(seed))
        tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
        tracker.update(table.snapshot(with_stock=True))
        for _ in range(4):
            for _ in range(4):
                table.perform(Move.draw())
            assert tracker.update(table.snapshot(with_stock=True)).accepted
            assert any(in_sync(s, table.state) for s in tracker.explanations), seed
        assert not in_sync(tracker.state, table.state)  # the likeliest is still one draw a read


def test_without_open_turns_the_fewest_turns_win_as_before():
    table = VirtualTable.from_deal(deal_for_seed(1))
    tracker = TableTracker()
    tracker.update(table.snapshot())
    for _ in range(5):
        table.perform(Move.draw())
    report = tracker.update(table.snapshot())
    assert report.moves == (Move.draw(),)
    assert not any(in_sync(s, table.state) for s in tracker.explanations)


def test_a_stock_read_empty_rules_out_the_explanations_with_cards_left():
    table = VirtualTable.from_deal(deal_for_seed(2))
    tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
    tracker.update(table.snapshot(with_stock=True))
    while table.state.stock:
        table.perform(Move.draw())
    tracker.update(table.snapshot(with_stock=True))
    assert tracker.explanations and all(not s.stock for s in tracker.explanations)
    assert any(in_sync(s, table.state) for s in tracker.explanations)


class _Fixed:
    """A strategy that advises one move wherever it is legal (else the next of its list)."""

    name = "fixed"

    def __init__(self, *moves):
        self.moves = moves

    def advise(self, state, history=()):
        for move in self.moves:
            if state.is_legal(move):
                return Advice("move", move, move.text)
        return Advice("lost", None, "no move")


def test_advice_the_open_positions_disagree_on_asks_to_check_the_stock():
    table = VirtualTable.from_deal(deal_for_seed(3))
    one = table.state
    while len(one.stock) > 1:
        one = one.play(Move.draw())
    empty = one.play(Move.draw())
    advice = advise_open(_Fixed(Move.draw(), Move.redeal()), [one, empty])
    assert advice.status == "check" and set(advice.moves) == {Move.draw(), Move.redeal()}
    assert "if the stock is empty, turn the waste over" in advice.text
    # a move legal in both is advised as it is
    assert advise_open(_Fixed(Move.draw()), [one, one]).move == Move.draw()


def test_a_table_with_runs_longer_than_one_card_is_no_fresh_deal():
    line = "7H,XX,XX,XX,XX,2C,3D,4S,5H,6C,7D,8S"
    report = TableTracker().update(parse_snapshot(line + "\nruns: 2C|3D|4S|5H|6C|8C 7D|8S\n"))
    assert report.kind == "waiting"
    assert "slot 11 (column 6)" in report.message and "a game in progress" in report.message
    assert TableTracker().update(parse_snapshot(line + "\nruns: 2C|3D|4S|5H|6C|7D|8S\n")).kind == "started"


def test_the_slack_of_open_turns_is_journalled():
    table = VirtualTable.from_deal(deal_for_seed(4))
    tracker = TableTracker(open_turns=True)
    tracker.update(table.snapshot())
    for _ in range(4):
        table.perform(Move.draw())
    tracker.update(table.snapshot())
    data = tracker.to_dict()
    assert any(alt.get("slack") for alt in data["alternatives"])
    again = TableTracker.from_dict(data)
    assert [h.slack for h in again._hypotheses] == [h.slack for h in tracker._hypotheses]
    bad = dict(data, alternatives=[dict(data["alternatives"][0], slack=-1)])
    with pytest.raises(ValueError, match="the slack of alternative 1"):
        TableTracker.from_dict(bad)


def test_the_splits_of_the_talon_kept_open_are_journalled_as_such():
    """The splits kept open after a stock turn (``widened``) cover no explanation followed
    aside; a restart keeps them as such."""
    table = VirtualTable.from_deal(deal_for_seed(4))
    tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
    tracker.update(table.snapshot(with_stock=True))
    table.perform(Move.draw())
    tracker.update(table.snapshot(with_stock=True))
    data = tracker.to_dict()
    assert any(alt.get("widened") for alt in data["alternatives"])
    again = TableTracker.from_dict(data)
    assert [h.widened for h in again._hypotheses] == [h.widened for h in tracker._hypotheses]
    bad = dict(data, alternatives=[dict(data["alternatives"][0], widened="yes")])
    with pytest.raises(ValueError, match="the widened flag of alternative 1"):
        TableTracker.from_dict(bad)


def test_a_card_the_runs_line_shows_on_a_fitting_card_is_not_blamed():
    """The journal missed moves (as in the issue: '3♥ was put on 6♠ in column 4: take it
    back' while the runs line showed the legal run 6S 5D 4C 3H): a card whose run read
    shows it on a card it fits is not blamed; without the runs line it still is."""
    from solitaire_coach.core.tracker import misplaced_cards

    for seed in range(500):
        state = VirtualTable.from_deal(deal_for_seed(seed)).state.masked()
        w = state.waste_top()
        for column, run in enumerate(state.faceup):
            top = run[-1]
            if top.rank != w.rank + 2 or top.is_red != w.is_red:
                continue
            middle = [c for c in state.unseen_cards() if c.rank == w.rank + 1 and c.is_red != w.is_red]
            if not middle:
                continue
            slots = list(VirtualTable.from_deal(deal_for_seed(seed)).snapshot().slots)
            slots[5 + column] = w
            slots[0] = UNKNOWN
            runs = [None] * 7
            runs[column] = (top, middle[0], w)
            plain, read = Snapshot(tuple(slots)), Snapshot(tuple(slots), tuple(runs))
            assert any("take it back" in p.text for p in misplaced_cards(state, plain))
            assert not misplaced_cards(state, read)
            return
    pytest.fail("no deal of 500 lays out the case")


def test_the_coach_says_once_that_it_cannot_follow_and_offers_a_way_out():
    from solitaire_coach.app.coach import CoachSession
    from solitaire_coach.core import Rules

    said = []
    coach = CoachSession(Rules(), make_strategy("baseline"), None, say=said.append)
    table = VirtualTable.from_deal(deal_for_seed(0))
    coach.process_text(table.snapshot().text())
    slots = list(table.snapshot().slots)
    slots[5], slots[11] = slots[11], slots[5]  # two column tops swapped: no legal move does that
    wrong = Snapshot(tuple(slots)).text()
    said.clear()
    assert coach.process_text(wrong).kind == "inconsistent"
    assert coach.process_text(wrong).kind == "inconsistent"
    assert said[0].startswith("that is not a legal continuation: ")
    assert said[1] != said[0] and "as said above" in said[1] and "--new" in said[1] and "take back" in said[1]
    coach.process_text(table.snapshot().text())
    said.clear()
    coach.process_text(wrong)
    assert said[0].startswith("that is not a legal continuation: ") and "as said above" not in said[0]


def _never_silently_wrong(session, table) -> None:
    """The target: an accepted read either keeps the real position among the open
    explanations or says that the coach is unsure (a check, or advice marked unsure)."""
    advice = session.last_advice
    if advice is not None and (advice.status == "check" or advice.unsure):
        return
    assert any(in_sync(s, table.state) for s in session.tracker.explanations)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_after_many_unseen_moves_the_coach_is_never_silently_wrong(seed):
    from solitaire_coach.app.coach import CoachSession
    from solitaire_coach.core.rules import DEFAULT_RULES

    strategy = make_strategy("baseline")
    table = VirtualTable.from_deal(deal_for_seed(seed))
    session = CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=lambda _: None)
    session.process_text(table.snapshot(with_stock=True).text())
    # five moves unseen: stock turns between the moves a player would make
    for k in range(5):
        advice = strategy.advise(table.state.masked(), ())
        move = Move.draw() if k % 2 == 0 or advice.status != "move" else advice.move
        if not table.state.is_legal(move):
            break
        table.perform(move)
    for _ in range(25):
        report = session.process_text(table.snapshot(with_stock=True).text())
        if report is not None and report.accepted:
            _never_silently_wrong(session, table)
        advice = session.last_advice
        moves = advice.moves if advice is not None and advice.status == "check" else ()
        move = advice.move if advice is not None and advice.status == "move" else None
        move = move if move is not None and table.state.is_legal(move) else None
        move = move or next((m for m in moves if table.state.is_legal(m)), None)
        if move is None:
            move = strategy.advise(table.state.masked(), ()).move
        if move is None or not table.state.is_legal(move):
            break
        table.perform(move)


def test_a_guessed_position_is_journalled_and_said_after_a_restart():
    from solitaire_coach.app.coach import UNSURE_NOTE, _said_unsure

    table = VirtualTable.from_deal(deal_for_seed(5))
    tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
    tracker.update(table.snapshot())
    assert not tracker.guessed and "guessed" not in tracker.to_dict()
    tracker.guessed = True
    again = TableTracker.from_dict(tracker.to_dict())
    assert again.guessed
    with pytest.raises(ValueError, match="the guessed flag must be true or false, not"):
        TableTracker.from_dict({**tracker.to_dict(), "guessed": "yes"})
    advice = advise_open(make_strategy("baseline"), again.explanations, again.history)
    said = _said_unsure(advice, again.guessed)
    assert said.unsure and said.move == advice.move and UNSURE_NOTE in said.line()
    assert _said_unsure(advice, False) == advice
    # a verdict on the game (give up) rests on the position too: said unsure as well
    lost = Advice("lost", None, "No move this player makes progress with is left")
    assert _said_unsure(lost, True).unsure and UNSURE_NOTE in _said_unsure(lost, True).line()


@pytest.mark.parametrize(("unseen", "guessed"), [(["6-f"], False), (["6-f", "2-5"], True)])
def test_a_resumed_journal_behind_by_several_steps_makes_the_advice_unsure(tmp_path, unseen, guessed):
    from solitaire_coach.app.coach import UNSURE_NOTE, CoachSession
    from solitaire_coach.app.journal import Journal
    from solitaire_coach.core.rules import DEFAULT_RULES

    table = VirtualTable.from_deal(deal_for_seed(0))
    path = tmp_path / "journal.json"
    first = CoachSession(DEFAULT_RULES, make_strategy("baseline"), Journal(path), say=lambda _: None)
    first.process_text(table.snapshot(with_stock=True).text())
    for text in unseen:  # played while the coach was stopped
        table.perform(Move.parse(text))
    said = []
    again = CoachSession(DEFAULT_RULES, make_strategy("baseline"), Journal(path), say=said.append)
    report = again.process_text(table.snapshot(with_stock=True).text())
    assert [m.text for m in report.moves] == unseen
    assert again.tracker.guessed is guessed and again.last_advice.unsure is guessed
    assert any(UNSURE_NOTE in s for s in said) is guessed


def test_photos_far_apart_do_not_blame_a_foundation_grown_by_cards_no_picture_showed():
    """Photos taken every few moves (``far_apart``): a card on a foundation two or more
    above its top may have had the cards between go up unseen (a waste card under the
    one seen, a face-down card turned up and played), so it is not blamed unless one of
    those cards shows elsewhere on the table; a camera watching every move blames it."""
    from solitaire_coach.core.cards import Card
    from solitaire_coach.core.tracker import misplaced_cards

    cases = {True: 0, False: 0}
    for seed in range(400):
        state = VirtualTable.from_deal(deal_for_seed(seed)).state.masked()
        for column, run in enumerate(state.faceup):
            top = run[-1]
            if top.rank != 3:
                continue
            slots = list(VirtualTable.from_deal(deal_for_seed(seed)).snapshot().slots)
            slots[1 + top.suit] = top  # the 3 on its empty foundation
            slots[5 + column] = UNKNOWN
            snap = Snapshot(tuple(slots))
            assert any(p.card is top and "on an empty foundation" in p.text for p in misplaced_cards(state, snap))
            shown = any(Card(rank, top.suit) in slots[:1] + slots[5:] for rank in (1, 2))  # waste, columns
            blamed = any(p.card is top for p in misplaced_cards(state, snap, far_apart=True))
            assert blamed == shown, (seed, column, slots)
            cases[shown] += 1
    assert cases[True] >= 1 and cases[False] >= 10, cases


def _turned_then_covered(draws_at_least: int):
    """A deal and moves in which a column's card is turned over and, unseen, covered at once
    by a card drawn from the stock: a column move that uncovers a face-down card, then
    ``draws_at_least`` draws or more until the waste's top goes on the card turned, then
    that card put on it. The first found over deals 0.., or None."""
    for seed in range(40):
        table = VirtualTable.from_deal(deal_for_seed(seed))
        state = table.state
        for move in state.legal_moves():
            if move.kind is not MoveKind.COLUMN_TO_COLUMN or not state.hidden[move.source]:
                continue
            after = state.play(move)
            if not after.faceup[move.source] or len(after.faceup[move.source]) != 1:
                continue
            turned = after.faceup[move.source][0]
            drawn = after
            for count in range(1, len(state.stock) + 1):
                drawn = drawn.play(Move.draw())
                if count >= draws_at_least and drawn.waste[-1].goes_on_tableau(turned):
                    return seed, (move,) + (Move.draw(),) * count + (Move.waste_to_column(move.source),)
    return None


def test_a_card_turned_over_and_covered_at_once_from_the_stock_stays_open():
    """A column's card turned over and at once covered by a card drawn from the stock, all
    unseen, reads with the tops alone as the drawn card turned over there and one draw (the
    card under the waste's top shows): that shorter story came first and the real one was
    lost for the rest of the game (deals 526 and 544 of the benchmark, up to 45 reads each,
    every one silently wrong). The covered card is now kept open beside it."""
    seed, moves = _turned_then_covered(draws_at_least=2)
    table = VirtualTable.from_deal(deal_for_seed(seed))
    tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
    tracker.update(table.snapshot(with_stock=True))
    for move in moves:
        table.perform(move)
    assert tracker.update(table.snapshot(with_stock=True)).accepted
    assert not in_sync(tracker.state, table.state)  # the likeliest is the shorter story
    assert any(in_sync(s, table.state) for s in tracker.explanations), (seed, [m.text for m in moves])


def test_a_resumed_journal_whose_table_looks_taken_back_makes_the_advice_unsure(tmp_path):
    """After a restart the journal may be behind by any number of moves: a table that looks
    like one before the journal's last move (read as that move taken back) may be the stock
    turned on through a redeal to the same waste card (deal 88 of the benchmark: 2 reads
    silently wrong). The position is then a guess, and the advice says so."""
    from solitaire_coach.app.coach import UNSURE_NOTE, CoachSession
    from solitaire_coach.app.journal import Journal
    from solitaire_coach.core.rules import DEFAULT_RULES

    table = VirtualTable.from_deal(deal_for_seed(0))
    path = tmp_path / "journal.json"
    first = CoachSession(DEFAULT_RULES, make_strategy("baseline"), Journal(path), say=lambda _: None)
    before = table.snapshot(with_stock=True).text()
    first.process_text(before)
    table.perform(Move.draw())
    first.process_text(table.snapshot(with_stock=True).text())
    said = []
    again = CoachSession(DEFAULT_RULES, make_strategy("baseline"), Journal(path), say=said.append)
    report = again.process_text(before)
    assert report.kind == "taken back"
    assert again.tracker.guessed and again.last_advice.unsure
    assert any(UNSURE_NOTE in s for s in said)
    # without the restart, the same take-back is no guess (a misread put right)
    said = []
    live = CoachSession(DEFAULT_RULES, make_strategy("baseline"), None, say=said.append)
    live.process_text(before)
    live.process_text(table.snapshot(with_stock=True).text())
    assert live.process_text(before).kind == "taken back" and not live.tracker.guessed


def _turned_then_covered_from_the_waste():
    """A deal, the draws seen one by one, and two moves unseen: a column move that turns a
    face-down card over, then the waste's top (a card the camera read) put on it at once.
    The first found over deals 0.., or None."""
    for seed in range(60):
        state = VirtualTable.from_deal(deal_for_seed(seed)).state
        for draws in range(1, 12):
            state = state.play(Move.draw())
            for move in state.legal_moves():
                if move.kind is not MoveKind.COLUMN_TO_COLUMN or not state.hidden[move.source]:
                    continue
                after = state.play(move)
                turned = after.faceup[move.source][0]
                if len(after.faceup[move.source]) == 1 and after.waste[-1].goes_on_tableau(turned):
                    return seed, draws, (move, Move.waste_to_column(move.source))
    return None


def test_a_card_turned_over_and_covered_at_once_from_the_waste_is_found():
    """A column's card turned over and at once covered by the waste's top, both unseen:
    the table shows on that column a card the camera read on the waste, and no search
    could put it there (the card under it was never seen, and nothing goes on an unknown
    card). Deal 186 of the benchmark took a wrong story for it (the waste's cards
    forgotten) and was silently wrong for 41 reads. The card under it is now named each
    way it may be, and the real position found."""
    seed, draws, unseen = _turned_then_covered_from_the_waste()
    table = VirtualTable.from_deal(deal_for_seed(seed))
    tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
    tracker.update(table.snapshot(with_stock=True))
    for _ in range(draws):
        table.perform(Move.draw())
        assert tracker.update(table.snapshot(with_stock=True)).accepted
    for move in unseen:
        table.perform(move)
    report = tracker.update(table.snapshot(with_stock=True))
    assert report.accepted, report.message
    assert any(in_sync(s, table.state) for s in tracker.explanations), (seed, draws, [m.text for m in unseen])


def _a_talon_turned_over_once_before(stock_sizes=range(10, 15)):
    """A game followed read by read (column and waste moves first, stock turns when none is
    left) up to a table with the waste empty after a redeal and 10 to 14 cards in the stock:
    the seed, the tracker and the table then, or None."""
    for seed in range(12):
        table = VirtualTable.from_deal(deal_for_seed(seed))
        tracker = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
        tracker.update(table.snapshot(with_stock=True))
        for count in range(150):
            state = table.state
            if not state.waste and len(state.stock) in stock_sizes and 1 <= state.redeals_used < 3:
                return seed, tracker, table
            moves = state.legal_moves()
            if not moves:
                break
            plays = [m for m in moves if m.kind not in (MoveKind.DRAW, MoveKind.REDEAL, MoveKind.FOUNDATION_TO_COLUMN)]
            turns = [m for m in moves if m.kind in (MoveKind.DRAW, MoveKind.REDEAL)]
            table.perform(plays[0] if plays and count < 100 else (turns or moves)[0])
            tracker.update(table.snapshot(with_stock=True))
    return None


def test_an_unseen_redeal_that_puts_the_table_back_stays_open():
    """One stock turn seen, then the rest of the stock turned unseen and the waste turned
    over: the table is as before the turn seen. Read as that turn taken back (a misread put
    right), the likelier story, but the redeal cost 3 past the margin and was dropped, and
    the count of redeals was silently wrong (deals 241 and 480 of the benchmark with J when
    not sure). The redeal is now kept open beside the take-back."""
    found = _a_talon_turned_over_once_before()
    assert found is not None
    seed, tracker, table = found
    table.perform(Move.draw())
    assert tracker.update(table.snapshot(with_stock=True)).moves == (Move.draw(),)
    while table.state.stock:
        table.perform(Move.draw())
    table.perform(Move.redeal())
    report = tracker.update(table.snapshot(with_stock=True))
    assert report.kind == "taken back"
    assert not in_sync(tracker.state, table.state)  # the likeliest: the turn taken back
    assert any(in_sync(s, table.state) for s in tracker.explanations), seed
    advice = advise_open(make_strategy("baseline"), tracker.explanations, tracker.history)
    assert advice.status != "move" or table.state.is_legal(advice.move)
