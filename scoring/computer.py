"""Computer players, and the dice they throw when nobody is at the table.

A computer player answers the two questions of a turn through the same ``Game`` the humans
use: which dice to keep (or stop), and which box to write. « Au niveau facile, il garde
seulement le chiffre qui est sorti le plus souvent » (seed 004); the strong players are the
advisors' and register here by name.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from scoring.dice import Colour, Die, Finish
from scoring.game import Game

# The simulated set of Yams impossible: five red and five white d10, each colour with both
# finishes, so that colour and finish harmonies are different events.
IMPOSSIBLE_SET = (
    *((Colour.RED, f) for f in (Finish.FROSTED,) * 3 + (Finish.TRANSPARENT,) * 2),
    *((Colour.WHITE, f) for f in (Finish.FROSTED,) * 2 + (Finish.TRANSPARENT,) * 3),
)


class ComputerPlayer(Protocol):
    """What the table asks a computer player during its turn."""

    def keep(self, game: Game) -> list[int] | None:
        """Positions of the dice to set aside before the next throw; None to stop and write."""
        ...

    def announce(self, game: Game) -> tuple[str, list[int]] | None:
        """The box to announce the extra throw for and the dice to keep, or None."""
        ...

    def choose(self, game: Game) -> str | None:
        """The box to write the current dice in (None only after an announced throw)."""
        ...


class Facile:
    """Keeps the value that came up most (the highest on a tie), writes the best entry."""

    def keep(self, game: Game) -> list[int] | None:
        assert game.dice is not None
        counts = Counter(d.value for d in game.dice)
        value = max(counts, key=lambda v: (counts[v], v))
        if counts[value] == len(game.dice):
            return None
        return [i for i, d in enumerate(game.dice) if d.value == value]

    def announce(self, game: Game) -> tuple[str, list[int]] | None:
        return None

    def choose(self, game: Game) -> str | None:
        return game.choices()[0].box


def _difficile(rules: str, cache_dir: str | None) -> ComputerPlayer:
    """The advisor of each rulebook, as a player (imported here: solvers load numpy)."""
    if rules in ("yams", "yahtzee"):
        from scoring.advisor.five_dice.player import FiveDiceDifficile

        return FiveDiceDifficile(cache_dir)
    if rules == "cameroun":
        from scoring.advisor.cameroun.advisor import Difficile

        return Difficile()
    if rules == "impossible":
        from scoring.advisor.impossible.advisor import Difficile as ImpossibleDifficile

        return ImpossibleDifficile()
    raise ValueError(f"no difficile player for {rules} yet")


PLAYERS: dict[str, Callable[[str, str | None], ComputerPlayer]] = {
    "facile": lambda rules, cache_dir: Facile(),
    "difficile": _difficile,
}


def computer_player(kind: str, rules: str, cache_dir: str | None = None) -> ComputerPlayer:
    """A computer player by name; ``cache_dir`` keeps solved strategies between runs."""
    if kind not in PLAYERS:
        raise ValueError(f"unknown computer player {kind!r} (known: {', '.join(PLAYERS)})")
    return PLAYERS[kind](rules, cache_dir)


def roll(game: Game, rng: random.Random, keep: list[int] | None = None) -> tuple[Die, ...]:
    """The dice after a throw: kept positions unchanged, the others thrown again."""
    rb = game.rulebook
    top = 6 if rb.kind == "d6" else 10
    if game.dice is None:
        if rb.id == "impossible":
            return tuple(Die(rng.randint(1, top), c, f) for c, f in IMPOSSIBLE_SET)
        return tuple(Die(rng.randint(1, top)) for _ in range(rb.dice_count))
    kept = set(keep or ())
    return tuple(
        d if i in kept else Die(rng.randint(1, top), d.colour, d.finish)
        for i, d in enumerate(game.dice)
    )


def play_turn(game: Game, player: ComputerPlayer, rng: random.Random) -> None:
    """The current player's turn up to its entry, from wherever it stands.

    Usually from a fresh turn; after a restart in the middle of a computer's turn, its
    throws are kept and the turn goes on from them instead of being thrown again (the dice
    it meant to keep for an announced throw are not known then: all are thrown).
    """
    while not play_step(game, player, rng):
        pass


def play_step(game: Game, player: ComputerPlayer, rng: random.Random) -> bool:
    """One move of the current player's turn: a throw (with what it keeps), an announced
    throw, or the entry; True once the entry is written. Why steps: the table shows a
    computer's turn at a person's pace, one move at a time."""
    rb = game.rulebook
    if game.dice is None:
        game.throw(roll(game, rng))
        return False
    if game.announced is not None:
        if game.throw_no <= rb.max_throws:  # resumed between an announce and its throw
            game.throw(roll(game, rng))
            return False
    elif game.throw_no < rb.max_throws:
        keep = player.keep(game)
        if keep is not None:
            game.throw(roll(game, rng, keep), keep)
            return False
    elif rb.announced_throw:
        announced = player.announce(game)
        if announced is not None:
            box, keep = announced
            game.announce(box)
            game.throw(roll(game, rng, keep), keep)
            return False
    game.score(player.choose(game))
    return True
