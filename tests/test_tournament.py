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
from shanghai_sim.kernels.base.rng import game_seed_nb

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


# ------------------------------------------------------------ the analysis

from shanghai_sim import tournament as T                      # noqa: E402
from shanghai_sim.runner import Engine                          # noqa: E402
from shanghai_sim.stats import t_quantile                       # noqa: E402
from test_runner_support import fake_bot_name, fake_parse_bots, fake_play_games, run_cli   # noqa: E402


def fake_tournament(out, bots, deals=12, engine=FAKE, resume=False, **kw):
    return T.run_tournament(T.Tournament(tuple(bots), deals=deals, **kw), str(out), resume=resume,
                            engine=engine, progress=None)


TWIN_SPEC = "greedy:maxbuys=9"


def _twin_name(spec):
    return TWIN_SPEC if spec.strip().lower() == TWIN_SPEC else fake_bot_name(spec)


def _twin_parse(specs, players):
    return fake_parse_bots(["greedy" if s == TWIN_SPEC else s for s in specs], players)


# On this engine TWIN_SPEC plays as greedy (the same kernel and parameters) under another spec
TWIN = Engine(fake_play_games, _twin_parse, _twin_name)


def test_bots_that_play_alike_differ_by_exactly_zero(tmp_path):
    r = fake_tournament(tmp_path, ("greedy", TWIN_SPEC, "greedy", "greedy"), deals=15, engine=TWIN)
    twin = r.bots[1]
    assert twin.bot == TWIN_SPEC and twin.seats == 1 and r.bots[0].seats == 3
    for e in twin.effects.values():
        assert e.mean == 0 and e.lo == 0 and e.hi == 0 and e.n == 15
    assert "exactly as greedy" in twin.verdict
    assert twin.figures["win_share"].mean == pytest.approx(0.25)      # four seats alike: par


def test_the_figures_match_a_direct_pandas_computation(tmp_path):
    lineup = (A, B, C, B)
    r = fake_tournament(tmp_path, lineup, deals=30, seed=4)
    g, h = read(tmp_path, "games"), read(tmp_path, "hands")
    k = 12
    g["deal"], h["deal"] = g.game.astype(int) // k, h.game.astype(int) // k
    per = g.groupby(["deal", g.bot.astype(str)])[["points", "win_share"]].mean().unstack()
    wo = h.groupby(["deal", h.bot.astype(str)]).went_out.mean().unstack()
    assert [b.bot for b in r.bots] == [A, B, C] and [b.seats for b in r.bots] == [1, 2, 1]
    for b in r.bots:
        for m, col in (("points", per["points"][b.bot]), ("win_share", per["win_share"][b.bot]),
                       ("went_out", wo[b.bot])):
            half = t_quantile(0.95, 29) * col.std(ddof=1) / math.sqrt(30)
            e = b.figures[m]
            assert (e.mean, e.lo, e.hi, e.n) == pytest.approx((col.mean(), col.mean() - half, col.mean() + half, 30))
            if b.effects is not None:
                ref = {"points": per["points"][A], "win_share": per["win_share"][A], "went_out": wo[A]}[m]
                x = col - ref
                half = t_quantile(0.95, 29) * x.std(ddof=1) / math.sqrt(30)
                e = b.effects[m]
                assert (e.mean, e.lo, e.hi) == pytest.approx((x.mean(), x.mean() - half, x.mean() + half))
    assert (per["win_share"][A] + 2 * per["win_share"][B] + per["win_share"][C]).round(12).eq(1).all()
    first = h[h.player == 0].ended.astype(str)
    assert r.hands_played == 30 * k * 10 == len(first)
    assert (r.no_winner_hands, r.turn_cap_hands) == ((first == "stock").sum(), (first == "turn_cap").sum())
    # Holm over the bots' point differences
    from shanghai_sim.stats import holm
    assert [b.p_holm["points"] for b in r.bots[1:]] == holm([b.effects["points"].p for b in r.bots[1:]])
    tidy = r.frame()
    assert list(tidy.bot) == [A, B, C] and tidy.d_points.isna().tolist() == [True, False, False]
    rec = json.loads((tmp_path / "tournament.json").read_text())
    assert rec["result"]["design"]["seatings"] == runner.tournament_seatings(lineup).tolist()
    assert rec["request"]["seed"] == 4 and rec["package_version"] and "numba" in rec["versions"]
    assert rec["result"]["bots"][1]["against_first"]["points"]["p_holm"] is not None
    assert "multiplicity" in r.text() and "Holm" in r.text()


