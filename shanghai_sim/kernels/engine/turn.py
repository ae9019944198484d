"""What a seat may do on this turn: lay-offs, swaps and discards, each as a
``*_check_nb`` (the refusal reason, ``codes.ERRORS``) and a ``*_legal_nb`` (yes or no)."""

import numba as nb
import numpy as np

from ..compile.linking import separate

from ..base.layout import (JOKER, NCARDS, PS_DOWN, PS_N, SWAP_DOWN_ONLY, S_CUR, S_DOWN_NOW, S_MUST_DOWN,
    S_NT, S_PHASE)
from ..base.codes import E_CARD, E_FINISH, E_NOT_NOW, E_NO_FIT, E_NO_MELD, E_OK, E_SWAP_DEF, PH_PLAY
from .handmemo import hand_def_nb
from .table import (card_layable_nb, do_layoff_nb, do_swap_nb, layoff_struct_nb, swap_struct_nb,
                    undo_layoff_nb, undo_swap_nb)
from .godown import finishable_nb, go_down_possible_nb, must_lay_off_last_nb
from .state import def_restore_nb, def_saved_nb

# ---------------------------------------------------------------- turn rules

@nb.njit(cache=True, _nrt=False, inline="always")
def layoff_allowed_now_nb(R, G, p):
    """docs/rules.md §4: only a player who is down, on their own turn; not on the going-down turn under exact."""
    S = G.s
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p or G.ps[p, PS_DOWN] == 0:
        return False
    if R.params.initial_exact != 0 and S[S_DOWN_NOW] != 0:
        return False
    return True


@nb.njit(cache=True, _nrt=False)
def can_finish_nb(R, G, p):
    """Can seat p still end this turn legally (docs/rules.md §3 go_out)?"""
    r = G.ps[p, PS_N]
    go = R.params.go_out
    if not must_lay_off_last_nb(r, go):
        return finishable_nb(r, go)
    if not layoff_allowed_now_nb(R, G, p):
        return False
    for c in range(NCARDS):
        if G.hands[p, c] > 0:
            return card_layable_nb(R, G, c)
    return False


@nb.njit(cache=True, _nrt=False)
def layoff_legal_nb(R, G, p, c, m, opt):
    return layoff_check_nb(R, G, p, c, m, opt) == E_OK


@nb.njit(cache=True, _nrt=False)
def layoff_check_nb(R, G, p, c, m, opt):
    """E_OK if seat p may lay card c off on meld m at opt now, else the reason."""
    if not layoff_allowed_now_nb(R, G, p):
        return E_NOT_NOW
    if c < 0 or c > JOKER or G.hands[p, c] <= 0:
        return E_CARD
    if m < 0 or m >= G.s[S_NT]:
        return E_NO_MELD
    if not layoff_struct_nb(R, G, c, m, opt):
        return E_NO_FIT
    r = G.ps[p, PS_N] - 1
    go = R.params.go_out
    if not must_lay_off_last_nb(r, go):
        return E_OK if finishable_nb(r, go) else E_FINISH
    saved = def_saved_nb(G, p)
    do_layoff_nb(R, G, p, c, m, opt)
    ok = can_finish_nb(R, G, p)
    undo_layoff_nb(R, G, p, c, m, opt)
    def_restore_nb(G, p, saved)
    return E_OK if ok else E_FINISH


@nb.njit(cache=True, _nrt=False)
def swap_allowed_now_nb(R, G, p):
    S = G.s
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p:
        return False
    if R.params.joker_swap == SWAP_DOWN_ONLY:
        return G.ps[p, PS_DOWN] != 0 and S[S_DOWN_NOW] == 0
    return True


@nb.njit(cache=True, _nrt=False)
def swap_legal_nb(R, G, p, c, m, slot):
    return swap_check_nb(R, G, p, c, m, slot) == E_OK


@separate
@nb.njit(cache=True, _nrt=False)
def swap_check_nb(R, G, p, c, m, slot):
    """E_OK if seat p may put card c in place of the joker at slot of meld m now, else the reason."""
    if not swap_allowed_now_nb(R, G, p):
        return E_NOT_NOW
    if c < 0 or c >= JOKER or G.hands[p, c] <= 0:
        return E_CARD
    if m < 0 or m >= G.s[S_NT]:
        return E_NO_MELD
    if not swap_struct_nb(R, G, c, m, slot):
        return E_NO_FIT
    PS = G.ps
    if PS[p, PS_DOWN] == 0 and hand_def_nb(R, G, p) >= 2:
        # going down after the swap needs deficiency 0, and trading a natural for a
        # joker lowers the deficiency by at most one
        return E_SWAP_DEF
    saved = def_saved_nb(G, p)
    ident = do_swap_nb(G, p, c, m, slot)
    if PS[p, PS_DOWN] != 0:
        ok = can_finish_nb(R, G, p)
    else:
        # joker_swap = anyone, not yet down: only as part of going down this turn.
        ok = go_down_possible_nb(R, G, p)
    undo_swap_nb(G, p, c, m, slot, ident)
    def_restore_nb(G, p, saved)
    if ok:
        return E_OK
    return E_FINISH if PS[p, PS_DOWN] != 0 else E_SWAP_DEF


@nb.njit(cache=True, _nrt=False)
def discard_now_nb(R, G, p):
    """May seat p end its turn now by discarding one of its cards?"""
    return discard_check_nb(R, G, p, np.int64(-1)) == E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def discard_check_nb(R, G, p, c):
    """E_OK if seat p may discard card c now (c = -1: some card), else the reason."""
    S = G.s
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p or S[S_MUST_DOWN] != 0:
        return E_NOT_NOW
    if c >= 0 and (c > JOKER or G.hands[p, c] <= 0):
        return E_CARD
    n = G.ps[p, PS_N]
    if n < 2 and not finishable_nb(n, R.params.go_out):
        return E_FINISH
    return E_OK


@nb.njit(cache=True, _nrt=False)
def discard_legal_nb(R, G, p, c):
    if c < 0:
        return False
    return discard_check_nb(R, G, p, c) == E_OK
