"""What a hostile guest or a clumsy owner does to the table's web side (issue 25): PIN
guessing from many addresses, held streams and half-sent requests, loopback names, a full
disk, malformed bodies. Each refusal changes nothing that is kept."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from device.store import Store
from device.table import TableSession
from device.web import create_app
from device.web.security import PinBrake

PIN = "4821"


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    s = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(7), cache_dir=tmp_path, advice=False
    )
    yield s
    s.close()


def token_of(client: FlaskClient, **kw: Any) -> str:
    page = client.get("/", **kw).get_data(as_text=True)
    start = page.index('id="boot">') + len('id="boot">')
    return json.loads(page[start : page.index("</script>", start)])["token"]


def boot_of(client: FlaskClient, **kw: Any) -> dict[str, Any]:
    page = client.get("/", **kw).get_data(as_text=True)
    start = page.index('id="boot">') + len('id="boot">')
    return json.loads(page[start : page.index("</script>", start)])


def post(client: FlaskClient, token: str, path: str, body: Any, pin: str | None, addr: str):
    headers = {"X-Yamscope-Token": token}
    if pin is not None:
        headers["X-Yamscope-Pin"] = pin
    return client.post(path, json=body, headers=headers, environ_base={"REMOTE_ADDR": addr})


# -- 1, 10: PIN guessing ----------------------------------------------------------------------
def test_guessing_the_pin_from_thousands_of_addresses_is_stopped(session: TableSession) -> None:
    app = create_app(session, pin=PIN)
    client = app.test_client()
    token = token_of(client)
    codes = []
    for i, guess in enumerate(f"{n:04d}" for n in range(200)):  # one try from each address
        addr = f"127.{i // 250}.{i % 250}.{i % 200 + 2}"
        codes.append(post(client, token, "/api/undo", {}, guess, addr).status_code)
    assert 429 in codes  # the table's own brake, across addresses
    tried = codes.index(429)
    brake: PinBrake = app.extensions["yamscope.brake"]
    assert tried == brake.table_tries and set(codes[tried:]) == {429}
    # while it is on, the right PIN is refused too: a guess could not get through it
    right = post(client, token, "/api/games", {"rules": "yams", "players": ["A"]}, PIN, "10.9.9.9")
    assert right.status_code == 429 and "at this table" in right.json["error"]
    assert session.game is None


def test_the_per_address_brake_still_holds(session: TableSession) -> None:
    client = create_app(session, pin=PIN).test_client()
    token = token_of(client)
    codes = [post(client, token, "/api/undo", {}, "0000", "10.0.0.7").status_code for _ in range(6)]
    assert codes == [403] * 5 + [429]
    other = post(client, token, "/api/games", {"rules": "yams", "players": ["A"]}, PIN, "10.0.0.8")
    assert other.status_code == 201  # another address is not held up by this one


def test_the_wrong_pin_table_stays_bounded(session: TableSession) -> None:
    app = create_app(session, pin=PIN)
    client = app.test_client()
    token = token_of(client)
    brake: PinBrake = app.extensions["yamscope.brake"]
    brake.table_tries = 10**6  # so that every address below is checked and remembered
    brake._table = type(brake._table)(maxlen=brake.table_tries)
    for i in range(20_000):
        addr = f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"
        assert post(client, token, "/api/undo", {}, "0000", addr).status_code == 403
    assert len(brake) <= brake.clients


def test_the_page_says_how_strong_the_pin_is(session: TableSession) -> None:
    client = create_app(session, pin="1234").test_client()
    kiosk = boot_of(client)["pin_strength"]
    brake = PinBrake()
    hours = 10**4 / 2 * brake.table_window / brake.table_tries / 3600
    assert kiosk == {"digits": 4, "hours": round(hours, 1), "common": True}
    phone = boot_of(client, environ_base={"REMOTE_ADDR": "192.168.1.30"})["pin_strength"]
    assert phone["digits"] == 4 and phone["common"] is None  # no hint for guessers
    assert boot_of(create_app(session).test_client())["pin_strength"] is None


@pytest.mark.parametrize(
    ("pin", "common"),
    [("1234", True), ("0000", True), ("9876", True), ("1212", True), ("1987", True),
     ("4821", False), ("58203", False), ("12345678", True), ("30571946", False)],
)  # fmt: skip
def test_common_pins(pin: str, common: bool) -> None:
    from device.web.security import common_pin

    assert common_pin(pin) is common


# -- 2: streams and connections ----------------------------------------------------------------
def test_one_address_cannot_take_every_stream(session: TableSession) -> None:
    from device.listeners import PER_CLIENT_LISTENERS

    client = create_app(session).test_client()
    streams = []
    try:
        for _ in range(PER_CLIENT_LISTENERS + 2):  # a page reloaded again and again
            r = client.get("/api/events", buffered=False, environ_base={"REMOTE_ADDR": "10.1.1.1"})
            assert r.status_code == 200
            streams.append(r)
        held = [a for a, _ in session._listeners.values()]
        assert held.count("10.1.1.1") == PER_CLIENT_LISTENERS  # the oldest were ended
        oldest = b"".join(streams[0].response).decode()  # it ends: its thread is free again
        assert oldest.startswith("retry: 2000")
        other = client.get("/api/events", buffered=False, environ_base={"REMOTE_ADDR": "10.1.1.2"})
        streams.append(other)
        assert other.status_code == 200
    finally:
        for r in streams:
            r.close()


@pytest.fixture
def live_server(session: TableSession, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The real threaded server on a free port, with a short header timeout for the test."""
    from device.web.server import GuardedHandler, TableServer

    monkeypatch.setattr(GuardedHandler, "header_timeout", 1.0)
    server = TableServer("127.0.0.1", 0, create_app(session))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _get(port: int, path: str = "/api/state") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data


