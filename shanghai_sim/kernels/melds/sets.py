"""Fast path: contracts of sets only (one set size).
"""

import numba as nb

from ..base.layout import NRANKS
from .search import INF
from .bits import PARTS, PART_START


@nb.njit(cache=True, _nrt=False)
def _top(rc, ns, top):
    """The ns largest values of rc (13 ranks), descending, into top."""
    for i in range(ns):
        top[i] = -1
    for r in range(NRANKS):
        v = rc[r]
        if v > top[ns - 1]:
            j = ns - 1
            while j > 0 and top[j - 1] < v:
                top[j] = top[j - 1]
                j -= 1
            top[j] = v


@nb.njit(cache=True, _nrt=False)
def _sets_em(top, ns, s, thr, row):
    """(E, M) of the partition ``row`` of ns equal sets matched to the sorted counts ``top``."""
    E = 0
    M = 0
    for b in range(ns):
        t = PARTS[row, b]
        if t == 0:
            break
        c = top[b]
        d = t * thr - c
        if d > 0:
            E += d
        d = t * s - c
        if d > 0:
            M += d
    return E, M


@nb.njit(cache=True, _nrt=False)
def _sets_cost(top, ns, s, thr, E0, M0, J):
    """min over partitions of ns equal sets of max(E0 + E, M0 + M - J)."""
    best = INF
    for row in range(PART_START[ns], PART_START[ns + 1]):
        E, M = _sets_em(top, ns, s, thr, row)
        a = M0 + M - J
        e = E0 + E
        v = e if e > a else a
        if v < best:
            best = v
    return best


@nb.njit(cache=True, inline="always")
def _next_perm(perm, n):
    """perm[:n] <- its next permutation in lexicographic order; False after the last."""
    i = n - 2
    while i >= 0 and perm[i] >= perm[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while perm[j] <= perm[i]:
        j -= 1
    perm[i], perm[j] = perm[j], perm[i]
    lo, hi = i + 1, n - 1
    while lo < hi:
        perm[lo], perm[hi] = perm[hi], perm[lo]
        lo += 1
        hi -= 1
    return True


@nb.njit(cache=True, _nrt=False)
def _sets_cost_transfer(rc, bmask, sigma, ns, s, thr, E0, M0, J, rk, perm):
    """Like _sets_cost, but the run holds one card of each rank in bmask and can give
    up to sigma of them to set groups below their threshold (each lowers E by one).

    Only the ns ranks first by (count, held by the run) matter; blocks of the
    partition are matched to them in every order.
    """
    for i in range(ns):
        rk[i] = -1
    for r in range(NRANKS):
        key = rc[r] * 2 + ((bmask >> r) & 1)
        if rk[ns - 1] < 0 or key > rc[rk[ns - 1]] * 2 + ((bmask >> rk[ns - 1]) & 1):
            j = ns - 1
            while j > 0 and (rk[j - 1] < 0 or rc[rk[j - 1]] * 2 + ((bmask >> rk[j - 1]) & 1) < key):
                rk[j] = rk[j - 1]
                j -= 1
            rk[j] = r
    best = INF
    for row in range(PART_START[ns], PART_START[ns + 1]):
        nb_ = 0
        while nb_ < ns and PARTS[row, nb_] > 0:
            nb_ += 1
        for i in range(nb_):
            perm[i] = i
        while True:
            E = 0
            M = 0
            F = 0
            for b in range(nb_):
                t = PARTS[row, b]
                r = rk[perm[b]]
                c = rc[r]
                d = t * thr - c
                if d > 0:
                    E += d
                    if (bmask >> r) & 1:
                        F += 1
                d = t * s - c
                if d > 0:
                    M += d
            if F > sigma:
                F = sigma
            e = E0 + E - F
            a = M0 + M - J
            v = e if e > a else a
            if v < best:
                best = v
            if not _next_perm(perm, nb_):
                break
    return best
