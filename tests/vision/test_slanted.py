"""The closer look at a slanted photo's d10: which dice it reads again, and when it is asked."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from vision.calibration import calibrate
from vision.enrolment import enrol, turned
from vision.faces import FaceReader, Guess
from vision.model_check import check_reader
from vision.recognise import Recogniser, default_slanted, recognise
from vision.slanted import DEFAULT_SLANTED_MODEL, DOUBT_BELOW, slanted_looks


def guess(label: object, p: float = 0.9) -> Guess:
    return Guess(label, p, (p, 1 - p))


DOUBT = DOUBT_BELOW - 0.1
SURE = DOUBT_BELOW + 0.05


def die(kind: str, value: int, p: float = DOUBT, colour: str = "red") -> dict[str, Guess]:
    return {"kind": guess(kind), "value": guess(value, p), "colour": guess(colour)}


class Told:
    """A die-face reader (FaceReader's ``read``) that answers what it is told, and keeps
    what it was asked."""

    def __init__(self, answers: list[dict[str, Guess]]) -> None:
        self.answers, self.asked = answers, []

    def read(
        self,
        frame: np.ndarray,
        boxes: Sequence[Sequence[float]],
        overhead: bool = True,
        d6: np.ndarray | None = None,
    ) -> list[dict[str, Guess]]:
        self.asked.append((len(boxes), overhead, None if d6 is None else d6.tolist()))
        return self.answers


def test_a_doubted_die_either_reader_calls_a_d10_takes_the_closer_kind_and_value() -> None:
    ours = [die("d6", 3), die("d10", 4), die("d6", 5, SURE), die("d10", 2, SURE), die("d10", 1)]
    theirs = [
        die("d6", 4),
        die("d10", 6, colour="white"),
        die("d10", 8),
        die("d10", 7),
        die("d6", 5),
    ]
    closer = Told(theirs)
    frame = np.zeros((60, 60, 3), np.uint8)
    looked = slanted_looks(closer, frame, [(0, 0, 9, 9)] * 5, ours)  # type: ignore[arg-type]
    assert closer.asked == [(5, False, None)]  # every die, in one batch, read as slanted
    assert [(d["kind"].label, d["value"].label) for d in looked] == [
        ("d6", 3),  # both call it a d6: the shipped model's reading stays
        ("d10", 6),  # a doubted d10
        ("d10", 8),  # a sure value, but the kinds at odds
        ("d10", 2),  # a sure d10 both call a d10: the shipped model's
        ("d6", 5),  # a doubted d10 the closer reader calls a d6
    ]
    assert all(d["colour"].label == "red" for d in looked)  # colour and finish stay ours
    assert [d["value"].label for d in ours] == [3, 4, 5, 2, 1]  # the guesses given are kept


def test_in_a_game_of_d10_alone_every_die_takes_the_closer_value() -> None:
    closer = Told([die("d6", 7), die("d10", 9), die("d6", 4)])
    looked = slanted_looks(
        closer,  # type: ignore[arg-type]
        np.zeros((60, 60, 3), np.uint8),
        [(0, 0, 9, 9)] * 3,
        [die("d6", 1), die("d6", 2, SURE), die("d6", 3, SURE)],
        d10_game=True,
    )
    assert closer.asked == [(3, False, [False, False, False])]
    assert [d["value"].label for d in looked] == [7, 9, 3]  # the third: sure, kinds agree
    assert slanted_looks(closer, np.zeros((9, 9, 3), np.uint8), [], []) == []  # type: ignore[arg-type]


def test_the_shipped_reader_reads_96_px_crops_and_computes_as_exported() -> None:
    reader = default_slanted()
    assert reader.path == DEFAULT_SLANTED_MODEL
    card = json.loads(DEFAULT_SLANTED_MODEL.with_suffix(".json").read_text(encoding="utf-8"))
    assert reader.card.size == 96 and card["name"] == "slanted-d10"
    assert set(reader.classes("kind")) >= {"d6", "d10"}
    assert check_reader(reader).ok


class Counting(FaceReader):
    """The shipped slanted reader, counting the frames it reads."""

    def __init__(self) -> None:
        super().__init__(DEFAULT_SLANTED_MODEL)
        self.frames = 0

    def read(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.frames += 1
        return super().read(*args, **kwargs)


@pytest.fixture(scope="module")
def throw() -> tuple[np.ndarray, np.ndarray]:
    """A rendered throw of ten d10 and the empty tray it was thrown on."""
    from models.synth import empty_tray, place, random_specs, random_tray, render

    rng = np.random.default_rng(21)
    tray = random_tray(rng, (640, 480))
    specs = random_specs(rng, 10, impossible=True)
    scene = render(tray, specs, place(rng, specs, tray, touching=0.0), rng)
    return scene.image, empty_tray(tray, rng)


def test_it_is_asked_only_of_a_photo_without_a_calibration_in_a_game_with_d10(
    throw: tuple[np.ndarray, np.ndarray],
) -> None:
    image, empty = throw
    closer = Counting()
    recognise(image, calibrate(empty), kinds=("d10",), slanted=closer)
    recognise(image, kinds=("d6",), slanted=closer)
    assert closer.frames == 0  # overhead, or a game of d6: the shipped model reads alone
    with_look = recognise(image, kinds=("d6", "d10"), slanted=closer)
    assert closer.frames == 1
    recogniser = Recogniser(kinds=("d6", "d10"), slanted_model=None)
    without = recogniser(image)
    assert recogniser.slanted is None
    assert [d.box for d in with_look.dice] == [d.box for d in without.dice]


def test_a_table_s_own_dice_are_read_by_their_own_head_alone(
    throw: tuple[np.ndarray, np.ndarray],
) -> None:
    recogniser = Recogniser(kinds=("d6", "d10"))
    reader = recogniser.reader
    side = reader.card.size
    crops = np.random.default_rng(3).integers(0, 255, (6, side, side, 3), dtype=np.uint8)
    features, logits = reader.features(turned(crops))
    values = np.tile(np.arange(1, 7), 4)
    classes = [int(c) for c in reader.classes("value")]
    recogniser.enrol(enrol(features, logits, values, classes, "test", reader.digest, photos=1))
    closer = Counting()
    recogniser.slanted = closer
    recogniser(throw[0])
    assert closer.frames == 0
