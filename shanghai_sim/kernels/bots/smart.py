"""The smart bot's judgement on top of greedy's skeleton (docs/bots.md, smart versions 1-3):
what it has not seen, which cards feed another seat or a buyer, its chance of going down,
when it is late or hopeless, its discard, its buys (by the shipped charts or its own
estimate) and when it goes fishing."""

import numba as nb
import numpy as np

from ..base.layout import (JOKER, NCARDS, NRANKS, PS_BUYS, PS_DOWN, PS_KNOWN0, PS_N, SCR_CAND, SCR_TMP,
    SCR_UNSEEN, S_HAND, S_NP, S_NT, S_PASSES, S_STOCK_N, S_UP)
from ..melds.finder import popcount
from ..base.codes import A_DISCARD, action_nb
from ..engine.handmemo import hand_def_nb
from ..engine.table import fit_mask_nb, layable_nb
from ..engine.turn import discard_now_nb
from .params import (BP_BUY_DMAX, BP_BUY_EV, BP_BUY_SHORT, BP_BUY_STOCK, BP_CHART0, BP_CUT,
                     BP_FISH, MAX_HAND_PARAMS, BP_DUMP, BP_FEED, BP_FEED_BUY, BP_FEED_DOWN,
                     BP_LATE, BP_OUTS, BP_PARTNER, BP_POINTS)
from .buycharts import chart_verdict_nb
from .outlook import (buys_left_nb, buys_used_up_nb, buy_policy_nb, can_hold_contract_nb,
                      cards_short_nb, contract_cards_nb, contract_kinds_nb, down_chance_nb,
                      live_outs_nb, mates_nb, may_come_nb, outs_needed_nb, turns_left_nb,
                      unseen_counts_nb)
from .basics import _def_plus, _down_discard, _insert_key, _pick_ranked, _took


# short names smart's helpers (and the rollout bot) use; kernels.bots.outlook holds the kernels
_buys_used_up = buys_used_up_nb
_buy_policy = buy_policy_nb
_contract_kinds = contract_kinds_nb
_mates = mates_nb


@nb.njit(cache=True, _nrt=False)
def _unseen_masks(R, V, p):
    """What seat p has not seen (unseen_counts_nb), as live[k] = the natural cards with
    more than k copies unseen (k < 4)."""
    unseen_counts_nb(R, V, p)
    U = V.scr[SCR_UNSEEN]
    l0 = np.int64(0)
    l1 = np.int64(0)
    l2 = np.int64(0)
    l3 = np.int64(0)
    for c in range(JOKER):
        u = U[c]
        b = np.int64(1) << c
        if u > 0:
            l0 |= b
        if u > 1:
            l1 |= b
        if u > 2:
            l2 |= b
        if u > 3:
            l3 |= b
    return l0, l1, l2, l3


@nb.njit(cache=True, _nrt=False, inline="always")
def _live(m, l0, l1, l2, l3):
    """Unseen copies of the cards in mask m."""
    return popcount(m & l0) + popcount(m & l1) + popcount(m & l2) + popcount(m & l3)


@nb.njit(cache=True, _nrt=False)
def _feed_mask(V, p, has_set, has_run):
    """The naturals the next player collects: mates of the cards it is known to hold."""
    q = (p + 1) % V.s[S_NP]
    PS = V.ps
    m = np.int64(0)
    for c in range(JOKER):
        if PS[q, PS_KNOWN0 + c] > 0:
            m |= _mates(c, has_set, has_run)
    return m


@nb.njit(cache=True, _nrt=False)
def _buyer_mask(R, V, p, has_set, has_run):
    """The naturals that a player who may buy seat p's discard collects (not the next
    player, who takes before any buy: _feed_mask): mates of the cards each such player is
    known to hold (taken, bought). A player may buy while it has buys left and is not
    down (unless the rules let it: docs/rules.md §3 down_may_buy)."""
    S = V.s
    PS = V.ps
    np_ = S[S_NP]
    nxt = (p + 1) % np_
    lim = R.buys[S[S_HAND]]
    may_down = R.params.down_may_buy != 0
    m = np.int64(0)
    for q in range(np_):
        if q == p or q == nxt or PS[q, PS_BUYS] >= lim or (PS[q, PS_DOWN] != 0 and not may_down):
            continue
        for c in range(JOKER):
            if PS[q, PS_KNOWN0 + c] > 0:
                m |= _mates(c, has_set, has_run)
    return m


