"""Corrections leave the appliance as a training folder: each corrected die's crop and the
value the player gave."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from device.corrections import export_corrections
from device.store import Store
from device.table import TableSession
from vision.reading import ReadDie, Reading

ROOT = Path(__file__).resolve().parents[2]


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


def test_corrected_dice_are_exported_with_their_crop_and_label(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    session = TableSession(Store(db), rng=random.Random(1), cache_dir=tmp_path, advice=False)
    session.new_game("impossible", None, ["Ana"])
    crops = [png(10 * i) for i in range(10)]
    session.camera_throw(read(*IMPOSSIBLE), crops=crops)
    session.correct("1rf 2rf 3rt 4rf 5rt 6wf 1wt 8wf 9wt 10wt")  # the 7 was a 1
    session.close()

    out = tmp_path / "corrections"
    r = subprocess.run(
        [sys.executable, "-m", "device.cli", "export-corrections", "--data", str(db),
         "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
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


def test_a_missing_records_file_is_one_clear_error(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "device.cli", "export-corrections", "--data",
         str(tmp_path / "none.db"), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "no records file" in r.stderr
    assert not (tmp_path / "out").exists()
