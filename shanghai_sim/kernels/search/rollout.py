"""The rollout bot (issue #14): determinized Monte Carlo search on the engine.

At the decisions that matter (take or pass the upcard, buy or pass, the discard among
`smart`'s best few, go down now or wait a turn) the bot samples the cards it has not seen
consistently with its seat's view, and plays the hand out once per candidate on each
sample, with `smart` (or `greedy`) in every seat, all candidates on the same samples
(common random numbers). It chooses the candidate with the best mean outcome; every
other decision is `smart`'s.

The search is in three modules: ``sample`` (a world from the seat's view: ``unseen_pool_nb``
and the fits; the other hands' real cards and the stock are never read), ``playout`` (the
world loaded into the scratch state, each candidate played out on it) and this one (the
candidates, ``search_nb`` over K samples, the race that decides and the log). The oracle
(``rollout:oracle=...``, a diagnostic that cheats) is ``kernels.search.oracle``: its own
kernel over the same candidates and race (``race_start_nb``, ``race_next_nb``,
``race_end_nb``), which this module does not import.

All randomness of the search comes from the seat's bot stream V.rng[RNG_BOT0 + p] (every
draw of the search comes from it, so a game replays identically on any thread); the real
state is not written otherwise (``playout``).

With logging on, each search writes an EV_SEARCH event: seat, decision (DEC_*), samples,
the index chosen, the rule's margin, z and tie (100 x) and the race's cap (0: none), the
number of candidates, then per candidate (codes.SEARCH_RECORD) its action, 100 x its mean
outcome, its samples, and 100 x its mean paired difference with the first candidate and that
difference's standard error (rounded): what the rule that kept or replaced smart's choice
read. A challenger the race dropped has its difference and error from its last round
(``race_next_nb`` keeps them in RF_DROP columns).

This module calls `smart`, so ``bots.bot_action_nb`` cannot dispatch to it: the engine
dispatches through ``kernels.games.dispatch``.
"""

from collections import namedtuple

import numba as nb
import numpy as np

from ..compile.linking import separate

from ..bots.players import BUY_AUTO, _buy_policy, _contract_kinds, _def_plus, _mates, _smart_discard, cards_short_nb, smart_action_nb
from ..bots.params import (BP_CANDS, BP_KMAX, BP_MARGIN, BP_MAXBUYS, BP_NOLAY, BP_PRUNE, BP_RACE,
                           BP_RACE_PLAY, BP_RACE_TAKE, BP_ROLLOUTS, BP_S_BUY, BP_S_DISCARD, BP_S_DOWN,
                           BP_S_TAKE, BP_TIE, BP_WAIT_BLIND, BP_Z)
from ..base.layout import (JOKER, NCARDS, PS_BUYS, PS_DOWN, RF_DSQ, RF_N, RF_SUM, RI_CAND, RI_POOL, RNG_BOT0,
    SCR_CAND, S_HAND, S_LOG_ON, S_MUST_DOWN, S_PHASE, S_UP)
from ..base.codes import (A_BUY, A_DISCARD, A_GO_DOWN, A_PASS, A_TAKE, EV_SEARCH, PH_BUY, PH_FIRST,
                    PH_PLAY, SEARCH_CANDIDATES, SEARCH_CHOSEN, SEARCH_DECISION, SEARCH_MARGIN,
                    SEARCH_N, SEARCH_RACE, SEARCH_ROLLOUTS, SEARCH_SEAT, SEARCH_TIE, SEARCH_Z, SR_DIFF,
                    SR_MEAN, SR_SAMPLES, SR_SE, SR_SIZE, a_card, a_type, action_nb)
from ..engine.handmemo import def_of_nb, hand_def_nb
from ..engine.state import ev_nb
from ..base.rng import next_u64_nb
from .playout import new_workspace_nb, play_sample_nb, search_start_nb  # noqa: F401  (new_workspace_nb re-exported)
from .sample import layable_mask_nb, sample_pool_nb

