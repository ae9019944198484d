"""The game as a phase machine over state arrays (docs/rules.md §3-§5), compiled with numba.

One engine serves the batch kernel (``engine.play_games_nb``), the step API
(``shanghai_sim.game.Game``) and the replay log: all three call
``apply_action_nb`` on the same state, with bots (``kernels.bots``) or
Python code choosing the actions.

Conventions
-----------
Rules come in as the tuple ``R`` of ``RulesArrays`` and the state as the tuple
``G`` of ``layout.new_state``; both are indexed only by the names of
``kernels.layout`` (``R[R_PARAMS][P_GO_OUT]``, ``G[G_TABLE][m, TM_KIND]``), where
every array, its shape and its meaning are listed once (``layout.STATE_SPEC``).

Run positions follow ``kernels.melds``: position p is rank p % 13, 0 = ace
low, 13 = ace high. Card ids follow ``shanghai_sim.cards`` (52 = joker).

Actions are int64 codes: ``type | card << 4 | meld << 10 | opt << 17``
(see A_* and ``action_nb``). opt: lay-off on a run 0 = low end, 1 = high
end; lay-off of a joker on a set under set_joker_identity = card: the
declared suit; swap: the slot (run position or set index); go down: 0 = the
meld finder's lay-down, 1 = the proposal written into GD by the caller.

Events in LOG: ``[type, n, payload(n)]``; payloads are listed at EV_*.

Refusals: ``apply_action_nb`` leaves the state as it was and returns a reason (E_*):
E_PHASE (not an action of this phase), E_CARD, E_NOT_NOW, E_NO_MELD, E_NO_FIT,
E_FINISH (go_out), E_SWAP_DEF, and E_GD_* for going down. Each kind of action has a
``*_check_nb`` (the reason) and a ``*_legal_nb`` (yes or no) that the legal list uses.

Public helpers for bot kernels (``kernels.bots`` uses only these): ``legal_list_nb``,
``hand_def_nb``/``def_of_nb`` (deficiency of a hand), ``can_go_down_nb``,
``go_down_available_nb``, ``card_layable_nb``/``layable_nb``, ``layoff_list_nb``,
``swap_legal_nb``, ``discard_now_nb``, ``finishable_nb``/``must_lay_off_last_nb`` (the
go_out rule), and to try a move and take it back: ``place_proposal_nb``/``unplace_nb``,
``do_swap_nb``/``undo_swap_nb``.
"""

import numba as nb
import numpy as np

from .layout import (G_BUF, G_GD, G_GDJ, G_HANDS, G_LD, G_LOG, G_MKEYS, G_MN, G_MSCR, G_MVALS,
                     G_PILE, G_PS, G_REC, G_RNG, G_S, G_SCR, G_STOCK, G_TABLE, G_TCARDS,
                     G_TJOKERS, G_WT, G_HMEMO, GO_DISCARD_REQUIRED, GO_EITHER, GO_NO_DISCARD, JOKER,
                     LAY_W, M_CARDS, M_KEY, M_KIND, M_LO, M_N, MAX_MELDS, MAXLEGAL, MAXP, MAXT,
                     NCARDS, NPS, NRNG, NS, NSCR, NTM, P_BLIND_JOKER, P_BLIND_NO_JOKER,
                     P_BUY_PENALTY, P_BUY_PRIORITY, P_DECKS, P_DOWN_MAY_BUY, P_GO_OUT,
                     P_INITIAL_EXACT, P_JOKER_SWAP, P_JOKERS, P_MAX_HAND_TURNS,
                     P_MAX_STOCK_PASSES, P_NHANDS, P_PLAYERS, P_SAME_SUIT_GAP, P_SET_JOKER_CARD,
                     PS_BLIND, PS_BUYCARDS, PS_BUYS, PS_DEF, PS_DEFOK, PS_DOWN, PS_DECL0, PS_DOWNTURN, PS_KNOWN0, PS_TOOK,
                     PS_N, PS_POINTS, PS_TOTAL, PS_TURNS, PS_WENTOUT, PW, R_BUYS, R_DEAL,
                     R_JOKER_CAP, R_MELD_KIND, R_MELD_SIZE, R_N_MELDS, R_PARAMS, R_POINTS,
                     RNG_BOT0, RNG_DEAL, RNG_SEED, RUN, S_ACTOR, S_BO0, S_BO_N, S_BOUGHT, S_CAND,
                     S_CGD, S_CGD_AT, S_CHECK, S_CUR, S_DEALER, S_DOWN_NOW, S_END_REASON, S_ERR,
                     S_FIRST_DEALER, S_GD_AT, S_HALT, S_HAND, S_HANDS_DONE, S_JK_PLAYED, S_LOG_N,
                     S_LOG_ON, S_MUST_DOWN, S_NACT, S_NEXT, S_NP, S_NT, S_PASSES, S_PHASE,
                     S_PILE_N, S_SHOE, S_STOCK_N, S_TURNS, S_UP, S_UP_FROM, S_UP_ON_PILE, S_WINNER,
                     SCR_COUNTS, SCR_PROP_HAND, SCR_PROP_RUNS, SCR_PROP_SETS, SCR_W,
                     SCR_WANT_RUNS, SCR_WANT_SETS, SET, SWAP_ANYONE, SWAP_DOWN_ONLY, TM_HI,
                     TM_KEY, TM_KIND, TM_LO, TM_N, TM_NJ, TM_OWNER, TW, new_state)  # noqa: F401
from .layout import CACHE_BITS, FP, HM_BITS, MEMO_T, NPOS, SCRATCH, WT_SIZES, WT_W
from .melds import INF, deficiency_in_nb, laydown_sat_nb, max_laid_nb, memo_trim_nb, runs_touch
from .records import (HF_BLIND, HF_BUY_CARDS, HF_BUYS, HF_CARDS_LEFT, HF_DEALER, HF_DOWN_TURN,
                      HF_JOKERS_LEFT, HF_POINTS, HF_STOCK_PASSES, HF_TURNS, HF_WENT_OUT,
                      HF_STOPPED, NHF)
from .rng import game_seed_nb, randint_nb, seed_state_nb, shuffle_nb

# ---------------------------------------------------------------- phases
PH_FIRST = 0      # decision: the next player (not down) takes the upcard or passes
PH_BUY = 1        # decision: the buy candidate S_BO0 + S_CAND claims or passes
PH_DRAW = 2       # decision: a down player in turn takes the unbought upcard or draws
PH_PLAY = 3       # decision: go down, lay off, swap, discard
PH_OVER = 4       # game over
PH_NEWHAND = 5    # automatic phases
PH_OFFER = 6
PH_OPENBUY = 7
PH_AFTERWIN = 8
PH_ENDHAND = 9

# ---------------------------------------------------------------- actions
A_DRAW = 0        # draw from the stock
A_TAKE = 1        # take the upcard as one's draw
A_PASS = 2        # refuse the upcard (first refusal) or do not buy
A_BUY = 3         # claim the upcard with its penalty cards
A_GO_DOWN = 4
A_LAYOFF = 5
A_SWAP = 6
A_DISCARD = 7

# ---------------------------------------------------------------- events
EV_HAND = 1       # hand, dealer, first player
EV_DEAL = 2       # seat, n, cards(n)
EV_UPCARD = 3     # card
EV_DRAW = 4       # seat, source (0 stock, 1 upcard), card
EV_PASS = 5       # seat, card, what (0 refused first refusal, 1 did not buy)
EV_BUY = 6        # seat, card, penalty cards due
EV_PENALTY = 7    # seat, card (one penalty card from the stock)
EV_GO_DOWN = 8    # seat, melds, then per meld: table index, kind, rank/suit, lo, n,
                  #   cards(n), identity(n) (run: position; set: declared suit or -1)
