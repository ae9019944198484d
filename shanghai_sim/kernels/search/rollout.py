"""The rollout bot (issue #14): determinized Monte Carlo search on the engine.

At the decisions that matter (take or pass the upcard, buy or pass, the discard among
`smart`'s best few, go down now or wait a turn) the bot samples the cards it has not seen
consistently with its seat's view, and plays the hand out once per candidate on each
sample, with `smart` (or `greedy`) in every seat, all candidates on the same samples
(common random numbers). It chooses the candidate with the best mean outcome; every
other decision is `smart`'s.

A sample (``unseen_pool_nb``, ``load_sample_nb``): the other seats keep their hand sizes
and the cards they are known to hold (``PS_KNOWN0``: taken from the pile or bought, not
played since); their other cards and the stock are a shuffle of the cards this seat has
not seen (the shoe less its own hand, the pile, the table and those known cards). The
other hands' real cards are never read, except by the oracle (``BP_ORACLE``, off by default):
a diagnostic that cheats, dealing the samples from the true hands (and stock), to measure
what reading the hidden cards would be worth to the search.

Memory: the playouts run on a scratch state whose game arrays are the workspace W
(``layout.WORKSPACE_SPEC``, allocated once per thread: ``new_workspace_nb`` in the batch
kernel, ``layout.new_workspace`` for ``Game``) and whose meld and hand memos are the real state's
(caches: sharing them changes no answer). Nothing is allocated per sample or playout, and
the real state is not written: its caches, log, records and deal stream stay as they
were (the seat's bot stream G[G_RNG][RNG_BOT0 + p] advances: every draw of the search
comes from it, so a game replays identically on any thread).

Outcome of a playout: the seat's points for the hand (BP_UTILITY 0), or its total less
the lowest total of the other seats once the hand is scored (1). Lower is better.
With logging on, each search writes an EV_SEARCH event: seat, decision (DEC_*), samples,
the index chosen, the rule's margin, z and tie (100 x) and the race's cap (0: none), the
number of candidates, then per candidate (codes.SEARCH_RECORD) its action, 100 x its mean
outcome, its samples, and 100 x its mean paired difference with the first candidate and that
difference's standard error (rounded): what the rule that kept or replaced smart's choice
read. A challenger the race dropped has its difference and error from its last round
(``race_nb`` keeps them in RF_DROP columns).

This module calls `smart`, so ``bots.bot_action_nb`` cannot dispatch to it: the engine
dispatches through ``kernels.games.dispatch``.
"""

import numba as nb
import numpy as np

from ..compile.linking import separate

from ..bots.players import (BUY_AUTO, _buy_policy, _contract_kinds, _def_plus, _mates, _smart_discard,
                   cards_short_nb, greedy_action_nb, smart_action_nb, unseen_counts_nb)
from ..bots.params import (BP_BUY, BP_CANDS, BP_DECL, BP_FIT, BP_HAND0, BP_KMAX, BP_MARGIN,
                        BP_MAXBUYS, BP_NOLAY, BP_ORACLE, BP_POLICY, BP_PRUNE, BP_RACE, BP_RACE_PLAY,
                        BP_RACE_TAKE, BP_ROLLOUTS, BP_S_BUY, BP_S_DISCARD, BP_UNREADY,
                        BP_S_DOWN, BP_S_TAKE, BP_TIE, BP_UTILITY, BP_WAIT_BLIND, BP_Z, MAX_HAND_PARAMS, NBP)
from ..base.layout import (NATURALS, G_PRIV, G_BUF, G_GD, G_GDJ, G_HANDS, G_HMEMO, G_LD, G_LOG, G_MKEYS, G_MN,
                     G_MSCR, G_MVALS, G_PILE, G_PS, G_REC, G_RNG, G_S, G_SCR, G_STOCK, G_TABLE,
                     G_TCARDS, G_TJOKERS, G_WT, JOKER, NCARDS, NPS, NRF, NRI, NS, NTM, PS_BUYS,
                     PS_DECL0, PS_DOWN, PS_KNOWN0, PS_N, PS_TOTAL, PS_TURNS, P_DECKS,
                     P_JOKERS, P_SET_JOKER_CARD, R_JOKER_CAP, R_PARAMS, RF_DSQ, RF_N, RF_OTHER,
                     RF_SELF, RF_SUM, RF_W, RI_CAND, RI_POOL, RNG_BOT0,
                     RNG_DEAL, RNG_SEED, SCR_CAND, SCR_TMP, SCR_UNSEEN, S_ACTOR, S_CGD_AT, S_CHECK,
                     S_GD_AT, S_HALT, S_HAND, S_HANDS_DONE, S_LOG_ON, S_MUST_DOWN, S_NP, S_NT,
                     S_PHASE, S_PILE_N, S_STOCK_N, S_UP, TW, W_RF, W_RI)
