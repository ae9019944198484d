"""Test session set-up, and the one way tests reach the scripts of analyses/ and benchmarks/.

Compile (or load from the per-user kernel cache) every kernel once, in this
process, before any test runs: tests that start other processes (Dask
workers, the CLI in a subprocess) then load the cached machine code instead
of compiling the engine several times at once. With ``-n auto`` (pytest-xdist,
README's test command) the controlling process compiles first, and each worker
loads the cache when it starts; each test file runs in one worker
(``--dist loadfile`` in pyproject.toml). pytest's output capture is
suspended meanwhile, so a compile says so on the terminal with its elapsed
time (``shanghai_sim.kernels.cache``) instead of looking like a hang.

analyses/ and benchmarks/ are not installed: their scripts import their helpers
(``analyses_common``, ``_common``, ``charts``, ...) as top-level modules from their
own folder, as ``python analyses/NAME.py`` does. The fixtures ``analysis`` and
``bench`` put those folders on ``sys.path`` (both at once: the helpers' names must
not collide) and load a script as a module; no test edits ``sys.path`` for them.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ANALYSES = ROOT / "analyses"
BENCHMARKS = ROOT / "benchmarks"
TESTS = ROOT / "tests"


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (README's test command): as many workers as a cold warm-up uses processes
    (``precompile.default_jobs``: the cores this process may run on, at most 4; each worker
    holds every kernel, and many tests start processes of their own).
    PYTEST_XDIST_AUTO_NUM_WORKERS, where set, decides instead (pytest-xdist's own rule)."""
    import os
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    from shanghai_sim.precompile import default_jobs
    return default_jobs()


def pytest_sessionstart(session):
    from shanghai_sim.precompile import warmup

    capman = session.config.pluginmanager.getplugin("capturemanager")
    if capman is None:
        warmup(stream=None)
        return
    with capman.global_and_fixture_disabled():
        warmup(stream=None)


def _on_path(*folders: Path) -> None:
    for f in folders:
        if str(f) not in sys.path:
            sys.path.insert(0, str(f))


def load_analysis(name: str):
    """analyses/NAME.py as a fresh module ``analyses_NAME`` (its ``C`` is analyses_common)."""
    _on_path(ANALYSES)
    spec = importlib.util.spec_from_file_location(f"analyses_{name}", ANALYSES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_bench(name: str):
    """A module of benchmarks/ by its name (``run_all``, ``_common``, ``bench_play_quality``), with
    tests/ on the path too for the peer the benchmarks import (``reference``)."""
    _on_path(TESTS, BENCHMARKS)
    return importlib.import_module(name)


@pytest.fixture(scope="session")
def analysis():
    """``analysis("buying")``: the script analyses/buying.py as a module."""
    return load_analysis


@pytest.fixture(scope="session")
def bench():
    """``bench("run_all")``: a module of benchmarks/."""
    return load_bench
