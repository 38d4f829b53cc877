"""A table's own dice: a value head fitted on the die-face model's features from labelled
crops of that table's dice, read instead of the model's own head.

Why: the model learned renders and other people's dice; a table's dice have their own
numerals, plastic and light. The model's features are kept (no torch on the Pi) and only its
last layer is fitted again, in numpy, in seconds. The fit starts from the model's own head
and is held near it, so a value seen in few crops keeps the model's reading.

The file (JSON) names the model it was fitted on (version and a digest of the file): the
features of another model mean something else, so a foreign enrolment is refused and the
reader falls back to the model's own head.
"""

from __future__ import annotations

import base64
import datetime as dt
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.errors import VisionError
from vision.files import read_json, write_json
from vision.model import digest

FORMAT = "yamscope-enrolment"
VERSION = 1
HELD = 0.01  # the pull toward the model's own head, against the crops' cross-entropy
STEPS = 400  # full-batch Adam steps of the fit
RATE = 0.05  # their learning rate
TURNS = 4  # each labelled crop is also seen turned by a quarter, a half and three quarters


class BadEnrolmentError(VisionError):
    """The enrolment file cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Head:
    """A linear head on the features: logits = features @ weight.T + bias."""

    classes: tuple[int, ...]
    weight: np.ndarray  # (classes, features)
    bias: np.ndarray  # (classes,)

    def logits(self, features: np.ndarray) -> np.ndarray:
        return np.asarray(features, np.float64) @ self.weight.T + self.bias

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        logits = self.logits(features)
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        return shifted / shifted.sum(axis=1, keepdims=True)


def head_of(features: np.ndarray, logits: np.ndarray, classes: Sequence[int]) -> Head:
    """The model's own head, recovered from what it gave on some crops: the head is linear
    in the features, so least squares gives it back (exactly on these crops, which is all
    the fit starts from)."""
    design = np.hstack([np.asarray(features, np.float64), np.ones((len(features), 1))])
    solution, *_ = np.linalg.lstsq(design, np.asarray(logits, np.float64), rcond=None)
    return Head(tuple(int(c) for c in classes), solution[:-1].T.copy(), solution[-1].copy())


def fit_head(
    features: np.ndarray,
    labels: np.ndarray,
    prior: Head,
    weights: np.ndarray | None = None,
    held: float = HELD,
    steps: int = STEPS,
) -> Head:
    """The head that reads ``labels`` (indices into ``prior.classes``) from ``features``
    best, held near ``prior`` by ``held`` times the squared distance of its weights
    (softmax regression, full-batch Adam). ``weights``: how much each crop counts (a
    player's correction more than a reading they let stand)."""
    x = np.asarray(features, np.float64)
    n = len(x)
    weights = np.ones(n) if weights is None else np.asarray(weights, np.float64)
    weights = weights / weights.sum()
    target = np.zeros((n, len(prior.classes)))
    target[np.arange(n), labels] = 1.0
    w, b = prior.weight.copy(), prior.bias.copy()
    moments = [np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)]
    for step in range(1, steps + 1):
        logits = x @ w.T + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        error = (p - target) * weights[:, None]
        grad_w = error.T @ x + 2 * held * (w - prior.weight)
        grad_b = error.sum(axis=0) + 2 * held * (b - prior.bias)
        for k, (value, grad) in enumerate(((w, grad_w), (b, grad_b))):
            first, second = moments[2 * k], moments[2 * k + 1]
            first *= 0.9
            first += 0.1 * grad
            second *= 0.999
            second += 0.001 * grad * grad
            value -= RATE * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return Head(prior.classes, w, b)


