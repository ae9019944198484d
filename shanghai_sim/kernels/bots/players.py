"""Bots in numba: one action for the seat to act, from the state tuple G.

The bots' kernels and their parameter vector ``bp`` float64[NBP]
(``shanghai_sim.bots.parse_bot`` fills it from a spec string):

  BP_BUY        buy policy: 0 never, 1 useful (the upcard lowers the deficiency), 2 always
  BP_MAXBUYS    most buys per hand the bot makes (-1: as many as the rules allow)
  BP_MAXBUYS0 + h  the same for hand h (0-based), -1 = BP_MAXBUYS
  BP_WAIT_BLIND 1: go down only when it can go out the same turn (docs/rules.md §3 blind_bonus)
  BP_HAND0 + h  buy policy for hand h (0-based), -1 = BP_BUY; hands beyond MAX_HAND_PARAMS
                use BP_BUY

Randomness comes only from the seat's own stream G[G_RNG][RNG_BOT0 + seat].
"""

import numba as nb
import numpy as np

from ..base.layout import (NPOS, G_BUF, G_GD, G_HANDS, G_PS, G_RNG, G_S, G_SCR, G_TABLE,
                     G_TCARDS, JOKER, M_CARDS, M_N, NCARDS, NRANKS, PS_BUYS, PS_DOWN, PS_KNOWN0, PS_N, PS_TOOK, P_MAX_STOCK_PASSES, P_BUY_PENALTY, P_DECKS, P_DOWN_MAY_BUY, P_GO_OUT, P_INITIAL_EXACT,
                     P_JOKERS, P_JOKER_SWAP, P_SET_JOKER_CARD, RNG_BOT0, RUN, R_JOKER_CAP,
                     R_BUYS, R_DEAL, R_N_MELDS, R_PARAMS, R_POINTS, SCR_CAND, SCR_TMP,
                     SCR_UNSEEN, SWAP_ANYONE, S_ACTOR, S_HAND, S_MUST_DOWN, S_NP, S_NT, S_PHASE,
                     S_PASSES, S_STOCK_N, S_UP, TM_HI, TM_KEY, TM_KIND, TM_LO, TM_N, TM_NJ)
from ..melds.finder import popcount
from ..base.codes import (A_BUY, A_DISCARD, A_DRAW, A_GO_DOWN, A_PASS, A_SWAP, A_TAKE, BUY_ALWAYS,  # noqa: F401
                    BUY_AUTO, BUY_NEVER, BUY_USEFUL, PH_BUY, PH_DRAW, PH_FIRST, PH_PLAY, action_nb)
from ..engine.godown import (finishable_nb, go_down_available_nb, must_lay_off_last_nb, place_proposal_nb,
                     unplace_nb)
from ..engine.handmemo import def_in_nb, hand_def_nb
from ..engine.play import layoff_list_nb, legal_list_nb
from ..engine.table import card_layable_nb, do_swap_nb, fit_mask_nb, layable_nb, undo_swap_nb
from ..engine.turn import discard_now_nb, layoff_allowed_now_nb, swap_legal_nb
from ..engine.state import def_restore_nb, def_saved_nb
from .params import (BP_BUY_DMAX, BP_BUY_EV, BP_BUY_SHORT, BP_BUY_STOCK, BP_CHART0, BP_CUT, BP_FISH,
                        MAX_HAND_PARAMS,
                        BP_DUMP, BP_FEED, BP_FEED_BUY, BP_FEED_DOWN, BP_LATE, BP_OUTS,
                        BP_PARTNER, BP_POINTS, BP_WAIT_BLIND)
from ..base.rng import randint_nb
from .buycharts import chart_verdict_nb
from .outlook import (RANKMATES, SUITMATES, buys_left_nb, buys_used_up_nb, buy_policy_nb,  # noqa: F401
                      can_hold_contract_nb, cards_short_nb, contract_cards_nb, contract_kinds_nb, down_chance_nb,
                      live_outs_nb, mates_nb, may_come_nb, outs_needed_nb, turns_left_nb, unseen_counts_nb)

