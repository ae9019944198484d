"""What every benchmark shares: the machine's description, the spread of repeated
timings, and the table layout that BENCHMARKS.md renders and the tests check.

A result is a plain dict (JSON as written to ``benchmarks/results/NAME.json``):

    name, title, settings, figures (raw data for the charts),
    tables: [{"title", "columns", "rows"}]   (cells: numbers or strings),
    notes: [str], seconds (how long the benchmark ran), machine (added by run_all)

A timed figure is a spread: ``{"median", "min", "max", "n", "samples"}`` over
repeated passes, so a chart can show min-max and a table can quote it.

A benchmark is one module, ``benchmarks/bench_NAME.py``, that ends with its record,
``BENCHMARK = Benchmark(...)``: its ``measure``, its sample sizes per run size, its
chart and its text. ``benchmarks()`` finds them all; run_all, charts and report read
nothing else about a benchmark.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
RUN_SIZES = ("full", "quick", "tiny")


@dataclass(frozen=True)
class Benchmark:
    """What run_all, charts and report know of one benchmark, declared once, at the end of its
    module: ``BENCHMARK = Benchmark(...)`` in ``benchmarks/bench_NAME.py``."""
    name: str                               # NAME: results/NAME.json, charts/NAME.png, --only NAME
    order: int                              # where it runs and stands in BENCHMARKS.md (ascending)
    measure: Callable[..., dict]            # measure(progress=print, **sizes[run size]) -> its result
    chart: Callable[[dict, Path], Path]     # chart(result, path) -> path: its PNG in BENCHMARKS.md
    title: str                              # its section's heading in BENCHMARKS.md
    how: str                                # the paragraph under it: what is measured, and how
    sizes: dict[str, dict]                  # measure's arguments per run size: full, quick, tiny (the tests')


@functools.cache
def benchmarks() -> tuple[Benchmark, ...]:
    """Every ``benchmarks/bench_*.py``'s record, by ``order``. A module without one, or a
    record whose name is not its module's or that lacks a run size, is an error."""
    import importlib
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    out = []
    for path in sorted(HERE.glob("bench_*.py")):
        b = getattr(importlib.import_module(path.stem), "BENCHMARK", None)
        if not isinstance(b, Benchmark):
            raise RuntimeError(f"{path.name} declares no BENCHMARK = Benchmark(...) (docs/DEVELOPING.md, "
                               "a new benchmark)")
        if path.stem != f"bench_{b.name}" or set(b.sizes) != set(RUN_SIZES):
            raise RuntimeError(f"{path.name}: its BENCHMARK must be named {path.stem[6:]!r} and give the sizes "
                               f"{', '.join(RUN_SIZES)} (got {b.name!r}, {', '.join(b.sizes)})")
        out.append(b)
    if len({b.order for b in out}) != len(out):
        raise RuntimeError("two benchmarks share an order: " + ", ".join(f"{b.name} {b.order}" for b in out))
    return tuple(sorted(out, key=lambda b: b.order))


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """The machine and software a result was measured on."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True, timeout=10).stdout.strip() or None
        # a run on uncommitted code says so: the figures are not those of the commit named
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                "shanghai_sim", "benchmarks/*.py"], cwd=ROOT, capture_output=True,
                               text=True, timeout=10).stdout.strip()
        if commit and dirty:
            commit += " with uncommitted changes"
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count() or 1,
        "os": platform.platform(),
        "python": platform.python_version(),
        "numba": _version("numba"),
        "numpy": _version("numpy"),
        "pyarrow": _version("pyarrow"),
        "matplotlib": _version("matplotlib"),
        "open_spiel": _version("open_spiel"),
        "mahjong": _version("mahjong"),
        "commit": commit,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def bot_versions_now() -> dict[str, int]:
    """{bot: the version a plain spec (``smart``) plays}: recorded with every result, so a
    figure stays labelled after a bot's newest version moves on (report.py writes the line)."""
    from shanghai_sim.bots import BOTS
    return {name: info.version for name, info in BOTS.items()}


def spread(samples) -> dict:
    """Median and min-max of repeated measurements (NaN-free)."""
    xs = [float(x) for x in samples if x is not None and not math.isnan(float(x))]
    if not xs:
        return {"median": None, "min": None, "max": None, "n": 0, "samples": []}
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs),
            "n": len(xs), "samples": xs}


def rates(counts_and_seconds) -> dict:
    """Spread of count / seconds over passes."""
    return spread([c / s for c, s in counts_and_seconds if s > 0])


def ratio(a: dict | None, b: dict | None) -> float | None:
    """Ratio of two spreads' medians (None when either is missing)."""
    if not a or not b or not a.get("median") or not b.get("median"):
        return None
    return a["median"] / b["median"]


def table(title: str, columns: list[str], rows: list[list]) -> dict:
    return {"title": title, "columns": columns, "rows": rows}


def fmt(v) -> str:
    """How a table cell is written in BENCHMARKS.md (the tests format the JSON the same way)."""
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        a = abs(v)
        if a >= 1e6:
            return f"{v / 1e6:,.2f}M"
        if a >= 1e4:
            return f"{v / 1e3:,.1f}k"
        if a >= 100:
            return f"{v:,.0f}"
        if a >= 10:
            return f"{v:.1f}"
        if a >= 0.1:
            return f"{v:.2f}"
        return f"{v:.3g}"
    if isinstance(v, dict) and "median" in v:       # a spread: median (min-max)
        if v["median"] is None:
            return "n/a"
        if v["n"] <= 1:
            return fmt(v["median"])
        return f"{fmt(v['median'])} ({fmt(v['min'])}-{fmt(v['max'])})"
    return str(v)
