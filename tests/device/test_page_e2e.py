"""The table page as a family uses it (issue 24), in a real headless Chromium against a real
``yamscope serve``: keeping dice, the kiosk and phone layouts, one language at a time, the
computer players' turns, tap targets. The browser and server helpers are the ones of
``test_web_e2e``; like those tests, these FAIL without Chromium, never skip.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_e2e import (
    Server,
    click,
    css,
    dice,
    driver,  # noqa: F401  (the module's browser fixture)
    read,
    start_game,
    suggestions,
    text,
    viewport,
    wait,
)


@pytest.fixture
def tray(tmp_path: Path) -> Iterator[Server]:
    """``yamscope serve`` on the simulated tray: « Lancer » rolls drawn dice and the camera
    pipeline reads them, as ``make run`` does on a machine without a camera."""
    s = Server(tmp_path, camera="simulated")
    s.start()
    yield s
    if s.process is not None and s.process.poll() is None:
        s.kill(signal.SIGTERM)


def pressed(driver: Any) -> list[bool]:
    return read(
        driver,
        "return [...document.querySelectorAll('#dice .die')].map(e => e.ariaPressed === 'true')",
    )


def test_several_dice_kept_one_second_apart_all_stay_kept(driver: Any, tray: Server) -> None:
    viewport(driver, 800, 480)
    driver.get(tray.url)
    start_game(driver, "yams", ["Anne"])
    click(driver, "#btn-throw")
    wait(driver, lambda d: len(dice(d)) == 5 and suggestions(d), "the first throw read")
    first = dice(driver)
    for i in (0, 2, 4):
        click(driver, f'#dice .die[data-index="{i}"]')
        time.sleep(1.0)  # as a player taps: the server answers each tap in between
    wait(driver, lambda d: tray.state()["keep"] == [0, 2, 4], "the server to hold three dice")
    assert pressed(driver) == [True, False, True, False, True]
    click(driver, "#btn-throw")
    wait(driver, lambda d: "2/3" in text(d, "#turn"), "the second throw read")
    again = dice(driver)
    assert [again[i] for i in (0, 2, 4)] == [first[i] for i in (0, 2, 4)]
    assert [d["kept"] for d in tray.state()["game"]["dice"]] == [True, False, True, False, True]
