"""Does the die-face model compute here as it did where it was exported?

A model file can load and still compute differently on another CPU: an int8 model's sums
saturated on x86 CPUs without VNNI, and there it misread dice without a sign (docs/speed.md).
So every export writes beside the model a few crops with the probabilities the model gave
them (``dieface.check.npz``). Reading them again on the appliance (``yamscope check-model``,
deploy/smoke-test.sh) tells the owner before a game does.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.errors import BadModelError
from vision.faces import FaceReader

# The largest change of a probability put down to rounding; a model that computes otherwise
# moves them by far more (docs/lab-notes.md#tolerance).
TOLERANCE = 0.05


@dataclass(frozen=True)
class CheckResult:
    """How the model read its check crops here, against where it was exported."""

    model: Path
    version: str
    crops: int
    disagreements: int  # crops where some head's best class is not the recorded one
    largest_difference: float  # over every class probability of every head

    @property
    def ok(self) -> bool:
        return self.disagreements == 0 and self.largest_difference <= TOLERANCE

    def line(self) -> str:
        """One line for the owner: what was compared, and what to do when it differs."""
        name = f"die-face model {self.version} ({self.model})"
        if self.ok:
            return (
                f"{name}: reads its {self.crops} check crops as where it was exported "
                f"(largest difference {self.largest_difference:.1e})"
            )
        return (
            f"{name}: reads its {self.crops} check crops differently on this machine "
            f"({self.disagreements} with another answer, probabilities off by up to "
            f"{self.largest_difference:.2f}): do not trust its readings here. An int8 model "
            "with 8-bit weights does this on an x86 CPU without VNNI; python -m "
            "models.dieface.export --onnx MODEL exports it again"
        )


def check_path(model: Path) -> Path:
    """Where the check crops of a model file lie: beside it, ``NAME.check.npz``."""
    return model.with_suffix(".check.npz")


def write_check(reader: FaceReader, crops: np.ndarray, path: Path | None = None) -> Path:
    """Record ``crops`` (uint8, as ``FaceReader.crops`` gives them) with every head's
    probabilities from this machine; returns the file written."""
    path = path or check_path(reader.path)
    heads = reader.probabilities(crops, own=True)
    stored = {f"head_{h.output}": p for h, p in zip(reader.card.heads, heads, strict=True)}
    np.savez_compressed(path, crops=crops, **stored)
    return path


def check_reader(reader: FaceReader, path: Path | None = None) -> CheckResult:
    """Read the recorded crops again and compare; BadModelError when the check file is
    missing, unreadable or made for other heads."""
    path = path or check_path(reader.path)
    try:
        with np.load(path) as stored:
            recorded = {name: stored[name] for name in stored.files}
    except FileNotFoundError:
        raise BadModelError(
            f"{path}: the model's check crops are missing "
            "(python -m models.dieface.export writes them)"
        ) from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise BadModelError(f"{path}: check crops unreadable ({exc})") from None
    crops = recorded.get("crops")
    expected = [recorded.get(f"head_{h.output}") for h in reader.card.heads]
    if crops is None or any(
        e is None or e.shape != (len(crops), len(h.classes))
        for e, h in zip(expected, reader.card.heads, strict=True)
    ):
        raise BadModelError(f"{path}: these check crops were not recorded for {reader.path}")
    got = reader.probabilities(crops, own=True)  # the model's own heads, enrolled or not
    differs = np.zeros(len(crops), bool)
    largest = 0.0
    for want, have in zip(expected, got, strict=True):
        differs |= want.argmax(axis=1) != have.argmax(axis=1)
        largest = max(largest, float(np.abs(want - have).max(initial=0.0)))
    return CheckResult(reader.path, reader.card.version, len(crops), int(differs.sum()), largest)


def check_words(reader: FaceReader) -> str:
    """A few words for a report's model line (``yamscope evaluate``, ``yamscope bench``), so
    that numbers measured with a model that computes otherwise on this machine say so."""
    try:
        result = check_reader(reader)
    except BadModelError:
        return "no check crops"
    if result.ok:
        return "computes as where it was exported"
    return (
        f"COMPUTES OTHERWISE HERE: {result.disagreements} of {result.crops} check crops "
        "read differently (yamscope check-model)"
    )
