"""Reading the records: games and their events, throws, entries, corrections, results,
the best marks and the faces counted, as plain rows or dicts for the pages and commands.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from device.storage.core import StoreCore
from device.storage.errors import StoreError
from scoring.entries import RulesError
from scoring.game import Game


class StoreQueries(StoreCore):
    """The records' reads: each one query (or a few) under the store's lock."""

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
