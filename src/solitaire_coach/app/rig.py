"""The serial rig's replies: what the coach sends back to a rig (``--serial``) after a read.

In: the advice in force after a read and the cards that read shows put down wrong. Out:
one line on the serial port (through :class:`~solitaire_coach.capture.serial_trigger.SerialTrigger`)
when the advice changed or the rig's trigger asked for a read; nothing without a rig.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..capture.serial_trigger import SerialTrigger
from ..core.advisor import Advice
from ..core.tracker import Placement


class RigReplies:
    """The lines owed to one serial rig (or to none, with ``trigger`` None)."""

    def __init__(self, trigger: SerialTrigger | None) -> None:
        self.trigger = trigger
        self._sent: str | None = None
        self._reply_due = False  # a trigger asked: the rig gets a line after the next read

    def request(self) -> None:
        """The rig's trigger asked for a read: answer after it even if the advice is unchanged."""
        self._reply_due = True

    def send_advice(self, advice: Advice | None, put_wrong: Sequence[Placement] = ()) -> None:
        """Send the advice to the rig when it changed, or when a trigger asked for a read;
        after a read that shows a card put down wrong, what to take back instead."""
        if self.trigger is None:
            return
        if put_wrong and self._reply_due:
            text = put_wrong[0].text
            self._reply_due = not self.trigger.send(text[0].upper() + text[1:])
            self._sent = None  # the advice is sent again once the table is right
            return
        if advice is None:
            return
        text = advice.text
        if (text != self._sent or self._reply_due) and self.trigger.send(text):
            self._sent = text
            self._reply_due = False
