"""The table page as a family uses it (issue 24), in a real headless Chromium against a real
``yamscope serve``: keeping dice, the kiosk and phone layouts, one language at a time, the
computer players' turns, tap targets. The browser and server helpers are the ones of
``test_web_e2e``; like those tests, these FAIL without Chromium, never skip.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.support.ui import Select
from test_web_e2e import (
    Server,
    click,
    css,
    dice,
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
    s.stop()


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


# Every element the selector finds, fully on screen at the scroll position the page opened
# at, inside every box that clips it, and not covered (what a finger there would touch).
HIDDEN = """
const hidden = [];
for (const [selector, count] of arguments[0]) {
  const found = [...document.querySelectorAll(selector)].slice(0, count ?? undefined);
  if (!found.length || (count && found.length < count)) hidden.push(`${selector}: not there`);
  for (const e of found) {
    const r = e.getBoundingClientRect();
    let clip = { top: 0, left: 0, bottom: innerHeight, right: innerWidth };
    for (let p = e.parentElement; p; p = p.parentElement) {
      if (getComputedStyle(p).overflow === "visible") continue;
      const q = p.getBoundingClientRect();
      clip = { top: Math.max(clip.top, q.top), left: Math.max(clip.left, q.left),
        bottom: Math.min(clip.bottom, q.bottom), right: Math.min(clip.right, q.right) };
    }
    const inside = r.width > 0 && r.top >= clip.top - 0.5 && r.left >= clip.left - 0.5
      && r.bottom <= clip.bottom + 0.5 && r.right <= clip.right + 0.5;
    const hit = inside && document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    if (!inside || !(hit === e || e.contains(hit))) {
      hidden.push(`${selector} at ${Math.round(r.top)}-${Math.round(r.bottom)} x `
        + `${Math.round(r.left)}-${Math.round(r.right)} in ${innerWidth}x${innerHeight}`);
    }
  }
}
return hidden;
"""


def hidden(driver: Any, *wanted: tuple[str, int | None]) -> list[str]:
    """What of ``wanted`` (selector, how many of its first matches) a player cannot see or
    touch without scrolling."""
    return read(driver, HIDDEN, [list(w) for w in wanted])


@pytest.mark.parametrize("rules", ["yams", "impossible"])
def test_the_kiosk_and_a_phone_show_dice_throw_and_entries_without_scrolling(
    driver: Any, tmp_path: Path, rules: str
) -> None:
    server = Server(tmp_path, camera="simulated", advice=True)
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        start_game(driver, rules, ["Anne", "Bruno"])
        click(driver, "#btn-throw")
        count = 10 if rules == "impossible" else 5
        wait(driver, lambda d: len(dice(d)) == count and suggestions(d), "the throw read")
        if rules == "impossible":  # its advice comes in a second: measured with it shown
            wait(driver, lambda d: "Conseil" in text(d, "#advice") and "calcul" not in
                 text(d, "#advice"), "the advice")  # fmt: skip
        for size, wanted in (
            ((800, 480), (("#dice .die", count), ("#btn-throw", 1), ("#suggestions .sugg", 3))),
            ((390, 844), (("#dice .die", count), ("#btn-throw", 1))),
        ):
            viewport(driver, *size)
            driver.refresh()  # the page as it opens at that size
            wait(driver, lambda d: len(dice(d)) == count, "the dice after a reload")
            assert hidden(driver, *wanted) == [], size
            assert read(driver, "return [scrollX, scrollY]") == [0, 0]
    finally:
        server.stop()


def option_texts(driver: Any) -> list[str]:
    """What the new-game form shows of the chosen rulebook's options: names, help, choices."""
    return read(
        driver,
        "return [...document.querySelectorAll('#new-options .option-name, #new-options .help,"
        " #new-options option')].map(e => e.textContent)",
    )


