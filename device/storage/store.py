"""The table's records: every game's events, throws, entries, corrections, in SQLite or in
a club's PostgreSQL database.

Why this shape: a game *is* its event log (``scoring.game``), so the log is what must never
be lost. Each action is written in its own transaction, durable before ``append`` returns
(SQLite's WAL with ``synchronous=FULL``; PostgreSQL's synchronous commit), and on restart
the game is rebuilt by replaying its events. The other tables are what players, the audit,
the records and the model's fine-tuning read, written in the same transaction as the
event they come from: throws (with their photo, the reading and where they came from),
entries, corrections (with the dice crops), one result row per player of a finished game,
and the faces of the dice the players confirmed.
"""

from __future__ import annotations

from device.storage.core import MIGRATIONS
from device.storage.queries import StoreQueries
from device.storage.writes import StoreWrites

__all__ = ["MIGRATIONS", "Store"]


class Store(StoreWrites, StoreQueries):
    """The records of one table: ``StoreCore``'s connection and migrations, the writes
    each action makes (``StoreWrites``) and the reads (``StoreQueries``)."""
