"""What every thinking bot shares: the random bot, the
deficiency after a card, the near-card masks, picking among ranked cards, and the discard of a
seat that is down (docs/bots.md)."""

import numba as nb
import numpy as np

from ..base.layout import (NPOS, JOKER, M_CARDS, M_N, NCARDS, NRANKS, PS_DOWN, PS_N, PS_TOOK, RNG_BOT0,
    SCR_CAND, SCR_TMP, S_HAND, S_NT, S_PHASE)
from ..base.codes import A_DISCARD, A_GO_DOWN, PH_PLAY, action_nb
from ..engine.godown import finishable_nb, go_down_available_nb, place_proposal_nb, unplace_nb
from ..engine.handmemo import def_in_nb, hand_def_nb
from ..engine.play import legal_list_nb
from ..engine.table import card_layable_nb, fit_mask_nb, layable_nb
from ..base.rng import randint_nb




@nb.njit(cache=True, _nrt=False, inline="always")
def random_action_nb(R, V, p):
    """Uniformly random among the legal actions.

    Whether going down is legal takes the hand analysis (and may take the lay-down
    search), so a seat not down draws among the n other actions plus one slot for
    it, and asks only if that slot is drawn; if going down then turns out illegal
    it draws again among the n. Each legal action still has the same chance:
    1/(n+1) when going down is legal, else 1/(n+1) + 1/(n+1) * 1/n = 1/n.
    """
    BUF = V.buf
    S = V.s
    rng = V.rng[RNG_BOT0 + p]
    n = legal_list_nb(R, V, BUF, False)
    if S[S_PHASE] != PH_PLAY or V.ps[p, PS_DOWN] != 0:
        return BUF[randint_nb(rng, n)]
    k = randint_nb(rng, n + 1)
    if k < n:
        return BUF[k]
    if go_down_available_nb(R, V, p) or n == 0:
        return action_nb(A_GO_DOWN, 0, 0, 0)
    return BUF[randint_nb(rng, n)]


@nb.njit(cache=True, _nrt=False, inline="always")
def _def_plus(R, V, p, c, d0):
    """The deficiency of seat p's hand with card c more, the hand's own being d0: d0 - 1 or
    d0 (a card more lowers it by at most one), which the meld finder searches less for."""
    H = V.hands
    H[p, c] += 1
    d = def_in_nb(R, V, H[p], d0 - 1 if d0 > 0 else d0, d0)
    H[p, c] -= 1
    return d


def _near_masks():
    """NEAR[c]: the natural cards that share a rank with card c or stand within two run
    positions of it in its suit (ace low and high), as a 52-bit mask."""
    out = np.zeros(JOKER, np.uint64)
    for c in range(JOKER):
        r, s = c % NRANKS, c // NRANKS
        m = 0
        for t in range(4):
            m |= 1 << (t * NRANKS + r)
        for q in (r, 13 if r == 0 else r):
            for d in range(-2, 3):
                pp = q + d
                if 0 <= pp < NPOS:
                    m |= 1 << (s * NRANKS + pp % NRANKS)
        out[c] = m
    return out


NEAR = _near_masks()


@nb.njit(cache=True, _nrt=False)
def _blind_possible(R, V, p):
    """After the finder's lay-down (in GD), could seat p go out this same turn?"""
    S = V.s
    params = R.params
    GD = V.gd
    SCR = V.scr
    h = S[S_HAND]
    nm = R.n_melds[h]
    tmp = SCR[SCR_TMP]
    for c in range(NCARDS):
        tmp[c] = V.hands[p, c]
    r = V.ps[p, PS_N]
    for i in range(nm):
        for k in range(GD[i, M_N]):
            tmp[GD[i, M_CARDS + k]] -= 1
            r -= 1
    go = params.go_out
    left = r
    if params.initial_exact == 0 and r > 0:
        base = place_proposal_nb(R, V, p, nm)
        for c in range(NCARDS):
            if tmp[c] > 0 and card_layable_nb(R, V, c):
                left -= tmp[c]
        unplace_nb(V, base)
    if left == 0 and r > 0:        # lay all off but one and discard it, or lay off all
        return True
    return left <= 1 and finishable_nb(left, go)


@nb.njit(cache=True, _nrt=False, inline="always")
def _pick_ranked(R, V, p, n):
    """The discard among the n ranked candidates in SCR_CAND (keys, highest first: class
    << 56 | score << 8 | 255 - card): the first of class 1 that keeps the hand's
    deficiency, else the first candidate (every discard then costs one). Class 0 (a
    joker, the card just taken from the pile) is never chosen while a class 1 card can be.

    Dropping a card raises the deficiency d of the hand by 0 or 1 (it never lowers it,
    and adding the card back as a natural undoes it), so this usually takes a few
    deficiency evaluations instead of one per distinct card.
    """
    cand = V.scr[SCR_CAND]
    Hp = V.hands[p]
    d_full = hand_def_nb(R, V, p)
    for k in range(n):
        if (cand[k] >> 56) == 0:
            break
        c = 255 - (cand[k] & 255)
        Hp[c] -= 1
        d = def_in_nb(R, V, Hp, d_full, d_full + 1)     # a card less: d_full or one more
        Hp[c] += 1
        if d == d_full:
            return action_nb(A_DISCARD, c, 0, 0)
    return action_nb(A_DISCARD, 255 - (cand[0] & 255), 0, 0)


@nb.njit(cache=True, _nrt=False, inline="always")
def _insert_key(cand, n, key):
    k = n            # insertion, highest key first
    while k > 0 and cand[k - 1] < key:
        cand[k] = cand[k - 1]
        k -= 1
    cand[k] = key


@nb.njit(cache=True, _nrt=False, inline="always")
def _took(V, p):
    """The card seat p took from the pile this turn, or -1."""
    return V.ps[p, PS_TOOK] - 1


@nb.njit(cache=True, _nrt=False, inline="always")
def _down_discard(R, V, p, feed_mask, feed_w, buy_mask, buy_w):
    """Down: shed the most points among the cards that do not fit the table (keep those
    that do for a later turn), less feed_w for a card in feed_mask (the next player's) and
    buy_w for one in buy_mask only (a player who may buy it); a joker only when no
    natural is left (it would help the next player)."""
    H = V.hands
    pts = R.points
    TM = V.table
    nt = V.s[S_NT]
    cap = R.joker_cap
    sjc = R.params.set_joker_card
    best = -1
    bv = -1e18
    fm = fit_mask_nb(TM, nt)
    for c in range(JOKER):
        if H[p, c] > 0:
            fits = ((fm >> c) & 1) != 0 and layable_nb(TM, nt, cap, sjc, c)
            v = pts[c] + (0 if fits else 1000)
            if (feed_mask >> c) & 1:
                v -= feed_w
            elif buy_w != 0 and (buy_mask >> c) & 1:
                v -= buy_w
            if v > bv:
                best = c
                bv = v
    if best < 0:
        best = JOKER
    return action_nb(A_DISCARD, best, 0, 0)

