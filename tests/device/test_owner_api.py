"""The owner's JSON API through Flask's test client: the PIN, the settings file written,
refusals that change nothing, backup and restore, power, the phones' QR code, the log."""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from device.config import Config, load_config
from device.logbook import Logbook
from device.power import Power, under_unit
from device.storage import Store
from device.table import TableSession
from device.web import create_app
from device.web.owner import Owner, install_owner
from scoring.game import Game

PIN = "4831"


class Client:
    """What the owner's page sends: the page token, the PIN when asked for."""

    def __init__(self, client: FlaskClient, pin: str | None) -> None:
        self.client = client
        page = client.get("/owner").get_data(as_text=True)
        boot = re.search(r'<script type="application/json" id="boot">(.*?)</script>', page, re.S)
        assert boot, page
        self.token = json.loads(boot.group(1))["token"]
        self.pin = pin

    def headers(self, **extra: str) -> dict[str, str]:
        out = {"X-Yamscope-Token": self.token, **extra}
        if self.pin is not None:
            out["X-Yamscope-Pin"] = self.pin
        return out

    def get(self, path: str) -> Any:
        return self.client.get(path, headers=self.headers())

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        if "data" in kwargs:
            return self.client.post(
                path, headers=self.headers(**kwargs.pop("headers", {})), **kwargs
            )
        return self.client.post(path, json=body, headers=self.headers())


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableSession, Owner, Path]]:
    records = tmp_path / "yamscope.db"
    session = TableSession(Store(records), rng=random.Random(3), cache_dir=tmp_path, advice=False)
    yield (
        session,
        Owner(Config(), tmp_path / "yamscope.toml", records, Power(), "127.0.0.1", 8600),
        records,
    )
    session.close()


def client_for(table: tuple[TableSession, Owner, Path], pin: str | None = None) -> Client:
    session, owner, _ = table
    owner.pin = pin
    app = create_app(session, pin=pin)
    install_owner(app, owner)
    return Client(app.test_client(), pin)


def test_reading_the_settings_needs_the_pin_when_one_is_set(table: Any) -> None:
    api = client_for(table, PIN)
    assert api.get("/api/owner/settings").status_code == 200
    api.pin = "0000"
    refused = api.get("/api/owner/settings")
    assert refused.status_code == 403 and refused.json["error_fr"] == "PIN absent ou faux"
    assert api.get("/api/owner/log").status_code == 403
    assert api.post("/api/owner/restart", {"confirm": True}).status_code == 403
    assert table[1].power.wanted is None
    # the pictures and the page itself are for anyone who can load the page
    assert api.get("/owner").status_code == 200
    assert api.get("/api/owner/status").status_code == 200
    # the page's own files load before the PIN is asked
    for name in ("dom.js", "owner.js", "owner.css"):
        assert api.client.get(f"/static/{name}").status_code == 200


def test_settings_are_written_and_the_live_ones_applied(table: Any) -> None:
    session, owner, _ = table
    api = client_for(table)
    saved = api.post(
        "/api/owner/settings",
        {"values": {"table.computer_pace": 0.25, "table.rules": "yams", "server.port": 8601}},
    )
    assert saved.status_code == 200, saved.json
    assert saved.json["changed"] == ["server.port", "table.rules", "table.computer_pace"]
    assert saved.json["restart"] == ["server.port", "table.rules"]
    assert session.computer_pace == 0.25  # at once
    written = load_config(owner.config_path)
    assert (written.server.port, written.table.rules) == (8601, "yams")
    shown = {f["key"]: f for f in api.get("/api/owner/settings").json["fields"]}
    assert shown["server.port"]["value"] == 8601 and shown["server.port"]["default"] == 8600


def test_a_bad_settings_body_changes_nothing(table: Any) -> None:
    session, owner, _ = table
    api = client_for(table)
    api.post("/api/owner/settings", {"values": {"server.port": 8601}})
    before = owner.config_path.read_text(encoding="utf-8")
    for body, said in [
        ({"values": {"server.port": "8602"}}, "server.port: must be a whole number"),
        ({"values": {"table.computer_pace": 99}}, "must be 0-10"),
        ({"values": {"server.host": "0.0.0.0"}}, "server.pin: required when host is not"),
        ({"values": {"server.pin": "1234"}}, "the PIN is set on its own"),
        ({"values": {"table.nope": 1}}, "unknown key"),
        ({"values": {"x": [1]}}, "values.x"),
        ({"extra": 1, "values": {}}, "extra"),
    ]:
        refused = api.post("/api/owner/settings", body)
        assert refused.status_code == 400, (body, refused.json)
        assert said in refused.json["error"], (body, refused.json)
        assert refused.json["error_fr"]
    assert owner.config_path.read_text(encoding="utf-8") == before
    assert session.computer_pace == 0.0


