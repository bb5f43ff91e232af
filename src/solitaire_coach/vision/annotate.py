"""Drawing what the detector read (kept apart from detecting)."""

from __future__ import annotations

import cv2
import numpy as np

FACE = (60, 200, 60)
BACK = (200, 120, 40)
UNREAD = (40, 40, 230)


def draw_detections(frame: np.ndarray, result) -> np.ndarray:
    """A copy of ``frame`` with each card's quad and its reading (and the snapshot line)."""
    out = frame.copy()
    h, w = out.shape[:2]
    scale = max(0.5, w / 1700)
    thick = 1 if w < 1600 else 2
    for c in result.cards:
        colour = FACE if c.card is not None else (BACK if not c.face_up else UNREAD)
        q = np.round(c.quad).astype(np.int32)
        cv2.polylines(out, [q], True, colour, 2, cv2.LINE_AA)
        if c.face_up:
            # the label inside its own box, at the top left corner, on a dark patch: in a
            # fanned column the strip above belongs to another card
            label = c.card.symbol if c.card is not None else "UU"
            label = label.replace("♣", "C").replace("♦", "D").replace("♥", "H").replace("♠", "S")
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
            x0, y0 = int(q[:, 0].min()) + 2, int(q[:, 1].min()) + 2
            cv2.rectangle(out, (x0, y0), (x0 + tw + 4, y0 + th + 6), (0, 0, 0), -1)
            cv2.putText(out, label, (x0 + 2, y0 + th + 2), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    text = result.snapshot.line()
    cv2.rectangle(out, (0, h - int(34 * scale) - 6), (w, h), (0, 0, 0), -1)
    cv2.putText(out, text, (6, h - 8), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out
