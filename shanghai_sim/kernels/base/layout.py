"""Every array layout the kernels share, named once: the rules ``R``, the state ``G``, the
search workspace ``W``, the meld memo ``M``, and the scratch buffers.

The bundles are named tuples read by name: the rules ``R`` (``RulesArrays``, its scalar
options ``R.params``: ``Params``), the state ``G`` (``State``), the search workspace ``W``
(``Workspace``) and the meld memo ``M`` (``Memo``). numba resolves a field's name when it
compiles, so ``G.table`` costs what an index did. The arrays' rows and columns keep integer
names (``S_*``, ``PS_*``, ``TM_*``...), which numba freezes into the machine code. No source
reads a bundle by position (``tests/test_layout.py`` checks).

``rules.py`` builds the rules arrays and imports these names (and the rules enums'
values) from here, never the other way round: the kernels import nothing from outside
``kernels/``, so their cache key (``kernels.compile.cache``) covers every line they compile.

Allocation: ``STATE_SPEC``, ``WORKSPACE_SPEC`` and ``CACHE_SPEC`` describe each array once
(its field's name, dtype, shape, fill value). ``new_state``/``new_cache`` build from them; the jitted
``state.new_state_nb`` and ``melds.deficiency_nb`` cannot loop over a Python spec, so they
are written out in spec order and ``tests/test_layout.py`` checks them against it.
"""

from typing import NamedTuple

import numpy as np

from .records import NHF

# ---------------------------------------------------------------- cards and melds
JOKER = 52            # card id of the joker (``shanghai_sim.cards`` layout: 4 x 13 naturals, then it)
NCARDS = 53           # length of a count array
NRANKS = 13           # ranks per suit: card id = suit * NRANKS + rank (rank 0 = ace)
NATURALS = 4 * NRANKS  # natural cards in one pack (ids 0..JOKER - 1)
assert NATURALS == JOKER and NCARDS == JOKER + 1
SET = 0               # meld kinds (rules.MeldKind)
RUN = 1
NPOS = 14             # run positions in a suit: 0 = ace low, 1..12 = 2..K, 13 = ace high

# ---------------------------------------------------------------- rules arrays (R)
MIN_PLAYERS, MAX_PLAYERS = 2, 8
MAX_MELDS = 8          # melds in one contract (kernel array width)
MAX_MELD_SIZE = 128    # joker_cap table length: sets may grow past 13 with many packs

class Params(NamedTuple):
    """The rules' scalar options, ``R.params``, read by name (``R.params.go_out``); the
    enums' values below. ``rules.to_arrays`` fills it from a ``Rules``."""
    players: int
    decks: int
    jokers: int
    buy_penalty: int
    buy_priority: int       # BUY_*
    joker_limit: int        # JL_*
    initial_exact: int      # 1: initial_meld = exact
    same_suit_gap: int      # 1: same_suit_runs = gap
    go_out: int             # GO_*
    joker_swap: int         # SWAP_*
    set_joker_card: int     # 1: set_joker_identity = card
    blind_joker: int        # blind bonus with a joker played this hand,
    blind_no_joker: int     #   and without
    down_may_buy: int
    max_stock_passes: int
    nhands: int
    max_hand_turns: int


NPARAMS = len(Params._fields)


class RulesArrays(NamedTuple):
    """The rules as the kernels read them, ``R`` (``rules.to_arrays`` builds it):

    params        Params                    the scalar options, by name
    points        int64[53]                 penalty value of each card id (count-array layout)
    joker_cap     int64[MAX_MELD_SIZE]      jokers allowed in a meld of that many cards
    meld_kind     int64[hands, MAX_MELDS]   MeldKind of each contract meld, -1 = none;
                                            sets first, then runs, each by size
    meld_size     int64[hands, MAX_MELDS]   required size of each meld, 0 = none
    n_melds       int64[hands]
    deal          int64[hands]              cards dealt to each player
    buys          int64[hands]              buys allowed per player in that hand
    """
    params: Params
    points: np.ndarray
    joker_cap: np.ndarray
    meld_kind: np.ndarray
    meld_size: np.ndarray
    n_melds: np.ndarray
    deal: np.ndarray
    buys: np.ndarray


