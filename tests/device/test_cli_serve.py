"""`yamscope serve`: what it refuses before serving, where it keeps its records, how it stops."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from device.config import Config, is_loopback

if TYPE_CHECKING:
    from conftest import Run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def serve(run: Run) -> Run:
    """``yamscope serve ARGS`` to its end (a refusal), ``env`` set on top of this one's."""
    return lambda *args, env=None: run("serve", *args, env=env, timeout=60)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--camera", "usb0"], "camera: must be"),
        (["--camera", "replay:/no/such/folder"], "replay: no such file or folder"),
        (["--host", "0.0.0.0"], "server.pin: required"),
        (["--host", "192.168.1.20"], "server.pin: required"),
        (["--host", "pi.local"], "server.pin: required"),
        (["--host", "0.0.0.0", "--pin", "12"], "server.pin: must be 4 to 8 digits"),
        (["--port", "70000"], "server.port"),
    ],
)
def test_refusals_are_one_clear_line_and_exit_2(
    serve: Run, args: list[str], said: str, tmp_path: Path
) -> None:
    r = serve(*args, "--data", str(tmp_path / "t.db"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and said in r.stderr and r.stderr.startswith("yamscope: error")
    assert not (tmp_path / "t.db").exists()  # refused before anything was opened


def test_help_names_every_option(serve: Run) -> None:
    r = serve("--help")
    assert r.returncode == 0, r.stderr
    for option in ("--host", "--port", "--data", "--pin", "--camera"):
        assert option in r.stdout


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.4.5.6", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("pi.local", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_records_go_to_the_data_dir_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YAMSCOPE_DATA_DIR", str(tmp_path / "here"))
    assert Config().storage.data_dir == tmp_path / "here"  # serve keeps yamscope.db there


def test_serves_then_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "YAMSCOPE_DATA_DIR": str(tmp_path),
        "YAMSCOPE_CACHE_DIR": str(tmp_path / "cache"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "device.cli", "serve", "--port", str(port), "--no-advice"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        end = time.monotonic() + 15
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1) as r:
                    assert r.status == 200
                    break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("no answer from yamscope serve")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert f"http://127.0.0.1:{port}/" in (process.stderr.read() if process.stderr else "")
        assert (tmp_path / "yamscope.db").exists()
    finally:
        if process.poll() is None:
            process.kill()


def test_the_config_file_sets_port_records_language_and_rules(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "yamscope.toml"
    config.write_text(
        f'[server]\nport = {port}\n[storage]\ndata_dir = "records"\n'
        '[table]\nrules = "cameroun"\nlanguage = "en"\n'
    )
    env = {**os.environ, "YAMSCOPE_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen(
        [sys.executable, "-m", "device.cli", "serve", "--config", str(config), "--no-advice"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        end = time.monotonic() + 15
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as r:
                    page = r.read().decode()
                    break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("no answer on the configured port")
        assert '"language": "en"' in page and '"default_rules": "cameroun"' in page
        assert (tmp_path / "records" / "yamscope.db").exists()
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_a_bad_config_file_is_refused_with_its_problems(serve: Run, tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[server]\nport = 70000\n[table]\nrules = "poker"\n')
    r = serve("--config", str(config))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert "server.port" in r.stderr and "table.rules" in r.stderr


# -- issue 25: bad records files, a damaged one, loopback names, the PIN's file ------------------
def _records(path: Path, games: int = 0) -> Path:
    """A real records file with ``games`` games of Yam's, a few throws each."""
    from device.store import Store
    from scoring.game import Game

    store = Store(path)
    for i in range(games):
        game = Game("yams", [f"Joueur {i}", "Anne"])
        gid = store.create(game)
        for dice in ("1 2 3 4 5", "6 6 6 2 3"):
            game.throw(dice)
            store.append(gid, game)
    store.close()
    return path


def _newer(path: Path) -> Path:
    import sqlite3

    from device.store import MIGRATIONS

    _records(path)
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    return path


def _truncated(path: Path) -> Path:
    data = _records(path, games=30).read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _read_only(path: Path) -> Path:
    _records(path, games=1).chmod(0o444)
    return path


BAD_RECORDS = {
    "random": lambda p: p.write_bytes(os.urandom(8192)) and p,
    "text": lambda p: p.write_text("games, throws\n" * 200) and p,
    "truncated": _truncated,
    "newer": _newer,
    "read-only": _read_only,
    "foreign": lambda p: (
        __import__("sqlite3")
        .connect(p)
        .executescript("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);")
        and p
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_RECORDS))
def test_a_bad_records_file_is_one_line_and_exit_2(serve: Run, tmp_path: Path, kind: str) -> None:
    path = BAD_RECORDS[kind](tmp_path / "yamscope.db")
    before = path.read_bytes()
    r = serve("--data", str(path), "--port", str(_free_port()), "--camera", "none", "--no-advice")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("yamscope: error: "), r.stderr
    assert "Traceback" not in r.stderr and str(path) in r.stderr
    assert path.read_bytes() == before  # left as it was


def _damage_a_middle_page(path: Path) -> None:
    """Garbage over one page of the games' events, as a failing SD card leaves it (a page
    picked by its place in the file could be an empty table's, which holds nothing)."""
    import sqlite3

    with sqlite3.connect(path) as db:
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()
    db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    middle = (root[0] - 1) * page
    data[middle + 8 : middle + page] = os.urandom(page - 8)
    path.write_bytes(bytes(data))


def _start_and_stop(data: Path, port: int) -> None:
    env = {**os.environ, "YAMSCOPE_CACHE_DIR": str(data.parent / "cache")}
    command = [sys.executable, "-m", "device.cli", "serve", "--data", str(data)]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--camera", "none", "--no-advice"],
        cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_for(f"http://127.0.0.1:{port}/api/state", process)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)


def _wait_for(url: str, process: subprocess.Popen[str]) -> bytes:
    end = time.monotonic() + 15
    while time.monotonic() < end:
        if process.poll() is not None:
            pytest.fail(f"yamscope serve exited: {process.stderr.read() if process.stderr else ''}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                return r.read()
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"no answer at {url}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_damaged_records_file_is_refused_naming_the_backup(serve: Run, tmp_path: Path) -> None:
    import sqlite3

    data = _records(tmp_path / "yamscope.db", games=40)
    _start_and_stop(data, _free_port())  # a start that found it whole keeps a copy
    backup = tmp_path / "yamscope.db.backup"
    assert backup.is_file()
    _damage_a_middle_page(data)
    damaged = data.read_bytes()
    r = serve("--data", str(data), "--port", str(_free_port()), "--camera", "none", "--no-advice")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "is damaged" in r.stderr and f"restore the backup {backup}" in r.stderr
    assert data.read_bytes() == damaged  # nothing written into it
    with sqlite3.connect(backup) as db:  # and the copy named is whole, with every game
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 40
    db.close()


def test_a_damaged_records_file_without_a_backup_says_so(serve: Run, tmp_path: Path) -> None:
    data = _records(tmp_path / "yamscope.db", games=40)
    _damage_a_middle_page(data)
    r = serve("--data", str(data), "--port", str(_free_port()), "--camera", "none", "--no-advice")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "is damaged" in r.stderr and "there is no backup" in r.stderr


def _serving(*args: str, folder: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "YAMSCOPE_DATA_DIR": str(folder),
        "YAMSCOPE_CACHE_DIR": str(folder / "cache"),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "device.cli", "serve", "--no-advice", *args],
        cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _printed_url(process: subprocess.Popen[str]) -> tuple[str, str]:
    """The URL ``serve`` says it serves, and what it wrote on stderr before that line."""
    assert process.stderr is not None
    said = []
    for line in process.stderr:
        said.append(line)
        if "serving http" in line:
            return line.split("serving ", 1)[1].split(" ", 1)[0], "".join(said)
    pytest.fail(f"yamscope serve said: {''.join(said)}")


def test_any_loopback_address_answers_the_url_it_printed(tmp_path: Path) -> None:
    process = _serving("--host", "127.0.0.2", "--port", str(_free_port()), folder=tmp_path)
    try:
        url, _ = _printed_url(process)
        assert url.startswith("http://127.0.0.2:")
        page = _wait_for(url, process).decode()
        assert '<script type="application/json" id="boot">' in page
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_the_pin_can_come_from_a_file_and_not_from_the_command_line(tmp_path: Path) -> None:
    pin_file = tmp_path / "pin"
    pin_file.write_text("58203\n")
    pin_file.chmod(0o600)
    port = _free_port()
    process = _serving("--port", str(port), "--pin-file", str(pin_file), folder=tmp_path)
    try:
        url, said = _printed_url(process)
        page = _wait_for(url, process).decode()
        assert '"pin": true' in page and '"digits": 5' in page
        assert "58203" not in Path(f"/proc/{process.pid}/cmdline").read_text()
        assert "warning" not in said
        token = page.split('"token": "', 1)[1].split('"', 1)[0]
        for pin, status in (("4821", 403), ("58203", 201)):
            request = urllib.request.Request(
                url + "api/games",
                data=b'{"rules": "yams", "players": ["Anne"]}',
                headers={"Content-Type": "application/json", "X-Yamscope-Token": token,
                         "X-Yamscope-Pin": pin},
                method="POST",
            )  # fmt: skip
            try:
                with urllib.request.urlopen(request, timeout=5) as r:
                    got = r.status
            except urllib.error.HTTPError as exc:
                got = exc.code
            assert got == status, pin
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_a_pin_on_the_command_line_is_warned_about(tmp_path: Path) -> None:
    process = _serving("--port", str(_free_port()), "--pin", "58203", folder=tmp_path)
    try:
        _, said = _printed_url(process)
        assert "warning: --pin can be read by every user" in said and "--pin-file" in said
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.mark.parametrize(
    ("content", "said"),
    [(None, "no such file"), ("12\n", "server.pin: must be 4 to 8 digits"), ("", "server.pin")],
)
def test_a_bad_pin_file_is_one_line(
    serve: Run, tmp_path: Path, content: str | None, said: str
) -> None:
    pin_file = tmp_path / "pin"
    if content is not None:
        pin_file.write_text(content)
        pin_file.chmod(0o600)
    r = serve("--pin-file", str(pin_file), "--data", str(tmp_path / "t.db"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and said in r.stderr, r.stderr


def test_no_camera_is_not_called_simulated(tmp_path: Path) -> None:
    port = _free_port()
    process = _serving("--port", str(port), "--camera", "none", folder=tmp_path)
    try:
        url, _ = _printed_url(process)
        health = json.loads(_wait_for(url + "api/health", process))
        assert health["tray"] == "none" and health["camera"] is None
    finally:
        process.terminate()
        process.wait(timeout=15)
