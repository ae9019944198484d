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

Each record also declares the source it measures (``Source``): a result stores the hash of
those files' contents as they were when it was measured, so a section whose code has changed
since is known (``source_now``, ``stale_sections``; BENCHMARKS.md marks it, and
tests/test_benchmarks.py fails on it unless ``STALE`` names it with a reason).
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import functools
import hashlib
import math
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
RUN_SIZES = ("full", "quick", "tiny")


def peer(name: str):
    """The module ``tests/NAME.py`` that a benchmark runs beside ours: ``reference`` (the Python
    reference meld finder, bench_melds' peer) or ``browser_support`` (headless Chromium as the
    browser tests drive it). tests/ is not a package (pytest imports its modules by their own
    names) and not on a benchmark's import path, so the file is loaded as the module
    ``benchmarks_peer_NAME``, once. ImportError or OSError where it cannot be (no tests/)."""
    import importlib.util
    key = f"benchmarks_peer_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "tests" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[key] = mod             # before it runs: a dataclass looks its module up
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[key]
            raise
    return sys.modules[key]


@dataclass(frozen=True)
class Source:
    """The code a benchmark's figures depend on, declared in its record, as narrow as is true:
    a change to any of these files may change the figures, a change elsewhere may not.
    ``benchmarks/bench_NAME.py`` itself is always part of it.

    ``kernels``: the kernel modules (by key: ``games.batch`` is ``shanghai_sim/kernels/games/batch.py``) whose code it runs, each
    with every kernel module it imports, transitively (``kernels.compile.cache.closures``: what a
    compiled kernel embeds, so what its speed can depend on). ``cut``: kernel modules left out,
    with what is reached only through them: compiled in but never run by this benchmark (say
    why beside the record). ``files``: any other files, as globs from the repository root
    (``*`` within one folder)."""
    kernels: tuple[str, ...] = ()
    cut: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def describe(self, name: str) -> str:
        """One line for BENCHMARKS.md: what this section's source hash covers."""
        parts = [f"`benchmarks/bench_{name}.py`"]
        if self.kernels:
            parts.append("the kernels " + ", ".join(f"`{k}`" for k in self.kernels) + " reach"
                         + (" without " + ", ".join(f"`{c}`" for c in self.cut) if self.cut else ""))
        parts += [f"`{f}`" for f in self.files]
        return ", ".join(parts)


# Sections of the committed BENCHMARKS.md whose source has changed since they were measured,
# and were not rerun: {name: why}. BENCHMARKS.md marks every stale section whether listed or not;
# tests/test_benchmarks.py fails on a stale section that is not listed here (rerun it:
# ``python benchmarks/run_all.py --only NAME``, or list it with the reason) and on a listed one
# that is no longer stale (take it off).
_POSITIONS = ("issue 57's positions table changed the source it measures after its run at a9821ed: the "
              "recorder (kernels/games/positions.py, bots/features.py, base/positions.py) and its argument "
              "PO of play_game_nb, None in every run without --positions, so numba prunes it; every game "
              "replays byte for byte the same (golden transcripts, tests/test_positions.py); the plain "
              "engine measured old (6e2942d) against new in one sitting, alternated, 3 times: greedy 894 "
              "-> 912 games/s, smart 642 -> 668 (medians, noise), and the engine, bots and runner sections "
              "rerun with it at 89c90c7. Issue 57 reruns the sections its kernels change from its final "
              "commit")
STALE: dict[str, str] = {
    "rollout": ("75 minutes of tournaments at full size, not rerun in the session of issue 56's named "
                "bundles and seat view (2026-12-07), whose other sections took 49 minutes: every rollout "
                "game replayed byte for byte the same before and after (seeds 1-3, contract, the oracle), "
                "so its win shares stand; the speed of its playouts is the playouts section's. "
                + _POSITIONS + ". Issue 57's value model (2026-12-08) changed nothing it runs: "
                "kernels/bots/value.py is reached by no engine kernel yet"),
}


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
    source: Source                          # the code its figures depend on (hashed into each result)


