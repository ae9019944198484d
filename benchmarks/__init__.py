"""The benchmarks: one module per measurement (``bench_NAME.py``, ending with its
``BENCHMARK`` record), the shared helpers (``_common``), the charts (``charts``), BENCHMARKS.md
(``report``) and the runner (``run_all``); docs/DEVELOPING.md, "Benchmarks".

Run as scripts from the repository root (``python benchmarks/run_all.py``, ``python
benchmarks/bench_NAME.py``: the script's folder is then its import path, and the modules import
each other by their names), or import them as this package (``benchmarks.run_all``; the modules
import each other relatively): the tests do, with the repository root on their path
(``pythonpath`` in pyproject.toml's pytest settings). The peers that live in tests/ (the Python
reference meld finder, the browser driver) are loaded from their files (``_common.peer``). Not
installed: ``pip install .`` ships ``shanghai_sim`` only.
"""
