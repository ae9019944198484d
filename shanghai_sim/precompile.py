"""Compile (or load from the cache) every kernel up front: ``shanghai-sim warmup``.

The numba kernels compile on first use, which takes minutes once per
version of the package (they are cached per user afterwards, see
``kernels.compile.cache``). ``warmup()`` does it in one go with progress, so a
later command, a test run or a cluster worker starts at once.

With an empty cache the steps compile in parallel processes, one per core (at most
:data:`MAX_JOBS`), into the one cache: every step at once, longest first, each in the next
free process. numba compiles a function on one core, so this is what a second core buys.
Steps share kernels (the meld finder sits under every engine): the first process to need a
kernel compiles it while another that needs it waits and then loads it from the cache
(``kernels.compile.cache``: one compile per kernel and signature between processes, and locked index
saves). Once a warm-up of this source has run to the end, the next one loads the cache in
this process instead (seconds).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from typing import Callable, TextIO


def _hand_analysis() -> None:
    import numpy as np

    from .hand import analyze_hand, deficiency_batch
    analyze_hand("5C 6C 7C 8C 9D 9H 9S JK KD", 2)
    deficiency_batch(np.zeros((1, 53), np.int64), 2)


def _engine(bots: str) -> None:
    """One game of ``bots`` through the runner's kernel call (runner.play_games_warm)."""
    import numpy as np

    from .bots import parse_bots
    from .kernels.base.records import NHF
    from .kernels.base.rng import game_seed_nb
    from .rules import preset
    from .runner.planning import play_games_warm
    r = preset("shanghai")
    kinds, params = parse_bots(bots, 4)
    out = np.zeros((1, r.hands, 4, NHF), np.int32)
    play_games_warm(*r.arrays(4), kinds, params, np.array([game_seed_nb(1, 0)], np.uint64), out)


def _batch_engine() -> None:
    # kernels.games.dispatch: a line-up without a smart seat (the default run) compiles no smart code
    _engine("greedy,random,greedy,greedy")


def _smart_engine() -> None:
    _engine("greedy,smart,random,greedy")


def _search_engine() -> None:
    # the engine with the search bots compiled in (kernels.games.dispatch: only line-ups with a
    # rollout seat need it); one rollout per candidate keeps the game short
    _engine("rollout:rollouts=1,greedy,greedy,greedy")


def _replay_and_steps() -> None:
    from .game import Game, game_events
    game_events("shanghai", 4, 1, "greedy")
    g = Game(rules="shanghai", players=4, seed=1, bots=["python", "greedy", "greedy", "greedy"])
    g.advance()
    acts = g.legal_actions()
    g.apply(acts[0])
    g.play()
    # the terminal's and the browser's `hint` (human.HINT_BOT) asks smart at a table that may
    # have no smart seat: the step API with the smart gate on
    from .human import HINT_BOT
    Game(rules="shanghai", players=4, seed=1, bots="greedy").bot_action(HINT_BOT)


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
    ckeys, cvals, cn, scratch, wt = new_cache()
    joker_cap = preset("shanghai").arrays(4).joker_cap
    i = np.int64(0)
    F = Finder(i, joker_cap, i, i, ckeys, cvals, cn, wt, scratch)    # as deficiency_in_nb builds it
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
    with _helper("_lay_half", default_jobs() > 1 and _hand_cold()):
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
    start = default_jobs() > 1 and _engine_cold()
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
    """A helper process running ``precompile.<fn>(*args)`` (quiet) for the block, if ``start``;
    yields it (None: not started). Stopped when the block ends; what it compiled stays in
    the cache, and nothing depends on it finishing."""
    proc = None
    if start:
        # a plain child (not multiprocessing's spawn, which imports the caller's __main__
        # again: a user's script without a main guard would run twice)
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", f"from shanghai_sim.precompile import {fn}; {fn}{args!r}"],
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


STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("hand analysis (meld finder: meld, analyze_hand, deficiency_batch)", _hand_analysis),
    ("batch engine (run, experiments, tournaments; greedy and random)", _batch_engine),
    ("batch engine with the smart bot", _smart_engine),
    ("search bot engine (line-ups with rollout)", _search_engine),
    ("replay and step API (replay, play, Game)", _replay_and_steps),
)
# Cold compile seconds of each step, one core each (`warmup --jobs 1` with an empty cache,
# 2026-12-02 at f355958): the order in which the parallel warm-up hands the engines to its
# processes, longest first (only the order matters).
_COST = (72, 70, 61, 153, 28)
MAX_JOBS = 4


