"""The snapshot-file coach: the original design's loop.

Wait until the snapshot file changes (or Enter is pressed), read it, update the
tracker, print the advice; ``q`` quits. The tracker is journalled after each accepted
snapshot, so a restart resumes the same game.
"""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from ..core.advisor import Advice, Strategy
from ..core.cards import Card
from ..core.join import JoinedTracker, try_join
from ..core.moves import Move
from ..core.notation import UNKNOWN, SnapshotParseError, parse_snapshot
from ..core.open_advice import advise_open, holds_in
from ..core.rules import Rules
from ..core.tracker import OPEN_HYPOTHESES, TableTracker, TrackerReport, looks_like_a_deal, step_count
from ..storage import NotTextError, describe_os_error, read_text_file
from .journal import Journal, JournalError

_COACH_TRACKING: dict[str, Any] = {"open_turns": True, "max_hypotheses": OPEN_HYPOTHESES}
"""How the coach's trackers follow the game, dealt, joined or resumed alike: every count of
unseen stock turns kept open (see TableTracker.open_turns), up to ``OPEN_HYPOTHESES``
explanations. (A game joined mid-way used a bare tracker's options until 2026-11-28: one
stock turn for each turn read, until a restart resumed it with these.)"""


class CoachSession:
    """One coached game: snapshot text in, report and advice out. No I/O but the journal."""

    def __init__(
        self,
        rules: Rules,
        strategy: Strategy,
        journal: Journal | None = None,
        say: Callable[[str], None] = print,
        resume: bool = True,
        rejoin_after: int | None = None,
    ) -> None:
        self.strategy = strategy
        # lost: LOST_AFTER different tables in a row that do not follow from the game. Then
        # with ``rejoin_after`` (photos taken every few moves: replay) the table is joined as
        # it is once that many were refused; without it (a camera watching every move) the
        # person is told once, plainly, how to go on
        self._rejoin_after = rejoin_after
        self._refused_tables: list[str] = []  # the different tables refused since the last accepted read
        self._lost_said = False
        self.journal = journal
        self.say = say
        # every count of unseen stock turns kept open (see TableTracker.open_turns)
        self.tracker = TableTracker(rules, **_COACH_TRACKING)
        self.last_advice: Advice | None = None
        # the last snapshot found no legal continuation, and the same one read again starts
        # the longer search for many moves made while the coach was not watching
        self.longer_search_waits = False
        self._journal_failure: str | None = None  # why the last save failed, None once it works
        self._last_refusal: str | None = None  # the last "not a legal continuation", said once
        self._join_offered = False  # a table to join instead of the game in hand was pointed out (said once)
        self._join_asked = False  # the person asked to join the table as it is (join_next)
        self._join_refusal: str | None = None  # why the last table asked to be joined could not be
        # resumed from a journal: moves may have been made while the coach was stopped (or
        # not journalled); a first read that needs several steps to explain is a guess
        self._resumed = False
        self._keep_old_journal = journal is not None and not resume and journal.exists()
        if self._keep_old_journal:
            say(
                f"starting a new game (the old journal {journal.path} is kept, renamed {journal.path.name}.game-N, "
                f"at the first accepted read)"
            )
        if journal is not None and resume:
            try:
                game = journal.load_game()
                loaded, memory = game if game is not None else (None, None)
            except JournalError as exc:
                loaded = None
                try:
                    aside = journal.set_aside()
                except (OSError, JournalError) as why:
                    reason = describe_os_error(why) if isinstance(why, OSError) else why
                    say(
                        f"warning: {exc}; it cannot be moved aside ({reason}), so it is kept as it is and "
                        f"this game is not journalled: a restart will not resume it"
                    )
                    self.journal = None
                else:
                    say(f"warning: {exc}; moved it to {aside.name} and starting a new game")
            if loaded is not None:
                if loaded.rules != rules:
                    say(f"note: the journal's game uses {loaded.rules.describe()}; continuing with those rules")
                for option, value in _COACH_TRACKING.items():  # (a journal does not hold them)
                    setattr(loaded, option, value)
                self.tracker = loaded
                self._resumed = True
                joined = " since it was joined mid-way" if isinstance(loaded, JoinedTracker) else ""
                say(f"resumed the game from {journal.path} ({len(loaded.history)} moves so far{joined})")
                self._restore_memory(memory)

    @property
    def tracker(self) -> TableTracker:
        """The game's tracker (replaced when a game is joined or a new one starts)."""
        return self._tracker

    @tracker.setter
    def tracker(self, tracker: TableTracker) -> None:
        # photos far apart (``rejoin_after``): a foundation grown by unseen cards is not a
        # card put down wrong (TableTracker.far_apart)
        tracker.far_apart = self._rejoin_after is not None
        self._tracker = tracker

    @property
    def rejoin_after(self) -> int | None:
        """Refused tables after which the table is joined as it is (photos); None: never."""
        return self._rejoin_after

    @rejoin_after.setter
    def rejoin_after(self, value: int | None) -> None:
        self._rejoin_after = value
        self.tracker = self._tracker

    def process_text(
        self,
        text: str,
        where: str = "snapshot",
        *,
        stock_hint: bool | None = None,
        down_hint: tuple[int, ...] | None = None,
    ) -> TrackerReport | None:
        """Read one snapshot text; print what happened and the advice. Bad text changes nothing.

        What a camera read of the table beyond the 12 slots comes as hints, trusted less
        than a snapshot's own lines (see docs/joining.md, "What the camera reads"):
        ``stock_hint`` (True a pile in the stock's place, False none) narrows the
        explanations the read keeps open to those whose stock agrees, and is passed over
        when none does (a misread stock never blocks the game nor forces moves);
        ``down_hint`` (face-down cards per column) is used to join a game where the counts
        fit the table (else the fewest that fit are assumed, and said)."""
        try:
            snap = parse_snapshot(text)
        except SnapshotParseError as exc:
            self.say(f"bad snapshot in {where}: {exc} (the game is unchanged)")
            return None
        advised = self.advised_move
        report = self.tracker.update(snap, prefer=advised, stock_hint=stock_hint)
        self.longer_search_waits = False
        if report.kind == "waiting" and self.tracker.state is None:
            report = self._join(snap, report, down_hint)
        if report.accepted and self._join_asked and self.tracker.guessed:
            # asked to join while the position is a guess: this table, though it follows,
            # is joined as it is (the way out of a "not sure" that would last the game)
            joined = self._rejoin(snap, report, down_hint, whole=True)
            if joined.kind == "started":
                report = joined
            else:
                self.say(
                    f"not joined yet: {self._join_refusal} (the game goes on as followed; the next table is tried)"
                )
        if report.kind == "inconsistent" and not report.put_wrong and looks_like_a_deal(snap, self.tracker.rules):
            over = self._game_over()
            if over is None:
                report = replace(
                    report,
                    message=report.message
                    + (
                        "; the table looks like a fresh deal: if a new game was dealt, restart with --new (the "
                        f"game in hand, {_moves(len(self.tracker.history))}, is kept until then)"
                    ),
                )
            else:
                return self._new_game(snap, over, where)
        elif report.kind == "inconsistent" and not report.put_wrong:
            if self._refused(snap) or self._join_asked:
                report = self._rejoin(snap, report, down_hint)
            elif not self._join_offered and try_join(snap, self.tracker.rules, down_hint)[0] is not None:
                self._join_offered = True
                report = replace(
                    report,
                    message=report.message
                    + (
                        "; if another game is on the table, restart with --new to join it as a new game (the game in "
                        f"hand, {_moves(len(self.tracker.history))}, is kept until then; this is said once)"
                    ),
                )
        if report.corrected:
            self.say(report.message)  # earlier moves or cards re-read (a misread taken back, say)
        elif report.kind == "moves":
            played = " then ".join(m.text for m in report.moves)
            if advised is not None and report.moves[0] != advised:
                self.say(
                    f"you played {played} instead of the advised {advised.text}: that is legal, new advice follows"
                )
            else:
                self.say(f"seen: {played}")
        elif report.kind == "inconsistent" and len(self._refused_tables) >= LOST_AFTER:
            if not self._lost_said:  # said once, plainly, with the way out
                self._lost_said = True
                self.say(
                    f"I cannot follow this game any more: {len(self._refused_tables)} tables in a row do not follow "
                    f"from it by legal moves (this one: {report.message}). Take back the last cards you moved to "
                    "where I last saw them, or join the table as it is (J in the live window, or restart with "
                    "--new; the game in hand, "
                    f"{_moves(len(self.tracker.history))}, is kept until then). I say nothing more until a table "
                    "follows"
                )
        elif report.kind == "inconsistent":
            if report.message == self._last_refusal:
                # said once, plainly: the same words again would only repeat what may be wrong
                self.say(
                    "that is not a legal continuation, as said above (the game is unchanged): take back the last cards you moved, or "
                    "keep the table still while I search for moves I did not see, or restart with --new "
                    "to join the table as it is"
                )
            else:
                self.say(f"that is not a legal continuation: {report.message} (the game is unchanged)")
            self._last_refusal = report.message
            self.longer_search_waits = self.tracker.searches_longer_if_read_again(snap)
        elif report.message:
            self.say(report.message)
        if report.accepted:
            if not self.tracker.guessed:
                self._join_asked = False  # (a table that follows needs no join, unless the position is a guess)
            self._last_refusal = None
            self._refused_tables = []
            self._lost_said = False
            if self._resumed:
                # the journal may be behind the table by any number of moves: more than one
                # step between the two (a card moved and back around a card turned over, say)
                # cannot be told from the shortest explanation; nor a table that looks like
                # one before the journal's last moves (taken back as a misread): the stock
                # turned through a redeal and on to the same waste card looks the same
                # (deal 88 of the benchmark: 11 turns unseen read as one draw taken back)
                self._resumed = False
                if (report.kind == "moves" and step_count(report.moves) > 1) or report.kind == "taken back":
                    self.tracker.guessed = True
            try:
                if self.tracker.state is not None:
                    self.last_advice = advice_for(self.strategy, self.tracker)
            finally:  # the game is journalled even if advising fails
                if self.journal is not None and report.kind != "no change":
                    self._save_journal()  # after advising: the advisor's memory holds this advice
            if self.tracker.state is not None:
                self.say("advice: " + self.last_advice.line())
        return report

    def _join(self, snap, report: TrackerReport, down_hint: tuple[int, ...] | None = None) -> TrackerReport:
        """With no game in hand, a table that is no fresh deal is joined as a game in
        progress (:mod:`solitaire_coach.core.join`, face-down counts from ``snap``'s
        ``down:`` line, else ``down_hint`` where it fits); ``report`` (waiting) is
        returned with the reason added when it cannot be (a table no legal game shows)."""
        joined, line = try_join(snap, self.tracker.rules, down_hint, **_COACH_TRACKING)
        if joined is None:
            if any(v is UNKNOWN for v in snap.slots):
                return report  # not read whole: the tracker's reason says what to wait for
            return replace(report, message=f"{report.message}; {line}")
        self.tracker = joined
        self._join_offered = False
        return TrackerReport("started", (), line)

    def _restore_memory(self, memory: dict | None) -> None:
        """Give the advisor back its memory of the resumed game (journalled with the tracker:
        :meth:`_advisor_memory`), so that it advises as if the coach had never stopped; a
        memory of another advisor, or one it cannot take back, is left out with a note."""
        restore = getattr(self.strategy, "restore", None)
        if memory is None or restore is None:
            return
        if memory.get("strategy") != self.strategy.name:
            self.say(
                f"note: the journal holds the memory of the {memory.get('strategy')!s:.40} advisor, not of "
                f"{self.strategy.name}: {self.strategy.name} starts with none"
            )
            return
        try:
            restore(memory.get("memory"), self.tracker.rules)
        except ValueError as exc:
            self.say(
                f"note: the advisor's memory of the game in the journal cannot be taken back ({exc}); "
                f"it starts with none"
            )

    def _advisor_memory(self) -> dict | None:
        """The advisor's memory of the game, for the journal (an advisor with a ``memory``
        method: ``best``), or None."""
        memory = getattr(self.strategy, "memory", None)
        return None if memory is None else {"strategy": self.strategy.name, "memory": memory()}

    def _game_over(self) -> str | None:
        """'won' or 'lost' when the game in hand has ended -- lost only when no move is
        left or the advisor proved it (a player who gave up has not ended the game) --
        else None."""
        state = self.tracker.state
        if state is None:
            return None
        if state.is_won():
            return "won"
        if not state.legal_moves():
            return "lost"
        advice = self.last_advice or self.strategy.advise(state, self.tracker.history)
        return "lost" if advice.status == "lost" and advice.proven else None

    def _refused(self, snap) -> bool:
        """Count ``snap`` among the different tables refused in a row; True when the coach
        is to join the table as it is (``rejoin_after`` of them, and at least
        :data:`LOST_AFTER`)."""
        line = snap.line()
        if line not in self._refused_tables:
            self._refused_tables.append(line)
        return self.rejoin_after is not None and len(self._refused_tables) >= max(LOST_AFTER, self.rejoin_after)

    def _rejoin(
        self, snap, report: TrackerReport, down_hint: tuple[int, ...] | None, whole: bool = False
    ) -> TrackerReport:
        """Lost, with photos taken every few moves, or asked to (:meth:`join_next`): join the
        table as it is (the game in hand's journal kept aside as ``PATH.game-N``) and coach
        on from there; ``report`` as it is where the table cannot be joined (asked, with
        why added). No picture shows how often the waste was turned over: without a
        ``redeals:`` line the join keeps every count open (see :mod:`..core.join`)."""
        # (every count of redeals from none: the game it lost may hold a redeal that was never
        # made, and taking its fewest as the least made was wrong in deal 75 of the benchmark)
        if whole and (unread := _unread_for_a_join(snap, down_hint)):
            # (a join that assumed what it could not read would trade a guess said for one not)
            joined, line = None, f"a join needs the whole table read, and {unread}"
        else:
            joined, line = try_join(snap, self.tracker.rules, down_hint, **_COACH_TRACKING)
            if whole and joined is not None and joined.joined_at is not None and snap.down is None:
                used = tuple(len(h) for h in joined.joined_at.hidden)
                if used != tuple(down_hint or ()):
                    joined, line = None, "a join needs the whole table read, and the face-down counts read do not fit"
        self._join_refusal = None if joined is not None else line
        if joined is None:
            if self._join_asked:
                return replace(report, message=f"{report.message}; this table cannot be joined yet: {line}")
            return report
        name, reason = self._journal_aside()
        kept = (
            f"; the game so far is kept as {name}"
            if name
            else f"; the game so far cannot be kept aside ({reason}) and its journal is overwritten"
            if reason
            else ""
        )
        opening = (
            "As asked, I join"
            if self._join_asked
            else f"I could not follow the game: {len(self._refused_tables)} tables in a row did not follow from it "
            "by legal moves (too many moves between the pictures, or cards put down wrong). I join"
        )
        self.say(
            f"{opening} the table as it is and coach on from here, the cards I have not seen unknown "
            f"({_moves(len(self.tracker.history))} were followed{kept})"
        )
        self._join_asked = False
        self.tracker = joined
        self.last_advice = None
        self._join_offered = False
        return TrackerReport("started", (), line)

    def join_next(self) -> None:
        """The person asks to join the table as it is (the way out when the coach cannot
        follow; the live window's J key): the next read that does not follow from the game
        in hand is joined as a game in progress (:meth:`_rejoin`: the game so far kept aside
        as ``PATH.game-N``), without waiting for more tables to be refused. A read that
        follows cancels the request; a card put down against the rules is not joined (it is
        to be taken back), nor a table that cannot be joined (said, and the next is tried).
        While the position is a guess (its advice says "not sure"), the next read is joined
        even though it follows: the way out of a guess that would otherwise last the game.
        The join forgets what the guess knew of the unseen cards, and is made only from a
        read of the whole table (every column's face-up run, the face-down counts): one that
        had to assume them would be a guess not said. Says what it will do."""
        if self.tracker.state is None:
            self.say("no game to leave yet: the next table read is joined or started as it is")
            return
        self._join_asked = True
        if self.tracker.guessed:
            self.say("not sure of this game's position: the next table read is joined as it is")
        else:
            self.say("the next table that does not follow from this game is joined as it is")

    def _journal_aside(self) -> tuple[str | None, str | None]:
        """Keep the game in hand's journal aside (``PATH.game-N``): (its new name, None), or
        (None, why it could not be); (None, None) where there is none."""
        if self.journal is None or not self.journal.exists():
            return None, None
        try:
            return self.journal.set_aside("game").name, None
        except (OSError, JournalError) as why:
            return None, str(describe_os_error(why) if isinstance(why, OSError) else why)

    def _new_game(self, snap, over: str, where: str) -> TrackerReport | None:
        """A fresh deal after a game that has ended: the finished game's journal is kept
        (``PATH.game-N``) and a new game starts from ``snap``."""
        name, reason = self._journal_aside()
        kept = (
            f"; its journal is kept as {name}"
            if name
            else f"; its journal cannot be kept aside ({reason}) and is overwritten"
            if reason
            else ""
        )
        self.say(
            f"the last game is over ({over}, {_moves(len(self.tracker.history))}) and a fresh deal is on the "
            f"table: a new game starts{kept}"
        )
        self.tracker = TableTracker(self.tracker.rules, **_COACH_TRACKING)
        self.last_advice = None
        self._join_offered = False
        return self.process_text(snap.text(), where=where)

    def _save_journal(self) -> None:
        """Save the tracker; a journal that cannot be written is reported (once until it
        can be again) and the game goes on from memory. The first save of a new game asked
        for (``resume=False``) first keeps the old game's journal aside (``PATH.game-N``)."""
        if self._keep_old_journal:
            self._keep_old_journal = False
            if self.journal.exists():
                try:
                    self.say(f"the old journal is kept as {self.journal.set_aside('game').name}")
                except (OSError, JournalError) as why:
                    reason = describe_os_error(why) if isinstance(why, OSError) else why
                    self.say(
                        f"warning: the old journal {self.journal.path} cannot be kept aside ({reason}) and is "
                        f"overwritten"
                    )
        try:
            self.journal.save(self.tracker, self._advisor_memory())
        except OSError as exc:
            reason = describe_os_error(exc)
            if reason != self._journal_failure:
                self.say(
                    f"warning: cannot save the journal {self.journal.path} ({reason}); the game goes on, "
                    f"but a restart now would not resume it"
                )
            self._journal_failure = reason
        else:
            if self._journal_failure is not None:
                self.say(f"the journal {self.journal.path} is saved again")
            self._journal_failure = None

    @property
    def advised_move(self) -> Move | None:
        """The move the last advice asks for (None when it asks for none): the tracker
        prefers it when several orders of moves explain a snapshot equally."""
        advice = self.last_advice
        return advice.move if advice is not None and advice.status == "move" else None

    @property
    def finished(self) -> bool:
        """Whether the last advice says the game is won or lost."""
        return self.last_advice is not None and self.last_advice.status in ("won", "lost")