from ..base.codes import (A_BUY, A_DISCARD, A_GO_DOWN, A_PASS, A_TAKE, EV_SEARCH, E_OK, PH_BUY, PH_FIRST,
                    PH_OVER, PH_PLAY, SEARCH_CANDIDATES, SEARCH_CHOSEN, SEARCH_DECISION, SEARCH_MARGIN,
                    SEARCH_N, SEARCH_RACE, SEARCH_ROLLOUTS, SEARCH_SEAT, SEARCH_TIE, SEARCH_Z, SR_DIFF,
                    SR_MEAN, SR_SAMPLES, SR_SE, SR_SIZE, a_card, a_type, action_nb)
from ..engine.godown import unplace_nb
from ..engine.table import fit_mask_nb, layable_nb
from ..engine.handmemo import def_of_nb, hand_def_nb
from ..engine.play import apply_action_nb
from ..engine.state import def_forget_nb, def_restore_nb, def_saved_nb, ev_nb, game_arrays_nb
from ..base.records import HF_POINTS
from ..base.rng import next_u64_nb, randint_nb, seed_state_nb, shuffle_nb

# A playout's parameter rows (W[W_RF][RF_SELF], [RF_OTHER]) hold a whole bot vector. numba does
# not check bounds: with RF_W = 64 < NBP = 83 they overlapped the next rows, so the playouts
# ran on wrong weights (version 1 of the bot); kernels.bots.params now checks NBP <= RF_W.

from ..base.codes import DEC_BUY, DEC_DISCARD, DEC_DOWN, DEC_TAKE     # the searched decisions: codes.DECISIONS
MAXC = 8              # candidates of one decision at most
RF_DROP = MAXC        # RF_SUM / RF_DSQ columns RF_DROP + i: a dropped challenger's paired
                      # mean difference / standard error at its last round (for the log)
ILLEGAL = 1.0e6       # outcome of a candidate the scratch state refused (never expected)


@nb.njit(cache=True, _nrt=True)
def new_workspace_nb(params):
    """``layout.new_workspace`` inside numba: the game arrays of a state (play.game_arrays_nb),
    then the workspace's own (layout.WORKSPACE_SPEC; tests/test_layout.py checks it)."""
    shoe = NATURALS * params[P_DECKS] + params[P_JOKERS]
    return game_arrays_nb(params, 0) + (np.zeros((NRI, shoe), np.int64),
                                        np.zeros((NRF, RF_W), np.float64))


# ---------------------------------------------------------------- sampling

@nb.njit(cache=True, _nrt=False, inline="always")
def hidden_cards_nb(PS, q):
    """How many of seat q's cards nobody else knows: its hand size less the cards it is
    known to hold (PS_KNOWN0; taken from the pile or bought, not played since)."""
    hidden = PS[q, PS_N]
    for c in range(NCARDS):
        hidden -= PS[q, PS_KNOWN0 + c]
    return hidden


@nb.njit(cache=True, _nrt=False)
def unseen_pool_nb(R, G, p, pool):
    """Write into pool the cards seat p has not seen (the shoe less its hand, the pile,
    the table and the cards other seats are known to hold), in card order; returns how
    many, or -1 if they do not add up to the other seats' hidden cards plus the stock.
    Reads nothing another seat hides."""
    S = G[G_S]
    PS = G[G_PS]
    unseen_counts_nb(R, G, p)
    U = G[G_SCR][SCR_UNSEEN]
    need = S[S_STOCK_N]
    for q in range(S[S_NP]):
        if q == p:
            continue
        hidden = hidden_cards_nb(PS, q)
        if hidden < 0:
            return -1
        need += hidden
    n = 0
    for c in range(NCARDS):
        if U[c] < 0:
            return -1
        for _ in range(U[c]):
            pool[n] = c
            n += 1
    if n != need:
        return -1
    return n


