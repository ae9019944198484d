"""smart's buy charts: when to buy, read from a table (``smart:chartN=NAME``).

A chart is the answer of ``analyses/when_to_buy.py`` for one hand of one preset, shipped
as data: for each situation of a buy decision (the seat's deficiency before the upcard,
docs/rules.md §6, with 6 and more together; whether the upcard lowers it; the buys the
seat has made this hand) it says *buy*, *pass*, or nothing (the chart could not tell, or
its games never reached the situation). A smart seat given ``chartN=NAME`` asks the chart
first at each buy decision of hand N and follows it where it speaks; elsewhere it buys by
its own judgement (docs/bots.md, "Buying by a chart").

A chart is never changed once shipped: a new answer is a new name, so a spec that names a
chart plays the same games in every release. Each chart below says the command and the
committed result it was read from; ``tests/test_buycharts.py`` checks it against that
result's ``cells.csv``.

Rows: for ``lowers`` False then True, for buys made 0, 1, 2, ... a string over the
deficiency columns 0, 1, ..., 6+: ``B`` buy, ``P`` pass, ``.`` the bot's own judgement.
Buys made beyond the rows given, and hands other than N, read ``.``.
"""

import numba as nb
import numpy as np

CHART_DEF_CAP = 6          # deficiencies from this up share the last column
CHART_BUYS = 4             # rows of buys made (0..3) held per chart; more read as "."

# name -> (the committed result it was read from, {lowers: rows by buys made})
CHART_SOURCES = {
    "shanghai8": (
        "analyses/results/when_to_buy (python analyses/when_to_buy.py: shanghai hand 8, "
        "seed 1, 100 deals of four smart v3, 16 + 16 samples a decision, 11,093 decisions)",
        {False: ("...P.B.",      # deficiency 0123456+, buys made 0, the upcard does not lower it
                 ".PPPPP.",      # 1 buy made
                 "PPPP.P."),     # 2 buys made
         True: (".......",
                ".BBB...",
                ".BB..P."),
         }),
    "contract8": (
        "analyses/results/when_to_buy (python analyses/when_to_buy.py: contract hand 8, "
        "seed 1, 100 deals of four smart v3, 16 + 16 samples a decision, 14,913 decisions)",
        {False: ("....P.P",
                 ".PPPPPP",
                 "PPPPP.."),
         True: (".....BP",
                ".B..P.P",
                ".B.P..."),
         }),
}

# the chart values of the registry's choice parameter: 0 is none
CHART_NAMES = ("none",) + tuple(CHART_SOURCES)


def _table() -> np.ndarray:
    """int8[chart, lowers, buys made, deficiency column]: 1 buy, -1 pass, 0 own judgement."""
    t = np.zeros((len(CHART_NAMES), 2, CHART_BUYS, CHART_DEF_CAP + 1), dtype=np.int8)
    code = {"B": 1, "P": -1, ".": 0}
    for i, name in enumerate(CHART_NAMES[1:], start=1):
        for lowers, rows in CHART_SOURCES[name][1].items():
            assert len(rows) <= CHART_BUYS, name
            for b, row in enumerate(rows):
                assert len(row) == CHART_DEF_CAP + 1 and set(row) <= set(code), (name, row)
                t[i, int(lowers), b] = [code[ch] for ch in row]
    return t


CHARTS = _table()          # a global array: numba compiles it in as a constant


@nb.njit(cache=True, _nrt=False, inline="always")
def chart_verdict_nb(chart, d0, d1, buys):
    """Chart ``chart``'s word on a buy (1 buy, -1 pass, 0 none) at deficiency d0 before the
    upcard, d1 with it, after ``buys`` buys this hand."""
    if chart <= 0 or chart >= CHARTS.shape[0] or buys < 0 or buys >= CHARTS.shape[2]:
        return 0
    return CHARTS[chart, 1 if d1 < d0 else 0, buys, min(d0, CHART_DEF_CAP)]