def _unread_for_a_join(snap, down_hint: tuple[int, ...] | None) -> str:
    """What a join of ``snap`` would have to assume ('' when nothing but the redeals): the
    face-up run under a column's top not read, or no face-down counts (a ``down:`` line or
    the camera's ``down_hint``)."""
    columns = [i for i, top in enumerate(snap.columns) if isinstance(top, Card)]
    unread = [i for i in columns if snap.runs is None or snap.runs[i] is None]
    if unread:
        return f"the face-up run of column {unread[0] + 1} was not read"
    if snap.down is None and down_hint is None:
        return "the face-down cards were not counted"
    return ""


# different tables in a row that do not follow from the game before the coach counts as lost
LOST_AFTER = 3


def advice_for(strategy: Strategy, tracker: TableTracker) -> Advice:
    """The coach's advice for what ``tracker`` holds: legal in every explanation it keeps
    (``open_advice.advise_open``), and marked unsure (saying so) when its position is a
    guess or the advice does not hold in an explanation it dropped for its cap and follows
    aside (``TableTracker.doubted``)."""
    advice = advise_open(strategy, tracker.explanations, tracker.history)
    return _said_unsure(advice, tracker.guessed or not holds_in(advice, tracker.doubted))


UNSURE_NOTE = (
    "not sure of the position: I missed moves and guessed them, so check that the table allows it "
    "(J joins the table as it is)"
)


