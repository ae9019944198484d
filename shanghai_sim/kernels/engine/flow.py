"""The hand's flow between decisions: dealing, the upcard offer and the buy window,
turns, the end of a hand and of the game (docs/rules.md §3, §5); ``advance_nb`` runs
the automatic phases up to the next decision."""

import numba as nb
import numpy as np

from ..compile.linking import separate

from ..base.layout import (JOKER, MAXP, NCARDS, NPS, NS, PS_BUYCARDS, PS_BUYS, PS_DOWN, PS_DOWNTURN,
    PS_KNOWN0, PS_N, PS_POINTS, PS_TOOK, PS_TOTAL, PS_TURNS, RNG_BOT0, RNG_DEAL, RNG_SEED, S_ACTOR, S_BO0,
    S_BOUGHT, S_BO_N, S_CAND, S_CGD_AT, S_CHECK, S_CUR, S_DEALER, S_DOWN_NOW, S_END_REASON, S_FIRST_DEALER,
    S_GD_AT, S_HALT, S_HAND, S_HANDS_DONE, S_JK_PLAYED, S_LOG_ON, S_MUST_DOWN, S_NEXT, S_NP, S_PASSES,
    S_PHASE, S_PILE_N, S_SHOE, S_STOCK_N, S_TURNS, S_UP, S_UP_FROM, S_UP_ON_PILE, S_WINNER)
from ..melds.finder import memo_trim_nb
from ..base.records import (HF_BLIND, HF_BUYS, HF_BUY_CARDS, HF_CARDS_LEFT, HF_DEALER, HF_DOWN_TURN,
                      HF_JOKERS_LEFT, HF_POINTS, HF_STOCK_PASSES, HF_STOPPED, HF_TURNS, HF_WENT_OUT)
from ..base.rng import game_seed_nb, randint_nb, seed_state_nb, shuffle_nb
from ..base.codes import (DEAL_CARDS, DEAL_N, DEAL_SEAT, DRAW_CARD, DRAW_SEAT, DRAW_SIZE, DRAW_SOURCE,
                    EV_DEAL, EV_DRAW, EV_GAME_END, EV_HAND, EV_HAND_END, EV_UPCARD,
                    GAME_END_TOTALS, HAND_DEALER, HAND_END_REASON, HAND_END_SCORES,
                    HAND_END_WINNER, HAND_FIRST, HAND_HAND, HAND_SIZE, PH_AFTERWIN, PH_BUY,
                    PH_DRAW, PH_ENDHAND, PH_FIRST, PH_NEWHAND, PH_OFFER, PH_OVER, PH_PLAY,
                    UPCARD_CARD, UPCARD_SIZE, END_OUT, END_STOCK, END_TURN_CAP, SOURCE_STOCK)
from .state import add_card, def_forget_nb, ev_nb
from .table import draw_stock_nb
from .godown import unplace_nb

# ---------------------------------------------------------------- hand flow

@nb.njit(cache=True, _nrt=False, inline="always")
def _begin_turn(R, G, p):
    """Start seat p's turn; False when the turn cap (rules max_hand_turns) stops the hand."""
    S = G.s
    S[S_CUR] = p
    S[S_DOWN_NOW] = 0
    S[S_MUST_DOWN] = 0
    S[S_JK_PLAYED] = 0
    if S[S_TURNS] >= R.params.max_hand_turns:    # the cap's turns are played: no further turn
        S[S_WINNER] = -1
        S[S_END_REASON] = END_TURN_CAP
        S[S_PHASE] = PH_ENDHAND
        return False
    S[S_TURNS] += 1
    G.ps[p, PS_TURNS] += 1
    G.ps[p, PS_TOOK] = 0
    return True


@nb.njit(cache=True, _nrt=False)
def _stop_hand(G):
    S = G.s
    S[S_WINNER] = -1
    S[S_END_REASON] = END_STOCK
    S[S_PHASE] = PH_ENDHAND


