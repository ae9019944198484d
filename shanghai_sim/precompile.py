"""Compile (or load from the cache) every kernel up front: ``shanghai-sim warmup``.

The numba kernels compile on first use, which takes minutes once per
version of the package (they are cached per user afterwards, see
``kernels.cache``). ``warmup()`` does it in one go with progress, so a
later command, a test run or a cluster worker starts at once.

With an empty cache the steps compile in parallel processes, one per core (at most
:data:`MAX_JOBS`), into the one cache: the hand analysis first (the meld finder sits
under every engine), then the engines, longest first, each in the next free process.
numba compiles a function on one core, so this is what a second core buys; the cache's
index saves are locked between processes (``kernels.cache``). Once a warm-up of this source has
run to the end, the next one loads the cache in this process instead (seconds).
"""

from __future__ import annotations

import os
import sys
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
    from .kernels.records import NHF
    from .kernels.rng import game_seed_nb
    from .rules import preset
    from .runner.planning import play_games_warm
    r = preset("shanghai")
    kinds, params = parse_bots(bots, 4)
    out = np.zeros((1, r.hands, 4, NHF), np.int32)
    play_games_warm(*r.arrays(4), kinds, params, np.array([game_seed_nb(1, 0)], np.uint64), out)


def _batch_engine() -> None:
    # kernels.dispatch: a line-up without a smart seat (the default run) compiles no smart code
    _engine("greedy,random,greedy,greedy")


def _smart_engine() -> None:
    _engine("greedy,smart,random,greedy")


def _search_engine() -> None:
    # the engine with the search bots compiled in (kernels.dispatch: only line-ups with a
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


def _run_step(i: int) -> float:
    """Step ``i`` (0-based) in this process; its seconds. A worker process's entry point."""
    t = time.monotonic()
    STEPS[i][1]()
    return time.monotonic() - t


def _worker_init() -> None:
    os.environ["SHANGHAI_SIM_QUIET_COMPILE"] = "1"      # the parent says what is compiling


def _marker():
    from .kernels.cache import SOURCE_HASH, cache_dir
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

    Progress goes to ``stream`` (default: standard error; None: silent), one line per step.
    ``jobs``: processes to compile in (default :func:`default_jobs` when the cache is cold,
    1 when it is warm); 1 runs every step in this process.
    """
    if stream is _STDERR:
        stream = sys.stderr
    from .kernels.cache import cache_dir

    def say(text: str) -> None:
        if stream is not None:
            print(text, file=stream, flush=True)

    n = len(STEPS)
    t0 = time.monotonic()
    if jobs is None:
        jobs = 1 if cache_is_warm() else default_jobs()
    say(f"kernel cache: {cache_dir()}" + (f" (compiling in {jobs} processes)" if jobs > 1 else ""))
    # the hand analysis first, here: every engine calls the meld finder it compiles
    first = range(n) if jobs == 1 else range(1)
    for i in first:
        say(f"[{i + 1}/{n}] {STEPS[i][0]} ...")
        say(f"[{i + 1}/{n}] ready in {_fmt(_run_step(i))}")
    if jobs > 1:
        _parallel(range(1, n), jobs, say)
    try:
        _marker().touch()
    except OSError:                          # a cache that cannot be written: numba's own
        pass
    return time.monotonic() - t0


def _parallel(steps, jobs: int, say) -> None:
    """The steps in ``jobs`` worker processes, longest first; progress as each one ends."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    n = len(STEPS)
    order = sorted(steps, key=lambda i: -_COST[i])
    # spawn: a fresh interpreter per worker (no forked numba or thread state); it imports
    # the package again and loads what the hand analysis just cached
    with ProcessPoolExecutor(max_workers=min(jobs, len(order)), mp_context=mp.get_context("spawn"),
                             initializer=_worker_init) as pool:
        futures = {pool.submit(_run_step, i): i for i in order}
        for i in order:
            say(f"[{i + 1}/{n}] {STEPS[i][0]} ...")
        t = time.monotonic()
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=30.0, return_when=FIRST_COMPLETED)
            for f in done:
                i = futures[f]
                f.result()                   # a step's error ends the warm-up with it
                say(f"[{i + 1}/{n}] ready in {_fmt(f.result())}")
            if not done:
                say(f"compiling: {', '.join(str(futures[f] + 1) for f in sorted(pending, key=futures.get))}"
                    f" ... {_fmt(time.monotonic() - t)}")
