"""The table's records in one SQLite file: every game's events, throws, entries, corrections.

Why this shape: a game *is* its event log (``scoring.game``), so the log is what must never
be lost. Each action is written in its own transaction with the journal in WAL mode and
``synchronous=FULL``: once ``append`` returns, a power cut cannot take the action back, and
on restart the game is rebuilt by replaying its events. The other tables (throws with their
snapshot, entries, corrections with the dice crops) are the records players and the model's
fine-tuning read; they are written in the same transaction as the event they come from.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scoring.entries import RulesError
from scoring.game import Game

# Each migration brings the file from version i to i + 1 (PRAGMA user_version).
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        rules TEXT NOT NULL,
        players TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        finished INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE TABLE throws (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        player TEXT NOT NULL,
        turn INTEGER NOT NULL,
        throw INTEGER NOT NULL,
        dice TEXT NOT NULL,
        at TEXT NOT NULL,
        snapshot BLOB
    );
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        player TEXT NOT NULL,
        turn INTEGER NOT NULL,
        box TEXT NOT NULL,
        points INTEGER NOT NULL,
        bonus INTEGER NOT NULL,
        why TEXT NOT NULL,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE corrections (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        before TEXT NOT NULL,
        after TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE TABLE crops (
        correction_id INTEGER NOT NULL REFERENCES corrections(id),
        die INTEGER NOT NULL,
        label TEXT NOT NULL,
        image BLOB NOT NULL,
        PRIMARY KEY (correction_id, die)
    );
    CREATE INDEX throws_by_game ON throws (game_id, seq);
    CREATE INDEX entries_by_game ON entries (game_id, seq);
    """,
)


class StoreError(RuntimeError):
    """The records file cannot be used as asked (newer version, corrupt, out of step)."""


class StoreFull(StoreError):
    """The disk (or the file's allowed size) is full: nothing was written, play can go on
    once space is freed."""


