"""The engine's bot dispatch: every bot kind, the search bots included.

``bots.bot_action_nb`` dispatches the bots that decide from the state alone (and
``seat_action_nb`` does the same, written out); the rollout
bot (``kernels.rollout``) calls `smart` and needs the thread's workspace W
(``layout.WORKSPACE_SPEC``), so it is dispatched here, one floor up, without an import
cycle.

W is None for a line-up without a search bot. numba then prunes the search branch before
typing it (a ``W is not None`` test on an argument of type None), so the engine compiled
for such line-ups (the default ``run``, the step API without a rollout seat) neither
compiles nor links the rollout kernels: first use compiles about a sixth less
(BENCHMARKS.md, first use). ``needs_workspace`` tells the callers which to pass.

SM is the same for the smart bot: True when a seat plays smart, None otherwise
(``smart_flag``), and the engine of a greedy and random line-up (the default ``run``)
compiles no smart code. The rollout bot's own playouts call smart whatever SM is.
"""

import numba as nb
import numpy as np

from .bots import (BOT_GREEDY, BOT_ROLLOUT, BOT_SMART, greedy_action_nb, random_action_nb,
                   smart_action_nb)
from .codes import NO_ACTION
from .layout import G_S, S_ACTOR
from .rollout import new_workspace_nb, rollout_action_nb  # noqa: F401  (re-exported)

# The action a search bot "chooses" when it was given no workspace, and a smart seat
# given SM = None: codes.NO_ACTION, which apply_action_nb refuses, so the engine stops
# with an error instead of letting another bot play that seat.

SEARCH_KINDS = (BOT_ROLLOUT,)


def needs_workspace(kinds) -> bool:
    """Whether a line-up of these bot kinds (BOT_* values) needs the search workspace W."""
    return bool(np.isin(np.asarray(kinds), SEARCH_KINDS).any())


def smart_flag(kinds):
    """The engine's SM argument for a line-up of these bot kinds: True when a seat plays
    smart, else None (the smart bot's kernels are then not compiled)."""
    return True if bool(np.isin(np.asarray(kinds), (BOT_SMART,)).any()) else None


@nb.njit(cache=True, _nrt=False, inline="always")
def seat_action_nb(R, G, W, SM, kind, bp):
    """The action of the bot of this kind for the seat to act (W: the thread's workspace,
    or None when no seat plays a search bot; SM: True, or None when no seat plays smart)."""
    # bots.bot_action_nb's dispatch written out here: one level of inlining less (numba
    # copies an inlined body once per level)
    p = G[G_S][S_ACTOR]
    if W is not None:
        if kind == BOT_ROLLOUT:
            return rollout_action_nb(R, G, W, p, bp)
    elif kind == BOT_ROLLOUT:
        return NO_ACTION
    if SM is not None:
        if kind == BOT_SMART:
            return smart_action_nb(R, G, p, bp)
    elif kind == BOT_SMART:
        return NO_ACTION
    if kind == BOT_GREEDY:
        return greedy_action_nb(R, G, p, bp)
    return random_action_nb(R, G, p)
