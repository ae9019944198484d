"""The rollout bot (issue #14): how strong it is against `smart` (its playouts per second:
`bench_playouts.py`).

- Strength: one `rollout` against three `smart`, 4 players, every deal played with the
  rollout bot in each of the four seats (`shanghai-sim tournament`, seed 1): win share per
  seat held (par 0.25) with its 95% CI over deals, and points per game against smart.
- Budget curve: the same at several fixed budgets K (rollouts=K:race=0, the other parameters
  at their defaults), same deals, with games per minute; the default budget's point is the
  `shanghai` strength row.

    python benchmarks/run_all.py --only rollout [--quick]
"""

from __future__ import annotations

import time
from pathlib import Path

if __package__:                      # imported: benchmarks.bench_rollout (run_all, the tests)
    from ._common import Benchmark, Source, table
else:                                # python benchmarks/bench_rollout.py: this folder is sys.path[0]
    from _common import Benchmark, Source, table


def _tournament(spec: str, rules: str, deals: int, seed: int, threads: int | None) -> dict:
    import tempfile

    from shanghai_sim import tournament as T
    lineup = (spec, "smart", "smart", "smart")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        r = T.run_tournament(T.Tournament(lineup, rules=rules, deals=deals, seed=seed, threads=threads),
                             f"{d}/t", progress=None)
        seconds = time.perf_counter() - t0
    out = {"spec": spec, "rules": rules, "deals": r.deals, "games": r.bots[0].games,
           "seconds": seconds, "games_per_min": 60 * r.bots[0].games / seconds,
           "hands": r.hands_played, "no_winner_hands": r.no_winner_hands,
           "turn_cap_hands": r.turn_cap_hands, "bots": {}}
    for b in r.bots:
        row = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.figures.items()}
        if b.effects:
            row["vs_first"] = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.effects.items()}
        out["bots"]["rollout" if b.bot.startswith("rollout") else b.bot] = row
    return out


