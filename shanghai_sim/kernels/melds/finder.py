"""The meld finder: exact hand analysis of docs/rules.md §6, compiled with numba.

Conventions
-----------
- ``counts``: int64[53], the count-array layout of ``shanghai_sim.cards``.
- Run positions 0..13 within a suit: position p is rank index ``p % 13``, so the
  ace stands at position 0 (low, before the 2) and at position 13 (high, after
  the K). A run is a window [lo, lo+L-1] of positions, 4 <= L <= 13, so it can
  never hold both aces and never wraps (docs/rules.md §4).
- A contract is given as ``kinds``/``sizes`` rows of ``RulesArrays`` (sets
  first, then runs, each by size) and ``nm`` melds; ``joker_cap[L]`` is the
  number of jokers a meld of L cards may hold (docs/rules.md §3 joker_limit).

The deficiency model
--------------------
Deficiency asks for the fewest natural cards to add. Added cards count as
naturals for the joker limit, so a lay-down is a choice, per meld i, of a
shape (set: rank and size; run: suit and window) of L_i cards of which the
hand supplies f_i naturals; the m_i = L_i - f_i missing slots are filled by
hand jokers (at most ``joker_cap[L_i]`` in the meld, J in all) or by added
naturals. Writing w_i = min(m_i, cap_i) and e_i = m_i - w_i (slots only an
added card can fill), the fewest added cards for those shapes are
    E + max(0, W - J) = max(E, M - J)        (E, W, M summed over melds).
Sets of rank r with several melds on one rank are one *group*: with k hand
naturals shared among sets of sizes s_j, E_group = max(0, sum(s_j - cap_j) - k)
(give each set naturals up to its threshold first).

The search enumerates shapes with a branch and bound:
- sets never need more than their contract size; a run longer than its size
  is only worth trying when both of its ends are hand naturals (shrinking a
  run from a missing end lowers m by 1 and the cap by at most 1), so
  candidates are few;
- each shape's cost computed as if it had every hand card it covers is a
  lower bound for it, so partial sums plus each remaining meld's best bound
  prune whole subtrees, and the search stops when it reaches the root bound;
- at a leaf, cards wanted by two melds are allocated exactly by a tiny max
  flow: first to slots that only added cards could fill otherwise (this
  lowers E), then to any slot (this lowers M). A gammoid argument makes the
  two-phase flow optimal for both at once.

Modules (each imports only those above it): ``bundles`` (the named tuples the kernels
pass down: ``Finder``, a fast path's per-call context; ``Mixed``, ``Windows``,
``WindowList``, ``Leaf``), ``search`` (the general search), ``bits`` (fast-path
primitives), ``sets`` (sets only), ``memo`` (the memo and window table), ``onerun`` (one
run with sets), ``runs`` (runs only), ``mixed`` (one or two sets with two or three runs),
``deficiency`` (the dispatcher that picks a fast path or the general search), ``lay``
(lay-down). Every name stays importable from here.
"""

from ..base.layout import (Contract, CACHE_BITS, FP, JOKER, LAY_W, MEMO_T, MS_PMASK, MS_RC, MS_RUN_CNT,
                     MS_FRONT, MS_SUIT_CNT, MS_WIN_L, MS_WIN_LO, MS_WIN_R, MS_WIN_T, MS_WR, NPOS, RUN,
                     SCRATCH, SET, WT_SIZES, WT_W, new_cache)  # noqa: F401
from ..base.layout import MAX_MELDS as MAXM  # noqa: F401
from .bundles import Finder, Leaf, Mixed, WindowList, Windows  # noqa: F401
from .search import INF, MAXC, _flow_cost, _leaf_cost, _leaf_em, _pos_rank, _run_candidates, _search, _suit_counts, _touches, runs_touch, win_maxl, win_skip  # noqa: F401
from .bits import MAXR, MEMO_MIN, PARTS, PART_START, PMAX, RESERVED, _fold, _partition_table, _partitions, _prefetch, popcount  # noqa: F401
from .sets import _next_perm, _sets_cost, _sets_cost_transfer, _sets_em, _top  # noqa: F401
from .memo import _all_windows, _hslot, _ml_order, _win_entry, _window_fill, _window_slot, _wt_entry, _wt_row, memo_trim_nb  # noqa: F401
from .onerun import NLV, _class_top, _levels, _one_run, _one_run_one_set, _one_run_sets, _sets_v, _two_sets  # noqa: F401
from .runs import _best_split, _front_min, _pair_min, _pareto_add, _runs_fast, _runs_only, _split_min, _suit_fill, _suit_front, _suit_front3, _suit_front4, _suit_front_small, _scratch_windows, _suit_key, _suit_setup, _suit_slot, _suit_store, _suit_windows, _touch  # noqa: F401
from .mixed import MIX_W, _group_em, _lb_of, _lb_split, _ranks_choice, _sets_runs, _take_slot  # noqa: F401
from .deficiency import deficiency_batch_nb, deficiency_in_nb, deficiency_nb, deficiency_ws_nb  # noqa: F401
from .lay import _lay_runs_by_suit, _lay_search, _lay_undo, laydown_nb, laydown_sat_nb, max_laid_nb  # noqa: F401

