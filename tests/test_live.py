"""The live loop: gate + detector + tracker + advisor + journal, the overlay, and the
play / replay / record commands, with a test double for the card detector (the real
detector is exercised by tests/test_live_games.py)."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from solitaire_coach.app import cmd_calibrate, cmd_record, live_setup
from solitaire_coach.app.cli import main
from solitaire_coach.app.coach import CoachSession
from solitaire_coach.app.journal import Journal
from solitaire_coach.app.live import LiveCoach
from solitaire_coach.app.loop import run_loop
from solitaire_coach.capture.gate import ReadGate
from solitaire_coach.capture.sources import FolderSource, Frame, FrameRecorder
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.cards import Card
from solitaire_coach.core.moves import Move
from solitaire_coach.core.notation import Snapshot, parse_snapshot
from solitaire_coach.core.rules import DEFAULT_RULES
from solitaire_coach.core.state import GameState, deal_for_seed
from solitaire_coach.core.virtual_table import VirtualTable
from solitaire_coach.vision.overlay import arrow_for, draw_overlay, slot_points

# ----------------------------------------------------------------------------- doubles


@dataclass
class FakeCard:
    card: Card | None
    quad: np.ndarray
    confidence: float
    slot: str


@dataclass
class FakeResult:
    snapshot: Snapshot
    cards: list
    elapsed_ms: float = 0.0


def _key(image: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(image).tobytes()).hexdigest()


class TableDouble:
    """Stands in for the card detector: pictures are drawn by ``picture`` for a snapshot,
    and read back exactly. A picture with a hand drawn on reads as the snapshot under it
    (the worst case: a detector that sees through hands)."""

    def __init__(self):
        self.known: dict[str, Snapshot] = {}
        self.hands: set[str] = set()  # the pictures drawn with a hand
        self.calls = 0

    def picture(
        self, snap: Snapshot, hand: bool = False, shift: int = 0, hand_colour: tuple[int, int, int] = (120, 150, 215)
    ) -> np.ndarray:
        img = np.full((360, 640, 3), (40, 100, 35), np.uint8)
        for i, v in enumerate(snap.slots):
            x, y = 20 + (i % 7) * 88, 30 + (i // 7) * 160
            colour = (240, 240, 240) if isinstance(v, Card) else (60, 60, 160)
            cv2.rectangle(img, (x, y), (x + 70, y + 100), colour, -1)
            code = v.code
            cv2.putText(img, code, (x + 5, y + 40), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2)
        if hand:
            cv2.ellipse(img, (300 + shift, 300), (90, 140), 15, 0, 360, hand_colour, -1)
            self.hands.add(_key(img))
        self.known[_key(img)] = snap
        return img

    def detect(self, image):
        self.calls += 1
        snap = self.known.get(_key(image))
        if snap is None:
            snap = parse_snapshot(",".join(["UU"] * 12))
        cards = []
        for i, v in enumerate(snap.slots):
            x, y = 20 + (i % 7) * 88, 30 + (i // 7) * 160
            slot = "waste" if i == 0 else f"foundation {i}" if i < 5 else f"column {i - 4}"
            if isinstance(v, Card):
                quad = np.float32([[x, y], [x + 70, y], [x + 70, y + 100], [x, y + 100]])
                cards.append(FakeCard(v, quad, 1.0, slot))
        return FakeResult(snap, cards, 1.0)


def _session(journal=None, say=None):
    return CoachSession(DEFAULT_RULES, make_strategy("baseline"), journal, say=say or (lambda s: None))


def _frames(images, start=0):
    return [Frame(img, start + i, (start + i) * 0.2, f"f{start + i}") for i, img in enumerate(images)]


def _game_frames(
    double: TableDouble,
    n_moves: int = 6,
    seed: int = 102,
    hands: bool = True,
    hand_colour: tuple[int, int, int] = (120, 150, 215),
):
    """Frames of a game played by the advice: each position held still 3 frames, with a
    hand reaching in before each move; returns frames and the moves played."""
    table = VirtualTable.from_deal(deal_for_seed(seed))
    from solitaire_coach.core.tracker import TableTracker

    tracker = TableTracker()
    tracker.update(table.snapshot())
    strategy = make_strategy("baseline")
    images = [double.picture(table.snapshot())] * 3
    moves = []
    for k in range(n_moves):
        advice = strategy.advise(tracker.state, tracker.history)
        before = table.snapshot()
        table.perform(advice.move)
        moves.append(advice.move.text)
        after = table.snapshot()
        tracker.update(after)
        if hands:
            images += [
                double.picture(before, hand=True, shift=k, hand_colour=hand_colour),
                double.picture(after, hand=True, shift=k + 1, hand_colour=hand_colour),
            ]
            images += [double.picture(after, hand=True, shift=k + 1, hand_colour=hand_colour)] * 3  # still: never read
        images += [double.picture(after)] * 3
    return _frames(images), moves


# ----------------------------------------------------------------------------- the coach
@pytest.mark.parametrize(
    "colour", [(170, 90, 40), (70, 140, 120), (90, 90, 90)], ids=["blue glove", "olive", "grey sleeve"]
)
def test_a_hand_of_no_skin_colour_resting_still_is_never_read(colour):
    """The skin-colour hand check cannot see a gloved hand, a sleeve or an arm in a light
    that makes it olive; the object check after the read does (the hand is where no card
    moved), so no read of a still hand is used and every move is still followed."""
    double = TableDouble()
    frames, moves = _game_frames(double, n_moves=5, hand_colour=colour)
    coach = LiveCoach(_session(), double, ReadGate())
    results = [coach.step(f) for f in frames]
    assert [m.text for m in coach.session.tracker.history] == moves
    on_hand = [r for r in results if _key(r.frame.image) in double.hands]
    assert not any(r.accepted for r in on_hand)
    seen = [r for r in on_hand if r.gate.hand and "not a card" in r.gate.reason]
    assert seen
    for r in seen:  # the object is outlined where the hand is (the ellipse around x 300, y 300)
        x, y, w, h = r.gate.box
        assert x < 330 and x + w > 270 and y + h > 250 and y < 360
        drawn = draw_overlay(r.frame.image, None, coach.advice, coach.state, gate=r.gate)
        assert drawn.shape == r.frame.image.shape and not np.array_equal(drawn, r.frame.image)
    assert not any(r.gate.hand for r in results if _key(r.frame.image) not in double.hands)


def test_live_coach_follows_a_game_and_never_reads_hands():
    double = TableDouble()
    frames, moves = _game_frames(double)
    said = []
    coach = LiveCoach(_session(), double, ReadGate(), say=said.append)
    results = [coach.step(f) for f in frames]
    assert [m.text for m in coach.session.tracker.history] == moves
    for r in results:
        if r.snapshot is not None:
            assert not r.gate.hand
    hand_reads = [r for r in results if r.gate.hand and r.snapshot is not None]
    assert not hand_reads
    assert any(r.gate.hand for r in results)
    assert said[0].startswith("new game started")
    assert any(line.startswith("advice: ") for line in said)
    # two reads per still position, none while moving or resting
    assert double.calls == 2 * (len(moves) + 1)
    js = results[-1].to_json()
    assert js["frame"] == frames[-1].name and "advice" in js


def test_deviation_and_illegal_move_are_said():
    double = TableDouble()
    table = VirtualTable.from_deal(deal_for_seed(102))
    start = table.snapshot()
    said = []
    coach = LiveCoach(_session(), double, ReadGate(hand_check=None), say=said.append)
    for f in _frames([double.picture(start)] * 3):
        coach.step(f)
    advised = coach.advice.move
    other = [m for m in table.state.legal_moves() if m != advised and m.kind.value != "draw"]
    assert other, "deal 102 has a second legal move at the start"
    # an illegal placement: the waste card onto a column where it does not fit
    waste = table.state.waste[-1]
    bad_col = next(i for i in range(7) if not waste.goes_on_tableau(table.state.faceup[i][-1]))
    slots = list(start.slots)
    slots[0] = parse_snapshot(",".join(["XX"] * 12)).slots[0]
    slots[5 + bad_col] = waste
    bad = Snapshot(tuple(slots))
    for f in _frames([double.picture(bad)] * 3, 3):
        coach.step(f)
    assert any("take it back" in s for s in said), said
    assert coach.session.tracker.history == []
    # taken back, then another legal move than the advice
    for f in _frames([double.picture(start)] * 3, 6):
        coach.step(f)
    table.perform(other[0])
    for f in _frames([double.picture(table.snapshot())] * 3, 9):
        coach.step(f)
    assert coach.session.tracker.history == [other[0]]
    assert any("instead of the advised" in s for s in said), said


def test_journal_resumes_the_same_game_after_a_crash(tmp_path):
    double = TableDouble()
    frames, moves = _game_frames(double, n_moves=6, hands=False)
    journal = Journal(tmp_path / "game.journal.json")
    coach = LiveCoach(_session(journal), double, ReadGate())
    half = len(frames) // 2
    while np.array_equal(frames[half].image, frames[half - 1].image):
        half += 1  # stop as a new position comes in (the camera sees it again on restart)
    for f in frames[:half]:
        coach.step(f)
    done = len(coach.session.tracker.history)
    assert 0 < done < len(moves)
    # "crash": a new process, a new coach from the journal
    said = []
    coach2 = LiveCoach(_session(journal, say=said.append), double, ReadGate(), say=said.append)
    assert len(coach2.session.tracker.history) == done
    coach2.start()
    for f in frames[half:]:
        coach2.step(f)
    assert [m.text for m in coach2.session.tracker.history] == moves


class FlakyCamera:
    """A live source whose camera is unplugged for a while mid-game."""

    live = True
    name = "camera flaky"

    def __init__(self, frames, gap_at, gap_len):
        self.frames = list(frames)
        self.gap_at, self.gap_len = gap_at, gap_len
        self.calls = 0

    def read(self):
        self.calls += 1
        if self.gap_at <= self.calls < self.gap_at + self.gap_len:
            return None
        return self.frames.pop(0) if self.frames else None

    def close(self):
        pass


def test_camera_gap_mid_game_loses_nothing():
    double = TableDouble()
    frames, moves = _game_frames(double, n_moves=5, hands=False)
    coach = LiveCoach(_session(), double, ReadGate(), say=lambda s: None)
    cam = FlakyCamera(frames, gap_at=10, gap_len=30)
    run_loop(coach, cam, window=False, idle_s=0, max_frames=len(frames))
    assert [m.text for m in coach.session.tracker.history] == moves


def test_a_blank_picture_mid_game_is_said_once_and_changes_nothing():
    """The camera covered, the light off or the lens dazzled: an all-dark or all-bright
    picture is not read (a read would see no card anywhere, a table that does not follow
    from the game); it is said once, naming the frame, and the game goes on when the
    table is back."""
    double = TableDouble()
    frames, moves = _game_frames(double, n_moves=4, hands=False)
    said = []
    coach = LiveCoach(_session(), double, ReadGate(), say=said.append)
    half = len(frames) // 2
    for f in frames[:half]:
        coach.step(f)
    done, calls, lines = len(coach.session.tracker.history), double.calls, len(said)
    rng = np.random.default_rng(1)
    shape = frames[0].image.shape
    dark = [np.clip(rng.normal(6, 2, shape), 0, 255).astype(np.uint8) for _ in range(6)]
    dark = [cv2.GaussianBlur(d, (9, 9), 0) for d in dark]  # sensor noise, nothing else
    results = [coach.step(f) for f in _frames(dark, 500)]
    assert double.calls == calls and not any(r.accepted for r in results)
    assert [r.gate.reason for r in results][1:] == ["blank picture (dark)"] * 5
    assert said[lines:] == [
        "the picture from f501 is all dark (camera covered, light off or dazzled?): nothing to "
        "read; the game is kept, waiting for the table"
    ]
    bright = _frames([np.full(shape, 255, np.uint8)] * 3, 600)
    assert [coach.step(f).gate.reason for f in bright][1:] == ["blank picture (bright)"] * 2
    assert len(said) == lines + 1 and len(coach.session.tracker.history) == done
    for f in frames[half:]:
        coach.step(f)
    assert [m.text for m in coach.session.tracker.history] == moves


# ----------------------------------------------------------------------------- drawing
def test_overlay_draws_boxes_arrow_and_text():
    double = TableDouble()
    table = VirtualTable.from_deal(deal_for_seed(102))
    snap = table.snapshot()
    img = double.picture(snap)
    coach = LiveCoach(_session(), double, ReadGate(hand_check=None))
    for f in _frames([img] * 3):
        coach.step(f)
    advice, state = coach.advice, coach.state
    assert advice is not None and advice.move is not None
    arrow = arrow_for(advice, state, coach.last_detection, img.shape)
    assert arrow is not None and arrow[0] != arrow[1]
    out = draw_overlay(img, coach.last_detection, advice, state, note="5♥ was put on 7♣: take it back")
    assert out.shape == img.shape and not np.array_equal(out, img)
    assert np.array_equal(img, double.picture(snap))  # the frame itself is not drawn on
    # every slot gets a point, even empty ones (estimated from the others)
    pts = slot_points(coach.last_detection, img.shape)
    assert set(pts) >= {"stock", "waste", "foundation 1", "column 7"}
    for kind in ("draw", "redeal", "w-f", "1-f", "w-3", "2-5"):  # never raises, even for a move not possible here
        other = replace(advice, move=Move.parse(kind), text=kind)
        assert draw_overlay(img, coach.last_detection, other, state).shape == img.shape


def test_the_arrow_starts_at_the_source_pile_and_an_empty_column_lies_level_with_the_others():
    """A card read elsewhere than the move's source (already moved, or misread) does not
    start the arrow; an empty column's place is half a card below the top edge of the
    columns' first cards, not at the centre of a covered card's strip."""
    from types import SimpleNamespace

    from solitaire_coach.vision.detector import CardDetection

    def det(code, slot, x, y0, y1, face_up=True):
        quad = np.array([[x - 40, y0], [x + 40, y0], [x + 40, y1], [x - 40, y1]], np.float32)
        return CardDetection(Card.parse(code) if code else None, quad, 0.99, slot, face_up)

    detection = SimpleNamespace(
        cards=[
            det("6D", "waste", 200, 40, 152),
            det("AS", "foundation 1", 500, 40, 152),
            det(None, "column 1", 100, 200, 215, face_up=False),
            det("KH", "column 1", 100, 215, 327),
            det("QC", "column 2", 200, 200, 312),
        ]
    )
    state = GameState.from_deal(deal_for_seed(102))
    state = GameState(state.hidden, state.faceup, state.stock, state.waste[:-1] + (Card.parse("AS"),))
    from solitaire_coach.core.advisor import Advice

    advice = Advice("move", Move.parse("w-f"), "Put A♠ from the waste on the foundation", "")
    (x0, y0), _ = arrow_for(advice, state, detection, (540, 960, 3))
    assert (x0, y0) == (200, 96)  # the waste, not the A♠ read on the foundation
    pts = slot_points(detection, (540, 960, 3))
    assert abs(pts["column 3"][1] - (200 + 112 / 2)) < 1  # level with the columns, not the strip's centre


# ----------------------------------------------------------------------------- commands
def _write_recording(tmp_path: Path, frames) -> Path:
    folder = tmp_path / "rec"
    rec = FrameRecorder(folder, quality=95)
    for f in frames:
        rec.add(f)
    rec.close()
    return folder


def test_recorder_dedupes_still_pictures_and_replays_in_order(tmp_path):
    double = TableDouble()
    frames, _ = _game_frames(double, n_moves=2)
    folder = _write_recording(tmp_path, frames)
    listed = (folder / "frames.jsonl").read_text().splitlines()
    assert len(listed) == len(frames)
    assert len(list(folder.glob("frame_*.jpg"))) < len(frames)
    (folder / "frames.jsonl").write_text("\n".join(listed) + '\n{"file": "frame_0000')  # cut short by a crash
    warnings = []
    src = FolderSource(folder, warn=warnings.append)
    assert len(src) == len(frames) and "line" in warnings[0]


class ExactDouble(TableDouble):
    """The double for recorded (JPEG) pictures: recognises them by their picture id."""

    def __init__(self, by_thumb):
        super().__init__()
        self.by_thumb = by_thumb

    def detect(self, image):
        self.calls += 1
        small = cv2.resize(image, (64, 36), interpolation=cv2.INTER_AREA).astype(np.float32)
        best = min(self.by_thumb, key=lambda item: float(np.abs(item[0] - small).mean()))
        snap = best[1]
        return FakeResult(snap, [], 1.0)


def _replay_setup(tmp_path, monkeypatch, n_moves=3):
    double = TableDouble()
    frames, moves = _game_frames(double, n_moves=n_moves)
    folder = _write_recording(tmp_path, frames)
    thumbs = [
        (
            cv2.resize(img_f.image, (64, 36), interpolation=cv2.INTER_AREA).astype(np.float32),
            double.known[_key(img_f.image)],
        )
        for img_f in frames
    ]
    monkeypatch.setattr(live_setup, "make_detector", lambda model, cal: ExactDouble(thumbs))
    return folder, moves


def test_replay_saves_an_annotated_picture_of_every_frame_read(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch)
    out = tmp_path / "overlays"
    assert main(["replay", str(folder), "--strategy", "baseline", "--json", "--save-overlay", str(out)]) == 0
    lines = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    read = [ln for ln in lines[:-1] if ln["read"]]
    assert len(read) == lines[-1]["summary"]["reads"] > sum(1 for ln in read if ln["accepted"])
    saved = sorted(p.name for p in out.iterdir())
    assert len(saved) == len(read) and all(cv2.imread(str(out / n)) is not None for n in saved)


def test_replay_prints_what_play_prints_and_json(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch)
    assert main(["replay", str(folder), "--strategy", "baseline"]) == 0
    replay_out = capsys.readouterr().out.splitlines()
    journal = tmp_path / "j.json"
    assert (
        main(["play", "--frames", str(folder), "--no-window", "--journal", str(journal), "--strategy", "baseline"]) == 0
    )
    play_out = capsys.readouterr().out.splitlines()
    # the same lines, play adding its "watching" header and its end ("no more frames; the
    # game ... is journalled in ..."), replay its summary
    assert play_out[1:-1] == replay_out[:-1] and "no more frames; the game (" in play_out[-1]
    assert any("new game started" in ln for ln in replay_out)
    assert replay_out[-1].startswith("replay:") and f"{len(moves)} moves inferred" in replay_out[-1]
    assert main(["replay", str(folder), "--json", "--strategy", "baseline"]) == 0
    out = capsys.readouterr()
    lines = [json.loads(ln) for ln in out.out.splitlines()]
    assert lines[-1]["summary"]["moves"] == len(moves)
    per_frame = lines[:-1]
    assert len(per_frame) == len((folder / "frames.jsonl").read_text().splitlines())
    inferred = [m for ln in per_frame for m in ln.get("moves", [])]
    assert inferred == moves
    assert all("snapshot" in ln for ln in per_frame if ln["read"])
    assert "new game started" in out.err


def test_replay_checks_an_expected_log(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch)
    from solitaire_coach.core.notation import format_log

    deal = deal_for_seed(102)
    (folder / "moves.log").write_text(format_log(deal, [Move.parse(m) for m in moves]))
    assert main(["replay", str(folder), "--strategy", "baseline"]) == 0
    assert "all as in moves.log" in capsys.readouterr().out
    (folder / "moves.log").write_text(format_log(deal, [Move.parse(m) for m in moves[:-1]] + [Move.draw()]))
    assert main(["replay", str(folder), "--json", "--strategy", "baseline"]) == 1
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])["summary"]
    assert summary["matches_expected"] is False and summary["first_difference"]["index"] == len(moves) - 1
    assert main(["replay", str(folder), "--strategy", "baseline"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert (
        f"moves inferred (NOT as in moves.log, {len(moves)} expected: from move {len(moves)} inferred "
        f"{moves[-1]}, expected draw)"
    ) in last, last
    (folder / "moves.log").write_text(format_log(deal_for_seed(7), [Move.draw()]))
    assert main(["replay", str(folder), "--strategy", "baseline"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert "the moves seen cannot be played from moves.log's deal: another game?" in last, last


def test_play_resumes_from_its_journal(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch, n_moves=4)
    journal = tmp_path / "j.json"
    n = len((folder / "frames.jsonl").read_text().splitlines())
    assert (
        main(
            [
                "play",
                "--frames",
                str(folder),
                "--no-window",
                "--journal",
                str(journal),
                "--max-frames",
                str(n // 2),
                "--strategy",
                "baseline",
            ]
        )
        == 0
    )
    first = json.loads(journal.read_text())["tracker"]["history"]
    assert 0 < len(first) < len(moves)
    capsys.readouterr()
    assert (
        main(["play", "--frames", str(folder), "--no-window", "--journal", str(journal), "--strategy", "baseline"]) == 0
    )
    out = capsys.readouterr().out
    assert "resumed the game" in out
    assert json.loads(journal.read_text())["tracker"]["history"] == moves


def test_play_keeps_its_journal_in_the_per_user_folder_not_the_current_one(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch, n_moves=2)
    home, here = tmp_path / "home", tmp_path / "here"
    here.mkdir()
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", str(home))
    monkeypatch.chdir(here)
    assert main(["play", "--frames", str(folder), "--no-window", "--strategy", "baseline"]) == 0
    journal = home / "journals" / "game.journal.json"
    assert json.loads(journal.read_text())["tracker"]["history"] == moves
    assert list(here.iterdir()) == []


def test_ctrl_c_mid_game_says_where_the_game_is_and_the_next_run_resumes_it(tmp_path, monkeypatch, capsys):
    """Ctrl-C while the detector reads a picture: play stops (exit 130) naming the journal
    that holds the game, and the next run resumes it to the end; the end of the frames is
    said too."""
    folder, moves = _replay_setup(tmp_path, monkeypatch, n_moves=4)
    double = live_setup.make_detector(None, None)
    real_detect, calls = double.detect, [0]

    def detect(image):
        calls[0] += 1
        if calls[0] == 7:
            raise KeyboardInterrupt
        return real_detect(image)

    double.detect = detect
    monkeypatch.setattr(live_setup, "make_detector", lambda model, cal: double)
    journal = tmp_path / "j.json"
    assert (
        main(["play", "--frames", str(folder), "--no-window", "--journal", str(journal), "--strategy", "baseline"])
        == 130
    )
    done = json.loads(journal.read_text())["tracker"]["history"]
    assert 0 < len(done) < len(moves)
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == (
        f"interrupted; the game ({len(done)} move{'s' if len(done) > 1 else ''}) is journalled in {journal}: "
        "run play again to continue"
    )
    assert (
        main(["play", "--frames", str(folder), "--no-window", "--journal", str(journal), "--strategy", "baseline"]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("resumed the game") for line in out)
    assert json.loads(journal.read_text())["tracker"]["history"] == moves
    assert out[-1] == (
        f"folder {folder}: no more frames; the game ({len(moves)} moves) is journalled in {journal}: "
        "run play again to continue"
    )


def test_a_camera_down_from_the_start_does_not_spin_with_a_window(monkeypatch):
    """A camera that gives no picture before the window first shows one: the loop waits
    between tries (it spun at full speed on one core, with nothing to wait in)."""
    from solitaire_coach.app import live

    class Down:
        live, name, ended = True, "camera 0", False

        def __init__(self):
            self.calls = 0

        def read(self):
            self.calls += 1
            self.ended = self.calls >= 20
            return None

        def close(self):
            pass

    sleeps = []
    monkeypatch.setattr(live.time, "sleep", sleeps.append)
    run_loop(LiveCoach(_session(), TableDouble(), ReadGate(), say=lambda s: None), Down(), window=True, idle_s=0.01)
    assert len(sleeps) == 19 and all(s >= 0.01 for s in sleeps)


def test_command_errors_are_clear(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nothing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["play", "--frames", str(tmp_path), "--no-window"]) == 2
    assert "holds no images" in capsys.readouterr().err
    assert main(["calibrate", "--name", "x"]) == 2
    assert "--camera" in capsys.readouterr().err
    assert main(["play", "--calibration", str(tmp_path / "none.json"), "--frames", str(tmp_path), "--no-window"]) == 2
    assert "no file" in capsys.readouterr().err


def test_calibrate_command_offline_and_print_board(tmp_path, monkeypatch, capsys):
    board_png = tmp_path / "board.png"
    assert main(["calibrate", "--print-board", str(board_png)]) == 0
    assert cv2.imread(str(board_png)) is not None
    from solitaire_coach.capture.calibration import camera_rays, make_board_image, random_board_poses, render_board_view

    k = np.array([[600.0, 0, 320], [0, 600.0, 240], [0, 0, 1]])
    rays = camera_rays(k, np.zeros(5), (640, 480), supersample=2)
    board = make_board_image(square_px=50)
    views = tmp_path / "views"
    views.mkdir()
    for i, (r, t) in enumerate(random_board_poses(6, np.random.default_rng(5), distance_mm=380)):
        cv2.imwrite(str(views / f"v{i}.png"), render_board_view(board, 50, 50, 25.0, rays, r, t, (640, 480)))
    from repo_scripts import load_script

    helpers = load_script("tests/test_calibration.py", "_test_calibration")
    _fresh_deal_picture = helpers._fresh_deal_picture
    img, _, _ = _fresh_deal_picture(640 * 2, 360 * 2)
    cv2.imwrite(str(tmp_path / "deal.png"), img)
    assert (
        main(
            [
                "calibrate",
                "--images",
                str(views),
                "--table",
                str(tmp_path / "deal.png"),
                "--name",
                "desk",
                "--folder",
                str(tmp_path / "cal"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "reprojection error" in out and "12 slots" in out
    d = json.loads((tmp_path / "cal" / "desk.json").read_text())
    assert abs(d["camera"]["camera_matrix"][0][0] - 600) < 6
    # the table alone, without chessboard photos: slots found, no lens
    assert (
        main(["calibrate", "--table", str(tmp_path / "deal.png"), "--name", "flat", "--folder", str(tmp_path / "cal")])
        == 0
    )
    out = capsys.readouterr().out
    assert "lens: not calibrated" in out and "12 slots" in out
    d = json.loads((tmp_path / "cal" / "flat.json").read_text())
    assert "camera" not in d and {"waste", "column 7"} <= set(d["slots"])
    # without --folder: into calibrations/ of the per-user folder, where --calibration NAME looks
    monkeypatch.setenv("SOLITAIRE_COACH_HOME", str(tmp_path / "home"))
    assert main(["calibrate", "--table", str(tmp_path / "deal.png"), "--name", "flat"]) == 0
    assert f"wrote {tmp_path / 'home' / 'calibrations' / 'flat.json'}" in capsys.readouterr().out
    from solitaire_coach.capture.calibration import load_calibration

    assert load_calibration("flat")["slots"] == d["slots"]
    # a missing photo is named before the lens work, without OpenCV's own warning
    assert (
        main(
            [
                "calibrate",
                "--images",
                str(views),
                "--table",
                str(tmp_path / "nope.png"),
                "--name",
                "x",
                "--folder",
                str(tmp_path / "cal"),
            ]
        )
        == 2
    )
    captured = capsys.readouterr()
    assert "--table" in captured.err and "no such file" in captured.err and "imread" not in captured.err
    assert captured.out == "" and not (tmp_path / "cal" / "x.json").exists()


def test_serial_rig_triggers_reads_and_gets_the_advice(tmp_path):
    import os
    import time

    from solitaire_coach.capture.serial_trigger import SerialTrigger

    double = TableDouble()
    frames, moves = _game_frames(double, n_moves=2, hands=False)
    master, slave = os.openpty()
    trig = SerialTrigger(os.ttyname(slave), warn=lambda m: None)
    try:

        class Source:
            live = False
            name = "frames"

            def __init__(self):
                self.frames = list(frames)

            def read(self):
                return self.frames.pop(0) if self.frames else None

            def close(self):
                pass

        # no trigger: trigger-only mode reads nothing
        coach = LiveCoach(_session(), double, ReadGate(), say=lambda s: None, trigger=trig)
        run_loop(coach, Source(), trigger=trig, trigger_only=True)
        assert coach.session.tracker.state is None and double.calls == 0
        # a SNAP: the next still pictures are read, the advice goes back down the wire
        os.write(master, b"SNAP\n")
        time.sleep(0.05)
        coach = LiveCoach(_session(), double, ReadGate(), say=lambda s: None, trigger=trig)
        run_loop(coach, Source(), trigger=trig, trigger_only=True)
        assert coach.session.tracker.state is not None
        time.sleep(0.05)
        sent = os.read(master, 1000).decode("ascii")
        assert sent.endswith("\n") and "Put A" in sent and "\u2663" not in sent
    finally:
        trig.close()
        os.close(master)
        os.close(slave)


class _Rig:
    """A serial rig's end of the line: keeps every line the coach sends."""

    def __init__(self):
        self.sent = []

    def send(self, text):
        self.sent.append(text)
        return True


