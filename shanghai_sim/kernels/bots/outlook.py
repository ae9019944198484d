"""A seat's outlook in the hand: what it has not seen, the outs that can still come, the
buys it has left, and its chance of going down before the hand ends (smart v2,
docs/bots.md "Version 2"). Everything here reads the seat's view only: its own hand, the
table, the pile, and of the other seats what every player saw (``PS_N``, ``PS_DOWN``,
``PS_BUYS``, ``PS_KNOWN0 + c``).

The chance is an estimate, not a search: the outs still live (every copy of a card that
lowers the deficiency, less those in sight), the draws the seat can expect before someone
goes out (its own draws, the upcards it may take or buy, the penalty cards of its buys)
and a Poisson tail for needing ``d`` outs among them. What the rules force comes first:
a seat that cannot hold the contract's cards with the buys it has left (the rules' limit
and its own knobs, ``buyN=never``, ``maxbuysN``) has chance 0, from its first turn.
"""

import math

import numba as nb
import numpy as np

from .params import (BP_BUY, BP_HAND0, BP_HORIZON, BP_MAXBUYS, BP_MAXBUYS0, BP_OWED, BP_PACE,
                        MAX_HAND_PARAMS)
from ..engine.handmemo import def_in_nb
from ..engine.table import meld_slots_nb
from ..base.layout import (GO_DISCARD_REQUIRED, GO_NO_DISCARD, JOKER, NCARDS, NRANKS, PS_BUYS, PS_DOWN,
    PS_KNOWN0, PS_N, PS_TURNS, RUN, SCR_UNSEEN, S_ACTOR, S_HAND, S_NP, S_NT, S_PASSES, S_PHASE, S_PILE_N,
    S_STOCK_N)
from ..base.codes import BUY_NEVER, PH_PLAY


def _kind_masks():
    """RANKMATES[c]: the natural cards of c's rank (c included: sets take duplicates);
    SUITMATES[c]: the cards of c's suit within two run positions of it (ace low and
    high), c excluded."""
    rk = np.zeros(JOKER, np.uint64)
    sm = np.zeros(JOKER, np.uint64)
    for c in range(JOKER):
        r, s = c % NRANKS, c // NRANKS
        for t in range(4):
            rk[c] |= np.uint64(1 << (t * NRANKS + r))
        m = 0
        for q in (r, NRANKS if r == 0 else r):
            for d in (-2, -1, 1, 2):
                pp = q + d
                if 0 <= pp <= NRANKS and pp % NRANKS != r:
                    m |= 1 << (s * NRANKS + pp % NRANKS)
        sm[c] = np.uint64(m)
    return rk, sm


RANKMATES, SUITMATES = _kind_masks()


@nb.njit(cache=True, _nrt=False, inline="always")
def contract_kinds_nb(R, V):
    """(the hand's contract has a set, it has a run)."""
    h = V.s[S_HAND]
    has_set = np.bool_(False)      # not literals: a Literal[bool] reaching a callee compiles it twice
    has_run = np.bool_(False)
    for i in range(R.n_melds[h]):
        if R.meld_kind[h, i] == RUN:
            has_run = True
        else:
            has_set = True
    return has_set, has_run


@nb.njit(cache=True, _nrt=False, inline="always")
def mates_nb(c, has_set, has_run):
    """The naturals that meld with natural c under a contract of these kinds."""
    m = np.int64(0)
    if has_set:
        m |= np.int64(RANKMATES[c])
    if has_run:
        m |= np.int64(SUITMATES[c])
    return m


@nb.njit(cache=True, _nrt=False)
def unseen_counts_nb(R, V, p):
    """SCR_UNSEEN[c] := the copies of card c (jokers included) seat p has not seen: the
    shoe less p's hand, the pile, the table, and the cards other seats are known to hold
    (PS_KNOWN0). Reads nothing another seat hides. The smart bot's live outs and the
    rollout bot's samples (kernels.search.rollout.unseen_pool_nb) both start here. (It returns
    nothing: a kernel compiled without reference counts may not return an array.)"""
    U = V.scr[SCR_UNSEEN]
    params = R.params
    S = V.s
    PS = V.ps
    Hp = V.hands[p]
    dk = params.decks
    for c in range(JOKER):
        U[c] = dk - Hp[c]
    U[JOKER] = params.jokers - Hp[JOKER]
    PILE = V.pile
    for i in range(S[S_PILE_N]):
        U[PILE[i]] -= 1
    TM = V.table
    TC = V.tcards
    for m in range(S[S_NT]):
        lo, hi = meld_slots_nb(TM, m)
        for k in range(lo, hi + 1):
            c = TC[m, k]
            if c >= 0:
                U[c] -= 1
    for q in range(S[S_NP]):
        if q != p:
            for c in range(NCARDS):
                U[c] -= PS[q, PS_KNOWN0 + c]