@nb.njit(cache=True, _nrt=False)
def oracle_pool_nb(G, p, pool, npool, mode, rng):
    """The oracle (a diagnostic that cheats, BP_ORACLE): pool := what load_sample_nb deals,
    read from the true state: each other seat's hidden cards (its hand less its known
    cards), then the stock in its true order (mode 2) or shuffled (mode 1). False if they
    do not add up to npool (the view and the state disagree: never expected)."""
    S = G[G_S]
    H = G[G_HANDS]
    PS = G[G_PS]
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
    STK = G[G_STOCK]
    for i in range(S[S_STOCK_N]):
        if k >= npool:
            return False
        pool[k] = STK[i]
        k += 1
    if k != npool:
        return False
    if mode == 1:
        for i in range(npool - 1, k0, -1):      # Fisher-Yates of the stock part
            j = k0 + randint_nb(rng, i - k0 + 1)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
    return True


@nb.njit(cache=True, _nrt=False)
def load_sample_nb(R, G, G2, p, pool, seed):
    """G2 := the state G as seat p sees it: the other seats' hidden cards, then the stock,
    dealt from pool in order (unseen_pool_nb, shuffled); G2's deal stream seeded ``seed``,
    logging, checks and the go-down caches off, and halting at the end of the hand
    (S_HALT). Reads G's other hands only for their sizes."""
    S = G[G_S]
    S2 = G2[G_S]
    PS = G[G_PS]
    PS2 = G2[G_PS]
    H = G[G_HANDS]
    H2 = G2[G_HANDS]
    nt = S[S_NT]
    unplace_nb(G2, nt)           # table rows a previous playout added beyond the real table
    for i in range(NS):
        S2[i] = S[i]
    P = S[S_NP]
    k = 0
    for q in range(P):
        for f in range(NPS):
            PS2[q, f] = PS[q, f]
        if q == p:
            for c in range(NCARDS):
                H2[q, c] = H[q, c]
            def_restore_nb(G2, q, def_saved_nb(G, q))     # its own hand: the same cache
            continue
        hidden = PS[q, PS_N]
        for c in range(NCARDS):
            H2[q, c] = PS[q, PS_KNOWN0 + c]
            hidden -= H2[q, c]
        for _ in range(hidden):
            H2[q, pool[k]] += 1
            k += 1
        def_forget_nb(G2, q)
    STK2 = G2[G_STOCK]
    for i in range(S[S_STOCK_N]):
        STK2[i] = pool[k]
        k += 1
    PILE = G[G_PILE]
    PILE2 = G2[G_PILE]
    for i in range(S[S_PILE_N]):
        PILE2[i] = PILE[i]
    TM = G[G_TABLE]
    TM2 = G2[G_TABLE]
    TC = G[G_TCARDS]
    TC2 = G2[G_TCARDS]
    TJ = G[G_TJOKERS]
    TJ2 = G2[G_TJOKERS]
    for m in range(nt):
        for f in range(NTM):
            TM2[m, f] = TM[m, f]
        for j in range(TW):
            TC2[m, j] = TC[m, j]
            TJ2[m, j] = TJ[m, j]
    RNG2 = G2[G_RNG]
    seed_state_nb(seed, RNG2[RNG_DEAL])
    RNG2[RNG_SEED, 0] = G[G_RNG][RNG_SEED, 0]
    S2[S_LOG_ON] = 0
    S2[S_HALT] = 1
    S2[S_CHECK] = 0
    S2[S_GD_AT] = 0
    S2[S_CGD_AT] = -1


