"""Two of numba's front-end analyses, faster, with the same results (compile time only).

Profiled on a cold compile of the engine alone (``cProfile``, every callee cached: 65 s),
two pure-Python analyses of numba that grow with the size of the inlined body were a
third of it:

- **Liveness** (``numba.core.analysis.compute_live_map``), run after every inlining step,
  every rewrite and before lowering: about 1,200 times for the engine. Its first half,
  ``def_reach``, pushes the set of every variable defined or used so far along every edge
  of the control-flow graph; in the engine's body (about 1,100 blocks, tens of thousands
  of variables) each block's set holds most of the variables above it: 10.5 s of Python
  ``set`` unions. Here the same two fixed points run on Python integers used as bit
  sets (0.3 s). Both are least fixed points of monotone equations, so the order of the
  sweeps does not change them: every block gets exactly numba's live set.
- **SSA reconstruction** (``numba.core.ssa``): for each variable assigned more than once
  numba rewrites every statement of every block twice (about 2.8 million statement visits
  for the engine), though only the blocks that name the variable can change. Here each
  variable's two rewrites visit only those blocks (found in one pass before), in the same
  order, so the fresh names and phi nodes come out in the same order; the other blocks are
  copied as they are.

``install`` patches only a numba whose functions have the expected source; any other is
left alone. Every call of the engine's compile was compared with numba's own (the same
live sets, the same IR); ``tests/test_compile.py`` makes that comparison on the finder's
runs path and compares the machine code with and without. This module compiles no kernel, so
the cache's source hash leaves it out (``kernels.compile.cache``).
"""

from __future__ import annotations

import inspect
import re
import threading

from collections import defaultdict

from numba.core import analysis as _analysis
from numba.core import ir as _ir
from numba.core import ir_utils as _ir_utils
from numba.core import ssa as _ssa

from .inlining import switched_off

_ORIGINAL = _analysis.compute_live_map
_ORIGINAL_RUN_SSA = _ssa._run_ssa
_ORIGINAL_REWRITE = _ssa._run_block_rewrite
_TLS = threading.local()
_INSTALLED = False
_ONE = re.compile("1")

# The lines of numba's function whose meaning this module reproduces.
_EXPECTED_LINES = (
    "used_or_defined = var_def_map[offset] | var_use_map[offset]",
    "dct[offset] |= used_or_defined",
    "dct[out_blk] |= dct[offset]",
    "reachable = live_vars & def_reach_map[inc_blk]",
    "dct[inc_blk] |= reachable - var_def_map[inc_blk]",
    "live_map[offset] = set(var_use_map[offset])",
    "def_reach_map = defaultdict(set)",
    "topo_order = cfg.topo_order()",
)


def compute_live_map(cfg, blocks, var_use_map, var_def_map):
    """The variables live at the entry of each block: numba's ``compute_live_map``."""
    if getattr(_TLS, "off", False):
        return _ORIGINAL(cfg, blocks, var_use_map, var_def_map)
    index: dict[str, int] = {}
    names: list[str] = []

    def bits(vs) -> int:
        if not vs:
            return 0
        pos = []
        for v in vs:
            i = index.get(v)
            if i is None:
                i = index[v] = len(names)
                names.append(v)
            pos.append(i)
        top = max(pos)
        buf = bytearray((top >> 3) + 1)
        for i in pos:
            buf[i >> 3] |= 1 << (i & 7)
        return int.from_bytes(buf, "little")

    order = cfg.topo_order()
    use = {b: bits(var_use_map[b]) for b in blocks}
    defs = {b: bits(var_def_map[b]) for b in blocks}

    # Forward: every variable defined or used on some path from the entry to a block,
    # the block included (numba's def_reach).
    succs = {b: [s for s, _ in cfg.successors(b)] for b in order}
    reach: dict = {}
    changed = True
    while changed:
        changed = False
        for b in order:
            here = reach.get(b, 0)
            new = here | defs[b] | use[b]
            if new != here:
                reach[b] = new
                changed = True
            for s in succs[b]:
                old = reach.get(s, 0)
                grown = old | new
                if grown != old:
                    reach[s] = grown
                    changed = True

    # Backward: a variable live at a block's entry is live at the exit of each
    # predecessor where it may have been defined, and at its entry unless defined there.
    preds = {b: [p for p, _ in cfg.predecessors(b)] for b in order}
    live = dict(use)
    changed = True
    while changed:
        changed = False
        for b in reversed(order):
            here = live[b]
            if not here:
                continue
            for p in preds[b]:
                add = here & reach.get(p, 0) & ~defs[p]
                old = live[p]
                if add & ~old:
                    live[p] = old | add
                    changed = True

    out = {}
    for b in blocks:
        m = live[b]
        out[b] = ({names[k.start()] for k in _ONE.finditer(format(m, "b")[::-1])}
                  if m else set())
    return out