@nb.njit(cache=True, _nrt=False, inline="always")
def buy_policy_nb(bp, h):
    """The bot's buy policy in hand h (0-based): buyN, else buy."""
    if h < MAX_HAND_PARAMS and bp[BP_HAND0 + h] >= 0:
        return int(bp[BP_HAND0 + h])
    return int(bp[BP_BUY])


@nb.njit(cache=True, _nrt=False, inline="always")
def own_buy_limit_nb(bp, h):
    """The bot's own buy limit for hand h (maxbuysN, else maxbuys; -1: none)."""
    lim = bp[BP_MAXBUYS]
    if h < MAX_HAND_PARAMS and bp[BP_MAXBUYS0 + h] >= 0:
        lim = bp[BP_MAXBUYS0 + h]
    return lim


@nb.njit(cache=True, _nrt=False, inline="always")
def buys_used_up_nb(bp, h, used):
    """The bot's own buy limit for hand h (the knobs maxbuys, maxbuysN) is reached."""
    lim = own_buy_limit_nb(bp, h)
    return lim >= 0 and used >= lim


@nb.njit(cache=True, _nrt=False, inline="always")
def contract_cards_nb(R, V):
    """The cards the hand's contract needs (docs/rules.md §3, "cards needed")."""
    h = V.s[S_HAND]
    need = 0
    for i in range(R.n_melds[h]):
        need += R.meld_size[h, i]
    return need


@nb.njit(cache=True, _nrt=False, inline="always")
def cards_short_nb(R, V, p):
    """How many cards seat p lacks to go down and still end the turn (docs/rules.md §3):
    the contract's cards plus, under no_discard, one to keep; after the turn's draw."""
    need = contract_cards_nb(R, V)
    want = need + 1 if R.params.go_out == GO_NO_DISCARD else need
    return want - V.ps[p, PS_N]


@nb.njit(cache=True, _nrt=False, inline="always")
def buys_left_nb(R, V, p, bp):
    """The buys seat p may still make this hand, by the rules and by its own knobs (buyN
    never, maxbuys, maxbuysN): none once it is down (unless the rules let a down player
    buy), none at a table of two (the next player takes every discard first)."""
    S = V.s
    h = S[S_HAND]
    if buy_policy_nb(bp, h) == BUY_NEVER or S[S_NP] <= 2:
        return 0
    used = V.ps[p, PS_BUYS]
    lim = R.buys[h]
    own = own_buy_limit_nb(bp, h)
    if own >= 0 and own < lim:
        lim = int(own)
    return max(0, lim - used)


@nb.njit(cache=True, _nrt=False, inline="always")
def can_hold_contract_nb(R, V, p, bp):
    """Whether seat p can still hold the cards to go down at one moment of its own turn
    (``facts.HandFacts.cards_to_go_down``: the contract's cards, and with BP_OWED the discard
    the turn owes under go_out = discard_required): its hand, the turn's draw if it has not
    drawn, and every buy it has left with its penalty cards. False means it cannot go down
    this hand, whatever comes. (Without BP_OWED, smart version 2, the discard is left out,
    so under discard_required it chases one card count it can never reach.)"""
    S = V.s
    n = V.ps[p, PS_N]
    if not (S[S_PHASE] == PH_PLAY and S[S_ACTOR] == p):
        n += 1
    n += buys_left_nb(R, V, p, bp) * (1 + R.params.buy_penalty)
    need = contract_cards_nb(R, V)
    if bp[BP_OWED] != 0 and R.params.go_out == GO_DISCARD_REQUIRED:
        need += 1
    return n >= need


@nb.njit(cache=True, _nrt=False)
def may_come_nb(R, V, p, has_set, has_run):
    """(candidates, copies, cards) for seat p's hand: the mask of naturals that meld with
    a card it holds (mates_nb: any out of a natural is one of them), the copies of them
    and of the joker that may still come, and how many cards may still come. A card may
    come when seat p has not seen it (unseen_counts_nb) or it lies in the pile while a
    stock pass remains (docs/rules.md §5.5); a card whose every copy is in sight (its
    hand, the table, a dead pile, known in another hand) cannot. Leaves the counts of
    what may come in SCR_UNSEEN."""
    unseen_counts_nb(R, V, p)
    U = V.scr[SCR_UNSEEN]
    S = V.s
    if S[S_PASSES] < R.params.max_stock_passes:
        PILE = V.pile
        for i in range(S[S_PILE_N]):
            U[PILE[i]] += 1
    Hp = V.hands[p]
    cand = np.int64(0)
    for c in range(JOKER):
        if Hp[c] > 0:
            cand |= mates_nb(c, has_set, has_run)
    n = 0
    copies = 0
    for c in range(NCARDS):
        if U[c] > 0:
            n += U[c]
            if c == JOKER or (cand >> c) & 1:
                copies += U[c]
    return cand, copies, n


