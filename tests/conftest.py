"""Test session set-up.

Compile (or load from numba's cache) the game engine once, in this process,
before any test runs: tests that start other processes (Dask workers, the
CLI in a subprocess) then load the cached machine code instead of compiling
the engine several times at once.
"""

import numpy as np


def pytest_sessionstart(session):
    from shanghai_sim.bots import parse_bots
    from shanghai_sim.kernels.engine import play_games_nb
    from shanghai_sim.kernels.records import NHF
    from shanghai_sim.rules import preset

    r = preset("shanghai")
    kinds, params = parse_bots("greedy", 4)
    out = np.zeros((1, r.hands, 4, NHF), np.int32)
    play_games_nb(*r.arrays(4), kinds, params, np.array([1], np.uint64), out)
