"""First use: cold compile time of each command's kernels, and warm start time of
the commands a new user runs first.

- Cold: for each step of ``shanghai-sim warmup`` (``precompile.STEPS``: the meld
  finder behind ``meld``, the batch engine behind ``run``, the step API behind
  ``replay``), a fresh Python process with an empty ``SHANGHAI_SIM_CACHE_DIR``
  runs that step alone; the time is the step's, import of the package excluded.
  Each step compiles everything it needs, so the steps overlap (``replay``
  compiles the engine too). Then two whole commands the same way, issue #17's
  first-use targets: ``shanghai-sim meld ...`` and README's main job
  (``shanghai-sim run``, 1,000 games). Not in ``--quick``: each takes minutes.
- Warm: wall time of the whole command in a fresh process with the per-user
  cache filled (``shanghai-sim meld ...``, ``shanghai-sim run --games 1``), next
  to the floor of starting Python and of ``shanghai-sim --help``.

    python benchmarks/run_all.py --only startup [--quick]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Benchmark, spread, table  # noqa: E402

_CLI = [sys.executable, "-m", "shanghai_sim.cli.main"]


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("shanghai-sim")
    return [str(exe)] if exe.exists() else _CLI


def cold_compile(step: int, timeout: float = 1800) -> float:
    """Seconds for precompile.STEPS[step] in a fresh process with an empty kernel cache."""
    tmp = tempfile.mkdtemp(prefix="bench-cold-")
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=tmp)
    code = ("import time, shanghai_sim.precompile as P\n"
            f"t = time.perf_counter(); P.STEPS[{step}][1](); print(time.perf_counter() - t)")
    try:
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=timeout)
        if res.returncode != 0:
            raise RuntimeError(f"cold compile of step {step} failed:\n{res.stderr[-2000:]}")
        return float(res.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compiled_twice(cache: str) -> dict[str, int]:
    """Kernels the cache holds more than one compiled signature of ({module.function: n}),
    from numba's index files: each extra one is a compile a command paid for (a literal
    argument is a type of its own: kernels/__init__.py)."""
    import pickle
    out = {}
    for f in Path(cache).rglob("*.nbi"):
        try:
            with open(f, "rb") as fh:
                pickle.load(fh)                       # numba's version stamp
                _stamp, overloads = pickle.loads(fh.read())
        except Exception:                             # an index of another numba version
            continue
        if len(overloads) > 1:
            out[f.name.split(".py")[0].rsplit("-", 1)[0]] = len(overloads)
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def cold_command(cmd: list[str], timeout: float = 1800) -> tuple[float, dict[str, int]]:
    """Wall seconds of a whole command in a fresh process with an empty kernel cache, in an
    empty folder (issue #17's first-use target is README's main job timed this way), and
    the kernels it compiled more than once (``compiled_twice``)."""
    tmp = tempfile.mkdtemp(prefix="bench-cold-")
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=cache)
    try:
        t = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env, timeout=timeout)
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr[-2000:]}")
        return time.perf_counter() - t, compiled_twice(cache)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def wall(cmd: list[str], reps: int, cwd: str | None = None) -> dict:
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
        ts.append(time.perf_counter() - t)
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr[-2000:]}")
    return spread(ts)


def commands() -> list[tuple[str, list[str]]]:
    cli = _cli()
    return [
        ("python -c pass (floor: the interpreter)", [sys.executable, "-c", "pass"]),
        ("shanghai-sim --help", cli + ["--help"]),
        ("shanghai-sim meld 5C 6C 7C 8C 9D 9H 9S JK --contract 2",
         cli + ["meld", "5C", "6C", "7C", "8C", "9D", "9H", "9S", "JK", "--contract", "2"]),
        ("shanghai-sim run --games 1", cli + ["run", "--games", "1", "--out", "out", "--quiet",
                                              "--overwrite"]),
    ]


def measure(reps: int = 3, cold: bool = True, cold_reps: int = 1, progress=None) -> dict:
    say = progress or (lambda s: None)
    from shanghai_sim.precompile import STEPS
    from shanghai_sim.kernels.cache import SOURCE_HASH
    subprocess.run(_cli() + ["warmup"], capture_output=True)      # the warm cache, for sure
    tmp = tempfile.mkdtemp(prefix="bench-warm-")
    warm = []
    try:
        for name, cmd in commands():
            s = wall(cmd, reps, cwd=tmp)
            warm.append({"command": name, "seconds": s})
            say(f"  warm {name}: {s['median']:.2f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    colds = []
    if cold:
        for i, (name, _) in enumerate(STEPS):
            s = spread([cold_compile(i) for _ in range(cold_reps)])
            colds.append({"step": name, "seconds": s})
            say(f"  cold {name}: {s['median']:.0f} s")
        name = "whole command: shanghai-sim meld 5C 6C 7C 8C 9D 9H 9S JK --contract 2"
        s = spread([cold_command(_cli() + ["meld", "5C", "6C", "7C", "8C", "9D", "9H", "9S", "JK",
                                           "--contract", "2"])[0] for _ in range(cold_reps)])
        colds.append({"step": name, "seconds": s})
        say(f"  cold {name}: {s['median']:.0f} s")
        name = "README's main job, whole command: shanghai-sim run (1,000 games)"
        runs = [cold_command(_cli() + ["run", "--quiet"]) for _ in range(cold_reps)]
        s = spread([r[0] for r in runs])
        colds.append({"step": name, "seconds": s, "compiled_twice": runs[0][1]})
        say(f"  cold {name}: {s['median']:.0f} s")
    tables = [table(f"Warm start: wall time of the command in a fresh process, seconds, "
                    f"median (min-max) of {reps}", ["command", "seconds"],
                    [[w["command"], w["seconds"]] for w in warm])]
    if colds:
        tables.insert(0, table(
            f"Cold compile: each command's kernels in a fresh process with an empty cache, "
            f"seconds ({cold_reps} run{'s' if cold_reps > 1 else ''})",
            ["kernels (warmup step)", "seconds"], [[c["step"], c["seconds"]] for c in colds]))
    return {
        "name": "startup",
        "title": "First use: cold compile of each command's kernels, warm start of the first commands",
        "settings": {"reps": reps, "cold": cold, "cold_reps": cold_reps,
                     "kernel_source_hash": SOURCE_HASH},
        "figures": {"warm": warm, "cold": colds},
        "tables": tables,
        "notes": _notes(colds) if cold else ["Cold compile not measured in this run (`--quick` "
                                             "skips it: minutes per command)."],
    }


def _notes(colds: list[dict]) -> list[str]:
    twice = next((c["compiled_twice"] for c in colds if "compiled_twice" in c), None)
    if twice is None:
        return []
    if not twice:
        return ["The cold `run` compiled every kernel once (numba's cache index: one signature each)."]
    top = ", ".join(f"`{k}` x{n}" for k, n in list(twice.items())[:8])
    return [f"Kernels the cold `run` compiled more than once (one signature per distinct argument "
            f"types, numba's cache index; kernels/__init__.py): {top}."]

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    from charts import C_OURS, C_PEER, C_FLOOR, median_err, finish, np, plt

    f = res["figures"]
    n = 2 if f.get("cold") else 1
    fig, axes = plt.subplots(1, n, figsize=(max(9.0, 6.5 * n), 4.4), squeeze=False)
    ax = axes[0, 0]
    med, err = median_err([w["seconds"] for w in f["warm"]])
    y = np.arange(len(med))
    ax.barh(y, med, xerr=err, color=[C_FLOOR, C_FLOOR, C_OURS, C_OURS][:len(med)], capsize=3)
    ax.set_yticks(y)
    ax.set_yticklabels([w["command"].replace(" 5C 6C", "\n5C 6C") for w in f["warm"]], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("seconds, wall time of a fresh process")
    ax.set_title("Warm start: the first commands, cache filled,\nvs starting Python", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    if n == 2:
        ax = axes[0, 1]
        med, err = median_err([c["seconds"] for c in f["cold"]])
        y = np.arange(len(med))
        ax.barh(y, med, xerr=err, color=C_PEER, capsize=3)
        ax.set_yticks(y)
        ax.set_yticklabels([c["step"].replace(" (", "\n(").replace("whole command: ", "whole command:\n")
                            for c in f["cold"]], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("seconds to compile, empty cache")
        ax.set_title(f"Cold compile of each command's kernels\n(fresh SHANGHAI_SIM_CACHE_DIR, "
                     f"{f['cold'][0]['seconds']['n']} run each)",
                     fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="startup", order=60, measure=measure, chart=chart,
    title="First use",
    how=(
        "Cold: each step of `shanghai-sim warmup` (the kernels of `meld`, of `run`, of "
        "`replay`/`play`) in a fresh process with an empty `SHANGHAI_SIM_CACHE_DIR`: the time a "
        "new user waits once per version. Warm: the wall time of the first commands in a fresh "
        "process with the cache filled, next to starting Python and `shanghai-sim --help`."),
    sizes={
        "full": dict(reps=5, cold=True, cold_reps=1),
        "quick": dict(reps=3, cold=False),
        "tiny": dict(reps=1, cold=False),
    },
)
