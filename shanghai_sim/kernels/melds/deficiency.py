"""The deficiency dispatcher (docs/rules.md §6): ``deficiency_ws_nb`` picks the fast path
that fits the contract, or the general search; ``deficiency_nb`` and
``deficiency_batch_nb`` around it.
"""

import numba as nb
import numpy as np

from ..base.layout import NRANKS, FP, JOKER, MEMO_T, MS_PMASK, MS_RC, MS_RUN_CNT, MS_WR, NPOS, SCRATCH, SET, WT_W, new_cache  # noqa: F401
from ..base.layout import MAX_MELDS as MAXM  # melds per contract
from .search import INF, _search, _suit_counts
from .bits import MAXR, MEMO_MIN, _prefetch, rank_count_nb
from .sets import _sets_cost, _top
from .memo import _wt_row, memo_trim_nb
from .onerun import _one_run, _one_run_one_set, _one_run_sets
from .runs import _runs_fast, _runs_only
from .mixed import _sets_runs
from .bundles import Finder


@nb.njit(cache=True, _nrt=False, inline="always")
def deficiency_ws_nb(counts, C, M):
    """Deficiency of ``counts`` for the contract C (``layout.Contract``) with the memo and
    scratch M of ``layout.new_cache()``; exact for every contract."""
    return deficiency_in_nb(counts, C, M, M.mscr, np.int64(0), np.int64(INF))


# Not linking.separate, unlike the fast paths it calls: its own code is small, and a call by
# symbol from hand_def_nb and the bots cost greedy games about 4% (cheap calls, set contracts
# and memo hits, are most of them).
@nb.njit(cache=True, _nrt=False)
def deficiency_in_nb(counts, C, M, scratch, lo, hi):
    """deficiency_ws_nb of a hand whose deficiency the caller knows to lie in lo..hi.

    The bots mostly ask about a hand one card away from a hand they know: a card more
    lowers the deficiency d by at most one (the hand is d - 1 or d), a card less raises it
    by at most one (d or d + 1). The fast paths then start their branch and bound at hi
    instead of infinity, which cuts most of a hand that the card does not change, and stop
    as soon as they reach lo. Exact only if the bounds hold (a bound that is wrong gives a
    wrong answer). (0, INF) is deficiency_ws_nb. M: ``layout.new_cache()``'s memo, or None
    (deficiency_nb: then only the sets path and the general search are compiled in);
    scratch: its scratch array (M.mscr), or one of SCRATCH words.
    """
    kinds, sizes, nm, joker_cap, exact, gap = C.kinds, C.sizes, C.nm, C.joker_cap, C.exact, C.gap
    # np.int64(0), not 0: a literal start value makes numba compile every callee once more
    # for the literal types it sees before the loop's types settle (kernels/__init__.py)
    ns = np.int64(0)
    nr = np.int64(0)
    s_set = np.int64(0)
    s_run = np.int64(0)
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
            rc = scratch[MS_RC:MS_RC + NRANKS]
            for r in range(NRANKS):
                rc[r] = 0
            for t in range(JOKER):
                rc[t % NRANKS] += counts[t]
            top = scratch[0:MAXM]
            _top(rc, ns, top)
            v = _sets_cost(top, ns, s_set, s_set - joker_cap[s_set], np.int64(0), np.int64(0), J)
            return v if v > 0 else 0
        # The fast paths need the memo. Without one (M None: deficiency_nb, one hand at
        # a time) numba prunes them unseen and only the general search is compiled in.
        if M is not None:
            ckeys, cvals, cn, wt = M.mkeys, M.mvals, M.mn, M.wt
            # the fast paths' per-call context, built once here and passed down (bundles.Finder)
            F = Finder(J, joker_cap, exact, gap, ckeys, cvals, cn, wt, scratch)
            if nr == 1:
                rc = scratch[MS_RC:MS_RC + NRANKS]
                pmask = scratch[MS_PMASK:MS_PMASK + 4]
                wr = scratch[MS_WR:MS_WR + 4]
                # a small memo would refill on every call: no fast path
                fast = ns > 0 and ckeys.shape[0] >= MEMO_MIN
                for x in range(4):
                    pm = 0
                    for p in range(NRANKS):
                        if counts[x * NRANKS + p] > 0:
                            pm |= 1 << p
                    pmask[x] = pm | ((pm & 1) << 13)
                    if fast:
                        _prefetch(wt, ((s_run - 4) << NPOS) | pmask[x])
                for r in range(NRANKS):
                    rc[r] = rank_count_nb(counts, r)
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
                            v = _one_run_one_set(rc, wr, J, s_set, joker_cap, scratch, wt, lo, hi)
                        else:
                            v = _one_run_sets(rc, wr, J, ns, s_set, joker_cap, scratch, wt, lo, hi)
                if v == -INF:
                    v = _one_run(F, rc, pmask, s_run, ns, s_set, lo, hi)
                return v if v > 0 else 0
            if nr >= 2 and nr <= MAXR and ns <= 2 and ckeys.shape[0] >= MEMO_MIN and (
                    ns == 0 or (nr <= 3 and s_set <= 13)):
                small = True
                for c in range(JOKER):
                    if counts[c] > 2:
                        small = False
                        break
                if small:
                    if ns == 0:
                        v = _runs_fast(F, counts, s_run, nr, hi)
                    else:
                        v = _sets_runs(F, counts, ns, s_set, nr, s_run, lo, hi)
                    if v != -INF:
                        return v if v > 0 else 0
            if ns == 0 and nr <= MAXR:
                cnt = scratch[MS_RUN_CNT:MS_RUN_CNT + 4 * NPOS].reshape((4, NPOS))
                _suit_counts(counts, cnt)
                v = _runs_only(F, cnt, s_run, nr)
                if v >= 0:
                    return v if v > 0 else 0
    v = _search(counts, kinds, sizes, nm, joker_cap, exact, gap)
    return v if v > 0 else 0


@nb.njit(cache=True, _nrt=True)
def deficiency_nb(counts, C):
    """docs/rules.md §6 deficiency of ``counts`` for the contract C (``layout.Contract``).

    One hand at a time (``analyze_hand``, the ``meld`` command): no memo, so only the
    sets path and the general search are compiled for it (a cold ``meld`` then compiles
    a fraction of the meld finder). Many hands: ``deficiency_ws_nb`` with
    ``layout.new_cache()`` or ``deficiency_batch_nb``, on the memoised fast paths.
    """
    scratch = np.zeros(SCRATCH, np.int64)
    return deficiency_in_nb(counts, C, None, scratch, np.int64(0), np.int64(INF))


@nb.njit(cache=True, _nrt=False)
def deficiency_batch_nb(counts2d, C, out, M, packs, jokers):
    """Deficiencies of the rows of ``counts2d`` for the contract C into ``out`` (M: the memo of
    ``layout.new_cache()``); -1, or the index of the first
    row with a count below 0 or above the shoe (``packs`` of each natural, ``jokers``),
    where it stops. Each row is checked as it is read, so checking costs no pass of its own."""
    for i in range(counts2d.shape[0]):
        if i & 0xFFFF == 0:
            memo_trim_nb(M.mkeys)
        row = counts2d[i]
        top = np.int64(0)            # branch-free over the naturals (vectorised): about 6 ns a hand
        low = np.int64(0)
        for c in range(JOKER):
            top = max(top, row[c])
            low = min(low, row[c])
        if low < 0 or top > packs or row[JOKER] < 0 or row[JOKER] > jokers:
            return i
        out[i] = deficiency_ws_nb(row, C, M)
    return -1