def _said_unsure(advice: Advice, guessed: bool) -> Advice:
    """``advice`` marked unsure (and saying so) when ``guessed``: the tracker's position is
    a guess among many explanations of moves it did not see (``TableTracker.guessed``), or
    the advice does not hold in one it dropped for its cap (``open_advice.holds_in``)."""
    if not guessed or advice.status in ("check", "won"):  # (a check says so already; a won table shows)
        return advice
    reason = UNSURE_NOTE + (f"; {advice.reason}" if advice.reason else "")
    return replace(advice, unsure=True, reason=reason)


def _moves(n: int) -> str:
    return f"{n} move{'s' if n != 1 else ''}"


MAX_SNAPSHOT_BYTES = 1 << 20
"""The largest snapshot file read: a snapshot is one line of 12 slots and a few optional
lines, so a larger file is another file given by mistake (a video, a log), not read (it
would be read whole, at every change: 200 MB took 30 s and 3.7 GB of memory)."""


def _file_signature(path: Path):
    """What tells a change of the file at ``path``: None when there is none; raises OSError
    when the path cannot be looked at (a folder on it replaced by a file, a symlink loop)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)


SETTLE_S = 0.25
"""How long a changed snapshot file whose text is no snapshot (empty, cut short, not UTF-8)
must stay unchanged before it is said to be bad: a writer that truncates, then writes (a
detector writing in place, ``echo ... > FILE``, an editor's save) is now and then caught
half-written, and its whole text follows within milliseconds."""


def _near_names(path: Path) -> str:
    """`` (did you mean NAME?)`` for files in ``path``'s folder whose names are close to
    its name (a mistyped snapshot path), or ''."""
    import difflib

    try:
        names = [p.name for p in path.parent.iterdir() if p.is_file()]
    except OSError:
        return ""
    near = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(str(path.parent / n) for n in near)}?)" if near else ""


def _is_snapshot(text: str) -> bool:
    """Whether ``text`` parses as a snapshot."""
    try:
        parse_snapshot(text)
    except SnapshotParseError:
        return False
    return True


def run_file_loop(
    session: CoachSession,
    path: Path,
    stdin: TextIO = sys.stdin,
    poll_s: float = 0.1,
    exit_when_done: bool = False,
    settle_s: float = SETTLE_S,
    remind_s: float = 60.0,
) -> int:
    """Watch ``path``; process it when it changes or when Enter is pressed; ``q`` quits.

    A path that cannot be read (a folder on it replaced by a file, a symlink loop, a named
    pipe, bytes that are not UTF-8 text, a file larger than MAX_SNAPSHOT_BYTES) is reported
    as ``cannot read PATH: why`` (once until the reason changes, or Enter is pressed) and the
    watching goes on.

    A file that has just changed and whose text is no snapshot (empty, cut short, not UTF-8)
    may be caught mid-write by a writer that truncates, then writes: it is read again once it
    has stayed unchanged for ``settle_s`` (SETTLE_S), and only if it is still no snapshot then
    is it reported (``bad snapshot in PATH: why``, once; an empty file too). A path not
    there yet is said at the start, with the names in its folder that are close to it, and
    again every ``remind_s`` seconds while it is not there. The
    end of ``stdin`` (closed, or ``< /dev/null``) ends the loop: nobody is left to quit it. A file that
    parses is read at once, and Enter reads the file at once, settled or not. The loop keeps
    polling stdin meanwhile, so ``q`` quits at once."""
    session.say(f"watching {path}: press Enter to read it now, q then Enter (or the end of input) to quit")
    if not path.parent.is_dir():
        session.say(
            f"note: the folder {path.parent} does not exist (yet): nothing is read until {path.name} is written there"
        )
    elif not path.exists():
        session.say(f"note: {path} does not exist yet: waiting for {path} to be written{_near_names(path)}")
    said_waiting = time.monotonic()  # when the missing file was last said (again every remind_s)
    last = None  # the signature of the file last acted on
    unsettled = None  # (signature, when first seen) of a changed file that read as no snapshot
    problem = None  # the last "cannot read" reason said, so a lasting one is said once

    def cannot_read(why: str, force: bool) -> None:
        nonlocal problem
        if why != problem or force:
            session.say(f"cannot read {path}: {why}")
        problem = why

    interactive = stdin is not None
    while True:
        force = False
        if interactive:
            try:
                ready, _, _ = select.select([stdin], [], [], poll_s)
            except (ValueError, OSError):
                ready, interactive = [], False
            if ready:
                line = stdin.readline()
                if line == "":  # stdin closed: nobody is left to press q
                    session.say(
                        "end of input: stopping"
                        + (
                            f" (the game is journalled in {session.journal.path})"
                            if session.journal is not None
                            else ""
                        )
                    )
                    return 0
                elif line.strip().lower() in ("q", "quit"):
                    return 0
                else:
                    force = True
        else:
            time.sleep(poll_s)
        try:
            sig = _file_signature(path)
        except OSError as exc:
            last = unsettled = None
            cannot_read(describe_os_error(exc), force)
            continue
        if sig is None:
            problem = unsettled = None
            if force or time.monotonic() - said_waiting >= remind_s:
                session.say(f"{path} does not exist yet: still waiting for it to be written{_near_names(path)}")
                said_waiting = time.monotonic()
            continue
        if sig != last or force:
            now = time.monotonic()
            settled = force or (unsettled is not None and unsettled[0] == sig)
            if settled and not force and now - unsettled[1] < settle_s:
                continue  # caught mid-write, perhaps: wait until it has stayed unchanged
            if sig[1] > MAX_SNAPSHOT_BYTES:
                last, unsettled = sig, None
                cannot_read(
                    f"it is {sig[1]:,} bytes, too large to be a snapshot (one line of 12 slots and a few "
                    f"optional lines; at most {MAX_SNAPSHOT_BYTES:,} bytes are read)",
                    force,
                )
                continue
            try:
                text = read_text_file(path)
            except NotTextError as exc:
                if not settled:
                    unsettled = (sig, now)
                    continue
                last, unsettled = sig, None
                cannot_read(describe_os_error(exc), force)
                continue
            except OSError as exc:
                last, unsettled = sig, None
                cannot_read(describe_os_error(exc), force)
                continue
            if not settled and not _is_snapshot(text):
                unsettled = (sig, now)
                continue
            last, unsettled = sig, None
            problem = None
            session.process_text(text, where=str(path))
            if session.longer_search_waits and interactive:
                session.say(
                    "if the table is right (moves made while the coach was not watching), press Enter to "
                    "read it again: a longer search then looks for those moves"
                )
            if exit_when_done and session.finished:
                return 0
