"""The oracle: a diagnostic that cheats on purpose, never a player (``kernels.search``).

``rollout:oracle=hands`` and ``rollout:oracle=deal`` search as the rollout bot does (the same
candidates, race and playouts: ``rollout.race_start_nb``, ``playout.play_sample_nb``), but
each sample deals the other hands their true cards, read from the state (``oracle=hands``:
the stock's cards still shuffled, its order being what nobody can know), and with
``oracle=deal`` the stock in its true order too: what reading the hidden cards would be worth
to the search (docs/rollout.md, "The oracle").

This is the only bot kernel given another seat's hand and the stock (beside its seat's view,
as two arguments of its own), and
nothing honest imports it: the rollout bot's own search (``rollout.search_nb``) samples from
its seat's view alone (``sample``). The oracle is its own bot kind in the dispatch
(``games.dispatch.BOT_ROLLOUT_ORACLE``, generated from the registry entry's ``diagnostic``),
and outside the kernels it is refused unless asked for as a diagnostic (``--diagnostic``,
``diagnostic=True``: ``shanghai_sim.bots.refuse_diagnostics``) and marked wherever it played.
"""

import numba as nb

from ..compile.linking import separate

from ..bots.params import BP_ORACLE
from ..base.layout import NCARDS, PS_KNOWN0, RI_POOL, RNG_BOT0, S_NP, S_STOCK_N
from ..base.codes import ORACLE_HANDS
from ..base.rng import next_u64_nb, randint_nb
from .playout import play_sample_nb, search_start_nb
from .rollout import race_end_nb, race_next_nb, race_start_nb


@nb.njit(cache=True, _nrt=False)
def oracle_pool_nb(V, p, pool, npool, mode, rng, hands, stock):
    """The oracle (a diagnostic that cheats, BP_ORACLE): pool := what load_sample_nb deals,
    read from the true cards (``hands``, ``stock``: the state's, which the dispatch hands the
    oracle beside seat p's view V): each other seat's hidden cards (its hand less its known
    cards), then the stock in its true order (mode 2) or shuffled (mode 1). False if they
    do not add up to npool (the view and the state disagree: never expected)."""
    S = V.s
    H = hands
    PS = V.ps
    k = 0
    for q in range(S[S_NP]):
        if q == p:
            continue
        for c in range(NCARDS):
            for _ in range(H[q, c] - PS[q, PS_KNOWN0 + c]):
                if k >= npool:
                    return False
                pool[k] = c
                k += 1
    k0 = k
    STK = stock
    for i in range(S[S_STOCK_N]):
        if k >= npool:
            return False
        pool[k] = STK[i]
        k += 1
    if k != npool:
        return False
    if mode == ORACLE_HANDS:
        for i in range(npool - 1, k0, -1):      # Fisher-Yates of the stock part
            j = k0 + randint_nb(rng, i - k0 + 1)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
    return True


@separate(returns=nb.boolean)
@nb.njit(cache=True, _nrt=False)
def oracle_search_nb(R, V, W, p, bp, n, k0, k1, hands, stock):
    """``rollout.search_nb`` with the oracle's worlds (``oracle_pool_nb``, mode BP_ORACLE:
    1 the true hands, 2 the true hands and stock order): samples k0..k1-1, each candidate in
    W.ri[RI_CAND][:n] played out on each; False if the seat's view and the state do not
    add up (then nothing was searched)."""
    pool = W.ri[RI_POOL]
    npool = search_start_nb(R, V, W, p, bp, n, k0)
    if npool < 0:
        return False
    rng = V.rng[RNG_BOT0 + p]
    mode = int(bp[BP_ORACLE])
    for _ in range(k0, k1):
        seed = next_u64_nb(rng)
        if not oracle_pool_nb(V, p, pool, npool, mode, rng, hands, stock):
            return False
        play_sample_nb(R, V, W, p, bp, n, seed)
    return True


@separate
@nb.njit(cache=True, _nrt=False)
def oracle_action_nb(R, V, W, p, bp, hands, stock):
    """The oracle's action for seat p (the seat to act): ``rollout.rollout_action_nb``'s
    decisions, searched on the true cards (``oracle_search_nb``): the state's ``hands`` and
    ``stock``, given beside the view V, its signature's admission that it cheats."""
    r = race_start_nb(R, V, W, p, bp)
    while r.state > 0:
        r = race_next_nb(W, bp, r, oracle_search_nb(R, V, W, p, bp, r.na, r.k, r.K, hands, stock))
    return race_end_nb(V, W, p, bp, r)
