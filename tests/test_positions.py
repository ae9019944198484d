"""The positions table (``run --positions RATE``, docs/dataset.md "positions"): sampled
decisions with what the seat could see, its action and the outcome. It changes no game (the
hands/ and games/ parts are the same bytes with or without it), its rows follow from the
seed alone (threads, shards, a full buffer), its features read the seat's view only, and it
is part of the dataset like the other tables (manifest, verify, resume, quarantine)."""

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from shanghai_sim import runner
from shanghai_sim.dataset import POSITIONS, POSITIONS_SCHEMA
from shanghai_sim.game import Game
from shanghai_sim.integrity import read_table, verify
from shanghai_sim.kernels.base.positions import FEATURES
from shanghai_sim.positions import FEATURE_NAMES, seat_features

from test_bots_play import _hidden_shuffled, _restore, _saved


def _run(out, **kw):
    job = runner.Job(**{"games": 60, "out": str(out), "threads": 2, **kw})
    return runner.run(runner.plan(job), progress=None)


def _parts(out, table):
    d = os.path.join(out, table)
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d)) if not n.startswith(".")}


def test_positions_change_no_game_and_follow_the_seed(tmp_path):
    """hands/ and games/ are byte for byte those of the job without positions; positions/ is
    the same bytes on 1 thread and on 2, and in shards of another size the same rows."""
    _run(tmp_path / "plain")
    _run(tmp_path / "pos", positions=0.1)
    _run(tmp_path / "pos1", positions=0.1, threads=1)
    _run(tmp_path / "pos_shards", positions=0.1, shard_size=7)
    for t in ("hands", "games"):
        assert _parts(tmp_path / "plain", t) == _parts(tmp_path / "pos", t)
    assert _parts(tmp_path / "pos", POSITIONS) == _parts(tmp_path / "pos1", POSITIONS)
    a = read_table(str(tmp_path / "pos"), POSITIONS).to_pandas()
    b = read_table(str(tmp_path / "pos_shards"), POSITIONS).to_pandas()
    pd.testing.assert_frame_equal(a, b)
    m = json.loads((tmp_path / "pos" / "manifest.json").read_text())
    assert m["job"]["positions"] == 0.1 and m["tables"] == ["hands", "games", POSITIONS]
    assert m["rows"][POSITIONS] == len(a) > 0
    assert "positions" not in json.loads((tmp_path / "plain" / "manifest.json").read_text())["job"]


def test_a_row_reads_as_its_game_did(tmp_path):
    """Each row's outcome is its seat's in the hands and games tables; its features agree
    with the game (the hand, the seat's cards); its decision and action are a seat's; the
    order is the game's."""
    _run(tmp_path, positions=0.2)
    pos = read_table(str(tmp_path), POSITIONS).to_pandas()
    hands = read_table(str(tmp_path), "hands").to_pandas()
    games = read_table(str(tmp_path), "games").to_pandas()
    assert list(pos.columns) == POSITIONS_SCHEMA.names
    j = pos.merge(hands, on=["game", "hand", "seat"], suffixes=("", "_h"))
    assert len(j) == len(pos)
    assert (j.points == j.points_h).all() and (j.went_out == j.went_out_h).all()
    out = hands[hands.went_out].set_index(["game", "hand"]).seat
    has_out = pos.set_index(["game", "hand"]).index.isin(out.index)
    assert pos.out_seat.isna().to_numpy().tolist() == (~has_out).tolist()
    g = pos.merge(games, on=["game", "seat"], suffixes=("", "_g"))
    assert (g.game_points == g.points_g).all() and (g["rank"] == g["rank_g"]).all()
    assert (pos.hands_played == pos.hand - 1).all() and (pos.players == 4).all()
    assert set(pos.decision) <= {"first_refusal", "buy", "draw", "play"}
    assert set(pos.action[pos.decision == "buy"]) <= {"buy", "pass"}
    assert pos.card.notna().eq(pos.action.isin(["layoff", "swap", "discard"])).all()
    assert (pos[pos.down == 1].deficiency == 0).all() and (pos.live_outs <= pos.unseen).all()
    assert (pos.searched == 0).all() and (pos.candidates.map(len) == 0).all()     # no search bot
    assert pos.groupby("game").step.apply(lambda s: s.is_monotonic_increasing).all()
    assert not pos.duplicated(["game", "step"]).any()


@pytest.mark.slow
def test_a_search_bots_positions_hold_what_its_search_found(tmp_path):
    """A rollout seat's searched decisions carry every candidate: smart's choice first, the
    chosen action among them, each candidate's mean, samples, paired difference and error.
    (Slow: the engine with a search seat and the recorder compiles 4 minutes from a cold cache.)"""
    _run(tmp_path, games=4, positions=1.0, bots=("rollout:rollouts=2:race=4:candidates=3", "smart"),
         players=2, seed=3)
    pos = read_table(str(tmp_path), POSITIONS).to_pandas()
    s = pos[pos.searched > 0]
    assert len(s) > 5 and (s.bot.astype(str).str.startswith("rollout")).all()
    for _, r in s.iterrows():
        c = list(r.candidates)
        assert len(c) == r.searched >= 2
        assert c[0]["diff"] == 0.0 and all(x["samples"] >= 2 for x in c)
        assert (r.action, None if pd.isna(r.card) else r.card) in [(x["action"], x["card"]) for x in c]
    assert (pos[pos.searched == 0].candidates.map(len) == 0).all()


