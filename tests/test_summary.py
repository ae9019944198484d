"""`shanghai-sim summary OUT`: per seat / per bot points and win share with 95% CIs, hand stats."""

import json
import math

import numpy as np
import pytest

from shanghai_sim import runner
from shanghai_sim.summary import format_summary, summarize

from test_runner_support import ENGINE, read, run_cli

BOTS = ("random", "greedy", "greedy", "greedy")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("summary") / "out"
    job = runner.Job(out=str(out), bots=BOTS, games=200, shard_size=60)
    runner.run(runner.plan(job, ENGINE), progress=None, engine=ENGINE)
    return out


def _mean_ci(x):
    x = np.asarray(x, dtype=float)
    return x.mean(), 1.959963984540054 * x.std(ddof=1) / math.sqrt(len(x))


def test_per_seat_numbers_match_a_direct_computation(dataset):
    s = summarize(str(dataset))
    g = read(dataset, "games")
    assert s["games"] == 200 and s["status"] == "complete" and s["players"] == 4
    for seat in range(4):
        rows = g[g.seat == seat]
        m, c = _mean_ci(rows.points)
        assert s["seats"][seat]["games"] == 200
        assert s["seats"][seat]["points"]["mean"] == pytest.approx(m)
        assert s["seats"][seat]["points"]["ci95"] == pytest.approx(c)
        m, c = _mean_ci(rows.win_share)
        assert s["seats"][seat]["win_share"]["mean"] == pytest.approx(m, abs=1e-6)
        assert s["seats"][seat]["win_share"]["ci95"] == pytest.approx(c, abs=1e-6)


def test_a_bot_in_several_seats_counts_once_per_game(dataset):
    s = summarize(str(dataset))
    g = read(dataset, "games")
    per_game = g[g.bot == "greedy"].groupby("game").win_share.mean()
    m, c = _mean_ci(per_game)
    assert s["bots"]["greedy"]["games"] == 200
    assert s["bots"]["greedy"]["win_share"]["mean"] == pytest.approx(m, abs=1e-6)
    assert s["bots"]["greedy"]["win_share"]["ci95"] == pytest.approx(c, abs=1e-6)
    # the win shares of the line-up add up to one game's worth
    assert s["bots"]["random"]["win_share"]["mean"] + 3 * m == pytest.approx(1.0, abs=1e-5)


def test_hand_length_and_buys(dataset):
    s = summarize(str(dataset))
    h = read(dataset, "hands")
    per_hand = h.groupby(["game", "hand"])[["turns", "buys"]].sum()
    per_game = per_hand.groupby(level="game").mean()
    assert s["hands"]["hands"] == 2000
    assert s["hands"]["hand_length_turns"]["mean"] == pytest.approx(per_hand.turns.mean())
    assert s["hands"]["hand_length_turns"]["ci95"] == pytest.approx(_mean_ci(per_game.turns)[1])
    assert s["hands"]["buys_per_hand"]["mean"] == pytest.approx(per_hand.buys.mean())


def test_summary_command_text_and_json(dataset):
    r = run_cli("summary", dataset)
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert "200 games" in text and "seat 3" in text and "bot greedy" in text and "±" in text
    assert "mean hand length" in text and "buys per hand" in text
    r = run_cli("summary", dataset, "--json")
    assert json.loads(r.stdout)["games"] == 200


def test_summary_of_a_games_only_dataset_and_of_nothing(tmp_path):
    out = tmp_path / "g"
    runner.run(runner.plan(runner.Job(out=str(out), games=20, detail="games"), ENGINE),
               progress=None, engine=ENGINE)
    s = summarize(str(out))
    assert "hands" not in s and "not recorded" in format_summary(s)
    r = run_cli("summary", tmp_path / "nothing")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and "does not exist" in r.output
    # a file (README.md): not a dataset folder, and never a suggestion to write a dataset into it
    (tmp_path / "README.md").write_text("# notes\n")
    r = run_cli("summary", tmp_path / "README.md")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert "is a file, not a dataset folder" in r.output and "--out" not in r.output.split(";")[0]
    assert f"run --out {tmp_path / 'README.md'}" not in r.output
    assert (tmp_path / "README.md").read_text() == "# notes\n"
    # an experiment's folder: its arms are the datasets, named with the command that reads one
    from shanghai_sim import experiment as E
    from test_runner_support import FAKE
    E.run_experiment(E.Experiment(variants=("greedy:buy=never",), games=4), str(tmp_path / "exp"),
                     engine=FAKE, progress=None)
    r = run_cli("summary", tmp_path / "exp")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert f"summary {tmp_path / 'exp'}/arms/0-baseline" in r.output and "experiment --resume" in r.output
    (tmp_path / "empty").mkdir()
    r = run_cli("summary", tmp_path / "empty")
    assert r.exit_code == 2 and "no manifest.json" in r.output


