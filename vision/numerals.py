"""A second look at a d10's numeral: a text recogniser trained on real-world print
(``models/numerals.onnx``, PP-OCRv4's, cut to the ten digits by models/numerals/make.py).

Why: the die-face model learned its numerals from renders, and real dice are printed in
faces and weights the renders do not hold (a d10's 4 or 8 read as a 6); a recogniser that
learned digits from photographed text reads them as printed. It is slow beside the die-face
model (a larger net, run on six turned views of each die), so it reads only the d10 whose
value the die-face model is unsure of, at the centre of the top face's box (in a photo
without a calibration, the whole die's: the same place from above; at a slant it may catch
a side face's numeral, a smaller loss than the real numerals it gains). A turned 6 is a 9
to it: the bar under a d10's 6 and 9, looked for in a taller window, tells those two apart
when it is clearly seen (:meth:`NumeralReader.underlined`). What it won: docs/recognition.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.faces import Guess
from vision.model import MODELS, Fields, ModelCard, OnnxModel, Shape

DEFAULT_NUMERALS_MODEL = MODELS / "numerals.onnx"
DIGITS = tuple("0123456789")
OUTPUT_NAME = "digits"
# A d10 whose best value the die-face model gives less than this is read by the numerals too
NUMERALS_BELOW = 0.9
FLOOR = 1e-3  # the least weight a value keeps: the recogniser missing a digit is no veto
# The numerals' weights are raised to this before they are multiplied into the die-face
# model's probabilities: under 1, the model keeps the larger say (docs/lab-notes.md)
NUMERALS_WEIGHT = 0.5
# A numeral the recogniser reads as a 6 or a 9 this surely is looked at for its underline:
# in a window this share of the top face's box tall (the recogniser's own leaves it out),
# turned about the recogniser's best view by each of TILTS degrees; at least AGREE of them
# must see a bar, all on the same side (docs/recognition.md)
SIX_OR_NINE = 0.5
UNDERLINE_WINDOW = 0.62
TILTS = tuple(float(t) for t in np.arange(-45, 46, 7.5))
AGREE = 2
BAR_WIDTH = (0.35, 1.3)  # a bar's width, in the numeral's
BAR_GAP = 0.4  # the most space between numeral and bar, in the numeral's height


@dataclass(frozen=True, kw_only=True)
class NumeralCard(ModelCard):
    """What the runtime needs from ``numerals.json``: the views it takes and its classes."""

    input_name: str
    height: int
    width: int
    mean: float
    std: float
    height_share: float  # the window's height, as a share of the box's longer side
    width_share: float
    turns: int  # views a die, turned by 360 / turns degrees each
    output: str
    classes: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.classes[0] != "blank" or sorted(self.classes[1:]) != sorted(DIGITS):
            raise ValueError("output.classes: not the blank and the ten digits")
        if min(self.height, self.width, self.turns) < 1 or self.std <= 0:
            raise ValueError("input: sizes and turns must be 1 or more, std > 0")

    @classmethod
    def fields(cls, card: Fields) -> dict[str, Any]:
        spec, output = card.object("input"), card.object("output")
        shape, norm, window = (
            spec.shape("shape"),
            spec.object("normalisation"),
            spec.object("window"),
        )
        if len(shape) != 4 or shape[1] != 3 or not all(isinstance(d, int) for d in shape[2:]):
            raise ValueError(f"input.shape: {list(shape)} is not N x 3 x H x W")
        return super().fields(card) | {
            "input_name": spec.value("name", str),
            "height": shape[2],
            "width": shape[3],
            "mean": norm.value("mean", float),
            "std": norm.value("std", float),
            "height_share": window.value("height_share", float),
            "width_share": window.value("width_share", float),
            "turns": spec.value("turns", int),
            "output": output.value("name", str),
            "classes": tuple(str(c) for c in output.items("classes")),
        }

    def expected_inputs(self) -> dict[str, Shape | None]:
        return {self.input_name: ("views", 3, self.height, self.width)}

    def expected_outputs(self) -> dict[str, Shape | None]:
        return {self.output: ("views", None, len(self.classes))}


class NumeralReader(OnnxModel[NumeralCard]):
    """The numeral model and its card, loaded once (vision/model.py)."""

    def __init__(self, model: str | Path = DEFAULT_NUMERALS_MODEL, threads: int = 1) -> None:
        super().__init__(model, NumeralCard, threads)
        self.rows = [self.card.classes.index(d) for d in DIGITS]

    def window(
        self, image: np.ndarray, box: Sequence[float], degrees: float, height: int
    ) -> np.ndarray:
        """A window ``height`` px tall and the card's width on the centre of ``box``, turned
        ``degrees``, at the card's scale (its height is ``height_share`` of the box)."""
        card = self.card
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        scale = card.height / max(card.height_share * max(x1 - x0, y1 - y0), 1.0)
        turn = cv2.getRotationMatrix2D((cx, cy), degrees, scale)
        turn[:, 2] += (card.width / 2 - cx, height / 2 - cy)
        return cv2.warpAffine(image, turn, (card.width, height), borderMode=cv2.BORDER_REPLICATE)

    def views(self, frame: np.ndarray, box: Sequence[float]) -> np.ndarray:
        """The card's turned windows on the centre of ``box`` (turns, H, W, 3), BGR uint8."""
        card = self.card
        image = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        turns = range(card.turns)
        return np.stack([self.window(image, box, i * 360 / card.turns, card.height) for i in turns])

    def digits(self, frame: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
        """How surely each box's numeral reads as each digit '0'..'9' in each of its views
        (N, turns, 10): each view's chance to show the digit at some step of the line."""
        card = self.card
        if not len(boxes):
            return np.zeros((0, card.turns, len(DIGITS)))
        views = np.concatenate([self.views(frame, box) for box in boxes])
        x = (views.astype(np.float32) * np.float32(1 / 255) - card.mean) / card.std
        (probabilities,) = self.session.run(
            [card.output], {card.input_name: np.ascontiguousarray(x.transpose(0, 3, 1, 2))}
        )
        seen = np.asarray(probabilities)[:, :, self.rows].max(axis=1)  # views x digits
        return seen.reshape(len(boxes), card.turns, len(DIGITS))

    def underlined(self, frame: np.ndarray, box: Sequence[float], degrees: float) -> str | None:
        """Where the underline lies in the view of ``box`` turned ``degrees``: "below" the
        numeral (the view is upright) or "above" it (upside down). The view is tilted by
        each of ``TILTS`` (the recogniser's views are 60° apart, a numeral leans in some
        faces): at least ``AGREE`` of them must see a bar, all on the same side; else None
        (:func:`underline_side`)."""
        card = self.card
        image = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        height = round(card.height * UNDERLINE_WINDOW / card.height_share)
        looks = [underline_side(self.window(image, box, degrees + t, height)) for t in TILTS]
        sides = [side for side in looks if side is not None]
        return sides[0] if len(sides) >= AGREE and len(set(sides)) == 1 else None

    def values(
        self, frame: np.ndarray, boxes: Sequence[Sequence[float]], values: Sequence[int]
    ) -> np.ndarray:
        """Weights (N, len(values)) for a d10's ``values`` (the die-face model's value
        classes, 10 shown as '0'): what the numerals say, normalised; values past 10 get
        only the floor. A turned 6 is a 9 to the recogniser, so the two get the same
        weight, unless the underline says which it is (:meth:`underlined`)."""
        per_view = self.digits(frame, boxes)
        seen = per_view.max(axis=1)
        six_or_nine = seen[:, [6, 9]].max(axis=1)
        seen[:, 6] = seen[:, 9] = six_or_nine
        for i in np.flatnonzero(six_or_nine >= SIX_OR_NINE):
            views = per_view[i]
            k = int(np.argmax(views[:, [6, 9]].max(axis=1)))  # the view showing it best
            read_there = 6 if views[k, 6] >= views[k, 9] else 9
            side = self.underlined(frame, boxes[i], k * 360 / self.card.turns)
            if side is not None:  # upright there, it is what it reads as; else the other
                seen[i, 15 - read_there if side == "below" else read_there] = 0.0
        weights = np.full((len(boxes), len(values)), FLOOR)
        for j, value in enumerate(values):
            if 1 <= value <= 10:
                weights[:, j] += seen[:, value % 10]
        return weights / weights.sum(axis=1, keepdims=True)


def underline_side(window: np.ndarray) -> str | None:
    """In a window on a numeral (BGR), where a bar lies: "below" or "above" it; None for
    neither or both, or when no numeral is seen. The ink is what differs from the face's
    colour (the window's median) by more than Otsu's split; the numeral, the largest inked
    piece across the window's middle; a bar, a thin filled piece about as wide as the
    numeral under or over its middle, close to it."""
    height, width = window.shape[:2]
    grey = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY).astype(np.float32)
    apart = np.clip(np.abs(grey - np.median(grey)), 0, 255).astype(np.uint8)
    _, ink = cv2.threshold(apart, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    middle = [
        k
        for k in range(1, count)
        if stats[k, 1] <= height / 2 <= stats[k, 1] + stats[k, 3]
        and abs(stats[k, 0] + stats[k, 2] / 2 - width / 2) < width / 4
    ]
    if not middle:
        return None
    numeral = max(middle, key=lambda k: stats[k, 4])
    gx, gy, gw, gh, _ = (int(v) for v in stats[numeral])
    sides = set()
    for k in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[k])
        thin_bar = BAR_WIDTH[0] * gw <= w <= BAR_WIDTH[1] * gw and h <= 0.5 * w
        if k == numeral or not thin_bar or area < max(6, 0.5 * w * h):
            continue
        if not gx + 0.2 * gw <= x + w / 2 <= gx + 0.8 * gw:
            continue
        if -1 <= y - (gy + gh) < BAR_GAP * gh:
            sides.add("below")
        elif -1 <= gy - (y + h) < BAR_GAP * gh:
            sides.add("above")
    return sides.pop() if len(sides) == 1 else None


