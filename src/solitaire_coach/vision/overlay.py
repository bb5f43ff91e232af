"""Drawing the live coach's window: a frame plus what was read and advised -> a picture.

In: the camera's frame, the detector's result (every card's quad, slot and card), the
advice and the game it was given for, the latest note said and the gate's view. Out: a
copy of the frame with every card read boxed and labelled, the advised move as an arrow
from the card to where it goes (with a word for the moves an arrow alone does not tell
apart), the advice and its reason in large text at the foot, the note at the top, the
cards put down wrong outlined in red, and a banner while a hand is over the table.

Kept apart from the reading as :mod:`solitaire_coach.vision.annotate` is from the
detector: used only when a window is shown or frames are saved, so ``play`` and
``replay`` say exactly the same with or without it. (The gate's view it draws comes
from :mod:`solitaire_coach.capture.gate`.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import cv2
import numpy as np

from ..capture.gate import RESTING, GateView
from ..capture.serial_trigger import ascii_line
from ..core.cards import RANK_NAMES, Card
from ..core.moves import MoveKind
from ..core.state import GameState
from .detector import calibrated_slots

if TYPE_CHECKING:  # names for the annotations alone: drawing decides no rule
    from ..core.advisor import Advice
    from ..core.tracker import Placement


def _urgent(line: str) -> bool:
    """A line the person must act on (a card put down wrong, a table no move explains)."""
    return "take it back" in line or "not a legal continuation" in line


FONT = cv2.FONT_HERSHEY_SIMPLEX
_GREEN = (60, 220, 60)
_YELLOW = (0, 220, 255)
_RED = (40, 40, 235)
_WHITE = (255, 255, 255)
_AMBER = (0, 140, 255)
_RED_ON_DARK = (70, 70, 255)
_BACK = (200, 160, 60)


def _cards_of(detection) -> list:
    return list(getattr(detection, "cards", []) or []) if detection is not None else []


def _centre(quad) -> tuple[float, float]:
    q = np.asarray(quad, np.float32).reshape(-1, 2)
    return float(q[:, 0].mean()), float(q[:, 1].mean())


def _label(card: Card | None) -> str:
    return "back" if card is None else RANK_NAMES[card.rank - 1] + card.suit_code


def slot_points(
    detection, image_shape: tuple[int, ...], calibration: dict | None = None
) -> dict[str, tuple[float, float]]:
    """Where each of the 12 slots (and ``stock``) is in the picture: the centre of the top
    card read there; for an empty slot the calibration's point, else a point estimated
    from the other slots (columns and the upper row share seven evenly spaced x places)."""
    points: dict[str, tuple[float, float]] = {}
    per_slot: dict[str, list] = {}
    for det in _cards_of(detection):
        per_slot.setdefault(det.slot, []).append(det)
    heights = []
    for slot, dets in per_slot.items():
        if slot.startswith("column"):
            top = max(dets, key=lambda d: _centre(d.quad)[1])
        elif slot == "waste":
            top = max(dets, key=lambda d: _centre(d.quad)[0])
        else:
            top = dets[-1]
        points[slot] = _centre(top.quad)
        q = np.asarray(top.quad, np.float32).reshape(-1, 2)
        heights.append(float(np.linalg.norm(q[3] - q[0])) if len(q) == 4 else 0.0)
    for slot, xy in calibrated_slots(calibration, image_shape[1], image_shape[0]).items():
        points.setdefault(slot, xy)
    # estimate the missing ones from a 7-place grid
    place = {
        "stock": 0,
        "waste": 1,
        **{f"foundation {i}": 2 + i for i in range(1, 5)},
        **{f"column {i}": i - 1 for i in range(1, 8)},
    }
    xs = [(place[s], p[0]) for s, p in points.items() if s in place and s != "waste"]
    h, w = image_shape[:2]
    card_h = float(np.median(heights)) if heights else h / 5
    if len(xs) >= 2 and len({i for i, _ in xs}) >= 2:
        a, b = np.polyfit([i for i, _ in xs], [x for _, x in xs], 1)
    else:
        a, b = w / 7.5, w / 14
    upper = [p[1] for s, p in points.items() if not s.startswith("column")]
    upper_y = float(np.median(upper)) if upper else card_h * 0.7
    # an empty column's card would lie where the columns begin: half a card below the
    # top edge of their first cards (a covered card shows only a strip, whose centre is
    # well above its card's)
    column_tops = [
        float(np.asarray(d.quad, np.float32).reshape(-1, 2)[:, 1].min())
        for s, dets in per_slot.items()
        if s.startswith("column")
        for d in dets
    ]
    lower_y = min(column_tops) + card_h / 2 if column_tops else upper_y + 1.3 * card_h
    for slot, i in place.items():
        if slot not in points:
            points[slot] = (float(a * i + b), upper_y if not slot.startswith("column") else lower_y)
    return points


def arrow_for(
    advice: Advice | None, state: GameState | None, detection, image_shape, calibration: dict | None = None
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The advised move as (from, to) pixel points, or None."""
    if advice is None or advice.move is None or state is None:
        return None
    move = advice.move
    pts = slot_points(detection, image_shape, calibration)
    by_card = {(d.card, d.slot): _centre(d.quad) for d in _cards_of(detection) if getattr(d, "card", None) is not None}

    def foundation_for(suit: int) -> tuple[float, float]:
        for d in _cards_of(detection):
            if d.slot.startswith("foundation") and d.card is not None and d.card.suit == suit:
                return _centre(d.quad)
        taken = {d.slot for d in _cards_of(detection) if d.slot.startswith("foundation")}
        for i in range(1, 5):
            if f"foundation {i}" not in taken:
                return pts[f"foundation {i}"]
        return pts["foundation 1"]

    k = move.kind
    try:
        if k is MoveKind.DRAW:
            a, b = pts["stock"], pts["waste"]
        elif k is MoveKind.REDEAL:
            a, b = pts["waste"], pts["stock"]
        else:
            cards = state.moving_cards(move)
            head = cards[0] if cards else None
            # the moving card where the picture shows it in the move's source pile (a card
            # read elsewhere -- already moved, or misread -- does not start the arrow)
            if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.WASTE_TO_COLUMN):
                a = by_card.get((head, "waste"), pts["waste"])
            elif k is MoveKind.FOUNDATION_TO_COLUMN:
                a = foundation_for(move.source)
            else:
                source = f"column {move.source + 1}"
                a = by_card.get((head, source), pts[source])
            if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.COLUMN_TO_FOUNDATION):
                b = foundation_for(head.suit)
            else:
                b = pts[f"column {move.target + 1}"]
    except Exception:  # an advice the picture cannot place: no arrow rather than a crash
        return None
    return (int(a[0]), int(a[1])), (int(b[0]), int(b[1]))