def test_the_fast_path_and_the_general_path_agree(dataset):
    """Rows not in runner order (players unknown) are grouped instead of reshaped: same figures."""
    from shanghai_sim.integrity import read_table
    from shanghai_sim.summary import Moments, _add_games, _add_hands
    fast, slow = ({}, {}), ({}, {})
    g = read_table(str(dataset), "games", ["game", "seat", "bot", "points", "win_share"])
    assert _add_games(g, 4, *fast) == _add_games(g, None, *slow) == 200
    assert {k: v.as_dict() for k, v in fast[0].items()} == {k: v.as_dict() for k, v in slow[0].items()}
    for k, v in fast[1].items():
        assert v.points.mean == pytest.approx(slow[1][k].points.mean)
        assert v.win_share.ci == pytest.approx(slow[1][k].win_share.ci)
    h = read_table(str(dataset), "hands", ["game", "hand", "seat", "turns", "buys"])
    a, b = (Moments(), Moments()), (Moments(), Moments())
    assert _add_hands(h, 4, 10, *a) == _add_hands(h, None, None, *b) == 2000
    assert a[0].mean == pytest.approx(b[0].mean) and a[1].ci == pytest.approx(b[1].ci)


def test_by_hand_matches_a_direct_computation(dataset):
    """Per hand and bot: points, down and out shares, buys (game = unit); per hand: endings."""
    s = summarize(str(dataset))
    h = read(dataset, "hands")
    assert [row["hand"] for row in s["by_hand"]] == list(range(1, 11))
    assert s["by_hand"][7]["contract"] == "set3 run10"
    for row in s["by_hand"]:
        rows = h[h.hand == row["hand"]]
        ends = rows.drop_duplicates("game").ended.astype(str).value_counts()
        assert row["hands"] == 200 and row["out"] == ends.get("out", 0)
        assert row["stock"] == ends.get("stock", 0) and row["turn_cap"] == ends.get("turn_cap", 0)
        for bot in ("random", "greedy"):
            b = rows[rows.bot == bot]
            per_game = b.groupby("game").agg(points=("points", "mean"), out=("went_out", "mean"),
                                             down=("down_turn", lambda x: x.notna().mean()),
                                             buys=("buys", "mean"))
            d = row["bots"][bot]
            m, c = _mean_ci(per_game.points)
            assert d["points"]["n"] == 200
            assert d["points"]["mean"] == pytest.approx(m, abs=1e-6)
            assert d["points"]["ci95"] == pytest.approx(c, abs=1e-6)
            assert d["out"]["mean"] == pytest.approx(per_game.out.mean(), abs=1e-6)
            assert d["down"]["mean"] == pytest.approx(per_game.down.mean(), abs=1e-6)
            assert d["buys"]["mean"] == pytest.approx(per_game.buys.mean(), abs=1e-6)


def test_by_hand_table_and_the_all_seats_note(dataset, tmp_path):
    r = run_cli("summary", dataset, "--by-hand")
    assert r.exit_code == 0, r.output
    table = r.stdout.split("no one out", 1)[1]
    assert "set3 run10" in table and "greedy" in table and "random" in table
    # one bot in every seat: its win share is 1/players by construction, said so, no "± 0.000"
    out = tmp_path / "same"
    runner.run(runner.plan(runner.Job(out=str(out), games=30), ENGINE), progress=None, engine=ENGINE)
    r = run_cli("summary", out)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("bot greedy")][0]
    assert "0.250 (every seat)" in line and "± 0.000" not in r.stdout
    assert "by construction" in " ".join(r.stdout.split())
    # a mixed line-up keeps its CIs
    r = run_cli("summary", dataset)
    assert "(every seat)" not in r.stdout and "--by-hand" in r.stdout


def test_a_narrow_interval_prints_with_a_significant_digit():
    from shanghai_sim.summary import _pm
    assert _pm({"mean": 0.0012, "ci95": 0.0004}, 3) == "0.0012 ± 0.0004"
    assert _pm({"mean": 0.001, "ci95": 0.00004}, 3) == "0.00100 ± 0.00004"
    assert _pm({"mean": 0.264, "ci95": 0.027}, 3) == "0.264 ± 0.027"       # as before
    assert _pm({"mean": 0.0, "ci95": 0.0}, 3) == "0.000 ± 0.000"           # never won: exact
    assert _pm({"mean": 276.5, "ci95": 3.8}, 1) == "276.5 ± 3.8"