def test_one_language_at_a_time(driver: Any, tmp_path: Path) -> None:
    from test_words import FRENCH

    server = Server(tmp_path, advice=True)
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        start_game(driver, "impossible", ["Alice", "Bruno"])
        assert text(driver, "#turn").startswith("Au tour d'Alice")
        click(driver, "#btn-throw")
        wait(driver, lambda d: "espérance" in text(d, "#advice"), "the advice")
        # French numbers: a space between thousands, a decimal comma (none for a whole number)
        thousands = r"espérance \d{1,2}[\u202f\u00a0 ]\d{3}(,\d)? points"
        assert re.search(thousands, text(driver, "#advice"))

        click(driver, "#btn-lang")
        wait(driver, lambda d: text(d, "#turn").startswith("Alice's turn"), "the English page")
        shown = {
            "entries": " | ".join(suggestions(driver)),
            "sheet": text(driver, "#sheet"),
            "advice": text(driver, "#advice"),
            "turn": text(driver, "#turn"),
        }
        assert {k: FRENCH.findall(v) for k, v in shown.items() if FRENCH.search(v)} == {}
        assert re.search(r"expected \d,\d{3}(\.\d)? points", shown["advice"])
        click(driver, "#btn-new")
        Select(css(driver, "#new-rules")[0]).select_by_value("yams")
        english = option_texts(driver)
        assert len(english) > 20 and [t for t in english if FRENCH.search(t)] == []
        assert "Three of a kind" in english and "sum of the five dice" in english

        click(driver, "#btn-new-cancel")
        click(driver, "#btn-lang")
        click(driver, "#btn-new")
        Select(css(driver, "#new-rules")[0]).select_by_value("yams")
        french = option_texts(driver)
        raw = {"brelan", "carre", "straights", "joker", "sum", "matching", "runs", "free"}
        assert "Brelan" in french and "total des cinq dés" in french
        assert [t for t in french if t in raw or "_" in t] == []
        assert not re.search(r"\b(the|what|boxes|must)\b", " ".join(french))
    finally:
        server.stop()


# What the page shows of a computer's turn, read at once: who plays, which throw, the dice,
# the kept ones, whether its photo is there.
COMPUTER_VIEW = """
const img = document.querySelector('#throw-photo img');
return {
  turn: document.querySelector('#turn').innerText,
  dice: [...document.querySelectorAll('#dice .die')].map(e => e.innerText.split('\\n')[0]),
  kept: [...document.querySelectorAll('#dice .die')].map(e => e.ariaPressed === 'true'),
  photo: !document.querySelector('#throw-photo').hidden && img.complete && img.naturalWidth > 0,
  skip: !document.querySelector('#btn-skip').hidden,
};
"""


def watch_computer(driver: Any, until: float) -> list[tuple[float, dict[str, Any]]]:
    """Every change of the page during a computer's turn, with when it was first seen, up
    to the human's turn again (or ``until`` seconds)."""
    seen: list[tuple[float, dict[str, Any]]] = []
    start = time.monotonic()
    while time.monotonic() - start < until:
        view = read(driver, COMPUTER_VIEW)
        if view["turn"].startswith("Au tour d'Anne") and seen:
            break
        if "Ordi facile" in view["turn"] and (not seen or seen[-1][1] != view):
            seen.append((time.monotonic() - start, view))
        time.sleep(0.05)
    return seen


