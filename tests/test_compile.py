"""The compile-time cuts (kernels.compile.linking, kernels.compile.inlining) change how numba compiles, never
what the kernels compute."""

import re
import subprocess
import sys
import textwrap

import numba as nb
import numpy as np
import pytest

from shanghai_sim.kernels.compile import frontend

from shanghai_sim.kernels.compile import inlining

from shanghai_sim.kernels.compile import linking
from shanghai_sim.kernels.melds import deficiency as meld_deficiency
from shanghai_sim.kernels.melds import runs as meld_runs


def _fresh(dispatcher):
    """The same kernel as a new, uncached dispatcher (its callees stay the package's)."""
    opts = {k: v for k, v in dispatcher.targetoptions.items() if k not in ("cache", "nopython")}
    return nb.njit(**opts)(dispatcher.py_func)


def _asm(f, sig):
    # the per-process id numba puts in mangled names is the only difference allowed (and
    # the size of the one string constant that spells such a name)
    lines = f.inspect_asm(sig).splitlines()
    return [re.sub(r"B\d+v\d+", "BvN", x) for x in lines if "missing Environment" not in x]


def _same_code_without(numbas_own):
    """The finder's runs path compiled with the patches and inside ``numbas_own()``."""
    sig = _runs_fast_case()
    with numbas_own():
        f0 = _fresh(meld_runs._runs_fast)
        f0.compile(sig)
    f1 = _fresh(meld_runs._runs_fast)
    f1.compile(sig)
    assert _asm(f0, sig) == _asm(f1, sig)


def test_inliner_patch_emits_the_same_code():
    assert inlining.install()        # the numba in use is one the patch knows
    _same_code_without(inlining.numba_copies)


def _runs_fast_case():
    from shanghai_sim.kernels.base import layout as L
    from shanghai_sim.rules import preset
    R = preset("shanghai").arrays(4)      # hand 3: run4 run4, the finder's _runs_fast path
    counts = np.zeros(53, np.int64)
    counts[[1, 2, 3, 4, 14, 15, 16, 30, 31, 32, 45]] = 1
    params = R.params
    C = L.Contract(R.meld_kind[2], R.meld_size[2], R.n_melds[2], R.joker_cap,
                   params.initial_exact, params.same_suit_gap)
    assert meld_deficiency.deficiency_ws_nb(counts, C, L.new_cache()) == 1
    return meld_runs._runs_fast.signatures[0]


def test_frontend_patch_emits_the_same_code():
    assert frontend.install()        # the numba in use is one the patch knows
    _same_code_without(frontend.numba_analyses)


def test_frontend_analyses_equal_numbas_on_every_call(monkeypatch):
    """Each liveness and SSA question of a compile (the finder's runs path, 21 inlined
    helpers) answered both ways: the same live sets, the same IR after SSA."""
    import contextlib
    import copy
    import io

    from numba.core import analysis, ir_utils, ssa
    assert frontend.install()
    live, run_ssa = analysis.compute_live_map, ssa._run_ssa
    seen = {"live": 0, "ssa": 0, "renamed": 0}

    def dump(blocks):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            for k in sorted(blocks):
                print(k)
                blocks[k].dump()
        return out.getvalue()

    def live_both(cfg, blocks, use, defs):
        with frontend.numba_analyses():
            want = live(cfg, blocks, use, defs)
        got = live(cfg, blocks, use, defs)
        assert got == want
        seen["live"] += 1
        return got

    def ssa_both(blocks):
        before = dump(blocks)
        theirs = copy.deepcopy(blocks)
        with frontend.numba_analyses():
            want = run_ssa(theirs)
        got = run_ssa(blocks)
        assert dump(got) == dump(want)
        seen["ssa"] += 1
        seen["renamed"] += dump(got) != before
        return got

    monkeypatch.setattr(analysis, "compute_live_map", live_both)
    monkeypatch.setattr(ir_utils, "compute_live_map", live_both)
    monkeypatch.setattr(ssa, "_run_ssa", ssa_both)
    monkeypatch.setattr(inlining, "_UNTYPED", {})     # the inlined helpers' passes run again
    sig = _runs_fast_case()
    _fresh(meld_runs._runs_fast).compile(sig)
    assert seen["live"] > 30 and seen["ssa"] > 0 and seen["renamed"] > 0