EV_LAYOFF = 9     # seat, card, meld, identity (run: position; set: declared suit or -1)
EV_SWAP = 10      # seat, card, meld, slot, identity of the joker (run: position; set: suit or -1)
EV_DISCARD = 11   # seat, card
EV_RESHUFFLE = 12  # pass number, cards reshuffled, upcard kept on the pile (card or -1)
EV_OUT = 13       # seat, how (0 melds/lay-offs, 1 discard), blind, jokers played that turn
EV_HAND_END = 14  # winner (-1 none), reason (0 out, 1 stock, 2 turn cap), scores(P), totals(P)
EV_GAME_END = 15  # totals(P)

# ---------------------------------------------------------------- errors (apply)
E_OK = 0
E_PHASE = 1       # action not of this phase
E_CARD = 2        # card not in hand
E_NOT_NOW = 4     # not on this turn: lay-off when not down (or on the going-down turn under
                  #   exact), swap under joker_swap = down_only, discard before going down
E_NO_MELD = 5     # no such table meld
E_NO_FIT = 6      # the card does not fit that meld there (docs/rules.md §4, joker_limit)
E_FINISH = 7      # the turn could not be finished afterwards (go_out)
E_SWAP_DEF = 8    # a swap by a player not down that could not be followed by going down
E_GD_DOWN = 10    # already down
E_GD_COUNT = 11   # melds do not match the contract
E_GD_SIZE = 12    # a meld size does not match (at_least / exact)
E_GD_MELD = 13    # a meld is not valid
E_GD_CARDS = 14   # cards not in hand
E_GD_GAP = 15     # same-suit runs touch (same_suit_runs = gap)
E_GD_FINISH = 16  # the turn could not be finished afterwards (go_out)
E_GD_NONE = 18    # going down with the finder's lay-down: the hand has none that is legal now
E_CHECK_CONS = 20  # card conservation broken
E_CHECK_MELD = 21  # invalid table meld
E_CHECK_COUNT = 22  # hand size bookkeeping broken


@nb.njit(cache=True, inline="always")
def action_nb(t, card, meld, opt):
    return t | (card << 4) | (meld << 10) | (opt << 17)


@nb.njit(cache=True, inline="always")
def a_type(a):
    return a & 15


@nb.njit(cache=True, inline="always")
def a_card(a):
    return (a >> 4) & 63


@nb.njit(cache=True, inline="always")
def a_meld(a):
    return (a >> 10) & 127


@nb.njit(cache=True, inline="always")
def a_opt(a):
    return a >> 17


# ---------------------------------------------------------------- state

@nb.njit(cache=True, _nrt=True)
def game_arrays_nb(params, log_size):
    """The game arrays of layout.STATE_SPEC (G_S..G_BUF) written out in its order: the
    start of a state (new_state_nb) and of the rollout bot's workspace
    (rollout.new_workspace_nb); tests/test_layout.py checks both against their specs."""
    shoe = 52 * params[P_DECKS] + params[P_JOKERS]
    hands = params[P_NHANDS]
    S = np.zeros(NS, np.int64)
    S[S_SHOE] = shoe
    S[S_NP] = params[P_PLAYERS]
    TC = np.full((MAXT, TW), -1, np.int64)
    TJ = np.full((MAXT, TW), -1, np.int64)
    GDJ = np.full((MAX_MELDS, TW), -1, np.int64)
    return (S, np.zeros((MAXP, NPS), np.int64), np.zeros((MAXP, NCARDS), np.int64),
            np.zeros(shoe, np.int64), np.zeros(shoe, np.int64),
            np.zeros((MAXT, NTM), np.int64), TC, TJ, np.zeros((MAX_MELDS, PW), np.int64),
            GDJ, np.zeros((NRNG, 4), np.uint64),
            np.zeros(max(log_size, 1), np.int64), np.zeros((hands, MAXP, NHF), np.int32),
            np.zeros((NSCR, SCR_W), np.int64), np.zeros((MAX_MELDS, LAY_W), np.int64),
            np.zeros(MAXLEGAL, np.int64))


@nb.njit(cache=True, _nrt=True)
def new_state_nb(params, log_size):
    """``layout.new_state`` inside numba (for the batch kernel): the game arrays, then the
    meld finder's memo (layout.CACHE_SPEC), then the hand memo (def_of_nb)."""
    return game_arrays_nb(params, log_size) + (
        np.zeros(1 << CACHE_BITS, np.int64),
        np.zeros((1 << CACHE_BITS, MEMO_T, FP, 2), np.int16),
        np.zeros((1 << CACHE_BITS, MEMO_T), np.int8), np.zeros(SCRATCH, np.int64),
        np.zeros((WT_SIZES << NPOS, WT_W), np.int32), np.zeros((1 << HM_BITS, 4), np.int64))


@nb.njit(cache=True, _nrt=False, inline="always")
def ev_nb(G, t, n):
    """Open an event of type t with n payload ints; returns where to write, or -1 if not logging."""
    S = G[G_S]
    LOG = G[G_LOG]
    if S[S_LOG_ON] == 0:
        return -1
    k = S[S_LOG_N]
    if k + 2 + n > LOG.shape[0]:
        raise ValueError("event log full: raise log_size")
    LOG[k] = t
    LOG[k + 1] = n
    S[S_LOG_N] = k + 2 + n
    return k + 2


@nb.njit(cache=True, inline="always")
def add_card(G, p, c):
    G[G_HANDS][p, c] += 1
    G[G_PS][p, PS_N] += 1
    # PS_DEF known (1): it is now the deficiency of the hand less one card (2), which
    # bounds the hand's (hand_def_nb); anything else: unknown (0)
    G[G_PS][p, PS_DEFOK] = 2 if G[G_PS][p, PS_DEFOK] == 1 else 0


@nb.njit(cache=True, inline="always")
def rem_card(G, p, c):
    G[G_HANDS][p, c] -= 1
    G[G_PS][p, PS_N] -= 1
    G[G_PS][p, PS_DEFOK] = 0


@nb.njit(cache=True, inline="always")
def _played_public(G, p, c):
    """Seat p played card c for real (discard, meld, lay-off, swap): a copy it was known
    to hold (PS_KNOWN0) is now accounted for."""
    if G[G_PS][p, PS_KNOWN0 + c] > 0:
        G[G_PS][p, PS_KNOWN0 + c] -= 1


# hand_def_nb and def_of_nb are inlined where they are called: a call passes the R and G
# tuples (a few hundred words on the stack, docs/DEVELOPING.md speed notes), which cost as
# much as the hand memo's answer; only a memo miss calls out, to the meld finder.
@nb.njit(cache=True, _nrt=False, inline="always")
def hand_def_nb(R, G, p):
    """docs/rules.md §6 deficiency of seat p's hand for this hand's contract (cached).

    PS_DEFOK 1: PS_DEF is it; 2: PS_DEF is the deficiency of the hand less the card just
    added (add_card), so the hand's is PS_DEF - 1 or PS_DEF (def_in_nb); 0: unknown."""
    PS = G[G_PS]
    k = PS[p, PS_DEFOK]
    if k == 1:
        return PS[p, PS_DEF]
    lo = np.int64(0)
    hi = np.int64(INF)
    if k == 2:
        hi = PS[p, PS_DEF]
        lo = hi - 1 if hi > 0 else hi
    d = def_in_nb(R, G, G[G_HANDS][p], lo, hi)
    PS[p, PS_DEF] = d
    PS[p, PS_DEFOK] = 1
    return d


