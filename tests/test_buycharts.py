"""smart's buy charts (kernels/bots/buycharts.py, ``smart:chartN=NAME``): each shipped chart is
the committed when-to-buy answer it names, and a smart seat given one buys as it says where
it says buy or pass, and as smart elsewhere."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shanghai_sim.bots import BotError, parse_bot
from shanghai_sim.experiment import one_hand_rules, one_hand_spec
from shanghai_sim.game import Game
from shanghai_sim.hand import deficiency_batch
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.bots.buycharts import (CHART_BUYS, CHART_DEF_CAP, CHART_NAMES, CHART_SOURCES,
                                            CHARTS)
from shanghai_sim.rules import load_rules

CELLS = Path(__file__).resolve().parents[1] / "analyses" / "results" / "when_to_buy" / "cells.csv"
WORD = {"buy": 1, "pass": -1, "cannot tell": 0}


@pytest.mark.parametrize("name", CHART_NAMES[1:])
def test_a_chart_is_the_committed_answer_it_names(name):
    """Every cell of the shipped chart is the verdict of the committed cells.csv it cites
    (a cell the games never reached: none), so the spec reproduces that answer."""
    assert "analyses/results/when_to_buy" in CHART_SOURCES[name][0]
    preset, hand = name.rstrip("0123456789"), int(name[len(name.rstrip("0123456789")):])
    cl = pd.read_csv(CELLS)
    cl = cl[(cl.preset == preset) & (cl.hand == hand)]
    assert len(cl) > 20
    want = np.zeros((2, CHART_BUYS, CHART_DEF_CAP + 1), dtype=np.int8)
    for r in cl.itertuples():
        want[int(r.lowers), r.buys_used, r.def_before] = WORD[r.verdict]
    got = CHARTS[CHART_NAMES.index(name)]
    assert (got == want).all(), np.argwhere(got != want)
    assert (got == 1).sum() >= 3 and (got == -1).sum() >= 10


def test_the_chart_parameter_names_a_shipped_chart_for_a_hand():
    assert parse_bot("smart:chart8=contract8").name == "smart:chart8=contract8"
    assert parse_bot("smart:chart8=none").name == "smart"
    with pytest.raises(BotError, match=r"bad value 'shanghai9' for chart8 .*valid: none, shanghai8"):
        parse_bot("smart:chart8=shanghai9")
    with pytest.raises(BotError, match="unknown parameter 'chart8' for bot 'greedy'"):
        parse_bot("greedy:chart8=shanghai8")
    # a hand-level experiment plays hand 8 as hand 1: the chart moves with it
    assert one_hand_spec("smart:chart8=shanghai8", 8) == ("smart:chart1=shanghai8", [])


def _cell_word(g, name) -> int:
    """The chart's word at the seat's buy decision, read from the chart's rows by Python."""
    p = g.to_act
    hand = g.G.hands[p].astype(np.int64)
    both = np.stack([hand, hand]).copy()
    both[1, int(g.G.s[L.S_UP])] += 1
    d0, d1 = (int(x) for x in deficiency_batch(both, g.hand, g.rules, shoe=False))
    buys = int(g.G.ps[p, L.PS_BUYS])
    rows = CHART_SOURCES[name][1][d1 < d0]
    if buys >= len(rows):
        return 0
    return {"B": 1, "P": -1, ".": 0}[rows[buys][min(d0, CHART_DEF_CAP)]]


@pytest.mark.parametrize("name,preset,whole", [("shanghai8", "shanghai", False),
                                                 ("contract8", "contract", False),
                                                 ("shanghai8", "shanghai", True)])
def test_a_smart_with_a_chart_buys_as_it_says_and_as_smart_elsewhere(name, preset, whole):
    """Every buy decision of games of four smart:chart8=NAME: where the chart says buy or
    pass the seat does so; elsewhere (no word, another hand) it does what plain smart does
    on the same state. Both cases happen, and the chart overrules smart at some of them."""
    rules = load_rules(preset) if whole else one_hand_rules(load_rules(preset), 8)
    spec = f"smart:chart8={name}" if whole else one_hand_spec(f"smart:chart8={name}", 8)[0]
    followed = own = overruled = 0
    for seed in range(1 if whole else 6):
        g = Game(rules=rules, players=4, seed=seed, bots=spec)
        while not g.over:
            asked = g.phase == "buy" and any(a.kind == "buy" for a in g.legal_actions())
            word = _cell_word(g, name) if asked and (not whole or g.hand == 8) else 0
            plain = g.bot_action("smart").kind if asked else None
            act = g.step()
            if not asked:
                continue
            if word:
                assert act.kind == ("buy" if word > 0 else "pass"), (seed, g.hand, word, act)
                followed += 1
                overruled += act.kind != plain
            else:
                assert act.kind == plain, (seed, g.hand, act, plain)
                own += 1
    assert followed >= 20 and own >= 5 and overruled >= 1, (followed, own, overruled)