# Rules enum values (rules.py's IntEnums take their values from here; docs/rules.md §3)
BUY_DEALER_LEFT, BUY_TURN_ORDER = 0, 1                       # buy_priority
JL_NATURALS, JL_TABLE = 0, 1                                 # joker_limit
IM_AT_LEAST, IM_EXACT = 0, 1                                 # initial_meld
SSR_DISTINCT, SSR_GAP = 0, 1                                 # same_suit_runs
GO_NO_DISCARD, GO_DISCARD_REQUIRED, GO_EITHER = 0, 1, 2      # go_out
SWAP_ANYONE, SWAP_DOWN_ONLY = 0, 1                           # joker_swap
SJI_RANK, SJI_CARD = 0, 1                                    # set_joker_identity

# ---------------------------------------------------------------- state (G)
MAXP = MAX_PLAYERS
MAXT = MAXP * MAX_MELDS      # table melds
TW = 64                      # cards in one table meld
PW = 4 + TW                  # going-down proposal row: kind, rank/suit, lo, n, then n cards
LAY_W = 4 + 64               # laydown row (melds.laydown_nb): the same columns
MAXLEGAL = 8192              # legal action buffer
NRNG = MAXP + 2              # rng rows

# Columns of a proposal (GD) or laydown (LD) row
M_KIND, M_KEY, M_LO, M_N, M_CARDS = range(5)    # kind, rank (set) or suit (run), lo, n, cards...

# RNG rows: the deal stream, one bot stream per seat, the game seed
RNG_DEAL = 0
RNG_BOT0 = 1                 # seat p's bot stream is row RNG_BOT0 + p
RNG_SEED = MAXP + 1          # row holding the game seed in column 0

# Scalars: G.s, indexed by S_*
(S_PHASE, S_HAND, S_DEALER, S_FIRST_DEALER, S_CUR, S_ACTOR, S_NEXT, S_UP, S_UP_ON_PILE,
 S_UP_FROM, S_BO_N, S_CAND, S_STOCK_N, S_PILE_N, S_PASSES, S_NT, S_TURNS, S_DOWN_NOW,
 S_MUST_DOWN, S_JK_PLAYED, S_LOG_ON, S_LOG_N, S_CHECK, S_ERR, S_BOUGHT, S_NACT, S_SHOE,
 S_NP, S_WINNER, S_END_REASON, S_CGD_AT, S_CGD, S_HANDS_DONE) = range(33)
S_GD_AT = 33      # GD holds the finder's checked lay-down for action S_NACT + 1 (else not).
# Not the same as S_CGD: swap_legal_nb runs can_go_down_nb on a hand with a swap tried
# and undone, which rewrites GD but must not change the cached answer for the real hand.
S_HALT = 34       # a search's scratch state (kernels.search.rollout): advance_nb stops at the end of
#                   the hand instead of dealing the next one, which no playout plays
S_BO0 = 40        # buy order, MAXP entries
NS = 48

# Per seat, public (what every seat sees): G.ps[seat, PS_*]. A bot may read any
# seat's row. What only the seat itself may know is apart: its hand (G.hands[seat]) and
# the private row below.
(PS_N, PS_DOWN, PS_BUYS, PS_BUYCARDS, PS_TURNS, PS_DOWNTURN, PS_WENTOUT, PS_BLIND,
 PS_POINTS, PS_TOTAL, PS_TOOK) = range(11)
