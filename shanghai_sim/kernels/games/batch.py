"""The batch entry: whole games played by bots, one kernel for batch runs and replays.

``play_games_nb`` plays ``len(seeds)`` games serially, each a pure function
of (rules, players, bots, seed), filling ``hand_out`` int32[n, hands,
players, NHF] (``kernels.base.records``). It releases the GIL and keeps all its
state in arrays it allocates itself (the game state and the search bots' workspace), so the batch runner may call it from
several threads on disjoint shards. ``play_game_nb`` plays one game on a
state tuple (``kernels.engine.state``); the replay calls it with logging on: same
deals, same choices, same scores as the batch path.
"""

import numba as nb
import numpy as np

from ..compile.linking import separate

from .dispatch import bot_action_nb, new_workspace_nb, seat_action_nb
from ..base.codes import E_OK, PH_OVER
from ..engine.flow import init_game_nb
from ..base.layout import S_ACTOR, S_ERR, S_PHASE, RulesArrays
from ..base.positions import CTL_FULL, CTL_GAME, CTL_ROWS, CTL_SKIP
from ..engine.play import apply_action_nb
from ..engine.state import new_state_nb
from .positions import position_close_nb, position_open_nb, position_seed_nb


@separate(function_passes=False)
@nb.njit(cache=True, nogil=True, _nrt=False)
def play_game_nb(R, G, W, SM, PO, bot_kind, bot_params, seed, log_on, check):
    """Play one game with bots; returns E_OK or the error code of a broken action/check.
    W: the workspace of the search bots (``layout.new_workspace``), one per thread, or None
    for a line-up without one (``dispatch.needs_workspace``): then the search kernels are
    not compiled in. SM: True, or None for a line-up without a smart seat
    (``dispatch.smart_flag``): then the smart bot is not compiled in. PO: the positions
    table's buffers (``layout.Positions``), or None: no position is recorded, and the
    recorder (``positions``) is not compiled in."""
    init_game_nb(R, G, seed, log_on, check)
    if PO is not None:
        position_seed_nb(PO, seed)
    S = G.s
    while S[S_PHASE] != PH_OVER:
        p = S[S_ACTOR]
        r = -1
        if PO is not None:          # counted here: a call per decision would cost more than it
            if PO.ctl[CTL_SKIP] == 0:
                r = position_open_nb(R, G, W, PO, p)
            else:
                PO.ctl[CTL_SKIP] -= 1
        a = seat_action_nb(R, G, W, SM, bot_kind[p], bot_params[p])
        if PO is not None and r >= 0:
            position_close_nb(W, PO, r, a)
        err = apply_action_nb(R, G, a)
        if err != E_OK:
            S[S_ERR] = err
            return err
    return E_OK


@nb.njit(cache=True, nogil=True, _nrt=False)
def play_games_on_nb(R, G, W, SM, PO, bot_kind, bot_params, seeds, hand_out):
    """play_games_nb on a state tuple and a search workspace the caller keeps
    (``layout.new_state``, ``layout.new_workspace`` or None; SM True or None; PO the
    positions buffers or None: see play_game_nb): the meld memo stays warm from one call
    to the next (answers never depend on it). Returns -1; or the index of the game in which
    a bot chose an illegal action; or -2 - i when game i's positions did not fit the
    buffers (the games before it are played and recorded, its own rows dropped: the caller
    makes room and plays on from game i)."""
    P = R.params.players
    REC = G.rec
    for i in range(seeds.shape[0]):
        first = np.int64(0)
        if PO is not None:
            PO.ctl[CTL_GAME] = i
            first = PO.ctl[CTL_ROWS]
        err = play_game_nb(R, G, W, SM, PO, bot_kind, bot_params, seeds[i], np.int64(0), np.int64(0))
        if err != E_OK:
            return i
        if PO is not None and PO.ctl[CTL_FULL] != 0:
            PO.ctl[CTL_ROWS] = first
            PO.ctl[CTL_FULL] = 0
            return -2 - i
        for h in range(hand_out.shape[1]):
            for q in range(P):
                for f in range(hand_out.shape[3]):
                    hand_out[i, h, q, f] = REC[h, q, f]
    return -1


# The smart gate on, typed as a runner's line-up with a smart seat types it (``smart_flag``'s
# True from Python is a boolean; a literal True here would be a type of its own, and the
# engine would be compiled once more for it alone)
_SMART_ON = np.bool_(True)


@nb.njit(cache=True, nogil=True, _nrt=True)
def play_games_nb(params, points, joker_cap, meld_kind, meld_size, n_melds, deal, buys,
                  bot_kind, bot_params, seeds, hand_out):
    """Play one game per seed (uint64[n]) and fill hand_out int32[n, hands, players, NHF]."""
    R = RulesArrays(params, points, joker_cap, meld_kind, meld_size, n_melds, deal, buys)
    G = new_state_nb(params, 0)
    W = new_workspace_nb(params)
    if play_games_on_nb(R, G, W, _SMART_ON, None, bot_kind, bot_params, seeds, hand_out) >= 0:
        raise RuntimeError("engine: a bot chose an illegal action (run the replay of this seed)")


@nb.njit(cache=True, nogil=True, _nrt=False)
def count_actions_nb(R, G, bot_kind, bot_params, seeds):
    """Play games with bots (no search bot) on state ``G`` and count the decisions taken: the
    loop of ``play_game_nb`` without its records, for benchmarks/bench_engine.py's actions per
    second (here, so that the package's cache holds it)."""
    n = 0
    S = G.s
    for i in range(seeds.shape[0]):
        init_game_nb(R, G, seeds[i], 0, 0)
        while S[S_PHASE] != PH_OVER:
            a = bot_action_nb(R, G, bot_kind[S[S_ACTOR]], bot_params[S[S_ACTOR]])
            apply_action_nb(R, G, a)
            n += 1
    return n
