"""What every test folder shares: ``run``, the ``yamscope`` command as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).parent / ("yamscope.exe" if os.name == "nt" else "yamscope")

Run = Callable[..., subprocess.CompletedProcess[str]]


def yamscope(
    *args: str,
    env: Mapping[str, str | None] | None = None,
    script: bool = False,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``yamscope ARGS`` in a subprocess from the repository root, its output as text.

    ``env``: variables set on top of this process's (None: removed); ``script``: the
    installed console script instead of ``python -m device.cli``."""
    command = [str(SCRIPT)] if script else [sys.executable, "-m", "device.cli"]
    environment = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=environment,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="session")
def run() -> Run:
    """The CLI tests' one way to run the command (:func:`yamscope`)."""
    return yamscope