def _fmt(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{seconds:.1f}s"


_STDERR = object()
TICK = 10.0     # seconds: the longest a warm-up with progress goes without a line
_EARLY = 0.5    # a line falls due this much before TICK (the ticker wakes every 0.25 s)


class _Progress:
    """The warm-up's lines on ``stream`` (None: silent). :meth:`say` writes one; inside
    ``with ticking(status):`` a thread writes ``status()`` whenever nothing was written for
    :data:`TICK` seconds, so a step that compiles for minutes still shows it is alive, on a
    terminal and in a log alike (one plain line each time: CI is not a terminal)."""

    def __init__(self, stream: "TextIO | None"):
        self.stream = stream
        self._lock = threading.Lock()
        self._last = time.monotonic()

    def say(self, text: str) -> None:
        if self.stream is None:
            return
        with self._lock:
            print(text, file=self.stream, flush=True)
            self._last = time.monotonic()

    @contextlib.contextmanager
    def ticking(self, status: Callable[[], str]):
        if self.stream is None:
            yield
            return
        done = threading.Event()

        def tick() -> None:
            while not done.wait(0.25):
                with self._lock:
                    quiet = time.monotonic() - self._last
                if quiet >= TICK - _EARLY:
                    self.say(status())

        thread = threading.Thread(target=tick, name="warmup-progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()


def _run_step(i: int) -> float:
    """Step ``i`` (0-based) in this process; its seconds. A worker process's entry point."""
    t = time.monotonic()
    STEPS[i][1]()
    return time.monotonic() - t


def _worker_init() -> None:
    os.environ["SHANGHAI_SIM_QUIET_COMPILE"] = "1"      # the parent says what is compiling


def _marker():
    from .kernels.compile.cache import SOURCE_HASH, cache_dir
    return cache_dir() / f"warm-{SOURCE_HASH}"


def cache_is_warm() -> bool:
    """A warm-up of this very source ran to the end into this cache (the next one only loads)."""
    return _marker().is_file()


def default_jobs() -> int:
    """Processes a cold warm-up uses: the cores this process may run on, at most MAX_JOBS."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:                   # not Linux
        n = os.cpu_count() or 1
    return max(1, min(MAX_JOBS, n))


def warmup(stream: "TextIO | None" = _STDERR, jobs: int | None = None) -> float:  # type: ignore[assignment]
    """Compile or load every kernel the commands use; returns the seconds it took.

    Progress goes to ``stream`` (default: standard error; None: silent): a line when a step
    starts and when it is ready, and while steps run a line at least every :data:`TICK`
    seconds saying which are compiling (or only loading from the cache) and for how long.
    The compile notice of ``kernels.compile.cache`` is muted meanwhile: these lines say it.
    ``jobs``: processes to compile in (default :func:`default_jobs` when the cache is cold,
    1 when it is warm); 1 runs every step in this process.
    """
    if stream is _STDERR:
        stream = sys.stderr
    from .kernels.compile.cache import cache_dir, compile_notice_muted, compile_seconds

    progress = _Progress(stream)
    say = progress.say
    n = len(STEPS)
    t0 = time.monotonic()
    warm = cache_is_warm()
    if jobs is None:
        jobs = 1 if warm else default_jobs()
    say(f"kernel cache: {cache_dir()}"
        + (f" ({'loading' if warm else 'compiling'} in {jobs} processes)" if jobs > 1 else ""))
    with compile_notice_muted(True):
        if jobs == 1:
            for i in range(n):
                say(f"[{i + 1}/{n}] {STEPS[i][0]} ...")
                t, c = time.monotonic(), compile_seconds()

                def status(i=i, t=t, c=c) -> str:
                    doing = "compiling" if compile_seconds() > c else "loading from the cache"
                    return f"[{i + 1}/{n}] {doing} ... {_fmt(time.monotonic() - t)}"

                with progress.ticking(status):
                    seconds = _run_step(i)
                say(f"[{i + 1}/{n}] ready in {_fmt(seconds)}"
                    + ("" if compile_seconds() > c else " (loaded from the cache)"))
        else:
            # every step at once: a kernel two steps need is compiled by the first process to
            # reach it while the other waits for it and loads it (kernels.compile.cache: one process at
            # a time per kernel and signature)
            _parallel(range(n), jobs, progress, "loading" if warm else "compiling")
    try:
        _marker().touch()
    except OSError:                          # a cache that cannot be written: numba's own
        pass
    return time.monotonic() - t0


def _parallel(steps, jobs: int, progress: _Progress, doing: str = "compiling") -> None:
    """The steps in ``jobs`` worker processes, longest first; progress as each one ends, and
    the steps still running ("compiling: 1, 2, 4 ... 20.0s") whenever :data:`TICK` seconds
    pass without a line."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    n = len(STEPS)
    order = sorted(steps, key=lambda i: -_COST[i])
    # spawn: a fresh interpreter per worker (no forked numba or thread state); it imports
    # the package again and loads what the hand analysis just cached
    with ProcessPoolExecutor(max_workers=min(jobs, len(order)), mp_context=mp.get_context("spawn"),
                             initializer=_worker_init) as pool:
        futures = {pool.submit(_run_step, order[0]): order[0]}
        # the second process starts on the meld finder's largest fast path, which the first
        # step's compile reaches late (the first compiles the rest of the finder meanwhile)
        helper = pool.submit(_finder_half) if jobs > 1 and len(order) > 1 else None
        futures.update({pool.submit(_run_step, i): i for i in order[1:]})
        for i in order:
            progress.say(f"[{i + 1}/{n}] {STEPS[i][0]} ...")
        t = time.monotonic()
        pending = set(futures)

        def status() -> str:
            running = ", ".join(str(i) for i in sorted(futures[f] + 1 for f in list(pending)))
            return f"{doing}: {running or 'the meld finder'} ... {_fmt(time.monotonic() - t)}"

        with progress.ticking(status):
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    i = futures[f]
                    f.result()                   # a step's error ends the warm-up with it
                    progress.say(f"[{i + 1}/{n}] ready in {_fmt(f.result())}")
            if helper is not None:
                helper.result()
