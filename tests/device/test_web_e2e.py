"""The table page in a real headless Chromium against a real ``yamscope serve``.

These tests need the Debian packages ``chromium`` and ``chromium-driver`` (or the paths in
$YAMSCOPE_CHROMIUM and $YAMSCOPE_CHROMEDRIVER) and the pip package ``selenium`` (dev
extra). Without them they FAIL, never skip: a page nobody has seen working in a browser is
not tested. Nothing is downloaded: selenium is given the driver's path.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
APT = "apt-get install -y chromium chromium-driver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
)
WAIT_S = 30  # a throw on the simulated tray, read on two busy cores (CI), with room


def _find(name: str, fallback: str) -> str:
    """The browser or its driver: $YAMSCOPE_<NAME> if set, else on PATH, else Debian's."""
    found = os.environ.get(f"YAMSCOPE_{name.upper()}") or shutil.which(name) or fallback
    if not Path(found).is_file():
        pytest.fail(f"{name} not found ({found}): install it with `{APT}`")
    return found


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is missing: pip install -e '.[dev]'")
    options = webdriver.ChromeOptions()
    options.binary_location = _find("chromium", "/usr/bin/chromium")
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(
        service=Service(_find("chromedriver", "/usr/bin/chromedriver")), options=options
    )
    browser.set_page_load_timeout(WAIT_S)
    yield browser
    browser.quit()


class Server:
    """``yamscope serve`` in a subprocess, on a free port, with its own data folder."""

    def __init__(
        self, folder: Path, camera: str = "none", config: Path | None = None, advice: bool = False
    ) -> None:
        self.folder = folder
        self.camera = camera
        self.config = config
        self.advice = advice
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "YAMSCOPE_DATA_DIR": str(self.folder / "data"),
            "YAMSCOPE_CACHE_DIR": str(self.folder / "cache"),
        }
        command = [sys.executable, "-m", "device.cli", "serve", "--port", str(self.port)]
        if self.config is not None:
            command += ["--config", str(self.config)]
        if not self.advice:
            command.append("--no-advice")
        self.process = subprocess.Popen(
            [*command, "--camera", self.camera],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.folder / "server.log", "ab"),  # noqa: SIM115
        )
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            if self.process.poll() is not None:
                log = (self.folder / "server.log").read_text()
                pytest.fail(f"yamscope serve exited: {log}")
            try:
                with urllib.request.urlopen(self.url + "api/state", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        pytest.fail("yamscope serve did not answer")

    def stop(self) -> None:
        """Stop the server if it runs, and print the end of its log (pytest shows it when
        the test failed: what the server said of a throw the page never showed)."""
        if self.process is not None and self.process.poll() is None:
            self.kill(signal.SIGTERM)
        log = self.folder / "server.log"
        if log.exists():
            print(log.read_text(errors="replace")[-4000:])

    def kill(self, sig: int = signal.SIGKILL) -> None:
        assert self.process is not None
        self.process.send_signal(sig)
        self.process.wait(timeout=WAIT_S)

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "api/state", timeout=5) as r:
            return json.load(r)

    def post(self, token: str, path: str, body: Any) -> dict[str, Any]:
        request = urllib.request.Request(
            self.url + path.lstrip("/"),
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Yamscope-Token": token},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=5) as r:
            return json.load(r)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    s.start()
    yield s
    s.stop()


def viewport(driver: Any, width: int, height: int) -> None:
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def wait(driver: Any, condition: Callable[[Any], Any], what: str) -> Any:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, WAIT_S).until(condition)
    except TimeoutException:
        # the page's last toast (its text stays when it hides): what a refused action said
        said = driver.execute_script("return document.getElementById('toast')?.textContent")
        pytest.fail(f"timed out waiting for {what} (the page's last message: {said!r})")


def css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def read(driver: Any, script: str, *args: Any) -> Any:
    """Read the page in one script: the page redraws on every push, so a Python-side
    element may be replaced between two calls."""
    return driver.execute_script(script, *args)


def text(driver: Any, selector: str) -> str:
    return read(
        driver,
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''",
        selector,
    )


def dice(driver: Any) -> list[str]:
    return read(
        driver,
        "return [...document.querySelectorAll('#dice .die .value')].map(e => e.textContent)",
    )


