"""The table session fed by a camera: dice set aside on the page, throws read on the tray,
the photo kept as evidence, and corrections kept with the crops of the dice put right."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.merge import ThrowNotRead
from device.store import Store
from device.table import TableSession
from scoring.entries import RulesError
from vision.reading import ReadDie, Reading


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    s = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(7), cache_dir=tmp_path, advice=False
    )
    s.new_game("yams", None, ["Ana", "Bea"])
    yield s
    s.close()


def reading(*values: int, unsure: tuple[int, ...] = ()) -> Reading:
    dice = tuple(
        ReadDie("d6", v, "white", "frosted", 0.5 if i in unsure else 0.99,
                (i * 50, 0, i * 50 + 40, 40), ("unsure",) if i in unsure else ())
        for i, v in enumerate(values)
    )  # fmt: skip
    return Reading(dice, 12.0, (640, 480))


def crops(n: int) -> list[bytes]:
    return [f"png-{i}".encode() for i in range(n)]


def test_a_read_throw_is_recorded_with_its_photo(session: TableSession) -> None:
    state = session.camera_throw(reading(3, 1, 6, 6, 2), snapshot=b"jpeg", crops=crops(5))
    assert [d["value"] for d in state["game"]["dice"]] == [3, 1, 6, 6, 2]
    assert state["unsure"] == []
    throws = session.store.throws(session.game_id)
    assert len(throws) == 1 and throws[0]["dice"] == "3 1 6 6 2"
    assert session.store.snapshot(throws[0]["id"]) == b"jpeg"


def test_kept_dice_stay_and_the_read_ones_fill_the_rest(session: TableSession) -> None:
    session.camera_throw(reading(3, 1, 6, 6, 2), crops=crops(5))
    state = session.set_keep([2, 3])
    assert state["keep"] == [2, 3]
    state = session.camera_throw(reading(6, 5, 4, unsure=(1,)), crops=crops(3))
    assert [d["value"] for d in state["game"]["dice"]] == [6, 5, 6, 6, 4]
    assert state["unsure"] == [1]
    assert state["keep"] is None  # the keep belonged to the throw before


def test_a_reading_that_cannot_be_the_throw_records_nothing(session: TableSession) -> None:
    session.camera_throw(reading(3, 1, 6, 6, 2))
    session.set_keep([0, 1])
    before = session.store.events(session.game_id)
    with pytest.raises(ThrowNotRead, match="2 dice read on the tray, 3 expected"):
        session.camera_throw(reading(6, 6))
    assert session.store.events(session.game_id) == before
    assert session.state()["keep"] == [0, 1]  # still set aside for the next try


def test_keep_is_refused_before_the_first_throw_and_for_missing_dice(session: TableSession) -> None:
    with pytest.raises(RulesError, match="nothing to keep"):
        session.set_keep([0])
    session.camera_throw(reading(3, 1, 6, 6, 2))
    with pytest.raises(RulesError, match="kept die 7 does not exist"):
        session.set_keep([7])


def test_no_fourth_throw_is_read(session: TableSession) -> None:
    for _ in range(3):
        session.camera_throw(reading(1, 2, 3, 4, 5))
    with pytest.raises(RulesError, match="thrown 3 times"):
        session.camera_throw(reading(1, 2, 3, 4, 5))


def test_a_correction_keeps_the_crops_of_the_dice_put_right(session: TableSession) -> None:
    session.camera_throw(reading(3, 1, 6, 6, 2), crops=crops(5))
    session.set_keep([0, 1, 2])
    session.camera_throw(reading(5, 5), crops=[b"png-a", b"png-b"])
    state = session.correct("3 1 6 5 4")  # die 4 was a 4, not a 5; die 0 unchanged
    assert [d["value"] for d in state["game"]["dice"]] == [3, 1, 6, 5, 4]
    (correction,) = session.store.corrections(session.game_id)
    assert correction["before"] == "3 1 6 5 5" and correction["after"] == "3 1 6 5 4"
    assert [(die, image) for die, _label, image in correction["crops"]] == [(4, b"png-b")]


def test_a_typed_correction_after_a_throw_without_camera_keeps_no_crop(
    session: TableSession,
) -> None:
    session.throw("3 1 6 6 2")
    session.correct("3 1 6 6 3")
    (correction,) = session.store.corrections(session.game_id)
    assert correction["crops"] == []
