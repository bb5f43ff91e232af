"""Cards, rules, every move type and every refusal."""

import re

import pytest

from solitaire_coach.core import Card, CardParseError, GameState, IllegalMoveError, Move, MoveParseError, Rules
from solitaire_coach.core.cards import FULL_DECK
from solitaire_coach.core.rules import DEFAULT_RULES
from solitaire_coach.core.state import deal_for_seed

C = Card.parse


def state(columns, hidden=None, stock=(), waste=(), foundations=(0, 0, 0, 0), rules=DEFAULT_RULES, redeals=0):
    """Build a position: columns are lists of face-up codes; hidden gives face-down codes."""
    hidden = hidden or [[] for _ in range(7)]
    return GameState(
        hidden=tuple(tuple(C(c) for c in h) for h in hidden),
        faceup=tuple(tuple(C(c) for c in col) for col in columns),
        stock=tuple(C(c) for c in stock),
        waste=tuple(C(c) for c in waste),
        foundations=tuple(foundations),
        redeals_used=redeals,
        rules=rules,
    )


EMPTY7 = [[] for _ in range(7)]


def cols(**kw):
    out = [[] for _ in range(7)]
    for k, v in kw.items():
        out[int(k[1:]) - 1] = v.split()
    return out


def test_card_parsing_and_formatting():
    assert C("7h") is Card(7, 2)
    assert C(" 10s ").code == "0S" and C("TS") is C("0S")
    assert C("0S").symbol == "10♠" and C("AH").symbol == "A♥"
    assert C("KD").is_red and not C("KC").is_red
    for bad in ("1H", "7X", "", "77H", "ZZ"):
        with pytest.raises(CardParseError, match="not a card"):
            C(bad)
    assert len({C(r + s) for r in "A234567890JQK" for s in "CDHS"}) == 52


def test_move_notation_round_trip():
    for text in ["draw", "redeal", "w-f", "w-3", "4-f", "2-7", "fH-1"]:
        assert Move.parse(text).text == text
    for bad in ["3-3", "8-1", "w-0", "fX-2", "move", "1-2-3"]:
        with pytest.raises(MoveParseError):
            Move.parse(bad)


def test_column_to_column_moves_the_run_whose_head_fits():
    s = state(cols(c1="KS QH JC 0D", c2="JS", c3="QD"), hidden=[["2C"], [], [], [], [], [], []])
    new = s.play(Move.parse("1-3"))  # JC 0D onto QD
    assert [c.code for c in new.faceup[2]] == ["QD", "JC", "0D"]
    assert [c.code for c in new.faceup[0]] == ["KS", "QH"]


def test_move_that_empties_run_flips_the_card_below():
    s = state(cols(c1="9H", c2="0S"), hidden=[["2C", "3D"], [], [], [], [], [], []])
    new = s.play(Move.parse("1-2"))
    assert new.faceup[0] == (C("3D"),) and new.hidden[0] == (C("2C"),)


def test_unknown_card_leaves_column_awaiting_flip():
    s = state(cols(c1="9H", c2="0S")).masked()
    s = GameState(((None,),) + s.hidden[1:], s.faceup, s.stock, s.waste)
    new = s.play(Move.parse("1-2"))
    assert new.awaiting_flip(0)
    assert new.reveal_column(0, C("4D")).faceup[0] == (C("4D"),)
    with pytest.raises(ValueError, match="already known"):
        new.reveal_column(0, C("9H"))


def test_foundation_moves_and_refusals():
    s = state(cols(c1="AH", c2="3H", c3="2S"), waste=["2H"])
    assert s.play(Move.parse("1-f")).foundations == (0, 0, 1, 0)
    with pytest.raises(IllegalMoveError, match="needs the ace first"):
        s.check(Move.parse("3-f"))
    with pytest.raises(IllegalMoveError, match="needs the ace first"):
        s.check(Move.parse("w-f"))
    s2 = s.play(Move.parse("1-f")).play(Move.parse("w-f"))
    assert s2.foundations == (0, 0, 2, 0) and not s2.waste
    s3 = state(cols(c1="5H"), foundations=(0, 0, 3, 0))
    with pytest.raises(IllegalMoveError, match="needs a 4 first"):
        s3.check(Move.parse("1-f"))
    with pytest.raises(IllegalMoveError, match="is empty"):
        s3.check(Move.parse("2-f"))


