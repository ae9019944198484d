"""How fast `shanghai-sim verify` checks a big dataset (issues 19, 33): the default (every byte) and --quick,
and what the default check costs every reader.

    .venv/bin/python benchmarks/bench_verify.py                    # 200k games, --detail hands
    .venv/bin/python benchmarks/bench_verify.py --games 1000000    # the issue's 1M games
    .venv/bin/python benchmarks/bench_verify.py --out DIR --keep   # reuse / keep the dataset

The dataset is written by the real runner (Parquet, page checksums, manifest
records) with the game kernel replaced by a stand-in that fills random,
plausible records (playing a million real games takes about half an hour on two
cores; what verify costs depends on the bytes, not on how they were played).
Its parts are about the size of real ones (printed). Then, timed:

1. reading every part file and hashing it (SHA-256) alone: the floor of the default check;
2. ``verify --quick`` (sizes, footers, rows, job metadata);
3. ``verify`` (the default: also the SHA-256 of every byte against the manifest);
4. a reader (``integrity.iter_parts`` over both tables, every column, as ``summary`` and the
   analyses read) with its default check (SHA-256 of each part first) and with ``full=False``.

The files were just written, so they are read from the page cache: the figures
are CPU speeds, an upper bound on what a disk delivers; the default check reads each
file once, so on a disk slower than the printed MB/s it runs at the disk's speed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from shanghai_sim import runner
from shanghai_sim.limits import parse_args
from shanghai_sim.integrity import iter_parts, verify
from shanghai_sim.kernels.base import records as R

if __package__:                      # imported: benchmarks.bench_verify (run_all, the tests)
    from ._common import Benchmark, Source, ratio, spread, table
else:                                # python benchmarks/bench_verify.py: this folder is sys.path[0]
    from _common import Benchmark, Source, ratio, spread, table


def _random_play(params, points, joker_cap, meld_kind, meld_size, n_melds, deal, buys,
                 bot_kind, bot_params, seeds, hand_out):
    """Stand-in kernel: random records of real games' ranges, drawn from the first seed."""
    if not len(seeds):
        return
    rng = np.random.default_rng(int(seeds[0]))
    n, h, p, _ = hand_out.shape
    shape = (n, h, p)
    hand_out[...] = 0
    out = rng.integers(0, p, (n, h))
    went = np.arange(p)[None, None, :] == out[..., None]
    hand_out[..., R.HF_WENT_OUT] = went
    hand_out[..., R.HF_CARDS_LEFT] = np.where(went, 0, rng.integers(1, 14, shape))
    hand_out[..., R.HF_JOKERS_LEFT] = np.where(went, 0, rng.integers(0, 2, shape))
    hand_out[..., R.HF_POINTS] = hand_out[..., R.HF_CARDS_LEFT] * rng.integers(3, 9, shape)
    hand_out[..., R.HF_DOWN_TURN] = np.where(rng.random(shape) < 0.3, -1, rng.integers(1, 15, shape))
    hand_out[..., R.HF_BUYS] = rng.integers(0, 4, shape)
    hand_out[..., R.HF_BUY_CARDS] = hand_out[..., R.HF_BUYS] * 2
    hand_out[..., R.HF_TURNS] = rng.integers(4, 25, (n, h))[..., None]
    hand_out[..., R.HF_STOCK_PASSES] = rng.integers(0, 2, (n, h))[..., None]
    hand_out[..., R.HF_DEALER] = (np.arange(h)[None, :, None] + np.zeros(shape, int)) % p


def stand_in_engine() -> runner.Engine:
    real = runner.default_engine()
    return runner.Engine(_random_play, real.parse_bots, real.bot_name)


def read_and_hash(out: Path) -> tuple[int, float]:
    t0 = time.perf_counter()
    total = 0
    for p in sorted(out.glob("*/part-*.parquet")):
        data = p.read_bytes()
        hashlib.sha256(data).hexdigest()
        total += len(data)
    return total, time.perf_counter() - t0


