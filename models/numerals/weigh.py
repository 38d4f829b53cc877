"""How the numerals should be weighed against the die-face model (the lab's, not the Pi's):
read rendered sets of d10 as the appliance does, keep each doubtful d10's truth, the
die-face model's value probabilities and the numerals' weights, and score every weight,
with and without flagging the dice the two readers are at odds on.

    python -m models.numerals.weigh data/val/lettered data/val/marbled data/val/plain
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

import vision.recognise as recognise
from models.common.datasets import TrueDie, open_dataset
from models.common.evaluate_scenes import tray_calibration
from vision.numerals import FLOOR, doubtful_d10
from vision.recognise import UNSURE_BELOW, Recogniser

WEIGHTS = (0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Doubtful:
    """One doubtful d10: its true value, the die-face model's probabilities, the numerals'."""

    truth: int
    model: np.ndarray
    numerals: np.ndarray


def under(box: Sequence[float], dice: Sequence[TrueDie]) -> TrueDie | None:
    """The labelled die whose box holds the centre of ``box`` (the nearest centre of those)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    holding = [d for d in dice if d.box[0] <= cx <= d.box[2] and d.box[1] <= cy <= d.box[3]]
    return min(
        holding,
        key=lambda d: ((d.box[0] + d.box[2]) / 2 - cx) ** 2 + ((d.box[1] + d.box[3]) / 2 - cy) ** 2,
        default=None,
    )


def collect(folder: str) -> list[Doubtful]:
    """Every doubtful, flat, labelled d10 of a rendered folder, read calibrated."""
    found: list[Doubtful] = []
    dataset = open_dataset(folder)
    dice: list[TrueDie] = []
    looks = recognise.numeral_looks

    def spy(numerals, frame, boxes, guesses, d10, values):  # type: ignore[no-untyped-def]
        for i in np.flatnonzero(doubtful_d10(guesses, d10, values)):
            truth = under(boxes[i], dice)
            if truth is not None and truth.kind == "d10" and not truth.cocked:
                (weights,) = numerals.values(frame, [boxes[i]], values)
                model = np.asarray(guesses[i]["value"].probabilities)
                found.append(Doubtful(truth.value, model, weights))
        return looks(numerals, frame, boxes, guesses, d10, values)

    reader = Recogniser(coloured=True, kinds=("d10",))
    recognise.numeral_looks = spy
    try:
        for index in tqdm(range(len(dataset)), desc=folder, unit="photo"):
            photo = dataset.load(index)
            dice[:] = photo.dice
            reader.calibration = tray_calibration(photo, index)
            reader(photo.image)
    finally:
        recognise.numeral_looks = looks
    return found


def score(found: Sequence[Doubtful], read: Callable[[Doubtful], tuple[int, bool]]) -> str:
    """Right / silent errors / flags of one way of reading the doubtful dice."""
    right = silent = flags = 0
    for die in found:
        value, flagged = read(die)
        right += value == die.truth
        silent += value != die.truth and not flagged
        flags += flagged
    return f"{right} / {silent} / {flags}"


def weighed(weight: float, flag_odds: bool) -> Callable[[Doubtful], tuple[int, bool]]:
    """The model's probabilities times the numerals' weights to ``weight``; a die flagged
    below ``UNSURE_BELOW``, and when ``flag_odds`` when the two readers' best values differ."""

    def read(die: Doubtful) -> tuple[int, bool]:
        combined = die.model * np.maximum(die.numerals, FLOOR) ** weight
        combined /= combined.sum()
        value = int(combined.argmax()) + 1
        ours, theirs = int(die.model.argmax()) + 1, int(die.numerals.argmax()) + 1
        odds = flag_odds and ours != theirs and {ours, theirs} != {6, 9}
        return value, bool(combined.max() < UNSURE_BELOW or odds)

    return read


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="rendered folders of d10 (yamscope render)")
    args = parser.parse_args(argv)
    found = [d for folder in args.folders for d in collect(folder)]
    alone = score(found, lambda d: (int(d.model.argmax()) + 1, d.model.max() < UNSURE_BELOW))
    print(f"{len(found)} doubtful d10; right / silent errors / flags")
    print(f"the model alone: {alone}")
    for weight in WEIGHTS:
        print(
            f"weight {weight:g}: {score(found, weighed(weight, False))}; flagged when at odds: "
            f"{score(found, weighed(weight, True))}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