# the names the rollout bot and older code use (kernels.bots.outlook holds them now)
_buys_used_up = buys_used_up_nb
_buy_policy = buy_policy_nb
_contract_kinds = contract_kinds_nb
_mates = mates_nb

# The bot kinds (BOT_*) and the dispatch are in kernels.games.dispatch, and the parameter row's
# slots (BP_*, NBP) in kernels.bots.params: both generated from the registry
# (shanghai_sim.bots.BOTS) by python -m shanghai_sim.botgen. The buy policies (BUY_*) are codes
# (kernels.base.codes.BUY_POLICIES; BUY_AUTO is imported from here by the rollout bot).


@nb.njit(cache=True, _nrt=False, inline="always")
def random_action_nb(R, G, p):
    """Uniformly random among the legal actions.

    Whether going down is legal takes the hand analysis (and may take the lay-down
    search), so a seat not down draws among the n other actions plus one slot for
    it, and asks only if that slot is drawn; if going down then turns out illegal
    it draws again among the n. Each legal action still has the same chance:
    1/(n+1) when going down is legal, else 1/(n+1) + 1/(n+1) * 1/n = 1/n.
    """
    BUF = G[G_BUF]
    S = G[G_S]
    rng = G[G_RNG][RNG_BOT0 + p]
    n = legal_list_nb(R, G, BUF, False)
    if S[S_PHASE] != PH_PLAY or G[G_PS][p, PS_DOWN] != 0:
        return BUF[randint_nb(rng, n)]
    k = randint_nb(rng, n + 1)
    if k < n:
        return BUF[k]
    if go_down_available_nb(R, G, p) or n == 0:
        return action_nb(A_GO_DOWN, 0, 0, 0)
    return BUF[randint_nb(rng, n)]


@nb.njit(cache=True, _nrt=False, inline="always")
def _def_plus(R, G, p, c, d0):
    """The deficiency of seat p's hand with card c more, the hand's own being d0: d0 - 1 or
    d0 (a card more lowers it by at most one), which the meld finder searches less for."""
    H = G[G_HANDS]
    H[p, c] += 1
    d = def_in_nb(R, G, H[p], d0 - 1 if d0 > 0 else d0, d0)
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
def _blind_possible(R, G, p):
    """After the finder's lay-down (in GD), could seat p go out this same turn?"""
    S = G[G_S]
    params = R[R_PARAMS]
    GD = G[G_GD]
    SCR = G[G_SCR]
    h = S[S_HAND]
    nm = R[R_N_MELDS][h]
    tmp = SCR[SCR_TMP]
    for c in range(NCARDS):
        tmp[c] = G[G_HANDS][p, c]
    r = G[G_PS][p, PS_N]
    for i in range(nm):
        for k in range(GD[i, M_N]):
            tmp[GD[i, M_CARDS + k]] -= 1
            r -= 1
    go = params[P_GO_OUT]
    left = r
    if params[P_INITIAL_EXACT] == 0 and r > 0:
        base = place_proposal_nb(R, G, p, nm)
        for c in range(NCARDS):
            if tmp[c] > 0 and card_layable_nb(R, G, c):
                left -= tmp[c]
        unplace_nb(G, base)
    if left == 0 and r > 0:        # lay all off but one and discard it, or lay off all
        return True
    return left <= 1 and finishable_nb(left, go)


