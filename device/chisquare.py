"""Pearson's chi-square test of a die's face counts, with its p-value computed exactly.

Why not scipy: one function of it is needed, the regularised upper incomplete gamma
Q(a, x), which the series and continued fraction of Numerical Recipes (§6.2) give to
1e-12 in a few dozen steps; scipy would be tens of megabytes on the Pi for it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

EPS = 1e-14
STEPS = 500


def upper_gamma(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), for a > 0 and x >= 0."""
    if a <= 0 or x < 0:
        raise ValueError(f"upper_gamma needs a > 0 and x >= 0, not a={a}, x={x}")
    if x == 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:  # the series of P(a, x) converges fast here
        term = total = 1.0 / a
        n = a
        for _ in range(STEPS):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * EPS:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # the continued fraction of Q(a, x), by the modified Lentz method
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, STEPS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < EPS:
            break
    return math.exp(log_front) * h


def chi2_sf(statistic: float, df: int) -> float:
    """The chance of a chi-square of ``df`` degrees of freedom reaching ``statistic``."""
    return upper_gamma(df / 2, statistic / 2)


def chi_square(counts: Sequence[int]) -> tuple[float, int, float]:
    """(statistic, degrees of freedom, p-value) of counts against equal chances."""
    n, k = sum(counts), len(counts)
    if n == 0 or k < 2:
        return 0.0, max(k - 1, 1), 1.0
    expected = n / k
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    return statistic, k - 1, chi2_sf(statistic, k - 1)
