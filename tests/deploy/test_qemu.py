"""deploy/qemu-check.sh run for real, only when asked: ``YAMSCOPE_QEMU_CHECK=1 pytest
tests/deploy/test_qemu.py`` as root, with the network to the Debian mirror and PyPI.

Why opt-in: it debootstraps an arm64 Debian and installs yamscope in it under emulation,
20-40 minutes on two cores; it needs root for the chroot. Everything else in tests/deploy
runs every time. The outcome of the last real run is in deploy/README.md.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "qemu-check.sh"

pytestmark = pytest.mark.skipif(
    os.environ.get("YAMSCOPE_QEMU_CHECK") != "1",
    reason="the arm64 install under qemu takes 20-40 minutes: YAMSCOPE_QEMU_CHECK=1 to run it",
)


def test_the_pi_install_path_runs_in_arm64_debian() -> None:
    root = os.environ.get("YAMSCOPE_QEMU_ROOT", "/var/tmp/yamscope-qemu/rootfs")
    done = subprocess.run(
        ["bash", str(SCRIPT), "--root", root],
        capture_output=True,
        text=True,
        timeout=3 * 3600,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    for step in (
        "deploy/install.sh --without-picamera2",
        "install.sh again: nothing to do",
        "systemd-analyze verify yamscope.service",
        "yamscope serve on the simulated tray answers",
        "deploy/smoke-test.sh",
        "a game on the simulated tray: dice read on the tray",
    ):
        assert any(line.startswith("PASS") and step in line for line in lines), (step, lines)