def test_results_do_not_depend_on_threads(tmp_path):
    a = fake_tournament(tmp_path / "a", (A, B, B, B), deals=10, threads=1).to_dict()
    b = fake_tournament(tmp_path / "b", (A, B, B, B), deals=10, threads=2).to_dict()
    a.pop("out"), b.pop("out")
    assert a == b


def test_resume_finishes_and_extends_to_the_same_result(tmp_path):
    lineup = (A, B, B, C)
    fresh = fake_tournament(tmp_path / "fresh", lineup, deals=20).to_dict()
    # extend 10 deals to 20: the 10 deals played are kept
    out = tmp_path / "grow"
    fake_tournament(out, lineup, deals=10)
    with pytest.raises(T.TournamentError, match="add --resume to extend"):
        fake_tournament(out, lineup, deals=20)
    r = run_cli("tournament", "--resume", "--deals", 20, "--out", out, "-q", "--json", engine=FAKE)
    assert r.exit_code == 0, r.output
    grown = json.loads(r.output)
    # an interrupted run: a part missing, the manifest says so
    m = json.loads((out / "manifest.json").read_text())
    m["status"] = "interrupted"
    (out / "manifest.json").write_text(json.dumps(m))
    next((out / "games").glob("part-*.parquet")).unlink()
    with pytest.raises(T.TournamentError, match="unfinished: add --resume"):
        fake_tournament(out, lineup, deals=20)
    again = fake_tournament(out, lineup, deals=20, resume=True).to_dict()
    for d in (fresh, grown, again):
        d.pop("out")
        d["design"].pop("status")
    assert fresh == grown == again


def test_bad_input_is_one_line_and_loses_nothing(tmp_path):
    def cli(*args):
        return run_cli("tournament", *args, "-q", engine=FAKE)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    cases = [(("--bots", "greedy", "--out", tmp_path / "a"), "one bot"),
             (("--bots", "greedy,nonsense", "--out", tmp_path / "a"), "unknown bot"),
             (("--bots", "greedy,random", "--players", 4, "--out", tmp_path / "a"), "one spec per seat"),
             (("--bots", "greedy,greedy,greedy", "--out", tmp_path / "a"), "one distinct bot"),
             (("--deals", 5, "--out", tmp_path / "a"), "give --bots"),
             (("--bots", "greedy,random", "--out", other), "holds no tournament")]
    for args, msg in cases:
        r = cli(*args)
        assert r.exit_code == 2 and msg in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert (other / "notes.txt").read_text() == "mine" and sorted(p.name for p in other.iterdir()) == ["notes.txt"]
    assert not (tmp_path / "a").exists()
    run = tmp_path / "run"
    assert run_cli("run", "--bots", "greedy,random", "--games", 10, "--out", run, "-q", engine=FAKE).exit_code == 0
    before = sorted(p.name for p in run.rglob("*"))
    r = cli("--bots", "greedy,random", "--out", run)
    assert r.exit_code == 2 and "not a tournament" in r.output
    assert sorted(p.name for p in run.rglob("*")) == before
    fake_tournament(tmp_path / "t", (A, B), deals=4)
    r = cli("--bots", "greedy,greedy:buy=never", "--deals", 4, "--out", tmp_path / "t")
    assert r.exit_code == 2 and "another tournament" in r.output


