"""The kernel cache is keyed per module by its dependency closure, and several processes may
fill it at once (kernels/compile/cache.py, precompile.py)."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import shanghai_sim
from shanghai_sim import precompile
from shanghai_sim.kernels.compile import cache

PKG = Path(shanghai_sim.__file__).resolve().parent
KERNELS = PKG / "kernels"

# a listener that counts the functions numba really compiles (a cache load fires no event)
COUNT_COMPILES = """
from numba.core import event
class Count(event.Listener):
    n = 0
    def on_start(self, e): Count.n += 1
    def on_end(self, e): pass
event.register("numba:compile", Count())
"""


def _copied_sources(tmp_path, edit=None):
    """A copy of kernels/ elsewhere, its sources by key (``edit``: a path below kernels/ to edit)."""
    dst = tmp_path / "kernels"
    shutil.copytree(KERNELS, dst, ignore=shutil.ignore_patterns("__pycache__"))
    if edit:
        with open(dst / edit, "a") as f:
            f.write("\n# an edit\n")
    return {cache.module_key(p.relative_to(dst).as_posix()): p for p in sorted(dst.rglob("*.py"))
            if cache.is_kernel_source(p.relative_to(dst).as_posix())}


def test_a_closure_is_what_a_module_can_reach_through_its_imports():
    clo = cache.closures()
    # the meld finder reaches the finder's modules, the layout and the linking, nothing above
    for key in ("melds.finder", "melds.deficiency", "melds.lay"):
        assert not {"bots.players", "engine.play", "search.rollout", "games.dispatch", "games.batch"} & set(clo[key])
    assert "bots.players" not in clo["engine.play"] and "engine.play" in clo["bots.players"]
    assert {"bots.players", "search.rollout", "engine.play", "melds.finder", "games.dispatch"} <= set(clo["games.batch"])
    # the oracle reaches the honest search; nothing honest reaches the oracle
    assert {"search.rollout", "search.sample", "search.playout"} <= set(clo["search.oracle"])
    assert not {k for k in ("search.rollout", "search.sample", "search.playout") if "search.oracle" in clo[k]}
    assert clo["base.rng"] == ("base.rng",)
    # every kernel module of every sub-folder has a key, and the compile machinery but linking none
    assert {k.split(".")[0] for k in clo} == {"base", "melds", "engine", "bots", "search", "games", "compile"}
    assert [k for k in clo if k.startswith("compile.")] == ["compile.linking"]
    for stem, members in clo.items():          # closed: every member's closure is inside it
        for m in members:
            assert set(clo[m]) <= set(members), (stem, m)


def test_editing_bots_changes_the_key_of_the_modules_that_reach_it_only(tmp_path):
    edited = cache.module_hashes(_copied_sources(tmp_path, edit="bots/players.py"))
    changed = {key for key, h in edited.items() if h != cache.MODULE_HASHES[key]}
    assert changed == {key for key, clo in cache.closures().items() if "bots.players" in clo}
    assert changed == {"bots.players", "games.dispatch", "games.batch", "games.positions", "search.sample",
                       "search.playout", "search.rollout", "search.oracle"}
    # the same sources elsewhere: the same keys (a wheel and a checkout share the cache)
    (tmp_path / "again").mkdir()
    assert cache.module_hashes(_copied_sources(tmp_path / "again")) == cache.MODULE_HASHES


def test_the_hand_analysis_recompiles_nothing_after_an_edit_to_the_bots(tmp_path):
    """issue #32: a copy of the package with kernels/bots/players.py edited loads the meld finder from
    the cache this test session's warm-up filled, compiling nothing."""
    copy = tmp_path / "pkg"
    shutil.copytree(PKG, copy / "shanghai_sim", ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "shanghai_sim" / "kernels" / "bots" / "players.py", "a") as f:
        f.write("\n# an edit\n")
    code = COUNT_COMPILES + textwrap.dedent("""
        import shanghai_sim
        from shanghai_sim.kernels.compile import cache
        from shanghai_sim.precompile import _hand_analysis
        _hand_analysis()
        print(shanghai_sim.__file__)
        print(cache.MODULE_HASHES["bots.players"], cache.MODULE_HASHES["melds.deficiency"])
        print(Count.n)
    """)
    env = dict(os.environ, PYTHONPATH=str(copy))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split()
    assert out[0].startswith(str(copy))                       # the copy ran, not the checkout
    assert out[1] != cache.MODULE_HASHES["bots.players"] and out[2] == cache.MODULE_HASHES["melds.deficiency"]
    assert out[3] == "0", f"{out[3]} kernels compiled after an edit to bots/players.py"