@nb.njit(cache=True, _nrt=False, inline="always")
def _pick_ranked(R, G, p, n):
    """The discard among the n ranked candidates in SCR_CAND (keys, highest first: class
    << 56 | score << 8 | 255 - card): the first of class 1 that keeps the hand's
    deficiency, else the first candidate (every discard then costs one). Class 0 (a
    joker, the card just taken from the pile) is never chosen while a class 1 card can be.

    Dropping a card raises the deficiency d of the hand by 0 or 1 (it never lowers it,
    and adding the card back as a natural undoes it), so this usually takes a few
    deficiency evaluations instead of one per distinct card.
    """
    cand = G[G_SCR][SCR_CAND]
    Hp = G[G_HANDS][p]
    d_full = hand_def_nb(R, G, p)
    for k in range(n):
        if (cand[k] >> 56) == 0:
            break
        c = 255 - (cand[k] & 255)
        Hp[c] -= 1
        d = def_in_nb(R, G, Hp, d_full, d_full + 1)     # a card less: d_full or one more
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
def _took(G, p):
    """The card seat p took from the pile this turn, or -1."""
    return G[G_PS][p, PS_TOOK] - 1


@nb.njit(cache=True, _nrt=False, inline="always")
def _down_discard(R, G, p, feed_mask, feed_w, buy_mask, buy_w):
    """Down: shed the most points among the cards that do not fit the table (keep those
    that do for a later turn), less feed_w for a card in feed_mask (the next player's) and
    buy_w for one in buy_mask only (a player who may buy it); a joker only when no
    natural is left (it would help the next player)."""
    H = G[G_HANDS]
    pts = R[R_POINTS]
    TM = G[G_TABLE]
    nt = G[G_S][S_NT]
    cap = R[R_JOKER_CAP]
    sjc = R[R_PARAMS][P_SET_JOKER_CARD]
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


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_discard(R, G, p):
    if not discard_now_nb(R, G, p):
        return action_nb(A_DISCARD, -1, 0, 0)
    if G[G_PS][p, PS_DOWN] != 0:
        return _down_discard(R, G, p, np.int64(0), np.float64(0.0), np.int64(0), np.float64(0.0))
    # Not down: keep the deficiency lowest; ties: more useful outs, then the higher points
    # go, then the lower card id; a joker or the card just taken only as a last resort.
    pts = R[R_POINTS]
    Hp = G[G_HANDS][p]
    cand = G[G_SCR][SCR_CAND]
    took = _took(G, p)
    # Useful outs of the hand less card c: the distinct natural cards that share a rank
    # with a card left or stand within two run positions of one in its suit (the union
    # of NEAR over the cards left). Only a single copy of a natural changes the union:
    # it is then the union over the cards before c and after c (suffix unions in suf).
    suf = G[G_SCR][SCR_TMP]
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
    return _pick_ranked(R, G, p, n)


@nb.njit(cache=True, _nrt=False, inline="always")
def _take_pays(R, G, p, up):
    """Taking card up and then discarding another natural lowers seat p's deficiency
    (so the same evaluation would not throw it back, nor a joker instead)."""
    Hp = G[G_HANDS][p]
    d0 = hand_def_nb(R, G, p)
    if d0 == 0:
        return False
    Hp[up] += 1
    d1 = def_in_nb(R, G, Hp, d0 - 1, d0)               # a card more: d0 - 1 or d0
    ok = False
    if d1 < d0:
        for c in range(JOKER):
            if c == up or Hp[c] == 0:
                continue
            Hp[c] -= 1
            d = def_in_nb(R, G, Hp, d1, d1 + 1)        # a card less: d1 or d1 + 1
            Hp[c] += 1
            if d == d1:
                ok = True
                break
    Hp[up] -= 1
    return ok


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_layoff(R, G, p):
    """The first legal lay-off (cards, then melds, then ends), or -1."""
    BUF = G[G_BUF]
    if layoff_list_nb(R, G, p, BUF, np.int64(0), np.int64(1)) > 0:
        return BUF[0]
    return -1


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_swap(R, G, p, down):
    """A joker swap that helps: when down, one whose joker can be laid off afterwards;
    when not down (joker_swap = anyone), one after which the bot can go down."""
    H = G[G_HANDS]
    TM = G[G_TABLE]
    S = G[G_S]
    for m in range(S[S_NT]):
        if TM[m, TM_NJ] == 0:
            continue
        if TM[m, TM_KIND] == RUN:
            lo = TM[m, TM_LO]
            hi = TM[m, TM_HI]
        else:
            lo = 0
            hi = TM[m, TM_N] - 1
        for k in range(lo, hi + 1):
            if G[G_TCARDS][m, k] != JOKER:
                continue
            for s in range(4):
                if TM[m, TM_KIND] == RUN:
                    if s > 0:
                        break
                    c = TM[m, TM_KEY] * NRANKS + k % NRANKS
                else:
                    c = s * NRANKS + TM[m, TM_KEY]
                if H[p, c] == 0 or not swap_legal_nb(R, G, p, c, m, k):
                    continue
                if not down:
                    return action_nb(A_SWAP, c, m, k)
                saved = def_saved_nb(G, p)
                ident = do_swap_nb(G, p, c, m, k)
                ok = layoff_allowed_now_nb(R, G, p) and card_layable_nb(R, G, np.int64(JOKER))
                undo_swap_nb(G, p, c, m, k, ident)
                def_restore_nb(G, p, saved)
                if ok:
                    return action_nb(A_SWAP, c, m, k)
    return -1


