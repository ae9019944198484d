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
from pathlib import Path

import numpy as np

from shanghai_sim.bots import parse_bots
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.games.batch import count_actions_nb, play_games_nb
from shanghai_sim.kernels.base.records import NHF
from shanghai_sim.kernels.base.rng import game_seed_nb, seed_state_nb, shuffle_nb
from shanghai_sim.rules import preset

import numba as nb

if __package__:                      # imported: benchmarks.bench_engine (run_all, the tests)
    from ._common import Benchmark, Source, rates, ratio, spread, table
else:                                # python benchmarks/bench_engine.py: this folder is sys.path[0]
    from _common import Benchmark, Source, rates, ratio, spread, table


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
    R = r.arrays(players)
    kinds, params = parse_bots(bots, players)
    G = L.new_state(R, 0)
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    count_actions_nb(R, G, kinds, params, seeds[:1])
    t = time.perf_counter()
    n = count_actions_nb(R, G, kinds, params, seeds)
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


# Not cached: numba's cache for a file outside the package records the module's name, which is
# benchmarks.bench_engine when run_all or the tests import it and __main__ when it runs as a
# script, and a kernel cached under one fails to load under the other. It compiles in a second.
@nb.njit(nogil=True, _nrt=False)
def _deal_only_nb(decks, jokers, players, deal, seeds, state, shoe, hands_out):
    """The machine's floor: shuffle and deal every hand of a game, as the engine does
    (docs/rules.md §5.1: a shoe per (game seed, hand)), and nothing else. Returns a checksum."""
    n = 0
    for i in range(seeds.shape[0]):
        for h in range(deal.shape[0]):
            seed_state_nb(game_seed_nb(seeds[i], h + 1), state)
            k = 0
            for d in range(decks):
                for c in range(52):
                    shoe[k] = c
                    k += 1
            for j in range(jokers):
                shoe[k] = 52
                k += 1
            shuffle_nb(state, shoe, k)
            hands_out[:, :] = 0
            m = 0
            for q in range(players):
                for c in range(deal[h]):
                    hands_out[q, shoe[m]] += 1
                    m += 1
            n += hands_out[0, 52]
    return n