def test_tableau_refusals_say_why():
    s = state(cols(c1="7H", c2="9S", c3="7S", c4="8C", c6="AD"), waste=["4C"])
    with pytest.raises(IllegalMoveError, match=r"7♥ cannot go on 9♠: it needs a red 8"):
        s.check(Move.parse("1-2"))
    with pytest.raises(IllegalMoveError, match=r"7♠ cannot go on 8♣: it needs a red 7"):
        s.check(Move.parse("3-4"))
    with pytest.raises(IllegalMoveError, match="only a king"):
        s.check(Move.parse("1-5"))
    with pytest.raises(IllegalMoveError, match="only a king can"):
        s.check(Move.parse("w-5"))
    with pytest.raises(IllegalMoveError, match="nothing goes on an ace"):
        s.check(Move.parse("w-6"))
    assert s.play(Move.parse("1-4")).faceup[3] == (C("8C"), C("7H"))


def test_king_run_into_empty_column():
    s = state(cols(c1="KH QC", c2="3D"), hidden=[["5S"], [], [], [], [], [], []])
    new = s.play(Move.parse("1-3"))
    assert new.faceup[2] == (C("KH"), C("QC")) and new.faceup[0] == (C("5S"),)
    lone_king = state(cols(c1="KH"))
    assert Move.parse("1-2") not in lone_king.legal_moves()
    assert Move.parse("1-2") in lone_king.legal_moves(include_pointless=True)


def test_face_down_target_refused():
    s = state(cols(c1="KH"), hidden=[[], ["2C"], [], [], [], [], []])
    s = GameState(s.hidden, s.faceup, s.stock, s.waste)
    with pytest.raises(IllegalMoveError, match="face-down card on top"):
        s.check(Move.parse("1-2"))


def test_draw_and_redeal_limits():
    rules = Rules(redeal_limit=1)
    s = state(EMPTY7, stock=["2C", "3C"], rules=rules)
    s = s.play(Move.draw()).play(Move.draw())
    assert [c.code for c in s.waste] == ["2C", "3C"] and not s.stock
    with pytest.raises(IllegalMoveError, match="stock is empty"):
        s.check(Move.draw())
    s = s.play(Move.redeal())
    assert [c.code for c in s.stock] == ["2C", "3C"] and s.redeals_used == 1
    with pytest.raises(IllegalMoveError, match="only be turned over when the stock is empty"):
        s.check(Move.redeal())
    s = s.play(Move.draw()).play(Move.draw())
    with pytest.raises(IllegalMoveError, match="already been turned over once, the most these rules allow"):
        s.check(Move.redeal())
    none = state(EMPTY7, stock=["2C"], rules=Rules(redeal_limit=0)).play(Move.draw())
    with pytest.raises(IllegalMoveError, match="these rules allow no redeal: the waste cannot be turned over"):
        none.check(Move.redeal())
    empty = state(EMPTY7)
    with pytest.raises(IllegalMoveError, match="both empty"):
        empty.check(Move.draw())
    with pytest.raises(IllegalMoveError, match="nothing to turn over"):
        empty.check(Move.redeal())


def test_draw_three():
    s = state(EMPTY7, stock=["2C", "3C", "4C", "5C"], rules=Rules(draw_count=3))
    s = s.play(Move.draw())
    assert s.waste_top() is C("4C") and len(s.stock) == 1
    s = s.play(Move.draw())
    assert s.waste_top() is C("5C") and not s.stock


def test_foundation_return_only_when_allowed():
    s = state(cols(c1="4S"), foundations=(0, 0, 3, 0))
    with pytest.raises(IllegalMoveError, match="never comes back"):
        s.check(Move.parse("fH-1"))
    s2 = state(cols(c1="4S"), foundations=(0, 0, 3, 0), rules=Rules(foundation_return=True))
    assert Move.parse("fH-1") in s2.legal_moves()
    new = s2.play(Move.parse("fH-1"))
    assert new.foundations == (0, 0, 2, 0) and new.faceup[0][-1] is C("3H")
    with pytest.raises(IllegalMoveError, match="foundation is empty"):
        s2.check(Move.parse("fC-1"))


