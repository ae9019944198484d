"""Paired statistics for experiments (docs/experiments.md, ../shared/ANALYSIS.md).

Pure numpy and the standard library: Student's t quantiles and tail areas
(exact for small samples, normal past 200 degrees of freedom), the paired
difference with its CI and the variance reduction that pairing achieved,
and Holm's step-down adjustment of p-values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
_NORMAL_DF = 200          # past this many degrees of freedom, t is normal to 3 decimals


def t_within(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` degrees of freedom (Abramowitz & Stegun
    26.7.3-4, exact for integer df); the normal law past ``_NORMAL_DF``."""
    t = abs(t)
    if df > _NORMAL_DF:
        return math.erf(t / math.sqrt(2.0))
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        if df == 1:
            return 2.0 * theta / math.pi
        term, s = 1.0, 1.0
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            s += term
        return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * s)
    term, s = 1.0, 1.0
    for k in range(1, df // 2):
        term *= c2 * (2 * k - 1) / (2 * k)
        s += term
    return math.sin(theta) * s


def t_p_value(t: float, df: int) -> float:
    """Two-sided p-value of ``t`` (the complement computed directly where it is tiny)."""
    if df > _NORMAL_DF:
        return math.erfc(abs(t) / math.sqrt(2.0))
    return max(0.0, 1.0 - t_within(t, df))


def t_quantile(level: float, df: int) -> float:
    """The two-sided critical value: P(|T| < q) = ``level`` (1.96 for 95% at large df)."""
    if df > _NORMAL_DF:
        lo, hi = 0.0, 10.0
    else:
        lo, hi = 0.0, 1e4
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_within(mid, df) < level:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as ``p``); None stays None."""
    idx = [i for i, x in enumerate(p) if x is not None]
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