def test_a_rig_trigger_keeps_the_hand_checks_and_gets_a_reply_for_every_read():
    """A SNAP asks for a read at the next still picture with no hand in it (a rig that
    triggers before every frame reads no still hand), and the rig gets the advice after
    every triggered read, even when it is the same; two SNAPs before a read force it."""
    double = TableDouble()
    frames, moves = _game_frames(double, n_moves=4)
    rig = _Rig()
    coach = LiveCoach(_session(), double, ReadGate(), say=lambda s: None, trigger=rig)
    results = []
    for frame in frames:
        coach.request()
        results.append(coach.step(frame))
    assert [m.text for m in coach.session.tracker.history] == moves
    assert not any(r.accepted for r in results if _key(r.frame.image) in double.hands)
    replies = len(rig.sent)
    assert replies >= len(moves) + 1
    still = frames[-1]
    coach.request()
    for _ in range(3):
        coach.step(still)
    assert len(rig.sent) == replies + 1 and rig.sent[-1] == rig.sent[-2]  # the same advice, sent again
    for _ in range(3):
        coach.step(still)
    assert len(rig.sent) == replies + 1  # no trigger: an unchanged advice is not sent again


def test_the_rig_is_told_what_to_take_back():
    double = TableDouble()
    table = VirtualTable.from_deal(deal_for_seed(3))
    rig = _Rig()
    coach = LiveCoach(_session(), double, ReadGate(hand_check=None), say=lambda s: None, trigger=rig)
    for f in _frames([double.picture(table.snapshot())] * 3):
        coach.step(f)
    truth = table.state
    source = next(k for k in range(1, 7) if truth.hidden[k])
    mover = truth.faceup[source][-1]
    target = next(j for j in range(7) if j != source and not mover.goes_on_tableau(truth.faceup[j][-1]))
    slots = list(table.snapshot().slots)
    slots[5 + target], slots[5 + source] = mover, truth.hidden[source][-1]
    wrong = Snapshot(tuple(slots))
    coach.request()
    results = [coach.step(f) for f in _frames([double.picture(wrong)] * 3)]
    assert (
        rig.sent[-1]
        == f"{mover.symbol} was put on {truth.faceup[target][-1].symbol} in column {target + 1}: take it back"
    )
    # the picture outlines that card: the read that found it says which card and pile
    assert [(p.card, p.pile) for r in results for p in r.put_wrong] == [(mover, f"column {target + 1}")]


