"""The pushed-state clients of the table (the page's Server-Sent Events): each one's mailbox
and who may have how many.

Why "newest wins": each listener holds one state at most, so a slow client never makes a
queue grow; why limits per address and for this machine's own screens: no number of phones
or scripts on the network may shut out the kiosk.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

MAX_LISTENERS = 32  # pushed-state clients from the network at once
LOOPBACK_LISTENERS = 8  # kept apart for this machine's own screens (the kiosk)
PER_CLIENT_LISTENERS = 4  # from one address (a phone with a few tabs open)


class TooManyListeners(RuntimeError):
    """More pushed-state clients than the appliance serves at once."""


class Listener:
    """One push client's mailbox: the newest state only (older unsent ones are dropped)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._state: dict[str, Any] | None = None
        self.dropped = 0
        self.closed = False  # replaced by a newer client from the same address

    def close(self) -> None:
        """End this client's stream: ``next`` returns None at once from now on."""
        self.closed = True
        self._ready.set()

    def offer(self, state: dict[str, Any]) -> None:
        with self._lock:
            if self._state is not None:
                self.dropped += 1
            self._state = state
            self._ready.set()

    def next(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The newest state not yet taken, or None after ``timeout`` seconds without one
        (or at once once closed)."""
        if not self._ready.wait(timeout) or self.closed:
            return None
        with self._lock:
            state, self._state = self._state, None
            self._ready.clear()
        return state


class Client(NamedTuple):
    """Where a listener listens from."""

    address: str
    loopback: bool


class Listeners:
    """Every listener of one table, with the address each listens from."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[Listener, Client] = {}

    def add(self, limit: int, client: str, loopback: bool) -> Listener:
        """A new listener; see ``TableSession.add_listener`` for the limits."""
        listener = Listener()
        with self._lock:
            mine = [other for other, c in self._clients.items() if c.address == client]
            if client and len(mine) >= PER_CLIENT_LISTENERS:
                mine[0].close()  # the oldest: dicts keep the order of arrival
                del self._clients[mine[0]]
            pool = sum(1 for c in self._clients.values() if c.loopback == loopback)
            cap = LOOPBACK_LISTENERS if loopback else limit
            if pool >= cap:
                raise TooManyListeners(f"at most {cap} clients follow the table at once")
            self._clients[listener] = Client(client, loopback)
        return listener

    def __len__(self) -> int:
        return len(self._clients)

    def values(self) -> list[Client]:
        """Where each listener listens from, oldest first."""
        with self._lock:
            return list(self._clients.values())

    def remove(self, listener: Listener) -> None:
        with self._lock:
            self._clients.pop(listener, None)

    def offer(self, state: dict[str, Any]) -> None:
        """Hand ``state`` to every listener (each keeps only the newest)."""
        with self._lock:
            listeners = list(self._clients)
        for listener in listeners:
            listener.offer(state)