@nb.njit(cache=True, _nrt=False)
def decline_fit_nb(R, G, q, pool, k, end, lo, npool, decl, rng, tmp):
    """Seat q's draw pool[k:end] (its counts, known cards included, in tmp) against what
    q threw or refused: a card c it discarded, passed as the upcard offered on its turn, or
    did not buy, in its last decl turns (PS_DECL0, public) says that its hand had no use
    for c. If the drawn hand would keep c (c in place of one of its cards, never a joker,
    lowers its deficiency), one of its drawn cards that partners c (same rank, or same
    suit within two, as the contract's kinds go) swaps places with a card of pool[lo:npool]
    (the stock's part) that does not, at random, up to three times; then the next
    declined card."""
    PS = G[G_PS]
    if lo >= npool:
        return
    has_set, has_run = _contract_kinds(R, G)
    d0 = def_of_nb(R, G, tmp)
    now = PS[q, PS_TURNS] + 1
    for c in range(JOKER):
        v = PS[q, PS_DECL0 + c]
        if v == 0 or now - v >= decl:
            continue
        m = _mates(c, has_set, has_run)
        for _ in range(3):
            # would q keep c? c in place of one of its cards lowers its deficiency
            tmp[c] += 1
            keep = def_of_nb(R, G, tmp) < d0
            if keep:
                keep = False
                for x in range(JOKER):
                    if x != c and tmp[x] > 0:
                        tmp[x] -= 1
                        d = def_of_nb(R, G, tmp)
                        tmp[x] += 1
                        if d < d0:
                            keep = True
                            break
            tmp[c] -= 1
            if not keep:
                break
            pick = np.int64(-1)
            seen = np.int64(0)
            for i in range(k, end):                 # a drawn partner of c, at random
                x = pool[i]
                if x < JOKER and (m >> x) & 1:
                    seen += 1
                    if randint_nb(rng, seen) == 0:
                        pick = i
            if pick < 0:
                break
            for _ in range(8):                      # a stock card that does not partner c
                j = lo + randint_nb(rng, npool - lo)
                y = pool[j]
                if y < JOKER and not ((m >> y) & 1):
                    x = pool[pick]
                    pool[pick] = y
                    pool[j] = x
                    tmp[x] -= 1
                    tmp[y] += 1
                    d0 = def_of_nb(R, G, tmp)
                    break


@nb.njit(cache=True, _nrt=False)
def unready_nb(R, G, q, pool, k, end, npool, rng, tmp):
    """Seat q (not down) was dealt pool[k:end] (its counts, known cards included, in tmp)
    and that hand meets its contract (deficiency 0): but a player who is not down did not
    meet it at its last turn (smart goes down at once), so the fit kept too much. One of
    its drawn cards whose loss breaks the contract swaps places with a card of
    pool[end:npool] (later hands' or the stock's) that does not mend it, at random, up to
    eight tries (after a swap the hand's deficiency is at least 1)."""
    if end >= npool:
        return
    for _ in range(8):
        i = k + randint_nb(rng, end - k)
        x = pool[i]
        if x == JOKER:
            continue
        tmp[x] -= 1
        if def_of_nb(R, G, tmp) == 0:
            tmp[x] += 1
            continue
        j = end + randint_nb(rng, npool - end)
        y = pool[j]
        tmp[y] += 1
        if def_of_nb(R, G, tmp) == 0:
            tmp[y] -= 1
            tmp[x] += 1
            continue
        pool[i] = y
        pool[j] = x
        return


@nb.njit(cache=True, _nrt=False)
def layable_mask_nb(R, G):
    """The natural cards that fit some meld on the table, as a mask of bits 0..51."""
    TM = G[G_TABLE]
    nt = G[G_S][S_NT]
    cap = R[R_JOKER_CAP]
    sjc = R[R_PARAMS][P_SET_JOKER_CARD]
    fm = fit_mask_nb(TM, nt)
    lm = np.int64(0)
    for c in range(JOKER):
        if ((fm >> c) & 1) != 0 and layable_nb(TM, nt, cap, sjc, c):
            lm |= np.int64(1) << c
    return lm


@nb.njit(cache=True, _nrt=False)
def nolay_nb(G, p, pool, npool, rng, lm):
    """Reorder the pool so that load_sample_nb deals no seat that is down a natural card it
    could lay off on the table: a player who is down lays off all it can at its turn
    (measured on games of smart: 6% of a down player's cards fit the table, mostly from
    melds laid since its turn, against 22% of a uniform sample's under ``shanghai``, so
    the playouts' down players went out too fast). Each such card swaps places with a
    stock card (pool[nhid:npool]) that fits no meld, at random, up to eight tries. lm: the
    table's layable_mask_nb, the same for every sample of a search."""
    S = G[G_S]
    PS = G[G_PS]
    if lm == 0:
        return
    nhid = np.int64(0)
    for q in range(S[S_NP]):
        if q != p:
            nhid += hidden_cards_nb(PS, q)
    if nhid >= npool:
        return
    k = np.int64(0)
    for q in range(S[S_NP]):
        if q == p:
            continue
        hidden = hidden_cards_nb(PS, q)
        if PS[q, PS_DOWN] != 0:
            for i in range(k, k + hidden):
                x = pool[i]
                if x >= JOKER or ((lm >> x) & 1) == 0:
                    continue
                for _ in range(8):
                    j = nhid + randint_nb(rng, npool - nhid)
                    y = pool[j]
                    if y < JOKER and ((lm >> y) & 1) == 0:
                        pool[i] = y
                        pool[j] = x
                        break
        k += hidden


