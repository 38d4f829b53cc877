"""What an evening at the table costs the appliance (issue 24): the records' photos stay
within their budget, and the requests every screen repeats are not logged. Speed and
memory are measured by ``yamscope bench``, not asserted here."""

from __future__ import annotations

import contextlib
import os
import random
import time
import urllib.request
from pathlib import Path

from test_web_e2e import Server

from device.store import Store
from scoring.game import Game

PHOTO = 200 * 1024


def test_photos_stay_within_their_budget_and_the_oldest_go_first(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db", photo_budget=5 * PHOTO)
    game = Game("yams", ["Anne"])
    game_id = store.create(game)
    rng = random.Random(0)
    for _ in range(13):  # a whole game of three throws a turn: 39 photos, 8 MB
        for _ in range(3):
            game.throw(" ".join(str(rng.randint(1, 6)) for _ in range(5)))
            store.append(game_id, game, snapshot=os.urandom(PHOTO))
        game.score(game.choices()[0].box)
        store.append(game_id, game)
    throws = store.throws(game_id)
    assert len(throws) == 39  # every throw kept, with its dice
    assert [t["has_snapshot"] for t in throws] == [False] * 34 + [True] * 5
    assert store.photo_bytes() <= 5 * PHOTO
    assert len(store.entries(game_id)) == 13  # and every entry
    store.close()
    on_disk = sum(p.stat().st_size for p in tmp_path.glob("t.db*"))
    assert on_disk < 4 * 1024 * 1024  # the freed photo pages are used again
    assert Store(tmp_path / "t.db").load(game_id).events == game.events


def test_the_live_picture_and_pushed_states_are_not_logged_each_time(tmp_path: Path) -> None:
    server = Server(tmp_path, camera="simulated")
    server.start()
    try:
        for _ in range(12):
            for path in ("api/live.jpg", "api/state"):
                with contextlib.suppress(OSError):  # no live picture yet: a 404, logged
                    urllib.request.urlopen(server.url + path, timeout=5).read()
            time.sleep(0.25)
        server.state()
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    served = [line for line in log.splitlines() if '"GET /api/' in line and '" 200 ' in line]
    assert served == []
    assert "serving http://127.0.0.1" in log  # the log itself is there
