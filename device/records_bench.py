"""``yamscope bench --only records``: the records of 10,000 kept games, and the page.

Why copies: playing ten thousand games through the engine and the store would take an
hour here; forty real games are played (every rulebook, two to four players) and kept
through ``Store.append`` as the table keeps them, then copied row for row, each copy a game
of its own with its own date, until the file holds ``games`` of them. What the records read
(result rows, marks, confirmed faces) is what the table would have written.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from device.storage import Store

RECORDS_TARGET_MS = 1000.0
PAGE_TARGET_MS = 300.0
TEMPLATES = 40
NAMES = ("Ana", "Bruno", "Chloé", "David", "Emma", "Farid", "Gabin", "Hugo", "Inès", "Jade",
         "Kevin", "Léa", "Marc", "Nina", "Oscar", "Paul")  # fmt: skip
COPIED = {
    "events": "game_id, seq, type, body, at",
    "throws": "game_id, seq, player, turn, throw, dice, at, snapshot, source, kept, reading,"
    " confirmed",
    "entries": "game_id, seq, player, turn, box, points, bonus, why, at, undone",
    "results": "game_id, seat, player, rules, table_name, finished_at, total, won, harmonies,"
    " feats",
    "result_marks": "game_id, seat, rules, table_name, mark, points",
}


def _templates(store: Store, rng: random.Random, count: int) -> list[int]:
    """Real games played by computer players and kept as the table keeps them."""
    from device.table import _Recorded  # the table session's own way of keeping each action
    from scoring.computer import Facile, play_turn
    from scoring.game import Game

    rules = ("impossible", "yams", "yahtzee", "cameroun")
    ids = []
    for n in range(count):
        players = rng.sample(NAMES, rng.randint(2, 4))
        game = Game(rules[n % len(rules)], players)
        gid = store.create(game)
        recorded = _Recorded(game, lambda g=game, i=gid: store.append(i, g, source="manual"))
        while not game.finished:
            play_turn(recorded, Facile(), rng)  # type: ignore[arg-type]
        ids.append(gid)
    return ids


def build(path: Path, games: int, seed: int = 1, templates: int = TEMPLATES) -> Store:
    """A records file of ``games`` finished games (SQLite), ``templates`` of them played."""
    rng = random.Random(seed)
    store = Store(path, table="bench")
    played = _templates(store, rng, min(templates, games))
    db = store._db
    start = datetime(2024, 1, 1, tzinfo=UTC)
    db.execute("PRAGMA synchronous=OFF")  # building the bench's file, not keeping a game
    db.execute("BEGIN")
    for n in range(games - len(played)):
        source = played[n % len(played)]
        at = (start + timedelta(hours=6 * n)).isoformat(timespec="milliseconds")
        new = db.execute(
            "INSERT INTO games (rules, players, created, updated, finished, table_name)"
            " SELECT rules, players, ?, ?, finished, table_name FROM games WHERE id = ?",
            (at, at, source),
        ).lastrowid
        for table, columns in COPIED.items():
            rest = columns.split(", ", 1)[1]
            picked = rest.replace("finished_at", "?") if table == "results" else rest
            args = (new, at, source) if table == "results" else (new, source)
            db.execute(
                f"INSERT INTO {table} ({columns}) SELECT ?, {picked} FROM {table}"
                " WHERE game_id = ?",
                args,
            )
    db.execute("COMMIT")
    db.execute("PRAGMA synchronous=FULL")
    return store


def _median_ms(run: Callable[[], Any], repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def bench_records(
    games: int = 10_000, repeats: int = 5, templates: int = TEMPLATES
) -> Iterator[str]:
    """Lines for ``yamscope bench``: building, the records, the page cold and warm."""
    from device.fairness import fairness
    from device.history import game_list
    from device.records import records
    from device.table import TableSession
    from device.web import create_app

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        store = build(Path(folder) / "bench.db", games, templates=templates)
        kept = len(store.games())
        rows = len(store.results())
        yield (
            f"records: {kept} finished games ({rows} result rows, {templates} played, the rest "
            f"copies), built in {time.perf_counter() - start:.1f} s"
        )
        ms, worst = _median_ms(lambda: records(store), repeats)
        yield f"records and statistics of every player, every rulebook: {ms:.0f} ms median, " \
              f"{worst:.0f} max (target {RECORDS_TARGET_MS:.0f})"  # fmt: skip
        someone = store.results()[0][2]
        ms, _ = _median_ms(lambda: records(store, player=someone), repeats)
        yield f"one player's records (--player): {ms:.0f} ms"
        ms, _ = _median_ms(lambda: fairness(store, "bench"), repeats)
        yield f"dice fairness: {ms:.1f} ms; the history's first page: " + (
            f"{_median_ms(lambda: game_list(store), repeats)[0]:.0f} ms"
        )
        session = TableSession(store, advice=False, worker=False, cache_dir=folder)
        client = create_app(session).test_client()
        cold = []
        for _ in range(repeats):
            store_revision_bump(store)
            start = time.perf_counter()
            page = client.get("/records")
            data = client.get("/api/records")
            cold.append((time.perf_counter() - start) * 1000)
            assert page.status_code == 200 and data.status_code == 200
        ms_warm, _ = _median_ms(
            lambda: (client.get("/records"), client.get("/api/records")), repeats
        )
        yield (
            f"records page (/records and /api/records): {statistics.median(cold):.0f} ms the "
            f"first time after a game ends, {ms_warm:.1f} ms after (target {PAGE_TARGET_MS:.0f})"
        )
        session.close()


def store_revision_bump(store: Store) -> None:
    """A game ending moves the records' revision: the page computes them anew."""
    db = store._db
    row = db.execute("SELECT MAX(id) FROM games").fetchone()[0]
    db.execute(
        "INSERT INTO games (rules, players, created, updated, finished, table_name)"
        " SELECT rules, players, created, updated, finished, table_name FROM games WHERE id = ?",
        (row,),
    )
