"""The deficiency of a hand for this hand's contract, through the hand memo.

``hand_def_nb`` answers for a seat's hand (cached in the seat's private row, ``PV_DEF``/``PV_DEFOK``);
``def_of_nb``/``def_in_nb`` for any hand of counts, through the memo ``G.hmemo``
(its columns ``HM_K0..HM_K2``, the key, and ``HM_ANSWER``, the deficiency + 1).
"""

import numba as nb
import numpy as np

from ..base.layout import (Contract, Memo, DEF_KNOWN, DEF_LESS_ONE, HM_ANSWER, HM_BITS, HM_K0, HM_K1, HM_K2, JOKER,
    NCARDS, PV_DEF, PV_DEFOK, S_HAND)
from ..melds.finder import INF, deficiency_in_nb

# hand_def_nb and def_of_nb are inlined where they are called: a call passes the R and G
# tuples (a few hundred words on the stack, docs/DEVELOPING.md speed notes), which cost as
# much as the hand memo's answer; only a memo miss calls out, to the meld finder.
@nb.njit(cache=True, _nrt=False, inline="always")
def contract_nb(R, h):
    """Hand h's contract as the meld finder takes it (layout.Contract), from the rules arrays."""
    params = R.params
    return Contract(R.meld_kind[h], R.meld_size[h], R.n_melds[h], R.joker_cap,
                    params.initial_exact, params.same_suit_gap)


@nb.njit(cache=True, _nrt=False, inline="always")
def finder_cache_nb(G):
    """The state's meld finder memo and scratch, as layout.new_cache() gives them."""
    return Memo(G.mkeys, G.mvals, G.mn, G.mscr, G.wt)


@nb.njit(cache=True, _nrt=False, inline="always")
def hand_def_nb(R, G, p):
    """docs/rules.md §6 deficiency of seat p's hand for this hand's contract (cached).

    PV_DEFOK (layout.DEF_*, in the seat's private row) DEF_KNOWN: PV_DEF is it; DEF_LESS_ONE:
    PV_DEF is the deficiency of the hand less the card just added (add_card), so the hand's
    is PV_DEF - 1 or PV_DEF (def_in_nb); DEF_UNKNOWN: nothing known."""
    PV = G.priv
    k = PV[p, PV_DEFOK]
    if k == DEF_KNOWN:
        return PV[p, PV_DEF]
    lo = np.int64(0)
    hi = np.int64(INF)
    if k == DEF_LESS_ONE:
        hi = PV[p, PV_DEF]
        lo = hi - 1 if hi > 0 else hi
    d = def_in_nb(R, G, G.hands[p], lo, hi)
    PV[p, PV_DEF] = d
    PV[p, PV_DEFOK] = DEF_KNOWN
    return d


def _hm_weights():
    """_HM_W[k] @ counts packs a hand into the hand memo's key word k: 3 bits a natural
    (words 0 and 1: 21 naturals each, word 2: the last 10), the jokers from bit 30 of word 2."""
    w = np.zeros((3, NCARDS), np.int64)
    for c in range(JOKER):
        w[c // 21, c] = 1 << (3 * (c % 21))
    w[2, JOKER] = 1 << 30
    return w


_HM_W = _hm_weights()

# The hand memo's hash: odd 64-bit multipliers (as int64; products wrap)
_HM_M0 = np.int64(-7046029254386353131)     # 0x9E3779B97F4A7C15
_HM_M1 = np.int64(-4658895280553007687)     # 0xBF58476D1CE4E5B9
_HM_M2 = np.int64(-7723592293110705685)     # 0x94D049BB133111EB


@nb.njit(cache=True, _nrt=False, inline="always")
def def_of_nb(R, G, counts):
    """docs/rules.md §6 deficiency of the hand ``counts`` for this hand's contract (def_in_nb)."""
    return def_in_nb(R, G, counts, np.int64(0), np.int64(INF))


@nb.njit(cache=True, _nrt=False, inline="always")
def def_in_nb(R, G, counts, lo, hi):
    """def_of_nb of a hand whose deficiency the caller knows to lie in lo..hi: a hand one
    card from a hand of deficiency d is d - 1 or d with a card more, d or d + 1 with a card
    less (the meld finder then searches less: meld_deficiency.deficiency_in_nb). Exact only
    if the bounds hold.

    Through the hand memo G.hmemo (layout.HM_BITS): the bots ask about the same hands
    again and again (a hand less the card just thrown is the hand the next question is
    about; the candidates of a search replay each other's first turns), a third of their
    questions in playouts. The key is the whole hand (3 bits a natural, the jokers) and the
    hand index, so an answer is exact; a count outside 0..7 (or jokers outside 0..63) skips
    the memo. The memo belongs to one rules object, like the meld finder's."""
    params = R.params
    h = G.s[S_HAND]
    k0 = np.int64(0)
    k1 = np.int64(0)
    k2 = np.int64(0)
    big = np.int64(0)
    for c in range(JOKER):                 # multiply-adds: vectorised, unlike shifts by c
        v = counts[c]
        k0 += v * _HM_W[0, c]
        k1 += v * _HM_W[1, c]
        k2 += v * _HM_W[2, c]
        big |= v
    J = counts[JOKER]
    HM = G.hmemo
    slot = np.int64(-1)
    if (big >> 3) == 0 and 0 <= J < 64:
        k2 += (J << 30) | (h << 36)
        x = k0 * _HM_M0 + k1 * _HM_M1 + k2 * _HM_M2
        slot = (x >> (64 - HM_BITS)) & ((1 << HM_BITS) - 1)
        if HM[slot, HM_ANSWER] != 0 and HM[slot, HM_K0] == k0 and HM[slot, HM_K1] == k1 and HM[slot, HM_K2] == k2:
            return HM[slot, HM_ANSWER] - 1
    d = deficiency_in_nb(counts, contract_nb(R, h), finder_cache_nb(G), G.mscr, lo, hi)
    if slot >= 0:
        HM[slot, HM_K0] = k0
        HM[slot, HM_K1] = k1
        HM[slot, HM_K2] = k2
        HM[slot, HM_ANSWER] = d + 1
    return d
