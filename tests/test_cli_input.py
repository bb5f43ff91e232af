"""Bad input on the command line: a clear message naming what was wrong and where, exit
status 2 for usage errors, never a traceback."""

from __future__ import annotations

import errno

import pytest

from solitaire_coach.app.cli import main


def usage_error(capsys, *argv: str) -> str:
    """Run the command line, expect argparse's usage error (exit 2); return stderr."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("command", [["simulate", "--count", "1"], ["coach", "--snapshot-file", "snap.txt"]])
def test_unknown_strategy_is_a_usage_error(capsys, command):
    err = usage_error(capsys, *command, "--strategy", "nope")
    assert "--strategy" in err and "unknown strategy 'nope'" in err and "baseline" in err


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
@pytest.mark.parametrize("command", [["simulate", "--count", "1"], ["coach", "--snapshot-file", "snap.txt"]])
def test_think_time_must_be_a_number_above_0(capsys, command, value):
    err = usage_error(capsys, *command, "--think-time", value)
    assert "--think-time" in err and (repr(value) in err or f"{value} is not allowed" in err)


@pytest.mark.parametrize(
    "option,value",
    [
        ("--count", "-3"),
        ("--count", "0"),
        ("--workers", "0"),
        ("--workers", "-1"),
        ("--solver-time", "-1"),
        ("--solver-time", "0"),
    ],
)
def test_simulate_counts_and_times_must_be_positive(capsys, option, value):
    err = usage_error(capsys, "simulate", "--count", "1", "--strategy", "baseline", "--ceiling", option, value)
    assert option in err and value in err


@pytest.mark.parametrize(
    "option,value",
    [
        ("--time-limit", "-1"),
        ("--time-limit", "nan"),
        ("--node-limit", "0"),
        ("--node-limit", "-1"),
        ("--memory-mb", "-5"),
        ("--memory-mb", "0"),
        ("--samples", "-1"),
    ],
)
def test_solve_limits_are_checked(capsys, option, value):
    from solitaire_coach.core import deal_for_seed, format_deal

    err = usage_error(capsys, "solve", format_deal(deal_for_seed(3)), "--quiet", option, value)
    assert option in err and value in err


def test_solve_time_limit_0_means_none(capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    assert main(["solve", format_deal(deal_for_seed(3)), "--quiet", "--time-limit", "0"]) == 0
    assert "deal: won" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["-2", "-1", "inf", "none", "3.5", "lots"])
@pytest.mark.parametrize(
    "command", [["simulate", "--count", "1", "--strategy", "baseline"], ["check-log", "x.log"], ["solve", "x.txt"]]
)
def test_redeals_is_a_whole_number_or_unlimited(capsys, command, value):
    err = usage_error(capsys, *command, "--redeals", value)
    assert "--redeals" in err and value in err and "'unlimited'" in err


@pytest.mark.parametrize(
    "value,limit", [("0", 0), ("5", 5), (" 2 ", 2), ("unlimited", None), ("Unlimited", None), ("UNLIMITED", None)]
)
def test_redeals_values_taken(value, limit):
    from solitaire_coach.app.cli import build_parser
    from solitaire_coach.app.cmd_core import rules_from_args

    args = build_parser().parse_args(["simulate", "--redeals", value])
    assert rules_from_args(args).redeal_limit == limit
    assert rules_from_args(build_parser().parse_args(["simulate"])).redeal_limit == 3


BINARY = bytes(range(256)) * 2  # not UTF-8 (0x80.. alone)


def good_log(tmp_path, name="good.log"):
    from solitaire_coach.app.simulate import play_game
    from solitaire_coach.core import deal_for_seed

    path = tmp_path / name
    path.write_text(play_game(deal_for_seed(1), "baseline").log_text())
    return path


def test_simulate_deal_file_not_text(tmp_path, capsys):
    bad = tmp_path / "garbage.bin"
    bad.write_bytes(BINARY)
    assert main(["simulate", "--deals", str(bad), "--strategy", "baseline"]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "not a text file (UTF-8)" in err


def test_check_log_reports_a_file_not_text_and_goes_on(tmp_path, capsys):
    bad = tmp_path / "garbage.bin"
    bad.write_bytes(BINARY)
    zeros = tmp_path / "zeros.bin"
    zeros.write_bytes(b"\0" * 100)
    good = good_log(tmp_path)
    assert main(["check-log", str(bad), str(zeros), str(good)]) == 2  # files that are no text: bad input
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert err[0].startswith(f"solitaire-coach check-log: error: {bad}: not a text file (UTF-8)")
    assert err[1].startswith(f"solitaire-coach check-log: error: {zeros}: not a text file (UTF-8)")
    assert captured.out.startswith(f"{good}: ok, ")


def test_solve_file_not_text(tmp_path, capsys):
    bad = tmp_path / "garbage.bin"
    bad.write_bytes(BINARY)
    assert main(["solve", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "not a text file (UTF-8)" in err


def test_files_with_a_byte_order_mark_are_read(tmp_path, capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    deals = tmp_path / "deals.txt"
    deals.write_bytes(b"\xef\xbb\xbf" + (format_deal(deal_for_seed(3)) + "\r\n").encode())
    assert main(["simulate", "--deals", str(deals), "--strategy", "baseline", "--quiet"]) == 0
    assert "games 1," in capsys.readouterr().out
    assert main(["solve", str(deals), "--quiet"]) == 0
    assert "deals.txt deal 1: won" in capsys.readouterr().out
    log = good_log(tmp_path)
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    assert main(["check-log", str(log)]) == 0
    assert ": ok, " in capsys.readouterr().out


@pytest.mark.parametrize("under", ["", "sub/dir"])
def test_simulate_logs_folder_that_is_a_file(tmp_path, capsys, under):
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    logs = afile / under if under else afile
    assert main(["simulate", "--count", "1", "--strategy", "baseline", "--logs", str(logs)]) == 2
    err = capsys.readouterr().err
    assert f"--logs {logs}" in err and f"{afile} is a file, not a folder" in err
    assert afile.read_text() == "mine\n"


@pytest.mark.parametrize("content", ["", "\n\n", "# only a comment\n"])
def test_simulate_deal_file_with_no_deal(tmp_path, capsys, content):
    deals = tmp_path / "deals.txt"
    deals.write_text(content)
    assert main(["simulate", "--deals", str(deals), "--strategy", "baseline"]) == 2
    captured = capsys.readouterr()
    assert f"{deals}: holds no deal lines" in captured.err and "games" not in captured.out


@pytest.mark.parametrize("content", ["", "\n", "# nothing yet\n\n"])
def test_solve_file_with_nothing_to_solve(tmp_path, capsys, content):
    empty = tmp_path / "empty.txt"
    empty.write_text(content)
    assert main(["solve", str(empty)]) == 2
    assert f"{empty}: holds no deal, position or game" in capsys.readouterr().err


def test_solve_several_files(tmp_path, capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    deals = tmp_path / "deals.txt"
    deals.write_text(format_deal(deal_for_seed(3)) + "\n" + format_deal(deal_for_seed(4)) + "\n")
    log = good_log(tmp_path, "game.log")
    assert main(
        ["solve", str(deals), str(log), format_deal(deal_for_seed(3)), "--quiet", "--node-limit", "200000"]
    ) in (0, 3)
    out = capsys.readouterr().out
    assert "deals.txt deal 1: won" in out and "deals.txt deal 2: won" in out
    assert "game.log after " in out and "deal (argument 3): won" in out
    assert "total of 4: won" in out


def test_solve_names_the_file_and_line_of_a_bad_deal(tmp_path, capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    deals = tmp_path / "deals.txt"
    line = format_deal(deal_for_seed(3)).split()
    line[5] = line[6]
    deals.write_text("# deals\n" + " ".join(line) + "\n")
    assert main(["solve", str(deals)]) == 2
    err = capsys.readouterr().err
    assert f"{deals}: line 2: deal: " in err and "duplicated" in err


def test_solve_names_the_file_of_a_bad_log(tmp_path, capsys):
    log = good_log(tmp_path, "game.log")
    lines = log.read_text().splitlines()
    lines[3] = "9-9"
    log.write_text("\n".join(lines) + "\n")
    assert main(["solve", str(log)]) == 2
    assert f"{log}: line 4: " in capsys.readouterr().err


@pytest.mark.parametrize(
    "sources,named",
    [
        (["deals.txt", "missing.txt"], "'missing.txt' is neither a file"),
        (["a.txt", "b.txt"], "'a.txt' is neither a file nor a card code"),
        (["."], "'.' is a folder"),
    ],
)
def test_solve_sources_that_are_no_file(tmp_path, capsys, monkeypatch, sources, named):
    from solitaire_coach.core import deal_for_seed, format_deal

    monkeypatch.chdir(tmp_path)
    (tmp_path / "deals.txt").write_text(format_deal(deal_for_seed(3)) + "\n")
    assert main(["solve", *sources]) == 2
    assert named in capsys.readouterr().err


def test_check_log_names_the_line_of_an_illegal_move(tmp_path, capsys):
    log = good_log(tmp_path, "game.log")
    lines = log.read_text().splitlines()
    lines[1:1] = ["# a comment", "", "1-f"]  # file line 4 holds move 1, illegal
    log.write_text("\n".join(lines) + "\n")
    assert main(["check-log", str(log)]) == 1
    assert f"{log}: line 4, move 1 (1-f): " in capsys.readouterr().out


def test_check_log_names_the_line_of_a_wrong_card_and_a_false_won(tmp_path, capsys):
    from solitaire_coach.core import Card

    log = good_log(tmp_path, "game.log")
    lines = log.read_text().splitlines()
    move, card = lines[1].split()
    other = next(c.code for c in map(Card.parse, lines[0].split()) if c.code != card)
    lines[1] = f"{move} {other}"
    lines.insert(1, "# comment")
    log.write_text("\n".join(lines) + "\n")
    assert main(["check-log", str(log)]) == 1
    assert f"line 3, move 1 ({move}) moves {Card.parse(card).symbol}" in capsys.readouterr().out

    lines = log.read_text().splitlines()[:3]
    lines[2] = f"{move} {card}"
    log.write_text("\n".join(lines + ["", "won"]) + "\n")
    assert main(["check-log", str(log)]) == 1
    assert "line 5: the log says won but" in capsys.readouterr().out


def test_check_log_names_the_line_of_a_false_lost(tmp_path, capsys):
    from solitaire_coach.app.simulate import play_game
    from solitaire_coach.core import deal_for_seed
    from solitaire_coach.core.notation import format_log

    won = next(g for g in (play_game(deal_for_seed(s), "baseline") for s in range(1, 40)) if g.result == "won")
    log = tmp_path / "game.log"
    log.write_text(format_log(won.deal, won.moves, result="lost"))
    assert main(["check-log", str(log)]) == 1
    assert capsys.readouterr().out == (
        f"{log}: line {len(won.moves) + 2}: the log says lost but the game is won (every card is on the foundations)\n"
    )


def test_solve_names_the_line_of_an_illegal_move(tmp_path, capsys):
    log = good_log(tmp_path, "game.log")
    lines = log.read_text().splitlines()
    lines[1:1] = ["# a comment", "1-f"]
    log.write_text("\n".join(lines) + "\n")
    assert main(["solve", str(log)]) == 2
    assert f"{log}: line 3, move 1 (1-f): " in capsys.readouterr().err  # (the words check-log uses)


def test_parse_log_lines_numbers_the_deal_moves_and_result():
    from solitaire_coach.core import deal_for_seed, format_deal
    from solitaire_coach.core.notation import parse_log, parse_log_lines

    text = "# a game\n\n" + format_deal(deal_for_seed(1)) + "\ndraw\n# note\n1-2\n\nlost\n"
    log, where = parse_log_lines(text)
    assert log == parse_log(text)
    assert (where.deal, where.moves, where.result) == (3, (4, 6), 8)


def run_coach(*argv: str):
    """``coach`` in a process that reads 'q' at once (so a check that is missing cannot hang)."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "solitaire_coach.app.cli", "coach", "--strategy", "baseline", *argv],
        input="q\n",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_coach_refuses_the_snapshot_file_as_its_journal(tmp_path):
    from solitaire_coach.core import deal_for_seed
    from solitaire_coach.core.virtual_table import VirtualTable

    snap = tmp_path / "snap.txt"
    text = VirtualTable.from_deal(deal_for_seed(1)).snapshot().text()
    snap.write_text(text)
    for journal in (snap, tmp_path / "." / "snap.txt"):
        out = run_coach("--snapshot-file", str(snap), "--journal", str(journal))
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert "--journal" in out.stderr and "is the snapshot file" in out.stderr
        assert snap.read_text() == text and not list(tmp_path.glob("*.bad-*"))