@functools.cache
def benchmarks() -> tuple[Benchmark, ...]:
    """Every ``benchmarks/bench_*.py``'s record, by ``order``. A module without one, or a
    record whose name is not its module's or that lacks a run size, is an error."""
    import importlib
    out = []
    for path in sorted(HERE.glob("bench_*.py")):
        # as modules of the package benchmarks where this one is (run_all imported, the tests),
        # else by their names from this folder (python benchmarks/run_all.py: sys.path[0])
        name = f"{__package__}.{path.stem}" if __package__ else path.stem
        b = getattr(importlib.import_module(name), "BENCHMARK", None)
        if not isinstance(b, Benchmark):
            raise RuntimeError(f"{path.name} declares no BENCHMARK = Benchmark(...) (docs/DEVELOPING.md, "
                               "a new benchmark)")
        if not isinstance(getattr(b, "source", None), Source):
            raise RuntimeError(f"{path.name}: its BENCHMARK declares no source=Source(...), the code it measures")
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


# --- the source a result measured ---------------------------------------------------------

KERNELS_DIR = "shanghai_sim/kernels"


class _Tree:
    """The repository's files, in the working tree (``commit`` None) or at a commit (``git show``)."""

    def __init__(self, commit: str | None = None, root: Path | None = None):
        self.commit, self.root = commit, Path(root or ROOT)
        self._listing = None
        if commit is not None:
            p = subprocess.run(["git", "ls-tree", "-r", "--name-only", commit], cwd=self.root,
                               capture_output=True, text=True, timeout=60)
            if p.returncode:
                raise ValueError(f"commit {commit!r}: not in this repository ({p.stderr.strip()})")
            self._listing = p.stdout.splitlines()

    def glob(self, pattern: str) -> list[str]:
        """Files matching ``pattern`` (``*`` within one folder), as paths from the root, sorted."""
        if "**" in pattern or pattern.startswith("/"):
            raise ValueError(f"source pattern {pattern!r}: a path from the repository root, '*' within one folder")
        if self._listing is None:
            return sorted(p.relative_to(self.root).as_posix() for p in self.root.glob(pattern) if p.is_file())
        want = PurePosixPath(pattern).parts
        return sorted(f for f in self._listing if len(PurePosixPath(f).parts) == len(want)
                      and all(fnmatch.fnmatchcase(a, b) for a, b in zip(PurePosixPath(f).parts, want)))

    def read(self, path: str) -> bytes:
        if self._listing is None:
            return (self.root / path).read_bytes()
        return subprocess.run(["git", "show", f"{self.commit}:{path}"], cwd=self.root, capture_output=True,
                              check=True, timeout=60).stdout


class _Module:
    """A kernel module's text where ``kernels.compile.cache.closures`` reads a file (key, read_text)."""

    def __init__(self, path: str, data: bytes):
        from shanghai_sim.kernels.compile.cache import module_key
        self.path, self._data = path, data
        self.key = module_key(path[len(KERNELS_DIR) + 1:])

    def read_text(self) -> str:
        return self._data.decode()

    def __str__(self) -> str:
        return self.path


def source_files(src: Source, name: str, tree: _Tree) -> list[str]:
    """The files of ``src`` (benchmark ``name``'s) in ``tree``, sorted. A pattern that matches nothing,
    or a kernel that is not there, is an error in the working tree (a wrong declaration) and
    simply absent at an older commit (the source was another then)."""
    from shanghai_sim.kernels.compile.cache import closures, is_kernel_source, module_key
    now = tree.commit is None
    files = {f"benchmarks/bench_{name}.py"} if tree.glob(f"benchmarks/bench_{name}.py") else set()
    for pattern in src.files:
        found = tree.glob(pattern)
        if not found and now:
            raise ValueError(f"benchmark {name}: its source pattern {pattern!r} matches no file")
        files.update(found)
    if src.kernels:
        # kernels/*.py and kernels/<folder>/*.py (before and after kernels/ had folders), by key
        below = [f for pattern in (f"{KERNELS_DIR}/*.py", f"{KERNELS_DIR}/*/*.py") for f in tree.glob(pattern)]
        mods = {module_key(f[len(KERNELS_DIR) + 1:]): f for f in below
                if is_kernel_source(f[len(KERNELS_DIR) + 1:])}
        missing = [k for k in (*src.kernels, *src.cut) if k not in mods]
        if missing and now:
            raise ValueError(f"benchmark {name}: no kernel module {', '.join(missing)} in {KERNELS_DIR}/")
        # the cut modules are not there for the closures: nothing is reached through them
        clo = closures([_Module(f, tree.read(f)) for stem, f in mods.items() if stem not in src.cut])
        for k in src.kernels:
            files.update(mods[m] for m in clo.get(k, ()))
    return sorted(files)