def test_an_edit_to_a_kernel_in_a_sub_folder_recompiles_it(tmp_path):
    """The cache key covers every kernel source below kernels/, at any depth: with a cache
    holding the random stream's kernels (kernels/base/rng.py), a copy of the package with that
    file edited compiles them again (its old machine code is never loaded) into a folder keyed
    by the new hash, while an unedited copy loads them."""
    code = COUNT_COMPILES + textwrap.dedent("""
        from shanghai_sim.kernels.compile import cache
        from shanghai_sim.kernels.base.rng import game_seed_nb
        game_seed_nb(1, 0)
        print(cache.MODULE_HASHES["base.rng"], cache.module_cache_dir("base.rng").is_dir(), Count.n)
    """)
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=str(tmp_path / "cache"))
    runs = []
    for name, edit in (("first", False), ("same", False), ("edited", True)):
        copy = tmp_path / name
        shutil.copytree(PKG, copy / "shanghai_sim", ignore=shutil.ignore_patterns("__pycache__"))
        if edit:
            with open(copy / "shanghai_sim" / "kernels" / "base" / "rng.py", "a") as f:
                f.write("\n# an edit\n")
        env["PYTHONPATH"] = str(copy)
        runs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True, cwd=tmp_path).stdout.split())
    (h0, made0, n0), (h1, made1, n1), (h2, made2, n2) = runs
    assert h0 == h1 == cache.MODULE_HASHES["base.rng"] and h2 != h0
    assert made0 == made1 == made2 == "True"
    assert int(n0) > 0 and n1 == "0" and int(n2) > 0       # compiled, loaded, compiled again


SAVER = """
import sys, time
import shanghai_sim.kernels                      # installs the locked save
from numba.core import caching
folder, who, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
f = caching.IndexDataCacheFile(folder, "k", "stamp")
while time.time() < start:
    pass
for i in range(40):
    f.save((who, i), (who, i, "x" * 2000))
"""


def test_two_processes_saving_into_one_index_keep_every_entry(tmp_path):
    """numba's save is read-modify-write of the index: without the lock two writers lose entries
    or give two signatures one data file; with it every entry loads back as saved."""
    import time

    from numba.core import caching
    start = time.time() + 2.0
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(tmp_path), who, str(start)])
             for who in ("a", "b")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    f = caching.IndexDataCacheFile(str(tmp_path), "k", "stamp")
    for who in ("a", "b"):
        for i in range(40):
            assert f.load((who, i)) == (who, i, "x" * 2000), (who, i)


def test_the_warm_up_plan():
    assert len(precompile._COST) == len(precompile.STEPS)
    assert 1 <= precompile.default_jobs() <= precompile.MAX_JOBS
    # this session's warm-up ran to the end, so the next one loads in one process
    assert precompile.cache_is_warm()


@pytest.mark.slow
def test_a_parallel_warm_up_from_cold_leaves_a_cache_a_fresh_process_loads(tmp_path):
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=str(tmp_path / "cache"))
    subprocess.run([sys.executable, "-c", "from shanghai_sim.precompile import warmup; "
                    "warmup(stream=None, jobs=2)"], env=env, check=True)
    code = COUNT_COMPILES + textwrap.dedent("""
        from shanghai_sim.precompile import warmup
        warmup(stream=None, jobs=1)
        print(Count.n)
    """)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[-1] == "0", f"{out[-1]} kernels compiled again after the parallel warm-up"


# ---------------------------------------------------------------- each command its own kernels

PROBE = textwrap.dedent("""
    import json, sys
    from numba.core.registry import CPUDispatcher
    from shanghai_sim.cli.main import main
    try:
        main(sys.argv[1:], standalone_mode=False)
    except SystemExit:
        pass
    used, engine = set(), []
    for name, mod in list(sys.modules.items()):
        if name.startswith("shanghai_sim.kernels."):
            for attr, obj in vars(mod).items():
                if isinstance(obj, CPUDispatcher) and obj.overloads and obj.__module__ == name:
                    used.add(name[len("shanghai_sim.kernels."):] + "." + attr)
    from shanghai_sim.kernels.games import batch as E
    # the workspace W and the smart flag SM of the engine the command called: none types mean
    # the search bots' or the smart bot's code was pruned from it (kernels.games.dispatch). The batch
    # commands call play_games_on_nb, replay play_game_nb. (A cached caller loads every cached
    # signature of a separate callee, kernels.compile.linking, so play_game_nb under play_games_on_nb
    # may show more than the command compiles.)
    entry = E.play_games_on_nb if E.play_games_on_nb.signatures else E.play_game_nb
    for sig in entry.signatures:
        engine.append([str(sig[2]), str(sig[3])])
    print(json.dumps([sorted(used), engine]))
""")


def _kernels_used(tmp_path, *args):
    import json
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                       cwd=tmp_path, env=dict(os.environ, SHANGHAI_SIM_QUIET_COMPILE="1"))
    assert r.returncode == 0, r.stderr[-2000:]
    used, engine = json.loads(r.stdout.strip().splitlines()[-1])
    return {k.rsplit(".", 1)[0] for k in used}, {tuple(e) for e in engine}     # module keys


