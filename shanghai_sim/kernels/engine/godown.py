"""Going down (docs/rules.md §3-§4): a proposal placed, checked and taken back, whether
a hand can go down now, and how a turn may end (go_out)."""

import numba as nb
import numpy as np

from ..compile.linking import separate

from ..base.layout import (NRANKS, GO_DISCARD_REQUIRED, GO_NO_DISCARD, JOKER, M_CARDS, M_KEY, M_KIND, M_LO,
    M_N, NCARDS, NTM, PS_DOWN, PS_N, RUN, SCR_PROP_HAND, SCR_PROP_RUNS, SCR_PROP_SETS, SCR_WANT_RUNS,
    SCR_WANT_SETS, SET, S_CGD, S_CGD_AT, S_CUR, S_GD_AT, S_HAND, S_NACT, S_NT, S_PHASE, TM_HI, TM_KEY,
    TM_KIND, TM_LO, TM_N, TM_NJ, TM_OWNER, TW)
from ..melds.finder import laydown_sat_nb, max_laid_nb, runs_touch
from ..base.codes import (E_GD_CARDS, E_GD_COUNT, E_GD_DOWN, E_GD_FINISH, E_GD_GAP, E_GD_MELD, E_GD_SIZE,
                    E_OK, E_PHASE, PH_PLAY)
from .handmemo import contract_nb, hand_def_nb
from .table import card_layable_nb, meld_jokers_nb

# ---------------------------------------------------------------- how a turn ends (go_out)
# The one rule (docs/rules.md §3 go_out) behind every "can this turn still end legally":
# finishable_nb answers it from the number of cards alone; must_lay_off_last_nb marks the
# one case where the cards decide (no_discard, one card left: it must be laid off).

@nb.njit(cache=True, inline="always")
def finishable_nb(r, go):
    """May a turn holding r cards end legally whatever they are? r >= 2: discard one;
    r == 1: discard it and go out, unless no_discard; r == 0: out by melds and lay-offs,
    unless discard_required."""
    if r >= 2:
        return True
    if r == 1:
        return go != GO_NO_DISCARD
    return go != GO_DISCARD_REQUIRED


@nb.njit(cache=True, inline="always")
def must_lay_off_last_nb(r, go):
    """go_out = no_discard with one card left: the turn ends only if that card is laid off."""
    return r == 1 and go == GO_NO_DISCARD


# ---------------------------------------------------------------- going down