def _timed(fn, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def floor_games_per_second(rules: str, players: int, games: int, reps: int) -> dict:
    """Games' worth of shuffles and deals per second (all the hands of a game)."""
    r = preset(rules).with_players(players)
    A = r.arrays(players)
    deal = np.asarray(A.deal, np.int64)
    decks, jokers = r.decks_for(players), r.jokers_for(players)
    state = np.zeros(4, np.uint64)
    shoe = np.zeros(52 * decks + jokers, np.int64)
    hands = np.zeros((players, 53), np.int64)
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    _deal_only_nb(decks, jokers, players, deal, seeds[:1], state, shoe, hands)
    ts = _timed(lambda: _deal_only_nb(decks, jokers, players, deal, seeds, state, shoe, hands), reps)
    return rates([(games, t) for t in ts])


def games_rate(rules: str, players: int, bots: str, games: int, reps: int) -> dict:
    """Spread of games/s over ``reps`` passes of ``play_games_nb`` (the batch kernel)."""
    r = preset(rules).with_players(players)
    A = r.arrays(players)
    kinds, params = parse_bots(bots, players)
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    out = np.zeros((games, r.hands, players, NHF), np.int32)
    play_games_nb(*A, kinds, params, seeds[:1], out[:1])     # compile / load
    ts = _timed(lambda: play_games_nb(*A, kinds, params, seeds, out), reps)
    return rates([(games, t) for t in ts])


def actions_rate(rules: str, players: int, bots: str, games: int, reps: int) -> tuple[dict, dict]:
    """(decisions/s, games/s) of ``bots`` over ``reps`` passes of ``_count_actions_nb``."""
    r = preset(rules).with_players(players)
    R = r.arrays(players)
    kinds, params = parse_bots(bots, players)
    G = L.new_state(R, 0)
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    count_actions_nb(R, G, kinds, params, seeds[:1])
    acts, gms = [], []
    for _ in range(reps):
        t = time.perf_counter()
        n = count_actions_nb(R, G, kinds, params, seeds)
        dt = time.perf_counter() - t
        acts.append((n, dt))
        gms.append((games, dt))
    return rates(acts), rates(gms)


def openspiel_python(games: int, reps: int, seed: int = 0) -> dict | None:
    """OpenSpiel gin rummy, uniformly random players, driven through its Python API
    (legal_actions / apply_action per step; chance sampled by its probabilities)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    init = game.new_initial_state()      # cloned per game: the cheapest start (see openspiel_cpp)
    rng = np.random.default_rng(seed)
    acts, gms, lengths = [], [], []
    for _ in range(reps):
        n = 0
        t = time.perf_counter()
        for _ in range(games):
            s = init.clone()
            m = 0
            while not s.is_terminal():
                if s.is_chance_node():
                    outs = s.chance_outcomes()
                    k = rng.choice(len(outs), p=[p for _, p in outs]) if len(outs) > 1 else 0
                    s.apply_action(outs[k][0])
                else:
                    la = s.legal_actions()
                    s.apply_action(la[rng.integers(len(la))])
                    m += 1
            n += m
            lengths.append(m)
        dt = time.perf_counter() - t
        acts.append((n, dt))
        gms.append((games, dt))
    return {"actions": rates(acts), "games": rates(gms),
            "actions_per_game": float(np.mean(lengths))}


def _merge(parts: list[dict]) -> dict:
    """One spread from the samples of several one-pass spreads."""
    return spread([x for p in parts for x in p["samples"]])


def openspiel_cpp(games: int, reps: int, actions_per_game: float, start: str = "clone",
                  rep: int = 0) -> dict | None:
    """OpenSpiel gin rummy played in its C++ loop: ``pyspiel.evaluate_bots`` with two
    ``make_uniform_random_bot`` players, one game per call, each with its own seed (the
    chance nodes: the deal and the draws). evaluate_bots does not report a game's length, so
    actions/s = games/s x the mean player decisions per game of the Python-API games (the
    same uniformly random players).

    ``start="clone"``: every game starts from a clone of one initial state, the peer at its
    best (the fair comparison, the headline's). ``start="new"``: ``game.new_initial_state()``
    per game, which costs more than the game itself (about 2.5-3x fewer games/s); shown only
    beside the fair figure, never as the comparison."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    init = game.new_initial_state()
    begin = init.clone if start == "clone" else game.new_initial_state
    gms = []
    for rep in range(rep, rep + reps):
        bots = [pyspiel.make_uniform_random_bot(p, 1234 + 10 * rep + p) for p in range(2)]
        t = time.perf_counter()
        for i in range(games):
            pyspiel.evaluate_bots(begin(), bots, rep * games + i)
        gms.append((games, time.perf_counter() - t))
    g = rates(gms)
    a = {k: (v * actions_per_game if isinstance(v, float) else v) for k, v in g.items()}
    a["samples"] = [x * actions_per_game for x in g["samples"]]
    return {"games": g, "actions": a}


def measure(presets=("shanghai", "contract", "progressive"), greedy_games=200, random_games=20,
            scale=None, action_games=20, os_python_games=20, os_cpp_games=200, floor_games=2_000,
            reps=3, players=4, progress=None) -> dict:
    """The engine benchmark as a result dict (see _common): games/s per preset with greedy and
    random bots, random actions/s, OpenSpiel gin rummy (Python API and C++ loop), the floor."""
    scale = scale or {}
    say = progress or (lambda s: None)
    per_preset = []
    for p in presets:
        s = scale.get(p, 1.0)
        g = games_rate(p, players, "greedy", max(1, int(greedy_games * s)), reps)
        rnd = games_rate(p, players, "random", max(1, int(random_games * s)), reps)
        fl = floor_games_per_second(p, players, floor_games, reps)
        per_preset.append({"rules": p, "greedy": g, "random": rnd, "floor": fl})
        say(f"  {p}: greedy {g['median']:,.1f} games/s, random {rnd['median']:,.1f} games/s")
    # Ours and the peer's passes interleaved (ours, its Python API, its C++ loop, ..., rep by
    # rep): pass k of each sees the same load, so the per-pass ratios hold on a shared machine.
    ours, osp_parts, osc_parts, osn_parts = [], [], [], []
    for rep in range(reps):
        ours.append(actions_rate("shanghai", players, "random", action_games, 1))
        osp_parts.append(openspiel_python(os_python_games, 1, seed=rep))
        if osp_parts[-1] is None:
            continue
        apg = osp_parts[-1]["actions_per_game"]
        osc_parts.append(openspiel_cpp(os_cpp_games, 1, apg, rep=rep))
        osn_parts.append(openspiel_cpp(os_cpp_games, 1, apg, start="new", rep=rep))
    acts, rgames = _merge([a for a, _ in ours]), _merge([g for _, g in ours])
    say(f"  shanghai random: {acts['median']:,.0f} actions/s")
    osp = osc = osn = None
    if osp_parts and osp_parts[0] is not None:
        apg = float(np.mean([x["actions_per_game"] for x in osp_parts]))
        osp = {"actions": _merge([x["actions"] for x in osp_parts]),
               "games": _merge([x["games"] for x in osp_parts]), "actions_per_game": apg}
        osc = {k: _merge([x[k] for x in osc_parts]) for k in ("games", "actions")}
        osn = {k: _merge([x[k] for x in osn_parts]) for k in ("games", "actions")}
    if osp:
        say(f"  OpenSpiel gin rummy: Python API {osp['actions']['median']:,.0f} actions/s, "
            f"C++ loop {osc['actions']['median']:,.0f} actions/s (from a new state per game: "
            f"{osn['actions']['median']:,.0f})")
    rows = [["shanghai-sim `shanghai`, 4 random bots (our batch loop)", rgames, acts, None]]
    if osp:
        rows.append(["OpenSpiel gin_rummy, 2 uniform random bots, Python API", osp["games"],
                     osp["actions"], ratio(acts, osp["actions"])])
        rows.append(["OpenSpiel gin_rummy, 2 uniform random bots, C++ loop (evaluate_bots from a cloned "
                     "initial state: the peer at its best, the comparison)",
                     osc["games"], osc["actions"], ratio(acts, osc["actions"])])
        rows.append(["(beside it, not a comparison: the same C++ loop from `new_initial_state()` per game, "
                     "which costs more than the game)",
                     osn["games"], osn["actions"], ratio(acts, osn["actions"])])
    return {
        "name": "engine",
        "title": "Engine: games/s per preset, random-bot actions/s vs OpenSpiel gin rummy",
        "settings": {"presets": list(presets), "players": players, "greedy_games": greedy_games,
                     "random_games": random_games, "scale": scale, "action_games": action_games,
                     "openspiel_python_games": os_python_games,
                     "openspiel_cpp_games": os_cpp_games, "floor_games": floor_games,
                     "reps": reps},
        "figures": {"presets": per_preset, "random_actions": acts, "random_games": rgames,
                    "openspiel_python": osp, "openspiel_cpp": osc, "openspiel_cpp_new_state": osn,
                    "openspiel_start": "clone"},
        "tables": [
            table(f"Games per second on one thread, {players} players, median (min-max) of {reps} passes",
                  ["rules", "greedy games/s", "random games/s", "floor: deals of a game /s",
                   "greedy game time / deal time"],
                  [[p["rules"], p["greedy"], p["random"], p["floor"], ratio(p["floor"], p["greedy"])]
                   for p in per_preset]),
            table("Random players: actions per second, side by side in the same run",
                  ["what", "games/s", "actions/s", "ours / this"], rows),
        ],
        "notes": [] if osp else ["OpenSpiel is not installed (`pip install -e '.[bench]'`): no peer rows."],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_COLD, C_PEER, C_PEER2, C_FLOOR, bars, median_err, finish, np, plt
    else:
        from charts import C_OURS, C_COLD, C_PEER, C_PEER2, C_FLOOR, bars, median_err, finish, np, plt

    f = res["figures"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.2, 1]})
    ax = axes[0]
    ps = f["presets"]
    x = np.arange(len(ps))
    w = 0.27
    bars(ax, x, [p["greedy"] for p in ps], w, C_OURS, "greedy bots", -w)
    bars(ax, x, [p["random"] for p in ps], w, C_COLD, "random bots", 0)
    bars(ax, x, [p["floor"] for p in ps], w, C_FLOOR, "floor: shuffle + deal every hand", w)
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels([p["rules"] for p in ps])
    ax.set_ylabel("games per second, one thread (log)")
    ax.set_title(f"Games/s per preset, {res['settings']['players']} players:\n"
                 "greedy and random bots vs the floor of dealing", fontsize=10)
    ax.set_ylim(ax.get_ylim()[0], ax.get_ylim()[1] * 30)        # room for the legend
    ax.legend(fontsize=7, ncol=3, loc="upper center")
    ax.grid(axis="y", alpha=0.3)
    ax = axes[1]
    labels, spreads, colors = ["shanghai-sim\n4 random bots"], [f["random_actions"]], [C_OURS]
    if f.get("openspiel_cpp") and f.get("openspiel_start") == "clone":
        labels.append("OpenSpiel gin rummy\nC++ loop, cloned start")
        spreads.append(f["openspiel_cpp"]["actions"])
        colors.append(C_PEER)
    if f.get("openspiel_cpp_new_state"):
        labels.append("(beside it: C++ loop,\nnew state per game)")
        spreads.append(f["openspiel_cpp_new_state"]["actions"])
        colors.append("0.8")
    if f.get("openspiel_python"):
        labels.append("OpenSpiel gin rummy\nPython API")
        spreads.append(f["openspiel_python"]["actions"])
        colors.append(C_PEER2)
    med, err = median_err(spreads)
    ax.bar(np.arange(len(labels)), med, 0.6, yerr=err, color=colors, capsize=3)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(labels)))
    ax.set_xticklabels([f"{lab}\n{m:,.0f} actions/s" for lab, m in zip(labels, med)], fontsize=8)
    ax.set_ylabel("actions per second, one thread (log)")
    ax.set_title("Random players: actions/s,\nours vs OpenSpiel gin rummy (same run)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="engine", order=30, measure=measure, chart=chart,
    title="The engine",
    how=(
        "Games per second of `play_games_nb` (the batch kernel, one thread) with greedy and with "
        "random bots, per preset; the machine's floor next to them: shuffling and dealing every "
        "hand of a game in numba and nothing else. Random-player actions per second against "
        "OpenSpiel's gin rummy (two players, a different game with a single pack: the nearest "
        "public card-game engine) at its best, driven two ways, each game from a clone of one "
        "initial state: its Python API (`legal_actions`, `apply_action` per step) and its C++ "
        "loop (`pyspiel.evaluate_bots` with `make_uniform_random_bot` players; it does not report "
        "a game's length, so its actions/s are its games/s times the mean decisions per game of "
        "the Python-API games). The C++ loop from `game.new_initial_state()` per game, which "
        "costs more than the game itself, is shown beside it only: the ratios and the headline "
        "use the cloned start."),
    sizes={
        "full": dict(greedy_games=500, random_games=50, scale={"progressive": 0.02},
                     action_games=50, os_python_games=100, os_cpp_games=500,
                     floor_games=20_000, reps=5),
        "quick": dict(greedy_games=100, random_games=20, scale={"progressive": 0.05},
                      action_games=20, os_python_games=30, os_cpp_games=200,
                      floor_games=2_000, reps=3),
        "tiny": dict(presets=("shanghai",), greedy_games=2, random_games=1, action_games=1,
                     os_python_games=1, os_cpp_games=2, floor_games=10, reps=2),
    },
    source=Source(kernels=("games.batch", "engine.play", "games.dispatch", "engine.flow", "base.rng"),
                  cut=("search.rollout", "search.oracle", "search.playout"),                    # the rollout bot: compiled in, never played here
                  files=("shanghai_sim/bots.py", "shanghai_sim/rules/*.py")),
)


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
