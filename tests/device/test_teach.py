"""« Apprendre mes dés » against the real tray watcher on the simulated tray: photos taken
when the tray rests, refused when a die is missing, never recorded as throws, and the fitted
head kept and read with at once."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from device.config import CameraSource, Config
from device.serve import start_tray
from device.storage import Store
from device.table import TableSession
from device.teach import Lesson, TeachRefused
from models.synth import DieSpec
from vision.enrolment import TURNS, enrol, load, save, turned


@pytest.fixture
def watcher(tmp_path: Path) -> Iterator[Any]:
    session = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(5), cache_dir=tmp_path, advice=False
    )
    session.new_game("yams", None, ["Ana"])
    tray = start_tray(session, Config(), CameraSource("simulated"), tmp_path / "t.db")
    end = time.monotonic() + 30
    while tray.detector.state == "warming" and time.monotonic() < end:
        time.sleep(0.1)
    yield tray
    tray.stop()
    session.close()


def test_photos_are_labelled_fitted_and_read_with_at_once(watcher: Any, tmp_path: Path) -> None:
    reader = watcher.recogniser.reader
    crops = np.random.default_rng(2).integers(0, 255, (3, 64, 64, 3), dtype=np.uint8)
    features, logits = reader.features(turned(crops))
    classes = [int(c) for c in reader.classes("value")]
    before = enrol(
        features, logits, np.tile([7, 8, 5], TURNS), classes, reader.card.version,
        reader.digest, photos=2, kinds=np.tile(["d10", "d10", "d6"], TURNS),
    )  # fmt: skip  # an earlier lesson: the table's d10, and one d6
    save(before, tmp_path / "enrolment.json")
    lesson = Lesson(watcher, "yams", tmp_path / "enrolment.json")
    assert [s for s in lesson.steps[:4]] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert len(lesson.steps) == 12  # six values, twice each
    lesson.steps = lesson.steps[:4]  # (two values are enough to see it work)
    watcher.lesson = lesson
    for n in range(1, 5):
        assert lesson.take()["taken"] == n
    with pytest.raises(TeachRefused, match="every photo is taken"):
        lesson.take()
    state = lesson.finish()
    result = state["result"]
    assert result["dice"] == 20 and len(result["photos"]) == 4
    assert [p["value"] for p in result["photos"]] == [1, 1, 2, 2]
    assert all(0 <= p["right_after"] <= p["dice"] == 5 for p in result["photos"])
    saved = load(tmp_path / "enrolment.json", watcher.recogniser.reader.path)
    assert saved.examples() == {1: 10, 2: 10, 7: 1, 8: 1}  # the d10 kept, the old d6 replaced
    assert saved.kinds == ("d6", "d10")
    assert watcher.recogniser.reader.enrolment is not None  # read with at once
    # the dice laid flat fit the table's cocked-die head where the tray is calibrated
    assert (saved.lean is None) == (watcher.recogniser.calibration is None)
    if saved.lean is not None:
        assert saved.lean.dice == 20 and watcher.recogniser.leaning.table is not None
        assert result["cocked"]["after"] == 0  # the lesson's own flat dice, learned flat
    assert watcher.lesson is None  # the tray reads throws again
    session = watcher.session
    assert session.store.throws(session.game_id) == []  # no photo became a throw


def test_a_photo_without_every_die_is_refused(watcher: Any, tmp_path: Path) -> None:
    lesson = Lesson(watcher, "yams", tmp_path / "enrolment.json")
    lesson._own = False  # as with a real camera: the players lay the dice by hand
    watcher.lesson = lesson
    with pytest.raises(TeachRefused, match="did not come to rest with new dice"):
        lesson.take(wait_s=1.0)
    watcher.runner.source.throw([DieSpec("d6", 1, "white", "frosted")] * 4)  # one die short
    with pytest.raises(TeachRefused, match="4 dice seen, 5 expected") as refused:
        lesson.take()
    assert "4 dé(s) vu(s), 5 attendus" in refused.value.french
    assert lesson.shots == [] and lesson.step == (1, 1)
    watcher.runner.source.throw([DieSpec("d6", 1, "white", "frosted")] * 5)
    assert lesson.take()["taken"] == 1
    assert lesson.drop_last()["taken"] == 0


def test_dice_that_came_to_rest_before_the_tap_are_the_photo(watcher: Any, tmp_path: Path) -> None:
    """The players lay the dice, take their hands away, then tap: the rest already seen
    is the photo, no second one is waited for."""
    lesson = Lesson(watcher, "yams", tmp_path / "enrolment.json")
    lesson._own = False  # as with a real camera: the players lay the dice by hand
    watcher.lesson = lesson
    watcher.runner.source.throw([DieSpec("d6", 1, "white", "frosted")] * 5)
    end = time.monotonic() + 20
    while not lesson._arrived.is_set() and time.monotonic() < end:
        time.sleep(0.05)
    assert lesson.take(wait_s=0.5)["taken"] == 1
