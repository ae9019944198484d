"""The lay-down: the least-deadwood melds of a hand (``laydown_nb``), whether a hand can lay
the contract down at all (``laydown_sat_nb``), and the most cards a hand could lay
(``max_laid_nb``).
"""

import numba as nb
import numpy as np

from ..compile.linking import separate
from ..base.layout import JOKER, NCARDS, NPOS, NRANKS, RUN, SET
from .bits import popcount, rank_count_nb
from .search import _pos_rank, runs_touch, win_maxl
from .deficiency import deficiency_nb




# ---------------------------------------------------------------- lay-down (deadwood)
#
# deadwood needs the actual cards: an exhaustive search over lay-downs made of
# hand cards only (no added cards), maximising the points laid down. It runs
# only on satisfiable hands (deficiency 0), where every missing slot must be a
# hand joker, which keeps the candidate shapes few. A joker may stand where a
# hand natural could go (that natural stays in hand): under `exact` that is
# sometimes the only way to lay a joker down, so those choices are searched too.

@separate
@nb.njit(cache=True, _nrt=True)
def _lay_search(C, order, nm, points, cnt_hand, rank_av, bestcfg, only_suit, best_j, cfg_j):
    """Depth-first search over lay-downs (iterative, so numba can cache it) of the first nm
    melds of ``order`` in the contract C (``layout.Contract``: its kinds, sizes, joker caps
    and flags), from the hand cnt_hand (its jokers among them) and rank_av, the naturals of
    each rank in it.

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
    kinds, sizes, joker_cap, exact, gap = C.kinds, C.sizes, C.joker_cap, C.exact, C.gap
    jpts = points[JOKER]
    jtotal = cnt_hand[JOKER]
    # one allocation, cut into the cursors (views): the runs-by-suit search calls this once
    # per suit, and sixteen small allocations were a fifth of a typical lay-down's time
    ws = np.zeros(48 * nm + 15, np.int64)
    cur = ws[0:7 * nm].reshape((nm, 7))
    st = ws[7 * nm:8 * nm]               # 0 = cursor not started
    wx = ws[8 * nm:9 * nm]
    wlo = ws[9 * nm:10 * nm]
    wl = ws[10 * nm:11 * nm]
    we = ws[11 * nm:12 * nm]
    wm = ws[12 * nm:13 * nm]             # missing slots of the window
    wemax = ws[13 * nm:14 * nm]
    wpm = ws[14 * nm:15 * nm]            # present-position mask
    npz = ws[15 * nm:16 * nm]
    pos = ws[16 * nm:30 * nm].reshape((nm, 14))
    comb = ws[30 * nm:44 * nm].reshape((nm, 14))
    sk = ws[44 * nm:45 * nm]             # set cursor: naturals
    sj = ws[45 * nm:46 * nm]             # set cursor: jokers
    jl = ws[46 * nm:47 * nm + 1]         # jokers left before depth d
    pl = ws[47 * nm + 1:48 * nm + 2]     # points placed before depth d
    rv = ws[48 * nm + 2:48 * nm + 15]    # _sets_bound's scratch
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
                if d == nm - 1:
                    q = -1              # the last meld: one subset per e (_cheapest_subset)
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
                        if d == nm - 1:
                            _cheapest_subset(pos[d], npz[d], e, wx[d], points, comb[d])
                        else:
                            for w in range(e):
                                comb[d, w] = w
                        found = True
                    else:
                        need_window = True
            pxs = np.int64(-1)       # the suit whose held positions pxx holds
            pxx = np.int64(0)
            while need_window:
                wl[d] += 1
                maxl = win_maxl(wlo[d], sz, exact)
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
                if x != pxs:             # the hand does not change while the windows are scanned
                    pxs = x
                    pxx = 0
                    for p in range(NPOS):
                        if cnt_hand[x * NRANKS + _pos_rank(p)] > 0:
                            pxx |= np.int64(1) << p
                hi = lo + L - 1
                cap = joker_cap[L]
                pm = pxx & (((np.int64(1) << (hi + 1)) - 1) ^ ((np.int64(1) << lo) - 1))
                n = popcount(pm)
                m = L - n
                if m > cap or m > jl[d]:
                    continue
                if gap != 0:
                    touch = False
                    for q in range(d):
                        o = order[q]
                        if kinds[o] == RUN and cur[o, 1] == x and runs_touch(lo, L, cur[o, 2], cur[o, 3]):
                            touch = True
                    if touch:
                        continue
                k = 0
                for p in range(lo, hi + 1):
                    if (pm >> p) & 1:
                        pos[d, k] = p
                        k += 1
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
                        t = x * NRANKS + _pos_rank(p)
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
                # Every meld from here on is a set (runs come first): together they lay at
                # most the naturals of their richest ranks and the jokers left. A branch that
                # cannot beat the best found is not searched; only a strictly better lay-down
                # replaces the best, so the best and the one recorded among equals stay.
                if best >= 0 and only_suit < 0:
                    if pl[d] + jl[d] * jpts + _sets_bound(cnt_hand, points, nm - d, rv) <= best:
                        cur[i, 1] = NRANKS           # nothing to try at this depth
            while cur[i, 1] < NRANKS:
                r = cur[i, 1]
                sj[d] += 1
                if sj[d] > jl[d]:
                    sj[d] = 0
                    sk[d] -= 1
                    if sk[d] < 0:
                        r += 1
                        if r >= NRANKS:
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
                    t = x * NRANKS + r
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


@nb.njit(cache=True, _nrt=False, inline="always")
def _sets_bound(cnt_hand, points, s, rv):
    """The most points s sets can lay from the naturals of cnt_hand: those of its s
    richest ranks (two sets of one rank share that rank's cards). rv: scratch (13)."""
    for r in range(NRANKS):
        v = 0
        for x in range(4):
            v += cnt_hand[x * NRANKS + r] * points[x * NRANKS + r]
        rv[r] = v
    tot = 0
    used = 0
    for _ in range(min(s, NRANKS)):
        b = -1
        br = 0
        for r in range(NRANKS):
            if not ((used >> r) & 1) and rv[r] > b:
                b = rv[r]
                br = r
        used |= 1 << br
        tot += b
    return tot


@nb.njit(cache=True, _nrt=False)
def _cheapest_subset(pos, n, e, x, points, comb):
    """comb[:e] := the e indices into pos[:n] (held positions of a run in suit x) whose
    naturals are worth least, ties to the lower index, in increasing order.

    For the last meld of a lay-down the search tries, for each number e of jokers put
    where a hand natural could go, only this subset: every other one lays fewer points
    (the naturals left out serve no later meld), or as many but comes later in the
    order the subsets were enumerated in (the first of the cheapest e in that order is
    this one), so the best lay-down and the one recorded among equals stay the same."""
    taken = np.int64(0)
    for w in range(e):
        best = -1
        bk = np.int64(1) << 40
        for i in range(n):
            if (taken >> i) & 1:
                continue
            k = points[x * NRANKS + _pos_rank(pos[i])] * 16 + i
            if k < bk:
                bk = k
                best = i
        taken |= np.int64(1) << best
    w = 0
    for i in range(n):
        if (taken >> i) & 1:
            comb[w] = i
            w += 1


@nb.njit(cache=True, _nrt=True)
def _lay_runs_by_suit(C, counts, points, bestcfg):
    """_lay_search for a contract C of runs of one size, suit by suit.

    Runs in different suits share no card and never touch, so only the jokers
    tie the suits together: one search per suit records the most points of
    k = 1..nm runs in it for each number of jokers used, and a small knapsack
    over the four suits shares out the runs and the jokers. The search over
    all suits at once multiplies the suits' choices (hundreds of microseconds
    for three runs); this adds them.
    """
    nm, sizes = C.nm, C.sizes
    J = counts[JOKER]
    # one allocation, cut into views (see _lay_search)
    nf = 4 * (nm + 1) * (J + 1)
    ng = (nm + 1) * (J + 1)
    buf = np.empty(nm + nf * (7 * nm + 3) + 66 + 7 * nm + 2 * ng, np.int64)
    o = 0
    order = buf[o:o + nm]
    o += nm
    for i in range(nm):
        order[i] = i
    f = buf[o:o + nf].reshape((4, nm + 1, J + 1))       # f[x, k, u]: k runs in suit x, u jokers
    o += nf
    f[:] = -1
    cfg = buf[o:o + 7 * nm * nf].reshape((4, nm + 1, J + 1, nm, 7))   # read only where f >= 0
    o += 7 * nm * nf
    pick = buf[o:o + 2 * nf].reshape((4, nm + 1, J + 1, 2))
    o += 2 * nf
    cnt = buf[o:o + NCARDS]
    o += NCARDS
    rank_av = buf[o:o + NRANKS]
    o += NRANKS
    rank_av[:] = 0
    scratch_cfg = buf[o:o + 7 * nm].reshape((nm, 7))
    o += 7 * nm
    g = buf[o:o + ng].reshape((nm + 1, J + 1))
    o += ng
    g2 = buf[o:o + ng].reshape((nm + 1, J + 1))
    for x in range(4):
        f[x, 0, 0] = 0
        nat = 0
        for r in range(NRANKS):
            nat += counts[x * NRANKS + r]
        k = min(nm, (nat + J) // sizes[0])
        if k == 0:
            continue
        for t in range(NCARDS):
            cnt[t] = counts[t]
        for t in range(JOKER):
            rank_av[t % NRANKS] += counts[t]
        _lay_search(C, order, k, points, cnt, rank_av, scratch_cfg, x, f[x], cfg[x])
        for r in range(NRANKS):
            rank_av[r] = 0
    # g[k, u] over the suits so far; pick[x, k, u] = (runs, jokers) of suit x
    g[:] = -1
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
                t = x * NRANKS + _pos_rank(p)
                cnt_hand[t] += 1
                rank_av[_pos_rank(p)] += 1
    else:
        r = cur[i, 1]
        tk = cur[i, 6]
        for x in range(4):
            cnt_hand[x * NRANKS + r] += (tk >> (8 * x)) & 255
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
    ns = np.int64(0)
    for i in range(nm):
        if kinds[i] == SET:
            ns += 1
    nr = nm - ns
    nat = 0
    for c in range(JOKER):
        nat += H[c]
    sets = 0
    used = 0
    for _ in range(ns):
        top = -1
        tr = 0
        for r in range(NRANKS):
            if (used >> r) & 1:
                continue
            v = rank_count_nb(H, r)
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
            for r in range(NRANKS):
                if H[x * NRANKS + r] >= k:
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


@separate
@nb.njit(cache=True, _nrt=False)
def laydown_nb(counts, C, points, out):
    """Least-deadwood lay-down of the contract C (``layout.Contract``) from hand cards;
    deadwood or -1.

    ``out`` rows (contract order): kind, rank (set) or suit (run), lo position
    (run), n cards, then n card ids (52 = joker; in a run the card in column
    4+k stands at position lo+k).
    """
    if deficiency_nb(counts, C) != 0:
        return -1
    return laydown_sat_nb(counts, C, points, out)


@separate
@nb.njit(cache=True, _nrt=True)
def laydown_sat_nb(counts, C, points, out):
    """laydown_nb for a hand already known to be satisfiable (deficiency 0)."""
    kinds, sizes, nm = C.kinds, C.sizes, C.nm
    total = 0
    for t in range(NCARDS):
        total += counts[t] * points[t]
    buf = np.zeros(NCARDS + NRANKS + 8 * nm + 8, np.int64)     # one allocation, cut into views
    cnt_hand = buf[0:NCARDS]
    for t in range(NCARDS):
        cnt_hand[t] = counts[t]
    rank_av = buf[NCARDS:NCARDS + NRANKS]
    for t in range(JOKER):
        rank_av[t % NRANKS] += counts[t]
    # runs first (they pick specific cards), then sets take what is left
    order = buf[66:66 + nm]
    q = 0
    for i in range(nm):
        if kinds[i] == RUN:
            order[q] = i
            q += 1
    for i in range(nm):
        if kinds[i] == SET:
            order[q] = i
            q += 1
    bestcfg = buf[66 + nm:66 + 8 * nm].reshape((nm, 7))
    one_size_runs = nm >= 2
    for i in range(nm):
        if kinds[i] != RUN or sizes[i] != sizes[0]:
            one_size_runs = False
    if one_size_runs:
        best = _lay_runs_by_suit(C, counts, points, bestcfg)
    else:
        best = _lay_search(C, order, nm, points, cnt_hand, rank_av, bestcfg, np.int64(-1),
                           buf[66 + 8 * nm:67 + 8 * nm].reshape((1, 1)),
                           buf[67 + 8 * nm:74 + 8 * nm].reshape((1, 1, 1, 7)))
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
                out[i, 4 + k] = JOKER if (jm >> p) & 1 else x * NRANKS + _pos_rank(p)
        else:
            r = bestcfg[i, 1]
            c = 4
            tk = bestcfg[i, 6]
            for x in range(4):
                for _ in range((tk >> (8 * x)) & 255):
                    out[i, c] = x * NRANKS + r
                    c += 1
            for _ in range(bestcfg[i, 5]):
                out[i, c] = JOKER
                c += 1
    return total - best