def read_all(out: Path, full: bool) -> float:
    """Seconds to read every part of both tables through the checked reader."""
    t0 = time.perf_counter()
    for t in ("hands", "games"):
        for _ in iter_parts(str(out), t, full=full):
            pass
    return time.perf_counter() - t0


def measure(games: int = 200_000, detail: str = "hands", threads: int = 2, reps: int = 3,
            progress=None) -> dict:
    """The verify benchmark as a result dict (see benchmarks/_common.py): a dataset of
    ``games`` stand-in games, then reading and hashing alone, ``verify --quick``, ``verify``
    and a reader with and without its SHA-256 check, each ``reps`` times (MB/s over the part
    files' bytes, from the page cache)."""
    say = progress or (lambda s: None)
    tmp = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    out = tmp / "ds"
    try:
        eng = stand_in_engine()
        job = runner.Job(games=games, out=str(out), detail=detail, threads=threads,
                         bots=("random", "greedy", "greedy", "greedy"))
        runner.run(runner.plan(job, eng), resume=True, progress=None, engine=eng)
        nparts = len(list(out.glob("*/part-*.parquet")))
        hashed, quick, full, rfull, rquick = [], [], [], [], []
        nbytes = 0
        for _ in range(reps):
            nbytes, t = read_and_hash(out)
            hashed.append(nbytes / 1e6 / t)
            for f, acc in ((False, quick), (True, full)):
                t0 = time.perf_counter()
                rep = verify(str(out), full=f)
                dt = time.perf_counter() - t0
                assert rep.ok, rep.lines()
                acc.append(nbytes / 1e6 / dt)
            for f, acc in ((True, rfull), (False, rquick)):
                acc.append(nbytes / 1e6 / read_all(out, f))
        hashed, quick, full = spread(hashed), spread(quick), spread(full)
        rfull, rquick = spread(rfull), spread(rquick)
        say(f"  {games:,} games, {nbytes / 1e6:,.1f} MB: verify {full['median']:,.0f} MB/s, "
            f"read + SHA-256 {hashed['median']:,.0f} MB/s; reading every part {rfull['median']:,.0f} MB/s "
            f"checked, {rquick['median']:,.0f} MB/s without the hash")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    mb = nbytes / 1e6
    return {
        "name": "verify",
        "title": "Checking a dataset: `verify` (every byte) and `verify --quick` against reading and "
                 "hashing alone, and what the check costs a reader",
        "settings": {"games": games, "detail": detail, "threads": threads, "reps": reps},
        "figures": {"mb": mb, "parts": nparts, "hash": hashed, "quick": quick, "full": full,
                    "read_checked": rfull, "read_unhashed": rquick,
                    "seconds_per_million_games": {"verify": mb / full["median"] * 1e6 / games,
                                                  "verify_quick": mb / quick["median"] * 1e6 / games,
                                                  "read_checked": mb / rfull["median"] * 1e6 / games,
                                                  "read_unhashed": mb / rquick["median"] * 1e6 / games}},
        "tables": [table(f"{games:,} games (`--detail {detail}`), {nparts:,} parts, {mb:,.1f} MB, "
                         f"from the page cache; MB/s, median (min-max) of {reps}",
                         ["what", "MB/s", "seconds (median)", "x read + SHA-256 time"],
                         [["read + SHA-256 alone (the floor of the default check)", hashed,
                           mb / hashed["median"], 1.0],
                          ["`shanghai-sim verify --quick`", quick, mb / quick["median"],
                           ratio(hashed, quick)],
                          ["`shanghai-sim verify` (every byte, the default)", full, mb / full["median"],
                           ratio(hashed, full)],
                          ["reading every part, every column, checked (the readers' default)", rfull,
                           mb / rfull["median"], ratio(hashed, rfull)],
                          ["the same read without the SHA-256 (`full=False`)", rquick,
                           mb / rquick["median"], ratio(hashed, rquick)]])],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_FLOOR, median_err, finish, np, plt
    else:
        from charts import C_OURS, C_FLOOR, median_err, finish, np, plt

    f = res["figures"]
    labels = ["read + SHA-256 alone\n(the floor of the default)", "shanghai-sim verify\n--quick",
              "shanghai-sim verify\n(every byte, the default)"]
    med, err = median_err([f["hash"], f["quick"], f["full"]])
    fig, ax = plt.subplots(figsize=(9, 3.6))
    y = np.arange(3)
    ax.barh(y, med, xerr=err, color=[C_FLOOR, C_OURS, C_OURS], capsize=3)
    for i, m in enumerate(med):
        ax.text(m + err[1][i], i, f"  {m:,.0f} MB/s", va="center", fontsize=8)
    ax.set_xlim(0, 1.25 * max(med + err[1]))
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("MB per second over the part files (page cache)")
    ax.set_title(f"Checking a dataset of {res['settings']['games']:,} games ({f['mb']:,.0f} MB, "
                 f"{f['parts']:,} parts): verify vs reading and hashing alone", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="verify", order=50, measure=measure, chart=chart,
    title="Checking a dataset",
    how=(
        "A dataset written by the real runner (Parquet, page checksums, manifest records) with "
        "the game kernel replaced by a stand-in that fills random, plausible records (what "
        "`verify` costs depends on the bytes, not on how the games were played): reading and "
        "hashing every part alone (the floor of the default check), then `verify --quick` (sizes, "
        "footers, rows, job metadata), `verify` (the default: every byte against its SHA-256) and "
        "a reader of every part with and without that check. The files were just written, so "
        "they come from the page cache: CPU speeds, an upper bound on what a disk delivers."),
    sizes={
        "full": dict(games=1_000_000, reps=3),
        "quick": dict(games=100_000, reps=3),
        "tiny": dict(games=300, reps=2),
    },
    source=Source(kernels=("base.records",),         # the games are a stand-in's: only their records' layout counts
                  files=("shanghai_sim/integrity.py", "shanghai_sim/dataset.py", "shanghai_sim/runner/*.py")),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--detail", default="hands", choices=runner.DETAILS)
    ap.add_argument("--out", help="dataset folder (default: a temporary one, deleted afterwards)")
    ap.add_argument("--keep", action="store_true", help="keep the dataset")
    ap.add_argument("--threads", type=int, default=2)
    a = parse_args(ap)
    tmp = None
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="bench-verify-")) / "ds"
    if not a.out:
        tmp = out.parent
    try:
        eng = stand_in_engine()
        job = runner.Job(games=a.games, out=str(out), detail=a.detail, threads=a.threads,
                         bots=("random", "greedy", "greedy", "greedy"))
        t0 = time.perf_counter()
        res = runner.run(runner.plan(job, eng), resume=True, progress=None, engine=eng)
        made = time.perf_counter() - t0
        nbytes, t_hash = read_and_hash(out)
        nparts = len(list(out.glob("*/part-*.parquet")))
        print(f"dataset: {a.games:,} games, --detail {a.detail}, {nparts:,} parts, {nbytes / 1e6:,.1f} MB "
              f"({nbytes / a.games * 1000 / 1e6:.2f} MB per 1,000 games); written in {made:.1f}s "
              f"({res.status})")
        print(f"read + SHA-256 alone:  {t_hash:6.2f}s  {nbytes / 1e6 / t_hash:8,.0f} MB/s")
        for full in (False, True):
            t0 = time.perf_counter()
            rep = verify(str(out), full=full)
            dt = time.perf_counter() - t0
            assert rep.ok, rep.lines()
            label = "verify" if full else "verify --quick"
            print(f"{label:<22} {dt:6.2f}s  {nbytes / 1e6 / dt:8,.0f} MB/s  ({rep.games:,} games, "
                  f"{dt / a.games * 1e6:.2f} s per million games)")
        for full in (True, False):
            dt = read_all(out, full)
            label = "read, checked" if full else "read, no SHA-256"
            print(f"{label:<22} {dt:6.2f}s  {nbytes / 1e6 / dt:8,.0f} MB/s  "
                  f"({dt / a.games * 1e6:.2f} s per million games)")
    finally:
        if tmp is not None and not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        elif a.keep or a.out:
            print(f"dataset kept in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
