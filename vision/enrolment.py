"""A table's own dice: a value head fitted on the die-face model's features from labelled
crops of that table's dice, read instead of the model's own head.

Why: the model learned renders and other people's dice; a table's dice have their own
numerals, plastic and light. The model's features are kept (no torch on the Pi) and only its
last layer is fitted again, in numpy, in seconds. The fit starts from the model's own head
and is held near it, so a value seen in few crops keeps the model's reading.

The head reads only the kinds of dice it was fitted on, and of each kind only the values
that kind's own crops show: a d10 lesson says nothing of a table's d6, whose pips the model's
own head keeps reading, and where a folder shows a 3 on the d10 alone, the row fitted on the
d10's numeral does not read the d6's three pips (the model's own logit for 3 does).

The file (JSON) names the model it was fitted on (version and a digest of the file): the
features of another model mean something else, so a foreign enrolment is refused and the
reader falls back to the model's own head.

With a calibration, the lesson's dice (all laid flat) also fit the table's own last layer of
the cocked-die model (``Lean``): that model learned rendered dice, and on a real tray it
calls some flat dice of a table's plastic cocked, photo after photo. The fit keeps the
model's rendered dice beside the table's (vision/cocked.py ``Anchors``), so the cocked ones
stay cocked.
"""

from __future__ import annotations

import base64
import datetime as dt
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from vision.errors import VisionError
from vision.files import read_json, write_json
from vision.model import digest

FORMAT = "yamscope-enrolment"
# 2 added the cocked-die model's table head, 3 each crop's kind of dice; an older file reads
# as it was fitted (without the cocked head, its value head reading every kind)
VERSION = 3
READS = (1, 2, VERSION)
KINDS = ("d6", "d10")
HELD = 0.01  # the pull toward the model's own head, against the crops' cross-entropy
# the table's head's share of a die's value probabilities, the model's the rest: fitted on
# a few photos, the head alone is surer than it is right (docs/enrolment.md)
HEAD_SHARE = 0.5
STEPS = 400  # full-batch Adam steps of the fit
RATE = 0.05  # their learning rate
TURNS = 4  # each labelled crop is also seen turned by a quarter, a half and three quarters
TABLE_SHARE = 0.3  # the table's flat dice's share of the cocked head's fit (docs/cocked-dice.md)
MISSED_WEIGHT = 2.0  # a cocked anchor missed counts as two flat ones flagged (models/cocked)


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


class Adam:
    """Full-batch Adam (RATE, the usual betas) on numpy arrays, changed in place."""

    def __init__(self, *params: np.ndarray) -> None:
        self.params = params
        self.first = [np.zeros_like(p) for p in params]
        self.second = [np.zeros_like(p) for p in params]
        self.steps = 0

    def step(self, *grads: np.ndarray) -> None:
        self.steps += 1
        fix1, fix2 = 1 - 0.9**self.steps, 1 - 0.999**self.steps
        for param, grad, first, second in zip(
            self.params, grads, self.first, self.second, strict=True
        ):
            first *= 0.9
            first += 0.1 * grad
            second *= 0.999
            second += 0.001 * grad * grad
            param -= RATE * (first / fix1) / (np.sqrt(second / fix2) + 1e-8)


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
    player's correction more than a reading they let stand).

    A value no crop shows keeps the model's own row: the other values' crops would only
    push it down, and the table's dice would then never be read showing it."""
    x = np.asarray(features, np.float64)
    n = len(x)
    weights = np.ones(n) if weights is None else np.asarray(weights, np.float64)
    weights = weights / weights.sum()
    target = np.zeros((n, len(prior.classes)))
    target[np.arange(n), labels] = 1.0
    shown = target.any(axis=0)
    w, b = prior.weight.copy(), prior.bias.copy()
    adam = Adam(w, b)
    for _ in range(steps):
        logits = x @ w.T + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        error = (p - target) * weights[:, None] * shown
        adam.step(
            error.T @ x + 2 * held * (w - prior.weight),
            error.sum(axis=0) + 2 * held * (b - prior.bias),
        )
    return Head(prior.classes, w, b)


@dataclass(frozen=True)
class LeanHead:
    """A last layer of the cocked-die model on its hidden layer: how likely each die is
    cocked = sigmoid(hidden @ weight + bias)."""

    weight: np.ndarray  # (hidden,)
    bias: float

    def probabilities(self, hidden: np.ndarray) -> np.ndarray:
        logit = np.asarray(hidden, np.float64) @ self.weight + self.bias
        return 1 / (1 + np.exp(-np.clip(logit, -60, 60)))


def fit_lean(
    flat: np.ndarray,
    anchors: np.ndarray,
    cocked: np.ndarray,
    start: LeanHead,
    table_share: float = TABLE_SHARE,
    missed_weight: float = MISSED_WEIGHT,
    steps: int = STEPS,
) -> LeanHead:
    """The cocked-die model's last layer fitted again on a table's ``flat`` dice (hidden
    layers, all flat) beside the model's rendered ``anchors`` (hidden layers, ``cocked`` of
    each): logistic regression from ``start`` (full-batch Adam), the table's dice counting
    ``table_share`` of the whole and a missed cocked anchor ``missed_weight`` times a flat one,
    as in training."""
    x = np.vstack([np.asarray(anchors, np.float64), np.asarray(flat, np.float64)])
    y = np.concatenate([np.asarray(cocked, np.float64), np.zeros(len(flat))])
    weights = np.concatenate(
        [np.where(np.asarray(cocked) > 0, missed_weight, 1.0), np.zeros(len(flat))]
    )
    weights *= (1 - table_share) / weights.sum()
    weights[len(anchors) :] = table_share / max(len(flat), 1)
    w, b = start.weight.astype(np.float64).copy(), np.array([start.bias], np.float64)
    adam = Adam(w, b)
    for _ in range(steps):
        error = (LeanHead(w, float(b[0])).probabilities(x) - y) * weights
        adam.step(error @ x, error.sum(keepdims=True))
    return LeanHead(w, float(b[0]))


