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

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from device.storage import schema
from device.storage.errors import StoreError, StoreUnavailable
from device.storage.postgres import PostgresEngine, is_url
from device.storage.results import PHYSICAL, confirmed_faces, result_rows
from device.storage.sqlite import SqliteEngine
from scoring.dice import parse_dice
from scoring.entries import RulesError
from scoring.game import Game

MIGRATIONS = schema.MIGRATIONS


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
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

    # -- games ----------------------------------------------------------------------------
    def create(self, game: Game) -> int:
        """Keep a new game (its log holds only its new_game event, and maybe an order)."""
        now = _now()
        with self._transaction() as db:
            game_id = db.insert(
                "INSERT INTO games (rules, players, created, updated, table_name)"
                " VALUES (?, ?, ?, ?, ?)",
                (game.rules, json.dumps(game.players), now, now, self.table),
            )
            for seq, event in enumerate(game.events):
                self._insert_event(game_id, seq, event, now)
        return game_id

    def append(
        self,
        game_id: int,
        game: Game,
        *,
        snapshot: bytes | None = None,
        crops: Sequence[tuple[int, bytes]] = (),
        source: str | None = None,
        reading: dict[str, Any] | None = None,
        client: str | None = None,
    ) -> None:
        """Keep the game's newest event, and the record it makes (throw, entry, correction).

        Call it after each action: the stored log must be one event behind ``game``.
        ``snapshot``: the photo a throw was read from, ``reading``: where on it each die
        was read; ``source``: where a throw came from (camera, manual, drawn, computer,
        simulated); ``crops``: (die, PNG) of corrected dice, kept as labelled data;
        ``client``: the address a correction came from.
        """
        now = _now()
        with self._transaction() as db:
            stored = db.execute(
                "SELECT COUNT(*) FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            if stored == 0:
                raise StoreError(f"no game {game_id}")
            if stored != len(game.events) - 1:
                raise StoreError(
                    f"game {game_id} has {stored} events kept, the game {len(game.events)}"
                )
            event = game.events[-1]
            self._insert_event(game_id, stored, event, now)
            extra = {"snapshot": snapshot, "crops": crops, "source": source,
                     "reading": reading, "client": client}  # fmt: skip
            self._insert_record(game_id, stored, event, game, now, extra)
            db.execute(
                "UPDATE games SET updated = ?, finished = ?, players = ? WHERE id = ?",
                (now, int(game.finished), json.dumps(game.players), game_id),
            )
        if snapshot is not None and self.photo_budget is not None:
            self.forget_photos(self.photo_budget)

    def _insert_event(self, game_id: int, seq: int, event: dict, at: str) -> None:
        self.engine.execute(
            "INSERT INTO events (game_id, seq, type, body, at) VALUES (?, ?, ?, ?, ?)",
            (game_id, seq, event["type"], json.dumps(event, ensure_ascii=False), at),
        )

    def _insert_record(
        self, game_id: int, seq: int, event: dict, game: Game, at: str, extra: dict[str, Any]
    ) -> None:
        db, kind = self.engine, event["type"]
        if kind == "throw":
            if game.throw_no > 1:  # the turn's previous throw, if a player corrected it
                self._confirm_corrected(game_id, game)
            reading = extra["reading"]
            db.execute(
                "INSERT INTO throws (game_id, seq, player, turn, throw, dice, at, snapshot,"
                " source, kept, reading) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, game.player, game.turn, game.throw_no, event["dice"], at,
                 extra["snapshot"], extra["source"], json.dumps(event.get("keep", [])),
                 json.dumps(reading) if reading is not None else None),
            )  # fmt: skip
        elif kind == "score":
            w = game.written[-1]
            db.execute(
                "INSERT INTO entries (game_id, seq, player, turn, box, points, bonus, why, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, w.player, w.turn, w.entry.box, w.entry.points, w.entry.bonus,
                 w.entry.why, at),
            )  # fmt: skip
            self._confirm_last(game_id, game, " ".join(str(d) for d in w.dice))
            if game.finished:
                self._insert_results(game_id, game, self._table_of(game_id), at)
        elif kind == "undo":
            db.execute(
                "UPDATE entries SET undone = 1 WHERE id = (SELECT MAX(id) FROM entries"
                " WHERE game_id = ? AND undone = 0)",
                (game_id,),
            )
            db.execute("DELETE FROM results WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM result_marks WHERE game_id = ?", (game_id,))
        elif kind == "uncorrect":  # a correction taken back: its crops were labelled wrong
            db.execute(
                "DELETE FROM crops WHERE correction_id IN"
                " (SELECT id FROM corrections WHERE game_id = ? AND seq = ?)",
                (game_id, int(event["of"])),
            )
        elif kind == "correct":
            self._insert_correction(game_id, seq, event, game, at, extra)

    def _insert_correction(
        self, game_id: int, seq: int, event: dict, game: Game, at: str, extra: dict[str, Any]
    ) -> None:
        db = self.engine
        # the dice on the table before it: the effective log's, never an undone throw's
        shown = [e for e in game.effective[:-1] if e["type"] in ("throw", "correct")]
        before = shown[-1]["dice"] if shown else ""
        correction_id = db.insert(
            "INSERT INTO corrections (game_id, seq, before, after, at, client)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, seq, before, event["dice"], at, extra["client"]),
        )
        labels = event["dice"].split()
        for die, image in extra["crops"]:
            db.execute(
                "INSERT INTO crops (correction_id, die, label, image) VALUES (?, ?, ?, ?)",
                (correction_id, die, labels[die], image),
            )

    def _table_of(self, game_id: int) -> str:
        row = self.engine.execute("SELECT table_name FROM games WHERE id = ?", (game_id,))
        found = row.fetchone()
        return found[0] if found else self.table

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

    # -- the faces of the dice players confirmed (dice fairness) ----------------------------
    def _confirm_last(self, game_id: int, game: Game, dice: str) -> None:
        """The throw an entry was written from: its dice, as written, are confirmed (once:
        an entry taken back and written again confirms nothing more)."""
        row = self.engine.execute(
            "SELECT id, kept, source, confirmed FROM throws WHERE game_id = ?"
            " ORDER BY seq DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        if row is not None and not row[3]:
            self._confirm(game_id, game, row, dice)

    def _confirm_corrected(self, game_id: int, game: Game) -> None:
        """The turn's previous throw, when a player corrected it before throwing again:
        its dice as corrected are confirmed."""
        row = self.engine.execute(
            "SELECT id, kept, source, confirmed, seq FROM throws WHERE game_id = ?"
            " ORDER BY seq DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        if row is None or row[3]:
            return
        corrected = self.engine.execute(
            "SELECT after FROM corrections WHERE game_id = ? AND seq > ? ORDER BY seq DESC LIMIT 1",
            (game_id, row[4]),
        ).fetchone()
        if corrected is not None:
            self._confirm(game_id, game, row, corrected[0])

    def _confirm(self, game_id: int, game: Game, row: tuple, dice: str) -> None:
        throw_id, kept, source = row[0], row[1], row[2]
        self.engine.execute("UPDATE throws SET confirmed = 1 WHERE id = ?", (throw_id,))
        if source not in PHYSICAL:
            return
        table = self._table_of(game_id)
        for place, look, value in confirmed_faces(parse_dice(dice), json.loads(kept or "[]")):
            self.engine.execute(
                "INSERT INTO face_counts (table_name, kind, place, look, value, n)"
                " VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (table_name, kind, place, look, value)"
                " DO UPDATE SET n = face_counts.n + 1",
                (table, game.rulebook.kind, place, look, value),
            )

    # -- reading ------------------------------------------------------------------------
    def events(self, game_id: int) -> list[dict[str, Any]]:
        rows = self._all("SELECT body FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        if not rows:
            raise StoreError(f"no game {game_id}")
        return [json.loads(body) for (body,) in rows]

    def load(self, game_id: int) -> Game:
        """The game as it was after its last kept event."""
        try:
            return Game.replay(self.events(game_id))
        except RulesError as exc:
            raise StoreError(f"game {game_id} cannot be replayed: {exc}") from None

    def latest_game(self) -> int | None:
        """The game this table played most recently, finished or not: the one the page
        showed last, to show again after a restart (an older game left unfinished stays
        abandoned). Games kept before tables had names count as this table's."""
        row = self._one(
            "SELECT id FROM games WHERE table_name = ? OR table_name = ''"
            " ORDER BY updated DESC, id DESC LIMIT 1",
            (self.table,),
        )
        return row[0] if row else None

    GAME_KEYS = ("id", "rules", "players", "created", "updated", "finished", "table")

    def games(self, table: str | None = None) -> list[dict[str, Any]]:
        """Every game kept (``table``: of that table only), oldest first."""
        where, args = ("WHERE table_name = ?", (table,)) if table is not None else ("", ())
        rows = self._all(
            "SELECT id, rules, players, created, updated, finished, table_name FROM games"
            f" {where} ORDER BY id",
            args,
        )
        return [self._game_row(row) for row in rows]

    def recent_games(
        self, table: str | None, offset: int, limit: int
    ) -> tuple[int, list[dict[str, Any]]]:
        """How many games are kept, and one page of them, newest first."""
        where, args = ("WHERE table_name = ?", (table,)) if table is not None else ("", ())
        total = self._one(f"SELECT COUNT(*) FROM games {where}", args)
        rows = self._all(
            "SELECT id, rules, players, created, updated, finished, table_name FROM games"
            f" {where} ORDER BY id DESC LIMIT ? OFFSET ?",
            (*args, limit, offset),
        )
        return (total[0] if total else 0), [self._game_row(row) for row in rows]

    def results_of(self, game_ids: Sequence[int]) -> list[tuple]:
        """The result rows (RESULT_KEYS) of these games."""
        if not game_ids:
            return []
        marks = ", ".join("?" * len(game_ids))
        return self._all(
            "SELECT game_id, seat, player, rules, table_name, finished_at, total, won,"
            f" harmonies, feats FROM results WHERE game_id IN ({marks}) ORDER BY game_id, seat",
            tuple(game_ids),
        )

    def game(self, game_id: int) -> dict[str, Any] | None:
        row = self._one(
            "SELECT id, rules, players, created, updated, finished, table_name FROM games"
            " WHERE id = ?",
            (game_id,),
        )
        return self._game_row(row) if row else None

    def _game_row(self, row: tuple) -> dict[str, Any]:
        game = dict(zip(self.GAME_KEYS, row, strict=True))
        game["players"] = json.loads(game["players"])
        game["finished"] = bool(game["finished"])
        return game

    def tables(self) -> list[str]:
        """The names of the tables that kept games here (several in a club)."""
        return [r[0] for r in self._all("SELECT DISTINCT table_name FROM games ORDER BY 1")]

    THROW_KEYS = ("id", "seq", "player", "turn", "throw", "dice", "at", "has_snapshot",
                  "source", "kept", "reading", "confirmed")  # fmt: skip

    def throws(self, game_id: int) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT id, seq, player, turn, throw, dice, at, snapshot IS NOT NULL, source, kept,"
            " reading, confirmed FROM throws WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        out = []
        for row in rows:
            throw = dict(zip(self.THROW_KEYS, row, strict=True))
            throw["has_snapshot"] = bool(throw["has_snapshot"])
            throw["kept"] = json.loads(throw["kept"]) if throw["kept"] else []
            throw["reading"] = json.loads(throw["reading"]) if throw["reading"] else None
            throw["confirmed"] = bool(throw["confirmed"])
            out.append(throw)
        return out

    def snapshot(self, throw_id: int) -> bytes | None:
        row = self._one("SELECT snapshot FROM throws WHERE id = ?", (throw_id,))
        return bytes(row[0]) if row and row[0] is not None else None

    def entries(self, game_id: int) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT seq, player, turn, box, points, bonus, why, at, undone FROM entries"
            " WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        keys = ("seq", "player", "turn", "box", "points", "bonus", "why", "at", "undone")
        return [dict(zip(keys, row, strict=True)) | {"undone": bool(row[-1])} for row in rows]

    def corrections(self, game_id: int | None = None) -> list[dict[str, Any]]:
        """Corrections with their crops: (die, label, PNG bytes) for fine-tuning."""
        where, args = ("WHERE game_id = ?", (game_id,)) if game_id is not None else ("", ())
        rows = self._all(
            "SELECT id, game_id, seq, before, after, at, client FROM corrections"
            f" {where} ORDER BY id",
            args,
        )
        out = []
        for cid, gid, seq, before, after, at, client in rows:
            crops = self._all(
                "SELECT die, label, image FROM crops WHERE correction_id = ? ORDER BY die", (cid,)
            )
            out.append(
                {"id": cid, "game_id": gid, "seq": seq, "before": before, "after": after,
                 "at": at, "client": client,
                 "crops": [(die, label, bytes(image)) for die, label, image in crops]}
            )  # fmt: skip
        return out

    RESULT_KEYS = ("game_id", "seat", "player", "rules", "table", "finished_at", "total", "won",
                   "harmonies", "feats")  # fmt: skip

    def results(self, table: str | None = None) -> list[tuple]:
        """One row per player of every finished game, oldest game first, as RESULT_KEYS
        (feats as the space-separated text they are kept in)."""
        where, args = ("WHERE table_name = ?", (table,)) if table is not None else ("", ())
        return self._all(
            "SELECT game_id, seat, player, rules, table_name, finished_at, total, won,"
            f" harmonies, feats FROM results {where} ORDER BY game_id, seat",
            args,
        )

    def marks(
        self, rules: str, names: Sequence[str], table: str | None = None
    ) -> list[tuple[str, int, int, int]]:
        """The best of each of these marks (brag box, section total, harmonies) in
        ``rules``, and who reached it first: (mark, points, game_id, seat). Two index
        look-ups a mark, however many games are kept."""
        args: tuple = (table, rules) if table is not None else (rules,)
        where = f"WHERE {'table_name = ? AND ' if table is not None else ''}rules = ? AND mark = ?"
        out = []
        for mark in names:
            best = self._one(f"SELECT MAX(points) FROM result_marks {where}", (*args, mark))
            if best is None or best[0] is None:
                continue
            first = self._one(
                f"SELECT MIN(game_id) FROM result_marks {where} AND points = ?",
                (*args, mark, best[0]),
            )
            seat = self._one(
                f"SELECT MIN(seat) FROM result_marks {where} AND points = ? AND game_id = ?",
                (*args, mark, best[0], first[0]),
            ) if first else None  # fmt: skip
            if first is not None and seat is not None:
                out.append((mark, int(best[0]), int(first[0]), int(seat[0])))
        return out

    def revision(self) -> tuple:
        """Changes whenever a result is added or taken back: what cached records key on."""
        row = self._one("SELECT COUNT(*), COALESCE(MAX(game_id), 0) FROM results")
        games = self._one("SELECT COALESCE(MAX(id), 0) FROM games")
        return (row or (0, 0)) + (games or (0,))

    def face_counts(self, table: str | None = None) -> list[tuple[str, str, int, str, int, int]]:
        """(table, kind, place, look, value, count) of every confirmed die thrown."""
        where, args = ("WHERE table_name = ?", (table,)) if table is not None else ("", ())
        return self._all(
            f"SELECT table_name, kind, place, look, value, n FROM face_counts {where}"
            " ORDER BY table_name, kind, place, look, value",
            args,
        )

    # -- photos ---------------------------------------------------------------------------
    def photo_bytes(self) -> int:
        """What the throws' photos take now."""
        row = self._one("SELECT COALESCE(SUM(LENGTH(snapshot)), 0) FROM throws")
        return int(row[0]) if row else 0

    def forget_photos(self, budget: int) -> int:
        """Keep the newest throw photos that fit in ``budget`` bytes (the newest always) and
        forget the older ones' pictures; the throws, entries, records and crops themselves
        are never deleted. Returns how many photos were forgotten."""
        rows = self._all(
            "SELECT id, LENGTH(snapshot) FROM throws WHERE snapshot IS NOT NULL ORDER BY id DESC"
        )
        kept, old = 0, []
        for index, (throw_id, size) in enumerate(rows):
            kept += int(size)
            if kept > budget and index:
                old.append(throw_id)
        with self._transaction() as db:
            for start in range(0, len(old), 500):
                chunk = old[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                db.execute(f"UPDATE throws SET snapshot = NULL WHERE id IN ({marks})", chunk)
        return len(old)