def test_a_computers_turn_is_shown_move_by_move_and_can_be_skipped(
    driver: Any, tmp_path: Path
) -> None:
    config = tmp_path / "yamscope.toml"
    config.write_text("[table]\ncomputer_pace = 4.0\n", encoding="utf-8")
    server = Server(tmp_path, camera="simulated", config=config)
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        start_game(driver, "yams", ["Anne", "facile"])
        click(driver, "#btn-throw")
        wait(driver, lambda d: suggestions(d), "Anne's throw read")
        click(driver, "#suggestions .sugg")
        seen = watch_computer(driver, until=30)
        throws = [v for _, v in seen if "jet" in v["turn"] and len(v["dice"]) == 5]
        assert throws, seen  # its dice were on the page
        first = next(t for t, v in seen if "jet 1/3" in v["turn"])
        after = next((t for t, v in seen if "jet 1/3" not in v["turn"]), seen[-1][0])
        assert after - first >= 3.0  # the first throw stayed in sight, at the set pace
        assert all(v["skip"] for _, v in seen)  # « Passer » was offered all along
        assert any(v["photo"] for _, v in seen)  # the throw drawn on the simulated tray
        recorded = server.state()["game"]["recent"][0]
        assert recorded["player"] == "Ordi facile"

        # the next turn: « Passer » as soon as the computer has thrown, and it is over at once
        wait(driver, lambda d: text(d, "#turn").startswith("Au tour d'Anne"), "Anne's turn")
        click(driver, "#btn-throw")
        wait(driver, lambda d: suggestions(d), "Anne's second throw read")
        click(driver, "#suggestions .sugg")
        wait(driver, lambda d: "jet 1/3" in text(d, "#turn") and "Ordi" in text(d, "#turn"),
             "the computer's first throw")  # fmt: skip
        skipped = time.monotonic()
        click(driver, "#btn-skip")
        wait(driver, lambda d: text(d, "#turn").startswith("Au tour d'Anne"), "Anne again")
        assert time.monotonic() - skipped < 3.0  # not the 4 s of even one more move
        assert len(server.state()["game"]["recent"]) == 4
    finally:
        server.stop()


def test_the_calibrate_button_asks_when_dice_are_in_view(driver: Any, tray: Server) -> None:
    viewport(driver, 800, 480)
    driver.get(tray.url)
    start_game(driver, "yams", ["Anne"])
    click(driver, "#btn-throw")
    wait(driver, lambda d: len(dice(d)) == 5 and suggestions(d), "five dice on the tray")
    before = tray.state()["camera"]["calibration"]
    click(driver, "#btn-calibrate")
    driver.switch_to.alert.accept()  # « the tray must be empty »: yes...
    wait(driver, lambda d: _alert(d), "the question about the dice in view")
    question = driver.switch_to.alert.text
    driver.switch_to.alert.dismiss()  # ...but it was not: nothing changes
    # how many: the boxes the reader finds (two dice touching may make one)
    assert re.match(r"Le lecteur voit [1-5] dé\(s\) sur la piste", question), question
    time.sleep(0.5)
    assert tray.state()["camera"]["calibration"] == before


def _alert(driver: Any) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        driver.switch_to.alert.text  # noqa: B018
    except NoAlertPresentException:
        return False
    return True


# Every control a finger may need on screen now: its size (a checkbox counts with its label).
TARGETS = """
const out = [];
for (const e of document.querySelectorAll('button, select, input, summary')) {
  const box = e.type === 'checkbox' ? e.closest('label') : e;
  const r = box.getBoundingClientRect();
  if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') continue;
  out.push([e.id || e.className || e.textContent.trim().slice(0, 20), r.width, r.height]);
}
return out;
"""


def small_targets(driver: Any) -> list[tuple[str, int, int]]:
    return [(n, round(w), round(h)) for n, w, h in read(driver, TARGETS) if w < 44 or h < 44]


def luminance(rgb: str) -> float:
    channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(driver: Any, selector: str) -> float:
    """WCAG contrast of an element's text on its own background."""
    fg, bg = read(
        driver,
        "const s = getComputedStyle(document.querySelector(arguments[0]));"
        "return [s.color, s.backgroundColor]",
        selector,
    )
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


LUCKY = ["7r", "7r", "7r", "7r", "7r", "7w", "7w", "7w", "7w", "7w"]


