"""Batch-runner speed (issue 4 §8): writing overhead, thread scaling, peak memory.

    .venv/bin/python benchmarks/bench_runner.py            # full
    .venv/bin/python benchmarks/bench_runner.py --quick    # a few minutes

Measures, for the default job (shanghai rules, 4 greedy bots):

1. engine alone: the kernel over N games on one thread, in one call, nothing kept;
2. run with Parquet on one thread: the same games through ``runner.run``
   (seeds, kernel, tables, zstd Parquet, manifest); overhead = 2 / 1 - 1;
3. thread scaling: the kernel alone and ``runner.run`` on 1 and 2 threads;
4. peak RSS of a whole job in a fresh process, for 10k, 100k and 1M games.

N is chosen so that the one-thread engine run takes about 20 s (6 s with
--quick) unless --games is given. A job size the real engine cannot finish
within --max-seconds is run with the kernel replaced by a no-op that fills
constant records ("runner only" in the table): that measures the runner's own
memory and writing cost at that size, which is what stays flat or not; the
engine's memory is per game and does not grow with the job.
Every timed run is preceded by a warm-up so numba compilation is not counted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from shanghai_sim import runner
from shanghai_sim.limits import parse_args
from shanghai_sim.kernels.base import records as R

if __package__:                      # imported: benchmarks.bench_runner (run_all, the tests)
    from ._common import Benchmark, Source, ratio, spread, table
else:                                # python benchmarks/bench_runner.py: this folder is sys.path[0]
    from _common import Benchmark, Source, ratio, spread, table


def _noop_play(params, points, joker_cap, meld_kind, meld_size, n_melds, deal, buys,
               bot_kind, bot_params, seeds, hand_out):
    """Stand-in kernel for "runner only" rows: plausible constant records, no game."""
    hand_out[...] = 0
    hand_out[..., R.HF_POINTS] = 35
    hand_out[..., R.HF_CARDS_LEFT] = 6
    hand_out[..., R.HF_TURNS] = 12
    hand_out[..., R.HF_DOWN_TURN] = -1
    hand_out[..., R.HF_DEALER] = np.arange(hand_out.shape[1])[None, :, None] % hand_out.shape[2]
    hand_out[:, :, 0, R.HF_WENT_OUT] = 1
    hand_out[:, :, 0, R.HF_POINTS] = 0


def runner_only_engine() -> runner.Engine:
    real = runner.default_engine()
    return runner.Engine(_noop_play, real.parse_bots, real.bot_name)


def engine_alone(plan: runner.Plan, games: int, threads: int) -> float:
    """Seconds for the kernel to play games 0..games-1, split over ``threads`` threads."""
    eng = runner.default_engine()
    ra = plan.rules.arrays()
    kind, params = eng.parse_bots(list(plan.lineup), plan.players)
    seeds = runner.game_seeds(plan.seed, 0, games)
    bounds = np.linspace(0, games, threads + 1).astype(int)

    def work(a: int, b: int) -> None:           # one call per thread: the engine at its fastest
        buf = np.zeros((b - a, plan.hands, plan.players, R.NHF), dtype=np.int32)
        eng.play_games(*ra, kind, params, seeds[a:b], buf)

    ts = [threading.Thread(target=work, args=(bounds[i], bounds[i + 1])) for i in range(threads)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def with_parquet(games: int, threads: int, tmp: Path, engine=None, positions: float | None = None,
                 rows: dict | None = None) -> float:
    """Seconds of ``runner.run`` of the default job (with ``positions``: recording them at that
    rate); ``rows``: filled with the dataset's rows per table."""
    out = tmp / f"run-{games}-{threads}"
    shutil.rmtree(out, ignore_errors=True)
    job = runner.Job(games=games, threads=threads, out=str(out), positions=positions)
    t0 = time.perf_counter()
    res = runner.run(runner.plan(job, engine), progress=None, engine=engine)
    dt = time.perf_counter() - t0
    if rows is not None:
        rows.update(res.manifest["rows"])
    shutil.rmtree(out, ignore_errors=True)
    return dt


def _vm_hwm_mib() -> float:
    """This process's own peak RSS (Linux VmHWM; ru_maxrss elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_rss(games: int, tmp: Path, threads: int, stub: bool) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of a whole job in a fresh process.

    The child reports its own VmHWM: a forked child's ru_maxrss would include
    this (big) process's memory at the fork.
    """
    out = tmp / f"rss-{games}"
    shutil.rmtree(out, ignore_errors=True)
    mode = "stub" if stub else "real"
    cmd = [sys.executable, __file__, "--child", mode, str(games), str(threads), str(out)]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stderr}")
    shutil.rmtree(out, ignore_errors=True)
    return dt, float(res.stdout.strip().splitlines()[-1])


