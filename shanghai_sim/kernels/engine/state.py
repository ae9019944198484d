"""The game state's arrays, the event log and the cards in a seat's hand.

``new_state_nb`` makes the state ``G`` (``layout.State``; ``layout.STATE_SPEC`` lists every array);
``ev_nb`` opens a log event (its payload offsets are ``codes``' ``<EVENT>_<FIELD>``);
``add_card``/``rem_card`` move a card in or out of a hand and keep the seat's cached
deficiency state (``PV_DEFOK``: ``DEF_UNKNOWN``, ``DEF_KNOWN``, ``DEF_LESS_ONE``) right.
"""

import numba as nb
import numpy as np

from ..base.layout import (NATURALS, CACHE_BITS, DEF_KNOWN, DEF_LESS_ONE, DEF_UNKNOWN, FP, HM_BITS,
    LAY_W, MAXLEGAL, MAXP, MAXT, MAX_MELDS, MEMO_T, NCARDS, NPOS, NPS, NPV, NRNG, NS, NSCR, NTM, PS_KNOWN0,
    PS_N, PV_DEF, PV_DEFOK, PW, RNG_BOT0, SCRATCH, SCR_W, S_LOG_N, S_LOG_ON, S_NP, S_SHOE, State, TW,
    WT_SIZES, WT_W)
from ..base.records import NHF

# ---------------------------------------------------------------- state

@nb.njit(cache=True, _nrt=True)
def game_arrays_nb(params, log_size):
    """The game arrays of layout.STATE_SPEC (s .. buf) written out in its order: the
    start of a state (new_state_nb) and of the rollout bot's workspace
    (rollout.new_workspace_nb); tests/test_layout.py checks both against their specs."""
    shoe = NATURALS * params.decks + params.jokers
    hands = params.nhands
    S = np.zeros(NS, np.int64)
    S[S_SHOE] = shoe
    S[S_NP] = params.players
    TC = np.full((MAXT, TW), -1, np.int64)
    TJ = np.full((MAXT, TW), -1, np.int64)
    GDJ = np.full((MAX_MELDS, TW), -1, np.int64)
    return (S, np.zeros((MAXP, NPS), np.int64), np.zeros((2 * MAXP, NCARDS), np.int64),
            np.zeros((2 * MAXP, NPV), np.int64), np.zeros(2 * shoe, np.int64), np.zeros(shoe, np.int64),
            np.zeros((MAXT, NTM), np.int64), TC, TJ, np.zeros((MAX_MELDS, PW), np.int64),
            GDJ, np.zeros((2 * NRNG, 4), np.uint64),
            np.zeros(max(log_size, 1), np.int64), np.zeros((hands, MAXP, NHF), np.int32),
            np.zeros((NSCR, SCR_W), np.int64), np.zeros((MAX_MELDS, LAY_W), np.int64),
            np.zeros(MAXLEGAL, np.int64))


@nb.njit(cache=True, _nrt=True)
def new_state_nb(params, log_size):
    """``layout.new_state`` inside numba (for the batch kernel): the game arrays, then the
    meld finder's memo (layout.CACHE_SPEC), the hand memo (def_of_nb), the seat view's rows."""
    s, ps, hands, priv, stock, pile, table, tcards, tjokers, gd, gdj, rng, log, rec, scr, ld, buf = \
        game_arrays_nb(params, log_size)
    return State(s, ps, hands, priv, stock, pile, table, tcards, tjokers, gd, gdj, rng, log, rec, scr, ld, buf,
                 np.zeros(1 << CACHE_BITS, np.int64),
                 np.zeros((1 << CACHE_BITS, MEMO_T, FP, 2), np.int16),
                 np.zeros((1 << CACHE_BITS, MEMO_T), np.int8), np.zeros(SCRATCH, np.int64),
                 np.zeros((WT_SIZES << NPOS, WT_W), np.int32), np.zeros((1 << HM_BITS, 4), np.int64))


# ---------------------------------------------------------------- the seat view

@nb.njit(cache=True, _nrt=False, inline="always")
def seat_view_nb(G, p):
    """Seat p's view of the state G (a ``State``, or a playout's scratch state), what its bot
    receives (``layout.State``'s docstring): a ``State`` whose hand, private row and random
    stream are copies in the view's own rows of G's arrays (``hands`` and ``priv`` from row
    MAXP, ``rng`` from row NRNG), holding seat p's alone, and whose stock is the never-written
    half of G's (zeros). A bot may try moves on that hand; the real one is not touched.
    :func:`seat_view_done_nb` ends it."""
    H = G.hands
    PV = G.priv
    RG = G.rng
    for c in range(NCARDS):
        H[MAXP + p, c] = H[p, c]
    for f in range(NPV):
        PV[MAXP + p, f] = PV[p, f]
    r = RNG_BOT0 + p
    for i in range(4):
        RG[NRNG + r, i] = RG[r, i]
    return State(G.s, G.ps, H[MAXP:], PV[MAXP:], G.stock[G.s[S_SHOE]:], G.pile, G.table, G.tcards, G.tjokers,
                 G.gd, G.gdj, RG[NRNG:], G.log, G.rec, G.scr, G.ld, G.buf, G.mkeys, G.mvals, G.mn, G.mscr, G.wt,
                 G.hmemo)


