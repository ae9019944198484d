"""Bots in numba: one action for the seat to act, from the state tuple G.

Bot kinds (``BOT_*``) and their parameter vector ``bp`` float64[NBP]
(``shanghai_sim.bots.parse_bot`` fills it from a spec string):

  BP_BUY        buy policy: 0 never, 1 useful (the upcard lowers the deficiency), 2 always
  BP_MAXBUYS    most buys per hand the bot makes (-1: as many as the rules allow)
  BP_WAIT_BLIND 1: go down only when it can go out the same turn (docs/rules.md §3 blind_bonus)
  BP_HAND0 + h  buy policy for hand h (0-based), -1 = BP_BUY; hands beyond MAX_HAND_PARAMS
                use BP_BUY

Randomness comes only from the seat's own stream G[G_RNG][RNG_BOT0 + seat].
"""

import numba as nb
import numpy as np

from .layout import (G_BUF, G_GD, G_HANDS, G_MKEYS, G_MN, G_MSCR, G_MVALS, G_PS, G_RNG, G_S,
                     G_SCR, G_TABLE, G_TCARDS, G_WT, JOKER,
                     M_CARDS, M_N, P_GO_OUT, P_INITIAL_EXACT, P_JOKER_SWAP, P_SAME_SUIT_GAP,
                     P_SET_JOKER_CARD, PS_BUYS, PS_DEF, PS_DEFOK, PS_DOWN, PS_N, R_JOKER_CAP,
                     R_MELD_KIND, R_MELD_SIZE, R_N_MELDS, R_PARAMS, R_POINTS, RNG_BOT0, RUN,
                     S_ACTOR, S_HAND, S_MUST_DOWN, S_NT, S_PHASE, S_UP, SCR_CAND, SCR_TMP,
                     SWAP_ANYONE, TM_HI, TM_KEY, TM_KIND, TM_LO, TM_N, TM_NJ)
from .melds import deficiency_ws_nb, popcount
from .play import (A_BUY, A_DISCARD, A_DRAW, A_GO_DOWN, A_PASS, A_SWAP, A_TAKE, PH_BUY, PH_DRAW,
                   PH_FIRST, PH_PLAY, action_nb, card_layable_nb, def_of_nb, discard_now_nb,
                   finishable_nb, must_lay_off_last_nb,
                   do_swap_nb, go_down_available_nb, hand_def_nb, layable_nb,
                   layoff_allowed_now_nb, layoff_list_nb, legal_list_nb, place_proposal_nb,
                   swap_legal_nb, undo_swap_nb, unplace_nb)
from .rng import randint_nb

BOT_RANDOM = 0
BOT_GREEDY = 1

BP_BUY = 0
BP_MAXBUYS = 1
BP_WAIT_BLIND = 2
BP_HAND0 = 3
MAX_HAND_PARAMS = 29
NBP = BP_HAND0 + MAX_HAND_PARAMS

BUY_NEVER = 0
BUY_USEFUL = 1
BUY_ALWAYS = 2


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


@nb.njit(cache=True, _nrt=False)
def _def_with(R, G, p, c, delta):
    H = G[G_HANDS]
    H[p, c] += delta
    d = def_of_nb(R, G, H[p])
    H[p, c] -= delta
    return d


