"""Fast path: one or two sets of one size with two or three runs of one size (every natural
count <= 2): the sets' ranks and the cards they take, over the runs' memoised per-suit
fronts.

A set takes its naturals from the cards of its rank in the four suits; what it leaves is
what the runs of each suit may use. For a choice of set ranks and of the cards they take
(d[x, r] of the c[x, r] copies), the sets cost E_s, M_s by the group rule of the general
search and the runs cost the best split of the per-suit Pareto fronts (``_split_min``)
of the suits' remaining contents; the lay-down minimises max(E_s + E_r, M_s + M_r - J)
over both, which is the general search's answer (every allocation of the hand's cards
gives the sets some d and the runs at most the rest, and fronts never get worse with
more cards). The runs' best with every card left is a lower bound for each choice of
ranks (sets with every card of their rank), so choices are taken in the order of that
bound and the search stops once it reaches the best found.
"""

import numba as nb
import numpy as np

from ..compile.linking import separate
from ..base.layout import MS_MIX, NCARDS, NRANKS
from .search import INF
from .bits import RESERVED, rank_count_nb
from .runs import X0, X1, X2, X3, _split_min, _suit_key, _suit_slot
from .bundles import Mixed

# Offsets inside scratch[MS_MIX:]: the working counts, the suits' base slots, the rank
# counts, the slots of the suits' contents per take, the bounds of each choice of ranks,
# and the lazily filled table of the runs' bound per (E0, M0) of the sets.
_CC = 0                    # counts less the cards the sets take (NCARDS)
_QB = _CC + NCARDS         # each suit's slot, nothing taken (4)
_NR = _QB + 4              # natural cards of each rank (13)
_OQ = _NR + 13             # slot of suit x with take code k at _OQ + 9 * x + k (36)
_CL = _OQ + 36             # bound of each choice of ranks (169: ra * 13 + rb, ra <= rb)
_LB = _CL + 169            # the runs' best for the sets' (E0, M0) (at most 27 * 27)
MIX_W = _LB + 27 * 27      # scratch[MS_MIX:MS_MIX + MIX_W] must end below MS_HEAD
UNSET = -INF + 1            # an entry of the bound table not computed yet


@nb.njit(cache=True, _nrt=False)
def _lb_of(F, X, counts, E0, M0):
    """The runs' best with every card of the hand, plus (E0, M0): a lower bound for any
    take of the sets that cost (E0, M0); memoised in X.lbt for this call. -INF: fall back."""
    i = E0 * X.lbw + M0
    v = X.lbt[i]
    if v == UNSET:
        v = _lb_split(F, X, counts, E0, M0)
        X.lbt[i] = v
    return v


# Separate: the split's code (most of the mixed path's) is compiled once, not again inside
# both of _lb_of's callers (_sets_runs and _ranks_choice); a memo miss pays one call.
@separate
@nb.njit(cache=True, _nrt=False)
def _lb_split(F, X, counts, E0, M0):
    qb = X.qb
    return _split_min(F, counts, (qb[0], qb[1], qb[2], qb[3]), X.s_run, X.nr, E0, M0, np.int64(INF))


@nb.njit(cache=True, inline="always")
def _group_em(k, g, s, thr):
    """(E, M) of k sets of one rank (size s, threshold thr) given g of its naturals."""
    e = k * thr - g
    return (e if e > 0 else 0), k * s - g


@separate
@nb.njit(cache=True, _nrt=False)
def _ranks_choice(F, X, counts, ra, ka, rb, kb, best):
    """min(best, the lay-downs whose sets are ka sets of rank ra and kb of rank rb (kb = 0:
    none)) over every take of their naturals; -INF: fall back to the general search.
    F: ``bundles.Finder``; X: ``bundles.Mixed``."""
    s_set, thr = X.s_set, X.thr
    cc = X.cc
    oq = X.oq
    for i in range(36):
        oq[i] = -2
    # digits: copies each suit holds of ra (x) and rb (4 + x)
    ca0 = counts[ra]
    ca1 = counts[NRANKS + ra]
    ca2 = counts[26 + ra]
    ca3 = counts[39 + ra]
    cb0 = counts[rb] if kb > 0 else 0
    cb1 = counts[NRANKS + rb] if kb > 0 else 0
    cb2 = counts[26 + rb] if kb > 0 else 0
    cb3 = counts[39 + rb] if kb > 0 else 0
    ga_max = ka * s_set
    gb_max = kb * s_set
    for a0 in range(ca0 + 1):
        for a1 in range(ca1 + 1):
            for a2 in range(ca2 + 1):
                for a3 in range(ca3 + 1):
                    ga = a0 + a1 + a2 + a3
                    if ga > ga_max:
                        continue
                    ea, ma = _group_em(ka, ga, s_set, thr)
                    for b0 in range(cb0 + 1):
                        for b1 in range(cb1 + 1):
                            for b2 in range(cb2 + 1):
                                for b3 in range(cb3 + 1):
                                    gb = b0 + b1 + b2 + b3
                                    if gb > gb_max:
                                        continue
                                    eb, mb = _group_em(kb, gb, s_set, thr)
                                    E0 = ea + eb
                                    M0 = ma + mb
                                    lb = _lb_of(F, X, counts, E0, M0)
                                    if lb == -INF:
                                        return -INF
                                    if lb >= best:
                                        continue
                                    q0 = _take_slot(F, X, counts, X0, ra, a0, rb, b0)
                                    q1 = _take_slot(F, X, counts, X1, ra, a1, rb, b1)
                                    q2 = _take_slot(F, X, counts, X2, ra, a2, rb, b2)
                                    q3 = _take_slot(F, X, counts, X3, ra, a3, rb, b3)
                                    if q0 < 0 or q1 < 0 or q2 < 0 or q3 < 0:
                                        return -INF
                                    v = _split_min(F, cc, (q0, q1, q2, q3), X.s_run, X.nr, E0, M0, best)
                                    # cc back to the hand for the next take
                                    cc[ra] = ca0
                                    cc[NRANKS + ra] = ca1
                                    cc[26 + ra] = ca2
                                    cc[39 + ra] = ca3
                                    if kb > 0:
                                        cc[rb] = cb0
                                        cc[NRANKS + rb] = cb1
                                        cc[26 + rb] = cb2
                                        cc[39 + rb] = cb3
                                    if v == -INF:
                                        return -INF
                                    best = v
                                    if best <= 0:
                                        return best
    return best


