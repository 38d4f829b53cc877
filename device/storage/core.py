"""The records' connection: one engine (SQLite or PostgreSQL), its lock, its transactions
and the schema's migrations, which the writing and the reading halves of ``Store`` share."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from device.storage import schema
from device.storage.errors import StoreError, StoreUnavailable
from device.storage.postgres import PostgresEngine, is_url
from device.storage.results import result_rows
from device.storage.sqlite import SqliteEngine
from scoring.entries import RulesError
from scoring.game import Game

MIGRATIONS = schema.MIGRATIONS


class StoreCore:
    """The records of one table (``table``: its name in a club). Open it once per process;
    every method is one transaction.

    ``target`` is an SQLite file's path or a ``postgresql://`` URL. The web server's
    threads share the one connection, so a lock keeps each method's statements together:
    without it, one thread's COMMIT would end another's transaction.
    """

    def __init__(
        self,
        target: str | Path,
        *,
        check: bool = False,
        table: str = "",
        photo_budget: int | None = None,
    ) -> None:
        """``check``: run SQLite's integrity check first (StoreDamaged), as serving does;
        ``photo_budget``: bytes the throws' photos may take together (None: no limit); past
        it the oldest photos go, never a throw, an entry or a correction."""
        self.table = table
        self.photo_budget = photo_budget
        self._lock = threading.RLock()
        self.engine: SqliteEngine | PostgresEngine
        if is_url(target):
            self.engine = PostgresEngine(str(target))
        else:
            self.engine = SqliteEngine(target)
        self.path = Path(target) if isinstance(self.engine, SqliteEngine) else None
        self.where = self.engine.where
        self.reachable: str | None = None  # why the database cannot be reached, if so
        try:
            # before any setting that writes: a refused file stays as it was
            self._check_version()
            if check and isinstance(self.engine, SqliteEngine):
                self.engine.check_integrity()
            self.engine.setup()
            self._migrate()
        except self.engine.errors as exc:
            self.engine.close()
            raise self.engine.error(exc) from None
        except BaseException:
            self.engine.close()
            raise

    @property
    def _db(self) -> Any:
        """The SQLite connection (tests that fill the disk reach it)."""
        assert isinstance(self.engine, SqliteEngine)
        return self.engine.db

    @property
    def kind(self) -> str:
        return self.engine.name

    def close(self) -> None:
        with self._lock:
            self.engine.close()

    @property
    def version(self) -> int:
        with self._lock:
            return self.engine.version()

    def _check_version(self) -> None:
        version = self.engine.version()
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{self.where} was written by a newer yamscope (schema {version}, "
                f"this one knows {len(MIGRATIONS)})"
            )
        if self.engine.foreign():
            raise StoreError(f"{self.where} holds another program's tables, not records")

    def backup(self, to: Path) -> None:
        """A consistent copy of an SQLite file (a club's server is backed up by its owner)."""
        if not isinstance(self.engine, SqliteEngine):
            raise StoreError("a PostgreSQL database is backed up with pg_dump, not by yamscope")
        with self._lock:
            self.engine.backup(to)

    def restore(self, source: Path) -> None:
        """These records replaced by a checked copy (the owner's restore, device/backup.py)."""
        if not isinstance(self.engine, SqliteEngine):
            raise StoreError("a PostgreSQL database is restored with pg_restore, not by yamscope")
        with self._lock:
            self.engine.restore(source)

    def _migrate(self) -> None:
        """Each missing version in one transaction: the statements, then what the new
        tables must hold for the games already kept (their results)."""
        if self.engine.version() >= len(MIGRATIONS):
            return
        with self.engine.schema_lock():
            while True:
                with self._transaction():
                    number = self.engine.version()  # another process may have migrated
                    if number >= len(MIGRATIONS):
                        break
                    for statement in schema.statements(number, self.engine.name):
                        self.engine.execute(statement)
                    if number + 1 == 2:
                        self._fill_results()
                    self.engine.set_version(number + 1)

    def _fill_results(self) -> None:
        """Results of the games finished before results were kept (migration 2)."""
        rows = self.engine.execute("SELECT id, updated FROM games WHERE finished = 1").fetchall()
        for game_id, updated in rows:
            events = self.engine.execute(
                "SELECT body FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
            try:
                game = Game.replay([json.loads(body) for (body,) in events])
            except RulesError:
                continue  # a game that cannot be replayed has no result to show
            self._insert_results(game_id, game, "", updated)

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        """One write, all or nothing; the engine's errors come out as StoreError
        (StoreFull for a full disk, StoreUnavailable for a server gone), so the page can
        say what happened."""
        with self._lock:
            engine = self.engine
            try:
                began = not engine.in_transaction
                if began:
                    engine.begin()
                yield engine
                if began:
                    engine.commit()
            except BaseException as exc:
                # a connection that is gone: the server drops what was not committed
                with suppress(*engine.errors):
                    engine.rollback()
                if isinstance(exc, engine.errors):
                    raise self._failed(exc) from None
                if isinstance(exc, StoreUnavailable):  # no connection could be made
                    self.reachable = str(exc)
                raise
            self.reachable = None

    def _failed(self, exc: BaseException) -> StoreError:
        error = self.engine.error(exc)
        if isinstance(error, StoreUnavailable):
            self.reachable = str(error)
        return error

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        """A read, under the lock: never in the middle of another thread's transaction."""
        with self._lock:
            try:
                rows = self.engine.execute(sql, args).fetchall()
            except self.engine.errors as exc:
                raise self._failed(exc) from None
            except StoreUnavailable as exc:
                self.reachable = str(exc)
                raise
            self.reachable = None
            return rows  # tuples, from either driver

    def _one(self, sql: str, args: Sequence[Any] = ()) -> tuple | None:
        rows = self._all(sql, args)
        return rows[0] if rows else None

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        """Rows of a query of the records' own tables (``?`` placeholders, both engines):
        for the export and the audit, which read across several tables."""
        return self._all(sql, args)

    def ping(self) -> str | None:
        """None when the records can be written now, else why not (one line)."""
        with self._lock:
            try:
                self.engine.ping()
            except StoreError as exc:
                self.reachable = str(exc)
            else:
                self.reachable = None
            return self.reachable

    def _insert_results(self, game_id: int, game: Game, table: str, at: str) -> None:
        db = self.engine
        db.execute("DELETE FROM results WHERE game_id = ?", (game_id,))
        db.execute("DELETE FROM result_marks WHERE game_id = ?", (game_id,))
        for row in result_rows(game):
            db.execute(
                "INSERT INTO results (game_id, seat, player, rules, table_name, finished_at,"
                " total, won, harmonies, feats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, row["seat"], row["player"], game.rules, table, at, row["total"],
                 int(row["won"]), row["harmonies"], " ".join(row["feats"])),
            )  # fmt: skip
            for mark, points in row["marks"].items():
                db.execute(
                    "INSERT INTO result_marks (game_id, seat, rules, table_name, mark, points)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, row["seat"], game.rules, table, mark, points),
                )
