"""The appliance's recent log lines, kept in memory for the owner's log page.

Why in memory: on the Pi the service's log goes to the journal, which the service's user
may not read (``journalctl`` needs the group systemd-journal), and ``make run`` prints it to
a terminal nobody keeps. The last ``LINES`` lines, as the handler formats them, are enough to
see why a camera stopped or a throw was refused; a full history stays in the journal.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from typing import Any

LINES = 500
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class Logbook(logging.Handler):
    """A logging handler that keeps the last ``size`` lines, each with a number, so a page
    asks only for the lines after the last one it has."""

    def __init__(self, size: int = LINES) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(logging.Formatter(FORMAT, "%Y-%m-%d %H:%M:%S"))
        self._lines: deque[tuple[int, str, str]] = deque(maxlen=size)
        self._numbers = itertools.count(1)
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # a bad format argument must not lose the handler
            self.handleError(record)
            return
        with self._guard:
            self._lines.append((next(self._numbers), record.levelname, line))

    def lines(self, after: int = 0) -> list[dict[str, Any]]:
        """The kept lines numbered above ``after``, oldest first."""
        with self._guard:
            kept = list(self._lines)
        return [{"n": n, "level": level, "text": text} for n, level, text in kept if n > after]


def install(size: int = LINES) -> Logbook:
    """A logbook on the root logger (every module's lines, werkzeug's requests too, after
    the filter that leaves out the page's polls)."""
    book = Logbook(size)
    logging.getLogger().addHandler(book)
    return book
