"""Learning from play (device/learning.py): the dice of a written throw, corrected ones
counting most, refit the table's enrolment in the background; a throw nobody wrote from is
never learned from."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.learning import CORRECTED, PlayLearner
from device.store import Store
from device.table import TableSession
from vision.enrolment import TURNS, load
from vision.faces import FaceReader
from vision.reading import ReadDie, Reading


def reading(*values: int) -> Reading:
    dice = tuple(
        ReadDie("d6", v, "white", "frosted", 0.99, (i * 50, 0, i * 50 + 40, 40))
        for i, v in enumerate(values)
    )
    return Reading(dice, 12.0, (640, 480))


def crops(n: int, seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    return [
        cv2.imencode(".png", rng.integers(0, 255, (96, 96, 3), dtype=np.uint8))[1].tobytes()
        for _ in range(n)
    ]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableSession, PlayLearner]]:
    session = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(7), cache_dir=tmp_path, advice=False
    )
    learner = PlayLearner(FaceReader(), tmp_path / "enrolment.json", refit_every=10)
    session.learner = learner
    session.new_game("yams", None, ["Ana", "Bea"])
    yield session, learner
    learner.stop()
    session.close()


def wait_for(condition, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def test_written_throws_refit_the_enrolment_and_corrections_weigh_most(
    table: tuple[TableSession, PlayLearner], tmp_path: Path
) -> None:
    session, learner = table
    session.camera_throw(reading(3, 1, 6, 6, 2), crops=crops(5, 0))
    session.camera_throw(reading(4, 4, 4, 5, 1), crops=crops(5, 1))  # thrown again, unwritten
    session.correct("4 4 4 5 5")  # the players put the last die right
    session.score("4")
    assert learner.refits == 0  # five dice confirmed: not yet enough for a refit
    session.camera_throw(reading(2, 2, 3, 3, 3), crops=crops(5, 2))
    session.score("full")
    wait_for(lambda: learner.refits == 1, "the refit")
    enrolment = load(tmp_path / "enrolment.json", learner.reader.path)
    assert sorted(enrolment.labels[: len(enrolment.labels) // TURNS].tolist()) == sorted(
        [4, 4, 4, 5, 5, 2, 2, 3, 3, 3]
    )  # the written dice, never the first throw's (nobody wrote from it)
    assert sorted(set(enrolment.weights.tolist())) == [1.0, CORRECTED]
    assert enrolment.weights.tolist().count(CORRECTED) == TURNS  # the one corrected die
    assert learner.reader.enrolment is not None  # read with at once
    assert enrolment.kinds == ("d6",)  # the game's dice: a d10 is still read as the model reads it
    assert set(enrolment.crop_kinds.tolist()) == {"d6"}


def test_throws_without_the_cameras_crops_teach_nothing(
    table: tuple[TableSession, PlayLearner], tmp_path: Path
) -> None:
    session, learner = table
    for box in ("chance", "chance", "grande_suite"):
        session.throw("2 3 4 5 6")  # typed in: no crop of any die
        session.score(box)
    time.sleep(0.3)
    assert learner.refits == 0 and not (tmp_path / "enrolment.json").exists()