from ..base.codes import DEC_BUY, DEC_DISCARD, DEC_DOWN, DEC_TAKE     # the searched decisions: codes.DECISIONS
MAXC = 8              # candidates of one decision at most
RF_DROP = MAXC        # RF_SUM / RF_DSQ columns RF_DROP + i: candidate i's paired mean difference
                      # with the first / its standard error (a dropped challenger's at its last
                      # round), for the log and the positions table
CAND_SEARCHED = MAXC  # W.ri[RI_CAND][CAND_SEARCHED]: candidates the last search played (0: none)

# A decision's search between rounds (every field an int64): n candidates (1: no search), the
# decision (DEC_*, -1: none), race (the race's cap as logged, 0: a fixed budget, kmax's rule)
# and cap (the most samples: the race's, or kmax's), na candidates still in, k samples played,
# K samples after the next round, best (the index chosen), state (1: another round is due,
# 0: decided, -1: the seat's view did not add up, smart's choice stands).
Race = namedtuple("Race", ("n", "dec", "race", "cap", "na", "k", "K", "best", "state"))


# ---------------------------------------------------------------- the search

@separate(returns=nb.boolean)
@nb.njit(cache=True, _nrt=False)
def search_nb(R, V, W, p, bp, n, k0, k1):
    """Samples k0..k1-1 of a search (common to all candidates): each of the n candidate
    actions in W.ri[RI_CAND] played out on each, its outcomes summed into W.rf[RF_SUM]
    and the squares of its paired differences with the first into RF_DSQ (both zeroed when
    k0 is 0); False if the seat's view did not add up (then nothing was searched). Each sample
    is drawn from the seat's view (``sample.sample_pool_nb``)."""
    pool = W.ri[RI_POOL]
    npool = search_start_nb(R, V, W, p, bp, n, k0)
    if npool < 0:
        return False
    rng = V.rng[RNG_BOT0 + p]
    lm = layable_mask_nb(R, V) if bp[BP_NOLAY] != 0 else np.int64(0)
    for _ in range(k0, k1):
        seed = next_u64_nb(rng)
        sample_pool_nb(R, V, W, p, bp, pool, npool, rng, lm)
        play_sample_nb(R, V, W, p, bp, n, seed)
    return True


# ---------------------------------------------------------------- candidates

@nb.njit(cache=True, _nrt=False)
def card_matters_nb(R, V, p, c, prune):
    """Whether taking or buying card c deserves a search: prune 0 always; 1 when it is a
    joker, lowers the deficiency, meets a contract short of cards, or has a partner in
    hand (same rank, or same suit within two); 2 only for the first three."""
    if prune == 0 or c == JOKER:
        return True
    d0 = hand_def_nb(R, V, p)
    if d0 == 0:
        return cards_short_nb(R, V, p) > 0
    if _def_plus(R, V, p, c, d0) < d0:
        return True
    if prune >= 2:
        return False
    has_set, has_run = _contract_kinds(R, V)
    m = _mates(c, has_set, has_run)
    Hp = V.hands[p]
    for d in range(JOKER):
        if Hp[d] > 0 and (m >> d) & 1:
            return True
    return False


@nb.njit(cache=True, _nrt=False)
def discard_cands_nb(R, V, p, a0, out, cmax):
    """smart's discard a0, then up to cmax - 1 more in smart's ranking (SCR_CAND, left
    there by the call that chose a0) that keep the deficiency a0 leaves; never a joker or
    the card just taken (smart's last resorts). Returns how many."""
    Hp = V.hands[p]
    keys = V.scr[SCR_CAND]
    nd = 0
    for c in range(NCARDS):
        if Hp[c] > 0:
            nd += 1
    c0 = a_card(a0)
    out[0] = a0
    n = 1
    Hp[c0] -= 1
    d0 = def_of_nb(R, V, Hp)
    Hp[c0] += 1
    for k in range(nd):
        if n >= cmax:
            break
        if (keys[k] >> 56) == 0:
            continue
        c = 255 - (keys[k] & 255)
        if c == c0 or Hp[c] == 0:
            continue
        Hp[c] -= 1
        d = def_of_nb(R, V, Hp)
        Hp[c] += 1
        if d <= d0:
            out[n] = action_nb(A_DISCARD, c, 0, 0)
            n += 1
    return n