@nb.njit(cache=True, _nrt=False)
def live_outs_nb(R, V, p, d, cand, copies, need):
    """The live outs of seat p's hand of deficiency d >= 1, after may_come_nb (SCR_UNSEEN,
    ``cand``, ``copies``): the copies that may come of the cards that would lower d, one
    deficiency question per candidate card (per rank when the contract has no run: a
    card's rank is then all that counts). It stops as soon as the count is known to reach
    ``need`` or known to stay below it (need < 0: the exact count); the count it returns
    is then only on the right side of ``need``."""
    U = V.scr[SCR_UNSEEN]
    Hp = V.hands[p]
    has_set, has_run = contract_kinds_nb(R, V)
    live = 0
    rest = copies          # copies not asked about yet
    lo = d - 1
    if U[JOKER] > 0:       # the likeliest out first
        Hp[JOKER] += 1
        dd = def_in_nb(R, V, Hp, lo, d)
        Hp[JOKER] -= 1
        rest -= U[JOKER]
        if dd < d:
            live += U[JOKER]
    if not has_run:
        for r in range(NRANKS):
            if need >= 0 and (live >= need or live + rest < need):
                return live
            if ((cand >> r) & 1) == 0:        # RANKMATES: every suit of a rank held
                continue
            u = U[r] + U[NRANKS + r] + U[2 * NRANKS + r] + U[3 * NRANKS + r]
            if u > 0:
                Hp[r] += 1
                dd = def_in_nb(R, V, Hp, lo, d)
                Hp[r] -= 1
                rest -= u
                if dd < d:
                    live += u
    else:
        for c in range(JOKER):
            if need >= 0 and (live >= need or live + rest < need):
                return live
            if U[c] > 0 and (cand >> c) & 1:
                Hp[c] += 1
                dd = def_in_nb(R, V, Hp, lo, d)
                Hp[c] -= 1
                rest -= U[c]
                if dd < d:
                    live += U[c]
    return live


@nb.njit(cache=True, _nrt=False)
def outs_needed_nb(R, V, p, bp, d, copies, n, extra_draws, buys, turns, sure):
    """The fewest live outs (0..copies + 1) for which down_chance_nb reaches ``sure``."""
    lo = 0
    hi = copies + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if down_chance_nb(R, V, p, bp, d, mid, n, extra_draws, buys, turns) >= sure:
            hi = mid
        else:
            lo = mid + 1
    return lo


@nb.njit(cache=True, _nrt=False)
def turns_left_nb(R, V, p, bp):
    """The own turns seat p can expect before the hand ends: an opponent who is down with
    k cards goes out in about BP_PACE * k turns; while nobody is down, the hand lasts
    about BP_HORIZON turns a seat; a stock with no pass left lasts its cards over the
    seats."""
    S = V.s
    PS = V.ps
    np_ = S[S_NP]
    kmin = 999
    for q in range(np_):
        if q != p and PS[q, PS_DOWN] != 0 and PS[q, PS_N] < kmin:
            kmin = PS[q, PS_N]
    if kmin < 999:
        t = bp[BP_PACE] * max(kmin, 1)
    else:
        t = max(bp[BP_HORIZON] - PS[p, PS_TURNS], 1.0)
    if S[S_PASSES] >= R.params.max_stock_passes:
        t = min(t, (S[S_STOCK_N] + 0.0) / np_)
    return max(t, 0.25)


@nb.njit(cache=True, _nrt=False, inline="always")
def poisson_tail_nb(lam, k):
    """P(X >= k) for X ~ Poisson(lam)."""
    if k <= 0:
        return 1.0
    term = math.exp(-lam)
    acc = term
    for i in range(1, k):
        term *= lam / i
        acc += term
    return max(0.0, 1.0 - acc)


@nb.njit(cache=True, _nrt=False)
def down_chance_nb(R, V, p, bp, d, live, n_unseen, extra_draws, buys, turns):
    """The chance that seat p meets its contract this hand from a hand of deficiency d
    with ``live`` live outs among ``n_unseen`` unseen cards, in ``turns`` own turns: each
    turn a look at the upcard and a draw, the upcards it may buy (``buys`` left, of the
    np - 2 others a round), and ``extra_draws`` cards more (a buy's penalty cards)."""
    if d <= 0:
        return 1.0
    if live <= 0 or n_unseen <= 0:
        return 0.0
    q = min(1.0, live / n_unseen)
    np_ = V.s[S_NP]
    lam = q * (2.0 * turns + extra_draws) + min(buys + 0.0, q * turns * max(np_ - 2, 0))
    return poisson_tail_nb(lam, d)
