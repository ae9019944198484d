"""Fast path: contracts of runs only (one run size): per-suit Pareto fronts, memoised,
combined over the four suits.
"""

import numba as nb
import numpy as np

from ..compile.linking import separate
from ..base.layout import NRANKS, FP, MS_FRONT, MS_SUIT_CNT, MS_WIN_L, MS_WIN_LO, MS_WIN_R, MS_WIN_T, NPOS  # noqa: F401
from .search import INF, runs_touch, win_maxl, win_skip
from .bits import MAXR, RESERVED, _fold, popcount
from .memo import _hslot, _memo_probe  # noqa: F401
from .bundles import Windows


# Run counts and markers as int64 values: a literal argument is a compile of its own
# (kernels/__init__.py).
T1, T2, T3, T4 = np.int64(1), np.int64(2), np.int64(3), np.int64(4)
NONE, ZERO = np.int64(-1), np.int64(0)
X0, X1, X2, X3 = np.int64(0), np.int64(1), np.int64(2), np.int64(3)    # the suits

@nb.njit(cache=True, _nrt=False)
def _pareto_add(fe, fm, n, e, m, cap):
    """Insert (e, m) into the Pareto list fe/fm[:n] (minimise both); returns new n, or -1 on overflow."""
    for i in range(n):
        if fe[i] <= e and fm[i] <= m:
            return n
    k = 0
    for i in range(n):
        if not (e <= fe[i] and m <= fm[i]):
            fe[k] = fe[i]
            fm[k] = fm[i]
            k += 1
    if k >= cap:
        return -1
    fe[k] = e
    fm[k] = m
    return k + 1


@nb.njit(cache=True, _nrt=False)
def _suit_windows(cntx, s, exact, joker_cap, W):
    """Windows of a run of size s in one suit that hold at least one of its cards, into
    W (``bundles.Windows``).

    Returns (n, has_empty): has_empty tells whether a window with none exists.
    """
    pr = 0
    for p in range(NRANKS):
        if cntx[p] > 0:
            pr |= 1 << p
    nc = 0
    has_empty = False
    for lo in range(0, NPOS - s + 1):
        for L in range(s, win_maxl(lo, s, exact) + 1):
            if win_skip(L, s, cntx[lo] > 0, cntx[lo + L - 1] > 0):
                continue
            rm = _fold(((1 << L) - 1) << lo)
            if rm & pr == 0:
                has_empty = True
                continue
            W.lo[nc] = lo
            W.length[nc] = L
            W.ranks[nc] = rm
            t = L - joker_cap[L]
            W.thr[nc] = t if t > 0 else 0
            nc += 1
    return nc, has_empty


@nb.njit(cache=True, inline="always")
def _touch(W, a, b):
    """Do windows a and b of one suit (``bundles.Windows``) overlap or touch (same_suit_runs = gap)?"""
    return runs_touch(W.lo[a], W.length[a], W.lo[b], W.length[b])