def test_serial_with_recorded_frames_needs_auto_and_waiting_frames_are_strict_json(tmp_path, capsys):
    from solitaire_coach.app.live import GateView, StepResult, json_line
    from solitaire_coach.capture.sources import Frame

    folder = tmp_path / "rec"
    folder.mkdir()
    cv2.imwrite(str(folder / "frame_1.png"), np.zeros((36, 64, 3), np.uint8))
    assert (
        main(
            [
                "play",
                "--serial",
                "loop://",
                "--frames",
                str(folder),
                "--no-window",
                "--journal",
                str(tmp_path / "j.json"),
            ]
        )
        == 2
    )
    assert "--serial with --frames: recorded frames do not wait for the rig" in capsys.readouterr().err
    waiting = StepResult(
        Frame(np.zeros((4, 4, 3), np.uint8), 1, 0.0, "f"),
        GateView(False, False, False, float("nan"), "waiting for the trigger"),
    )
    line = json_line(waiting)
    assert json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))["motion"] is None


def _video(path: Path, pictures, repeat: int, fps: int = 30) -> Path:
    h, w = pictures[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert writer.isOpened()
    for pic in pictures:
        pic = pic if pic.ndim == 3 else cv2.cvtColor(pic, cv2.COLOR_GRAY2BGR)
        for _ in range(repeat):
            writer.write(pic)
    writer.release()
    return path


def test_calibrate_live_from_a_camera(tmp_path, capsys, monkeypatch):
    """`calibrate --camera` with a video file standing in for the camera (OpenCV opens
    both the same way): board views are taken when still and new, then the fresh deal."""
    from repo_scripts import load_script
    from solitaire_coach.capture.calibration import camera_rays, make_board_image, random_board_poses, render_board_view

    helpers = load_script("tests/test_calibration.py", "_test_calibration")
    k = np.array([[600.0, 0, 320], [0, 600.0, 240], [0, 0, 1]])
    rays = camera_rays(k, np.zeros(5), (640, 480), supersample=2)
    board = make_board_image(square_px=50)
    views = [
        render_board_view(board, 50, 50, 25.0, rays, r, t, (640, 480))
        for r, t in random_board_poses(6, np.random.default_rng(11), distance_mm=380)
    ]
    deal, _, _ = helpers._fresh_deal_picture(1280, 720)
    pictures = [cv2.cvtColor(v, cv2.COLOR_GRAY2BGR) if v.ndim == 2 else v for v in views]
    pictures.append(cv2.resize(deal, (640, 480)))
    video = _video(tmp_path / "camera.avi", pictures, repeat=4)
    monkeypatch.setattr(live_setup, "_try_detector", lambda: None)
    assert (
        main(
            [
                "calibrate",
                "--camera",
                str(video),
                "--name",
                "cam",
                "--views",
                "5",
                "--no-window",
                "--width",
                "640",
                "--height",
                "480",
                "--folder",
                str(tmp_path / "cal"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "view 5 of 5 taken" in out and "12 slots found" in out
    d = json.loads((tmp_path / "cal" / "cam.json").read_text())
    assert abs(d["camera"]["camera_matrix"][0][0] - 600) < 12
    assert set(d["slots"]) >= {"stock", "waste", "column 7", "foundation 4"}


def test_record_from_a_camera(tmp_path, capsys):
    double = TableDouble()
    table = VirtualTable.from_deal(deal_for_seed(102))
    video = _video(tmp_path / "camera.avi", [double.picture(table.snapshot())], repeat=90)
    assert (
        main(
            ["record", str(tmp_path / "rec"), "--camera", str(video), "--seconds", "1.2", "--no-window", "--fps", "10"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "recorded" in out
    listed = (tmp_path / "rec" / "frames.jsonl").read_text().splitlines()
    assert len(listed) >= 3
    assert len(list((tmp_path / "rec").glob("frame_*.jpg"))) <= 2  # one still picture, written once


def test_unreadable_top_card_is_not_used_until_enter():
    double = TableDouble()
    table = VirtualTable.from_deal(deal_for_seed(102))
    start = table.snapshot()

    class Unreadable(TableDouble):
        """Reads the pictures, but the top card of column 7 is a face it cannot read."""

        def detect(self, image):
            res = double.detect(image)
            cards = [c for c in res.cards if c.slot != "column 7"]
            quad = np.float32([[548, 190], [618, 190], [618, 290], [548, 290]])
            cards.append(FakeCard(None, quad, 0.5, "column 7"))
            cards[-1].face_up = True
            slots = list(res.snapshot.slots)
            slots[11] = parse_snapshot(",".join(["UU"] * 12)).slots[0]
            return FakeResult(Snapshot(tuple(slots)), cards, 1.0)

    said = []
    coach = LiveCoach(_session(), Unreadable(), ReadGate(hand_check=None), say=said.append)
    img = double.picture(start)
    for f in _frames([img] * 5):
        coach.step(f)
    assert coach.session.tracker.state is None
    assert sum("cannot read the top card of column 7" in s for s in said) == 1
    coach.force()  # Enter: go on without it
    for f in _frames([img] * 3, 5):
        coach.step(f)
    assert any("cannot start a game" in s for s in said)  # the tracker got the read (and says why it waits)


# ----------------------------------------------------------------------------- unsure reads
from solitaire_coach.vision.detector import CardDetection  # noqa: E402


class GuessingDouble:
    """Stands in for the real card detector: every card of a position (stock, waste top,
    foundation tops, each column's backs and face-up run) as a CardDetection on a grid,
    with a ``read_thresh`` the coach may lower, and chosen top cards read wrongly or
    unsurely (``misread``: slot index -> (card code or None, confidence), or None: the
    card is not seen at all)."""

    read_thresh = 0.9

    def __init__(self):
        self.known: dict[str, list] = {}
        self.n = 0

    def picture(self, state, misread=None) -> np.ndarray:
        self.n += 1
        img = np.full((360, 640, 3), (40, 100, 35), np.uint8)
        cv2.putText(img, f"{self.n}", (20, 340), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2)
        cards = []
        w, h, pitch = 60.0, 84.0, 80.0
        misread = misread or {}

        def det(card, slot, x, y, index=None, face_up=True, hh=h):
            conf = 0.98
            cv2.rectangle(
                img, (int(x), int(y)), (int(x + w), int(y + h)), (235, 235, 235) if face_up else (90, 60, 40), -1
            )
            cv2.rectangle(img, (int(x), int(y)), (int(x + w), int(y + h)), (20, 20, 20), 1)
            if index is not None and index in misread:
                if misread[index] is None:
                    return  # not seen at all
                code, conf = misread[index]
                card = Card.parse(code) if code else None
            quad = np.float32([[x, y], [x + w, y], [x + w, y + hh], [x, y + hh]])
            cards.append(CardDetection(card, quad, conf, slot, face_up))

        if state.stock:
            det(None, "stock", 20, 20, face_up=False)
        if state.waste:
            det(state.waste[-1], "waste", 20 + pitch, 20, index=0)
        k = 1
        for suit in range(4):
            top = state.foundation_top(suit)
            if top is not None:
                det(top, f"foundation {k}", 20 + (2 + k) * pitch, 20, index=k)
                k += 1
        for col in range(7):
            x, y = 20 + col * pitch, 130
            for _ in state.hidden[col]:
                det(None, f"column {col + 1}", x, y, face_up=False, hh=10)
                y += 10
            run = state.faceup[col]
            for j, card in enumerate(run):
                det(
                    card,
                    f"column {col + 1}",
                    x,
                    y,
                    index=5 + col if j == len(run) - 1 else None,
                    hh=h if j == len(run) - 1 else 20,
                )
                y += 20
        self.known[_key(img)] = cards
        return img

    def detect(self, image):
        cards = [c if c.card is None or c.confidence >= self.read_thresh else c for c in self.known[_key(image)]]
        cards = [
            CardDetection(c.card if c.confidence >= self.read_thresh else None, c.quad, c.confidence, c.slot, c.face_up)
            for c in cards
        ]
        return FakeResult(Snapshot((UNKNOWN_SLOT,) * 12), cards, 1.0)


UNKNOWN_SLOT = parse_snapshot(",".join(["UU"] * 12)).slots[0]


def _play_positions(misread_for, n_moves=4, seed=102, hold=3):
    """Play the baseline advice on a virtual table; position k (after move k, 0 = the
    deal) is shown ``hold`` frames with the misreads ``misread_for(k, state)``. Returns the
    coach, each position's step results, the moves played and what was said."""
    table = VirtualTable.from_deal(deal_for_seed(seed))
    strategy = make_strategy("baseline")
    from solitaire_coach.core.tracker import TableTracker

    tracker = TableTracker()
    tracker.update(table.snapshot())
    double = GuessingDouble()
    said = []
    coach = LiveCoach(_session(), double, ReadGate(hand_check=None), say=said.append)
    per_position, moves = [], []
    for k in range(n_moves + 1):
        if k:
            move = strategy.advise(tracker.state, tracker.history).move
            table.perform(move)
            tracker.update(table.snapshot())
            moves.append(move)
        img = double.picture(table.state, misread_for(k, table.state))
        per_position.append([coach.step(f) for f in _frames([img] * hold, hold * k)])
    return coach, per_position, moves, said


def _moves_at(results):
    return [m for r in results if r.report is not None for m in r.report.moves]


def _top_index(move):
    """The snapshot slot where a column move puts its card."""
    return 5 + move.target


def test_unsure_reads_that_the_game_confirms_are_taken():
    # the deal's column tops unsure but right: a deal is taken from fairly sure guesses;
    # later the top of every column unsure but right: the game confirms them
    def misread(k, state):
        if k in (0, 2):
            return {5 + c: (state.faceup[c][-1].code, 0.6) for c in range(7) if state.faceup[c]}
        return {}

    coach, pos, moves, said = _play_positions(misread)
    assert said[0].startswith("new game started")
    assert "column 1" in pos[0][-1].guessed
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]
    assert _moves_at(pos[2]) == [moves[1]]  # move 2 seen on its own picture
    assert pos[2][-1].accepted and pos[2][-1].guessed


def test_unsure_deal_card_below_the_deal_guess_level_waits():
    coach, pos, _, said = _play_positions(lambda k, s: {5: (s.faceup[0][-1].code, 0.4)} if k == 0 else {}, n_moves=0)
    assert coach.session.tracker.state is None
    assert any("cannot read the top card of column 1" in s for s in said)


def _first_move_where(wanted):
    """Play ``baseline`` on deal 102 until ``wanted(move, next advised move)``; the move's
    number (from 1) and the move."""
    from solitaire_coach.core.tracker import TableTracker

    table = VirtualTable.from_deal(deal_for_seed(102))
    strategy = make_strategy("baseline")
    tr = TableTracker()
    tr.update(table.snapshot())
    k = 0
    while True:
        move = strategy.advise(tr.state, tr.history).move
        k += 1
        table.perform(move)
        tr.update(table.snapshot())
        if wanted(move, strategy.advise(tr.state, tr.history).move):
            return k, move


def test_unread_column_top_is_inferred_from_its_card_count_or_not_at_all():
    # find a move that puts a card on a column; its new top is then unreadable
    k, move = _first_move_where(lambda move, next_move: move.kind.value in ("waste to column", "column to column"))
    target = _top_index(move)
    coach, pos, moves, said = _play_positions(lambda i, s: {target: (None, 0.1)} if i == k else {}, n_moves=k + 1)
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]
    # the move onto the unread column was seen on its own picture: only one card fits there
    assert _moves_at(pos[k]) == [moves[k - 1]]
    assert pos[k][-1].accepted and not pos[k][-1].unreadable


def test_unread_waste_is_never_assumed():
    # after a stock turn the new waste card cannot be read: that picture gives no move,
    # the next one gives both, in order
    k, _ = _first_move_where(lambda move, next_move: move.kind.value == "draw" and next_move.kind.value != "draw")
    coach, pos, moves, said = _play_positions(lambda i, s: {0: (None, 0.1)} if i == k else {}, n_moves=k + 1)
    assert _moves_at(pos[k]) == [] and not any(r.accepted for r in pos[k])
    assert "waste" in pos[k][-1].unreadable
    assert any("cannot read the top card of waste" in s for s in said)
    assert _moves_at(pos[k + 1]) == moves[k - 1 : k + 1]
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]


def test_a_missed_waste_card_is_not_taken_for_a_pass_through_the_stock():
    # after a stock turn the detector sees no card on the waste at all: the tracker could
    # explain an empty waste only by turning the rest of the stock over and a redeal,
    # unseen -- the read is not used, and the next picture gives the moves in order
    k, _ = _first_move_where(lambda move, next_move: move.kind.value == "draw" and next_move.kind.value != "draw")
    coach, pos, moves, said = _play_positions(lambda i, s: {0: None} if i == k else {}, n_moves=k + 1)
    assert _moves_at(pos[k]) == [] and not any(r.accepted for r in pos[k])
    assert "waste" in pos[k][-1].unreadable
    assert _moves_at(pos[k + 1]) == moves[k - 1 : k + 1]
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]


def test_a_missed_foundation_card_does_not_stop_the_game():
    # a foundation never empties: one seen empty while the game has a card there is a
    # card the detector missed, and the rest of the read is still used
    k, _ = _first_move_where(
        lambda move, next_move: (
            move.kind.value.endswith("to foundation") and not next_move.kind.value.endswith("to foundation")
        )
    )
    coach, pos, moves, said = _play_positions(lambda i, s: {1: None} if i == k + 1 else {}, n_moves=k + 1)
    assert _moves_at(pos[k + 1]) == [moves[k]] and pos[k + 1][-1].accepted
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]


def test_a_sure_misread_is_doubted_when_that_alone_explains_the_read():
    # after move 3, a column top that did not change is read surely as another card
    def misread(k, state):
        if k != 3:
            return {}
        col = next(c for c in range(7) if state.faceup[c] and len(state.faceup[c]) == 1 and state.hidden[c])
        wrong = next(
            card for card in (Card.parse(x) for x in ("KD", "QC", "9H", "2S", "8C", "5D")) if card in state.hidden[6]
        )  # a card still face down
        return {5 + col: (wrong.code, 0.97)}

    coach, pos, moves, said = _play_positions(misread)
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]
    assert _moves_at(pos[3]) == [moves[2]]
    assert pos[3][-1].doubted
    assert not any("not a legal continuation" in s for s in said)


@pytest.mark.parametrize("seed, k", [(6, 4), (127, 5)])
def test_a_king_put_into_an_empty_column_and_missed_is_not_taken_for_a_pass_through_the_stock(seed, k):
    # baseline on deal 6 (127): move 4 (5) puts a king from the waste into an empty column,
    # and the detector sees nothing there on that picture and the next. The tracker alone
    # would explain the waste (emptied on deal 6, showing the card under the king on 127)
    # by turning the whole stock over, all unseen; the one-move explanation wins when the
    # picture changed at the column's place -- on deal 127 column 2 is empty too, and the
    # picture tells which column the king went to -- and the next picture (the king
    # still missed) goes on.

    def misread(i, state):
        if i not in (k, k + 1):
            return {}
        return {
            5 + c: None
            for c in range(7)
            if len(state.faceup[c]) == 1 and not state.hidden[c] and state.faceup[c][0].rank == 13
        }

    coach, pos, moves, said = _play_positions(misread, n_moves=k + 1, seed=seed)
    assert moves[k - 1].text.startswith("w-") and misread(k, _state_after(seed, moves[:k]))
    assert _moves_at(pos[k]) == [moves[k - 1]] and pos[k][-1].accepted
    assert "missed" in pos[k][-1].doubted[0]
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]


def test_a_card_put_on_a_column_and_missed_is_not_taken_for_a_pass_through_the_stock():
    # baseline on deal 102: move 8 puts a card from the waste on column 4, and the detector
    # misses it (the column's top reads as the card under it). The tracker alone would
    # explain the waste by turning the stock over and a redeal, all unseen; the band below
    # the column's old top changed in the picture, and the one-move explanation wins.
    seed, k = 102, 8
    plan = _baseline_moves(seed, k)
    assert plan[-1].text.startswith("w-")
    target = 5 + plan[-1].target
    coach, pos, moves, said = _play_positions(lambda i, s: {target: None} if i == k else {}, n_moves=k + 1, seed=seed)
    assert moves[:k] == plan
    assert _moves_at(pos[k]) == [moves[k - 1]] and pos[k][-1].accepted
    assert "missed" in pos[k][-1].doubted[0]
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]


