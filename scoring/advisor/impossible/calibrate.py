"""Calibrate the box values of ``impossible_values`` by self-play, and measure the player.

    python -m scoring.advisor.impossible.calibrate calibrate --from-scratch --rounds 6 \\
        --games 150 --seed 1
    python -m scoring.advisor.impossible.calibrate measure --games 200 --seed 0

``calibrate`` plays ``games`` solo games with ``Difficile`` using the current values (or,
with ``--from-scratch``, naive ones), sets each box's value, per phase of the game, to the
mean points the box ended with when still open then (the chiffres' spread too),
and plays again with the new values, ``rounds`` times; it prints the last values as the
Python source of ``BOX_VALUES`` and ``CHIFFRE_SD``, to paste into ``impossible_values``.
Why a fixed point of self-play: a box's value is what it will make *under this player's
own play* (aimed at, taken by chance, or crossed late), which no single-turn computation
gives. Games run on ``--jobs`` processes; each game's dice come from its own seed, so a
run is reproducible.

``measure`` plays difficile and facile through ``scoring.simulate`` (each alone at the
table) and prints mean ± stdev and the advice latency per decision.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from multiprocessing import Pool

from scoring.advisor.impossible.advisor import Advisor, Difficile, tables_for
from scoring.advisor.impossible.values import (
    BOX_VALUES,
    CHIFFRE_BOXES,
    CHIFFRE_SD,
    PHASES,
    phase,
)
from scoring.rulebooks import get_rulebook
from scoring.simulate import play_game

RULES = "impossible"


Tables = Mapping[str, Sequence[float]]


def _play(args: tuple[int, Tables, Tables]) -> tuple[list[tuple[str, int]], int]:
    """One game: its entries in the order written, and its score."""
    seed, values, spread = args
    player = Difficile(Advisor(values, spread))
    game = play_game(RULES, [player], random.Random(seed))
    return [(w.entry.box, w.entry.points) for w in game.written], game.scores()["p1"]


def self_play(
    values: Tables, spread: Tables, seeds: Sequence[int], jobs: int
) -> list[tuple[list[tuple[str, int]], int]]:
    work = [(s, dict(values), dict(spread)) for s in seeds]
    if jobs <= 1:
        return [_play(w) for w in work]
    with Pool(jobs) as pool:
        return pool.map(_play, work, chunksize=4)


def refit(
    results: Sequence[tuple[list[tuple[str, int]], int]], least: int = 30
) -> tuple[dict[str, tuple[float, ...]], dict[str, tuple[float, ...]]]:
    """Per phase and box, the mean (and spread) of the box's final points over the turns of
    that phase after which it was still open. Fewer than ``least`` such turns: the value
    of the phase before is kept (the box is then rarely open so late)."""
    samples: dict[tuple[int, str], list[int]] = {}
    for written, _ in results:
        for t in range(1, len(written)):
            p = phase(len(written) - t)
            for box, points in written[t:]:
                samples.setdefault((p, box), []).append(points)
    values: dict[str, list[float]] = {b: [] for b in BOX_VALUES}
    spread: dict[str, list[float]] = {b: [] for b in CHIFFRE_BOXES}
    for p in range(len(PHASES)):
        for b in BOX_VALUES:
            got = samples.get((p, b), [])
            if len(got) >= least or p == 0:
                values[b].append(round(statistics.fmean(got), 2))
                if b in spread:
                    spread[b].append(round(statistics.pstdev(got), 2))
            else:
                values[b].append(values[b][-1])
                if b in spread:
                    spread[b].append(spread[b][-1])
    return {b: tuple(v) for b, v in values.items()}, {b: tuple(v) for b, v in spread.items()}


def scratch() -> tuple[dict[str, tuple[float, ...]], dict[str, tuple[float, ...]]]:
    """Where ``--from-scratch`` starts: nothing expected of a yams, suite or combinaison
    (play is then greedy), the chiffres at three of their value ± two, plus 75, moins 35."""
    flat = {b: 0.0 for b in BOX_VALUES}
    flat.update({b: 3.0 * int(b) for b in CHIFFRE_BOXES}, plus=75.0, moins=35.0)
    phases = len(PHASES)
    return (
        {b: (v,) * phases for b, v in flat.items()},
        {b: (2.0 * int(b),) * phases for b in CHIFFRE_BOXES},
    )


def calibrate(rounds: int, games: int, seed: int, jobs: int, from_scratch: bool) -> None:
    values, spread = scratch() if from_scratch else (dict(BOX_VALUES), dict(CHIFFRE_SD))
    for r in range(rounds):
        seeds = [seed * 1_000_003 + r * 10_007 + i for i in range(games)]
        start = time.perf_counter()
        results = self_play(values, spread, seeds, jobs)
        scores = [s for _, s in results]
        values, spread = refit(results)
        print(
            f"round {r + 1}: mean {statistics.fmean(scores):.1f} ± "
            f"{statistics.stdev(scores):.1f} over {games} games "
            f"({time.perf_counter() - start:.0f} s)",
            file=sys.stderr,
        )
    for name, table in (("BOX_VALUES", values), ("CHIFFRE_SD", spread)):
        print(f"{name}: dict[str, tuple[float, ...]] = {{")
        for b, v in table.items():
            print(f'    "{b}": {v},')
        print("}")


class _Timed(Difficile):
    """Difficile, timing each of its answers."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def _timed(self, method, game):
        start = time.perf_counter()
        out = method(game)
        self.times.append(time.perf_counter() - start)
        return out

    def keep(self, game):
        return self._timed(super().keep, game)

    def announce(self, game):
        return self._timed(super().announce, game)

    def choose(self, game):
        return self._timed(super().choose, game)


def measure(games: int, seed: int) -> None:
    from scoring.computer import PLAYERS
    from scoring.simulate import simulate

    timed = _Timed()
    tables_for(get_rulebook(RULES))  # built once per process (~2 s), not a decision
    PLAYERS["difficile"] = lambda *args: timed
    for kind in ("facile", "difficile"):
        start = time.perf_counter()
        row = simulate(RULES, [kind], games, seed=seed).summary()[0]
        took = time.perf_counter() - start
        print(
            f"{kind}: mean {row['mean']:.1f} ± {row['stdev']:.1f} (min {row['min']}, "
            f"median {row['median']}, max {row['max']}) over {games} games, {took:.0f} s"
        )
    t = sorted(timed.times)
    print(
        f"difficile latency per decision: mean {1000 * statistics.fmean(t):.1f} ms, "
        f"median {1000 * t[len(t) // 2]:.1f} ms, p99 {1000 * t[int(0.99 * len(t))]:.1f} ms, "
        f"max {1000 * t[-1]:.1f} ms over {len(t)} decisions"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("calibrate", "measure"))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--from-scratch", action="store_true", help="start from naive values, not the current"
    )
    args = parser.parse_args(argv)
    if args.command == "calibrate":
        calibrate(args.rounds, args.games, args.seed, args.jobs, args.from_scratch)
    else:
        measure(args.games, args.seed)


if __name__ == "__main__":
    main()