@nb.njit(cache=True, _nrt=False)
def smart_chance_nb(R, V, p, bp, sure):
    """smart v2's chance that seat p goes down this hand (kernels.bots.outlook): 0 when it
    cannot hold the contract's cards with the buys it has left, 1 at deficiency 0.

    It is asked at every discard, so it works only as far as the answer can matter:
    while nobody is down and a stock pass is left it is 1 unless the cards rule the
    contract out; the chance as if every candidate card
    were an out (an upper bound) is returned when it is below ``sure`` already; otherwise
    the count of live outs (one meld-finder question per candidate) stops once it is known
    to reach the outs ``sure`` needs or to fall short of them, so the chance returned is
    exact only in which side of ``sure`` it lies on."""
    if not can_hold_contract_nb(R, V, p, bp):
        return 0.0
    S = V.s
    if _near_out(V, p) == 99 and S[S_PASSES] < R.params.max_stock_passes:
        return 1.0
    d = hand_def_nb(R, V, p)
    if d == 0:
        return 1.0
    has_set, has_run = _contract_kinds(R, V)
    cand, copies, n = may_come_nb(R, V, p, has_set, has_run)
    bl = buys_left_nb(R, V, p, bp)
    t = turns_left_nb(R, V, p, bp)
    hi = down_chance_nb(R, V, p, bp, d, copies, n, 0.0, bl, t)
    if hi < sure:
        return hi
    need = outs_needed_nb(R, V, p, bp, d, copies, n, 0.0, bl, t, sure)
    live = live_outs_nb(R, V, p, d, cand, copies, need)
    return down_chance_nb(R, V, p, bp, d, live, n, 0.0, bl, t)


@nb.njit(cache=True, _nrt=False)
def _hopeless(R, V, p, bp):
    """smart v2 cuts its losses: its chance of going down is below BP_CUT (0: never)."""
    return bp[BP_CUT] > 0 and smart_chance_nb(R, V, p, bp, bp[BP_CUT]) < bp[BP_CUT]


@nb.njit(cache=True, _nrt=False)
def _mean_points(R):
    """The mean penalty points of a card of the shoe (what a stock card costs on average)."""
    pts = R.points
    params = R.params
    tot = 0.0
    for c in range(JOKER):
        tot += pts[c] * params.decks
    tot += pts[JOKER] * params.jokers
    return tot / (JOKER * params.decks + params.jokers)


@nb.njit(cache=True, _nrt=False)
def _near_out(V, p):
    """Fewest cards held by an opponent who is down (99: none is down)."""
    S = V.s
    k = 99
    for q in range(S[S_NP]):
        if q != p and V.ps[q, PS_DOWN] != 0 and V.ps[q, PS_N] < k:
            k = V.ps[q, PS_N]
    return k


@nb.njit(cache=True, _nrt=False)
def _late(V, p, bp):
    """Weight of penalty points: 1, plus BP_LATE per opponent already down."""
    S = V.s
    k = 0
    for q in range(S[S_NP]):
        if q != p and V.ps[q, PS_DOWN] != 0:
            k += 1
    return 1.0 + bp[BP_LATE] * k