def test_a_column_top_missed_on_later_pictures_is_not_an_illegal_move():
    # baseline on deal 102: move 4 puts the 4♦ from the waste on the 5♣ of column 4 (the
    # waste empties), and the detector misses the 4♦ on that picture and the next two
    # (stock turns): the 5♣ under it shows as the top. That is not "5♣ put on 4♦" (a
    # card of the column's own run); the column counts as unchanged, its top missed.
    seed, k = 102, 4
    plan = _baseline_moves(seed, k)
    target = 5 + plan[-1].target
    coach, pos, moves, said = _play_positions(
        lambda i, s: {target: None} if i in (k, k + 1, k + 2) else {}, n_moves=k + 3, seed=seed
    )
    assert moves[:k] == plan and plan[-1].text == "w-4"
    assert [_moves_at(pos[i]) for i in (k, k + 1, k + 2)] == [[m] for m in moves[k - 1 : k + 2]]
    assert pos[k + 1][-1].doubted == ["column 4"] and pos[k + 2][-1].doubted == ["column 4"]
    assert not any("take it back" in s or "not a legal" in s for s in said)
    assert [m.text for m in coach.session.tracker.history] == [m.text for m in moves]


def _baseline_moves(seed, n):
    from solitaire_coach.core.tracker import TableTracker

    table = VirtualTable.from_deal(deal_for_seed(seed))
    strategy = make_strategy("baseline")
    tr = TableTracker()
    tr.update(table.snapshot())
    moves = []
    for _ in range(n):
        moves.append(strategy.advise(tr.state, tr.history).move)
        table.perform(moves[-1])
        tr.update(table.snapshot())
    return moves


