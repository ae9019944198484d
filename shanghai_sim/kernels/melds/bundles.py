"""The meld finder's argument bundles: named tuples its kernels pass down instead of long
positional lists, read by name inside (``F.joker_cap``, ``X.lbt``).

Each is built once by the kernel that owns its contents and passed down unchanged:

- ``layout.Contract`` (``C``, declared with the other layouts): the contract, one
  argument of every finder entry and of the lay-down search.
- ``Finder`` (``F``): a fast path's per-call context, built by ``deficiency_in_nb`` for
  a hand: its jokers, the contract's joker caps and flags, the memo and the scratch.
- ``Mixed`` (``X``): the mixed path's (``mixed._sets_runs``) work areas in the scratch
  and its contract's sizes, for the helpers it calls per choice of ranks.
- ``Windows``: one suit's candidate run windows (``runs._suit_windows``), four arrays.
- ``WindowList``: the one-run path's windows with their lower bounds (``onerun._one_run``)
  and the sets' costs that the bound adds.
- ``Leaf``: the general search's shapes at a leaf and its buffers for the leaf's cost
  (``search._leaf_cost``).

numba passes a tuple's members as separate arguments (an array is its data pointer,
shape and strides either way), all of them, used or not: a call taking a bundle costs what
its members cost, so the hottest paths (``onerun._one_run_one_set``, ``_one_run_sets``) keep
their few arguments flat. A bundle is a type of its own, so a kernel taking one is compiled
once per member types, as before; it holds int64 values, never literals (kernels/__init__.py).
"""

from typing import NamedTuple

import numpy as np


class Finder(NamedTuple):
    """A fast path's per-call context (``deficiency.deficiency_in_nb`` builds it)."""
    jokers: int              # jokers in the hand (counts[JOKER])
    joker_cap: np.ndarray    # Contract.joker_cap: most jokers in a meld of each size
    exact: int               # Contract.exact
    gap: int                 # Contract.gap
    ckeys: np.ndarray        # the memo (layout.CACHE_SPEC): keys,
    cvals: np.ndarray        #   values (Pareto fronts or window lists),
    cn: np.ndarray           #   entry counts,
    wt: np.ndarray           #   the window table (memo._wt_row)
    scratch: np.ndarray      # int64[SCRATCH]: the finder's scratch (layout.MS_* offsets)


class Mixed(NamedTuple):
    """The mixed path's context (``mixed._sets_runs``): views into the scratch at MS_MIX
    and the sizes of its contract."""
    cc: np.ndarray           # counts less the cards the sets take (NCARDS)
    qb: np.ndarray           # each suit's memo slot, nothing taken (4)
    oq: np.ndarray           # memo slot of suit x with take code k at 9 * x + k (36)
    lbt: np.ndarray          # the runs' best per (E0, M0) of the sets (lbw * lbw)
    lbw: int                 # the row width of lbt: 2 * s_set + 1
    s_set: int               # size of each set
    thr: int                 # naturals a set needs (s_set - its joker cap, at least 0)
    nr: int                  # runs
    s_run: int               # size of each run


class Windows(NamedTuple):
    """Candidate run windows of one suit (``runs._suit_windows``), entry i of each."""
    lo: np.ndarray           # first position
    length: np.ndarray       # positions
    ranks: np.ndarray        # ranks it covers (mask)
    thr: np.ndarray          # threshold L - cap(L), at least 0


class WindowList(NamedTuple):
    """The one-run path's candidate windows (``memo._window_bound`` appends to it) and the
    sets' least costs that its lower bound k = max(e + es_min, m + ms_min - jokers) adds."""
    cw: np.ndarray           # suit | L << 6
    ch: np.ndarray           # ranks held
    ck: np.ndarray           # lower bound k
    cme: np.ndarray          # m | e << 8
    es_min: int
    ms_min: int
    jokers: int


class Leaf(NamedTuple):
    """The general search's shapes (meld i: suit or rank, lo, L) and its buffers for the
    cost of a leaf (``search._leaf_em``, ``search._flow_cost``)."""
    shape_a: np.ndarray      # suit (run) or rank (set)
    shape_b: np.ndarray      # lo (run)
    shape_l: np.ndarray      # L
    dem: np.ndarray          # run demand per card type (zero between leaves)
    grp_rank: np.ndarray     # set groups: rank,
    grp_s: np.ndarray        #   summed sizes,
    grp_t: np.ndarray        #   summed thresholds
    flow_tm: np.ndarray      # flow card type -> meld (NCARDS x MAX_MELDS)
    tlist: np.ndarray        # card types in the flow