def suggestions(driver: Any) -> list[str]:
    return read(
        driver, "return [...document.querySelectorAll('#suggestions .sugg')].map(e => e.innerText)"
    )


def cell(driver: Any, box: str, column: int = 0) -> str:
    """What is written in a box of the sheet ('' when empty, even if a preview shows)."""
    return read(
        driver,
        "const c = document.querySelectorAll(`#sheet tr[data-box='${arguments[0]}'] td`);"
        "if (!c.length) return '?';"
        "return c[arguments[1]].classList.contains('preview') ? '' : c[arguments[1]].textContent",
        box,
        column,
    )


def click(driver: Any, selector: str) -> None:
    """Click what the selector finds, once it is enabled (a click on a disabled button does
    nothing: the throw button waits for the game and the camera); retried if a push redrew
    it meanwhile."""
    from selenium.common.exceptions import StaleElementReferenceException

    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        try:
            found = css(driver, selector)[0]
            if found.is_enabled():
                found.click()
                return
        except (StaleElementReferenceException, IndexError):
            pass
        time.sleep(0.05)
    pytest.fail(f"could not click {selector}")


def start_game(driver: Any, rules: str, players: list[str], *, closes: bool = True) -> None:
    """Fill the new-game form as a player would ("facile": a computer player); ``closes``:
    wait for the form to close (it stays open while a PIN is asked)."""
    from selenium.webdriver.support.ui import Select

    wait(driver, lambda d: css(d, "#dlg-new[open]"), "the new game form")
    Select(css(driver, "#new-rules")[0]).select_by_value(rules)
    while len(css(driver, "#new-players li")) > 1:
        css(driver, "#new-players li .remove")[-1].click()
    while len(css(driver, "#new-players li")) < len(players):
        click(driver, "#btn-add-player")
    for row, player in zip(css(driver, "#new-players li"), players, strict=True):
        kind = Select(row.find_element("css selector", ".kind"))
        if player in ("facile", "difficile"):
            kind.select_by_value(player)
        else:
            kind.select_by_value("human")
            name = row.find_element("css selector", ".name")
            name.clear()
            name.send_keys(player)
    click(driver, "#btn-new-start")
    if closes:
        wait(driver, lambda d: not css(d, "#dlg-new[open]"), "the form to close")


