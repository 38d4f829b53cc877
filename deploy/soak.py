"""A long game on the simulated tray through the page's API, the server's memory read as it goes.

Why: the appliance must hold its memory over an evening (≤ 250 MB resident after an hour).
A bench of a few throws says little about that; this plays for as long as asked, one
player following the advisor against a computer player, and prints the server's resident
memory (VmRSS) every ``--every`` seconds, then its median and maximum. Standard library
only, like qemu-throw.py: it runs on a Pi's own Python too (stop the service first).

    python deploy/soak.py --minutes 60            # Yams impossible
    python deploy/soak.py --minutes 20 --rules yams
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

PLAYERS = ["Ana", "difficile"]
START_S = 120.0  # the server's start (the models, the calibration of the simulated tray)
PAUSE_S = 2.0  # between the player's actions: quicker than a person, slower than a test


class Table:
    """The page's JSON API at ``base``, with its token."""

    def __init__(self, base: str) -> None:
        self.base = base
        with urllib.request.urlopen(base, timeout=30) as answer:
            page = answer.read().decode()
        boot = re.search(r'id="boot">(.*?)</script>', page, re.S)
        if boot is None:
            raise RuntimeError(f"{base} is not a yamscope table page")
        self.token = json.loads(boot.group(1))["token"]

    def ask(self, path: str, body: Any = None) -> Any:
        """GET (no body) or POST JSON; the answer's JSON."""
        headers = {"Content-Type": "application/json", "X-Yamscope-Token": self.token}
        data = None if body is None else json.dumps(body).encode()
        method = "GET" if data is None else "POST"
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)


def resident_mb(pid: int) -> float:
    """VmRSS of process ``pid`` (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def play_once(table: Table, rules: str) -> bool:
    """One action of the human player when it is theirs to make (a new game once one is
    over); False when there was nothing to do yet."""
    state = table.ask("api/state")
    game = state.get("game") or {}
    if not game or game.get("finished"):
        table.ask("api/games", {"rules": rules, "players": PLAYERS})
        return True
    if not game.get("human_turn"):
        return False  # the computer's turn
    if not game.get("dice"):
        table.ask("api/throw", {})
        return True
    advice = state.get("advice")
    if advice is None or state.get("advice_pending"):
        return False
    best = advice.get("best") or {}
    if best.get("action") == "keep" and game.get("can_throw"):
        table.ask("api/throw", {"keep": best.get("dice", [])})
    elif game.get("suggestions"):
        box = best.get("box") if best.get("action") == "write" else None
        table.ask("api/score", {"box": box or game["suggestions"][0]["box"]})
    else:
        table.ask("api/throw", {})  # an announced throw still to be made
    return True


def wait_for_page(base: str, server: subprocess.Popen[bytes]) -> Table:
    end = time.monotonic() + START_S
    while True:
        try:
            return Table(base)
        except (OSError, urllib.error.URLError):
            if server.poll() is not None or time.monotonic() > end:
                raise RuntimeError("yamscope serve did not answer") from None
            time.sleep(1)


def soak(yamscope: str, minutes: float, rules: str, port: int, every: float) -> list[float]:
    """Serve on the simulated tray, play for ``minutes``, return the memory samples (MB)."""
    samples: list[float] = []
    with tempfile.TemporaryDirectory(prefix="yamscope-soak-") as data:
        command = [yamscope, "serve", "--camera", "simulated", "--port", str(port)]
        command += ["--data", str(Path(data) / "soak.db")]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            table = wait_for_page(f"http://127.0.0.1:{port}/", server)
            start = time.monotonic()
            sampled, actions, refused = start - every, 0, 0
            while (now := time.monotonic()) - start < minutes * 60:
                if now - sampled >= every:
                    sampled = now
                    samples.append(resident_mb(server.pid))
                    print(
                        f"{(now - start) / 60:6.1f} min  {samples[-1]:6.1f} MB resident  "
                        f"{actions} actions",
                        flush=True,
                    )
                try:
                    actions += play_once(table, rules)
                except urllib.error.HTTPError as exc:
                    if exc.code != 409:  # 409: not now (the tray still moving); else a bug
                        raise RuntimeError(f"the table refused: {exc.read().decode()}") from None
                    refused += 1
                time.sleep(PAUSE_S)
            if refused:
                print(f"{refused} actions refused and tried again", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--rules", default="impossible", help="a rulebook id (default impossible)")
    parser.add_argument("--port", type=int, default=8620)
    parser.add_argument("--every", type=float, default=15.0, help="seconds between samples")
    parser.add_argument("--yamscope", default="yamscope", help="the yamscope command")
    args = parser.parse_args(argv)
    try:
        samples = soak(args.yamscope, args.minutes, args.rules, args.port, args.every)
    except (RuntimeError, OSError) as exc:
        print(f"soak: {exc}", file=sys.stderr)
        return 1
    if not samples:
        print("soak: no sample taken", file=sys.stderr)
        return 1
    print(
        f"resident memory over {args.minutes:g} min of {args.rules}: median "
        f"{statistics.median(samples):.0f} MB, max {max(samples):.0f} MB, last "
        f"{samples[-1]:.0f} MB ({len(samples)} samples)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