def seat_view(G, p):
    """:func:`seat_view_nb` called from Python (``valuing``, the tests): numba would box the
    view's row slices as the whole arrays they were cut from, so the view is put together here,
    by field name, from the same rows."""
    seat_view_nb(G, np.int64(p))
    rows = {"hands": G.hands[MAXP:], "priv": G.priv[MAXP:], "rng": G.rng[NRNG:], "stock": G.stock[G.s[S_SHOE]:]}
    return State(**{f: rows[f] if f in rows else getattr(G, f) for f in State._fields})


@nb.njit(cache=True, _nrt=False, inline="always")
def seat_view_done_nb(G, p):
    """The end of seat p's view (after its bot decided): what the seat itself moved on is kept
    (its random stream, and its cached deficiency, which describes the same hand: a bot puts
    back every card it tried), and the view's rows are cleared, so that no seat's view ever
    holds another seat's cards."""
    H = G.hands
    PV = G.priv
    RG = G.rng
    r = RNG_BOT0 + p
    for i in range(4):
        RG[r, i] = RG[NRNG + r, i]
        RG[NRNG + r, i] = 0
    for f in range(NPV):
        PV[p, f] = PV[MAXP + p, f]
        PV[MAXP + p, f] = 0
    for c in range(NCARDS):
        H[MAXP + p, c] = 0


@nb.njit(cache=True, _nrt=False, inline="always")
def ev_nb(G, t, n):
    """Open an event of type t with n payload ints; returns where to write, or -1 if not logging."""
    S = G.s
    LOG = G.log
    if S[S_LOG_ON] == 0:
        return -1
    k = S[S_LOG_N]
    if k + 2 + n > LOG.shape[0]:
        raise ValueError("event log full: raise log_size")
    LOG[k] = t
    LOG[k + 1] = n
    S[S_LOG_N] = k + 2 + n
    return k + 2


@nb.njit(cache=True, inline="always")
def add_card(G, p, c):
    G.hands[p, c] += 1
    G.ps[p, PS_N] += 1
    # PV_DEF known (1): it is now the deficiency of the hand less one card (2), which
    # bounds the hand's (hand_def_nb); anything else: unknown (0)
    G.priv[p, PV_DEFOK] = DEF_LESS_ONE if G.priv[p, PV_DEFOK] == DEF_KNOWN else DEF_UNKNOWN


@nb.njit(cache=True, inline="always")
def rem_card(G, p, c):
    G.hands[p, c] -= 1
    G.ps[p, PS_N] -= 1
    G.priv[p, PV_DEFOK] = DEF_UNKNOWN


@nb.njit(cache=True, inline="always")
def def_forget_nb(G, p):
    """Seat p's cached deficiency is no longer known (a new hand, or a hand re-dealt)."""
    G.priv[p, PV_DEFOK] = DEF_UNKNOWN


@nb.njit(cache=True, inline="always")
def def_saved_nb(G, p):
    """Seat p's cached deficiency (PV_DEF, PV_DEFOK), before a probe: a move tried on the
    real hand and taken back (table.do_swap_nb/undo_swap_nb, do_layoff_nb/undo_layoff_nb)
    moves cards through add_card/rem_card, which clear the cache; def_restore_nb puts it
    back once the hand is as it was."""
    return G.priv[p, PV_DEF], G.priv[p, PV_DEFOK]


@nb.njit(cache=True, inline="always")
def def_restore_nb(G, p, saved):
    """The end of a probe: the hand is back as it was at def_saved_nb, and so is its cache."""
    G.priv[p, PV_DEF] = saved[0]
    G.priv[p, PV_DEFOK] = saved[1]


@nb.njit(cache=True, inline="always")
def _played_public(G, p, c):
    """Seat p played card c for real (discard, meld, lay-off, swap): a copy it was known
    to hold (PS_KNOWN0) is now accounted for."""
    if G.ps[p, PS_KNOWN0 + c] > 0:
        G.ps[p, PS_KNOWN0 + c] -= 1