def test_separate_kernel_is_called_not_copied():
    # the finder calls its runs path through its cell: a pointer its module names, not code
    # defined there
    from shanghai_sim.kernels.base import layout as L
    from shanghai_sim.rules import preset
    R = preset("shanghai").arrays(4)
    counts = np.zeros(53, np.int64)
    counts[[1, 2, 3, 4, 14, 15, 16, 30, 31, 32, 45]] = 1
    params = R.params
    args = (counts, L.Contract(R.meld_kind[2], R.meld_size[2], R.n_melds[2],
                               R.joker_cap, params.initial_exact, params.same_suit_gap))
    f = _fresh(meld_deficiency.deficiency_ws_nb)
    assert f(*args, L.new_cache()) == meld_deficiency.deficiency_ws_nb(*args, L.new_cache()) == 1
    ir = f.inspect_llvm(f.signatures[0])
    cell = re.escape(linking._cell_prefix("shanghai_sim.kernels.melds.runs", "_runs_fast"))
    assert re.search(r"@\"?" + cell + r"[0-9a-f]{16}\"? = external [^\n]*global", ir)
    name = re.escape(linking._mangled_prefix("shanghai_sim.kernels.melds.runs", "_runs_fast").decode())
    assert not re.search(r"define [^\n]*@\"?" + name, ir)


_TOY = """
import numba as nb
from shanghai_sim.kernels.compile.linking import separate

@separate
@nb.njit(cache=True)
def big_nb(a, k):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] * k + (a[i] >> 3)
    return s

@nb.njit(cache=True)
def mid_nb(a):
    return big_nb(a, 3) + 1

@nb.njit(cache=True)
def top_nb(a):
    return mid_nb(a) * 2
"""

_RUN = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import shanghai_sim.kernels  # noqa: F401  (installs the patches)
import toy
print(toy.top_nb(np.arange(10)), toy.top_nb.stats.cache_hits and 1 or 0,
      toy.big_nb.stats.cache_hits and 1 or 0)
"""


def test_separate_kernels_from_the_cache(tmp_path):
    # a cached caller names its separate callee's cell; the cell's argument types are kept
    # beside the callee's cache index, so the callee is loaded, or compiled if its own entry
    # is gone; without those types the cached caller is compiled again instead
    (tmp_path / "toy.py").write_text(textwrap.dedent(_TOY))

    def run():
        r = subprocess.run([sys.executable, "-c", _RUN, str(tmp_path)], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    cache = tmp_path / "__pycache__"
    assert run() == ["276", "0", "0"]       # compiled
    assert run() == ["276", "1", "1"]       # both from the cache
    for p in cache.glob("toy.big_nb*.nb[ic]"):
        p.unlink()
    assert list(cache.glob("toy.big_nb*.cell"))
    assert run() == ["276", "1", "0"]       # the caller from the cache, big_nb compiled for it
    for p in cache.glob("toy.big_nb*"):
        p.unlink()
    assert run() == ["276", "0", "0"]       # no cell types: the cached caller refused
    assert run() == ["276", "1", "1"]


def test_a_separate_kernel_returns_what_it_declares():
    @linking.separate(returns=nb.boolean)
    @nb.njit
    def wrong_nb(a):
        return a[0] + 1

    @nb.njit
    def caller_nb(a):
        return wrong_nb(a)

    with pytest.raises(TypeError, match="wrong_nb is declared to return bool"):
        caller_nb(np.arange(3))
    # the failed kernel is not added, and no later compile tries it again
    assert not wrong_nb.overloads

    @nb.njit
    def other_nb(a):
        return a[0] * 2

    assert other_nb(np.arange(1, 3)) == 2


_ANNOUNCER = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from shanghai_sim.kernels.compile import linking
import toy
linking.announce_to(sys.argv[2])
print(toy.mid_nb(np.arange(10)))
"""

_TAKER = """
import sys
sys.path.insert(0, sys.argv[1])
from shanghai_sim.kernels.compile import linking
import toy
linking.compile_announced(sys.argv[2], wait=0.0, until=lambda: bool(toy.big_nb.signatures))
print(toy.big_nb.signatures, toy.big_nb.stats.cache_misses and 1 or 0)
"""


