"""The records in one SQLite file: the default, one table's appliance.

Why these settings: every action is its own transaction with the journal in WAL mode and
``synchronous=FULL``, so once a write returns a power cut cannot take it back. The file is
refused before SQLite touches it when it is not a records file (a folder, a FIFO, another
program's database, a newer yamscope's), so a mistaken path never changes anything.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from device.storage.errors import StoreDamaged, StoreError, StoreFull


def _code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of an error (SQLITE_FULL, SQLITE_CORRUPT, ...)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def sqlite_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """A failed write said in the owner's words: a full disk is told apart, for the page."""
    code = _code(exc)
    if code == sqlite3.SQLITE_FULL:
        return StoreFull(f"the disk is full ({path}): free some space and play on")
    if code == sqlite3.SQLITE_READONLY:
        return StoreError(f"{path} is read-only: make it writable (chmod u+w) or copy it")
    if code == sqlite3.SQLITE_CANTOPEN:
        return StoreError(f"{path} cannot be opened (can its folder be written?): {exc}")
    if code == sqlite3.SQLITE_CORRUPT:
        return StoreDamaged(f"{path} is damaged: {exc}")
    if code == sqlite3.SQLITE_NOTADB:
        return StoreError(f"{path} is not a yamscope records file: {exc}")
    return StoreError(f"{path}: {exc}")


def _openable(path: Path) -> None:
    """StoreError before SQLite sees a path it would misread: a folder, a device or FIFO,
    or a file marked read-only (root may write one; the owner did not mean it to be)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{path} cannot be opened: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{path} is a folder, not a records file")
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{path} is not a regular file")
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise StoreError(f"{path} is read-only: make it writable (chmod u+w) or copy it")


class SqliteEngine:
    """One SQLite connection shared by the server's threads (the Store holds the lock)."""

    name = "sqlite"
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        _openable(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path.parent} cannot be made: {exc.strerror or exc}") from None
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path} cannot be opened: {exc}") from None

    def error(self, exc: BaseException) -> StoreError:
        if isinstance(exc, sqlite3.Error):
            return sqlite_error(self.path, exc)
        return StoreError(str(exc))

    def setup(self) -> None:
        """The settings that make each write durable (after the version was checked: a
        refused file is left exactly as it was, not even switched to WAL)."""
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")

    def close(self) -> None:
        self.db.close()

    # -- statements ---------------------------------------------------------------------
    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.db.execute(sql, args)

    def insert(self, sql: str, args: Sequence[Any] = ()) -> int:
        return int(self.db.execute(sql, args).lastrowid or 0)

    def begin(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.db.execute("COMMIT")

    def rollback(self) -> None:
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        return self.db.in_transaction

    def ping(self) -> None:
        """A local file is always there (a full disk shows on the next write)."""

    # -- the schema's version -------------------------------------------------------------
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def set_version(self, number: int) -> None:
        self.db.execute(f"PRAGMA user_version = {int(number)}")

    @contextmanager
    def schema_lock(self) -> Iterator[None]:
        """BEGIN IMMEDIATE already keeps other writers out while a migration runs."""
        yield

    def foreign(self) -> bool:
        """True for an SQLite file of another program (tables, but no version of ours)."""
        return self.version() == 0 and bool(
            self.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
        )

    # -- SQLite's own -----------------------------------------------------------------------
    def check_integrity(self) -> None:
        """SQLite's own check of every page; StoreDamaged with its first finding."""
        rows = self.db.execute("PRAGMA integrity_check(3)").fetchall()
        found = [" ".join(str(row[0]).split()) for row in rows]
        if found != ["ok"]:
            said = "; ".join(found).removeprefix("*** in database main *** ")
            raise StoreDamaged(f"{self.path} is damaged (SQLite's integrity check: {said[:120]})")

    def backup(self, to: Path) -> None:
        """A consistent copy in ``to`` (SQLite's backup API), written beside it first and
        then put in place: a crash midway leaves the previous copy whole."""
        part = to.with_name(to.name + ".part")
        part.unlink(missing_ok=True)
        copy = sqlite3.connect(part)
        try:
            self.db.backup(copy)
        except sqlite3.Error as exc:
            copy.close()
            part.unlink(missing_ok=True)
            raise sqlite_error(to, exc) from None
        copy.close()
        os.replace(part, to)

    def restore(self, source: Path) -> None:
        """Every page of the checked file ``source`` copied over these records, in one step
        of SQLite's backup API (a reader sees the old records or the new, never a mix)."""
        copy = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            copy.backup(self.db)
        except sqlite3.Error as exc:
            raise sqlite_error(self.path, exc) from None
        finally:
            copy.close()
