"""The stock and the table melds: reshuffles and draws, meld validity, what fits where,
and lay-offs and joker swaps done and undone (docs/rules.md §4)."""

import numba as nb
import numpy as np

from ..base.layout import (NRANKS, JOKER, RNG_DEAL, RUN, SET, S_NT, S_PASSES, S_PILE_N, S_STOCK_N,
    S_UP_ON_PILE, TM_HI, TM_KEY, TM_KIND, TM_LO, TM_N, TM_NJ, TW)
from ..base.rng import shuffle_nb
from ..base.codes import (EV_RESHUFFLE, OPT_HIGH, OPT_LOW, RESHUFFLE_CARDS, RESHUFFLE_KEPT, RESHUFFLE_PASS,
                          RESHUFFLE_SIZE)
from .state import add_card, ev_nb, rem_card

# ---------------------------------------------------------------- stock

@nb.njit(cache=True, _nrt=False)
def reshuffle_nb(R, G):
    """docs/rules.md §5.5: the pile less the upcard lying on it becomes the new stock."""
    S = G.s
    STK = G.stock
    PILE = G.pile
    if S[S_PASSES] >= R.params.max_stock_passes:
        return False
    keep = 1 if S[S_UP_ON_PILE] != 0 else 0
    m = S[S_PILE_N] - keep
    if m <= 0:
        return False
    for i in range(m):
        STK[i] = PILE[i]
    kept = -1
    if keep:
        kept = PILE[m]
        PILE[0] = kept
    S[S_PILE_N] = keep
    S[S_STOCK_N] = m
    shuffle_nb(G.rng[RNG_DEAL], STK, m)
    S[S_PASSES] += 1
    b = ev_nb(G, EV_RESHUFFLE, RESHUFFLE_SIZE)
    if b >= 0:
        G.log[b + RESHUFFLE_PASS] = S[S_PASSES]
        G.log[b + RESHUFFLE_CARDS] = m
        G.log[b + RESHUFFLE_KEPT] = kept
    return True


@nb.njit(cache=True, _nrt=False, inline="always")
def draw_stock_nb(R, G):
    """The top card of the stock, reshuffling if needed; -1 if the hand must stop."""
    S = G.s
    if S[S_STOCK_N] == 0:
        if not reshuffle_nb(R, G):
            return -1
    n = S[S_STOCK_N] - 1
    S[S_STOCK_N] = n
    return G.stock[n]


# ---------------------------------------------------------------- table melds

@nb.njit(cache=True, _nrt=False, inline="always")
def meld_slots_nb(TM, m):
    """The first and last slot of table meld m in its row of G.tcards: a run's positions
    lo..hi, a set's cards 0..n-1."""
    if TM[m, TM_KIND] == RUN:
        return TM[m, TM_LO], TM[m, TM_HI]
    return np.int64(0), TM[m, TM_N] - 1


@nb.njit(cache=True, _nrt=False)
def meld_jokers_nb(cap, kind, key, lo, n, row, off, at_pos):
    """The one meld rule (docs/rules.md §4, §3 joker_limit), for the table and for a
    proposal alike: do the n cards row[off + k] make a meld of this kind and key (a set:
    3 to TW cards of rank key; a run: 4 to 13 cards of suit key at positions lo..lo+n-1
    within 0..13), with at least one natural and at most cap[n] jokers? A proposal row
    lists a run's cards in order; the table keeps them at their positions (at_pos: the
    card at position q is row[off + q]). Returns the number of jokers, or -1."""
    if n < 1 or n >= cap.shape[0]:
        return -1
    if kind == SET:
        if n < 3 or n > TW or key < 0 or key > 12:
            return -1
        base = off
    elif kind == RUN:
        if key < 0 or key > 3 or n < 4 or n > 13 or lo < 0 or lo + n - 1 > 13:
            return -1
        base = off + lo if at_pos else off
    else:
        return -1
    nj = 0
    for k in range(n):
        c = row[base + k]
        if c == JOKER:
            nj += 1
        elif kind == SET:
            if c < 0 or c > JOKER or c % NRANKS != key:
                return -1
        elif c != key * NRANKS + (lo + k) % NRANKS:
            return -1
    if nj >= n or nj > cap[n]:
        return -1
    return nj


