"""The records, the audit, the history and the export through the real app (Flask's test
client over a real table session and SQLite file): games are played through the table's
own API, as the page plays them.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from test_web_api import Api

from device.records import records
from device.storage import Store
from device.table import TableSession
from device.web import create_app

HARMONY = ["7r", "7r", "7r", "7r", "2r", "7w", "7w", "7w", "7w", "1w"]


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    store = Store(tmp_path / "t.db", table="salon")
    s = TableSession(store, rng=random.Random(7), cache_dir=tmp_path, advice=False, worker=False)
    yield s
    s.close()


@pytest.fixture
def client(session: TableSession) -> FlaskClient:
    return create_app(session).test_client()


@pytest.fixture
def api(client: FlaskClient, session: TableSession) -> Api:
    return Api(client, session)


def quick_game(api: Api, players: list[str], turns: list[str]) -> int:
    """A one-turn Cameroun per player: "DICE > BOX", each player's throw and entry."""
    api.game("cameroun", players, turns=1)
    for turn in turns:
        dice, box = turn.split(">")
        assert api.throw(dice.split()).status_code == 200
        assert api.post("/api/score", {"box": box.strip()}).status_code == 200
    state = api.session.state()["game"]
    assert state["finished"]
    return state["id"]


def test_records_follow_every_game_that_ends(api: Api, client: FlaskClient) -> None:
    assert client.get("/api/records").json["rulebooks"] == []
    first = quick_game(api, ["Ana", "Bruno"], ["6 6 6 6 6 > Q", "2 3 4 5 6 > G"])
    data = client.get("/api/records").json
    [rb] = data["rulebooks"]
    assert rb["rules"] == "cameroun" and rb["games"] == 1
    assert [(b["player"], b["total"], b["game"]) for b in rb["best"]] == [
        ("Ana", 30, first), ("Bruno", 20, first)
    ]  # fmt: skip
    marks = {m["mark"]: (m["points"], m["player"]) for m in rb["marks"]}
    assert marks["Q"] == (30, "Ana") and marks["G"] == (20, "Bruno")
    # the cache moves on
    second = quick_game(api, ["Ana", "Bruno"], ["1 1 2 2 3 > 2", "6 6 6 6 6 > Q"])
    rb = client.get("/api/records").json["rulebooks"][0]
    assert rb["games"] == 2 and rb["marks"][-1]["mark"] == "=figures"
    assert {m["mark"]: m["game"] for m in rb["marks"]}["Q"] == first  # the first to reach it
    everyone = client.get("/api/records").json["players"]
    assert [p["name"] for p in everyone] == ["Ana", "Bruno"]
    assert everyone[0]["rulebooks"][0]["series"] is None  # drawn on a player's page only
    [ana] = client.get("/api/records?player=Ana").json["players"]
    [mine] = ana["rulebooks"]
    assert (mine["games"], mine["wins"], mine["best"], mine["best_game"]) == (2, 1, 30, first)
    assert mine["feats"] == {"yams": 0.5}
    assert len(mine["series"]) == 2 and mine["series"][0][1:] == [30, first]
    assert mine["series"][1][2] == second
    hist = rb["histogram"]
    assert sum(hist["counts"]) == 4 and len(hist["edges"]) == len(hist["counts"]) + 1
    stick = hist["yardstick"]  # the shipped difficile games, in the same bins
    assert stick["games"] == 200 and stick["player"] == "difficile"
    assert sum(stick["counts"]) == 200 and 100 < stick["mean"] < 150


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("/api/records?rules=poker", "no rulebook 'poker'"),
        ("/api/records?player=Zoé", "no finished game of a player named 'Zoé'"),
        ("/api/records?table=grenier", "no table named 'grenier'"),
        ("/api/records/games/99", "no game 99"),
        ("/api/records/games/99/audit?seq=1", "no game 99"),
        ("/api/records/games/1/audit?player=Ana&box=Q", "'Ana' has written nothing in 'Q'"),
        ("/api/records/throws/99/photo.jpg", "no photo is kept of throw 99"),
        ("/api/export/photos.csv", "no export photos.csv"),
        ("/api/records/fairness?table=grenier", "no table named 'grenier'"),
    ],
)
def test_unknown_things_are_a_404_that_says_which(client: FlaskClient, url: str, said: str) -> None:
    Api(client, client.application.extensions["yamscope.session"]).game("yams", ["Ana"])
    r = client.get(url)
    assert r.status_code == 404 and r.json["status"] == 404
    assert said in r.json["error"], r.json


