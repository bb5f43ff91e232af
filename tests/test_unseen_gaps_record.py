"""bench/unseen_gaps.py --record / --summary: a long run recorded a game a line, resumed and split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from repo_scripts import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "unseen_gaps.py"
SHORT = ["--max-moves", "12", "--gap-rate", "0.3", "--restart-rate", "0.1", "--progress", "0"]


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "unseen_gaps_bench")


def _run(bench, capsys, *args) -> tuple[int, str, str]:
    rc = bench.main([*SHORT, *args])
    out, err = capsys.readouterr()
    return rc, out, err


def _totals(out: str) -> list[str]:
    """The printed totals, less the timings (which differ from run to run)."""
    return [line for line in out.splitlines() if " s of play " not in line and "this run played" not in line]


def _games(path: Path) -> dict[int, dict]:
    games = {}
    for raw in path.read_text().splitlines():
        line = json.loads(raw)
        for key in ("seconds", "cpu seconds"):
            line.pop(key)
        games[line["deal"]] = line
    return games


def test_split_and_resumed_runs_give_one_runs_games_and_totals(bench, capsys, tmp_path):
    one, split = tmp_path / "one.jsonl", tmp_path / "split.jsonl"
    rc, whole, _ = _run(bench, capsys, "--first", "3", "--games", "3", "--record", str(one))
    assert rc == 0
    assert len(one.read_text().splitlines()) == 3
    assert "unseen gaps: 3 games (deals 3..5," in whole
    # the last deal first, then the run asked for: it plays only the two it lacks, and each
    # game as in the run that played them in order (a random stream per game)
    assert _run(bench, capsys, "--first", "5", "--games", "1", "--record", str(split))[0] == 0
    rc, resumed, err = _run(bench, capsys, "--first", "3", "--games", "3", "--record", str(split))
    assert rc == 0
    assert "1 of the 3 games from" in err
    assert "this run played 2 games" in resumed
    assert _games(split) == _games(one)
    assert _totals(resumed) == _totals(whole)
    # all done: nothing played, the same totals
    rc, again, _ = _run(bench, capsys, "--first", "3", "--games", "3", "--record", str(split))
    assert rc == 0 and _totals(again) == _totals(whole)
    assert len(split.read_text().splitlines()) == 3
    # --summary: the file's totals and the code that played them
    rc, summary, _ = _run(bench, capsys, "--summary", str(split))
    assert rc == 0
    assert _totals(summary)[: len(_totals(whole))] == _totals(whole)
    assert "3 games by code" in summary
    # a run over part of the file counts only the deals asked for
    rc, part, _ = _run(bench, capsys, "--first", "4", "--games", "1", "--record", str(split))
    assert rc == 0 and "unseen gaps: 1 games (deals 4," in part


def test_a_file_of_other_options_or_code_is_refused(bench, capsys, tmp_path):
    record = tmp_path / "run.jsonl"
    assert _run(bench, capsys, "--first", "7", "--games", "1", "--record", str(record))[0] == 0
    before = record.read_text()
    rc, out, err = _run(bench, capsys, "--first", "7", "--games", "2", "--record", str(record), "--max-moves", "13")
    assert rc == 2 and out == ""
    assert f"{record} line 1 (deal 7) was played with other options (max_moves 12 there, 13 here)" in err
    assert record.read_text() == before
    line = json.loads(before)
    line["code"] = "0123456789ab"
    record.write_text(json.dumps(line) + "\n")
    rc, out, err = _run(bench, capsys, "--first", "7", "--games", "1", "--record", str(record))
    assert rc == 2 and "was played by other code (0123456789ab" in err and "--any-code" in err
    rc, out, err = _run(bench, capsys, "--first", "7", "--games", "1", "--record", str(record), "--any-code")
    assert rc == 0 and "unseen gaps: 1 games (deals 7," in out


def test_a_line_cut_short_by_a_kill_is_left_out_and_the_next_appended_whole(bench, capsys, tmp_path):
    record = tmp_path / "run.jsonl"
    assert _run(bench, capsys, "--first", "2", "--games", "1", "--record", str(record))[0] == 0
    with record.open("a") as out:
        out.write('{"deal": 3, "counts": {"rea')  # killed mid-write
    rc, out, err = _run(bench, capsys, "--first", "2", "--games", "2", "--record", str(record))
    assert rc == 0
    assert f"{record} line 2 left out, not a game's record" in err
    assert "unseen gaps: 2 games (deals 2..3," in out
    lines = record.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[2])["deal"] == 3
    rc, out, err = _run(bench, capsys, "--summary", str(record))
    assert rc == 0 and "unseen gaps: 2 games (deals 2..3," in out


def test_summary_of_a_missing_or_empty_file_says_so(bench, capsys, tmp_path):
    rc, out, err = _run(bench, capsys, "--summary", str(tmp_path / "none.jsonl"))
    assert rc == 2 and out == "" and "none.jsonl holds no games" in err


def test_deal_spans(bench):
    assert bench.deal_span([4, 2, 3, 9, 11, 12]) == "2..4, 9, 11..12"
    assert bench.deal_span([]) == "none"


def test_the_runs_option_is_recorded_only_when_set(bench, capsys, tmp_path):
    """--runs (the runs under the tops read) is an option of its own: a record made
    without it stays valid as it was, one made with it is refused without it."""
    record = tmp_path / "run.jsonl"
    assert _run(bench, capsys, "--first", "7", "--games", "1", "--record", str(record))[0] == 0
    assert "runs" not in json.loads(record.read_text())["options"]
    runs = tmp_path / "runs.jsonl"
    rc, out, _ = _run(bench, capsys, "--first", "7", "--games", "1", "--record", str(runs), "--runs")
    assert rc == 0 and "the runs under the tops read" in out
    assert json.loads(runs.read_text())["options"]["runs"] is True
    rc, out, err = _run(bench, capsys, "--first", "7", "--games", "1", "--record", str(runs))
    assert rc == 2 and "was played with other options" in err


@pytest.mark.parametrize(("deal", "moves"), [(12, 300), (19, 40), (56, 300), (119, 20)])
def test_benchmark_games_once_silently_wrong_are_followed(bench, capsys, deal, moves):
    """Deal 12: the stock flicked through several times, each read as one turn (the real
    count was dropped over the margin, silently, before the talon's splits were kept open
    after a stock turn); deal 56: a split kept open covered the explanation followed aside
    that held the real position, and was then dropped itself (before splits covered
    nothing); deal 19: a card turned over on column 5 was moved at once onto a card turned
    over on column 4 (before, only the shorter story, the card turned over on column 4,
    was kept; its first 40 moves, silently wrong from the fourth on before); deal 119: the
    same from a column left empty, which reads as a back (a card waiting to be turned) does
    (its first 20 moves). Each game as the benchmark plays it, whole but for deals 19, 119."""
    rc = bench.main(["--first", str(deal), "--games", "1", "--progress", "0", "--max-moves", str(moves)])
    out, _ = capsys.readouterr()
    assert rc == 0
    assert "advice illegal on the real table: 0 (in 0 games)" in out
    assert "positions silently wrong (the real one in no open explanation, advice given as if sure): 0" in out


def test_a_person_who_joins_where_the_coach_is_lost_is_coached_on(bench, capsys):
    """``--join-when-lost``: deal 3 loses the coach by move 24 (moves made while it was
    stopped); the person joins the table as it is (J) and the game goes on coached, with
    nothing silently wrong. Without the option the coach refuses the rest of those reads."""
    args = ["--first", "3", "--games", "1", "--progress", "0", "--max-moves", "40"]
    assert bench.main(args + ["--join-when-lost"]) == 0
    out, _ = capsys.readouterr()
    assert "joined where lost 1" in out and ", joined where lost)" in out
    assert "advice illegal on the real table: 0 (in 0 games)" in out
    assert "positions silently wrong (the real one in no open explanation, advice given as if sure): 0" in out
    joined = int(out.split("unsure and said: ")[1].split(";")[0])
    assert bench.main(args) == 0
    out, _ = capsys.readouterr()
    assert "joined where lost" not in out
    assert int(out.split("unsure and said: ")[1].split(";")[0]) > joined


def test_a_person_who_presses_j_when_not_sure_hears_it_less(bench, capsys):
    """``--join-when-unsure 3``: after three reads in a row advised "not sure", the person
    presses J and the table, read whole, is joined (deal 1 by move 40: twice); the advice
    says "not sure" on fewer reads, with nothing silently wrong."""
    args = ["--first", "1", "--games", "1", "--progress", "0", "--max-moves", "40", "--join-when-lost"]

    def not_sure(out: str) -> int:
        return int(out.split("advised 'not sure of the position': ")[1].split(" ")[0])

    assert bench.main(args) == 0
    before = not_sure(capsys.readouterr()[0])
    assert bench.main(args + ["--join-when-unsure", "3"]) == 0
    out, _ = capsys.readouterr()
    assert "joined when not sure 2" in out and "J pressed after 3 reads 'not sure' in a row" in out
    assert "positions silently wrong (the real one in no open explanation, advice given as if sure): 0" in out
    assert not_sure(out) < before