def test_play_reload_correct_undo_and_survive_a_crash(driver: Any, server: Server) -> None:
    viewport(driver, 800, 480)
    driver.get(server.url)
    start_game(driver, "yams", ["Anne", "facile"])
    wait(driver, lambda d: "Anne" in text(d, "#turn"), "Anne's turn")
    assert text(driver, "#sheet thead th.player") == "Anne"

    # throw: five dice and ranked suggestions appear
    click(driver, "#btn-throw")
    wait(driver, lambda d: len(dice(d)) == 5 and suggestions(d), "dice and suggestions")
    first = dice(driver)
    click(driver, '#dice .die[data-index="0"]')  # keep the first die
    pressed = "return document.querySelector('#dice .die[data-index=\"0\"]').ariaPressed"
    assert read(driver, pressed) == "true"
    click(driver, "#btn-throw")
    wait(driver, lambda d: "2/3" in text(d, "#turn"), "the second throw")
    assert dice(driver)[0] == first[0]
    assert server.state()["game"]["dice"][0]["kept"] is True

    # one tap records the best entry; the computer then plays its turn by itself
    box, points = read(
        driver,
        "const b = document.querySelector('#suggestions .sugg');"
        "return [b.dataset.box, b.querySelector('.sugg-points').textContent]",
    )
    click(driver, f'#suggestions .sugg[data-box="{box}"]')
    wait(driver, lambda d: cell(d, box) in (points, "—"), "the entry on the sheet")
    wait(driver, lambda d: "Ordi facile" in text(d, "#recent"), "the computer's turn")
    wait(driver, lambda d: "Anne" in text(d, "#turn"), "Anne's turn again")
    sheet = text(driver, "#sheet")
    driver.refresh()
    wait(driver, lambda d: "Anne" in text(d, "#turn"), "the page after a reload")
    assert text(driver, "#sheet") == sheet

    # a misread die corrected: the suggestions follow
    click(driver, "#btn-throw")
    wait(driver, lambda d: len(dice(d)) == 5 and suggestions(d), "a new throw")
    before, shown = dice(driver), suggestions(driver)
    click(driver, "#btn-correct")  # then the die to correct
    click(driver, '#dice .die[data-index="0"]')
    wait(driver, lambda d: css(d, "#dlg-die[open]"), "the die editor")
    new_value = "6" if before[0] != "6" else "1"
    click(driver, f'#die-values [data-value="{new_value}"]')
    click(driver, "#btn-die-ok")
    wait(driver, lambda d: dice(d)[0] == new_value, "the corrected die")
    wait(driver, lambda d: suggestions(d) != shown, "new suggestions")
    corrected = server.state()["game"]
    assert corrected["dice"][0]["value"] == int(new_value) and corrected["throw"] == 1

    # undo takes back the correction first (the last thing done), then Anne's entry (and
    # the computer's after it)
    click(driver, "#btn-undo")
    wait(driver, lambda d: dice(d) == before, "the correction taken back")
    click(driver, "#btn-undo")
    wait(driver, lambda d: cell(d, box) == "", "the entry taken back")
    written = (
        "return [...document.querySelectorAll('#sheet tr.box td:not(.preview)')]"
        ".map(c => c.textContent).filter(t => t !== '')"
    )
    assert read(driver, written) == []
    assert server.state()["game"]["turn"] == 1

    # write again, throw, then the server dies mid-turn: the restarted one shows the same game
    click(driver, "#suggestions .sugg")
    wait(driver, lambda d: "Anne" in text(d, "#turn") and "Ordi" in text(d, "#recent"), "turn 3")
    click(driver, "#btn-throw")
    wait(driver, lambda d: "1/3" in text(d, "#turn"), "a throw before the crash")
    seen = {"dice": dice(driver), "sheet": text(driver, "#sheet"), "turn": text(driver, "#turn")}
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors  # no script error, no refused request, nothing blocked by CSP
    server.kill(signal.SIGKILL)
    server.start()
    driver.refresh()
    wait(driver, lambda d: len(dice(d)) == 5, "the page after the restart")
    assert {
        "dice": dice(driver),
        "sheet": text(driver, "#sheet"),
        "turn": text(driver, "#turn"),
    } == seen
    assert not driver.execute_script("return document.getElementById('dlg-new').open")


def _token(driver: Any) -> str:
    return driver.execute_script(
        "return JSON.parse(document.getElementById('boot').textContent).token"
    )


@pytest.mark.parametrize(("width", "height"), [(360, 740), (800, 480)])
def test_no_horizontal_overflow_with_six_players(
    driver: Any, server: Server, width: int, height: int
) -> None:
    viewport(driver, width, height)
    driver.get(server.url)
    names = ["Anne-Charlotte", "Bruno", "Chloé", "facile", "Dominique", "facile"]
    for rules in ("impossible", "yams", "cameroun"):
        server.post(_token(driver), "/api/games", {"rules": rules, "players": names})
        driver.refresh()
        click(driver, "#btn-throw")
        wait(driver, lambda d: suggestions(d), f"{rules}: suggestions")
        overflow = driver.execute_script(
            "const e = document.documentElement;"
            "return [e.scrollWidth, e.clientWidth, document.body.scrollWidth];"
        )
        assert overflow[0] <= overflow[1] and overflow[2] <= overflow[1], (rules, overflow)
        assert len(css(driver, "#sheet thead th.player, #sheet tbody th.player")) == 6


def test_language_toggle_and_announced_throw(driver: Any, server: Server) -> None:
    viewport(driver, 800, 480)
    driver.get(server.url)
    token = _token(driver)
    server.post(token, "/api/games", {"rules": "cameroun", "players": ["Anne", "Bruno"]})
    driver.refresh()
    wait(driver, lambda d: text(d, "#btn-throw") == "Lancer", "the French page")
    click(driver, "#btn-lang")
    assert text(driver, "#btn-throw") == "Throw" and text(driver, "#btn-new") == "New game"
    click(driver, "#btn-lang")
    assert text(driver, "#btn-throw") == "Lancer"
    for _ in range(2):
        click(driver, "#btn-throw")
        time.sleep(0.2)
    wait(driver, lambda d: css(d, "#btn-announce") and css(d, "#btn-announce")[0].is_displayed(),
         "the announce button")  # fmt: skip
    assert "3e jet" in text(driver, "#btn-announce")
    click(driver, "#btn-announce")
    wait(driver, lambda d: css(d, "#dlg-announce[open]"), "the announce dialog")
    click(driver, '#announce-boxes [data-box="Q"]')
    wait(driver, lambda d: "Quinte" in text(d, "#banner"), "the announced column")
    assert server.state()["game"]["announced"] == "Q"


