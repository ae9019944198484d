"""The meld finder: exact hand analysis of docs/rules.md §6, compiled with numba.

Conventions
-----------
- ``counts``: int64[53], the count-array layout of ``shanghai_sim.cards``.
- Run positions 0..13 within a suit: position p is rank index ``p % 13``, so the
  ace stands at position 0 (low, before the 2) and at position 13 (high, after
  the K). A run is a window [lo, lo+L-1] of positions, 4 <= L <= 13, so it can
  never hold both aces and never wraps (docs/rules.md §4).
- A contract is given as ``kinds``/``sizes`` rows of ``RulesArrays`` (sets
  first, then runs, each by size) and ``nm`` melds; ``joker_cap[L]`` is the
  number of jokers a meld of L cards may hold (docs/rules.md §3 joker_limit).

The deficiency model
--------------------
Deficiency asks for the fewest natural cards to add. Added cards count as
naturals for the joker limit, so a lay-down is a choice, per meld i, of a
shape (set: rank and size; run: suit and window) of L_i cards of which the
hand supplies f_i naturals; the m_i = L_i - f_i missing slots are filled by
hand jokers (at most ``joker_cap[L_i]`` in the meld, J in all) or by added
naturals. Writing w_i = min(m_i, cap_i) and e_i = m_i - w_i (slots only an
added card can fill), the fewest added cards for those shapes are
    E + max(0, W - J) = max(E, M - J)        (E, W, M summed over melds).
Sets of rank r with several melds on one rank are one *group*: with k hand
naturals shared among sets of sizes s_j, E_group = max(0, sum(s_j - cap_j) - k)
(give each set naturals up to its threshold first).

The search enumerates shapes with a branch and bound:
- sets never need more than their contract size; a run longer than its size
  is only worth trying when both of its ends are hand naturals (shrinking a
  run from a missing end lowers m by 1 and the cap by at most 1), so
  candidates are few;
- each shape's cost computed as if it had every hand card it covers is a
  lower bound for it, so partial sums plus each remaining meld's best bound
  prune whole subtrees, and the search stops when it reaches the root bound;
- at a leaf, cards wanted by two melds are allocated exactly by a tiny max
  flow: first to slots that only added cards could fill otherwise (this
  lowers E), then to any slot (this lowers M). A gammoid argument makes the
  two-phase flow optimal for both at once.
"""

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .layout import (CACHE_BITS, FP, JOKER, LAY_W, MEMO_T, MS_PMASK, MS_RC, MS_RUN_CNT,
                     MS_FRONT, MS_SUIT_CNT, MS_WIN_L, MS_WIN_LO, MS_WIN_R, MS_WIN_T, MS_WR, NPOS, RUN,
                     SCRATCH, SET, WT_SIZES, WT_W, new_cache)  # noqa: F401
from .layout import MAX_MELDS as MAXM  # melds per contract

MAXC = 4 * 66     # run candidates per meld: 4 suits x windows
INF = 1 << 40


@nb.njit(cache=True, inline="always")
def _pos_rank(p):
    return p - 13 if p == 13 else p


@nb.njit(cache=True, _nrt=False)
def _suit_counts(counts, cnt):
    """cnt[x, p]: copies of the natural card at run position p of suit x."""
    for x in range(4):
        for p in range(13):
            cnt[x, p] = counts[x * 13 + p]
        cnt[x, 13] = counts[x * 13]


@nb.njit(cache=True, _nrt=False)
def _run_candidates(cnt, s, exact, joker_cap, cx, clo, cl, cm, ce):
    """All run windows worth trying for a run of size s; returns how many.

    Sorted by their optimistic cost (e, then m) so that good lay-downs come first.
    """
    n = 0
    for x in range(4):
        for lo in range(0, NPOS - s + 1):
            maxl = s if exact else min(13, NPOS - lo)
            pres = 0
            for p in range(lo, lo + s - 1):
                if cnt[x, p] > 0:
                    pres += 1
            for L in range(s, maxl + 1):
                hi = lo + L - 1
                if cnt[x, hi] > 0:
                    pres += 1
                # Longer than s only when both ends are hand cards.
                if L > s and (cnt[x, lo] == 0 or cnt[x, hi] == 0):
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
def _leaf_cost(counts, J, nm, kinds, joker_cap, shape_a, shape_b, shape_l,
               dem, grp_rank, grp_s, grp_t, f, flow_tm, tlist):
    E, M = _leaf_em(counts, nm, kinds, joker_cap, shape_a, shape_b, shape_l,
                    dem, grp_rank, grp_s, grp_t, f, flow_tm, tlist)
    a = M - J
    return E if E > a else a


@nb.njit(cache=True, _nrt=False)
def _leaf_em(counts, nm, kinds, joker_cap, shape_a, shape_b, shape_l,
             dem, grp_rank, grp_s, grp_t, f, flow_tm, tlist):
    """(E, M) of fixed shapes, allocating contested cards optimally.

    shape_a = suit (run) or rank (set), shape_b = lo (run), shape_l = L.
    """
    # Group sets by rank.
    ng = 0
    nr = 0
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
                t = x * 13 + _pos_rank(p)
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
                t = x * 13 + r
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
                    if counts[x * 13 + _pos_rank(p)] > 0:
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
                t = x * 13 + r
                d = counts[t] - dem[t]
                if d > 0:
                    pool += d
            k = pool if pool < grp_s[g] else grp_s[g]
            M += grp_s[g] - k
            if grp_t[g] > k:
                E += grp_t[g] - k
    else:
        E, M = _flow_cost(counts, nm, kinds, shape_a, shape_b, shape_l, joker_cap,
                          ng, grp_rank, grp_s, grp_t, f, flow_tm, tlist)
    # reset demand
    for i in range(nm):
        if kinds[i] == RUN:
            x = shape_a[i]
            for p in range(shape_b[i], shape_b[i] + shape_l[i]):
                dem[x * 13 + _pos_rank(p)] = 0
    return E, M


@nb.njit(cache=True, _nrt=True)
def _flow_cost(counts, nm, kinds, shape_a, shape_b, shape_l, joker_cap,
               ng, grp_rank, grp_s, grp_t, f, flow_tm, tlist):
    """Two-phase max flow card types -> melds; returns (E, M)."""
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
    cap_tm = np.zeros((53, nk), np.int64)
    nt = 0
    for t in range(52):
        if counts[t] == 0:
            continue
        x = t // 13
        r = t % 13
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
    hi = lo + L - 1
    for i in range(nm_placed):
        if kinds[i] == RUN and shape_a[i] == x:
            olo = shape_b[i]
            ohi = olo + shape_l[i] - 1
            if not (lo > ohi + 1 or hi < olo - 1):
                return True
    return False




@nb.njit(cache=True, _nrt=True)
def _search(counts, kinds, sizes, nm, joker_cap, exact, gap):
    J = counts[JOKER]
    cnt = np.empty((4, NPOS), np.int64)
    _suit_counts(counts, cnt)
    rc = np.zeros(13, np.int64)
    for t in range(52):
        rc[t % 13] += counts[t]
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
            for r in range(13):
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
    dem = np.zeros(53, np.int64)
    grp_rank = np.empty(MAXM, np.int64)
    grp_s = np.empty(MAXM, np.int64)
    grp_t = np.empty(MAXM, np.int64)
    f = np.empty(MAXM, np.int64)
    flow_tm = np.empty((53, MAXM), np.int64)
    tlist = np.empty(53, np.int64)
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
        cost = _leaf_cost(counts, J, nm, kinds, joker_cap, shape_a, shape_b, shape_l,
                          dem, grp_rank, grp_s, grp_t, f, flow_tm, tlist)
        if cost < 0:
            cost = 0
        if cost < best:
            best = cost
            if best <= root:
                break
    return best




