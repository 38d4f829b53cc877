"""What the records keep beyond the log, on both engines: the results of finished games,
the marks players brag about, the faces of the dice players confirmed, photos forgotten
under a budget with every record kept, and files written by the previous schema.
"""

from __future__ import annotations

import importlib.util
import random
import subprocess
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_store import OPTIONS, PLAYERS, step

from device.storage import MIGRATIONS, Store, StoreError
from device.storage.results import PHYSICAL, look
from scoring.dice import parse_dice
from scoring.game import Game

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "records.sqlite3")
    return request.getfixturevalue("pg_url")


def play(store: Store, rules: str, seed: int, source: str = "manual") -> tuple[int, Game]:
    """A whole game of random but plausible play, every action kept."""
    rng = random.Random(seed)
    game = Game(rules, PLAYERS, OPTIONS[rules])
    gid = store.create(game)
    while not game.finished:
        kwargs = step(game, rng)
        if game.events[-1]["type"] == "throw":
            kwargs["source"] = source
        store.append(gid, game, **kwargs)
    return gid, game


def faces_from_events(events: list[dict[str, Any]], kind: str) -> Counter:
    """Dice fairness's counts worked out afresh from a log: a throw's final dice (after
    its corrections) count once, when the turn's entry was written from them or when a
    player corrected them before throwing again; dice set aside are not thrown."""
    counts: Counter = Counter()
    throw: dict[str, Any] | None = None  # the turn's latest throw
    for event in events:
        kind_ = event["type"]
        if kind_ == "throw":
            if throw is not None and throw["corrected"] and not throw["counted"]:
                counts.update(throw["faces"]())
            throw = {"dice": event["dice"], "keep": event.get("keep", []), "corrected": False,
                     "counted": False}  # fmt: skip
            throw["faces"] = lambda t=throw: [
                (kind, p, look(d), d.value)
                for p, d in enumerate(parse_dice(t["dice"]))
                if p not in t["keep"]
            ]
        elif kind_ == "correct" and throw is not None:
            throw["dice"], throw["corrected"] = event["dice"], True
        elif kind_ == "score" and throw is not None and not throw["counted"]:
            counts.update(throw["faces"]())
            throw["counted"] = True
    return counts


@pytest.mark.parametrize("rules", sorted(OPTIONS))
def test_results_and_faces_match_what_the_log_says(target: str, rules: str) -> None:
    store = Store(target, table="salon")
    ids = [play(store, rules, seed)[0] for seed in range(3)]
    drawn, _ = play(store, rules, 99, source="drawn")  # the generator's dice: not counted
    expected: Counter = Counter()
    for gid in ids:
        expected += faces_from_events(store.events(gid), store.load(gid).rulebook.kind)
    got = Counter({(k, p, lk, v): n for _, k, p, lk, v, n in store.face_counts("salon")})
    assert got == expected and sum(got.values()) > 20  # the drawn game's dice left out
    assert any(t["confirmed"] for t in store.throws(drawn))  # though confirmed
    assert all(t["source"] == "drawn" not in PHYSICAL for t in store.throws(drawn))

    rows = store.results("salon")
    assert sorted({r[0] for r in rows}) == sorted([*ids, drawn])
    for gid in [*ids, drawn]:
        game = store.load(gid)
        mine = sorted((r for r in rows if r[0] == gid), key=lambda r: r[1])
        assert [(r[2], r[6], bool(r[7])) for r in mine] == [
            (p, game.scores()[p], p in game.winners()) for p in game.players
        ]
    store.close()


def test_an_undo_takes_a_finished_games_result_back(target: str) -> None:
    store = Store(target)
    game = Game("cameroun", ["Ana"], {"turns": 1})
    gid = store.create(game)
    game.throw("2 3 4 5 6")
    store.append(gid, game, source="manual")
    game.score("G")
    store.append(gid, game)
    assert game.finished and [r[6] for r in store.results()] == [20]
    assert ("G", 20) in [(m[0], m[1]) for m in store.marks("cameroun", ["G", "=figures"])]
    game.undo()
    store.append(gid, game)
    assert store.results() == [] and store.marks("cameroun", ["G"]) == []
    game.score("6")
    store.append(gid, game)
    assert [r[6] for r in store.results()] == [6]
    # the throw's dice were confirmed once, though written twice
    assert sum(n for *_, n in store.face_counts()) == 5


