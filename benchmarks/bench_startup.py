"""First use: cold compile time of each command's kernels, and warm start time of
the commands a new user runs first.

- Cold: for each step of ``shanghai-sim warmup`` (``precompile.STEPS``: the meld
  finder behind ``meld``, the batch engine behind ``run``, the step API behind
  ``replay``), a fresh Python process with an empty ``SHANGHAI_SIM_CACHE_DIR``
  runs that step alone; the time is the step's, import of the package excluded.
  Each step compiles everything it needs, so the steps overlap (``replay``
  compiles the engine too). Then issue #32's first-use targets, whole commands the
  same way, each three times: ``shanghai-sim meld ...``, README's main job
  (``shanghai-sim run``, 1,000 games) and ``shanghai-sim warmup``: wall time, the CPU
  time of every process they start, and the load average before each. Not in
  ``--quick``: each takes minutes.
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

if __package__:                      # imported: benchmarks.bench_startup (run_all, the tests)
    from ._common import Benchmark, Source, spread, table
else:                                # python benchmarks/bench_startup.py: this folder is sys.path[0]
    from _common import Benchmark, Source, spread, table

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


def _children_cpu() -> float:
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cold_command(cmd: list[str], timeout: float = 1800) -> dict:
    """A whole command in a fresh process with an empty kernel cache, in an empty folder
    (issue #32's first-use targets are timed this way): its wall seconds, the CPU seconds of
    it and of every process it started and waited for (a compile helper, the warm-up's
    workers), the 1-minute load average just before it, and the kernels it compiled more
    than once (``compiled_twice``)."""
    tmp = tempfile.mkdtemp(prefix="bench-cold-")
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=cache)
    try:
        load = os.getloadavg()[0]
        c = _children_cpu()
        t = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env, timeout=timeout)
        wall = time.perf_counter() - t
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr[-2000:]}")
        return {"wall": wall, "cpu": _children_cpu() - c, "load": load,
                "compiled_twice": compiled_twice(cache)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_PROFILE = """
import json, sys, time
from numba.core import event
stack, excl, incl = [], {}, {}
class Timer(event.Listener):
    def on_start(self, e):
        f = e.data["dispatcher"].py_func
        stack.append([f.__module__.rsplit(".", 1)[-1] + "." + f.__qualname__, time.perf_counter(), 0.0])
    def on_end(self, e):
        name, t0, child = stack.pop()
        dt = time.perf_counter() - t0
        excl[name] = excl.get(name, 0.0) + dt - child
        incl[name] = incl.get(name, 0.0) + dt
        if stack:
            stack[-1][2] += dt
event.register("numba:compile", Timer())
from shanghai_sim.cli.main import main
t = time.perf_counter()
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    top = sorted(excl.items(), key=lambda kv: -kv[1])
    print(json.dumps({"wall": time.perf_counter() - t, "compiled": len(excl),
                      "kernels": [[k, v, incl[k]] for k, v in top]}))
"""


def compile_profile(args: list[str], timeout: float = 1800) -> dict:
    """Where a cold command's compile goes: the seconds numba spent compiling each kernel in
    the command's own process (exclusive of the callees it compiled, and inclusive), from
    numba's compile events, with an empty kernel cache. Kernels a helper process compiled
    meanwhile only load here (no event)."""
    import json
    tmp = tempfile.mkdtemp(prefix="bench-cold-")
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=os.path.join(tmp, "cache"),
               SHANGHAI_SIM_QUIET_COMPILE="1")
    try:
        res = subprocess.run([sys.executable, "-c", _PROFILE, *args], capture_output=True,
                             text=True, cwd=tmp, env=env, timeout=timeout)
        if res.returncode != 0:
            raise RuntimeError(f"profile of {args} failed:\n{res.stderr[-2000:]}")
        return json.loads(res.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cold_commands() -> list[tuple[str, list[str]]]:
    """issue #32's first-use targets: whole commands with an empty kernel cache."""
    cli = _cli()
    return [
        ("shanghai-sim meld 5C 6C 7C 8C 9D 9H 9S JK --contract 2",
         cli + ["meld", "5C", "6C", "7C", "8C", "9D", "9H", "9S", "JK", "--contract", "2"]),
        ("README's main job: shanghai-sim run (1,000 games)", cli + ["run", "--quiet"]),
        ("shanghai-sim warmup (every kernel)", cli + ["warmup"]),
    ]


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


def measure(reps: int = 3, cold: bool = True, cold_reps: int = 1, whole_reps: int = 3,
            progress=None) -> dict:
    say = progress or (lambda s: None)
    from shanghai_sim.precompile import STEPS
    from shanghai_sim.kernels.compile.cache import SOURCE_HASH
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
    colds, wholes = [], []
    if cold:
        for i, (name, _) in enumerate(STEPS):
            s = spread([cold_compile(i) for _ in range(cold_reps)])
            colds.append({"step": name, "seconds": s})
            say(f"  cold {name}: {s['median']:.0f} s")
        for name, cmd in cold_commands():
            runs = [cold_command(cmd) for _ in range(whole_reps)]
            w = {"command": name, "seconds": spread([r["wall"] for r in runs]),
                 "cpu": spread([r["cpu"] for r in runs]), "load": [round(r["load"], 2) for r in runs],
                 "compiled_twice": runs[0]["compiled_twice"]}
            wholes.append(w)
            say(f"  cold {name}: {w['seconds']['median']:.0f} s wall, {w['cpu']['median']:.0f} s CPU")
    profile = None
    if cold:
        profile = compile_profile(["run", "--quiet"])
        say(f"  profile of the cold run: {profile['wall']:.0f} s, {profile['compiled']} kernels compiled here")
    tables = [table(f"Warm start: wall time of the command in a fresh process, seconds, "
                    f"median (min-max) of {reps}", ["command", "seconds"],
                    [[w["command"], w["seconds"]] for w in warm])]
    if colds:
        tables.insert(0, table(
            f"Cold compile of each warm-up step alone: one process, an empty cache, seconds "
            f"({cold_reps} run{'s' if cold_reps > 1 else ''}; the steps overlap: each compiles "
            f"everything it needs)",
            ["kernels (warmup step)", "seconds"], [[c["step"], c["seconds"]] for c in colds]))
        tables.insert(0, table(
            f"Cold: the whole command with an empty kernel cache, median (min-max) of {whole_reps}: "
            f"wall seconds, CPU seconds of all its processes, load average (1 min) before each run",
            ["command", "wall seconds", "CPU seconds", "load before"],
            [[w["command"], w["seconds"], w["cpu"], ", ".join(f"{x:.2f}" for x in w["load"])]
             for w in wholes]))
    if profile is not None:
        tables.append(table(
            f"Where a cold `shanghai-sim run` compiles: seconds of numba's compile per kernel in "
            f"the command's own process, exclusive of the callees it compiled (time spent waiting for a kernel the helper is compiling counts to the caller) and inclusive, "
            f"the 12 largest of {profile['compiled']} (one run, {profile['wall']:.0f} s; what the "
            f"helper process compiled only loads here)",
            ["kernel", "exclusive seconds", "inclusive seconds"],
            [[k, round(e, 1), round(i, 1)] for k, e, i in profile["kernels"][:12]]))
    return {
        "name": "startup",
        "title": "First use: cold compile of each command's kernels, warm start of the first commands",
        "settings": {"reps": reps, "cold": cold, "cold_reps": cold_reps, "whole_reps": whole_reps,
                     "kernel_source_hash": SOURCE_HASH},
        "figures": {"warm": warm, "cold": colds, "whole": wholes, "profile": profile},
        "tables": tables,
        "notes": _notes(wholes) if cold else ["Cold compile not measured in this run (`--quick` "
                                              "skips it: minutes per command)."],
    }


NOTE_BOTH_CORES = (
    "A cold batch command compiles on both cores: the command compiles its engine from the top "
    "at once (a caller does not wait for the separate kernels it calls: `kernels.compile.linking`) and "
    "announces each separate kernel it will need to a helper process, which compiles the meld "
    "finder's largest path, the lay-down search and then what is announced, while the command "
    "compiles the rest (`compiling.engine_helper`)")


def _notes(wholes: list[dict]) -> list[str]:
    twice = next((w["compiled_twice"] for w in wholes if w["command"].startswith("README")), None)
    out = [NOTE_BOTH_CORES + "; a cold `meld` likewise compiles the lay-down search in a "
           "helper while it compiles the deficiency (`compiling.hand_helper`); `warmup` runs every "
           "step at once in one process per core. A kernel two processes need is compiled once "
           "(`kernels.compile.cache`)."]
    if twice is None:
        return out
    if not twice:
        return out + ["The cold `run` compiled every kernel once (numba's cache index: one "
                      "signature each)."]
    top = ", ".join(f"`{k}` x{n}" for k, n in list(twice.items())[:8])
    return out + [f"Kernels the cold `run` compiled more than once (one signature per distinct "
                  f"argument types, numba's cache index; kernels/__init__.py): {top}."]

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_PEER, C_FLOOR, median_err, finish, np, plt
    else:
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
        wholes = f.get("whole", [])
        rows = ([("whole command: " + w["command"], w["seconds"]) for w in wholes]
                + [("one step alone: " + c["step"], c["seconds"]) for c in f["cold"]])
        med, err = median_err([r[1] for r in rows])
        y = np.arange(len(med))
        ax.barh(y, med, xerr=err, color=[C_OURS] * len(wholes) + [C_PEER] * len(f["cold"]),
                capsize=3)
        ax.set_yticks(y)
        ax.set_yticklabels([r[0].replace(" (", "\n(").replace(": ", ":\n", 1) for r in rows],
                           fontsize=6)
        ax.invert_yaxis()
        ax.set_xlabel("seconds of wall time, empty kernel cache")
        reps = f"median of {wholes[0]['seconds']['n']}" if wholes else ""
        ax.set_title(f"Cold: whole commands ({reps}, both cores)\nand each warm-up step alone "
                     f"({f['cold'][0]['seconds']['n']} run, one process)", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="startup", order=60, measure=measure, chart=chart,
    title="First use",
    how=(
        "Cold: the whole commands a new user runs first (`meld`, README's main job, `warmup`) "
        "with an empty `SHANGHAI_SIM_CACHE_DIR`, wall time (median of 3) and the CPU time of all "
        "their processes, with the load before each run; and each step of `shanghai-sim warmup` "
        "(the kernels of `meld`, of `run`, of `replay`/`play`) alone in one fresh process: the "
        "time a new user waits once per version. Warm: the wall time of the first commands in a fresh "
        "process with the cache filled, next to starting Python and `shanghai-sim --help`."),
    sizes={
        "full": dict(reps=5, cold=True, cold_reps=1, whole_reps=3),
        "quick": dict(reps=3, cold=False),
        "tiny": dict(reps=1, cold=False),
    },
    source=Source(files=("shanghai_sim/kernels/*.py", "shanghai_sim/kernels/*/*.py",  # every kernel, and how compiled and cached
                         "shanghai_sim/precompile.py", "shanghai_sim/__init__.py", "cli/*.py")),
)