@separate
@nb.njit(cache=True, _nrt=False)
def plan_nb(R, V, W, p, bp):
    """smart's action for seat p in W.ri[RI_CAND][0], and after it the other candidates of
    the decision if it is one the bot searches; returns how many (1: no search)."""
    a0 = smart_action_nb(R, V, p, bp)
    S = V.s
    PS = V.ps
    ph = S[S_PHASE]
    cand = W.ri[RI_CAND]
    cand[0] = a0
    prune = int(bp[BP_PRUNE])
    n = 1
    t0 = a_type(a0)
    if ph == PH_FIRST:
        if bp[BP_S_TAKE] != 0 and card_matters_nb(R, V, p, S[S_UP], prune):
            cand[1] = action_nb(A_PASS if t0 == A_TAKE else A_TAKE, 0, 0, 0)
            n = 2
    elif ph == PH_BUY:
        # the experiment knobs decide where they are set (buy=, buyN=, maxbuys=)
        if (bp[BP_S_BUY] != 0 and _buy_policy(bp, S[S_HAND]) == BUY_AUTO and PS[p, PS_DOWN] == 0
                and (bp[BP_MAXBUYS] < 0 or PS[p, PS_BUYS] < bp[BP_MAXBUYS])
                and card_matters_nb(R, V, p, S[S_UP], prune)):
            cand[1] = action_nb(A_PASS if t0 == A_BUY else A_BUY, 0, 0, 0)
            n = 2
    elif ph == PH_PLAY and PS[p, PS_DOWN] == 0:
        if t0 == A_GO_DOWN:
            # wait_blind= decides where it is set
            if bp[BP_S_DOWN] != 0 and S[S_MUST_DOWN] == 0 and bp[BP_WAIT_BLIND] == 0:
                w = _smart_discard(R, V, p, bp)
                if a_card(w) >= 0:
                    cand[1] = w
                    n = 2
        elif t0 == A_DISCARD and a_card(a0) >= 0 and bp[BP_S_DISCARD] != 0:
            n = discard_cands_nb(R, V, p, a0, cand, min(max(int(bp[BP_CANDS]), 1), MAXC))
    return n


@nb.njit(cache=True, _nrt=False, inline="always")
def decision_nb(V, a0):
    """The decision (DEC_*) searched at this state, smart's choice being a0."""
    ph = V.s[S_PHASE]
    if ph == PH_FIRST:
        return DEC_TAKE
    if ph == PH_BUY:
        return DEC_BUY
    return DEC_DOWN if a_type(a0) == A_GO_DOWN else DEC_DISCARD


# ---------------------------------------------------------------- the race

@nb.njit(cache=True, _nrt=False, inline="always")
def paired_nb(RF, i, K):
    """Candidate i's mean paired difference with the first over K common samples (outcome
    less the first's: negative is better) and its standard error."""
    d = (RF[RF_SUM, i] - RF[RF_SUM, 0]) / K
    se = 0.0
    if K > 1:
        var = (RF[RF_DSQ, i] / K - d * d) * K / (K - 1)
        if var > 0:
            se = np.sqrt(var / K)
    return d, se


@nb.njit(cache=True, _nrt=False)
def _swap_cand(W, i, j):
    cand = W.ri[RI_CAND]
    RF = W.rf
    x = cand[i]
    cand[i] = cand[j]
    cand[j] = x
    for r in (RF_SUM, RF_DSQ, RF_N):
        y = RF[r, i]
        RF[r, i] = RF[r, j]
        RF[r, j] = y


