"""Engine speed: greedy games per second per core, and random-bot actions per second
side by side with OpenSpiel's C++ gin rummy random playouts.

    .venv/bin/python benchmarks/bench_engine.py           # about a minute after compiling
    .venv/bin/python benchmarks/bench_engine.py --quick   # a few seconds

Targets (issue 3): >= 250 four-player `shanghai` greedy games per second per
core (all ten hands), and random-bot actions per second >= 20x OpenSpiel's.
Needs `pip install open_spiel` (the `bench` extra) for the comparison column.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from shanghai_sim.bots import parse_bots
from shanghai_sim.kernels import layout as L
from shanghai_sim.kernels import play as K
from shanghai_sim.kernels.bots import bot_action_nb
from shanghai_sim.kernels.engine import play_games_nb
from shanghai_sim.kernels.records import NHF
from shanghai_sim.rules import preset

import numba as nb


@nb.njit(cache=True, nogil=True, _nrt=False)
def _count_actions_nb(R, G, bot_kind, bot_params, seeds):
    """Play games with bots and count the decisions taken (the same loop as play_game_nb)."""
    n = 0
    S = G[L.G_S]
    for i in range(seeds.shape[0]):
        K.init_game_nb(R, G, seeds[i], 0, 0)
        while S[K.S_PHASE] != K.PH_OVER:
            a = bot_action_nb(R, G, bot_kind[S[K.S_ACTOR]], bot_params[S[K.S_ACTOR]])
            K.apply_action_nb(R, G, a)
            n += 1
    return n


def games_per_second(rules: str, players: int, bots: str, games: int) -> float:
    r = preset(rules).with_players(players)
    A = r.arrays(players)
    kinds, params = parse_bots(bots, players)
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    out = np.zeros((games, r.hands, players, NHF), np.int32)
    play_games_nb(*A, kinds, params, seeds[:2], out[:2])     # compile / load
    t = time.perf_counter()
    play_games_nb(*A, kinds, params, seeds, out)
    return games / (time.perf_counter() - t)


def actions_per_second(rules: str, players: int, bots: str, games: int) -> float:
    r = preset(rules).with_players(players)
    R = tuple(r.arrays(players))
    kinds, params = parse_bots(bots, players)
    G = K.new_state(R, 0)
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    _count_actions_nb(R, G, kinds, params, seeds[:1])
    t = time.perf_counter()
    n = _count_actions_nb(R, G, kinds, params, seeds)
    return n / (time.perf_counter() - t)


def openspiel_actions_per_second(seconds: float) -> float | None:
    try:
        import pyspiel
        from open_spiel.python.bots import uniform_random  # noqa: F401
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    n = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        state = game.new_initial_state()
        # evaluate_bots plays the game in C++; count its length from a replay of the same seed
        pyspiel.evaluate_bots(state, bots, 1)
        n += 1
    el = time.perf_counter() - t
    # actions per game, measured once in Python with a random policy
    rng = np.random.default_rng(0)
    acts = 0
    for _ in range(20):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outs = s.chance_outcomes()
                s.apply_action(outs[rng.integers(len(outs))][0])
            else:
                la = s.legal_actions()
                s.apply_action(la[rng.integers(len(la))])
            acts += 1
    return n * (acts / 20) / el


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a short run")
    a = ap.parse_args()
    g = 40 if a.quick else 1000
    rows = []
    gps = games_per_second("shanghai", 4, "greedy", g)
    rows.append(("shanghai 4p greedy, games/s/core", f"{gps:,.0f}", ">= 250"))
    for name in ("contract", "progressive"):
        rows.append((f"{name} 4p greedy, games/s/core",
                     f"{games_per_second(name, 4, 'greedy', max(g // 4, 10)):,.0f}", ""))
    aps = actions_per_second("shanghai", 4, "random", 4 if a.quick else 40)
    rows.append(("shanghai 4p random, actions/s", f"{aps:,.0f}", ""))
    osp = openspiel_actions_per_second(2.0 if a.quick else 10.0)
    if osp is None:
        rows.append(("OpenSpiel gin_rummy random, actions/s", "n/a (pip install open_spiel)", ""))
    else:
        rows.append(("OpenSpiel gin_rummy random, actions/s", f"{osp:,.0f}", ""))
        rows.append(("ratio ours / OpenSpiel", f"{aps / osp:,.1f}x", ">= 20x"))
    w = max(len(r[0]) for r in rows)
    print(f"{'measure':<{w}}  {'value':>14}  target")
    for name, v, target in rows:
        print(f"{name:<{w}}  {v:>14}  {target}")


if __name__ == "__main__":
    main()