def test_the_best_mark_is_the_first_to_reach_it_and_tables_are_apart(target: str) -> None:
    stores = {name: Store(target, table=name) for name in ("salon", "cuisine")}
    made = []
    for name, dice in (("salon", "5 5 5 5 5"), ("cuisine", "6 6 6 6 6"), ("salon", "6 6 6 6 6")):
        game = Game("cameroun", ["Zoé"], {"turns": 1})
        gid = stores[name].create(game)
        game.throw(dice)
        stores[name].append(gid, game, source="manual")
        game.score("Q")
        stores[name].append(gid, game)
        made.append(gid)
    store = stores["salon"]
    assert store.marks("cameroun", ["Q"]) == [("Q", 30, made[0], 0)]  # all score 30
    assert store.marks("cameroun", ["=chiffres", "=figures"]) == [
        ("=chiffres", 0, made[0], 0),
        ("=figures", 30, made[0], 0),
    ]
    assert store.marks("cameroun", ["Q"], table="cuisine") == [("Q", 30, made[1], 0)]
    assert store.tables() == ["cuisine", "salon"]
    assert [r[0] for r in store.results("salon")] == [made[0], made[2]]
    # each table resumes its own latest game
    assert stores["salon"].latest_game() == made[2]
    assert stores["cuisine"].latest_game() == made[1]
    counts: Counter = Counter()
    for t, _, _, _, v, n in store.face_counts():
        counts[t, v] += n
    assert counts == {("salon", 5): 5, ("salon", 6): 5, ("cuisine", 6): 5}


def test_forgetting_photos_keeps_every_record(target: str) -> None:
    store = Store(target)
    gid, game = play(store, "yams", 4)
    with_photo = [t["id"] for t in store.throws(gid) if t["has_snapshot"]]
    assert len(with_photo) > 4
    before = (store.throws(gid), store.entries(gid), store.results(), store.events(gid))
    forgotten = store.forget_photos(budget=32 * 3)  # the step's photos are 32 bytes each
    assert forgotten == len(with_photo) - 3
    after = store.throws(gid)
    assert [t["id"] for t in after if t["has_snapshot"]] == with_photo[-3:]
    strip = [{k: v for k, v in t.items() if k != "has_snapshot"} for t in after]
    assert strip == [{k: v for k, v in t.items() if k != "has_snapshot"} for t in before[0]]
    assert (store.entries(gid), store.results(), store.events(gid)) == before[1:]
    assert store.load(gid).to_json() == game.to_json()
    assert store.snapshot(with_photo[0]) is None


def _old_store_module(tmp_path: Path) -> Any:
    """device/store.py as schema 1 wrote it (the commit before schema 2), to make a file of
    that version for real."""
    source = subprocess.run(
        ["git", "show", "322741e:device/store.py"], cwd=ROOT, capture_output=True, text=True
    )
    if source.returncode != 0:
        pytest.fail(f"the schema-1 store is not in this clone's history: {source.stderr}")
    path = tmp_path / "store_v1.py"
    path.write_text(source.stdout)
    spec = importlib.util.spec_from_file_location("store_v1", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_file_of_the_previous_schema_is_migrated_with_its_results(tmp_path: Path) -> None:
    old = _old_store_module(tmp_path)
    path = tmp_path / "yamscope.db"
    store = old.Store(path)
    rng = random.Random(5)
    finished = Game("yams", PLAYERS)
    fid = store.create(finished)
    while not finished.finished:
        store.append(fid, finished, **step(finished, rng))
    open_ = Game("impossible", ["Ana"])
    oid = store.create(open_)
    open_.throw("1rf 2rf 3rf 4rt 5rt 6wf 7wf 8wt 9wt 10wt")
    store.append(oid, open_, snapshot=b"photo")
    store.close()

    new = Store(path, table="salon")
    assert new.version == len(MIGRATIONS) == 2
    assert [(r[0], r[2], r[6]) for r in new.results()] == [
        (fid, p, finished.scores()[p]) for p in finished.players
    ]
    assert new.latest_game() == oid  # kept before tables had names: this table's
    assert new.load(oid).to_json() == open_.to_json()
    [throw] = new.throws(oid)
    assert throw["has_snapshot"] and throw["source"] is None and throw["kept"] == []
    assert new.face_counts() == []  # where its throws came from is not known: none count


def test_postgres_refuses_another_programs_tables_and_a_newer_schema(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("CREATE TABLE games (id INTEGER, hologram TEXT)")
    with pytest.raises(StoreError, match="another program's tables"):
        Store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("DROP TABLE games")
        db.execute("CREATE TABLE yamscope_schema (version INTEGER NOT NULL)")
        db.execute("INSERT INTO yamscope_schema VALUES (99)")
    with pytest.raises(StoreError, match="newer yamscope"):
        Store(pg_url)
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT to_regclass('games')").fetchone()[0] is None  # untouched


def test_appliances_started_together_migrate_a_new_club_database_once(pg_url: str) -> None:
    errors: list[BaseException] = []
    opened: list[Store] = []

    def start(name: str) -> None:
        try:
            opened.append(Store(pg_url, table=name))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(f"table {n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(opened) == 4
    assert {s.version for s in opened} == {2}
    games = [s.create(Game("yams", ["A"])) for s in opened]
    assert len(set(games)) == 4
    assert opened[0].tables() == [f"table {n}" for n in range(4)]


def test_a_bad_postgres_address_is_one_line(tmp_path: Path) -> None:
    from device.storage import StoreUnavailable

    with pytest.raises(StoreUnavailable) as caught:
        Store("postgresql://yamscope:secret@127.0.0.1:1/club")
    said = str(caught.value)
    assert "cannot be reached" in said and "secret" not in said and "\n" not in said
    assert "postgresql://yamscope@127.0.0.1:1/club" in said  # named, without its password