def _measuring_code(path: str, data: bytes) -> bytes:
    """A file as its source hash reads it: a benchmark module without its ``BENCHMARK`` record
    (its text, its run sizes, its source: a result states its own settings), so editing a
    section's paragraph, or declaring its source, leaves its figures true; any other file whole.
    Line ends are read as git stores them (LF), so a checkout with CRLF hashes the same."""
    data = data.replace(b"\r\n", b"\n")
    if not (path.startswith("benchmarks/bench_") and path.endswith(".py")):
        return data
    import ast
    for attempt in range(3):
        try:
            tree = ast.parse(data)
            break
        except SyntaxError:
            return data
        except SystemError:     # CPython 3.11: a thread parsing at the same moment (python/cpython#106905)
            if attempt == 2:
                raise
    lines = data.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["BENCHMARK"]:
            del lines[node.lineno - 1:node.end_lineno]
            break
    return b"".join(lines)


def content_hash(blobs) -> str:
    """The hash of a set of files by their contents alone: the sorted SHA-256 of each file,
    hashed. A file moved or renamed unchanged keeps it; any byte changed changes it."""
    return _combined(hashlib.sha256(b).hexdigest() for b in blobs)


def _combined(digests) -> str:
    return hashlib.sha256("\n".join(sorted(digests)).encode()).hexdigest()[:16]


def source_now(b: Benchmark, commit: str | None = None, root: Path | None = None) -> dict:
    """``{"hash", "files"}``: the source benchmark ``b`` measures, in the working tree or at
    ``commit`` (as recorded in a result's ``source``): the hash of its files' contents, each
    benchmark module's without its record (``_measuring_code``), and ``{path: the first 16 hex
    of its SHA-256}`` per file, so a stale section can say which files changed."""
    tree = _Tree(commit, root)
    digests = {f: hashlib.sha256(_measuring_code(f, tree.read(f))).hexdigest()
               for f in source_files(b.source, b.name, tree)}
    return {"hash": _combined(digests.values()), "files": {f: d[:16] for f, d in digests.items()}}


def changed_files(then: dict, now: dict) -> str:
    """Which files of a source changed between two ``source_now`` records, by content: a file
    moved unchanged is not one."""
    old, new = then.get("files") or {}, now["files"]
    if not isinstance(old, dict):
        return ""
    changed = [f for f, d in new.items() if d not in set(old.values())]
    gone = [f for f, d in old.items() if d not in set(new.values()) and f not in new]

    def names(fs, most=6):
        return ", ".join(f"`{f}`" for f in fs[:most]) + (f" and {len(fs) - most} more" if len(fs) > most else "")
    return "; ".join(x for x in (names(changed), "gone: " + names(gone) if gone else "") if x)


def recorded_commit(res: dict) -> str | None:
    """The commit a result was measured at, or None when it was not one commit's code (a run on
    uncommitted changes, or none recorded)."""
    c = (res.get("machine") or {}).get("commit")
    return c if c and " " not in c else None


def stale_sections(results: dict[str, dict]) -> dict[str, str]:
    """{name: why} for each result whose source has changed since it was measured (or that
    recorded none): its figures describe other code than today's. The why names the commit and
    the files changed since."""
    by_name = {b.name: b for b in benchmarks()}
    out = {}
    for name, res in results.items():
        rec = res.get("source") or {}
        if name not in by_name:
            continue
        if not rec.get("hash"):
            out[name] = "it recorded no hash of the source it measured"
            continue
        now = source_now(by_name[name])
        if rec["hash"] != now["hash"]:
            commit = (res.get("machine") or {}).get("commit")
            files = changed_files(rec, now)
            out[name] = (f"the source it measures has changed since "
                         + (f"commit {commit}" if commit else "it was measured (no commit recorded)")
                         + f" (hash {rec['hash']} then, {now['hash']} now)" + (f": {files}" if files else ""))
    return out