def test_overwrite_replaces_another_tournament_or_a_run_and_nothing_else(tmp_path):
    """Following the docs in one folder (issue 60): the default output already holds another
    tournament; the refusal names --overwrite, which replaces it with what a fresh folder gets."""
    def cli(*args):
        return run_cli("tournament", *args, "-q", engine=FAKE)
    o = tmp_path / "o"
    fake_tournament(o, (A, B, B, B), deals=6)
    r = cli("--bots", "greedy,random,random,random", "--deals", 6, "--out", o)
    assert r.exit_code == 2 and "holds another tournament (bots: " in r.output, r.output
    assert "or add --overwrite to replace it" in r.output and "None" not in r.output
    r = cli("--bots", "greedy,random", "--resume", "--overwrite", "--out", o)
    assert r.exit_code == 2 and "give one" in r.output
    r = cli("--bots", "greedy,random,random,random", "--deals", 8, "--overwrite", "--out", o, "--json")
    assert r.exit_code == 0, r.output
    fresh = cli("--bots", "greedy,random,random,random", "--deals", 8, "--out", tmp_path / "fresh", "--json")
    got, want = json.loads(r.output), json.loads(fresh.output)
    got.pop("out"), want.pop("out")
    assert got == want
    rec = json.loads((o / "tournament.json").read_text())
    assert rec["request"]["bots"] == ["greedy", "random", "random", "random"] and rec["request"]["deals"] == 8
    from shanghai_sim.dataset import Store
    held = runner.OutputLock(Store(str(o))).acquire()       # another run writing: nothing is touched
    try:
        r = cli("--bots", "greedy,random", "--deals", 4, "--overwrite", "--out", o)
        assert r.exit_code == 2 and "being written by another run" in r.output, r.output
        assert json.loads((o / "tournament.json").read_text()) == rec
    finally:
        held.release()
    assert read(o, "games").equals(read(tmp_path / "fresh", "games"))
    # a `run` dataset: refused with the hint, replaced with --overwrite
    run = tmp_path / "run"
    assert run_cli("run", "--bots", "greedy,random", "--games", 10, "--out", run, "-q", engine=FAKE).exit_code == 0
    r = cli("--bots", "greedy,random", "--deals", 4, "--out", run)
    assert r.exit_code == 2 and "not a tournament" in r.output and "--overwrite" in r.output
    assert cli("--bots", "greedy,random", "--deals", 4, "--out", run, "--overwrite").exit_code == 0
    assert json.loads((run / "manifest.json").read_text())["job"]["seating"] == "tournament"
    # anything else in the folder: refused, even with --overwrite, and left as it was
    (o / "notes.txt").write_text("mine")
    r = cli("--bots", "greedy,random", "--deals", 4, "--out", o, "--overwrite")
    assert r.exit_code == 2 and "'notes.txt', which is not part of a dataset" in r.output, r.output
    assert (o / "notes.txt").read_text() == "mine" and (o / "tournament.json").exists()


def test_a_real_tournament_buy_never_against_three_greedy(tmp_path):
    r = run_cli("tournament", "--bots", "greedy:buy=never,greedy,greedy,greedy", "--deals", 50,
                "--threads", 2, "--out", tmp_path, "-q", "--json", engine=None)
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["design"]["games_per_deal"] == 4 and d["deals"] == 50
    never, greedy = d["bots"]
    assert (never["bot"], never["seats"], greedy["bot"], greedy["seats"]) == ("greedy:buy=never", 1, "greedy", 3)
    # the win shares of a game sum to 1: one seat of buy=never, three of greedy
    assert never["figures"]["win_share"]["mean"] + 3 * greedy["figures"]["win_share"]["mean"] == pytest.approx(1)
    assert d["hands_played"] == 50 * 4 * 10 and d["turn_cap_hands"] >= 0
    diff = greedy["against_first"]["points"]
    assert diff["n"] == 50 and diff["ci"][0] < diff["mean"] < diff["ci"][1]
    g = read(tmp_path, "games")
    assert len(g) == 50 * 4 * 4 and g.game_seed.nunique() == 50


def _any_name(spec):
    from shanghai_sim.bots import parse_bot
    return parse_bot(spec).name


def _any_parse(specs, players):
    return fake_parse_bots(["random" if s == "random" else "greedy" if s == "greedy" else "greedy:buy=never"
                            for s in specs], players)


# every registered spec, played by the fake kernels
ANY = Engine(fake_play_games, _any_parse, _any_name)


def test_past_24_seatings_a_tournament_plays_the_rotations_and_says_so(tmp_path):
    import io
    lineup = ("random", "greedy", "greedy:buy=never", "greedy:maxbuys=1", "greedy:maxbuys=2")   # 120 seatings
    err = io.StringIO()
    r = T.run_tournament(T.Tournament(lineup, deals=3), str(tmp_path), engine=ANY, progress=err)
    assert "120 distinct seatings, more than 24" in err.getvalue() and "rotations" in err.getvalue()
    g = read(tmp_path, "games")
    assert len(g) == 3 * 5 * 5 and r.design["games_per_deal"] == 5
    seats = g.groupby(["game_seed", g.bot.astype(str)], observed=True).seat.apply(lambda x: sorted(x.astype(int)))
    assert len(seats) == 3 * 5 and all(s == [0, 1, 2, 3, 4] for s in seats)
    assert "rotations" in json.loads((tmp_path / "manifest.json").read_text())["bots"]["seating"]
