"""Batch runs on the real engine (kernels.games.batch.play_games_nb, bots.parse_bots).

A handful of games each: the engine's own tests cover the game; these check
that what the runner writes is what the engine played, whatever the threads,
shards or workers, and that `replay --seed` shows the same game.
"""

import json

import numpy as np
import pandas as pd
import pytest

from shanghai_sim import runner
from shanghai_sim.kernels.base import records as R

from test_runner_support import read, run_cli

BOTS = ("random", "greedy", "greedy:buy=never", "greedy")
GAMES = 6


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    out = tmp_path_factory.mktemp("engine") / "base"
    job = runner.Job(out=str(out), bots=BOTS, games=GAMES, seed=21, threads=1, shard_size=GAMES)
    runner.run(runner.plan(job), progress=None)
    return out


def test_rows_equal_whatever_threads_and_shards(base, tmp_path):
    r = run_cli("run", "--out", tmp_path / "b", "--bots", ",".join(BOTS), "--games", GAMES, "--seed", 21,
                "--threads", 2, "--shard-size", 2, "--quiet", engine=None)
    assert r.exit_code == 0, r.output
    for t in ("hands", "games"):
        pd.testing.assert_frame_equal(read(base, t), read(tmp_path / "b", t))


def test_rows_are_the_games_replay_shows(base):
    from shanghai_sim.game import game_events
    h = read(base, "hands")
    for game in range(GAMES):
        rows = h[h.game == game]
        bots_by_seat = [str(b) for b in rows[rows.hand == 1].sort_values("seat").bot]
        _, rec = game_events("shanghai", 4, int(rows.game_seed.iloc[0]), bots_by_seat)
        for col, f in (("points", R.HF_POINTS), ("turns", R.HF_TURNS), ("buys", R.HF_BUYS),
                       ("dealer", R.HF_DEALER), ("cards_left", R.HF_CARDS_LEFT)):
            assert rows[col].tolist() == rec[:, :, f].ravel().tolist(), (game, col)


def test_the_dataset_reads_like_the_rulebook(base):
    h, g = read(base, "hands"), read(base, "games")
    assert len(h) == GAMES * 10 * 4 and len(g) == GAMES * 4
    per_hand = h.groupby(["game", "hand"])
    # docs/rules.md §5.6: at most one player goes out; they score 0 (no blind bonus in shanghai)
    assert (per_hand.went_out.sum() <= 1).all()
    assert (h[h.went_out].points == 0).all() and (h[h.went_out].cards_left == 0).all()
    ended_out = per_hand.ended.first() == "out"
    assert (ended_out == (per_hand.went_out.sum() == 1)).all()
    # the deal moves one seat left each hand (docs/rules.md §5.1)
    d = per_hand.dealer.first().unstack()
    assert ((d.diff(axis=1).iloc[:, 1:] % 4) == 1).all().all()
    # a seat that went down did so on one of its turns
    down = h.dropna(subset=["down_turn"])
    assert ((down.down_turn >= 1) & (down.down_turn <= down.turns)).all()
    assert (g.points.to_numpy() == h.groupby(["game", "seat"]).points.sum().to_numpy()).all()
    assert set(g.bot.astype(str)) == set(BOTS)
    m = json.loads((base / "manifest.json").read_text())
    assert m["status"] == "complete" and m["job"]["bots"] == list(BOTS)


def test_summary_of_a_real_run(base):
    r = run_cli("summary", base)
    assert r.exit_code == 0 and f"{GAMES} games" in r.stdout and "bot greedy:buy=never" in r.stdout


@pytest.mark.slow
def test_dask_local_cluster_on_the_real_engine(base, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        r = run_cli("run", "--scheduler", c.scheduler_address, "--out", tmp_path / "d", "--bots",
                    ",".join(BOTS), "--games", GAMES, "--seed", 21, "--shard-size", 2, "-q", engine=None)
    assert r.exit_code == 0, r.output
    for t in ("hands", "games"):
        pd.testing.assert_frame_equal(read(base, t), read(tmp_path / "d", t))


def test_warm_state_plays_what_a_fresh_one_plays():
    """The runner's engine hook keeps a state (and its meld memo) per thread and rules across
    calls (issue #17 item 3); each call's games are those of play_games_nb on a fresh state,
    whatever was played before it and under other rules in between."""
    from shanghai_sim.bots import parse_bots
    from shanghai_sim.kernels.games.batch import play_games_nb
    from shanghai_sim.kernels.base.records import NHF
    from shanghai_sim.rules import preset

    calls = [("progressive", 3, [5, 6]), ("shanghai", 4, [7, 8, 9]), ("progressive", 3, [5, 6]),
             ("shanghai", 4, [1]), ("contract", 4, [2, 3]), ("progressive", 3, [11])]
    for name, players, seeds in calls:
        r = preset(name).with_players(players)
        A = r.arrays(players)
        kinds, params = parse_bots("greedy", players)
        s = np.asarray(seeds, np.uint64)
        want = np.zeros((len(s), r.hands, players, NHF), np.int32)
        got = np.zeros_like(want)
        play_games_nb(*A, kinds, params, s, want)
        runner.play_games_warm(*A, kinds, params, s, got)
        assert (got == want).all(), (name, seeds)