def test_the_camera_badge_reads_and_every_control_takes_a_finger(driver: Any, tray: Server) -> None:
    viewport(driver, 390, 844)
    driver.get(tray.url)
    start_game(driver, "impossible", ["Anne", "Bruno"])
    wait(driver, lambda d: text(d, "#cam"), "the camera badge")
    assert contrast(driver, "#cam") >= 4.5, "the camera badge"
    click(driver, "#btn-throw")
    # the throw is being read: said at once, gone with the dice read
    assert css(driver, "#reading")[0].is_displayed()
    assert "Lecture des dés" in text(driver, "#reading")
    wait(driver, lambda d: len(dice(d)) == 10 and suggestions(d), "the throw read")
    wait(driver, lambda d: not css(d, "#reading")[0].is_displayed(), "the indicator gone")
    for size in ((390, 844), (800, 480)):
        viewport(driver, *size)
        assert small_targets(driver) == [], size
        click(driver, "#btn-new")
        Select(css(driver, "#new-rules")[0]).select_by_value("yams")
        click(driver, "#new-options-box summary")  # the options, open
        assert small_targets(driver) == [], ("new game", size)
        click(driver, "#btn-new-cancel")
        click(driver, "#btn-correct")
        click(driver, '#dice .die[data-index="0"]')
        wait(driver, lambda d: css(d, "#dlg-die[open]"), "the die editor")
        assert small_targets(driver) == [], ("die editor", size)
        click(driver, "#btn-die-cancel")


def test_cameroun_fits_a_phone_and_the_advised_entry_is_marked(driver: Any, tmp_path: Path) -> None:
    from test_web_e2e import _token

    server = Server(tmp_path, advice=True)
    server.start()
    try:
        viewport(driver, 390, 844)
        driver.get(server.url)
        names = ["Anne-Charlotte", "Bruno", "Chloé", "Dominique", "Emile", "Fanny"]
        server.post(_token(driver), "/api/games", {"rules": "cameroun", "players": names})
        driver.refresh()
        click(driver, "#btn-throw")
        wait(driver, lambda d: suggestions(d), "Cameroun's entries")
        sheet = read(
            driver,
            "const s = document.querySelector('.sheet-scroll');"
            "return [s.scrollWidth, s.clientWidth]",
        )
        assert sheet[0] <= sheet[1], sheet  # all ten columns and the total, no sideways scroll

        server.post(_token(driver), "/api/games", {"rules": "impossible", "players": ["Anne"]})
        server.post(_token(driver), "/api/throw", {"dice": LUCKY})
        driver.refresh()
        wait(driver, lambda d: "inscrire en" in text(d, "#advice"), "the advice to write")
        marked = read(
            driver,
            "return [...document.querySelectorAll('#suggestions .sugg.advised')]"
            ".map(e => [e.dataset.box, e.innerText])",
        )
        assert len(marked) == 1 and marked[0][0] == "yams_impossible", marked
        assert "conseillé" in marked[0][1].lower()
    finally:
        server.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """``yamscope serve`` without a camera: « Lancer » draws the dice at once."""
    s = Server(tmp_path)
    s.start()
    yield s
    s.stop()


def test_the_turn_counter_the_bonus_still_needed_undo_said_and_replay(
    driver: Any, server: Server
) -> None:
    from test_web_e2e import _token

    viewport(driver, 800, 480)
    driver.get(server.url)
    token = _token(driver)
    server.post(token, "/api/games", {"rules": "yams", "players": ["Anne", "Bruno"]})
    driver.refresh()
    wait(driver, lambda d: "tour 1/13" in text(d, "#turn"), "the turn counter")
    server.post(token, "/api/throw", {"dice": ["6", "6", "6", "1", "2"]})
    server.post(token, "/api/score", {"box": "6"})
    wait(driver, lambda d: text(d, "#turn").startswith("Au tour de Bruno"), "Bruno's turn")
    assert "tour 1/13" in text(driver, "#turn")  # Bruno's first turn
    prime = "return [...document.querySelectorAll('#sheet tr.prime td')].map(c => c.innerText)"
    assert read(driver, prime) == ["encore 45", "encore 63"]  # 63 for the prime, less 18

    click(driver, "#btn-undo")
    wait(driver, lambda d: "Annulé : Anne, Six (18)." in text(d, "#toast"), "what undo took back")
    assert text(driver, "#turn").startswith("Au tour d'Anne")

    options = {"turns": 1}
    server.post(token, "/api/games", {"rules": "cameroun", "options": options,
                                      "players": ["Anne", "Bruno"]})  # fmt: skip
    driver.refresh()
    for _ in range(2):  # one turn each, and the game is over
        click(driver, "#btn-throw")
        wait(driver, lambda d: suggestions(d), "the entries")
        click(driver, "#suggestions .sugg")
        time.sleep(0.3)
    wait(driver, lambda d: css(d, "#btn-replay"), "« Rejouer » in the winner's banner")
    click(driver, "#btn-replay")
    wait(driver, lambda d: "tour 1/1" in text(d, "#turn"), "the new game")
    game = server.state()["game"]
    assert [p["name"] for p in game["players"]] == ["Anne", "Bruno"]
    assert game["options"]["turns"] == 1 and game["recent"] == [] and not game["finished"]