@nb.njit(cache=True, _nrt=False, inline="always")
def _lone_card_ok(R, G, p):
    """Seat p (down) holds cards that do not block a lay-off of one more card."""
    if not must_lay_off_last_nb(G[G_PS][p, PS_N], R[R_PARAMS][P_GO_OUT]):
        return True
    for c in range(NCARDS):
        if G[G_HANDS][p, c] > 0:
            return card_layable_nb(R, G, c)
    return True


@nb.njit(cache=True, _nrt=False, inline="always")
def _useful_buy(R, G, p):
    """buy=useful: the upcard lowers the deficiency, or the hand meets the contract but
    holds too few cards to go down (docs/rules.md §3: from hand 8 only buys get there)."""
    d0 = hand_def_nb(R, G, p)
    if d0 == 0:
        return cards_short_nb(R, G, p) > 0
    return _def_plus(R, G, p, G[G_S][S_UP], d0) < d0


@nb.njit(cache=True, _nrt=False, inline="always")
def greedy_action_nb(R, G, p, bp):
    return _turn_nb(R, G, p, bp, None)


# ---------------------------------------------------------------- smart

@nb.njit(cache=True, _nrt=False)
def _unseen_masks(R, G, p):
    """What seat p has not seen (unseen_counts_nb), as live[k] = the natural cards with
    more than k copies unseen (k < 4)."""
    unseen_counts_nb(R, G, p)
    U = G[G_SCR][SCR_UNSEEN]
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
def _feed_mask(G, p, has_set, has_run):
    """The naturals the next player collects: mates of the cards it is known to hold."""
    q = (p + 1) % G[G_S][S_NP]
    PS = G[G_PS]
    m = np.int64(0)
    for c in range(JOKER):
        if PS[q, PS_KNOWN0 + c] > 0:
            m |= _mates(c, has_set, has_run)
    return m


@nb.njit(cache=True, _nrt=False)
def _buyer_mask(R, G, p, has_set, has_run):
    """The naturals that a player who may buy seat p's discard collects (not the next
    player, who takes before any buy: _feed_mask): mates of the cards each such player is
    known to hold (taken, bought). A player may buy while it has buys left and is not
    down (unless the rules let it: docs/rules.md §3 down_may_buy)."""
    S = G[G_S]
    PS = G[G_PS]
    np_ = S[S_NP]
    nxt = (p + 1) % np_
    lim = R[R_BUYS][S[S_HAND]]
    may_down = R[R_PARAMS][P_DOWN_MAY_BUY] != 0
    m = np.int64(0)
    for q in range(np_):
        if q == p or q == nxt or PS[q, PS_BUYS] >= lim or (PS[q, PS_DOWN] != 0 and not may_down):
            continue
        for c in range(JOKER):
            if PS[q, PS_KNOWN0 + c] > 0:
                m |= _mates(c, has_set, has_run)
    return m


