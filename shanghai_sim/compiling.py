"""A second core for a command's first compile: helper processes that compile half of what a
cold command needs while the command compiles the rest (README's main job and ``meld``:
BENCHMARKS.md, First use).

``engine_helper`` wraps a command's first engine call (the batch runner's, ``runner.execute``):
a helper compiles the meld finder's largest fast path, the lay-down search, and then the
separate kernels the command announces as it finds them (``kernels.compile.linking``).
``hand_helper`` wraps ``meld``'s first hand analysis: a helper compiles the lay-down search
while the command compiles the deficiency. A kernel both need is compiled once, by whichever
reaches it first (``kernels.compile.cache``); a helper is stopped when its block ends, and
nothing depends on it finishing. Over ``hand``, ``rules`` and the kernels only: the runner
calls it, and ``precompile`` (the warm-up, over the runner) uses :func:`cores`.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                   # not Linux
        return os.cpu_count() or 1


def _finder_half() -> None:
    """The largest fast path of the meld finder (``meld_mixed._sets_runs``, about 40% of the
    finder's compile), compiled by its signature in the engine (nothing runs): the half of
    the finder a helper compiles while the command compiles the rest."""
    import numba
    import numpy as np

    from .kernels.base.layout import new_cache
    from .kernels.melds.bundles import Finder
    from .kernels.melds.mixed import _sets_runs
    from .rules import preset
    M = new_cache()
    joker_cap = preset("shanghai").arrays(4).joker_cap
    i = np.int64(0)
    F = Finder(i, joker_cap, i, i, M.mkeys, M.mvals, M.mn, M.wt, M.mscr)    # as deficiency_in_nb builds it
    # (F, counts, ns, s_set, nr, s_run, lo, hi)
    args = (F, np.zeros(53, np.int64), i, i, i, i, i, i)
    _sets_runs.compile(tuple(numba.typeof(a) for a in args))


def _lay_half() -> None:
    """The meld finder's lay-down search (``meld_lay.laydown_sat_nb``, about half of what
    ``meld`` compiles), compiled by its signature in ``hand.analyze_hand`` (nothing runs):
    what :func:`hand_helper`'s process compiles while the command compiles the deficiency."""
    import numba

    from .hand import analysis_args
    from .kernels.melds.lay import laydown_sat_nb
    laydown_sat_nb.compile(tuple(numba.typeof(a) for a in analysis_args()))


def _hand_cold() -> bool:
    """Nothing of this source's lay-down search is cached yet (and its cache can be written)."""
    return _module_cold("melds.lay")


@contextlib.contextmanager
def hand_helper():
    """``with hand_helper():`` around a command's first hand analysis (``shanghai-sim meld``).
    When this source's lay-down search is not cached yet and a second core is free, a helper
    process compiles it (:func:`_lay_half`) while this one compiles the deficiency, which
    ``analyze_hand`` asks first: the two halves of a cold ``meld`` side by side (BENCHMARKS.md,
    First use). As :func:`engine_helper`: a kernel both need is compiled once, and the helper
    is stopped when the block ends."""
    with _helper("_lay_half", cores() > 1 and _hand_cold()):
        yield


def _helper_main(queue: str, parent: int) -> None:
    """:func:`engine_helper`'s process (quiet: the command says what is compiling): the
    finder's largest fast path, then the separate kernels the command announces in the file
    ``queue`` (``kernels.compile.linking.compile_announced``) until process ``parent`` ends. The
    lay-down search comes second (:func:`_lay_half`: the engine calls it with the argument
    types ``analyze_hand`` passes): the command finds it last, under the go-down checks."""
    from .kernels.compile.linking import compile_announced
    _finder_half()
    _lay_half()          # the lay-down search, under the go-down checks: found late by the command
    compile_announced(queue, until=lambda: os.getppid() != parent)


def _engine_cold() -> bool:
    """Nothing of this source's engine is cached yet (and its cache can be written)."""
    return _module_cold("games.batch")


def _module_cold(module: str) -> bool:
    """Nothing of kernel module ``module`` is cached for this source yet (and its cache can
    be written)."""
    from .kernels.compile.cache import module_cache_dir
    d = module_cache_dir(module)
    if d.is_dir() and any(d.glob("*.nbi")):
        return False
    while not d.exists() and d.parent != d:
        d = d.parent
    return os.access(d, os.W_OK)


@contextlib.contextmanager
def engine_helper():
    """``with engine_helper():`` around a command's first engine call. When this source's
    engine is not cached yet and a second core is free, a helper process compiles the meld
    finder's largest fast path (:func:`_finder_half`) and then the separate kernels this
    process finds it needs while it compiles its engine from the top (``kernels.compile.linking``:
    a caller is compiled without its separate callees, which are compiled once it is done;
    this process announces each to the helper as it finds it, and takes the last found
    first, the helper the first found). A kernel both need is compiled once, by whichever
    reaches it first (``kernels.compile.cache``), so the two cores share a first run's compile
    (README's main job: BENCHMARKS.md, First use). The helper is stopped when the block ends
    (what it compiled stays in the cache); nothing depends on it finishing."""
    import tempfile

    from .kernels.compile.linking import announce_to
    start = cores() > 1 and _engine_cold()
    queue = None
    if start:
        fd, queue = tempfile.mkstemp(prefix="shanghai-sim-compile-", suffix=".queue")
        os.close(fd)
        announce_to(queue)
    try:
        with _helper("_helper_main", start, (queue, os.getpid())):
            yield
    finally:
        if queue is not None:
            announce_to(None)
            with contextlib.suppress(OSError):
                os.unlink(queue)


@contextlib.contextmanager
def _helper(fn: str, start: bool, args: tuple = ()):
    """A helper process running ``compiling.<fn>(*args)`` (quiet) for the block, if ``start``;
    yields it (None: not started). Stopped when the block ends; what it compiled stays in
    the cache, and nothing depends on it finishing."""
    proc = None
    if start:
        # a plain child (not multiprocessing's spawn, which imports the caller's __main__
        # again: a user's script without a main guard would run twice)
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", f"from shanghai_sim.compiling import {fn}; {fn}{args!r}"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=dict(os.environ, SHANGHAI_SIM_QUIET_COMPILE="1"))
        except OSError:
            proc = None
    try:
        yield proc
    finally:
        if proc is not None:
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
