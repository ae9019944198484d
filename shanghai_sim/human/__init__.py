"""A person plays one seat at the terminal against the bots (``shanghai-sim play``).

The game is a ``shanghai_sim.Game`` (the same kernels as every other game)
whose person's seat is played by hand: the bots act through
``Game.advance()``, and at each of the person's decisions ``HumanGame``
shows what that seat may see (its cards, the table melds and their owners,
the upcard, every seat's card count, buys left and who is down), numbers the
legal actions, reads one line and applies the action. Input and output are
two callables, ``read(prompt) -> str`` (raising EOFError at the end of
input) and ``write(text)``, so the command line and the tests drive the same
code.

What a person may not see stays off the screen: the other seats' deals,
stock draws and penalty cards are shown as counts. A hand's end is a pause
(``play``): who went out or why the hand stopped, each seat's cards left (shown
at scoring, as at a real table) and points, the totals; the next deal comes
once the person presses Enter (``hand_results`` gives the same to the page of
``serve``, which pauses there too). The saved log
(``log_events()``) is the full event log in the ``replay --json`` format
(docs/replay.md), opened by a ``game`` event (seed, rules, who sat where)
and, when the person stopped before the end, closed by a ``stopped`` event.

The package by concern: ``driver`` (``HumanGame``: the loop and its steps, the log),
``screen`` (what the person sees), ``moves`` (the actions offered and the typed line read
into one), ``advice`` (``hint`` and ``melds``). Every public name is importable from here.
"""

from .advice import HINT_BOT
from .driver import HumanGame, table_options
from .moves import Stop
from .screen import meld_line

__all__ = ["HumanGame", "Stop", "HINT_BOT", "meld_line", "table_options"]