@nb.njit(cache=True, _nrt=False)
def smart_chance_nb(R, G, p, bp, sure):
    """smart v2's chance that seat p goes down this hand (kernels.bots.outlook): 0 when it
    cannot hold the contract's cards with the buys it has left, 1 at deficiency 0.

    It is asked at every discard, so it works only as far as the answer can matter:
    while nobody is down and a stock pass is left it is 1 unless the cards rule the
    contract out; the chance as if every candidate card
    were an out (an upper bound) is returned when it is below ``sure`` already; otherwise
    the count of live outs (one meld-finder question per candidate) stops once it is known
    to reach the outs ``sure`` needs or to fall short of them, so the chance returned is
    exact only in which side of ``sure`` it lies on."""
    if not can_hold_contract_nb(R, G, p, bp):
        return 0.0
    S = G[G_S]
    if _near_out(G, p) == 99 and S[S_PASSES] < R[R_PARAMS][P_MAX_STOCK_PASSES]:
        return 1.0
    d = hand_def_nb(R, G, p)
    if d == 0:
        return 1.0
    has_set, has_run = _contract_kinds(R, G)
    cand, copies, n = may_come_nb(R, G, p, has_set, has_run)
    bl = buys_left_nb(R, G, p, bp)
    t = turns_left_nb(R, G, p, bp)
    hi = down_chance_nb(R, G, p, bp, d, copies, n, 0.0, bl, t)
    if hi < sure:
        return hi
    need = outs_needed_nb(R, G, p, bp, d, copies, n, 0.0, bl, t, sure)
    live = live_outs_nb(R, G, p, d, cand, copies, need)
    return down_chance_nb(R, G, p, bp, d, live, n, 0.0, bl, t)


@nb.njit(cache=True, _nrt=False)
def _hopeless(R, G, p, bp):
    """smart v2 cuts its losses: its chance of going down is below BP_CUT (0: never)."""
    return bp[BP_CUT] > 0 and smart_chance_nb(R, G, p, bp, bp[BP_CUT]) < bp[BP_CUT]


@nb.njit(cache=True, _nrt=False)
def _mean_points(R):
    """The mean penalty points of a card of the shoe (what a stock card costs on average)."""
    pts = R[R_POINTS]
    params = R[R_PARAMS]
    tot = 0.0
    for c in range(JOKER):
        tot += pts[c] * params[P_DECKS]
    tot += pts[JOKER] * params[P_JOKERS]
    return tot / (JOKER * params[P_DECKS] + params[P_JOKERS])


@nb.njit(cache=True, _nrt=False)
def _near_out(G, p):
    """Fewest cards held by an opponent who is down (99: none is down)."""
    S = G[G_S]
    k = 99
    for q in range(S[S_NP]):
        if q != p and G[G_PS][q, PS_DOWN] != 0 and G[G_PS][q, PS_N] < k:
            k = G[G_PS][q, PS_N]
    return k


@nb.njit(cache=True, _nrt=False)
def _late(G, p, bp):
    """Weight of penalty points: 1, plus BP_LATE per opponent already down."""
    S = G[G_S]
    k = 0
    for q in range(S[S_NP]):
        if q != p and G[G_PS][q, PS_DOWN] != 0:
            k += 1
    return 1.0 + bp[BP_LATE] * k


