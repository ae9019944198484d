"""Paired statistics for experiments (docs/experiments.md).

The paired difference with its Student-t CI (quantiles and tail areas from
scipy.stats) and the variance reduction that pairing achieved, and Holm's
step-down adjustment of p-values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scipy.stats import t as _t

Z95 = 1.959963984540054


def t_p_value(t: float, df: int) -> float:
    """Two-sided p-value of ``t`` under Student's t with ``df`` degrees of freedom."""
    return float(2.0 * _t.sf(abs(t), df))


def t_quantile(level: float, df: int) -> float:
    """The two-sided critical value: P(|T| < q) = ``level`` (1.96 for 95% at large df)."""
    return float(_t.ppf(0.5 + 0.5 * level, df))


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as ``p``); None (or NaN: no test was
    possible) stays None and does not count in the family."""
    idx = [i for i, x in enumerate(p) if x is not None and x == x]
    order = sorted(idx, key=lambda i: p[i])
    m = len(order)
    out: list[float | None] = [None] * len(p)
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * p[i]))
        out[i] = run
    return out


@dataclass(frozen=True)
class Effect:
    """A paired difference (variant - baseline), one value per seed."""
    mean: float
    lo: float
    hi: float
    n: int
    sd: float                       # sd of the per-seed differences
    variance_reduction: float | None   # var(unpaired difference) / var(paired); None: paired var 0
    p: float | None                 # two-sided, against no difference; None: no variance at all

    @property
    def half_width(self) -> float:
        return 0.5 * (self.hi - self.lo)

    def covers_zero(self) -> bool:
        return self.lo <= 0.0 <= self.hi

    def as_dict(self) -> dict:
        def r(x):
            return None if x is None or not math.isfinite(x) else float(x)
        return {"mean": r(self.mean), "ci": [r(self.lo), r(self.hi)], "n": self.n,
                "variance_reduction": r(self.variance_reduction), "p": r(self.p)}


def paired_effect(variant: np.ndarray, baseline: np.ndarray, level: float = 0.95) -> Effect:
    """Mean paired difference ``variant - baseline`` with a t interval over the n pairs.

    The variance reduction compares the variance of the difference of two
    independent means, (var(variant) + var(baseline)) / n, with that of the
    paired mean, var(variant - baseline) / n.
    """
    a = np.asarray(variant, dtype=np.float64)
    b = np.asarray(baseline, dtype=np.float64)
    d = a - b
    n = d.size
    if n == 0:
        nan = float("nan")
        return Effect(nan, nan, nan, 0, nan, None, None)
    mean = float(d.mean())
    if n < 2:
        return Effect(mean, float("-inf"), float("inf"), n, float("nan"), None, None)
    var_d = float(d.var(ddof=1))
    unpaired = float(a.var(ddof=1) + b.var(ddof=1))
    sd = math.sqrt(var_d)
    q = t_quantile(level, n - 1)
    se = sd / math.sqrt(n)
    vr = unpaired / var_d if var_d > 0 else None
    if se > 0:
        p = t_p_value(mean / se, n - 1)
    else:
        p = None if mean == 0 else 0.0
    return Effect(mean, mean - q * se, mean + q * se, n, sd, vr, p)
