"""How far a run is and what its learning rate is there: one warmed-up cosine for every model."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass


class Budget:
    """How far a run is through its planned steps or, when ``minutes`` is set, its time,
    whichever is further: on a borrowed machine the clock is the budget, and the learning
    rate should reach zero when it runs out rather than when an epoch count guessed ahead
    does."""

    def __init__(self, total_steps: int, minutes: float = 0.0) -> None:
        self.total_steps = total_steps
        self.seconds = minutes * 60
        self.started = time.monotonic()

    def progress(self, step: int) -> float:
        done = step / max(1, self.total_steps)
        if self.seconds:
            done = max(done, (time.monotonic() - self.started) / self.seconds)
        return min(1.0, done)

    def spent(self) -> bool:
        return bool(self.seconds) and time.monotonic() - self.started >= self.seconds


@dataclass(frozen=True)
class Schedule:
    """A cosine decay to zero over the budget, warmed up linearly either over the first
    ``warm_share`` of the run (the cosine then spans the rest) or over its first
    ``warm_steps`` steps (multiplying the cosine); neither: the plain cosine."""

    warm_share: float = 0.0
    warm_steps: int = 0

    def factor(self, budget: Budget, step: int) -> float:
        """The share of the peak learning rate for ``step`` (0-based)."""
        done = budget.progress(step)
        if done < self.warm_share:
            return max(done, 1 / max(1, budget.total_steps)) / self.warm_share
        cosine = 0.5 * (1 + math.cos(math.pi * (done - self.warm_share) / (1 - self.warm_share)))
        if self.warm_steps:
            return cosine * min(1.0, (step + 1) / self.warm_steps)
        return cosine