def _state_after(seed, moves):
    table = VirtualTable.from_deal(deal_for_seed(seed))
    for m in moves:
        table.perform(m)
    return table.state


def test_probing_a_read_does_not_change_the_game():
    coach, pos, moves, _ = _play_positions(lambda k, s: {}, n_moves=2)
    before = (coach.session.tracker.state, list(coach.session.tracker.history))
    probe, report = coach.judge._probe(parse_snapshot("XX,XX,XX,XX,XX,KS,KH,KD,KC,QS,QH,QD"))
    assert report.kind == "inconsistent"
    assert (coach.session.tracker.state, list(coach.session.tracker.history)) == before


def test_slot_grid_places_the_last_column_by_the_foundations_not_a_stray_back():
    """held-out held4, last moves: one column left (the K♠ in column 5), the stock empty,
    and the detector takes a patch of cloth left of the layout for the stock's card back.
    The four foundation faces on the upper row fix the grid: the K♠ stays in column 5."""
    from solitaire_coach.vision.reading import SlotGrid

    w, h, pitch, x0 = 60.0, 84.0, 80.0, 100.0

    def det(code, slot, x, y, face_up=True, hh=h):
        quad = np.float32([[x, y], [x + w, y], [x + w, y + hh], [x, y + hh]])
        return CardDetection(Card.parse(code) if code else None, quad, 0.97, slot, face_up)

    grid = SlotGrid()
    deal = [det(None, "stock", x0, 20, face_up=False), det("4D", "waste", x0 + pitch, 20)]
    for k, code in enumerate(["KS", "QH", "JC", "0D", "9S", "8H", "7C"]):
        deal += [
            det(None, f"column {k + 1}", x0 + k * pitch, 130, face_up=False, hh=12),
            det(code, f"column {k + 1}", x0 + k * pitch, 142),
        ]
    assert grid.learn(deal)
    end = [
        det(None, "stock", x0 - 1.2 * pitch, 20, face_up=False),  # cloth taken for a back
        det("KC", "foundation 2", x0 + 3 * pitch, 20),
        det("KD", "foundation 3", x0 + 4 * pitch, 20),
        det("KH", "foundation 4", x0 + 5 * pitch, 20),
        det("QS", "foundation 4", x0 + 6 * pitch, 20),
        det("KS", "column 6", x0 + 4 * pitch, 130),
    ]
    placed = grid.place(end, [False, True, False, False, True, False, False])
    by_card = {c.card.code: c.slot for c in placed if c.card is not None}
    assert by_card["KS"] == "column 5"
    assert [by_card[c] for c in ("KC", "KD", "KH", "QS")] == [f"foundation {i}" for i in range(1, 5)]


