"""The positions table's layout (issue #57, docs/dataset.md "positions"): the buffers the
recorder (``kernels.games.positions``) fills, ``PO``, their columns, and the features of a
decision position (``FEATURES``: ``kernels.bots.features`` computes them from the seat's view).

A sampled decision position: the recorder's integer columns ``PI_*``, the seat's features
(``F_*`` its own, then ``O_*`` for each other seat in the order they play after it), and per
candidate a search played ``PC_*`` columns. Apart from ``layout`` and ``records`` so that the
kernels that never record a position (the meld finder, the plain engine) keep their sources.
"""

from typing import NamedTuple

import numpy as np

from .layout import MAXP

(PI_GAME, PI_HAND, PI_SEAT, PI_PHASE, PI_ACTION, PI_SEARCHED, PI_STEP) = range(7)
NPI = 7
(PC_ACTION, PC_MEAN, PC_SAMPLES, PC_DIFF, PC_SE) = range(5)
NPC = 5
POS_CANDS = 8          # the rollout bot's candidates at most (search.rollout.MAXC)
# Positions.ctl: rows used, 1: a row did not fit, the game (its index in the call), the decisions
# still to pass before the next one recorded
CTL_ROWS, CTL_FULL, CTL_GAME, CTL_SKIP = range(4)
NCTL = 4

# The seat's own features, then OPP_FIELDS for each other seat (opp1 .. opp7).
OWN = (
    ("players", "players at the table"),
    ("hands_played", "hands finished before this one (0 in the first; the contract's number less 1)"),
    ("turn", "turns taken in this hand so far, all seats"),
    ("own_turns", "turns this seat has taken in this hand"),
    ("stock", "cards left in the stock"),
    ("pile", "cards in the discard pile"),
    ("stock_passes", "reshuffles of the pile into the stock in this hand"),
    ("cards", "cards in this seat's hand"),
    ("deficiency", "cards this hand still lacks to meet its contract (docs/rules.md, deficiency)"),
    ("hand_points", "points of the cards in this seat's hand"),
    ("jokers", "jokers in this seat's hand"),
    ("down", "1 if this seat has gone down"),
    ("buys", "buys this seat made in this hand"),
    ("buys_left", "buys the rules still allow this seat in this hand"),
    ("live_outs", "copies still to come of the cards that would lower the deficiency (0 when down)"),
    ("unseen", "cards that may still come to this seat (not seen by it, or in a pile to be reshuffled)"),
    ("upcard_helps", "1 if the upcard on offer would lower the deficiency"),
    ("total", "this seat's score so far, earlier hands"),
    ("best_other_total", "the lowest score of the other seats so far"),
)
OPP_FIELDS = (
    ("cards", "cards it holds"),
    ("down", "1 if it has gone down"),
    ("buys", "buys it made in this hand"),
    ("took", "cards it took from the pile or bought and still holds (every seat saw them)"),
    ("declined", "distinct cards it discarded or passed in this hand"),
    ("total", "its score so far"),
    ("turns", "turns it has taken in this hand"),
)
NOWN = len(OWN)
NOPP = len(OPP_FIELDS)
NFEATURES = NOWN + (MAXP - 1) * NOPP
FEATURE_NAMES = tuple(n for n, _ in OWN) + tuple(
    f"opp{k}_{n}" for k in range(1, MAXP) for n, _ in OPP_FIELDS)
(F_PLAYERS, F_HAND, F_TURN, F_OWN_TURNS, F_STOCK, F_PILE, F_PASSES, F_CARDS, F_DEF, F_POINTS,
 F_JOKERS, F_DOWN, F_BUYS, F_BUYS_LEFT, F_LIVE, F_UNSEEN, F_UP_HELPS, F_TOTAL, F_BEST_OTHER) = range(NOWN)
(O_CARDS, O_DOWN, O_BUYS, O_TOOK, O_DECLINED, O_TOTAL, O_TURNS) = range(NOPP)
FEATURES = tuple(OWN) + tuple((f"opp{k}_{n}", f"the seat {k} after this one in play: {m}")
                                for k in range(1, MAXP) for n, m in OPP_FIELDS)
assert FEATURE_NAMES == tuple(n for n, _ in FEATURES)


class Positions(NamedTuple):
    """The positions recorder's buffers, ``PO`` (``runner.positions.new_buffers``): each
    decision is recorded with probability ``rate`` drawn from ``rng``, the game's own positions
    stream (never the game's: hands and games are the same with or without it)."""
    rate: float              # the share of decisions recorded, 0 < rate <= 1
    rng: np.ndarray          # uint64[4]: the positions stream of the game being played
    ints: np.ndarray         # int64[cap, NPI]: PI_* columns
    feats: np.ndarray        # int32[cap, NFEATURES]: the seat's features
    cands: np.ndarray        # float64[cap, POS_CANDS, NPC]: the searched candidates (PC_*)
    ctl: np.ndarray          # int64[NCTL]: CTL_*
