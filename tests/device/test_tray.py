"""The tray watcher on the simulated tray: dice thrown on it come to rest, are read once,
and land in the table session with their photo; a reading that cannot be the throw is
reported, not recorded. The reader here is our own stand-in that reads the simulated
tray's truth (the recognition itself is measured by ``yamscope evaluate``)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from device.camera import CameraRunner
from device.camera.simulated_source import SimulatedSource
from device.store import Store
from device.table import TableSession
from device.tray import TrayWatcher
from scoring.entries import RulesError
from vision.detect import DiceFinder
from vision.faces import FaceReader
from vision.reading import ReadDie, Reading


class TruthReader:
    """Reads what the simulated tray last threw (``drop``: miss that many dice)."""

    def __init__(self, source: SimulatedSource) -> None:
        self.source = source
        self.kinds: tuple[str, ...] = ("d6", "d10")
        self.coloured = False
        self.drop = 0
        self.notes: tuple[str, ...] = ()
        self.expected: int | None = None  # told by the watcher before each reading
        self.told: list[int | None] = []
        self.view_notes: tuple[str, ...] | None = None
        self.looks = 0
        self.frames: list[np.ndarray] = []
        self.calibration = None
        self.distrust: str | None = None  # as Recogniser.check_model leaves it
        self.reader = FaceReader()  # the crops for corrections are cut by the model's rule
        self.finder = DiceFinder()  # calibrating says what the real detector sees

    def look_at_empty(self, frame: np.ndarray) -> tuple[str, ...] | None:
        """What the recogniser says of the tray at rest (Recogniser.look_at_empty)."""
        self.looks += 1
        return self.view_notes

    def __call__(self, frame: np.ndarray) -> Reading:
        self.frames.append(frame)
        self.told.append(self.expected)
        specs = self.source.last_throw[self.drop :]
        dice = tuple(
            ReadDie(s.kind, s.value, s.colour, s.finish, 0.99, (10 * i, 0, 10 * i + 8, 8))
            for i, s in enumerate(specs)
        )
        return Reading(dice, 1.0, (frame.shape[1], frame.shape[0]), self.notes)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableSession, TrayWatcher, TruthReader]]:
    session = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(3), cache_dir=tmp_path, advice=False
    )
    source = SimulatedSource(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    reader = TruthReader(source)
    watcher = TrayWatcher(session, CameraRunner(source, watchdog_seconds=5), reader)  # type: ignore[arg-type]
    session.watcher = watcher
    watcher.start()
    yield session, watcher, reader
    watcher.stop()
    session.close()


def wait_for(condition, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


def test_a_throw_on_the_tray_is_read_once_and_recorded(table) -> None:  # type: ignore[no-untyped-def]
    session, watcher, reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    session.new_game("yams", None, ["Ana"])
    session.simulated_throw()
    wait_for(lambda: session.game.throw_no == 1, "the first throw")
    thrown = [s.value for s in reader.source.last_throw]
    assert [d.value for d in session.game.dice] == thrown
    assert reader.kinds == ("d6",) and reader.coloured is False  # told by the game
    (stored,) = session.store.throws(session.game_id)
    assert stored["has_snapshot"]
    time.sleep(0.5)  # the dice rest: no second reading of the same throw
    assert len(reader.frames) == 1

    session.simulated_throw(keep=[0, 1])  # three dice roll again, two were set aside
    wait_for(lambda: session.game.throw_no == 2, "the second throw")
    values = [d.value for d in session.game.dice]
    assert values[:2] == thrown[:2]
    assert values[2:] == [s.value for s in reader.source.last_throw]
    assert len(reader.source.last_throw) == 3
    assert reader.told == [5, 3]  # the reader knew how many dice each throw put on the tray


def test_what_the_reader_notes_of_the_tray_is_said_with_the_throw(table) -> None:  # type: ignore[no-untyped-def]
    """A camera knocked since calibration: the throw is read and recorded, and the players
    are told, with the way out."""
    session, watcher, reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    session.new_game("yams", None, ["Ana"])
    reader.notes = ("the tray or the camera moved by 0.4 die sides since calibration: ...",)
    session.simulated_throw()
    wait_for(lambda: session.game.throw_no == 1, "the throw, recorded all the same")
    wait_for(lambda: watcher.status()["message"], "the message")
    assert watcher.status()["message"] == reader.notes[0]
    reader.drop, reader.notes = 1, ("a note",)
    session.simulated_throw(keep=[0])
    wait_for(lambda: "expected" in (watcher.status()["message"] or ""), "the refusal")
    assert watcher.status()["message"].endswith("; a note")


def test_the_tray_at_rest_is_looked_at_and_a_moved_camera_said_until_it_is_over(
    table, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import device.tray

    monkeypatch.setattr(device.tray, "LOOK_EVERY_S", 0.05)
    _session, watcher, reader = table
    wait_for(lambda: reader.looks > 0, "the tray at rest looked at")
    assert watcher.status()["message"] is None
    reader.view_notes = ("the tray or the camera moved by 1.2 die sides since calibration",)
    wait_for(lambda: watcher.status()["message"], "the players told")
    assert watcher.status()["message"] == reader.view_notes[0]
    reader.view_notes = ()  # calibrated again, or put back
    wait_for(lambda: watcher.status()["message"] is None, "the message gone")


def test_a_reading_with_a_die_missing_is_reported_not_recorded(table) -> None:  # type: ignore[no-untyped-def]
    session, watcher, reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    session.new_game("yams", None, ["Ana"])
    reader.drop = 1
    session.simulated_throw()
    wait_for(lambda: watcher.status()["message"], "the message")
    assert "4 dice read on the tray, 5 expected" in watcher.status()["message"]
    said = watcher.status()["message"]
    wait_for(lambda: session.state()["camera"]["message"] == said, "the page to be told")
    assert session.game.throw_no == 0
    assert session.store.throws(session.game_id) == []


def test_a_reader_that_distrusts_its_model_says_why_after_every_throw(tmp_path: Path) -> None:
    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    source = SimulatedSource(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    reader = TruthReader(source)
    reader.distrust = "die-face model 9.9: reads its 30 check crops differently on this machine"
    watcher = TrayWatcher(session, CameraRunner(source, watchdog_seconds=5), reader)  # type: ignore[arg-type]
    session.watcher = watcher
    assert watcher.status()["message"] == reader.distrust  # from the start
    watcher.start()
    try:
        wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
        session.new_game("yams", None, ["Ana"])
        session.simulated_throw()
        wait_for(lambda: session.game.throw_no == 1, "the throw, recorded all the same")
        assert session.state()["camera"]["message"] == reader.distrust  # and after it
    finally:
        watcher.stop()
        session.close()


def test_the_live_picture_is_made_only_while_someone_watches(table) -> None:  # type: ignore[no-untyped-def]
    _session, watcher, _reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    time.sleep(0.3)
    assert watcher.live_jpeg() is None  # nobody asked before: nothing was encoded
    wait_for(lambda: watcher.live_jpeg() is not None, "a live picture")
    assert watcher.live_jpeg().startswith(b"\xff\xd8")  # JPEG


class Lockable(SimulatedSource):
    """The simulated tray with the exposure lock a Pi camera has (counted)."""

    locks = 0

    def lock_exposure(self) -> None:
        self.locks += 1


def test_exposure_is_locked_once_the_calibrated_tray_stands_still(tmp_path: Path) -> None:
    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    source = Lockable(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    reader = TruthReader(source)
    runner = CameraRunner(source, watchdog_seconds=5)
    watcher = TrayWatcher(session, runner, reader, lock_exposure=True)  # type: ignore[arg-type]
    watcher.start()
    try:
        wait_for(lambda: source.locks == 1, "the exposure lock")
        time.sleep(0.3)
        assert source.locks == 1  # once, not on every still frame
    finally:
        watcher.stop()
        session.close()


def watch(session: TableSession, source, tmp_path: Path, **options) -> TrayWatcher:  # type: ignore[no-untyped-def]
    watcher = TrayWatcher(
        session,
        CameraRunner(source, watchdog_seconds=5),
        TruthReader(source),  # type: ignore[arg-type]
        calibration_path=tmp_path / "calibration.json",
        **options,
    )
    session.watcher = watcher
    return watcher


def test_calibrating_on_the_tray_keeps_the_camera_s_own_field_of_view(tmp_path: Path) -> None:
    from vision import calibration

    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    source = Lockable(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    watcher = watch(session, source, tmp_path, lock_after_calibrating=True)
    assert watcher.status()["calibration"] is None
    with pytest.raises(RulesError, match="no picture from the camera yet"):
        session.calibrate()  # nothing seen yet
    assert not (tmp_path / "calibration.json").exists()
    watcher.start()
    try:
        wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
        assert source.locks == 0  # not calibrated: the exposure is left to the camera
        # anyway: at this size the detector takes a spot of the empty tray for a die
        state = session.calibrate(anyway=True)
        shown = state["camera"]["calibration"]
        assert shown["field_of_view"] == round(source.tray.field_of_view, 1)
        assert shown["field_of_view_from"] == "camera" and shown["size"] == [320, 240]
        assert 0.2 < shown["tray_share"] <= 1 and shown["die_side"] > 0
        seen = shown["dice_seen"]  # what the detector takes for dice on the picture
        assert isinstance(seen, list)
        assert all(0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 240 for x0, y0, x1, y1 in seen)
        kept = calibration.load(tmp_path / "calibration.json")
        assert watcher.recogniser.calibration.to_json() == kept.to_json()
        wait_for(lambda: source.locks == 1, "the exposure lock once calibrated")
    finally:
        watcher.stop()
        session.close()


def test_the_configured_field_of_view_wins_over_the_camera_s(tmp_path: Path) -> None:
    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    source = SimulatedSource(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    watcher = watch(session, source, tmp_path, field_of_view=62.2)
    watcher.start()
    try:
        wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
        shown = session.calibrate(anyway=True)["camera"]["calibration"]
        assert (shown["field_of_view"], shown["field_of_view_from"]) == (62.2, "configuration")
    finally:
        watcher.stop()
        session.close()


def test_a_tray_without_felt_is_refused_and_the_calibration_in_use_stays(tmp_path: Path) -> None:
    import cv2

    from device.camera.replay_source import ReplaySource

    frames = tmp_path / "frames"
    frames.mkdir()
    noise = np.random.default_rng(0).integers(0, 255, (240, 320, 3), dtype=np.uint8)
    cv2.imwrite(str(frames / "0.png"), noise)  # no felt anywhere
    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    source = ReplaySource(frames, lores_size=(160, 120), loop=True, realtime=False)
    watcher = watch(session, source, tmp_path)
    (tmp_path / "calibration.json").write_text("the old one", encoding="utf-8")
    watcher.start()
    try:
        # the replay leads in with a plain frame, then shows the photo
        shown = lambda: watcher._frame is not None and watcher._frame.main.std() > 50  # noqa: E731
        wait_for(shown, "the photo on the tray")
        with pytest.raises(RulesError, match="could not be calibrated: no felt found"):
            session.calibrate()
        assert (tmp_path / "calibration.json").read_text(encoding="utf-8") == "the old one"
        assert watcher.status()["calibration"] is None
        assert watcher.field_of_view_from == "file"  # nothing changed
    finally:
        watcher.stop()
        session.close()


def test_no_camera_means_nothing_to_calibrate(tmp_path: Path) -> None:
    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    with pytest.raises(RulesError, match="no camera"):
        session.calibrate()
    session.close()


def _throw(client, token: str):  # type: ignore[no-untyped-def]
    return client.post("/api/throw", json={"keep": []}, headers={"X-Yamscope-Token": token})


def test_a_throw_before_the_tray_is_watched_or_during_a_roll_is_refused_with_why(
    tmp_path: Path,
) -> None:
    from device.web import create_app

    session = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(3), cache_dir=tmp_path, advice=False
    )
    source = SimulatedSource(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    watcher = TrayWatcher(session, CameraRunner(source, watchdog_seconds=5), TruthReader(source))  # type: ignore[arg-type]
    session.watcher = watcher
    client = create_app(session).test_client()
    page = client.get("/").get_data(as_text=True)
    token = page.split('"token": "', 1)[1].split('"', 1)[0]
    session.new_game("yams", None, ["Ana"])
    try:
        version = session.version
        early = _throw(client, token)  # the camera has not shown the tray at rest yet
        assert early.status_code == 409 and "camera is starting" in early.json["error"]
        assert session.version == version and source.last_throw == []  # nothing thrown
        assert watcher.status()["starting"] is True  # the page holds its throw button
        watcher.start()
        wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
        wait_for(lambda: session.state()["camera"]["starting"] is False, "the page told")
        assert _throw(client, token).status_code == 200
        version, thrown = session.version, source.last_throw
        rolling = _throw(client, token)  # at once: the dice are still rolling
        assert rolling.status_code == 409 and "still rolling" in rolling.json["error"]
        assert source.last_throw == thrown  # the roll was not restarted
        wait_for(lambda: session.game.throw_no == 1, "the first throw, read")
        assert [d.value for d in session.game.dice] == [s.value for s in thrown]
        wait_for(lambda: _throw(client, token).status_code == 200, "the tray to take a throw")
        wait_for(lambda: session.game.throw_no == 2, "the second throw, read")
    finally:
        watcher.stop()
        session.close()


def test_a_throw_asked_as_soon_as_the_last_one_is_shown_is_taken(table) -> None:  # type: ignore[no-untyped-def]
    session, watcher, _reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    session.new_game("yams", None, ["Ana"])
    with session.subscribe() as listener:
        for throw in (1, 2, 3):
            session.simulated_throw()  # never "still rolling": the last one was shown read
            end = time.monotonic() + 30
            while time.monotonic() < end:
                state = listener.next(timeout=1)
                if state and state["game"] and state["game"]["throw"] == throw:
                    break
            else:
                pytest.fail(f"throw {throw} never came")