@nb.njit(cache=True, _nrt=False)
def _suit_front_small(t, gap, nc, W, fe, fm, P1, P2, P3):
    """_suit_front for t = 1, 2, 3 with the subsets of the min-cut written out: the same
    windows in the same order, the covers of single windows and pairs computed once
    for all the runs that share them."""
    cap_pts = fe.shape[0]
    nf = 0
    for i in range(nc):
        ri = W.ranks[i]
        ti = W.thr[i]
        li = W.length[i]
        ci = popcount(ri & P1)
        if t == 1:
            u = ti if ti < ci else ci
            nf = _pareto_add(fe, fm, nf, ti - u, li - ci, cap_pts)
            if nf < 0:
                return -1
            continue
        for j in range(i, nc):
            if gap != 0 and _touch(W, i, j):
                continue
            rj = W.ranks[j]
            tj = W.thr[j]
            cj = popcount(rj & P1)
            cij = popcount((ri | rj) & P1) + popcount(ri & rj & P2)
            if t == 2:
                u = ti + tj
                if tj + ci < u:
                    u = tj + ci
                if ti + cj < u:
                    u = ti + cj
                if cij < u:
                    u = cij
                nf = _pareto_add(fe, fm, nf, ti + tj - u, li + W.length[j] - cij, cap_pts)
                if nf < 0:
                    return -1
                continue
            for k in range(j, nc):
                if gap != 0 and (_touch(W, i, k) or _touch(W, j, k)):
                    continue
                rk = W.ranks[k]
                tk = W.thr[k]
                ck = popcount(rk & P1)
                cik = popcount((ri | rk) & P1) + popcount(ri & rk & P2)
                cjk = popcount((rj | rk) & P1) + popcount(rj & rk & P2)
                g2 = (ri & rj) | (ri & rk) | (rj & rk)
                call = (popcount((ri | rj | rk) & P1) + popcount(g2 & P2)
                        + popcount(ri & rj & rk & P3))
                tt = ti + tj + tk
                u = tt
                if ci + tj + tk < u:
                    u = ci + tj + tk
                if cj + ti + tk < u:
                    u = cj + ti + tk
                if ck + ti + tj < u:
                    u = ck + ti + tj
                if cij + tk < u:
                    u = cij + tk
                if cik + tj < u:
                    u = cik + tj
                if cjk + ti < u:
                    u = cjk + ti
                if call < u:
                    u = call
                nf = _pareto_add(fe, fm, nf, tt - u, li + W.length[j] + W.length[k] - call, cap_pts)
                if nf < 0:
                    return -1
    return nf


@nb.njit(cache=True, _nrt=False)
def _suit_front(cntx, t, gap, nc, W, fe, fm, sel):
    """Pareto front (E, M) of t >= 1 runs drawn from the candidate windows W of one suit.

    For fixed windows the best allocation of the suit's cards is a max flow
    (card ranks -> runs, each run taking one card per rank it covers); by
    max-flow min-cut its useful part (cards that save an added card) is
        U = min over subsets A of the runs of
            sum of thresholds outside A + sum over ranks q of min(copies_q, runs of A covering q),
    computed here with bit masks; M uses the total flow, sum over q of
    min(copies_q, runs covering q). Returns the front size, or -1 on overflow.
    """
    P1 = np.int64(0)
    P2 = np.int64(0)
    P3 = np.int64(0)
    P4 = np.int64(0)
    for p in range(NRANKS):
        c = cntx[p]
        if c >= 1:
            P1 |= 1 << p
        if c >= 2:
            P2 |= 1 << p
        if c >= 3:
            P3 |= 1 << p
        if c >= 4:
            P4 |= 1 << p
    cap_pts = fe.shape[0]
    nf = 0
    if nc == 0:
        return 0
    if t <= 3:
        return _suit_front_small(t, gap, nc, W, fe, fm, P1, P2, P3)
    for i in range(t):
        sel[i] = 0
    while True:
        ok = True
        if gap != 0:
            for i in range(t):
                for j in range(i):
                    if _touch(W, sel[i], sel[j]):
                        ok = False
        if ok:
            sumL = 0
            sumT = 0
            for i in range(t):
                sumL += W.length[sel[i]]
                sumT += W.thr[sel[i]]
            U = INF
            F = 0
            for A in range(1 << t):
                g1 = 0
                g2 = 0
                g3 = 0
                g4 = 0
                out = 0
                for i in range(t):
                    if (A >> i) & 1:
                        w = W.ranks[sel[i]]
                        g4 |= g3 & w
                        g3 |= g2 & w
                        g2 |= g1 & w
                        g1 |= w
                    else:
                        out += W.thr[sel[i]]
                cover = popcount(g1 & P1) + popcount(g2 & P2) + popcount(g3 & P3) + popcount(g4 & P4)
                if out + cover < U:
                    U = out + cover
                if A == (1 << t) - 1:
                    F = cover
            nf = _pareto_add(fe, fm, nf, sumT - U, sumL - F, cap_pts)
            if nf < 0:
                return -1
        # next multiset: nondecreasing sel
        i = t - 1
        while i >= 0 and sel[i] == nc - 1:
            i -= 1
        if i < 0:
            break
        sel[i] += 1
        for j in range(i + 1, t):
            sel[j] = sel[i]
    return nf


