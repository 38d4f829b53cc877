"""The dice notation: ``<value><colour?><finish?>``, ``0`` is a d10's ten."""

from __future__ import annotations

import pytest

from scoring.dice import Colour, Die, Finish, NotationError, format_dice, parse_dice, parse_die


@pytest.mark.parametrize(
    ("token", "die"),
    [
        ("7", Die(7)),
        ("7r", Die(7, Colour.RED)),
        ("7w", Die(7, Colour.WHITE)),
        ("10wf", Die(10, Colour.WHITE, Finish.FROSTED)),
        ("3rt", Die(3, Colour.RED, Finish.TRANSPARENT)),
        ("1f", Die(1, None, Finish.FROSTED)),
        ("0", Die(10)),
        ("0w", Die(10, Colour.WHITE)),
        ("0rf", Die(10, Colour.RED, Finish.FROSTED)),
        ("7R", Die(7, Colour.RED)),
        ("  4wt ", Die(4, Colour.WHITE, Finish.TRANSPARENT)),
    ],
)
def test_parse_die(token: str, die: Die) -> None:
    assert parse_die(token) == die


def test_zero_is_ten_and_formats_as_ten() -> None:
    die = parse_die("0w")
    assert die.value == 10
    assert str(die) == "10w"
    assert parse_die(str(die)) == die


@pytest.mark.parametrize(
    "text",
    ["7r 10wf 3rt", "7r,10wf,3rt", "7r, 10wf ,3rt", " 7r\t10wf\n3rt ", "7r,,10wf  3rt,"],
)
def test_commas_and_spaces_separate_tokens(text: str) -> None:
    assert parse_dice(text) == (
        Die(7, Colour.RED),
        Die(10, Colour.WHITE, Finish.FROSTED),
        Die(3, Colour.RED, Finish.TRANSPARENT),
    )


def test_parse_dice_from_several_strings() -> None:
    assert parse_dice(["1 2", "3,4", "0"]) == tuple(Die(v) for v in (1, 2, 3, 4, 10))


@pytest.mark.parametrize(
    "text",
    [
        "1 2 3 4 5",
        "6 6 6 6 6",
        "1r 2w 3r 4w 5r 6w 7r 8w 9r 10w",
        "7rf 10wt 1rt 2wf",
        "3f 4t",
    ],
)
def test_format_parse_round_trip(text: str) -> None:
    dice = parse_dice(text)
    assert format_dice(dice) == text
    assert parse_dice(format_dice(dice)) == dice


def test_format_writes_ten_not_zero() -> None:
    assert format_dice(parse_dice("0r 0w 5r")) == "10r 10w 5r"


@pytest.mark.parametrize(
    "token",
    [
        "11r",  # no d11
        "11",
        "x",
        "7q",  # no colour or finish q
        "7fr",  # the finish comes after the colour
        "7rr",
        "7ff",
        "7rw",
        "7tf",
        "00",
        "-1",
        "7 r",  # two tokens: "r" alone is not a die
        "r7",
        "100",
        "7rft",
    ],
)
def test_bad_tokens_raise(token: str) -> None:
    with pytest.raises(NotationError):
        parse_dice(token)


@pytest.mark.parametrize("text", ["", "   ", ",", " , ,"])
def test_no_dice_raises(text: str) -> None:
    with pytest.raises(NotationError):
        parse_dice(text)


def test_notation_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_die("12")


@pytest.mark.parametrize("value", [0, 11, -3, 7.0, "7", True])
def test_die_rejects_bad_values(value: object) -> None:
    with pytest.raises(NotationError):
        Die(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [1, 6, 10])
def test_die_accepts_one_to_ten(value: int) -> None:
    assert Die(value).value == value


def test_to_json() -> None:
    assert Die(7, Colour.RED, Finish.FROSTED).to_json() == {
        "value": 7,
        "colour": "red",
        "finish": "frosted",
    }
    assert Die(3).to_json() == {"value": 3, "colour": None, "finish": None}


@pytest.mark.parametrize(
    "die",
    [
        Die(1),
        Die(10, Colour.WHITE),
        Die(4, Colour.RED, Finish.TRANSPARENT),
        Die(9, None, Finish.FROSTED),
    ],
)
def test_json_round_trip(die: Die) -> None:
    assert Die.from_json(die.to_json()) == die


def test_from_json_reads_a_token() -> None:
    assert Die.from_json("0wf") == Die(10, Colour.WHITE, Finish.FROSTED)


def test_from_json_missing_colour_and_finish_keys() -> None:
    assert Die.from_json({"value": 5}) == Die(5)


@pytest.mark.parametrize(
    "data",
    [
        {"colour": "red"},  # no value
        {"value": 7, "colour": "blue"},
        {"value": 7, "finish": "matte"},
        {"value": 11},
        {"value": 0},
        {"value": "7"},
        {"value": True},
        [7, "red"],
        7,
        None,
        "7q",
    ],
)
def test_from_json_rejects(data: object) -> None:
    with pytest.raises(NotationError):
        Die.from_json(data)


def test_colour_and_finish_letters_and_french() -> None:
    assert [c.letter for c in Colour] == ["r", "w"]
    assert [f.letter for f in Finish] == ["f", "t"]
    assert Colour.RED.french == "rouge"
    assert Colour.WHITE.french == "blanc"
    assert Finish.FROSTED.french == "givré"
    assert Finish.TRANSPARENT.french == "transparent"