def _hm_weights():
    """_HM_W[k] @ counts packs a hand into the hand memo's key word k: 3 bits a natural
    (words 0 and 1: 21 naturals each, word 2: the last 10), the jokers from bit 30 of word 2."""
    w = np.zeros((3, NCARDS), np.int64)
    for c in range(JOKER):
        w[c // 21, c] = 1 << (3 * (c % 21))
    w[2, JOKER] = 1 << 30
    return w


_HM_W = _hm_weights()

# The hand memo's hash: odd 64-bit multipliers (as int64; products wrap)
_HM_M0 = np.int64(-7046029254386353131)     # 0x9E3779B97F4A7C15
_HM_M1 = np.int64(-4658895280553007687)     # 0xBF58476D1CE4E5B9
_HM_M2 = np.int64(-7723592293110705685)     # 0x94D049BB133111EB


@nb.njit(cache=True, _nrt=False, inline="always")
def def_of_nb(R, G, counts):
    """docs/rules.md §6 deficiency of the hand ``counts`` for this hand's contract (def_in_nb)."""
    return def_in_nb(R, G, counts, np.int64(0), np.int64(INF))


@nb.njit(cache=True, _nrt=False, inline="always")
def def_in_nb(R, G, counts, lo, hi):
    """def_of_nb of a hand whose deficiency the caller knows to lie in lo..hi: a hand one
    card from a hand of deficiency d is d - 1 or d with a card more, d or d + 1 with a card
    less (the meld finder then searches less: meld_deficiency.deficiency_in_nb). Exact only
    if the bounds hold.

    Through the hand memo G[G_HMEMO] (layout.HM_BITS): the bots ask about the same hands
    again and again (a hand less the card just thrown is the hand the next question is
    about; the candidates of a search replay each other's first turns), a third of their
    questions in playouts. The key is the whole hand (3 bits a natural, the jokers) and the
    hand index, so an answer is exact; a count outside 0..7 (or jokers outside 0..63) skips
    the memo. The memo belongs to one rules object, like the meld finder's."""
    params = R[R_PARAMS]
    h = G[G_S][S_HAND]
    k0 = np.int64(0)
    k1 = np.int64(0)
    k2 = np.int64(0)
    big = np.int64(0)
    for c in range(JOKER):                 # multiply-adds: vectorised, unlike shifts by c
        v = counts[c]
        k0 += v * _HM_W[0, c]
        k1 += v * _HM_W[1, c]
        k2 += v * _HM_W[2, c]
        big |= v
    J = counts[JOKER]
    HM = G[G_HMEMO]
    slot = np.int64(-1)
    if (big >> 3) == 0 and 0 <= J < 64:
        k2 += (J << 30) | (h << 36)
        x = k0 * _HM_M0 + k1 * _HM_M1 + k2 * _HM_M2
        slot = (x >> (64 - HM_BITS)) & ((1 << HM_BITS) - 1)
        if HM[slot, 3] != 0 and HM[slot, 0] == k0 and HM[slot, 1] == k1 and HM[slot, 2] == k2:
            return HM[slot, 3] - 1
    d = deficiency_in_nb(counts, R[R_MELD_KIND][h], R[R_MELD_SIZE][h], R[R_N_MELDS][h], R[R_JOKER_CAP],
                         params[P_INITIAL_EXACT], params[P_SAME_SUIT_GAP], G[G_MKEYS], G[G_MVALS], G[G_MN],
                         G[G_MSCR], G[G_WT], lo, hi)
    if slot >= 0:
        HM[slot, 0] = k0
        HM[slot, 1] = k1
        HM[slot, 2] = k2
        HM[slot, 3] = d + 1
    return d


# ---------------------------------------------------------------- stock

@nb.njit(cache=True, _nrt=False)
def reshuffle_nb(R, G):
    """docs/rules.md §5.5: the pile less the upcard lying on it becomes the new stock."""
    S = G[G_S]
    STK = G[G_STOCK]
    PILE = G[G_PILE]
    if S[S_PASSES] >= R[R_PARAMS][P_MAX_STOCK_PASSES]:
        return False
    keep = 1 if S[S_UP_ON_PILE] != 0 else 0
    m = S[S_PILE_N] - keep
    if m <= 0:
        return False
    for i in range(m):
        STK[i] = PILE[i]
    kept = -1
    if keep:
        kept = PILE[m]
        PILE[0] = kept
    S[S_PILE_N] = keep
    S[S_STOCK_N] = m
    shuffle_nb(G[G_RNG][RNG_DEAL], STK, m)
    S[S_PASSES] += 1
    b = ev_nb(G, EV_RESHUFFLE, 3)
    if b >= 0:
        G[G_LOG][b] = S[S_PASSES]
        G[G_LOG][b + 1] = m
        G[G_LOG][b + 2] = kept
    return True


@nb.njit(cache=True, _nrt=False, inline="always")
def draw_stock_nb(R, G):
    """The top card of the stock, reshuffling if needed; -1 if the hand must stop."""
    S = G[G_S]
    if S[S_STOCK_N] == 0:
        if not reshuffle_nb(R, G):
            return -1
    n = S[S_STOCK_N] - 1
    S[S_STOCK_N] = n
    return G[G_STOCK][n]


# ---------------------------------------------------------------- table melds

@nb.njit(cache=True, _nrt=False)
def meld_jokers_nb(cap, kind, key, lo, n, row, off, at_pos):
    """The one meld rule (docs/rules.md §4, §3 joker_limit), for the table and for a
    proposal alike: do the n cards row[off + k] make a meld of this kind and key (a set:
    3 to TW cards of rank key; a run: 4 to 13 cards of suit key at positions lo..lo+n-1
    within 0..13), with at least one natural and at most cap[n] jokers? A proposal row
    lists a run's cards in order; the table keeps them at their positions (at_pos: the
    card at position q is row[off + q]). Returns the number of jokers, or -1."""
    if n < 1 or n >= cap.shape[0]:
        return -1
    if kind == SET:
        if n < 3 or n > TW or key < 0 or key > 12:
            return -1
        base = off
    elif kind == RUN:
        if key < 0 or key > 3 or n < 4 or n > 13 or lo < 0 or lo + n - 1 > 13:
            return -1
        base = off + lo if at_pos else off
    else:
        return -1
    nj = 0
    for k in range(n):
        c = row[base + k]
        if c == JOKER:
            nj += 1
        elif kind == SET:
            if c < 0 or c > JOKER or c % 13 != key:
                return -1
        elif c != key * 13 + (lo + k) % 13:
            return -1
    if nj >= n or nj > cap[n]:
        return -1
    return nj


@nb.njit(cache=True, _nrt=False)
def meld_valid_nb(R, G, m):
    """Is table meld m valid (meld_jokers_nb), with its bookkeeping consistent: the joker
    count TM_NJ, a run's TM_HI, empty cells outside the meld, and under set_joker_identity
    = card a declared suit for each joker of a set?"""
    TM = G[G_TABLE]
    TC = G[G_TCARDS]
    TJ = G[G_TJOKERS]
    kind = TM[m, TM_KIND]
    n = TM[m, TM_N]
    lo = TM[m, TM_LO] if kind == RUN else 0
    nj = meld_jokers_nb(R[R_JOKER_CAP], kind, TM[m, TM_KEY], lo, n, TC[m], 0, True)
    if nj < 0 or nj != TM[m, TM_NJ]:
        return False
    if kind == RUN:
        if TM[m, TM_HI] != lo + n - 1:
            return False
        for pos in range(14):
            if (pos < lo or pos >= lo + n) and TC[m, pos] != -1:
                return False
    else:
        for k in range(n, TW):
            if TC[m, k] != -1:
                return False
        if R[R_PARAMS][P_SET_JOKER_CARD] != 0:
            for k in range(n):
                if TC[m, k] == JOKER and (TJ[m, k] < 0 or TJ[m, k] > 3):
                    return False
    return True


@nb.njit(cache=True, _nrt=False)
def fits_nb(TM, cap, set_joker_card, c, m, opt):
    """Would card c fit meld m at opt (docs/rules.md §4 lay-off; joker_limit after it)?

    Takes the few arrays it reads, not the state tuples: a call with R and G costs
    a few hundred nanoseconds of argument passing, and this runs in every lay-off loop.
    """
    n = TM[m, TM_N]
    nj = TM[m, TM_NJ] + (1 if c == JOKER else 0)
    if n + 1 >= cap.shape[0] or nj > cap[n + 1]:
        return False
    key = TM[m, TM_KEY]
    if TM[m, TM_KIND] == SET:
        if n + 1 > TW:
            return False
        if c == JOKER:
            if set_joker_card != 0:
                return 0 <= opt <= 3
            return opt == 0
        return opt == 0 and c % 13 == key
    lo = TM[m, TM_LO]
    hi = TM[m, TM_HI]
    if hi - lo + 1 >= 13:      # 14 positions would hold both aces
        return False
    if opt == 0:
        pos = lo - 1
    elif opt == 1:
        pos = hi + 1
    else:
        return False
    if pos < 0 or pos > 13:
        return False
    if c == JOKER:
        return True
    return c == key * 13 + pos % 13


@nb.njit(cache=True, _nrt=False, inline="always")
def fit_mask_nb(TM, nt):
    """The natural cards that might fit a meld of the nt on the table (fits_nb without its
    joker_limit and size tests: the rank of a set, the cards at both ends of a run), as a
    mask of bits 0..51, and bit JOKER when there is a meld. A card outside it fits none, so
    the lay-off loops test fits_nb only for the cards in it."""
    mask = np.int64(0)
    for m in range(nt):
        key = TM[m, TM_KEY]
        if TM[m, TM_KIND] == SET:
            mask |= np.int64(0x8004002001) << key      # key, key + 13, + 26, + 39
        else:
            lo = TM[m, TM_LO] - 1
            hi = TM[m, TM_HI] + 1
            if lo >= 0:
                mask |= np.int64(1) << (key * 13 + lo % 13)
            if hi <= 13:
                mask |= np.int64(1) << (key * 13 + hi % 13)
    if nt > 0:
        mask |= np.int64(1) << JOKER
    return mask


@nb.njit(cache=True, _nrt=False)
def layable_nb(TM, nt, cap, set_joker_card, c):
    """Does card c fit some meld of the nt on the table?"""
    for m in range(nt):
        if fits_nb(TM, cap, set_joker_card, c, m, np.int64(0)):
            return True
        if TM[m, TM_KIND] != SET and fits_nb(TM, cap, set_joker_card, c, m, np.int64(1)):
            return True
    return False


@nb.njit(cache=True, _nrt=False)
def layoff_struct_nb(R, G, c, m, opt):
    """fits_nb from the state tuples."""
    return fits_nb(G[G_TABLE], R[R_JOKER_CAP], R[R_PARAMS][P_SET_JOKER_CARD], c, m, opt)


@nb.njit(cache=True, _nrt=False, inline="always")
def card_layable_nb(R, G, c):
    return layable_nb(G[G_TABLE], G[G_S][S_NT], R[R_JOKER_CAP], R[R_PARAMS][P_SET_JOKER_CARD], c)


@nb.njit(cache=True, _nrt=False, inline="always")
def do_layoff_nb(R, G, p, c, m, opt):
    TM = G[G_TABLE]
    TC = G[G_TCARDS]
    TJ = G[G_TJOKERS]
    rem_card(G, p, c)
    if TM[m, TM_KIND] == SET:
        k = TM[m, TM_N]
        TC[m, k] = c
        TJ[m, k] = opt if (c == JOKER and R[R_PARAMS][P_SET_JOKER_CARD] != 0) else -1
    else:
        if opt == 0:
            TM[m, TM_LO] -= 1
            TC[m, TM[m, TM_LO]] = c
        else:
            TM[m, TM_HI] += 1
            TC[m, TM[m, TM_HI]] = c
    TM[m, TM_N] += 1
    if c == JOKER:
        TM[m, TM_NJ] += 1


@nb.njit(cache=True, _nrt=False)
def undo_layoff_nb(R, G, p, c, m, opt):
    TM = G[G_TABLE]
    TC = G[G_TCARDS]
    TJ = G[G_TJOKERS]
    TM[m, TM_N] -= 1
    if c == JOKER:
        TM[m, TM_NJ] -= 1
    if TM[m, TM_KIND] == SET:
        k = TM[m, TM_N]
        TC[m, k] = -1
        TJ[m, k] = -1
    else:
        if opt == 0:
            TC[m, TM[m, TM_LO]] = -1
            TM[m, TM_LO] += 1
        else:
            TC[m, TM[m, TM_HI]] = -1
            TM[m, TM_HI] -= 1
    add_card(G, p, c)


@nb.njit(cache=True, _nrt=False)
def swap_struct_nb(R, G, c, m, slot):
    """May natural card c replace the joker at slot of meld m (docs/rules.md §3 joker_swap, set_joker_identity)?"""
    TM = G[G_TABLE]
    if c < 0 or c >= JOKER or m < 0 or m >= G[G_S][S_NT] or slot < 0 or slot >= TW:
        return False
    if G[G_TCARDS][m, slot] != JOKER:
        return False
    key = TM[m, TM_KEY]
    if TM[m, TM_KIND] == RUN:
        return c == key * 13 + slot % 13
    if c % 13 != key:
        return False
    if R[R_PARAMS][P_SET_JOKER_CARD] != 0:
        return G[G_TJOKERS][m, slot] == c // 13
    return True


@nb.njit(cache=True, _nrt=False)
def do_swap_nb(G, p, c, m, slot):
    """Returns what the joker stood for (run: position; set: declared suit or -1)."""
    TM = G[G_TABLE]
    ident = slot if TM[m, TM_KIND] == RUN else G[G_TJOKERS][m, slot]
    rem_card(G, p, c)
    G[G_TCARDS][m, slot] = c
    G[G_TJOKERS][m, slot] = -1
    TM[m, TM_NJ] -= 1
    add_card(G, p, JOKER)
    return ident


@nb.njit(cache=True, _nrt=False)
def undo_swap_nb(G, p, c, m, slot, ident):
    TM = G[G_TABLE]
    rem_card(G, p, JOKER)
    G[G_TCARDS][m, slot] = JOKER
    if TM[m, TM_KIND] == SET:
        G[G_TJOKERS][m, slot] = ident
    TM[m, TM_NJ] += 1
    add_card(G, p, c)


# ---------------------------------------------------------------- turn rules

@nb.njit(cache=True, _nrt=False, inline="always")
def layoff_allowed_now_nb(R, G, p):
    """docs/rules.md §4: only a player who is down, on their own turn; not on the going-down turn under exact."""
    S = G[G_S]
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p or G[G_PS][p, PS_DOWN] == 0:
        return False
    if R[R_PARAMS][P_INITIAL_EXACT] != 0 and S[S_DOWN_NOW] != 0:
        return False
    return True


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


@nb.njit(cache=True, _nrt=False)
def can_finish_nb(R, G, p):
    """Can seat p still end this turn legally (docs/rules.md §3 go_out)?"""
    r = G[G_PS][p, PS_N]
    go = R[R_PARAMS][P_GO_OUT]
    if not must_lay_off_last_nb(r, go):
        return finishable_nb(r, go)
    if not layoff_allowed_now_nb(R, G, p):
        return False
    for c in range(53):
        if G[G_HANDS][p, c] > 0:
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
    if c < 0 or c > JOKER or G[G_HANDS][p, c] <= 0:
        return E_CARD
    if m < 0 or m >= G[G_S][S_NT]:
        return E_NO_MELD
    if not layoff_struct_nb(R, G, c, m, opt):
        return E_NO_FIT
    r = G[G_PS][p, PS_N] - 1
    go = R[R_PARAMS][P_GO_OUT]
    if not must_lay_off_last_nb(r, go):
        return E_OK if finishable_nb(r, go) else E_FINISH
    PS = G[G_PS]
    d0 = PS[p, PS_DEF]
    k0 = PS[p, PS_DEFOK]
    do_layoff_nb(R, G, p, c, m, opt)
    ok = can_finish_nb(R, G, p)
    undo_layoff_nb(R, G, p, c, m, opt)
    PS[p, PS_DEF] = d0
    PS[p, PS_DEFOK] = k0
    return E_OK if ok else E_FINISH


@nb.njit(cache=True, _nrt=False)
def swap_allowed_now_nb(R, G, p):
    S = G[G_S]
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p:
        return False
    if R[R_PARAMS][P_JOKER_SWAP] == SWAP_DOWN_ONLY:
        return G[G_PS][p, PS_DOWN] != 0 and S[S_DOWN_NOW] == 0
    return True


@nb.njit(cache=True, _nrt=False)
def swap_legal_nb(R, G, p, c, m, slot):
    return swap_check_nb(R, G, p, c, m, slot) == E_OK


@nb.njit(cache=True, _nrt=False)
def swap_check_nb(R, G, p, c, m, slot):
    """E_OK if seat p may put card c in place of the joker at slot of meld m now, else the reason."""
    if not swap_allowed_now_nb(R, G, p):
        return E_NOT_NOW
    if c < 0 or c >= JOKER or G[G_HANDS][p, c] <= 0:
        return E_CARD
    if m < 0 or m >= G[G_S][S_NT]:
        return E_NO_MELD
    if not swap_struct_nb(R, G, c, m, slot):
        return E_NO_FIT
    PS = G[G_PS]
    if PS[p, PS_DOWN] == 0 and hand_def_nb(R, G, p) >= 2:
        # going down after the swap needs deficiency 0, and trading a natural for a
        # joker lowers the deficiency by at most one
        return E_SWAP_DEF
    d0 = PS[p, PS_DEF]
    k0 = PS[p, PS_DEFOK]
    ident = do_swap_nb(G, p, c, m, slot)
    if PS[p, PS_DOWN] != 0:
        ok = can_finish_nb(R, G, p)
    else:
        # joker_swap = anyone, not yet down: only as part of going down this turn.
        ok = go_down_possible_nb(R, G, p)
    undo_swap_nb(G, p, c, m, slot, ident)
    PS[p, PS_DEF] = d0
    PS[p, PS_DEFOK] = k0
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
    S = G[G_S]
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p or S[S_MUST_DOWN] != 0:
        return E_NOT_NOW
    if c >= 0 and (c > JOKER or G[G_HANDS][p, c] <= 0):
        return E_CARD
    n = G[G_PS][p, PS_N]
    if n < 2 and not finishable_nb(n, R[R_PARAMS][P_GO_OUT]):
        return E_FINISH
    return E_OK


@nb.njit(cache=True, _nrt=False)
def discard_legal_nb(R, G, p, c):
    if c < 0:
        return False
    return discard_check_nb(R, G, p, c) == E_OK


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


@nb.njit(cache=True, _nrt=False)
def place_proposal_nb(R, G, p, nm):
    """Append the proposal's melds to the table (hand untouched); returns the first index."""
    S = G[G_S]
    TM = G[G_TABLE]
    TC = G[G_TCARDS]
    TJ = G[G_TJOKERS]
    GD = G[G_GD]
    GDJ = G[G_GDJ]
    card_id = R[R_PARAMS][P_SET_JOKER_CARD] != 0
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
                    present |= 1 << (GD[i, M_CARDS + k] // 13)
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
    S = G[G_S]
    for m in range(base, S[S_NT]):
        for k in range(TW):
            G[G_TCARDS][m, k] = -1
            G[G_TJOKERS][m, k] = -1
        for f in range(NTM):
            G[G_TABLE][m, f] = 0
    S[S_NT] = base


@nb.njit(cache=True, _nrt=False)
def check_proposal_nb(R, G, p):
    """Is the proposal in GD a legal going down for seat p now? Returns E_OK or an E_GD_* code."""
    S = G[G_S]
    PS = G[G_PS]
    GD = G[G_GD]
    SCR = G[G_SCR]
    params = R[R_PARAMS]
    if S[S_PHASE] != PH_PLAY or S[S_CUR] != p:
        return E_PHASE
    if PS[p, PS_DOWN] != 0:
        return E_GD_DOWN
    h = S[S_HAND]
    nm = R[R_N_MELDS][h]
    kinds = R[R_MELD_KIND][h]
    sizes = R[R_MELD_SIZE][h]
    exact = params[P_INITIAL_EXACT] != 0
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
    cs = 0
    cr = 0
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
        if meld_jokers_nb(R[R_JOKER_CAP], GD[i, M_KIND], GD[i, M_KEY], GD[i, M_LO], GD[i, M_N],
                          GD[i], M_CARDS, False) < 0:
            return E_GD_MELD
    # Distinct physical cards from the hand.
    tmp = SCR[SCR_PROP_HAND]
    for c in range(53):
        tmp[c] = G[G_HANDS][p, c]
    used = 0
    for i in range(nm):
        for k in range(GD[i, M_N]):
            c = GD[i, M_CARDS + k]
            tmp[c] -= 1
            used += 1
            if tmp[c] < 0:
                return E_GD_CARDS
    # docs/rules.md §3 same_suit_runs = gap: two runs of one suit must not touch.
    if params[P_SAME_SUIT_GAP] != 0:
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
    go = params[P_GO_OUT]
    if not must_lay_off_last_nb(r, go):
        if not finishable_nb(r, go):
            return E_GD_FINISH
    else:
        if exact:
            return E_GD_FINISH
        last = -1
        for c in range(53):
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
    GD = G[G_GD]
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
    S = G[G_S]
    if G[G_PS][p, PS_DOWN] != 0 or S[S_PHASE] != PH_PLAY or S[S_CUR] != p:
        return False
    return hand_def_nb(R, G, p) == 0


@nb.njit(cache=True, _nrt=False)
def can_go_down_nb(R, G, p):
    """Write the meld finder's least-deadwood lay-down into GD; True if it is legal now."""
    S = G[G_S]
    S[S_GD_AT] = 0
    if not _may_go_down(R, G, p):
        return False
    params = R[R_PARAMS]
    h = S[S_HAND]
    nm = R[R_N_MELDS][h]
    LD = G[G_LD]
    GD = G[G_GD]
    rc = laydown_sat_nb(G[G_HANDS][p], R[R_MELD_KIND][h], R[R_MELD_SIZE][h], nm, R[R_JOKER_CAP], params[P_INITIAL_EXACT],
                        params[P_SAME_SUIT_GAP], R[R_POINTS], LD)
    if rc < 0:
        return False
    for i in range(nm):
        n = LD[i, M_N]
        for k in range(4 + n):
            GD[i, k] = LD[i, k]
        for k in range(TW):
            G[G_GDJ][i, k] = -1
    code = check_proposal_nb(R, G, p)
    ok = code == E_OK or (code == E_GD_FINISH and _try_shrink(R, G, p, nm))
    if ok:
        S[S_GD_AT] = S[S_NACT] + 1
    return ok


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
    S = G[G_S]
    if not _may_go_down(R, G, p):
        return False
    params = R[R_PARAMS]
    h = S[S_HAND]
    nm = R[R_N_MELDS][h]
    kinds = R[R_MELD_KIND][h]
    sizes = R[R_MELD_SIZE][h]
    go = params[P_GO_OUT]
    exact = params[P_INITIAL_EXACT] != 0
    n = G[G_PS][p, PS_N]
    need = 0
    for i in range(nm):
        need += sizes[i]
    if exact:
        return finishable_nb(n - need, go)
    r_lo = n - max_laid_nb(G[G_HANDS][p], kinds, nm)
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
    S = G[G_S]
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


# ---------------------------------------------------------------- hand flow

@nb.njit(cache=True, _nrt=False, inline="always")
def _begin_turn(R, G, p):
    """Start seat p's turn; False when the turn cap (rules max_hand_turns) stops the hand."""
    S = G[G_S]
    S[S_CUR] = p
    S[S_DOWN_NOW] = 0
    S[S_MUST_DOWN] = 0
    S[S_JK_PLAYED] = 0
    if S[S_TURNS] >= R[R_PARAMS][P_MAX_HAND_TURNS]:    # the cap's turns are played: no further turn
        S[S_WINNER] = -1
        S[S_END_REASON] = 2
        S[S_PHASE] = PH_ENDHAND
        return False
    S[S_TURNS] += 1
    G[G_PS][p, PS_TURNS] += 1
    G[G_PS][p, PS_TOOK] = 0
    return True


@nb.njit(cache=True, _nrt=False)
def _stop_hand(G):
    S = G[G_S]
    S[S_WINNER] = -1
    S[S_END_REASON] = 1
    S[S_PHASE] = PH_ENDHAND


@nb.njit(cache=True, _nrt=False)
def _start_hand(R, G):
    S = G[G_S]
    PS = G[G_PS]
    H = G[G_HANDS]
    STK = G[G_STOCK]
    params = R[R_PARAMS]
    P = S[S_NP]
    h = S[S_HAND]
    dealer = (S[S_FIRST_DEALER] + h) % P
    S[S_DEALER] = dealer
    for q in range(P):
        for f in range(NPS):
            if f != PS_TOTAL:
                PS[q, f] = 0
        PS[q, PS_DOWNTURN] = -1
        for c in range(53):
            H[q, c] = 0
    unplace_nb(G, 0)
    # docs/rules.md §5.1: the shoe, shuffled from a stream of (game seed, hand).
    seed_state_nb(game_seed_nb(G[G_RNG][RNG_SEED, 0], h + 1), G[G_RNG][RNG_DEAL])
    k = 0
    for d in range(params[P_DECKS]):
        for c in range(52):
            STK[k] = c
            k += 1
    for j in range(params[P_JOKERS]):
        STK[k] = JOKER
        k += 1
    shuffle_nb(G[G_RNG][RNG_DEAL], STK, k)
    S[S_PILE_N] = 0
    S[S_PASSES] = 0
    S[S_TURNS] = 0
    S[S_BOUGHT] = 0
    S[S_WINNER] = -1
    S[S_END_REASON] = 0
    b = ev_nb(G, EV_HAND, 3)
    if b >= 0:
        G[G_LOG][b] = h
        G[G_LOG][b + 1] = dealer
        G[G_LOG][b + 2] = (dealer + 1) % P
    # One card at a time, clockwise from the dealer's left; the top of the stock is the end.
    nd = R[R_DEAL][h]
    for r in range(nd):
        for i in range(1, P + 1):
            k -= 1
            add_card(G, (dealer + i) % P, STK[k])
    for i in range(1, P + 1):
        q = (dealer + i) % P
        b = ev_nb(G, EV_DEAL, 2 + nd)
        if b >= 0:
            G[G_LOG][b] = q
            G[G_LOG][b + 1] = nd
            t = b + 2
            for c in range(53):
                for _ in range(H[q, c]):
                    G[G_LOG][t] = c
                    t += 1
    k -= 1
    up = STK[k]
    S[S_STOCK_N] = k
    G[G_PILE][0] = up
    S[S_PILE_N] = 1
    S[S_UP] = up
    S[S_UP_ON_PILE] = 1
    S[S_UP_FROM] = -1
    b = ev_nb(G, EV_UPCARD, 1)
    if b >= 0:
        G[G_LOG][b] = up
    S[S_CUR] = dealer
    S[S_NEXT] = (dealer + 1) % P
    S[S_PHASE] = PH_OFFER


@nb.njit(cache=True, _nrt=False, inline="always")
def _open_buy(R, G):
    """docs/rules.md §5.4: the claimants in buy_priority order."""
    S = G[G_S]
    PS = G[G_PS]
    params = R[R_PARAMS]
    P = S[S_NP]
    nxt = S[S_NEXT]
    if params[P_BUY_PRIORITY] == 0:      # dealer_left
        start = S[S_DEALER] + 1
    else:                                # turn_order: clockwise from the player in turn
        start = nxt + 1
    lim = R[R_BUYS][S[S_HAND]]
    n = 0
    for i in range(P):
        q = (start + i) % P
        if q == nxt or q == S[S_UP_FROM]:
            continue
        if PS[q, PS_DOWN] != 0 and params[P_DOWN_MAY_BUY] == 0:
            continue
        if PS[q, PS_BUYS] >= lim:
            continue
        S[S_BO0 + n] = q
        n += 1
    S[S_BO_N] = n
    S[S_CAND] = 0
    S[S_BOUGHT] = 0
    if n == 0:
        S[S_PHASE] = PH_AFTERWIN
    else:
        S[S_PHASE] = PH_BUY
        S[S_ACTOR] = S[S_BO0]


@nb.njit(cache=True, _nrt=False, inline="always")
def _take_upcard(G, p):
    S = G[G_S]
    c = S[S_UP]
    S[S_PILE_N] -= 1
    S[S_UP_ON_PILE] = 0
    add_card(G, p, c)
    G[G_PS][p, PS_TOOK] = c + 1
    G[G_PS][p, PS_KNOWN0 + c] += 1
    return c


@nb.njit(cache=True, _nrt=False, inline="always")
def _log_draw(G, p, src, c):
    b = ev_nb(G, EV_DRAW, 3)
    if b >= 0:
        G[G_LOG][b] = p
        G[G_LOG][b + 1] = src
        G[G_LOG][b + 2] = c


@nb.njit(cache=True, _nrt=False, inline="always")
def _stock_draw_turn(R, G, p):
    c = draw_stock_nb(R, G)
    if c < 0:
        _stop_hand(G)
        return
    add_card(G, p, c)
    _log_draw(G, p, 0, c)
    G[G_S][S_PHASE] = PH_PLAY
    G[G_S][S_ACTOR] = p


@nb.njit(cache=True, _nrt=False, inline="always")
def _after_window(R, G):
    S = G[G_S]
    p = S[S_NEXT]
    if not _begin_turn(R, G, p):
        return
    S[S_ACTOR] = p
    if S[S_BOUGHT] == 0 and G[G_PS][p, PS_DOWN] != 0 and S[S_UP_ON_PILE] != 0:
        S[S_PHASE] = PH_DRAW       # a down player may take an unbought upcard
    else:
        _stock_draw_turn(R, G, p)  # refused (dead) or bought: the stock


@nb.njit(cache=True, _nrt=False)
def _end_hand(R, G):
    S = G[G_S]
    PS = G[G_PS]
    H = G[G_HANDS]
    REC = G[G_REC]
    params = R[R_PARAMS]
    pts = R[R_POINTS]
    P = S[S_NP]
    h = S[S_HAND]
    w = S[S_WINNER]
    blind = 0
    if w >= 0 and S[S_DOWN_NOW] != 0:
        blind = 1       # docs/rules.md §3 blind_bonus: down and out in one turn
    for q in range(P):
        s = 0
        for c in range(53):
            s += H[q, c] * pts[c]
        if q == w:
            s = 0
            if blind:
                s = params[P_BLIND_JOKER] if S[S_JK_PLAYED] > 0 else params[P_BLIND_NO_JOKER]
        PS[q, PS_POINTS] = s
        PS[q, PS_TOTAL] += s
        REC[h, q, HF_DEALER] = S[S_DEALER]
        REC[h, q, HF_DOWN_TURN] = PS[q, PS_DOWNTURN]
        REC[h, q, HF_WENT_OUT] = 1 if q == w else 0
        REC[h, q, HF_BUYS] = PS[q, PS_BUYS]
        REC[h, q, HF_BUY_CARDS] = PS[q, PS_BUYCARDS]
        REC[h, q, HF_POINTS] = s
        REC[h, q, HF_CARDS_LEFT] = PS[q, PS_N]
        REC[h, q, HF_JOKERS_LEFT] = H[q, JOKER]
        REC[h, q, HF_TURNS] = PS[q, PS_TURNS]
        REC[h, q, HF_STOCK_PASSES] = S[S_PASSES]
        REC[h, q, HF_BLIND] = blind if q == w else 0
        REC[h, q, HF_STOPPED] = S[S_END_REASON]
    b = ev_nb(G, EV_HAND_END, 2 + 2 * P)
    if b >= 0:
        G[G_LOG][b] = w
        G[G_LOG][b + 1] = S[S_END_REASON]
        for q in range(P):
            G[G_LOG][b + 2 + q] = PS[q, PS_POINTS]
            G[G_LOG][b + 2 + P + q] = PS[q, PS_TOTAL]
    S[S_HANDS_DONE] = h + 1
    if h + 1 < params[P_NHANDS]:
        S[S_HAND] = h + 1
        S[S_PHASE] = PH_NEWHAND
    else:
        S[S_PHASE] = PH_OVER
        S[S_ACTOR] = -1
        b = ev_nb(G, EV_GAME_END, P)
        if b >= 0:
            for q in range(P):
                G[G_LOG][b + q] = PS[q, PS_TOTAL]


@nb.njit(cache=True, _nrt=False, inline="always")
def advance_nb(R, G):
    """Run the automatic phases until a decision (or the end of the game)."""
    S = G[G_S]
    while True:
        ph = S[S_PHASE]
        if ph == PH_NEWHAND:
            if S[S_HALT] != 0:
                return
            _start_hand(R, G)
        elif ph == PH_OFFER:
            nxt = S[S_NEXT]
            if G[G_PS][nxt, PS_DOWN] == 0:
                S[S_PHASE] = PH_FIRST     # first refusal (docs/rules.md §5.4)
                S[S_ACTOR] = nxt
            else:
                _open_buy(R, G)           # a down player cannot block a buy
        elif ph == PH_AFTERWIN:
            _after_window(R, G)
        elif ph == PH_ENDHAND:
            _end_hand(R, G)
        else:
            return


@nb.njit(cache=True, _nrt=False)
def init_game_nb(R, G, seed, log_on, check):
    """Reset G to the start of a game seeded ``seed`` and advance to the first decision."""
    S = G[G_S]
    PS = G[G_PS]
    # Clear the table of a game played before on this state (while S_NT still counts it).
    unplace_nb(G, 0)
    for i in range(NS):
        if i != S_SHOE and i != S_NP:
            S[i] = 0
    for q in range(MAXP):
        for f in range(NPS):
            PS[q, f] = 0
    G[G_REC][:, :, :] = 0
    memo_trim_nb(G[G_MKEYS])
    S[S_LOG_ON] = log_on
    S[S_CHECK] = check
    S[S_CGD_AT] = -1
    S[S_GD_AT] = 0
    G[G_RNG][RNG_SEED, 0] = np.uint64(seed)
    P = S[S_NP]
    for q in range(MAXP):
        seed_state_nb(game_seed_nb(np.uint64(seed), np.uint64(1000 + q)), G[G_RNG][RNG_BOT0 + q])
    # docs/rules.md §5.1: the first dealer is chosen from the game seed.
    seed_state_nb(game_seed_nb(np.uint64(seed), np.uint64(0)), G[G_RNG][RNG_DEAL])
    S[S_FIRST_DEALER] = randint_nb(G[G_RNG][RNG_DEAL], P)
    S[S_HAND] = 0
    S[S_PHASE] = PH_NEWHAND
    advance_nb(R, G)


@nb.njit(cache=True, _nrt=False)
def _go_out(R, G, p, how):
    S = G[G_S]
    G[G_PS][p, PS_WENTOUT] = 1
    blind = 1 if S[S_DOWN_NOW] != 0 else 0
    G[G_PS][p, PS_BLIND] = blind
    b = ev_nb(G, EV_OUT, 4)
    if b >= 0:
        G[G_LOG][b] = p
        G[G_LOG][b + 1] = how
        G[G_LOG][b + 2] = blind
        G[G_LOG][b + 3] = S[S_JK_PLAYED]
    S[S_WINNER] = p
    S[S_END_REASON] = 0
    S[S_PHASE] = PH_ENDHAND


@nb.njit(cache=True, _nrt=False)
def _apply_go_down(R, G, p, custom):
    S = G[G_S]
    if custom == 0:
        # the lay-down search is the dear part: reuse the one made for this action
        if S[S_GD_AT] != S[S_NACT] + 1 and not can_go_down_nb(R, G, p):
            return E_GD_NONE
    else:
        code = check_proposal_nb(R, G, p)
        if code != E_OK:
            return code
    h = S[S_HAND]
    nm = R[R_N_MELDS][h]
    GD = G[G_GD]
    base = place_proposal_nb(R, G, p, nm)
    for i in range(nm):
        for k in range(GD[i, M_N]):
            c = GD[i, M_CARDS + k]
            rem_card(G, p, c)
            _played_public(G, p, c)
            if c == JOKER:
                S[S_JK_PLAYED] += 1
    PS = G[G_PS]
    PS[p, PS_DOWN] = 1
    PS[p, PS_DOWNTURN] = PS[p, PS_TURNS]
    S[S_DOWN_NOW] = 1
    S[S_MUST_DOWN] = 0
    if S[S_LOG_ON] != 0:
        n = 2
        for i in range(nm):
            n += 5 + 2 * GD[i, M_N]
        b = ev_nb(G, EV_GO_DOWN, n)
        LOG = G[G_LOG]
        LOG[b] = p
        LOG[b + 1] = nm
        t = b + 2
        for i in range(nm):
            m = base + i
            nn = GD[i, M_N]
            LOG[t] = m
            LOG[t + 1] = G[G_TABLE][m, TM_KIND]
            LOG[t + 2] = G[G_TABLE][m, TM_KEY]
            LOG[t + 3] = G[G_TABLE][m, TM_LO]
            LOG[t + 4] = nn
            t += 5
            for k in range(nn):
                if G[G_TABLE][m, TM_KIND] == RUN:
                    LOG[t + k] = G[G_TCARDS][m, G[G_TABLE][m, TM_LO] + k]
                    LOG[t + nn + k] = G[G_TABLE][m, TM_LO] + k
                else:
                    LOG[t + k] = G[G_TCARDS][m, k]
                    LOG[t + nn + k] = G[G_TJOKERS][m, k]
            t += 2 * nn
    if PS[p, PS_N] == 0:
        _go_out(R, G, p, np.int64(0))
    return E_OK


# One apply helper per phase (and per action of the play phase), each returning E_OK or
# a refusal with the state unchanged; apply_action_nb dispatches on the phase. They are
# inline="always" like apply_action_nb itself: a call that passes R and G costs a few
# hundred stack words (docs/DEVELOPING.md speed notes), and each has one caller.

@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_first(R, G, p, t):
    """PH_FIRST (docs/rules.md §5.2): the first player takes the upcard or passes it to the
    buy window."""
    S = G[G_S]
    if t == A_TAKE:
        if _begin_turn(R, G, p):
            c = _take_upcard(G, p)
            _log_draw(G, p, 1, c)
            S[S_PHASE] = PH_PLAY
    elif t == A_PASS:
        G[G_PS][p, PS_DECL0 + S[S_UP]] = G[G_PS][p, PS_TURNS] + 1
        b = ev_nb(G, EV_PASS, 3)
        if b >= 0:
            G[G_LOG][b] = p
            G[G_LOG][b + 1] = S[S_UP]
            G[G_LOG][b + 2] = 0
        _open_buy(R, G)
    else:
        return E_PHASE
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_buy_card(R, G, p):
    """A_BUY (docs/rules.md §5.9): the upcard and buy_penalty cards from the stock; a stock
    that runs dry stops the hand."""
    S = G[G_S]
    PS = G[G_PS]
    c = _take_upcard(G, p)
    PS[p, PS_BUYS] += 1
    PS[p, PS_BUYCARDS] += 1
    S[S_BOUGHT] = 1
    pen = R[R_PARAMS][P_BUY_PENALTY]
    b = ev_nb(G, EV_BUY, 3)
    if b >= 0:
        G[G_LOG][b] = p
        G[G_LOG][b + 1] = c
        G[G_LOG][b + 2] = pen
    stopped = False
    for i in range(pen):
        d = draw_stock_nb(R, G)
        if d < 0:
            stopped = True
            break
        add_card(G, p, d)
        PS[p, PS_BUYCARDS] += 1
        b = ev_nb(G, EV_PENALTY, 2)
        if b >= 0:
            G[G_LOG][b] = p
            G[G_LOG][b + 1] = d
    if stopped:
        _stop_hand(G)
    else:
        S[S_PHASE] = PH_AFTERWIN


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_buy(R, G, p, t):
    """PH_BUY: the candidate seat buys the upcard or passes to the next candidate."""
    S = G[G_S]
    if t == A_BUY:
        _apply_buy_card(R, G, p)
    elif t == A_PASS:
        G[G_PS][p, PS_DECL0 + S[S_UP]] = G[G_PS][p, PS_TURNS] + 1
        b = ev_nb(G, EV_PASS, 3)
        if b >= 0:
            G[G_LOG][b] = p
            G[G_LOG][b + 1] = S[S_UP]
            G[G_LOG][b + 2] = 1
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
    S = G[G_S]
    if t == A_TAKE:
        c = _take_upcard(G, p)
        _log_draw(G, p, 1, c)
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
    S = G[G_S]
    do_layoff_nb(R, G, p, c, m, opt)
    _played_public(G, p, c)
    if c == JOKER:
        S[S_JK_PLAYED] += 1
    b = ev_nb(G, EV_LAYOFF, 4)
    if b >= 0:
        G[G_LOG][b] = p
        G[G_LOG][b + 1] = c
        G[G_LOG][b + 2] = m
        if G[G_TABLE][m, TM_KIND] == RUN:
            G[G_LOG][b + 3] = G[G_TABLE][m, TM_LO] if opt == 0 else G[G_TABLE][m, TM_HI]
        else:
            G[G_LOG][b + 3] = G[G_TJOKERS][m, G[G_TABLE][m, TM_N] - 1]
    if G[G_PS][p, PS_N] == 0:
        _go_out(R, G, p, np.int64(0))
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_swap(R, G, p, c, m, slot):
    """A_SWAP (docs/rules.md §3 joker_swap): natural c for the joker at slot of meld m."""
    code = swap_check_nb(R, G, p, c, m, slot)
    if code != E_OK:
        return code
    ident = do_swap_nb(G, p, c, m, slot)
    _played_public(G, p, c)
    G[G_PS][p, PS_KNOWN0 + JOKER] += 1         # every seat saw it take the joker
    if G[G_PS][p, PS_DOWN] == 0:
        G[G_S][S_MUST_DOWN] = 1
    b = ev_nb(G, EV_SWAP, 5)
    if b >= 0:
        G[G_LOG][b] = p
        G[G_LOG][b + 1] = c
        G[G_LOG][b + 2] = m
        G[G_LOG][b + 3] = slot
        G[G_LOG][b + 4] = ident
    return E_OK


@nb.njit(cache=True, _nrt=False, inline="always")
def _apply_discard(R, G, p, c):
    """A_DISCARD: card c onto the pile, which ends the turn (or the hand, the last card)."""
    code = discard_check_nb(R, G, p, c)
    if code != E_OK:
        return code
    S = G[G_S]
    rem_card(G, p, c)
    _played_public(G, p, c)
    G[G_PS][p, PS_DECL0 + c] = G[G_PS][p, PS_TURNS] + 1
    if c == JOKER:
        S[S_JK_PLAYED] += 1
    G[G_PILE][S[S_PILE_N]] = c
    S[S_PILE_N] += 1
    b = ev_nb(G, EV_DISCARD, 2)
    if b >= 0:
        G[G_LOG][b] = p
        G[G_LOG][b + 1] = c
    if G[G_PS][p, PS_N] == 0:
        _go_out(R, G, p, np.int64(1))
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
    S = G[G_S]
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
    (opt 0); other lay-downs are legal through a GD proposal (opt 1).
    """
    return legal_list_nb(R, G, out, True)


@nb.njit(cache=True, _nrt=False)
def legal_list_nb(R, G, out, with_go_down):
    """legal_actions_nb; with_go_down=False leaves going down out (it alone may need
    the lay-down search), for callers that decide it only when they need it."""
    S = G[G_S]
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
    H = G[G_HANDS]
    TM = G[G_TABLE]
    down = G[G_PS][p, PS_DOWN] != 0
    if with_go_down and not down and go_down_available_nb(R, G, p):
        out[n] = action_nb(A_GO_DOWN, 0, 0, 0)
        n += 1
    if S[S_MUST_DOWN] != 0:
        pass
    elif down and layoff_allowed_now_nb(R, G, p):
        n = layoff_list_nb(R, G, p, out, n, np.int64(0))
    if swap_allowed_now_nb(R, G, p) and H[p, :52].sum() > 0:
        card_id = R[R_PARAMS][P_SET_JOKER_CARD] != 0
        for m in range(S[S_NT]):
            if TM[m, TM_NJ] == 0:
                continue
            if TM[m, TM_KIND] == RUN:
                for pos in range(TM[m, TM_LO], TM[m, TM_HI] + 1):
                    if G[G_TCARDS][m, pos] == JOKER:
                        c = TM[m, TM_KEY] * 13 + pos % 13
                        if H[p, c] > 0 and swap_legal_nb(R, G, p, c, m, pos) and n < out.shape[0]:
                            out[n] = action_nb(A_SWAP, c, m, pos)
                            n += 1
            else:
                seen = 0     # jokers standing for the same card are one choice
                for k in range(TM[m, TM_N]):
                    if G[G_TCARDS][m, k] != JOKER:
                        continue
                    for s in range(4):
                        if card_id and G[G_TJOKERS][m, k] != s:
                            continue
                        if (seen >> s) & 1:
                            continue
                        c = s * 13 + TM[m, TM_KEY]
                        if H[p, c] > 0 and swap_legal_nb(R, G, p, c, m, k) and n < out.shape[0]:
                            seen |= 1 << s
                            out[n] = action_nb(A_SWAP, c, m, k)
                            n += 1
    if discard_now_nb(R, G, p):
        for c in range(53):
            if H[p, c] > 0 and n < out.shape[0]:
                out[n] = action_nb(A_DISCARD, c, 0, 0)
                n += 1
    return n


@nb.njit(cache=True, _nrt=False)
def layoff_list_nb(R, G, p, out, n, first):
    """Append seat p's legal lay-offs (layoff_legal_nb) to out from n; returns the new n.
    The caller has checked layoff_allowed_now_nb. first: stop after one."""
    H = G[G_HANDS]
    TM = G[G_TABLE]
    cap = R[R_JOKER_CAP]
    sjc = R[R_PARAMS][P_SET_JOKER_CARD]
    nt = G[G_S][S_NT]
    r = G[G_PS][p, PS_N] - 1
    go = R[R_PARAMS][P_GO_OUT]
    # the hand left after the lay-off can finish the turn without looking further
    plain = r >= 1 and not must_lay_off_last_nb(r, go)
    fm = fit_mask_nb(TM, nt)
    for c in range(53):
        if H[p, c] == 0 or ((fm >> c) & 1) == 0:
            continue
        for m in range(nt):
            nopt = 2
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

@nb.njit(cache=True, _nrt=False)
def check_state_nb(R, G):
    """Card conservation, hand sizes and the validity of every table meld."""
    S = G[G_S]
    if S[S_PHASE] == PH_OVER:
        return E_OK
    params = R[R_PARAMS]
    cnt = G[G_SCR][SCR_COUNTS]
    for c in range(53):
        cnt[c] = 0
    P = S[S_NP]
    for q in range(P):
        n = 0
        for c in range(53):
            cnt[c] += G[G_HANDS][q, c]
            n += G[G_HANDS][q, c]
            if G[G_HANDS][q, c] < 0:
                return E_CHECK_COUNT
        if n != G[G_PS][q, PS_N]:
            return E_CHECK_COUNT
    for i in range(S[S_STOCK_N]):
        cnt[G[G_STOCK][i]] += 1
    for i in range(S[S_PILE_N]):
        cnt[G[G_PILE][i]] += 1
    for m in range(S[S_NT]):
        if not meld_valid_nb(R, G, m):
            return E_CHECK_MELD
        for k in range(TW):
            c = G[G_TCARDS][m, k]
            if c >= 0:
                cnt[c] += 1
    for c in range(52):
        if cnt[c] != params[P_DECKS]:
            return E_CHECK_CONS
    if cnt[JOKER] != params[P_JOKERS]:
        return E_CHECK_CONS
    return E_OK