def _closed(sock: socket.socket, timeout: float) -> bytes | None:
    """What the server sent before closing, or None if it kept the connection open."""
    sock.settimeout(timeout)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return data


def test_half_sent_requests_do_not_hold_their_threads(live_server: Any) -> None:
    port = live_server.server_port
    before = threading.active_count()
    socks = []
    try:
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and no more
            socks.append(s)
        deadline = time.monotonic() + 20
        answers = [_closed(s, max(0.1, deadline - time.monotonic())) for s in socks]
    finally:
        for s in socks:
            s.close()
    assert all(a is not None for a in answers), "connections left open"
    said = {a.split(b"\r\n", 1)[0] for a in answers if a}
    assert said <= {b"HTTP/1.1 408 Request Timeout", b"HTTP/1.1 429 Too Many Requests"}
    assert b"200 OK" in _get(port)  # and the server still answers
    end = time.monotonic() + 10
    while threading.active_count() > before + 2 and time.monotonic() < end:
        time.sleep(0.05)
    assert threading.active_count() <= before + 2  # the threads are gone too


def test_an_address_holds_a_bounded_number_of_connections(live_server: Any) -> None:
    port = live_server.server_port
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(40)]
    try:
        said = [(_closed(s, 5) or b"").split(b"\r\n", 1)[0] for s in socks]
    finally:
        for s in socks:
            s.close()
    busy = said.count(b"HTTP/1.1 429 Too Many Requests")
    assert busy == 40 - live_server.per_client  # at once; the others waited for headers
    assert said.count(b"HTTP/1.1 408 Request Timeout") == live_server.per_client


# -- 12: every loopback name ------------------------------------------------------------------
@pytest.mark.parametrize("host", ["127.0.0.2:8600", "127.1.2.3", "[::1]:8600", "localhost:8600"])
def test_every_loopback_address_is_served_without_a_pin(session: TableSession, host: str) -> None:
    client = create_app(session).test_client()
    assert client.get("/", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.2.evil.example", "192.168.1.20:8600"])
def test_other_names_are_still_refused_without_a_pin(session: TableSession, host: str) -> None:
    client = create_app(session).test_client()
    r = client.get("/api/state", headers={"Host": host})
    assert r.status_code == 400 and r.json["status"] == 400


# -- 9: a full disk ---------------------------------------------------------------------------
def fill_up(store: Store) -> None:
    """The records file may not grow any more: SQLite answers SQLITE_FULL ("database or disk
    is full"), as on a full disk."""
    with store._lock:
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")


def make_room(store: Store) -> None:
    with store._lock:
        store._db.execute("PRAGMA max_page_count = 1073741823")


def test_a_full_disk_is_said_and_changes_nothing_then_play_goes_on(
    session: TableSession,
) -> None:
    client = create_app(session).test_client()
    token = token_of(client)
    send = lambda path, body: post(client, token, path, body, None, "127.0.0.1")  # noqa: E731
    assert send("/api/games", {"rules": "yams", "players": ["A"]}).status_code == 201
    fill_up(session.store)
    box = iter(["1", "2", "3", "4", "5", "6", "chance", "brelan", "carre", "full", "yams"])
    for _ in range(200):
        stored = len(session.store.events(session.game_id))
        before = session.state()["game"]
        if before["can_throw"]:
            path, body = "/api/throw", {"dice": ["1", "2", "3", "4", "6"]}
        else:
            path, body = "/api/score", {"box": next(box)}
        r = send(path, body)
        if r.status_code != 200:
            break
    assert r.status_code == 507, r.get_data(as_text=True)
    assert r.json["error"].startswith("the records could not be written: the disk is full")
    after = session.state()["game"]
    assert len(session.store.events(session.game_id)) == stored  # nothing half-written
    for key in ("sheets", "dice", "throw", "turn", "player"):
        assert after[key] == before[key], key
    make_room(session.store)
    retried = send(path, body)
    assert retried.status_code == 200
    assert len(session.store.events(session.game_id)) == stored + 1


# -- 7, 8 and "$": bodies that once were 500s or slipped through ---------------------------------
@pytest.mark.parametrize(
    "raw",
    [
        "[" * 4000 + "]" * 4000,
        '{"keep": ' + "[" * 3000 + "]" * 3000 + "}",
        '{"\\ud800": 1}',
        '{"dice": ["\\udfff"]}',
        '{"keep": [], "dice": ["1\\ud800"]}',
    ],
)
def test_deep_or_non_unicode_bodies_are_400(session: TableSession, raw: str) -> None:
    client = create_app(session).test_client()
    token = token_of(client)
    session.new_game("yams", {}, ["A"])
    version = session.version
    r = client.post(
        "/api/throw", data=raw, content_type="application/json",
        headers={"X-Yamscope-Token": token},
    )  # fmt: skip
    assert r.status_code == 400, r.get_data(as_text=True)
    assert set(r.json) == {"error", "error_fr", "status"} and session.version == version


@pytest.mark.parametrize(
    ("path", "body"),
    [("/api/throw", {"dice": ["1\n", "2", "3", "4", "5"]}),
     ("/api/score", {"box": "chance\n"}),
     ("/api/announce", {"box": "brelan\n"}),
     ("/api/correct", {"dice": ["6", "6", "6", "6", "6\n"]})],
)  # fmt: skip
def test_a_trailing_newline_is_not_a_valid_token(
    session: TableSession, path: str, body: dict[str, Any]
) -> None:
    client = create_app(session).test_client()
    token = token_of(client)
    session.new_game("yams", {}, ["A"])
    session.throw("1 2 3 4 5")
    version = session.version
    r = client.post(path, json=body, headers={"X-Yamscope-Token": token})
    assert r.status_code == 400 and session.version == version
