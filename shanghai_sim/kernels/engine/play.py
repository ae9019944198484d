"""The game as a phase machine over state arrays (docs/rules.md §3-§5), compiled with numba:
applying an action, the list of legal actions, and the state checks.

One engine serves the batch kernel (``engine.play_games_nb``), the step API
(``shanghai_sim.game.Game``) and the replay log: all three call
``apply_action_nb`` on the same state, with bots (``kernels.bots.players``) or
Python code choosing the actions.

The engine by concern (each module imports only those before it):

- ``codes``: phases, actions, events and refusals, declared once (and the action codes);
- ``state``: the state arrays, the event log, cards in and out of a hand;
- ``handmemo``: the deficiency of a hand, through the hand memo;
- ``table``: the stock, table melds, what fits, lay-offs and swaps done and undone;
- ``godown``: going down, and how a turn may end (go_out);
- ``turn``: the checks of lay-offs, swaps and discards on this turn;
- ``flow``: dealing, the upcard and the buy window, turns, the end of a hand;
- ``play`` (here): applying an action, the legal list, the state checks.

Conventions
-----------
Rules come in as the tuple ``R`` of ``RulesArrays`` and the state as the tuple
``G`` of ``layout.new_state``; both are indexed only by the names of
``kernels.base.layout`` (``R.params.go_out``, ``G.table[m, TM_KIND]``), where
every array, its shape and its meaning are listed once (``layout.STATE_SPEC``).

Run positions follow ``kernels.melds.finder``: position p is rank p % 13, 0 = ace
low, 13 = ace high. Card ids follow ``shanghai_sim.cards`` (52 = joker).

Actions are int64 codes of a type, card, meld and opt (``codes.ACTIONS``, built by
``codes.action_nb``, the bit layout in codes.py). opt: lay-off on a run ``OPT_LOW`` /
``OPT_HIGH`` end; lay-off of a joker on a set under set_joker_identity = card: the
declared suit; swap: the slot (run position or set index); go down: ``OPT_FINDER`` (the
meld finder's lay-down) or ``OPT_PROPOSAL`` (the proposal written into GD by the caller).

Events in LOG: ``[type, n, payload(n)]``; payloads are listed in ``codes.EVENTS``.

Refusals: ``apply_action_nb`` leaves the state as it was and returns a reason
(``codes.ERRORS``). Each kind of action has a ``*_check_nb`` (the reason) and a
``*_legal_nb`` (yes or no) that the legal list uses.

Public helpers for bot kernels (``kernels.bots.players`` uses only these): ``legal_list_nb``,
``layoff_list_nb`` (here); ``handmemo.hand_def_nb``/``def_of_nb`` (deficiency of a hand);
``godown.can_go_down_nb``, ``go_down_available_nb``, ``finishable_nb``/
``must_lay_off_last_nb`` (the go_out rule); ``table.card_layable_nb``/``layable_nb``;
``turn.swap_legal_nb``, ``discard_now_nb``; and to try a move and take it back:
``godown.place_proposal_nb``/``unplace_nb``, ``table.do_swap_nb``/``undo_swap_nb``.
"""

import numba as nb
import numpy as np

from ..compile.linking import separate

from ..base.layout import (NRANKS, JOKER, M_CARDS, M_N, NCARDS, PS_BLIND, PS_BUYCARDS, PS_BUYS, PS_DECL0,
    PS_DOWN, PS_DOWNTURN, PS_KNOWN0, PS_N, PS_TURNS, PS_WENTOUT, RUN, SCR_COUNTS, SET, S_ACTOR, S_BO0,
    S_BOUGHT, S_BO_N, S_CAND, S_CHECK, S_DOWN_NOW, S_END_REASON, S_ERR, S_GD_AT, S_HAND, S_JK_PLAYED,
    S_LOG_ON, S_MUST_DOWN, S_NACT, S_NEXT, S_NP, S_NT, S_PHASE, S_PILE_N, S_STOCK_N, S_UP, S_UP_FROM,
    S_UP_ON_PILE, S_WINNER, TM_HI, TM_KEY, TM_KIND, TM_LO, TM_N, TM_NJ, TW)