@pytest.mark.parametrize("command", [["play", "--frames", "."], ["replay", "."], ["demo"]])
def test_an_unknown_strategy_is_a_usage_error(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main(command + ["--strategy", "nope"])
    assert exc.value.code == 2
    assert "--strategy: unknown strategy 'nope'" in capsys.readouterr().err


def test_replay_of_frames_none_of_which_can_be_read_fails(tmp_path, capsys):
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "frame_000001.jpg").write_text("garbage")
    assert main(["replay", str(folder), "--strategy", "baseline"]) == 1
    out = capsys.readouterr()
    assert "not a readable image, skipped" in out.err + out.out
    assert out.out.splitlines()[-1].endswith("; no picture could be read")


def test_replay_names_a_bad_calibration_in_the_recording(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "frame_1.png"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "calibration.json").write_text('{"slots": ')
    assert main(["replay", str(tmp_path)]) == 2
    assert f"{tmp_path / 'calibration.json'}: not valid JSON" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, option",
    [
        (["replay", "g", "--fps", "0"], "--fps"),
        (["replay", "g", "--fps", "-2"], "--fps"),
        (["record", "r", "--camera", "vid.avi", "--fps", "0"], "--fps"),
        (["record", "r", "--fps", "-1"], "--fps"),
        (["record", "r", "--quality", "500"], "--quality"),
        (["record", "r", "--quality", "-5"], "--quality"),
        (["record", "r", "--seconds", "0"], "--seconds"),
        (["play", "--frames", "g", "--max-frames", "0"], "--max-frames"),
        (["play", "--frames", "g", "--max-frames", "-1"], "--max-frames"),
        (["play", "--frames", "g", "--width", "0"], "--width"),
        (["calibrate", "--name", "x", "--images", "views", "--square-mm", "0"], "--square-mm"),
        (["calibrate", "--print-board", "b.png", "--square-mm", "-5"], "--square-mm"),
        (["calibrate", "--name", "x", "--camera", "0", "--views", "-2"], "--views"),
        (["calibrate", "--name", "x", "--camera", "0", "--views", "4"], "--views"),
    ],
)
def test_numbers_out_of_range_are_usage_errors(argv, option, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and "not allowed" in err


def test_jpeg_quality_and_lens_views_take_their_whole_range():
    assert cmd_record.jpeg_quality("0") == 0 and cmd_record.jpeg_quality("100") == 100
    assert cmd_calibrate.lens_views("5") == 5


def _unusable_output_cases(tmp_path):
    """A recording of one picture, an ordinary file, a chessboard views folder and a video."""
    rec = tmp_path / "g"
    rec.mkdir()
    cv2.imwrite(str(rec / "frame_1.png"), np.zeros((36, 64, 3), np.uint8))
    plain = tmp_path / "FILE"
    plain.write_text("not a folder")
    views = tmp_path / "views"
    views.mkdir()
    video = _video(tmp_path / "vid.avi", [np.zeros((48, 64, 3), np.uint8)], repeat=3)
    return rec, plain, views, video


@pytest.mark.parametrize(
    "case",
    [
        "save-overlay",
        "record-file",
        "record-under-file",
        "record-into-recording",
        "journal-folder",
        "record-command",
        "calibrate-folder",
        "print-board-ext",
        "print-board-under-file",
    ],
)
def test_unusable_output_paths_are_named_before_any_work(case, tmp_path, monkeypatch, capsys):
    rec, plain, views, video = _unusable_output_cases(tmp_path)
    monkeypatch.setattr(live_setup, "make_detector", lambda model, cal: TableDouble())
    argv, option, why = {
        "save-overlay": (
            ["replay", str(rec), "--save-overlay", str(plain)],
            "--save-overlay",
            "is a file, not a folder",
        ),
        "record-file": (
            [
                "play",
                "--frames",
                str(rec),
                "--no-window",
                "--journal",
                str(tmp_path / "j.json"),
                "--record",
                str(plain),
            ],
            "--record",
            "is a file, not a folder",
        ),
        "record-under-file": (
            [
                "play",
                "--frames",
                str(rec),
                "--no-window",
                "--journal",
                str(tmp_path / "j.json"),
                "--record",
                str(plain / "sub"),
            ],
            "--record",
            f"{str(plain)!r} is a file, not a folder",
        ),
        "record-into-recording": (
            ["play", "--frames", str(rec), "--no-window", "--journal", str(tmp_path / "j.json"), "--record", str(rec)],
            "--record",
            "is not empty: give a new or empty folder",
        ),
        "journal-folder": (
            ["play", "--frames", str(rec), "--no-window", "--journal", str(views)],
            "--journal",
            "is a folder, not a file",
        ),
        "record-command": (
            ["record", str(plain), "--camera", str(video), "--no-window", "--seconds", "1"],
            "record",
            "is a file, not a folder",
        ),
        "calibrate-folder": (
            ["calibrate", "--name", "d", "--images", str(views), "--folder", str(plain)],
            "--folder",
            "is a file, not a folder",
        ),
        "print-board-ext": (
            ["calibrate", "--print-board", str(tmp_path / "b.xyz")],
            "--print-board",
            "cannot write '.xyz' images",
        ),
        "print-board-under-file": (
            ["calibrate", "--print-board", str(plain / "b.png")],
            "--print-board",
            "is a file, not a folder",
        ),
    }[case]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"solitaire-coach {argv[0]}: error: {option} ") and why in err
    assert plain.read_text() == "not a folder" and list(views.iterdir()) == []
    assert [p.name for p in rec.iterdir()] == ["frame_1.png"]