@nb.njit(cache=True, _nrt=False)
def meld_valid_nb(R, G, m):
    """Is table meld m valid (meld_jokers_nb), with its bookkeeping consistent: the joker
    count TM_NJ, a run's TM_HI, empty cells outside the meld, and under set_joker_identity
    = card a declared suit for each joker of a set?"""
    TM = G.table
    TC = G.tcards
    TJ = G.tjokers
    kind = TM[m, TM_KIND]
    n = TM[m, TM_N]
    lo = TM[m, TM_LO] if kind == RUN else 0
    nj = meld_jokers_nb(R.joker_cap, kind, TM[m, TM_KEY], lo, n, TC[m], np.int64(0), np.bool_(True))
    if nj < 0 or nj != TM[m, TM_NJ]:
        return False
    if kind == RUN:
        if TM[m, TM_HI] != lo + n - 1:
            return False
        for pos in range(14):
            if (pos < lo or pos >= lo + n) and TC[m, pos] != -1:
                return False
    else:
        for k in range(n, TW):
            if TC[m, k] != -1:
                return False
        if R.params.set_joker_card != 0:
            for k in range(n):
                if TC[m, k] == JOKER and (TJ[m, k] < 0 or TJ[m, k] > 3):
                    return False
    return True


@nb.njit(cache=True, _nrt=False)
def fits_nb(TM, cap, set_joker_card, c, m, opt):
    """Would card c fit meld m at opt (docs/rules.md §4 lay-off; joker_limit after it)?

    Takes the few arrays it reads, not the state tuples: a call with R and G costs
    a few hundred nanoseconds of argument passing, and this runs in every lay-off loop.
    """
    n = TM[m, TM_N]
    nj = TM[m, TM_NJ] + (1 if c == JOKER else 0)
    if n + 1 >= cap.shape[0] or nj > cap[n + 1]:
        return False
    key = TM[m, TM_KEY]
    if TM[m, TM_KIND] == SET:
        if n + 1 > TW:
            return False
        if c == JOKER:
            if set_joker_card != 0:
                return 0 <= opt <= 3
            return opt == 0
        return opt == 0 and c % NRANKS == key
    lo = TM[m, TM_LO]
    hi = TM[m, TM_HI]
    if hi - lo + 1 >= 13:      # 14 positions would hold both aces
        return False
    if opt == OPT_LOW:
        pos = lo - 1
    elif opt == OPT_HIGH:
        pos = hi + 1
    else:
        return False
    if pos < 0 or pos > 13:
        return False
    if c == JOKER:
        return True
    return c == key * NRANKS + pos % NRANKS


@nb.njit(cache=True, _nrt=False, inline="always")
def fit_mask_nb(TM, nt):
    """The natural cards that might fit a meld of the nt on the table (fits_nb without its
    joker_limit and size tests: the rank of a set, the cards at both ends of a run), as a
    mask of bits 0..51, and bit JOKER when there is a meld. A card outside it fits none, so
    the lay-off loops test fits_nb only for the cards in it."""
    mask = np.int64(0)
    for m in range(nt):
        key = TM[m, TM_KEY]
        if TM[m, TM_KIND] == SET:
            mask |= np.int64(0x8004002001) << key      # key, key + 13, + 26, + 39
        else:
            lo = TM[m, TM_LO] - 1
            hi = TM[m, TM_HI] + 1
            if lo >= 0:
                mask |= np.int64(1) << (key * NRANKS + lo % NRANKS)
            if hi <= 13:
                mask |= np.int64(1) << (key * NRANKS + hi % NRANKS)
    if nt > 0:
        mask |= np.int64(1) << JOKER
    return mask


