"""The general meld search: exact deficiency for every contract by branch and bound
(the model is described in ``kernels.melds.finder``); the fast paths are checked against it.
"""

import numba as nb
import numpy as np
from numba.core import cgutils, types

from ..compile.linking import separate
from ..base.layout import JOKER, NCARDS, NPOS, NRANKS, RUN, SET
from ..base.layout import MAX_MELDS as MAXM  # melds per contract
from .bundles import Leaf

MAXC = 4 * 66     # run candidates per meld: 4 suits x windows
INF = 1 << 40


@nb.njit(cache=True, inline="always")
def _pos_rank(p):
    return p - 13 if p == 13 else p


@nb.njit(cache=True, inline="always")
def win_maxl(lo, s, exact):
    """Longest run window from position lo for a run of size s: s itself when runs are
    exact, else up to 13 ranks within the 14 positions (ace low .. ace high)."""
    return s if exact else min(13, NPOS - lo)


@nb.njit(cache=True, inline="always")
def win_skip(L, s, lo_held, hi_held):
    """Skip a window of L > s positions unless both its ends are hand cards (a shorter
    one would do at least as well). The one window rule of every run enumeration."""
    return L > s and (not lo_held or not hi_held)


@nb.njit(cache=True, inline="always")
def runs_touch(alo, al, blo, bl):
    """Do two runs of one suit, at positions alo..alo+al-1 and blo..blo+bl-1, overlap or
    touch (docs/rules.md §3 same_suit_runs = gap forbids it)?"""
    ahi = alo + al - 1
    bhi = blo + bl - 1
    return not (alo > bhi + 1 or ahi < blo - 1)


@nb.njit(cache=True, _nrt=False)
def _suit_counts(counts, cnt):
    """cnt[x, p]: copies of the natural card at run position p of suit x."""
    for x in range(4):
        for p in range(NRANKS):
            cnt[x, p] = counts[x * NRANKS + p]
        cnt[x, NRANKS] = counts[x * NRANKS]


@nb.njit(cache=True, _nrt=False)
def _run_candidates(cnt, s, exact, joker_cap, cx, clo, cl, cm, ce):
    """All run windows worth trying for a run of size s; returns how many.

    Sorted by their optimistic cost (e, then m) so that good lay-downs come first.
    """
    n = 0
    for x in range(4):
        for lo in range(0, NPOS - s + 1):
            maxl = win_maxl(lo, s, exact)
            pres = 0
            for p in range(lo, lo + s - 1):
                if cnt[x, p] > 0:
                    pres += 1
            for L in range(s, maxl + 1):
                hi = lo + L - 1
                if cnt[x, hi] > 0:
                    pres += 1
                if win_skip(L, s, cnt[x, lo] > 0, cnt[x, hi] > 0):
                    continue
                m = L - pres
                cap = joker_cap[L]
                e = m - cap if m > cap else 0
                cx[n] = x
                clo[n] = lo
                cl[n] = L
                cm[n] = m
                ce[n] = e
                n += 1
    # insertion sort by (e, m)
    for i in range(1, n):
        a, b, c, d, f = cx[i], clo[i], cl[i], cm[i], ce[i]
        j = i - 1
        while j >= 0 and (ce[j] > f or (ce[j] == f and cm[j] > d)):
            cx[j + 1], clo[j + 1], cl[j + 1], cm[j + 1], ce[j + 1] = cx[j], clo[j], cl[j], cm[j], ce[j]
            j -= 1
        cx[j + 1], clo[j + 1], cl[j + 1], cm[j + 1], ce[j + 1] = a, b, c, d, f
    return n


@nb.njit(cache=True, _nrt=False)
def _leaf_cost(counts, J, nm, kinds, joker_cap, lf):
    """max(E, M - J) of the shapes in lf (``bundles.Leaf``): the leaf's deficiency."""
    E, M = _leaf_em(counts, nm, kinds, joker_cap, lf)
    a = M - J
    return E if E > a else a