from ..base.codes import (OPT_HIGH, A_BUY, A_DISCARD, A_DRAW, A_GO_DOWN, A_LAYOFF, A_PASS, A_SWAP, A_TAKE,
                    BUY_CARD, BUY_DUE, BUY_SEAT, BUY_SIZE, DISCARD_CARD, DISCARD_SEAT,
                    DISCARD_SIZE, EV_BUY, EV_DISCARD, EV_GO_DOWN, EV_LAYOFF, EV_OUT, EV_PASS,
                    EV_PENALTY, EV_SWAP, E_CHECK_CONS, E_CHECK_COUNT, E_CHECK_MELD, E_GD_NONE,
                    E_OK, E_PHASE, GO_DOWN_MELD, GO_DOWN_MELDS, GO_DOWN_SEAT, LAYOFF_CARD,
                    LAYOFF_IDENT, LAYOFF_MELD, LAYOFF_SEAT, LAYOFF_SIZE, MR_KEY, MR_KIND, MR_LO,
                    MR_MELD, MR_N, MR_SIZE, OUT_BLIND, OUT_HOW, OUT_JOKERS, OUT_SEAT, OUT_SIZE,
                    PASS_CARD, PASS_SEAT, PASS_SIZE, PASS_WHAT, PENALTY_CARD, PENALTY_SEAT,
                    PENALTY_SIZE, PH_AFTERWIN, PH_BUY, PH_DRAW, PH_ENDHAND, PH_FIRST, PH_OFFER,
                    PH_OVER, PH_PLAY, SWAP_CARD, SWAP_IDENT, SWAP_MELD, SWAP_SEAT, SWAP_SIZE,
                    SWAP_SLOT, a_card, a_meld, a_opt, a_type, action_nb, END_OUT, HOW_DISCARD,
                    HOW_MELDS, OPT_FINDER, OPT_LOW, SOURCE_UPCARD, WHAT_BUY, WHAT_FIRST_REFUSAL)
from .state import _played_public, add_card, ev_nb, rem_card
from .table import do_layoff_nb, do_swap_nb, draw_stock_nb, fit_mask_nb, fits_nb, meld_valid_nb
from .godown import (can_go_down_nb, check_proposal_nb, go_down_available_nb, must_lay_off_last_nb,
                     place_proposal_nb)
from .turn import (discard_check_nb, discard_now_nb, layoff_allowed_now_nb, layoff_check_nb,
                   layoff_legal_nb, swap_allowed_now_nb, swap_check_nb, swap_legal_nb)
from .flow import (_begin_turn, _log_draw, _open_buy, _stock_draw_turn, _stop_hand, _take_upcard,
                   advance_nb)

@nb.njit(cache=True, _nrt=False)
def _go_out(R, G, p, how):
    S = G.s
    G.ps[p, PS_WENTOUT] = 1
    blind = 1 if S[S_DOWN_NOW] != 0 else 0
    G.ps[p, PS_BLIND] = blind
    b = ev_nb(G, EV_OUT, OUT_SIZE)
    if b >= 0:
        G.log[b + OUT_SEAT] = p
        G.log[b + OUT_HOW] = how
        G.log[b + OUT_BLIND] = blind
        G.log[b + OUT_JOKERS] = S[S_JK_PLAYED]
    S[S_WINNER] = p
    S[S_END_REASON] = END_OUT
    S[S_PHASE] = PH_ENDHAND


