"""The JSON files the vision pipeline reads and writes (model cards, calibrations,
enrolments), each read or written one way.

Why one way: a file the appliance cannot read must say which file and why in one line (the
CLI prints it, the appliance refuses it at start-up), and a file it writes must never be
left half written by a power cut.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vision.errors import VisionError


def read_json(path: Path, error: type[VisionError], missing: str, unreadable: str) -> Any:
    """The JSON in ``path``; ``error`` naming the file when it is not there (``missing``)
    or cannot be read as JSON (``unreadable`` and why)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: {unreadable} ({exc})") from None


def write_json(path: Path, data: Any, indent: int | None = None) -> None:
    """Write ``data`` as JSON (the folder is made if needed) through a temporary file
    renamed over the old one: a power cut while writing leaves the old file whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")
    temporary.replace(path)