@nb.njit(cache=True, _nrt=False)
def _smart_discard(R, G, p, bp):
    if not discard_now_nb(R, G, p):
        return action_nb(A_DISCARD, -1, 0, 0)
    has_set, has_run = _contract_kinds(R, G)
    feed = _feed_mask(G, p, has_set, has_run)
    buyers = np.int64(0)
    if bp[BP_FEED_BUY] != 0:
        buyers = _buyer_mask(R, G, p, has_set, has_run) & ~feed
    if G[G_PS][p, PS_DOWN] != 0:
        return _down_discard(R, G, p, feed, bp[BP_FEED], buyers, bp[BP_FEED_BUY])
    # A next player who is down takes a discard it can lay off (docs/rules.md §5.4)
    nxt = (p + 1) % G[G_S][S_NP]
    feed_down = np.int64(0)
    if G[G_PS][nxt, PS_DOWN] != 0:
        TM = G[G_TABLE]
        nt = G[G_S][S_NT]
        cap = R[R_JOKER_CAP]
        sjc = R[R_PARAMS][P_SET_JOKER_CARD]
        fm = fit_mask_nb(TM, nt)
        for c in range(JOKER):
            if G[G_HANDS][p, c] > 0 and ((fm >> c) & 1) != 0 and layable_nb(TM, nt, cap, sjc, c):
                feed_down |= np.int64(1) << c
    # Far from going down while a down opponent is about to go out: shed points first.
    dump = bp[BP_DUMP] > 0 and _near_out(G, p) <= 2 and hand_def_nb(R, G, p) >= bp[BP_DUMP]
    # v2: a hand unlikely to go down at all (kernels.bots.outlook) sheds its points first too.
    if not dump and _hopeless(R, G, p, bp):
        dump = True
    # Not down: keep the deficiency lowest; among the discards that do, the one with the
    # best score: its points (weighed more as opponents go down), less the live outs the
    # hand gives up without it, less its partners in hand, less feeding the next player.
    l0, l1, l2, l3 = _unseen_masks(R, G, p)
    pts = R[R_POINTS]
    Hp = G[G_HANDS][p]
    cand = G[G_SCR][SCR_CAND]
    took = _took(G, p)
    late = _late(G, p, bp)
    suf = G[G_SCR][SCR_TMP]
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
    return _pick_ranked(R, G, p, n)


@nb.njit(cache=True, _nrt=False)
def _smart_buy(R, G, p, bp):
    """Buy by card count as well as by card: a card that lowers the deficiency while it
    is at most BP_BUY_DMAX (any, when short of cards); short of cards and the deficiency
    at most BP_BUY_SHORT, a card with a partner in hand; the contract met but too few
    cards to go down, any card. Version 2 (BP_BUY_EV, BP_CUT) then asks whether the buy
    pays (_buy_pays)."""
    d0 = hand_def_nb(R, G, p)
    short = cards_short_nb(R, G, p)
    if d0 == 0:
        return short > 0
    dmax = bp[BP_BUY_DMAX]
    dshort = bp[BP_BUY_SHORT]
    if G[G_S][S_STOCK_N] < bp[BP_BUY_STOCK]:
        # A short stock: every buy drains it (docs/rules.md §5.5 stops the hand when it
        # has run out too often), so buy only when near the contract.
        dmax = min(dmax, 2.0)
        dshort = min(dshort, 2.0)
        if d0 > 2:
            return False
    up = G[G_S][S_UP]
    d1 = _def_plus(R, G, p, up, d0)
    ok = False
    if d1 < d0:
        ok = short > 0 or d0 <= dmax
    elif d0 <= bp[BP_FISH] and _fishing(R, G, p, bp):
        ok = True
    elif short > 0 and d0 <= dshort and up < JOKER:
        has_set, has_run = _contract_kinds(R, G)
        Hp = G[G_HANDS][p]
        m = _mates(up, has_set, has_run)
        for c in range(JOKER):
            if Hp[c] > 0 and (m >> c) & 1:
                ok = True
                break
    if ok and (bp[BP_BUY_EV] != 0 or bp[BP_CUT] > 0):
        return _buy_pays(R, G, p, bp, d0, d1)
    return ok