# ---------------------------------------------------------------- lay-down (deadwood)
#
# deadwood needs the actual cards: an exhaustive search over lay-downs made of
# hand cards only (no added cards), maximising the points laid down. It runs
# only on satisfiable hands (deficiency 0), where every missing slot must be a
# hand joker, which keeps the candidate shapes few. A joker may stand where a
# hand natural could go (that natural stays in hand): under `exact` that is
# sometimes the only way to lay a joker down, so those choices are searched too.

@nb.njit(cache=True, _nrt=True)
def _lay_search(order, nm, kinds, sizes, joker_cap, exact, gap, points, jpts, cnt_hand, jtotal,
                rank_av, bestcfg, only_suit, best_j, cfg_j):
    """Depth-first search over lay-downs (iterative, so numba can cache it).

    Meld order[d] is chosen at depth d: a run as (suit, lo, L, jokered
    positions), a set as (rank, naturals k, jokers j). Rows of ``cur`` and
    ``bestcfg``: kind, suit/rank, lo, L, k, jokers, mask (run: joker
    positions; set: naturals taken per suit, 8 bits each). Returns the most
    points laid down, or -1 if no lay-down exists.

    only_suit >= 0 puts every run in that suit and records, for every depth
    k = 1..nm and every number u of jokers used, the most points of the first
    k melds in best_j[k, u] (-1: none; the caller fills it with -1) and their
    rows in cfg_j[k, u].
    """
    cur = np.zeros((nm, 7), np.int64)
    st = np.zeros(nm, np.int64)          # 0 = cursor not started
    wx = np.zeros(nm, np.int64)
    wlo = np.zeros(nm, np.int64)
    wl = np.zeros(nm, np.int64)
    we = np.zeros(nm, np.int64)
    wm = np.zeros(nm, np.int64)          # missing slots of the window
    wemax = np.zeros(nm, np.int64)
    wpm = np.zeros(nm, np.int64)         # present-position mask
    npz = np.zeros(nm, np.int64)
    pos = np.zeros((nm, 14), np.int64)
    comb = np.zeros((nm, 14), np.int64)
    sk = np.zeros(nm, np.int64)          # set cursor: naturals
    sj = np.zeros(nm, np.int64)          # set cursor: jokers
    jl = np.zeros(nm + 1, np.int64)      # jokers left before depth d
    pl = np.zeros(nm + 1, np.int64)      # points placed before depth d
    best = -1
    jl[0] = jtotal
    d = 0
    while True:
        if d == nm:
            if pl[nm] > best:
                best = pl[nm]
                for i in range(nm):
                    for c in range(7):
                        bestcfg[i, c] = cur[i, c]
            d -= 1
            _lay_undo(order[d], kinds, cur, cnt_hand, rank_av)
            continue
        i = order[d]
        sz = sizes[i]
        prev_same = d > 0 and kinds[order[d - 1]] == kinds[i] and sizes[order[d - 1]] == sz
        pi = order[d - 1] if d > 0 else 0
        found = False
        if kinds[i] == RUN:
            need_window = False
            if st[d] == 0:
                st[d] = 1
                wx[d] = cur[pi, 1] if prev_same else (only_suit if only_suit >= 0 else 0)
                wlo[d] = cur[pi, 2] if prev_same else 0
                wl[d] = sz - 1
                need_window = True
            else:
                # next subset of e present positions to joker, then a larger e
                e = we[d]
                q = e - 1
                while q >= 0 and comb[d, q] == npz[d] - e + q:
                    q -= 1
                if q >= 0:
                    comb[d, q] += 1
                    for w in range(q + 1, e):
                        comb[d, w] = comb[d, w - 1] + 1
                    found = True
                else:
                    e += 1
                    if e <= wemax[d] and e <= npz[d]:
                        we[d] = e
                        for w in range(e):
                            comb[d, w] = w
                        found = True
                    else:
                        need_window = True
            while need_window:
                wl[d] += 1
                maxl = sz if exact else min(13, NPOS - wlo[d])
                if wl[d] > maxl:
                    wl[d] = sz
                    wlo[d] += 1
                    if wlo[d] > NPOS - sz:
                        wlo[d] = 0
                        wx[d] += 1
                        if wx[d] >= 4 or (only_suit >= 0 and wx[d] > only_suit):
                            break
                x = wx[d]
                lo = wlo[d]
                L = wl[d]
                if prev_same and (x < cur[pi, 1] or (x == cur[pi, 1] and lo < cur[pi, 2])):
                    continue
                hi = lo + L - 1
                cap = joker_cap[L]
                pm = 0
                n = 0
                for p in range(lo, hi + 1):
                    if cnt_hand[x * 13 + _pos_rank(p)] > 0:
                        pm |= 1 << p
                        pos[d, n] = p
                        n += 1
                m = L - n
                if m > cap or m > jl[d]:
                    continue
                if gap != 0:
                    touch = False
                    for q in range(d):
                        o = order[q]
                        if kinds[o] == RUN and cur[o, 1] == x:
                            olo = cur[o, 2]
                            ohi = olo + cur[o, 3] - 1
                            if not (lo > ohi + 1 or hi < olo - 1):
                                touch = True
                    if touch:
                        continue
                wpm[d] = pm
                npz[d] = n
                wm[d] = m
                em = cap - m
                if jl[d] - m < em:
                    em = jl[d] - m
                wemax[d] = em
                we[d] = 0
                need_window = False
                found = True
            if found:
                x = wx[d]
                lo = wlo[d]
                L = wl[d]
                hi = lo + L - 1
                jm = 0
                for w in range(we[d]):
                    jm |= 1 << pos[d, comb[d, w]]
                pm = wpm[d]
                gain = 0
                for p in range(lo, hi + 1):
                    if ((pm >> p) & 1) and not ((jm >> p) & 1):
                        t = x * 13 + _pos_rank(p)
                        cnt_hand[t] -= 1
                        rank_av[_pos_rank(p)] -= 1
                        gain += points[t]
                nj = wm[d] + we[d]
                cur[i, 0] = RUN
                cur[i, 1] = x
                cur[i, 2] = lo
                cur[i, 3] = L
                cur[i, 4] = 0
                cur[i, 5] = nj
                cur[i, 6] = jm | ((((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)) & ~pm)
                jl[d + 1] = jl[d] - nj
                pl[d + 1] = pl[d] + gain + nj * jpts
        else:
            if st[d] == 0:
                st[d] = 1
                cur[i, 1] = cur[pi, 1] if prev_same else 0
                sk[d] = rank_av[cur[i, 1]]
                sj[d] = -1
            while True:
                r = cur[i, 1]
                sj[d] += 1
                if sj[d] > jl[d]:
                    sj[d] = 0
                    sk[d] -= 1
                    if sk[d] < 0:
                        r += 1
                        if r >= 13:
                            break
                        cur[i, 1] = r
                        sk[d] = rank_av[r]
                k = sk[d]
                j = sj[d]
                L = k + j
                if L < sz or (exact != 0 and L != sz) or j > joker_cap[L]:
                    continue
                found = True
                break
            if found:
                r = cur[i, 1]
                k = sk[d]
                j = sj[d]
                need = k
                tk = 0
                for x in range(4):
                    t = x * 13 + r
                    g = cnt_hand[t] if cnt_hand[t] < need else need
                    cnt_hand[t] -= g
                    need -= g
                    tk |= g << (8 * x)
                rank_av[r] -= k
                cur[i, 0] = SET
                cur[i, 2] = 0
                cur[i, 3] = k + j
                cur[i, 4] = k
                cur[i, 5] = j
                cur[i, 6] = tk
                jl[d + 1] = jl[d] - j
                pl[d + 1] = pl[d] + k * points[r] + j * jpts
        if found:
            d += 1
            if only_suit >= 0:
                u = jtotal - jl[d]
                if pl[d] > best_j[d, u]:
                    best_j[d, u] = pl[d]
                    for q in range(d):
                        for c in range(7):
                            cfg_j[d, u, q, c] = cur[order[q], c]
            if d < nm:
                st[d] = 0
            continue
        st[d] = 0
        d -= 1
        if d < 0:
            break
        _lay_undo(order[d], kinds, cur, cnt_hand, rank_av)
    return best


@nb.njit(cache=True, _nrt=True)
def _lay_runs_by_suit(counts, nm, kinds, sizes, joker_cap, exact, gap, points, bestcfg):
    """_lay_search for a contract of runs of one size, suit by suit.

    Runs in different suits share no card and never touch, so only the jokers
    tie the suits together: one search per suit records the most points of
    k = 1..nm runs in it for each number of jokers used, and a small knapsack
    over the four suits shares out the runs and the jokers. The search over
    all suits at once multiplies the suits' choices (hundreds of microseconds
    for three runs); this adds them.
    """
    J = counts[JOKER]
    jp = points[JOKER]
    order = np.arange(nm)
    f = np.full((4, nm + 1, J + 1), -1, np.int64)       # f[x, k, u]: k runs in suit x, u jokers
    cfg = np.zeros((4, nm + 1, J + 1, nm, 7), np.int64)
    cnt = np.empty(53, np.int64)
    rank_av = np.zeros(13, np.int64)
    scratch_cfg = np.zeros((nm, 7), np.int64)
    for x in range(4):
        f[x, 0, 0] = 0
        nat = 0
        for r in range(13):
            nat += counts[x * 13 + r]
        k = min(nm, (nat + J) // sizes[0])
        if k == 0:
            continue
        for t in range(53):
            cnt[t] = counts[t]
        for t in range(52):
            rank_av[t % 13] += counts[t]
        _lay_search(order, k, kinds, sizes, joker_cap, exact, gap, points, jp, cnt, J,
                    rank_av, scratch_cfg, x, f[x], cfg[x])
        for r in range(13):
            rank_av[r] = 0
    # g[k, u] over the suits so far; pick[x, k, u] = (runs, jokers) of suit x
    g = np.full((nm + 1, J + 1), -1, np.int64)
    g2 = np.empty((nm + 1, J + 1), np.int64)
    pick = np.zeros((4, nm + 1, J + 1, 2), np.int64)
    g[0, 0] = 0
    for x in range(4):
        for k in range(nm + 1):
            for u in range(J + 1):
                g2[k, u] = -1
        for k in range(nm + 1):
            for u in range(J + 1):
                if g[k, u] < 0:
                    continue
                for k2 in range(nm + 1 - k):
                    for u2 in range(J + 1 - u):
                        v = f[x, k2, u2]
                        if v >= 0 and g[k, u] + v > g2[k + k2, u + u2]:
                            g2[k + k2, u + u2] = g[k, u] + v
                            pick[x, k + k2, u + u2, 0] = k2
                            pick[x, k + k2, u + u2, 1] = u2
        for k in range(nm + 1):
            for u in range(J + 1):
                g[k, u] = g2[k, u]
    best = -1
    bu = 0
    for u in range(J + 1):
        if g[nm, u] > best:
            best = g[nm, u]
            bu = u
    if best < 0:
        return -1
    k = nm
    u = bu
    row = 0
    for x in range(3, -1, -1):
        k2 = pick[x, k, u, 0]
        u2 = pick[x, k, u, 1]
        for i in range(k2):
            for c in range(7):
                bestcfg[row, c] = cfg[x, k2, u2, i, c]
            row += 1
        k -= k2
        u -= u2
    return best


@nb.njit(cache=True, _nrt=False)
def _lay_undo(i, kinds, cur, cnt_hand, rank_av):
    """Give back the cards that meld i's current choice took from the hand."""
    if kinds[i] == RUN:
        x = cur[i, 1]
        lo = cur[i, 2]
        for p in range(lo, lo + cur[i, 3]):
            if not ((cur[i, 6] >> p) & 1):
                t = x * 13 + _pos_rank(p)
                cnt_hand[t] += 1
                rank_av[_pos_rank(p)] += 1
    else:
        r = cur[i, 1]
        tk = cur[i, 6]
        for x in range(4):
            cnt_hand[x * 13 + r] += (tk >> (8 * x)) & 255
        rank_av[r] += cur[i, 4]


@nb.njit(cache=True, _nrt=False)
def max_laid_nb(H, kinds, nm):
    """An upper bound on the cards that any lay-down of the contract (kinds[:nm]) can
    take from the hand H: every joker, plus at most min(naturals, sets' + runs' share).

    s sets take at most the naturals of their s richest ranks (a second set of one rank
    shares that rank's cards); k runs of one suit take at most one card per rank each,
    so sum over ranks of min(count, k). Layer k of a suit (ranks held >= k times)
    shrinks as k grows, so the runs' share is the sum of the nr largest layers.
    """
    ns = 0
    for i in range(nm):
        if kinds[i] == SET:
            ns += 1
    nr = nm - ns
    nat = 0
    for c in range(52):
        nat += H[c]
    sets = 0
    used = 0
    for _ in range(ns):
        top = -1
        tr = 0
        for r in range(13):
            if (used >> r) & 1:
                continue
            v = H[r] + H[13 + r] + H[26 + r] + H[39 + r]
            if v > top:
                top = v
                tr = r
        if top <= 0:
            break
        used |= 1 << tr
        sets += top
    runs = 0
    k0 = 1
    k1 = 1
    k2 = 1
    k3 = 1
    for _ in range(nr):
        top = 0
        tx = -1
        for x in range(4):
            k = k0 if x == 0 else (k1 if x == 1 else (k2 if x == 2 else k3))
            v = 0
            for r in range(13):
                if H[x * 13 + r] >= k:
                    v += 1
            if v > top:
                top = v
                tx = x
        if tx < 0:
            break
        runs += top
        if tx == 0:
            k0 += 1
        elif tx == 1:
            k1 += 1
        elif tx == 2:
            k2 += 1
        else:
            k3 += 1
    share = sets + runs
    return H[JOKER] + (nat if nat < share else share)


@nb.njit(cache=True, _nrt=False)
def laydown_nb(counts, kinds, sizes, nm, joker_cap, exact, gap, points, out):
    """Least-deadwood lay-down of the contract from hand cards; deadwood or -1.

    ``out`` rows (contract order): kind, rank (set) or suit (run), lo position
    (run), n cards, then n card ids (52 = joker; in a run the card in column
    4+k stands at position lo+k).
    """
    if deficiency_nb(counts, kinds, sizes, nm, joker_cap, exact, gap) != 0:
        return -1
    return laydown_sat_nb(counts, kinds, sizes, nm, joker_cap, exact, gap, points, out)


@nb.njit(cache=True, _nrt=True)
def laydown_sat_nb(counts, kinds, sizes, nm, joker_cap, exact, gap, points, out):
    """laydown_nb for a hand already known to be satisfiable (deficiency 0)."""
    total = 0
    for t in range(53):
        total += counts[t] * points[t]
    cnt_hand = counts.copy()
    rank_av = np.zeros(13, np.int64)
    for t in range(52):
        rank_av[t % 13] += counts[t]
    # runs first (they pick specific cards), then sets take what is left
    order = np.empty(nm, np.int64)
    q = 0
    for i in range(nm):
        if kinds[i] == RUN:
            order[q] = i
            q += 1
    for i in range(nm):
        if kinds[i] == SET:
            order[q] = i
            q += 1
    bestcfg = np.zeros((nm, 7), np.int64)
    one_size_runs = nm >= 2
    for i in range(nm):
        if kinds[i] != RUN or sizes[i] != sizes[0]:
            one_size_runs = False
    if one_size_runs:
        best = _lay_runs_by_suit(counts, nm, kinds, sizes, joker_cap, exact, gap, points, bestcfg)
    else:
        best = _lay_search(order, nm, kinds, sizes, joker_cap, exact, gap, points, points[JOKER],
                           cnt_hand, counts[JOKER], rank_av, bestcfg, -1,
                           np.empty((1, 1), np.int64), np.empty((1, 1, 1, 7), np.int64))
    if best < 0:
        return -1
    for i in range(nm):
        for c in range(out.shape[1]):
            out[i, c] = 0
        kind = bestcfg[i, 0]
        out[i, 0] = kind
        out[i, 1] = bestcfg[i, 1]
        out[i, 3] = bestcfg[i, 3]
        if kind == RUN:
            x = bestcfg[i, 1]
            lo = bestcfg[i, 2]
            out[i, 2] = lo
            jm = bestcfg[i, 6]
            for k in range(bestcfg[i, 3]):
                p = lo + k
                out[i, 4 + k] = JOKER if (jm >> p) & 1 else x * 13 + _pos_rank(p)
        else:
            r = bestcfg[i, 1]
            c = 4
            tk = bestcfg[i, 6]
            for x in range(4):
                for _ in range((tk >> (8 * x)) & 255):
                    out[i, c] = x * 13 + r
                    c += 1
            for _ in range(bestcfg[i, 5]):
                out[i, c] = JOKER
                c += 1
    return total - best


# ---------------------------------------------------------------- fast paths
#
# The general search above is exact for every contract; the contracts of the
# presets have structure that makes most of it unnecessary:
# - sets only: a set never needs more than its size, only the ns ranks with
#   most cards matter, and t sets sharing a rank behave as one group, so the
#   answer is a minimum over the integer partitions of ns (blocks matched to
#   ranks in sorted order, which is optimal for both E and M by an exchange
#   argument: both are sums of max(0, a*t - c), convex in t - c);
# - runs only (one run size): suits do not interact, so each suit's Pareto
#   front of (E, M) for t = 0..nr runs is computed once per suit content and
#   memoised (``cache``); the fronts of the four suits are then combined
#   (``_runs_fast`` reads them in place for 2-3 runs and at most two copies
#   of a card, ``_runs_only`` otherwise);
# - one run and sets of one size: the run's windows in a suit, reduced to the
#   undominated ones and memoised by the suit's position mask
#   (``_window_slot``); the sets take what the run leaves, and a set group
#   short of its threshold may take back the one card of its rank the run
#   holds while the run has joker room (each such transfer lowers E by one,
#   M unchanged). ``_one_run_one_set`` / ``_one_run_sets`` read the sets'
#   best ranks off rank-count level masks; ``_one_run`` is the general form
#   (and the path of small memos, which would refill on every call).
# Anything else (several runs with sets, mixed sizes) uses the general search.

MAXR = 4                 # runs per contract handled by the per-suit fronts
PMAX = 48                # Pareto points while combining suits
MEMO_MIN = 4096           # smaller memos (deficiency_nb's) skip the memoised fast paths
RESERVED = 5             # last memo slots: per-suit fronts and a window list when the memo is full


def _partitions(n, maxpart=None):
    if maxpart is None:
        maxpart = n
    if n == 0:
        yield []
        return
    for k in range(min(n, maxpart), 0, -1):
        for rest in _partitions(n - k, k):
            yield [k] + rest


def _partition_table():
    rows, start = [], []
    for n in range(MAXM + 1):
        start.append(len(rows))
        for part in _partitions(n):
            rows.append(part + [0] * (MAXM - len(part)))
    start.append(len(rows))
    return np.array(rows, dtype=np.int64), np.array(start, dtype=np.int64)


PARTS, PART_START = _partition_table()


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer, as int64: LLVM's ctpop, the CPU's popcnt.
    (A 16384-entry table of counts was 128 KB of cache traffic on the hot paths.)"""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return context.cast(builder, builder.ctpop(args[0]), x, types.int64)
    return types.int64(x), codegen


@intrinsic
def _prefetch(typingctx, arr, i):
    """Ask the CPU to start loading row i of arr into the cache (llvm.prefetch; no effect
    on results), so that a few independent cache misses overlap with other work."""
    if not isinstance(arr, types.Array) or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        idx = [context.cast(builder, args[1], signature.args[1], types.intp)] + [zero] * (aryty.ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        # the typed-pointer name of older LLVMs; LLVMs with opaque pointers (checked:
        # LLVM 22, llvmlite 0.50) upgrade it to llvm.prefetch.p0 when they read the IR
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.none(arr, i), codegen


@nb.njit(cache=True, inline="always")
def _fold(w):
    """Window mask over positions 0..13 -> rank mask (position 13 is the ace, rank 0)."""
    return (w & 0x1FFF) | (w >> 13)


@nb.njit(cache=True, _nrt=False)
def _top(rc, ns, top):
    """The ns largest values of rc (13 ranks), descending, into top."""
    for i in range(ns):
        top[i] = -1
    for r in range(13):
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
    for r in range(13):
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


@nb.njit(cache=True, _nrt=False)
def _all_windows(px, x, s, exact, joker_cap, es_min, ms_min, J, cw, ch, ck, cme, n, kmin, kmax):
    """Every window of suit x (for the rare suit whose undominated list does not fit the memo)."""
    for lo in range(0, NPOS - s + 1):
        maxl = s if exact else min(13, NPOS - lo)
        for L in range(s, maxl + 1):
            hi = lo + L - 1
            if L > s and (((px >> lo) & 1) == 0 or ((px >> hi) & 1) == 0):
                continue
            pm = px & (((1 << L) - 1) << lo)
            m = L - popcount(pm)
            e = m - joker_cap[L]
            if e < 0:
                e = 0
            a = e + es_min
            b = m + ms_min - J
            k = a if a > b else b
            cw[n] = x | (L << 6)
            ch[n] = _fold(pm)
            ck[n] = k
            cme[n] = m | (e << 8)
            n += 1
            if k < kmin:
                kmin = k
            if k > kmax:
                kmax = k
    return n, kmin, kmax


@nb.njit(cache=True, inline="always")
def _window_slot(px, s, exact, joker_cap, ckeys, cvals, cn):
    """Memo slot listing the undominated windows of one run of size s in a suit whose
    cards stand at the positions px (bit p: position p, 0..13).

    Window A dominates B when it misses no more cards (m), needs no more added cards
    (e), leaves at least as much joker room (sigma) and holds a subset of B's ranks
    (the sets keep at least what B leaves them, and A can hand back whatever B can),
    so the best lay-down always has an undominated window. Entry i: held rank mask
    and m | L << 4, in cvals[q, i >> 3, i & 7]; cn[q, 0] entries.
    """
    slots = ckeys.shape[0]
    key = (np.int64(s) << 40) | (np.int64(3) << 36) | np.int64(px)
    key += 1
    h = _hslot(key, slots)
    for probe in range(8):
        q = (h + probe) & (slots - 1)
        if q >= slots - RESERVED:
            continue
        k = ckeys[q]
        if k == key:
            return q
        if k == 0:
            return _window_fill(px, s, exact, joker_cap, ckeys, cvals, cn, q, key)
    # full: the reserved window slot, for this suit only (its list is read at once)
    return _window_fill(px, s, exact, joker_cap, ckeys, cvals, cn, slots - RESERVED + 4, 0)


@nb.njit(cache=True, inline="always")
def _win_entry(cvals, q, i, joker_cap):
    """Window i of a window-list slot q: held ranks, m | L << 4, and its m (cards
    missing), e (cards to add beyond the joker cap) and joker room."""
    held = np.int64(cvals[q, i >> 3, i & 7, 0])
    ml = np.int64(cvals[q, i >> 3, i & 7, 1])
    m = ml & 15
    cap = joker_cap[ml >> 4]
    e = m - cap if m > cap else 0
    sg = cap - m if cap > m else 0
    return held, ml, m, e, sg


@nb.njit(cache=True, _nrt=False)
def _window_fill(px, s, exact, joker_cap, ckeys, cvals, cn, free, key):
    """List the undominated windows of _window_slot into memo slot free."""
    n = 0
    ckeys[free] = 0
    for lo in range(0, NPOS - s + 1):
        maxl = s if exact else min(13, NPOS - lo)
        for L in range(s, maxl + 1):
            hi = lo + L - 1
            if L > s and (((px >> lo) & 1) == 0 or ((px >> hi) & 1) == 0):
                continue
            pm = px & (((1 << L) - 1) << lo)
            m = L - popcount(pm)
            held = _fold(pm)
            cap = joker_cap[L]
            e = m - cap if m > cap else 0
            sg = cap - m if cap > m else 0
            # drop it if an entry dominates it; drop the entries it dominates
            dom = False
            k = 0
            for i in range(n):
                h2, ml2, m2, e2, s2 = _win_entry(cvals, free, i, joker_cap)
                if m2 <= m and e2 <= e and s2 >= sg and (h2 & held) == h2:
                    dom = True
                    break
            if dom:
                continue
            if n == MEMO_T * FP:
                cn[free, 0] = -1          # too many to store: the caller lists them itself
                ckeys[free] = key
                return free
            for i in range(n):
                h2, ml2, m2, e2, s2 = _win_entry(cvals, free, i, joker_cap)
                if not (m <= m2 and e <= e2 and sg >= s2 and (held & h2) == held):
                    cvals[free, k >> 3, k & 7, 0] = h2
                    cvals[free, k >> 3, k & 7, 1] = ml2
                    k += 1
            n = k
            cvals[free, n >> 3, n & 7, 0] = held
            cvals[free, n >> 3, n & 7, 1] = m | (L << 4)
            n += 1
    # sorted by m (then e): the search stops at the first m that cannot win
    for i in range(1, n):
        h2 = cvals[free, i >> 3, i & 7, 0]
        ml2 = cvals[free, i >> 3, i & 7, 1]
        kk = _ml_order(ml2, joker_cap)
        j = i - 1
        while j >= 0 and _ml_order(cvals[free, j >> 3, j & 7, 1], joker_cap) > kk:
            cvals[free, (j + 1) >> 3, (j + 1) & 7, 0] = cvals[free, j >> 3, j & 7, 0]
            cvals[free, (j + 1) >> 3, (j + 1) & 7, 1] = cvals[free, j >> 3, j & 7, 1]
            j -= 1
        cvals[free, (j + 1) >> 3, (j + 1) & 7, 0] = h2
        cvals[free, (j + 1) >> 3, (j + 1) & 7, 1] = ml2
    cn[free, 0] = n
    ckeys[free] = key
    return free


@nb.njit(cache=True, inline="always")
def _ml_order(ml, joker_cap):
    m = ml & 15
    cap = joker_cap[ml >> 4]
    e = m - cap if m > cap else 0
    return m * 16 + e


@nb.njit(cache=True, inline="always")
def _wt_row(px, s, exact, joker_cap, wt, ckeys, cvals, cn):
    """Row of the window table ``wt`` for a run of size s in a suit holding the
    positions px: the undominated windows of ``_window_fill``, sorted the same
    way, in one cache line read directly (no hashing, no probing).

    wt[r, 0] = 0: not filled yet; -1: more than WT_W - 1 windows (the caller
    takes the general path); else 1 + the number of windows. Entry i >= 1:
    held ranks | m << 13 | e << 17 | joker room (cap - m, or 0) << 21.
    """
    r = ((s - 4) << NPOS) | px
    if wt[r, 0] == 0:
        # listed in the reserved window slot and copied at once: the row is the only
        # copy kept, so the memo's slots stay free for the runs fronts
        q = ckeys.shape[0] - RESERVED + 4
        _window_fill(px, s, exact, joker_cap, ckeys, cvals, cn, q, 0)
        n = np.int64(cn[q, 0])
        if n < 0 or n > WT_W - 1:
            wt[r, 0] = -1
            return r
        for i in range(n):
            held, ml, m, e, sg = _win_entry(cvals, q, i, joker_cap)
            wt[r, 1 + i] = held | (m << 13) | (e << 17) | (sg << 21)
        wt[r, 0] = n + 1
    return r


@nb.njit(cache=True, inline="always")
def _wt_entry(wt, r, i):
    """Entry i of window-table row r: held ranks, m, e and joker room (see _wt_row)."""
    w = np.int64(wt[r, i])
    return w & 0x1FFF, (w >> 13) & 15, (w >> 17) & 15, w >> 21


NLV = 32                 # count levels of _levels (a rank with more cards takes the slow path)


@nb.njit(cache=True, inline="always")
def _levels(rc, LV):
    """LV[v] = mask of the ranks with at least v cards, for v = 0 (all 13) to the
    largest count + 1 (none); returns the largest count, or -1 if one reaches NLV - 1.
    (Each rank sets one bit at its own count; a suffix OR makes "at least".)"""
    maxc = 0
    for r in range(13):
        if rc[r] > maxc:
            maxc = rc[r]
    if maxc >= NLV - 1:
        return -1
    for v in range(1, maxc + 2):
        LV[v] = 0
    for r in range(13):
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
def _one_run_one_set(rc, wr, J, s_set, joker_cap, scratch, wt):
    """One run and one set: _one_run with the set's best rank read off directly.

    For a window holding the ranks ``held``, the set is best on the rank with the
    most cards among those the run does not hold, or on the held rank with the most
    cards (the run keeps one of its cards; with joker room it hands it back, which
    lowers E by one). Both costs fall as the count grows, so ranks in descending
    count order give each in a step or two.
    """
    thr = s_set - joker_cap[s_set]
    LV = scratch[0:NLV]
    maxc = _levels(rc, LV)
    if maxc < 0:
        return -INF
    top = maxc
    es_min = thr - top if thr > top else 0
    ms_min = s_set - top if s_set > top else 0
    best = INF
    for x in range(4):
        r = wr[x]
        for i in range(1, wt[r, 0]):
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


@nb.njit(cache=True, _nrt=False)
def _one_run_sets(rc, wr, J, ns, s_set, joker_cap, scratch, wt):
    """One run and ns >= 2 sets of one size: _one_run with the sets' ranks read off directly.

    For a window holding the ranks ``held``, split the ranks into those the run
    holds (one card fewer for the sets, handed back while the run has joker room)
    and the others. Within a class a block of sets is never worse on a rank with
    more cards, so the blocks of a partition of ns go to the top ranks of each
    class: it is enough to choose, per block, its class (and the order of blocks
    of different sizes). A window that holds no rank with at least the ns-th
    largest count leaves the sets their unconstrained best.
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
    best = INF
    for x in range(4):
        r = wr[x]
        for i in range(1, wt[r, 0]):
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


@nb.njit(cache=True, _nrt=False)
def _one_run(rc, pmask, J, s_run, ns, s_set, joker_cap, exact, scratch, ckeys, cvals, cn):
    """One run and ns sets of one size. pmask[x]: positions 0..13 holding a card of suit x."""
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
        for r in range(13):
            if rc[r] >= T:
                relmask |= 1 << r
    # Candidate windows with their lower bound: per suit, the memo's undominated windows.
    base = 72
    cw = scratch[base:base + MAXC]               # packed x | lo << 2 | L << 6
    ch = scratch[base + MAXC:base + 2 * MAXC]    # held ranks
    ck = scratch[base + 2 * MAXC:base + 3 * MAXC]
    cme = scratch[base + 3 * MAXC:base + 4 * MAXC]  # m | e << 8
    n = 0
    kmin = INF
    kmax = 0
    big = ckeys.shape[0] >= MEMO_MIN
    for x in range(4):
        q = _window_slot(pmask[x], s_run, exact, joker_cap, ckeys, cvals, cn) if big else 0
        if not big or cn[q, 0] < 0:
            n, kmin, kmax = _all_windows(pmask[x], x, s_run, exact, joker_cap, es_min, ms_min, J,
                                         cw, ch, ck, cme, n, kmin, kmax)
            continue
        for i in range(cn[q, 0]):
            held = np.int64(cvals[q, i >> 3, i & 7, 0])
            ml = np.int64(cvals[q, i >> 3, i & 7, 1])
            m = ml & 15
            L = ml >> 4
            e = m - joker_cap[L]
            if e < 0:
                e = 0
            a = e + es_min
            b = m + ms_min - J
            k = a if a > b else b
            cw[n] = x | (L << 6)
            ch[n] = held
            ck[n] = k
            cme[n] = m | (e << 8)
            n += 1
            if k < kmin:
                kmin = k
            if k > kmax:
                kmax = k
    best = INF
    level = kmin
    while level <= kmax and level < best:
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
                for r in range(13):
                    if (held >> r) & 1:
                        rc[r] -= 1
                sigma = joker_cap[L] - m
                if sigma > 0:
                    v = _sets_cost_transfer(rc, held, sigma, ns, s_set, thr, e, m, J, rk, perm)
                else:
                    _top(rc, ns, top)
                    v = _sets_cost(top, ns, s_set, thr, e, m, J)
                for r in range(13):
                    if (held >> r) & 1:
                        rc[r] += 1
            if v < best:
                best = v
                if best <= level:
                    break
        level += 1
    return best


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
def _suit_windows(cntx, s, exact, joker_cap, cand_lo, cand_l, cand_r, cand_t):
    """Windows of a run of size s in one suit that hold at least one of its cards.

    Returns (n, has_empty): has_empty tells whether a window with none exists.
    cand_t: threshold L - cap(L), floored at 0.
    """
    pr = 0
    for p in range(13):
        if cntx[p] > 0:
            pr |= 1 << p
    nc = 0
    has_empty = False
    for lo in range(0, NPOS - s + 1):
        maxl = s if exact else min(13, NPOS - lo)
        for L in range(s, maxl + 1):
            hi = lo + L - 1
            if L > s and (cntx[lo] == 0 or cntx[hi] == 0):
                continue
            rm = _fold(((1 << L) - 1) << lo)
            if rm & pr == 0:
                has_empty = True
                continue
            cand_lo[nc] = lo
            cand_l[nc] = L
            cand_r[nc] = rm
            t = L - joker_cap[L]
            cand_t[nc] = t if t > 0 else 0
            nc += 1
    return nc, has_empty


@nb.njit(cache=True, inline="always")
def _touch(cand_lo, cand_l, a, b):
    """Do windows a and b of one suit overlap or touch (same_suit_runs = gap)?"""
    alo = cand_lo[a]
    ahi = alo + cand_l[a] - 1
    blo = cand_lo[b]
    bhi = blo + cand_l[b] - 1
    return not (alo > bhi + 1 or ahi < blo - 1)


@nb.njit(cache=True, _nrt=False)
def _suit_front_small(t, gap, nc, cand_lo, cand_l, cand_r, cand_t, fe, fm, P1, P2, P3, cap_pts):
    """_suit_front for t = 1, 2, 3 with the subsets of the min-cut written out: the same
    windows in the same order, the covers of single windows and pairs computed once
    for all the runs that share them."""
    nf = 0
    for i in range(nc):
        ri = cand_r[i]
        ti = cand_t[i]
        li = cand_l[i]
        ci = popcount(ri & P1)
        if t == 1:
            u = ti if ti < ci else ci
            nf = _pareto_add(fe, fm, nf, ti - u, li - ci, cap_pts)
            if nf < 0:
                return -1
            continue
        for j in range(i, nc):
            if gap != 0 and _touch(cand_lo, cand_l, i, j):
                continue
            rj = cand_r[j]
            tj = cand_t[j]
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
                nf = _pareto_add(fe, fm, nf, ti + tj - u, li + cand_l[j] - cij, cap_pts)
                if nf < 0:
                    return -1
                continue
            for k in range(j, nc):
                if gap != 0 and (_touch(cand_lo, cand_l, i, k) or _touch(cand_lo, cand_l, j, k)):
                    continue
                rk = cand_r[k]
                tk = cand_t[k]
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
                nf = _pareto_add(fe, fm, nf, tt - u, li + cand_l[j] + cand_l[k] - call, cap_pts)
                if nf < 0:
                    return -1
    return nf


@nb.njit(cache=True, _nrt=False)
def _suit_front(cntx, t, gap, nc, cand_lo, cand_l, cand_r, cand_t, fe, fm, sel):
    """Pareto front (E, M) of t >= 1 runs drawn from the candidate windows of one suit.

    For fixed windows the best allocation of the suit's cards is a max flow
    (card ranks -> runs, each run taking one card per rank it covers); by
    max-flow min-cut its useful part (cards that save an added card) is
        U = min over subsets A of the runs of
            sum of thresholds outside A + sum over ranks q of min(copies_q, runs of A covering q),
    computed here with bit masks; M uses the total flow, sum over q of
    min(copies_q, runs covering q). Returns the front size, or -1 on overflow.
    """
    P1 = 0
    P2 = 0
    P3 = 0
    P4 = 0
    for p in range(13):
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
        return _suit_front_small(t, gap, nc, cand_lo, cand_l, cand_r, cand_t, fe, fm,
                                 P1, P2, P3, cap_pts)
    for i in range(t):
        sel[i] = 0
    while True:
        ok = True
        if gap != 0:
            for i in range(t):
                lo = cand_lo[sel[i]]
                hi = lo + cand_l[sel[i]] - 1
                for j in range(i):
                    olo = cand_lo[sel[j]]
                    ohi = olo + cand_l[sel[j]] - 1
                    if not (lo > ohi + 1 or hi < olo - 1):
                        ok = False
        if ok:
            sumL = 0
            sumT = 0
            for i in range(t):
                sumL += cand_l[sel[i]]
                sumT += cand_t[sel[i]]
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
                        w = cand_r[sel[i]]
                        g4 |= g3 & w
                        g3 |= g2 & w
                        g2 |= g1 & w
                        g1 |= w
                    else:
                        out += cand_t[sel[i]]
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


@nb.njit(cache=True, _nrt=False)
def _runs_only(cnt, J, s, nr, joker_cap, exact, gap, ckeys, cvals, cn, scratch):
    """nr runs of size s (nr <= MAXR): combine per-suit fronts; -1 if a buffer overflowed."""
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
    cand_lo = scratch[o:o + 66]
    cand_l = scratch[o + 66:o + 132]
    cand_r = scratch[o + 132:o + 198]
    cand_t = scratch[o + 198:o + 264]
    o += 264
    sel = scratch[o:o + MAXR]
    o += MAXR
    t2max = nr if nr < 2 else 2
    for x in range(4):
        # Fronts for t <= 2 depend on copies up to 2: the memo key caps them there.
        key = np.int64(s) << 40
        for p in range(13):
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
        nc, has_empty = _suit_windows(cntx[x], s, exact, joker_cap, cand_lo, cand_l, cand_r, cand_t)
        fits = True
        for t in range(1, t2max + 1):
            k = _suit_front(cntx[x], t, gap, nc, cand_lo, cand_l, cand_r, cand_t, fe[x, t], fm[x, t], sel)
            if k < 0:
                return -1
            # An empty run never needs to share a suit (nr <= 4 runs leave one free).
            if t == 1 and has_empty:
                k = _pareto_add(fe[x, 1], fm[x, 1], k, e0, s, FP * 4)
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
                for p in range(13):
                    c = cntx[x, p]
                    cards += c if c < t else t
                mlb = t * s - cards
                elb = t * e0 - cards
                lb = elb if elb > mlb - J else mlb - J
                if lb < best:
                    nc, has_empty = _suit_windows(cntx[x], s, exact, joker_cap, cand_lo, cand_l,
                                                  cand_r, cand_t)
                    for tt in range(3, nr + 1):
                        k = _suit_front(cntx[x], tt, gap, nc, cand_lo, cand_l, cand_r, cand_t,
                                        fe[x, tt], fm[x, tt], sel)
                        if k < 0:
                            return -1
                        fn[x, tt] = k
                    more = True
                    break
        if not more:
            return best
    return INF


@nb.njit(cache=True, inline="always")
def _hslot(key, slots):
    """Home slot of a memo key (slots: a power of two)."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & (slots - 1)


@nb.njit(cache=True, inline="always")
def _suit_key(counts, x, s):
    """Memo key of suit x's counts for runs of size s. The fronts do not change when
    the ranks are read backwards (A, K, Q, ..., 2: runs map to runs, gaps to gaps),
    so a suit and its mirror share one key and one slot."""
    key = np.int64(0)
    rev = np.int64(counts[x * 13])
    for p in range(13):
        key |= np.int64(counts[x * 13 + p]) << (2 * p)
    for p in range(1, 13):
        rev |= np.int64(counts[x * 13 + p]) << (2 * (13 - p))
    if rev < key:
        key = rev
    return (key | (np.int64(s) << 40) | (np.int64(1) << 36)) + 1


@nb.njit(cache=True, inline="always")
def _suit_slot(counts, x, s, key, joker_cap, exact, gap, ckeys, cvals, cn, scratch):
    """Memo slot holding the Pareto fronts of t = 1..2 runs of size s in suit x (and
    t = 3 once _suit_front3 has run; every natural count <= 2; key = _suit_key); -1 if
    a front has more than FP points. A full memo is never evicted: the fronts then go
    to the suit's reserved slot (RESERVED), valid for this call only."""
    slots = ckeys.shape[0]
    h = _hslot(key, slots)
    for probe in range(8):
        q = (h + probe) & (slots - 1)
        if q >= slots - RESERVED:
            continue
        k = ckeys[q]
        if k == key:
            return q
        if k == 0:
            return _suit_fill(counts, x, s, joker_cap, exact, gap, ckeys, cvals, cn, scratch, q, key)
    return _suit_fill(counts, x, s, joker_cap, exact, gap, ckeys, cvals, cn, scratch,
                      slots - RESERVED + x, 0)


@nb.njit(cache=True, _nrt=False)
def _suit_setup(counts, x, s, exact, joker_cap, scratch):
    cntx = scratch[MS_SUIT_CNT:MS_SUIT_CNT + NPOS]
    for p in range(13):
        cntx[p] = counts[x * 13 + p]
    cntx[13] = cntx[0]
    nc, has_empty = _suit_windows(cntx, s, exact, joker_cap, scratch[MS_WIN_LO:MS_WIN_L],
                                  scratch[MS_WIN_L:MS_WIN_R], scratch[MS_WIN_R:MS_WIN_T],
                                  scratch[MS_WIN_T:MS_FRONT])
    return nc, has_empty


@nb.njit(cache=True, _nrt=False)
def _suit_store(scratch, nc, t, gap, cvals, cn, q, extra_e, extra_m):
    """Front of t runs over the nc windows set up in scratch into cvals[q, t]; False if
    it has more than FP points. extra_e >= 0: a point added to it (the empty window)."""
    cntx = scratch[MS_SUIT_CNT:MS_SUIT_CNT + NPOS]
    fe = scratch[MS_FRONT:MS_FRONT + FP * 4]
    fm = scratch[MS_FRONT + FP * 4:MS_FRONT + FP * 8]
    sel = scratch[MS_FRONT + FP * 8:MS_FRONT + FP * 8 + MAXR]
    k = _suit_front(cntx, t, gap, nc, scratch[MS_WIN_LO:MS_WIN_L], scratch[MS_WIN_L:MS_WIN_R],
                    scratch[MS_WIN_R:MS_WIN_T], scratch[MS_WIN_T:MS_FRONT], fe, fm, sel)
    if k >= 0 and extra_e >= 0:
        k = _pareto_add(fe, fm, k, extra_e, extra_m, FP * 4)
    if k < 0 or k > FP:
        return False
    cn[q, t] = k
    for i in range(k):
        cvals[q, t, i, 0] = fe[i]
        cvals[q, t, i, 1] = fm[i]
    return True


@nb.njit(cache=True, _nrt=False)
def _suit_fill(counts, x, s, joker_cap, exact, gap, ckeys, cvals, cn, scratch, q, key):
    """Compute the fronts of _suit_slot (t = 1, 2; t = 3 marked not yet computed) into
    memo slot q, and claim it for key (0: a reserved slot, not claimed)."""
    nc, has_empty = _suit_setup(counts, x, s, exact, joker_cap, scratch)
    e0 = s - joker_cap[s]
    if e0 < 0:
        e0 = 0
    if not _suit_store(scratch, nc, 1, gap, cvals, cn, q, e0 if has_empty else -1, s):
        return -1
    if not _suit_store(scratch, nc, 2, gap, cvals, cn, q, -1, 0):
        return -1
    cn[q, 3] = -1
    if key != 0:
        ckeys[q] = key
    return q


@nb.njit(cache=True, _nrt=False)
def _suit_front3(counts, x, s, joker_cap, exact, gap, cvals, cn, scratch, q):
    """Fill the t = 3 front of memo slot q (suit x); False if it does not fit."""
    nc, has_empty = _suit_setup(counts, x, s, exact, joker_cap, scratch)
    return _suit_store(scratch, nc, 3, gap, cvals, cn, q, -1, 0)


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
def _runs_fast(counts, J, s, nr, joker_cap, exact, gap, ckeys, cvals, cn, scratch):
    """2 or 3 runs of size s, every natural count <= 2: the per-suit fronts straight from
    the memo, every split of the runs over the suits; -INF to fall back to _runs_only."""
    q0 = _suit_slot(counts, 0, s, _suit_key(counts, 0, s), joker_cap, exact, gap,
                    ckeys, cvals, cn, scratch)
    if q0 < 0:
        return -INF
    q1 = _suit_slot(counts, 1, s, _suit_key(counts, 1, s), joker_cap, exact, gap,
                    ckeys, cvals, cn, scratch)
    if q1 < 0:
        return -INF
    q2 = _suit_slot(counts, 2, s, _suit_key(counts, 2, s), joker_cap, exact, gap,
                    ckeys, cvals, cn, scratch)
    if q2 < 0:
        return -INF
    q3 = _suit_slot(counts, 3, s, _suit_key(counts, 3, s), joker_cap, exact, gap,
                    ckeys, cvals, cn, scratch)
    if q3 < 0:
        return -INF
    if nr == 2:
        best = _front_min(cvals, cn, q0, 2, 0, 0, J, INF)
        best = _front_min(cvals, cn, q1, 2, 0, 0, J, best)
        best = _front_min(cvals, cn, q2, 2, 0, 0, J, best)
        best = _front_min(cvals, cn, q3, 2, 0, 0, J, best)
        best = _pair_min(cvals, cn, q0, q1, 0, 0, J, best)
        best = _pair_min(cvals, cn, q0, q2, 0, 0, J, best)
        best = _pair_min(cvals, cn, q0, q3, 0, 0, J, best)
        best = _pair_min(cvals, cn, q1, q2, 0, 0, J, best)
        best = _pair_min(cvals, cn, q1, q3, 0, 0, J, best)
        best = _pair_min(cvals, cn, q2, q3, 0, 0, J, best)
        return best
    # nr == 3: two runs in one suit and one in another, or one each in three suits
    best = INF
    for a in range(4):
        qa = q0 if a == 0 else (q1 if a == 1 else (q2 if a == 2 else q3))
        for i in range(cn[qa, 2]):
            ea = cvals[qa, 2, i, 0]
            ma = cvals[qa, 2, i, 1]
            if a != 0:
                best = _front_min(cvals, cn, q0, 1, ea, ma, J, best)
            if a != 1:
                best = _front_min(cvals, cn, q1, 1, ea, ma, J, best)
            if a != 2:
                best = _front_min(cvals, cn, q2, 1, ea, ma, J, best)
            if a != 3:
                best = _front_min(cvals, cn, q3, 1, ea, ma, J, best)
    for i in range(cn[q0, 1]):
        ea = cvals[q0, 1, i, 0]
        ma = cvals[q0, 1, i, 1]
        best = _pair_min(cvals, cn, q1, q2, ea, ma, J, best)
        best = _pair_min(cvals, cn, q1, q3, ea, ma, J, best)
        best = _pair_min(cvals, cn, q2, q3, ea, ma, J, best)
    for i in range(cn[q1, 1]):
        ea = cvals[q1, 1, i, 0]
        ma = cvals[q1, 1, i, 1]
        best = _pair_min(cvals, cn, q2, q3, ea, ma, J, best)
    # all three in one suit: its front only where a lower bound could beat best
    e0 = s - joker_cap[s]
    if e0 < 0:
        e0 = 0
    for a in range(4):
        qa = q0 if a == 0 else (q1 if a == 1 else (q2 if a == 2 else q3))
        cards = 0
        for p in range(13):
            cards += counts[a * 13 + p]
        mlb = 3 * s - cards
        elb = 3 * e0 - cards
        lb = elb if elb > mlb - J else mlb - J
        if lb >= best:
            continue
        if cn[qa, 3] < 0:
            if not _suit_front3(counts, a, s, joker_cap, exact, gap, cvals, cn, scratch, qa):
                return -INF
        best = _front_min(cvals, cn, qa, 3, 0, 0, J, best)
    return best


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


@nb.njit(cache=True, _nrt=False)
def deficiency_ws_nb(counts, kinds, sizes, nm, joker_cap, exact, gap, ckeys, cvals, cn, scratch, wt):
    """Deficiency with the memo and scratch of ``layout.new_cache()``; exact for every contract."""
    ns = 0
    nr = 0
    s_set = 0
    s_run = 0
    mixed = False
    for i in range(nm):
        if kinds[i] == SET:
            if ns > 0 and sizes[i] != s_set:
                mixed = True
            s_set = sizes[i]
            ns += 1
        else:
            if nr > 0 and sizes[i] != s_run:
                mixed = True
            s_run = sizes[i]
            nr += 1
    J = counts[JOKER]
    if not mixed:
        if nr == 0:
            rc = scratch[MS_RC:MS_RC + 13]
            for r in range(13):
                rc[r] = 0
            for t in range(52):
                rc[t % 13] += counts[t]
            top = scratch[0:MAXM]
            _top(rc, ns, top)
            v = _sets_cost(top, ns, s_set, s_set - joker_cap[s_set], 0, 0, J)
            return v if v > 0 else 0
        if nr == 1:
            rc = scratch[MS_RC:MS_RC + 13]
            pmask = scratch[MS_PMASK:MS_PMASK + 4]
            wr = scratch[MS_WR:MS_WR + 4]
            # a small memo (deficiency_nb's) would refill on every call: no fast path
            fast = ns > 0 and ckeys.shape[0] >= MEMO_MIN
            for x in range(4):
                pm = 0
                for p in range(13):
                    if counts[x * 13 + p] > 0:
                        pm |= 1 << p
                pmask[x] = pm | ((pm & 1) << 13)
                if fast:
                    _prefetch(wt, ((s_run - 4) << NPOS) | pmask[x])
            for r in range(13):
                rc[r] = counts[r] + counts[13 + r] + counts[26 + r] + counts[39 + r]
            v = -INF
            if fast:
                full = True
                for x in range(4):
                    r = _wt_row(pmask[x], s_run, exact, joker_cap, wt, ckeys, cvals, cn)
                    wr[x] = r
                    if wt[r, 0] < 0:
                        full = False      # rare: too many undominated windows for a row
                if full:
                    if ns == 1:
                        v = _one_run_one_set(rc, wr, J, s_set, joker_cap, scratch, wt)
                    else:
                        v = _one_run_sets(rc, wr, J, ns, s_set, joker_cap, scratch, wt)
            if v == -INF:
                v = _one_run(rc, pmask, J, s_run, ns, s_set, joker_cap, exact, scratch, ckeys, cvals, cn)
            return v if v > 0 else 0
        if ns == 0 and (nr == 2 or nr == 3) and ckeys.shape[0] >= MEMO_MIN:
            small = True
            for c in range(52):
                if counts[c] > 2:
                    small = False
                    break
            if small:
                v = _runs_fast(counts, J, s_run, nr, joker_cap, exact, gap, ckeys, cvals, cn, scratch)
                if v != -INF:
                    return v if v > 0 else 0
        if ns == 0 and nr <= MAXR:
            cnt = scratch[MS_RUN_CNT:MS_RUN_CNT + 4 * NPOS].reshape((4, NPOS))
            _suit_counts(counts, cnt)
            v = _runs_only(cnt, J, s_run, nr, joker_cap, exact, gap, ckeys, cvals, cn, scratch)
            if v >= 0:
                return v if v > 0 else 0
    v = _search(counts, kinds, sizes, nm, joker_cap, exact, gap)
    return v if v > 0 else 0


@nb.njit(cache=True, _nrt=True)
def deficiency_nb(counts, kinds, sizes, nm, joker_cap, exact, gap):
    """docs/rules.md §6 deficiency of ``counts`` for the contract (kinds, sizes, nm).

    Allocates a small memo per call; hot loops use ``deficiency_ws_nb`` with ``layout.new_cache()``.
    """
    ckeys = np.zeros(8, np.int64)
    cvals = np.zeros((8, MEMO_T, FP, 2), np.int16)
    cn = np.zeros((8, MEMO_T), np.int8)
    scratch = np.zeros(SCRATCH, np.int64)
    wt = np.zeros((1, WT_W), np.int32)
    return deficiency_ws_nb(counts, kinds, sizes, nm, joker_cap, exact, gap, ckeys, cvals, cn, scratch, wt)


@nb.njit(cache=True, _nrt=False)
def memo_trim_nb(ckeys):
    """Empty the memo once about three quarters of its slots are taken (judged on one
    slot in 64). A full memo keeps what it has and recomputes every new key on every
    call, so a long batch run on one memo would slow down as it fills (measured: greedy
    games 333 -> 256 games/s between the first and the fourth thousand). Answers never
    depend on the memo; the window table needs no trimming."""
    n = ckeys.shape[0]
    used = 0
    seen = 0
    for q in range(0, n, 64):
        seen += 1
        if ckeys[q] != 0:
            used += 1
    if 4 * used > 3 * seen:
        for q in range(n):
            ckeys[q] = 0
        return True
    return False


@nb.njit(cache=True, _nrt=False)
def deficiency_batch_nb(counts2d, kinds, sizes, nm, joker_cap, exact, gap, out,
                        ckeys, cvals, cn, scratch, wt):
    for i in range(counts2d.shape[0]):
        if i & 0xFFFF == 0:
            memo_trim_nb(ckeys)
        out[i] = deficiency_ws_nb(counts2d[i], kinds, sizes, nm, joker_cap, exact, gap,
                                  ckeys, cvals, cn, scratch, wt)