# PS_TOOK: 1 + the card this seat took from the pile on its turn in progress (0: none).
# Public knowledge, what every seat saw (docs/rules.md §5.4): PS_KNOWN0 + c counts the
# copies of card c this seat took from the pile or bought and has not played since (a
# joker it swapped off the table too). A bot's view of the other seats is this, their
# hand sizes, buys and whether they are down, never their hands.
PS_KNOWN0 = PS_TOOK + 1
# Public too: PS_DECL0 + c is 1 + this seat's PS_TURNS when it last declined card c in this
# hand (discarded it, passed it as the upcard offered on its turn, or passed its buy), 0 if
# it has not: what a player throws or refuses says what its hand does not need
# (kernels.search.rollout's samples read it).
PS_DECL0 = PS_KNOWN0 + NCARDS
NPS = PS_DECL0 + NCARDS

# Per seat, private: G.priv[seat, PV_*], what is known of the seat's hidden hand: its
# cached deficiency, read and written only through handmemo.hand_def_nb and state's
# add_card/rem_card/def_saved_nb/def_restore_nb (tests/test_bots.py checks that no other
# module reads G.priv). PV_DEFOK, what PV_DEF holds: nothing known; the hand's deficiency;
# the deficiency of the hand less the card just added (state.add_card), so the hand's is
# PV_DEF - 1 or PV_DEF.
PV_DEF, PV_DEFOK = range(2)
NPV = 2
DEF_UNKNOWN, DEF_KNOWN, DEF_LESS_ONE = range(3)

# Table melds: G.table[meld, TM_*]
TM_OWNER, TM_KIND, TM_KEY, TM_LO, TM_HI, TM_N, TM_NJ = range(7)
NTM = 7

# Rows of the engine's scratch G.scr (int64[NSCR, SCR_W]); each is free again when its kernel returns
SCR_PROP_SETS = 0     # check_proposal_nb: proposed set sizes, sorted
SCR_PROP_RUNS = 1     #   proposed run sizes, sorted
SCR_WANT_SETS = 2     #   the contract's set sizes, sorted
SCR_WANT_RUNS = 3     #   the contract's run sizes, sorted
SCR_PROP_HAND = 4     #   the hand minus the proposal's cards
SCR_COUNTS = 5        # check_state_nb: card counts
SCR_TMP = 6           # bots: a hand copy (go-down tries), or suffix counts (discard ranking)
SCR_CAND = 7          # bots: discard candidates
SCR_UNSEEN = 8        # smart bot: cards of each id this seat has not seen (NCARDS)
NSCR, SCR_W = 9, 64

# ---------------------------------------------------------------- meld memo (melds.new_cache)
CACHE_BITS = 16
# The engine's hand memo G.hmemo (handmemo.def_of_nb): a direct-mapped table of whole hands'
# deficiencies, one row per slot: the hand packed in three words (3 bits per natural, the
# jokers and the hand index in the third), then 1 + the deficiency (0: empty).
HM_BITS = 13
HM_K0, HM_K1, HM_K2, HM_ANSWER = range(4)     # its columns: the key's three words, 1 + deficiency
FP = 8                   # Pareto points stored per (suit content, t)
MEMO_T = 4               # memo planes per slot: t = 1..3 runs (plane 0: window lists)
WT_SIZES = 10            # window table rows: run sizes 4..13 ...
WT_W = 16                # ... x 2**14 suit position masks, 16 int32 (one cache line) each
SCRATCH = 4096           # the finder's scratch buffer (offsets below)

# Named offsets into the finder's scratch (int64[SCRATCH]). One deficiency_ws_nb call owns
# it all; the head [0, MS_HEAD) is each fast path's working area while it runs (its layout
# is given where it is used), the tail holds the dispatcher's per-hand arrays, which the
# fast paths below it must not touch.
MS_WIN_LO = 0                       # _suit_setup: one suit's windows (at most 66): lo,
MS_WIN_L = 66                       #   length,
MS_WIN_R = 132                      #   ranks held (mask),
MS_WIN_T = 198                      #   and touch mask
MS_FRONT = 264                      # _suit_store: Pareto front (e, m, FP * 4 each), then the selection
MS_MIX = 512                        # meld_mixed (sets with several runs): its own area (MIX_W),
                                    #   clear of _suit_setup/_suit_store's, which it calls
