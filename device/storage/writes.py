"""Writing the records: a new game, each action's event and the record it makes (throw,
entry, correction, result), the faces the players confirmed, and the photos' budget.

Why each in the event's own transaction: a game *is* its event log, so the rows players,
the audit and the records read must never say something the log does not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from device.storage.core import StoreCore
from device.storage.errors import StoreError
from device.storage.results import PHYSICAL, confirmed_faces
from scoring.dice import parse_dice
from scoring.game import Game


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class StoreWrites(StoreCore):
    """What each action adds to the records, in the same transaction as its event."""

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