def _near_masks():
    """NEAR[c]: the natural cards that share a rank with card c or stand within two run
    positions of it in its suit (ace low and high), as a 52-bit mask."""
    out = np.zeros(52, np.uint64)
    for c in range(52):
        r, s = c % 13, c // 13
        m = 0
        for t in range(4):
            m |= 1 << (t * 13 + r)
        for q in (r, 13 if r == 0 else r):
            for d in range(-2, 3):
                pp = q + d
                if 0 <= pp <= 13:
                    m |= 1 << (s * 13 + pp % 13)
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
    for c in range(53):
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
        for c in range(53):
            if tmp[c] > 0 and card_layable_nb(R, G, c):
                left -= tmp[c]
        unplace_nb(G, base)
    if left == 0 and r > 0:        # lay all off but one and discard it, or lay off all
        return True
    return left <= 1 and finishable_nb(left, go)


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_discard(R, G, p):
    H = G[G_HANDS]
    pts = R[R_POINTS]
    ok = discard_now_nb(R, G, p)
    if G[G_PS][p, PS_DOWN] != 0:
        # Down: shed the most points among the cards that do not fit the table (keep
        # those that do for a later turn), a joker last (it would help the next player).
        TM = G[G_TABLE]
        nt = G[G_S][S_NT]
        cap = R[R_JOKER_CAP]
        sjc = R[R_PARAMS][P_SET_JOKER_CARD]
        best = -1
        bv = -1
        for c in range(52):
            if H[p, c] > 0 and ok:
                v = pts[c] + (0 if layable_nb(TM, nt, cap, sjc, c) else 1000)
                if v > bv:
                    best = c
                    bv = v
        if best < 0:
            best = JOKER
        return action_nb(A_DISCARD, best, 0, 0)
    # Not down: keep the deficiency lowest; ties: more useful outs, then the higher points
    # go, then the lower card id. Dropping a card raises the deficiency d of the hand by 0
    # or 1 (it never lowers it, and adding the card back as a natural undoes it), so the
    # candidates are ranked by (outs, points, id) first and the first one that keeps d
    # wins; if none does, every one costs d + 1 and the first wins. This usually takes a
    # few deficiency evaluations instead of one per distinct card.
    if not ok:
        return action_nb(A_DISCARD, -1, 0, 0)
    h = G[G_S][S_HAND]
    kinds = R[R_MELD_KIND][h]
    sizes = R[R_MELD_SIZE][h]
    nm = R[R_N_MELDS][h]
    jcap = R[R_JOKER_CAP]
    ex = R[R_PARAMS][P_INITIAL_EXACT]
    gp = R[R_PARAMS][P_SAME_SUIT_GAP]
    M0 = G[G_MKEYS]
    M1 = G[G_MVALS]
    M2 = G[G_MN]
    M3 = G[G_MSCR]
    M4 = G[G_WT]
    Hp = H[p]
    cand = G[G_SCR][SCR_CAND]
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
    n = 0
    for c in range(53):
        if Hp[c] == 0:
            continue
        outs = full
        if c < JOKER:
            if Hp[c] == 1:
                outs = popcount(pre | suf[c])
            pre |= np.int64(NEAR[c])
        key = (outs << 48) | (pts[c] << 8) | (255 - c)
        k = n            # insertion, highest key first
        while k > 0 and cand[k - 1] < key:
            cand[k] = cand[k - 1]
            k -= 1
        cand[k] = key
        n += 1
    d_full = hand_def_nb(R, G, p)
    for k in range(n):
        c = 255 - (cand[k] & 255)
        Hp[c] -= 1
        d = deficiency_ws_nb(Hp, kinds, sizes, nm, jcap, ex, gp, M0, M1, M2, M3, M4)
        Hp[c] += 1
        if d == d_full:
            return action_nb(A_DISCARD, c, 0, 0)
    return action_nb(A_DISCARD, 255 - (cand[0] & 255), 0, 0)


@nb.njit(cache=True, _nrt=False)
def _greedy_layoff(R, G, p):
    """The first legal lay-off (cards, then melds, then ends), or -1."""
    BUF = G[G_BUF]
    if layoff_list_nb(R, G, p, BUF, 0, True) > 0:
        return BUF[0]
    return -1


@nb.njit(cache=True, _nrt=False, inline="always")
def _greedy_swap(R, G, p, down):
    """A joker swap that helps: when down, one whose joker can be laid off afterwards;
    when not down (joker_swap = anyone), one after which the bot can go down."""
    H = G[G_HANDS]
    TM = G[G_TABLE]
    S = G[G_S]
    PS = G[G_PS]
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
                    c = TM[m, TM_KEY] * 13 + k % 13
                else:
                    c = s * 13 + TM[m, TM_KEY]
                if H[p, c] == 0 or not swap_legal_nb(R, G, p, c, m, k):
                    continue
                if not down:
                    return action_nb(A_SWAP, c, m, k)
                d0 = PS[p, PS_DEF]
                k0 = PS[p, PS_DEFOK]
                ident = do_swap_nb(G, p, c, m, k)
                ok = layoff_allowed_now_nb(R, G, p) and card_layable_nb(R, G, JOKER)
                undo_swap_nb(G, p, c, m, k, ident)
                PS[p, PS_DEF] = d0
                PS[p, PS_DEFOK] = k0
                if ok:
                    return action_nb(A_SWAP, c, m, k)
    return -1