def move_tag(advice: Advice | None) -> str:
    """A word by the target for the moves an arrow alone does not tell apart: a card
    drawn from the stock, the waste turned over, a card put up on a foundation."""
    if advice is None or advice.move is None:
        return ""
    k = advice.move.kind
    if k is MoveKind.DRAW:
        return "DRAW"
    if k is MoveKind.REDEAL:
        return "TURN THE WASTE OVER"
    if k in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.COLUMN_TO_FOUNDATION):
        return "TO THE FOUNDATION"
    return ""


def tag_box(tag: str, target: tuple[int, int, int, int], unit: float, shape) -> tuple[int, int, int, int]:
    """Where ``tag`` goes: a patch centred under the target outline (above it near the
    picture's foot), kept inside the picture."""
    h, w = shape[:2]
    bw, bh = _tag_size(tag, unit)
    x0 = min(max(0, (target[0] + target[2]) // 2 - bw // 2), w - bw)
    y0 = target[3] + int(4 * unit)
    if y0 + bh > h * 0.7:
        y0 = max(0, target[1] - int(4 * unit) - bh)
    return x0, y0, x0 + bw, y0 + bh


def _tag_size(tag: str, unit: float) -> tuple[int, int]:
    """Width and height of the dark patch a tag word is written on."""
    (tw, th), _ = cv2.getTextSize(tag, FONT, 0.7 * unit, max(1, int(2 * unit)))
    return tw + int(10 * unit), th + int(14 * unit)


def _draw_tag(img: np.ndarray, tag: str, box: tuple[int, int, int, int], colour: tuple, unit: float) -> None:
    """``tag`` in ``colour`` on a dark patch filling ``box`` (drawn in place)."""
    x0, y0, x1, y1 = box
    cv2.rectangle(img, (x0, y0), (x1, y1), (0, 0, 0), -1)
    cv2.putText(
        img, tag, (x0 + int(5 * unit), y1 - int(7 * unit)), FONT, 0.7 * unit, colour, max(1, int(2 * unit)), cv2.LINE_AA
    )


def moving_quads(advice: Advice | None, state: GameState | None, detection) -> list:
    """The quads of the cards the advised move takes, where the picture shows them in the
    move's source pile (a column's run from the moving card down, the waste's top)."""
    if advice is None or advice.move is None or state is None:
        return []
    move = advice.move
    if move.kind in (MoveKind.WASTE_TO_FOUNDATION, MoveKind.WASTE_TO_COLUMN):
        source = "waste"
    elif move.kind in (MoveKind.COLUMN_TO_FOUNDATION, MoveKind.COLUMN_TO_COLUMN):
        source = f"column {move.source + 1}"
    else:
        return []
    try:
        cards = set(state.moving_cards(move))
    except Exception:  # an advice the position cannot play: nothing outlined rather than a crash
        return []
    return [d.quad for d in _cards_of(detection) if d.slot == source and d.card in cards]


def take_back_quads(put_wrong: Sequence[Placement], detection) -> list:
    """The quads of the cards put down wrong (``StepResult.put_wrong``), where the picture
    shows each on its pile."""
    return [d.quad for p in put_wrong for d in _cards_of(detection) if d.card == p.card and d.slot.startswith(p.pile)]


def label_box(det, unit: float) -> tuple[int, int, int, int] | None:
    """Where a face-up card's label goes: (x0, y0, x1, y1) inside the card's top right
    corner -- the index a person reads is in the top left, and in a fanned column the strip
    a covering card leaves shows that corner alone. None for a card back."""
    if det.card is None and not getattr(det, "face_up", False):
        return None
    label = _label(det.card) if det.card is not None else "??"
    (tw, th), _ = cv2.getTextSize(label, FONT, 0.75 * unit, max(1, int(2 * unit)))
    q = np.asarray(det.quad, np.float32).reshape(-1, 2)
    x1, y0 = int(q[1][0]) - 2, int(q[1][1]) + 2  # the top right corner
    return x1 - tw - 6, y0, x1, y0 + th + int(8 * unit)


def _text(img, text: str, org, scale: float, colour, thick: int) -> None:
    cv2.putText(img, text, org, FONT, scale, (0, 0, 0), thick + 4, cv2.LINE_AA)
    cv2.putText(img, text, org, FONT, scale, colour, thick, cv2.LINE_AA)


NOTE_LINES = 3  # lines of a note drawn at the top of the picture
LABEL_UNIT_FLOOR = 0.6  # card labels and tags never shrink below their size on a 768-pixel-wide picture
BAND_UNIT_FLOOR = 0.5  # the advice and the note: their size on a 640-pixel-wide picture


def _lines(text: str, scale: float, thick: int, width: int, most: int) -> list[str]:
    """``text`` wrapped to ``width`` pixels, at most ``most`` lines (the last ending in ...)."""
    wrapped = _wrap(text, scale, thick, width)
    if len(wrapped) > most:
        wrapped = wrapped[: most - 1] + [_fit(wrapped[most - 1] + " ...", scale, thick, width)]
    return wrapped


def _fit(line: str, scale: float, thick: int, width: int) -> str:
    """``line`` (ending in `` ...``) cut until it fits ``width`` pixels."""
    while len(line) > 4 and cv2.getTextSize(line, FONT, scale, thick)[0][0] > width:
        line = line[:-5].rstrip() + " ..."
    return line


def _wrap(text: str, scale: float, thick: int, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for word in words:
        trial = (cur + " " + word).strip()
        if cur and cv2.getTextSize(trial, FONT, scale, thick)[0][0] > width:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


def draw_overlay(
    image: np.ndarray,
    detection,
    advice: Advice | None,
    state: GameState | None,
    *,
    note: str = "",
    take_back: Sequence[Placement] = (),
    gate: GateView | None = None,
    calibration: dict | None = None,
) -> np.ndarray:
    """The frame with every card read boxed and labelled, the advised move as an arrow, the
    advice and its reason in large text, the latest note (a deviation, an illegal move), and
    the cards of ``take_back`` (put down wrong) outlined in red."""
    out = image.copy()
    h, w = out.shape[:2]
    unit = w / 1280.0
    tu = max(unit, LABEL_UNIT_FLOOR)  # text scales with the picture, but never too small to read
    bu = max(unit, BAND_UNIT_FLOOR)  # ... and the bands of text never cover a small picture
    waiting = waiting_text(gate)
    if waiting:  # the last read's boxes and arrow would be stale over a hand moving cards
        detection = None
    for det in _cards_of(detection):
        q = np.asarray(det.quad, np.float32).reshape(-1, 1, 2).astype(np.int32)
        colour = _GREEN if det.card is not None else (_RED if getattr(det, "face_up", False) else _BACK)
        cv2.polylines(out, [q], True, colour, max(1, int(2 * unit)), cv2.LINE_AA)
    urgent = _urgent(note)  # a card to take back first: the advised move is not the next thing to do
    arrow = None if waiting or urgent else arrow_for(advice, state, detection, out.shape, calibration)
    if arrow is not None:
        (x0, y0), (x1, y1) = arrow
        length = max(1.0, float(np.hypot(x1 - x0, y1 - y0)))
        heights = [
            float(
                np.linalg.norm(
                    np.asarray(d.quad, np.float32).reshape(-1, 2)[1] - np.asarray(d.quad, np.float32).reshape(-1, 2)[0]
                )
            )
            for d in _cards_of(detection)
        ]
        cw = float(np.median(heights)) if heights else 90 * unit
        ch = cw * 1.4
        target = (int(x1 - cw / 2), int(y1 - ch / 2), int(x1 + cw / 2), int(y1 + ch / 2))
        cv2.rectangle(out, target[:2], target[2:], _YELLOW, max(2, int(3 * unit)), cv2.LINE_AA)
        for q in moving_quads(advice, state, detection):  # the cards that move, outlined
            cv2.polylines(
                out,
                [np.asarray(q, np.float32).reshape(-1, 1, 2).astype(np.int32)],
                True,
                _YELLOW,
                max(2, int(3 * unit)),
                cv2.LINE_AA,
            )
        cv2.arrowedLine(
            out, (x0, y0), (x1, y1), (0, 0, 0), int(14 * unit), cv2.LINE_AA, tipLength=min(0.4, 45 * unit / length)
        )
        cv2.arrowedLine(
            out, (x0, y0), (x1, y1), _YELLOW, int(8 * unit), cv2.LINE_AA, tipLength=min(0.4, 45 * unit / length)
        )
        cv2.circle(out, (x0, y0), int(12 * unit), _YELLOW, -1, cv2.LINE_AA)
        tag = move_tag(advice)
        if tag:
            _draw_tag(out, tag, tag_box(tag, target, tu, out.shape), _YELLOW, tu)
    for det in _cards_of(detection):  # over the arrow, so that no label is hidden under it
        box = label_box(det, tu)
        if box is not None:
            (x0, y0, x1, y1), label = box, _label(det.card) if det.card is not None else "??"
            cv2.rectangle(out, (x0, y0), (x1, y1), (0, 0, 0), -1)
            cv2.putText(
                out,
                label,
                (x0 + 3, y1 - int(5 * tu) - 1),
                FONT,
                0.75 * tu,
                _GREEN if det.card is not None else _RED_ON_DARK,
                max(1, int(2 * tu)),
                cv2.LINE_AA,
            )
    # the advice, large, on a dark band at the bottom
    lines: list[tuple[str, float, tuple, int]] = []
    width = int(w - 40 * unit)
    if advice is not None:
        head = ("then: " if urgent else "") + ascii_line(advice.text, 200)
        for ln in _lines(head, 1.4 * bu, max(2, int(3 * bu)), width, 2):
            lines.append(
                (ln, 1.4 * bu, _YELLOW if advice.status == "move" and not urgent else _WHITE, max(2, int(3 * bu)))
            )
        if advice.reason:  # the terminal has it all; the picture keeps the band low
            for ln in _lines(
                ascii_line(advice.reason, 200), 0.95 * bu, max(2, int(2 * bu)), width, 2 if h >= 500 else 1
            ):
                lines.append((ln, 0.95 * bu, _WHITE, max(2, int(2 * bu))))
    elif state is None:
        lines.append(("Deal a new game and hold still", 1.0 * bu, _WHITE, max(2, int(3 * bu))))
    if lines:
        band = sum(int(44 * s) + 6 for _, s, _, _ in lines) + int(16 * bu)
        overlay = out.copy()
        cv2.rectangle(overlay, (0, h - band), (w, h), (0, 0, 0), -1)
        out = cv2.addWeighted(overlay, 0.55, out, 0.45, 0)
        y = h - band + int(8 * bu)
        for ln, s, colour, thick in lines:
            y += int(40 * s) + 6
            _text(out, ln, (int(20 * unit), y), s, colour, thick)
    for q in [] if waiting else take_back_quads(take_back, detection):  # the card to take back, in red
        q = np.asarray(q, np.float32).reshape(-1, 1, 2).astype(np.int32)
        cv2.polylines(out, [q], True, _RED_ON_DARK, max(3, int(5 * unit)), cv2.LINE_AA)
        x0, y0 = q.reshape(-1, 2).min(axis=0)
        x1, y1 = q.reshape(-1, 2).max(axis=0)
        bw, bh = _tag_size("TAKE BACK", tu)  # on the card's middle: its index and the pile's stay seen
        tx0, ty0 = int((x0 + x1) / 2 - bw / 2), int((y0 + y1) / 2 - bh / 2)
        _draw_tag(out, "TAKE BACK", (tx0, ty0, tx0 + bw, ty0 + bh), _RED_ON_DARK, tu)
    status = ""
    if not waiting and gate is not None and not gate.read and gate.reason != RESTING:
        status = gate.reason
    if note or status:
        _top_band(out, note, status, bu)
    if gate is not None and gate.box is not None:  # the object over the table, outlined
        x, y, bw, bh = (int(round(v)) for v in gate.box)
        cv2.rectangle(out, (x, y), (x + bw, y + bh), _RED, max(2, int(3 * unit)))
        _text(out, "not a card", (x + 6, max(int(24 * tu), y + int(28 * tu))), 0.8 * tu, _RED, max(2, int(2 * tu)))
    if waiting:
        _banner(out, waiting, tu)
    elif advice is not None and advice.status in ("won", "lost"):  # the game is over: say so across the table
        _banner(out, ascii_line(advice.text, 200), tu, _GREEN if advice.status == "won" else _WHITE, size=2.2)
    return out


def _shade(img: np.ndarray, x0: int, y0: int, x1: int, y1: int, alpha: float = 0.65) -> None:
    """Darken a rectangle of ``img`` in place (text on it reads on any table)."""
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(img.shape[1], x1), min(img.shape[0], y1)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = (img[y0:y1, x0:x1] * (1.0 - alpha)).astype(img.dtype)


def _top_band(img: np.ndarray, note: str, status: str, unit: float) -> None:
    """The note (red when a card must be taken back) on a dark band across the top, and the
    gate's status small at the top right, clear of the note (drawn in place)."""
    h, w = img.shape[:2]
    s_scale, s_thick = 0.6 * unit, max(1, int(2 * unit))
    (sw, sh), _ = cv2.getTextSize(status, FONT, s_scale, s_thick) if status else ((0, 0), 0)
    margin = int(20 * unit)
    scale, thick = 1.0 * unit, max(2, int(2.5 * unit))
    width = int(w - 2 * margin - (sw + margin if status else 0))
    most = NOTE_LINES if h >= 500 else NOTE_LINES - 1  # the terminal has it all; the picture says there is more
    wrapped = _lines(ascii_line(note, 400), scale, thick, width, most) if note else []
    step = int(42 * unit)
    if wrapped:
        _shade(img, 0, 0, w, step * len(wrapped) + int(14 * unit))
        colour = _RED_ON_DARK if _urgent(note) else _WHITE
        for i, ln in enumerate(wrapped):
            cv2.putText(img, ln, (margin, int(36 * unit) + step * i), FONT, scale, colour, thick, cv2.LINE_AA)
    if status:
        x = w - sw - margin // 2
        if not wrapped:
            _shade(img, x - margin // 2, 0, w, sh + int(24 * unit))
        cv2.putText(img, status, (x, sh + int(10 * unit)), FONT, s_scale, _WHITE, s_thick, cv2.LINE_AA)


def waiting_text(gate: GateView | None) -> str:
    """What the picture says while a hand (or anything not a card) is over the table, else ''."""
    if gate is None or not gate.hand:
        return ""
    return "Hand in the picture: waiting" if gate.box is None else "Something over the table: waiting"


def _banner(img: np.ndarray, text: str, unit: float, colour: tuple = _AMBER, size: float = 1.3) -> None:
    """``text`` large, centred across the picture on a dark band (drawn in place)."""
    h, w = img.shape[:2]
    thick = max(2, int(3 * unit))
    scale = size * unit
    while scale > 0.4 and cv2.getTextSize(text, FONT, scale, thick)[0][0] > w - 40 * unit:
        scale *= 0.9
    (tw, th), _ = cv2.getTextSize(text, FONT, scale, thick)
    y0, y1 = int(h * 0.42 - th), int(h * 0.42 + th)
    band = img.copy()
    cv2.rectangle(band, (0, y0), (w, y1), (0, 0, 0), -1)
    cv2.addWeighted(band, 0.6, img, 0.4, 0, dst=img)
    _text(img, text, ((w - tw) // 2, (y0 + y1 + th) // 2), scale, colour, thick)
