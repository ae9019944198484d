"""How cost grows: deficiency time against hand size and jokers held; game time
against players and preset.

- Deficiency: ``deficiency_batch_nb`` with a memo warmed on other hands of the
  same kind, microseconds per hand, for hands of 10-22 cards (drawn from the
  4-player `shanghai` shoe, jokers as they fall) and for 12-card hands holding
  exactly 0-4 jokers. A few contracts: the cheapest (sets only), a mixed one,
  and the all-runs ones.
- Games: milliseconds per game of greedy bots with ``play_games_nb`` (the batch
  kernel) at 2-8 players for each preset; `progressive` is about 100x slower than
  `shanghai` (its multi-run contracts take the general search), so its sample
  is smaller.

    python benchmarks/run_all.py --only growth [--quick]
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

if __package__:                      # imported: benchmarks.bench_growth (run_all, the tests)
    from ._common import Benchmark, Source, spread, table
    from .bench_engine import games_rate
    from .bench_melds import shoe_of
else:                                # python benchmarks/bench_growth.py: this folder is sys.path[0]
    from _common import Benchmark, Source, spread, table
    from bench_engine import games_rate
    from bench_melds import shoe_of

from shanghai_sim import rules as R
from shanghai_sim.hand import NO_SHOE_LIMIT as ANY  # (the kernel's shoe check off)
from shanghai_sim.kernels.melds import finder as K

CONTRACTS = (1, 6, 7, 10)        # shanghai: set3 set3 · set3 set3 run5 · run4 run4 run4 · run5 run5 run5


def _draw(rng, shoe, n, size, jokers=None):
    out = np.zeros((n, 53), np.int64)
    nat = shoe[shoe != 52]
    for i in range(n):
        if jokers is None:
            out[i] = np.bincount(rng.choice(shoe, size, replace=False), minlength=53)
        else:
            out[i] = np.bincount(rng.choice(nat, size - jokers, replace=False), minlength=53)
            out[i, 52] = jokers
    return out




def _us_per_hand(r, h, hands_fn, n, warm, reps) -> dict:
    a = r.arrays()
    exact, gap = a.params.initial_exact, a.params.same_suit_gap
    C = K.Contract(a.meld_kind[h], a.meld_size[h], a.n_melds[h], a.joker_cap, exact, gap)
    cache = K.new_cache()
    w = hands_fn(warm)
    K.deficiency_batch_nb(w, C, np.empty(len(w), np.int64), cache, ANY, ANY)
    tests = [hands_fn(n) for _ in range(reps)]
    out = np.empty(n, np.int64)
    ts = []
    for test in tests:
        t = time.perf_counter()
        K.deficiency_batch_nb(test, C, out, cache, ANY, ANY)
        ts.append(1e6 * (time.perf_counter() - t) / n)
    return spread(ts)


def measure(sizes=tuple(range(10, 23, 2)), jokers=(0, 1, 2, 3, 4), contracts=CONTRACTS,
            hands=2_000, warm=5_000, reps=3, players=(2, 3, 4, 5, 6, 7, 8),
            presets=("shanghai", "contract", "progressive"), games=40, scale=None,
            seed=1, progress=None) -> dict:
    say = progress or (lambda s: None)
    scale = scale or {}
    r = R.load_rules("shanghai")
    shoe = shoe_of(r)
    rng = np.random.default_rng(seed)
    by_size, by_jokers = [], []
    for c in contracts:
        h = c - 1
        for n in sizes:
            s = _us_per_hand(r, h, lambda k, n=n: _draw(rng, shoe, k, n), hands, warm, reps)
            by_size.append({"hand": c, "contract": str(r.contracts[h]), "cards": n, "us": s})
        for j in jokers:
            s = _us_per_hand(r, h, lambda k, j=j: _draw(rng, shoe, k, 12, j), hands, warm, reps)
            by_jokers.append({"hand": c, "contract": str(r.contracts[h]), "jokers": j, "us": s})
        say(f"  contract {c} ({r.contracts[h]}) done")
    by_players = []
    for p in presets:
        g = max(1, int(games * scale.get(p, 1.0)))
        for n in players:
            gps = games_rate(p, n, "greedy", g, reps)
            ms = spread([1e3 / x for x in gps["samples"]])
            by_players.append({"rules": p, "players": n, "games": g, "ms": ms})
        say(f"  {p}: game time at {len(players)} table sizes done")
    return {
        "name": "growth",
        "title": "How cost grows: deficiency time vs hand size and jokers, game time vs players and preset",
        "settings": {"sizes": list(sizes), "jokers": list(jokers), "contracts": list(contracts),
                     "hands": hands, "warm": warm, "reps": reps, "players": list(players),
                     "presets": list(presets), "games": games, "scale": scale, "seed": seed},
        "figures": {"by_size": by_size, "by_jokers": by_jokers, "by_players": by_players},
        "tables": [
            table("Deficiency, µs per hand (warm memo) against cards in hand, `shanghai` contracts",
                  ["contract"] + [f"{n} cards" for n in sizes],
                  [[f"{c}: {r.contracts[c - 1]}"] + [x["us"] for x in by_size if x["hand"] == c]
                   for c in contracts]),
            table("Deficiency, µs per hand (warm memo) against jokers held, 12 cards",
                  ["contract"] + [f"{j} jokers" for j in jokers],
                  [[f"{c}: {r.contracts[c - 1]}"] + [x["us"] for x in by_jokers if x["hand"] == c]
                   for c in contracts]),
            table("Greedy game, ms per game (one thread) against players",
                  ["rules", "games per pass"] + [f"{n} players" for n in players],
                  [[p, max(1, int(games * scale.get(p, 1.0)))]
                   + [x["ms"] for x in by_players if x["rules"] == p] for p in presets]),
        ],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import median_err, finish, plt
    else:
        from charts import median_err, finish, plt

    f = res["figures"]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6))
    for key, ax, xl, title in (("by_size", axes[0], "cards in hand", "against hand size"),
                               ("by_jokers", axes[1], "jokers held (12 cards)", "against jokers held")):
        xk = "cards" if key == "by_size" else "jokers"
        for c in dict.fromkeys(r["hand"] for r in f[key]):
            rs = [r for r in f[key] if r["hand"] == c]
            med, err = median_err([r["us"] for r in rs])
            ax.errorbar([r[xk] for r in rs], med, yerr=err, marker="o", ms=3, capsize=2,
                        label=f"{c}: {rs[0]['contract']}")
        ax.set_xlabel(xl)
        ax.set_xticks(sorted({r[xk] for r in f[key]}))
        ax.set_ylabel("µs per hand, warm memo")
        ax.set_title(f"Deficiency time {title}\n(`shanghai` contracts)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[2]
    for p in dict.fromkeys(r["rules"] for r in f["by_players"]):
        rs = [r for r in f["by_players"] if r["rules"] == p]
        med, err = median_err([r["ms"] for r in rs])
        ax.errorbar([r["players"] for r in rs], med, yerr=err, marker="o", ms=3, capsize=2,
                    label=f"{p} ({rs[0]['games']} games/pass)")
    ax.set_yscale("log")
    ax.set_xlabel("players")
    ax.set_ylabel("ms per game, greedy bots (log)")
    ax.set_title("Game time against players and preset\n(one thread)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="growth", order=20, measure=measure, chart=chart,
    title="How cost grows",
    how=(
        "Deficiency time per hand (warm memo) for hands of 10-22 cards drawn from the "
        "`shanghai` shoe, and for 12-card hands holding exactly 0-4 jokers; game time with four "
        "greedy bots at 2-8 players for each preset (`progressive` with a smaller sample: it "
        "is about 100x slower). Two-player games are the long ones: at two players nobody "
        "can buy a discard (docs/rules.md §5.9), so under `shanghai` hands 8-10 (13 cards "
        "and more to go down, 12 held) can be met only by the dealer buying the hand's first "
        "upcard, and otherwise end by the stock rule (§5.5) with nobody out: the rules settle "
        "it, no bot does (greedy version 1 passed cards through the pile until the turn cap "
        "instead)."),
    sizes={
        "full": dict(hands=5_000, warm=10_000, reps=5, games=50,
                     scale={"progressive": 0.04}),
        "quick": dict(hands=4_000, warm=4_000, reps=3, games=10,
                      scale={"progressive": 0.1}),
        "tiny": dict(sizes=(10, 12), jokers=(0, 1), contracts=(1, 7), hands=10, warm=10, reps=2,
                     players=(2, 4), presets=("shanghai",), games=1),
    },
    source=Source(kernels=("melds.finder", "games.batch"), cut=("search.rollout", "search.oracle", "search.playout"),   # the rollout bot: compiled in, never played here
                  files=("benchmarks/bench_engine.py", "benchmarks/bench_melds.py", "shanghai_sim/bots.py",
                         "shanghai_sim/rules/*.py")),
)
