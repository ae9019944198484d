"""Paired experiments (issue 15, docs/experiments.md): CRN, duplicate seating, the
paired statistics, rounds to a target CI, resume and bad input.

The mechanics run on the runner tests' fake engine (``test_runner_support.FAKE``:
records from each game's seed, different per bot); one test plays the real engine.
"""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shanghai_sim import experiment as E
from shanghai_sim.kernels.base.rng import game_seed_nb
from shanghai_sim.stats import holm, paired_effect, t_p_value, t_quantile

from test_runner_support import FAKE, run_cli


def fake_run(out, **kw):
    kw.setdefault("baseline", "greedy")
    kw.setdefault("variants", ("greedy:buy=never",))
    if "target_ci" not in kw:
        kw.setdefault("games", 12)
    return E.run_experiment(E.Experiment(**kw), str(out), engine=FAKE, progress=None)


def arm_frame(out, i, table="games"):
    rec = json.loads((Path(out) / "experiment.json").read_text())
    return pd.read_parquet(Path(out) / rec["identity"]["arms"][i]["folder"] / table)


def fake_cli(*args):
    return run_cli("experiment", *args, engine=FAKE)


# ------------------------------------------------------------ the statistics

def test_t_quantiles_and_holm_match_the_tables():
    assert t_quantile(0.95, 10) == pytest.approx(2.228, abs=1e-3)
    assert t_quantile(0.95, 1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(0.95, 29) == pytest.approx(2.045, abs=1e-3)
    assert t_quantile(0.95, 10**6) == pytest.approx(1.95996, abs=1e-4)
    assert t_p_value(2.0, 5) == pytest.approx(0.10199, abs=1e-4)          # two-sided p of t=2, df=5
    assert holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])
    assert holm([0.01, float("nan"), 0.04]) == pytest.approx([0.02, None, 0.04])


def test_a_paired_effect_against_a_direct_computation():
    rng = np.random.default_rng(3)
    base = rng.normal(300, 60, 50)
    var = base + rng.normal(5, 10, 50)          # correlated: pairing helps
    e = paired_effect(var, base)
    d = var - base
    half = t_quantile(0.95, 49) * d.std(ddof=1) / math.sqrt(50)
    assert (e.mean, e.lo, e.hi, e.n) == pytest.approx((d.mean(), d.mean() - half, d.mean() + half, 50))
    assert e.variance_reduction == pytest.approx((var.var(ddof=1) + base.var(ddof=1)) / d.var(ddof=1))
    assert e.variance_reduction > 10


# ------------------------------------------------------------ design: CRN and duplicate seating

def test_every_arm_plays_the_same_deals_once_per_seat(tmp_path):
    fake_run(tmp_path, games=6, seed=5)
    frames = [arm_frame(tmp_path, i) for i in (0, 1)]
    for g in frames:
        assert sorted(set(g.game_seed.astype("uint64"))) == sorted(game_seed_nb(5, k) for k in range(6))
        focal = g[g.player == 0]
        assert len(focal) == 24
        assert focal.groupby("game_seed").seat.apply(sorted).tolist() == [[0, 1, 2, 3]] * 6
        assert (g[g.player == 0].bot.astype(str).nunique()) == 1
    assert set(frames[0][frames[0].player == 0].bot.astype(str)) == {"greedy"}
    assert set(frames[1][frames[1].player == 0].bot.astype(str)) == {"greedy:buy=never"}
    assert set(frames[1][frames[1].player != 0].bot.astype(str)) == {"greedy"}      # opponents: the baseline
    rec = json.loads((tmp_path / "experiment.json").read_text())
    assert rec["games"] == 6 and rec["status"] == "complete" and rec["seeds"]["seed"] == 5
    assert {"numpy", "numba", "pyarrow", "shanghai_sim"} <= set(rec["versions"])


def test_an_aa_experiment_gives_exactly_zero_with_a_zero_width_ci(tmp_path):
    r = fake_run(tmp_path, variants=("greedy",), games=10)
    effects = r.arms[1].effects
    for e in list(effects.values()) + list(r.arms[1].hand_effects.values()):
        assert e.mean == 0 and e.lo == 0 and e.hi == 0 and e.n == 10
    assert "exactly as the baseline" in r.arms[1].verdict
    assert r.arms[1].identical and "identical to the baseline" in r.arms[1].verdict


