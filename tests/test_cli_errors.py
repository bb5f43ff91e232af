"""One error style and exit status for every command (``solitaire-coach CMD: error: ...``
on stderr, 2 for bad input), and the bad inputs that once ended in a traceback, a hang,
silence or lost pictures."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from solitaire_coach.app.cli import build_parser, main

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "vision"
SCENE = sorted(FIX.glob("scene_*.jpg"))[0]


def _run(argv, capsys):
    """(exit status, stderr) of ``main(argv)``; argparse's own exit counted as a status."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def _bad_inputs(tmp: Path) -> dict[str, list[list[str]]]:
    """For every command: a missing file (or folder) and a bad option value."""
    missing = str(tmp / "missing")
    afile = tmp / "afile.txt"
    afile.write_text("x\n")
    return {
        "simulate": [["--deals", missing + ".txt"], ["--count", "0"]],
        "coach": [["--snapshot-file", str(afile / "snap.txt")], ["--snapshot-file", "s.txt", "--think-time", "-1"]],
        "check-log": [[missing + ".log"], ["--draw", "2", missing + ".log"]],
        "solve": [[missing + ".txt"], ["--time-limit", "x", missing + ".txt"]],
        "detect": [[missing + ".jpg"], [str(SCENE), "--deck", "no good"]],
        "learn-deck": [[missing + ".jpg"], [str(SCENE), "--name", "no good"]],
        "play": [["--frames", missing, "--no-window"], ["--baud", "0", "--no-window"]],
        "record": [[str(tmp / "rec"), "--camera", missing + ".mp4", "--no-window"], [str(tmp / "rec"), "--fps", "0"]],
        "replay": [[missing], [missing, "--fps", "0"]],
        "demo": [["--expect", missing + ".log"], ["--game", "no-such-game"]],
        "calibrate": [
            ["--table", missing + ".png", "--name", "x", "--folder", str(tmp / "cal")],
            ["--board", "3x3", "--name", "x"],
        ],
    }


def test_every_command_says_bad_input_in_one_form_and_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SOLITAIRE_DECK_REFS", str(tmp_path / "decks"))
    cases = _bad_inputs(tmp_path)
    commands = set(build_parser()._subparsers._group_actions[0].choices)
    assert commands == set(cases), "a command without a bad-input case here"
    for command, argvs in cases.items():
        for argv in argvs:
            code, err = _run([command, *argv], capsys)
            lines = err.splitlines()
            assert code == 2, (command, argv, err)
            assert "Traceback" not in err
            assert any(ln.startswith(f"solitaire-coach {command}: error: ") for ln in lines), (command, argv, err)


def test_check_log_with_a_missing_file_is_bad_input_not_a_bad_log(tmp_path, capsys):
    missing = tmp_path / "missing.log"
    code, err = _run(["check-log", str(missing)], capsys)
    assert code == 2 and err == f"solitaire-coach check-log: error: {missing}: no such file\n"