MS_SUIT_CNT = SCRATCH - 112         # _suit_setup: the suit's counts by position (NPOS)
MS_RUN_CNT = SCRATCH - 80           # runs-only: counts by suit and position (4 x NPOS)
MS_PMASK = SCRATCH - 24             # one-run paths: position mask of each suit (4)
MS_WR = SCRATCH - 20                # one-run paths: window-table row of each suit (4)
MS_RC = SCRATCH - 16                # sets: count of each rank (13)
MS_HEAD = MS_SUIT_CNT

# (name, dtype, shape, fill). Shape entries are ints or the names "slots", "wt_rows"
# (a memo below MEMO_MIN slots skips the memoised fast paths; deficiency_nb takes none).
CACHE_SPEC = (
    ("mkeys", np.int64, ("slots",), 0),
    ("mvals", np.int16, ("slots", MEMO_T, FP, 2), 0),
    ("mn", np.int8, ("slots", MEMO_T), 0),
    ("mscr", np.int64, (SCRATCH,), 0),
    ("wt", np.int32, ("wt_rows", WT_W), 0),
)


class Memo(NamedTuple):
    """The meld finder's memo and scratch, ``M`` (``new_cache()``; a state's own: ``G.mkeys`` ...
    ``G.wt``, which ``handmemo.memo_nb(G)`` bundles). Pure caches: answers never depend on them."""
    mkeys: np.ndarray        # memo keys, one per slot
    mvals: np.ndarray        # Pareto points per slot and plane
    mn: np.ndarray           # points stored per slot and plane
    mscr: np.ndarray         # the finder's scratch (MS_* offsets)
    wt: np.ndarray           # the one-run paths' window table


class Contract(NamedTuple):
    """One hand's contract as the meld finder reads it (docs/rules.md §3, §6): one argument
    of every finder entry (``deficiency_nb``, ``deficiency_ws_nb``, ``laydown_nb``...).
    ``handmemo.contract_nb(R, h)`` builds it from the rules arrays inside the engine,
    ``hand.py`` from a Rules object."""
    kinds: np.ndarray        # int64[MAX_MELDS]: SET or RUN, meld by meld (the first nm)
    sizes: np.ndarray        # int64[MAX_MELDS]: each meld's size
    nm: int                  # melds in the contract
    joker_cap: np.ndarray    # int64[MAX_MELD_SIZE]: most jokers in a meld of each size
    exact: int               # 1: initial_meld = exact (each meld exactly its size)
    gap: int                 # 1: same_suit_runs = gap (two runs of a suit must not touch)

# Shape entries are ints or the names "shoe" (cards in the shoe), "stock" (twice that), "log" (log_size, at
# least 1), "hands" (hands in the game), "nhf" (kernels.base.records.NHF), or any CACHE_SPEC name.
STATE_SPEC = (
    ("s", np.int64, (NS,), 0),                    # scalars (S_*); S_SHOE, S_NP set at allocation
    ("ps", np.int64, (MAXP, NPS), 0),             # per seat (PS_*)
    ("hands", np.int64, (2 * MAXP, NCARDS), 0),   # hands as count arrays; rows MAXP on: the seat view's
    ("priv", np.int64, (2 * MAXP, NPV), 0),       # per seat, private (PV_*); rows MAXP on: the seat view's
    ("stock", np.int64, ("stock",), 0),           # stock; the top card is STOCK[S_STOCK_N - 1]; from
                                                  #   S_SHOE on, zeros: the seat view's stock
    ("pile", np.int64, ("shoe",), 0),             # discard pile; the top is PILE[S_PILE_N - 1]
    ("table", np.int64, (MAXT, NTM), 0),          # table melds (TM_*)
    ("tcards", np.int64, (MAXT, TW), -1),         # table meld cards: runs by position, sets in order
    ("tjokers", np.int64, (MAXT, TW), -1),        # declared suit of set jokers (set_joker_identity = card)
    ("gd", np.int64, (MAX_MELDS, PW), 0),         # a going-down proposal (M_* columns)
    ("gdj", np.int64, (MAX_MELDS, TW), -1),       # declared suit of each proposed set joker (-1: engine)
    ("rng", np.uint64, (2 * NRNG, 4), 0),         # rng streams (RNG_* rows); rows NRNG on: the seat view's
    ("log", np.int64, ("log",), 0),               # event log (codes.EVENTS), if S_LOG_ON
    ("rec", np.int32, ("hands", MAXP, "nhf"), 0),  # per hand x seat records (kernels.base.records)
    ("scr", np.int64, (NSCR, SCR_W), 0),          # engine scratch (SCR_* rows)
    ("ld", np.int64, (MAX_MELDS, LAY_W), 0),      # laydown_nb output (M_* columns)
    ("buf", np.int64, (MAXLEGAL,), 0),            # legal action buffer
) + CACHE_SPEC + (                                 # the meld finder's memo, scratch, window table
    ("hmemo", np.int64, (1 << HM_BITS, HM_ANSWER + 1), 0),    # the engine's hand memo (HM_BITS)
)