@separate
@nb.njit(cache=True, _nrt=False)
def _runs_only(F, cnt, s, nr):
    """nr runs of size s (nr <= MAXR), cnt: the hand by suit and position; combine per-suit
    fronts; -1 if a buffer overflowed. F: ``bundles.Finder``."""
    J, joker_cap, exact, gap = F.jokers, F.joker_cap, F.exact, F.gap
    ckeys, cvals, cn, scratch = F.ckeys, F.cvals, F.cn, F.scratch
    slots = ckeys.shape[0]
    e0 = s - joker_cap[s]
    if e0 < 0:
        e0 = 0
    # All working arrays live in the caller's scratch (no allocation per call).
    nf = 4 * (MAXR + 1) * FP * 4
    fe = scratch[0:nf].reshape((4, MAXR + 1, FP * 4))
    fm = scratch[nf:2 * nf].reshape((4, MAXR + 1, FP * 4))
    o = 2 * nf
    fn = scratch[o:o + 4 * (MAXR + 1)].reshape((4, MAXR + 1))
    o += 4 * (MAXR + 1)
    for i in range(4 * (MAXR + 1)):
        scratch[o - 4 * (MAXR + 1) + i] = 0
    cntx = scratch[o:o + 4 * NPOS].reshape((4, NPOS))
    o += 4 * NPOS
    W = Windows(scratch[o:o + 66], scratch[o + 66:o + 132], scratch[o + 132:o + 198],
                scratch[o + 198:o + 264])
    o += 264
    sel = scratch[o:o + MAXR]
    o += MAXR
    t2max = nr if nr < 2 else 2
    for x in range(4):
        # Fronts for t <= 2 depend on copies up to 2: the memo key caps them there.
        key = np.int64(s) << 40
        for p in range(NRANKS):
            v = cnt[x, p]
            cntx[x, p] = v if v < MAXR else MAXR
            key |= np.int64(v if v < 2 else 2) << (2 * p)
        cntx[x, 13] = cntx[x, 0]
        key += 1
        h = _hslot(key, slots)
        slot = -1
        for probe in range(8):
            q = (np.int64(h) + probe) & (slots - 1)
            if q < slots - RESERVED and ckeys[q] == key:
                slot = q
                break
        fn[x, 0] = 1
        fe[x, 0, 0] = 0
        fm[x, 0, 0] = 0
        if slot >= 0:
            for t in range(1, t2max + 1):
                fn[x, t] = cn[slot, t]
                for i in range(fn[x, t]):
                    fe[x, t, i] = cvals[slot, t, i, 0]
                    fm[x, t, i] = cvals[slot, t, i, 1]
            continue
        nc, has_empty = _suit_windows(cntx[x], s, exact, joker_cap, W)
        fits = True
        for t in range(1, t2max + 1):
            k = _suit_front(cntx[x], t, gap, nc, W, fe[x, t], fm[x, t], sel)
            if k < 0:
                return -1
            # An empty run never needs to share a suit (nr <= 4 runs leave one free).
            if t == 1 and has_empty:
                k = _pareto_add(fe[x, 1], fm[x, 1], k, e0, s, np.int64(FP * 4))
            fn[x, t] = k
            if k > FP:
                fits = False
        if fits:
            q = -1
            for probe in range(8):
                qq = (np.int64(h) + probe) & (slots - 1)
                if qq < slots - RESERVED and ckeys[qq] == 0:
                    q = qq
                    break
        if fits and q >= 0:           # a full memo keeps what it has
            ckeys[q] = key
            for t in range(1, t2max + 1):
                cn[q, t] = fn[x, t]
                for i in range(fn[x, t]):
                    cvals[q, t, i, 0] = fe[x, t, i]
                    cvals[q, t, i, 1] = fm[x, t, i]
    tm = scratch[o:o + 4]
    for rep in range(2):
        for x in range(4):
            tmax = t2max
            while tmax < nr and fn[x, tmax + 1] > 0:
                tmax += 1
            tm[x] = tmax
        best = _best_split(fe, fm, fn, tm, nr, J)
        if rep == 1 or nr <= 2:
            return best
        # Three or more runs in one suit: only where a lower bound could beat best.
        more = False
        for x in range(4):
            for t in range(3, nr + 1):
                cards = 0
                for p in range(NRANKS):
                    c = cntx[x, p]
                    cards += c if c < t else t
                mlb = t * s - cards
                elb = t * e0 - cards
                lb = elb if elb > mlb - J else mlb - J
                if lb < best:
                    nc, has_empty = _suit_windows(cntx[x], s, exact, joker_cap, W)
                    for tt in range(3, nr + 1):
                        k = _suit_front(cntx[x], tt, gap, nc, W, fe[x, tt], fm[x, tt], sel)
                        if k < 0:
                            return -1
                        fn[x, tt] = k
                    more = True
                    break
        if not more:
            return best
    return INF


