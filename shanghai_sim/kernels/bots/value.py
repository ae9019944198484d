"""The value model's terms (issue #57, docs/learning.md): a seat's expected points at the
hand's end, and its chance to go out, from its features (``features.features_nb``, the seat's
view alone) and the decision it is at.

The model is linear in a fixed set of terms of those features (``value_terms_nb``), one row
of weights ``VW[t, k]`` per term t for each output k (``VALUE_POINTS``, ``VALUE_OUT``):

- a cell per (contract, where the hand is, turn bucket): the contract by its number
  (``hands_played``), where the hand is as 0 for down or 1 + its deficiency (7 and more
  together), the seat's own turns in buckets 0-1, 2-3, 4-5, 6-8, 9-12, 13+ (``turn_bucket``);
- per contract, ``NPER`` terms: its hand's points, those points times the other seats down
  and times its own turns, live outs, cards, jokers, buys left, deficiency times turns;
- ``NGLOBAL`` terms shared by every contract: the intercept, the decision, the upcard, the
  stock and pile, what the other seats show (down, their fewest cards, the next seat), the
  score.

Training (``shanghai_sim.learning``) and play read the same terms from here: the trainer
scatters them into rows (``value_rows_nb``), play takes their dot product with the weights
(``value_nb``). The weights are an argument, never a global: a kernel compiled once plays
whichever model it is given. Their count fixes the contracts the model knows:
``(len(VW) - NGLOBAL) / (NDEF * NTURN + NPER)``; a later contract is read as the model's last.
"""

import numba as nb
import numpy as np

from ..base.codes import PH_BUY, PH_DRAW, PH_FIRST
from ..base.layout import MAXP
from ..base.positions import (F_BEST_OTHER, F_BUYS, F_BUYS_LEFT, F_CARDS, F_DEF, F_DOWN, F_HAND,
    F_JOKERS, F_LIVE, F_OWN_TURNS, F_PASSES, F_PILE, F_PLAYERS, F_POINTS, F_STOCK, F_TOTAL, F_TURN,
    F_UNSEEN, F_UP_HELPS, NOPP, NOWN, O_BUYS, O_CARDS, O_DOWN, O_TOOK)

NDEF = 9            # where the hand is: 0 down, 1 + deficiency (0 .. 7 and more)
NTURN = 6           # the seat's own turns: 0-1, 2-3, 4-5, 6-8, 9-12, 13+
NPER = 8            # terms per contract
NGLOBAL = 26        # terms shared by every contract (the first: the intercept)
NTERMS = 1 + NPER + NGLOBAL     # terms a position has (a cell, its contract's, the shared)
VALUE_POINTS, VALUE_OUT = 0, 1  # the outputs: points at the hand's end, chance to go out
NOUT = 2
# the turn buckets' upper ends (own turns), the last open
TURN_EDGES = (1, 3, 5, 8, 12)


def n_terms(contracts):
    """The weights' rows for a model of ``contracts`` hands."""
    return contracts * (NDEF * NTURN + NPER) + NGLOBAL


@nb.njit(cache=True, _nrt=False)
def turn_bucket_nb(own_turns):
    for b in range(NTURN - 1):
        if own_turns <= TURN_EDGES[b]:
            return b
    return NTURN - 1