@separate
@nb.njit(cache=True, _nrt=False)
def _apply_go_down(R, G, p, custom):
    S = G.s
    if custom == OPT_FINDER:
        # the lay-down search is the dear part: reuse the one made for this action
        if S[S_GD_AT] != S[S_NACT] + 1 and not can_go_down_nb(R, G, p):
            return E_GD_NONE
    else:
        code = check_proposal_nb(R, G, p)
        if code != E_OK:
            return code
    h = S[S_HAND]
    nm = R.n_melds[h]
    GD = G.gd
    base = place_proposal_nb(R, G, p, nm)
    for i in range(nm):
        for k in range(GD[i, M_N]):
            c = GD[i, M_CARDS + k]
            rem_card(G, p, c)
            _played_public(G, p, c)
            if c == JOKER:
                S[S_JK_PLAYED] += 1
    PS = G.ps
    PS[p, PS_DOWN] = 1
    PS[p, PS_DOWNTURN] = PS[p, PS_TURNS]
    S[S_DOWN_NOW] = 1
    S[S_MUST_DOWN] = 0
    if S[S_LOG_ON] != 0:
        n = GO_DOWN_MELD
        for i in range(nm):
            n += MR_SIZE + 2 * GD[i, M_N]
        b = ev_nb(G, EV_GO_DOWN, n)
        LOG = G.log
        LOG[b + GO_DOWN_SEAT] = p
        LOG[b + GO_DOWN_MELDS] = nm
        t = b + GO_DOWN_MELD
        for i in range(nm):            # per meld: its record (codes.MELD_RECORD), cards, identities
            m = base + i
            nn = GD[i, M_N]
            LOG[t + MR_MELD] = m
            LOG[t + MR_KIND] = G.table[m, TM_KIND]
            LOG[t + MR_KEY] = G.table[m, TM_KEY]
            LOG[t + MR_LO] = G.table[m, TM_LO]
            LOG[t + MR_N] = nn
            t += MR_SIZE
            for k in range(nn):
                if G.table[m, TM_KIND] == RUN:
                    LOG[t + k] = G.tcards[m, G.table[m, TM_LO] + k]
                    LOG[t + nn + k] = G.table[m, TM_LO] + k
                else:
                    LOG[t + k] = G.tcards[m, k]
                    LOG[t + nn + k] = G.tjokers[m, k]
            t += 2 * nn
    if PS[p, PS_N] == 0:
        _go_out(R, G, p, np.int64(HOW_MELDS))
    return E_OK


# One apply helper per phase (and per action of the play phase), each returning E_OK or
# a refusal with the state unchanged; apply_action_nb dispatches on the phase. They are
# inline="always" like apply_action_nb itself: a call that passes R and G costs a few
# hundred stack words (docs/DEVELOPING.md speed notes), and each has one caller.

