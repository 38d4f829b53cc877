"""One game's first throw on the simulated tray, through the page's API (deploy/qemu-check.sh).

Why a throw: the smoke test sees the page and the API answer; a throw read proves the camera
pipeline on this machine too (the simulated camera's frames, settle detection, the detector
and the die-face model in onnxruntime). Standard library only: it runs on the arm64 system's
own Python. Prints one line: the dice read.
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.error
import urllib.request
from typing import Any

WAIT_S = 300.0  # an emulated CPU reads a throw in seconds, not milliseconds


def ask(url: str, token: str | None = None, body: Any = None) -> Any:
    """GET (no body) or POST JSON with the page's token; the answer's JSON."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["X-Yamscope-Token"] = token
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, headers=headers, method="POST" if data else "GET"
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


def main(base: str) -> int:
    with urllib.request.urlopen(base, timeout=60) as answer:
        page = answer.read().decode()
    boot = json.loads(re.search(r'id="boot">(.*?)</script>', page, re.S).group(1))
    token = boot["token"]
    ask(base + "api/games", token, {"rules": "yams", "players": ["Ana"]})
    end = time.monotonic() + WAIT_S
    while True:  # the tray must be seen at rest once before the first throw
        try:
            ask(base + "api/throw", token, {})
            break
        except urllib.error.HTTPError as exc:
            if exc.code != 409 or time.monotonic() > end:
                print(f"throw refused: {exc.read().decode()[:200]}", file=sys.stderr)
                return 1
            time.sleep(2)
    while time.monotonic() < end:
        game = ask(base + "api/state").get("game") or {}
        dice = game.get("dice")
        if dice:
            print("dice read on the tray: " + " ".join(str(d["value"]) for d in dice))
            return 0
        time.sleep(1)
    print("no dice read within the wait", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8600/"))