@nb.njit(cache=True, _nrt=False)
def value_terms_nb(x, phase, nh, idx, val):
    """Write the terms of features x (seat's view, ``FEATURES`` order) at a decision of phase
    ``phase`` (``PH_*``) for a model of nh contracts: idx[i] the weights' row, val[i] its value,
    for i < NTERMS."""
    c = min(max(x[F_HAND], 0), nh - 1)
    down = x[F_DOWN]
    d = x[F_DEF]
    dcode = 0 if down else 1 + min(d, NDEF - 2)
    turns = x[F_OWN_TURNS]
    tb = turn_bucket_nb(turns)
    pts = x[F_POINTS] / 100.0
    # what the other seats show
    ndown = 0
    min_down = 99
    min_all = 99
    obuys = 0
    otook = 0
    for k in range(MAXP - 1):
        o = NOWN + k * NOPP
        n = x[o + O_CARDS]
        if k >= x[F_PLAYERS] - 1:
            break
        if x[o + O_DOWN]:
            ndown += 1
            min_down = min(min_down, n)
        min_all = min(min_all, n)
        obuys += x[o + O_BUYS]
        otook += x[o + O_TOOK]
    near = 1.0 if min_down <= 2 else 0.0
    # the cell
    idx[0] = (c * NDEF + dcode) * NTURN + tb
    val[0] = 1.0
    # the contract's own terms
    base = nh * NDEF * NTURN + c * NPER
    live = 0.0 if down else x[F_LIVE] / 10.0
    per = (pts, pts * ndown, pts * turns / 10.0, live, x[F_CARDS] / 10.0, float(x[F_JOKERS]),
           float(x[F_BUYS_LEFT]), d * turns / 20.0)
    for i in range(NPER):
        idx[1 + i] = base + i
        val[1 + i] = per[i]
    # the shared terms
    g = nh * (NDEF * NTURN + NPER)
    o1 = NOWN
    shared = (1.0, 1.0 if phase == PH_FIRST else 0.0, 1.0 if phase == PH_BUY else 0.0,
              1.0 if phase == PH_DRAW else 0.0, float(x[F_UP_HELPS]),
              1.0 if (down == 0 and d > 0 and x[F_LIVE] == 0) else 0.0,
              x[F_UNSEEN] / 50.0, x[F_STOCK] / 50.0, x[F_PILE] / 20.0, float(x[F_PASSES]),
              ndown / 3.0, (min_down if ndown else 0) / 10.0, near,
              (min_all if min_all < 99 else 0) / 10.0, float(x[o1 + O_DOWN]),
              x[o1 + O_CARDS] / 10.0, obuys / 5.0, otook / 5.0, pts * near, pts * down,
              x[F_BUYS] / 3.0, x[F_PLAYERS] / 4.0, (x[F_TOTAL] - x[F_BEST_OTHER]) / 100.0,
              x[F_TURN] / 40.0, down * x[F_CARDS] / 10.0, pts * min(d, 4) / 4.0)
    for i in range(NGLOBAL):
        idx[1 + NPER + i] = g + i
        val[1 + NPER + i] = shared[i]


@nb.njit(cache=True, _nrt=False)
def value_nb(VW, x, phase, idx, val):
    """The model VW's (points at the hand's end, chance to go out) for features x at a decision
    of phase ``phase``; idx (int64[NTERMS]) and val (float64[NTERMS]) are scratch. The chance is
    clipped to [0, 1]."""
    nh = (VW.shape[0] - NGLOBAL) // (NDEF * NTURN + NPER)
    value_terms_nb(x, phase, nh, idx, val)
    v0 = 0.0
    v1 = 0.0
    for i in range(NTERMS):
        v0 += VW[idx[i], VALUE_POINTS] * val[i]
        v1 += VW[idx[i], VALUE_OUT] * val[i]
    return v0, min(max(v1, 0.0), 1.0)


@nb.njit(cache=True)
def value_rows_nb(F, phases, nh, X):
    """The trainer's rows: X[r] (float64[n_terms(nh)], zeroed here) the terms of F[r] (the
    features, int) at phase phases[r]."""
    idx = np.empty(NTERMS, np.int64)
    val = np.empty(NTERMS, np.float64)
    x = np.empty(F.shape[1], np.int32)
    X[:] = 0.0
    for r in range(F.shape[0]):
        for j in range(F.shape[1]):
            x[j] = F[r, j]
        value_terms_nb(x, phases[r], nh, idx, val)
        for i in range(NTERMS):
            X[r, idx[i]] += val[i]
