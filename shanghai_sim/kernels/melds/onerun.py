"""Fast paths: one run and sets of one size (``_one_run_one_set``, ``_one_run_sets``, and
the general ``_one_run``).
"""

import numba as nb
import numpy as np

from ..compile.linking import separate
from ..base.layout import MAX_MELDS as MAXM  # melds per contract
from ..base.layout import NRANKS
from .search import INF, MAXC
from .bits import MEMO_MIN, PARTS, PART_START, popcount
from .sets import _next_perm, _sets_cost, _sets_cost_transfer, _sets_em, _top
from .memo import _all_windows, _window_bound, _window_slot, _wt_entry
from .bundles import WindowList


NLV = 32                 # count levels of _levels (a rank with more cards takes the slow path)


@nb.njit(cache=True, inline="always")
def _levels(rc, LV):
    """LV[v] = mask of the ranks with at least v cards, for v = 0 (all 13) to the
    largest count + 1 (none); returns the largest count, or -1 if one reaches NLV - 1.
    (Each rank sets one bit at its own count; a suffix OR makes "at least".)"""
    maxc = 0
    for r in range(NRANKS):
        if rc[r] > maxc:
            maxc = rc[r]
    if maxc >= NLV - 1:
        return -1
    for v in range(1, maxc + 2):
        LV[v] = 0
    for r in range(NRANKS):
        LV[rc[r]] |= 1 << r
    for v in range(maxc - 1, 0, -1):
        LV[v] |= LV[v + 1]
    LV[0] = 0x1FFF
    return maxc


@nb.njit(cache=True, inline="always")
def _class_top(LV, maxc, X, ns, dec, out):
    """The ns largest counts (less dec) among the ranks of mask X, descending, into out;
    returns how many ranks X has, up to ns."""
    k = 0
    v = maxc
    while k < ns and v >= 1:
        cnt = popcount(LV[v] & X) - popcount(LV[v + 1] & X)
        while cnt > 0 and k < ns:
            out[k] = v - dec
            k += 1
            cnt -= 1
        v -= 1
    z = popcount(X & ~LV[1] & 0x1FFF)
    while z > 0 and k < ns:
        out[k] = -dec
        k += 1
        z -= 1
    return k


@nb.njit(cache=True, _nrt=False)
def _one_run_one_set(rc, wr, J, s_set, joker_cap, scratch, wt, lo, best):
    """One run and one set: _one_run with the set's best rank read off directly.

    For a window holding the ranks ``held``, the set is best on the rank with the
    most cards among those the run does not hold, or on the held rank with the most
    cards (the run keeps one of its cards; with joker room it hands it back, which
    lowers E by one). Both costs fall as the count grows, so ranks in descending
    count order give each in a step or two.

    (lo, best): bounds the caller knows, lo <= the answer <= best (deficiency_in_nb).
    wr[x]: suit x's row of the window table wt. Flat arguments, not ``bundles.Finder``: the
    hottest path, and a call passing the whole bundle measured a few % slower.
    """
    thr = s_set - joker_cap[s_set]
    LV = scratch[0:NLV]
    maxc = _levels(rc, LV)
    if maxc < 0:
        return -INF
    top = maxc
    es_min = thr - top if thr > top else 0
    ms_min = s_set - top if s_set > top else 0
    for x in range(4):
        r = wr[x]
        for i in range(1, wt[r, 0]):
            if best <= lo:
                return best
            held, m, e, sg = _wt_entry(wt, r, i)
            b = m + ms_min - J
            if b >= best:
                break
            a = e + es_min
            if a >= best:
                continue
            other = ~held & 0x1FFF
            if other != 0:
                c = maxc
                while LV[c] & other == 0:
                    c -= 1
                a = e + (thr - c if thr > c else 0)
                b = m + (s_set - c if s_set > c else 0) - J
                v = a if a > b else b
                if v < best:
                    best = v
            if held != 0:
                c = maxc
                while LV[c] & held == 0:
                    c -= 1
                c -= 1
                es = thr - c if thr > c else 0
                if es > 0 and sg > 0:
                    es -= 1
                a = e + es
                b = m + (s_set - c if s_set > c else 0) - J
                v = a if a > b else b
                if v < best:
                    best = v
    return best


@nb.njit(cache=True, inline="always")
def _sets_v(E, M, F, e, m, sg, J):
    a = e + E - (F if F < sg else sg)
    b = m + M - J
    return a if a > b else b


