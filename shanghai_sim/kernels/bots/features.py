"""A decision position as numbers, from the seat's view alone: the features of the
``positions`` table (docs/dataset.md; their names and order: ``base.positions.FEATURES``) and
of the models learned from it (issue #57).

``features_nb(R, V, p, x)`` fills ``x`` (int32[NFEATURES]) for seat p from its view V
(``engine.state.seat_view_nb``): what the game and the hand are, the seat's own hand (its
deficiency, points, jokers, live outs), its buys, and of every other seat only what every
player saw (cards held, down, buys, the cards it took from the pile or bought and still
holds, the cards it declined this hand, its score). The other seats come in the order they
play after p (``opp1`` is the next to play); seats past the table's players are zeros.
Reading nothing but V, no feature can tell where a hidden card lies
(``tests/test_positions.py`` deals them anew and reshuffles the stock).
"""

import numba as nb

from ..base.codes import PH_BUY, PH_DRAW, PH_FIRST
from ..base.positions import (F_BEST_OTHER, F_BUYS, F_BUYS_LEFT, F_CARDS, F_DEF, F_DOWN, F_HAND,
    F_JOKERS, F_LIVE, F_OWN_TURNS, F_PASSES, F_PILE, F_PLAYERS, F_POINTS, F_STOCK, F_TOTAL, F_TURN,
    F_UNSEEN, F_UP_HELPS, NFEATURES, NOPP, NOWN, O_BUYS, O_CARDS, O_DECLINED, O_DOWN, O_TOOK, O_TOTAL,
    O_TURNS)
from ..base.layout import (JOKER, NCARDS, PS_BUYS, PS_DECL0, PS_DOWN, PS_KNOWN0, PS_N, PS_TOTAL,
    PS_TURNS, S_HAND, S_NP, S_PASSES, S_PHASE, S_PILE_N, S_STOCK_N, S_TURNS, S_UP, S_UP_ON_PILE)
from ..engine.handmemo import def_in_nb, hand_def_nb
from .outlook import contract_kinds_nb, live_outs_nb, may_come_nb

@nb.njit(cache=True, _nrt=False)
def features_nb(R, V, p, x):
    """Fill x (int32[NFEATURES]) with seat p's features, read from its view V only."""
    S = V.s
    PS = V.ps
    H = V.hands[p]
    P = S[S_NP]
    h = S[S_HAND]
    for i in range(NFEATURES):
        x[i] = 0
    x[F_PLAYERS] = P
    x[F_HAND] = h
    x[F_TURN] = S[S_TURNS]
    x[F_OWN_TURNS] = PS[p, PS_TURNS]
    x[F_STOCK] = S[S_STOCK_N]
    x[F_PILE] = S[S_PILE_N]
    x[F_PASSES] = S[S_PASSES]
    x[F_CARDS] = PS[p, PS_N]
    pts = 0
    for c in range(NCARDS):
        pts += H[c] * R.points[c]
    x[F_POINTS] = pts
    x[F_JOKERS] = H[JOKER]
    x[F_DOWN] = PS[p, PS_DOWN]
    x[F_BUYS] = PS[p, PS_BUYS]
    x[F_BUYS_LEFT] = max(R.buys[h] - PS[p, PS_BUYS], 0)
    if PS[p, PS_DOWN] == 0:
        d = hand_def_nb(R, V, p)
        x[F_DEF] = d
        has_set, has_run = contract_kinds_nb(R, V)
        cand, copies, n = may_come_nb(R, V, p, has_set, has_run)
        x[F_UNSEEN] = n
        if d > 0:
            x[F_LIVE] = live_outs_nb(R, V, p, d, cand, copies, -1)
            ph = S[S_PHASE]
            up = S[S_UP]
            if (ph == PH_FIRST or ph == PH_BUY or ph == PH_DRAW) and S[S_UP_ON_PILE] != 0 and up >= 0:
                H[up] += 1
                dd = def_in_nb(R, V, H, d - 1, d)
                H[up] -= 1
                if dd < d:
                    x[F_UP_HELPS] = 1
    x[F_TOTAL] = PS[p, PS_TOTAL]
    best = -1
    for k in range(1, P):
        q = (p + k) % P
        b = NOWN + (k - 1) * NOPP
        x[b + O_CARDS] = PS[q, PS_N]
        x[b + O_DOWN] = PS[q, PS_DOWN]
        x[b + O_BUYS] = PS[q, PS_BUYS]
        took = 0
        declined = 0
        for c in range(NCARDS):
            took += PS[q, PS_KNOWN0 + c]
            if PS[q, PS_DECL0 + c] > 0:
                declined += 1
        x[b + O_TOOK] = took
        x[b + O_DECLINED] = declined
        x[b + O_TOTAL] = PS[q, PS_TOTAL]
        x[b + O_TURNS] = PS[q, PS_TURNS]
        if best < 0 or PS[q, PS_TOTAL] < best:
            best = PS[q, PS_TOTAL]
    x[F_BEST_OTHER] = max(best, 0)