@nb.njit(cache=True, _nrt=False, inline="always")
def _chart_word(R, G, p, bp, h):
    """smart's buy chart (chartN, kernels.bots.buycharts) for hand h (0-based): 1 buy, -1 pass,
    0 none given (or no chart): its own judgement decides."""
    if h >= MAX_HAND_PARAMS or bp[BP_CHART0 + h] <= 0:
        return 0
    d0 = hand_def_nb(R, G, p)
    d1 = _def_plus(R, G, p, G[G_S][S_UP], d0)
    return np.int64(chart_verdict_nb(np.int64(bp[BP_CHART0 + h]), d0, d1, G[G_PS][p, PS_BUYS]))


@nb.njit(cache=True, _nrt=False, inline="always")
def _fishing(R, G, p, bp):
    """smart's fishing (BP_FISH, off by default): whether a buy of a card that does not lower the deficiency is worth its
    penalty cards (more draws towards the contract): only when a buy brings more draws than
    the one card it takes (a penalty of two or more), in a hand whose contract needs more
    cards than the deal and a draw (a buy is forced there anyway), and never with the last
    buy the seat has (docs/bots.md, "Fishing")."""
    return (R[R_PARAMS][P_BUY_PENALTY] >= 2
            and contract_cards_nb(R, G) > R[R_DEAL][G[G_S][S_HAND]] + 1
            and buys_left_nb(R, G, p, bp) >= 2)


@nb.njit(cache=True, _nrt=False)
def _buy_pays(R, G, p, bp, d0, d1):
    """smart v2: is buying the upcard worth it? With BP_BUY_EV, when it lowers the
    expected points of the hand: not going down (kernels.bots.outlook's chance) costs the
    points held, and a buy adds the upcard's and its penalty cards' points for a better
    chance (the upcard's deficiency d1, the penalty cards as draws, one buy less). With
    BP_CUT alone, when the chance with the buy reaches BP_CUT."""
    if not can_hold_contract_nb(R, G, p, bp):
        return False
    ev = bp[BP_BUY_EV] != 0
    S = G[G_S]
    if not ev and _near_out(G, p) == 99 and S[S_PASSES] < R[R_PARAMS][P_MAX_STOCK_PASSES]:
        return True            # as smart_chance_nb: nobody down and a pass left, time enough
    has_set, has_run = _contract_kinds(R, G)
    cand, copies, n = may_come_nb(R, G, p, has_set, has_run)
    bl = buys_left_nb(R, G, p, bp)
    t = turns_left_nb(R, G, p, bp)
    pen = R[R_PARAMS][P_BUY_PENALTY]
    up = G[G_S][S_UP]
    if not ev:
        # only whether the chance with the buy reaches BP_CUT: count outs until that is known
        need = outs_needed_nb(R, G, p, bp, d1, copies, n - 1, pen + 0.0, max(bl - 1, 0), t, bp[BP_CUT])
        live = live_outs_nb(R, G, p, d0, cand, copies, need + (1 if d1 < d0 else 0))
        live1 = live - 1 if d1 < d0 else live
        return down_chance_nb(R, G, p, bp, d1, live1, n - 1, pen + 0.0, max(bl - 1, 0), t) >= bp[BP_CUT]
    live = live_outs_nb(R, G, p, d0, cand, copies, np.int64(-1))
    live1 = live - 1 if d1 < d0 else live
    p1 = down_chance_nb(R, G, p, bp, d1, live1, n - 1, pen + 0.0, max(bl - 1, 0), t)
    p0 = down_chance_nb(R, G, p, bp, d0, live, n, 0.0, bl, t)
    pts = R[R_POINTS]
    Hp = G[G_HANDS][p]
    held = 0.0
    for c in range(NCARDS):
        held += Hp[c] * pts[c]
    return (1.0 - p1) * (held + pts[up] + pen * _mean_points(R)) < (1.0 - p0) * held


