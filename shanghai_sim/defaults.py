"""Defaults of the batch job, in a module light enough for the command line's help.

``shanghai-sim --help`` and ``--version`` import this and click only, so they
answer at once; the runner and the kernels load when a command runs.
"""

DEFAULT_OUT = "shanghai-out"
DEFAULT_GAMES = 1000         # the default job: about 4 s on 2 idle cores once compiled
DETAILS = ("hands", "games")
# run --positions with no rate: the share of decisions recorded in the positions table (about
# 0.77 positions per seat and hand under shanghai, 4 greedy players; a position's features cost
# about 13 decisions' time, so this rate costs the kernel about a fifth: BENCHMARKS.md, runner)
DEFAULT_POSITIONS_RATE = 0.02
DEFAULT_BOTS = "greedy"