@nb.njit(cache=True, inline="always")
def _suit_key(counts, x, s):
    """Memo key of suit x's counts for runs of size s. The fronts do not change when
    the ranks are read backwards (A, K, Q, ..., 2: runs map to runs, gaps to gaps),
    so a suit and its mirror share one key and one slot."""
    key = np.int64(0)
    rev = np.int64(counts[x * NRANKS])
    for p in range(NRANKS):
        key |= np.int64(counts[x * NRANKS + p]) << (2 * p)
    for p in range(1, 13):
        rev |= np.int64(counts[x * NRANKS + p]) << (2 * (NRANKS - p))
    if rev < key:
        key = rev
    return (key | (np.int64(s) << 40) | (np.int64(1) << 36)) + 1


@nb.njit(cache=True, inline="always")
def _suit_slot(F, counts, x, s, key):
    """Memo slot holding the Pareto fronts of t = 1..2 runs of size s in suit x (and
    t = 3 once _suit_front3 has run; every natural count <= 2; key = _suit_key); -1 if
    a front has more than FP points. A full memo is never evicted: the fronts then go
    to the suit's reserved slot (RESERVED), valid for this call only."""
    q, hit = _memo_probe(key, F.ckeys)
    if hit:
        return q
    if q >= 0:
        return _suit_fill(F, counts, x, s, q, key)
    return _suit_fill(F, counts, x, s, F.ckeys.shape[0] - RESERVED + x, np.int64(0))


@nb.njit(cache=True, inline="always")
def _scratch_windows(scratch):
    """The candidate windows of _suit_setup, in the scratch (MS_WIN_*)."""
    return Windows(scratch[MS_WIN_LO:MS_WIN_L], scratch[MS_WIN_L:MS_WIN_R],
                   scratch[MS_WIN_R:MS_WIN_T], scratch[MS_WIN_T:MS_FRONT])


@nb.njit(cache=True, _nrt=False)
def _suit_setup(F, counts, x, s):
    """Suit x's counts by position and its candidate windows for a run of size s, into
    the scratch (MS_SUIT_CNT, MS_WIN_*); returns (windows, has_empty) of _suit_windows."""
    cntx = F.scratch[MS_SUIT_CNT:MS_SUIT_CNT + NPOS]
    for p in range(NRANKS):
        cntx[p] = counts[x * NRANKS + p]
    cntx[13] = cntx[0]
    nc, has_empty = _suit_windows(cntx, s, F.exact, F.joker_cap, _scratch_windows(F.scratch))
    return nc, has_empty


