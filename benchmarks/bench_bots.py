"""The bots: games per second and decisions per second of each bot, four seats of it,
`shanghai` rules, one thread (``kernels.games.batch.count_actions_nb``: the batch loop,
counting each decision).

Then the tournament table (``shanghai_sim.tournament``, as `shanghai-sim tournament`
prints it): ``TOURNAMENT`` over ``tournament_deals`` deals, each in every distinct seating,
every bot against the first-named one on the same deals.

    python benchmarks/run_all.py --only bots [--quick]
"""

from __future__ import annotations

from pathlib import Path

if __package__:                      # imported: benchmarks.bench_bots (run_all, the tests)
    from ._common import Benchmark, Source, table
    from .bench_engine import actions_rate
else:                                # python benchmarks/bench_bots.py: this folder is sys.path[0]
    from _common import Benchmark, Source, table
    from bench_engine import actions_rate

BOTS = ("random", "greedy", "smart")
TOURNAMENT = ("smart", "greedy", "greedy:buy=never", "random")
SEED = 1                     # the tournament's (its default), recorded in the settings


def _tournament(deals: int, rules: str) -> tuple[list[list], dict]:
    """The tournament's rows (bot, seats, win share per seat, points, vs the first bot) and settings."""
    import tempfile
    import time

    from shanghai_sim import tournament as T
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        r = T.run_tournament(T.Tournament(TOURNAMENT, rules=rules, deals=deals, seed=SEED), f"{d}/t",
                             progress=None)
        seconds = time.perf_counter() - t0
        f = r.frame()
    ci = (lambda m, lo, hi, k=1: f"{m:.{k}f} [{lo:.{k}f}, {hi:.{k}f}]" if lo == lo else f"{m:.{k}f}")
    rows = []
    for _, b in f.iterrows():
        diff = ("reference" if b["d_points"] is None or b["d_points"] != b["d_points"]
                else ci(b["d_points"], b["d_points_lo"], b["d_points_hi"]))
        rows.append([b["bot"], int(b["seats"]), ci(b["win_share"], b["win_share_lo"], b["win_share_hi"], 3),
                     ci(b["points"], b["points_lo"], b["points_hi"]), diff])
    return rows, {"lineup": list(TOURNAMENT), "seed": SEED, "deals": deals, "games": int(f["games"].max()),
                  "seconds": seconds}


def measure(games: dict | None = None, reps: int = 3, rules: str = "shanghai", players: int = 4,
            tournament_deals: int = 100, progress=None) -> dict:
    say = progress or (lambda s: None)
    games = games or {"random": 20, "greedy": 100, "smart": 100}
    rows = []
    for bot in BOTS:
        dps, gps = actions_rate(rules, players, bot, games[bot], reps)
        rows.append({"bot": bot, "games": games[bot], "games_per_s": gps, "decisions_per_s": dps,
                     "decisions_per_game": dps["median"] / gps["median"]})
        say(f"  {bot}: {gps['median']:,.0f} games/s, {dps['median']:,.0f} decisions/s")
    say(f"  tournament {','.join(TOURNAMENT)}, {tournament_deals} deals")
    trows, tset = _tournament(tournament_deals, rules)
    return {
        "name": "bots",
        "title": "Bots: games/s and decisions/s of each bot",
        "settings": {"rules": rules, "players": players, "games": games, "reps": reps,
                     "tournament": tset},
        "figures": {"bots": rows, "tournament": trows},
        "tables": [table(f"Four seats of one bot, `{rules}`, one thread, median (min-max) of {reps}",
                         ["bot", "games per pass", "games/s", "decisions/s", "decisions per game"],
                         [[r["bot"], r["games"], r["games_per_s"], r["decisions_per_s"],
                           r["decisions_per_game"]] for r in rows]),
                   table(f"Tournament `{','.join(TOURNAMENT)}`, `{rules}`, seed {SEED}, {tset['deals']:,} deals in every "
                         f"distinct seating ({tset['games']:,} games, {tset['seconds']:.0f} s); 95% CIs over deals",
                         ["bot", "seats", "win share per seat", "points per game", "points vs smart"],
                         trows)],
        "notes": ["The tournament is `shanghai-sim tournament` (docs/tournament.md), every bot "
                  "against `smart` on the same deals. The strength targets (one smart against three "
                  "greedy over 10,000 deals) are `bench_strength.py`."],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, median_err, finish, matplotlib, np, plt
    else:
        from charts import C_OURS, median_err, finish, matplotlib, np, plt

    rows = res["figures"]["bots"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, key, yl in ((axes[0], "games_per_s", "games per second"),
                        (axes[1], "decisions_per_s", "decisions per second")):
        med, err = median_err([r[key] for r in rows])
        ax.bar(np.arange(len(rows)), med, 0.6, yerr=err, color=C_OURS, capsize=3)
        for i, m in enumerate(med):
            ax.text(i, m, f"{m:,.0f}  ", ha="right", va="bottom", fontsize=8)
        ax.set_xticks(np.arange(len(rows)))
        ax.set_xticklabels([r["bot"] for r in rows])
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_ylabel(f"{yl}, one thread")
        ax.set_title(f"{yl.capitalize()} of each bot\n(4 seats of it, `shanghai`)", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="bots", order=70, measure=measure, chart=chart,
    title="The bots",
    how=(
        "Four seats of each bot, `shanghai` rules, one thread: games per second and decisions "
        "per second; then a tournament of smart, greedy, a greedy that never buys and a random "
        "bot, every deal in all 24 seatings, as `shanghai-sim tournament` reports it."),
    sizes={
        "full": dict(games={"random": 50, "greedy": 500, "smart": 500}, reps=5, tournament_deals=200),
        "quick": dict(games={"random": 20, "greedy": 100, "smart": 100}, reps=3, tournament_deals=20),
        "tiny": dict(games={"random": 1, "greedy": 2, "smart": 2}, reps=2, tournament_deals=2),
    },
    source=Source(kernels=("games.batch",), cut=("search.rollout", "search.oracle", "search.playout"),          # random, greedy, smart: the rollout bot is not played
                  files=("benchmarks/bench_engine.py", "shanghai_sim/bots.py", "shanghai_sim/rules/*.py",
                         "shanghai_sim/tournament.py", "shanghai_sim/stats.py", "shanghai_sim/runner/job.py",
                         "shanghai_sim/runner/planning.py")),
)
