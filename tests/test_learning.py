"""The value model (``shanghai_sim.learning``, ``shanghai-sim train value``, docs/learning.md):
its terms against a plain Python statement of them, the numba evaluation against the
trainer's, training reproducible and held out by whole games, the shipped models for the
presets beating both baselines on their held-out games, and bad input refused in one line."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shanghai_sim import runner
from shanghai_sim.game import Game
from shanghai_sim.kernels.base.codes import PH_BUY, PH_DRAW, PH_FIRST, PH_PLAY
from shanghai_sim.kernels.base.positions import FEATURE_NAMES, NOPP, NOWN
from shanghai_sim.kernels.bots.value import (NDEF, NGLOBAL, NPER, NTERMS, NTURN, n_terms, value_nb,
                                             value_terms_nb)
from shanghai_sim.learning import (MODELS, ModelError, ValueModel, held_out, read_positions, seat_value,
                                   train_value, value_model)
from shanghai_sim.positions import seat_features
from shanghai_sim.rules import preset as load_rules

from cli.main import main

ROOT = Path(__file__).resolve().parents[1]
F = {n: i for i, n in enumerate(FEATURE_NAMES)}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("learning") / "pos"
    job = runner.Job(games=80, out=str(out), threads=2, positions=0.2)
    runner.run(runner.plan(job), progress=None)
    return str(out)


def _terms_reference(x, phase, nh):
    """The value model's terms as a card player reads them (kernels.bots.value's docstring),
    plainly: {weights' row: value}."""
    c = min(x[F["hands_played"]], nh - 1)
    down, d, turns = x[F["down"]], x[F["deficiency"]], x[F["own_turns"]]
    bucket = next((b for b, top in enumerate((1, 3, 5, 8, 12)) if turns <= top), 5)
    where = 0 if down else 1 + min(d, 7)
    opps = [{k: x[NOWN + j * NOPP + i] for i, k in enumerate(("cards", "down", "buys", "took"))}
            for j in range(x[F["players"]] - 1)]
    downs = [o["cards"] for o in opps if o["down"]]
    near = 1.0 if downs and min(downs) <= 2 else 0.0
    pts = x[F["hand_points"]] / 100
    t = {(c * NDEF + where) * NTURN + bucket: 1.0}
    per = [pts, pts * len(downs), pts * turns / 10, 0 if down else x[F["live_outs"]] / 10, x[F["cards"]] / 10,
           x[F["jokers"]], x[F["buys_left"]], d * turns / 20]
    for i, v in enumerate(per):
        t[nh * NDEF * NTURN + c * NPER + i] = v
    dead = 1.0 if not down and d > 0 and x[F["live_outs"]] == 0 else 0.0
    shared = [1, phase == PH_FIRST, phase == PH_BUY, phase == PH_DRAW, x[F["upcard_helps"]], dead,
              x[F["unseen"]] / 50, x[F["stock"]] / 50, x[F["pile"]] / 20, x[F["stock_passes"]], len(downs) / 3,
              (min(downs) if downs else 0) / 10, near, (min(o["cards"] for o in opps) if opps else 0) / 10,
              x[F["opp1_down"]], x[F["opp1_cards"]] / 10, sum(o["buys"] for o in opps) / 5,
              sum(o["took"] for o in opps) / 5, pts * near, pts * down, x[F["buys"]] / 3, x[F["players"]] / 4,
              (x[F["total"]] - x[F["best_other_total"]]) / 100, x[F["turn"]] / 40, down * x[F["cards"]] / 10,
              pts * min(d, 4) / 4]
    assert len(shared) == NGLOBAL
    for i, v in enumerate(shared):
        t[nh * (NDEF * NTURN + NPER) + i] = float(v)
    return t


def test_the_terms_are_the_documented_ones(dataset):
    """The terms of 2,000 recorded positions (the kernel's) equal the plain statement's."""
    P, m = read_positions(dataset)
    nh = len(m["rules"]["contracts"])
    idx = np.empty(NTERMS, np.int64)
    val = np.empty(NTERMS, np.float64)
    assert len(P.points) > 2000
    for r in range(2000):
        x = P.features[r].astype(np.int32)
        value_terms_nb(x, np.int64(P.phases[r]), nh, idx, val)
        got = {}
        for i, v in zip(idx, val):
            got[int(i)] = got.get(int(i), 0.0) + v
        want = _terms_reference([int(v) for v in x], int(P.phases[r]), nh)
        assert got.keys() == want.keys() and all(math.isclose(got[k], want[k], abs_tol=1e-12) for k in want), r


def test_training_is_reproducible_and_holds_out_whole_games(dataset):
    """The same dataset and seed give the same weights, bit for bit; the held-out rows are whole
    games (no game on both sides), about the share asked; another seed holds out others."""
    a, report = train_value(dataset, seed=3, holdout=0.25)
    b, _ = train_value(dataset, seed=3, holdout=0.25)
    assert np.array_equal(a.weights, b.weights) and a.model_id == b.model_id
    assert a.weights.shape == (n_terms(10), 2)
    P, _ = read_positions(dataset)
    test = held_out(P.game_seeds, 3, 0.25)
    assert not set(P.game_seeds[test]) & set(P.game_seeds[~test])
    assert 0.1 < len(set(P.game_seeds[test])) / len(set(P.game_seeds)) < 0.4
    assert report["rows"] == test.sum() and a.meta["fit"]["rows"] == (~test).sum()
    assert not np.array_equal(test, held_out(P.game_seeds, 4, 0.25))
    c, _ = train_value(dataset, seed=4, holdout=0.25)
    assert c.model_id != a.model_id
    for t in ("points", "went_out"):
        cal = report["targets"][t]["calibration"]
        assert sum(c["n"] for c in cal) == report["rows"]


def test_numba_and_the_trainer_agree_and_a_model_file_round_trips(dataset, tmp_path):
    """value_nb (what play calls) gives the trainer's predictions; a saved model loads the same."""
    model, _ = train_value(dataset)
    path = tmp_path / "v.npz"
    model.save(path)
    back = ValueModel.load(path)
    assert np.array_equal(back.weights, model.weights) and back.model_id == model.model_id
    assert back.meta["held_out"] == json.loads(json.dumps(model.meta["held_out"]))
    P, _ = read_positions(dataset)
    pred = model.predict(P.features[:300], P.phases[:300])
    idx = np.empty(NTERMS, np.int64)
    val = np.empty(NTERMS, np.float64)
    for r in range(300):
        p, o = value_nb(model.weights, P.features[r].astype(np.int32), np.int64(P.phases[r]), idx, val)
        assert math.isclose(p, pred[r, 0], rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(o, min(max(pred[r, 1], 0), 1), rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("preset", ["shanghai", "contract", "progressive"])
def test_the_shipped_model_is_for_its_preset_and_beats_both_baselines(preset):
    """The model shipped for a preset learned that preset's rules as they are today, from smart
    in every seat (the search's playout policy), and on its held-out games its squared error is
    below both baselines' with 95% confidence, for the points and for going out."""
    model = value_model(preset)
    assert model.meta["rules"] == load_rules(preset).to_dict()
    assert model.contracts == len(load_rules(preset).contracts)
    assert set(model.meta["trained_on"]["job"]["bots"]) == {"smart"}
    assert model.meta["trained_on"]["positions"] >= 1_000_000
    for t in model.meta["held_out"]["targets"].values():
        for base in ("contract_deficiency", "contract_deficiency_turns"):
            assert t["model"]["rmse"] < t[base]["rmse"] and t[base]["model_gain"]["lo"] > 0, (preset, base)


def test_the_model_card_quotes_the_shipped_models():
    """docs/learning.md's table of the shipped models is their metadata's figures."""
    text = (ROOT / "docs" / "learning.md").read_text()
    for path in sorted(MODELS.glob("value-*.npz")):
        m = ValueModel.load(path)
        p = m.meta["held_out"]["targets"]["points"]
        row = (f"| `{path.stem[len('value-'):]}` | `{m.model_id}` | {m.meta['trained_on']['games']:,} "
               f"| {m.meta['trained_on']['positions']:,} | {p['model']['rmse']:.2f} "
               f"| {p['contract_deficiency']['rmse']:.2f} | {p['contract_deficiency_turns']['rmse']:.2f} |")
        assert row in text, row


def test_seat_value_reads_the_seats_view_through_the_shipped_model():
    g = Game(rules="shanghai", players=4, seed=11, bots="smart")
    for _ in range(30):
        g.step()
    v = seat_value(g)
    model = value_model("shanghai")
    x = np.array([list(seat_features(g).values())], np.int16)
    phase = {"first_refusal": PH_FIRST, "buy": PH_BUY, "draw": PH_DRAW}.get(g.phase, PH_PLAY)
    want = model.predict(x, np.array([phase]))[0]
    assert math.isclose(v["points"], want[0], rel_tol=1e-9) and 0 <= v["went_out"] <= 1


def _cli(*args):
    return CliRunner().invoke(main, list(args))


def test_train_value_writes_the_model_and_its_report(dataset, tmp_path):
    out = tmp_path / "v.npz"
    r = _cli("train", "value", dataset, "--out", str(out), "--quiet")
    assert r.exit_code == 0, r.output
    model = ValueModel.load(out)
    assert f"value model {model.model_id}" in r.output
    assert "mean by contract, deficiency and turn bucket" in r.output
    r = _cli("train", "value", dataset, "--out", str(out), "--json", "--quiet", "--overwrite")
    assert r.exit_code == 0 and json.loads(r.output)["rows"] == model.meta["held_out"]["rows"]


def test_bad_input_is_one_line_and_writes_nothing(dataset, tmp_path):
    plain = tmp_path / "plain"
    runner.run(runner.plan(runner.Job(games=4, out=str(plain), threads=1)), progress=None)
    (tmp_path / "exists.npz").write_bytes(b"keep")
    cases = [
        ((str(plain), "--out", str(tmp_path / "a.npz")), "has no positions/ table"),
        ((str(tmp_path / "none"), "--out", str(tmp_path / "a.npz")), "no dataset there"),
        ((dataset, "--out", str(tmp_path / "exists.npz")), "--overwrite replaces it"),
        ((dataset, "--out", str(tmp_path)), "is a folder"),
        ((dataset, "--out", str(tmp_path / "no" / "a.npz")), "no folder"),
        ((dataset, "--out", str(tmp_path / "a.npz"), "--holdout", "1"), "above 0 and below 1"),
        ((dataset, "--out", str(tmp_path / "a.npz"), "--holdout", "0"), "above 0 and below 1"),
        ((dataset, "--out", str(tmp_path / "a.npz"), "--ridge", "-1"), "--ridge"),
        ((dataset, "--out", str(tmp_path / "a.npz"), "--ridge", "nan"), "--ridge"),
        ((dataset, "--out", str(tmp_path / "a.npz"), "--seed", "x"), "--seed"),
        ((dataset, "--out", "/proc/value.npz"), "cannot write in '/proc'"),
        ((dataset, "--out", str(tmp_path / ("v" * 300 + ".npz"))), "longer than 255 bytes"),
        ((dataset, "--out", str(tmp_path / ("v" * 300) / "a.npz")), "File name too long"),
    ]
    for args, words in cases:
        r = _cli("train", "value", *args)
        assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, (args, r.output)
    assert (tmp_path / "exists.npz").read_bytes() == b"keep"
    assert not (tmp_path / "a.npz").exists()
    cut = (MODELS / "value-shanghai.npz").read_bytes()[:600]        # a model file cut short
    for bad in (b"", b"not a zip", cut, None):
        f = tmp_path / "bad.npz"
        if bad is None:
            np.savez(f, weights=np.zeros((3, 2)), meta=np.array(json.dumps({"terms": 1, "contracts": 10})))
        else:
            f.write_bytes(bad)
        with pytest.raises(ModelError, match=re.escape(str(f))):
            ValueModel.load(f)
    with pytest.raises(ModelError, match="no value model ships for rules 'house'"):
        value_model("house")