@nb.njit(cache=True, inline="always")
def _two_sets(hc, nh, oc, no, thr, s, e, m, sg, J, best):
    """_one_run_sets' enumeration written out for two sets: both on one rank (held by
    the run or not), or one each on two ranks (held/held, held/other, other/other)."""
    if no >= 1:
        c = oc[0]
        v = _sets_v(max(0, 2 * thr - c), max(0, 2 * s - c), 0, e, m, sg, J)
        best = min(best, v)
    if nh >= 1:
        c = hc[0]
        d = 2 * thr - c
        v = _sets_v(max(0, d), max(0, 2 * s - c), 1 if d > 0 else 0, e, m, sg, J)
        best = min(best, v)
    if no >= 2:
        c0 = oc[0]
        c1 = oc[1]
        v = _sets_v(max(0, thr - c0) + max(0, thr - c1), max(0, s - c0) + max(0, s - c1), 0,
                    e, m, sg, J)
        best = min(best, v)
    if nh >= 1 and no >= 1:
        c0 = hc[0]
        c1 = oc[0]
        d = thr - c0
        v = _sets_v(max(0, d) + max(0, thr - c1), max(0, s - c0) + max(0, s - c1),
                    1 if d > 0 else 0, e, m, sg, J)
        best = min(best, v)
    if nh >= 2:
        c0 = hc[0]
        c1 = hc[1]
        d0 = thr - c0
        d1 = thr - c1
        v = _sets_v(max(0, d0) + max(0, d1), max(0, s - c0) + max(0, s - c1),
                    (1 if d0 > 0 else 0) + (1 if d1 > 0 else 0), e, m, sg, J)
        best = min(best, v)
    return best


@separate
@nb.njit(cache=True, _nrt=False)
def _one_run_sets(rc, wr, J, ns, s_set, joker_cap, scratch, wt, lo, best):
    """One run and ns >= 2 sets of one size: _one_run with the sets' ranks read off directly.

    For a window holding the ranks ``held``, split the ranks into those the run
    holds (one card fewer for the sets, handed back while the run has joker room)
    and the others. Within a class a block of sets is never worse on a rank with
    more cards, so the blocks of a partition of ns go to the top ranks of each
    class: it is enough to choose, per block, its class (and the order of blocks
    of different sizes). A window that holds no rank with at least the ns-th
    largest count leaves the sets their unconstrained best.

    (lo, best): bounds the caller knows, lo <= the answer <= best (deficiency_in_nb).
    wr[x]: suit x's row of the window table wt. Flat arguments, as _one_run_one_set's.
    """
    thr = s_set - joker_cap[s_set]
    LV = scratch[0:NLV]
    maxc = _levels(rc, LV)
    if maxc < 0:
        return -INF
    top = scratch[NLV:NLV + MAXM]
    hc = scratch[NLV + MAXM:NLV + 2 * MAXM]
    oc = scratch[NLV + 2 * MAXM:NLV + 3 * MAXM]
    perm = scratch[NLV + 3 * MAXM:NLV + 4 * MAXM]
    spe = scratch[NLV + 4 * MAXM:NLV + 4 * MAXM + 24]
    spm = scratch[NLV + 4 * MAXM + 24:NLV + 4 * MAXM + 48]
    _class_top(LV, maxc, 0x1FFF, ns, 0, top)
    # a window holding none of the ranks with at least the ns-th count leaves the sets their best
    topmask = LV[top[ns - 1]] if top[ns - 1] > 0 else LV[1]
    es_min = INF
    ms_min = INF
    nsp = 0
    for row in range(PART_START[ns], PART_START[ns + 1]):
        E, M = _sets_em(top, ns, s_set, thr, row)
        spe[nsp] = E
        spm[nsp] = M
        nsp += 1
        if E < es_min:
            es_min = E
        if M < ms_min:
            ms_min = M
    for x in range(4):
        r = wr[x]
        for i in range(1, wt[r, 0]):
            if best <= lo:
                return best
            held, m, e, sg = _wt_entry(wt, r, i)
            b = m + ms_min - J
            if b >= best:
                break
            a = e + es_min
            if a >= best:
                continue
            if held & topmask == 0:
                for k in range(nsp):
                    a = e + spe[k]
                    b = m + spm[k] - J
                    v = a if a > b else b
                    if v < best:
                        best = v
                continue
            nh = _class_top(LV, maxc, held, ns, 1, hc)
            no = _class_top(LV, maxc, ~held & 0x1FFF, ns, 0, oc)
            if ns == 2:
                best = _two_sets(hc, nh, oc, no, thr, s_set, e, m, sg, J, best)
                continue
            for row in range(PART_START[ns], PART_START[ns + 1]):
                nb_ = 0
                while nb_ < ns and PARTS[row, nb_] > 0:
                    perm[nb_] = nb_
                    nb_ += 1
                while True:
                    dup = False
                    for bi in range(1, nb_):
                        if PARTS[row, perm[bi]] == PARTS[row, perm[bi - 1]] and perm[bi] < perm[bi - 1]:
                            dup = True
                    if not dup:
                        for cm in range(1 << nb_):
                            ih = 0
                            io = 0
                            E = 0
                            M = 0
                            F = 0
                            ok = True
                            for bi in range(nb_):
                                t = PARTS[row, perm[bi]]
                                if (cm >> bi) & 1:
                                    if ih >= nh:
                                        ok = False
                                        break
                                    c = hc[ih]
                                    ih += 1
                                    d = t * thr - c
                                    if d > 0:
                                        E += d
                                        F += 1
                                else:
                                    if io >= no:
                                        ok = False
                                        break
                                    c = oc[io]
                                    io += 1
                                    d = t * thr - c
                                    if d > 0:
                                        E += d
                                d = t * s_set - c
                                if d > 0:
                                    M += d
                            if ok:
                                a = e + E - (F if F < sg else sg)
                                b = m + M - J
                                v = a if a > b else b
                                if v < best:
                                    best = v
                    if not _next_perm(perm, nb_):
                        break
    return best