@nb.njit(cache=True, _nrt=False)
def _suit_store(F, nc, t, q, extra_e, extra_m):
    """Front of t runs over the nc windows set up in scratch into cvals[q, t]; False if
    it has more than FP points. extra_e >= 0: a point added to it (the empty window)."""
    scratch = F.scratch
    cntx = scratch[MS_SUIT_CNT:MS_SUIT_CNT + NPOS]
    fe = scratch[MS_FRONT:MS_FRONT + FP * 4]
    fm = scratch[MS_FRONT + FP * 4:MS_FRONT + FP * 8]
    sel = scratch[MS_FRONT + FP * 8:MS_FRONT + FP * 8 + MAXR]
    k = _suit_front(cntx, t, F.gap, nc, _scratch_windows(scratch), fe, fm, sel)
    if k >= 0 and extra_e >= 0:
        k = _pareto_add(fe, fm, k, extra_e, extra_m, FP * 4)
    if k < 0 or k > FP:
        return False
    F.cn[q, t] = k
    for i in range(k):
        F.cvals[q, t, i, 0] = fe[i]
        F.cvals[q, t, i, 1] = fm[i]
    return True


@nb.njit(cache=True, _nrt=False)
def _suit_fill(F, counts, x, s, q, key):
    """Compute the fronts of _suit_slot (t = 1, 2; t = 3 marked not yet computed) into
    memo slot q, and claim it for key (0: a reserved slot, not claimed)."""
    nc, has_empty = _suit_setup(F, counts, x, s)
    e0 = s - F.joker_cap[s]
    if e0 < 0:
        e0 = 0
    # int64 arguments, not literals: one compile of _suit_store (kernels/__init__.py)
    if not _suit_store(F, nc, T1, q, e0 if has_empty else NONE, s):
        return -1
    if not _suit_store(F, nc, T2, q, NONE, ZERO):
        return -1
    F.cn[q, 3] = -1
    if key != 0:
        F.ckeys[q] = key
    return q


@nb.njit(cache=True, _nrt=False)
def _suit_front3(F, counts, x, s, q):
    """Fill the t = 3 front of memo slot q (suit x); False if it does not fit."""
    nc, has_empty = _suit_setup(F, counts, x, s)
    return _suit_store(F, nc, T3, q, NONE, ZERO)


@nb.njit(cache=True, inline="always")
def _front_min(cvals, cn, q, t, E0, M0, J, best):
    for i in range(cn[q, t]):
        e = E0 + cvals[q, t, i, 0]
        a = M0 + cvals[q, t, i, 1] - J
        v = e if e > a else a
        if v < best:
            best = v
    return best


@nb.njit(cache=True, inline="always")
def _pair_min(cvals, cn, qx, qy, E0, M0, J, best):
    """One run in each of two suits (front t = 1 of each)."""
    for i in range(cn[qx, 1]):
        ex = E0 + cvals[qx, 1, i, 0]
        mx = M0 + cvals[qx, 1, i, 1]
        best = _front_min(cvals, cn, qy, 1, ex, mx, J, best)
    return best


@nb.njit(cache=True, _nrt=False)
def _suit_front4(F, counts, x, s):
    """The front of four runs in suit x into scratch (MS_FRONT: e, then m), not memoised
    (wanted only when a lower bound says it could beat the best); its size, or -1."""
    nc, has_empty = _suit_setup(F, counts, x, s)
    scratch = F.scratch
    return _suit_front(scratch[MS_SUIT_CNT:MS_SUIT_CNT + NPOS], T4, F.gap, nc, _scratch_windows(scratch),
                       scratch[MS_FRONT:MS_FRONT + FP * 4], scratch[MS_FRONT + FP * 4:MS_FRONT + FP * 8],
                       scratch[MS_FRONT + FP * 8:MS_FRONT + FP * 8 + MAXR])