def measure(deals: int = 200, presets=("shanghai", "contract"), budgets=(4, 8, 16, 32, 64),
            default: str = "rollout", seed: int = 1, threads: int | None = None,
            curve_deals: dict | None = None, progress=None) -> dict:
    """curve_deals: {K: deals} for the budget curve where the time allows fewer deals at a
    large K (the first deals of the same seed: a prefix of the others); default ``deals``."""
    from shanghai_sim.bots import parse_bot
    curve_deals = {int(k): int(v) for k, v in (curve_deals or {}).items()}
    say = progress or (lambda s: None)
    curve = []
    for k in budgets:
        spec = parse_bot(f"rollout:rollouts={k}:race=0").name      # a fixed budget
        n = curve_deals.get(k, deals)
        say(f"  {spec},smart,smart,smart, shanghai, {n:,} deals")
        curve.append(_tournament(spec, "shanghai", n, seed, threads))
        curve[-1]["k"] = k
        w = curve[-1]["bots"]["rollout"]["win_share"]
        say(f"    win share {w['mean']:.3f} [{w['lo']:.3f}, {w['hi']:.3f}], "
            f"{curve[-1]['games_per_min']:.1f} games/min")
    default = parse_bot(default).name
    runs = []
    for rules in presets:
        same = [c for c in curve if c["spec"] == default and rules == "shanghai" and c["deals"] == deals]
        if same:                       # the curve's point at the default budget: the same run
            runs.append(same[0])
            continue
        say(f"  {default},smart,smart,smart, {rules}, {deals:,} deals")
        runs.append(_tournament(default, rules, deals, seed, threads))
        w = runs[-1]["bots"]["rollout"]["win_share"]
        say(f"    win share {w['mean']:.3f} [{w['lo']:.3f}, {w['hi']:.3f}]")

    def ci(x, k=3):
        return f"{x['mean']:.{k}f} [{x['lo']:.{k}f}, {x['hi']:.{k}f}]"
    rows = [[r["rules"], r["spec"], r["deals"], ci(r["bots"]["rollout"]["win_share"]),
             ci(r["bots"]["rollout"]["points"], 1), ci(r["bots"]["smart"]["vs_first"]["points"], 1),
             ci(r["bots"]["rollout"]["went_out"]), round(r["games_per_min"], 1),
             f"{r['no_winner_hands'] / r['hands']:.1%}", r["turn_cap_hands"]] for r in runs]
    crows = [[c["k"], c["deals"], ci(c["bots"]["rollout"]["win_share"]),
              ci(c["bots"]["smart"]["vs_first"]["points"], 1), round(c["games_per_min"], 1)]
             for c in curve]
    return {
        "name": "rollout",
        "title": "The rollout bot: one rollout against three smart",
        "settings": {"default": default, "deals": deals, "presets": list(presets), "budgets": list(budgets),
                     "curve_deals": {str(k): v for k, v in sorted(curve_deals.items())},
                     "seed": seed,
                     "players": 4, "seatings_per_deal": 4, "threads": threads},
        "figures": {"runs": runs, "curve": curve},
        "tables": [
            table(f"`{default},smart,smart,smart`, 4 players, seed {seed}, every deal with the rollout "
                  "bot in each seat; 95% CIs over deals; par win share 0.250",
                  ["rules", "rollout spec", "deals", "rollout win share", "rollout points/game",
                   "smart - rollout points", "rollout hands out", "games/min",
                   "hands nobody out", "turn-cap hands"], rows),
            table(f"Budget curve, `shanghai`, seed {seed}, the deals shown x 4 seatings per K "
                  "(fewer where a large K costs more time than the run has): "
                  "rollout:rollouts=K against three smart",
                  ["K", "deals", "rollout win share", "smart - rollout points", "games/min"], crows),
        ],
        "notes": ["Win share per seat: a bot's share of the game's win (1/k for k tied winners) "
                  "averaged over the seats it held in every seating of a deal.",
                  "games/min: the whole tournament's games (4 seatings x deals) per minute of wall "
                  "time on this machine, all threads the runner used."],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_LAY, C_FLOOR, finish, np, plt
    else:
        from charts import C_OURS, C_LAY, C_FLOOR, finish, np, plt

    f = res["figures"]
    curve = f["curve"]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    if curve:
        ks = [c["k"] for c in curve]
        ws = [c["bots"]["rollout"]["win_share"] for c in curve]
        med = np.array([w["mean"] for w in ws])
        err = np.vstack([med - [w["lo"] for w in ws], [w["hi"] for w in ws] - med])
        x = np.arange(len(ks))
        ax.errorbar(x, med, yerr=err, fmt="o-", color=C_OURS, capsize=4, label="rollout (95% CI)")
        for i, c in enumerate(curve):       # under each lower whisker, clear of the line and the next point
            ax.text(x[i], med[i] - err[0][i] - 0.015, f"{med[i]:.3f}\n{c['games_per_min']:.1f} games/min",
                    fontsize=7, va="top", ha="center")
        ax.set_xlim(-0.5, len(ks) - 0.5)
        ax.set_xticks(x)
        ax.set_xticklabels([f"K = {k}\nn = {c['deals']}" for k, c in zip(ks, curve)])
        ax.axhline(0.25, color=C_FLOOR, ls="--", lw=1, label="par (0.25)")
        ax.axhline(0.33, color=C_LAY, ls=":", lw=1, label="target (0.33)")
        ax.set_ylim(0, max(0.6, max(w["hi"] for w in ws) + 0.08))
        ax.set_ylabel("win share per seat held")
        ax.set_xlabel("rollouts per candidate (samples)")
        ns = sorted({c["deals"] for c in curve})
        nd = f"{ns[0]:,}" if len(ns) == 1 else f"{ns[0]:,}-{ns[-1]:,} (n under each K)"
        ax.set_title(f"Does more search win more? one rollout vs three smart\n(shanghai, "
                     f"n = {nd} deals x 4 seatings per K)", fontsize=10)
        ax.legend(fontsize=8, loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    return finish(fig, res, path, whiskers=f"95% CI over deals · seed {res['settings']['seed']}, "
                   "every deal with the rollout bot in each of the 4 seats")


BENCHMARK = Benchmark(
    name="rollout", order=110, measure=measure, chart=chart,
    title="The rollout bot",
    how=(
        "Strength: `shanghai-sim tournament` of one rollout bot "
        "against three smart bots, every deal with the rollout bot in each seat, win share per seat "
        "held with 95% CIs over deals (par 0.25); the budget curve repeats it at several K on "
        "the same deals (its point at the default K is the `shanghai` strength row). Figures of "
        "a shared 2-core machine: the quick run shared it with a test suite. The engine has been "
        "made faster since this run without changing a game (the K = 8 point replayed to the last "
        "digit at 210 games/min against 146; docs/DEVELOPING.md speed notes): games/min are "
        "this run's."),
    sizes={
        "full": dict(deals=100, budgets=(4, 8, 16, 32, 64),
                     curve_deals={4: 160, 8: 160, 16: 100, 32: 50}),
        # small search budgets: the quick run stays within 5 minutes on 2 cores (the budget
        # curve to 64 samples and the default race are the full run's)
        "quick": dict(deals=12, budgets=(2, 4, 8), default="rollout:rollouts=4:race=16",
                      presets=("shanghai",)),
        "tiny": dict(deals=2, presets=("shanghai",), budgets=(2,),
                     default="rollout:rollouts=2:race=0:candidates=2"),
    },
    source=Source(kernels=("games.batch", "search.rollout"),
                  files=("shanghai_sim/bots.py", "shanghai_sim/rules/*.py", "shanghai_sim/tournament.py",
                         "shanghai_sim/stats.py", "shanghai_sim/runner/job.py", "shanghai_sim/runner/planning.py")),
)