@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_first(R, G, p, t):
    """PH_FIRST (docs/rules.md §5.2): the first player takes the upcard or passes it to the
    buy window."""
    S = G.s
    if t == A_TAKE:
        if _begin_turn(R, G, p):
            c = _take_upcard(G, p)
            _log_draw(G, p, SOURCE_UPCARD, c)
            S[S_PHASE] = PH_PLAY
    elif t == A_PASS:
        G.ps[p, PS_DECL0 + S[S_UP]] = G.ps[p, PS_TURNS] + 1
        b = ev_nb(G, EV_PASS, PASS_SIZE)
        if b >= 0:
            G.log[b + PASS_SEAT] = p
            G.log[b + PASS_CARD] = S[S_UP]
            G.log[b + PASS_WHAT] = WHAT_FIRST_REFUSAL
        _open_buy(R, G)
    else:
        return E_PHASE
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_buy_card(R, G, p):
    """A_BUY (docs/rules.md §5.9): the upcard and buy_penalty cards from the stock; a stock
    that runs dry stops the hand."""
    S = G.s
    PS = G.ps
    c = _take_upcard(G, p)
    PS[p, PS_BUYS] += 1
    PS[p, PS_BUYCARDS] += 1
    S[S_BOUGHT] = 1
    pen = R.params.buy_penalty
    b = ev_nb(G, EV_BUY, BUY_SIZE)
    if b >= 0:
        G.log[b + BUY_SEAT] = p
        G.log[b + BUY_CARD] = c
        G.log[b + BUY_DUE] = pen
    stopped = False
    for i in range(pen):
        d = draw_stock_nb(R, G)
        if d < 0:
            stopped = True
            break
        add_card(G, p, d)
        PS[p, PS_BUYCARDS] += 1
        b = ev_nb(G, EV_PENALTY, PENALTY_SIZE)
        if b >= 0:
            G.log[b + PENALTY_SEAT] = p
            G.log[b + PENALTY_CARD] = d
    if stopped:
        _stop_hand(G)
    else:
        S[S_PHASE] = PH_AFTERWIN


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_buy(R, G, p, t):
    """PH_BUY: the candidate seat buys the upcard or passes to the next candidate."""
    S = G.s
    if t == A_BUY:
        _apply_buy_card(R, G, p)
    elif t == A_PASS:
        G.ps[p, PS_DECL0 + S[S_UP]] = G.ps[p, PS_TURNS] + 1
        b = ev_nb(G, EV_PASS, PASS_SIZE)
        if b >= 0:
            G.log[b + PASS_SEAT] = p
            G.log[b + PASS_CARD] = S[S_UP]
            G.log[b + PASS_WHAT] = WHAT_BUY
        S[S_CAND] += 1
        if S[S_CAND] >= S[S_BO_N]:
            S[S_PHASE] = PH_AFTERWIN
        else:
            S[S_ACTOR] = S[S_BO0 + S[S_CAND]]
    else:
        return E_PHASE
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_draw(R, G, p, t):
    """PH_DRAW: a down player takes the unbought upcard or draws from the stock."""
    S = G.s
    if t == A_TAKE:
        c = _take_upcard(G, p)
        _log_draw(G, p, SOURCE_UPCARD, c)
        S[S_PHASE] = PH_PLAY
    elif t == A_DRAW:
        _stock_draw_turn(R, G, p)
    else:
        return E_PHASE
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_layoff(R, G, p, c, m, opt):
    """A_LAYOFF: card c onto table meld m (opt: the run end, or a set joker's suit)."""
    code = layoff_check_nb(R, G, p, c, m, opt)
    if code != E_OK:
        return code
    S = G.s
    do_layoff_nb(R, G, p, c, m, opt)
    _played_public(G, p, c)
    if c == JOKER:
        S[S_JK_PLAYED] += 1
    b = ev_nb(G, EV_LAYOFF, LAYOFF_SIZE)
    if b >= 0:
        G.log[b + LAYOFF_SEAT] = p
        G.log[b + LAYOFF_CARD] = c
        G.log[b + LAYOFF_MELD] = m
        if G.table[m, TM_KIND] == RUN:
            G.log[b + LAYOFF_IDENT] = G.table[m, TM_LO] if opt == OPT_LOW else G.table[m, TM_HI]
        else:
            G.log[b + LAYOFF_IDENT] = G.tjokers[m, G.table[m, TM_N] - 1]
    if G.ps[p, PS_N] == 0:
        _go_out(R, G, p, np.int64(HOW_MELDS))
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_swap(R, G, p, c, m, slot):
    """A_SWAP (docs/rules.md §3 joker_swap): natural c for the joker at slot of meld m."""
    code = swap_check_nb(R, G, p, c, m, slot)
    if code != E_OK:
        return code
    ident = do_swap_nb(G, p, c, m, slot)
    _played_public(G, p, c)
    G.ps[p, PS_KNOWN0 + JOKER] += 1         # every seat saw it take the joker
    if G.ps[p, PS_DOWN] == 0:
        G.s[S_MUST_DOWN] = 1
    b = ev_nb(G, EV_SWAP, SWAP_SIZE)
    if b >= 0:
        G.log[b + SWAP_SEAT] = p
        G.log[b + SWAP_CARD] = c
        G.log[b + SWAP_MELD] = m
        G.log[b + SWAP_SLOT] = slot
        G.log[b + SWAP_IDENT] = ident
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_discard(R, G, p, c):
    """A_DISCARD: card c onto the pile, which ends the turn (or the hand, the last card)."""
    code = discard_check_nb(R, G, p, c)
    if code != E_OK:
        return code
    S = G.s
    rem_card(G, p, c)
    _played_public(G, p, c)
    G.ps[p, PS_DECL0 + c] = G.ps[p, PS_TURNS] + 1
    if c == JOKER:
        S[S_JK_PLAYED] += 1
    G.pile[S[S_PILE_N]] = c
    S[S_PILE_N] += 1
    b = ev_nb(G, EV_DISCARD, DISCARD_SIZE)
    if b >= 0:
        G.log[b + DISCARD_SEAT] = p
        G.log[b + DISCARD_CARD] = c
    if G.ps[p, PS_N] == 0:
        _go_out(R, G, p, np.int64(HOW_DISCARD))
    else:
        S[S_UP] = c
        S[S_UP_ON_PILE] = 1
        S[S_UP_FROM] = p
        S[S_NEXT] = (p + 1) % S[S_NP]
        S[S_PHASE] = PH_OFFER
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_play(R, G, p, a):
    """PH_PLAY: go down, lay off, swap a joker or discard."""
    t = a_type(a)
    if t == A_GO_DOWN:
        return _apply_go_down(R, G, p, a_opt(a))
    if t == A_LAYOFF:
        return _apply_layoff(R, G, p, a_card(a), a_meld(a), a_opt(a))
    if t == A_SWAP:
        return _apply_swap(R, G, p, a_card(a), a_meld(a), a_opt(a))
    if t == A_DISCARD:
        return _apply_discard(R, G, p, a_card(a))
    return E_PHASE


