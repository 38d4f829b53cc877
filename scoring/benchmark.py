"""How long scoring a throw takes: the appliance scores every throw while players wait."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator

from scoring.dice import Colour, Die, Finish
from scoring.rulebooks import RULEBOOKS, get_rulebook


def random_impossible_throw(rng: random.Random) -> tuple[Die, ...]:
    """Ten d10, five red and five white, each frosted or transparent."""
    colours = [Colour.RED] * 5 + [Colour.WHITE] * 5
    return tuple(
        Die(rng.randint(1, 10), c, rng.choice((Finish.FROSTED, Finish.TRANSPARENT)))
        for c in colours
    )


def random_five_dice(rng: random.Random) -> tuple[Die, ...]:
    return tuple(Die(rng.randint(1, 6)) for _ in range(5))


def _time(score, throws) -> list[float]:
    out = []
    for dice in throws:
        start = time.perf_counter()
        score(dice)
        out.append((time.perf_counter() - start) * 1e6)
    return out


def bench_scoring(n: int = 2000, seed: int = 1) -> Iterator[str]:
    """Median and tail of scoring every box, per rulebook, on ``n`` random throws."""
    rng = random.Random(seed)
    yield f"scoring all boxes of one throw ({n} random throws, seed {seed}), microseconds"
    yield f"{'rulebook':<12} {'median':>8} {'p95':>8} {'max':>8}"
    for rules in RULEBOOKS:
        rulebook = get_rulebook(rules)
        make = random_impossible_throw if rules == "impossible" else random_five_dice
        throws = [make(rng) for _ in range(n)]
        _time(rulebook.score, throws[:50])  # warm caches and the interpreter
        times = sorted(_time(rulebook.score, throws))
        p95 = times[int(0.95 * (len(times) - 1))]
        yield f"{rules:<12} {statistics.median(times):8.1f} {p95:8.1f} {times[-1]:8.1f}"
    # the hardest shape for the harmony search: five pairs, so that every combination
    # (Tout en Paires, double and triple brelans...) has many groupings to try
    rulebook = get_rulebook("impossible")
    pairs = [_pairs(rng) for _ in range(n)]
    times = sorted(_time(lambda d: rulebook.score(d, first=True), pairs))
    p95 = times[int(0.95 * (len(times) - 1))]
    yield f"{'impossible (five pairs, first throw)':<12} {statistics.median(times):8.1f} {p95:8.1f}"


def _pairs(rng: random.Random) -> tuple[Die, ...]:
    values = [v for v in rng.sample(range(1, 11), 5) for _ in range(2)]
    rng.shuffle(values)
    dice = random_impossible_throw(rng)
    return tuple(Die(v, d.colour, d.finish) for v, d in zip(values, dice, strict=True))