def test_waste_refusals():
    s = state(cols(c1="8S"))
    with pytest.raises(IllegalMoveError, match="waste is empty"):
        s.check(Move.parse("w-1"))


def test_initial_deal_layout_and_win_detection():
    deal = deal_for_seed(7)
    s = GameState.from_deal(deal)
    assert [len(h) for h in s.hidden] == list(range(7))
    assert len(s.stock) == 23 and s.waste == (deal[28],)
    assert s.faceup[6] == (deal[27],)
    assert not s.is_won()
    won = state(EMPTY7, foundations=(13, 13, 13, 13))
    assert won.is_won() and won.legal_moves() == []


def test_rules_validation():
    with pytest.raises(ValueError):
        Rules(draw_count=2)
    with pytest.raises(ValueError):
        Rules(redeal_limit=-1)
    assert "unlimited" in Rules(redeal_limit=None).describe()


def test_every_legal_move_plays_and_illegal_ones_raise():
    """On many random positions, legal_moves and check agree."""
    import random

    rng = random.Random(3)
    every = [
        Move.parse(t)
        for t in ["draw", "redeal", "w-f"]
        + [f"w-{i}" for i in range(1, 8)]
        + [f"{i}-f" for i in range(1, 8)]
        + [f"{i}-{j}" for i in range(1, 8) for j in range(1, 8) if i != j]
    ]
    for seed in range(30):
        s = GameState.from_deal(deal_for_seed(seed))
        for _ in range(60):
            legal = set(s.legal_moves(include_pointless=True))
            for m in every:
                assert s.is_legal(m) == (m in legal), (m, str(s))
            if not legal:
                break
            s = s.play(rng.choice(sorted(legal, key=lambda m: m.text)))


def test_first_difference_takes_moves_seen_together_in_either_order():
    """The recorded game1: a draw and 6-1 seen in one picture may be inferred in either
    order (same game); moves that are not the same, or whose order changes the game, differ."""
    from pathlib import Path

    from solitaire_coach.core.notation import parse_log
    from solitaire_coach.core.state import first_difference

    log = parse_log((Path(__file__).parent.parent / "fixtures/games/game1/moves.log").read_text())
    start = GameState.from_deal(log.deal, Rules())
    moves = list(log.moves)
    i = next(k for k in range(len(moves) - 1) if [moves[k].text, moves[k + 1].text] == ["6-1", "draw"])
    swapped = moves[:i] + [moves[i + 1], moves[i]] + moves[i + 2 :]
    assert first_difference(start, moves, moves) is None
    assert first_difference(start, swapped, moves) is None
    assert first_difference(start, moves, swapped) is None
    # w-7 then draw is not draw then w-7: the waste card played is another one
    assert [m.text for m in moves[2:4]] == ["w-7", "draw"]
    assert first_difference(start, moves[:2] + [moves[3], moves[2]] + moves[4:], moves) == 2
    # a different move at the same place, and a game cut short
    assert first_difference(start, moves[:i] + [Move.draw()] + moves[i + 1 :], moves) == i
    assert first_difference(start, moves[:-1], moves) == len(moves) - 1
    # the same lists from another deal: a difference where the first move cannot be played
    other_start = GameState.from_deal(deal_for_seed(5), Rules())
    k = first_difference(other_start, moves, moves)
    assert k is not None
    with pytest.raises(IllegalMoveError):
        other_start.play_all(moves[:k]).play(moves[k])


def test_first_difference_passes_over_a_move_made_straight_back():
    """The recorded game1 holds 5-6 and at once 6-5 (4S moved and moved back); the tracker
    takes such a pair as the move taken back, so a history without the pair is the same
    game. A move made back later, after other moves, is no such pair."""
    from pathlib import Path

    from solitaire_coach.core.notation import parse_log
    from solitaire_coach.core.state import first_difference

    log = parse_log((Path(__file__).parent.parent / "fixtures/games/game1/moves.log").read_text())
    start = GameState.from_deal(log.deal, Rules())
    moves = list(log.moves)
    i = next(k for k in range(len(moves) - 1) if [moves[k].text, moves[k + 1].text] == ["5-6", "6-5"])
    folded = moves[:i] + moves[i + 2 :]
    assert first_difference(start, folded, moves) is None
    assert first_difference(start, moves, folded) is None
    # only the move, not its reverse, left out: a different game from there
    assert first_difference(start, moves[:i] + moves[i + 1 :], moves) == i


