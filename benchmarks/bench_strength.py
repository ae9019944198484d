"""Bot strength: one `smart` against three `greedy` (issue #13's target: win share per seat
at least 0.40, par 0.25), 4 players, every deal played with `smart` in each of the four
seats (`shanghai-sim tournament`), on the measuring seed 1: `smart`'s weights were tuned on
other seeds (analyses/tune_smart.py, seed 7000000).

Reports per preset smart's and greedy's win share per seat held, points per game, the
share of hands each went out, the paired point difference (greedy - smart) per deal, all
with 95% CIs over deals, and the hands that ended with nobody out or at the turn cap.

    python benchmarks/run_all.py --only strength [--quick]
"""

from __future__ import annotations

from pathlib import Path

if __package__:                      # imported: benchmarks.bench_strength (run_all, the tests)
    from ._common import Benchmark, Source, table
else:                                # python benchmarks/bench_strength.py: this folder is sys.path[0]
    from _common import Benchmark, Source, table

LINEUP = ("smart", "greedy", "greedy", "greedy")


def _one(rules: str, deals: int, seed: int) -> dict:
    import tempfile
    import time

    from shanghai_sim import tournament as T
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        r = T.run_tournament(T.Tournament(LINEUP, rules=rules, deals=deals, seed=seed), f"{d}/t",
                             progress=None)
        seconds = time.perf_counter() - t0
    out = {"rules": rules, "deals": r.deals, "games": r.bots[0].games, "seconds": seconds,
           "hands": r.hands_played, "no_winner_hands": r.no_winner_hands,
           "turn_cap_hands": r.turn_cap_hands, "bots": {}}
    for b in r.bots:
        row = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.figures.items()}
        if b.effects:
            row["vs_smart"] = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.effects.items()}
        out["bots"][b.bot] = row
    return out


def measure(deals: int = 10_000, presets=("shanghai", "contract"), seed: int = 1, progress=None) -> dict:
    say = progress or (lambda s: None)
    runs = []
    for rules in presets:
        say(f"  {','.join(LINEUP)}, {rules}, {deals:,} deals")
        runs.append(_one(rules, deals, seed))
        s = runs[-1]["bots"]["smart"]["win_share"]
        say(f"    smart win share {s['mean']:.3f} [{s['lo']:.3f}, {s['hi']:.3f}]")

    def ci(x, k=3):
        return f"{x['mean']:.{k}f} [{x['lo']:.{k}f}, {x['hi']:.{k}f}]"
    rows = []
    for r in runs:
        sm, gr = r["bots"]["smart"], r["bots"]["greedy"]
        rows.append([r["rules"], r["deals"], ci(sm["win_share"]), ci(gr["win_share"]),
                     ci(sm["points"], 1), ci(gr["vs_smart"]["points"], 1), ci(sm["went_out"]),
                     ci(gr["went_out"]), f"{r['no_winner_hands'] / r['hands']:.1%}", r["turn_cap_hands"]])
    return {
        "name": "strength",
        "title": "Strength: one smart against three greedy",
        "settings": {"lineup": list(LINEUP), "deals": deals, "presets": list(presets), "seed": seed,
                     "players": 4, "seatings_per_deal": 4},
        "figures": {"runs": runs},
        "tables": [table(f"`{','.join(LINEUP)}`, 4 players, {deals:,} deals (seed {seed}) each played "
                         f"with smart in every seat; 95% CIs over deals; par win share 0.250",
                         ["rules", "deals", "smart win share", "greedy win share", "smart points/game",
                          "greedy - smart points", "smart hands out", "greedy hands out",
                          "hands nobody out", "turn-cap hands"], rows)],
        "notes": ["smart's weights were tuned on job seed 7000000 (analyses/tune_smart.py, record in "
                  "analyses/results/); these runs use seed 1.",
                  "Win share per seat: a bot's share of the game's win (1/k for k tied winners) "
                  "averaged over the seats it held in every seating of a deal."],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_LAY, C_PEER, C_FLOOR, finish, np, plt
    else:
        from charts import C_OURS, C_LAY, C_PEER, C_FLOOR, finish, np, plt

    runs = res["figures"]["runs"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = np.arange(len(runs))
    for off, bot, color in ((-0.18, "smart", C_OURS), (0.18, "greedy", C_PEER)):
        ws = [r["bots"][bot]["win_share"] for r in runs]
        med = np.array([w["mean"] for w in ws])
        err = np.vstack([med - [w["lo"] for w in ws], [w["hi"] for w in ws] - med])
        ax.bar(x + off, med, 0.34, yerr=err, color=color, capsize=3, label=bot)
        for i, m in enumerate(med):
            ax.text(x[i] + off, m + 0.01, f"{m:.3f}", ha="center", va="bottom", fontsize=8)
    ax.axhline(0.25, color=C_FLOOR, ls="--", lw=1, label="par (0.25)")
    ax.axhline(0.40, color=C_LAY, ls=":", lw=1, label="target for smart (0.40)")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{r['rules']}\n(n = {r['deals']:,} deals x 4 seatings)" for r in runs], fontsize=8)
    ax.set_ylabel("win share per seat held (95% CI)")
    ax.set_ylim(0, max(0.6, max(r["bots"]["smart"]["win_share"]["hi"] for r in runs) + 0.08))
    ax.set_title("How often does one smart bot win against three greedy bots?", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    return finish(fig, res, path, whiskers=f"95% CI over deals · seed {res['settings']['seed']}, "
                   f"every deal with smart in each of the 4 seats")


BENCHMARK = Benchmark(
    name="strength", order=80, measure=measure, chart=chart,
    title="Bot strength",
    how=(
        "Issue #13's strength target: one `smart` against three `greedy`, 4 players, every deal "
        "played with `smart` in each of the four seats (`shanghai-sim tournament`), on seed 1; "
        "smart's weights were tuned on other seeds (`analyses/tune_smart.py`, seed 7000000). Win "
        "share per seat held (par 0.25), points, the share of hands gone out, the paired point "
        "difference per deal, with 95% CIs over deals."),
    sizes={
        "full": dict(deals=10_000),
        "quick": dict(deals=1_000),
        "tiny": dict(deals=2, presets=("shanghai",)),
    },
    source=Source(kernels=("games.batch",),
                  cut=("search.rollout", "search.oracle", "search.playout", "compile.linking"),      # smart vs greedy; outcomes: how kernels link changes no game
                  files=("shanghai_sim/bots.py", "shanghai_sim/rules/*.py", "shanghai_sim/tournament.py",
                         "shanghai_sim/stats.py", "shanghai_sim/runner/job.py", "shanghai_sim/runner/planning.py")),
)