class State(NamedTuple):
    """The state of a game, ``G``: ``STATE_SPEC``'s arrays, read by name (``G.hands[p]``).
    ``new_state`` allocates it (``state.new_state_nb`` in numba). The first ``NGAME`` are the
    game arrays a search copies into its workspace; the last six are pure caches.

    A seat's view, ``V``, what every bot kernel receives, is a ``State`` too
    (``state.seat_view_nb``): the same scalars, public rows, table, pile, log, scratch and
    memos, but its ``hands``, ``priv`` and ``rng`` are the view's own rows of G's arrays
    (``hands[MAXP:]``, ``priv[MAXP:]``, ``rng[NRNG:]``), holding that seat's hand, private row and
    random stream and zeros for every other seat, the deal stream and the game seed, and its
    ``stock`` is the half of G's stock array that is never written (zeros). So a bot cannot reach
    another hand, the stock's cards or another stream; and as one type, the engine's helpers a
    bot calls are compiled once (a view type of its own cost smart 3-6% a decision)."""
    s: np.ndarray            # scalars, S_*
    ps: np.ndarray           # per seat, public: PS_*
    hands: np.ndarray        # per seat, its hand (count arrays)
    priv: np.ndarray         # per seat, private: PV_*
    stock: np.ndarray
    pile: np.ndarray
    table: np.ndarray        # table melds: TM_*
    tcards: np.ndarray
    tjokers: np.ndarray
    gd: np.ndarray           # a going-down proposal (M_* columns)
    gdj: np.ndarray
    rng: np.ndarray          # RNG_* rows
    log: np.ndarray
    rec: np.ndarray          # per hand x seat records (records.HF_*)
    scr: np.ndarray          # engine scratch, SCR_* rows
    ld: np.ndarray
    buf: np.ndarray          # legal actions
    mkeys: np.ndarray        # the meld finder's memo (Memo's fields) ...
    mvals: np.ndarray
    mn: np.ndarray
    mscr: np.ndarray
    wt: np.ndarray
    hmemo: np.ndarray        # ... and the engine's hand memo


NGAME = State._fields.index("mkeys")     # the game arrays: s .. buf
GAME_FIELDS = State._fields[:NGAME]

# ---------------------------------------------------------------- the rollout bot's workspace (W)
# kernels.search.rollout plays its playouts on a scratch state (playout.scratch_state_nb): W's
# game arrays (STATE_SPEC's first NGAME, the same names), and the real state's meld memo and
# hand memo (pure caches, one per thread), never copied. Then the workspace's own rows:
RI_POOL = 0           # W.ri: the cards the searching seat has not seen, shuffled per sample
RI_CAND = 1           #   the candidate actions of the decision searched
NRI = 2
RF_SELF = 0           # W.rf: the searching seat's parameter vector in a playout
RF_OTHER = 1          #   the other seats' (the same, experiment knobs cleared)
RF_SUM = 2            #   per candidate: the sum of its outcomes over the samples, then the mean
RF_DSQ = 3            #   per candidate: the sum of squares of its outcome less the first's
RF_N = 4              #   per candidate: the samples it was played on
NRF, RF_W = 5, 192    # RF_SELF/RF_OTHER hold a whole bot vector: RF_W >= botparams.NBP (botparams asserts it)

