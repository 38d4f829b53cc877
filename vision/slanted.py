"""A closer look at the d10 of a photo taken at a slant (no calibration): a second die-face
model, ``models/slanted-d10.onnx``, that reads crops of 96 px, reads every die again, and a
die either model calls a d10 takes its kind and value where the shipped model doubts it.

Why: at a slant a d10's top face is a small kite at the top of its crop, and the shipped
model halves its 64 px crop in its first layer; the closer reader, the same recipe trained
on crops of 96 px, keeps the kite's numeral, but reads Rune55's d6 a little worse. So it is
asked only where its view helps: never on a calibrated tray (overhead, the shipped model's
own), never in a game of d6 alone, never for a table's enrolled dice (their own head reads
them), and only where the shipped model doubts the value or the two disagree on the kind
(its sure readings of rendered slanted d10 are better than the closer reader's). What it
changes: docs/recognition.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.faces import SECOND_LOOK_BELOW, FaceReader, Guess
from vision.model import MODELS

DEFAULT_SLANTED_MODEL = MODELS / "slanted-d10.onnx"
TAKEN = ("kind", "value")  # what the closer reader says of a d10; colour and finish stay
# The shipped model's value below this is doubt, as for its own second look: above it, it
# reads slanted renders better than the closer reader (docs/lab-notes.md)
DOUBT_BELOW = SECOND_LOOK_BELOW


def calls_d10(guesses: dict[str, Guess]) -> bool:
    """Whether a reading's kind head finds the die likelier a d10 than a d6."""
    kind = guesses.get("kind")
    return kind is not None and kind.label == "d10"


def doubted(ours: dict[str, Guess], theirs: dict[str, Guess]) -> bool:
    """Whether the shipped model's reading leaves room for the closer one's: its value read
    with doubt, or the two models' kind heads at odds."""
    return ours["value"].probability < DOUBT_BELOW or calls_d10(ours) != calls_d10(theirs)


def slanted_looks(
    closer: FaceReader,
    frame: np.ndarray,
    boxes: Sequence[Sequence[float]],
    guesses: list[dict[str, Guess]],
    d10_game: bool = False,
) -> list[dict[str, Guess]]:
    """``guesses`` (the shipped model's, of a photo taken at a slant) with the kind and value
    of ``closer`` for every die that either model calls a d10 (every die in a game of d10
    alone, ``d10_game``) where the shipped model's reading is :func:`doubted`; all dice are
    read in one batch."""
    if not len(boxes):
        return guesses
    d6 = np.zeros(len(boxes), bool) if d10_game else None
    again = closer.read(frame, boxes, overhead=False, d6=d6)
    looked = list(guesses)
    for i, (ours, theirs) in enumerate(zip(guesses, again, strict=True)):
        d10 = d10_game or calls_d10(ours) or calls_d10(theirs)
        if d10 and doubted(ours, theirs):
            looked[i] = ours | {k: theirs[k] for k in TAKEN if k in theirs}
    return looked