@nb.njit(cache=True, _nrt=False)
def fit_hands_nb(R, G, p, pool, npool, fit, decl, rng, tmp, spare, unready):
    """Reorder the shuffled pool so that load_sample_nb deals each other seat q (not down)
    a hand it could have kept: a player who has played t turns of the hand has seen t more
    cards than it holds and thrown the ones that served its contract least. So q's hidden
    cards are drawn with e = min(t, fit) more, and the e whose loss keeps its deficiency
    lowest are thrown back into the rest of the pool, one at a time (never a joker or a
    card it is known to hold). A uniform sample makes the opponents slow (measured: hands
    stopped by the stock in 14% of the playouts, none in the games they came from), and
    the search then overrates taking and buying. With decl > 0 the draw is first made
    consistent with the cards q declined in its last decl turns (decline_fit_nb), so the
    hand it keeps is one that had no use for them. With unready a hand the fit leaves at
    deficiency 0 is repaired (unready_nb): a player who is not down could not go down at
    its last turn, or it would have. tmp: scratch counts (NCARDS); spare: unused."""
    S = G[G_S]
    PS = G[G_PS]
    nhid = np.int64(0)
    for q in range(S[S_NP]):
        if q != p:
            nhid += hidden_cards_nb(PS, q)
    k = np.int64(0)
    for q in range(S[S_NP]):
        if q == p:
            continue
        hidden = hidden_cards_nb(PS, q)
        e = min(PS[q, PS_TURNS], fit, npool - k - hidden)
        if PS[q, PS_DOWN] != 0 or hidden <= 0:
            e = 0
        end = k + hidden + e              # q's draw is pool[k:end]
        if (e > 0 or decl > 0) and PS[q, PS_DOWN] == 0 and hidden > 0:
            for c in range(NCARDS):
                tmp[c] = PS[q, PS_KNOWN0 + c]
            for i in range(k, end):
                tmp[pool[i]] += 1
            if decl > 0:
                decline_fit_nb(R, G, q, pool, k, end, max(end, nhid), npool, decl, rng, tmp)
            # Losing a card never lowers a hand's deficiency (docs/rules.md §6: the hand
            # with it meets whatever the hand without it meets), so the first card whose
            # loss keeps the deficiency dcur is the first of the least: no need to try the rest.
            dcur = def_of_nb(R, G, tmp) if e > 0 else np.int64(0)
            for r in range(e):
                best = -1
                bd = np.int64(1) << 40
                for c in range(JOKER):
                    if tmp[c] > PS[q, PS_KNOWN0 + c]:
                        tmp[c] -= 1
                        d = def_of_nb(R, G, tmp)
                        tmp[c] += 1
                        if d < bd:
                            bd = d
                            best = c
                            if d <= dcur:
                                break
                if best < 0:
                    break
                tmp[best] -= 1
                dcur = bd
                # move one copy of it to the end of q's draw, then out into the rest
                last = end - 1 - r
                for i in range(k, last + 1):
                    if pool[i] == best:
                        pool[i] = pool[last]
                        pool[last] = best
                        break
                j = last + randint_nb(rng, npool - last)     # into the thrown or the rest
                x = pool[last]
                pool[last] = pool[j]
                pool[j] = x
            if unready != 0 and e > 0 and dcur == 0:
                unready_nb(R, G, q, pool, k, k + hidden, npool, rng, tmp)
        k += hidden


# ---------------------------------------------------------------- playouts

@separate(returns=nb.boolean)
@nb.njit(cache=True, _nrt=False)
def playout_nb(R, G2, p, RF, policy, h):
    """Play hand h of G2 to its end: seat p with RF[RF_SELF], the others with
    RF[RF_OTHER], all by smart (policy 0) or greedy (1). False if an action was refused."""
    S2 = G2[G_S]
    while S2[S_PHASE] != PH_OVER and S2[S_HANDS_DONE] <= h:
        q = S2[S_ACTOR]
        qbp = RF[RF_SELF if q == p else RF_OTHER]
        if policy == 1:
            a = greedy_action_nb(R, G2, q, qbp)
        else:
            a = smart_action_nb(R, G2, q, qbp)
        if apply_action_nb(R, G2, a) != E_OK:
            return False
    return True