@nb.njit(cache=True, _nrt=False)
def _leaf_em(counts, nm, kinds, joker_cap, lf):
    """(E, M) of fixed shapes, allocating contested cards optimally.

    lf (``bundles.Leaf``): shape_a = suit (run) or rank (set), shape_b = lo (run),
    shape_l = L, and the buffers.
    """
    shape_a, shape_b, shape_l, dem = lf.shape_a, lf.shape_b, lf.shape_l, lf.dem
    grp_rank, grp_s, grp_t = lf.grp_rank, lf.grp_s, lf.grp_t
    # Group sets by rank.
    ng = np.int64(0)
    nr = np.int64(0)
    for i in range(nm):
        if kinds[i] == SET:
            r = shape_a[i]
            g = -1
            for q in range(ng):
                if grp_rank[q] == r:
                    g = q
            if g < 0:
                g = ng
                grp_rank[g] = r
                grp_s[g] = 0
                grp_t[g] = 0
                ng += 1
            s = shape_l[i]
            grp_s[g] += s
            grp_t[g] += s - joker_cap[s]
        else:
            nr += 1
    # Run demand per card type.
    contested = False
    for i in range(nm):
        if kinds[i] == RUN:
            x = shape_a[i]
            for p in range(shape_b[i], shape_b[i] + shape_l[i]):
                t = x * NRANKS + _pos_rank(p)
                dem[t] += 1
                if dem[t] > counts[t] and counts[t] > 0:
                    contested = True
    # Sets take what runs leave; a set short of its threshold while a run holds a
    # card of its rank might gain by a transfer: treat as contested.
    if not contested:
        for g in range(ng):
            r = grp_rank[g]
            pool = 0
            held = 0
            for x in range(4):
                t = x * NRANKS + r
                d = counts[t] - dem[t]
                if d > 0:
                    pool += d
                else:
                    held += counts[t]
                if dem[t] > 0 and counts[t] > 0:
                    held += 1
            if pool < grp_t[g] and held > 0:
                contested = True
    E = 0
    M = 0
    if not contested:
        for i in range(nm):
            if kinds[i] == RUN:
                x = shape_a[i]
                L = shape_l[i]
                pres = 0
                for p in range(shape_b[i], shape_b[i] + L):
                    if counts[x * NRANKS + _pos_rank(p)] > 0:
                        pres += 1
                m = L - pres
                M += m
                cap = joker_cap[L]
                if m > cap:
                    E += m - cap
        for g in range(ng):
            r = grp_rank[g]
            pool = 0
            for x in range(4):
                t = x * NRANKS + r
                d = counts[t] - dem[t]
                if d > 0:
                    pool += d
            k = pool if pool < grp_s[g] else grp_s[g]
            M += grp_s[g] - k
            if grp_t[g] > k:
                E += grp_t[g] - k
    else:
        E, M = _flow_cost(counts, nm, kinds, joker_cap, ng, lf)
    # reset demand
    for i in range(nm):
        if kinds[i] == RUN:
            x = shape_a[i]
            for p in range(shape_b[i], shape_b[i] + shape_l[i]):
                dem[x * NRANKS + _pos_rank(p)] = 0
    return E, M


