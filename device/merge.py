"""The dice read on the tray put in the places of the game's dice.

Why this is not one line: players set the dice they keep aside, out of the tray, so the
camera sees only the dice thrown again, and those must go back in the places that were not
kept. In Yams impossible each place is one physical die (its colour and finish never change),
so a red transparent die read on the tray goes to a red transparent place. When the reading
does not fit (a colour read wrong), the die still gets a place, that place's colour, and an
``unsure`` mark, so the player sees which die to check instead of losing the throw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.dice import Colour, Die, Finish
from scoring.entries import RulesError
from scoring.game import Game
from vision.reading import ReadDie


class ThrowNotRead(RulesError):
    """The dice on the tray cannot be this game's throw (count, kind): nothing is recorded."""


@dataclass(frozen=True)
class Placed:
    """The game's dice after the throw, and for each place the reading's die in it (None for
    a kept die) and whether the player should check it."""

    dice: tuple[Die, ...]
    source: tuple[int | None, ...]
    unsure: tuple[int, ...]


def place_reading(game: Game, read: Sequence[ReadDie], keep: Sequence[int] = ()) -> Placed:
    """Raise ThrowNotRead when the tray does not hold the dice this throw needs."""
    rb = game.rulebook
    kept = sorted(set(keep)) if game.dice is not None else []
    thrown = [i for i in range(rb.dice_count) if i not in kept]
    if len(read) != len(thrown):
        aside = f" ({len(kept)} set aside)" if kept else ""
        raise ThrowNotRead(
            f"{len(read)} dice read on the tray, {len(thrown)} expected{aside}: "
            "throw again with every die in the tray"
        )
    wrong = [d for d in read if d.kind != rb.kind and not d.flags]
    if wrong:
        raise ThrowNotRead(f"a {wrong[0].kind} is on the tray: {rb.id} is played with {rb.kind}")
    coloured = rb.id == "impossible"
    if not coloured:
        return _plain(game, read, thrown)
    if game.dice is None:
        return _first_coloured(read)
    return _rethrown_coloured(game, read, thrown)


def _value(die: ReadDie, top: int) -> int:
    return min(max(die.value, 1), top)


def _plain(game: Game, read: Sequence[ReadDie], thrown: list[int]) -> Placed:
    top = 6 if game.rulebook.kind == "d6" else 10
    dice = list(game.dice or [Die(1)] * game.rulebook.dice_count)
    source: list[int | None] = [None] * len(dice)
    for j, place in enumerate(thrown):
        dice[place] = Die(_value(read[j], top))
        source[place] = j
    unsure = tuple(p for p in thrown if read[source[p]].flags)  # type: ignore[index]
    return Placed(tuple(dice), tuple(source), unsure)


def _first_coloured(read: Sequence[ReadDie]) -> Placed:
    """First throw of a turn: five red and five white; where the colours read do not balance,
    the least sure dice of the colour read too often change colour and are marked."""
    colours = [Colour.RED if d.colour == "red" else Colour.WHITE for d in read]
    half = len(read) // 2
    for colour, other in ((Colour.RED, Colour.WHITE), (Colour.WHITE, Colour.RED)):
        excess = colours.count(colour) - half
        if excess > 0:
            candidates = sorted(
                (j for j, c in enumerate(colours) if c == colour),
                key=lambda j: read[j].scores.get("colour", read[j].confidence),
            )
            for j in candidates[:excess]:
                colours[j] = other
    changed = {j for j, d in enumerate(read) if d.colour != colours[j].value}
    dice = tuple(Die(_value(d, 10), colours[j], Finish(d.finish)) for j, d in enumerate(read))
    unsure = tuple(j for j, d in enumerate(read) if d.flags or j in changed)
    return Placed(dice, tuple(range(len(read))), unsure)


def _fits(place: Die, die: ReadDie) -> bool:
    """A read die fits a place of its colour, and of its finish where the game records one."""
    colour = place.colour is not None and place.colour.value == die.colour
    return colour and (place.finish is None or place.finish.value == die.finish)


def _rethrown_coloured(game: Game, read: Sequence[ReadDie], thrown: list[int]) -> Placed:
    """Each read die goes to a thrown place of its own colour and finish; the rest fill the
    places left, taking their colour and finish, and are marked."""
    assert game.dice is not None
    dice = list(game.dice)
    source: list[int | None] = [None] * len(dice)
    free = list(thrown)
    left = []
    for j, d in enumerate(read):
        match = next((p for p in free if _fits(dice[p], d)), None)
        if match is None:
            left.append(j)
            continue
        free.remove(match)
        source[match] = j
    for j, place in zip(left, free, strict=True):
        source[place] = j
    unsure = []
    for place in thrown:
        j = source[place]
        assert j is not None
        d = read[j]
        dice[place] = Die(_value(d, 10), dice[place].colour, dice[place].finish)
        if d.flags or j in left:
            unsure.append(place)
    return Placed(tuple(dice), tuple(source), tuple(unsure))
