"""The table session behind the page's newer parts: a computer's turn at a person's pace,
and « Passer »; corrections after an undo; the undo of a correction."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.corrections import export_corrections
from device.store import Store
from device.table import TableSession
from scoring.entries import RulesError
from vision.reading import ReadDie, Reading


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    s = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(3), cache_dir=tmp_path, advice=False
    )
    yield s
    s.close()


def test_skip_is_refused_when_no_computer_plays(session: TableSession) -> None:
    session.new_game("yams", None, ["Anne"])
    with pytest.raises(RulesError, match="no computer is playing"):
        session.skip()


def test_a_computer_pauses_between_moves_until_skipped(tmp_path: Path) -> None:
    session = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(3), cache_dir=tmp_path, advice=False,
        computer_pace=60.0,
    )  # fmt: skip
    try:
        with session.subscribe() as listener:
            session.new_game("yams", None, ["facile", "Anne"])
            state = listener.next(timeout=10)  # the computer's first throw, then a minute's pause
            while state is not None and not (state["game"] or {}).get("throw"):
                state = listener.next(timeout=10)
        assert state is not None, "the computer never threw"
        assert not session.wait_idle(timeout=0.5)  # it waits, with its turn not over
        assert session.state()["game"]["player"] == "Ordi facile"
        session.skip()
        assert session.wait_idle(timeout=10)
        assert session.state()["game"]["player"] == "Anne"
    finally:
        session.close()


def camera_reading(*values: int) -> Reading:
    dice = tuple(
        ReadDie("d6", v, "white", "frosted", 0.99, (i * 50, 0, i * 50 + 40, 40))
        for i, v in enumerate(values)
    )
    return Reading(dice, 12.0, (640, 480))


def test_a_correction_after_an_undo_is_recorded_against_the_dice_on_the_table(
    session: TableSession, tmp_path: Path
) -> None:
    session.new_game("yams", None, ["Ana", "Bea"])
    crops = [f"ana-{i}".encode() for i in range(5)]
    session.camera_throw(camera_reading(3, 1, 6, 6, 2), crops=crops)
    session.score("chance")
    session.camera_throw(camera_reading(5, 5, 5, 4, 4), crops=[b"bea"] * 5)  # Bea's throw
    state = session.undo()  # Ana's entry back, and Bea's throw with it
    assert [d["value"] for d in state["game"]["dice"]] == [3, 1, 6, 6, 2]
    session.correct("3 1 6 5 2")  # the second 6 was a 5
    (correction,) = session.store.corrections(session.game_id)
    assert (correction["before"], correction["after"]) == ("3 1 6 6 2", "3 1 6 5 2")
    assert correction["crops"] == [(3, "5", b"ana-3")]  # the crop of the die put right

    out = tmp_path / "export"
    out.mkdir()
    (out / "holiday.png").write_bytes(b"not ours")
    assert export_corrections(session.store, out) == 1
    assert export_corrections(session.store, out) == 1  # again: the same folder
    assert sorted(p.name for p in out.iterdir()) == [
        f"{correction['id']:06d}-03.png",
        "holiday.png",
        "labels.jsonl",
    ]
    assert (out / "holiday.png").read_bytes() == b"not ours"


def test_calibrating_with_dice_in_view_is_refused_unless_asked_anyway(tmp_path: Path) -> None:
    from device.camera import CameraRunner
    from device.camera.simulated_source import SimulatedSource
    from device.table_camera import CalibrationRefused
    from device.tray import TrayWatcher
    from vision.recognise import Recogniser

    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    source = SimulatedSource(size=(640, 480), lores_size=(160, 120), seed=5, realtime=False)
    kept = tmp_path / "calibration.json"
    watcher = TrayWatcher(session, CameraRunner(source), Recogniser(None), calibration_path=kept)
    session.watcher = watcher
    watcher.start()
    try:
        source.throw(3)  # three dice left on the tray
        end = time.monotonic() + 30
        while not (source.settled and watcher.detector.state == "idle"):
            assert time.monotonic() < end, "the dice never came to rest"
            time.sleep(0.02)
        with pytest.raises(CalibrationRefused, match=r"3 dice in view: take them out") as refused:
            session.calibrate()
        assert len(refused.value.seen) == 3
        assert not kept.exists() and watcher.status()["calibration"] is None
        assert session.calibrate(anyway=True)["camera"]["calibration"] is not None
        assert kept.exists()
    finally:
        watcher.stop()
        session.close()


def test_undo_takes_back_a_correction_and_its_wrong_label(
    session: TableSession, tmp_path: Path
) -> None:
    session.new_game("yams", None, ["Ana"])
    session.camera_throw(camera_reading(3, 1, 6, 6, 2), crops=[b"a", b"b", b"c", b"d", b"e"])
    session.correct("3 1 6 5 2")  # by mistake: it was a 6
    assert session.state()["game"]["corrected"] is True
    state = session.undo()
    assert [d["value"] for d in state["game"]["dice"]] == [3, 1, 6, 6, 2]
    assert state["game"]["throw"] == 1 and state["game"]["corrected"] is False
    (correction,) = session.store.corrections(session.game_id)
    assert correction["crops"] == []  # its crop was labelled 5: not for training
    assert export_corrections(session.store, tmp_path / "out") == 0
    replayed = session.store.load(session.game_id)
    assert replayed.dice == session.game.dice and replayed.events == session.game.events
    with pytest.raises(RulesError, match="nothing to undo"):
        session.undo()  # no entry either
