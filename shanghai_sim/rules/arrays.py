"""The rules as the kernels read them: ``RulesArrays``, plain integer arrays.

The kernels never see a ``Rules``: ``to_arrays`` (``Rules.arrays``) converts it once, at the
boundary into numba, into the named bundle ``RulesArrays`` (its scalar options ``Params``)
defined in ``kernels/base/layout.py``, where the kernels' cache key covers it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..cards import JOKER, NCARDS, NRANKS, RANKS
from ..kernels.base.layout import MAX_MELD_SIZE, MAX_MELDS, MAX_PLAYERS, MIN_PLAYERS, Params, RulesArrays
from .checks import check_players
from .values import InitialMeld, RulesError, SameSuitRuns, SetJokerIdentity

if TYPE_CHECKING:
    from .model import Rules


def to_arrays(r: Rules, players: int | None = None) -> RulesArrays:
    p = r.players if players is None else players
    if not MIN_PLAYERS <= p <= MAX_PLAYERS:
        raise RulesError(f"players = {p}: must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    if p != r.players:
        check_players(r, p)
    blind_joker, blind_no_joker = r.blind_bonus
    params = Params(
        players=int(p), decks=int(r.decks_for(p)), jokers=int(r.jokers_for(p)),
        buy_penalty=int(r.buy_penalty), buy_priority=int(r.buy_priority),
        joker_limit=int(r.joker_limit), initial_exact=int(r.initial_meld == InitialMeld.EXACT),
        same_suit_gap=int(r.same_suit_runs == SameSuitRuns.GAP), go_out=int(r.go_out),
        joker_swap=int(r.joker_swap), set_joker_card=int(r.set_joker_identity == SetJokerIdentity.CARD),
        blind_joker=int(blind_joker), blind_no_joker=int(blind_no_joker),
        down_may_buy=int(r.down_may_buy), max_stock_passes=int(r.max_stock_passes),
        nhands=int(r.hands), max_hand_turns=int(r.max_hand_turns))
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
