"""The search's playouts: a sampled world loaded into the scratch state, and each candidate
action played out on it to the end of the hand (``kernels.search``).

Memory: the playouts run on a scratch state (``scratch_state_nb``) whose game arrays are the
workspace W (``layout.WORKSPACE_SPEC``, allocated once per thread: ``new_workspace_nb`` in
the batch kernel, ``layout.new_workspace`` for ``Game``) and whose meld and hand memos are the
real state's (caches: sharing them changes no answer). Nothing is allocated per sample or
playout, and the real state is not written: its caches, log, records and deal stream stay as
they were.

``load_sample_nb`` deals a pool of cards (the order a sampler made: ``sample.sample_pool_nb``,
or the diagnostic ``oracle.oracle_pool_nb``) to the other hands and the stock; it reads the
other seats' public rows, never their hands. ``play_sample_nb`` plays every candidate of a
search on one such world, with the same deal stream (common random numbers).

Outcome of a playout: the seat's points for the hand (BP_UTILITY 0), or its total less the
lowest total of the other seats once the hand is scored (1). Lower is better.
"""

import numba as nb
import numpy as np

from ..compile.linking import separate

from ..bots.players import BUY_AUTO, greedy_action_nb, smart_action_nb
from ..bots.params import (BP_BUY, BP_HAND0, BP_MAXBUYS, BP_POLICY, BP_UTILITY, BP_WAIT_BLIND,
                           MAX_HAND_PARAMS, NBP)
from ..base.layout import (NATURALS, NCARDS, NPS, NRF, NRI, NS, NTM, State, Workspace, PS_KNOWN0, PS_N, PS_TOTAL, RF_DSQ,
    RF_OTHER, RF_SELF, RF_SUM, RF_W, RI_CAND, RI_POOL, RNG_DEAL, S_ACTOR, S_CGD_AT, S_CHECK,
    S_GD_AT, S_HALT, S_HAND, S_HANDS_DONE, S_LOG_ON, S_NP, S_NT, S_PHASE, S_PILE_N, S_STOCK_N, TW)
from ..base.codes import E_OK, PH_OVER, POLICY_GREEDY, UTILITY_POINTS
from ..engine.godown import unplace_nb
from ..engine.play import apply_action_nb
from ..engine.state import def_forget_nb, def_restore_nb, def_saved_nb, game_arrays_nb, seat_view_done_nb, seat_view_nb
from ..base.records import HF_POINTS
from ..base.rng import seed_state_nb
from .sample import unseen_pool_nb

# A playout's parameter rows (W.rf[RF_SELF], [RF_OTHER]) hold a whole bot vector. numba does
# not check bounds: with RF_W = 64 < NBP = 83 they overlapped the next rows, so the playouts
# ran on wrong weights (version 1 of the bot); kernels.bots.params now checks NBP <= RF_W.

ILLEGAL = 1.0e6       # outcome of a candidate the scratch state refused (never expected)


@nb.njit(cache=True, _nrt=True)
def new_workspace_nb(params):
    """``layout.new_workspace`` inside numba: the game arrays of a state (play.game_arrays_nb),
    then the workspace's own (layout.WORKSPACE_SPEC; tests/test_layout.py checks it)."""
    shoe = NATURALS * params.decks + params.jokers
    s, ps, hands, priv, stock, pile, table, tcards, tjokers, gd, gdj, rng, log, rec, scr, ld, buf = \
        game_arrays_nb(params, 0)
    return Workspace(s, ps, hands, priv, stock, pile, table, tcards, tjokers, gd, gdj, rng, log, rec, scr, ld,
                     buf, np.zeros((NRI, shoe), np.int64), np.zeros((NRF, RF_W), np.float64))


@nb.njit(cache=True, _nrt=False, inline="always")
def scratch_state_nb(V, W):
    """The scratch state the playouts run on: W's game arrays, the searching seat's view's
    meld and hand memos (the real state's)."""
    return State(W.s, W.ps, W.hands, W.priv, W.stock, W.pile, W.table, W.tcards,
                 W.tjokers, W.gd, W.gdj, W.rng, W.log, W.rec, W.scr, W.ld,
                 W.buf, V.mkeys, V.mvals, V.mn, V.mscr, V.wt, V.hmemo)


@nb.njit(cache=True, _nrt=False, inline="always")
def playout_rows_nb(W, bp, n, k0):
    """The playouts' parameter rows: the searching seat plays bp, the others bp without the
    experiment knobs; the n candidates' sums zeroed when the search starts (k0 0)."""
    RF = W.rf
    for i in range(NBP):
        RF[RF_SELF, i] = bp[i]
        RF[RF_OTHER, i] = bp[i]
    RF[RF_OTHER, BP_BUY] = BUY_AUTO
    RF[RF_OTHER, BP_MAXBUYS] = -1.0
    RF[RF_OTHER, BP_WAIT_BLIND] = 0.0
    for i in range(MAX_HAND_PARAMS):
        RF[RF_OTHER, BP_HAND0 + i] = -1.0
    if k0 == 0:
        for i in range(n):
            RF[RF_SUM, i] = 0.0
            RF[RF_DSQ, i] = 0.0


