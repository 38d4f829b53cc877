"""Dice and the dice notation shared by the CLI, the logs and the tests.

One token per die: ``<value><colour?><finish?>``. The value is 1-6 for a d6 or 1-10 for a
d10 (a d10 shows ``0`` for ten, so ``0`` is read as 10); the colour is ``r`` (red) or ``w``
(white); the finish is ``f`` (frosted) or ``t`` (transparent). Tokens are separated by
spaces or commas: ``7r 10wf 3rt``. Which values are legal depends on the rulebook, so the
parser only checks the grammar and the widest range (1-10).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class NotationError(ValueError):
    """Dice text or dice values that do not follow the notation."""


class Colour(StrEnum):
    RED = "red"
    WHITE = "white"

    @property
    def letter(self) -> str:
        return self.value[0]

    @property
    def french(self) -> str:
        return {"red": "rouge", "white": "blanc"}[self.value]


class Finish(StrEnum):
    FROSTED = "frosted"
    TRANSPARENT = "transparent"

    @property
    def letter(self) -> str:
        return self.value[0]

    @property
    def french(self) -> str:
        return {"frosted": "givré", "transparent": "transparent"}[self.value]


_COLOUR_BY_LETTER = {c.letter: c for c in Colour}
_FINISH_BY_LETTER = {f.letter: f for f in Finish}
# The notation's grammar for one token: the value (0 is a d10's ten), then an optional colour
# letter, then an optional finish letter. Match it whole (``fullmatch``, or ``^...$`` in a JSON
# schema): a ``$`` in Python also matches before a final newline ("7r\n").
TOKEN_PATTERN = rf"(10|[0-9])[{''.join(_COLOUR_BY_LETTER)}]?[{''.join(_FINISH_BY_LETTER)}]?"
# what parse_die reads before checking it, so that its error can say what is wrong
_TOKEN = re.compile(r"([0-9]{1,2})([a-z]?)([a-z]?)")
MAX_VALUE = 10


@dataclass(frozen=True, slots=True)
class Die:
    """One die as it lies: its top value and, where the game uses them, colour and finish."""

    value: int
    colour: Colour | None = None
    finish: Finish | None = None

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise NotationError(f"a die value must be a whole number, not {self.value!r}")
        if not 1 <= self.value <= MAX_VALUE:
            raise NotationError(f"a die value must be 1 to {MAX_VALUE}, not {self.value}")

    def __str__(self) -> str:
        colour = self.colour.letter if self.colour else ""
        finish = self.finish.letter if self.finish else ""
        return f"{self.value}{colour}{finish}"

    def to_json(self) -> dict[str, object]:
        return {
            "value": self.value,
            "colour": self.colour.value if self.colour else None,
            "finish": self.finish.value if self.finish else None,
        }

    @classmethod
    def from_json(cls, data: object) -> Die:
        """Read a die from JSON: either a notation token or the object ``to_json`` writes."""
        if isinstance(data, str):
            return parse_die(data)
        if not isinstance(data, dict):
            raise NotationError(f"a die must be a token or an object, not {data!r}")
        try:
            colour = Colour(data["colour"]) if data.get("colour") else None
            finish = Finish(data["finish"]) if data.get("finish") else None
            return cls(data["value"], colour, finish)
        except (KeyError, ValueError) as exc:
            if isinstance(exc, NotationError):
                raise
            raise NotationError(f"not a die: {data!r}") from None


def parse_die(token: str) -> Die:
    """Read one token; ``0`` is a d10's ten."""
    match = _TOKEN.fullmatch(token.strip().lower())
    if not match:
        raise NotationError(f"{token!r} is not a die (expected e.g. 7, 7r, 10wf, 3rt)")
    digits, first, second = match.groups()
    value = int(digits)
    if value == 0 and digits == "0":
        value = 10
    colour = finish = None
    for letter in (first, second):
        if not letter:
            continue
        if letter in _COLOUR_BY_LETTER and colour is None and finish is None:
            colour = _COLOUR_BY_LETTER[letter]
        elif letter in _FINISH_BY_LETTER and finish is None:
            finish = _FINISH_BY_LETTER[letter]
        else:
            raise NotationError(
                f"{token!r}: after the value come an optional colour (r, w) "
                "then an optional finish (f, t)"
            )
    if not 1 <= value <= MAX_VALUE:
        raise NotationError(f"{token!r}: a die value must be 1 to {MAX_VALUE} (0 means 10)")
    return Die(value, colour, finish)


def parse_dice(text: str | Iterable[str]) -> tuple[Die, ...]:
    """Read dice from one string (spaces or commas between tokens) or from several strings."""
    if isinstance(text, str):
        text = [text]
    tokens = [tok for part in text for tok in re.split(r"[\s,]+", part) if tok]
    if not tokens:
        raise NotationError("no dice given")
    return tuple(parse_die(tok) for tok in tokens)


def format_dice(dice: Iterable[Die]) -> str:
    return " ".join(str(d) for d in dice)