@nb.njit(cache=True, _nrt=False)
def outcome_nb(G2, p, h, util):
    """Seat p's outcome of the hand h just played in G2 (lower is better)."""
    if util == 0:
        return float(G2[G_REC][h, p, HF_POINTS])
    PS2 = G2[G_PS]
    best = np.int64(1) << 62
    for q in range(G2[G_S][S_NP]):
        if q != p and PS2[q, PS_TOTAL] < best:
            best = PS2[q, PS_TOTAL]
    return float(PS2[p, PS_TOTAL] - best)


@separate(returns=nb.boolean)
@nb.njit(cache=True, _nrt=False)
def search_nb(R, G, W, p, bp, n, k0, k1):
    """Samples k0..k1-1 of a search (common to all candidates): each of the n candidate
    actions in W[W_RI][RI_CAND] played out on each, its outcomes summed into W[W_RF][RF_SUM]
    and the squares of its paired differences with the first into RF_DSQ (both zeroed when
    k0 is 0); False if the seat's view did not add up (then nothing was searched)."""
    G2 = (W[G_S], W[G_PS], W[G_HANDS], W[G_PRIV], W[G_STOCK], W[G_PILE], W[G_TABLE], W[G_TCARDS],
          W[G_TJOKERS], W[G_GD], W[G_GDJ], W[G_RNG], W[G_LOG], W[G_REC], W[G_SCR], W[G_LD],
          W[G_BUF], G[G_MKEYS], G[G_MVALS], G[G_MN], G[G_MSCR], G[G_WT], G[G_HMEMO])
    RF = W[W_RF]
    pool = W[W_RI][RI_POOL]
    cand = W[W_RI][RI_CAND]
    npool = unseen_pool_nb(R, G, p, pool)
    if npool < 0:
        return False
    for i in range(NBP):
        RF[RF_SELF, i] = bp[i]
        RF[RF_OTHER, i] = bp[i]
    RF[RF_OTHER, BP_BUY] = BUY_AUTO
    RF[RF_OTHER, BP_MAXBUYS] = -1.0
    RF[RF_OTHER, BP_WAIT_BLIND] = 0.0
    for i in range(MAX_HAND_PARAMS):
        RF[RF_OTHER, BP_HAND0 + i] = -1.0
    if k0 == 0:
        for i in range(n):
            RF[RF_SUM, i] = 0.0
            RF[RF_DSQ, i] = 0.0
    policy = int(bp[BP_POLICY])
    util = int(bp[BP_UTILITY])
    h = G[G_S][S_HAND]
    rng = G[G_RNG][RNG_BOT0 + p]
    fit = int(bp[BP_FIT])
    decl = int(bp[BP_DECL])
    oracle = int(bp[BP_ORACLE])
    lm = layable_mask_nb(R, G) if bp[BP_NOLAY] != 0 else np.int64(0)
    for _ in range(k0, k1):
        seed = next_u64_nb(rng)
        if oracle > 0:
            if not oracle_pool_nb(G, p, pool, npool, oracle, rng):
                return False
        else:
            shuffle_nb(rng, pool, npool)
            if fit > 0 or decl > 0:
                fit_hands_nb(R, G, p, pool, npool, fit, decl, rng, W[G_SCR][SCR_TMP], W[G_SCR][SCR_CAND],
                             int(bp[BP_UNREADY]))
            if lm != 0:
                nolay_nb(G, p, pool, npool, rng, lm)
        v0 = 0.0
        for i in range(n):
            load_sample_nb(R, G, G2, p, pool, seed)
            v = ILLEGAL
            if apply_action_nb(R, G2, cand[i]) == E_OK and playout_nb(R, G2, p, RF, policy, h):
                v = outcome_nb(G2, p, h, util)
            RF[RF_SUM, i] += v
            if i == 0:
                v0 = v
            else:
                RF[RF_DSQ, i] += (v - v0) * (v - v0)
    return True


# ---------------------------------------------------------------- candidates