@nb.njit(cache=True, _nrt=False)
def _sort_small(a, n):
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@separate
@nb.njit(cache=True, _nrt=False)
def place_proposal_nb(R, G, p, nm):
    """Append the proposal's melds to the table (hand untouched); returns the first index."""
    S = G.s
    TM = G.table
    TC = G.tcards
    TJ = G.tjokers
    GD = G.gd
    GDJ = G.gdj
    card_id = R.params.set_joker_card != 0
    base = S[S_NT]
    for i in range(nm):
        m = base + i
        kind = GD[i, M_KIND]
        n = GD[i, M_N]
        TM[m, TM_OWNER] = p
        TM[m, TM_KIND] = kind
        TM[m, TM_KEY] = GD[i, M_KEY]
        TM[m, TM_N] = n
        nj = 0
        if kind == RUN:
            TM[m, TM_LO] = GD[i, M_LO]
            TM[m, TM_HI] = GD[i, M_LO] + n - 1
            for k in range(n):
                TC[m, GD[i, M_LO] + k] = GD[i, M_CARDS + k]
                if GD[i, M_CARDS + k] == JOKER:
                    nj += 1
        else:
            TM[m, TM_LO] = 0
            TM[m, TM_HI] = 0
            # Suits for jokers under set_joker_identity = card: as declared, else the
            # suits missing among the naturals first, in C D H S order.
            present = 0
            for k in range(n):
                if GD[i, M_CARDS + k] != JOKER:
                    present |= 1 << (GD[i, M_CARDS + k] // NRANKS)
            nxt = 0
            for k in range(n):
                c = GD[i, M_CARDS + k]
                TC[m, k] = c
                TJ[m, k] = -1
                if c == JOKER:
                    nj += 1
                    if card_id:
                        s = GDJ[i, k]
                        if s < 0 or s > 3:
                            s = -1
                            for t in range(4):
                                u = (nxt + t) % 4
                                if (present >> u) & 1 == 0:
                                    s = u
                                    break
                            if s < 0:
                                s = nxt % 4
                            present |= 1 << s
                            nxt = s + 1
                        TJ[m, k] = s
        TM[m, TM_NJ] = nj
    S[S_NT] = base + nm
    return base


@nb.njit(cache=True, _nrt=False)
def unplace_nb(G, base):
    S = G.s
    for m in range(base, S[S_NT]):
        for k in range(TW):
            G.tcards[m, k] = -1
            G.tjokers[m, k] = -1
        for f in range(NTM):
            G.table[m, f] = 0
    S[S_NT] = base


@separate
@nb.njit(cache=True, _nrt=False)
def check_proposal_nb(R, G, p):
    """Is the proposal in GD a legal going down for seat p now? Returns E_OK or an E_GD_* code."""
    S = G.s
    PS = G.ps
    GD = G.gd
    SCR = G.scr
    params = R.params
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p:
        return E_PHASE
    if PS[p, PS_DOWN] != 0:
        return E_GD_DOWN
    h = S[S_HAND]
    nm = R.n_melds[h]
    kinds = R.meld_kind[h]
    sizes = R.meld_size[h]
    exact = params.initial_exact != 0
    # docs/rules.md §4: exactly the contract's melds, each at least (or exactly) its size.
    ns = np.int64(0)
    nr = np.int64(0)
    for i in range(nm):
        if GD[i, M_KIND] == SET:
            SCR[SCR_PROP_SETS, ns] = GD[i, M_N]
            ns += 1
        elif GD[i, M_KIND] == RUN:
            SCR[SCR_PROP_RUNS, nr] = GD[i, M_N]
            nr += 1
        else:
            return E_GD_COUNT
    cs = np.int64(0)
    cr = np.int64(0)
    for i in range(nm):
        if kinds[i] == SET:
            SCR[SCR_WANT_SETS, cs] = sizes[i]
            cs += 1
        else:
            SCR[SCR_WANT_RUNS, cr] = sizes[i]
            cr += 1
    if cs != ns or cr != nr:
        return E_GD_COUNT
    _sort_small(SCR[SCR_PROP_SETS], ns)
    _sort_small(SCR[SCR_PROP_RUNS], nr)
    _sort_small(SCR[SCR_WANT_SETS], cs)
    _sort_small(SCR[SCR_WANT_RUNS], cr)
    for i in range(ns):
        if SCR[SCR_PROP_SETS, i] < SCR[SCR_WANT_SETS, i] or (exact and SCR[SCR_PROP_SETS, i] != SCR[SCR_WANT_SETS, i]):
            return E_GD_SIZE
    for i in range(nr):
        if SCR[SCR_PROP_RUNS, i] < SCR[SCR_WANT_RUNS, i] or (exact and SCR[SCR_PROP_RUNS, i] != SCR[SCR_WANT_RUNS, i]):
            return E_GD_SIZE
    for i in range(nm):
        if meld_jokers_nb(R.joker_cap, GD[i, M_KIND], GD[i, M_KEY], GD[i, M_LO], GD[i, M_N],
                          GD[i], np.int64(M_CARDS), np.bool_(False)) < 0:
            return E_GD_MELD
    # Distinct physical cards from the hand.
    tmp = SCR[SCR_PROP_HAND]
    for c in range(NCARDS):
        tmp[c] = G.hands[p, c]
    used = 0
    for i in range(nm):
        for k in range(GD[i, M_N]):
            c = GD[i, M_CARDS + k]
            tmp[c] -= 1
            used += 1
            if tmp[c] < 0:
                return E_GD_CARDS
    # docs/rules.md §3 same_suit_runs = gap: two runs of one suit must not touch.
    if params.same_suit_gap != 0:
        for i in range(nm):
            if GD[i, M_KIND] != RUN:
                continue
            for j in range(i + 1, nm):
                if GD[j, M_KIND] != RUN or GD[j, M_KEY] != GD[i, M_KEY]:
                    continue
                if runs_touch(GD[i, M_LO], GD[i, M_N], GD[j, M_LO], GD[j, M_N]):
                    return E_GD_GAP
    # The turn must remain finishable (docs/rules.md §3 go_out).
    r = PS[p, PS_N] - used
    go = params.go_out
    if not must_lay_off_last_nb(r, go):
        if not finishable_nb(r, go):
            return E_GD_FINISH
    else:
        if exact:
            return E_GD_FINISH
        last = np.int64(-1)
        for c in range(NCARDS):
            if tmp[c] > 0:
                last = c
        base = place_proposal_nb(R, G, p, nm)
        ok = card_layable_nb(R, G, last)
        unplace_nb(G, base)
        if not ok:
            return E_GD_FINISH
    return E_OK


@nb.njit(cache=True, _nrt=False)
def _try_shrink(R, G, p, nm):
    """The finder's lay-down leaves the turn unfinishable: drop one card from a longer meld."""
    GD = G.gd
    for i in range(nm):
        n = GD[i, M_N]
        if GD[i, M_KIND] == RUN:
            # drop the high end, then the low end
            last = GD[i, M_CARDS + n - 1]
            GD[i, M_N] = n - 1
            if check_proposal_nb(R, G, p) == E_OK:
                return True
            first = GD[i, M_CARDS]
            for k in range(n - 1):
                GD[i, M_CARDS + k] = GD[i, 5 + k]
            GD[i, M_CARDS + n - 1] = last
            GD[i, M_LO] += 1
            if check_proposal_nb(R, G, p) == E_OK:
                return True
            for k in range(n - 1, 0, -1):
                GD[i, M_CARDS + k] = GD[i, 3 + k]
            GD[i, M_CARDS] = first
            GD[i, M_LO] -= 1
            GD[i, M_N] = n
        else:
            # drop a natural or a joker (moved to the end first)
            for want_joker in range(2):
                k = -1
                for t in range(n):
                    if (GD[i, M_CARDS + t] == JOKER) == (want_joker == 1):
                        k = t
                if k < 0:
                    continue
                c = GD[i, M_CARDS + k]
                GD[i, M_CARDS + k] = GD[i, M_CARDS + n - 1]
                GD[i, M_CARDS + n - 1] = c
                GD[i, M_N] = n - 1
                if check_proposal_nb(R, G, p) == E_OK:
                    return True
                GD[i, M_N] = n
                GD[i, M_CARDS + n - 1] = GD[i, M_CARDS + k]
                GD[i, M_CARDS + k] = c
    return False


@nb.njit(cache=True, _nrt=False, inline="always")
def _may_go_down(R, G, p):
    """Seat p is in turn, not down, and its hand meets the contract (deficiency 0)."""
    S = G.s
    if G.ps[p, PS_DOWN] != 0 or S[S_PHASE] != PH_PLAY or S[S_CUR] != p:
        return False
    return hand_def_nb(R, G, p) == 0


@separate(returns=nb.boolean)
@nb.njit(cache=True, _nrt=False)
def can_go_down_nb(R, G, p):
    """Write the meld finder's least-deadwood lay-down into GD; True if it is legal now."""
    S = G.s
    S[S_GD_AT] = 0
    if not _may_go_down(R, G, p):
        return False
    params = R.params
    h = S[S_HAND]
    nm = R.n_melds[h]
    LD = G.ld
    GD = G.gd
    rc = laydown_sat_nb(G.hands[p], contract_nb(R, h), R.points, LD)
    if rc < 0:
        return False
    for i in range(nm):
        n = LD[i, M_N]
        for k in range(4 + n):
            GD[i, k] = LD[i, k]
        for k in range(TW):
            G.gdj[i, k] = -1
    code = check_proposal_nb(R, G, p)
    ok = code == E_OK or (code == E_GD_FINISH and _try_shrink(R, G, p, nm))
    if ok:
        S[S_GD_AT] = S[S_NACT] + 1
    return ok


@separate(returns=nb.boolean)
@nb.njit(cache=True, _nrt=False)
def go_down_possible_nb(R, G, p):
    """can_go_down_nb's answer for seat p's hand as it is now, which may be a hand with a
    joker swap tried (swap_legal_nb). GD is not kept: S_GD_AT is cleared if it was used.

    A satisfiable hand always has the finder's lay-down, and check_proposal_nb can
    then refuse it only by its go_out test on the r cards left. Under `exact` r is the
    hand less the contract's cards, so that decides; under `at_least` r lies between
    the hand less max_laid_nb and the hand less the contract's cards, and when every
    r in that range ends the turn whatever the cards, the search is not needed.
    """
    S = G.s
    if not _may_go_down(R, G, p):
        return False
    params = R.params
    h = S[S_HAND]
    nm = R.n_melds[h]
    kinds = R.meld_kind[h]
    sizes = R.meld_size[h]
    go = params.go_out
    exact = params.initial_exact != 0
    n = G.ps[p, PS_N]
    need = 0
    for i in range(nm):
        need += sizes[i]
    if exact:
        return finishable_nb(n - need, go)
    r_lo = n - max_laid_nb(G.hands[p], kinds, nm)
    if r_lo < 0:
        r_lo = 0
    ok = True
    for r in range(r_lo, min(n - need, 2) + 1):
        if not finishable_nb(r, go):
            ok = False
    if ok:
        return True
    ok = can_go_down_nb(R, G, p)
    S[S_GD_AT] = 0
    return ok


@nb.njit(cache=True, _nrt=False, inline="always")
def go_down_available_nb(R, G, p):
    """can_go_down_nb, cached per action (the state does not change between actions).
    Inlined: most calls are answered by the cache or by the deficiency (hand memo), and
    only a hand that meets the contract calls out to the lay-down search."""
    S = G.s
    if S[S_CGD_AT] == S[S_NACT] + 1:
        return S[S_CGD] != 0
    if _may_go_down(R, G, p):
        ok = can_go_down_nb(R, G, p)
    else:
        S[S_GD_AT] = 0           # as can_go_down_nb leaves it when it says no
        ok = False
    S[S_CGD_AT] = S[S_NACT] + 1
    S[S_CGD] = 1 if ok else 0
    return ok
