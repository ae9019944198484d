"""Bots in numba: one action for the seat to act, from its seat view V (state.seat_view_nb).

The thinking bots' entry kernels (``greedy_action_nb``, ``smart_action_nb``: what the
dispatch calls) and the one turn skeleton they share (``_turn_nb``); their pieces are in
``basics`` (shared, and the random bot), ``greedy`` and ``smart``.

The bots' kernels and their parameter vector ``bp`` float64[NBP]
(``shanghai_sim.bots.parse_bot`` fills it from a spec string):

  BP_BUY        buy policy: 0 never, 1 useful (the upcard lowers the deficiency), 2 always
  BP_MAXBUYS    most buys per hand the bot makes (-1: as many as the rules allow)
  BP_MAXBUYS0 + h  the same for hand h (0-based), -1 = BP_MAXBUYS
  BP_WAIT_BLIND 1: go down only when it can go out the same turn (docs/rules.md §3 blind_bonus)
  BP_HAND0 + h  buy policy for hand h (0-based), -1 = BP_BUY; hands beyond MAX_HAND_PARAMS
                use BP_BUY

Randomness comes only from the seat's own stream V.rng[RNG_BOT0 + seat].
"""

import numba as nb

from ..base.layout import (JOKER, PS_BUYS, PS_DOWN, SWAP_ANYONE, S_HAND, S_MUST_DOWN, S_NT, S_PHASE, S_UP)
from ..base.codes import (A_BUY, A_DRAW, A_GO_DOWN, A_PASS, A_TAKE, BUY_ALWAYS, BUY_NEVER, BUY_USEFUL,
                          PH_BUY, PH_DRAW, PH_FIRST, PH_PLAY, action_nb)
from ..engine.godown import go_down_available_nb
from ..engine.table import card_layable_nb
from ..engine.turn import layoff_allowed_now_nb
from .params import BP_CUT, BP_WAIT_BLIND
from .outlook import can_hold_contract_nb
from .basics import _blind_possible
from .greedy import _greedy_discard, _greedy_layoff, _greedy_swap, _lone_card_ok, _take_pays, _useful_buy
from .smart import _buy_policy, _buys_used_up, _chart_word, _mean_points, _smart_buy, _smart_discard
# re-exported: what the rollout bot and the tests import from here
from ..base.codes import BUY_AUTO  # noqa: F401
from .basics import NEAR, _def_plus  # noqa: F401
from .outlook import cards_short_nb, unseen_counts_nb  # noqa: F401
from .smart import _contract_kinds, _mates, smart_chance_nb  # noqa: F401

# The bot kinds (BOT_*) and the dispatch are in kernels.games.dispatch, and the parameter row's
# slots (BP_*, NBP) in kernels.bots.params: both generated from the registry
# (shanghai_sim.bots.BOTS) by python -m shanghai_sim.botgen. The buy policies (BUY_*) are codes
# (kernels.base.codes.BUY_POLICIES; BUY_AUTO is imported from here by the rollout bot).


@nb.njit(cache=True, _nrt=False, inline="always")
def _turn_nb(R, V, p, bp, SMART):
    """The thinking bots' one phase skeleton: greedy's decisions, with smart's hooks where
    the two differ (its buy, ``_smart_buy``, and its discard, ``_smart_discard``). SMART is
    None for greedy and True for smart: numba prunes the other branch before typing it (a
    test on an argument of type None), so each bot compiles only its own hooks."""
    S = V.s
    PS = V.ps
    ph = S[S_PHASE]
    down = PS[p, PS_DOWN] != 0
    if ph == PH_FIRST:
        if _take_pays(R, V, p, S[S_UP]):
            return action_nb(A_TAKE, 0, 0, 0)
        if SMART is not None:
            # v2 cutting its losses: a natural upcard worth fewer points than a stock
            # card on average replaces a higher card (and nobody buys it)
            # (only when the cards alone say so: the full outlook at every upcard costs
            # too much for what it gains)
            up = S[S_UP]
            if (bp[BP_CUT] > 0 and up < JOKER and R.points[up] < _mean_points(R)
                    and not can_hold_contract_nb(R, V, p, bp)):
                return action_nb(A_TAKE, 0, 0, 0)
        return action_nb(A_PASS, 0, 0, 0)
    if ph == PH_BUY:
        pol = _buy_policy(bp, S[S_HAND])
        if pol == BUY_NEVER or down:
            return action_nb(A_PASS, 0, 0, 0)
        if _buys_used_up(bp, S[S_HAND], PS[p, PS_BUYS]):
            return action_nb(A_PASS, 0, 0, 0)
        if pol == BUY_ALWAYS:
            return action_nb(A_BUY, 0, 0, 0)
        if SMART is None:
            ok = _useful_buy(R, V, p)        # greedy: buy_policy never, useful or always
        elif pol == BUY_USEFUL:
            ok = _useful_buy(R, V, p)
        else:
            word = _chart_word(R, V, p, bp, S[S_HAND])
            ok = word > 0 if word != 0 else _smart_buy(R, V, p, bp)
        return action_nb(A_BUY if ok else A_PASS, 0, 0, 0)
    if ph == PH_DRAW:
        # Take the upcard only if it can really be laid off this turn: under no_discard a
        # lone card that does not fit must stay in hand, so laying off the upcard then is barred.
        if card_layable_nb(R, V, S[S_UP]) and _lone_card_ok(R, V, p):
            return action_nb(A_TAKE, 0, 0, 0)
        return action_nb(A_DRAW, 0, 0, 0)
    if ph != PH_PLAY:
        return -1
    # one call site each of the inlined _greedy_swap and of the discard (compiled once)
    swap = False
    if not down:
        if S[S_MUST_DOWN] != 0:
            return action_nb(A_GO_DOWN, 0, 0, 0)
        if go_down_available_nb(R, V, p):
            if bp[BP_WAIT_BLIND] == 0 or _blind_possible(R, V, p):
                return action_nb(A_GO_DOWN, 0, 0, 0)
        elif R.params.joker_swap == SWAP_ANYONE and S[S_NT] > 0 and bp[BP_WAIT_BLIND] == 0:
            swap = True
    elif layoff_allowed_now_nb(R, V, p):
        a = _greedy_layoff(R, V, p)
        if a >= 0:
            return a
        swap = True
    if swap:
        a = _greedy_swap(R, V, p, down)
        if a >= 0:
            return a
    if SMART is None:
        return _greedy_discard(R, V, p)
    return _smart_discard(R, V, p, bp)


@nb.njit(cache=True, _nrt=False, inline="always")
def greedy_action_nb(R, V, p, bp):
    return _turn_nb(R, V, p, bp, None)


@nb.njit(cache=True, _nrt=False, inline="always")
def smart_action_nb(R, V, p, bp):
    return _turn_nb(R, V, p, bp, True)
