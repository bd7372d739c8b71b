"""Replication statistics: mean, sample standard deviation and Student-t confidence intervals.

The t quantile is computed here (regularized incomplete beta by continued fraction, inverted by
bisection) so that the core package needs no SciPy.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def _incomplete_beta_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _regularized_beta(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _incomplete_beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _incomplete_beta_fraction(b, a, 1.0 - x) / b


def _student_t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def student_t_quantile(p: float, df: int) -> float:
    """The `p` quantile of Student's t with `df` degrees of freedom (0 < p < 1, df >= 1)."""
    if isinstance(p, bool) or not isinstance(p, int | float):
        raise TypeError(f"p must be a probability, not {type(p).__name__}")
    if isinstance(df, bool) or not isinstance(df, int):
        raise TypeError(f"df must be a whole number of degrees of freedom, not {type(df).__name__}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), not {p}")
    if df < 1:
        raise ValueError(f"df must be at least 1, not {df}")
    return _quantile(float(p), df)


@functools.cache
def _quantile(p: float, df: int) -> float:
    """Cached: a study asks for the same few quantiles thousands of times, and each costs a
    bisection."""
    if p < 0.5:
        return -_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while _student_t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if _student_t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def confidence_half_width(std: float, n: int, level: float = 0.95) -> float:
    """Half-width of the two-sided Student-t interval of a mean of `n` samples (NaN if n < 2)."""
    if isinstance(std, bool) or not isinstance(std, int | float):
        raise TypeError(f"std must be a standard deviation (a number), not {type(std).__name__}")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be a whole number of samples, not {type(n).__name__}")
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0.0 < level < 1.0:
        raise ValueError(f"level must be a confidence level in (0, 1), not {level!r}")
    if n < 2:
        return math.nan
    return student_t_quantile(0.5 + level / 2.0, n - 1) * std / math.sqrt(n)


def summarize(long: pd.DataFrame, by: list[str], level: float = 0.95) -> pd.DataFrame:
    """Per group of `by` columns (parameters, table, flow, metric): replications `n`, `mean`,
    `std` (sample), `ci_low` and `ci_high` of the `value` column."""
    grouped = long.groupby(by, sort=False, dropna=False)["value"]
    out = grouped.agg(n="count", mean="mean", std="std").reset_index()
    half = [confidence_half_width(s, int(n), level) for s, n in zip(out["std"], out["n"], strict=True)]
    out["ci_low"] = out["mean"] - half
    out["ci_high"] = out["mean"] + half
    return out