@nb.njit(cache=True, _nrt=False)
def race_start_nb(R, V, W, p, bp):
    """The candidates of seat p's decision (``plan_nb``) and its search's budget, as a Race:
    ``rollouts`` samples first; the race's cap (``race``, lowered per decision kind by
    ``race_take`` and ``race_play``), or with no race ``kmax``'s."""
    n = plan_nb(R, V, W, p, bp)
    if n < 2:
        return Race(n, np.int64(-1), np.int64(0), np.int64(0), n, np.int64(0), np.int64(0), np.int64(0),
                    np.int64(0))
    dec = np.int64(decision_nb(V, W.ri[RI_CAND][0]))
    K = np.int64(max(int(bp[BP_ROLLOUTS]), 1))
    race = bp[BP_RACE]           # the race's cap, lowered per decision kind (race_take, race_play)
    if dec == DEC_TAKE and 0 <= bp[BP_RACE_TAKE] < race:
        race = bp[BP_RACE_TAKE]
    elif (dec == DEC_DISCARD or dec == DEC_DOWN) and 0 <= bp[BP_RACE_PLAY] < race:
        race = bp[BP_RACE_PLAY]
    if race > 0:
        cap = np.int64(max(int(race), K))
    else:
        cap = np.int64(max(int(bp[BP_KMAX]), K))
    return Race(n, dec, np.int64(int(race)), cap, n, np.int64(0), K, np.int64(0), np.int64(1))


@nb.njit(cache=True, _nrt=False)
def race_next_nb(W, bp, r, ok):
    """The Race after a round of samples r.k..r.K-1 (``ok``: the search's answer; False: the
    seat's view did not add up, smart's choice stands).

    With a race (r.race > 0) between smart's choice (candidate 0) and the challengers: a
    challenger is dropped once it cannot beat smart's choice by BP_TIE points (its paired
    mean less BP_Z standard errors is above -tie: it plays no more samples; dropped ones move
    to the end of the candidates); one is told better when its paired mean is below
    -BP_MARGIN and below -BP_Z standard errors, and the best of those is chosen. While a
    challenger is neither, the samples double, up to the cap; at the cap smart's choice stays.

    Without (a fixed budget): the best other candidate replaces smart's choice only when its
    paired mean difference is below -margin and below -z standard errors: between near equals
    the sampling noise would otherwise pick at random where smart's rule knows better. A close
    call (the best other candidate ahead on the mean, not by enough) doubles the samples, up
    to BP_KMAX: the budget goes where a departure is in doubt.

    RF_N holds each candidate's samples."""
    if not ok:
        return Race(r.n, r.dec, r.race, r.cap, r.na, r.k, r.K, np.int64(0), np.int64(-1))
    RF = W.rf
    K = r.K
    na = r.na
    best = np.int64(0)
    if r.race > 0:
        for i in range(na):
            RF[RF_N, i] = K
        z = bp[BP_Z]
        tie = bp[BP_TIE]
        bd = 0.0
        i = np.int64(1)
        while i < na:
            d, se = paired_nb(RF, i, K)
            if d - z * se > -tie:
                na -= 1
                _swap_cand(W, i, na)
                RF[RF_SUM, RF_DROP + na] = d        # it stays at na: the log reads them there
                RF[RF_DSQ, RF_DROP + na] = se
                continue
            if d < -bp[BP_MARGIN] and d + z * se < 0 and d < bd:
                best = i
                bd = d
            i += 1
        done = best > 0 or na == 1 or 2 * K > r.cap
    else:
        best = np.int64(1)
        for i in range(2, na):
            if RF[RF_SUM, i] < RF[RF_SUM, best]:
                best = i
        d, se = paired_nb(RF, best, K)
        done = True
        if d < -bp[BP_MARGIN] and d + bp[BP_Z] * se < 0:
            pass
        elif d >= 0 or 2 * K > r.cap:
            best = np.int64(0)
        else:
            done = False
        if done:
            for i in range(na):
                RF[RF_N, i] = K
    if done:
        return Race(r.n, r.dec, r.race, r.cap, na, K, K, best, np.int64(0))
    return Race(r.n, r.dec, r.race, r.cap, na, K, 2 * K, np.int64(0), np.int64(1))


