"""The records page and the audit in a real headless Chromium against a real ``yamscope
serve`` (the camera replaying photos, or none), on a phone's screen and the kiosk's, and the
table page's banner while a real PostgreSQL server is stopped and started again.

Like the table page's tests, these FAIL without chromium and chromium-driver.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path
from typing import Any

from pg_cluster import Cluster, new_database
from test_web_e2e import (  # the browser and server of the table page's tests
    Server,
    click,
    css,
    dice,
    driver,  # noqa: F401  (a fixture)
    read,
    replay_photos,
    start_game,
    suggestions,
    text,
    viewport,
    wait,
)

SIZES = ((390, 844), (800, 480))


def no_overflow(browser: Any) -> None:
    """Nothing sticks out sideways: the page fits the screen's width."""
    width, inner = read(browser, "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, (width, inner)


def token(server: Server) -> str:
    with urllib.request.urlopen(server.url, timeout=5) as r:
        page = r.read().decode()
    return json.loads(re.search(r'id="boot">(.*?)</script>', page, re.S).group(1))["token"]


def test_a_filled_box_opens_its_audit_with_the_photo_and_the_correction(
    driver: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    replay_photos(tmp_path / "replay", tmp_path / "data" / "calibration.json")
    server = Server(tmp_path, camera=f"replay:{tmp_path / 'replay'}")
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        start_game(driver, "yams", ["Anne"])
        wait(driver, lambda d: len(dice(d)) == 5 and suggestions(d), "dice read by the camera")
        before = dice(driver)
        click(driver, "#btn-correct")  # then the die to correct
        click(driver, '#dice .die[data-index="0"]')
        wait(driver, lambda d: css(d, "#dlg-die[open]"), "the die editor")
        fixed = "6" if before[0] != "6" else "1"
        click(driver, f'#die-values [data-value="{fixed}"]')
        click(driver, "#btn-die-ok")
        wait(driver, lambda d: dice(d)[0] == fixed, "the corrected die")
        box = read(driver, "return document.querySelector('#suggestions .sugg').dataset.box")
        click(driver, f'#suggestions .sugg[data-box="{box}"]')
        wait(driver, lambda d: css(d, f'#sheet tr[data-box="{box}"] td.audit'), "the entry")

        for width, height in SIZES:
            viewport(driver, width, height)
            driver.get(server.url)
            wait(driver, lambda d: css(d, f'#sheet tr[data-box="{box}"] td.audit'), "the sheet")
            click(driver, f'#sheet tr[data-box="{box}"] td.audit')  # the tap on the filled box
            wait(driver, lambda d: css(d, "#breakdown li.total"), "the audit")
            assert driver.current_url.startswith(server.url + "records#audit/")
            assert "Anne" in text(driver, "#audit-title")
            wait(driver, lambda d: read(d, "return document.querySelector('.photo img')"
                                        ".naturalWidth") > 0, "the throw's photo")  # fmt: skip
            assert len(css(driver, ".photo svg rect")) == 5  # each die where it was read
            [corrected] = css(driver, ".photo svg rect.corrected")
            label = text(driver, ".photo svg text.corrected") or read(
                driver, "return document.querySelector('.photo svg text.corrected').textContent"
            )
            assert label == f"1: {before[0]}→{fixed}"
            said = text(driver, ".correction")
            assert f"lu {before[0]}, corrigé en {fixed}" in said and "127.0.0.1" in said
            assert text(driver, "#breakdown li.total").startswith("=")
            assert corrected.is_displayed()
            no_overflow(driver)
    finally:
        server.stop()


def test_records_players_history_replay_dice_and_export_on_both_screens(
    driver: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    server = Server(tmp_path)
    server.start()
    try:
        key = token(server)
        for turns in (("6 6 6 6 6", "Q", "2 3 4 5 6", "G"), ("1 2 3 4 5", "P", "6 6 6 2 2", "F")):
            server.post(key, "/api/games", {"rules": "cameroun", "players": ["Ana", "Bruno"],
                                            "options": {"turns": 1}})  # fmt: skip
            for dice_text, box in zip(turns[::2], turns[1::2], strict=True):
                server.post(key, "/api/throw", {"keep": [], "dice": dice_text.split()})
                server.post(key, "/api/score", {"box": box})
        for width, height in SIZES:
            viewport(driver, width, height)
            driver.get(server.url + "records")
            wait(driver, lambda d: css(d, "section[data-rules='cameroun'] tr.best"), "records")
            rows = "return [...document.querySelectorAll('tr.best')]"
            best = read(driver, rows + ".map(r => r.innerText.split('\\t').slice(1, 3).join(' '))")
            assert best[0].startswith("30") and "Ana" in best[0]
            assert css(driver, "svg.histogram rect.bar")
            no_overflow(driver)

            click(driver, "a[href='#players/Ana']")
            wait(driver, lambda d: css(d, "svg.series polyline"), "Ana's totals over time")
            assert "Ana — 2 parties" in text(driver, "#view h2")
            no_overflow(driver)

            click(driver, "a[data-tab='history']")
            wait(driver, lambda d: css(d, "tr[data-game]"), "the games")
            click(driver, "tr[data-game] a")
            wait(driver, lambda d: css(d, "#replay-first"), "a game's replay")
            click(driver, "#replay-first")
            wait(driver, lambda d: text(d, "#replay-step").startswith("0 /"), "the start")
            click(driver, "#replay-next")
            wait(driver, lambda d: text(d, "#replay-step").startswith("1 /"), "the first turn")
            assert len(css(driver, ".replay td.filled")) == 1
            no_overflow(driver)

            click(driver, "a[data-tab='dice']")
            wait(driver, lambda d: text(d, "#fairness-said"), "the dice's verdict")
            assert text(driver, "#fairness-said").startswith("Pas encore assez de jets")
            assert css(driver, "svg.faces rect.bar")
            no_overflow(driver)

            click(driver, "a[data-tab='export']")
            wait(driver, lambda d: css(d, "a[href='/api/export/turns.csv']"), "the export")
            with urllib.request.urlopen(server.url + "api/export/turns.csv", timeout=5) as r:
                assert r.read().decode().count("\n") == 5  # a header and four turns

            click(driver, "#btn-lang")
            wait(driver, lambda d: text(d, "a[data-tab='history']") == "Games", "English")
            click(driver, "#btn-lang")
            wait(driver, lambda d: text(d, "a[data-tab='history']") == "Parties", "French")
        driver.get(server.url + "records#players/Zoé")
        wait(driver, lambda d: text(d, "#error"), "the unknown player")
        assert "no finished game of a player named 'Zoé'" in text(driver, "#error")
        logs = driver.get_log("browser")
        assert not [e for e in logs if e["level"] == "SEVERE" and "404" not in e["message"]]
    finally:
        server.stop()


def test_the_table_page_says_when_the_club_server_is_away_and_plays_on_when_back(
    driver: Any,  # noqa: F811
    own_cluster: Cluster,
    tmp_path: Path,
) -> None:
    url = new_database(own_cluster.url, "club")
    config = tmp_path / "yamscope.toml"
    config.write_text(f'[storage]\nurl = "{url}"\n[table]\nname = "salon"\n')
    server = Server(tmp_path, config=config)
    server.start()
    try:
        viewport(driver, 390, 844)
        driver.get(server.url)
        start_game(driver, "yams", ["Anne"])
        click(driver, "#btn-throw")
        wait(driver, lambda d: len(dice(d)) == 5, "a throw")
        thrown = dice(driver)

        own_cluster.stop()
        start = time.monotonic()
        wait(driver, lambda d: "injoignable" in text(d, "#banner"), "the banner")
        assert time.monotonic() - start < 5  # the worker asks every second
        click(driver, "#suggestions .sugg")
        wait(driver, lambda d: "cannot be reached" in text(d, "#toast"), "the refusal")
        assert dice(driver) == thrown and server.state()["game"]["turn"] == 1

        own_cluster.start()
        wait(driver, lambda d: "injoignable" not in text(d, "#banner"), "the banner gone")
        assert dice(driver) == thrown  # where it was
        click(driver, "#suggestions .sugg")
        wait(driver, lambda d: server.state()["game"]["turn"] == 2, "the entry kept")
    finally:
        server.stop()