@nb.njit(cache=True, _nrt=False)
def _take_slot(F, X, counts, x, ra, da, rb, db):
    """Memo slot of suit x less da cards of rank ra and db of rank rb (X.cc holds the hand;
    suit x's cells are set to what the take leaves); -1 to fall back (a front too big, or
    the memo full: a reserved slot would be overwritten by the next take of this suit)."""
    cc, oq, s = X.cc, X.oq, X.s_run
    cc[x * NRANKS + ra] = counts[x * NRANKS + ra] - da
    if db > 0:
        cc[x * NRANKS + rb] = counts[x * NRANKS + rb] - db
    if da == 0 and db == 0:
        return X.qb[x]
    k = 9 * x + da + 3 * db
    q = oq[k]
    if q == -2:
        q = _suit_slot(F, cc, x, s, _suit_key(cc, x, s))
        if q >= F.ckeys.shape[0] - RESERVED:
            q = -1
        oq[k] = q
    return q


@separate
@nb.njit(cache=True, _nrt=False)
def _sets_runs(F, counts, ns, s_set, nr, s_run, b_lo, b_hi):
    """ns = 1 or 2 sets of size s_set and nr = 2 or 3 runs of size s_run, every natural
    count <= 2, a memo of at least MEMO_MIN slots; -INF to fall back to the general search.
    (b_lo, b_hi): bounds the caller knows, b_lo <= the answer <= b_hi (deficiency_in_nb).
    F: ``bundles.Finder``."""
    thr = s_set - F.joker_cap[s_set]
    if thr < 0:
        thr = 0
    w = F.scratch[MS_MIX:MS_MIX + MIX_W]
    nrk = w[_NR:_NR + NRANKS]
    cl = w[_CL:_CL + 169]
    # the helpers' context: the work areas, and the contract's sizes (int64, not literals)
    X = Mixed(w[_CC:_CC + NCARDS], w[_QB:_QB + 4], w[_OQ:_OQ + 36], w[_LB:_LB + 27 * 27],
              2 * s_set + 1, s_set, thr, nr, s_run)
    cc, qb, lbt = X.cc, X.qb, X.lbt
    for i in range((2 * thr + 1) * X.lbw):
        lbt[i] = UNSET
    for c in range(NCARDS):
        cc[c] = counts[c]
    slots = F.ckeys.shape[0]
    for x in range(4):
        q = _suit_slot(F, counts, x, s_run, _suit_key(counts, x, s_run))
        if q < 0 or q >= slots - RESERVED:
            return -INF
        qb[x] = q
    for r in range(NRANKS):
        nrk[r] = rank_count_nb(counts, r)
    # the bound of each choice of ranks: its sets with every natural of their rank
    lo = INF
    hi = -INF
    for ra in range(NRANKS):
        for rb in range(ra, NRANKS):
            if ns == 1:
                if rb != ra:
                    cl[ra * NRANKS + rb] = INF
                    continue
                g = nrk[ra] if nrk[ra] < s_set else s_set
                E0, M0 = _group_em(1, g, s_set, thr)
            elif rb == ra:
                g = nrk[ra] if nrk[ra] < 2 * s_set else 2 * s_set
                E0, M0 = _group_em(2, g, s_set, thr)
            else:
                ga = nrk[ra] if nrk[ra] < s_set else s_set
                gb = nrk[rb] if nrk[rb] < s_set else s_set
                ea, ma = _group_em(1, ga, s_set, thr)
                eb, mb = _group_em(1, gb, s_set, thr)
                E0 = ea + eb
                M0 = ma + mb
            v = _lb_of(F, X, counts, E0, M0)
            if v == -INF:
                return -INF
            cl[ra * NRANKS + rb] = v
            if v < lo:
                lo = v
            if v > hi:
                hi = v
    best = np.int64(b_hi)
    level = lo
    while level <= hi and level < best:
        for ra in range(NRANKS):
            for rb in range(ra, NRANKS):
                if cl[ra * NRANKS + rb] != level:
                    continue
                # one set of ra, two of ra, or one of ra and one of rb; one call site, so
                # numba compiles _ranks_choice once (not once per literal ka, kb)
                ka = np.int64(2 if ns == 2 and rb == ra else 1)
                kb = np.int64(1 if rb != ra else 0)
                v = _ranks_choice(F, X, counts, ra, ka, rb, kb, best)
                if v == -INF:
                    return -INF
                best = v
                if best <= level or best <= 0 or best <= b_lo:     # (a deficiency is never below 0)
                    return best
        level += 1
    return best
