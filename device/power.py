"""Restart and shut down from the owner's page.

Why two ways to restart: under the deploy's systemd unit (deploy/yamscope.service,
``Restart=on-failure``) the process exits with ``RESTART_EXIT`` and systemd starts it again
after ``RestartSec``, a clean start in the unit's sandbox; anywhere else (``make run`` in a
terminal) nothing would start it again, so the process replaces itself with the same
command (``os.execv``) once the server has stopped and the records are closed. Shutting the
machine down is asked of systemd only under that unit, where the installer gave the
service's user the right to (a polkit rule); anywhere else it is refused with the reason: a
table page must not power off a developer's laptop.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

UNIT = "yamscope.service"
RESTART_EXIT = 75  # EX_TEMPFAIL: not 0 (Restart=on-failure) nor 2 (RestartPreventExitStatus)


class PowerRefused(RuntimeError):
    """The action cannot be done here; the message says why."""


def under_unit(cgroup: Path = Path("/proc/self/cgroup"), unit: str = UNIT) -> bool:
    """True when this process runs as the deploy's systemd service: systemd set
    INVOCATION_ID and the process's control group is the unit's."""
    if not os.environ.get("INVOCATION_ID"):
        return False
    try:
        groups = cgroup.read_text()
    except OSError:
        return False
    return any(line.rstrip().endswith(f"/{unit}") for line in groups.splitlines())


class Power:
    """What the owner's page asked of the process: ``wanted`` is None, "restart" or
    "shutdown". ``stop`` stops the server (serve gives it); serve then calls ``finish``."""

    def __init__(self, stop: Callable[[], None] | None = None, cgroup: Path | None = None) -> None:
        self.stop = stop
        self.cgroup = cgroup or Path("/proc/self/cgroup")
        self.wanted: str | None = None
        self._guard = threading.Lock()

    def how_restart(self) -> str:
        """How a restart is done here: "systemd" (exit, the unit starts it again) or "exec"."""
        return "systemd" if under_unit(self.cgroup) else "exec"

    def restart(self) -> str:
        """Stop serving (after this answer has gone), then start again; returns how."""
        how = self.how_restart()
        self._ask("restart")
        return how

    def shutdown(
        self, run: Callable[[list[str]], subprocess.CompletedProcess[str]] | None = None
    ) -> None:
        """Ask systemd to power the machine off (PowerRefused when not under the unit, or
        when systemd refuses, with its words)."""
        if not under_unit(self.cgroup):
            raise PowerRefused(
                f"this yamscope is not the installed service ({UNIT}): it does not shut the "
                "machine down; do it the usual way (sudo poweroff)"
            )
        runner = run or (
            lambda command: subprocess.run(
                command, capture_output=True, text=True, timeout=20, check=False
            )
        )
        done = runner(["systemctl", "poweroff"])
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            raise PowerRefused(
                f"systemctl poweroff failed: {said[-1] if said else done.returncode}"
            )
        self._ask("shutdown")

    def _ask(self, what: str) -> None:
        with self._guard:
            self.wanted = what
        if self.stop is not None:
            # in a thread: the request that asked must be answered before the server stops
            threading.Timer(0.5, self.stop).start()

    def finish(self) -> int | None:
        """After the server stopped and the records closed: the exit status for systemd to
        restart on, or the same command again in this process (never returns); None when
        nothing was asked."""
        if self.wanted != "restart":
            return None
        if under_unit(self.cgroup):
            return RESTART_EXIT
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, *command_line()])
        return None  # pragma: no cover (execv does not return)


def command_line() -> list[str]:
    """This process's arguments after the interpreter, as they were given: ``-m device.cli
    serve ...`` or the ``yamscope`` script's path and its arguments."""
    try:
        raw = Path("/proc/self/cmdline").read_bytes().split(b"\0")[:-1]
        args = [os.fsdecode(a) for a in raw]
        return args[1:]
    except OSError:
        return list(sys.argv)