def test_features_read_the_seat_view_alone():
    """The features of the seat to act are the same after the other hands' hidden cards and
    the stock are dealt anew and every other random stream replaced (the seat view)."""
    rng = np.random.default_rng(11)
    checked = 0
    for seed in range(2):
        g = Game(rules="shanghai", players=4, seed=seed, bots="smart")
        while not g.over and checked < 300 * (seed + 1):
            want = seat_features(g)
            saved = _saved(g)
            _hidden_shuffled(g, g.to_act, rng)
            got = seat_features(g)
            _restore(g, saved)
            assert got == want
            checked += 1
            g.step()
    assert checked > 400


def test_features_of_a_known_position():
    """Hand-built: the seat's deficiency, points, jokers, live outs and the upcard's help, and
    the other seats' public state, as a card player would count them."""
    from test_bots_play import offer
    g, seats = offer("set3 set3", {"next": "7C 7D 9S 9H 4C 5D 8S TD JH QC KD"}, "7S")
    f = seat_features(g)
    assert g.to_act == seats["next"]
    assert f["deficiency"] == 2 and f["cards"] == 11 and f["upcard_helps"] == 1
    p = g.to_act
    assert f["hand_points"] == int(g.G.hands[p] @ g.R.points) == 5 * 7 + 10 * 4
    assert f["opp3_declined"] >= 1                   # the seat before it threw the 7S
    assert f["jokers"] == 0 and f["down"] == 0 and f["buys_left"] == 3
    assert len(f) == len(FEATURES) == len(FEATURE_NAMES)


def test_positions_are_part_of_the_dataset(tmp_path):
    """verify checks the positions parts and their rows in the manifest; --resume plays a
    missing one again (the same bytes), rebuilds a lost manifest with the rate, moves a stray
    to quarantine/; a job of another rate, or none, is another job; --overwrite clears them."""
    out = tmp_path / "d"
    _run(out, positions=0.1)
    first = _parts(out, POSITIONS)
    assert verify(str(out)).ok
    os.remove(out / POSITIONS / "part-00001.parquet")
    assert not verify(str(out)).ok
    runner.run(runner.plan(runner.job_for_resume(str(out), {})), resume=True, progress=None)
    assert _parts(out, POSITIONS) == first and verify(str(out)).ok
    os.remove(out / "manifest.json")
    job = runner.job_for_resume(str(out), {})
    assert job.positions == 0.1
    runner.run(runner.plan(job), resume=True, progress=None)
    assert verify(str(out)).ok and _parts(out, POSITIONS) == first
    (out / POSITIONS / "part-00099.parquet").write_bytes(b"x")
    runner.run(runner.plan(runner.job_for_resume(str(out), {})), resume=True, progress=None)
    assert (out / "quarantine" / POSITIONS / "part-00099.parquet").exists()
    for other in (None, 0.2):
        with pytest.raises(runner.JobError, match="positions"):
            _run(out, positions=other)
    m = json.loads((out / "manifest.json").read_text())
    m["rows"][POSITIONS] += 1
    (out / "manifest.json").write_text(json.dumps(m))
    assert any("rows" in f.reason for f in verify(str(out)).damaged)
    runner.run(runner.plan(runner.Job(games=60, out=str(out), threads=2)), overwrite=True, progress=None)
    assert not (out / POSITIONS).exists() and verify(str(out)).ok


def test_a_full_buffer_plays_the_game_again(monkeypatch):
    """Buffers too small for one game's positions are doubled and the game played again:
    the same rows as with room to spare."""
    from shanghai_sim.bots import parse_bots
    from shanghai_sim.kernels.base.records import NHF
    from shanghai_sim.rules import preset
    from shanghai_sim.runner import planning, positions
    r = preset("shanghai")
    kind, params = parse_bots(["greedy"] * 4, 4)
    seeds = runner.game_seeds(2, 0, 6)

    def play(rows):
        monkeypatch.setattr(positions, "FIRST_ROWS", rows)
        planning._WARM.po = None
        sp = positions.ShardPositions(0.5)
        out = np.zeros((len(seeds), r.hands, 4, NHF), np.int32)
        planning.play_games_warm(*r.arrays(4), kind, params, seeds, out, positions=sp)
        return sp.arrays()

    big, small = play(1 << 16), play(3)
    assert all(np.array_equal(a, b) for a, b in zip(big, small)) and len(big[0]) > 100


@pytest.mark.parametrize("rate", [0, -0.1, 1.5, float("nan"), float("inf"), True, "0.1"])
def test_a_bad_rate_is_refused(rate, tmp_path):
    with pytest.raises(runner.JobError, match="positions"):
        runner.Job(**runner.normalise({"positions": rate, "out": str(tmp_path)}))


def test_the_table_reads_in_pandas(tmp_path):
    """A pandas user's question: what does a deficiency cost at a turn of a hand?"""
    _run(tmp_path, positions=0.1)
    df = pd.read_parquet(tmp_path / POSITIONS)
    cost = df[df.down == 0].groupby(["hand", "deficiency"]).points.mean()
    assert len(cost) > 5 and pq.read_schema(tmp_path / POSITIONS / "part-00000.parquet").names == POSITIONS_SCHEMA.names


def test_the_dataset_doc_lists_every_feature():
    """docs/dataset.md's feature table is the kernel's (names, order and meanings)."""
    from shanghai_sim.kernels.base.positions import OPP_FIELDS, OWN
    doc = (Path(__file__).resolve().parent.parent / "docs" / "dataset.md").read_text()
    rows = [f"| `{n}` | {m} |" for n, m in OWN] + [f"| `oppK_{n}` | {m} |" for n, m in OPP_FIELDS]
    assert "\n".join(rows) in doc
