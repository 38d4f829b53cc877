"""The hand-over between the capture thread and the one consumer: the newest frame wins.

Why not a queue: when reading the dice takes longer than a frame, a queue grows and the
table shows the tray as it was seconds ago. Here the capture never waits (a camera that is
not drained stalls, see NOTES.md), an unread frame is replaced by a newer one, and the
replaced frames are counted so the page can show that the consumer is behind (Frigate does
the same with its capture queue).
"""

from __future__ import annotations

import threading

from device.camera.frames import Frame


class LatestFrame:
    """A slot holding the newest frame not yet taken."""

    def __init__(self) -> None:
        self._ready = threading.Condition()
        self._frame: Frame | None = None
        self.frames = 0
        self.drops = 0

    def put(self, frame: Frame) -> None:
        """Never blocks; replacing a frame nobody took counts one drop."""
        with self._ready:
            if self._frame is not None:
                self.drops += 1
            self._frame = frame
            self.frames += 1
            self._ready.notify_all()

    def get(self, timeout: float | None = None) -> Frame | None:
        """The newest frame not taken yet, waiting up to ``timeout`` s; None if none came."""
        with self._ready:
            if not self._ready.wait_for(lambda: self._frame is not None, timeout):
                return None
            frame, self._frame = self._frame, None
            return frame