@nb.njit(cache=True, _nrt=False, inline="always")
def search_start_nb(R, V, W, p, bp, n, k0):
    """A search's start, honest or the oracle's: the size of seat p's unseen pool, drawn from
    its view V into W.ri[RI_POOL] (-1 if the view does not add up: nothing else is done),
    and the playouts' rows (:func:`playout_rows_nb`)."""
    npool = unseen_pool_nb(R, V, p, W.ri[RI_POOL])
    if npool >= 0:
        playout_rows_nb(W, bp, n, k0)
    return npool


@nb.njit(cache=True, _nrt=False)
def load_sample_nb(R, V, G2, p, pool, seed):
    """G2 := a world as seat p sees the game from its view V: the other seats' hidden cards,
    then the stock, dealt from pool in order (unseen_pool_nb, shuffled); G2's deal stream
    seeded ``seed``, logging, checks and the go-down caches off, and halting at the end of
    the hand (S_HALT). The other seats' hands are counted from their public rows."""
    S = V.s
    S2 = G2.s
    PS = V.ps
    PS2 = G2.ps
    H = V.hands
    H2 = G2.hands
    nt = S[S_NT]
    unplace_nb(G2, nt)           # table rows a previous playout added beyond the real table
    for i in range(NS):
        S2[i] = S[i]
    P = S[S_NP]
    k = 0
    for q in range(P):
        for f in range(NPS):
            PS2[q, f] = PS[q, f]
        if q == p:
            for c in range(NCARDS):
                H2[q, c] = H[q, c]
            def_restore_nb(G2, q, def_saved_nb(V, q))     # its own hand: the same cache
            continue
        hidden = PS[q, PS_N]
        for c in range(NCARDS):
            H2[q, c] = PS[q, PS_KNOWN0 + c]
            hidden -= H2[q, c]
        for _ in range(hidden):
            H2[q, pool[k]] += 1
            k += 1
        def_forget_nb(G2, q)
    STK2 = G2.stock
    for i in range(S[S_STOCK_N]):
        STK2[i] = pool[k]
        k += 1
    PILE = V.pile
    PILE2 = G2.pile
    for i in range(S[S_PILE_N]):
        PILE2[i] = PILE[i]
    TM = V.table
    TM2 = G2.table
    TC = V.tcards
    TC2 = G2.tcards
    TJ = V.tjokers
    TJ2 = G2.tjokers
    for m in range(nt):
        for f in range(NTM):
            TM2[m, f] = TM[m, f]
        for j in range(TW):
            TC2[m, j] = TC[m, j]
            TJ2[m, j] = TJ[m, j]
    RNG2 = G2.rng
    seed_state_nb(seed, RNG2[RNG_DEAL])
    S2[S_LOG_ON] = 0
    S2[S_HALT] = 1
    S2[S_CHECK] = 0
    S2[S_GD_AT] = 0
    S2[S_CGD_AT] = -1


@separate(returns=nb.boolean)
@nb.njit(cache=True, _nrt=False)
def playout_nb(R, G2, p, RF, policy, h):
    """Play hand h of G2 to its end: seat p with RF[RF_SELF], the others with
    RF[RF_OTHER], all by smart (POLICY_SMART) or greedy (POLICY_GREEDY). False if an action was refused."""
    S2 = G2.s
    while S2[S_PHASE] != PH_OVER and S2[S_HANDS_DONE] <= h:
        q = S2[S_ACTOR]
        qbp = RF[RF_SELF if q == p else RF_OTHER]
        V2 = seat_view_nb(G2, q)          # every seat of a playout plays from its view too
        if policy == POLICY_GREEDY:
            a = greedy_action_nb(R, V2, q, qbp)
        else:
            a = smart_action_nb(R, V2, q, qbp)
        seat_view_done_nb(G2, q)
        if apply_action_nb(R, G2, a) != E_OK:
            return False
    return True


@nb.njit(cache=True, _nrt=False)
def outcome_nb(G2, p, h, util):
    """Seat p's outcome of the hand h just played in G2 (lower is better)."""
    if util == UTILITY_POINTS:
        return float(G2.rec[h, p, HF_POINTS])
    PS2 = G2.ps
    best = np.int64(1) << 62
    for q in range(G2.s[S_NP]):
        if q != p and PS2[q, PS_TOTAL] < best:
            best = PS2[q, PS_TOTAL]
    return float(PS2[p, PS_TOTAL] - best)


@separate(returns=nb.none)
@nb.njit(cache=True, _nrt=False)
def play_sample_nb(R, V, W, p, bp, n, seed):
    """One sample of a search: the world dealt from W's pool (``load_sample_nb``, its deal
    stream seeded ``seed``) played out once per candidate (W.ri[RI_CAND][:n]), each from
    the same world; the outcomes added to W.rf[RF_SUM] and the squares of their paired
    differences with the first candidate's to RF_DSQ."""
    G2 = scratch_state_nb(V, W)
    RF = W.rf
    pool = W.ri[RI_POOL]
    cand = W.ri[RI_CAND]
    policy = int(bp[BP_POLICY])
    util = int(bp[BP_UTILITY])
    h = V.s[S_HAND]
    v0 = 0.0
    for i in range(n):
        load_sample_nb(R, V, G2, p, pool, seed)
        v = ILLEGAL
        if apply_action_nb(R, G2, cand[i]) == E_OK and playout_nb(R, G2, p, RF, policy, h):
            v = outcome_nb(G2, p, h, util)
        RF[RF_SUM, i] += v
        if i == 0:
            v0 = v
        else:
            RF[RF_DSQ, i] += (v - v0) * (v - v0)
