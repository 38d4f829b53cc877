"""Old Blender folders get their camera's field of view from their seed, without Blender:
the replayed draw is the rendered scene's, a folder whose dice do not match is refused and
left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.blender import GENERATOR, relabel
from models.blender.scene import draw_setup
from models.common.datasets import DatasetError
from models.synth.dataset import die_label
from models.synth.layout import random_specs

META = {
    "generator": GENERATOR,
    "version": "1.1.0",
    "seed": 4242,
    "size": [640, 480],
    "kinds": ["d6", "d10"],
    "impossible": False,
}


def old_folder(root: Path, scenes: int = 3) -> list[float]:
    """A folder as renderer 1.1 wrote it (labels without the field of view), made by
    drawing each scene as random_render draws it; returns the cameras' fields of view."""
    (root / "labels").mkdir(parents=True)
    (root / "dataset.json").write_text(json.dumps(META), encoding="utf-8")
    truth = []
    for index in range(scenes):
        rng = np.random.default_rng([META["seed"], index])
        n = int(rng.integers(1, 11))
        specs = random_specs(rng, n, ("d6", "d10"), cocked=relabel.COCKED)
        setup = draw_setup(rng, (640, 480), specs)
        dice = [die_label(spec, (0, 0, 9, 9)) for spec, _, _ in setup.dice]
        label = {"index": index, "size": [640, 480], "empty": f"empty/{index:06d}.png"}
        (root / "labels" / f"{index:06d}.json").write_text(
            json.dumps(label | {"dice": dice[1:] if index == 1 else dice}),  # one die unseen
            encoding="utf-8",
        )
        truth.append(setup.field_of_view)
    return truth


def test_each_scene_gets_its_camera(tmp_path: Path) -> None:
    truth = old_folder(tmp_path)
    assert relabel.main([str(tmp_path)]) == 0
    labels = [json.loads(p.read_text()) for p in sorted((tmp_path / "labels").glob("*.json"))]
    assert [d["field_of_view"] for d in labels] == [round(v, 3) for v in truth]
    assert len({round(v) for v in truth}) > 1  # each scene its own camera
    assert relabel.add_field_of_view(tmp_path) == pytest.approx(truth, abs=1e-3)  # again: kept


def test_labels_the_seed_did_not_draw_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old_folder(tmp_path)
    path = tmp_path / "labels" / "000002.json"
    data = json.loads(path.read_text())
    die = data["dice"][0]
    die["value"] = die["value"] % (10 if die["kind"] == "d10" else 6) + 1  # another face
    path.write_text(json.dumps(data))
    before = {p: p.read_text() for p in (tmp_path / "labels").glob("*.json")}
    assert relabel.main([str(tmp_path)]) == 1
    assert (
        "scene 2: the dice drawn from the seed are not the labelled ones" in capsys.readouterr().err
    )
    assert {p: p.read_text() for p in before} == before  # nothing written
    (tmp_path / "dataset.json").write_text(json.dumps(META | {"generator": "other"}))
    with pytest.raises(DatasetError, match="not a Blender folder"):
        relabel.add_field_of_view(tmp_path)
    with pytest.raises(DatasetError, match="no readable dataset"):
        relabel.add_field_of_view(tmp_path / "none")