@dataclass(frozen=True)
class Enrolment:
    """A table's value head and what it was fitted on: the model (version, file digest),
    the labelled crops' features (kept, so that play can add to them and fit again), their
    labels and weights, and how many photos they came from."""

    model_version: str
    model_digest: str
    value: Head
    features: np.ndarray  # (n, features) float32, the crops the head was fitted on
    labels: np.ndarray  # (n,) the value of each (not an index)
    weights: np.ndarray  # (n,) how much each counted
    photos: int
    made: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))

    def examples(self) -> dict[int, int]:
        """Labelled crops per value (each crop's turns counted once)."""
        values, counts = np.unique(self.labels, return_counts=True)
        return {int(v): int(c) // TURNS for v, c in zip(values, counts, strict=True)}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "model": {
                "name": "dieface",
                "version": self.model_version,
                "sha256": self.model_digest,
            },
            "made": self.made,
            "photos": self.photos,
            "examples": {str(k): v for k, v in self.examples().items()},
            "value_head": {
                "classes": list(self.value.classes),
                "weight": _pack(self.value.weight.astype(np.float32)),
                "bias": self.value.bias.astype(float).round(6).tolist(),
            },
            "crops": {
                "features": _pack(self.features.astype(np.float16)),
                "labels": self.labels.astype(int).tolist(),
                "weights": self.weights.astype(float).round(3).tolist(),
            },
        }

    @classmethod
    def from_json(cls, data: Any, name: str = "enrolment") -> Enrolment:
        """The enrolment in ``data``; BadEnrolmentError for anything missing or malformed."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BadEnrolmentError(f"{name}: not a yamscope enrolment file")
        if data.get("version") != VERSION:
            raise BadEnrolmentError(
                f"{name}: enrolment version {data.get('version')!r}, this yamscope reads "
                f"version {VERSION}: enrol the dice again"
            )
        try:
            model, head, crops = data["model"], data["value_head"], data["crops"]
            classes = tuple(int(c) for c in head["classes"])
            weight = _unpack(head["weight"]).astype(np.float64)
            bias = np.asarray(head["bias"], np.float64)
            features = _unpack(crops["features"]).astype(np.float32)
            labels = np.asarray(crops["labels"], np.int64)
            weights = np.asarray(crops["weights"], np.float64)
            enrolment = cls(
                str(model["version"]),
                str(model["sha256"]),
                Head(classes, weight, bias),
                features,
                labels,
                weights,
                int(data["photos"]),
                str(data["made"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BadEnrolmentError(f"{name}: damaged enrolment ({exc!r}): enrol again") from None
        shapes_agree = (
            weight.shape == (len(classes), features.shape[1] if features.ndim == 2 else -1)
            and bias.shape == (len(classes),)
            and len(labels) == len(weights) == len(features)
            and np.isfinite(weight).all()
        )
        if not shapes_agree:
            raise BadEnrolmentError(f"{name}: damaged enrolment (shapes disagree): enrol again")
        return enrolment


def _pack(array: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _unpack(text: str) -> np.ndarray:
    try:
        return np.load(io.BytesIO(base64.b64decode(text, validate=True)), allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise ValueError(f"not a packed array ({exc})") from None


def save(enrolment: Enrolment, path: str | Path) -> None:
    """Write the enrolment, whole or not at all (``vision.files.write_json``)."""
    write_json(Path(path), enrolment.to_json())


def load(path: str | Path, model: Path | None = None) -> Enrolment:
    """Read an enrolment; BadEnrolmentError naming the file for any problem, and when it
    was fitted on another model file than ``model``."""
    path = Path(path)
    data = read_json(path, BadEnrolmentError, "no such enrolment file", "unreadable enrolment")
    enrolment = Enrolment.from_json(data, str(path))
    if model is not None and enrolment.model_digest != digest(model):
        raise BadEnrolmentError(
            f"{path}: fitted on die-face model {enrolment.model_version} of another file, "
            f"not {model.name}: enrol the dice again"
        )
    return enrolment


def turned(crops: np.ndarray) -> np.ndarray:
    """The crops as they are, then all turned by a quarter, a half and three quarters (so
    their labels repeat ``TURNS`` times over): a die lies at any angle, so each turn is
    another example."""
    return np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(TURNS)])


def enrol(
    features: np.ndarray,
    logits: np.ndarray,
    values: np.ndarray,
    classes: Sequence[int],
    model_version: str,
    model_digest: str,
    photos: int,
    weights: np.ndarray | None = None,
    previous: Enrolment | None = None,
) -> Enrolment:
    """Fit a table's value head: ``features`` and the model's value ``logits`` of the
    labelled crops (their turns included), ``values`` their labels; ``previous``: an
    enrolment whose crops are fitted on again with these."""
    values = np.asarray(values, np.int64)
    weights = np.ones(len(values)) if weights is None else np.asarray(weights, np.float64)
    prior = head_of(features, logits, classes)
    if previous is not None:
        features = np.vstack([previous.features, features])
        values = np.concatenate([previous.labels, values])
        weights = np.concatenate([previous.weights, weights])
        photos += previous.photos
    index = {c: i for i, c in enumerate(prior.classes)}
    unknown = sorted(set(values.tolist()) - set(index))
    if unknown:
        raise ValueError(f"values {unknown} are not among the model's {list(prior.classes)}")
    labels = np.array([index[int(v)] for v in values])
    head = fit_head(features, labels, prior, weights)
    return Enrolment(
        model_version,
        model_digest,
        head,
        np.asarray(features, np.float32),
        values,
        weights,
        photos,
    )