@nb.njit(cache=True, _nrt=False)
def card_matters_nb(R, G, p, c, prune):
    """Whether taking or buying card c deserves a search: prune 0 always; 1 when it is a
    joker, lowers the deficiency, meets a contract short of cards, or has a partner in
    hand (same rank, or same suit within two); 2 only for the first three."""
    if prune == 0 or c == JOKER:
        return True
    d0 = hand_def_nb(R, G, p)
    if d0 == 0:
        return cards_short_nb(R, G, p) > 0
    if _def_plus(R, G, p, c, d0) < d0:
        return True
    if prune >= 2:
        return False
    has_set, has_run = _contract_kinds(R, G)
    m = _mates(c, has_set, has_run)
    Hp = G[G_HANDS][p]
    for d in range(JOKER):
        if Hp[d] > 0 and (m >> d) & 1:
            return True
    return False


@nb.njit(cache=True, _nrt=False)
def discard_cands_nb(R, G, p, a0, out, cmax):
    """smart's discard a0, then up to cmax - 1 more in smart's ranking (SCR_CAND, left
    there by the call that chose a0) that keep the deficiency a0 leaves; never a joker or
    the card just taken (smart's last resorts). Returns how many."""
    Hp = G[G_HANDS][p]
    keys = G[G_SCR][SCR_CAND]
    nd = 0
    for c in range(NCARDS):
        if Hp[c] > 0:
            nd += 1
    c0 = a_card(a0)
    out[0] = a0
    n = 1
    Hp[c0] -= 1
    d0 = def_of_nb(R, G, Hp)
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
        d = def_of_nb(R, G, Hp)
        Hp[c] += 1
        if d <= d0:
            out[n] = action_nb(A_DISCARD, c, 0, 0)
            n += 1
    return n


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
    cand = W[W_RI][RI_CAND]
    RF = W[W_RF]
    x = cand[i]
    cand[i] = cand[j]
    cand[j] = x
    for r in (RF_SUM, RF_DSQ, RF_N):
        y = RF[r, i]
        RF[r, i] = RF[r, j]
        RF[r, j] = y


@nb.njit(cache=True, _nrt=False)
def race_nb(R, G, W, p, bp, n, K, cap):
    """A race between smart's choice (candidate 0) and the n - 1 challengers: K samples,
    then, while a challenger is neither told better nor dropped, twice the samples, up to
    cap. A challenger is dropped once it cannot beat smart's choice by BP_TIE points (its
    paired mean less BP_Z standard errors is above -tie: it plays no more samples; dropped
    ones move to the end of the candidates); one is told better when its paired mean is
    below -BP_MARGIN and below -BP_Z standard errors, and the best of those is chosen. At
    the cap smart's choice stays. Returns (index chosen, samples of smart's choice), or
    (-1, 0) if the seat's view did not add up; RF_N holds each candidate's samples."""
    RF = W[W_RF]
    z = bp[BP_Z]
    tie = bp[BP_TIE]
    na = n
    k = np.int64(0)
    while True:
        if not search_nb(R, G, W, p, bp, na, k, K):
            return -1, 0
        for i in range(na):
            RF[RF_N, i] = K
        k = K
        best = 0
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
        if best > 0 or na == 1 or 2 * K > cap:
            return best, K
        K = 2 * K


@nb.njit(cache=True, _nrt=False, inline="always")
def _c100(x):
    """100 x x, rounded to the nearest integer (a logged figure)."""
    return int(np.floor(x * 100.0 + 0.5))