@separate(returns=nb.none)
@nb.njit(cache=True, _nrt=False)
def _start_hand(R, G):
    S = G.s
    PS = G.ps
    H = G.hands
    STK = G.stock
    params = R.params
    P = S[S_NP]
    h = S[S_HAND]
    dealer = (S[S_FIRST_DEALER] + h) % P
    S[S_DEALER] = dealer
    for q in range(P):
        for f in range(NPS):
            if f != PS_TOTAL:
                PS[q, f] = 0
        PS[q, PS_DOWNTURN] = -1
        for c in range(NCARDS):
            H[q, c] = 0
        def_forget_nb(G, q)
    unplace_nb(G, np.int64(0))
    # docs/rules.md §5.1: the shoe, shuffled from a stream of (game seed, hand).
    seed_state_nb(game_seed_nb(G.rng[RNG_SEED, 0], h + 1), G.rng[RNG_DEAL])
    k = np.int64(0)
    for d in range(params.decks):
        for c in range(JOKER):
            STK[k] = c
            k += 1
    for j in range(params.jokers):
        STK[k] = JOKER
        k += 1
    shuffle_nb(G.rng[RNG_DEAL], STK, k)
    S[S_PILE_N] = 0
    S[S_PASSES] = 0
    S[S_TURNS] = 0
    S[S_BOUGHT] = 0
    S[S_WINNER] = -1
    S[S_END_REASON] = END_OUT
    b = ev_nb(G, EV_HAND, HAND_SIZE)
    if b >= 0:
        G.log[b + HAND_HAND] = h
        G.log[b + HAND_DEALER] = dealer
        G.log[b + HAND_FIRST] = (dealer + 1) % P
    # One card at a time, clockwise from the dealer's left; the top of the stock is the end.
    nd = R.deal[h]
    for r in range(nd):
        for i in range(1, P + 1):
            k -= 1
            add_card(G, (dealer + i) % P, STK[k])
    for i in range(1, P + 1):
        q = (dealer + i) % P
        b = ev_nb(G, EV_DEAL, DEAL_CARDS + nd)
        if b >= 0:
            G.log[b + DEAL_SEAT] = q
            G.log[b + DEAL_N] = nd
            t = b + DEAL_CARDS
            for c in range(NCARDS):
                for _ in range(H[q, c]):
                    G.log[t] = c
                    t += 1
    k -= 1
    up = STK[k]
    S[S_STOCK_N] = k
    G.pile[0] = up
    S[S_PILE_N] = 1
    S[S_UP] = up
    S[S_UP_ON_PILE] = 1
    S[S_UP_FROM] = -1
    b = ev_nb(G, EV_UPCARD, UPCARD_SIZE)
    if b >= 0:
        G.log[b + UPCARD_CARD] = up
    S[S_CUR] = dealer
    S[S_NEXT] = (dealer + 1) % P
    S[S_PHASE] = PH_OFFER


@nb.njit(cache=True, _nrt=False, inline="always")
def _open_buy(R, G):
    """docs/rules.md §5.4: the claimants in buy_priority order."""
    S = G.s
    PS = G.ps
    params = R.params
    P = S[S_NP]
    nxt = S[S_NEXT]
    if params.buy_priority == 0:      # dealer_left
        start = S[S_DEALER] + 1
    else:                                # turn_order: clockwise from the player in turn
        start = nxt + 1
    lim = R.buys[S[S_HAND]]
    n = 0
    for i in range(P):
        q = (start + i) % P
        if q == nxt or q == S[S_UP_FROM]:
            continue
        if PS[q, PS_DOWN] != 0 and params.down_may_buy == 0:
            continue
        if PS[q, PS_BUYS] >= lim:
            continue
        S[S_BO0 + n] = q
        n += 1
    S[S_BO_N] = n
    S[S_CAND] = 0
    S[S_BOUGHT] = 0
    if n == 0:
        S[S_PHASE] = PH_AFTERWIN
    else:
        S[S_PHASE] = PH_BUY
        S[S_ACTOR] = S[S_BO0]


@nb.njit(cache=True, _nrt=False, inline="always")
def _take_upcard(G, p):
    S = G.s
    c = S[S_UP]
    S[S_PILE_N] -= 1
    S[S_UP_ON_PILE] = 0
    add_card(G, p, c)
    G.ps[p, PS_TOOK] = c + 1
    G.ps[p, PS_KNOWN0 + c] += 1
    return c


@nb.njit(cache=True, _nrt=False, inline="always")
def _log_draw(G, p, src, c):
    b = ev_nb(G, EV_DRAW, DRAW_SIZE)
    if b >= 0:
        G.log[b + DRAW_SEAT] = p
        G.log[b + DRAW_SOURCE] = src
        G.log[b + DRAW_CARD] = c


@nb.njit(cache=True, _nrt=False, inline="always")
def _stock_draw_turn(R, G, p):
    c = draw_stock_nb(R, G)
    if c < 0:
        _stop_hand(G)
        return
    add_card(G, p, c)
    _log_draw(G, p, SOURCE_STOCK, c)
    G.s[S_PHASE] = PH_PLAY
    G.s[S_ACTOR] = p


@nb.njit(cache=True, _nrt=False, inline="always")
def _after_window(R, G):
    S = G.s
    p = S[S_NEXT]
    if not _begin_turn(R, G, p):
        return
    S[S_ACTOR] = p
    if S[S_BOUGHT] == 0 and G.ps[p, PS_DOWN] != 0 and S[S_UP_ON_PILE] != 0:
        S[S_PHASE] = PH_DRAW       # a down player may take an unbought upcard
    else:
        _stock_draw_turn(R, G, p)  # refused (dead) or bought: the stock


