"""Defaults of the batch job, in a module light enough for the command line's help.

``shanghai-sim --help`` and ``--version`` import this and click only, so they
answer at once; the runner and the kernels load when a command runs.
"""

DEFAULT_OUT = "shanghai-out"
DEFAULT_GAMES = 1000         # the default job: about 4 s on 2 idle cores once compiled
DETAILS = ("hands", "games")
DEFAULT_BOTS = "greedy"