@nb.njit(cache=True, _nrt=False, inline="always")
def _c100(x):
    """100 x x, rounded to the nearest integer (a logged figure)."""
    return int(np.floor(x * 100.0 + 0.5))


@nb.njit(cache=True, _nrt=False)
def race_end_nb(V, W, p, bp, r):
    """The action the search decided (smart's if there was none, or the seat's view did not
    add up); with logging on, the search's EV_SEARCH event. What the search found stays in
    W for the positions table (``kernels.games.positions``): W.ri[RI_CAND][CAND_SEARCHED] the
    candidates searched (0: no search), each candidate's RF_SUM its mean outcome, RF_N its
    samples, and in the RF_DROP columns of RF_SUM and RF_DSQ its paired mean difference with
    the first and that difference's standard error (for a challenger the race dropped, at
    its last round)."""
    cand = W.ri[RI_CAND]
    if r.n < 2 or r.state < 0:
        cand[CAND_SEARCHED] = 0
        return cand[0]
    RF = W.rf
    n = r.n
    K = r.K
    RF[RF_SUM, RF_DROP] = 0.0
    RF[RF_DSQ, RF_DROP] = 0.0
    for i in range(1, n):
        if RF[RF_N, i] == K:                        # played on every sample of the first
            d, se = paired_nb(RF, i, K)
            RF[RF_SUM, RF_DROP + i] = d
            RF[RF_DSQ, RF_DROP + i] = se
        # else dropped by the race earlier: race_next_nb left its last round's there
    if V.s[S_LOG_ON] != 0:
        b = ev_nb(V, EV_SEARCH, SEARCH_CANDIDATES + SR_SIZE * n)
        LOG = V.log
        LOG[b + SEARCH_SEAT] = p
        LOG[b + SEARCH_DECISION] = r.dec
        LOG[b + SEARCH_ROLLOUTS] = K
        LOG[b + SEARCH_CHOSEN] = r.best
        LOG[b + SEARCH_MARGIN] = _c100(bp[BP_MARGIN])
        LOG[b + SEARCH_Z] = _c100(bp[BP_Z])
        LOG[b + SEARCH_TIE] = _c100(bp[BP_TIE])
        LOG[b + SEARCH_RACE] = r.race
        LOG[b + SEARCH_N] = n
        for i in range(n):
            c = b + SEARCH_CANDIDATES + SR_SIZE * i
            LOG[c] = cand[i]
            LOG[c + SR_MEAN] = _c100(RF[RF_SUM, i] / RF[RF_N, i])
            LOG[c + SR_SAMPLES] = int(RF[RF_N, i])
            LOG[c + SR_DIFF] = _c100(RF[RF_SUM, RF_DROP + i])
            LOG[c + SR_SE] = _c100(RF[RF_DSQ, RF_DROP + i])
    for i in range(n):
        RF[RF_SUM, i] /= RF[RF_N, i]
    cand[CAND_SEARCHED] = n
    return cand[r.best]


# ---------------------------------------------------------------- the bot

@separate
@nb.njit(cache=True, _nrt=False)
def rollout_action_nb(R, V, W, p, bp):
    """The rollout bot's action for seat p (the seat to act): smart's, or the candidate its
    search on samples of what the seat has not seen tells better."""
    r = race_start_nb(R, V, W, p, bp)
    while r.state > 0:
        r = race_next_nb(W, bp, r, search_nb(R, V, W, p, bp, r.na, r.k, r.K))
    return race_end_nb(V, W, p, bp, r)