@separate(returns=nb.none)
@nb.njit(cache=True, _nrt=False)
def _end_hand(R, G):
    S = G.s
    PS = G.ps
    H = G.hands
    REC = G.rec
    params = R.params
    pts = R.points
    P = S[S_NP]
    h = S[S_HAND]
    w = S[S_WINNER]
    blind = 0
    if w >= 0 and S[S_DOWN_NOW] != 0:
        blind = 1       # docs/rules.md §3 blind_bonus: down and out in one turn
    for q in range(P):
        s = 0
        for c in range(NCARDS):
            s += H[q, c] * pts[c]
        if q == w:
            s = 0
            if blind:
                s = params.blind_joker if S[S_JK_PLAYED] > 0 else params.blind_no_joker
        PS[q, PS_POINTS] = s
        PS[q, PS_TOTAL] += s
        REC[h, q, HF_DEALER] = S[S_DEALER]
        REC[h, q, HF_DOWN_TURN] = PS[q, PS_DOWNTURN]
        REC[h, q, HF_WENT_OUT] = 1 if q == w else 0
        REC[h, q, HF_BUYS] = PS[q, PS_BUYS]
        REC[h, q, HF_BUY_CARDS] = PS[q, PS_BUYCARDS]
        REC[h, q, HF_POINTS] = s
        REC[h, q, HF_CARDS_LEFT] = PS[q, PS_N]
        REC[h, q, HF_JOKERS_LEFT] = H[q, JOKER]
        REC[h, q, HF_TURNS] = PS[q, PS_TURNS]
        REC[h, q, HF_STOCK_PASSES] = S[S_PASSES]
        REC[h, q, HF_BLIND] = blind if q == w else 0
        REC[h, q, HF_STOPPED] = S[S_END_REASON]
    b = ev_nb(G, EV_HAND_END, HAND_END_SCORES + 2 * P)
    if b >= 0:
        G.log[b + HAND_END_WINNER] = w
        G.log[b + HAND_END_REASON] = S[S_END_REASON]
        for q in range(P):
            G.log[b + HAND_END_SCORES + q] = PS[q, PS_POINTS]
            G.log[b + HAND_END_SCORES + P + q] = PS[q, PS_TOTAL]
    S[S_HANDS_DONE] = h + 1
    if h + 1 < params.nhands:
        S[S_HAND] = h + 1
        S[S_PHASE] = PH_NEWHAND
    else:
        S[S_PHASE] = PH_OVER
        S[S_ACTOR] = -1
        b = ev_nb(G, EV_GAME_END, P)
        if b >= 0:
            for q in range(P):
                G.log[b + GAME_END_TOTALS + q] = PS[q, PS_TOTAL]


@nb.njit(cache=True, _nrt=False, inline="always")
def advance_nb(R, G):
    """Run the automatic phases until a decision (or the end of the game)."""
    S = G.s
    while True:
        ph = S[S_PHASE]
        if ph == PH_NEWHAND:
            if S[S_HALT] != 0:
                return
            _start_hand(R, G)
        elif ph == PH_OFFER:
            nxt = S[S_NEXT]
            if G.ps[nxt, PS_DOWN] == 0:
                S[S_PHASE] = PH_FIRST     # first refusal (docs/rules.md §5.4)
                S[S_ACTOR] = nxt
            else:
                _open_buy(R, G)           # a down player cannot block a buy
        elif ph == PH_AFTERWIN:
            _after_window(R, G)
        elif ph == PH_ENDHAND:
            _end_hand(R, G)
        else:
            return


@separate(returns=nb.none)
@nb.njit(cache=True, _nrt=False)
def init_game_nb(R, G, seed, log_on, check):
    """Reset G to the start of a game seeded ``seed`` and advance to the first decision."""
    S = G.s
    PS = G.ps
    # Clear the table of a game played before on this state (while S_NT still counts it).
    unplace_nb(G, np.int64(0))
    for i in range(NS):
        if i != S_SHOE and i != S_NP:
            S[i] = 0
    for q in range(MAXP):
        for f in range(NPS):
            PS[q, f] = 0
        def_forget_nb(G, q)
    G.rec[:, :, :] = 0
    memo_trim_nb(G.mkeys)
    S[S_LOG_ON] = log_on
    S[S_CHECK] = check
    S[S_CGD_AT] = -1
    S[S_GD_AT] = 0
    G.rng[RNG_SEED, 0] = np.uint64(seed)
    P = S[S_NP]
    for q in range(MAXP):
        seed_state_nb(game_seed_nb(np.uint64(seed), np.uint64(1000 + q)), G.rng[RNG_BOT0 + q])
    # docs/rules.md §5.1: the first dealer is chosen from the game seed.
    seed_state_nb(game_seed_nb(np.uint64(seed), np.uint64(0)), G.rng[RNG_DEAL])
    S[S_FIRST_DEALER] = randint_nb(G.rng[RNG_DEAL], P)
    S[S_HAND] = 0
    S[S_PHASE] = PH_NEWHAND
    advance_nb(R, G)
