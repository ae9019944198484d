"""The meld finder's memo (``layout.CACHE_SPEC``): hashing, the memoised window lists of one
run in a suit and the direct window table (``_wt_row``), and ``memo_trim_nb``.
"""

import numba as nb
import numpy as np

from ..base.layout import FP, MEMO_T, NPOS, WT_W  # noqa: F401
from .search import win_maxl, win_skip
from .bits import RESERVED, _fold, popcount


@nb.njit(cache=True, _nrt=False)
def _all_windows(px, x, s, exact, joker_cap, cands, n, kmin, kmax):
    """Every window of suit x into cands (``bundles.WindowList``; for the rare suit whose
    undominated list does not fit the memo)."""
    for lo in range(0, NPOS - s + 1):
        for L in range(s, win_maxl(lo, s, exact) + 1):
            pm = _window_pm(px, lo, L, s)
            if pm < 0:
                continue
            n, kmin, kmax = _window_bound(x, L, _fold(pm), L - popcount(pm), joker_cap, cands,
                                          n, kmin, kmax)
    return n, kmin, kmax


@nb.njit(cache=True, inline="always")
def _window_pm(px, lo, L, s):
    """Held positions (of px) inside the window of L positions from lo; -1 when
    win_skip drops the window."""
    if win_skip(L, s, ((px >> lo) & 1) != 0, ((px >> (lo + L - 1)) & 1) != 0):
        return -1
    return px & (((1 << L) - 1) << lo)


@nb.njit(cache=True, inline="always")
def _window_bound(x, L, held, m, joker_cap, cands, n, kmin, kmax):
    """Append window (suit x, L positions, held ranks, m missing) to the candidate list
    cands (``bundles.WindowList``) at n with its lower bound k = max(e + es_min,
    m + ms_min - jokers); returns the new n and the bounds' min and max."""
    e = m - joker_cap[L]
    if e < 0:
        e = 0
    a = e + cands.es_min
    b = m + cands.ms_min - cands.jokers
    k = a if a > b else b
    cands.cw[n] = x | (L << 6)
    cands.ch[n] = held
    cands.ck[n] = k
    cands.cme[n] = m | (e << 8)
    n += 1
    if k < kmin:
        kmin = k
    if k > kmax:
        kmax = k
    return n, kmin, kmax


@nb.njit(cache=True, inline="always")
def _memo_probe(key, ckeys):
    """Probe the memo for key: (q, True) when slot q holds it, (q, False) when q is free
    for it, (-1, False) when the 8 probes met neither (the caller uses a reserved slot)."""
    slots = ckeys.shape[0]
    h = _hslot(key, slots)
    for probe in range(8):
        q = (h + probe) & (slots - 1)
        if q >= slots - RESERVED:
            continue
        k = ckeys[q]
        if k == key:
            return q, True
        if k == 0:
            return q, False
    return -1, False


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
    key = (np.int64(s) << 40) | (np.int64(3) << 36) | np.int64(px)
    key += 1
    q, hit = _memo_probe(key, ckeys)
    if hit:
        return q
    if q >= 0:
        return _window_fill(px, s, exact, joker_cap, ckeys, cvals, cn, q, key)
    # full: the reserved window slot, for this suit only (its list is read at once)
    return _window_fill(px, s, exact, joker_cap, ckeys, cvals, cn, ckeys.shape[0] - RESERVED + 4, np.int64(0))


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
        for L in range(s, win_maxl(lo, s, exact) + 1):
            pm = _window_pm(px, lo, L, s)
            if pm < 0:
                continue
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
        _window_fill(px, s, exact, joker_cap, ckeys, cvals, cn, q, np.int64(0))
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


@nb.njit(cache=True, inline="always")
def _hslot(key, slots):
    """Home slot of a memo key (slots: a power of two)."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & (slots - 1)


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