NONE = ("none", "none")


def test_each_command_compiles_only_the_kernels_it_runs(tmp_path):
    """issue #32: a command compiles (or loads) its own entry points and what they call: the meld
    finder alone for `meld`, an engine without the smart and search code for greedy line-ups."""
    mods, engine = _kernels_used(tmp_path, "meld", "5C", "6C", "7C", "8C", "9D", "9H", "9S",
                                 "JK", "KD", "--contract", "2")
    assert "melds.deficiency" in mods and not engine
    assert {m.split(".")[0] for m in mods} == {"melds"}
    for args in (("run", "--games", "4", "--out", "o", "--quiet"),
                 ("replay", "--seed", "3", "--bots", "greedy"),
                 ("experiment", "--baseline", "greedy", "--variant", "greedy:buy8=never",
                  "--hand", "8", "--games", "4", "--out", "e")):
        mods, engine = _kernels_used(tmp_path, *args)
        assert engine == {NONE} and not any(m.startswith("search.") for m in mods), (args, engine)
    mods, engine = _kernels_used(tmp_path, "tournament", "--bots", "smart,greedy,greedy,greedy",
                                 "--deals", "2", "--out", "t")
    assert engine == {("none", "bool")} and not any(m.startswith("search.") for m in mods), engine


# ---------------------------------------------------------------- one compile per kernel

LOCKER = COUNT_COMPILES + textwrap.dedent("""
    import sys, time
    from shanghai_sim.kernels.compile import cache
    from shanghai_sim.kernels.base.rng import splitmix64_nb
    who, start = sys.argv[1], float(sys.argv[2])
    if who == "first":
        compile_ = cache._NUMBA_COMPILE
        def slow(self, sig):                 # holds the kernel's lock for 3 s
            time.sleep(3.0)
            return compile_(self, sig)
        cache._NUMBA_COMPILE = slow
    else:
        start += 1.0                         # asks while the first one is compiling
    while time.time() < start:
        time.sleep(0.01)
    splitmix64_nb(5)
    print(Count.n, sum(splitmix64_nb._cache_hits.values()), time.time() - start)
""")


def test_a_kernel_two_processes_need_is_compiled_once(tmp_path):
    """The second process waits for the first one's compile of the same kernel and signature,
    then loads it from the cache instead of compiling it as well (kernels.compile.cache._compile_once)."""
    import time
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=str(tmp_path / "cache"))
    start = time.time() + 3.0
    procs = [subprocess.Popen([sys.executable, "-c", LOCKER, who, str(start)], env=env,
                              stdout=subprocess.PIPE, text=True) for who in ("first", "second")]
    (first, _), (second, _) = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    n1, hits1, _ = first.split()
    n2, hits2, waited = second.split()
    assert (n1, hits1) == ("1", "0")         # the first compiled it
    assert (n2, hits2) == ("0", "1")         # the second loaded it from the cache ...
    assert float(waited) > 1.0               # ... after waiting for the first one's compile


HELPER_ON_WARM = COUNT_COMPILES + textwrap.dedent("""
    from shanghai_sim import compiling as C, precompile as P
    P._batch_engine()                        # loads the engine from the warm cache
    Count.n = 0
    C._finder_half()
    C._lay_half()
    print(Count.n, C._engine_cold())
""")


def test_the_first_run_helper_asks_for_the_engines_own_signatures():
    """engine_helper's process starts on two kernels the engine calls, by signature (the rest
    it takes from the command's announcements, with the command's own types): after the
    engine is loaded both load from the cache too (a type that differed would compile an
    extra signature nobody calls). And with the engine cached no helper is started."""
    r = subprocess.run([sys.executable, "-c", HELPER_ON_WARM], capture_output=True, text=True,
                       env=dict(os.environ, SHANGHAI_SIM_QUIET_COMPILE="1"), timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["0", "False"]


HAND_HELPER_ON_WARM = COUNT_COMPILES + textwrap.dedent("""
    from shanghai_sim import compiling as C, precompile as P
    P._hand_analysis()                       # loads the finder and the lay-down search
    Count.n = 0
    C._lay_half()
    print(Count.n, C._hand_cold())
""")


def test_the_meld_helper_asks_for_analyze_hands_own_signature():
    """hand_helper's process (a cold `shanghai-sim meld`) compiles the lay-down search with
    the argument types analyze_hand passes: once analyze_hand has run, it compiles nothing
    (another type would compile a signature nobody calls), and with the search cached no
    helper is started."""
    r = subprocess.run([sys.executable, "-c", HAND_HELPER_ON_WARM], capture_output=True, text=True,
                       env=dict(os.environ, SHANGHAI_SIM_QUIET_COMPILE="1"), timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["0", "False"]
