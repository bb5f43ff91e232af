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
    scale = max(0.4, w / 2200)
    for c in result.cards:
        colour = FACE if c.card is not None else (BACK if not c.face_up else UNREAD)
        q = np.round(c.quad).astype(np.int32)
        cv2.polylines(out, [q], True, colour, 2, cv2.LINE_AA)
        if c.face_up:
            label = c.card.symbol if c.card is not None else "UU"
            label = label.replace("♣", "c").replace("♦", "d").replace("♥", "h").replace("♠", "s")
            org = (int(q[0][0]) + 2, int(q[0][1]) - 4)
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)
    text = result.snapshot.line()
    cv2.rectangle(out, (0, h - int(34 * scale) - 6), (w, h), (0, 0, 0), -1)
    cv2.putText(out, text, (6, h - 8), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out