@nb.njit(cache=True, _nrt=False)
def _lone_card_ok(R, G, p):
    """Seat p (down) holds cards that do not block a lay-off of one more card."""
    if not must_lay_off_last_nb(G[G_PS][p, PS_N], R[R_PARAMS][P_GO_OUT]):
        return True
    for c in range(53):
        if G[G_HANDS][p, c] > 0:
            return card_layable_nb(R, G, c)
    return True


@nb.njit(cache=True, _nrt=False)
def _buy_policy(bp, h):
    if h < MAX_HAND_PARAMS and bp[BP_HAND0 + h] >= 0:
        return int(bp[BP_HAND0 + h])
    return int(bp[BP_BUY])


@nb.njit(cache=True, _nrt=False, inline="always")
def greedy_action_nb(R, G, p, bp):
    S = G[G_S]
    PS = G[G_PS]
    ph = S[S_PHASE]
    down = PS[p, PS_DOWN] != 0
    if ph == PH_FIRST:
        up = S[S_UP]
        d0 = hand_def_nb(R, G, p)
        if d0 > 0 and _def_with(R, G, p, up, 1) < d0:
            return action_nb(A_TAKE, 0, 0, 0)
        return action_nb(A_PASS, 0, 0, 0)
    if ph == PH_BUY:
        pol = _buy_policy(bp, S[S_HAND])
        if pol == BUY_NEVER or down:
            return action_nb(A_PASS, 0, 0, 0)
        if bp[BP_MAXBUYS] >= 0 and PS[p, PS_BUYS] >= bp[BP_MAXBUYS]:
            return action_nb(A_PASS, 0, 0, 0)
        if pol == BUY_ALWAYS:
            return action_nb(A_BUY, 0, 0, 0)
        d0 = hand_def_nb(R, G, p)
        if d0 > 0 and _def_with(R, G, p, S[S_UP], 1) < d0:
            return action_nb(A_BUY, 0, 0, 0)
        return action_nb(A_PASS, 0, 0, 0)
    if ph == PH_DRAW:
        # Take the upcard only if it can really be laid off this turn: under no_discard a
        # lone card that does not fit must stay in hand, so laying off the upcard then is barred.
        if card_layable_nb(R, G, S[S_UP]) and _lone_card_ok(R, G, p):
            return action_nb(A_TAKE, 0, 0, 0)
        return action_nb(A_DRAW, 0, 0, 0)
    if ph != PH_PLAY:
        return -1
    if not down:
        if S[S_MUST_DOWN] != 0:
            return action_nb(A_GO_DOWN, 0, 0, 0)
        if go_down_available_nb(R, G, p):
            if bp[BP_WAIT_BLIND] == 0 or _blind_possible(R, G, p):
                return action_nb(A_GO_DOWN, 0, 0, 0)
        elif R[R_PARAMS][P_JOKER_SWAP] == SWAP_ANYONE and S[S_NT] > 0 and bp[BP_WAIT_BLIND] == 0:
            a = _greedy_swap(R, G, p, False)
            if a >= 0:
                return a
        return _greedy_discard(R, G, p)
    if layoff_allowed_now_nb(R, G, p):
        a = _greedy_layoff(R, G, p)
        if a >= 0:
            return a
        a = _greedy_swap(R, G, p, True)
        if a >= 0:
            return a
    return _greedy_discard(R, G, p)


@nb.njit(cache=True, _nrt=False, inline="always")
def bot_action_nb(R, G, kind, bp):
    """The action of the bot of this kind for the seat to act."""
    p = G[G_S][S_ACTOR]
    if kind == BOT_GREEDY:
        return greedy_action_nb(R, G, p, bp)
    return random_action_nb(R, G, p)