@separate
@nb.njit(cache=True, _nrt=False)
def _one_run(F, rc, pmask, s_run, ns, s_set, lo, best):
    """One run and ns sets of one size. pmask[x]: positions 0..13 holding a card of suit x.
    (lo, best): bounds the caller knows, lo <= the answer <= best (deficiency_in_nb).
    F: ``bundles.Finder``."""
    J, joker_cap, exact, scratch = F.jokers, F.joker_cap, F.exact, F.scratch
    ckeys, cvals, cn = F.ckeys, F.cvals, F.cn
    thr = s_set - joker_cap[s_set]
    top = scratch[0:MAXM]
    rk = scratch[MAXM:2 * MAXM]
    perm = scratch[2 * MAXM:3 * MAXM]
    spe = scratch[24:48]
    spm = scratch[48:72]
    nsp = 0
    es_min = 0
    ms_min = 0
    relmask = 0
    if ns > 0:
        _top(rc, ns, top)
        es_min = INF
        ms_min = INF
        for row in range(PART_START[ns], PART_START[ns + 1]):
            E, M = _sets_em(top, ns, s_set, thr, row)
            spe[nsp] = E
            spm[nsp] = M
            nsp += 1
            if E < es_min:
                es_min = E
            if M < ms_min:
                ms_min = M
        # Ranks whose loss could change the top ns counts (or feed a transfer).
        T = top[ns - 1] if top[ns - 1] > 1 else 1
        for r in range(NRANKS):
            if rc[r] >= T:
                relmask |= 1 << r
    # Candidate windows with their lower bound: per suit, the memo's undominated windows.
    base = 72
    cands = WindowList(scratch[base:base + MAXC], scratch[base + MAXC:base + 2 * MAXC],
                       scratch[base + 2 * MAXC:base + 3 * MAXC], scratch[base + 3 * MAXC:base + 4 * MAXC],
                       es_min, ms_min, J)
    cw, ch, ck, cme = cands.cw, cands.ch, cands.ck, cands.cme
    n = 0
    kmin = INF
    kmax = 0
    big = ckeys.shape[0] >= MEMO_MIN
    for x in range(4):
        q = _window_slot(pmask[x], s_run, exact, joker_cap, ckeys, cvals, cn) if big else 0
        if not big or cn[q, 0] < 0:
            n, kmin, kmax = _all_windows(pmask[x], x, s_run, exact, joker_cap, cands, n, kmin, kmax)
            continue
        for i in range(cn[q, 0]):
            held = np.int64(cvals[q, i >> 3, i & 7, 0])
            ml = np.int64(cvals[q, i >> 3, i & 7, 1])
            n, kmin, kmax = _window_bound(x, ml >> 4, held, ml & 15, joker_cap, cands, n, kmin, kmax)
    level = kmin
    while level <= kmax and level < best and best > lo:
        for c in range(n):
            if ck[c] != level:
                continue
            m = cme[c] & 255
            e = cme[c] >> 8
            held = ch[c]
            if ns == 0:
                v = e if e > m - J else m - J
            elif held & relmask == 0:
                v = INF
                for q in range(nsp):
                    a = e + spe[q]
                    b = m + spm[q] - J
                    w = a if a > b else b
                    if w < v:
                        v = w
            else:
                L = cw[c] >> 6
                for r in range(NRANKS):
                    if (held >> r) & 1:
                        rc[r] -= 1
                sigma = joker_cap[L] - m
                if sigma > 0:
                    v = _sets_cost_transfer(rc, held, sigma, ns, s_set, thr, e, m, J, rk, perm)
                else:
                    _top(rc, ns, top)
                    v = _sets_cost(top, ns, s_set, thr, e, m, J)
                for r in range(NRANKS):
                    if (held >> r) & 1:
                        rc[r] += 1
            if v < best:
                best = v
                if best <= level:
                    break
        level += 1
    return best
