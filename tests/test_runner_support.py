"""Helpers shared by the runner, dataset, Dask and summary tests (no tests here).

``FAKE`` is a test double of the game engine with the real kernel's signature:
deterministic pseudo-random records from each game's seed, different for
different bots, so the runner's seating, seeds and files can be checked
without the real engine. It never leaves the tests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shanghai_sim.kernels.base import codes as K
from shanghai_sim.kernels.base import records as R
from shanghai_sim.runner import Engine

FAKE_BOTS = {"random": 0, "greedy": 1, "greedy:buy=never": 2}
NBP = 2


class FakeBotError(ValueError):
    pass


def fake_bot_name(spec: str) -> str:
    s = spec.strip().lower()
    if s not in FAKE_BOTS:
        raise FakeBotError(f"unknown bot {spec!r} (choose from {', '.join(FAKE_BOTS)})")
    return s


def fake_parse_bots(specs, players):
    kind = np.array([FAKE_BOTS[fake_bot_name(s)] for s in specs], dtype=np.int64)
    params = np.zeros((players, NBP), dtype=np.float64)
    params[:, 0] = kind * 0.5
    return kind, params


def fake_play_games(params, points, joker_cap, meld_kind, meld_size, n_melds, deal, buys,
                    bot_kind, bot_params, seeds, hand_out):
    n, hands, players, nhf = hand_out.shape
    assert nhf == R.NHF and len(seeds) == n and seeds.dtype == np.uint64
    assert bot_kind.shape == (players,) and bot_params.shape[0] == players
    for i in range(n):
        rng = np.random.default_rng(int(seeds[i]))
        first = rng.integers(players)
        for h in range(hands):
            rec = hand_out[i, h]
            rec[:, R.HF_DEALER] = (first + h) % players
            winner = rng.integers(players + 1)          # == players: nobody went out
            cards = rng.integers(1, 12, players) + bot_kind  # better bots keep fewer cards? no matter
            rec[:, R.HF_CARDS_LEFT] = cards
            rec[:, R.HF_JOKERS_LEFT] = rng.integers(0, 2, players)
            rec[:, R.HF_POINTS] = cards * 5 + 10 * bot_kind
            rec[:, R.HF_WENT_OUT] = 0
            rec[:, R.HF_DOWN_TURN] = np.where(rng.random(players) < 0.5, rng.integers(1, 9, players), -1)
            rec[:, R.HF_BUYS] = rng.integers(0, buys[h] + 1, players)
            rec[:, R.HF_BUY_CARDS] = rec[:, R.HF_BUYS] * (1 + params.buy_penalty)
            turns = rng.integers(3, 20)
            rec[:, R.HF_TURNS] = turns
            rec[:, R.HF_STOCK_PASSES] = rng.integers(0, 2)
            rec[:, R.HF_BLIND] = 0
            rec[:, R.HF_STOPPED] = K.END_OUT if winner < players else K.END_STOCK
            if winner < players:
                rec[winner, R.HF_WENT_OUT] = 1
                rec[winner, R.HF_POINTS] = 0
                rec[winner, R.HF_CARDS_LEFT] = 0
                rec[winner, R.HF_JOKERS_LEFT] = 0
                rec[winner, R.HF_DOWN_TURN] = max(1, turns - 2)


FAKE = Engine(fake_play_games, fake_parse_bots, fake_bot_name)


def read(out, table="hands") -> pd.DataFrame:
    """A dataset table, as users read it."""
    return pd.read_parquet(out / table)


def _pick_engine():
    """The engine the runner-mechanics tests use: the test double by default (fast, and
    what they check is the runner, not the game); SHANGHAI_TEST_REAL_ENGINE=1 runs them
    on the real engine. tests/test_runner_engine.py always uses the real engine."""
    import os
    return None if os.environ.get("SHANGHAI_TEST_REAL_ENGINE") else FAKE


ENGINE = _pick_engine()


def engine_impl():
    """The Engine the tests call directly (kernel, bot parser)."""
    from shanghai_sim.runner import default_engine
    return ENGINE or default_engine()


def run_cli(*args, engine="tests"):
    """``shanghai-sim ARGS`` in-process; returns click's Result (stdout, stderr, exit_code).
    ``engine``: "tests" = ENGINE, None = the real engine, or an Engine."""
    from click.testing import CliRunner
    from shanghai_sim.cli.main import main
    return CliRunner().invoke(main, [str(a) for a in args], obj={"engine": ENGINE if engine == "tests" else engine},
                              catch_exceptions=False)