def test_the_rules_of_the_game_on_the_table_in_the_pages_language(
    driver: Any, server: Server
) -> None:
    viewport(driver, 390, 844)
    driver.get(server.url)
    start_game(driver, "impossible", ["Anne"])
    click(driver, "#btn-rules")
    wait(driver, lambda d: css(d, "#dlg-rules[open]"), "the rules")
    assert text(driver, "#rules-title") == "Yams impossible"
    assert "Dix dés à dix faces" in text(driver, "#rules-summary")
    assert "Yams Impossible\t800" in text(driver, "#rules-points")
    click(driver, "#dlg-rules button[type=submit]")
    click(driver, "#btn-lang")
    click(driver, "#btn-rules")
    assert text(driver, "#rules-title") == "Impossible Yams"
    assert "Ten ten-sided dice" in text(driver, "#rules-summary")
    assert "Impossible Yams\t800" in text(driver, "#rules-points")


def test_a_computer_player_may_be_given_a_name(driver: Any, server: Server) -> None:
    viewport(driver, 390, 844)
    driver.get(server.url)
    wait(driver, lambda d: css(d, "#dlg-new[open]"), "the new game form")
    Select(css(driver, "#new-rules")[0]).select_by_value("yams")
    click(driver, "#btn-add-player")
    rows = css(driver, "#new-players li")
    Select(rows[1].find_element("css selector", ".kind")).select_by_value("facile")
    Select(rows[2].find_element("css selector", ".kind")).select_by_value("facile")
    rows[2].find_element("css selector", ".name").send_keys("Rita")
    click(driver, "#btn-new-start")
    wait(driver, lambda d: not css(d, "#dlg-new[open]"), "the form to close")
    names = [p["name"] for p in server.state()["game"]["players"]]
    assert names == ["Joueur 1", "Ordi facile", "Rita (ordi facile)"]
    assert "Rita (ordi facile)" in text(driver, "#sheet thead")
    click(driver, "#btn-throw")
    wait(driver, lambda d: suggestions(d), "the entries")
    click(driver, "#suggestions .sugg")  # then both computers play, Rita too
    for _ in range(2):
        wait(driver, lambda d: css(d, "#btn-skip")[0].is_displayed(), "a computer playing")
        click(driver, "#btn-skip")
        time.sleep(0.5)
    wait(driver, lambda d: "Rita (ordi facile)" in text(d, "#recent"), "Rita's entry")
    assert server.state()["game"]["players"][2]["alias"] == "Rita"


def test_undo_takes_back_a_correction_on_the_page(driver: Any, server: Server) -> None:
    viewport(driver, 800, 480)
    driver.get(server.url)
    start_game(driver, "yams", ["Anne"])
    click(driver, "#btn-throw")
    wait(driver, lambda d: len(dice(d)) == 5, "the dice")
    before = dice(driver)
    click(driver, "#btn-correct")
    click(driver, '#dice .die[data-index="0"]')
    wait(driver, lambda d: css(d, "#dlg-die[open]"), "the die editor")
    wrong = "6" if before[0] != "6" else "1"
    click(driver, f'#die-values [data-value="{wrong}"]')
    click(driver, "#btn-die-ok")
    wait(driver, lambda d: dice(d)[0] == wrong, "the die put right... by mistake")
    assert read(driver, "return document.querySelector('#btn-undo').disabled") is False
    click(driver, "#btn-undo")
    wait(driver, lambda d: dice(d) == before, "the dice as they were")
    assert "Correction annulée" in text(driver, "#toast")
    assert server.state()["game"]["throw"] == 1