def test_bad_parameters_are_a_400(client: FlaskClient) -> None:
    assert client.get("/api/records/games?limit=lots").status_code == 400
    assert client.get("/api/records/games?offset=-1").status_code == 400
    assert client.get("/api/records?player=").status_code == 400


def test_the_audit_breaks_a_harmony_down_and_names_the_correction(
    api: Api, client: FlaskClient
) -> None:
    api.game("impossible", ["Ana"])
    assert api.throw([*HARMONY[:9], "3w"]).status_code == 200
    r = api.post("/api/correct", {"dice": HARMONY})  # the camera misread the last die
    assert r.status_code == 200
    assert api.post("/api/score", {"box": "double_carre"}).status_code == 200
    gid = api.session.game_id
    a = client.get(f"/api/records/games/{gid}/audit?player=Ana&box=double_carre").json
    assert (a["points"], a["base"], a["first_throw"]) == (600, 100, True)
    assert [(m["x"], m["why"]) for m in a["multipliers"]] == [
        (3, "premier jet"), (2, "harmonie des couleurs")
    ]  # fmt: skip
    assert a["multipliers"][1]["dice"] == [0, 1, 2, 3, 5, 6, 7, 8]
    assert a["multipliers"][1]["looks"] == ["r", "w"]
    [throw] = a["throws"]
    assert throw["dice"][9] == "3w" and throw["source"] == "manual" and not throw["photo"]
    [correction] = throw["corrections"]
    assert correction["changed"] == [{"place": 9, "from": "3w", "to": "1w"}]
    assert correction["client"] == "127.0.0.1" and correction["during"] == "Ana"
    assert a["origin"] == [0] * 10 and a["announced"] is None
    assert client.get(f"/api/records/games/{gid}/audit?seq={a['seq']}").json == a


def test_the_audit_says_how_an_announced_sixth_throw_ended(api: Api, client: FlaskClient) -> None:
    api.game("impossible", ["Ana"])
    dice = ["1r", "2r", "3r", "4r", "5r", "6w", "7w", "8w", "9w", "10w"]
    assert api.throw(dice).status_code == 200
    for _ in range(4):
        assert api.throw(dice, keep=list(range(10))).status_code == 200
    assert api.post("/api/announce", {"box": "yams_impossible"}).status_code == 200
    assert api.throw(dice, keep=list(range(10))).status_code == 200
    assert api.post("/api/score", {"box": None}).status_code == 200
    gid = api.session.game_id
    a = client.get(f"/api/records/games/{gid}/audit?player=Ana&box=yams_impossible").json
    assert a["announced"] == {"box": "yams_impossible", "label": "Yams Impossible",
                              "throw": "6e jet", "success": False}  # fmt: skip
    assert a["points"] == -800 and a["throw"] == 6 and len(a["throws"]) == 6
    assert a["throws"][4]["announced"] == "yams_impossible"
    assert a["origin"] == [0] * 10  # every die lay aside from the first throw on