# inline="always": through a call (17 arguments then, arrays among them) shanghai's runs
# contracts, which take _runs_fast, measured 9-20% fewer deficiencies/s than with the split
# written inline.
@nb.njit(cache=True, inline="always")
def _split_min(F, counts, qs, s, nr, E0, M0, best):
    """min(best, max(E0 + E, M0 + M - J) over every split of nr = 2..4 runs of size s over
    the four suits and a point of each suit's front), the fronts read from the memo slots
    qs = (q0, q1, q2, q3) of the suits' contents in counts; (E0, M0): melds outside the
    runs (0 for runs only); J = F.jokers. -INF if a front wanted does not fit (the caller
    falls back)."""
    q0, q1, q2, q3 = qs
    J, joker_cap, cvals, cn = F.jokers, F.joker_cap, F.cvals, F.cn
    if nr == 2:
        best = _front_min(cvals, cn, q0, 2, E0, M0, J, best)
        best = _front_min(cvals, cn, q1, 2, E0, M0, J, best)
        best = _front_min(cvals, cn, q2, 2, E0, M0, J, best)
        best = _front_min(cvals, cn, q3, 2, E0, M0, J, best)
        best = _pair_min(cvals, cn, q0, q1, E0, M0, J, best)
        best = _pair_min(cvals, cn, q0, q2, E0, M0, J, best)
        best = _pair_min(cvals, cn, q0, q3, E0, M0, J, best)
        best = _pair_min(cvals, cn, q1, q2, E0, M0, J, best)
        best = _pair_min(cvals, cn, q1, q3, E0, M0, J, best)
        best = _pair_min(cvals, cn, q2, q3, E0, M0, J, best)
        return best
    if nr == 3:
        # two runs in one suit and one in another, or one each in three suits
        for a in range(4):
            qa = q0 if a == 0 else (q1 if a == 1 else (q2 if a == 2 else q3))
            for i in range(cn[qa, 2]):
                ea = E0 + cvals[qa, 2, i, 0]
                ma = M0 + cvals[qa, 2, i, 1]
                if a != 0:
                    best = _front_min(cvals, cn, q0, 1, ea, ma, J, best)
                if a != 1:
                    best = _front_min(cvals, cn, q1, 1, ea, ma, J, best)
                if a != 2:
                    best = _front_min(cvals, cn, q2, 1, ea, ma, J, best)
                if a != 3:
                    best = _front_min(cvals, cn, q3, 1, ea, ma, J, best)
        for i in range(cn[q0, 1]):
            ea = E0 + cvals[q0, 1, i, 0]
            ma = M0 + cvals[q0, 1, i, 1]
            best = _pair_min(cvals, cn, q1, q2, ea, ma, J, best)
            best = _pair_min(cvals, cn, q1, q3, ea, ma, J, best)
            best = _pair_min(cvals, cn, q2, q3, ea, ma, J, best)
        for i in range(cn[q1, 1]):
            ea = E0 + cvals[q1, 1, i, 0]
            ma = M0 + cvals[q1, 1, i, 1]
            best = _pair_min(cvals, cn, q2, q3, ea, ma, J, best)
    else:
        # one run in each suit
        for i in range(cn[q0, 1]):
            ea = E0 + cvals[q0, 1, i, 0]
            ma = M0 + cvals[q0, 1, i, 1]
            for j in range(cn[q1, 1]):
                best = _pair_min(cvals, cn, q2, q3, ea + cvals[q1, 1, j, 0], ma + cvals[q1, 1, j, 1],
                                 J, best)
        # two in suit a with two in a later suit, or with one in each of two other suits
        for a in range(4):
            qa = qs[a]
            for i in range(cn[qa, 2]):
                ea = E0 + cvals[qa, 2, i, 0]
                ma = M0 + cvals[qa, 2, i, 1]
                for b in range(4):
                    if b == a:
                        continue
                    if b > a:
                        best = _front_min(cvals, cn, qs[b], 2, ea, ma, J, best)
                    for c in range(b + 1, 4):
                        if c != a:
                            best = _pair_min(cvals, cn, qs[b], qs[c], ea, ma, J, best)
    # three (or four) runs in one suit: only where a lower bound could beat best
    e0 = s - joker_cap[s]
    if e0 < 0:
        e0 = 0
    for a in range(4):
        qa = q0 if a == 0 else (q1 if a == 1 else (q2 if a == 2 else q3))
        cards = 0
        for p in range(NRANKS):
            cards += counts[a * NRANKS + p]
        for t in range(3, nr + 1):
            mlb = M0 + t * s - cards
            elb = E0 + t * e0 - cards
            lb = elb if elb > mlb - J else mlb - J
            if lb >= best:
                continue
            if t == 3:
                if cn[qa, 3] < 0:
                    if not _suit_front3(F, counts, a, s, qa):
                        return -INF
                for i in range(cn[qa, 3]):
                    ea = E0 + cvals[qa, 3, i, 0]
                    ma = M0 + cvals[qa, 3, i, 1]
                    if nr == 3:
                        v = ea if ea > ma - J else ma - J
                        if v < best:
                            best = v
                    else:
                        for b in range(4):
                            if b != a:
                                best = _front_min(cvals, cn, qs[b], 1, ea, ma, J, best)
            else:
                k = _suit_front4(F, counts, a, s)
                if k < 0:
                    return -INF
                for i in range(k):
                    e = E0 + F.scratch[MS_FRONT + i]
                    m = M0 + F.scratch[MS_FRONT + FP * 4 + i] - J
                    v = e if e > m else m
                    if v < best:
                        best = v
    return best


