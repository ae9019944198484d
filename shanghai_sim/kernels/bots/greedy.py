"""The greedy bot's decisions (docs/bots.md): its discard, whether taking the upcard pays,
its lay-offs and joker swaps, whether a lone card may be kept, whether a buy is useful. Its
turn is ``players._turn_nb`` with none of smart's hooks."""

import numba as nb
import numpy as np

from ..base.layout import (JOKER, NCARDS, NRANKS, PS_DOWN, PS_N, RUN, SCR_CAND, SCR_TMP, S_NT, S_UP, TM_KEY,
    TM_KIND, TM_NJ)
from ..melds.finder import popcount
from ..base.codes import A_DISCARD, A_SWAP, action_nb
from ..engine.godown import must_lay_off_last_nb
from ..engine.handmemo import def_in_nb, hand_def_nb
from ..engine.play import layoff_list_nb
from ..engine.table import card_layable_nb, do_swap_nb, meld_slots_nb, undo_swap_nb
from ..engine.turn import discard_now_nb, layoff_allowed_now_nb, swap_legal_nb
from ..engine.state import def_restore_nb, def_saved_nb
from .outlook import cards_short_nb
from .basics import NEAR, _def_plus, _down_discard, _insert_key, _pick_ranked, _took


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_discard(R, V, p):
    if not discard_now_nb(R, V, p):
        return action_nb(A_DISCARD, -1, 0, 0)
    if V.ps[p, PS_DOWN] != 0:
        return _down_discard(R, V, p, np.int64(0), np.float64(0.0), np.int64(0), np.float64(0.0))
    # Not down: keep the deficiency lowest; ties: more useful outs, then the higher points
    # go, then the lower card id; a joker or the card just taken only as a last resort.
    pts = R.points
    Hp = V.hands[p]
    cand = V.scr[SCR_CAND]
    took = _took(V, p)
    # Useful outs of the hand less card c: the distinct natural cards that share a rank
    # with a card left or stand within two run positions of one in its suit (the union
    # of NEAR over the cards left). Only a single copy of a natural changes the union:
    # it is then the union over the cards before c and after c (suffix unions in suf).
    suf = V.scr[SCR_TMP]
    acc = np.int64(0)
    for c in range(51, -1, -1):
        suf[c] = acc
        if Hp[c] > 0:
            acc |= np.int64(NEAR[c])
    full = popcount(acc)
    pre = np.int64(0)
    n = np.int64(0)
    for c in range(NCARDS):
        if Hp[c] == 0:
            continue
        outs = full
        if c < JOKER:
            if Hp[c] == 1:
                outs = popcount(pre | suf[c])
            pre |= np.int64(NEAR[c])
        cls = 0 if c == JOKER or c == took else 1
        _insert_key(cand, n, (cls << 56) | (outs << 48) | (pts[c] << 8) | (255 - c))
        n += 1
    return _pick_ranked(R, V, p, n)


@nb.njit(cache=True, _nrt=False, inline="always")
def _take_pays(R, V, p, up):
    """Taking card up and then discarding another natural lowers seat p's deficiency
    (so the same evaluation would not throw it back, nor a joker instead)."""
    Hp = V.hands[p]
    d0 = hand_def_nb(R, V, p)
    if d0 == 0:
        return False
    Hp[up] += 1
    d1 = def_in_nb(R, V, Hp, d0 - 1, d0)               # a card more: d0 - 1 or d0
    ok = False
    if d1 < d0:
        for c in range(JOKER):
            if c == up or Hp[c] == 0:
                continue
            Hp[c] -= 1
            d = def_in_nb(R, V, Hp, d1, d1 + 1)        # a card less: d1 or d1 + 1
            Hp[c] += 1
            if d == d1:
                ok = True
                break
    Hp[up] -= 1
    return ok


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_layoff(R, V, p):
    """The first legal lay-off (cards, then melds, then ends), or -1."""
    BUF = V.buf
    if layoff_list_nb(R, V, p, BUF, np.int64(0), np.int64(1)) > 0:
        return BUF[0]
    return -1


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_swap(R, V, p, down):
    """A joker swap that helps: when down, one whose joker can be laid off afterwards;
    when not down (joker_swap = anyone), one after which the bot can go down."""
    H = V.hands
    TM = V.table
    S = V.s
    for m in range(S[S_NT]):
        if TM[m, TM_NJ] == 0:
            continue
        lo, hi = meld_slots_nb(TM, m)
        for k in range(lo, hi + 1):
            if V.tcards[m, k] != JOKER:
                continue
            for s in range(4):
                if TM[m, TM_KIND] == RUN:
                    if s > 0:
                        break
                    c = TM[m, TM_KEY] * NRANKS + k % NRANKS
                else:
                    c = s * NRANKS + TM[m, TM_KEY]
                if H[p, c] == 0 or not swap_legal_nb(R, V, p, c, m, k):
                    continue
                if not down:
                    return action_nb(A_SWAP, c, m, k)
                saved = def_saved_nb(V, p)
                ident = do_swap_nb(V, p, c, m, k)
                ok = layoff_allowed_now_nb(R, V, p) and card_layable_nb(R, V, np.int64(JOKER))
                undo_swap_nb(V, p, c, m, k, ident)
                def_restore_nb(V, p, saved)
                if ok:
                    return action_nb(A_SWAP, c, m, k)
    return -1


@nb.njit(cache=True, _nrt=False, inline="always")
def _lone_card_ok(R, V, p):
    """Seat p (down) holds cards that do not block a lay-off of one more card."""
    if not must_lay_off_last_nb(V.ps[p, PS_N], R.params.go_out):
        return True
    for c in range(NCARDS):
        if V.hands[p, c] > 0:
            return card_layable_nb(R, V, c)
    return True


@nb.njit(cache=True, _nrt=False, inline="always")
def _useful_buy(R, V, p):
    """buy=useful: the upcard lowers the deficiency, or the hand meets the contract but
    holds too few cards to go down (docs/rules.md §3: from hand 8 only buys get there)."""
    d0 = hand_def_nb(R, V, p)
    if d0 == 0:
        return cards_short_nb(R, V, p) > 0
    return _def_plus(R, V, p, V.s[S_UP], d0) < d0

