"""The positions recorder: sampled decision positions of the games played (issue #57,
docs/dataset.md "positions").

``play_game_nb``, given the buffers ``PO`` (``base.positions.Positions``; None: nothing is
recorded and none of this is compiled in), counts the decisions down to the next one to
record (``CTL_SKIP``) and calls ``position_open_nb`` before it and ``position_close_nb``
after it. Each decision is recorded with probability ``PO.rate``: the gaps between recorded
decisions are drawn geometric (the same process as a draw per decision, at one draw per
position), from the positions stream, which ``position_seed_nb`` seeds from the game seed at
the start of each game: the game's own streams are never read, so a game plays the same with
or without its positions. A row holds the game (its index in the call), hand, seat, phase, the
seat's features (``bots.features``, from its view alone), the action chosen and, for a
search bot's decision, what its search found of each candidate. When the buffers are full a
row is not written and ``CTL_FULL`` is set: the caller makes room and plays that game again.
"""

import numba as nb
import numpy as np

from ..base.layout import RF_DSQ, RF_N, RF_SUM, RI_CAND, S_HAND, S_NACT, S_PHASE
from ..base.positions import (CTL_FULL, CTL_GAME, CTL_ROWS, CTL_SKIP, NPC, PC_ACTION, PC_DIFF, PC_MEAN, PC_SAMPLES,
    PC_SE, PI_ACTION, PI_GAME, PI_HAND, PI_PHASE, PI_SEARCHED, PI_SEAT, PI_STEP, POS_CANDS)
from ..base.rng import next_u64_nb, seed_state_nb, splitmix64_nb
from ..bots.features import features_nb
from ..engine.state import seat_view_done_nb, seat_view_nb
from ..search.rollout import CAND_SEARCHED, MAXC, RF_DROP

assert MAXC == POS_CANDS

# Mixed into the game seed to seed the positions stream ("position" in ASCII)
POSITION_SALT = np.uint64(0x706F736974696F6E)
_TO_UNIT = 1.0 / 9007199254740992.0           # 2**-53


@nb.njit(cache=True, _nrt=False)
def _next_gap(PO):
    """The decisions to pass before the next one recorded: geometric, P(k) = (1 - rate)^k rate."""
    if PO.rate >= 1.0:
        return 0
    u = (next_u64_nb(PO.rng) >> np.uint64(11)) * _TO_UNIT       # [0, 1)
    return int(np.floor(np.log1p(-u) / np.log1p(-PO.rate)))


@nb.njit(cache=True, _nrt=False)
def position_seed_nb(PO, seed):
    """Seed the positions stream of the game of this seed and draw its first gap."""
    seed_state_nb(splitmix64_nb(np.uint64(seed) ^ POSITION_SALT), PO.rng)
    PO.ctl[CTL_SKIP] = _next_gap(PO)


@nb.njit(cache=True, _nrt=False)
def position_open_nb(R, G, W, PO, p):
    """Record the decision of seat p (the seat to act; CTL_SKIP counted down to it): write its
    row's position and features (from p's view), draw the next gap, return the row (-1 when
    the buffers are full: CTL_FULL)."""
    ctl = PO.ctl
    ctl[CTL_SKIP] = _next_gap(PO)
    r = ctl[CTL_ROWS]
    if r >= PO.ints.shape[0]:
        ctl[CTL_FULL] = 1
        return -1
    ctl[CTL_ROWS] = r + 1
    row = PO.ints[r]
    row[PI_GAME] = ctl[CTL_GAME]
    row[PI_HAND] = G.s[S_HAND]
    row[PI_SEAT] = p
    row[PI_PHASE] = G.s[S_PHASE]
    row[PI_SEARCHED] = 0
    row[PI_STEP] = G.s[S_NACT]
    V = seat_view_nb(G, p)
    features_nb(R, V, p, PO.feats[r])
    seat_view_done_nb(G, p)
    if W is not None:
        W.ri[RI_CAND][CAND_SEARCHED] = 0     # a search of this decision sets it
    return r


@nb.njit(cache=True, _nrt=False)
def position_close_nb(W, PO, r, a):
    """Complete row r with the action chosen, a, and what a search of this decision found (the
    rollout bot's race_end_nb left it in W)."""
    PO.ints[r, PI_ACTION] = a
    if W is None:
        return
    n = W.ri[RI_CAND][CAND_SEARCHED]
    PO.ints[r, PI_SEARCHED] = n
    C = PO.cands[r]
    RF = W.rf
    for i in range(n):
        C[i, PC_ACTION] = W.ri[RI_CAND][i]
        C[i, PC_MEAN] = RF[RF_SUM, i]
        C[i, PC_SAMPLES] = RF[RF_N, i]
        C[i, PC_DIFF] = RF[RF_SUM, RF_DROP + i]
        C[i, PC_SE] = RF[RF_DSQ, RF_DROP + i]
    for i in range(n, POS_CANDS):
        for j in range(NPC):
            C[i, j] = 0.0