def test_print_board_makes_its_folder(tmp_path, capsys):
    assert main(["calibrate", "--print-board", str(tmp_path / "new" / "board.jpg")]) == 0
    assert cv2.imread(str(tmp_path / "new" / "board.jpg")) is not None


@pytest.mark.parametrize(
    "kind, message",
    [("missing", "does not exist"), ("garbage", "not an ONNX model"), ("file", "is a file, not a model folder")],
)
def test_play_and_replay_name_a_model_folder_they_cannot_use(kind, message, tmp_path, capsys):
    rec = tmp_path / "g"
    rec.mkdir()
    cv2.imwrite(str(rec / "frame_1.png"), np.zeros((36, 64, 3), np.uint8))
    model = tmp_path / "model"
    if kind == "garbage":
        model.mkdir()
        for name in ("card_locator.onnx", "card_reader.onnx"):
            (model / name).write_bytes(b"\x00garbage")
    elif kind == "file":
        model.write_text("notes, not a model")
    assert main(["replay", str(rec), "--model", str(model)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("solitaire-coach replay: error: --model: ") and message in err
    assert (
        main(
            ["play", "--frames", str(rec), "--no-window", "--journal", str(tmp_path / "j.json"), "--model", str(model)]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("solitaire-coach play: error: --model: ") and message in err


class _Deadline:
    """Fails a command that would run for ever (a loop that never ends) instead of hanging."""

    def __init__(self, seconds: int):
        self.seconds = seconds

    def __enter__(self):
        import signal

        def fail(*_):
            raise TimeoutError(f"still running after {self.seconds} s")

        self.old = signal.signal(signal.SIGALRM, fail)
        signal.alarm(self.seconds)

    def __exit__(self, *exc):
        import signal

        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.old)


def test_record_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    double = TableDouble()
    video = _video(
        tmp_path / "camera.avi", [double.picture(VirtualTable.from_deal(deal_for_seed(102)).snapshot())], repeat=6
    )
    rec = tmp_path / "rec"
    rec.mkdir()
    (rec / "frames.jsonl").write_text('{"file": "frame_000001.jpg", "t": 0.0}\n')
    assert main(["record", str(rec), "--camera", str(video), "--no-window", "--seconds", "1"]) == 2
    assert "is not empty (it holds a recording): give a new or empty folder" in capsys.readouterr().err
    assert (rec / "frames.jsonl").read_text() == '{"file": "frame_000001.jpg", "t": 0.0}\n'
    (tmp_path / "empty").mkdir()
    with _Deadline(30):
        assert main(["record", str(tmp_path / "empty"), "--camera", str(video), "--no-window", "--fps", "30"]) == 0
    out = capsys.readouterr().out
    assert "the video file ended" in out and "recorded " in out
    assert (tmp_path / "empty" / "frames.jsonl").read_text().count("\n") >= 3


def _camera_reading(read):
    """A stand-in for ``cv2.VideoCapture`` (any device opens) whose ``read()`` is ``read``."""

    class Camera:
        def __init__(self, dev):
            pass

        def isOpened(self):
            return True

        def set(self, *args):
            return True

        def read(self):
            return read()

        def release(self):
            pass

    return Camera


def test_record_says_the_recording_is_kept_when_the_camera_drops(tmp_path, capsys, monkeypatch):
    from solitaire_coach.capture import sources

    picture = np.full((36, 64, 3), 90, np.uint8)
    reads = [0]

    def read():
        """Three pictures, then none for six reads (unplugged), then pictures again."""
        reads[0] += 1
        gone = 4 <= reads[0] <= 9
        return not gone, (None if gone else picture)

    monkeypatch.setattr(sources.cv2, "VideoCapture", _camera_reading(read))
    assert main(["record", str(tmp_path / "rec"), "--camera", "0", "--no-window", "--seconds", "1.5"]) == 0
    out = capsys.readouterr().out
    assert "retrying every few seconds, the recording is kept" in out
    assert "back again; the recording continues" in out and "game" not in out


def test_ctrl_c_stops_a_recording_and_keeps_it(tmp_path, capsys, monkeypatch):
    """Ctrl-C is a way to stop `record` (--seconds says so): the frames recorded are kept
    and the summary says where, exit 0 (it was a traceback-free 'interrupted', exit 130,
    with no word of the recording)."""
    from solitaire_coach.capture import sources

    reads = [0]

    def read():
        reads[0] += 1
        if reads[0] == 6:
            raise KeyboardInterrupt
        return True, np.full((36, 64, 3), 20 * reads[0], np.uint8)

    monkeypatch.setattr(sources.cv2, "VideoCapture", _camera_reading(read))
    rec = tmp_path / "rec"
    assert main(["record", str(rec), "--camera", "0", "--no-window", "--fps", "1000"]) == 0
    out = capsys.readouterr().out
    assert "interrupted: the recording stops here" in out and f"into {rec}; replay with" in out
    listed = [json.loads(line)["file"] for line in (rec / "frames.jsonl").read_text().splitlines()]
    assert listed and all((rec / name).is_file() for name in listed)


def test_calibrate_from_a_video_that_ends_says_so(tmp_path, capsys):
    video = _video(tmp_path / "camera.avi", [np.full((480, 640, 3), 120, np.uint8)], repeat=8)
    with _Deadline(30):
        assert (
            main(
                [
                    "calibrate",
                    "--camera",
                    str(video),
                    "--name",
                    "cam",
                    "--views",
                    "5",
                    "--no-window",
                    "--folder",
                    str(tmp_path / "cal"),
                ]
            )
            == 2
        )
    assert "the video file ended after 0 of the 5 board views" in capsys.readouterr().err
    assert not (tmp_path / "cal").exists()


def test_play_ends_when_a_video_file_given_as_the_camera_ends(tmp_path, monkeypatch, capsys):
    double = TableDouble()
    video = _video(
        tmp_path / "camera.avi", [double.picture(VirtualTable.from_deal(deal_for_seed(102)).snapshot())], repeat=10
    )
    monkeypatch.setattr(live_setup, "make_detector", lambda model, cal: double)
    with _Deadline(30):
        assert (
            main(
                [
                    "play",
                    "--camera",
                    str(video),
                    "--no-window",
                    "--journal",
                    str(tmp_path / "j.json"),
                    "--strategy",
                    "baseline",
                ]
            )
            == 0
        )
    assert "watching camera" in capsys.readouterr().out and double.calls > 0


# ----------------------------------------------------------------------------- display probe
def test_the_display_probe_opens_a_window_in_a_child_first(monkeypatch):
    """A DISPLAY with no X server behind it makes the child abort (OpenCV's Qt), not us; a
    probe that succeeds (stood in for by a child that opens nothing) lets the window open."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    assert live_setup.display_problem(env) == live_setup.NO_DISPLAY
    dead = live_setup.display_problem({**env, "DISPLAY": ":57"})
    assert dead.startswith("DISPLAY=:57 does not open a window (") and ":57" in dead[len("DISPLAY=:57") :]
    monkeypatch.setattr(live_setup, "WINDOW_PROBE", "pass")
    assert live_setup.display_problem({**env, "DISPLAY": ":57"}) is None
    monkeypatch.setattr(live_setup, "WINDOW_PROBE", "import time; time.sleep(5)")
    assert (
        live_setup.display_problem({**env, "DISPLAY": ":57"}, timeout=0.5) == "DISPLAY=:57 does not answer within 0.5 s"
    )


def test_a_display_that_does_not_answer_is_refused_or_falls_back_to_the_terminal(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch)
    monkeypatch.setenv("DISPLAY", ":57")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["replay", str(folder), "--strategy", "baseline", "--window"]) == 2
    out = capsys.readouterr()
    assert out.err.startswith(
        "solitaire-coach replay: error: cannot open a window: DISPLAY=:57 does not open a window ("
    )
    assert out.err.endswith("; run without --window\n")
    assert out.out == ""
    assert main(["play", "--frames", str(folder), "--strategy", "baseline", "--journal", str(tmp_path / "j.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("note: DISPLAY=:57 does not open a window (")
    assert lines[0].endswith("; running without a window (use --no-window to silence this)")
    assert json.loads((tmp_path / "j.json").read_text())["tracker"]["history"] == moves


# ----------------------------------------------------------------------------- move logs that are not text
def test_a_move_log_that_is_not_text_or_a_folder_is_named(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch)
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x00\xff\xfe\x89PNG garbage\x80\x81")
    for argv in (["replay", str(folder)], ["demo"]):
        assert main(argv + ["--expect", str(garbage)]) == 2
        assert capsys.readouterr().err == (
            f"solitaire-coach {argv[0]}: error: --expect {str(garbage)!r}: not a text file (UTF-8): "
            "byte 0xff at offset 1 is not UTF-8\n"
        )
    assert main(["replay", str(folder), "--expect", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err
        == f"solitaire-coach replay: error: --expect {str(tmp_path)!r} is a folder, not a move log\n"
    )
    assert main(["replay", str(folder), "--expect", str(tmp_path / "none.log")]) == 2
    assert "none.log': the move log does not exist" in capsys.readouterr().err
    (folder / "moves.log").write_bytes(garbage.read_bytes())
    assert main(["replay", str(folder)]) == 2
    assert capsys.readouterr().err == (
        f"solitaire-coach replay: error: {str(folder / 'moves.log')!r} (the move log of the "
        "recording): not a text file (UTF-8): byte 0xff at offset 1 is not UTF-8\n"
    )
    # a byte-order mark (Windows Notepad) is no problem
    from solitaire_coach.core.notation import format_log

    (folder / "moves.log").write_text(
        "\ufeff" + format_log(deal_for_seed(102), [Move.parse(m) for m in moves]), encoding="utf-8"
    )
    assert main(["replay", str(folder), "--strategy", "baseline"]) == 0
    assert "all as in moves.log" in capsys.readouterr().out


def test_a_truth_list_that_is_not_text_is_ignored_with_a_warning(tmp_path, monkeypatch, capsys):
    folder, moves = _replay_setup(tmp_path, monkeypatch)
    (folder / "truth.jsonl").write_bytes(b"\x80\xff garbage")
    assert main(["replay", str(folder), "--strategy", "baseline"]) == 0
    out = capsys.readouterr().out
    assert (
        f"warning: {folder / 'truth.jsonl'}: not a text file (UTF-8): byte 0x80 at offset 0 is not UTF-8; ignored"
        in out
        and f"{len(moves)} moves inferred" in out
    )


@pytest.mark.parametrize("game", ["nope", "", "game1/..", "README.md"])
def test_demo_lists_the_built_in_games_for_a_name_that_is_none(game, capsys):
    games = sorted(p.name for p in (Path(__file__).parents[1] / "fixtures" / "games").iterdir() if p.is_dir())
    assert "game1" in games
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--game", game])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --game: unknown game {game!r}; the built-in games: {', '.join(games)}" in err
    assert "pip install" not in err and "holds no images" not in err


def test_every_command_has_a_description_and_every_option_a_help():
    import argparse

    from solitaire_coach.app.cli import build_parser
    from solitaire_coach.core.advisor import strategy_names

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) >= {
        "play",
        "record",
        "replay",
        "demo",
        "calibrate",
        "detect",
        "learn-deck",
        "simulate",
        "coach",
        "check-log",
        "solve",
    }
    for name in sub.choices:
        parser = sub.choices[name]
        assert parser.description and parser.description.endswith("."), name
        helps = {a.option_strings[0] if a.option_strings else a.dest: a.help for a in parser._actions}
        assert all(helps.values()), (name, [k for k, v in helps.items() if not v])
        if name in ("play", "replay", "demo"):
            assert f"advisor strategy: {', '.join(strategy_names())} (default " in helps["--strategy"]
    assert "default: calibrations/ of the per-user data folder" in " ".join(
        sub.choices["calibrate"].format_help().split()
    )
    assert "--fps" in sub.choices["replay"].format_help() and "--fps" not in sub.choices["demo"].format_help()


def test_version_is_printed(capsys):
    from solitaire_coach import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out == f"solitaire-coach {__version__}\n"


@pytest.mark.parametrize(
    "board, why",
    [
        ("1x1", "'1x1' is not allowed: use at least 3x3 corners"),
        ("6x6", "'6x6' is not allowed"),
        ("9by6", "'9by6': expected COLSxROWS"),
    ],
)
def test_a_bad_chessboard_size_is_a_usage_error(board, why, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["calibrate", "--board", board, "--print-board", str(tmp_path / "b.png")])
    assert exc.value.code == 2
    assert f"argument --board: {why}" in capsys.readouterr().err
    assert not (tmp_path / "b.png").exists()


def test_python_dash_m_runs_the_command(tmp_path):
    """``python -m solitaire_coach`` is the ``solitaire-coach`` command (for a venv without its scripts on PATH)."""
    import subprocess
    import sys

    from solitaire_coach import __version__

    done = subprocess.run(
        [sys.executable, "-m", "solitaire_coach", "--version"], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0 and done.stdout == f"solitaire-coach {__version__}\n", done


def test_a_photo_whose_top_card_cannot_be_read_is_used_without_it(monkeypatch):
    """Photos are read once each: a read whose top card stays unread (one the game cannot
    tell: the judgement leaves it ``unread``) cannot wait for a better picture, so it goes
    on without that card, said once naming the pile; with a camera the same read waits for
    the next frame ("looking again")."""
    from solitaire_coach.app.judgement import Judgement, ReadJudge

    table = VirtualTable.from_deal(deal_for_seed(102))
    first = table.snapshot()
    move = make_strategy("baseline").advise(GameState.from_deal(deal_for_seed(102)).masked(), []).move
    table.perform(move)
    after = table.snapshot()
    changed = [i for i in range(12) if first.slots[i] is not after.slots[i] and i >= 5]
    blind = list(after.slots)
    for i in changed:
        blind[i] = parse_snapshot(",".join(["UU"] * 12)).slots[0]
    names = [f"column {i - 4}" for i in changed]
    real_judge = ReadJudge.judge

    def judge(self, detection, image, *, forced):
        judged = real_judge(self, detection, image, forced=forced)
        if self.session.tracker.state is None:
            return judged
        return Judgement(Snapshot(tuple(blind)), names, [], [])

    monkeypatch.setattr(ReadJudge, "judge", judge)
    for photos in (True, False):
        double = GuessingDouble()
        said: list[str] = []
        gate = ReadGate.for_photos() if photos else ReadGate(hand_check=None)
        coach = LiveCoach(_session(), double, gate, say=said.append)
        hold = 1 if photos else 3
        assert any(
            r.accepted
            for r in [coach.step(f) for f in _frames([double.picture(GameState.from_deal(deal_for_seed(102)))] * hold)]
        )
        results = [coach.step(f) for f in _frames([double.picture(table.state)] * hold, hold)]
        if photos:
            assert results[0].accepted and results[0].unreadable == names
            assert [line for line in said if "in this photo: going on without it" in line] == [
                f"cannot read the top card of {', '.join(names)} in this photo: going on without it"
            ]
        else:
            assert not any(r.accepted for r in results)
            assert any("looking again" in line for line in said)
