"""`yamscope serve`: what it refuses before serving, where it keeps its records, how it stops."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from device.config import is_loopback
from device.paths import default_database

ROOT = Path(__file__).resolve().parents[2]


def serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "device.cli", "serve", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


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
def test_refusals_are_one_clear_line_and_exit_2(args: list[str], said: str, tmp_path: Path) -> None:
    r = serve(*args, "--data", str(tmp_path / "t.db"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and said in r.stderr and r.stderr.startswith("yamscope: error")
    assert not (tmp_path / "t.db").exists()  # refused before anything was opened


def test_help_names_every_option() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "device.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
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
    assert default_database() == tmp_path / "here" / "yamscope.db"


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


def test_a_bad_config_file_is_refused_with_its_problems(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[server]\nport = 70000\n[table]\nrules = "poker"\n')
    r = serve("--config", str(config))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert "server.port" in r.stderr and "table.rules" in r.stderr
