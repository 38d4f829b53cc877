"""Who may change the table: the page's token (CSRF), the PIN on a LAN, a brake on guessing.

Why these three: the page is served without accounts. A per-process token embedded in the
page, sent back in a header, means only a page this server rendered can act (another site
cannot read the token, nor send a custom header without a CORS preflight we never answer).
On the LAN anyone can load the page, so every changing action also needs the PIN, and
wrong PINs are throttled per client address so four digits cannot be tried through.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque

TOKEN_HEADER = "X-Yamscope-Token"
PIN_HEADER = "X-Yamscope-Pin"
LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1", "[::1]"]


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same(given: str | None, expected: str) -> bool:
    """Constant-time comparison (a header may be absent)."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class PinBrake:
    """At most ``tries`` wrong PINs per client address in ``window`` seconds."""

    def __init__(self, tries: int = 5, window: float = 60.0, clients: int = 256) -> None:
        self.tries = tries
        self.window = window
        self.clients = clients
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        failures = self._failures.setdefault(client, deque())
        while failures and now - failures[0] > self.window:
            failures.popleft()
        return failures

    def blocked(self, client: str) -> bool:
        with self._lock:
            return len(self._recent(client, time.monotonic())) >= self.tries

    def failed(self, client: str) -> None:
        with self._lock:
            if len(self._failures) >= self.clients and client not in self._failures:
                self._failures.clear()  # bounded memory; a flood only resets the brake
            self._recent(client, time.monotonic()).append(time.monotonic())