def test_a_helper_compiles_the_kernels_a_command_announces(tmp_path):
    # compiling.engine_helper: the command writes each separate kernel it finds it needs
    # (with its argument types) to a file; the helper compiles them into its cache
    queue = tmp_path / "queue"
    for who in ("command", "helper"):
        (tmp_path / who).mkdir()
        (tmp_path / who / "toy.py").write_text(textwrap.dedent(_TOY))
    r = subprocess.run([sys.executable, "-c", _ANNOUNCER, str(tmp_path / "command"), str(queue)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["138"]
    assert len(queue.read_text().splitlines()) == 1          # big_nb, once
    r = subprocess.run([sys.executable, "-c", _TAKER, str(tmp_path / "helper"), str(queue)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    # the call's own types (the 3 is a literal to numba), compiled there, not loaded
    assert "Array(int64, 1, 'C'" in r.stdout and "Literal[int](3)" in r.stdout
    assert r.stdout.split()[-1] == "1"
    assert list((tmp_path / "helper" / "__pycache__").glob("toy.big_nb*.nbc"))


_WRAPPED = """
import numba as nb

@nb.njit
def inner_nb(x):
    return x + 1

@nb.njit
def outer_nb(x):
    return inner_nb(x) * 2
"""


def _wrapper_address(disp, args):
    cres = disp.overloads[args]
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_cpython_wrapper_name)


def test_a_kernel_only_kernels_call_has_no_python_wrapper():
    # compiled for its caller: no CPython wrapper, and not callable from Python as it is;
    # a call from Python compiles it again, with its wrapper, and the caller still works
    ns = {"__name__": "shanghai_sim.kernels.wrappers_case"}      # a kernel module's own
    exec(textwrap.dedent(_WRAPPED), ns)
    inner, outer = ns["inner_nb"], ns["outer_nb"]
    args = (nb.int64,)
    assert outer(3) == 8
    assert _wrapper_address(outer, args) != 0
    assert _wrapper_address(inner, args) == 0
    assert (id(inner), args) in linking._BARE
    assert inner(3) == 4
    assert _wrapper_address(inner, args) != 0
    assert (id(inner), args) not in linking._BARE
    assert outer(5) == 12
    # outside the kernel modules numba's own way: every kernel has its wrapper
    other = {"__name__": "elsewhere"}
    exec(textwrap.dedent(_WRAPPED), other)
    assert other["outer_nb"](3) == 8
    assert _wrapper_address(other["inner_nb"], args) != 0


def test_the_cache_keeps_kernels_without_wrappers_apart():
    # the finder's runs path, compiled for its caller's cell: cached under its own key
    sig = _runs_fast_case()
    keys = [k for k in meld_runs._runs_fast._cache._cache_file._load_index() if k[0] == sig]
    assert any(k[-1] == linking.NO_WRAPPERS for k in keys)
    assert linking._cached(meld_runs._runs_fast, sig)


def test_a_kernel_python_calls_keeps_its_wrappers_under_its_callers_too():
    # replay calls play_game_nb from Python, the batch engine from play_games_on_nb: compiled
    # with its wrappers for both, once (not once without them and again with them)
    from shanghai_sim.kernels.games.batch import play_game_nb
    from shanghai_sim.precompile import _batch_engine
    called = linking.python_called()
    assert {"play_game_nb", "seat_action_nb", "deficiency_nb", "search_nb"} <= called
    assert not {"_runs_fast", "_sets_runs", "deficiency_ws_nb", "_lay_search"} & called
    clause = "(a,  # the first\n    b as c)"
    assert linking._imported(clause) == ["a", "b"] and linking._imported(clause, True) == ["a", "c"]
    _batch_engine()                    # one game through play_games_on_nb, as `run` plays it
    assert play_game_nb.overloads
    index = play_game_nb._cache._cache_file._load_index()
    for args in play_game_nb.overloads:
        assert _wrapper_address(play_game_nb, args) != 0
        assert (id(play_game_nb), args) not in linking._BARE
        keys = [k for k in index if k[0] == args]
        assert keys and all(k[-1] != linking.NO_WRAPPERS for k in keys)


def test_a_kernel_wanted_without_wrappers_loads_the_one_cached_with_them():
    # a caller's cell wants the kernel without wrappers; cached only with them (Python called
    # it first), that one is loaded, and entered in Python's table as the whole thing it is
    from shanghai_sim.kernels.games.batch import play_game_nb
    from shanghai_sim.precompile import _batch_engine
    _batch_engine()
    args = next(iter(play_game_nb.overloads))
    stack = linking._stack()
    stack.append(False)                # the compile in progress leaves wrappers out
    try:
        key = play_game_nb._cache._index_key(args, play_game_nb.targetctx.codegen())
        assert key[-1] == linking.NO_WRAPPERS
        assert play_game_nb._cache._cache_file.load(key) is None
        cres = play_game_nb._cache.load_overload(args, play_game_nb.targetctx)
        assert cres is not None
        play_game_nb.add_overload(cres)
    finally:
        stack.pop()
    assert play_game_nb.overloads[args] is cres
    assert (id(play_game_nb), args) not in linking._BARE
    assert _wrapper_address(play_game_nb, args) != 0