@nb.njit(cache=True, _nrt=True)
def _flow_cost(counts, nm, kinds, joker_cap, ng, lf):
    """Two-phase max flow card types -> melds, for the shapes and the ng set groups of lf
    (``bundles.Leaf``); returns (E, M)."""
    shape_a, shape_b, shape_l = lf.shape_a, lf.shape_b, lf.shape_l
    grp_rank, grp_s, grp_t, flow_tm, tlist = lf.grp_rank, lf.grp_s, lf.grp_t, lf.flow_tm, lf.tlist
    # Meld nodes: runs (k < nr) then set groups. Types: those with counts > 0 wanted by some meld.
    nk = 0
    ktype = np.empty(MAXM, np.int64)     # 0 run, 1 group
    ka = np.empty(MAXM, np.int64)        # suit or rank
    kb = np.empty(MAXM, np.int64)        # lo
    kl = np.empty(MAXM, np.int64)        # L or S
    kt = np.empty(MAXM, np.int64)        # threshold
    for i in range(nm):
        if kinds[i] == RUN:
            ktype[nk] = 0
            ka[nk] = shape_a[i]
            kb[nk] = shape_b[i]
            kl[nk] = shape_l[i]
            kt[nk] = shape_l[i] - joker_cap[shape_l[i]]
            nk += 1
    for g in range(ng):
        ktype[nk] = 1
        ka[nk] = grp_rank[g]
        kb[nk] = 0
        kl[nk] = grp_s[g]
        kt[nk] = grp_t[g]
        nk += 1
    # Card types some meld wants, with their capacity to each meld.
    cap_tm = np.zeros((NCARDS, nk), np.int64)
    nt = 0
    for t in range(JOKER):
        if counts[t] == 0:
            continue
        x = t // NRANKS
        r = t % NRANKS
        want = False
        for k in range(nk):
            if ktype[k] == 0:
                if ka[k] == x:
                    lo = kb[k]
                    hi = lo + kl[k] - 1
                    if (lo <= r <= hi) or (r == 0 and lo <= 13 <= hi):
                        cap_tm[nt, k] = 1
                        want = True
            elif ka[k] == r:
                cap_tm[nt, k] = counts[t]
                want = True
        if want:
            tlist[nt] = t
            nt += 1
    for ti in range(nt):
        for k in range(nk):
            flow_tm[ti, k] = 0
    out_t = np.zeros(nt, np.int64)
    in_k = np.zeros(nk, np.int64)
    lim = np.empty(nk, np.int64)
    # BFS structures: nodes 0..nt-1 types, nt..nt+nk-1 melds
    prev = np.empty(nt + nk, np.int64)
    queue = np.empty(nt + nk, np.int64)
    for phase in range(2):
        for k in range(nk):
            lim[k] = kt[k] if phase == 0 else kl[k]
        while True:
            for v in range(nt + nk):
                prev[v] = -2
            qh = 0
            qt = 0
            for ti in range(nt):
                if out_t[ti] < counts[tlist[ti]]:
                    prev[ti] = -1
                    queue[qt] = ti
                    qt += 1
            end = -1
            while qh < qt and end < 0:
                v = queue[qh]
                qh += 1
                if v < nt:
                    for k in range(nk):
                        w = nt + k
                        if prev[w] == -2 and flow_tm[v, k] < cap_tm[v, k]:
                            prev[w] = v
                            if in_k[k] < lim[k]:
                                end = w
                                break
                            queue[qt] = w
                            qt += 1
                else:
                    k = v - nt
                    for ti in range(nt):
                        if prev[ti] == -2 and flow_tm[ti, k] > 0:
                            prev[ti] = v
                            queue[qt] = ti
                            qt += 1
            if end < 0:
                break
            in_k[end - nt] += 1
            w = end
            while True:
                v = prev[w]
                if w >= nt:
                    flow_tm[v, w - nt] += 1
                else:
                    if v == -1:
                        out_t[w] += 1
                        break
                    flow_tm[w, v - nt] -= 1
                w = v
    E = 0
    M = 0
    for k in range(nk):
        M += kl[k] - in_k[k]
        if kt[k] > in_k[k]:
            E += kt[k] - in_k[k]
    return E, M


@nb.njit(cache=True, _nrt=False)
def _touches(x, lo, L, nm_placed, kinds, shape_a, shape_b, shape_l):
    """Under same_suit_runs = gap: does window (x, lo, L) touch or overlap a placed run of suit x?"""
    for i in range(nm_placed):
        if kinds[i] == RUN and shape_a[i] == x and runs_touch(lo, L, shape_b[i], shape_l[i]):
            return True
    return False




