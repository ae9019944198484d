"""What an experiment costs over running its arms as plain jobs (issue 15: at most 10% more).

    .venv/bin/python benchmarks/bench_experiment.py                # 2 arms x 2,000 deals x 4 seats
    .venv/bin/python benchmarks/bench_experiment.py --deals 500 --hand 8 --repeat 3
    python benchmarks/run_all.py --only experiment [--quick]        # whole games and hand 8, into BENCHMARKS.md

Both sides run in this process on the same threads, after one warm-up, so
neither pays for importing or compiling: the plain side is one
``runner.run`` per arm (the default rotating seating, the same number of
games: deals x players), the experiment side is ``run_experiment`` (the same
arms with duplicate seating, then the paired analysis, which streams every
part back). The best of ``--repeat`` runs is kept for each side.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from shanghai_sim import runner
from shanghai_sim.experiment import Experiment, one_hand_rules, one_hand_spec, run_experiment
from shanghai_sim.rules import load_rules
from shanghai_sim.limits import parse_args

if __package__:                      # imported: benchmarks.bench_experiment (run_all, the tests)
    from ._common import Benchmark, Source, spread, table
else:                                # python benchmarks/bench_experiment.py: this folder is sys.path[0]
    from _common import Benchmark, Source, spread, table

BASELINE, VARIANT = "greedy", "greedy:buy8=never"


def plain(exp: Experiment, deals: int, root: str) -> float:
    rules = load_rules(exp.rules)
    players = exp.players or rules.players
    t0 = time.perf_counter()
    for i, arm in enumerate(exp.arms):
        bots = [arm.bot] + [exp.opponents or exp.baseline] * (players - 1)
        r = rules
        if exp.hand is not None:
            r = one_hand_rules(rules, exp.hand)
            bots = [one_hand_spec(b, exp.hand)[0] for b in bots]
        job = runner.Job(rules=r, players=players, bots=tuple(bots), games=deals * players, seed=exp.seed,
                         threads=exp.threads, out=os.path.join(root, f"plain{i}"))
        runner.run(runner.plan(job), progress=None)
    return time.perf_counter() - t0


def experiment(exp: Experiment, root: str) -> float:
    t0 = time.perf_counter()
    run_experiment(exp, os.path.join(root, "exp"), progress=None)
    return time.perf_counter() - t0


def compare(deals: int, hand: int | None, threads: int | None, repeat: int) -> dict:
    """One mode (whole games, or ``hand`` only): both sides ``repeat`` times, interleaved."""
    exp = Experiment(baseline=BASELINE, variants=(VARIANT,), games=deals, hand=hand, threads=threads)
    secs: dict[str, list[float]] = {"plain": [], "experiment": []}
    warm = tempfile.mkdtemp(prefix="bench-exp-warm-")
    try:
        run_experiment(Experiment(baseline=BASELINE, variants=(VARIANT,), games=4, hand=hand),
                       os.path.join(warm, "w"), progress=None)      # compile / load the kernels once
    finally:
        shutil.rmtree(warm, ignore_errors=True)
    for _ in range(repeat):
        for side in ("plain", "experiment"):       # interleaved: load drifts hit both sides
            root = tempfile.mkdtemp(prefix="bench-exp-")
            try:
                secs[side].append(plain(exp, deals, root) if side == "plain" else experiment(exp, root))
            finally:
                shutil.rmtree(root, ignore_errors=True)
    games = 2 * deals * (exp.players or load_rules(exp.rules).players)
    best = {side: min(s) for side, s in secs.items()}
    return {"hand": hand, "mode": f"hand {hand} only" if hand else "whole games", "deals": deals, "games": games,
            "repeat": repeat, "plain": spread(secs["plain"]), "experiment": spread(secs["experiment"]),
            "overhead": best["experiment"] / best["plain"] - 1}


def measure(modes=((None, 2000),), threads: int | None = None, repeat: int = 2, progress=None) -> dict:
    """``modes``: (hand or None for whole games, deals per arm) of each comparison."""
    say = progress or (lambda s: None)
    figs = []
    for hand, deals in modes:
        figs.append(compare(deals, hand, threads, repeat))
        say(f"  {figs[-1]['mode']}, {deals:,} deals: {figs[-1]['overhead']:+.1%}")
    rows = [[f["mode"], f["deals"], f["games"], f["plain"]["min"], f["games"] / f["plain"]["min"],
             f["experiment"]["min"], f["games"] / f["experiment"]["min"], f"{f['overhead']:+.1%}"] for f in figs]
    return {
        "name": "experiment",
        "title": "Experiments: what duplicate seating and the paired analysis cost over plain runs",
        "settings": {"baseline": BASELINE, "variant": VARIANT, "rules": "shanghai", "players": 4,
                     "modes": [list(m) for m in modes], "threads": threads, "repeat": repeat},
        "figures": {"modes": figs},
        "tables": [table(f"2 arms (`{BASELINE}`, `{VARIANT}`) x deals x 4 seats, best of {repeat} per side, the "
                         "sides interleaved; target: at most +10%",
                         ["mode", "deals per arm", "games", "plain run jobs, s", "plain games/s",
                          "experiment, s", "experiment games/s", "overhead"], rows)],
        "notes": ["Both sides in one process after a warm-up (no import or compile timed), on the same threads; "
                  "the experiment's time includes its paired analysis, which reads every part back."],
    }


def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_FLOOR, C_OURS, finish, np, plt
    else:
        from charts import C_FLOOR, C_OURS, finish, np, plt

    modes = res["figures"]["modes"]
    fig, ax = plt.subplots(figsize=(9, 1.6 + 1.0 * len(modes)))
    y = np.arange(len(modes))
    top = 0.0
    for off, side, color, label in ((-0.2, "plain", C_FLOOR, "its arms as plain `run` jobs"),
                                    (0.2, "experiment", C_OURS, "the experiment (duplicate seating + paired analysis)")):
        gps = [m["games"] / m[side]["min"] for m in modes]
        top = max(top, *gps)
        ax.barh(y + off, gps, 0.38, color=color, label=label)
        for i, v in enumerate(gps):
            ax.text(v, i + off, f"  {v:,.0f}", va="center", fontsize=8)
    ax.set_xlim(0, 1.6 * top)                # room for the legend, right of the bars
    ax.set_yticks(y)
    ax.set_yticklabels([f"{m['mode']}, {m['deals']:,} deals\n{m['overhead']:+.1%}" for m in modes], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("games per second, best of the repeats")
    ax.set_title("What does an experiment cost over running its arms as plain jobs? (target: at most +10%)",
                 fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    ax.grid(axis="x", alpha=0.3)
    return finish(fig, res, path, whiskers=f"none, the best of {res['settings']['repeat']} per side")


BENCHMARK = Benchmark(
    name="experiment", order=45, measure=measure, chart=chart,
    title="Experiments",
    how=(
        "`shanghai_sim.experiment` against running its arms as plain jobs: two arms, `greedy` and "
        "`greedy:buy8=never`, against three `greedy`, `shanghai`, 4 players, each deal in all four "
        "seatings. The plain side is one `runner.run` per arm (the default rotating seating, the same "
        "games: deals x players), the experiment side `run_experiment` (duplicate seating, then the paired "
        "analysis, which streams every part back), whole games and hand 8 alone (`--hand 8`). Both in one "
        "process after a warm-up, the sides interleaved, the best of the repeats kept. Issue 15's target: "
        "at most 10% more. `python benchmarks/bench_experiment.py` runs one mode alone."),
    sizes={
        "full": dict(modes=((None, 1000), (8, 2000)), repeat=2),
        "quick": dict(modes=((None, 100), (8, 400)), repeat=2),
        "tiny": dict(modes=((8, 2),), repeat=1),
    },
    source=Source(kernels=("games.batch",), cut=("search.rollout", "search.oracle", "search.playout"),          # the rollout bot: compiled in, never played here
                  files=("shanghai_sim/experiment/*.py", "shanghai_sim/stats.py", "shanghai_sim/runner/*.py",
                         "shanghai_sim/dataset.py", "shanghai_sim/integrity.py", "shanghai_sim/bots.py",
                         "shanghai_sim/rules/*.py")),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000, help="deals per arm (games = deals x players)")
    ap.add_argument("--hand", type=int, default=None, help="hand-level mode: only this hand")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=2)
    a = parse_args(ap)
    f = measure(((a.hand, a.deals),), a.threads, a.repeat)["figures"]["modes"][0]
    best = {side: f[side]["min"] for side in ("plain", "experiment")}
    games = f["games"]
    print(f"2 arms x {a.deals:,} deals x 4 seats = {games:,} games ({f['mode']}), best of {a.repeat}")
    print(f"  plain run jobs : {best['plain']:7.2f} s  ({games / best['plain']:,.0f} games/s)")
    print(f"  experiment     : {best['experiment']:7.2f} s  ({games / best['experiment']:,.0f} games/s)")
    print(f"  overhead       : {f['overhead']:+.1%}  (target: at most +10%)")


if __name__ == "__main__":
    main()
