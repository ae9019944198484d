"""Primitives shared by the fast paths: bit counts, prefetch, the partition table, and
the sizes of their buffers.
"""

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ..base.layout import MAX_MELDS as MAXM  # melds per contract
from ..base.layout import NRANKS


# ---------------------------------------------------------------- fast paths
#
# The general search (meld_search) is exact for every contract; the contracts of the
# presets have structure that makes most of it unnecessary:
# - sets only: a set never needs more than its size, only the ns ranks with
#   most cards matter, and t sets sharing a rank behave as one group, so the
#   answer is a minimum over the integer partitions of ns (blocks matched to
#   ranks in sorted order, which is optimal for both E and M by an exchange
#   argument: both are sums of max(0, a*t - c), convex in t - c);
# - runs only (one run size): suits do not interact, so each suit's Pareto
#   front of (E, M) for t = 0..nr runs is computed once per suit content and
#   memoised (``cache``); the fronts of the four suits are then combined
#   (``_runs_fast`` reads them in place for 2-4 runs and at most two copies
#   of a card, ``_runs_only`` otherwise);
# - one or two sets with two or three runs (one size each, at most two copies of a
#   card): for each choice of the sets' ranks and of the cards of those ranks they
#   take, the runs' best split of the per-suit fronts of what is left
#   (``meld_mixed``), choices taken in the order of a lower bound;
# - one run and sets of one size: the run's windows in a suit, reduced to the
#   undominated ones and memoised by the suit's position mask
#   (``_window_slot``); the sets take what the run leaves, and a set group
#   short of its threshold may take back the one card of its rank the run
#   holds while the run has joker room (each such transfer lowers E by one,
#   M unchanged). ``_one_run_one_set`` / ``_one_run_sets`` read the sets'
#   best ranks off rank-count level masks; ``_one_run`` is the general form
#   (and the path of small memos, which would refill on every call).
# Anything else (three or more sets with several runs, mixed sizes) uses the general search.

MAXR = 4                 # runs per contract handled by the per-suit fronts
PMAX = 48                # Pareto points while combining suits
MEMO_MIN = 4096           # smaller memos skip the memoised fast paths
RESERVED = 5             # last memo slots: per-suit fronts and a window list when the memo is full


def _partitions(n, maxpart=None):
    if maxpart is None:
        maxpart = n
    if n == 0:
        yield []
        return
    for k in range(min(n, maxpart), 0, -1):
        for rest in _partitions(n - k, k):
            yield [k] + rest


def _partition_table():
    rows, start = [], []
    for n in range(MAXM + 1):
        start.append(len(rows))
        for part in _partitions(n):
            rows.append(part + [0] * (MAXM - len(part)))
    start.append(len(rows))
    return np.array(rows, dtype=np.int64), np.array(start, dtype=np.int64)


PARTS, PART_START = _partition_table()


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer, as int64: LLVM's ctpop, the CPU's popcnt.
    (A 16384-entry table of counts was 128 KB of cache traffic on the hot paths.)"""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return context.cast(builder, builder.ctpop(args[0]), x, types.int64)
    return types.int64(x), codegen


@intrinsic
def _prefetch(typingctx, arr, i):
    """Ask the CPU to start loading row i of arr into the cache (llvm.prefetch; no effect
    on results), so that a few independent cache misses overlap with other work."""
    if not isinstance(arr, types.Array) or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        idx = [context.cast(builder, args[1], signature.args[1], types.intp)] + [zero] * (aryty.ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        # the typed-pointer name of older LLVMs; LLVMs with opaque pointers (checked:
        # LLVM 22, llvmlite 0.50) upgrade it to llvm.prefetch.p0 when they read the IR
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.none(arr, i), codegen


@nb.njit(cache=True, inline="always")
def _fold(w):
    """Window mask over positions 0..13 -> rank mask (position 13 is the ace, rank 0)."""
    return (w & 0x1FFF) | (w >> 13)


@nb.njit(cache=True, inline="always")
def rank_count_nb(counts, r):
    """The natural cards of rank r in a count array, all four suits."""
    return counts[r] + counts[NRANKS + r] + counts[2 * NRANKS + r] + counts[3 * NRANKS + r]