def replay_photos(folder: Path, calibration: Path, dice: int = 5) -> list[list[int]]:
    """Three photos of ``dice`` d6 thrown on one drawn tray, and the values in each: the
    recording a replay camera plays; and the table's calibration on its empty tray, where
    ``yamscope calibrate`` writes it. The photos are read right by the shipped pipeline (its
    accuracy over many photos is ``yamscope evaluate``'s business, not this test's)."""
    import cv2
    import numpy as np

    from device.camera.simulated_source import calibrate_tray
    from models.synth import place, random_specs, random_tray, render
    from vision.calibration import save

    folder.mkdir()
    rng = np.random.default_rng(0)
    tray = random_tray(rng, (640, 480))
    calibration.parent.mkdir(parents=True)
    save(calibrate_tray(tray, np.random.default_rng(1)), calibration)
    values = []
    for i in range(3):
        specs = random_specs(rng, dice, kinds=("d6",))
        scene = render(tray, specs, place(rng, specs, tray), rng)
        cv2.imwrite(str(folder / f"throw-{i}.png"), scene.image)
        values.append(sorted(s.value for s in specs))
    return values


def test_replay_camera_reads_the_throws_into_the_page(driver: Any, tmp_path: Path) -> None:
    thrown = replay_photos(tmp_path / "replay", tmp_path / "data" / "calibration.json")
    server = Server(tmp_path, camera=f"replay:{tmp_path / 'replay'}")
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        wait(driver, lambda d: "camera" in text(d, "#cam") or "caméra" in text(d, "#cam"), "cam")
        start_game(driver, "yams", ["Anne"])
        # no throw button: the camera reads the dice when they come to rest
        assert read(driver, "return document.querySelector('#btn-throw').hidden") is True
        wait(driver, lambda d: len(dice(d)) == 5 and suggestions(d), "dice read by the camera")
        state = server.state()
        read_values = [d["value"] for d in state["game"]["dice"]]
        assert sorted(read_values) in thrown  # the photo on the tray, read right
        assert dice(driver) == [str(v) for v in read_values]
        wait(driver, lambda d: read(d, "return document.querySelector('#live-img').naturalWidth")
             > 0, "the live picture")  # fmt: skip

        box = read(driver, "return document.querySelector('#suggestions .sugg').dataset.box")
        click(driver, f'#suggestions .sugg[data-box="{box}"]')
        wait(driver, lambda d: cell(d, box) != "", "the entry on the sheet")
        sheet = text(driver, "#sheet")
        driver.refresh()
        wait(driver, lambda d: cell(d, box) != "", "the page after a reload")
        assert text(driver, "#sheet") == sheet
        assert server.state()["game"]["sheets"][0]
    finally:
        server.stop()


def test_what_the_camera_has_to_say_is_the_banner(driver: Any, tmp_path: Path) -> None:
    # four dice where Yam's throws five: the reader's message, as a distrusted model's
    # reason is shown (device/tray.py), comes to the page's banner and nothing is recorded
    replay_photos(tmp_path / "replay", tmp_path / "data" / "calibration.json", dice=4)
    server = Server(tmp_path, camera=f"replay:{tmp_path / 'replay'}")
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        start_game(driver, "yams", ["Anne"])
        wait(driver, lambda d: "4 dés lus sur la piste, 5 attendus" in text(d, "#banner"),
             "the camera's message in the banner, in the page's language")  # fmt: skip
        assert "error" in read(driver, "return document.querySelector('#banner').className")
        click(driver, "#btn-lang")
        assert "4 dice read on the tray, 5 expected" in text(driver, "#banner")
        assert server.state()["game"]["throw"] == 0
    finally:
        server.stop()


def empty_tray_replay(folder: Path) -> Path:
    """A replay camera's folder: one photo of a drawn empty tray (seed 2: a dim one)."""
    import cv2
    import numpy as np

    from models.synth import empty_tray, random_tray

    folder.mkdir()
    rng = np.random.default_rng(2)
    cv2.imwrite(str(folder / "empty.png"), empty_tray(random_tray(rng, (640, 480)), rng))
    return folder


