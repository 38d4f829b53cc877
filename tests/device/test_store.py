"""The records, in an SQLite file and in a PostgreSQL database alike: every game replays
from them, their records match the log, and a process killed at any moment loses at most
the action it was writing.

The games are played through the real engine (``scoring.game.Game``) by a random but
plausible table: throws with kept dice, corrected dice with their crops, announced extra
throws, entries and entries taken back. The crash test runs this very file as the child
process (``python test_store.py --child DB SEED RULES``), so parent and child share ``step``.
Each test that takes ``target`` runs on both engines (PostgreSQL: a real server, conftest).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from device.store import MIGRATIONS, Store, StoreError
from scoring.computer import IMPOSSIBLE_SET, Facile, roll
from scoring.dice import Die
from scoring.entries import RulesError
from scoring.game import Game

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Ana", "Bruno"]
OPTIONS: dict[str, dict[str, Any]] = {
    "impossible": {"sixth_throw_harmony": True},
    "yams": {"carre": "40"},
    "yahtzee": {},
    "cameroun": {"turns": 6},
}
FACILE = Facile()


# -- a table that plays at random --------------------------------------------------------------
def crop(die: int) -> bytes:
    """Stand-in for a PNG crop: distinct bytes per die, as the fine-tuning data would be."""
    return b"\x89PNG\r\n\x1a\n" + f"die {die}".encode()


def step(game: Game, rng: random.Random) -> dict[str, Any]:
    """One action on ``game``; returns the keywords ``Store.append`` takes for it."""
    rb = game.rulebook
    if game.dice is None:
        if game.written and rng.random() < 0.15:
            game.undo()
            return {}
        game.throw(roll(game, rng))
        return {"snapshot": rng.randbytes(32) if rng.random() < 0.5 else None}
    if rng.random() < 0.08:  # a misread die: the player corrects it, its crop is kept
        die = rng.randrange(len(game.dice))
        others = [i for i in range(len(game.dice)) if i != die]
        game.correct(roll(game, rng, others))
        return {"crops": [(die, crop(die))]}
    if game.announced is not None and game.throw_no == rb.max_throws:
        keep = FACILE.keep(game) or []
        game.throw(roll(game, rng, keep), keep)
        return {"snapshot": None}
    keep = FACILE.keep(game)
    if game.throw_no < rb.max_throws and keep is not None and rng.random() < 0.8:
        game.throw(roll(game, rng, keep), keep)
        return {"snapshot": rng.randbytes(32)}
    announcing = rb.announced_throw and game.announced is None and rng.random() < 0.3
    if announcing and game.throw_no == rb.max_throws:
        boxes = [b.id for b in rb.boxes]
        rng.shuffle(boxes)
        for box in boxes:
            try:
                game.announce(box)
                return {}
            except RulesError:
                continue
    game.score(game.choices()[0].box)
    return {}


def draw_order(game: Game) -> None:
    """The « désigné par les dés » draw: the second player throws higher and plays first."""
    top = 6 if game.rulebook.kind == "d6" else 10
    if game.rulebook.id == "impossible":
        low, high = (tuple(Die(v, c, f) for c, f in IMPOSSIBLE_SET) for v in (1, top))
    else:
        low, high = (tuple(Die(v) for _ in range(game.rulebook.dice_count)) for v in (1, top))
    game.draw_order({PLAYERS[0]: low, PLAYERS[1]: high})


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the records go: an SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "records.sqlite3")
    return request.getfixturevalue("pg_url")


def dump(target: str | Path) -> list[str]:
    """Every row of the records, for "nothing was written" checks."""
    if not str(target).startswith("postgresql://"):
        with sqlite3.connect(target) as db:
            return list(db.iterdump())
    import psycopg

    tables = ("games", "events", "throws", "entries", "corrections", "crops", "results")
    with psycopg.connect(str(target)) as db:
        return [
            f"{table}: {row}"
            for table in (*tables, "face_counts")
            for row in db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
        ]


# -- round trips ---------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", sorted(OPTIONS))
def test_a_whole_game_round_trips(target: str, rules: str) -> None:
    path = target
    store = Store(path)
    rng = random.Random(f"round trip {rules}")
    game = Game(rules, PLAYERS, OPTIONS[rules])
    gid = store.create(game)
    draw_order(game)
    store.append(gid, game)
    throws, crops, snapshots = [], {}, {}
    while not game.finished:
        kwargs = step(game, rng)
        store.append(gid, game, **kwargs)
        event = game.events[-1]
        if event["type"] == "throw":
            throws.append((game.player, game.turn, game.throw_no, event["dice"]))
            snapshots[len(throws) - 1] = kwargs["snapshot"]
        if event["type"] == "correct":
            crops[len(game.events) - 1] = kwargs["crops"]
    kinds = Counter(e["type"] for e in game.events)
    expected_kinds = {"new_game", "order", "throw", "correct", "score", "undo"}
    if game.rulebook.announced_throw:
        expected_kinds.add("announce")
    assert expected_kinds <= set(kinds), kinds  # the game exercised every record
    store.close()

    store = Store(path)  # as after a restart
    assert store.version == len(MIGRATIONS)
    assert store.events(gid) == game.events
    assert store.load(gid).to_json() == game.to_json()
    assert store.latest_game() == gid  # finished, and still the one to show
    [info] = store.games()
    assert (info["id"], info["rules"], info["finished"]) == (gid, rules, True)
    assert info["players"] == [PLAYERS[1], PLAYERS[0]]  # as the draw ordered them

    kept = store.throws(gid)
    assert [(t["player"], t["turn"], t["throw"], t["dice"]) for t in kept] == throws
    assert [t["has_snapshot"] for t in kept] == [snapshots[i] is not None for i in range(len(kept))]
    for i, t in enumerate(kept):
        assert store.snapshot(t["id"]) == snapshots[i]

    entries = store.entries(gid)
    assert len(entries) == kinds["score"]
    assert sum(e["undone"] for e in entries) == kinds["undo"]
    standing = [(e["player"], e["box"], e["points"]) for e in entries if not e["undone"]]
    assert standing == [(w.player, w.entry.box, w.entry.points) for w in game.written]

    corrections = store.corrections(gid)
    assert [c["seq"] for c in corrections] == sorted(crops)
    for c in corrections:
        labels = c["after"].split()
        assert [(d, img) for d, _, img in c["crops"]] == crops[c["seq"]]
        assert [label for _, label, _ in c["crops"]] == [labels[d] for d, _ in crops[c["seq"]]]
    store.close()


def test_undo_marks_the_entries_it_takes_back(target: str) -> None:
    store = Store(target)
    game = Game("yams", PLAYERS)
    gid = store.create(game)
    for action in (
        lambda: game.throw("6 6 6 2 3"),
        lambda: game.score("6"),  # Ana: 18
        lambda: game.throw("1 1 5 5 5"),
        lambda: game.score("full"),  # Bruno: 25
        lambda: game.undo(),  # Bruno's full taken back
        lambda: game.undo(),  # and Ana's 6
        lambda: game.score("brelan"),  # Ana writes her dice elsewhere
    ):
        action()
        store.append(gid, game)
    entries = store.entries(gid)
    assert [(e["player"], e["box"], e["points"], e["undone"]) for e in entries] == [
        ("Ana", "6", 18, True),
        ("Bruno", "full", 25, True),
        ("Ana", "brelan", 23, False),
    ]
    replayed = store.load(gid)
    assert [(w.player, w.entry.box) for w in replayed.written] == [("Ana", "brelan")]
    assert replayed.player == "Bruno"


def test_corrections_keep_their_crops_with_the_corrected_labels(target: str) -> None:
    store = Store(target)
    other = store.create(Game("yams", ["Zoé"]))
    game = Game("impossible", ["Ana"])
    gid = store.create(game)
    game.throw("1rf 2rf 3rf 4rt 5rt 6wf 7wf 8wt 9wt 10wt")
    store.append(gid, game, snapshot=b"photo")
    game.correct("1rf 2rf 3rf 4rt 5rt 6wf 7wf 8wt 9wt 3wt")
    store.append(gid, game, crops=[(9, b"png nine")])
    game.correct("7rf 2rf 3rf 4rt 5rt 6wf 7wf 8wt 9wt 4wt")
    store.append(gid, game, crops=[(0, b"png zero"), (9, b"png nine again")])

    first, second = store.corrections(gid)
    assert first["before"] == "1rf 2rf 3rf 4rt 5rt 6wf 7wf 8wt 9wt 10wt"
    assert first["after"] == "1rf 2rf 3rf 4rt 5rt 6wf 7wf 8wt 9wt 3wt"
    assert first["crops"] == [(9, "3wt", b"png nine")]
    assert second["before"] == first["after"]
    assert second["crops"] == [(0, "7rf", b"png zero"), (9, "4wt", b"png nine again")]
    assert store.corrections() == [first, second]
    assert store.corrections(other) == []
    assert store.load(gid).dice == game.dice


def test_latest_game_is_the_one_played_last(target: str) -> None:
    store = Store(target)
    assert store.latest_game() is None
    older, newer = Game("yams", ["A"]), Game("cameroun", ["B"])
    older_id, newer_id = store.create(older), store.create(newer)
    assert store.latest_game() == newer_id
    time.sleep(0.01)  # "updated" is kept to the millisecond
    older.throw("1 2 3 4 5")
    store.append(older_id, older)
    assert store.latest_game() == older_id


# -- refusals -----------------------------------------------------------------------------------
def test_a_file_from_a_newer_version_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, hologram BLOB)")
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer yamscope"):
        Store(path)
    assert path.read_bytes() == before  # not even switched to WAL


@pytest.mark.parametrize(
    "content",
    [
        b"[server]\nport = 8600\n" * 200,
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 16,
        b"SQLite format 3\x00" + b"\xff" * 4080,
    ],
    ids=["text", "png", "sqlite-header-then-garbage"],
)
def test_a_file_that_is_not_a_records_file_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "records.sqlite3"
    path.write_bytes(content)
    with pytest.raises(StoreError, match="not a yamscope records file"):
        Store(path)
    assert path.read_bytes() == content


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        Store(tmp_path)


def test_append_out_of_step_is_refused_and_writes_nothing(target: str) -> None:
    path = target
    store = Store(path)
    game = Game("yams", PLAYERS)
    gid = store.create(game)
    game.throw("1 2 3 4 5")
    store.append(gid, game, snapshot=b"kept")
    before = dump(path)

    with pytest.raises(StoreError, match="2 events kept, the game 2"):
        store.append(gid, game)  # the same action twice
    game.throw("1 2 3 4 6", keep=[0, 1, 2, 3])
    game.score("petite_suite")
    with pytest.raises(StoreError, match="2 events kept, the game 4"):
        store.append(gid, game, snapshot=b"lost")  # an action was never appended
    with pytest.raises(StoreError, match="no game 99"):
        store.append(99, game)
    assert dump(path) == before
    assert len(store.events(gid)) == 2
    with pytest.raises(StoreError, match="no game 99"):
        store.load(99)


def test_threads_sharing_the_store_keep_their_transactions_apart(target: str) -> None:
    """The web server's threads share one Store: each append must stay one transaction."""
    store = Store(target)
    errors: list[BaseException] = []
    logs: dict[int, list[dict[str, Any]]] = {}

    def play(seed: int) -> None:
        rng = random.Random(seed)
        try:
            game = Game("yams", ["solo"])
            gid = store.create(game)
            for _ in range(25):
                store.append(gid, game, **step(game, rng))
                store.games()  # reads in between other threads' writes
            logs[gid] = game.events
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(logs) == [g["id"] for g in store.games()]
    for gid, events in logs.items():
        assert store.events(gid) == events
        store.load(gid)


