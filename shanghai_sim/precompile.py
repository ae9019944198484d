"""Compile (or load from the cache) every kernel up front: ``shanghai-sim warmup``.

The numba kernels compile on first use, which takes minutes once per
version of the package (they are cached per user afterwards, see
``kernels.cache``). ``warmup()`` does it in one go with progress, so a
later command, a test run or a cluster worker starts at once.
"""

from __future__ import annotations

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


def _fmt(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{seconds:.1f}s"


_STDERR = object()


def warmup(stream: "TextIO | None" = _STDERR) -> float:  # type: ignore[assignment]
    """Compile or load every kernel the commands use; returns the seconds it took.

    Progress goes to ``stream`` (default: standard error; None: silent), one line per step.
    """
    if stream is _STDERR:
        stream = sys.stderr
    from .kernels.cache import cache_dir
    t0 = time.monotonic()
    if stream is not None:
        print(f"kernel cache: {cache_dir()}", file=stream, flush=True)
    for i, (name, step) in enumerate(STEPS, 1):
        t = time.monotonic()
        if stream is not None:
            print(f"[{i}/{len(STEPS)}] {name} ...", file=stream, flush=True)
        step()
        if stream is not None:
            print(f"[{i}/{len(STEPS)}] ready in {_fmt(time.monotonic() - t)}", file=stream, flush=True)
    return time.monotonic() - t0