@dataclass(frozen=True)
class Lean:
    """A table's last layer of the cocked-die model, and the model it was fitted on."""

    model_version: str
    model_digest: str
    head: LeanHead
    dice: int  # the flat dice it was fitted on

    def to_json(self) -> dict[str, Any]:
        return {
            "model": {"name": "cocked", "version": self.model_version, "sha256": self.model_digest},
            "dice": self.dice,
            "weight": _pack(self.head.weight.astype(np.float32)),
            "bias": round(float(self.head.bias), 6),
        }

    @classmethod
    def from_json(cls, data: Any) -> Lean:
        """KeyError, TypeError or ValueError for anything missing or malformed."""
        weight = _unpack(data["weight"]).astype(np.float64)
        if weight.ndim != 1 or not np.isfinite(weight).all():
            raise ValueError("the cocked head's weights are not one finite row")
        model = data["model"]
        head = LeanHead(weight, float(data["bias"]))
        return cls(str(model["version"]), str(model["sha256"]), head, int(data["dice"]))


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
    crop_kinds: np.ndarray  # (n,) the kind of dice of each; "" where not known (older files)
    weights: np.ndarray  # (n,) how much each counted
    photos: int
    made: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    lean: Lean | None = None  # the table's cocked-die head (None: fitted without a calibration)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of dice the value head reads: those it was fitted on (every kind where
        a crop's is not known); a die of another kind keeps the model's own reading (a d10
        lesson must not refit the pips of the table's d6)."""
        return tuple(kind for kind in KINDS if self.shown[kind].any())

    def other_kinds(self, kind: str) -> Enrolment | None:
        """The crops of the dice of other kinds than ``kind`` (known ones only), for a
        lesson of ``kind`` to fit beside its own; None when there are none."""
        rows = (self.crop_kinds != kind) & (self.crop_kinds != "")
        if not rows.any():
            return None
        return replace(
            self,
            features=self.features[rows],
            labels=self.labels[rows],
            crop_kinds=self.crop_kinds[rows],
            weights=self.weights[rows],
        )

    @cached_property  # read on every frame: worked out once, not over every crop each time
    def shown(self) -> dict[str, np.ndarray]:
        """For each kind of dice, which of the head's values its own crops show (a crop of
        no known kind, of an older file, shows its value for every kind)."""
        classes = np.asarray(self.value.classes)
        return {
            kind: np.isin(classes, self.labels[np.isin(self.crop_kinds, (kind, ""))])
            for kind in KINDS
        }

    def value_logits(
        self, features: np.ndarray, model_logits: np.ndarray, d6: np.ndarray
    ) -> np.ndarray:
        """The value logits of each die (``d6``: whether each is a d6, else a d10): the
        table's head's for the values its kind's own crops show, the model's own for the
        others, and for a kind the head was not fitted on."""
        own = np.where(np.asarray(d6, bool)[:, None], self.shown["d6"], self.shown["d10"])
        return np.where(own, self.value.logits(features), np.asarray(model_logits, np.float64))

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
                "kinds": [str(k) for k in self.crop_kinds],
                "weights": self.weights.astype(float).round(3).tolist(),
            },
        } | ({"cocked_head": self.lean.to_json()} if self.lean is not None else {})

    @classmethod
    def from_json(cls, data: Any, name: str = "enrolment") -> Enrolment:
        """The enrolment in ``data``; BadEnrolmentError for anything missing or malformed."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BadEnrolmentError(f"{name}: not a yamscope enrolment file")
        if data.get("version") not in READS:
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
            lean = Lean.from_json(data["cocked_head"]) if "cocked_head" in data else None
            kinds = np.asarray(crops.get("kinds", [""] * len(labels)), str)
            if set(kinds.tolist()) - {"", *KINDS}:
                raise ValueError(f"kinds of dice other than {list(KINDS)}")
            enrolment = cls(
                str(model["version"]),
                str(model["sha256"]),
                Head(classes, weight, bias),
                features,
                labels,
                kinds,
                weights,
                int(data["photos"]),
                str(data["made"]),
                lean,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BadEnrolmentError(f"{name}: damaged enrolment ({exc!r}): enrol again") from None
        shapes_agree = (
            weight.shape == (len(classes), features.shape[1] if features.ndim == 2 else -1)
            and bias.shape == (len(classes),)
            and len(labels) == len(weights) == len(features) == len(kinds)
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
    lean: Lean | None = None,
    kinds: Sequence[str] | None = None,
) -> Enrolment:
    """Fit a table's value head: ``features`` and the model's value ``logits`` of the
    labelled crops (their turns included), ``values`` their labels, ``kinds`` the kind of
    dice of each (None: not known, and the head reads every kind); ``previous``: an
    enrolment whose crops are fitted on again with these (and whose cocked head is kept
    unless ``lean`` gives a new one)."""
    values = np.asarray(values, np.int64)
    weights = np.ones(len(values)) if weights is None else np.asarray(weights, np.float64)
    crop_kinds = np.asarray([""] * len(values) if kinds is None else list(kinds), str)
    prior = head_of(features, logits, classes)
    if previous is not None:
        features = np.vstack([previous.features, features])
        values = np.concatenate([previous.labels, values])
        crop_kinds = np.concatenate([previous.crop_kinds, crop_kinds])
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
        crop_kinds,
        weights,
        photos,
        lean=lean if lean is not None or previous is None else previous.lean,
    )