# -- crash safety ---------------------------------------------------------------------------------
def child(path: str, seed: int, rules: str) -> None:
    """Play forever, announcing each action before and after it is appended."""

    def say(*words: object) -> None:
        print(*words, flush=True)

    rng = random.Random(seed)
    store = Store(path)
    gid = store.latest_game()
    game = store.load(gid) if gid is not None else None
    for _ in range(100_000):  # the parent kills it long before; a bound all the same
        if game is None or game.finished:
            game = Game(rules, PLAYERS, OPTIONS[rules])
            say("begin-create")
            gid = store.create(game)
            say("created", gid, json.dumps(game.events[0]))
        kwargs = step(game, rng)
        say("begin", gid, json.dumps(game.events[-1]))
        store.append(gid, game, **kwargs)
        say("commit", gid, len(game.events) - 1)


class Announced:
    """What the child said on stdout: committed events per game, and what was in flight."""

    def __init__(self, known: dict[int, list[dict[str, Any]]]) -> None:
        self.events = known
        self.in_flight: tuple[int, dict[str, Any]] | None = None
        self.creating = False
        self.commits = 0

    def read(self, line: str) -> None:
        word, *rest = line.split(" ", 2)
        if word == "begin-create":
            self.creating = True
        elif word == "created":
            self.events[int(rest[0])] = [json.loads(rest[1])]
            self.creating = False
            self.commits += 1
        elif word == "begin":
            self.in_flight = (int(rest[0]), json.loads(rest[1]))
        elif word == "commit":
            assert self.in_flight is not None and self.in_flight[0] == int(rest[0])
            log = self.events[int(rest[0])]
            log.append(self.in_flight[1])
            assert len(log) - 1 == int(rest[1])
            self.in_flight = None
            self.commits += 1


