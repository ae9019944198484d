"""The search's sampler: a world consistent with what one seat has seen (``kernels.search``).

A sample deals the cards seat p has not seen (``unseen_pool_nb``: the shoe less its own hand,
the pile, the table and the cards the other seats are known to hold, ``PS_KNOWN0``) to the
other hands (each keeps its size and its known cards) and to the stock: ``sample_pool_nb``
shuffles them and reorders them so that the other hands are ones their players could have
kept (``fit_hands_nb``, with ``decline_fit_nb`` and ``unready_nb``) and a down player holds no
card it could lay off (``nolay_nb``); ``playout.load_sample_nb`` then deals the pool in order.

Everything here reads the seat's view only: its own hand, the public rows (sizes, known and
declined cards, turns, who is down), the pile and the table. No function of this module
reads another seat's hand or the stock (``tests/test_oracle_diagnostic.py`` checks it): the
diagnostic that deals the true cards is ``kernels.search.oracle``, which nothing honest imports.
"""

import numba as nb
import numpy as np

from ..bots.players import _contract_kinds, _mates, unseen_counts_nb
from ..bots.params import BP_DECL, BP_FIT, BP_UNREADY
from ..base.layout import (JOKER, NCARDS, PS_DECL0, PS_DOWN, PS_KNOWN0, PS_N, PS_TURNS, SCR_CAND, SCR_TMP,
    SCR_UNSEEN, S_NP, S_NT, S_STOCK_N)
from ..engine.table import fit_mask_nb, layable_nb
from ..engine.handmemo import def_of_nb
from ..base.rng import randint_nb, shuffle_nb


@nb.njit(cache=True, _nrt=False, inline="always")
def hidden_cards_nb(PS, q):
    """How many of seat q's cards nobody else knows: its hand size less the cards it is
    known to hold (PS_KNOWN0; taken from the pile or bought, not played since)."""
    hidden = PS[q, PS_N]
    for c in range(NCARDS):
        hidden -= PS[q, PS_KNOWN0 + c]
    return hidden


@nb.njit(cache=True, _nrt=False)
def unseen_pool_nb(R, V, p, pool):
    """Write into pool the cards seat p has not seen (the shoe less its hand, the pile,
    the table and the cards other seats are known to hold), in card order; returns how
    many, or -1 if they do not add up to the other seats' hidden cards plus the stock.
    Reads nothing another seat hides."""
    S = V.s
    PS = V.ps
    unseen_counts_nb(R, V, p)
    U = V.scr[SCR_UNSEEN]
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
def decline_fit_nb(R, V, q, pool, k, end, lo, npool, decl, rng, tmp):
    """Seat q's draw pool[k:end] (its counts, known cards included, in tmp) against what
    q threw or refused: a card c it discarded, passed as the upcard offered on its turn, or
    did not buy, in its last decl turns (PS_DECL0, public) says that its hand had no use
    for c. If the drawn hand would keep c (c in place of one of its cards, never a joker,
    lowers its deficiency), one of its drawn cards that partners c (same rank, or same
    suit within two, as the contract's kinds go) swaps places with a card of pool[lo:npool]
    (the stock's part) that does not, at random, up to three times; then the next
    declined card."""
    PS = V.ps
    if lo >= npool:
        return
    has_set, has_run = _contract_kinds(R, V)
    d0 = def_of_nb(R, V, tmp)
    now = PS[q, PS_TURNS] + 1
    for c in range(JOKER):
        v = PS[q, PS_DECL0 + c]
        if v == 0 or now - v >= decl:
            continue
        m = _mates(c, has_set, has_run)
        for _ in range(3):
            # would q keep c? c in place of one of its cards lowers its deficiency
            tmp[c] += 1
            keep = def_of_nb(R, V, tmp) < d0
            if keep:
                keep = False
                for x in range(JOKER):
                    if x != c and tmp[x] > 0:
                        tmp[x] -= 1
                        d = def_of_nb(R, V, tmp)
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
                    d0 = def_of_nb(R, V, tmp)
                    break


@nb.njit(cache=True, _nrt=False)
def unready_nb(R, V, q, pool, k, end, npool, rng, tmp):
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
        if def_of_nb(R, V, tmp) == 0:
            tmp[x] += 1
            continue
        j = end + randint_nb(rng, npool - end)
        y = pool[j]
        tmp[y] += 1
        if def_of_nb(R, V, tmp) == 0:
            tmp[y] -= 1
            tmp[x] += 1
            continue
        pool[i] = y
        pool[j] = x
        return


@nb.njit(cache=True, _nrt=False)
def layable_mask_nb(R, V):
    """The natural cards that fit some meld on the table, as a mask of bits 0..51."""
    TM = V.table
    nt = V.s[S_NT]
    cap = R.joker_cap
    sjc = R.params.set_joker_card
    fm = fit_mask_nb(TM, nt)
    lm = np.int64(0)
    for c in range(JOKER):
        if ((fm >> c) & 1) != 0 and layable_nb(TM, nt, cap, sjc, c):
            lm |= np.int64(1) << c
    return lm


@nb.njit(cache=True, _nrt=False)
def nolay_nb(V, p, pool, npool, rng, lm):
    """Reorder the pool so that load_sample_nb deals no seat that is down a natural card it
    could lay off on the table: a player who is down lays off all it can at its turn
    (measured on games of smart: 6% of a down player's cards fit the table, mostly from
    melds laid since its turn, against 22% of a uniform sample's under ``shanghai``, so
    the playouts' down players went out too fast). Each such card swaps places with a
    stock card (pool[nhid:npool]) that fits no meld, at random, up to eight tries. lm: the
    table's layable_mask_nb, the same for every sample of a search."""
    S = V.s
    PS = V.ps
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
def fit_hands_nb(R, V, p, pool, npool, fit, decl, rng, tmp, spare, unready):
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
    S = V.s
    PS = V.ps
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
                decline_fit_nb(R, V, q, pool, k, end, max(end, nhid), npool, decl, rng, tmp)
            # Losing a card never lowers a hand's deficiency (docs/rules.md §6: the hand
            # with it meets whatever the hand without it meets), so the first card whose
            # loss keeps the deficiency dcur is the first of the least: no need to try the rest.
            dcur = def_of_nb(R, V, tmp) if e > 0 else np.int64(0)
            for r in range(e):
                best = -1
                bd = np.int64(1) << 40
                for c in range(JOKER):
                    if tmp[c] > PS[q, PS_KNOWN0 + c]:
                        tmp[c] -= 1
                        d = def_of_nb(R, V, tmp)
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
                unready_nb(R, V, q, pool, k, k + hidden, npool, rng, tmp)
        k += hidden


@nb.njit(cache=True, _nrt=False, inline="always")
def sample_pool_nb(R, V, W, p, bp, pool, npool, rng, lm):
    """One sample of what seat p has not seen: pool[:npool] (``unseen_pool_nb``'s cards)
    shuffled from the seat's bot stream ``rng``, then fitted to the other hands (``fit=``,
    ``decl=``, ``unready=``) and to the table (``nolay=``: lm, the table's
    ``layable_mask_nb``, 0 when off): the order ``playout.load_sample_nb`` deals."""
    shuffle_nb(rng, pool, npool)
    fit = int(bp[BP_FIT])
    decl = int(bp[BP_DECL])
    if fit > 0 or decl > 0:
        fit_hands_nb(R, V, p, pool, npool, fit, decl, rng, W.scr[SCR_TMP], W.scr[SCR_CAND],
                     int(bp[BP_UNREADY]))
    if lm != 0:
        nolay_nb(V, p, pool, npool, rng, lm)