@nb.njit(cache=True, _nrt=False)
def _smart_discard(R, V, p, bp):
    if not discard_now_nb(R, V, p):
        return action_nb(A_DISCARD, -1, 0, 0)
    has_set, has_run = _contract_kinds(R, V)
    feed = _feed_mask(V, p, has_set, has_run)
    buyers = np.int64(0)
    if bp[BP_FEED_BUY] != 0:
        buyers = _buyer_mask(R, V, p, has_set, has_run) & ~feed
    if V.ps[p, PS_DOWN] != 0:
        return _down_discard(R, V, p, feed, bp[BP_FEED], buyers, bp[BP_FEED_BUY])
    # A next player who is down takes a discard it can lay off (docs/rules.md §5.4)
    nxt = (p + 1) % V.s[S_NP]
    feed_down = np.int64(0)
    if V.ps[nxt, PS_DOWN] != 0:
        TM = V.table
        nt = V.s[S_NT]
        cap = R.joker_cap
        sjc = R.params.set_joker_card
        fm = fit_mask_nb(TM, nt)
        for c in range(JOKER):
            if V.hands[p, c] > 0 and ((fm >> c) & 1) != 0 and layable_nb(TM, nt, cap, sjc, c):
                feed_down |= np.int64(1) << c
    # Far from going down while a down opponent is about to go out: shed points first.
    dump = bp[BP_DUMP] > 0 and _near_out(V, p) <= 2 and hand_def_nb(R, V, p) >= bp[BP_DUMP]
    # v2: a hand unlikely to go down at all (kernels.bots.outlook) sheds its points first too.
    if not dump and _hopeless(R, V, p, bp):
        dump = True
    # Not down: keep the deficiency lowest; among the discards that do, the one with the
    # best score: its points (weighed more as opponents go down), less the live outs the
    # hand gives up without it, less its partners in hand, less feeding the next player.
    l0, l1, l2, l3 = _unseen_masks(R, V, p)
    pts = R.points
    Hp = V.hands[p]
    cand = V.scr[SCR_CAND]
    took = _took(V, p)
    late = _late(V, p, bp)
    suf = V.scr[SCR_TMP]
    acc = np.int64(0)
    hm = np.int64(0)
    for c in range(51, -1, -1):
        suf[c] = acc
        if Hp[c] > 0:
            acc |= _mates(c, has_set, has_run)
            hm |= np.int64(1) << c
    full = _live(acc, l0, l1, l2, l3)
    pre = np.int64(0)
    n = np.int64(0)
    for c in range(NCARDS):
        if Hp[c] == 0:
            continue
        score = 0.0
        if c < JOKER:
            mates = _mates(c, has_set, has_run)
            outs = full
            if Hp[c] == 1:
                outs = _live(pre | suf[c], l0, l1, l2, l3)
            pre |= mates
            partners = popcount(mates & hm & ~(np.int64(1) << c)) + Hp[c] - 1
            if has_set:
                r = c % NRANKS
                for t in range(4):
                    if t * NRANKS + r != c:
                        partners += Hp[t * NRANKS + r] - (1 if Hp[t * NRANKS + r] > 0 else 0)
            score = (bp[BP_POINTS] * late * pts[c] - bp[BP_OUTS] * (full - outs)
                     - bp[BP_PARTNER] * partners)
            if (feed >> c) & 1:
                score -= bp[BP_FEED]
            if (feed_down >> c) & 1:
                score -= bp[BP_FEED_DOWN]
            if (buyers >> c) & 1:
                score -= bp[BP_FEED_BUY]
        cls = 0 if c == JOKER or c == took else 1
        if dump and cls == 1:
            score = 1000.0 * pts[c] + score
        v = int(score * 64.0) + (np.int64(1) << 39)
        v = min(max(v, 0), (np.int64(1) << 47) - 1)
        _insert_key(cand, n, (cls << 56) | (v << 8) | (255 - c))
        n += 1
    if dump:
        return action_nb(A_DISCARD, 255 - (cand[0] & 255), 0, 0)
    return _pick_ranked(R, V, p, n)


@nb.njit(cache=True, _nrt=False)
def _smart_buy(R, V, p, bp):
    """Buy by card count as well as by card: a card that lowers the deficiency while it
    is at most BP_BUY_DMAX (any, when short of cards); short of cards and the deficiency
    at most BP_BUY_SHORT, a card with a partner in hand; the contract met but too few
    cards to go down, any card. Version 2 (BP_BUY_EV, BP_CUT) then asks whether the buy
    pays (_buy_pays)."""
    d0 = hand_def_nb(R, V, p)
    short = cards_short_nb(R, V, p)
    if d0 == 0:
        return short > 0
    dmax = bp[BP_BUY_DMAX]
    dshort = bp[BP_BUY_SHORT]
    if V.s[S_STOCK_N] < bp[BP_BUY_STOCK]:
        # A short stock: every buy drains it (docs/rules.md §5.5 stops the hand when it
        # has run out too often), so buy only when near the contract.
        dmax = min(dmax, 2.0)
        dshort = min(dshort, 2.0)
        if d0 > 2:
            return False
    up = V.s[S_UP]
    d1 = _def_plus(R, V, p, up, d0)
    ok = False
    if d1 < d0:
        ok = short > 0 or d0 <= dmax
    elif d0 <= bp[BP_FISH] and _fishing(R, V, p, bp):
        ok = True
    elif short > 0 and d0 <= dshort and up < JOKER:
        has_set, has_run = _contract_kinds(R, V)
        Hp = V.hands[p]
        m = _mates(up, has_set, has_run)
        for c in range(JOKER):
            if Hp[c] > 0 and (m >> c) & 1:
                ok = True
                break
    if ok and (bp[BP_BUY_EV] != 0 or bp[BP_CUT] > 0):
        return _buy_pays(R, V, p, bp, d0, d1)
    return ok


