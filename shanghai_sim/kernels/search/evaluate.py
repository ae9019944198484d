"""The search's evaluator asked at one decision, for the analyses (analyses/when_to_buy.py).

Apart from ``kernels.search.rollout`` so that the engine's cache key (its dependency closure,
``kernels.compile.cache``) does not change with it: only the analyses compile this module.
"""

import numba as nb

from ..base.codes import A_BUY, A_PASS, action_nb
from ..base.layout import RI_CAND, W_RI
from .rollout import search_nb


@nb.njit(cache=True, _nrt=False)
def buy_value_nb(R, G, W, p, bp, k0, k1):
    """Seat p, asked whether it buys the upcard: passing (candidate 0) against buying
    (candidate 1), played out by ``rollout.search_nb`` on samples k0..k1-1 of the seat's
    view with common random numbers. W[W_RF][RF_SUM] then holds each candidate's summed
    outcome (the seat's points at the hand's end with BP_UTILITY 0) and RF_DSQ[1] the squared
    paired differences (``rollout.paired_nb``). Samples k0 > 0 add to a search begun with
    k0 = 0, so 2K samples extend the first K. The seat's bot stream advances (the caller
    restores it, so the game stays the same seeded game). False if the view did not add up."""
    cand = W[W_RI][RI_CAND]
    cand[0] = action_nb(A_PASS, 0, 0, 0)
    cand[1] = action_nb(A_BUY, 0, 0, 0)
    return search_nb(R, G, W, p, bp, 2, k0, k1)