class StoreDamaged(StoreError):
    """SQLite's integrity check found the file damaged."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of an error (SQLITE_FULL, SQLITE_CORRUPT, ...)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _written(path: Path, exc: sqlite3.Error) -> StoreError:
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


class Store:
    """One SQLite file. Open it once per process; every method is one transaction.

    The web server's threads share the one connection, so a lock keeps each method's
    statements together: without it, one thread's COMMIT would end another's transaction.
    """

    def __init__(
        self, path: str | Path, *, check: bool = False, photo_budget: int | None = None
    ) -> None:
        """``check``: run SQLite's integrity check first (StoreDamaged), as serving does;
        ``photo_budget``: bytes the throws' photos may take together (None: no limit); past
        it the oldest photos go, never a throw, an entry or a correction."""
        self.path = Path(path)
        self.photo_budget = photo_budget
        _openable(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path.parent} cannot be made: {exc.strerror or exc}") from None
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path} cannot be opened: {exc}") from None
        try:
            # before any PRAGMA that writes: a refused file stays as it was
            self._check_version()
            if check:
                self._check_integrity()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.Error as exc:
            self._db.close()
            raise _written(self.path, exc) from None
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    @property
    def version(self) -> int:
        row = self._one("PRAGMA user_version")
        return row[0] if row else 0

    def _check_version(self) -> None:
        version = self.version
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{self.path} was written by a newer yamscope (schema {version}, "
                f"this one knows {len(MIGRATIONS)})"
            )
        if version == 0 and self._one("SELECT COUNT(*) FROM sqlite_master")[0]:  # type: ignore[index]
            raise StoreError(f"{self.path} is an SQLite file of another program, not records")

    def _check_integrity(self) -> None:
        """SQLite's own check of every page; StoreDamaged with its first finding."""
        found = [" ".join(str(row[0]).split()) for row in self._all("PRAGMA integrity_check(3)")]
        if found != ["ok"]:
            said = "; ".join(found).removeprefix("*** in database main *** ")
            raise StoreDamaged(f"{self.path} is damaged (SQLite's integrity check: {said[:120]})")

    def backup(self, to: Path) -> None:
        """A consistent copy of the records in ``to`` (SQLite's backup API), written beside
        it first and then put in place: a crash midway leaves the previous copy whole."""
        part = to.with_name(to.name + ".part")
        part.unlink(missing_ok=True)
        copy = sqlite3.connect(part)
        try:
            with self._lock:
                self._db.backup(copy)
        except sqlite3.Error as exc:
            copy.close()
            part.unlink(missing_ok=True)
            raise _written(to, exc) from None
        copy.close()
        os.replace(part, to)

    def _migrate(self) -> None:
        version = self.version
        for number in range(version, len(MIGRATIONS)):
            script = f"BEGIN IMMEDIATE;{MIGRATIONS[number]};PRAGMA user_version = {number + 1};"
            try:
                self._db.executescript(script + "COMMIT;")
            except sqlite3.Error:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write, all or nothing; SQLite's errors come out as StoreError (StoreFull for
        a full disk), so the page can say what happened."""
        with self._lock:
            try:
                if not self._db.in_transaction:
                    self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
            except BaseException as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _written(self.path, exc) from None
                raise

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        """A read, under the lock: never in the middle of another thread's transaction."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def _one(self, sql: str, args: Sequence[Any] = ()) -> tuple | None:
        with self._lock:
            return self._db.execute(sql, args).fetchone()

    # -- games ----------------------------------------------------------------------------
    def create(self, game: Game) -> int:
        """Keep a new game (its log holds only its new_game event, and maybe an order)."""
        now = _now()
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO games (rules, players, created, updated) VALUES (?, ?, ?, ?)",
                (game.rules, json.dumps(game.players), now, now),
            )
            game_id = int(cur.lastrowid or 0)
            for seq, event in enumerate(game.events):
                self._insert_event(db, game_id, seq, event, now)
        return game_id

    def append(
        self,
        game_id: int,
        game: Game,
        *,
        snapshot: bytes | None = None,
        crops: Sequence[tuple[int, bytes]] = (),
    ) -> None:
        """Keep the game's newest event, and the record it makes (throw, entry, correction).

        Call it after each action: the stored log must be one event behind ``game``.
        ``snapshot``: the photo a throw was read from; ``crops``: (die, PNG) of corrected
        dice, kept as labelled data.
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
            self._insert_event(db, game_id, stored, event, now)
            self._insert_record(db, game_id, stored, event, game, now, snapshot, crops)
            if snapshot is not None and event["type"] == "throw":
                self._trim_photos(db)
            db.execute(
                "UPDATE games SET updated = ?, finished = ?, players = ? WHERE id = ?",
                (now, int(game.finished), json.dumps(game.players), game_id),
            )

    @staticmethod
    def _insert_event(db: sqlite3.Connection, game_id: int, seq: int, event: dict, at: str):
        db.execute(
            "INSERT INTO events (game_id, seq, type, body, at) VALUES (?, ?, ?, ?, ?)",
            (game_id, seq, event["type"], json.dumps(event, ensure_ascii=False), at),
        )

    @staticmethod
    def _insert_record(db, game_id, seq, event, game: Game, at, snapshot, crops) -> None:
        kind = event["type"]
        if kind == "throw":
            db.execute(
                "INSERT INTO throws (game_id, seq, player, turn, throw, dice, at, snapshot)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, game.player, game.turn, game.throw_no, event["dice"], at, snapshot),
            )
        elif kind == "score":
            w = game.written[-1]
            db.execute(
                "INSERT INTO entries (game_id, seq, player, turn, box, points, bonus, why, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, w.player, w.turn, w.entry.box, w.entry.points, w.entry.bonus,
                 w.entry.why, at),
            )  # fmt: skip
        elif kind == "undo":
            db.execute(
                "UPDATE entries SET undone = 1 WHERE id = (SELECT MAX(id) FROM entries"
                " WHERE game_id = ? AND undone = 0)",
                (game_id,),
            )
        elif kind == "uncorrect":  # a correction taken back: its crops were labelled wrong
            db.execute(
                "DELETE FROM crops WHERE correction_id IN"
                " (SELECT id FROM corrections WHERE game_id = ? AND seq = ?)",
                (game_id, int(event["of"])),
            )
        elif kind == "correct":
            # the dice on the table before it: the effective log's, never an undone throw's
            shown = [e for e in game.effective[:-1] if e["type"] in ("throw", "correct")]
            before = shown[-1]["dice"] if shown else ""
            cur = db.execute(
                "INSERT INTO corrections (game_id, seq, before, after, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, before, event["dice"], at),
            )
            labels = event["dice"].split()
            for die, image in crops:
                db.execute(
                    "INSERT INTO crops (correction_id, die, label, image) VALUES (?, ?, ?, ?)",
                    (cur.lastrowid, die, labels[die], image),
                )

    def _trim_photos(self, db: sqlite3.Connection) -> None:
        """Keep the photos within the budget: the oldest go first, the newest always stays.
        Why photos only: a throw's dice and every entry are the game; its photo is evidence
        kept for checking a reading, worth less the older it is (360 KB a camera throw)."""
        if self.photo_budget is None:
            return
        rows = db.execute(
            "SELECT id, length(snapshot) FROM throws WHERE snapshot IS NOT NULL ORDER BY id"
        ).fetchall()
        total = sum(size for _, size in rows)
        drop = []
        for throw_id, size in rows[:-1]:
            if total <= self.photo_budget:
                break
            drop.append((throw_id,))
            total -= size
        db.executemany("UPDATE throws SET snapshot = NULL WHERE id = ?", drop)

    def photo_bytes(self) -> int:
        """What the throws' photos take now."""
        row = self._one("SELECT COALESCE(SUM(length(snapshot)), 0) FROM throws")
        return int(row[0]) if row else 0

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
        """The game played most recently, finished or not: the one the page showed last, to
        show again after a restart (an older game left unfinished stays abandoned)."""
        row = self._one("SELECT id FROM games ORDER BY updated DESC, id DESC LIMIT 1")
        return row[0] if row else None

    def games(self) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT id, rules, players, created, updated, finished FROM games ORDER BY id"
        )
        keys = ("id", "rules", "players", "created", "updated", "finished")
        out = [dict(zip(keys, row, strict=True)) for row in rows]
        for game in out:
            game["players"] = json.loads(game["players"])
            game["finished"] = bool(game["finished"])
        return out

    def throws(self, game_id: int) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT id, seq, player, turn, throw, dice, at, snapshot IS NOT NULL FROM throws"
            " WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        keys = ("id", "seq", "player", "turn", "throw", "dice", "at", "has_snapshot")
        return [dict(zip(keys, row, strict=True)) | {"has_snapshot": bool(row[-1])} for row in rows]

    def snapshot(self, throw_id: int) -> bytes | None:
        row = self._one("SELECT snapshot FROM throws WHERE id = ?", (throw_id,))
        return row[0] if row else None

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
            f"SELECT id, game_id, seq, before, after, at FROM corrections {where} ORDER BY id",
            args,
        )
        out = []
        for cid, gid, seq, before, after, at in rows:
            crops = self._all(
                "SELECT die, label, image FROM crops WHERE correction_id = ? ORDER BY die", (cid,)
            )
            out.append(
                {"id": cid, "game_id": gid, "seq": seq, "before": before, "after": after,
                 "at": at, "crops": [tuple(c) for c in crops]}
            )  # fmt: skip
        return out