def test_the_pin_and_phones(table: Any) -> None:
    _, owner, _ = table
    api = client_for(table)
    saved = api.post("/api/owner/pin", {"pin": "1234", "phones": True})
    assert saved.status_code == 200 and saved.json["common"]  # a run: warned
    server = load_config(owner.config_path).server
    assert (server.pin, server.host) == ("1234", "0.0.0.0")
    assert set(saved.json["restart"]) == {"server.pin", "server.host"}
    assert "1234" not in json.dumps(api.get("/api/owner/settings").json)
    bad = api.post("/api/owner/pin", {"pin": "12", "phones": True})
    assert bad.status_code == 400 and "4 to 8 digits" in bad.json["error"]
    removed = api.post("/api/owner/pin", {"pin": None})
    assert removed.status_code == 200
    server = load_config(owner.config_path).server
    assert (server.pin, server.host) == (None, "127.0.0.1")


def add_game(store: Store, player: str) -> None:
    store.create(Game("yams", [player]))


def test_backup_download_and_a_refused_restore(table: Any, tmp_path: Path) -> None:
    session, owner, records = table
    add_game(session.store, "Ana")
    api = client_for(table)
    got = api.post("/api/owner/backup", {})
    assert got.status_code == 200 and got.mimetype == "application/vnd.sqlite3"
    assert re.match(
        r'attachment; filename="yamscope-\d{8}-\d{4}\.db"', got.headers["Content-Disposition"]
    )
    assert got.data.startswith(b"SQLite format 3\x00")
    assert [p.name for p in tmp_path.glob(".backup-*")] == []  # the copy sent was removed
    copy = tmp_path / "copy.db"
    copy.write_bytes(got.data)
    assert [g["players"] for g in Store(copy).games()] == [["Ana"]]

    def restore(
        data: bytes, confirm: str = "restore", kind: str = "application/octet-stream"
    ) -> Any:
        return api.post(
            "/api/owner/restore",
            data=data,
            headers={"Content-Type": kind, "X-Yamscope-Confirm": confirm},
        )

    for answer, said in [
        (restore(b"not a database at all"), "not an SQLite file"),
        (restore(got.data, confirm="yes"), "confirm it"),
        (restore(got.data, kind="text/plain"), "application/octet-stream"),
        (restore(b""), "empty"),
    ]:
        assert answer.status_code in (400, 415), answer.json
        assert said in answer.json["error"]
    assert [g["players"] for g in session.store.games()] == [["Ana"]]
    assert owner.power.wanted is None
    assert not records.with_name("yamscope.db.before-restore").exists()


def test_a_good_restore_replaces_the_records_and_restarts(table: Any, tmp_path: Path) -> None:
    session, owner, records = table
    add_game(session.store, "Ana")
    other = Store(tmp_path / "other.db")
    add_game(other, "Zoé")
    add_game(other, "Yann")
    other.close()
    api = client_for(table)
    done = api.post(
        "/api/owner/restore",
        data=(tmp_path / "other.db").read_bytes(),
        headers={"Content-Type": "application/octet-stream", "X-Yamscope-Confirm": "restore"},
    )
    assert done.status_code == 200, done.json
    assert done.json["games"] == 2 and done.json["restart"] == "exec"
    assert [g["players"] for g in session.store.games()] == [["Zoé"], ["Yann"]]
    assert owner.power.wanted == "restart"
    kept = Store(records.with_name("yamscope.db.before-restore"))
    assert [g["players"] for g in kept.games()] == [["Ana"]]


def test_postgresql_records_are_backed_up_with_pg_dump(table: Any, pg_url: str) -> None:
    _, owner, _ = table
    session = TableSession(Store(pg_url), cache_dir=owner.config_path.parent, advice=False)
    try:
        owner.records = pg_url
        api = client_for((session, owner, Path()))
        refused = api.post("/api/owner/backup", {})
        assert refused.status_code == 409 and "pg_dump" in refused.json["error"]
        assert "pg_dump" in refused.json["error_fr"]
        restore = api.post(
            "/api/owner/restore",
            data=b"SQLite format 3\x00",
            headers={"Content-Type": "application/octet-stream", "X-Yamscope-Confirm": "restore"},
        )
        assert restore.status_code == 409 and "pg_restore" in restore.json["error"]
        assert api.get("/api/owner/status").json["records"] == "postgresql"
    finally:
        session.close()


