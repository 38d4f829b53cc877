"""Whole games between computer players, to measure how strong each one is."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from scoring.computer import ComputerPlayer, computer_player, play_turn
from scoring.game import Game

# A safety net for rulebooks whose end depends on play (Cameroun): no real game is this long.
MAX_TURNS = 2000


@dataclass
class Results:
    """Final scores of every simulated game, by seat (players keep their seat order)."""

    rules: str
    players: list[str]
    scores: list[list[int]] = field(default_factory=list)  # one list per seat
    wins: list[float] = field(default_factory=list)

    def summary(self) -> list[dict[str, float | str]]:
        out = []
        for seat, name in enumerate(self.players):
            s = self.scores[seat]
            out.append(
                {
                    "player": name,
                    "games": len(s),
                    "mean": statistics.fmean(s),
                    "stdev": statistics.stdev(s) if len(s) > 1 else 0.0,
                    "min": min(s),
                    "median": statistics.median(s),
                    "max": max(s),
                    "wins": self.wins[seat],
                }
            )
        return out


def play_game(
    rules: str,
    players: Sequence[ComputerPlayer],
    rng: random.Random,
    names: Sequence[str] | None = None,
    options: dict | None = None,
) -> Game:
    names = list(names or [f"p{i + 1}" for i in range(len(players))])
    game = Game(rules, names, options)
    seat = {n: p for n, p in zip(names, players, strict=True)}
    for _ in range(MAX_TURNS):
        if game.finished:
            return game
        play_turn(game, seat[game.player], rng)
    raise RuntimeError(f"{rules} game did not end after {MAX_TURNS} turns")


def simulate(
    rules: str,
    kinds: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: Callable[[int], None] | None = None,
    cache_dir: str | None = None,
) -> Results:
    """Play ``games`` games with one computer player of each kind, in the order given."""
    rng = random.Random(seed)
    names = [f"{k}{i + 1}" if kinds.count(k) > 1 else k for i, k in enumerate(kinds)]
    players = [computer_player(k, rules, cache_dir) for k in kinds]
    results = Results(rules, names, [[] for _ in kinds], [0.0 for _ in kinds])
    for n in range(games):
        game = play_game(rules, players, rng, names, options)
        scores = game.scores()
        winners = game.winners()
        for seat, name in enumerate(names):
            results.scores[seat].append(scores[name])
            if name in winners:
                results.wins[seat] += 1 / len(winners)
        if progress:
            progress(n + 1)
    return results
