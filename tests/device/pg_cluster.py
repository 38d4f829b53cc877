"""A throw-away PostgreSQL cluster for the tests: Debian's server, in a temporary folder.

Why a real server: the club's records must behave on PostgreSQL as on SQLite (durable
writes, a server that goes away and comes back), and only a real server can show it. The
cluster listens on 127.0.0.1 and a socket in its own folder, trusts local connections and
is removed when the tests end. As root (CI), the server runs as the user ``postgres``, as
PostgreSQL requires.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

APT = "apt-get install -y postgresql"


def find_bin(name: str) -> str | None:
    """A PostgreSQL program: on PATH, else the newest of Debian's /usr/lib/postgresql/*/bin."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return versions[-1] if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """initdb, start, stop and a fresh database, as the user PostgreSQL runs as."""

    def __init__(self) -> None:
        initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise FileNotFoundError(f"PostgreSQL's initdb and pg_ctl are missing: {APT}")
        self.initdb, self.pg_ctl = initdb, pg_ctl
        self.folder = Path(tempfile.mkdtemp(prefix="yamscope-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as: list[str] = []
        if os.geteuid() == 0:  # the server refuses to run as root
            shutil.chown(self.folder, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run(self.initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--locale=C", "--no-sync")  # fmt: skip

    def _run(self, *command: str) -> None:
        done = subprocess.run(
            [*self._as, *command], capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-800:]}")

    def start(self) -> None:
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder}"
        self._run(self.pg_ctl, "-D", str(self.data), "-o", options,
                  "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start")  # fmt: skip

    def stop(self) -> None:
        self._run(self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def remove(self) -> None:
        with contextlib.suppress(RuntimeError):  # already stopped
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def new_database(server_url: str, name: str) -> str:
    """A fresh, empty database on the server; its URL."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"


def drop_database(server_url: str, name: str) -> None:
    import psycopg

    for _ in range(50):  # a child killed mid-write leaves its session for a moment
        try:
            with psycopg.connect(server_url, autocommit=True) as db:
                db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except psycopg.Error:
            time.sleep(0.1)
