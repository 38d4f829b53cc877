"""Who may change the table: the page's token (CSRF), the PIN on a LAN, a brake on guessing.

Why these three: the page is served without accounts. A per-process token embedded in the
page, sent back in a header, means only a page this server rendered can act (another site
cannot read the token, nor send a custom header without a CORS preflight we never answer).
On the LAN anyone can load the page, so every changing action also needs the PIN, and
wrong PINs are throttled per client address and across all of them, so four digits cannot
be tried through from one address nor from thousands.
"""

from __future__ import annotations

import hmac
import itertools
import secrets
import threading
import time
from collections import OrderedDict, deque
from typing import Any

TOKEN_HEADER = "X-Yamscope-Token"
PIN_HEADER = "X-Yamscope-Pin"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same(given: str | None, expected: str) -> bool:
    """Constant-time comparison (a header may be absent)."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class PinBrake:
    """Wrong PINs: at most ``tries`` per client address in ``window`` seconds, and at most
    ``table_tries`` from all addresses together in ``table_window`` seconds.

    Why both: one address is stopped at once, but a guest on the LAN or a user of this
    machine (all of 127.0.0.0/8 is theirs) has thousands of addresses. While the table's
    brake is on every PIN is refused, the right one too, or guesses would go through it.
    At most ``clients`` addresses are remembered, the one that failed longest ago forgotten
    first, so a flood of addresses costs bounded memory and resets nobody's brake.
    """

    def __init__(
        self,
        tries: int = 5,
        window: float = 60.0,
        table_tries: int = 20,
        table_window: float = 600.0,
        clients: int = 256,
    ) -> None:
        self.tries = tries
        self.window = window
        self.table_tries = table_tries
        self.table_window = table_window
        self.clients = clients
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._table: deque[float] = deque(maxlen=table_tries)
        self._lock = threading.Lock()

    def blocked(self, client: str) -> str | None:
        """Why ``client`` may not try a PIN now (None: it may). Remembers nothing new."""
        now = time.monotonic()
        with self._lock:
            if len(self._table) >= self.table_tries and now - self._table[0] <= self.table_window:
                wait = self.table_window - (now - self._table[0])
                return f"too many wrong PINs at this table: wait {_minutes(wait)}"
            failures = self._failures.get(client)
            if failures is not None and len(_recent(failures, now, self.window)) >= self.tries:
                return f"too many wrong PINs from this address: wait {_minutes(self.window)}"
        return None

    def failed(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._table.append(now)
            failures = self._failures.pop(client, None)
            if failures is None:
                failures = deque(maxlen=self.tries)
                while len(self._failures) >= self.clients:
                    self._failures.popitem(last=False)
            failures.append(now)
            self._failures[client] = failures  # last: the most recent failure

    def __len__(self) -> int:
        """How many addresses are remembered (bounded by ``clients``)."""
        return len(self._failures)

    def strength(self, pin: str) -> dict[str, Any]:
        """How long guessing a PIN of this length takes at this brake's pace (all addresses
        together), in hours on average: what the page says of the PIN."""
        guesses = 10 ** len(pin) / 2
        hours = guesses * self.table_window / self.table_tries / 3600
        return {"digits": len(pin), "hours": round(hours, 1), "common": common_pin(pin)}


def _recent(failures: deque[float], now: float, window: float) -> deque[float]:
    while failures and now - failures[0] > window:
        failures.popleft()
    return failures


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return "a minute" if minutes == 1 else f"{minutes} minutes"


def common_pin(pin: str) -> bool:
    """PINs tried first by anyone guessing: one digit repeated, a run up or down (1234,
    9876), two digits repeated (1212), or a year (19xx, 20xx)."""
    steps = {int(b) - int(a) for a, b in itertools.pairwise(pin)}
    if len(steps) == 1 and steps <= {-1, 0, 1}:
        return True
    if len(pin) % 2 == 0 and pin == pin[:2] * (len(pin) // 2):
        return True
    return len(pin) == 4 and pin[:2] in ("19", "20")