@nb.njit(cache=True, _nrt=False, inline="always")
def apply_action_nb(R, G, a):
    """Apply action code a for the seat S_ACTOR; returns E_OK or an error code (state unchanged)."""
    S = G.s
    ph = S[S_PHASE]
    p = S[S_ACTOR]
    if ph == PH_FIRST:
        code = _apply_first(R, G, p, a_type(a))
    elif ph == PH_BUY:
        code = _apply_buy(R, G, p, a_type(a))
    elif ph == PH_DRAW:
        code = _apply_draw(R, G, p, a_type(a))
    elif ph == PH_PLAY:
        code = _apply_play(R, G, p, a)
    else:
        code = E_PHASE
    if code != E_OK:
        return code
    S[S_NACT] += 1
    advance_nb(R, G)
    if S[S_CHECK] != 0:
        err = check_state_nb(R, G)
        if err != E_OK:
            S[S_ERR] = err
            return err
    return E_OK


# ---------------------------------------------------------------- legal actions

@nb.njit(cache=True, _nrt=False)
def legal_actions_nb(R, G, out):
    """All legal actions of the seat S_ACTOR into out; returns how many.

    Going down is listed once, as the meld finder's least-deadwood lay-down
    (OPT_FINDER); other lay-downs are legal through a GD proposal (OPT_PROPOSAL).
    """
    return legal_list_nb(R, G, out, True)


@separate
@nb.njit(cache=True, _nrt=False)
def legal_list_nb(R, G, out, with_go_down):
    """legal_actions_nb; with_go_down=False leaves going down out (it alone may need
    the lay-down search), for callers that decide it only when they need it."""
    S = G.s
    ph = S[S_PHASE]
    p = S[S_ACTOR]
    n = 0
    if ph == PH_FIRST:
        out[0] = action_nb(A_TAKE, 0, 0, 0)
        out[1] = action_nb(A_PASS, 0, 0, 0)
        return 2
    if ph == PH_BUY:
        out[0] = action_nb(A_BUY, 0, 0, 0)
        out[1] = action_nb(A_PASS, 0, 0, 0)
        return 2
    if ph == PH_DRAW:
        out[0] = action_nb(A_TAKE, 0, 0, 0)
        out[1] = action_nb(A_DRAW, 0, 0, 0)
        return 2
    if ph != PH_PLAY:
        return 0
    H = G.hands
    TM = G.table
    down = G.ps[p, PS_DOWN] != 0
    if with_go_down and not down and go_down_available_nb(R, G, p):
        out[n] = action_nb(A_GO_DOWN, 0, 0, 0)
        n += 1
    if S[S_MUST_DOWN] != 0:
        pass
    elif down and layoff_allowed_now_nb(R, G, p):
        n = layoff_list_nb(R, G, p, out, n, np.int64(0))
    if swap_allowed_now_nb(R, G, p) and H[p, :JOKER].sum() > 0:
        card_id = R.params.set_joker_card != 0
        for m in range(S[S_NT]):
            if TM[m, TM_NJ] == 0:
                continue
            if TM[m, TM_KIND] == RUN:
                for pos in range(TM[m, TM_LO], TM[m, TM_HI] + 1):
                    if G.tcards[m, pos] == JOKER:
                        c = TM[m, TM_KEY] * NRANKS + pos % NRANKS
                        if H[p, c] > 0 and swap_legal_nb(R, G, p, c, m, pos) and n < out.shape[0]:
                            out[n] = action_nb(A_SWAP, c, m, pos)
                            n += 1
            else:
                seen = 0     # jokers standing for the same card are one choice
                for k in range(TM[m, TM_N]):
                    if G.tcards[m, k] != JOKER:
                        continue
                    for s in range(4):
                        if card_id and G.tjokers[m, k] != s:
                            continue
                        if (seen >> s) & 1:
                            continue
                        c = s * NRANKS + TM[m, TM_KEY]
                        if H[p, c] > 0 and swap_legal_nb(R, G, p, c, m, k) and n < out.shape[0]:
                            seen |= 1 << s
                            out[n] = action_nb(A_SWAP, c, m, k)
                            n += 1
    if discard_now_nb(R, G, p):
        for c in range(NCARDS):
            if H[p, c] > 0 and n < out.shape[0]:
                out[n] = action_nb(A_DISCARD, c, 0, 0)
                n += 1
    return n