@separate
@nb.njit(cache=True, _nrt=False)
def rollout_action_nb(R, G, W, p, bp):
    """The rollout bot's action for seat p (the seat to act)."""
    a0 = smart_action_nb(R, G, p, bp)
    S = G[G_S]
    PS = G[G_PS]
    ph = S[S_PHASE]
    cand = W[W_RI][RI_CAND]
    prune = int(bp[BP_PRUNE])
    n = 0
    dec = -1
    t0 = a_type(a0)
    if ph == PH_FIRST:
        if bp[BP_S_TAKE] != 0 and card_matters_nb(R, G, p, S[S_UP], prune):
            cand[0] = a0
            cand[1] = action_nb(A_PASS if t0 == A_TAKE else A_TAKE, 0, 0, 0)
            n = 2
            dec = DEC_TAKE
    elif ph == PH_BUY:
        # the experiment knobs decide where they are set (buy=, buyN=, maxbuys=)
        if (bp[BP_S_BUY] != 0 and _buy_policy(bp, S[S_HAND]) == BUY_AUTO and PS[p, PS_DOWN] == 0
                and (bp[BP_MAXBUYS] < 0 or PS[p, PS_BUYS] < bp[BP_MAXBUYS])
                and card_matters_nb(R, G, p, S[S_UP], prune)):
            cand[0] = a0
            cand[1] = action_nb(A_PASS if t0 == A_BUY else A_BUY, 0, 0, 0)
            n = 2
            dec = DEC_BUY
    elif ph == PH_PLAY and PS[p, PS_DOWN] == 0:
        if t0 == A_GO_DOWN:
            # wait_blind= decides where it is set
            if bp[BP_S_DOWN] != 0 and S[S_MUST_DOWN] == 0 and bp[BP_WAIT_BLIND] == 0:
                w = _smart_discard(R, G, p, bp)
                if a_card(w) >= 0:
                    cand[0] = a0
                    cand[1] = w
                    n = 2
                    dec = DEC_DOWN
        elif t0 == A_DISCARD and a_card(a0) >= 0 and bp[BP_S_DISCARD] != 0:
            n = discard_cands_nb(R, G, p, a0, cand, min(max(int(bp[BP_CANDS]), 1), MAXC))
            dec = DEC_DISCARD
    if n < 2:
        return a0
    RF = W[W_RF]
    K = max(int(bp[BP_ROLLOUTS]), 1)
    race = bp[BP_RACE]           # the race's cap, lowered per decision kind (race_take, race_play)
    if dec == DEC_TAKE and 0 <= bp[BP_RACE_TAKE] < race:
        race = bp[BP_RACE_TAKE]
    elif (dec == DEC_DISCARD or dec == DEC_DOWN) and 0 <= bp[BP_RACE_PLAY] < race:
        race = bp[BP_RACE_PLAY]
    if race > 0:
        best, K = race_nb(R, G, W, p, bp, n, K, max(int(race), K))
        if best < 0:
            return a0
    else:
        # The best other candidate replaces smart's choice (the first) only when its paired
        # mean difference is below -margin and below -z standard errors: between near equals
        # the sampling noise would otherwise pick at random where smart's rule knows better.
        # A close call (the best other candidate ahead on the mean, not by enough) doubles the
        # samples, up to BP_KMAX: the budget goes where a departure is in doubt.
        kmax = max(int(bp[BP_KMAX]), K)
        k = np.int64(0)
        best = 0
        while True:
            if not search_nb(R, G, W, p, bp, n, k, K):
                return a0
            k = K
            best = 1
            for i in range(2, n):
                if RF[RF_SUM, i] < RF[RF_SUM, best]:
                    best = i
            d, se = paired_nb(RF, best, K)
            if d < -bp[BP_MARGIN] and d + bp[BP_Z] * se < 0:
                break
            if d >= 0 or 2 * K > kmax:
                best = 0
                break
            K = 2 * K
        for i in range(n):
            RF[RF_N, i] = K
    if S[S_LOG_ON] != 0:
        b = ev_nb(G, EV_SEARCH, SEARCH_CANDIDATES + SR_SIZE * n)
        LOG = G[G_LOG]
        LOG[b + SEARCH_SEAT] = p
        LOG[b + SEARCH_DECISION] = dec
        LOG[b + SEARCH_ROLLOUTS] = K
        LOG[b + SEARCH_CHOSEN] = best
        LOG[b + SEARCH_MARGIN] = _c100(bp[BP_MARGIN])
        LOG[b + SEARCH_Z] = _c100(bp[BP_Z])
        LOG[b + SEARCH_TIE] = _c100(bp[BP_TIE])
        LOG[b + SEARCH_RACE] = int(race)
        LOG[b + SEARCH_N] = n
        for i in range(n):
            d = 0.0
            se = 0.0
            if i > 0 and RF[RF_N, i] == K:          # played on every sample of the first
                d, se = paired_nb(RF, i, K)
            elif i > 0:                             # dropped by the race earlier
                d = RF[RF_SUM, RF_DROP + i]
                se = RF[RF_DSQ, RF_DROP + i]
            c = b + SEARCH_CANDIDATES + SR_SIZE * i
            LOG[c] = cand[i]
            LOG[c + SR_MEAN] = _c100(RF[RF_SUM, i] / RF[RF_N, i])
            LOG[c + SR_SAMPLES] = int(RF[RF_N, i])
            LOG[c + SR_DIFF] = _c100(d)
            LOG[c + SR_SE] = _c100(se)
    for i in range(n):
        RF[RF_SUM, i] /= RF[RF_N, i]
    return cand[best]
