"""The studies: one script per question, each over the library's public modules
(``shanghai_sim.experiment``, ``runner``, ``tournament``, ``valuing``), never its kernels;
analyses/README.md lists the answers.

Run as scripts, from the repository root (``python analyses/NAME.py``: the script's folder is
then its import path, so it imports ``analyses_common`` by that name), or import them as this
package (``analyses.NAME``, sharing ``analyses.analyses_common``): the tests do, with the
repository root on their path (``pythonpath`` in pyproject.toml's pytest settings). Not
installed: ``pip install .`` ships ``shanghai_sim`` only.
"""