@separate
@nb.njit(cache=True, _nrt=True)
def _search(counts, kinds, sizes, nm, joker_cap, exact, gap):
    J = counts[JOKER]
    cnt = np.empty((4, NPOS), np.int64)
    _suit_counts(counts, cnt)
    rc = np.zeros(13, np.int64)
    for t in range(JOKER):
        rc[t % NRANKS] += counts[t]
    # Candidates per meld (identical melds share the list of their first).
    cx = np.empty((nm, MAXC), np.int64)
    clo = np.empty((nm, MAXC), np.int64)
    cl = np.empty((nm, MAXC), np.int64)
    cm = np.empty((nm, MAXC), np.int64)
    ce = np.empty((nm, MAXC), np.int64)
    nc = np.zeros(nm, np.int64)
    same = np.zeros(nm, np.bool_)
    for i in range(nm):
        if i > 0 and kinds[i] == kinds[i - 1] and sizes[i] == sizes[i - 1]:
            same[i] = True
            nc[i] = nc[i - 1]
            for c in range(nc[i]):
                cx[i, c] = cx[i - 1, c]
                clo[i, c] = clo[i - 1, c]
                cl[i, c] = cl[i - 1, c]
                cm[i, c] = cm[i - 1, c]
                ce[i, c] = ce[i - 1, c]
            continue
        s = sizes[i]
        if kinds[i] == RUN:
            nc[i] = _run_candidates(cnt, s, exact, joker_cap, cx[i], clo[i], cl[i], cm[i], ce[i])
        else:
            thr = s - joker_cap[s]
            # ranks by count, descending
            n = 0
            for r in range(NRANKS):
                k = rc[r] if rc[r] < s else s
                m = s - k
                e = thr - k if thr > k else 0
                j = n - 1
                while j >= 0 and (ce[i, j] > e or (ce[i, j] == e and cm[i, j] > m)):
                    cx[i, j + 1], cl[i, j + 1], cm[i, j + 1], ce[i, j + 1] = cx[i, j], cl[i, j], cm[i, j], ce[i, j]
                    j -= 1
                cx[i, j + 1] = r
                cl[i, j + 1] = s
                cm[i, j + 1] = m
                ce[i, j + 1] = e
                n += 1
            nc[i] = n
            for c in range(n):
                clo[i, c] = 0
    # Suffix lower bounds.
    sufm = np.zeros(nm + 1, np.int64)
    sufe = np.zeros(nm + 1, np.int64)
    for i in range(nm - 1, -1, -1):
        bm = INF
        be = INF
        for c in range(nc[i]):
            if cm[i, c] < bm:
                bm = cm[i, c]
            if ce[i, c] < be:
                be = ce[i, c]
        sufm[i] = sufm[i + 1] + bm
        sufe[i] = sufe[i + 1] + be
    root = sufe[0] if sufe[0] > sufm[0] - J else sufm[0] - J
    if root < 0:
        root = 0
    best = INF
    # Iterative DFS.
    choice = np.full(nm, -1, np.int64)
    acc_m = np.zeros(nm + 1, np.int64)
    acc_e = np.zeros(nm + 1, np.int64)
    shape_a = np.empty(nm, np.int64)
    shape_b = np.empty(nm, np.int64)
    shape_l = np.empty(nm, np.int64)
    dem = np.zeros(NCARDS, np.int64)
    grp_rank = np.empty(MAXM, np.int64)
    grp_s = np.empty(MAXM, np.int64)
    grp_t = np.empty(MAXM, np.int64)
    flow_tm = np.empty((NCARDS, MAXM), np.int64)
    tlist = np.empty(NCARDS, np.int64)
    lf = Leaf(shape_a, shape_b, shape_l, dem, grp_rank, grp_s, grp_t, flow_tm, tlist)
    d = 0
    while d >= 0:
        c = choice[d] + 1
        if choice[d] < 0 and same[d]:
            c = choice[d - 1]
        advanced = False
        while c < nc[d]:
            am = acc_m[d] + cm[d, c]
            ae = acc_e[d] + ce[d, c]
            lbe = ae + sufe[d + 1]
            lbm = am + sufm[d + 1] - J
            lb = lbe if lbe > lbm else lbm
            if lb >= best:
                # candidates are sorted by (e, m) but m is not monotone: keep scanning
                c += 1
                continue
            if kinds[d] == RUN and gap != 0 and _touches(cx[d, c], clo[d, c], cl[d, c], d, kinds,
                                                         shape_a, shape_b, shape_l):
                c += 1
                continue
            advanced = True
            break
        if not advanced:
            choice[d] = -1
            d -= 1
            continue
        choice[d] = c
        shape_a[d] = cx[d, c]
        shape_b[d] = clo[d, c]
        shape_l[d] = cl[d, c]
        acc_m[d + 1] = acc_m[d] + cm[d, c]
        acc_e[d + 1] = acc_e[d] + ce[d, c]
        if d + 1 < nm:
            d += 1
            choice[d] = -1
            continue
        cost = _leaf_cost(counts, J, nm, kinds, joker_cap, lf)
        if cost < 0:
            cost = 0
        if cost < best:
            best = cost
            if best <= root:
                break
    return best
