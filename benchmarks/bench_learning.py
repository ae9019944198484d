"""How long `shanghai-sim train value` takes on a million positions (issue 57: at most 10
minutes on 2 cores), by stage, and what the model it fits gives on held-out games.

    .venv/bin/python benchmarks/bench_learning.py                     # about 1,000,000 positions
    .venv/bin/python benchmarks/bench_learning.py --games 2000        # a smaller dataset

A dataset with a positions table is written by the real runner (`run --positions 0.05`, four
greedy bots: the fit's time depends on the rows, not on who played them; greedy plays the
dataset fastest). Then the value model is trained on it `reps` times (`learning.train_value`,
the command's call), each timed by stage: reading the positions (every part checked against
its SHA-256), fitting (the terms of every training row and the normal equations, ridge),
testing on the held-out games (the baselines, the paired errors, the calibration).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from shanghai_sim import runner
from shanghai_sim.learning import train_value
from shanghai_sim.limits import parse_args

if __package__:                      # imported: benchmarks.bench_learning (run_all, the tests)
    from ._common import Benchmark, Source, spread, table
else:                                # python benchmarks/bench_learning.py: this folder is sys.path[0]
    from _common import Benchmark, Source, spread, table

RATE = 0.05
STAGES = (("read", "reading the positions (checked)"), ("fit", "fitting (terms, normal equations, ridge)"),
          ("test", "testing on the held-out games"))
TARGET_S = 600          # issue 57: a million positions in at most 10 minutes


def measure(games: int = 13000, threads: int = 2, reps: int = 3, progress=None) -> dict:
    """The learning benchmark as a result dict (benchmarks/_common.py): ``games`` greedy games
    with positions at ``RATE``, then ``reps`` trainings of the value model, timed by stage."""
    say = progress or (lambda s: None)
    tmp = Path(tempfile.mkdtemp(prefix="bench-learning-"))
    out = tmp / "pos"
    try:
        t0 = time.perf_counter()
        runner.run(runner.plan(runner.Job(games=games, out=str(out), threads=threads, positions=RATE)),
                   progress=None)
        made = time.perf_counter() - t0
        stages: dict[str, list[float]] = {k: [] for k, _ in STAGES}
        total = []
        for i in range(reps):
            clock: dict[str, float] = {}
            t0 = time.perf_counter()
            model, report = train_value(str(out), timings=clock)
            total.append(time.perf_counter() - t0)
            for k, _ in STAGES:
                stages[k].append(clock[k])
            say(f"  training {i + 1}/{reps}: {total[-1]:.1f}s")
        rows = model.meta["trained_on"]["positions"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total_s = spread(total)
    per_million = spread([t / rows * 1e6 for t in total])
    pts = report["targets"]["points"]
    say(f"  {rows:,} positions of {games:,} games (written in {made:.1f}s): trained in "
        f"{total_s['median']:.1f}s, {per_million['median']:.1f}s per million positions")
    return {
        "name": "learning",
        "title": "Training the value model: seconds per million positions, by stage",
        "settings": {"games": games, "rate": RATE, "threads": threads, "reps": reps, "bots": "greedy"},
        "figures": {"positions": rows, "dataset_seconds": made, "total": total_s,
                    "per_million": per_million, "stages": {k: spread(v) for k, v in stages.items()},
                    "held_out_rmse": {k: pts[k]["rmse"] for k in ("model", "contract_deficiency",
                                                                  "contract_deficiency_turns")}},
        "tables": [
            table(f"`shanghai-sim train value` on {rows:,} positions of {games:,} games (rate {RATE}, four "
                  f"greedy bots); seconds, median (min-max) of {reps}",
                  ["stage", "seconds", "seconds per million positions"],
                  [[name, spread(stages[k]), spread(stages[k])["median"] / rows * 1e6] for k, name in STAGES]
                  + [["the whole training", total_s, per_million["median"]],
                     ["issue 57's target", None, float(TARGET_S)]]),
            table("The model it fitted, on its held-out games: root mean squared error of the points at "
                  "the hand's end", ["predictor", "RMSE"],
                  [["the model", pts["model"]["rmse"]],
                   ["mean by contract and deficiency", pts["contract_deficiency"]["rmse"]],
                   ["mean by contract, deficiency and turn bucket", pts["contract_deficiency_turns"]["rmse"]]]),
        ],
    }


def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_FLOOR, C_OURS, finish, median_err, np, plt
    else:
        from charts import C_FLOOR, C_OURS, finish, median_err, np, plt

    f = res["figures"]
    scale = 1e6 / f["positions"]
    spreads = [{k: (v * scale if isinstance(v, float) else v) for k, v in f["stages"][k].items()
                if k != "samples"} for k, _ in STAGES]
    spreads.append({k: (v * scale if isinstance(v, float) else v) for k, v in f["total"].items() if k != "samples"})
    med, err = median_err(spreads)
    labels = [name for _, name in STAGES] + ["the whole training"]
    fig, ax = plt.subplots(figsize=(9, 3.4))
    y = np.arange(len(labels))
    ax.barh(y, med, xerr=err, color=[C_OURS] * len(STAGES) + [C_FLOOR], capsize=3)
    for i, m in enumerate(med):
        ax.text(m + err[1][i], i, f"  {m:,.1f} s", va="center", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.3 * max(med + err[1]))
    ax.set_xlabel(f"seconds per million positions (the target: at most {TARGET_S} s)")
    ax.set_title(f"Training the value model on {f['positions']:,} positions, by stage", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="learning", order=55, measure=measure, chart=chart,
    title="Training the value model",
    how=(
        "A dataset with a positions table written by the real runner (`run --positions 0.05`, four "
        "greedy bots: the fit's time depends on the rows, not on who played them), then "
        "`shanghai-sim train value`'s call on it, timed by stage: reading every positions part "
        "(checked against its SHA-256), fitting (the model's terms for every training row, the "
        "normal equations summed over chunks, the ridge solve) and testing on the held-out games "
        "(baselines, paired errors clustered by game, calibration). The issue's target: a million "
        "positions in at most 10 minutes on 2 cores."),
    sizes={
        "full": dict(games=13000, reps=3),
        "quick": dict(games=1000, reps=2),
        "tiny": dict(games=40, reps=1),
    },
    source=Source(kernels=("bots.value",),
                  files=("shanghai_sim/learning.py", "shanghai_sim/integrity.py", "shanghai_sim/dataset.py")),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=13000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    a = parse_args(ap)
    res = measure(a.games, a.threads, a.reps, progress=print)
    for t in res["tables"]:
        print(t["title"])
        for row in t["rows"]:
            print("  ", row)


if __name__ == "__main__":
    main()
