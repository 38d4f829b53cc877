"""The players' corrections as a training folder: what ``yamscope train --from-corrections``
reads (models/corrections.py): PNG crops and ``labels.jsonl``.

Why from the records: each correction is a die the model read wrong at this table, with
its crop and the value the player gave; a few hundred of them teach the model this table's
dice and light. Only corrections with a crop (read by the camera) are exported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from device.store import Store
from scoring.dice import parse_die

LABELS = "labels.jsonl"
_CROP = re.compile(r"[0-9]{6}-[0-9]{2}\.png")  # the names an export gives its crops


def _written_before(out: Path) -> set[str]:
    """The crops an earlier export wrote into ``out``, as its ``labels.jsonl`` lists them."""
    try:
        lines = (out / LABELS).read_text(encoding="utf-8").splitlines()
        names = {json.loads(line).get("file") for line in lines if line.strip()}
    except (OSError, ValueError, AttributeError):
        return set()
    return {n for n in names if isinstance(n, str) and _CROP.fullmatch(n)}


def export_corrections(store: Store, out: Path) -> int:
    """Write every corrected die's crop and label into ``out``; returns how many. The
    folder is rewritten as a whole, so a second export gives the same folder."""
    out.mkdir(parents=True, exist_ok=True)
    for old in _written_before(out):  # only what an export wrote: the folder may hold more
        (out / old).unlink(missing_ok=True)
    kinds: dict[int, str] = {}
    rows = []
    for correction in store.corrections():
        game_id = correction["game_id"]
        if game_id not in kinds:
            kinds[game_id] = store.load(game_id).rulebook.kind
        for die, label, image in correction["crops"]:
            read = parse_die(label)
            name = f"{correction['id']:06d}-{die:02d}.png"
            (out / name).write_bytes(image)
            row = {"file": name, "kind": kinds[game_id], "value": read.value}
            if read.colour is not None:
                row["colour"] = read.colour.value
            if read.finish is not None:
                row["finish"] = read.finish.value
            rows.append(row)
    text = "".join(json.dumps(row) + "\n" for row in rows)
    (out / LABELS).write_text(text, encoding="utf-8")
    return len(rows)
