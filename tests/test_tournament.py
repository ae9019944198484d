"""Tournaments (issue 13 item 4, docs/tournament.md): every distinct seating of a deal, the
pairing by deal, the per-bot figures, resume and bad input.

The mechanics run on the runner tests' fake engine (``test_runner_support.FAKE``: records
from each game's seed, different per bot); one test plays the real engine.
"""

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shanghai_sim import runner
from shanghai_sim.kernels.rng import game_seed_nb

from test_runner_support import FAKE, read

A, B, C = "greedy:buy=never", "greedy", "random"


def run_job(out, lineup, deals, engine=FAKE, **kw):
    k = len(runner.tournament_seatings(lineup))
    job = runner.Job(out=str(out), bots=tuple(lineup), games=deals * k, seating="tournament", **kw)
    return runner.run(runner.plan(job, engine), progress=None, engine=engine)


# ------------------------------------------------------------ the seating table

@pytest.mark.parametrize("lineup, k", [((A, B, B, B), 4), ((A, A, B, C), 12), ((A, B, C, "x"), 24),
                                       ((A, B), 2), ((A, B, B), 3), ((A, A, B, B), 6)])
def test_the_table_holds_every_distinct_seating_once(lineup, k):
    t = runner.tournament_seatings(lineup)
    assert t.shape == (k, len(lineup)) and runner.distinct_seatings_count(lineup) == k
    assert (t[0] == np.arange(len(lineup))).all()                     # the line-up as given comes first
    arrangements = {tuple(lineup[i] for i in row) for row in t}
    assert len(arrangements) == k                                      # all distinct ...
    assert all(sorted(row) == list(range(len(lineup))) for row in t)   # ... each a seating of the line-up


def test_past_24_distinct_seatings_the_rotations_are_played():
    lineup = (A, B, C, "d", "e")                                       # 120 distinct seatings
    t = runner.tournament_seatings(lineup)
    assert (t == runner.rotations(5)).all()
    assert runner.distinct_seatings_count((A, A, B, B, C)) == 30       # > 24 too
    assert len(runner.tournament_seatings((A, A, B, B, C))) == 5
    assert len(runner.tournament_seatings((A, B, B, B, B, B, B, B))) == 8   # 8 distinct: all of them


def test_each_deal_is_played_in_every_distinct_seating_exactly_once(tmp_path):
    lineup = (A, A, B, C)
    run_job(tmp_path, lineup, deals=5, seed=3, shard_size=7)
    g = read(tmp_path, "games")
    game = g.game.astype(int)
    assert (g.game_seed.astype("uint64") == [game_seed_nb(3, x // 12) for x in game]).all()
    table = runner.tournament_seatings(lineup)
    assert (g.player.astype(int).to_numpy() == table[game % 12, g.seat.astype(int)]).all()
    assert (g.bot.astype(str).to_numpy() == np.array(lineup)[g.player.astype(int)]).all()
    per_deal = g.sort_values(["game", "seat"]).groupby("game_seed").apply(
        lambda d: Counter(tuple(x.bot.astype(str)) for _, x in d.groupby("game")))
    for seatings in per_deal:
        assert len(seatings) == 12 and set(seatings.values()) == {1}
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert m["job"]["seating"] == "tournament" and m["bots"]["seatings"] == table.tolist()
    assert "game // 12" in m["seeds"]["game_seed"] and "every distinct seating" in m["bots"]["seating"]
    # a plain job's manifest has no seating table
    runner.run(runner.plan(runner.Job(out=str(tmp_path / "plain"), bots=lineup, games=8), FAKE),
               progress=None, engine=FAKE)
    m = json.loads((tmp_path / "plain" / "manifest.json").read_text())
    assert "seating" not in m["job"] and "seatings" not in m["bots"]
    with pytest.raises(runner.JobError, match="multiple of 12"):
        runner.plan(runner.Job(bots=lineup, games=30, seating="tournament"), FAKE)


def test_rows_do_not_depend_on_threads_or_shards(tmp_path):
    lineup = (A, B, B, C)
    run_job(tmp_path / "a", lineup, deals=6, threads=1, shard_size=50)
    run_job(tmp_path / "b", lineup, deals=6, threads=2, shard_size=5)
    for t in ("games", "hands"):
        pd.testing.assert_frame_equal(read(tmp_path / "a", t), read(tmp_path / "b", t))
