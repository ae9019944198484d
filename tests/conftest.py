"""Test session set-up.

Compile (or load from the per-user kernel cache) every kernel once, in this
process, before any test runs: tests that start other processes (Dask
workers, the CLI in a subprocess) then load the cached machine code instead
of compiling the engine several times at once. pytest's output capture is
suspended meanwhile, so a compile says so on the terminal with its elapsed
time (``shanghai_sim.kernels.cache``) instead of looking like a hang.
"""


def pytest_sessionstart(session):
    from shanghai_sim.precompile import warmup

    capman = session.config.pluginmanager.getplugin("capturemanager")
    if capman is None:
        warmup(stream=None)
        return
    with capman.global_and_fixture_disabled():
        warmup(stream=None)
