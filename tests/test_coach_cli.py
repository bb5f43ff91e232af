"""The snapshot-file coach and the simulate/check-log commands, end to end."""

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from solitaire_coach.app.coach import CoachSession, advice_for, run_file_loop
from solitaire_coach.app.journal import Journal
from solitaire_coach.core import Rules
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.notation import parse_snapshot
from solitaire_coach.core.open_advice import advise_open
from solitaire_coach.core.state import deal_for_seed
from solitaire_coach.core.tracker import TableTracker, looks_like_a_deal
from solitaire_coach.core.virtual_table import VirtualTable
from solitaire_coach.storage import write_atomic

CLI = [sys.executable, "-m", "solitaire_coach.app.cli"]


class Coach:
    """A `solitaire-coach coach` process whose printed lines we can wait for."""

    def __init__(self, snapshot_file: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            CLI + ["coach", "--snapshot-file", str(snapshot_file), "--strategy", "baseline", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, prefix: str, timeout: float = 20.0) -> list[str]:
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            seen.append(line)
            if line.startswith(prefix):
                return seen
        raise AssertionError(f"no line starting {prefix!r}; got {seen}")

    def quit(self) -> int:
        self.proc.stdin.write("q\n")
        self.proc.stdin.flush()
        return self.proc.wait(timeout=20)


def test_coach_plays_a_whole_game_from_snapshot_files(tmp_path):
    """The virtual table writes each snapshot; the coach process reads it, and its printed
    advice is what the table then does, until the game ends."""
    from solitaire_coach.core.tracker import OPEN_HYPOTHESES, TableTracker

    snap_file = tmp_path / "snapshot.txt"
    table = VirtualTable.from_deal(deal_for_seed(3))  # a deal the baseline wins
    # to turn the printed advice back into a move: a tracker as the coach's, which keeps
    # every count of unseen stock turns open and advises in all of them
    mirror = TableTracker(open_turns=True, max_hypotheses=OPEN_HYPOTHESES)
    strategy = make_strategy("baseline")
    write_atomic(snap_file, table.snapshot().text())
    coach = Coach(snap_file, "--exit-when-done")
    coach.wait_for("advice:")
    mirror.update(table.snapshot())
    moves = 0
    while True:
        advice = advise_open(strategy, mirror.explanations, mirror.history)
        if advice.status == "check":  # (the stock may be used up: the person looks and does what fits)
            move = next(m for m in advice.moves if table.state.is_legal(m))
        elif advice.status == "move":
            move = advice.move
        else:
            break
        table.perform(move)
        write_atomic(snap_file, table.snapshot().text())
        lines = coach.wait_for("advice:")
        assert any(ln.startswith("seen: ") for ln in lines), lines
        mirror.update(table.snapshot())
        # (said unsure where an explanation dropped for the cap, with no stock line read,
        # has the stock used up: advice_for)
        assert lines[-1] == "advice: " + advice_for(strategy, mirror).line()
        moves += 1
    assert table.state.is_won()
    assert lines[-1] == "advice: You have won"
    assert coach.proc.wait(timeout=20) == 0
    journal = json.loads((tmp_path / "snapshot.txt.journal.json").read_text())
    assert len(journal["tracker"]["history"]) == moves


def test_bad_snapshot_and_restart_resume_the_same_game(tmp_path):
    snap_file = tmp_path / "snap.txt"
    table = VirtualTable.from_deal(deal_for_seed(1))
    write_atomic(snap_file, table.snapshot().text())
    coach = Coach(snap_file)
    coach.wait_for("advice:")
    table.perform(table.state.legal_moves()[0])
    write_atomic(snap_file, table.snapshot().text())
    coach.wait_for("advice:")
    write_atomic(snap_file, "KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D\n")
    lines = coach.wait_for("bad snapshot")
    assert "expected 12 comma-separated slots, found 11" in lines[-1]
    assert coach.quit() == 0
    # a new process resumes from the journal
    coach = Coach(snap_file)
    lines = coach.wait_for("watching")
    assert any("resumed the game" in ln and "1 moves so far" in ln for ln in lines), lines
    table.perform(table.state.legal_moves()[0])
    write_atomic(snap_file, table.snapshot().text())
    lines = coach.wait_for("advice:")
    assert any(ln.startswith("seen:") for ln in lines), lines
    assert coach.quit() == 0


def test_corrupt_journal_is_set_aside_not_lost(tmp_path):
    journal = Journal(tmp_path / "game.journal.json")
    journal.path.write_text("{not json")
    said = []
    CoachSession(Rules(), make_strategy("baseline"), journal, say=said.append)
    assert "cannot read the journal" in said[0]
    assert (tmp_path / "game.journal.json.bad-1").read_text() == "{not json"


def test_session_reports_deviation_and_illegal_move():
    said = []
    session = CoachSession(Rules(), make_strategy("baseline"), None, say=said.append)
    table = VirtualTable.from_deal(deal_for_seed(1))
    session.process_text(table.snapshot().text())
    advised = session.last_advice.move
    other = next(m for m in table.state.legal_moves() if m != advised and m.text != "draw")
    table.perform(other)
    session.process_text(table.snapshot().text())
    assert any("instead of the advised" in s for s in said)
    said.clear()
    session.process_text("XX,XX,XX,XX,XX,JS,QH,KH,8H,JD,KC,JC")
    assert any("take it back" in s or "not a legal continuation" in s for s in said), said


def test_simulate_writes_logs_that_replay_legally(tmp_path):
    out = subprocess.run(
        CLI
        + [
            "simulate",
            "--seed",
            "1",
            "--count",
            "30",
            "--strategy",
            "baseline",
            "--logs",
            str(tmp_path),
            "--json",
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(ln) for ln in out.stdout.splitlines()]
    summary = lines[-1]["summary"]
    assert summary["games"] == 30 and 0 <= summary["wins"] <= 30
    assert summary["ci95"][0] <= summary["win_rate"] <= summary["ci95"][1]
    logs = sorted(tmp_path.glob("*.log"))
    assert len(logs) == 30
    check = subprocess.run(CLI + ["check-log", *map(str, logs)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    # a tampered log is refused, naming the move
    bad = tmp_path / "bad.log"
    text = logs[0].read_text().splitlines()
    text.insert(1, "1-f")
    bad.write_text("\n".join(text) + "\n")
    check = subprocess.run(CLI + ["check-log", str(bad)], capture_output=True, text=True)
    assert check.returncode == 1 and "move 1 (1-f)" in check.stdout


def test_simulate_refuses_a_bad_deal_file(tmp_path):
    deals = tmp_path / "deals.txt"
    deals.write_text("AS 2S 3S\n")
    out = subprocess.run(
        CLI + ["simulate", "--deals", str(deals), "--strategy", "baseline"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "line 1" in out.stderr


class LoopInThread:
    """``run_file_loop`` in a thread, its stdin a pipe, what it says collected: so a test can
    break the snapshot file's path while it watches and still press q."""

    def __init__(self, path: Path, settle_s: float | None = None) -> None:
        import os

        self.said: queue.Queue[str] = queue.Queue()
        session = CoachSession(Rules(), make_strategy("baseline"), None, say=self.said.put)
        rfd, self._wfd = os.pipe()
        self._stdin = os.fdopen(rfd, "r")
        self.result: list = []

        def run():
            try:
                extra = {} if settle_s is None else {"settle_s": settle_s}
                self.result.append(run_file_loop(session, path, stdin=self._stdin, poll_s=0.02, **extra))
            except BaseException as exc:  # the failure the test reports
                self.result.append(exc)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def wait_for(self, words: str, timeout: float = 10.0) -> list[str]:
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.result:
            try:
                line = self.said.get(timeout=0.05)
            except queue.Empty:
                continue
            seen.append(line)
            if words in line:
                return seen
        raise AssertionError(f"nothing said with {words!r}; said {seen}, loop ended with {self.result}")

    def said_now(self) -> list[str]:
        """What was said and not yet waited for."""
        lines = []
        while True:
            try:
                lines.append(self.said.get_nowait())
            except queue.Empty:
                return lines

    def press(self, text: str) -> None:
        import os

        os.write(self._wfd, text.encode())

    def quit(self) -> int:
        self.press("q\n")
        self.thread.join(timeout=10)
        assert self.result, "q did not stop the loop"
        return self.result[0]


def _snapshot_text() -> str:
    return VirtualTable.from_deal(deal_for_seed(1)).snapshot().text()


def test_coach_keeps_watching_when_the_snapshot_path_breaks(tmp_path):
    import os
    import shutil

    folder = tmp_path / "d"
    folder.mkdir()
    snap = folder / "s.txt"
    snap.write_text(_snapshot_text())
    loop = LoopInThread(snap)
    loop.wait_for("advice:")
    shutil.rmtree(folder)
    folder.write_text("a file where the folder was\n")
    lines = loop.wait_for(f"cannot read {snap}: ")
    assert lines[-1] == f"cannot read {snap}: a folder on its path is a file, not a folder"
    folder.unlink()
    folder.mkdir()
    os.symlink("s.txt", snap)  # a link to itself
    assert (
        loop.wait_for(f"cannot read {snap}: ")[-1]
        == f"cannot read {snap}: a symlink loop (a symbolic link on its path leads back to itself)"
    )
    loop.press("\n")  # Enter says the lasting reason again
    assert "a symlink loop" in loop.wait_for(f"cannot read {snap}: ")[-1]
    snap.unlink()
    snap.write_text(_snapshot_text())
    loop.wait_for("advice:")
    assert loop.quit() == 0


def test_coach_snapshot_not_utf8_or_utf16_is_named_and_the_game_goes_on(tmp_path):
    snap = tmp_path / "s.txt"
    snap.write_bytes(b"AD,UU,\xff\xfe")
    loop = LoopInThread(snap)
    said = loop.wait_for(f"cannot read {snap}: ")[-1]
    assert (
        said.startswith(f"cannot read {snap}: not a text file (UTF-8): byte 0xff at offset 6") and "codec" not in said
    )
    write_atomic(snap, _snapshot_text().encode("utf-16"))
    assert loop.wait_for(f"cannot read {snap}: ")[-1].startswith(f"cannot read {snap}: UTF-16 text")
    write_atomic(snap, _snapshot_text())
    loop.wait_for("advice:")
    assert loop.quit() == 0


def test_coach_a_huge_snapshot_file_is_named_not_read_whole_and_the_game_goes_on(tmp_path):
    snap = tmp_path / "s.txt"
    snap.write_text(_snapshot_text())
    loop = LoopInThread(snap)
    loop.wait_for("advice:")
    huge = _snapshot_text() + "\n" + "# a comment\n" * 200_000  # 2.4 MB: a file given by mistake
    write_atomic(snap, huge)
    assert loop.wait_for(f"cannot read {snap}: ")[-1] == (
        f"cannot read {snap}: it is {len(huge):,} bytes, too large to be a snapshot (one line of 12 slots and a few "
        f"optional lines; at most 1,048,576 bytes are read)"
    )
    write_atomic(snap, _snapshot_text())
    assert loop.wait_for("advice:")
    assert loop.quit() == 0


def test_coach_refuses_a_named_pipe_as_snapshot_and_q_still_quits(tmp_path):
    import os

    if not hasattr(os, "mkfifo"):
        import pytest

        pytest.skip("no named pipes here")
    snap = tmp_path / "s.txt"
    snap.write_text(_snapshot_text())
    loop = LoopInThread(snap)
    loop.wait_for("advice:")
    snap.unlink()
    os.mkfifo(snap)
    assert (
        loop.wait_for(f"cannot read {snap}: ")[-1]
        == f"cannot read {snap}: not a regular file: it is a named pipe (FIFO)"
    )
    try:
        assert loop.quit() == 0
    finally:
        try:  # a loop blocked opening the pipe (the bug) is let go
            os.close(os.open(snap, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass


def test_coach_refuses_a_symlink_loop_or_a_named_pipe_at_start(tmp_path, capsys):
    import os

    from solitaire_coach.app.cli import main

    loop = tmp_path / "s.txt"
    os.symlink("s.txt", loop)
    assert main(["coach", "--snapshot-file", str(loop), "--strategy", "baseline"]) == 2
    assert capsys.readouterr().err == (
        f"solitaire-coach coach: error: --snapshot-file {loop}: cannot be read: "
        f"a symlink loop (a symbolic link on its path leads back to itself)\n"
    )
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.txt"
        os.mkfifo(fifo)
        assert main(["coach", "--snapshot-file", str(fifo), "--strategy", "baseline"]) == 2
        assert (
            capsys.readouterr().err
            == f"solitaire-coach coach: error: --snapshot-file {fifo}: is not a regular file: it is a named pipe (FIFO)\n"
        )


def test_coach_says_up_front_when_the_snapshot_file_or_its_folder_is_missing(tmp_path):
    loop = LoopInThread(tmp_path / "no" / "such" / "snap.txt")
    lines = loop.wait_for("does not exist")
    assert f"the folder {tmp_path / 'no' / 'such'} does not exist" in lines[-1], lines
    assert loop.quit() == 0
    loop = LoopInThread(tmp_path / "snap.txt")
    lines = loop.wait_for("does not exist")
    assert f"waiting for {tmp_path / 'snap.txt'} to be written" in lines[-1], lines
    assert loop.quit() == 0


def _session_with(tmp_path, state, history=()):
    journal = Journal(tmp_path / "game.journal.json")
    session = CoachSession(Rules(), make_strategy("baseline"), journal, say=[].append)
    session.tracker = TableTracker(Rules(), state=state, history=list(history))
    if state is not None:
        journal.save(session.tracker)
    said = []
    session.say = said.append
    return session, journal, said


def test_a_fresh_deal_after_a_finished_game_starts_a_new_one_and_keeps_the_old_journal(tmp_path):
    from solitaire_coach.core import GameState

    won = GameState(((),) * 7, ((),) * 7, (), (), (13, 13, 13, 13))
    session, journal, said = _session_with(tmp_path, won)
    deal = VirtualTable.from_deal(deal_for_seed(5)).snapshot().text()
    report = session.process_text(deal)
    assert report.kind == "started" and not session.tracker.history
    assert any(
        "the last game is over (won, 0 moves) and a fresh deal is on the table: a new game starts; "
        "its journal is kept as game.journal.json.game-1" in s
        for s in said
    ), said
    assert json.loads((tmp_path / "game.journal.json.game-1").read_text())["tracker"]["state"]["foundations"] == [
        13,
        13,
        13,
        13,
    ]
    assert json.loads(journal.path.read_text())["tracker"]["history"] == []


def test_a_fresh_deal_during_a_game_is_only_pointed_out(tmp_path):
    table = VirtualTable.from_deal(deal_for_seed(1))
    session, journal, said = _session_with(tmp_path, None)
    session.tracker = TableTracker(Rules())
    session.process_text(table.snapshot().text())
    table.perform(table.state.legal_moves()[0])
    session.process_text(table.snapshot().text())
    said.clear()
    report = session.process_text(VirtualTable.from_deal(deal_for_seed(5)).snapshot().text())
    assert report.kind == "inconsistent" and len(session.tracker.history) == 1
    assert any(
        "the table looks like a fresh deal: if a new game was dealt, restart with --new (the game in "
        "hand, 1 move, is kept until then)" in s
        for s in said
    ), said


def test_a_game_given_up_is_not_over_and_a_card_put_down_wrong_is_no_fresh_deal(tmp_path):
    """A misread must never wipe a game: only a game won or proven lost makes way for a
    fresh deal, and a table with a card put down wrong is never taken for one."""
    from solitaire_coach.core.advisor import Advice

    table = VirtualTable.from_deal(deal_for_seed(3))
    session, journal, said = _session_with(tmp_path, None)
    session.tracker = TableTracker(Rules())
    session.process_text(table.snapshot().text())
    session.last_advice = Advice(
        "lost", None, "No move this player makes progress with is left: the baseline player gives up", proven=False
    )
    fresh = VirtualTable.from_deal(deal_for_seed(5)).snapshot().text()
    assert session.process_text(fresh).kind == "inconsistent" and session._game_over() is None
    session.last_advice = Advice("lost", None, "The game cannot be won from here", proven=True)
    assert session._game_over() == "lost"
    # a card put on a column against the rules and the card under it turned, no runs
    # line: every column and the waste show a card, foundations empty -- "take it back",
    # not a fresh deal
    slots = table.snapshot().line().split(",")
    truth = table.state
    source = next(k for k in range(1, 7) if truth.hidden[k])
    mover = truth.faceup[source][-1]
    target = next(j for j in range(7) if j != source and not mover.goes_on_tableau(truth.faceup[j][-1]))
    slots[5 + target] = mover.code
    slots[5 + source] = truth.hidden[source][-1].code
    assert looks_like_a_deal(parse_snapshot(",".join(slots)))
    said.clear()
    report = session.process_text(",".join(slots))
    assert report.kind == "inconsistent" and "take it back" in report.message
    assert "fresh deal" not in report.message and not any("new game" in s for s in said)


def test_coach_says_enter_reads_a_table_again_for_moves_made_unseen(tmp_path):
    """Moves made while the coach was not watching: the first read finds no legal
    continuation and says that Enter reads the table again; that read starts the longer
    search and the game catches up."""
    table = VirtualTable.from_deal(deal_for_seed(1))
    snap = tmp_path / "s.txt"
    write_atomic(snap, table.snapshot().text())
    loop = LoopInThread(snap)
    loop.wait_for("advice:")
    strategy = make_strategy("baseline")
    history = []
    for _ in range(6):
        move = strategy.advise(table.state, history).move
        table.perform(move)
        history.append(move)
    write_atomic(snap, table.snapshot().text())
    lines = loop.wait_for("press Enter")
    assert any(line.startswith("that is not a legal continuation") for line in lines), lines
    assert lines[-1] == (
        "if the table is right (moves made while the coach was not watching), press Enter to read it "
        "again: a longer search then looks for those moves"
    )
    loop.press("\n")
    lines = loop.wait_for("advice:")
    assert not any("press Enter" in line for line in lines), lines
    assert loop.quit() == 0


def test_coach_a_snapshot_caught_mid_write_is_read_again_once_whole_and_not_reported(tmp_path, monkeypatch):
    """A writer that truncates, then writes (not atomically): the coach sees the file empty
    and half-written, says nothing of it, and reads it again whole."""
    from solitaire_coach.app import coach

    read = []

    def recording_read(path):
        text = real_read(path)
        read.append(text)
        return text

    real_read = coach.read_text_file
    monkeypatch.setattr(coach, "read_text_file", recording_read)
    table = VirtualTable.from_deal(deal_for_seed(1))
    snap = tmp_path / "s.txt"
    write_atomic(snap, table.snapshot().text())
    loop = LoopInThread(snap, settle_s=1.5)  # far longer than the writer's pauses below
    loop.wait_for("advice:")
    table.perform(table.state.legal_moves()[0])
    whole = table.snapshot().text()
    with open(snap, "w") as fh:  # truncated: the coach sees it empty
        fh.flush()
        time.sleep(0.2)
        fh.write(whole[:20])  # half-written: cut in the middle of the slot line
        fh.flush()
        time.sleep(0.2)
        fh.write(whole[20:])
    lines = loop.wait_for("advice:")
    assert "" in read and whole[:20] in read, read  # it did catch the file mid-write
    assert not any("bad snapshot" in line or "cannot read" in line for line in lines), lines
    assert any(line.startswith("seen: ") for line in lines), lines
    assert loop.quit() == 0


def test_coach_a_snapshot_that_stays_bad_once_settled_is_reported_once(tmp_path):
    snap = tmp_path / "s.txt"
    write_atomic(snap, _snapshot_text())
    loop = LoopInThread(snap, settle_s=0.3)
    loop.wait_for("advice:")
    written = time.monotonic()
    snap.write_text("KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D\n")
    lines = loop.wait_for("bad snapshot")
    assert time.monotonic() - written >= 0.3  # said once it had settled
    assert lines[-1] == (
        f"bad snapshot in {snap}: line 1: expected 12 comma-separated slots, found 11: "
        f"'KS,UU,UU,UU,UU,5S,5H,QC,7H,8D,9D' (the game is unchanged)"
    )
    snap.write_text("")  # an empty file that stays empty is said once too
    assert loop.wait_for("bad snapshot")[-1] == (
        f"bad snapshot in {snap}: empty snapshot: expected one line of 12 comma-separated slots (the game is unchanged)"
    )
    time.sleep(0.8)
    assert loop.said_now() == []
    write_atomic(snap, _snapshot_text())
    loop.wait_for("advice:")
    assert loop.quit() == 0


def test_coach_enter_reads_an_unsettled_file_at_once_and_q_quits_meanwhile(tmp_path):
    snap = tmp_path / "s.txt"
    write_atomic(snap, _snapshot_text())
    loop = LoopInThread(snap, settle_s=60.0)
    loop.wait_for("advice:")  # a file that parses is read at once, settle time or not
    snap.write_text("KS,UU\n")
    time.sleep(0.3)
    assert loop.said_now() == []  # waiting for it to settle
    pressed = time.monotonic()
    loop.press("\n")
    assert "expected 12 comma-separated slots, found 2" in loop.wait_for("bad snapshot", timeout=5.0)[-1]
    assert time.monotonic() - pressed < 5.0
    snap.write_text("KS,UU,UU\n")  # unsettled again: q still quits at once
    time.sleep(0.1)
    quitting = time.monotonic()
    assert loop.quit() == 0 and time.monotonic() - quitting < 2.0