# SSA: the blocks that name each variable, for the rewrites of the reconstruction under way.

def _run_ssa(blocks):
    """numba's ``_run_ssa``, its per-variable rewrites told which blocks name the variable."""
    if getattr(_TLS, "off", False) or not blocks:
        return _ORIGINAL_RUN_SSA(blocks)
    where = defaultdict(set)
    for label, blk in blocks.items():
        for stmt in blk.body:
            for v in stmt.list_vars():
                where[v.name].add(label)
    prev = getattr(_TLS, "where", None)
    _TLS.where = where
    try:
        return _ORIGINAL_RUN_SSA(blocks)
    finally:
        _TLS.where = prev


def _run_block_rewrite(blocks, states, handler):
    """numba's ``_run_block_rewrite``, skipping the blocks that do not name the variable.

    Its two handlers (``_FreshVarHandler``, ``_FixSSAVars``) return every statement that does
    not name ``states["varname"]`` unchanged and record nothing for it, so a block without
    the name comes out as a copy. A rename of one variable never moves another variable
    to another block (it replaces that one name in place and adds phi nodes of that name
    only), so the blocks found before the first rewrite stay right to the last.
    """
    where = getattr(_TLS, "where", None)
    name = states.get("varname")
    if (where is None or name is None
            or type(handler) not in (_ssa._FreshVarHandler, _ssa._FixSSAVars)):
        return _ORIGINAL_REWRITE(blocks, states, handler)
    labels = where.get(name, ())
    newblocks = {}
    for label, blk in blocks.items():
        newblk = _ir.Block(scope=blk.scope, loc=blk.loc)
        if label in labels:
            states["label"] = label
            states["block"] = blk
            newblk.body = list(_ssa._run_ssa_block_pass(states, blk, handler))
        else:
            newblk.body = list(blk.body)
        newblocks[label] = newblk
    return newblocks


_EXPECTED_SSA = {
    "_run_ssa": ("violators = _find_defs_violators(blocks, cfg)",
                 "blocks, defmap = _fresh_vars(blocks, varname)",
                 "blocks = _fix_ssa_vars(blocks, varname, defmap, cfg, df_plus,"),
    "_fresh_vars": ("newblocks = _run_block_rewrite(blocks, states, _FreshVarHandler())",),
    "_fix_ssa_vars": ("newblocks = _run_block_rewrite(blocks, states, _FixSSAVars(cache_list_vars))",),
    "_run_block_rewrite": ("states['label'] = label", "states['block'] = blk",
                           "for stmt in _run_ssa_block_pass(states, blk, handler):"),
    "reconstruct_ssa": ("func_ir.blocks = _run_ssa(func_ir.blocks)",),
}


def _source_has(fn, lines) -> bool:
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return False
    return all(line in src for line in lines)


def _patchable() -> bool:
    if not _source_has(_ORIGINAL, _EXPECTED_LINES):
        return False
    if getattr(_ir_utils, "compute_live_map", None) is not _ORIGINAL:
        return False
    return all(_source_has(getattr(_ssa, fn, None), lines)
               for fn, lines in _EXPECTED_SSA.items())


def install() -> bool:
    """Patch numba's liveness and SSA reconstruction (idempotent); whether they are patched."""
    global _INSTALLED
    if _INSTALLED:
        return True
    if not _patchable():
        return False
    _analysis.compute_live_map = compute_live_map
    _ir_utils.compute_live_map = compute_live_map
    _ssa._run_ssa = _run_ssa
    _ssa._run_block_rewrite = _run_block_rewrite
    _INSTALLED = True
    return True


def numba_analyses():
    """Inside: numba's own liveness and SSA (for the tests that compare them)."""
    return switched_off(_TLS)
