"""The records as files anyone can open: games, turns, throws and entries in CSV or JSON.

Why these four: a game is its players and result; a turn is one entry with the throws it
took and the dice it was written from; a throw is what was on the tray (where it came
from, which dice were set aside, whether players confirmed it); an entry is a box written,
with its reason, and whether it was taken back. Photos and crops stay in the records (the
audit shows them; ``export-corrections`` writes the crops).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from device.storage import Store

KINDS = ("games", "turns", "throws", "entries")
FORMATS = ("csv", "json")
COLUMNS = {
    "games": ("game", "table", "rules", "players", "created", "updated", "finished",
              "scores", "winners"),
    "turns": ("game", "turn", "player", "throws", "dice", "box", "points", "bonus",
              "announced", "undone", "at"),
    "throws": ("id", "game", "seq", "player", "turn", "throw", "dice", "kept", "source",
               "confirmed", "photo", "at"),
    "entries": ("game", "seq", "player", "turn", "box", "points", "bonus", "why", "undone",
                "at"),
}  # fmt: skip


def rows(store: Store, kind: str, table: str | None = None) -> Iterator[dict[str, Any]]:
    """Every row of one kind, oldest game first (``table``: that table's games only)."""
    on = " AND g.table_name = ?" if table is not None else ""
    args: tuple = (table,) if table is not None else ()
    if kind == "games":
        yield from _games(store, on, args)
    elif kind == "throws":
        for r in store.read(
            "SELECT t.id, t.game_id, t.seq, t.player, t.turn, t.throw, t.dice, t.kept, t.source,"
            " t.confirmed, t.snapshot IS NOT NULL, t.at FROM throws t JOIN games g ON"
            f" g.id = t.game_id WHERE 1 = 1{on} ORDER BY t.game_id, t.seq",
            args,
        ):
            row = dict(zip(COLUMNS["throws"], r, strict=True))
            row["kept"] = " ".join(str(k) for k in json.loads(row["kept"] or "[]"))
            row["confirmed"], row["photo"] = bool(row["confirmed"]), bool(row["photo"])
            yield row
    elif kind == "entries":
        for r in store.read(
            "SELECT e.game_id, e.seq, e.player, e.turn, e.box, e.points, e.bonus, e.why,"
            " e.undone, e.at FROM entries e JOIN games g ON g.id = e.game_id"
            f" WHERE 1 = 1{on} ORDER BY e.game_id, e.seq",
            args,
        ):
            yield dict(zip(COLUMNS["entries"], r, strict=True)) | {"undone": bool(r[8])}
    elif kind == "turns":
        yield from _turns(store, on, args)
    else:
        raise ValueError(f"no such export {kind!r} (known: {', '.join(KINDS)})")


def _games(store: Store, on: str, args: tuple) -> Iterator[dict[str, Any]]:
    results: dict[int, list[tuple[str, int, int]]] = {}
    for gid, player, total, won in store.read(
        "SELECT r.game_id, r.player, r.total, r.won FROM results r JOIN games g ON"
        f" g.id = r.game_id WHERE 1 = 1{on} ORDER BY r.game_id, r.seat",
        args,
    ):
        results.setdefault(gid, []).append((player, total, won))
    for gid, tname, rules, players, created, updated, finished in store.read(
        "SELECT g.id, g.table_name, g.rules, g.players, g.created, g.updated, g.finished"
        f" FROM games g WHERE 1 = 1{on} ORDER BY g.id",
        args,
    ):
        mine = results.get(gid, [])
        yield {
            "game": gid, "table": tname, "rules": rules,
            "players": " / ".join(json.loads(players)), "created": created, "updated": updated,
            "finished": bool(finished),
            "scores": " / ".join(f"{p} {t}" for p, t, _ in mine),
            "winners": " / ".join(p for p, _, won in mine if won),
        }  # fmt: skip


def _turns(store: Store, on: str, args: tuple) -> Iterator[dict[str, Any]]:
    """One row per entry: the throws its turn took, the dice it was written from (after
    any correction) and the box its extra throw was announced for."""
    events = store.read(
        "SELECT e.game_id, e.seq, e.type, e.body, e.at FROM events e JOIN games g ON"
        f" g.id = e.game_id WHERE e.type IN ('throw', 'correct', 'announce', 'score', 'undo')"
        f"{on} ORDER BY e.game_id, e.seq",
        args,
    )
    entries = {
        (r[0], r[1]): r
        for r in store.read(
            "SELECT e.game_id, e.seq, e.player, e.turn, e.box, e.points, e.bonus, e.undone"
            f" FROM entries e JOIN games g ON g.id = e.game_id WHERE 1 = 1{on}",
            args,
        )
    }
    throws, dice, announced, game = 0, "", None, None
    for gid, seq, kind, body, at in events:
        if gid != game:
            throws, dice, announced, game = 0, "", None, gid
        event = json.loads(body)
        if kind == "throw":
            throws, dice = throws + 1, event["dice"]
        elif kind == "correct":
            dice = event["dice"]
        elif kind == "announce":
            announced = event["box"]
        elif kind == "score" and (gid, seq) in entries:
            _, _, player, turn, box, points, bonus, undone = entries[gid, seq]
            yield {"game": gid, "turn": turn, "player": player, "throws": throws, "dice": dice,
                   "box": box, "points": points, "bonus": bonus, "announced": announced,
                   "undone": bool(undone), "at": at}  # fmt: skip
            throws, announced = 0, None


def write(store: Store, kind: str, fmt: str, out: io.TextIOBase | Any, table: str | None = None):
    """One kind of rows into an open text file, as CSV (a header line) or JSON (a list)."""
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=COLUMNS[kind], lineterminator="\n")
        writer.writeheader()
        for row in rows(store, kind, table):
            writer.writerow(row)
        return
    out.write("[")
    for n, row in enumerate(rows(store, kind, table)):
        out.write(("," if n else "") + "\n" + json.dumps(row, ensure_ascii=False))
    out.write("\n]\n")


def export(store: Store, folder: Path, fmts: tuple[str, ...] = FORMATS) -> list[Path]:
    """Every kind in every format into ``folder`` (games.csv, games.json, ...), each file
    written beside itself first and then put in place."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in KINDS:
        for fmt in fmts:
            path = folder / f"{kind}.{fmt}"
            part = path.with_name(path.name + ".part")
            with part.open("w", encoding="utf-8", newline="") as out:
                write(store, kind, fmt, out)
            part.replace(path)
            written.append(path)
    return written
