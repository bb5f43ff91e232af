"""Snapshot, deal and game-log formats: round trips and malformed input."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solitaire_coach.core import (
    EMPTY,
    UNKNOWN,
    Card,
    DealParseError,
    LogParseError,
    Move,
    Snapshot,
    SnapshotParseError,
    format_deal,
    format_log,
    parse_deal,
    parse_log,
    parse_snapshot,
)
from solitaire_coach.core.cards import FULL_DECK
from solitaire_coach.core.notation import parse_deals, repeated_cards
from solitaire_coach.core.state import deal_for_seed
from solitaire_coach.storage import write_atomic

slot_values = st.one_of(st.sampled_from(FULL_DECK), st.just(EMPTY), st.just(UNKNOWN))


def _one_foundation_a_suit(values) -> tuple:
    """``values`` with a foundation card of a suit already on an earlier foundation read
    as empty (a table has one foundation a suit)."""
    seen, out = set(), list(values)
    for i in range(1, 5):
        if isinstance(out[i], Card):
            if out[i].suit in seen:
                out[i] = EMPTY
            seen.add(out[i].suit if isinstance(out[i], Card) else None)
    return tuple(out)


@given(st.lists(slot_values, min_size=12, max_size=12).filter(lambda v: not repeated_cards(v)))
def test_snapshot_round_trip(values):
    snap = Snapshot(_one_foundation_a_suit(values))
    assert parse_snapshot(snap.text()) == snap


@given(st.lists(slot_values, min_size=12, max_size=12), st.integers(0, 11), st.integers(0, 11))
def test_a_card_read_in_two_slots_is_refused_naming_both(values, i, j):
    card = Card.parse("QC")
    values = [EMPTY if v is card else v for v in values]
    if i == j:
        j = (i + 1) % 12
    values[i] = values[j] = card
    with pytest.raises(SnapshotParseError) as caught:
        parse_snapshot(Snapshot(tuple(values)).text())
    lo, hi = sorted((i, j))
    assert f"Q♣ is read in slot {lo + 1} " in str(caught.value) and f"slot {hi + 1} (" in str(caught.value)


def test_a_runs_line_that_contradicts_its_slot_is_refused_naming_the_column():
    with pytest.raises(
        SnapshotParseError,
        match=r"line 2: runs of column 7 \(slot 12 \(column 7\)\): its last card 5S "
        r"must be the column's top card, but the slot reads 9C",
    ):
        parse_snapshot("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nruns: 6H 5S|5H||7H|||5S\n")
    with pytest.raises(SnapshotParseError, match="runs of column 3 .*slot reads XX .*but its run shows QC"):
        parse_snapshot("KS,UU,UU,UU,UU,5S,5H,XX,7H,8D,9D,9C\nruns: ||QC||||\n")


def test_original_design_example_and_lenient_reading():
    snap = parse_snapshot("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\n")
    assert snap.waste is Card.parse("KS") and snap.foundations == (UNKNOWN,) * 4
    lenient = parse_snapshot("  ks , uu,xx,Xx,UU,10s,th,qc,7h,8d,9d,9c  ")
    assert lenient.columns[0] is Card.parse("0S") and lenient.columns[1] is Card.parse("0H")
    assert lenient.line() == "KS,UU,XX,XX,UU,0S,0H,QC,7H,8D,9D,9C"


def test_snapshot_extra_lines_are_tolerated_and_runs_read():
    text = "KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\n# comment\nlighting: dim\nruns: 6H 5S|5H||7H|||\n"
    snap = parse_snapshot(text)
    assert snap.runs[0] == (Card.parse("6H"), Card.parse("5S")) and snap.runs[2] is None
    assert parse_snapshot(snap.text()) == snap
    assert parse_snapshot("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nruns:  \n").runs is None  # not read
    with pytest.raises(SnapshotParseError, match="line 2: runs needs 7 columns separated by '\\|', found 2"):
        parse_snapshot("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nruns: 5H|\n")


def test_waste_fan_line_round_trip_and_lenient_reading():
    snap = parse_snapshot("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nruns: 6H 5S|5H||7H|||\nwaste: 4d 10c ks\n")
    assert snap.waste_fan == (Card.parse("4D"), Card.parse("0C"), Card.parse("KS"))
    assert snap.text().splitlines()[-1] == "waste: 4D 0C KS"
    assert parse_snapshot(snap.text()) == snap
    assert parse_snapshot("UU,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nwaste: 4D KS").waste_fan[-1] is Card.parse("KS")
    assert parse_snapshot("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nwaste:").waste_fan is None  # not read
    assert "waste" not in Snapshot(parse_snapshot("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C").slots).text()


@given(st.lists(st.sampled_from(FULL_DECK), min_size=13, max_size=15, unique=True))
def test_snapshot_with_fan_round_trip(cards):
    fan = tuple(cards[12:])
    snap = Snapshot(_one_foundation_a_suit((fan[-1], *cards[1:12])), None, fan)
    assert parse_snapshot(snap.text()) == snap


@pytest.mark.parametrize(
    "text, message",
    [
        ("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nwaste: 4D 1C KS", r"line 2: waste card 2: '1C' is not a card"),
        (
            "KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\n#c\nwaste: 4D KS QH",
            r"line 3: waste: its last card QH must be the "
            r"top card of the waste, but slot 1 \(waste\) reads KS",
        ),
        ("XX,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nwaste: KS", r"line 2: waste: slot 1 \(waste\) reads XX \(empty\)"),
        ("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nwaste: 2C 3C 4D KS", "line 2: waste: shows 1 to 3 cards, not 4"),
        ("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nwaste: 4D 4D KS", "line 2: waste: 4D listed twice"),
    ],
)
def test_malformed_waste_fan_names_line_and_card(text, message):
    with pytest.raises(SnapshotParseError, match=message):
        parse_snapshot(text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D", "expected 12 comma-separated slots, found 11"),
        ("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C,XX", "found 13"),
        ("KS,UU,UU,UU,UU,5S,1H,QC,7H,8D,9D,9C", r"slot 7 \(column 2\): '1H'"),
        ("K,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C", r"slot 1 \(waste\): 'K'"),
        ("KS,UU,UU,ZZ,UU,5S,5H,QC,7H,8D,9D,9C", r"slot 4 \(foundation 3\)"),
        ("", "empty snapshot"),
        ("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nruns: 1|2", "runs needs 7 columns"),
    ],
)
def test_malformed_snapshots_name_the_slot(text, message):
    with pytest.raises(SnapshotParseError, match=message):
        parse_snapshot(text)


@settings(max_examples=50)
@given(st.integers(min_value=0, max_value=10**6))
def test_deal_round_trip(seed):
    deal = deal_for_seed(seed)
    assert parse_deal(format_deal(deal)) == deal


def test_bad_deals_name_duplicates_and_missing():
    deal = deal_for_seed(1)
    codes = [c.code for c in deal]
    codes[5] = codes[6]
    with pytest.raises(DealParseError, match=f"duplicated: {codes[6]}.*missing: {deal[5].code}"):
        parse_deal(" ".join(codes))
    with pytest.raises(DealParseError, match="51 cards"):
        parse_deal(" ".join(codes[:51]))
    with pytest.raises(DealParseError, match="card 3 of the deal"):
        parse_deal("AS 2S XX")
    with pytest.raises(DealParseError, match="line 3"):
        parse_deals("# deals\n" + format_deal(deal) + "\nAS AS\n")


def test_log_round_trip_and_errors():
    deal = deal_for_seed(2)
    moves = [Move.parse(t) for t in ["draw", "1-2", "w-f", "fS-3", "redeal"]]
    cards = [None, Card.parse("7H"), Card.parse("AS"), None, None]
    text = format_log(deal, moves, cards, "lost")
    log = parse_log(text)
    assert list(log.deal) == deal and list(log.moves) == moves and list(log.cards) == cards and log.result == "lost"
    assert log.text() == text
    with pytest.raises(LogParseError, match="line 2"):
        parse_log(format_deal(deal) + "\n9-1\n")
    with pytest.raises(LogParseError, match="line 3.*after the result"):
        parse_log(format_deal(deal) + "\nwon\ndraw\n")
    with pytest.raises(LogParseError, match="line 1"):
        parse_log("AS 2S\n")
    with pytest.raises(LogParseError, match="line 2.*not a card"):
        parse_log(format_deal(deal) + "\n1-2 7X\n")


def test_atomic_write_replaces_whole_file(tmp_path):
    target = tmp_path / "snap.txt"
    write_atomic(target, "KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\n")
    write_atomic(target, "AS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\n")
    assert target.read_text().startswith("AS")
    assert [p.name for p in tmp_path.iterdir()] == ["snap.txt"]


LONG = 100_000
GOOD_SLOTS = "KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C"


def _long_text_cases():
    deal = format_deal(deal_for_seed(2))
    return [
        (parse_snapshot, "Q" * 1_000_000, SnapshotParseError),  # one line, one field
        (parse_snapshot, ",".join(["KS"] * 500_000), SnapshotParseError),  # one line, too many slots
        (parse_snapshot, "KS,UU,UU,UU,UU," + "5" * LONG + ",5H,QC,7H,8D,9D,9C", SnapshotParseError),
        (parse_snapshot, GOOD_SLOTS + "\nwaste: " + "K" * LONG, SnapshotParseError),
        (parse_snapshot, GOOD_SLOTS + "\nruns: " + "K" * LONG + "||||||", SnapshotParseError),
        (parse_deal, "AS 2S " + "X" * LONG, DealParseError),
        (parse_deals, "# deals\n" + "Z" * LONG, DealParseError),
        (parse_log, deal + "\n" + "draw " * LONG, LogParseError),
        (parse_log, deal + "\nwon\n" + "d" * LONG, LogParseError),
        (parse_log, deal + "\n" + "d" * LONG, LogParseError),
        (parse_log, deal + "\n1-" + "9" * LONG, LogParseError),
        (parse_log, deal + "\n1-2 " + "7" * LONG, LogParseError),
    ]


@pytest.mark.parametrize("case", range(len(_long_text_cases())))
def test_long_bad_text_is_quoted_cut_not_whole(case):
    parse, text, error = _long_text_cases()[case]
    with pytest.raises(error) as caught:
        parse(text)
    message = str(caught.value)
    assert len(message) < 400, message[:400]
    assert "…" in message and " characters)" in message


def test_short_bad_text_is_quoted_whole():
    from solitaire_coach.core.cards import QUOTE_LIMIT, quote

    assert quote("7X") == "'7X'"
    assert quote("a" * QUOTE_LIMIT) == repr("a" * QUOTE_LIMIT)
    assert quote("a" * 1_000_000) == repr("a" * QUOTE_LIMIT) + "… (1,000,000 characters)"


def test_a_visible_run_holds_13_cards_at_most():
    run = " ".join(["KS"] * 14)
    with pytest.raises(SnapshotParseError, match="runs of column 1: 14 cards; a visible run holds 13 at most"):
        parse_snapshot(GOOD_SLOTS.replace("5S", "KS", 1).replace("KS", "XX", 1) + f"\nruns: {run}||||||")


def test_a_deal_line_may_separate_its_codes_by_commas():
    deal = deal_for_seed(7)
    assert parse_deal(format_deal(deal).replace(" ", ",")) == deal
    assert parse_deal(format_deal(deal).replace(" ", " , ")) == deal
    assert parse_deals("# c\n" + format_deal(deal).replace(" ", ",") + "\n") == [deal]


@pytest.mark.parametrize(
    "text, words",
    [
        (
            "KS,AD,UU,UU,UU,5S,5H,QC,9C,8D,9D,6D\nruns: 6D 5S||||||",
            "6♦ is shown in slot 12 (column 7) on line 1 and the run of column 1 on line 2",
        ),
        (
            "KS,AD,UU,UU,UU,5S,5H,QC,9C,8D,9D,XX\nruns: 6D 5S|6D 5H|||||",
            "6♦ is shown in the run of column 1 on line 2 and the run of column 2 on line 2",
        ),
        (
            "KS,AD,UU,UU,UU,5S,5H,QC,9C,8D,9D,XX\nwaste: 9C KS",
            "9♣ is shown in slot 9 (column 4) on line 1 and the waste fan on line 2",
        ),
        (
            "# read at 10:02\n\nKS,AD,UU,UU,UU,5S,5H,QC,9C,8D,9D,XX\nruns: 9H 5S||||||\n# fan\nwaste: 9H KS",
            "9♥ is shown in the run of column 1 on line 4 and the waste fan on line 6",
        ),
    ],
)
def test_a_snapshot_that_shows_a_card_in_two_places_is_refused_naming_both(text, words):
    with pytest.raises(SnapshotParseError, match=re.escape(words)):
        parse_snapshot(text)


def test_a_card_put_down_against_the_rules_is_still_a_table_to_read():
    """A person can put 5♠ on 10♠, or a 4♦ on an empty foundation: the snapshot is read,
    and the tracker tells them to take it back."""
    snap = parse_snapshot("KS,AD,UU,4D,UU,5S,5H,QC,9C,8D,9D,XX\nruns: 10S 5S|6C 5H|||||\nwaste: 4S KS")
    assert snap.runs[0] == (Card.parse("0S"), Card.parse("5S")) and snap.slots[3] is Card.parse("4D")


def test_a_snapshot_is_built_in_its_form_or_refused():
    snap = Snapshot([EMPTY] * 12, runs=[(), [Card.parse("KS")], None, None, None, None, None])
    assert isinstance(snap.slots, tuple) and snap.runs[0] is None and snap.runs[1] == (Card.parse("KS"),)
    hash(snap)
    for kwargs, words in (
        ({"slots": ("XX",) * 12}, "slot 1 (waste): 'XX' is not a Card, EMPTY or UNKNOWN"),
        ({"slots": (EMPTY,) * 12, "runs": ((Card.parse("KS"),),)}, "runs: one per column, 7, not 1"),
        ({"slots": (EMPTY,) * 12, "runs": (("KS",),) + (None,) * 6}, "runs of column 1"),
    ):
        with pytest.raises(SnapshotParseError, match=re.escape(words)):
            Snapshot(**kwargs)
    with pytest.raises(AttributeError):
        EMPTY.code = "ZZ"
    assert parse_snapshot("XX," * 11 + "XX").line() == ",".join(["XX"] * 12)


def test_writers_refuse_what_the_readers_would_refuse():
    deal = deal_for_seed(0)
    with pytest.raises(ValueError, match="a card \\(or None\\) for each move: 2 moves, 1 cards"):
        format_log(deal, [Move.parse("1-f"), Move.parse("3-f")], cards=[None])
    with pytest.raises(ValueError, match="won, lost or None"):
        format_log(deal, [], result="banana")
    with pytest.raises(DealParseError, match="not a full deck of 52 different cards \\(3 cards"):
        format_deal(deal[:3])
    assert parse_log(format_log(deal, [Move.parse("draw")], result="lost")).result == "lost"


@pytest.mark.parametrize(
    "extra, words",
    [
        # a card twice in one run: named as listed twice, not as in its slot too
        ("runs: 5S 5S||||||", "line 2: runs of column 1 (slot 6 (column 1)): 5S listed twice"),
        ("runs: 6D 5S 6D 5S||||||", "line 2: runs of column 1 (slot 6 (column 1)): 5S 6D listed twice"),
        # a second runs: or waste: line: refused naming both lines, not silently taken
        (
            "runs: 6D 5S||||||\nruns: 5S||||||",
            "line 3: a second runs: line (the first is line 2): a snapshot shows the table once",
        ),
        (
            "waste: 4S KS\n# again\nWaste: KS",
            "line 4: a second waste: line (the first is line 2): a snapshot shows the table once",
        ),
    ],
)
def test_extra_lines_that_say_a_card_twice_or_the_table_twice_are_refused_in_words(extra, words):
    with pytest.raises(SnapshotParseError) as caught:
        parse_snapshot("KS,AD,UU,UU,UU,5S,5H,QC,9C,8D,9D,XX\n" + extra)
    assert str(caught.value) == words


def test_an_empty_runs_line_before_a_full_one_is_no_second_reading():
    assert parse_snapshot("KS,AD,UU,UU,UU,5S,5H,QC,9C,8D,9D,XX\nruns:\nruns: 5S||||||").runs[0] == (Card.parse("5S"),)