def test_shutting_down_is_refused_outside_the_unit(table: Any) -> None:
    _, owner, _ = table
    api = client_for(table)
    assert api.post("/api/owner/shutdown", {}).status_code == 400  # no confirmation
    refused = api.post("/api/owner/shutdown", {"confirm": True})
    assert refused.status_code == 409
    assert "not the installed service" in refused.json["error"]
    assert "sudo poweroff" in refused.json["error_fr"]
    assert owner.power.wanted is None
    restart = api.post("/api/owner/restart", {"confirm": True})
    assert restart.json == {"restart": "exec"} and owner.power.wanted == "restart"


def test_under_the_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cgroup = tmp_path / "cgroup"
    cgroup.write_text("0::/system.slice/yamscope.service\n")
    monkeypatch.delenv("INVOCATION_ID", raising=False)
    assert not under_unit(cgroup)  # not started by systemd
    monkeypatch.setenv("INVOCATION_ID", "5f0c7d9e")
    assert under_unit(cgroup)
    cgroup.write_text("0::/user.slice/user-1000.slice/session-2.scope\n")
    assert not under_unit(cgroup)
    # under the unit: a restart is an exit status for systemd; poweroff is asked of systemd
    cgroup.write_text("0::/system.slice/yamscope.service\n")
    power = Power(cgroup=cgroup)
    asked: list[list[str]] = []

    def systemctl(command: list[str]) -> Any:
        import subprocess

        asked.append(command)
        return subprocess.CompletedProcess(command, 0, "", "")

    power.shutdown(run=systemctl)
    assert asked == [["systemctl", "poweroff"]] and power.wanted == "shutdown"
    assert power.restart() == "systemd" and power.finish() == 75


def test_the_qr_code_is_for_a_table_open_to_phones(table: Any) -> None:
    _, owner, _ = table
    api = client_for(table)
    closed = api.get("/api/owner/join")
    assert closed.json["url"] is None and "only on this machine" in closed.json["why_not"]
    assert api.get("/api/owner/join.svg").status_code == 404
    owner.host = "192.168.1.40"
    found = api.get("/api/owner/join").json
    assert found["url"] == "http://192.168.1.40:8600/"
    svg = api.get("/api/owner/join.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    assert b'xmlns="http://www.w3.org/2000/svg"' in svg.data
    assert svg.data.count(b"<path") >= 1 and len(svg.data) > 500


def test_the_log_gives_the_lines_after_the_last_one_seen(table: Any) -> None:
    _, owner, _ = table
    owner.logbook = Logbook(size=3)
    logger = logging.getLogger("yamscope.test")
    logger.addHandler(owner.logbook)
    logger.setLevel(logging.INFO)
    try:
        for n in range(5):
            logger.info("line %d", n)
    finally:
        logger.removeHandler(owner.logbook)
    api = client_for(table)
    lines = api.get("/api/owner/log").json["lines"]
    assert [line["text"].rsplit(" ", 1)[-1] for line in lines] == ["2", "3", "4"]
    assert [
        line["text"].rsplit(" ", 1)[-1]
        for line in api.get(f"/api/owner/log?after={lines[1]['n']}").json["lines"]
    ] == ["4"]
    assert api.get("/api/owner/log?after=x").status_code == 400


def test_health_says_what_it_reads(table: Any) -> None:
    api = client_for(table)
    seen = api.get("/api/owner/health").json
    assert seen["camera"] is None  # a table without a camera
    assert seen["board"]["pi"] is False and seen["board"]["throttled"] is None
    assert seen["model"]["ok"] is True and "reads its 30 check crops" in seen["model"]["line"]
    assert seen["disk"]["free_mb"] > 0 and seen["memory"]["process_mb"] > 0


def test_setup_done_is_remembered_beside_the_records(table: Any) -> None:
    records = table[2]
    api = client_for(table)
    assert b"first-run" in api.get("/").data  # the table page's ⚙ asks for the wizard
    assert api.get("/api/owner/status").json["setup_done"] is False
    assert api.post("/api/owner/setup-done", {}).json == {"setup_done": True}
    assert (records.parent / "setup.json").exists()
    assert api.get("/api/owner/status").json["setup_done"] is True
    assert b"first-run" not in api.get("/").data


def test_learning_the_dice_needs_a_camera(table: Any) -> None:
    api = client_for(table)
    refused = api.post("/api/owner/lesson", {"rules": "yams"})
    assert refused.status_code == 409 and "no camera" in refused.json["error"]
    assert api.post("/api/owner/lesson", {"rules": "poker"}).status_code == 400
    assert api.post("/api/owner/lesson/photo", {}).status_code == 409