@separate
@nb.njit(cache=True, _nrt=False)
def layoff_list_nb(R, G, p, out, n, first):
    """Append seat p's legal lay-offs (layoff_legal_nb) to out from n; returns the new n.
    The caller has checked layoff_allowed_now_nb. first: stop after one."""
    H = G.hands
    TM = G.table
    cap = R.joker_cap
    sjc = R.params.set_joker_card
    nt = G.s[S_NT]
    r = G.ps[p, PS_N] - 1
    go = R.params.go_out
    # the hand left after the lay-off can finish the turn without looking further
    plain = r >= 1 and not must_lay_off_last_nb(r, go)
    fm = fit_mask_nb(TM, nt)
    for c in range(NCARDS):
        if H[p, c] == 0 or ((fm >> c) & 1) == 0:
            continue
        for m in range(nt):
            nopt = OPT_HIGH + 1                     # a run: its low or high end
            if TM[m, TM_KIND] == SET:
                nopt = 4 if (c == JOKER and sjc != 0) else 1
            for opt in range(nopt):
                if not fits_nb(TM, cap, sjc, c, m, opt):
                    continue
                if not plain and not layoff_legal_nb(R, G, p, c, m, opt):
                    continue
                if n < out.shape[0]:
                    out[n] = action_nb(A_LAYOFF, c, m, opt)
                    n += 1
                    if first:
                        return n
    return n


# ---------------------------------------------------------------- checks

@separate
@nb.njit(cache=True, _nrt=False)
def check_state_nb(R, G):
    """Card conservation, hand sizes and the validity of every table meld."""
    S = G.s
    if S[S_PHASE] == PH_OVER:
        return E_OK
    params = R.params
    cnt = G.scr[SCR_COUNTS]
    for c in range(NCARDS):
        cnt[c] = 0
    P = S[S_NP]
    for q in range(P):
        n = 0
        for c in range(NCARDS):
            cnt[c] += G.hands[q, c]
            n += G.hands[q, c]
            if G.hands[q, c] < 0:
                return E_CHECK_COUNT
        if n != G.ps[q, PS_N]:
            return E_CHECK_COUNT
    for i in range(S[S_STOCK_N]):
        cnt[G.stock[i]] += 1
    for i in range(S[S_PILE_N]):
        cnt[G.pile[i]] += 1
    for m in range(S[S_NT]):
        if not meld_valid_nb(R, G, m):
            return E_CHECK_MELD
        for k in range(TW):
            c = G.tcards[m, k]
            if c >= 0:
                cnt[c] += 1
    for c in range(JOKER):
        if cnt[c] != params.decks:
            return E_CHECK_CONS
    if cnt[JOKER] != params.jokers:
        return E_CHECK_CONS
    return E_OK
