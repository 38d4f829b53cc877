"""The table's JSON API through Flask's test client: every route, and every refusal.

A refused request must change nothing: each refusal test compares the state version and
the stored event log before and after.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from device.listeners import MAX_LISTENERS, Listener, TooManyListeners
from device.store import Store, StoreError
from device.table import TableSession
from device.web import MAX_BODY, create_app
from scoring.entries import RulesError


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    s = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(7), cache_dir=tmp_path, advice=False
    )
    yield s
    s.close()


@pytest.fixture
def app(session: TableSession) -> Flask:
    return create_app(session)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def page_token(client: FlaskClient) -> str:
    page = client.get("/").get_data(as_text=True)
    boot = json.loads(
        re.search(r'<script type="application/json" id="boot">(.*?)</script>', page, re.S).group(1)
    )
    return boot["token"]


class Api:
    """A client that sends what the page sends."""

    def __init__(self, client: FlaskClient, session: TableSession, pin: str | None = None):
        self.client = client
        self.session = session
        self.token = page_token(client)
        self.pin = pin

    def post(self, path: str, body: Any = None, **headers: str) -> Any:
        sent = {"X-Yamscope-Token": self.token}
        if self.pin is not None:
            sent["X-Yamscope-Pin"] = self.pin
        sent |= headers
        return self.client.post(path, json=body, headers=sent)

    def game(self, rules: str = "yams", players: list[str] | None = None, **options: Any) -> dict:
        r = self.post(
            "/api/games", {"rules": rules, "players": players or ["Anne"], "options": options}
        )
        assert r.status_code == 201, r.json
        return r.json

    def throw(self, dice: list[str] | None = None, keep: list[int] | None = None) -> Any:
        body: dict[str, Any] = {"keep": keep or []}
        if dice is not None:
            body["dice"] = dice
        return self.post("/api/throw", body)

    def stored(self) -> int:
        gid = self.session.game_id
        return len(self.session.store.events(gid)) if gid is not None else 0


@pytest.fixture
def api(client: FlaskClient, session: TableSession) -> Api:
    return Api(client, session)


def refused(api: Api, status: int, path: str, body: Any = None, **kw: Any) -> dict:
    """Send a request that must be refused with ``status`` and change nothing."""
    version, stored = api.session.version, api.stored()
    r = api.post(path, body, **kw) if not kw.get("raw") else kw["raw"]()
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True))
    assert r.is_json and set(r.json) == {"error", "error_fr", "status"}
    assert r.json["status"] == status
    assert api.session.version == version
    assert api.stored() == stored
    return r.json


# -- the page and its files -----------------------------------------------------------------
def test_page_embeds_token_and_rules_and_sends_strict_headers(client: FlaskClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert 'lang="fr"' in html and "/static/table.js?v=" in html and "/static/table.css?v=" in html
    assert "http://" not in html and "https://" not in html  # nothing fetched from elsewhere
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    boot = json.loads(re.search(r'id="boot">(.*?)</script>', html, re.S).group(1))
    assert len(boot["token"]) >= 32 and boot["pin"] is False and boot["max_players"] == 6
    assert {r["id"] for r in boot["rules"]} == {"impossible", "yams", "yahtzee", "cameroun"}


@pytest.mark.parametrize(
    ("path", "mimetype"), [("table.js", "text/javascript"), ("table.css", "text/css")]
)
def test_static_files_are_served_with_etag(client: FlaskClient, path: str, mimetype: str) -> None:
    r = client.get(f"/static/{path}")
    assert r.status_code == 200 and r.mimetype == mimetype and r.headers["ETag"]
    again = client.get(f"/static/{path}", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
    body = r.get_data(as_text=True)
    assert "http://" not in body and "https://" not in body


def test_no_path_of_a_request_reaches_the_file_system(client: FlaskClient) -> None:
    for path in ("/static/../__init__.py", "/static/table.html", "/static/%2e%2e/api.py"):
        assert client.get(path).status_code == 404


def test_foreign_host_names_are_refused_without_a_pin(client: FlaskClient) -> None:
    # DNS rebinding: a page on evil.example resolving to 127.0.0.1 must not read the token
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/api/state", headers={"Host": "127.0.0.1:8600"}).status_code == 200


# -- reading ----------------------------------------------------------------------------------
def test_state_without_a_game(client: FlaskClient) -> None:
    r = client.get("/api/state")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert r.json["game"] is None and r.json["version"] >= 1 and r.json["tray"] == "none"


def test_rules_lists_every_option_with_its_legal_values(client: FlaskClient) -> None:
    rules = {r["id"]: r for r in client.get("/api/rules").json["rules"]}
    yams = {o["name"]: o for o in rules["yams"]["options"]}
    assert yams["brelan"]["choices"] == ["sum", "matching"] and yams["brelan"]["default"] == "sum"
    assert {o["name"]: o for o in rules["cameroun"]["options"]}["turns"]["bounds"] == [0, 100]
    assert rules["impossible"]["announced_throw"] == "6e jet"


def test_openapi_describes_exactly_the_routes_of_the_app(app: Flask, client: FlaskClient) -> None:
    spec = client.get("/api/openapi.json").json
    assert spec["openapi"].startswith("3.1")
    routes = {  # Flask's <int:game_id> is OpenAPI's {game_id}
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    described = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    assert routes == described
    for path, method in described:
        op = spec["paths"][path][method]
        if method == "post":
            ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            assert ref.split("/")[-1] in spec["components"]["schemas"]
            assert {"400", "403", "409", "413"} <= set(op["responses"])


# -- a game through the API -------------------------------------------------------------------
def test_new_game_throw_score_and_sheet(api: Api) -> None:
    state = api.game("yams", ["Anne", "Bruno"], brelan="matching")
    game = state["game"]
    assert game["options"]["brelan"] == "matching" and game["player"] == "Anne"
    assert [p["name"] for p in game["players"]] == ["Anne", "Bruno"]
    rows = [r["id"] if r["kind"] == "box" else r["key"] for r in game["sheet"]["rows"]]
    assert rows == ["1", "2", "3", "4", "5", "6", "haut", "prime", "brelan", "carre", "full",
                    "petite_suite", "grande_suite", "yams", "chance", "bas", "total"]  # fmt: skip
    r = api.throw()
    assert r.status_code == 200
    game = r.json["game"]
    assert len(game["dice"]) == 5 and game["throw"] == 1 and game["can_throw"]
    assert game["suggestions"] and all(
        {"box", "points", "why", "label", "multipliers"} <= set(s) for s in game["suggestions"]
    )
    points = [s["points"] for s in game["suggestions"]]
    assert points == sorted(points, reverse=True)
    kept = [0, 2]
    r = api.throw(keep=kept)
    assert r.status_code == 200
    again = r.json["game"]
    assert [again["dice"][i]["value"] for i in kept] == [game["dice"][i]["value"] for i in kept]
    assert [i for i, d in enumerate(again["dice"]) if d["kept"]] == kept
    best = again["suggestions"][0]
    r = api.post("/api/score", {"box": best["box"]})
    assert r.status_code == 200
    after = r.json["game"]
    assert after["player"] == "Bruno" and after["dice"] is None and after["throw"] == 0
    assert after["sheets"][0]["cells"][best["box"]] == best["points"]
    assert after["recent"][0]["box"] == best["box"] and after["recent"][0]["player"] == "Anne"
    assert api.session.store.entries(api.session.game_id)[0]["box"] == best["box"]


def test_throw_with_given_dice_and_correction_change_the_suggestions(api: Api) -> None:
    api.game("yams")
    first = api.throw(dice=["3", "3", "3", "5", "5"]).json["game"]
    assert first["suggestions"][0]["box"] == "full"
    r = api.post("/api/correct", {"dice": ["3", "3", "3", "3", "5"]})
    assert r.status_code == 200
    game = r.json["game"]
    assert [d["value"] for d in game["dice"]] == [3, 3, 3, 3, 5] and game["throw"] == 1
    assert "full" not in [s["box"] for s in game["suggestions"] if s["points"]]
    assert {s["box"] for s in game["suggestions"] if s["points"]} >= {"carre", "brelan"}
    assert api.session.store.corrections()[0]["after"] == "3 3 3 3 5"


def test_undo_reopens_the_turn(api: Api) -> None:
    api.game("yams", ["Anne", "Bruno"])
    api.throw(dice=["6", "6", "6", "2", "1"])
    api.post("/api/score", {"box": "6"})
    r = api.post("/api/undo", {})
    assert r.status_code == 200
    game = r.json["game"]
    assert game["player"] == "Anne" and game["sheets"][0]["cells"]["6"] is None
    assert [d["text"] for d in game["dice"]] == ["6", "6", "6", "2", "1"]
    assert api.session.store.entries(api.session.game_id)[0]["undone"]


def test_announced_sixth_throw(api: Api) -> None:
    api.game("impossible", ["Anne"])
    ten = ["1r", "2r", "3r", "4r", "5r", "1w", "2w", "3w", "4w", "6w"]
    for n in range(5):
        state = api.throw(dice=ten, keep=list(range(10)) if n else []).json
    game = state["game"]
    assert "suite_ridicule" in game["announceable"] and "1" not in game["announceable"]
    refused(api, 409, "/api/announce", {"box": "1"})  # never for the chiffres
    r = api.post("/api/announce", {"box": "suite_royale"})
    assert r.status_code == 200
    game = r.json["game"]
    assert game["announced"] == "suite_royale" and game["must_throw"] and not game["suggestions"]
    game = api.throw(dice=ten, keep=list(range(10))).json["game"]
    assert [s["box"] for s in game["suggestions"]] == ["suite_royale"]
    assert game["suggestions"][0]["points"] == -100
    r = api.post("/api/score", {"box": None})
    assert r.status_code == 200 and r.json["game"]["sheets"][0]["cells"]["suite_royale"] == -100


def test_cameroun_columns_close_for_everyone(api: Api) -> None:
    game = api.game("cameroun", ["Anne", "Bruno"])["game"]
    assert game["sheet"]["layout"] == "columns"
    api.throw(dice=["1", "2", "3", "4", "5"])
    game = api.post("/api/score", {"box": "P"}).json["game"]
    columns = {c["id"]: c for c in game["sheet"]["columns"]}
    assert columns["P"]["closed"] and columns["4"]["capacity"] == 24 and columns["4"]["total"] == 0
    assert "P" in game["closed"]
    game = api.throw(dice=["1", "2", "3", "4", "5"]).json["game"]
    assert "P" not in {s["box"] for s in game["suggestions"]}


def test_finished_game_names_the_winner(api: Api) -> None:
    api.game("cameroun", ["Anne"], turns=1)
    api.throw(dice=["6", "6", "6", "6", "6"])
    game = api.post("/api/score", {"box": "Q"}).json["game"]
    assert game["finished"] and game["winners"] == ["Anne"] and game["player"] is None
    assert not game["can_throw"]
    refused(api, 409, "/api/throw", {})


# -- computer players -------------------------------------------------------------------------
def test_computers_play_their_turn_after_a_human_entry(api: Api) -> None:
    api.game("yams", ["facile", "Anne", "facile"])
    assert api.session.wait_idle()
    state = api.session.state()["game"]
    assert [p["name"] for p in state["players"]] == ["Ordi facile", "Anne", "Ordi facile 2"]
    assert state["player"] == "Anne" and state["recent"][0]["player"] == "Ordi facile"
    refused(api, 409, "/api/undo", {})  # no human entry to take back
    api.throw(dice=["2", "2", "2", "2", "2"])
    api.post("/api/score", {"box": "yams"})
    assert api.session.wait_idle()
    game = api.session.state()["game"]
    assert game["player"] == "Anne" and game["turn"] == 5
    assert [r["player"] for r in game["recent"][:2]] == ["Ordi facile", "Ordi facile 2"]
    # undo takes back the computers' entries too, or they would play again at once
    game = api.post("/api/undo", {}).json["game"]
    assert game["player"] == "Anne" and game["sheets"][1]["cells"]["yams"] is None
    assert game["turn"] == 2 and game["sheets"][0]["cells"] != {}
    entries = api.session.store.entries(api.session.game_id)
    assert [e["undone"] for e in entries] == [False, True, True, True]


def test_humans_cannot_act_during_a_computer_turn(tmp_path: Path) -> None:
    quiet = TableSession(Store(tmp_path / "q.db"), advice=False, worker=False)
    try:
        api = Api(create_app(quiet).test_client(), quiet)
        api.game("yams", ["facile", "Anne"])  # no worker: the computer's turn stays due
        assert "computer" in refused(api, 409, "/api/throw", {})["error"]
    finally:
        quiet.close()


def test_a_computer_kind_without_a_player_is_refused(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(kind: str, rules: str, cache_dir: str | None = None) -> Any:
        raise ValueError(f"no {kind} player for {rules} yet")

    monkeypatch.setattr("device.table.computer_player", missing)
    refused(api, 409, "/api/games", {"rules": "yams", "players": ["Anne", "difficile"]})
    assert api.session.store.games() == []


def test_a_computer_that_cannot_play_is_reported_not_retried(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken:
        def keep(self, game: Any) -> None:
            return None

        def announce(self, game: Any) -> None:
            return None

        def choose(self, game: Any) -> str:
            raise RulesError("lost its pencil")

    monkeypatch.setattr("device.table.computer_player", lambda *args: Broken())
    api.game("yams", ["facile", "Anne"])
    assert api.session.wait_idle()
    state = api.session.state()
    assert state["computer_error"] == "lost its pencil"
    assert state["game"]["player"] == "Ordi facile" and state["game"]["throw"] == 1
    assert len(api.session.store.throws(api.session.game_id)) == 1  # its throw is kept


# -- refusals: bad input (400), rules (409) ---------------------------------------------------
@pytest.mark.parametrize(
    "body",
    [
        {"rules": "poker", "players": ["A"]},
        {"rules": "yams"},
        {"rules": "yams", "players": "Anne"},
        {"rules": "yams", "players": []},
        {"rules": "yams", "players": ["A", "B", "C", "D", "E", "F", "G"]},
        {"rules": "yams", "players": [""]},
        {"rules": "yams", "players": ["x" * 25]},
        {"rules": "yams", "players": ["Anne", "anne"]},
        {"rules": "yams", "players": ["Ordi facile"]},
        {"rules": "yams", "players": ["A\u0000B"]},
        {"rules": "yams", "players": [3]},
        {"rules": "yams", "players": ["A"], "options": {"colour": True}},
        {"rules": "yams", "players": ["A"], "options": {"brelan": "most"}},
        {"rules": "yams", "players": ["A"], "options": {"yams_bonus": "100"}},
        {"rules": "yams", "players": ["A"], "options": {"in_order": 1}},
        {"rules": "yams", "players": ["A"], "options": []},
        {"rules": "cameroun", "players": ["A"], "options": {"turns": 101}},
        {"rules": "yams", "players": ["A"], "extra": 1},
        ["yams"],
    ],
)
def test_bad_new_games_are_refused(api: Api, body: Any) -> None:
    refused(api, 400, "/api/games", body)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/throw", {"keep": [5]}),
        ("/api/throw", {"keep": [0, 0]}),
        ("/api/throw", {"keep": [True]}),
        ("/api/throw", {"keep": "0 1"}),
        ("/api/throw", {"dice": ["7x"]}),
        ("/api/throw", {"dice": "3 3 3 3 3"}),
        ("/api/throw", {"dice": ["1"] * 13}),
        ("/api/throw", {"what": 1}),
        ("/api/correct", {}),
        ("/api/correct", {"dice": ["3", "../3"]}),
        ("/api/correct", {"dice": []}),
        ("/api/score", {}),
        ("/api/score", {"box": 3}),
        ("/api/score", {"box": "../../etc"}),
        ("/api/announce", {"box": None}),
        ("/api/undo", {"now": True}),
        ("/api/undo", []),
        ("/api/keep", {}),
        ("/api/keep", {"keep": [9]}),
        ("/api/keep", {"keep": "0 1"}),
        ("/api/keep", {"keep": [1, 1]}),
        ("/api/calibrate", {"now": True}),
        ("/api/calibrate", []),
    ],
)
def test_bad_actions_are_refused(api: Api, path: str, body: Any) -> None:
    api.game("yams", ["Anne", "Bruno"])
    api.throw(dice=["1", "2", "3", "4", "5"])
    refused(api, 400, path, body)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/throw", {"dice": ["1", "2", "3"]}),  # three dice for yams
        ("/api/throw", {"dice": ["7", "2", "3", "4", "5"]}),  # a d6 shows no 7
        ("/api/throw", {"dice": ["2", "2", "3", "4", "5"], "keep": [0]}),  # kept die changed
        ("/api/correct", {"dice": ["1r", "2", "3", "4", "5"]}),  # no colours in yams
        ("/api/score", {"box": "youpi_yams"}),  # not a yams box
        ("/api/score", {"box": None}),  # no announced throw
        ("/api/announce", {"box": "full"}),  # yams has no announced throw
    ],
)
def test_actions_the_rules_refuse_change_nothing(api: Api, path: str, body: Any) -> None:
    api.game("yams", ["Anne", "Bruno"])
    api.throw(dice=["1", "2", "3", "4", "5"])
    assert refused(api, 409, path, body)["error"]


def test_rules_refusals_at_the_edges_of_a_turn(api: Api) -> None:
    assert "no camera" in refused(api, 409, "/api/calibrate", {})["error"]
    refused(api, 409, "/api/throw", {})  # no game yet
    refused(api, 409, "/api/undo", {})
    api.game("yams")
    refused(api, 409, "/api/throw", {"keep": [0]})  # nothing to keep before the first throw
    refused(api, 409, "/api/score", {"box": "chance"})  # nothing thrown yet
    refused(api, 409, "/api/correct", {"dice": ["1", "1", "1", "1", "1"]})
    refused(api, 409, "/api/undo", {})
    for _ in range(3):
        assert api.throw().status_code == 200
    refused(api, 409, "/api/throw", {})  # a fourth throw


def test_dice_set_aside_are_shared_by_every_screen(api: Api, client: FlaskClient) -> None:
    api.game("yams")
    refused(api, 409, "/api/keep", {"keep": [0]})  # nothing thrown yet
    api.throw(dice=["6", "6", "2", "3", "6"])
    r = api.post("/api/keep", {"keep": [4, 0, 1]})
    assert r.status_code == 200 and r.json["keep"] == [0, 1, 4]
    assert client.get("/api/state").json["keep"] == [0, 1, 4]
    assert api.throw(keep=[0, 1, 4]).json["keep"] is None  # a new throw, nothing set aside yet


def test_health_and_live_view_without_a_camera(client: FlaskClient) -> None:
    health = client.get("/api/health").json
    assert health["tray"] == "none" and health["camera"] is None  # no camera: not "simulated"
    assert health["version"]
    r = client.get("/api/live.jpg")
    assert r.status_code == 404 and r.json["status"] == 404


def test_json_errors_for_unknown_routes_and_methods(client: FlaskClient) -> None:
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json["status"] == 404
    r = client.get("/api/throw")
    assert r.status_code == 405 and r.json["status"] == 405


# -- CSRF, PIN, sizes -------------------------------------------------------------------------
def test_actions_need_the_page_token_and_json(api: Api, client: FlaskClient) -> None:
    body = {"rules": "yams", "players": ["A"]}
    raw = lambda **kw: lambda: client.post("/api/games", **kw)  # noqa: E731
    refused(api, 403, "/api/games", raw=raw(json=body))
    refused(api, 403, "/api/games", raw=raw(json=body, headers={"X-Yamscope-Token": "guess"}))
    token = {"X-Yamscope-Token": api.token}
    form = raw(data={"rules": "yams"}, headers=token)
    refused(api, 415, "/api/games", raw=form)
    text = raw(data=json.dumps(body), headers=token, content_type="text/plain")
    refused(api, 415, "/api/games", raw=text)
    broken = raw(data="{not json", headers=token, content_type="application/json")
    refused(api, 400, "/api/games", raw=broken)
    assert client.get("/api/state").status_code == 200  # reading needs no token


def test_oversize_bodies_are_refused(api: Api, client: FlaskClient) -> None:
    api.game("yams")
    big = json.dumps({"keep": [], "pad": "x" * MAX_BODY})
    r = lambda: client.post(  # noqa: E731
        "/api/throw",
        data=big,
        content_type="application/json",
        headers={"X-Yamscope-Token": api.token},
    )
    refused(api, 413, "/api/throw", raw=r)


def test_a_pin_guards_every_changing_action(session: TableSession) -> None:
    client = create_app(session, pin="4321").test_client()
    api = Api(client, session, pin="4321")
    boot = client.get("/").get_data(as_text=True)
    assert '"pin": true' in boot
    assert client.get("/", headers={"Host": "yamscope.local:8600"}).status_code == 200
    assert api.post("/api/games", {"rules": "yams", "players": ["A"]}).status_code == 201
    for pin in (None, "0000"):
        api.pin = pin
        refused(api, 403, "/api/throw", {})
        refused(api, 403, "/api/calibrate", {})
    api.pin = "4321"
    assert api.throw().status_code == 200


def test_wrong_pins_are_throttled(session: TableSession) -> None:
    client = create_app(session, pin="4321").test_client()
    api = Api(client, session, pin="0000")
    codes = [api.post("/api/undo", {}).status_code for _ in range(6)]
    assert codes == [403] * 5 + [429]
    api.pin = "4321"
    assert api.post("/api/undo", {}).status_code == 429  # even the right one, for a while


# -- the records stay in step -----------------------------------------------------------------
def test_a_failed_write_leaves_the_game_as_stored(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.game("yams")
    api.throw(dice=["1", "2", "3", "4", "5"])
    before = api.session.state()["game"]

    def broken(*args: Any, **kwargs: Any) -> None:
        raise StoreError("disk full")

    monkeypatch.setattr(api.session.store, "append", broken)
    r = api.post("/api/score", {"box": "chance"})
    assert r.status_code == 500 and "disk full" in r.json["error"]
    monkeypatch.undo()
    after = api.session.state()["game"]
    assert after["sheets"] == before["sheets"] and after["dice"] == before["dice"]
    assert api.post("/api/score", {"box": "chance"}).status_code == 200


def test_a_new_session_resumes_the_latest_open_game(api: Api, tmp_path: Path) -> None:
    api.game("yams", ["Anne", "Bruno"])
    api.throw(dice=["4", "4", "4", "1", "2"])
    api.post("/api/score", {"box": "4"})
    api.throw(dice=["6", "6", "1", "2", "3"])
    before = api.session.state()["game"]
    again = TableSession(Store(tmp_path / "t.db"), advice=False)
    try:
        after = again.state()["game"]
        for key in ("id", "sheets", "dice", "player", "throw", "suggestions", "recent"):
            assert after[key] == before[key], key
    finally:
        again.close()


def test_a_restart_shows_the_game_finished_last_not_an_older_abandoned_one(
    tmp_path: Path,
) -> None:
    first = TableSession(Store(tmp_path / "t.db"), advice=False, worker=False)
    first.new_game("yams", {}, ["Anne"])
    first.throw("1 2 3 4 5")  # then abandoned: a new game is started over it
    first.new_game("yams", {}, ["Bruno"])
    latest = first.game_id
    for box in ("1", "2", "3", "4", "5", "6", "brelan", "carre", "full", "petite_suite",
                "grande_suite", "yams", "chance"):  # fmt: skip
        first.throw("1 2 3 4 5")
        first.score(box)
    shown = first.state()["game"]
    assert shown["finished"] and shown["id"] == latest
    first.close()
    again = TableSession(Store(tmp_path / "t.db"), advice=False, worker=False)
    try:
        after = again.state()["game"]
        assert after["id"] == latest and after["finished"]
        assert after["sheets"] == shown["sheets"] and after["winners"] == shown["winners"]
    finally:
        again.close()


# -- pushed states ----------------------------------------------------------------------------
def _events(response: Any) -> Iterator[dict]:
    for chunk in response.response:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        for block in text.split("\n\n"):
            data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
            if data:
                yield json.loads("".join(data))


def test_events_push_the_newest_state(api: Api, client: FlaskClient) -> None:
    r = client.get("/api/events", buffered=False)
    try:
        assert r.status_code == 200 and r.mimetype == "text/event-stream"
        stream = _events(r)
        first = next(stream)
        assert first["version"] == api.session.version and first["game"] is None
        api.game("yams")
        pushed = next(stream)
        assert pushed["version"] > first["version"] and pushed["game"]["rules"] == "yams"
    finally:
        r.close()
    assert not api.session._listeners  # the client's mailbox went with it


def test_a_slow_listener_gets_only_the_newest_state() -> None:
    listener = Listener()
    for version in range(1, 6):
        listener.offer({"version": version})
    assert listener.next(timeout=0) == {"version": 5}
    assert listener.dropped == 4
    assert listener.next(timeout=0.01) is None


def test_too_many_listeners_are_refused(session: TableSession, client: FlaskClient) -> None:
    held = [session.add_listener(client=f"10.0.{i}.1") for i in range(MAX_LISTENERS)]
    with pytest.raises(TooManyListeners):
        session.add_listener(client="10.0.99.1")
    r = client.get("/api/events", environ_base={"REMOTE_ADDR": "10.0.99.1"})
    assert r.status_code == 503 and r.json["status"] == 503
    kiosk = client.get("/api/events", buffered=False)  # 127.0.0.1: this machine's screen
    try:
        assert kiosk.status_code == 200  # the network's streams do not shut it out
    finally:
        kiosk.close()
    for listener in held:
        session.remove_listener(listener)


# -- advice -----------------------------------------------------------------------------------
_KEEP = {"action": "keep", "keep": [6, 6], "dice": [0, 1], "value": 200.0, "loss": 0.0,
         "fill": {"6": 0.6}}  # fmt: skip
SCORE_ADVICE = {
    "objective": "score",
    "value": 200.0,
    "best": _KEEP,
    "keeps": [_KEEP] * 9,
    "entries": [{"box": "6", "entry_points": 12, "bonus": 0, "value": 190.0, "loss": 10.0,
                 "why": "Six"}],
    "announces": [],
}  # fmt: skip


NEW_ADVICE = {
    "objective": "win",
    "value": 0.61,
    "best": {"action": "announce", "box": "Q", "keep": [6, 6, 6], "dice": [0, 1, 2],
             "value": 0.61, "loss": 0.0, "fill": {"Q": 0.3}, "crossed": {"Q": 0.7}},
    "entries": [{"box": "6", "entry_points": 18, "value": 0.5, "loss": 0.11, "fill": {}}] * 8,
    "keeps": [],
    "announces": [],
}  # fmt: skip


def test_advice_arrives_by_push_when_ready(tmp_path: Path) -> None:
    calls = []

    def advisor(game: Any) -> Any:
        calls.append(game.throw_no)
        if game.rules == "impossible":
            raise RulesError("no advisor for impossible yet")
        return SCORE_ADVICE if game.rules == "yams" else NEW_ADVICE

    s = TableSession(Store(tmp_path / "t.db"), advisor=advisor, cache_dir=tmp_path)
    try:
        s.new_game("yams", {}, ["Anne"])
        assert s.state()["advice"] is None and not s.state()["advice_pending"]
        s.throw("6 6 1 2 3")
        assert s.wait_idle()
        state = s.state()
        assert not state["advice_pending"] and calls == [1]
        advice = state["advice"]
        assert advice["objective"] == "score" and advice["value"] == 200.0
        assert advice["best"] == {"action": "keep", "keep": [6, 6], "dice": [0, 1],
                                  "value": 200.0, "loss": 0.0}  # fmt: skip
        assert len(advice["keeps"]) == 6 and advice["entries"][0]["entry_points"] == 12
        s.new_game("cameroun", {}, ["Anne", "Bruno"])
        s.throw("6 6 6 2 3")
        assert s.wait_idle()
        advice = s.state()["advice"]
        assert advice["objective"] == "win" and advice["best"]["action"] == "announce"
        assert "fill" not in advice["best"] and "crossed" not in advice["best"]
        assert len(advice["entries"]) == 6
        s.new_game("impossible", {}, ["Anne"])
        s.throw("1r 2r 3r 4r 5r 1w 2w 3w 4w 6w")
        assert s.wait_idle()
        assert s.state()["advice"] is None and not s.state()["advice_pending"]
    finally:
        s.close()


def test_a_computer_cut_off_mid_turn_finishes_it_after_a_restart(tmp_path: Path) -> None:
    first = TableSession(Store(tmp_path / "t.db"), advice=False, worker=False)
    first.new_game("yams", {}, ["facile", "Anne"])
    game = first.game
    assert game is not None and first.game_id is not None
    game.throw("1 1 1 2 3")  # the computer's first throw, kept, then the power went
    first.store.append(first.game_id, game)
    first.close()
    again = TableSession(Store(tmp_path / "t.db"), advice=False, rng=random.Random(3))
    try:
        assert again.wait_idle()
        state = again.state()["game"]
        assert state["player"] == "Anne" and state["recent"][0]["player"] == "Ordi facile"
        throws = again.store.throws(again.game_id)
        assert throws[0]["dice"] == "1 1 1 2 3" and len(throws) <= 3  # not thrown afresh
        assert [t["throw"] for t in throws] == list(range(1, len(throws) + 1))
    finally:
        again.close()


def test_a_computer_player_that_cannot_be_made_is_reported_once(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = []

    def flaky(kind: str, rules: str, cache_dir: str | None = None) -> Any:
        made.append(kind)
        if len(made) > 1:  # accepted at the start of the game, gone when its turn comes
            raise ValueError("the strategy file is unreadable")
        from scoring.computer import Facile

        return Facile()

    monkeypatch.setattr("device.table.computer_player", flaky)
    api.game("yams", ["difficile", "Anne"])
    assert api.session.wait_idle()
    assert api.session.state()["computer_error"] == "the strategy file is unreadable"
    assert len(made) == 2  # tried once, not in a loop