def doubtful_d10(
    guesses: Sequence[dict[str, Guess]], d10: np.ndarray, values: Sequence[int]
) -> np.ndarray:
    """Which dice are d10 (``d10``) whose best d10 value the die-face model gives less than
    ``NUMERALS_BELOW``."""
    allowed = [i for i, v in enumerate(values) if 1 <= v <= 10]
    return np.array(
        [
            bool(is_d10) and max(g["value"].probabilities[i] for i in allowed) < NUMERALS_BELOW
            for g, is_d10 in zip(guesses, d10, strict=True)
        ],
        bool,
    )


def with_numerals(guess: Guess, weights: np.ndarray, values: Sequence[int]) -> Guess:
    """The value guess once the numerals have spoken: the model's probabilities times the
    numerals' weights raised to ``NUMERALS_WEIGHT``, normalised."""
    combined = np.asarray(guess.probabilities) * weights**NUMERALS_WEIGHT
    combined /= combined.sum()
    best = int(combined.argmax())
    return Guess(values[best], float(combined[best]), tuple(float(p) for p in combined))


def at_odds(guess: Guess, weights: np.ndarray, values: Sequence[int]) -> bool:
    """Whether the numerals' best value is not the die-face model's: two readers at odds
    are doubt (a 6 and a 9 agree where no underline told the numerals which it is)."""
    model = values[int(np.argmax(guess.probabilities))]
    seen = values[int(np.argmax(weights))]
    untold = 6 in values and 9 in values and weights[values.index(6)] == weights[values.index(9)]
    return model != seen and not ({model, seen} == {6, 9} and untold)


def numeral_looks(
    numerals: NumeralReader,
    frame: np.ndarray,
    boxes: Sequence[Sequence[float]],
    guesses: list[dict[str, Guess]],
    d10: np.ndarray,
    values: Sequence[int],
) -> tuple[list[dict[str, Guess]], set[int]]:
    """``guesses`` with the value of each doubtful d10 (:func:`doubtful_d10`) read again
    with its numeral, all of them in one run of the model; and the dice whose numeral and
    die-face model were at odds (:func:`at_odds`), to be flagged whatever the value."""
    rows = np.flatnonzero(doubtful_d10(guesses, d10, values))
    if not len(rows):
        return guesses, set()
    weights = numerals.values(frame, [boxes[i] for i in rows], values)
    looked, disputed = list(guesses), set()
    for i, w in zip(rows, weights, strict=True):
        looked[i] = guesses[i] | {"value": with_numerals(guesses[i]["value"], w, values)}
        if at_odds(guesses[i]["value"], w, values):
            disputed.add(int(i))
    return looked, disputed
