"""Playouts per second: how fast the rollout bot's searches play hands out (issue #14).

    python benchmarks/bench_playouts.py [--reps 5] [--decisions 200] [--k 16]

Seat 0's first ``decisions`` searched decisions in games of four smart bots (``shanghai``,
seeds 1, 2, ...), each searched by ``rollout:rollouts=K:race=0:policy=P`` (a fixed budget); the time is the bot's
whole decision (smart's own choice, the candidates, sampling and the playouts), and a
playout is one candidate played to the end of the hand on one sample. Each rep measures
every policy once, in turn, so a shared machine's drift falls on all of them alike; the
figures are the median over the reps with the min-max. The target of issue #14: greedy
playouts at 10,000 or more per second on one core.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
import time

if __package__:                      # imported: benchmarks.bench_playouts (run_all, the tests)
    from ._common import Benchmark, Source, spread, table
else:                                # python benchmarks/bench_playouts.py: this folder is sys.path[0]
    from _common import Benchmark, Source, spread, table

TARGET = 10_000


def playout_rate(policy: str, k: int, decisions: int, seed: int = 1) -> dict:
    """Search the first ``decisions`` searched decisions of seat 0 (games of 4 smart bots)."""
    from shanghai_sim.game import Game
    from shanghai_sim.kernels.base import layout as L
    spec = f"rollout:rollouts={k}:race=0:policy={policy}"     # a fixed budget of k samples
    n_dec = n_play = 0
    secs = 0.0
    game = 0
    while n_dec < decisions:
        g = Game(rules="shanghai", players=4, seed=seed + game, bots="smart")
        game += 1
        while not g.over and n_dec < decisions:
            if g.to_act == 0:
                rf = g.workspace().rf[L.RF_SUM]
                rf[:] = -1.0
                t0 = time.perf_counter()
                g.bot_action(spec)
                dt = time.perf_counter() - t0
                nc = int((rf[:8] != -1.0).sum())
                if nc >= 2:
                    n_dec += 1
                    n_play += nc * k
                    secs += dt
            g.step()
    return {"policy": policy, "k": k, "decisions": n_dec, "playouts": n_play, "seconds": secs,
            "playouts_per_s": n_play / secs if secs else float("nan"),
            "ms_per_decision": 1000 * secs / max(n_dec, 1), "games": game}


def measure(policies=("greedy", "smart"), k: int = 16, decisions: int = 200, reps: int = 5,
            seed: int = 1, progress=None) -> dict:
    say = progress or (lambda s: None)
    for p in policies:                      # compile or load the kernels outside the timings
        playout_rate(p, k, 2, seed)
    runs: dict[str, list[dict]] = {p: [] for p in policies}
    for r in range(reps):
        for p in policies:
            runs[p].append(playout_rate(p, k, decisions, seed))
            say(f"  rep {r + 1}/{reps}, policy {p}: {runs[p][-1]['playouts_per_s']:,.0f} playouts/s")
    rows = []
    figs = []
    for p in policies:
        rate = spread([x["playouts_per_s"] for x in runs[p]])
        ms = statistics.median(x["ms_per_decision"] for x in runs[p])
        figs.append({"policy": p, "k": k, "decisions": runs[p][0]["decisions"],
                     "playouts": runs[p][0]["playouts"], "rate": rate, "ms_per_decision": ms})
        rows.append([p, k, runs[p][0]["decisions"], runs[p][0]["playouts"],
                     rate,
                     round(ms, 2),
                     ("met" if rate["median"] >= TARGET else "not met") if p == "greedy" else "-"])
    return {
        "name": "playouts",
        "title": "How fast does the rollout bot play hands out? Playouts per second on one core",
        "settings": {"policies": list(policies), "k": k, "decisions": decisions, "reps": reps,
                     "seed": seed, "rules": "shanghai", "players": 4, "target": TARGET},
        "figures": {"policies": figs},
        "tables": [
            table(f"Playouts per second, one thread: seat 0's first {decisions} searched decisions in "
                  f"games of 4 smart bots (`shanghai`, seeds {seed}, {seed + 1}, ...), K = {k} "
                  "samples each, every candidate played out on every sample; median of "
                  f"{reps} reps (min-max), the policies measured in turn within each rep",
                  ["playout policy", "K", "decisions", "playouts", "playouts/s",
                   "ms per decision", f"target {TARGET:,}/s (greedy)"], rows),
        ],
        "notes": ["A decision's time is all of the bot's work on it: smart's own choice, the "
                  "candidates, the samples (unseen cards dealt consistently with the seat's view) "
                  "and the playouts, each to the end of the hand."],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_LAY, median_err, finish, np, plt
    else:
        from charts import C_OURS, C_LAY, median_err, finish, np, plt

    figs = res["figures"]["policies"]
    target = res["settings"].get("target")
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    med, err = median_err([f["rate"] for f in figs])
    x = np.arange(len(figs))
    ax.bar(x, med, 0.55, yerr=err, color=C_OURS, capsize=4)
    for i, f in enumerate(figs):
        ax.text(i + 0.3, med[i], f"{med[i]:,.0f}", ha="left", va="bottom", fontsize=8)
    if target:
        ax.axhline(target, color=C_LAY, ls=":", lw=1, label=f"target, greedy ({target:,}/s)")
        ax.legend(fontsize=8, loc="upper right")
    ax.set_xticks(x)
    ax.set_xticklabels([f["policy"] for f in figs])
    ax.set_xlabel("playout policy (every seat in the playouts)")
    ax.set_ylabel("playouts per second, one thread")
    ax.set_ylim(0, max(max(med + err[1]), target or 0) * 1.2)
    st = res["settings"]
    ax.set_title(f"How fast does the rollout bot play hands out?\n(shanghai, K = {st['k']}, "
                 f"{figs[0]['decisions']} searched decisions, {st['reps']} reps)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return finish(fig, res, path, whiskers=f"min-max of the {st['reps']} reps")


BENCHMARK = Benchmark(
    name="playouts", order=100, measure=measure, chart=chart,
    title="The rollout bot's playouts",
    how=(
        "Seat 0's first searched decisions in games of four smart bots (`shanghai`), each searched "
        "with K samples and each playout policy (`rollout:rollouts=K:race=0:policy=P`); a decision's time "
        "is all of the bot's work on it, and a playout is one candidate played to the end of the "
        "hand on one sample. The policies take turns within each rep, so a shared machine's drift "
        "falls on all of them. `python benchmarks/bench_playouts.py` runs it alone."),
    sizes={
        "full": dict(decisions=200, reps=7),
        "quick": dict(decisions=100, reps=3),
        "tiny": dict(k=2, decisions=2, reps=2),
    },
    source=Source(kernels=("search.rollout", "games.dispatch", "engine.play"),
                  files=("shanghai_sim/game.py", "shanghai_sim/bots.py", "shanghai_sim/rules/*.py")),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--policy", action="append", help="playout policy (repeatable; default greedy, smart)")
    a = ap.parse_args(argv)
    res = measure(tuple(a.policy or ("greedy", "smart")), a.k, a.decisions, a.reps, progress=print)
    for f in res["figures"]["policies"]:
        r = f["rate"]
        print(f"{f['policy']}: {r['median']:,.0f} playouts/s ({r['min']:,.0f}-{r['max']:,.0f}), "
              f"{f['ms_per_decision']:.2f} ms per decision")
    return 0


if __name__ == "__main__":
    sys.exit(main())