def test_cards_take_symbols_order_fully_and_refuse_what_is_no_card():
    assert Card.parse("10♥") is Card.parse("0H") and Card.parse(" a♠ ") is Card.parse("AS")
    assert all(Card.parse(c.symbol) is c for c in FULL_DECK)
    ace, king = Card.parse("AC"), Card.parse("KS")
    assert ace < king and ace <= ace and king > ace and king >= king and sorted([king, ace]) == [ace, king]
    with pytest.raises(TypeError):
        ace < 3  # noqa: B015 (the comparison itself is what raises)
    for rank, suit in ((1.0, 0), ("A", "H"), (True, 0), (14, 0), (1, 4)):
        with pytest.raises(ValueError, match=f"no card with rank {rank!r} and suit {suit!r}"):
            Card(rank, suit)
    for index in (-1, 52, 1.5):
        with pytest.raises(ValueError, match=f"no card with index {index!r}"):
            Card.from_index(index)
    with pytest.raises(CardParseError, match="None is not a card"):
        Card.parse(None)


def test_moves_are_the_87_there_are_and_a_field_out_of_range_is_named():
    from solitaire_coach.core.moves import MoveKind

    assert Move.column_to_column(1, 2) is Move.parse("2-3") and Move.waste_to_column(0) is Move.parse("w-1")
    for make, words in (
        (lambda: Move.column_to_column(-1, 0), "source -1 is not a column 0..6"),
        (lambda: Move.column_to_column(9, 2), "source 9 is not a column 0..6"),
        (lambda: Move.column_to_column(2, 2), "column 3 cannot move onto itself"),
        (lambda: Move.foundation_to_column(5, 1), "source 5 is not a suit 0..3"),
        (lambda: Move.waste_to_column(7), "target 7 is not a column 0..6"),
        (lambda: Move.column_to_foundation(True), "source True is not a column"),
        (lambda: Move(MoveKind.DRAW, 5, 5), "draw has no source"),
        (lambda: Move("draw"), "'draw' is not a MoveKind"),
    ):
        with pytest.raises(ValueError, match=words):
            make()


@pytest.mark.parametrize(
    "text, words",
    [
        ("fX-1", "'X' is not a suit"),
        ("3-5 7H", "expected one move with nothing after it"),
        ("8-1", "'8' is not a column number 1..7"),
        ("W-9", "'9' is not a column number 1..7"),
    ],
)
def test_move_parse_says_which_part_is_wrong_in_the_users_own_letters(text, words):
    with pytest.raises(MoveParseError, match=words):
        Move.parse(text)
    assert Move.parse("W-F") is Move.waste_to_foundation() and Move.parse("fh-2").text == "fH-2"


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"redeal_limit": 1.5}, "redeal limit must be a whole number 0 to 1000 (or None: unlimited), not 1.5"),
        ({"redeal_limit": "3"}, "not '3'"),
        ({"draw_count": True}, "draw count must be 1 or 3, not True"),
        ({"draw_count": 1.0}, "draw count must be 1 or 3, not 1.0"),
        ({"draw_count": "1"}, "not '1'"),
        ({"foundation_return": "no"}, "foundation return must be True or False, not 'no'"),
    ],
)
def test_rules_refuse_values_of_the_wrong_kind(kwargs, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        Rules(**kwargs)


def test_a_redeal_past_the_limit_names_the_limit_not_the_count():
    s = state(EMPTY7, stock=["2C"], rules=Rules(redeal_limit=3)).play(Move.draw())
    s = GameState(s.hidden, s.faceup, s.stock, s.waste, s.foundations, 7, s.rules)
    with pytest.raises(IllegalMoveError, match="turned over 3 times, the most these rules allow"):
        s.check(Move.redeal())


def test_make_strategy_refuses_an_option_the_baseline_does_not_take():
    from solitaire_coach.core.advisor import make_strategy

    make_strategy("baseline", think_time=0.5, seed=3)
    with pytest.raises(ValueError, match="strategy 'baseline' takes no option 'foo'"):
        make_strategy("baseline", foo=1)