# The workspace W (playout.new_workspace_nb in numba): STATE_SPEC's game arrays, then its own.
WORKSPACE_SPEC = STATE_SPEC[:NGAME] + (
    ("ri", np.int64, (NRI, "shoe"), 0),             # RI_* rows
    ("rf", np.float64, (NRF, RF_W), 0.0),           # RF_* rows
)


class Workspace(NamedTuple):
    """The rollout bot's workspace, ``W``: the game arrays of a scratch state (``State``'s
    first ``NGAME`` fields, the same names), then its own rows."""
    s: np.ndarray
    ps: np.ndarray
    hands: np.ndarray
    priv: np.ndarray
    stock: np.ndarray
    pile: np.ndarray
    table: np.ndarray
    tcards: np.ndarray
    tjokers: np.ndarray
    gd: np.ndarray
    gdj: np.ndarray
    rng: np.ndarray
    log: np.ndarray
    rec: np.ndarray
    scr: np.ndarray
    ld: np.ndarray
    buf: np.ndarray
    ri: np.ndarray           # RI_* rows
    rf: np.ndarray           # RF_* rows


assert State._fields == tuple(s[0] for s in STATE_SPEC)
assert Workspace._fields == tuple(s[0] for s in WORKSPACE_SPEC)
assert Memo._fields == tuple(s[0] for s in CACHE_SPEC) == State._fields[NGAME:NGAME + len(CACHE_SPEC)]


def spec_shape(shape, **dims):
    """A spec shape with its named entries replaced by ``dims``."""
    return tuple(int(dims[d]) if isinstance(d, str) else d for d in shape)


def allocate(spec, **dims):
    """The arrays of a spec, in order."""
    out = []
    for _name, dtype, shape, fill in spec:
        shp = spec_shape(shape, **dims)
        out.append(np.zeros(shp, dtype) if fill == 0 else np.full(shp, fill, dtype))
    return tuple(out)


def cache_dims(slots=1 << CACHE_BITS):
    return {"slots": slots, "wt_rows": WT_SIZES << NPOS}


def new_cache():
    """Memo and scratch for ``melds.deficiency_ws_nb``; belongs to one RulesArrays
    (joker_cap, exact, gap) and one thread.

    The fifth array is the window table of the one-run paths (``melds._wt_row``):
    10 MB of address space, of which only the rows of suits met are touched.
    """
    return Memo(*allocate(CACHE_SPEC, **cache_dims()))


def state_dims(params, log_size=0):
    return {"shoe": NATURALS * int(params.decks) + int(params.jokers),
            "stock": 2 * (NATURALS * int(params.decks) + int(params.jokers)),
            "log": max(int(log_size), 1), "hands": int(params.nhands), "nhf": NHF,
            **cache_dims()}


def new_state(R, log_size=0):
    """Allocate a state for these rules (Python side; ``state.new_state_nb`` in numba)."""
    params = R.params
    G = State(*allocate(STATE_SPEC, **state_dims(params, log_size)))
    G.s[S_SHOE] = NATURALS * int(params.decks) + int(params.jokers)
    G.s[S_NP] = params.players
    return G


def new_workspace(R):
    """Allocate the rollout bot's workspace for these rules (``kernels.search.rollout``)."""
    params = R.params
    W = Workspace(*allocate(WORKSPACE_SPEC, **state_dims(params, 0)))
    W.s[S_SHOE] = NATURALS * int(params.decks) + int(params.jokers)
    W.s[S_NP] = params.players
    return W