@nb.njit(cache=True, _nrt=False, inline="always")
def _turn_nb(R, G, p, bp, SMART):
    """The thinking bots' one phase skeleton: greedy's decisions, with smart's hooks where
    the two differ (its buy, ``_smart_buy``, and its discard, ``_smart_discard``). SMART is
    None for greedy and True for smart: numba prunes the other branch before typing it (a
    test on an argument of type None), so each bot compiles only its own hooks."""
    S = G[G_S]
    PS = G[G_PS]
    ph = S[S_PHASE]
    down = PS[p, PS_DOWN] != 0
    if ph == PH_FIRST:
        if _take_pays(R, G, p, S[S_UP]):
            return action_nb(A_TAKE, 0, 0, 0)
        if SMART is not None:
            # v2 cutting its losses: a natural upcard worth fewer points than a stock
            # card on average replaces a higher card (and nobody buys it)
            # (only when the cards alone say so: the full outlook at every upcard costs
            # too much for what it gains)
            up = S[S_UP]
            if (bp[BP_CUT] > 0 and up < JOKER and R[R_POINTS][up] < _mean_points(R)
                    and not can_hold_contract_nb(R, G, p, bp)):
                return action_nb(A_TAKE, 0, 0, 0)
        return action_nb(A_PASS, 0, 0, 0)
    if ph == PH_BUY:
        pol = _buy_policy(bp, S[S_HAND])
        if pol == BUY_NEVER or down:
            return action_nb(A_PASS, 0, 0, 0)
        if _buys_used_up(bp, S[S_HAND], PS[p, PS_BUYS]):
            return action_nb(A_PASS, 0, 0, 0)
        if pol == BUY_ALWAYS:
            return action_nb(A_BUY, 0, 0, 0)
        if SMART is None:
            ok = _useful_buy(R, G, p)        # greedy: buy_policy never, useful or always
        elif pol == BUY_USEFUL:
            ok = _useful_buy(R, G, p)
        else:
            word = _chart_word(R, G, p, bp, S[S_HAND])
            ok = word > 0 if word != 0 else _smart_buy(R, G, p, bp)
        return action_nb(A_BUY if ok else A_PASS, 0, 0, 0)
    if ph == PH_DRAW:
        # Take the upcard only if it can really be laid off this turn: under no_discard a
        # lone card that does not fit must stay in hand, so laying off the upcard then is barred.
        if card_layable_nb(R, G, S[S_UP]) and _lone_card_ok(R, G, p):
            return action_nb(A_TAKE, 0, 0, 0)
        return action_nb(A_DRAW, 0, 0, 0)
    if ph != PH_PLAY:
        return -1
    # one call site each of the inlined _greedy_swap and of the discard (compiled once)
    swap = False
    if not down:
        if S[S_MUST_DOWN] != 0:
            return action_nb(A_GO_DOWN, 0, 0, 0)
        if go_down_available_nb(R, G, p):
            if bp[BP_WAIT_BLIND] == 0 or _blind_possible(R, G, p):
                return action_nb(A_GO_DOWN, 0, 0, 0)
        elif R[R_PARAMS][P_JOKER_SWAP] == SWAP_ANYONE and S[S_NT] > 0 and bp[BP_WAIT_BLIND] == 0:
            swap = True
    elif layoff_allowed_now_nb(R, G, p):
        a = _greedy_layoff(R, G, p)
        if a >= 0:
            return a
        swap = True
    if swap:
        a = _greedy_swap(R, G, p, down)
        if a >= 0:
            return a
    if SMART is None:
        return _greedy_discard(R, G, p)
    return _smart_discard(R, G, p, bp)


@nb.njit(cache=True, _nrt=False, inline="always")
def smart_action_nb(R, G, p, bp):
    return _turn_nb(R, G, p, bp, True)
