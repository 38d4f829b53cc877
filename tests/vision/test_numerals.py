"""The second look at a doubtful d10's numeral (vision/numerals.py): the shipped numeral
model reads printed digits at any turn, its card is checked, and its word is weighed with
the die-face model's only for the d10 that model is unsure of."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import BadModelError
from vision.faces import Guess
from vision.numerals import (
    DEFAULT_NUMERALS_MODEL,
    FLOOR,
    NUMERALS_BELOW,
    NumeralReader,
    at_odds,
    doubtful_d10,
    numeral_looks,
    with_numerals,
)

VALUES = tuple(range(1, 11))


@pytest.fixture(scope="module")
def numerals() -> NumeralReader:
    return NumeralReader()


def printed(
    digit: str, turn: float, size: int = 240, underlined: bool = False
) -> tuple[np.ndarray, list[float]]:
    """A frame with ``digit`` printed dark on a light face at the centre of a die's box,
    turned ``turn`` degrees, and that box; ``underlined``: a bar under it, as a d10's 6 and
    9 have."""
    frame = np.full((size, size, 3), 200, np.uint8)
    cv2.putText(frame, digit, (size // 2 - 14, size // 2 + 17), cv2.FONT_HERSHEY_SIMPLEX, 1.6,
                (30, 30, 30), 4, cv2.LINE_AA)  # fmt: skip
    if underlined:
        cv2.rectangle(frame, (size // 2 - 12, size // 2 + 25), (size // 2 + 10, size // 2 + 28),
                      (30, 30, 30), -1)  # fmt: skip
    centre = (size / 2 - 0.5, size / 2 - 0.5)
    frame = cv2.warpAffine(frame, cv2.getRotationMatrix2D(centre, turn, 1.0), (size, size),
                           borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    side = 150
    box = [size / 2 - side / 2, size / 2 - side / 2, size / 2 + side / 2, size / 2 + side / 2]
    return frame, box


@pytest.mark.parametrize(("digit", "turn"), [("4", 0), ("8", 130), ("3", 250), ("0", 75)])
def test_a_printed_digit_is_read_at_any_turn(
    numerals: NumeralReader, digit: str, turn: float
) -> None:
    frame, box = printed(digit, turn)
    seen = numerals.digits(frame, [box])
    assert seen.shape == (1, numerals.card.turns, 10)  # each view
    assert int(seen[0].max(axis=0).argmax()) == int(digit)


def test_a_grey_frame_is_read_as_a_colour_one(numerals: NumeralReader) -> None:
    frame, box = printed("5", 40)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert np.allclose(numerals.digits(grey, [box]), numerals.digits(frame, [box]), atol=1e-4)


@pytest.mark.parametrize(("digit", "turn"), [("6", 0), ("6", 180), ("9", 0), ("9", 150)])
def test_the_underline_tells_a_six_from_a_nine(
    numerals: NumeralReader, digit: str, turn: float
) -> None:
    frame, box = printed(digit, turn, underlined=True)
    weights = numerals.values(frame, [box], VALUES)[0]
    other = 15 - int(digit)
    assert weights[int(digit) - 1] > 0.4 and weights[other - 1] < 2 * FLOOR


def test_a_six_and_a_nine_weigh_alike_and_ten_is_the_zero(numerals: NumeralReader) -> None:
    six, box = printed("6", 0)
    weights = numerals.values(six, [box], VALUES)
    assert weights.shape == (1, 10) and weights.sum() == pytest.approx(1.0)
    assert weights[0, 5] == pytest.approx(weights[0, 8])  # a turned 6 is a 9
    assert weights[0, 5] > 0.4
    zero, box = printed("0", 0)
    assert int(numerals.values(zero, [box], VALUES)[0].argmax()) == 9  # value 10


def test_no_box_no_run(numerals: NumeralReader) -> None:
    assert numerals.digits(np.zeros((50, 50, 3), np.uint8), []).shape == (0, 6, 10)


def guess(probabilities: list[float]) -> Guess:
    p = np.asarray(probabilities, float) / sum(probabilities)
    return Guess(int(p.argmax()) + 1, float(p.max()), tuple(p))


def test_the_numerals_settle_a_model_torn_between_two_values() -> None:
    torn = guess([0.01] * 3 + [0.4] + [0.01] + [0.5] + [0.01] * 4)  # 6 over 4
    says_four = np.full(10, FLOOR)
    says_four[3] = 1.0
    looked = with_numerals(torn, says_four / says_four.sum(), VALUES)
    assert looked.label == 4 and looked.probability > 0.8
    sure = guess([0.01] * 3 + [0.02] + [0.01] + [0.9] + [0.01] * 4)  # 6, surely
    assert with_numerals(sure, says_four / says_four.sum(), VALUES).label == 6  # its say is larger
    assert sum(looked.probabilities) == pytest.approx(1.0)


def test_only_the_doubtful_d10_are_looked_at_again(numerals: NumeralReader) -> None:
    frame, box = printed("4", 20)
    sure = guess([0.01] * 5 + [0.95] + [0.01] * 4)
    torn = guess([0.01] * 3 + [0.4] + [0.01] + [0.5] + [0.01] * 4)
    guesses = [{"value": sure}, {"value": torn}, {"value": torn}]
    d10 = np.array([True, True, False])  # the last one is a d6
    assert sure.probability >= NUMERALS_BELOW > torn.probability
    assert doubtful_d10(guesses, d10, VALUES).tolist() == [False, True, False]
    looked, disputed = numeral_looks(numerals, frame, [box] * 3, guesses, d10, VALUES)
    assert looked[0] is guesses[0] and looked[2] is guesses[2]
    assert looked[1]["value"].label == 4
    assert disputed == {1}  # the model said 6, the numeral 4: flagged whatever is read


def test_readers_at_odds_are_doubt_but_a_six_and_a_nine_agree_unless_underlined() -> None:
    says = {v: np.where(np.arange(1, 11) == v, 1.0, FLOOR) for v in VALUES}
    says[6] = says[9] = np.where(np.isin(np.arange(1, 11), (6, 9)), 1.0, FLOOR)
    model_six = guess([0.01] * 5 + [0.6] + [0.01] * 4)
    model_nine = guess([0.01] * 8 + [0.6] + [0.01])
    assert at_odds(model_six, says[4], VALUES)
    assert not at_odds(model_six, says[6], VALUES)
    assert not at_odds(model_nine, says[9], VALUES)  # the numerals' 6-or-9
    underlined_nine = np.where(np.arange(1, 11) == 9, 1.0, FLOOR)  # the bar said which
    assert at_odds(model_six, underlined_nine, VALUES)
    assert not at_odds(model_nine, underlined_nine, VALUES)


def test_a_card_that_does_not_name_the_digits_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "numerals.onnx"
    shutil.copy(DEFAULT_NUMERALS_MODEL, model)
    card = json.loads(DEFAULT_NUMERALS_MODEL.with_suffix(".json").read_text(encoding="utf-8"))
    card["output"]["classes"] = ["blank", *"abcdefghij"]
    model.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(BadModelError, match="not the blank and the ten digits"):
        NumeralReader(model)
    card["output"]["classes"] = ["blank", *"0123456789"]
    card["input"]["name"] = "images"
    model.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(BadModelError, match="card and model disagree"):
        NumeralReader(model)