@nb.njit(cache=True, _nrt=False)
def layable_nb(TM, nt, cap, set_joker_card, c):
    """Does card c fit some meld of the nt on the table?"""
    for m in range(nt):
        if fits_nb(TM, cap, set_joker_card, c, m, np.int64(0)):
            return True
        if TM[m, TM_KIND] != SET and fits_nb(TM, cap, set_joker_card, c, m, np.int64(1)):
            return True
    return False


@nb.njit(cache=True, _nrt=False)
def layoff_struct_nb(R, G, c, m, opt):
    """fits_nb from the state tuples."""
    return fits_nb(G.table, R.joker_cap, R.params.set_joker_card, c, m, opt)


@nb.njit(cache=True, _nrt=False, inline="always")
def card_layable_nb(R, G, c):
    return layable_nb(G.table, G.s[S_NT], R.joker_cap, R.params.set_joker_card, c)


@nb.njit(cache=True, _nrt=False, inline="always")
def do_layoff_nb(R, G, p, c, m, opt):
    TM = G.table
    TC = G.tcards
    TJ = G.tjokers
    rem_card(G, p, c)
    if TM[m, TM_KIND] == SET:
        k = TM[m, TM_N]
        TC[m, k] = c
        TJ[m, k] = opt if (c == JOKER and R.params.set_joker_card != 0) else -1
    else:
        if opt == OPT_LOW:
            TM[m, TM_LO] -= 1
            TC[m, TM[m, TM_LO]] = c
        else:
            TM[m, TM_HI] += 1
            TC[m, TM[m, TM_HI]] = c
    TM[m, TM_N] += 1
    if c == JOKER:
        TM[m, TM_NJ] += 1


@nb.njit(cache=True, _nrt=False)
def undo_layoff_nb(R, G, p, c, m, opt):
    TM = G.table
    TC = G.tcards
    TJ = G.tjokers
    TM[m, TM_N] -= 1
    if c == JOKER:
        TM[m, TM_NJ] -= 1
    if TM[m, TM_KIND] == SET:
        k = TM[m, TM_N]
        TC[m, k] = -1
        TJ[m, k] = -1
    else:
        if opt == OPT_LOW:
            TC[m, TM[m, TM_LO]] = -1
            TM[m, TM_LO] += 1
        else:
            TC[m, TM[m, TM_HI]] = -1
            TM[m, TM_HI] -= 1
    add_card(G, p, c)


@nb.njit(cache=True, _nrt=False)
def swap_struct_nb(R, G, c, m, slot):
    """May natural card c replace the joker at slot of meld m (docs/rules.md §3 joker_swap, set_joker_identity)?"""
    TM = G.table
    if c < 0 or c >= JOKER or m < 0 or m >= G.s[S_NT] or slot < 0 or slot >= TW:
        return False
    if G.tcards[m, slot] != JOKER:
        return False
    key = TM[m, TM_KEY]
    if TM[m, TM_KIND] == RUN:
        return c == key * NRANKS + slot % NRANKS
    if c % NRANKS != key:
        return False
    if R.params.set_joker_card != 0:
        return G.tjokers[m, slot] == c // NRANKS
    return True


@nb.njit(cache=True, _nrt=False)
def do_swap_nb(G, p, c, m, slot):
    """Returns what the joker stood for (run: position; set: declared suit or -1)."""
    TM = G.table
    ident = slot if TM[m, TM_KIND] == RUN else G.tjokers[m, slot]
    rem_card(G, p, c)
    G.tcards[m, slot] = c
    G.tjokers[m, slot] = -1
    TM[m, TM_NJ] -= 1
    add_card(G, p, JOKER)
    return ident


@nb.njit(cache=True, _nrt=False)
def undo_swap_nb(G, p, c, m, slot, ident):
    TM = G.table
    rem_card(G, p, JOKER)
    G.tcards[m, slot] = JOKER
    if TM[m, TM_KIND] == SET:
        G.tjokers[m, slot] = ident
    TM[m, TM_NJ] += 1
    add_card(G, p, c)