@separate
@nb.njit(cache=True, _nrt=False)
def _runs_fast(F, counts, s, nr, best):
    """2 to 4 runs of size s, every natural count <= 2: the per-suit fronts straight from
    the memo, every split of the runs over the suits (_split_min); -INF to fall back to
    _runs_only. best: a bound the caller knows, the answer <= best (deficiency_in_nb).
    F: ``bundles.Finder``."""
    q0 = _suit_slot(F, counts, X0, s, _suit_key(counts, X0, s))
    if q0 < 0:
        return -INF
    q1 = _suit_slot(F, counts, X1, s, _suit_key(counts, X1, s))
    if q1 < 0:
        return -INF
    q2 = _suit_slot(F, counts, X2, s, _suit_key(counts, X2, s))
    if q2 < 0:
        return -INF
    q3 = _suit_slot(F, counts, X3, s, _suit_key(counts, X3, s))
    if q3 < 0:
        return -INF
    return _split_min(F, counts, (q0, q1, q2, q3), s, nr, ZERO, ZERO, best)


@nb.njit(cache=True, _nrt=False)
def _best_split(fe, fm, fn, tm, nr, J):
    """min over t0+t1+t2+t3 = nr and one front point per suit of max(E, M - J)."""
    best = INF
    for t0 in range(0, min(tm[0], nr) + 1):
        for t1 in range(0, min(tm[1], nr - t0) + 1):
            for t2 in range(0, min(tm[2], nr - t0 - t1) + 1):
                t3 = nr - t0 - t1 - t2
                if t3 > tm[3]:
                    continue
                for i0 in range(fn[0, t0]):
                    e0_ = fe[0, t0, i0]
                    m0_ = fm[0, t0, i0]
                    for i1 in range(fn[1, t1]):
                        e1_ = e0_ + fe[1, t1, i1]
                        m1_ = m0_ + fm[1, t1, i1]
                        for i2 in range(fn[2, t2]):
                            e2_ = e1_ + fe[2, t2, i2]
                            m2_ = m1_ + fm[2, t2, i2]
                            for i3 in range(fn[3, t3]):
                                E = e2_ + fe[3, t3, i3]
                                a = m2_ + fm[3, t3, i3] - J
                                v = E if E > a else a
                                if v < best:
                                    best = v
    return best
