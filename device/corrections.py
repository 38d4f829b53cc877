"""The players' corrections as a training folder: what ``yamscope train --from-corrections``
reads (models/dieface/corrections.py): PNG crops and ``labels.jsonl``.

Why from the records: each correction is a die the model read wrong at this table, with
its crop and the value the player gave; a few hundred of them teach the model this table's
dice and light. Only corrections with a crop (read by the camera) are exported.

The folder may hold other files: only those named in the ``labels.jsonl`` an earlier export
wrote are ever replaced or removed, and an export that would overwrite any other file is
refused before anything is written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from device.store import Store
from scoring.dice import parse_die

LABELS = "labels.jsonl"
_CROP_NAME = re.compile(r"[0-9]{6}-[0-9]{2}\.png")


class ExportError(ValueError):
    """The folder cannot take the export without losing a file the export did not write."""


def _written_before(out: Path) -> set[str]:
    """The crops an earlier export wrote into ``out``, as its ``labels.jsonl`` lists them."""
    labels = out / LABELS
    if not labels.exists():
        return set()
    try:
        rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
        names = {row["file"] for row in rows}
    except (ValueError, TypeError, KeyError):
        names = {""}
    if not all(isinstance(n, str) and _CROP_NAME.fullmatch(n) for n in names):
        raise ExportError(f"{labels} was not written by an export: choose another folder")
    return names


def export_corrections(store: Store, out: Path) -> int:
    """Write every corrected die's crop and label into ``out``; returns how many. A second
    export into the same folder gives the same folder. Raises ExportError, with nothing
    written, when a file the last export did not write would be overwritten."""
    out.mkdir(parents=True, exist_ok=True)
    before = _written_before(out)
    kinds: dict[int, str] = {}
    rows, images = [], {}
    for correction in store.corrections():
        game_id = correction["game_id"]
        if game_id not in kinds:
            kinds[game_id] = store.load(game_id).rulebook.kind
        for die, label, image in correction["crops"]:
            read = parse_die(label)
            name = f"{correction['id']:06d}-{die:02d}.png"
            images[name] = image
            row = {"file": name, "kind": kinds[game_id], "value": read.value}
            if read.colour is not None:
                row["colour"] = read.colour.value
            if read.finish is not None:
                row["finish"] = read.finish.value
            rows.append(row)
    taken = sorted(n for n in images if n not in before and (out / n).exists())
    if taken:
        raise ExportError(
            f"{out} already holds {taken[0]}, not written by an export: choose another folder"
        )
    for name in before - set(images):
        (out / name).unlink(missing_ok=True)
    for name, image in images.items():
        (out / name).write_bytes(image)
    text = "".join(json.dumps(row) + "\n" for row in rows)
    (out / LABELS).write_text(text, encoding="utf-8")
    return len(rows)