def test_the_empty_tray_is_calibrated_from_the_page(driver: Any, tmp_path: Path) -> None:
    folder = empty_tray_replay(tmp_path / "replay")
    server = Server(tmp_path, camera=f"replay:{folder}")
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        wait(driver, lambda d: "non calibrée" in text(d, "#calibration-text"), "not calibrated")
        wait(driver, lambda d: read(d, "return document.querySelector('#live-img').naturalWidth")
             > 0, "the live picture")  # fmt: skip
        time.sleep(2.5)  # the replay leads in with a plain frame for two seconds
        click(driver, "#btn-new-cancel")  # no game yet: the page offered to start one
        click(driver, "#btn-calibrate")
        assert "La piste doit être vide" in driver.switch_to.alert.text
        driver.switch_to.alert.dismiss()  # asked first: nothing happens
        time.sleep(0.3)
        assert server.state()["camera"]["calibration"] is None
        click(driver, "#btn-calibrate")
        driver.switch_to.alert.accept()
        wait(driver, lambda d: "Piste calibrée" in text(d, "#toast"), "the calibration's toast")
        shown = text(driver, "#calibration-text")
        assert shown.startswith("Calibrée : caméra de 52° (par défaut), dés de ")
        calibration = server.state()["camera"]["calibration"]
        assert calibration["field_of_view_from"] == "default"
        # this drawn tray (seed 2) is dim: the page says so in its own language
        assert [p["problem"] for p in calibration["light"]] == ["dark", "uneven"]
        assert "Trop sombre : le feutre est à " in text(driver, "#toast")
        # and written under the picture, where it stays (a touch screen has no hover)
        wait(driver, lambda d: "Trop sombre : le feutre est à " in text(d, "#light-advice"),
             "the light advice under the live picture")  # fmt: skip
        assert css(driver, "#light-advice")[0].is_displayed()
        assert calibration["tray_share"] < 0.95  # the photo's tray, not the plain lead-in
        # its dark walls are of the felt's colour: the felt seems to reach the picture's sides
        assert calibration["cut_off"] == ["left", "right"]
        assert "La piste semble sortir de l'image (à gauche, à droite)" in shown
        # anything the reader takes for a die on the empty tray is said, and only then
        assert ("Le lecteur voit" in text(driver, "#toast")) == bool(calibration["dice_seen"])
        saved = json.loads((tmp_path / "data" / "calibration.json").read_text(encoding="utf-8"))
        assert saved["field_of_view"] == 52.0 and saved["size"] == [640, 480]
    finally:
        server.stop()


def test_a_configured_lens_wider_than_the_models_learned_is_said_on_the_page(
    driver: Any, tmp_path: Path
) -> None:
    folder = empty_tray_replay(tmp_path / "replay")
    config = tmp_path / "yamscope.toml"
    config.write_text("[camera]\nfield_of_view = 86.0\n", encoding="utf-8")
    server = Server(tmp_path, camera=f"replay:{folder}", config=config)
    server.start()
    try:
        driver.get(server.url)
        wait(driver, lambda d: read(d, "return document.querySelector('#live-img').naturalWidth")
             > 0, "the live picture")  # fmt: skip
        time.sleep(2.5)  # the replay leads in with a plain frame for two seconds
        click(driver, "#btn-new-cancel")
        click(driver, "#btn-calibrate")
        driver.switch_to.alert.accept()
        wait(driver, lambda d: "Piste calibrée" in text(d, "#toast"), "the calibration's toast")
        shown = text(driver, "#calibration-text")
        assert shown.startswith("Calibrée : caméra de 86° (réglage)")
        assert "Objectif plus large que ceux appris (75° au plus)" in shown
        assert server.state()["camera"]["calibration"]["wider_than_trained"] is True
    finally:
        server.stop()


