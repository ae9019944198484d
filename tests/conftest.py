"""Test session set-up, and the one way tests reach the scripts of analyses/ and benchmarks/.

Compile (or load from the per-user kernel cache) every kernel once, in this
process, before any test runs: tests that start other processes (Dask
workers, the CLI in a subprocess) then load the cached machine code instead
of compiling the engine several times at once. With ``-n auto`` (pytest-xdist,
README's test command) the controlling process compiles first, and each worker
loads the cache when it starts, silently; each test file runs in one worker
(``--dist loadfile`` in pyproject.toml). The controlling process shows the
warm-up on the terminal through pytest's terminal reporter, as ``shanghai-sim
warmup`` does: a line per step, a line at least every ``precompile.TICK`` (10)
seconds while steps compile, and the time it took, before the session header.

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


class _ReporterLines:
    """A text stream for ``warmup(stream=...)`` that hands each whole line to pytest's terminal
    reporter (``write_line``), which keeps it apart from pytest's own output."""

    def __init__(self, reporter):
        self.reporter = reporter
        self._part = ""

    def write(self, text: str) -> int:
        self._part += text
        *lines, self._part = self._part.split("\n")
        for line in lines:
            self.reporter.write_line(line)
        return len(text)

    def flush(self) -> None:
        pass


def pytest_sessionstart(session):
    """The warm-up, before the workers start (pytest-xdist starts them later in this hook)."""
    import time

    from shanghai_sim.precompile import _fmt, warmup

    config = session.config
    reporter = config.pluginmanager.getplugin("terminalreporter")
    if hasattr(config, "workerinput") or reporter is None:
        warmup(stream=None)                 # an xdist worker: the controller has said it all
        return
    out = _ReporterLines(reporter)
    reporter.write_line("shanghai-sim: warming up the numba kernels (tests/conftest.py) ...")
    t = time.monotonic()
    capman = config.pluginmanager.getplugin("capturemanager")
    if capman is None:
        warmup(stream=out)
    else:
        with capman.global_and_fixture_disabled():
            warmup(stream=out)
    reporter.write_line(f"shanghai-sim: kernels ready in {_fmt(time.monotonic() - t)}")


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
