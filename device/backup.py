"""Backup and restore of the table's records from the owner's page.

Why checked before anything is replaced: a restore is the one action that can lose every
game at once. The uploaded file is written beside the records (same disk: no surprise of
space later), then must be an SQLite file, pass SQLite's integrity check, hold yamscope's
records (not another program's tables, not an empty file) of a schema this yamscope knows
(an older one is brought up to date, as at start); only then are the records replaced, in
one step, after a copy of them is kept as ``yamscope.db.before-restore``. A club's
PostgreSQL database is its owner's to back up (pg_dump), so both refuse it with that hint.
"""

from __future__ import annotations

import contextlib
import secrets
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from device.storage import Store, StoreError

SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_RESTORE = 4 * 2**30  # bytes: far more than the photo budget's default (500 MB)
CHUNK = 1 << 20
PG_DUMP = (
    "these records are a PostgreSQL database: back it up with pg_dump and restore it with "
    "pg_restore on the server (docs/records.md)"
)


class BadRestore(ValueError):
    """The uploaded file cannot replace the records; nothing was changed."""


def _records(store: Store) -> Path:
    if store.path is None:
        raise StoreError(PG_DUMP)
    return store.path


def backup_file(store: Store) -> Path:
    """A consistent copy of the records (SQLite's backup API) in a new file beside them;
    the caller sends it and removes it."""
    records = _records(store)
    copy = records.with_name(f".backup-{secrets.token_hex(6)}.db")
    store.backup(copy)  # written beside it first, then put in place
    return copy


def receive(chunks: Iterable[bytes], folder: Path, limit: int = MAX_RESTORE) -> Path:
    """The uploaded bytes in a new file in ``folder``; BadRestore past ``limit`` bytes or
    when the disk is full (the partial file is removed)."""
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (kept past the block)
        prefix=".restore-", suffix=".db", dir=folder, delete=False
    )
    path = Path(handle.name)
    size = 0
    try:
        with handle:
            for chunk in chunks:
                size += len(chunk)
                if size > limit:
                    raise BadRestore(f"the file is larger than {limit // 2**20} MB")
                handle.write(chunk)
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise BadRestore(f"the file could not be received: {exc.strerror or exc}") from None
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    if size == 0:
        path.unlink(missing_ok=True)
        raise BadRestore("the file is empty")
    return path


def check(path: Path) -> dict[str, Any]:
    """What the file holds (games, schema version), after every check a restore needs;
    BadRestore with one line otherwise. The file is brought up to this yamscope's schema."""
    with path.open("rb") as head:
        if head.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise BadRestore("not an SQLite file (a backup made by yamscope is one)")
    try:
        probe = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            version = int(probe.execute("PRAGMA user_version").fetchone()[0])
        finally:
            probe.close()
    except sqlite3.Error as exc:
        raise BadRestore(f"not a readable SQLite file: {exc}") from None
    if version == 0:
        raise BadRestore("not yamscope's records: an empty SQLite file or another program's")
    try:
        store = Store(path, check=True)
    except StoreError as exc:
        raise BadRestore(str(exc).replace(str(path), "the file")) from None
    try:
        games = len(store.games())
        version = store.version
    finally:
        store.close()
    _drop_sidecars(path)
    return {"games": games, "schema": version}


def restore(store: Store, path: Path) -> dict[str, Any]:
    """Replace the records by the checked file ``path`` (removed after), keeping the
    records as they were in ``yamscope.db.before-restore`` first; returns what the file
    held and where the old records went."""
    records = _records(store)
    held = check(path)
    kept = records.with_name(records.name + ".before-restore")
    store.backup(kept)
    try:
        store.restore(path)
    finally:
        path.unlink(missing_ok=True)
    return held | {"previous": str(kept)}


def _drop_sidecars(path: Path) -> None:
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(OSError):
            path.with_name(path.name + suffix).unlink()