def test_a_camera_throw_keeps_its_photo_and_where_each_die_was_read(
    session: TableSession, client: FlaskClient, api: Api
) -> None:
    from vision.reading import ReadDie, Reading

    api.game("yams", ["Ana"])
    read = tuple(
        ReadDie("d6", v, "white", "frosted", 0.99, (10 * i, 5, 10 * i + 8, 13))
        for i, v in enumerate((6, 6, 6, 2, 3))
    )
    photo = b"\xff\xd8\xff\xe0 a JPEG"
    session.camera_throw(Reading(read, 5.0, (640, 480)), snapshot=photo)
    api.post("/api/score", {"box": "6"})
    a = client.get(f"/api/records/games/{session.game_id}/audit?player=Ana&box=6").json
    [throw] = a["throws"]
    assert throw["source"] == "camera" and throw["photo"] is True
    assert throw["reading"]["size"] == [640, 480]
    assert [d["box"] for d in throw["reading"]["dice"]] == [list(d.box) for d in read]
    r = client.get(f"/api/records/throws/{throw['throw_id']}/photo.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data == photo


def test_history_replays_a_game_turn_by_turn(api: Api, client: FlaskClient) -> None:
    gid = quick_game(api, ["Ana", "Bruno"], ["6 6 6 6 6 > Q", "2 3 4 5 6 > G"])
    listed = client.get("/api/records/games").json
    assert listed["total"] == 1 and listed["games"][0]["scores"] == {"Ana": 30, "Bruno": 20}
    assert listed["games"][0]["winners"] == ["Ana"]
    game = client.get(f"/api/records/games/{gid}").json
    assert [(s["player"], s["box"], s["points"], s["scores"]) for s in game["steps"]] == [
        ("Ana", "Q", 30, {"Ana": 30, "Bruno": 0}),
        ("Bruno", "G", 20, {"Ana": 30, "Bruno": 20}),
    ]
    assert game["steps"][0]["throws"][0]["dice"] == ["6", "6", "6", "6", "6"]
    assert game["state"]["finished"] and game["state"]["winners"] == ["Ana"]


def test_export_from_the_page_and_the_command_agree(
    api: Api, client: FlaskClient, tmp_path: Path
) -> None:
    from device.cli import main

    quick_game(api, ["Ana", "Bruno"], ["6 6 6 6 6 > Q", "2 3 4 5 6 > G"])
    page = {
        kind: list(csv.DictReader(io.StringIO(client.get(f"/api/export/{kind}.csv").text)))
        for kind in ("games", "turns", "throws", "entries")
    }
    assert page["games"][0]["scores"] == "Ana 30 / Bruno 20"
    assert [(t["player"], t["box"], t["dice"]) for t in page["turns"]] == [
        ("Ana", "Q", "6 6 6 6 6"), ("Bruno", "G", "2 3 4 5 6")
    ]  # fmt: skip
    assert [t["source"] for t in page["throws"]] == ["manual", "manual"]
    as_json = client.get("/api/export/entries.json")
    assert as_json.headers["Content-Disposition"] == 'attachment; filename="entries.json"'
    assert [e["points"] for e in as_json.json] == [30, 20]
    db = str(api.session.store.path)
    assert main(["export", "--data", db, "--out", str(tmp_path / "out")]) == 0
    for kind, rows in page.items():
        written = (tmp_path / "out" / f"{kind}.csv").read_text()
        assert list(csv.DictReader(io.StringIO(written))) == rows
        assert len(json.loads((tmp_path / "out" / f"{kind}.json").read_text())) == len(rows)


def test_the_records_command(api: Api, capsys: pytest.CaptureFixture[str]) -> None:
    from device.cli import main

    quick_game(api, ["Ana", "Bruno"], ["6 6 6 6 6 > Q", "2 3 4 5 6 > G"])
    db = str(api.session.store.path)
    assert main(["records", "--data", db]) == 0
    out = capsys.readouterr().out
    assert "Cameroun (cameroun) : 1 parties" in out and "Ana" in out and "Quinte" in out
    assert main(["records", "--data", db, "--json", "--rules", "cameroun"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert data == records(api.session.store, rules="cameroun")
    assert main(["records", "--data", db, "--player", "Zoé"]) == 2
    assert "no finished game of a player named 'Zoé'" in capsys.readouterr().err
    assert main(["records", "--data", db, "--rules", "poker"]) == 2
    assert main(["records", "--data", str(Path(db).with_name("none.db"))]) == 2
    assert "no records file" in capsys.readouterr().err