# -- issue 25: what the page says of the PIN, and of a full disk ----------------------------------
def test_the_pin_dialog_says_how_strong_the_pin_is(driver: Any, tmp_path: Path) -> None:
    config = tmp_path / "yamscope.toml"
    config.write_text('[server]\npin = "1234"\n', encoding="utf-8")
    server = Server(tmp_path, config=config)
    server.start()
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        driver.execute_script("sessionStorage.clear()")
        driver.refresh()
        start_game(driver, "yams", ["Anne"], closes=False)  # refused without the PIN
        wait(driver, lambda d: css(d, "#dlg-pin[open]"), "the PIN dialog")
        said = text(driver, "#pin-strength")
        assert said.startswith("PIN de 4 chiffres : au rythme d'essais permis, le deviner")
        assert "parmi les premiers essayés" in said  # this machine's screen is told
        css(driver, "#pin-input")[0].send_keys("1234")
        click(driver, "#form-pin button[type=submit]")
        wait(driver, lambda d: "Anne" in text(d, "#turn"), "the game, once the PIN was given")
    finally:
        server.stop()


def shown(driver: Any) -> dict[str, Any]:
    return {"dice": dice(driver), "sheet": text(driver, "#sheet"), "turn": text(driver, "#turn")}


class InProcessServer:
    """The real app on the real threaded server, in this process, so that a test can make
    the records file full: SQLite's ``max_page_count`` gives SQLITE_FULL ("database or disk
    is full"), the error a full disk gives, without a filesystem to fill."""

    def __init__(self, folder: Path) -> None:
        import random

        from device.store import Store
        from device.table import TableSession
        from device.web import create_app
        from device.web.server import make_table_server

        self.session = TableSession(
            Store(folder / "yamscope.db"), rng=random.Random(5), cache_dir=folder, advice=False
        )
        self.server = make_table_server("127.0.0.1", 0, create_app(self.session))
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def post(self, token: str, path: str, body: Any) -> int:
        request = urllib.request.Request(
            self.url + path.lstrip("/"),
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Yamscope-Token": token},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code

    def max_pages(self, pages: int | None) -> None:
        """Let the records file grow no more (None: as far as the disk allows)."""
        store = self.session.store
        with store._lock:
            if pages is None:
                pages = 1_073_741_823
            store._db.execute(f"PRAGMA max_page_count = {pages}")

    def stored(self) -> int:
        return len(self.session.store.events(self.session.game_id))

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.session.close()


def test_a_full_disk_is_said_on_the_page_and_play_resumes(driver: Any, tmp_path: Path) -> None:
    server = InProcessServer(tmp_path)
    driver.get_log("browser")  # what earlier tests left there
    try:
        viewport(driver, 800, 480)
        driver.get(server.url)
        start_game(driver, "yams", ["Anne"])
        wait(driver, lambda d: "Anne" in text(d, "#turn"), "Anne's turn")
        token = _token(driver)
        with server.session.store._lock:
            pages = server.session.store._db.execute("PRAGMA page_count").fetchone()[0]
        server.max_pages(pages)  # the disk is full from now on
        for _ in range(300):  # play through the API until a throw needs a page more
            if not server.session.state()["game"]["can_throw"]:
                assert server.post(token, "/api/score", {"box": "chance"}) in (200, 409, 507)
                if server.session.state()["game"]["can_throw"]:
                    continue
                assert server.post(token, "/api/undo", {}) in (200, 409, 507)
                continue
            if server.post(token, "/api/throw", {"keep": []}) == 507:
                break
        else:
            pytest.fail("the records file never filled up")
        driver.refresh()
        wait(driver, lambda d: css(d, "#btn-throw") and not css(d, "#btn-throw")[0].get_attribute(
            "disabled"), "the throw button")  # fmt: skip
        before = shown(driver)
        stored, state = server.stored(), server.session.state()["game"]
        click(driver, "#btn-throw")  # the same throw, from the page: it cannot be kept
        wait(driver, lambda d: "le disque est plein" in text(d, "#toast"), "the records message")
        assert text(driver, "#toast").startswith("Les scores n'ont pas pu être enregistrés")
        assert server.stored() == stored
        after = server.session.state()["game"]
        assert (after["dice"], after["throw"], after["sheets"]) == (
            state["dice"], state["throw"], state["sheets"])  # fmt: skip
        assert shown(driver) == before  # the page shows the game as it is kept
        server.max_pages(None)  # space is back
        click(driver, "#btn-throw")
        wait(driver, lambda d: server.stored() == stored + 1, "the throw, kept")
        wait(driver, lambda d: text(d, "#turn") != before["turn"], "the page to follow")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert all("507" in e["message"] for e in errors), errors  # only the refused request
    finally:
        server.stop()