@nb.njit(cache=True, _nrt=False, inline="always")
def _chart_word(R, V, p, bp, h):
    """smart's buy chart (chartN, kernels.bots.buycharts) for hand h (0-based): 1 buy, -1 pass,
    0 none given (or no chart): its own judgement decides."""
    if h >= MAX_HAND_PARAMS or bp[BP_CHART0 + h] <= 0:
        return 0
    d0 = hand_def_nb(R, V, p)
    d1 = _def_plus(R, V, p, V.s[S_UP], d0)
    return np.int64(chart_verdict_nb(np.int64(bp[BP_CHART0 + h]), d0, d1, V.ps[p, PS_BUYS]))


@nb.njit(cache=True, _nrt=False, inline="always")
def _fishing(R, V, p, bp):
    """smart's fishing (BP_FISH, off by default): whether a buy of a card that does not lower the deficiency is worth its
    penalty cards (more draws towards the contract): only when a buy brings more draws than
    the one card it takes (a penalty of two or more), in a hand whose contract needs more
    cards than the deal and a draw (a buy is forced there anyway), and never with the last
    buy the seat has (docs/bots.md, "Fishing")."""
    return (R.params.buy_penalty >= 2
            and contract_cards_nb(R, V) > R.deal[V.s[S_HAND]] + 1
            and buys_left_nb(R, V, p, bp) >= 2)


@nb.njit(cache=True, _nrt=False)
def _buy_pays(R, V, p, bp, d0, d1):
    """smart v2: is buying the upcard worth it? With BP_BUY_EV, when it lowers the
    expected points of the hand: not going down (kernels.bots.outlook's chance) costs the
    points held, and a buy adds the upcard's and its penalty cards' points for a better
    chance (the upcard's deficiency d1, the penalty cards as draws, one buy less). With
    BP_CUT alone, when the chance with the buy reaches BP_CUT."""
    if not can_hold_contract_nb(R, V, p, bp):
        return False
    ev = bp[BP_BUY_EV] != 0
    S = V.s
    if not ev and _near_out(V, p) == 99 and S[S_PASSES] < R.params.max_stock_passes:
        return True            # as smart_chance_nb: nobody down and a pass left, time enough
    has_set, has_run = _contract_kinds(R, V)
    cand, copies, n = may_come_nb(R, V, p, has_set, has_run)
    bl = buys_left_nb(R, V, p, bp)
    t = turns_left_nb(R, V, p, bp)
    pen = R.params.buy_penalty
    up = V.s[S_UP]
    if not ev:
        # only whether the chance with the buy reaches BP_CUT: count outs until that is known
        need = outs_needed_nb(R, V, p, bp, d1, copies, n - 1, pen + 0.0, max(bl - 1, 0), t, bp[BP_CUT])
        live = live_outs_nb(R, V, p, d0, cand, copies, need + (1 if d1 < d0 else 0))
        live1 = live - 1 if d1 < d0 else live
        return down_chance_nb(R, V, p, bp, d1, live1, n - 1, pen + 0.0, max(bl - 1, 0), t) >= bp[BP_CUT]
    live = live_outs_nb(R, V, p, d0, cand, copies, np.int64(-1))
    live1 = live - 1 if d1 < d0 else live
    p1 = down_chance_nb(R, V, p, bp, d1, live1, n - 1, pen + 0.0, max(bl - 1, 0), t)
    p0 = down_chance_nb(R, V, p, bp, d0, live, n, 0.0, bl, t)
    pts = R.points
    Hp = V.hands[p]
    held = 0.0
    for c in range(NCARDS):
        held += Hp[c] * pts[c]
    return (1.0 - p1) * (held + pts[up] + pen * _mean_points(R)) < (1.0 - p0) * held