def test_a_variant_equal_to_the_baseline_is_named_so_never_a_finding(tmp_path):
    # contract's buy_penalty is already 1; greedy's buy policy is already useful
    r = fake_run(tmp_path, rules="contract", variants=(E.Arm("penalty 1", rules={"buy_penalty": 1}),
                                                       "greedy", E.Arm("penalty 2", rules={"buy_penalty": 2})))
    same1, same2, other = r.arms[1:]
    assert same1.identical and same2.identical and not other.identical
    for a in (same1, same2):
        assert "identical to the baseline" in a.verdict and "A/A check, not a finding" in a.verdict
        assert a.to_dict()["identical_to_baseline"] is True
    assert "identical" not in other.verdict and other.to_dict()["identical_to_baseline"] is False
    # the real bot registry's canonical spec (planning only: nothing is played)
    plans = E.plan_arms(E.Experiment(baseline="greedy", variants=("greedy:buy=useful", "greedy:buy=never")),
                        str(tmp_path / "p"), 4)
    assert any("identical to the baseline" in n for n in plans[1].notes)
    assert not any("identical" in n for n in plans[2].notes)


def test_the_cis_match_a_direct_pandas_computation(tmp_path):
    r = fake_run(tmp_path, games=30, variants=("greedy:buy=never", "random"), opponents="random")
    base = arm_frame(tmp_path, 0)
    for i, arm in ((1, r.arms[1]), (2, r.arms[2])):
        var = arm_frame(tmp_path, i)
        per = {}
        for name, g in (("b", base), ("v", var)):
            f = g[g.player == 0]
            per[name] = f.groupby("game_seed")[["points", "win_share", "rank"]].mean()
        d = per["v"] - per["b"]              # pairs by seed (the index)
        for m in ("points", "win_share", "rank"):
            x = d[m]
            half = t_quantile(0.95, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
            e = arm.effects[m]
            assert e.n == 30
            assert (e.mean, e.lo, e.hi) == pytest.approx((x.mean(), x.mean() - half, x.mean() + half))
            vr = (per["v"][m].var() + per["b"][m].var()) / x.var()
            assert e.variance_reduction == pytest.approx(vr)
        hb, hv = arm_frame(tmp_path, 0, "hands"), arm_frame(tmp_path, i, "hands")
        h8 = [h[(h.player == 0) & (h.hand == 8)].groupby("game_seed").points.mean() for h in (hb, hv)]
        assert arm.hand_effects[8].mean == pytest.approx((h8[1] - h8[0]).mean())
        ended = hv[hv.player == 0].ended.astype(str)
        assert arm.no_winner_hands == (ended == "stock").sum() and arm.turn_cap_hands == (ended == "turn_cap").sum()
    tidy = r.effects_frame()
    assert set(tidy.measure) == {"points", "win_share", "rank", "hand_points"}
    assert len(tidy) == 2 * (3 + 10)


# ------------------------------------------------------------ rounds to a target CI

def test_target_ci_stops_when_narrow_enough_or_at_the_cap(tmp_path):
    r = fake_run(tmp_path / "wide", target_ci=50.0, max_games=400)
    assert r.stopped.startswith("target reached") and r.games == E.PILOT_GAMES
    r = fake_run(tmp_path / "cap", target_ci=0.001, max_games=30)
    assert r.stopped.startswith("--max-games reached") and r.games == 30
    # two rounds: a pilot of 10, then sized from its variance, capped at 40
    from shanghai_sim.experiment import running     # where run_experiment reads it
    E_pilot, running.PILOT_GAMES = running.PILOT_GAMES, 10
    try:
        r = fake_run(tmp_path / "rounds", target_ci=0.5, max_games=40)
    finally:
        running.PILOT_GAMES = E_pilot
    rec = json.loads((tmp_path / "rounds" / "experiment.json").read_text())
    assert [x["games"] for x in rec["rounds"]][0] == 10 and rec["games"] == r.games
    assert r.arms[1].effects["points"].half_width <= 0.5 or r.games == 40
    out = fake_cli("--variant", "greedy:buy=never", "--target-ci", "1000", "--max-games", "8",
                   "--out", tmp_path / "cli", "--json", "-q")
    assert out.exit_code == 0, out.output
    assert "target reached" in json.loads(out.stdout)["stopped"]


# ------------------------------------------------------------ resume

def test_resume_extends_and_repairs_to_the_rows_of_a_fresh_run(tmp_path):
    fake_run(tmp_path / "fresh", games=16)
    fake_run(tmp_path / "grown", games=8)
    out = fake_cli("--variant", "greedy:buy=never", "--games", 16, "--out", tmp_path / "grown", "-q")
    assert out.exit_code == 2 and "add --resume" in out.output and len(out.output.strip().splitlines()) == 1
    parts = sorted((tmp_path / "grown" / "arms").glob("1-*/games/part-*.parquet"))
    parts[0].unlink()                                   # damage: a part lost
    r = E.run_experiment(E.Experiment(variants=("greedy:buy=never",), games=16), str(tmp_path / "grown"),
                         engine=FAKE, progress=None, resume=True)
    fresh = E.analyse(str(tmp_path / "fresh"))
    assert r.to_dict()["arms"][1]["effects"] == fresh.to_dict()["arms"][1]["effects"]
    for i in (0, 1):
        pd.testing.assert_frame_equal(arm_frame(tmp_path / "grown", i), arm_frame(tmp_path / "fresh", i))
    # --resume alone continues (here: extends) the experiment recorded in the folder
    more = fake_cli("--resume", "--games", 20, "--out", tmp_path / "grown", "--json", "-q")
    assert more.exit_code == 0, more.output
    assert json.loads(more.stdout)["games"] == 20
    fake_run(tmp_path / "fresh20", games=20)
    pd.testing.assert_frame_equal(arm_frame(tmp_path / "grown", 1), arm_frame(tmp_path / "fresh20", 1))
    out = fake_cli("--resume", "--out", tmp_path / "nothing")
    assert out.exit_code == 2 and "no experiment to resume" in out.output
    fake_run(tmp_path / "grown2", games=16)
    # the same experiment asked again: nothing to play, the same answer
    again = fake_cli("--variant", "greedy:buy=never", "--games", 16, "--out", tmp_path / "grown2", "--json", "-q")
    assert again.exit_code == 0 and json.loads(again.stdout)["arms"] == r.to_dict()["arms"]


def test_a_crashed_experiment_is_refused_until_resumed_then_equals_a_fresh_one(tmp_path):
    from shanghai_sim.runner import Engine

    def crashing(*args):
        bot_kind, seeds = args[-4], args[-2]
        if len(seeds) and (bot_kind == 2).any():         # the variant arm's focal bot
            raise RuntimeError("power cut")
        return FAKE.play_games(*args)

    with pytest.raises(RuntimeError, match="power cut"):
        E.run_experiment(E.Experiment(variants=("greedy:buy=never",), games=8, threads=1), str(tmp_path / "o"),
                         engine=Engine(crashing, FAKE.parse_bots, FAKE.bot_name), progress=None)
    assert json.loads((tmp_path / "o" / "experiment.json").read_text())["status"] == "running"
    out = fake_cli("--variant", "greedy:buy=never", "--games", 8, "--out", tmp_path / "o")
    assert out.exit_code == 2 and "unfinished: add --resume" in out.output
    done = fake_cli("--resume", "--out", tmp_path / "o", "--json", "-q")
    assert done.exit_code == 0, done.output
    fake_run(tmp_path / "fresh", games=8)
    assert json.loads(done.stdout)["arms"] == E.analyse(str(tmp_path / "fresh")).to_dict()["arms"]


# ------------------------------------------------------------ the command

def test_json_has_the_documented_shape(tmp_path):
    out = fake_cli("--baseline", "greedy", "--variant", "greedy:buy=never", "--games", 6,
                   "--out", tmp_path, "--json", "-q")
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    base, var = d["arms"]
    assert base["name"] == "baseline" and base["effects"] is None and base["games"] == 6
    assert set(var) >= {"name", "spec", "games", "effects", "no_winner_hands", "turn_cap_hands"}
    eff = var["effects"]
    assert set(eff) == {"points", "win_share", "rank", "hand_points"}
    assert list(eff["hand_points"]) == [str(h) for h in range(1, 11)]
    assert set(eff["points"]) >= {"mean", "ci", "n", "variance_reduction", "p_holm"}
    assert 0 <= base["no_winner_hands"] <= base["hands_played"] == 6 * 4 * 10
    assert "Holm" in d["multiplicity"] and var["verdict"]


def test_rules_arms_from_a_file(tmp_path):
    f = tmp_path / "arms.toml"
    f.write_text("[penalty1]\nbuy_penalty = 1\n\n[fewer_buys]\nbuys_per_hand = 1\n")
    out = fake_cli("--variant-rules", f, "--games", 4, "--out", tmp_path / "o", "--json", "-q")
    assert out.exit_code == 0, out.output
    arms = json.loads(out.stdout)["arms"]
    assert [a["name"] for a in arms] == ["baseline", "penalty1", "fewer_buys"]
    assert arms[1]["spec"] == "greedy" and "buy_penalty=1" in arms[1]["rules"]


BAD = [
    (["--variant", "nosuchbot"], "unknown bot"),
    (["--variant", "greedy,random"], "one spec"),
    (["--variant", "greedy", "--target-ci", "1"], "needs a cap"),
    (["--variant", "greedy", "--games", "10", "--target-ci", "1", "--max-games", "50"], "not both"),
    (["--variant", "greedy", "--hand", "11"], "hands 1..10"),
    (["--games", "10"], "no variant"),
    (["--variant", "greedy", "--variant", "greedy"], "named 'greedy'"),
]


@pytest.mark.parametrize("args,words", BAD)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    out = fake_cli(*args, "--out", tmp_path / "o")
    assert out.exit_code == 2, out.output
    assert words in out.output and len(out.output.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()                # refused before anything was written


def test_arms_that_cannot_pair_are_refused(tmp_path):
    f = tmp_path / "players.toml"
    f.write_text("[five]\nplayers = 5\n")
    out = fake_cli("--variant-rules", f, "--out", tmp_path / "o")
    assert out.exit_code == 2 and "cannot differ between arms" in out.output
    exp = tmp_path / "exp.toml"
    exp.write_text('baseline = "greedy"\n[[variants]]\nname = "both"\nbot = "random"\nrules = { buy_penalty = 1 }\n')
    out = fake_cli(exp, "--out", tmp_path / "o")
    assert out.exit_code == 2 and "both the focal bot and the rules" in out.output
    assert not (tmp_path / "o").exists()


def test_an_output_folder_holding_another_experiment_is_left_alone(tmp_path):
    fake_run(tmp_path / "o", games=6)
    before = {p: p.read_bytes() for p in (tmp_path / "o").rglob("*") if p.is_file()}
    for args in (["--variant", "random"], ["--variant", "greedy:buy=never", "--seed", "2"],
                 ["--variant", "greedy:buy=never", "--opponents", "random"]):
        out = fake_cli(*args, "--games", 6, "--out", tmp_path / "o")
        assert out.exit_code == 2 and "holds another experiment" in out.output, out.output
        assert len(out.output.strip().splitlines()) == 1
    assert {p: p.read_bytes() for p in (tmp_path / "o").rglob("*") if p.is_file()} == before
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "notes.txt").write_text("mine")
    out = fake_cli("--variant", "random", "--out", tmp_path / "x")
    assert out.exit_code == 2 and "holds no experiment" in out.output
    assert (tmp_path / "x" / "notes.txt").read_text() == "mine"


def test_another_experiment_is_named_in_words_and_overwrite_replaces_it(tmp_path):
    """Following the docs in one folder (issue 60): the default output already holds another
    experiment. The refusal says what differs in words (never Python's None) and how to go on;
    --overwrite replaces it with exactly what a fresh folder gets."""
    o = tmp_path / "o"
    fake_run(o, games=6)                                          # whole games, greedy:buy=never
    r = fake_cli("--variant", "greedy:buy=never", "--hand", 8, "--games", 6, "--out", o)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert "hand: whole games there, hand 8 only asked" in r.output and "None" not in r.output
    assert "or add --overwrite to replace it" in r.output
    for args, words in ((["--resume", "--overwrite"], "give one"),
                        (["--variant", "random", "--games", 6, "--resume", "--overwrite"], "give one")):
        r = fake_cli(*args, "--out", o)
        assert r.exit_code == 2 and words in r.output, r.output
    old_arm = json.loads((o / "experiment.json").read_text())["identity"]["arms"][1]["folder"]
    r = fake_cli("--variant", "random", "--games", 8, "--overwrite", "--out", o, "--json", "-q")
    assert r.exit_code == 0, r.output
    rec = json.loads((o / "experiment.json").read_text())
    assert [a["focal"] for a in rec["identity"]["arms"]] == ["greedy", "random"] and rec["games"] == 8
    assert not (o / old_arm).exists()                             # nothing of the old one is left
    assert sorted(p.name for p in (o / "arms").iterdir()) == ["0-baseline", "1-random"]
    fresh = fake_cli("--variant", "random", "--games", 8, "--out", tmp_path / "fresh", "--json", "-q")
    got, want = json.loads(r.output), json.loads(fresh.output)
    got.pop("out"), want.pop("out")
    assert got == want
    # an arm another run is writing is not deleted from under it
    from shanghai_sim.dataset import Store
    from shanghai_sim.runner import OutputLock
    held = OutputLock(Store(str(o / "arms" / "1-random"))).acquire()
    try:
        r = fake_cli("--variant", "greedy:buy=never", "--games", 8, "--overwrite", "--out", o, "-q")
        assert r.exit_code == 2 and "being written by another run" in r.output, r.output
        assert (o / "arms" / "1-random" / "manifest.json").exists()
    finally:
        held.release()
    # --overwrite on the same experiment starts it again; on a folder of something else, refused
    assert fake_cli("--variant", "random", "--games", 8, "--overwrite", "--out", o, "-q").exit_code == 0
    (o / "notes.txt").write_text("mine")
    r = fake_cli("--variant", "random", "--games", 8, "--overwrite", "--out", o, "-q")
    assert r.exit_code == 2 and "'notes.txt', which is not part of an experiment" in r.output, r.output
    assert (o / "notes.txt").read_text() == "mine" and (o / "experiment.json").exists()
    run = tmp_path / "run"
    assert run_cli("run", "--bots", "greedy,random", "--games", 4, "--out", run, "-q", engine=FAKE).exit_code == 0
    r = fake_cli("--variant", "random", "--overwrite", "--out", run, "-q")
    assert r.exit_code == 2 and "holds no experiment" in r.output
    assert (run / "manifest.json").exists()


def test_an_experiment_of_another_version_says_so_without_none(tmp_path):
    o = tmp_path / "o"
    fake_run(o, games=6)
    rec = json.loads((o / "experiment.json").read_text())
    rec.pop("package_version")
    (o / "experiment.json").write_text(json.dumps(rec))
    r = fake_cli("--variant", "greedy:buy=never", "--games", 6, "--out", o)
    assert r.exit_code == 2 and "did not record its version" in r.output and "None" not in r.output, r.output
    assert "--overwrite" in r.output


# ------------------------------------------------------------ hand-level mode

def test_one_hand_specs_and_rules():
    assert E.one_hand_spec("greedy:buy8=never:buy3=always:maxbuys=1", 8) == \
        ("greedy:buy1=never:maxbuys=1", ["buy3=always"])
    from shanghai_sim.rules import preset
    r = E.one_hand_rules(preset("shanghai"), 8)
    full = preset("shanghai")
    assert r.hands == 1 and r.contracts[0] == full.contracts[7] and r.buys_per_hand == (full.buys_per_hand[7],)


def test_the_real_engine_pairs_deals_and_plays_one_hand(tmp_path):
    # Whole games: hands the change cannot touch (a buy8 knob in hands 1-7) cancel exactly.
    r = E.run_experiment(E.Experiment(variants=("greedy:buy8=never", "greedy"), games=8, threads=2),
                         str(tmp_path / "game"), progress=None)
    never8, aa = r.arms[1], r.arms[2]
    for h in range(1, 8):
        e = never8.hand_effects[h]
        assert e.mean == 0 and e.lo == e.hi == 0
    assert all(e.mean == 0 and e.lo == e.hi == 0 for e in list(aa.effects.values()) + list(aa.hand_effects.values()))
    g = arm_frame(tmp_path / "game", 1)
    assert g[g.player == 0].groupby("game_seed").seat.nunique().eq(4).all()
    # Hand-level: buy8= is the knob of the one hand played; buy3= does nothing there.
    r = E.run_experiment(E.Experiment(variants=("greedy:buy8=never", "greedy:buy3=never"), games=20, hand=8,
                                      threads=2), str(tmp_path / "hand"), progress=None)
    rec = json.loads((tmp_path / "hand" / "experiment.json").read_text())
    assert rec["identity"]["arms"][1]["lineup"][0] == "greedy:buy1=never"
    assert len(rec["identity"]["arms"][1]["rules"]["contracts"]) == 1
    assert set(r.to_dict()["arms"][1]["effects"]) == {"points", "went_out", "hand_points"}
    assert r.arms[1].effects["points"].mean != 0
    e = r.arms[2].effects["points"]
    assert e.mean == 0 and e.lo == e.hi == 0
    with pytest.raises(E.ExperimentError, match="hand numbers are 1..10"):
        E.plan_arms(E.Experiment(variants=("greedy:buy11=never",), hand=8), str(tmp_path / "x"), 4)
    h = arm_frame(tmp_path / "hand", 0, "hands")
    assert set(h.hand) == {1} and h.groupby("game_seed").size().eq(16).all()
