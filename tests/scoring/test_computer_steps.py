"""A computer's turn played one move at a time is the turn ``play_turn`` plays."""

from __future__ import annotations

import random

import pytest

from scoring.computer import Facile, play_step, play_turn
from scoring.game import Game


class Announcer(Facile):
    """Facile that announces the extra throw for the first box it may, keeping nothing."""

    def announce(self, game: Game) -> tuple[str, list[int]] | None:
        for box in game.rulebook.boxes:
            if game.rulebook.is_open(game.table, game.current, box.id):
                try:
                    game.rulebook.check_announce(box.id)
                except Exception:
                    continue
                return box.id, []
        return None


@pytest.mark.parametrize("rules", ["yams", "impossible", "cameroun"])
def test_steps_play_the_same_turns_as_play_turn(rules: str) -> None:
    whole, stepped = Game(rules, ["A", "B"]), Game(rules, ["A", "B"])
    rng_whole, rng_stepped = random.Random(5), random.Random(5)
    player = Announcer()
    moves = 0
    for _ in range(6):
        play_turn(whole, player, rng_whole)
        while not play_step(stepped, player, rng_stepped):
            moves += 1
        moves += 1
    assert stepped.events == whole.events
    assert moves > 6  # more than one move a turn: each throw is a step of its own
