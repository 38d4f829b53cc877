"""Corrections leave the appliance as a training folder: each corrected die's crop and the
value the player gave."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import pytest

from device.corrections import export_corrections
from device.store import Store
from device.table import TableSession
from vision.reading import ReadDie, Reading

if TYPE_CHECKING:
    from conftest import Run


def png(shade: int) -> bytes:
    return cv2.imencode(".png", np.full((96, 96, 3), shade, np.uint8))[1].tobytes()


def read(*tokens: tuple[int, str, str]) -> Reading:
    dice = tuple(
        ReadDie("d10", v, c, f, 0.9, (i * 60, 0, i * 60 + 50, 50))  # type: ignore[arg-type]
        for i, (v, c, f) in enumerate(tokens)
    )
    return Reading(dice, 5.0, (640, 480))


IMPOSSIBLE = [
    (1, "red", "frosted"), (2, "red", "frosted"), (3, "red", "transparent"),
    (4, "red", "frosted"), (5, "red", "transparent"), (6, "white", "frosted"),
    (7, "white", "transparent"), (8, "white", "frosted"), (9, "white", "transparent"),
    (10, "white", "transparent"),
]  # fmt: skip


def test_corrected_dice_are_exported_with_their_crop_and_label(run: Run, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    session = TableSession(Store(db), rng=random.Random(1), cache_dir=tmp_path, advice=False)
    session.new_game("impossible", None, ["Ana"])
    crops = [png(10 * i) for i in range(10)]
    session.camera_throw(read(*IMPOSSIBLE), crops=crops)
    session.correct("1rf 2rf 3rt 4rf 5rt 6wf 1wt 8wf 9wt 10wt")  # the 7 was a 1
    session.close()

    out = tmp_path / "corrections"
    r = run("export-corrections", "--data", str(db), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "1 corrected dice written" in r.stdout
    (row,) = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
    assert row == {
        "file": row["file"], "kind": "d10", "value": 1, "colour": "white", "finish": "transparent"
    }  # fmt: skip
    assert (out / row["file"]).read_bytes() == crops[6]
    store = Store(db)
    assert export_corrections(store, out) == 1  # a second export rewrites the same folder
    store.close()
    assert sorted(p.name for p in out.iterdir()) == sorted([row["file"], "labels.jsonl"])


def test_a_missing_records_file_is_one_clear_error(run: Run, tmp_path: Path) -> None:
    r = run(
        "export-corrections", "--data", str(tmp_path / "none.db"), "--out", str(tmp_path / "out")
    )
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "no records file" in r.stderr
    assert not (tmp_path / "out").exists()


def _one_correction(db: Path, tmp_path: Path) -> None:
    session = TableSession(Store(db), rng=random.Random(1), cache_dir=tmp_path, advice=False)
    session.new_game("impossible", None, ["Ana"])
    session.camera_throw(read(*IMPOSSIBLE), crops=[png(10 * i) for i in range(10)])
    session.correct("1rf 2rf 3rt 4rf 5rt 6wf 1wt 8wf 9wt 10wt")
    session.close()


@pytest.fixture
def export(run: Run) -> Run:
    """``yamscope export-corrections`` of the records ``db`` into ``out``."""
    return lambda db, out: run("export-corrections", "--data", str(db), "--out", str(out))


def test_files_already_in_the_folder_are_left_alone(export: Run, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    _one_correction(db, tmp_path)
    out = tmp_path / "photos"
    out.mkdir()
    mine = {"holiday.png": png(200), "notes.txt": b"my notes", "000001-0.png": png(5)}
    for name, data in mine.items():
        (out / name).write_bytes(data)
    for _ in range(2):  # the second export replaces only what the first one wrote
        r = export(db, out)
        assert r.returncode == 0, r.stderr
        for name, data in mine.items():
            assert (out / name).read_bytes() == data, name
    written = {json.loads(line)["file"] for line in (out / "labels.jsonl").read_text().splitlines()}
    assert sorted(p.name for p in out.iterdir()) == sorted([*mine, *written, "labels.jsonl"])


def test_an_export_that_would_overwrite_a_file_of_its_own_name_is_refused(
    export: Run, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    _one_correction(db, tmp_path)
    first = tmp_path / "first"
    assert export(db, first).returncode == 0
    (name,) = [p.name for p in first.glob("*.png")]
    out = tmp_path / "photos"
    out.mkdir()
    (out / name).write_bytes(b"someone else's picture")
    r = export(db, out)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and name in r.stderr, r.stderr
    assert (out / name).read_bytes() == b"someone else's picture"
    assert sorted(p.name for p in out.iterdir()) == [name]  # nothing written
    (out / "labels.jsonl").write_text("my own list\n")  # a labels file that is not ours
    (out / name).unlink()
    r = export(db, out)
    assert r.returncode == 2 and "was not written by an export" in r.stderr
    assert (out / "labels.jsonl").read_text() == "my own list\n"
