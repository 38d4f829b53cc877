"""Give the labels of a Blender folder rendered before labels carried the camera's field of
view (renderer 1.0 and 1.1, and 1.2 before 2026-11-30) that field of view, without rendering.

    python -m models.blender.relabel data/blender-train data/blender-train12

Why: the cocked-die model is told each die's slant, which needs the field of view, and these
folders took hours to render. Each scene's random choices are drawn from its seed before
anything is rendered (:func:`models.blender.random_render`), so drawing them again gives the
camera the scene was rendered with; the dice drawn must be the labelled ones, or the folder
was not made by this code and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from models.blender import COCKED  # random_render's default: every folder so far has it
from models.blender.scene import draw_setup
from models.common.datasets import DatasetError
from models.synth.layout import random_specs


def drawn_field_of_view(meta: dict, index: int, dice: list[dict]) -> float:
    """The camera's field of view of scene ``index`` of a folder described by ``meta`` (its
    dataset.json), checked against the scene's labelled ``dice``."""
    rng = np.random.default_rng([meta["seed"], index])
    n = 10 if meta["impossible"] else int(rng.integers(1, 11))
    specs = random_specs(rng, n, tuple(meta["kinds"]), impossible=meta["impossible"], cocked=COCKED)
    setup = draw_setup(rng, tuple(meta["size"]), specs)
    drawn = sorted((s.kind, s.value, s.colour, s.finish, s.cocked) for s, _, _ in setup.dice)
    labelled = sorted((d["kind"], d["value"], d["colour"], d["finish"], d["cocked"]) for d in dice)
    # a die the camera did not see is drawn but not labelled
    if not labelled or any(drawn.count(d) < labelled.count(d) for d in labelled):
        raise DatasetError(f"scene {index}: the dice drawn from the seed are not the labelled ones")
    return setup.field_of_view


def add_field_of_view(folder: Path) -> list[float]:
    """Write ``field_of_view`` into every label of ``folder`` that lacks it; returns each
    scene's. Checks every scene before writing any."""
    try:
        meta = json.loads((folder / "dataset.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise DatasetError(f"{folder}: no readable dataset.json ({error})") from error
    if meta.get("generator") != "yamscope models.blender":
        raise DatasetError(f"{folder}: not a Blender folder (generator {meta.get('generator')})")
    paths = sorted((folder / "labels").glob("*.json"))
    labels = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    found = [
        data.get("field_of_view") or drawn_field_of_view(meta, data["index"], data["dice"])
        for data in labels
    ]
    for path, data, field_of_view in zip(paths, labels, found, strict=True):
        if "field_of_view" not in data:
            data["field_of_view"] = round(field_of_view, 3)
            path.write_text(json.dumps(data), encoding="utf-8")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", metavar="DIR")
    args = parser.parse_args(argv)
    for folder in args.folders:
        try:
            found = add_field_of_view(folder)
        except DatasetError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(
            f"{folder}: {len(found)} scenes, {min(found, default=0):.1f}-"
            f"{max(found, default=0):.1f}° across"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
