"""The owner's pages in a real headless Chromium against a real ``yamscope serve``: the
first-run wizard on a phone (language, camera, calibration, PIN, « Apprendre mes dés » on the
simulated tray, a real restart), then settings, backup, a refused restore, power and health
on the 800x480 kiosk. Both sizes: nothing wider than the screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from selenium.webdriver.support.ui import Select
from test_web_e2e import Server, click, css, read, text, viewport, wait

from device.config import load_config
from device.storage import Store

PIN = "4831"


@pytest.fixture
def tray(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path, camera="simulated")
    s.start()
    yield s
    s.stop()


def fits(driver: Any) -> None:
    """Nothing on the page is wider than the screen (no sideways scrolling)."""
    width = read(driver, "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide on a {width[1]} px screen"


def visible(driver: Any, selector: str) -> bool:
    """The element lies inside the screen, as it is scrolled now."""
    return read(
        driver,
        "const e = document.querySelector(arguments[0]); if (!e) return false;"
        "e.scrollIntoView({block: 'nearest'}); const r = e.getBoundingClientRect();"
        "return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth",
        selector,
    )


def next_step(driver: Any, title: str) -> None:
    click(driver, "#btn-wizard-next")
    wait(driver, lambda d: title in text(d, ".wizard h2"), f"the wizard's step {title!r}")
    fits(driver)


def decode_qr(driver: Any, selector: str) -> str:
    """What a phone's camera reads in the QR code as the browser drew it (scrolled into
    view first: a screenshot of an element partly off the screen is cut)."""
    element = css(driver, selector)[0]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    png = element.screenshot_as_png
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    found, _, _ = cv2.QRCodeDetector().detectAndDecode(
        cv2.copyMakeBorder(image, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    )
    return found


def test_first_run_wizard_on_a_phone(driver: Any, tray: Server) -> None:
    viewport(driver, 390, 844)
    driver.get(tray.url)
    wait(driver, lambda d: css(d, "#link-owner.first-run"), "the ⚙ asking for the first run")
    wait(driver, lambda d: css(d, "#dlg-new[open]"), "the new game form a table opens with")
    click(driver, "#btn-new-cancel")
    click(driver, "#link-owner")
    wait(driver, lambda d: "Langue" in text(d, ".wizard h2"), "the wizard, in French")
    fits(driver)
    config = tray.folder / "data" / "yamscope.toml"  # the page writes beside the records

    # 1. language: English, for this page and in the configuration
    click(driver, "#btn-language-en")
    wait(driver, lambda d: text(d, ".wizard h2") == "Language", "the page in English")
    wait(driver, lambda d: config.exists(), "the configuration written")
    assert load_config(config).table.language == "en"

    # 2. the camera, with its live picture
    next_step(driver, "Camera")
    wait(driver, lambda d: "simulated" in text(d, "#camera-line"), "the camera's state")
    loaded = "const i = document.getElementById('owner-live'); return i && i.naturalWidth"
    wait(driver, lambda d: read(d, loaded), "the live picture")

    # 3. the empty tray calibrated
    next_step(driver, "Empty tray")
    click(driver, "#btn-wizard-calibrate")
    wait(driver, lambda d: "Tray calibrated" in text(d, "#calibration-line"), "the calibration")

    # 4. a PIN for phones, the table opened to the network (after the restart)
    next_step(driver, "PIN for phones")
    css(driver, "#wizard-pin")[0].send_keys(PIN)
    click(driver, "#btn-save-pin")
    wait(driver, lambda d: "PIN saved" in text(d, "#pin-line"), "the PIN saved")
    server = load_config(config).server
    assert (server.pin, server.host) == (PIN, "0.0.0.0")

    # 5. « Apprendre mes dés »: five d6, each value twice, laid by the simulated tray
    next_step(driver, "Learn my dice")
    wait(driver, lambda d: "not learned yet" in text(d, "#enrolment-line"), "no dice learned yet")
    Select(css(driver, "#lesson-rules")[0]).select_by_value("yams")
    click(driver, "#btn-lesson-start")
    for n in range(1, 13):
        value = (n + 1) // 2
        step = f"Photo {n}/12: lay the 5 dice flat, each showing {value}."
        wait(driver, lambda d, s=step: text(d, "#lesson-step") == s, step)
        assert visible(driver, "#btn-lesson-photo")
        click(driver, "#btn-lesson-photo")
        wait(driver, lambda d, k=n: len(css(d, "#lesson-strip img")) == k, f"photo {n} taken")
    click(driver, "#btn-lesson-finish")
    wait(driver, lambda d: css(d, "#lesson-result"), "the dice learned")
    said = text(driver, "#lesson-result")
    assert said.startswith("Dice read right on these photos:") and "/60 before" in said
    assert text(driver, "#lesson-cocked").endswith(", 0 after.")  # a calibrated tray: flat
    rows = read(
        driver,
        "return [...document.querySelectorAll('#lesson-photos tbody tr')].map(r => r.innerText)",
    )
    assert len(rows) == 12
    thumbs = (
        "return [...document.querySelectorAll('#lesson-photos img')].every(i => i.naturalWidth > 0)"
    )
    wait(driver, lambda d: read(d, thumbs), "the photos just taken")
    enrolment = tray.folder / "data" / "enrolment.json"
    assert enrolment.exists()  # beside the calibration, where serve reads it at start
    fits(driver)

    # 6. done: the restart the PIN waits for, then the table open to phones
    next_step(driver, "Done")
    assert "server.pin" in text(driver, "#restart-line")
    wait(driver, lambda d: "only on this machine" in text(d, "#join-why"), "why no QR code yet")
    pid = tray.process.pid
    click(driver, "#btn-finish-setup")
    wait(driver, lambda d: css(d, "#dlg-confirm[open]"), "the restart asked first")
    click(driver, "#btn-confirm-yes")
    # the same process, started again by itself with the same command
    wait(
        driver, lambda d: css(d, "#tabs a.active[data-tab='health']"), "the page after the restart"
    )
    assert tray.process.poll() is None and tray.process.pid == pid
    # now a PIN is asked for reading the health page
    wait(driver, lambda d: css(d, "#dlg-pin[open]"), "the PIN asked")
    css(driver, "#pin-input")[0].send_keys(PIN)
    click(driver, "#form-pin button[type=submit]")
    wait(driver, lambda d: css(d, "#h-camera"), "the health page")
    assert "The table's dice learned: 60 photos of dice." in text(
        driver, "#h-camera"
    )  # loaded at start
    driver.get(tray.url + "owner#phones")
    wait(driver, lambda d: css(d, "#join-qr"), "the QR code")
    url = text(driver, "#join-url")
    assert url.startswith("http://") and url.endswith(f":{tray.port}/")
    qr_loaded = "const i = document.getElementById('join-qr'); return i.complete && i.naturalWidth"
    wait(driver, lambda d: read(d, qr_loaded), "the QR code drawn")
    wait(driver, lambda d: decode_qr(d, "#join-qr") == url, "the QR code read as the address")
    fits(driver)


def test_settings_backup_restore_power_and_health_on_the_kiosk(driver: Any, tmp_path: Path) -> None:
    server = Server(tmp_path)  # no camera
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        driver.execute_script("localStorage.setItem('yamscope.lang', 'fr')")
        token = read(driver, "return JSON.parse(document.getElementById('boot').textContent).token")
        server.post(token, "/api/games", {"rules": "yams", "players": ["Ana", "Bea"]})

        # settings: one taken at once, one at the next start; the file holds just those
        driver.get(server.url + "owner#settings")
        wait(driver, lambda d: css(d, "#settings-form"), "the settings")
        fits(driver)
        pace = "[data-key='table.computer_pace'] input"
        css(driver, pace)[0].clear()
        css(driver, pace)[0].send_keys("0.5")
        Select(css(driver, "[data-key='table.rules'] select")[0]).select_by_value("yams")
        assert visible(driver, "#btn-settings-save")
        click(driver, "#btn-settings-save")
        wait(driver, lambda d: "Enregistré" in text(d, "#settings-result"), "the settings saved")
        assert "À redémarrer pour valoir : table.rules." in text(driver, "#settings-result")
        written = load_config(tmp_path / "data" / "yamscope.toml")
        assert (written.table.computer_pace, written.table.rules) == (0.5, "yams")

        # a bad value: one clear message, the file as it was
        before = (tmp_path / "data" / "yamscope.toml").read_text(encoding="utf-8")
        port = "[data-key='server.port'] input"
        css(driver, port)[0].clear()
        css(driver, port)[0].send_keys("70000")
        click(driver, "#btn-settings-save")
        wait(driver, lambda d: "server.port: must be 1-65535" in text(d, "#toast"), "the refusal")
        assert (tmp_path / "data" / "yamscope.toml").read_text(encoding="utf-8") == before

        # backup: a whole SQLite file, downloaded by the browser
        downloads = tmp_path / "downloads"
        downloads.mkdir()
        behaviour = {"behavior": "allow", "downloadPath": str(downloads)}
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", behaviour)
        driver.get(server.url + "owner#records")
        wait(driver, lambda d: css(d, "#btn-backup"), "the backup button")
        fits(driver)
        click(driver, "#btn-backup")
        wait(driver, lambda d: css(d, "#backup-link"), "the backup made")
        done = lambda d: [p for p in downloads.glob("yamscope-*.db")]  # noqa: E731
        wait(driver, done, "the backup downloaded")
        copy = done(driver)[0]
        wait(
            driver,
            lambda d: copy.stat().st_size > 0 and not list(downloads.glob("*.crdownload")),
            "the download whole",
        )
        assert copy.read_bytes().startswith(b"SQLite format 3\x00")
        assert [g["players"] for g in Store(copy).games()] == [["Ana", "Bea"]]

        # a restore of a file that is no backup: refused, the records untouched
        bad = tmp_path / "notes.db"
        bad.write_text("shopping list\n", encoding="utf-8")
        css(driver, "#restore-file")[0].send_keys(str(bad))
        click(driver, "#btn-restore")
        wait(driver, lambda d: css(d, "#dlg-confirm[open]"), "the restore confirmed first")
        assert "notes.db" in text(driver, "#confirm-text")
        click(driver, "#btn-confirm-yes")
        wait(driver, lambda d: "n'ont pas été remplacés" in text(d, "#toast"), "the refusal")
        assert "not an SQLite file" in text(driver, "#toast")
        assert [p["name"] for p in server.state()["game"]["players"]] == ["Ana", "Bea"]

        # power: shutting down is refused outside the installed service, and says why
        driver.get(server.url + "owner#power")
        wait(driver, lambda d: css(d, "#no-shutdown"), "why it cannot shut down")
        click(driver, "#btn-shutdown")
        wait(driver, lambda d: css(d, "#dlg-confirm[open]"), "the shutdown confirmed first")
        click(driver, "#btn-confirm-yes")
        wait(driver, lambda d: "pas le service installé" in text(d, "#toast"), "the refusal")
        assert server.process.poll() is None

        # health: this machine is no Pi, and the model computes as exported
        driver.get(server.url + "owner#health")
        wait(driver, lambda d: css(d, "#h-model"), "the health page")
        fits(driver)
        assert "Ce n'est pas un Raspberry Pi" in text(driver, "#h-board")
        assert "calcule ici comme là où il a été exporté" in text(driver, "#h-model")
        assert "Pas de caméra" in text(driver, "#h-camera")

        # the log: what was just done is there
        driver.get(server.url + "owner#log")
        wait(driver, lambda d: "settings written to" in text(d, "#log-lines"), "the log")
        fits(driver)
    finally:
        server.stop()
