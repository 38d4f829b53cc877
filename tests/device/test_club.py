"""A club: several tables' appliances on one real PostgreSQL server. The records across
tables and per table, a server unreachable at start, and one that goes away during play
(the cluster is stopped for real, then started again).
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_cluster import Cluster, new_database
from test_web_api import Api

from device.storage import Store, StoreUnavailable
from device.table import TableSession
from device.web import create_app

ROOT = Path(__file__).resolve().parents[2]


def table(url: str, name: str, folder: Path) -> TableSession:
    store = Store(url, table=name)
    return TableSession(store, rng=random.Random(1), cache_dir=folder, advice=False, worker=False)


def one_turn_game(api: Api, player: str, dice: str, box: str) -> int:
    api.game("cameroun", [player], turns=1)
    assert api.throw(dice.split()).status_code == 200
    assert api.post("/api/score", {"box": box}).status_code == 200
    return api.session.game_id or 0


def test_the_records_page_shows_the_club_across_tables_and_per_table(
    pg_url: str, tmp_path: Path
) -> None:
    salon, cuisine = table(pg_url, "salon", tmp_path), table(pg_url, "cuisine", tmp_path)
    try:
        tables = {"salon": salon, "cuisine": cuisine}
        apis = {n: Api(create_app(s).test_client(), s) for n, s in tables.items()}
        ana = one_turn_game(apis["salon"], "Ana", "6 6 6 6 6", "Q")
        bruno = one_turn_game(apis["cuisine"], "Bruno", "2 3 4 5 6", "G")
        client = apis["cuisine"].client  # any table's page shows the whole club
        club = client.get("/api/records").json
        assert club["tables"] == ["cuisine", "salon"]
        [rb] = club["rulebooks"]
        best = [(b["player"], b["table"]) for b in rb["best"]]
        assert best == [("Ana", "salon"), ("Bruno", "cuisine")]
        mine = client.get("/api/records?table=cuisine").json
        assert [b["game"] for b in mine["rulebooks"][0]["best"]] == [bruno]
        games = client.get("/api/records/games?table=salon").json["games"]
        assert [g["id"] for g in games] == [ana]
        # each appliance resumes its own table's game after a restart
        assert Store(pg_url, table="salon").latest_game() == ana
        assert Store(pg_url, table="cuisine").latest_game() == bruno
        assert client.get("/api/records/fairness").json["table"] == "cuisine"
    finally:
        salon.close()
        cuisine.close()


def test_a_server_unreachable_at_start_is_one_line_and_a_failed_exit(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "device.cli", "serve", "--data",
         "postgresql://club:s3cret@127.0.0.1:9/yamscope", "--camera", "none", "--port", "8999"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"YAMSCOPE_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "cannot be reached" in r.stderr and "postgresql://club@127.0.0.1:9/yamscope" in r.stderr
    assert "s3cret" not in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "device.cli", "records", "--data",
         "postgresql://club@127.0.0.1:9/yamscope"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot be reached" in r.stderr


@pytest.fixture
def club(own_cluster: Cluster, tmp_path: Path) -> Iterator[tuple[Cluster, TableSession, Api]]:
    url = new_database(own_cluster.url, "club")
    session = table(url, "salon", tmp_path)
    yield own_cluster, session, Api(create_app(session).test_client(), session)
    session.close()


def test_a_server_that_goes_away_refuses_actions_and_play_resumes_when_it_is_back(
    club: tuple[Cluster, TableSession, Api],
) -> None:
    cluster, session, api = club
    api.game("yams", ["Ana", "Bruno"])
    assert api.throw(["6", "6", "6", "2", "3"]).status_code == 200
    before = session.state()["game"]
    version = session.version

    cluster.stop()
    session.check_storage()  # what the worker does every second
    said = session.state()["storage"]["error"]
    assert said is not None and "cannot be reached" in said  # the page says so at once
    assert session.version > version
    for path, body in (("/api/score", {"box": "6"}), ("/api/throw", {"keep": [0, 1, 2]}),
                       ("/api/correct", {"dice": ["6", "6", "6", "6", "3"]})):  # fmt: skip
        r = api.post(path, body)
        assert r.status_code == 503, (path, r.json)
        assert "cannot be reached" in r.json["error"]
        assert session.state()["game"]["sheets"] == before["sheets"]  # nothing acknowledged
        assert session.state()["game"]["dice"] == before["dice"]
    assert api.post("/api/games", {"rules": "yams", "players": ["Zoé"]}).status_code == 503
    assert session.state()["game"]["players"] == before["players"]

    cluster.start()
    session.check_storage()
    assert session.state()["storage"]["error"] is None
    assert session.state()["game"]["dice"] == before["dice"]  # where it was
    assert api.post("/api/score", {"box": "6"}).status_code == 200
    assert api.throw(["1", "2", "3", "4", "5"]).status_code == 200
    assert session.store.load(session.game_id or 0).to_json() == session.game.to_json()  # type: ignore[union-attr]
    kept = session.store.events(session.game_id or 0)
    assert [e["type"] for e in kept] == ["new_game", "throw", "score", "throw"]


def test_a_write_cut_by_the_server_going_away_is_not_acknowledged(
    club: tuple[Cluster, TableSession, Api],
) -> None:
    """Without the worker's check: the action itself finds the server gone."""
    cluster, session, api = club
    api.game("yams", ["Ana"])
    cluster.stop()
    r = api.throw(["6", "6", "6", "2", "3"])
    assert r.status_code == 503 and session.state()["game"]["dice"] is None
    assert session.state()["storage"]["error"] is not None
    with pytest.raises(StoreUnavailable):
        session.store.events(session.game_id or 0)
    cluster.start()
    deadline = time.monotonic() + 10
    while api.throw(["6", "6", "6", "2", "3"]).status_code != 200:  # the next try reconnects
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert [e["type"] for e in session.store.events(session.game_id or 0)] == [
        "new_game", "throw"
    ]  # fmt: skip