def ended_sessions(target: str, timeout: float = 10.0) -> None:
    """Wait until no other session is open on a PostgreSQL database: the server finishes a
    COMMIT it received from a client killed before the reply, so until the dead child's
    session ends its last action may still land."""
    if not target.startswith("postgresql://"):
        return  # SQLite commits in the process that was killed: nothing is left running
    import psycopg

    deadline = time.monotonic() + timeout
    with psycopg.connect(target, autocommit=True) as db:
        others = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        others += "AND pid <> pg_backend_pid()"
        while db.execute(others).fetchone() != (0,):
            assert time.monotonic() < deadline, "the killed child's session never ended"
            time.sleep(0.01)


def check_after_kill(path: Path, said: Announced) -> None:
    """The file opens, every game replays, and each log is what was announced, plus at
    most the one event (or new game) in flight when the child died."""
    store = Store(path)
    try:
        ids = [g["id"] for g in store.games()]
        assert set(said.events) <= set(ids), "an announced game was lost"
        for gid in ids:
            events = store.events(gid)
            game = store.load(gid)
            known = said.events.get(gid)
            if known is None:  # created, not yet announced: only the create in flight
                assert said.creating and gid == max(ids) and len(events) == 1
            elif said.in_flight is not None and said.in_flight[0] == gid:
                assert events in (known, [*known, said.in_flight[1]])
            else:
                assert events == known
            said.events[gid] = events
            kinds = Counter(e["type"] for e in events)
            assert len(store.throws(gid)) == kinds["throw"]
            assert len(store.entries(gid)) == kinds["score"]
            assert sum(e["undone"] for e in store.entries(gid)) == kinds["undo"]
            assert len(store.corrections(gid)) == kinds["correct"]
            assert len(game.written) == kinds["score"] - kinds["undo"]
    finally:
        store.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_at_random_moments_loses_at_most_the_action_in_flight(
    target: str, tmp_path: Path
) -> None:
    path = target
    rng = random.Random(1729)
    known: dict[int, list[dict[str, Any]]] = {}
    rounds, commits = 12, 0
    for n in range(rounds):
        rules = sorted(OPTIONS)[n % len(OPTIONS)]
        stderr = tmp_path / f"child-{n}.err"
        with stderr.open("w") as err:
            proc = subprocess.Popen(
                [sys.executable, __file__, "--child", str(path), str(n), rules],
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
        said = Announced(known)
        # the first rounds die while opening or creating the file, the others mid-game
        wait_for = 0 if n < 2 else rng.randint(1, 60)
        assert proc.stdout is not None
        while said.commits < wait_for:
            line = proc.stdout.readline()
            if not line:
                break
            said.read(line.rstrip("\n"))
        time.sleep(rng.uniform(0, 0.25) if n < 2 else rng.uniform(0, 0.01))
        proc.send_signal(signal.SIGKILL)
        # read on through the same buffered pipe (communicate() would skip what it holds)
        rest = proc.stdout.read()
        proc.wait(timeout=30)
        for line in rest.splitlines(keepends=True):
            if line.endswith("\n"):  # a line cut by the kill was never announced
                said.read(line.rstrip("\n"))
        assert proc.returncode == -signal.SIGKILL, stderr.read_text()
        ended_sessions(path)
        check_after_kill(path, said)
        commits += said.commits
    assert commits > 100  # the kills did land in the middle of real games
    assert known  # at least one game was created and checked after the kills (how many
    # finish and start anew depends on where the kills land)


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
