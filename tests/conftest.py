"""Test session set-up: the kernels warmed up before any test, and how tests reach analyses/ and benchmarks/.

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

analyses/ and benchmarks/ are not installed: they are packages of the repository, and the
tests import them by name (``from analyses import buying``, ``from benchmarks import run_all``)
with the repository root on the import path (``pythonpath`` in pyproject.toml's pytest
settings). No test edits ``sys.path`` for them.
"""

from __future__ import annotations


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
