"""What the table session keeps about one moment of a game, as named types.

Why a moment: dice set aside, what the camera read, the advice, a computer's failure and the
picture of its throw all belong to one point of one game (its ``Key``: the game's id and how
many events it had logged) and lapse when the game moves on; each asks ``at(key)`` before it
is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Key = tuple[int, int]  # (game id, events logged): one moment of one game


@dataclass(frozen=True)
class Moment:
    """Something true at one moment of a game (``key``; None: of no game)."""

    key: Key | None = None

    def at(self, key: Key | None) -> bool:
        """Whether this holds at ``key`` (never without a game)."""
        return key is not None and self.key == key


@dataclass(frozen=True)
class Kept(Moment):
    """The dice places set aside (tapped on the page) before the camera reads the next throw."""

    places: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class LastRead(Moment):
    """What the camera read last: the places to check, and each place's crop."""

    unsure: list[int] = field(default_factory=list)
    crops: dict[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class ThrowCrops:
    """The crops of one throw read, by the logged throw (event) they are of: a correction
    finds them even after an undo brought an older throw back to the table."""

    event: dict[str, Any]
    crops: dict[int, bytes]


@dataclass(frozen=True)
class Advised(Moment):
    """The advisor's answer (None: it had none, or failed)."""

    advice: dict[str, Any] | None = None


@dataclass(frozen=True)
class ComputerFailed(Moment):
    """Why the computer playing could not play."""

    why: str = ""


@dataclass(frozen=True)
class Photo(Moment):
    """The picture of a computer's throw on the drawn tray; ``number`` grows with each."""

    number: int = 0
    picture: bytes | None = None


@dataclass(frozen=True)
class Turn:
    """One player's turn of one game (« Passer » skips the rest of it)."""

    game: int | None
    turn: int
    player: int


@dataclass(frozen=True)
class Job:
    """What the background worker does next: a computer's turn (``kind``) or advice."""

    what: Literal["computer", "advice"]
    key: Key
    kind: str | None = None
