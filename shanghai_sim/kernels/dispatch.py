"""The engine's bot dispatch: every bot kind, the search bots included.

``bots.bot_action_nb`` dispatches the bots that decide from the state alone; the rollout
bot (``kernels.rollout``) calls `smart` and needs the thread's workspace W
(``layout.WORKSPACE_SPEC``), so it is dispatched here, one floor up, without an import
cycle.
"""

import numba as nb

from .bots import BOT_ROLLOUT, bot_action_nb
from .layout import G_S, S_ACTOR
from .rollout import new_workspace_nb, rollout_action_nb  # noqa: F401  (re-exported)


@nb.njit(cache=True, _nrt=False, inline="always")
def seat_action_nb(R, G, W, kind, bp):
    """The action of the bot of this kind for the seat to act (W: the thread's workspace)."""
    if kind == BOT_ROLLOUT:
        return rollout_action_nb(R, G, W, G[G_S][S_ACTOR], bp)
    return bot_action_nb(R, G, kind, bp)