def _child(mode: str, games: int, threads: int, out: str) -> None:
    if mode == "stub":
        eng = runner_only_engine()
        runner.run(runner.plan(runner.Job(games=games, threads=threads, out=out), eng),
                   progress=None, engine=eng)
    else:                                   # exactly `shanghai-sim run ... --quiet`
        from shanghai_sim.cli.main import main as cli
        try:
            cli(["run", "--games", str(games), "--threads", str(threads), "--out", out, "--quiet"])
        except SystemExit as e:
            if e.code:
                raise
    print(f"{_vm_hwm_mib():.1f}")


def measure(games: int | None = None, target_s: float = 6.0, reps: int = 3,
            max_threads: int | None = None, stub_games: int = 20_000,
            rss_real=(2_000,), rss_stub=(10_000, 100_000), tmp: str | None = None,
            progress=None) -> dict:
    """The runner benchmark as a result dict (see _common): thread scaling 1..N of the
    engine alone and of ``runner.run`` with Parquet, the writing overhead, the runner's
    own cost (no-op engine), and peak RSS of whole jobs in fresh processes, real engine
    (``shanghai-sim run``) for ``rss_real`` games and the no-op engine for ``rss_stub``."""
    say = progress or (lambda s: None)
    tmpd = Path(tmp or tempfile.mkdtemp(prefix="bench-runner-"))
    tmpd.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    nmax = max_threads or cores
    plan = runner.plan(runner.Job(games=10**6, out=str(tmpd / "unused")))
    with_parquet(2, 1, tmpd)                                  # compile / load everything once
    per_game = engine_alone(plan, 4, 1) / 4
    games = games or max(8, int(target_s / per_game))
    scaling = []
    for th in range(1, nmax + 1):
        e = spread([games / engine_alone(plan, games, th) for _ in range(reps)])
        pq = spread([games / with_parquet(games, th, tmpd) for _ in range(reps)])
        scaling.append({"threads": th, "engine": e, "parquet": pq})
        say(f"  {th} thread(s): engine {e['median']:,.0f} games/s, run+Parquet {pq['median']:,.0f}")
    s1 = spread([stub_games / with_parquet(stub_games, 1, tmpd, runner_only_engine())
                 for _ in range(reps)])
    # run --positions at its default rate against the plain run, alternated, on one thread
    from shanghai_sim.defaults import DEFAULT_POSITIONS_RATE as rate
    with_parquet(2, 1, tmpd, positions=rate)                  # its kernels compiled / loaded
    plain, recorded, rows = [], [], {}
    for _ in range(reps):
        plain.append(games / with_parquet(games, 1, tmpd))
        recorded.append(games / with_parquet(games, 1, tmpd, positions=rate, rows=rows))
    pos_cost = spread([100 * (1 - b / a) for a, b in zip(plain, recorded)])
    per_seat_hand = rows["positions"] / (games * plan.players * plan.hands)
    say(f"  --positions {rate:g}: {per_seat_hand:.2f} positions per seat and hand, "
        f"cost {pos_cost['median']:.1f}% of the plain run's speed")
    rss = []
    for stub, sizes in ((False, rss_real), (True, rss_stub)):
        for g in sizes:
            dt, mib = peak_rss(g, tmpd, min(2, cores), stub)
            rss.append({"games": g, "engine": "no-op" if stub else "real", "seconds": dt,
                        "peak_rss_mib": mib})
            say(f"  {'no-op' if stub else 'real'} engine, {g:,} games: peak RSS {mib:,.0f} MiB")
    shutil.rmtree(tmpd, ignore_errors=True)
    one = scaling[0]
    overhead = [p / e - 1 for p, e in zip(
        [1 / x for x in one["parquet"]["samples"]], [1 / x for x in one["engine"]["samples"]])]
    overhead = spread([100 * x for x in overhead])
    return {
        "name": "runner",
        "title": "Batch runner: thread scaling, Parquet overhead, peak RSS against games",
        "settings": {"games": games, "reps": reps, "threads": list(range(1, nmax + 1)),
                     "stub_games": stub_games, "rss_real": list(rss_real),
                     "rss_stub": list(rss_stub), "job": "shanghai rules, 4 greedy bots"},
        "figures": {"scaling": scaling, "overhead_pct": overhead, "runner_only": s1, "rss": rss,
                    "ms_per_game": per_game * 1e3,
                    "positions": {"rate": rate, "per_seat_hand": per_seat_hand, "cost_pct": pos_cost,
                                  "plain": spread(plain), "recorded": spread(recorded)}},
        "tables": [
            table(f"Thread scaling, {games:,} games of the default job, games/s, median (min-max) of {reps}",
                  ["threads", "engine alone", "run + Parquet", "engine speed-up", "run speed-up"],
                  [[s["threads"], s["engine"], s["parquet"], ratio(s["engine"], one["engine"]),
                    ratio(s["parquet"], one["parquet"])] for s in scaling]),
            table("Writing: the runner's own cost",
                  ["what", "value"],
                  [["Parquet + runner overhead on one thread, % of engine time", overhead],
                   [f"no-op engine through runner.run, {stub_games:,} games, games/s", s1]]),
            table(f"The positions table (`run --positions`, rate {rate:g}: {per_seat_hand:.2f} positions per "
                  f"seat and hand), {games:,} games on one thread, games/s, median (min-max) of {reps}, "
                  "alternated with the plain run",
                  ["plain run", "with positions", "cost, % of the plain run's speed"],
                  [[spread(plain), spread(recorded), pos_cost]]),
            table(f"Peak RSS of a whole job in a fresh process, {min(2, cores)} threads",
                  ["games", "engine", "seconds", "peak RSS MiB"],
                  [[x["games"], x["engine"], x["seconds"], x["peak_rss_mib"]] for x in rss]),
        ],
        "notes": ["`real` = `shanghai-sim run ... --quiet`; `no-op` = the kernel replaced by "
                  "a stub that fills constant records: the runner's own memory and writing "
                  "cost at job sizes the real engine cannot finish within the run's time."],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_LAY, C_FLOOR, median_err, finish, np, plt
    else:
        from charts import C_OURS, C_LAY, C_FLOOR, median_err, finish, np, plt

    f = res["figures"]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6))
    ax = axes[0]
    th = [s["threads"] for s in f["scaling"]]
    for key, label, c in (("engine", "engine alone", C_OURS), ("parquet", "run + Parquet", C_LAY)):
        med, err = median_err([s[key] for s in f["scaling"]])
        ax.errorbar(th, med, yerr=err, marker="o", capsize=3, label=label, color=c)
    ax.set_xticks(th)
    ax.set_xlabel("threads")
    ax.set_ylabel("games per second")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Thread scaling, {res['settings']['games']:,} games\n"
                 "(shanghai, 4 greedy bots)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax = axes[1]
    one = f["scaling"][0]
    med, err = median_err([one["engine"], one["parquet"]])
    sec = 1e3 / med
    # ms per game from games/s: whiskers flip (min games/s = max ms)
    lo = 1e3 / (med + err[1])
    hi = 1e3 / (med - err[0])
    ax.bar([0, 1], sec, 0.6, yerr=np.vstack([sec - lo, hi - sec]), color=[C_OURS, C_LAY], capsize=3)
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["engine alone", "run + Parquet\n(tables, zstd, manifest)"], fontsize=8)
    ax.set_ylabel("ms per game, one thread")
    ov = f["overhead_pct"]["median"]
    ax.set_title(f"Parquet overhead: {ov:+.0f}% of engine time\n(one thread)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax = axes[2]
    for eng, mk, c in (("real", "o", C_OURS), ("no-op", "s", C_FLOOR)):
        rs = [r for r in f["rss"] if r["engine"] == eng]
        if rs:
            ax.plot([r["games"] for r in rs], [r["peak_rss_mib"] for r in rs], marker=mk, color=c,
                    label=("real engine (`shanghai-sim run`)" if eng == "real"
                           else "no-op engine (runner only)"))
    ax.set_xscale("log")
    ax.set_ylim(0, 1.3 * max(r["peak_rss_mib"] for r in f["rss"]))
    ax.set_xlabel("games in the job (log)")
    ax.set_ylabel("peak RSS, MiB (one run each)")
    ax.set_title("Peak memory against job size\n(fresh process, whole job)", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3, which="both")
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="runner", order=40, measure=measure, chart=chart,
    title="The batch runner",
    how=(
        "The default job (`shanghai`, 4 greedy bots): the kernel alone and `runner.run` (seeds, "
        "kernel, Arrow tables, zstd Parquet, manifest) on 1..N threads; the writing overhead on "
        "one thread; the runner's own cost with the kernel replaced by a no-op; and the peak "
        "RSS of whole jobs in a fresh process: `real` is `shanghai-sim run --quiet` up to the "
        "size this run's time allows, `no-op` is the runner with the no-op kernel up to 1M "
        "games. On a shared machine a second thread competes with other people's work, so "
        "the scaling shown is a lower bound."),
    sizes={
        "full": dict(target_s=10.0, reps=3, stub_games=100_000,
                     rss_real=(1_000, 10_000, 50_000), rss_stub=(10_000, 100_000, 1_000_000)),
        "quick": dict(target_s=2.0, reps=3, stub_games=20_000,
                      rss_real=(2_000,), rss_stub=(10_000, 100_000, 1_000_000)),
        "tiny": dict(games=4, reps=2, max_threads=2, stub_games=200, rss_real=(2,),
                     rss_stub=(200,)),
    },
    source=Source(kernels=("games.batch",), cut=("search.rollout", "search.oracle", "search.playout"),          # the rollout bot: compiled in, never played here
                  files=("shanghai_sim/runner/*.py", "shanghai_sim/dataset.py", "shanghai_sim/integrity.py",
                         "shanghai_sim/limits.py", "shanghai_sim/bots.py", "shanghai_sim/rules/*.py",
                         "cli/main.py", "cli/run_cmds.py")),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs; RSS for 10k games only")
    ap.add_argument("--games", type=int, help="games for the overhead and scaling runs (default: auto)")
    ap.add_argument("--rss", type=str, help="comma-separated job sizes for the RSS runs")
    ap.add_argument("--max-seconds", type=float, help="longest real-engine RSS run (default 600; 60 quick)")
    ap.add_argument("--tmp", type=str, help="scratch folder (default: a temporary one)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parse_args(ap)
    if args.child:
        _child(args.child[0], int(args.child[1]), int(args.child[2]), args.child[3])
        return
    rss_sizes = [int(x) for x in args.rss.split(",")] if args.rss else \
        ([10_000] if args.quick else [10_000, 100_000, 1_000_000])
    max_s = args.max_seconds or (60.0 if args.quick else 600.0)
    tmp = Path(args.tmp or tempfile.mkdtemp(prefix="bench-runner-"))
    tmp.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    threads = min(2, cores)

    plan = runner.plan(runner.Job(games=10**6, out=str(tmp / "unused")))
    t0 = time.perf_counter()
    with_parquet(2, 1, tmp)                                  # compile / load everything once
    compile_s = time.perf_counter() - t0
    probe = 4
    per_game = engine_alone(plan, probe, 1) / probe
    games = args.games or max(8, int((6.0 if args.quick else 20.0) / per_game))

    e1 = engine_alone(plan, games, 1)
    p1 = with_parquet(games, 1, tmp)
    e2 = engine_alone(plan, games, 2)
    p2 = with_parquet(games, 2, tmp)
    rows = [
        ("engine alone, 1 thread", games, e1, ""),
        ("run + Parquet, 1 thread", games, p1, f"writing overhead {100 * (p1 / e1 - 1):+.1f}%"),
        ("engine alone, 2 threads", games, e2, f"scaling {e1 / e2:.2f}x"),
        ("run + Parquet, 2 threads", games, p2, f"scaling {p1 / p2:.2f}x"),
    ]
    stub_games = 20_000 if args.quick else 100_000
    s1 = with_parquet(stub_games, 1, tmp, runner_only_engine())
    rows.append(("runner only, 1 thread", stub_games, s1, f"{1e6 * s1 / stub_games:.0f} us/game of writing"))
    for g in rss_sizes:
        stub = g * per_game / threads > max_s
        dt, mib = peak_rss(g, tmp, threads, stub)
        what = f"{'runner only' if stub else 'shanghai-sim run'}, {threads} threads"
        rows.append((what, g, dt, f"peak RSS {mib:,.0f} MiB"))
    shutil.rmtree(tmp, ignore_errors=True)

    print(f"bench_runner: shanghai rules, 4 greedy bots, {cores} cores; "
          f"engine compile/load {compile_s:.0f} s, {per_game * 1e3:.1f} ms/game")
    print(f"{'what':<30} {'games':>10} {'seconds':>9} {'games/s':>10}  note")
    for what, g, dt, note in rows:
        print(f"{what:<30} {g:>10,} {dt:>9.2f} {g / dt:>10,.1f}  {note}")
    print("runner only = the kernel replaced by a no-op: the runner's own cost and memory at that size")


if __name__ == "__main__":
    main()
