"""The engine's bot dispatch: every bot kind, the search bots included.

``bots.bot_action_nb`` dispatches the bots that decide from the state alone; the rollout
bot (``kernels.rollout``) calls `smart` and needs the thread's workspace W
(``layout.WORKSPACE_SPEC``), so it is dispatched here, one floor up, without an import
cycle.

W is None for a line-up without a search bot. numba then prunes the search branch before
typing it (a ``W is not None`` test on an argument of type None), so the engine compiled
for such line-ups (the default ``run``, the step API without a rollout seat) neither
compiles nor links the rollout kernels: first use compiles about a sixth less
(BENCHMARKS.md, first use). ``needs_workspace`` tells the callers which to pass.
"""

import numba as nb
import numpy as np

from .bots import BOT_ROLLOUT, bot_action_nb
from .layout import G_S, S_ACTOR
from .rollout import new_workspace_nb, rollout_action_nb  # noqa: F401  (re-exported)

# The action a search bot "chooses" when it was given no workspace: type 15 is no action
# (play.A_*), so apply_action_nb refuses it and the engine stops with an error instead of
# letting another bot play that seat.
NO_WORKSPACE = 15

SEARCH_KINDS = (BOT_ROLLOUT,)


def needs_workspace(kinds) -> bool:
    """Whether a line-up of these bot kinds (BOT_* values) needs the search workspace W."""
    return bool(np.isin(np.asarray(kinds), SEARCH_KINDS).any())


@nb.njit(cache=True, _nrt=False, inline="always")
def seat_action_nb(R, G, W, kind, bp):
    """The action of the bot of this kind for the seat to act (W: the thread's workspace,
    or None when no seat plays a search bot)."""
    if W is not None:
        if kind == BOT_ROLLOUT:
            return rollout_action_nb(R, G, W, G[G_S][S_ACTOR], bp)
    elif kind == BOT_ROLLOUT:
        return NO_WORKSPACE
    return bot_action_nb(R, G, kind, bp)
