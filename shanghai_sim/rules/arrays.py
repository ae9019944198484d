"""The rules as the kernels read them: ``RulesArrays``, plain integer arrays.

The kernels never see a ``Rules``: ``to_arrays`` (``Rules.arrays``) converts it once, at the
boundary into numba, into the arrays whose layout (``R_*``, and the ``P_*`` slots of
``params``) lives in ``kernels/base/layout.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..cards import JOKER, NCARDS, NRANKS, RANKS
from ..kernels.base.layout import (MAX_MELD_SIZE, MAX_MELDS, MAX_PLAYERS, MIN_PLAYERS, NPARAMS, P_BLIND_JOKER,
                              P_BLIND_NO_JOKER, P_BUY_PENALTY, P_BUY_PRIORITY, P_DECKS, P_DOWN_MAY_BUY,
                              P_GO_OUT, P_INITIAL_EXACT, P_JOKER_LIMIT, P_JOKER_SWAP, P_JOKERS,
                              P_MAX_HAND_TURNS, P_MAX_STOCK_PASSES, P_NHANDS, P_PLAYERS, P_SAME_SUIT_GAP,
                              P_SET_JOKER_CARD)
from .checks import check_players
from .values import InitialMeld, RulesError, SameSuitRuns, SetJokerIdentity

if TYPE_CHECKING:
    from .model import Rules


class RulesArrays(NamedTuple):
    """The rules as plain arrays for the numba kernels.

    params        int64[NPARAMS]   scalar options, indexed by the P_* constants
    points        int64[53]        penalty value of each card id (count-array layout)
    joker_cap     int64[MAX_MELD_SIZE]  jokers allowed in a meld of that many cards
    meld_kind     int64[hands, MAX_MELDS]  MeldKind of each contract meld, -1 = none;
                                    sets first, then runs, each by size
    meld_size     int64[hands, MAX_MELDS]  required size of each meld, 0 = none
    n_melds       int64[hands]
    deal          int64[hands]     cards dealt to each player
    buys          int64[hands]     buys allowed per player in that hand
    """
    params: np.ndarray
    points: np.ndarray
    joker_cap: np.ndarray
    meld_kind: np.ndarray
    meld_size: np.ndarray
    n_melds: np.ndarray
    deal: np.ndarray
    buys: np.ndarray


def to_arrays(r: Rules, players: int | None = None) -> RulesArrays:
    p = r.players if players is None else players
    if not MIN_PLAYERS <= p <= MAX_PLAYERS:
        raise RulesError(f"players = {p}: must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    if p != r.players:
        check_players(r, p)
    params = np.zeros(NPARAMS, dtype=np.int64)
    params[P_PLAYERS] = p
    params[P_DECKS] = r.decks_for(p)
    params[P_JOKERS] = r.jokers_for(p)
    params[P_BUY_PENALTY] = r.buy_penalty
    params[P_BUY_PRIORITY] = int(r.buy_priority)
    params[P_JOKER_LIMIT] = int(r.joker_limit)
    params[P_INITIAL_EXACT] = int(r.initial_meld == InitialMeld.EXACT)
    params[P_SAME_SUIT_GAP] = int(r.same_suit_runs == SameSuitRuns.GAP)
    params[P_GO_OUT] = int(r.go_out)
    params[P_JOKER_SWAP] = int(r.joker_swap)
    params[P_SET_JOKER_CARD] = int(r.set_joker_identity == SetJokerIdentity.CARD)
    params[P_BLIND_JOKER], params[P_BLIND_NO_JOKER] = r.blind_bonus
    params[P_DOWN_MAY_BUY] = int(r.down_may_buy)
    params[P_MAX_STOCK_PASSES] = r.max_stock_passes
    params[P_NHANDS] = r.hands
    params[P_MAX_HAND_TURNS] = r.max_hand_turns
    pts = dict(r.points)
    points = np.zeros(NCARDS, dtype=np.int64)
    for cid in range(52):
        points[cid] = pts[RANKS[cid % NRANKS]]
    points[JOKER] = pts["JK"]
    joker_cap = np.array([r.joker_cap(n) for n in range(MAX_MELD_SIZE)], dtype=np.int64)
    h = r.hands
    kind = np.full((h, MAX_MELDS), -1, dtype=np.int64)
    size = np.zeros((h, MAX_MELDS), dtype=np.int64)
    n = np.zeros(h, dtype=np.int64)
    for i, c in enumerate(r.contracts):
        n[i] = len(c.melds)
        for j, m in enumerate(c.melds):
            kind[i, j] = int(m.kind)
            size[i, j] = m.size
    deal = np.array([c.deal for c in r.contracts], dtype=np.int64)
    buys = np.array(r.buys_per_hand, dtype=np.int64)
    return RulesArrays(params, points, joker_cap, kind, size, n, deal, buys)
