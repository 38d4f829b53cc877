"""What the vision pipeline says about a photo: the dice it read, each with its confidence,
box and flags, in the shape ``yamscope recognise`` prints (DESIGN.md).

Why flags and not guesses: a wrong reading costs a player points silently, a flagged die
costs one tap on the page. A die the pipeline cannot read is kept in the list with a flag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["d6", "d10"]
NO_DIE = "none"  # the die-face model's kind for a box on no die (its last kind class)
ColourName = Literal["red", "white", "other"]
FinishName = Literal["frosted", "transparent"]
Flag = Literal["cocked", "occluded", "unsure"]
FLAGS: tuple[Flag, ...] = ("cocked", "occluded", "unsure")
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels of the frame, x1/y1 exclusive


@dataclass(frozen=True)
class ReadDie:
    """One die as read: the best class of each attribute and how sure the reader is.

    ``confidence`` is the least sure of the attributes the game needs (kind and value
    always, colour and finish too for the games that score them); ``scores`` keeps each
    attribute's own confidence for the evaluation and the page.
    """

    kind: Kind
    value: int
    colour: ColourName
    finish: FinishName
    confidence: float
    box: Box
    flags: tuple[Flag, ...] = ()
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        return bool(self.flags)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "value": self.value,
            "colour": self.colour,
            "finish": self.finish,
            "confidence": round(float(self.confidence), 4),
            "box": [int(v) for v in self.box],
            "flags": list(self.flags),
        }


@dataclass(frozen=True)
class Reading:
    """Every die found in one frame, left to right then top to bottom, and the time taken."""

    dice: tuple[ReadDie, ...]
    ms: float
    size: tuple[int, int]  # width, height of the frame read
    notes: tuple[str, ...] = ()  # what the players should know of the view or the count

    def to_json(self, image: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"image": image} if image is not None else {}
        out |= {"ms": round(self.ms, 2), "dice": [d.to_json() for d in self.dice]}
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def reading_order(boxes: Sequence[Box]) -> list[int]:
    """Indices of ``boxes`` in reading order: rows of dice top to bottom, left to right in a
    row (a row is the boxes whose centres lie within half a median die of the row's first)."""
    if not boxes:
        return []
    heights = sorted(b[3] - b[1] for b in boxes)
    half = heights[len(heights) // 2] / 2
    centre_y = [(b[1] + b[3]) / 2 for b in boxes]
    order = sorted(range(len(boxes)), key=lambda i: centre_y[i])
    rows: list[list[int]] = []
    for i in order:
        if rows and centre_y[i] - centre_y[rows[-1][0]] <= half:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda i: boxes[i][0])]
