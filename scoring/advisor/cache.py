"""Solved tables on disk: one ``.npz`` per rulebook, options and engine version.

A solve takes tens of seconds and a load well under one, so solutions are kept in a
directory the caller chooses. A file is only used if it says it was built from the same
key (rulebook id, options, engine and advisor sources, how far it was solved) and its
arrays hash to the digest stored beside them; anything else (a truncated or garbled file,
another version's file under the same name) is treated as absent and rebuilt, because a
wrong table would give confident wrong advice with no visible symptom.

The engine has no version number, so the "engine version" is a hash of the source files
the scores come from (the rulebook's class hierarchy, ``entries``, ``dice``) and of this
package: editing a rule or the solver invalidates every cached table.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from scoring.rulebooks.base import Rulebook

FORMAT = 1
log = logging.getLogger(__name__)


SOLVER_MODULES = (
    "five_dice/widget",
    "five_dice/tables",
    "five_dice/states",
    "five_dice/solver",
    "cache",
)


def _source_files(rulebook: Rulebook) -> list[Path]:
    names = {"scoring.entries", "scoring.dice", "scoring.rulebooks.base"}
    names |= {
        c.__module__ for c in type(rulebook).__mro__ if c.__module__ not in ("builtins", "abc")
    }
    files = {Path(f) for n in names if (f := getattr(sys.modules.get(n), "__file__", None))}
    files |= {Path(__file__).parent / f"{m}.py" for m in SOLVER_MODULES}
    return sorted(files)


def engine_version(rulebook: Rulebook) -> str:
    """A hash of the sources the tables depend on (see the module docstring)."""
    digest = hashlib.sha256()
    for path in _source_files(rulebook):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_key(rulebook: Rulebook, min_filled: int) -> str:
    return json.dumps(
        {
            "format": FORMAT,
            "rulebook": rulebook.id,
            "class": f"{type(rulebook).__module__}.{type(rulebook).__qualname__}",
            "options": rulebook.options.to_dict(),
            "engine": engine_version(rulebook),
            "min_filled": min_filled,
        },
        sort_keys=True,
    )


def cache_path(cache_dir: str | os.PathLike[str], rulebook: Rulebook, key: str) -> Path:
    name = hashlib.sha256(key.encode()).hexdigest()[:16]
    return Path(cache_dir) / f"advisor-{rulebook.id}-{name}.npz"


def _digest(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def save(path: Path, key: str, arrays: dict[str, np.ndarray]) -> None:
    """Write atomically (temporary file, then rename): a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, _key=np.array(key), _digest=np.array(_digest(arrays)), **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: Path, key: str) -> dict[str, np.ndarray] | None:
    """The arrays of a valid file for this key, or None (and why, in the log)."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        stored_key = str(arrays.pop("_key"))
        stored_digest = str(arrays.pop("_digest"))
    except Exception as exc:  # any unreadable file is simply not a cache hit
        log.warning("advisor cache %s unreadable (%s): rebuilding", path, exc)
        return None
    if stored_key != key:
        log.warning("advisor cache %s is stale: rebuilding", path)
        return None
    if _digest(arrays) != stored_digest:
        log.warning("advisor cache %s is corrupt: rebuilding", path)
        return None
    return arrays
