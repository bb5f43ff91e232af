"""A game in progress seen by the camera (issue 42): the live coach joins at the first still
picture and follows the moves between later pictures, several between two pictures."""

import random
from dataclasses import replace

from solitaire_coach.app.live import LiveCoach
from solitaire_coach.capture.gate import ReadGate
from solitaire_coach.core.advisor import make_strategy
from solitaire_coach.core.join import JoinedTracker
from solitaire_coach.core.moves import MoveKind
from solitaire_coach.core.state import deal_for_seed, first_difference
from solitaire_coach.core.virtual_table import VirtualTable
from test_live import TableDouble, _frames, _session  # the detector double of the live tests


def test_the_live_coach_joins_at_the_first_still_picture_and_follows_the_moves():
    double = TableDouble()
    rng = random.Random(4)
    table = VirtualTable.from_deal(deal_for_seed(21))
    for _ in range(40):
        table.perform(rng.choice(table.state.legal_moves()))
    start = table.state
    first = replace(table.snapshot(with_runs=True), down=tuple(len(h) for h in start.hidden))
    images = [double.picture(first)] * 4
    played = []
    advisor = make_strategy("baseline")
    interval = []
    while len(played) < 20:
        advice = advisor.advise(table.state, played)
        if advice.status != "move":
            break
        if len(interval) == 2 or (interval and interval[-1].kind is advice.move.kind is MoveKind.DRAW):
            # a picture after two moves (not two stock turns: no camera tells them from one)
            images += [double.picture(table.snapshot())] * 4
            interval = []
        table.perform(advice.move)
        played.append(advice.move)
        interval.append(advice.move)
    images += [double.picture(table.snapshot())] * 4
    assert len(played) == 20
    said = []
    coach = LiveCoach(_session(), double, ReadGate(hand_check=None), say=said.append)
    coach.start()
    for frame in _frames(images):
        coach.step(frame)
    tracker = coach.session.tracker
    assert isinstance(tracker, JoinedTracker)
    assert sum(line.startswith("joined a game in progress") for line in said) == 1, said
    assert not any("not a legal continuation" in line for line in said), said
    assert first_difference(start, tracker.history, played) is None, (
        " ".join(m.text for m in tracker.history),
        " ".join(m.text for m in played),
    )
    assert tracker.state.faceup == table.state.faceup and tracker.state.foundations == table.state.foundations
