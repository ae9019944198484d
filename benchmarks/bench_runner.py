"""Batch-runner speed (issue 4 §8): writing overhead, thread scaling, peak memory.

    .venv/bin/python benchmarks/bench_runner.py            # full: RSS up to 1,000,000 games
    .venv/bin/python benchmarks/bench_runner.py --quick    # a minute or two

Measures, with the real engine and the default job (shanghai, 4 greedy bots):

1. engine alone: the kernel over N games on one thread, in the runner's chunks,
   nothing kept;
2. run with Parquet on one thread: the same games through ``runner.run``
   (seeds, kernel, tables, zstd Parquet, manifest); overhead = 2 / 1 - 1;
3. thread scaling: ``runner.run`` on 1 and on 2 threads (and the kernel alone
   on 2 threads, the ceiling);
4. peak RSS of ``shanghai-sim run --games G`` in a fresh process for each G.

Every timed run is preceded by a warm-up so numba compilation is not counted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from shanghai_sim import runner
from shanghai_sim.kernels.records import NHF

CHUNK = 64          # games per kernel call for the engine-alone timing


def engine_alone(plan: runner.Plan, games: int, threads: int) -> float:
    """Seconds for the kernel to play games 0..games-1, split over ``threads`` threads."""
    eng = runner.default_engine()
    ra = plan.rules.arrays()
    kind, params = eng.parse_bots(list(plan.lineup), plan.players)
    seeds = runner.game_seeds(plan.seed, 0, games)
    bounds = np.linspace(0, games, threads + 1).astype(int)

    def work(a: int, b: int) -> None:
        buf = np.zeros((CHUNK, plan.hands, plan.players, NHF), dtype=np.int32)
        for c0 in range(a, b, CHUNK):
            c1 = min(b, c0 + CHUNK)
            eng.play_games(*ra, kind, params, seeds[c0:c1], buf[: c1 - c0])

    work(0, min(games, 8))                                   # compile / load from cache
    ts = [threading.Thread(target=work, args=(bounds[i], bounds[i + 1])) for i in range(threads)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def with_parquet(games: int, threads: int, tmp: Path, shard_size: int | None = None) -> float:
    out = tmp / f"run-{games}-{threads}"
    shutil.rmtree(out, ignore_errors=True)
    job = runner.Job(games=games, threads=threads, out=str(out), shard_size=shard_size)
    t0 = time.perf_counter()
    runner.run(runner.plan(job), progress=None)
    dt = time.perf_counter() - t0
    shutil.rmtree(out, ignore_errors=True)
    return dt


def peak_rss(games: int, tmp: Path, threads: int) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of ``shanghai-sim run --games games`` in its own process."""
    out = tmp / f"rss-{games}"
    shutil.rmtree(out, ignore_errors=True)
    exe = Path(sys.executable).with_name("shanghai-sim")
    cmd = [str(exe), "run", "--games", str(games), "--threads", str(threads), "--out", str(out), "--quiet"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    shutil.rmtree(out, ignore_errors=True)
    return dt, usage.ru_maxrss / 1024                       # Linux: KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs; RSS for 10k games only")
    ap.add_argument("--games", type=int, help="games for the overhead and scaling runs")
    ap.add_argument("--rss", type=str, help="comma-separated game counts for the RSS runs")
    ap.add_argument("--tmp", type=str, help="scratch folder (default: a temporary one)")
    args = ap.parse_args()
    games = args.games or (2_000 if args.quick else 20_000)
    rss_sizes = [int(x) for x in args.rss.split(",")] if args.rss else \
        ([10_000] if args.quick else [10_000, 100_000, 1_000_000])
    tmp = Path(args.tmp or tempfile.mkdtemp(prefix="bench-runner-"))
    tmp.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1

    plan = runner.plan(runner.Job(games=games, out=str(tmp / "unused")))
    with_parquet(min(games, 200), 1, tmp)                    # warm-up: compile everything once
    e1 = engine_alone(plan, games, 1)
    p1 = with_parquet(games, 1, tmp)
    e2 = engine_alone(plan, games, 2)
    p2 = with_parquet(games, 2, tmp)
    rows = [
        ("engine alone, 1 thread", games, e1, games / e1, ""),
        ("run + Parquet, 1 thread", games, p1, games / p1, f"overhead {100 * (p1 / e1 - 1):+.1f}%"),
        ("engine alone, 2 threads", games, e2, games / e2, f"scaling {e1 / e2:.2f}x"),
        ("run + Parquet, 2 threads", games, p2, games / p2, f"scaling {p1 / p2:.2f}x"),
    ]
    for g in rss_sizes:
        dt, mib = peak_rss(g, tmp, min(2, cores))
        rows.append((f"shanghai-sim run, {min(2, cores)} threads", g, dt, g / dt, f"peak RSS {mib:,.0f} MiB"))
    shutil.rmtree(tmp, ignore_errors=True)

    print(f"bench_runner: shanghai rules, 4 greedy bots, {cores} cores")
    print(f"{'what':<28} {'games':>10} {'seconds':>9} {'games/s':>9}  note")
    for what, g, dt, rate, note in rows:
        print(f"{what:<28} {g:>10,} {dt:>9.2f} {rate:>9,.0f}  {note}")
    # Peak RSS of this process too (it ran the in-process runs).
    print(f"(this process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB)")


if __name__ == "__main__":
    main()