# ----------------------------------------------------------------------------- pictures
def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` (its data is not that big)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def test_a_picture_over_opencvs_pixel_limit_is_named_in_every_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SOLITAIRE_DECK_REFS", str(tmp_path / "decks"))
    big = tmp_path / "big.png"
    big.write_bytes(_png_header(33000, 33000))
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame_000001.png").write_bytes(big.read_bytes())
    for argv in (
        ["detect", str(big)],
        ["learn-deck", str(big), "--name", "big"],
        ["calibrate", "--table", str(big), "--name", "x", "--folder", str(tmp_path / "cal")],
    ):
        code, err = _run(argv, capsys)
        assert code == 2, (argv, err)
        assert (
            f"solitaire-coach {argv[0]}: error: " in err and f"{str(big)!r}: the picture is 33000x33000 pixels" in err
        ), err
        assert "OpenCV reads at most" in err
    for argv in (
        ["replay", str(frames)],
        ["play", "--frames", str(frames), "--no-window", "--journal", str(tmp_path / "j.json")],
    ):
        code = main(argv)
        out = capsys.readouterr()
        said = out.out + out.err
        assert code in (0, 1) and "Traceback" not in said
        assert "frame_000001.png" in said and "33000x33000" in said, said


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_detect_refuses_a_named_pipe_as_solve_does(tmp_path):
    fifo = tmp_path / "pipe.jpg"
    os.mkfifo(fifo)
    for argv in (["detect", str(fifo)], ["solve", str(fifo)]):
        done = subprocess.run(
            [sys.executable, "-m", "solitaire_coach.app.cli", *argv], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2, done.stderr
        assert "named pipe" in done.stderr and f"solitaire-coach {argv[0]}: error: " in done.stderr


def test_detect_refuses_an_empty_annotate_path(capsys):
    code, err = _run(["detect", str(SCENE), "--annotate", ""], capsys)
    assert code == 2 and "solitaire-coach detect: error: --annotate: an empty path" in err


def test_a_truncated_jpeg_and_a_tiny_picture_are_not_read_as_a_table_of_unknowns(tmp_path, capsys):
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(SCENE.read_bytes()[:3000])
    code, err = _run(["detect", str(cut)], capsys)
    assert code == 2 and f"{str(cut)!r}: a JPEG cut short (no end marker)" in err
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))
    code, err = _run(["detect", str(tiny)], capsys)
    assert code == 2 and f"{str(tiny)!r}: the picture is 1x1 pixels" in err
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(SCENE)), (200, 112)))
    code, err = _run(["detect", str(small)], capsys)
    assert code == 0 and f"warning: {str(small)!r}: the picture is only 200x112 pixels" in err


# ----------------------------------------------------------------------------- text input
def test_simulate_refuses_a_seed_with_a_deal_file(tmp_path, capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    deals = tmp_path / "deals.txt"
    deals.write_text(format_deal(deal_for_seed(3)) + "\n")
    for seed in ("1", "5"):
        code, err = _run(["simulate", "--seed", seed, "--deals", str(deals)], capsys)
        assert code == 2 and "--seed" in err and "--deals" in err, err


def test_a_deal_of_51_cards_on_the_command_line_names_the_missing_card(capsys):
    from solitaire_coach.core import deal_for_seed

    deal = deal_for_seed(3)
    line = " ".join(card.code for card in deal[:-1])
    code, err = _run(["solve", line], capsys)
    assert code == 2 and deal[-1].code in err and "missing" in err, err
    assert "neither a file nor" not in err


def test_record_says_a_file_that_is_no_video_is_no_video(tmp_path, capsys):
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(b"this is not a video" * 100)
    code, err = _run(["record", str(tmp_path / "rec"), "--camera", str(garbage), "--no-window"], capsys)
    assert code == 2 and "could not be opened as a video" in err and "plugged" not in err, err


# ----------------------------------------------------------------------------- coach
def _coach(*argv, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "solitaire_coach.app.cli", "coach", "--strategy", "baseline", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_coach_ends_at_the_end_of_its_input(tmp_path):
    done = _coach("--snapshot-file", str(tmp_path / "snap.txt"))
    assert done.returncode == 0 and "end of input" in done.stdout, done.stdout


def test_coach_says_what_it_waits_for_and_a_name_near_the_one_given(tmp_path):
    (tmp_path / "snapshot.txt").write_text("")
    done = _coach("--snapshot-file", str(tmp_path / "snapshto.txt"))
    assert f"waiting for {tmp_path / 'snapshto.txt'} to be written" in done.stdout
    assert "snapshot.txt" in done.stdout.split("waiting for", 1)[1]


# ----------------------------------------------------------------------------- play
def test_play_says_restart_with_new_once_for_a_fresh_deal_read_again_and_again():
    from solitaire_coach.app.live import LiveCoach
    from solitaire_coach.capture.gate import ReadGate
    from solitaire_coach.core.state import deal_for_seed
    from solitaire_coach.core.virtual_table import VirtualTable
    from test_live import TableDouble, _frames, _session

    double = TableDouble()
    table = VirtualTable.from_deal(deal_for_seed(102))
    images = [double.picture(table.snapshot())] * 3
    table.perform(table.state.legal_moves()[0])
    images += [double.picture(table.snapshot())] * 3
    fresh = VirtualTable.from_deal(deal_for_seed(5)).snapshot()
    for k in range(4):  # a hand over the fresh deal, then still again: read each time
        images += [double.picture(fresh, hand=True, shift=k)] * 2 + [double.picture(fresh)] * 4
    said: list[str] = []
    coach = LiveCoach(_session(), double, ReadGate(hand_check=None), say=said.append)
    coach.start()
    for frame in _frames(images):
        coach.step(frame)
    from solitaire_coach.app.live import FRESH_DEAL_WORDS

    fresh_lines = [s for s in said if FRESH_DEAL_WORDS in s]
    assert len(fresh_lines) == 1, said
    assert double.calls > 3


# ----------------------------------------------------------------------------- record
def test_the_recorder_keeps_a_draw_that_changes_the_picture_little():
    """A waste card turned changes a card's worth of pixels: under the old 0.6 mean grey
    level on the thumbnail, so it was listed as the picture before and lost."""
    from solitaire_coach.capture.gate import MotionMeter
    from solitaire_coach.capture.sources import Frame, FrameRecorder
    from solitaire_coach.core.moves import Move
    from solitaire_coach.core.state import GameState, deal_for_seed
    from solitaire_coach.vision.render import TableLayout, render_layout

    state = GameState.from_deal(deal_for_seed(4))
    before, _ = render_layout(TableLayout.from_state(state), seed=3, steady=True)
    drawn = state.play(Move.draw())
    after, _ = render_layout(TableLayout.from_state(drawn), seed=3, steady=True)
    meter = MotionMeter()
    assert MotionMeter.compare(meter.thumbnail(before), meter.thumbnail(after))[0] < 0.6  # the old rule's blind spot
    rng = np.random.default_rng(1)
    noisy = np.clip(after.astype(np.int16) + rng.normal(0, 2, after.shape), 0, 255).astype(np.uint8)
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        rec = FrameRecorder(d)
        names = [rec.add(Frame(img, i, i * 0.2, f"f{i}")) for i, img in enumerate([before, before, after, noisy])]
        rec.close()
    assert names[0] == names[1] and names[1] != names[2], names  # the same picture listed again; the draw kept
    assert names[3] == names[2], names  # sensor noise is no new picture
    assert rec.written == 2


# ----------------------------------------------------------------------------- --help
def _options(parser) -> dict[str, dict[str, str]]:
    """option -> {command: help} over every command."""
    sub = parser._subparsers._group_actions[0].choices
    out: dict[str, dict[str, str]] = {}
    for command, p in sub.items():
        for action in p._actions:
            for opt in action.option_strings:
                out.setdefault(opt, {})[command] = action.help or ""
    return out


def test_every_help_has_examples_and_states_defaults(capsys):
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices
    for command, p in sub.items():
        text = p.format_help()
        assert "examples:" in text and f"solitaire-coach {command}" in text.split("examples:")[1], command
        assert "exit status: 0 done" in text, command
        for action in p._actions:
            if (
                action.option_strings
                and action.default not in (None, False)
                and action.help != "==SUPPRESS=="
                and action.dest != "help"
            ):
                assert "default" in p._get_formatter()._get_help_string(action), (command, action.option_strings)


def test_a_shared_option_means_the_same_in_every_command():
    options = _options(build_parser())
    for opt in ("--think-time", "--strategy", "--model"):
        assert len(set(options[opt].values())) == 1, (opt, options[opt])
    assert {"play", "replay", "demo", "simulate", "coach"} <= set(options["--think-time"])
    assert all(h.startswith("JSON on stdout") for h in options["--json"].values()), options["--json"]
    assert all(h.startswith("camera calibration: NAME") for h in options["--calibration"].values())
    assert all("seed" in h and "deal" in h for h in options["--seed"].values()), options["--seed"]


def test_solve_seed_solves_the_seeded_deal(capsys):
    from solitaire_coach.core import deal_for_seed, format_deal

    assert main(["solve", "--seed", "3", "--quiet"]) == 0
    by_seed = capsys.readouterr().out
    assert main(["solve", format_deal(deal_for_seed(3)), "--quiet"]) == 0
    assert by_seed.split(":", 1)[1].split("(")[0] == capsys.readouterr().out.split(":", 1)[1].split("(")[0]
    code, err = _run(["solve"], capsys)
    assert code == 2 and "solitaire-coach solve: error: give a deal line" in err


# ----------------------------------------------------------------------------- progress
def test_progress_says_how_far_and_how_long_is_left():
    import io

    from solitaire_coach.app.progress import Progress

    now = [0.0]
    out = io.StringIO()
    progress = Progress(10, "deals", "simulate", stream=out, every_s=1.0, clock=lambda: now[0])
    for done in range(1, 11):
        now[0] += 2.0
        progress.update(done, f"{done // 2} won")
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "simulate: 1/10 deals, 0 won, 2.00 s each, about 18 s left"
    assert lines[-1] == "simulate: 9/10 deals, 4 won, 2.00 s each, about 2 s left"  # none once done

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    tty = Terminal()
    progress = Progress(100, "deals", "simulate", stream=tty, clock=lambda: now[0])
    now[0] += 31.0
    progress.update(1)
    progress.close()
    assert tty.getvalue() == "\rsimulate: 1/100 deals, 31.00 s each, about 51m09s left\x1b[K\r\x1b[K"


def test_simulate_shows_progress_on_stderr_and_leaves_stdout_alone(capsys, monkeypatch):
    from solitaire_coach.app import progress

    assert main(["simulate", "--count", "3", "--strategy", "baseline", "--quiet"]) == 0
    quiet = capsys.readouterr()
    monkeypatch.setattr(progress, "EVERY_S", 0.0)
    assert main(["simulate", "--count", "3", "--strategy", "baseline", "--quiet"]) == 0
    shown = capsys.readouterr()
    assert shown.out.split(", median")[0] == quiet.out.split(", median")[0] and "left" not in quiet.err
    assert [ln.split(",")[0] for ln in shown.err.splitlines()] == ["simulate: 1/3 deals", "simulate: 2/3 deals"]
    assert all("left" in ln for ln in shown.err.splitlines())


def test_a_long_solve_ticks_on_stderr():
    import io
    import time

    from solitaire_coach.app.progress import Ticker

    out = io.StringIO()
    with Ticker("seed 7", "solve", limit_s=30, stream=out, after_s=0.1, every_s=0.2):
        time.sleep(0.45)
    lines = out.getvalue().splitlines()
    assert lines and lines[0] == "solve: seed 7: searching, 0 s of at most 30 s"
    out = io.StringIO()
    with Ticker("seed 7", "solve", limit_s=30, stream=out, after_s=1.0):
        pass
    assert out.getvalue() == ""


def test_coach_says_again_what_it_waits_for_and_ends_when_its_input_closes(tmp_path):
    import threading
    import time

    from solitaire_coach.app.coach import CoachSession, run_file_loop
    from solitaire_coach.core.advisor import make_strategy
    from solitaire_coach.core.rules import Rules

    said: list[str] = []
    session = CoachSession(Rules(), make_strategy("baseline"), None, say=said.append)
    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "r")
    result: list = []
    thread = threading.Thread(
        target=lambda: result.append(
            run_file_loop(session, tmp_path / "snap.txt", stdin=stdin, poll_s=0.02, remind_s=0.1)
        ),
        daemon=True,
    )
    thread.start()
    time.sleep(0.5)
    os.close(wfd)
    thread.join(10)
    assert result == [0]
    again = [s for s in said if "still waiting for it to be written" in s]
    assert len(again) >= 2 and said[-1] == "end of input: stopping", said