def test_coach_paths_under_a_file_or_a_folder(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    out = run_coach("--snapshot-file", str(afile / "x.txt"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"--snapshot-file {afile / 'x.txt'}: {afile} is a file, not a folder" in out.stderr
    out = run_coach("--snapshot-file", str(tmp_path))
    assert out.returncode == 2 and f"--snapshot-file {tmp_path}: is a folder, not a file" in out.stderr
    out = run_coach("--snapshot-file", str(tmp_path / "snap.txt"), "--journal", str(afile / "j.json"))
    assert out.returncode == 2 and f"--journal {afile / 'j.json'}: {afile} is a file, not a folder" in out.stderr
    out = run_coach("--snapshot-file", str(tmp_path / "snap.txt"), "--journal", str(tmp_path))
    assert out.returncode == 2 and f"--journal {tmp_path}: is a folder, not a file" in out.stderr
    assert afile.read_text() == "mine\n"


def test_a_missing_file_and_a_folder_are_named_in_words(tmp_path, capsys):
    missing = tmp_path / "missing.log"
    assert main(["check-log", str(missing), str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"solitaire-coach check-log: error: {missing}: no such file",
        f"solitaire-coach check-log: error: {tmp_path}: is a folder, not a file",
    ]
    for deals, words in ((missing, "no such file"), (tmp_path, "is a folder, not a file")):
        assert main(["simulate", "--deals", str(deals), "--strategy", "baseline"]) == 2
        err = capsys.readouterr().err
        assert f"error: {deals}: {words}" in err and "Errno" not in err


def test_a_utf16_file_is_named_as_such(tmp_path, capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        deals = tmp_path / "deals.txt"
        deals.write_bytes(bom + (format_deal(deal_for_seed(3)) + "\r\n").encode(codec))
        assert main(["simulate", "--deals", str(deals), "--strategy", "baseline"]) == 2
        assert "UTF-16 text" in capsys.readouterr().err
        assert main(["solve", str(deals)]) == 2
        err = capsys.readouterr().err
        assert f"{deals}: UTF-16 text" in err and "save it as UTF-8" in err
        assert main(["check-log", str(deals)]) == 2
        assert f"{deals}: UTF-16 text" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    """A process, so that a read that blocks on the pipe fails the test instead of hanging it."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    for argv, stream in (
        (["check-log", str(fifo)], "stderr"),
        (["solve", str(fifo)], "stderr"),
        (["simulate", "--deals", str(fifo), "--strategy", "baseline"], "stderr"),
    ):
        try:
            out = subprocess.run(
                [sys.executable, "-m", "solitaire_coach.app.cli", *argv], capture_output=True, text=True, timeout=30
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"{argv[0]} waited on the named pipe")
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert f"{fifo}: not a regular file: it is a named pipe" in getattr(out, stream)


def test_describe_os_error_says_it_in_words():
    import errno

    from solitaire_coach.storage import describe_os_error

    assert describe_os_error(FileNotFoundError(errno.ENOENT, "No such file or directory", "x")) == "no such file"
    assert describe_os_error(OSError(errno.ELOOP, "Too many levels of symbolic links", "x")).startswith(
        "a symlink loop"
    )
    assert describe_os_error(RuntimeError("Symlink loop from 'x'")).startswith("a symlink loop")
    assert describe_os_error(OSError(errno.EIO, "Input/output error", "x")) == "input/output error"


@pytest.mark.parametrize("extra", [[], ["AS"]])
def test_solve_a_long_argument_is_quoted_cut(capsys, extra):
    assert main(["solve", "x" * 5000, *extra]) == 2
    err = capsys.readouterr().err
    assert "'" + "x" * 60 + "'… (5,000 characters) is neither a file nor a" in err and len(err) < 300


@pytest.mark.parametrize(
    "option,value,maximum",
    [
        ("--memory-mb", "1e300", "1,048,576 MB"),
        ("--memory-mb", "inf", "1,048,576 MB"),
        ("--memory-mb", "1048577", "1,048,576 MB"),
        ("--node-limit", "99999999999999999999999", "1,000,000,000,000,000,000"),
        ("--node-limit", str(2**63), "1,000,000,000,000,000,000"),
        ("--time-limit", "1e300", "86,400 seconds"),
        ("--time-limit", "86401", "86,400 seconds"),
    ],
)
def test_solve_limits_have_a_maximum(capsys, option, value, maximum):
    """Values the C solver cannot take are usage errors naming the maximum, not an OverflowError."""
    from solitaire_coach.core import deal_for_seed, format_deal

    err = usage_error(capsys, "solve", format_deal(deal_for_seed(3)), "--quiet", "--time-limit", "1", option, value)
    assert f"argument {option}: {value} is too large: at most {maximum}" in err


def test_solve_limits_at_their_maximum_are_taken(capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    assert (
        main(
            [
                "solve",
                format_deal(deal_for_seed(3)),
                "--quiet",
                "--memory-mb",
                "1048576",
                "--node-limit",
                str(10**18),
                "--time-limit",
                "86400",
            ]
        )
        == 0
    )
    assert "deal: won" in capsys.readouterr().out


def test_deals_written_with_commas_are_read(tmp_path, capsys):
    """Commas between the codes, as a snapshot has them: solve, simulate --deals, check-log."""
    from solitaire_coach.core import deal_for_seed, format_deal

    commas = format_deal(deal_for_seed(3)).replace(" ", ",")
    assert main(["solve", commas, "--quiet"]) == 0
    assert "deal: won" in capsys.readouterr().out
    deals = tmp_path / "deals.txt"
    deals.write_text(commas + "\n" + format_deal(deal_for_seed(4)).replace(" ", ", ") + "\n")
    assert main(["simulate", "--deals", str(deals), "--strategy", "baseline", "--quiet"]) == 0
    assert "games 2," in capsys.readouterr().out
    log = good_log(tmp_path)
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0].replace(" ", ",")] + lines[1:]) + "\n")
    assert main(["check-log", str(log)]) == 0
    assert f"{log}: ok, " in capsys.readouterr().out


def test_simulate_deals_given_a_game_log_says_it_looks_like_one(tmp_path, capsys):
    log = good_log(tmp_path, "game.log")
    assert main(["simulate", "--deals", str(log), "--strategy", "baseline"]) == 2
    err = capsys.readouterr().err
    assert f"{log}: line 2: card 1 of the deal: " in err and "the file looks like a game log: line 2 is a move" in err
    deals = tmp_path / "deals.txt"
    deals.write_text("AS 2S 3S\n")
    assert main(["simulate", "--deals", str(deals), "--strategy", "baseline"]) == 2
    assert "game log" not in capsys.readouterr().err


def test_a_snapshot_or_journal_given_where_another_file_is_wanted_is_named(tmp_path, capsys):
    snap = tmp_path / "snap.txt"
    snap.write_text("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D,9C\nruns: 6H 5S|5H||7H|||\n")
    journal = tmp_path / "game.journal.json"
    journal.write_text('{"version": 1}\n')
    snapshot_hint = "(the file looks like a 12-slot snapshot: line 1 has 12 slots; coach --snapshot-file reads"
    journal_hint = "(the file looks like a coach journal (JSON); solve reads the position in a journal)"
    assert main(["solve", str(snap)]) == 2
    assert snapshot_hint in capsys.readouterr().err
    assert main(["check-log", str(snap)]) == 1
    assert snapshot_hint in capsys.readouterr().out
    assert main(["check-log", str(journal)]) == 1
    assert journal_hint in capsys.readouterr().out
    assert main(["simulate", "--deals", str(journal), "--strategy", "baseline"]) == 2
    assert journal_hint in capsys.readouterr().err
    log = good_log(tmp_path, "game.log")
    text = log.read_text().splitlines()
    log.write_text("\n".join(text[:2] + ["9-9"] + text[2:]) + "\n")
    assert main(["check-log", str(log)]) == 1
    assert "looks like" not in capsys.readouterr().out  # a game log with a bad line is a game log


def test_simulate_count_with_deals_is_refused(tmp_path, capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    deals = tmp_path / "deals.txt"
    deals.write_text(format_deal(deal_for_seed(3)) + "\n")
    assert main(["simulate", "--deals", str(deals), "--count", "5", "--strategy", "baseline"]) == 2
    captured = capsys.readouterr()
    assert f"--count 5 cannot be used with --deals {deals}" in captured.err and "games" not in captured.out
    assert main(["simulate", "--deals", str(deals), "--strategy", "baseline", "--quiet"]) == 0
    assert "games 1," in capsys.readouterr().out
    assert main(["simulate", "--seed", "3", "--count", "2", "--strategy", "baseline", "--quiet"]) == 0
    assert "games 2," in capsys.readouterr().out


def test_help_names_check_logs_files_and_the_known_strategies(capsys):
    from solitaire_coach.core.advisor import strategy_names

    for command in ("check-log", "simulate", "coach"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        if command == "check-log":
            assert "LOG [LOG ...]" in out and "game log files" in out
        else:
            assert f"advisor strategy: {', '.join(strategy_names())} (default " in out


def _unreadable(*args, **kwargs):
    raise PermissionError(errno.EACCES, "Permission denied", "x")


def test_unreadable_files_are_worded_alike_everywhere(tmp_path, monkeypatch):
    """calibration, model settings and a frames list name an unreadable file the way every
    other reader does ('permission denied', from describe_os_error), not in the OS's words."""
    from solitaire_coach import storage
    from solitaire_coach.capture import calibration, sources
    from solitaire_coach.vision import detector

    cal = tmp_path / "table.json"
    cal.write_text("{}")
    settings = tmp_path / "vision.json"
    settings.write_text("{}")
    monkeypatch.setattr(calibration, "read_text_file", _unreadable)
    monkeypatch.setattr(storage, "read_text_file", _unreadable)
    with pytest.raises(calibration.CalibrationError, match=r"cannot be read \(permission denied\)"):
        calibration.load_calibration(cal)
    with pytest.raises(detector.ModelError, match=r"cannot be read \(permission denied\)"):
        detector._model_config(settings)
    with pytest.raises(sources.SourceError, match=r"cannot be read \(permission denied\)"):
        sources.FolderSource._read_manifest(object(), tmp_path / "frames.jsonl")


def test_output_cut_short_by_the_reader_ends_quietly():
    """``solitaire-coach simulate ... | head -1``: no BrokenPipeError traceback."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solitaire_coach.app.cli",
            "simulate",
            "--seed",
            "1",
            "--count",
            "300",
            "--strategy",
            "baseline",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode()[-500:]
    assert proc.returncode == 1
