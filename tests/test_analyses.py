"""The analyses/ scripts (issue #15): each runs at a tiny size into a temporary folder
and writes a report, its charts and its CSVs with sane numbers; bad input is one line
and exit status 2; the committed README points at files that exist."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from analyses import (analyses_common as C, buy_budget, buying, going_down, rules, search_budget,  # noqa: E402
                      seats, sizes, tune_smart, when_to_buy)

ROOT = Path(__file__).resolve().parents[1]
ANALYSES = ROOT / "analyses"


def _pngs_ok(out: Path, least: int = 1) -> None:
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) >= least
    for p in pngs:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 5000
    text = (out / "report.md").read_text()
    for p in pngs:
        assert f"({p.name})" in text, f"report.md does not show {p.name}"


def test_buying_tiny(tmp_path):
    out = tmp_path / "buying"
    rc = buying.main(["--games", "8", "--game-deals", "3", "--hands", "8", "--levels", "greedy",
                                 "--presets", "contract", "--out", str(out), "--quiet"])
    assert rc == 0
    text = (out / "report.md").read_text()
    assert "Holm" in text and "rollout" in text and "n deals" in text
    # what the rules settle comes before any simulated number, from facts.hand_facts
    head = text.split("## Design")[0]
    assert "## What the rules settle" in head and "**cannot go down** in hands 7, 8, 9, 10" in head
    assert "| 8 | set3 run10 | 11 | 14 | 12 | 1 | 15 | 2 | yes |" in head
    assert "**contract: what never buying means in hand 8.**" in text
    eff = pd.read_csv(out / "hand_points_effects.csv")
    assert set(eff.arm) == {"never", "always"} and (eff.deals == 8).all()
    assert (eff.points_lo <= eff.points_mean).all() and (eff.points_mean <= eff.points_hi).all()
    assert eff.points_p_holm.between(0, 1).all()
    g = pd.read_csv(out / "game_effects.csv")
    assert g.other_hands_cancel.all()          # common random numbers: hands other than 8 are identical
    assert g.win_share_mean.abs().max() <= 1
    _pngs_ok(out, 2)


def test_buying_capped_levels_and_the_budget_check(tmp_path):
    """SPEC@N caps a level's deals and skips its whole games; a rollout level and the same one
    with rollouts doubled get the 'does doubling change the answer' section."""
    out = tmp_path / "buying"
    rc = buying.main(["--games", "6", "--game-deals", "2", "--hands", "1", "--presets", "shanghai",
                                 "--levels", "greedy,rollout:rollouts=2:race=0@3,rollout:rollouts=4:race=0@2", "--out", str(out),
                                 "--quiet"])
    assert rc == 0
    eff = pd.read_csv(out / "hand_points_effects.csv")
    assert dict(eff.groupby("level").deals.max()) == {"greedy": 6, "rollout:rollouts=2:race=0": 3,
                                                       "rollout:rollouts=4:race=0": 2}
    assert set(pd.read_csv(out / "game_effects.csv").level) == {"greedy"}      # capped levels: no whole games
    text = (out / "report.md").read_text()
    assert "at most 3 deals per contract" in text and "doubling the search budget" in text
    bt = pd.read_csv(out / "budget_rollout_rollouts2_race0_vs_rollout_rollouts4_race0.csv")
    assert len(bt) == 2 and set(bt.arm) == {"never", "always"}
    _pngs_ok(out, 4)


def test_buying_skip_leaves_hand_level_cells_out(tmp_path):
    """--skip PRESET:HAND plays every other cell of --presets x --hands (a long search level
    asked for shanghai 8 and 10 and contract 8 only) and the report says which it left out."""
    out = tmp_path / "buying"
    rc = buying.main(["--games", "3", "--game-deals", "0", "--hands", "1,2", "--presets",
                                 "shanghai,contract", "--skip", "contract:2", "--levels", "greedy",
                                 "--out", str(out), "--quiet"])
    assert rc == 0
    eff = pd.read_csv(out / "hand_points_effects.csv")
    assert sorted(set(zip(eff.preset, eff.hand))) == [("contract", 1), ("shanghai", 1), ("shanghai", 2)]
    assert "(hand level: not contract hand 2, left out with --skip)" in (out / "report.md").read_text()
    b = buying
    assert b.parse_skip(" shanghai:8 ,contract:8", ["shanghai", "contract"], [8, 10]) == {("shanghai", 8), ("contract", 8)}
    for bad in ("contract:9", "contract", "nosuch:8", "contract:x"):
        with pytest.raises(b.C.AnalysisError, match="--skip"):
            b.parse_skip(bad, ["shanghai", "contract"], [8, 10])
    with pytest.raises(b.C.AnalysisError, match="no cell"):
        b.parse_skip("shanghai:8,contract:8", ["shanghai", "contract"], [8])


def test_budget_pairs_are_a_doubled_rollouts_only():
    b = buying
    assert b.budget_pairs(["smart", "rollout:rollouts=8", "rollout:rollouts=16", "rollout:rollouts=32:policy=greedy"]) \
        == [("rollout:rollouts=8", "rollout:rollouts=16")]


def test_buying_says_whether_a_size_holds_at_the_search_level(tmp_path):
    """A smart level and a rollout level get the 'do the sizes hold' table: per cell both
    sizes, the change's CI, whether it covers 0, and the stronger level's size where not."""
    b = buying
    assert b.size_pairs(["greedy", "smart", "rollout", "rollout:rollouts=8"]) == [
        ("smart", "rollout"), ("smart", "rollout:rollouts=8")]
    var = pd.DataFrame({"level": ["smart"] * 2 + ["rollout"] * 2, "preset": ["shanghai"] * 4, "hand": [8] * 4,
                        "arm": ["never", "always"] * 2, "points_mean": [44.0, 2.0, 30.0, 2.5],
                        "half_width": [2.0, 1.0, 5.0, 3.0], "verdict": ["worse", "worse", "worse", "cannot tell"],
                        "deals": [3000, 3000, 200, 200]})
    var["points_lo"], var["points_hi"] = var.points_mean - var.half_width, var.points_mean + var.half_width
    zt = b.size_table(var, "smart", "rollout").set_index("arm")
    assert not zt.loc["never", "holds"] and zt.loc["never", "answer"].startswith("+30.0 [+25.0, +35.0] (`rollout`")
    assert zt.loc["always", "holds"] and zt.loc["always", "answer"] == "both agree: +2.0 [+1.0, +3.0] (`smart`, the narrower CI)"
    out = tmp_path / "buying"
    rc = b.main(["--games", "3", "--game-deals", "0", "--hands", "1", "--presets", "shanghai",
                 "--levels", "smart,rollout:rollouts=2:race=0@2", "--out", str(out), "--quiet"])
    assert rc == 0
    text = (out / "report.md").read_text()
    assert "### Do the sizes hold as the players get stronger? (`smart` -> `rollout:rollouts=2:race=0`)" in text
    sz = pd.read_csv(out / "sizes_smart_vs_rollout_rollouts2_race0.csv")
    assert len(sz) == 2 and set(sz.arm) == {"never", "always"} and sz.holds.dtype == bool


def test_sizes_compares_the_committed_runs_and_rebuilds_their_csv(tmp_path):
    """analyses/sizes.py reads two committed buying.py runs (no game played) and rebuilds the
    committed comparison exactly; its report links both sources."""
    z = sizes
    out = tmp_path / "sizes"
    assert z.main(["--out", str(out), "--quiet"]) == 0
    got = pd.read_csv(out / "sizes_smart_vs_rollout.csv")
    committed = pd.read_csv(ANALYSES / "results" / "buying_sizes" / "sizes_smart_vs_rollout.csv")
    pd.testing.assert_frame_equal(got, committed)
    assert set(got.preset + ":" + got.hand.astype(str)) == {"shanghai:8", "shanghai:10", "contract:8"}
    ci = [[float(v) for v in x.split("[")[1].rstrip("]").split(",")] for x in got["change CI"]]
    assert list(got.holds) == [lo <= 0 <= hi for lo, hi in ci]          # holds: the change's CI covers 0
    text = (out / "report.md").read_text()
    for link in re.findall(r"\]\(([^)]+)\)", text):
        assert (out / link).resolve().exists(), link
    # the committed report's own links resolve from its folder
    ctext = (ANALYSES / "results" / "buying_sizes" / "report.md").read_text()
    for link in re.findall(r"\]\(([^)]+)\)", ctext):
        assert (ANALYSES / "results" / "buying_sizes" / link).resolve().exists(), link


def test_sizes_refuses_runs_of_other_seeds_or_smart_versions(tmp_path):
    """Two runs that do not share their deals (another seed), or a search over another smart
    version than the smart level played, are a one-line error, not a table."""
    import shutil
    src = ANALYSES / "results" / "buying_rollout"
    other = tmp_path / "other"
    shutil.copytree(src, other)
    rep = other / "report.md"
    text = rep.read_text()
    rep.write_text(text.replace("--threads 2", "--threads 2 --seed 7", 1))
    p = subprocess.run([sys.executable, str(ANALYSES / "sizes.py"), "--search", str(other), "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "job seeds 1 and 7 differ" in p.stderr and len(p.stderr.splitlines()) == 1
    rep.write_text(text.replace("smart v3, rollout v6", "smart v4, rollout v7", 1))
    p = subprocess.run([sys.executable, str(ANALYSES / "sizes.py"), "--search", str(other), "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "plays over smart version 4" in p.stderr, p.stderr
    assert not (tmp_path / "o").exists()


def test_buy_budget_tiny(tmp_path):
    out = tmp_path / "bb"
    rc = buy_budget.main(["--games", "8", "--hands", "9", "--levels", "greedy", "--presets", "shanghai",
                                     "--out", str(out), "--quiet"])
    assert rc == 0
    df = pd.read_csv(out / "buy_budget.csv")
    assert sorted(df[df.arm != "baseline"].cap) == [0, 1, 2, 3]          # hand 9 allows 4 buys
    assert (df[df.cap == 0].buys_per_hand == 0).all()                      # maxbuys9=0 never buys
    assert (df.buys_per_hand <= df.cap + 1e-9).all()
    v = df[df.arm != "baseline"].dropna(subset=["points_p"])
    assert (v.points_p_holm >= v.points_p - 1e-12).all()              # Holm never lowers a p
    _pngs_ok(out, 1)


def test_going_down_tiny(tmp_path):
    out = tmp_path / "gd"
    rc = going_down.main(["--games", "4", "--levels", "greedy", "--presets", "contract",
                                     "--out", str(out), "--quiet"])
    assert rc == 0
    arms = pd.read_csv(out / "arms.csv")
    w = arms[arms.arm == "wait_blind"].iloc[0]
    assert w.focal_went_out == w.focal_blind          # waiting, it only ever goes out blind
    eff = pd.read_csv(out / "effects.csv")
    assert set(eff.measure) == {"points", "win_share", "rank", "hand_points"}
    _pngs_ok(out, 1)


def test_seats_tiny(tmp_path):
    out = tmp_path / "seats"
    rc = seats.main(["--games", "12", "--levels", "greedy", "--presets", "contract", "--players", "3",
                                "--out", str(out), "--quiet"])
    assert rc == 0
    df = pd.read_csv(out / "seats.csv")
    ws = df[df.measure == "win_share"]
    assert ws["mean"].sum() == pytest.approx(1.0)      # win shares of the seats sum to 1 in every game
    assert (df[df.offset == 0].d_mean == 0).all()
    _pngs_ok(out, 1)


def test_rules_tiny(tmp_path):
    out = tmp_path / "rules"
    rc = rules.main(["--games", "3", "--levels", "greedy", "--presets", "contract", "--out", str(out),
                                "--quiet"])
    assert rc == 0
    df = pd.read_csv(out / "by_contract.csv")
    assert "as the preset" in set(df.variant) and "buy_penalty=1" not in set(df.variant)   # contract has 1
    assert df.stock.between(0, 1).all() and (df.turns > 0).all()
    _pngs_ok(out, 2)


def test_tune_smart_tiny_and_its_rerun_reuses_the_tournaments(tmp_path):
    out = tmp_path / "tune"
    args = ["--games", "2", "--only", "dump", "--presets", "contract", "--out", str(out), "--quiet"]
    t = tune_smart
    assert t.main(args) == 0
    rec = json.loads((out / "tune_smart.json").read_text())
    assert rec["tuning_seed"] == 7000000 and rec["deals_per_candidate"] == 2 and rec["rules"] == ["contract"]
    assert len(rec["evaluations"]) == len(t.GRID["dump"])     # the default, then every other value of dump
    ev = pd.read_csv(out / "evaluations.csv")
    assert list(ev.spec) == [e["spec"] for e in rec["evaluations"]] and ev.objective.between(0, 1).all()
    assert set(ev.weight.dropna()) == {"dump"} and rec["best_spec"] in set(ev.spec)
    _pngs_ok(out, 1)
    parts = sorted(p.stat().st_mtime_ns for p in (out / "data").rglob("*.parquet"))
    assert t.main(args) == 0                                 # resumed: nothing played again, the same record
    assert json.loads((out / "tune_smart.json").read_text())["evaluations"] == rec["evaluations"]
    assert sorted(p.stat().st_mtime_ns for p in (out / "data").rglob("*.parquet")) == parts


def test_sweep_plays_each_cell_once_in_order_and_gathers_its_rows(tmp_path, capsys):
    a = argparse.Namespace(out=str(tmp_path / "o"), quiet=False, levels="greedy,smart", presets="shanghai,contract")
    st = C.Study(a)
    cells = C.cells(st.levels, st.presets, lambda lv, p: (1, 2) if p == "shanghai" else (3,))
    assert [tuple(c) for c in cells] == [("greedy", "shanghai", 1), ("greedy", "shanghai", 2), ("greedy", "contract", 3),
                                         ("smart", "shanghai", 1), ("smart", "shanghai", 2), ("smart", "contract", 3)]
    played = []
    t = st.sweep(cells, lambda c: played.append(c) or len(played),
                 lambda c, r: {"runs": [{"k": r}]} if c.item != 3 else {"other": [{"k": r}, {"k": -r}]},
                 step=lambda c: f"step {c.item}", line=lambda c, r, s: f"{c.level} {c.preset} {c.item}: {r}")
    assert played == cells and [r["k"] for r in t["runs"]] == [1, 2, 4, 5]
    assert [r["k"] for r in t["other"]] == [3, -3, 6, -6] and t["none"] == []
    assert [n for n, _ in st.clock.steps] == [f"step {c.item}" for c in cells]
    assert capsys.readouterr().err.splitlines()[:2] == ["greedy shanghai 1: 1", "greedy shanghai 2: 2"]
    assert (tmp_path / "o" / "data").is_dir() and st.hands is None and st.caps == {"greedy": None, "smart": None}


@pytest.mark.parametrize("args, words", [
    (["buying.py", "--levels", "greedy,nosuchbot"], "nosuchbot"),
    (["buy_budget.py", "--hands", "11"], "hands"),
    (["seats.py", "--players", "3,x"], "--players"),
    (["seats.py", "--levels", "smart@100"], "cap per level"),
    (["buying.py", "--levels", "smart@x"], "the cap after @"),
    (["buying.py", "--hands", "8", "--skip", "contract:10"], "--skip"),
    (["going_down.py", "--levels", "smart,smart"], "given twice"),
    (["sizes.py", "--smart", "/nonexistent/folder"], "--smart /nonexistent/folder"),
])
def test_bad_input_one_line_exit_2(tmp_path, args, words):
    p = subprocess.run([sys.executable, str(ANALYSES / args[0]), *args[1:], "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], p.stderr


def test_readme_points_at_committed_results():
    readme = ANALYSES / "README.md"
    if not readme.exists():
        pytest.skip("analyses/README.md not written yet")
    for link in re.findall(r"\]\(([^)]+)\)", readme.read_text()):
        path = link.partition("#")[0]          # "#section" is a heading of the README itself
        if path and not link.startswith("http"):
            assert (ANALYSES / path).exists(), link


def test_holm_column_leaves_missing_p_out_of_the_family():
    got = C.holm_column([0.01, float("nan"), 0.04, 1e-60])
    assert got[1] != got[1]                                   # NaN stays NaN
    assert got[3] == pytest.approx(3e-60) and got[0] == pytest.approx(0.02) and got[2] == pytest.approx(0.04)


def test_the_studies_and_the_benchmarks_helpers_are_apart():
    """analyses/ and benchmarks/ are two packages: each script reaches its own folder's helpers,
    whichever was imported first."""
    from benchmarks import _common, bench_melds
    assert hasattr(_common, "spread") and not hasattr(C, "spread") and hasattr(C, "parser")
    assert buying.C is C and sizes.buying is buying and bench_melds.Benchmark is _common.Benchmark
    assert C.__name__ == "analyses.analyses_common" and _common.__name__ == "benchmarks._common"


def test_when_to_buy_tiny(tmp_path):
    """Every buy decision of four smart is valued (K and 2K samples), tabulated by situation,
    charted and reported; valuing a point leaves the game as smart plays it."""
    w = when_to_buy
    out = tmp_path / "wtb"
    rc = w.main(["--games", "2", "--presets", "contract", "--samples", "2", "--out", str(out), "--quiet"])
    assert rc == 0
    pts = pd.read_csv(out / "decisions.csv")
    cl = pd.read_csv(out / "cells.csv")
    assert len(pts) > 20 and set(pts.deal) == {0, 1} and (pts.samples == 2).all()
    assert (pts.buys_left > 0).all() and (pts.def_after >= pts.def_before - 1).all()
    assert (pts.lowers == (pts.def_after < pts.def_before)).all()
    assert cl.n.sum() == len(pts) and set(cl.verdict) <= {"buy", "pass", "cannot tell"}
    ok = cl.value_lo.notna()
    assert ((cl.value_lo <= cl.value_mean) & (cl.value_mean <= cl.value_hi))[ok].all()
    assert ((cl.verdict == "buy") == (cl.value_hi < 0)).all()
    text = (out / "report.md").read_text()
    assert text.index("## What the rules settle") < text.index("## Design") < text.index("## Answer")
    _pngs_ok(out, 1)
    # the same deals played without valuing anything: the same decisions, the same choices
    import numpy as np
    from shanghai_sim.game import Game
    from shanghai_sim.kernels.base import layout as L
    from shanghai_sim.kernels.base.rng import game_seed_nb
    seen = []
    for k in (0, 1):
        g = Game(rules=w.one_hand_rules("contract", 8), players=4,
                 seed=int(game_seed_nb(np.uint64(1), np.uint64(k))), bots="smart")
        while not g.over:
            p = g.to_act
            ask = g.phase == "buy" and any(x.kind == "buy" for x in g.legal_actions())
            turn = int(g.G.ps[p, L.PS_TURNS])
            a = g.step()
            if ask:
                seen.append((k, p, turn, a.card, a.kind == "buy"))
    assert seen == list(zip(pts.deal, pts.seat, pts.turn, pts.upcard, pts.smart_buys))


def test_a_cluster_ci_counts_deals_not_points():
    w = when_to_buy
    # two deals, each with many equal points: the CI is over 2 clusters, not 200 points
    m, lo, hi = w.cluster_ci([1.0] * 100 + [3.0] * 100, [0] * 100 + [1] * 100)
    assert m == 2.0 and hi - lo > 10
    m, lo, hi = w.cluster_ci([1.0, 3.0] * 50, list(range(100)))
    assert m == 2.0 and 0 < hi - lo < 0.5


def test_when_to_buy_reads_its_chart_as_a_threshold_and_checks_it(tmp_path):
    w = when_to_buy
    cl = pd.DataFrame({"preset": ["contract"] * 4, "hand": [8] * 4, "lowers": [True, True, True, False],
                       "verdict": ["buy", "buy", "pass", "buy"], "buys_used": [1, 0, 2, 1],
                       "def_before": [2, 5, 3, 6]})
    assert w.chart_dmax(cl, "contract", 8) == 2       # the first buy (0 made) and a card that does not help don't count
    assert w.chart_dmax(cl, "shanghai", 8) is None
    a = argparse.Namespace(check_deals=3, check_seed=2, threads=1)
    rows = w.check("contract", 8, [("chart", "smart:chart8=contract8"), ("threshold", "smart:buy_dmax=2")],
                   a, tmp_path / "check")
    assert [r["arm"] for r in rows] == ["chart", "threshold"] and rows[1]["spec"] == "smart:buy_dmax=2"
    for row in rows:
        assert row["deals"] == 3 and row["hand"] == 8 and row["hands_played"] == 12
        assert row["points_lo"] <= row["points_mean"] <= row["points_hi"]


def test_when_to_buy_knows_the_charts_shipped_in_the_package():
    """The committed chart of each contract is the shipped chart of that name, so the check
    plays it; a chart that differs in one cell is not, and its rows are what a new chart needs."""
    w = when_to_buy
    cl = pd.read_csv(Path(w.__file__).parent / "results" / "when_to_buy" / "cells.csv")
    assert w.shipped_chart(cl, "shanghai", 8) == "shanghai8"
    assert w.shipped_chart(cl, "contract", 8) == "contract8"
    assert w.chart_rows(cl, "shanghai", 8)[True] == (".......", ".BBB...", ".BB..P.")
    other = cl.copy()
    i = other.index[(other.preset == "contract") & other.lowers & (other.def_before == 1) & (other.buys_used == 2)]
    other.loc[i, "verdict"] = "cannot tell"
    assert w.shipped_chart(other, "contract", 8) is None
    assert w.chart_rows(other, "contract", 8)[True][2] == "...P..."
    assert w.shipped_chart(cl, "contract", 10) is None


def test_search_budget_tiny(tmp_path, capsys):
    """Every variant is asked at every searched decision of seat 0 on the same samples: a
    variant that is the reference under another name chooses and scores the same; the
    reference's cost share is 1 and its difference from itself 0; bad variants are one line."""
    sb = search_budget
    out = tmp_path / "sb"
    v = ("ref=rollout:rollouts=2:race=4:candidates=2;again=rollout:rollouts=2:race=4:candidates=2;"
         "fixed=rollout:rollouts=2:race=0:candidates=2")
    rc = sb.main(["--games", "2", "--threads", "1", "--eval", "4", "--variants", v, "--out", str(out), "--quiet"])
    assert rc == 0
    d = pd.read_csv(out / "decisions.csv")
    assert set(d.variant) == {"ref", "again", "fixed"} and set(d.game) == {200, 201}
    assert set(d.kind) <= {"take", "buy", "discard or down"} and d.valued.all()
    a, b = (d[d.variant == x].reset_index(drop=True) for x in ("ref", "again"))
    assert (a.departs == b.departs).all() and (a.value == b.value).all() and (a.samples == b.samples).all()
    assert (d[~d.departs].value == 0).all() and (d[d.variant == "fixed"].samples <= 4).all()
    sm = pd.read_csv(out / "variants.csv")
    r = sm[(sm.variant == "ref") & (sm.kind == "all")].iloc[0]
    assert r.cost_share == pytest.approx(1.0) and r.vs_first_mean == 0
    g = sm[(sm.variant == "again") & (sm.kind == "all")].iloc[0]
    assert g.vs_first_mean == 0 and g.value_mean == r.value_mean
    _pngs_ok(out, 1)
    assert "## Answer" in (out / "report.md").read_text()
    # a rerun reuses the games kept in data/ (the same rows); other settings there are refused
    before = (out / "decisions.csv").read_text()
    assert sb.main(["--games", "2", "--threads", "1", "--eval", "4", "--variants", v, "--out", str(out), "--quiet"]) == 0
    assert (out / "decisions.csv").read_text() == before
    assert sb.main(["--games", "2", "--eval", "8", "--variants", v, "--out", str(out), "--quiet"]) == 2
    assert "other settings" in capsys.readouterr().err
    for bad in ("ref=rollout", "ref=smart;x=rollout", "ref=rollout:bogus=1;x=rollout"):
        assert sb.main(["--games", "2", "--variants", bad, "--out", str(tmp_path / "bad"), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: --variants")
    assert not (tmp_path / "bad").exists()
    # --evaluator: the same decisions and departures, valued with the other hands' true cards: a
    # diagnostic that cheats, refused without --diagnostic (as an evaluator or a variant), marked with it
    o = tmp_path / "sb-oracle"
    for refused in (["--evaluator", "rollout:oracle=hands"], ["--variants", "a=rollout;b=rollout:oracle=deal"]):
        assert sb.main(["--games", "2", "--out", str(o), "--quiet", *refused]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--diagnostic" in err[0] and "oracle=" in err[0], err
    assert not o.exists()
    assert sb.main(["--games", "2", "--threads", "1", "--eval", "4", "--variants", v, "--out", str(o),
                    "--evaluator", "rollout:oracle=hands", "--diagnostic", "--quiet"]) == 0
    e = pd.read_csv(o / "decisions.csv")
    assert (e.departs == d.departs).all() and (e.samples == d.samples).all()
    assert (e[e.departs].value != d[d.departs].value).any()
    text = (o / "report.md").read_text()
    assert "`rollout:oracle=hands`'s sampling" in text
    assert text.splitlines()[2] == ("**DIAGNOSTIC: rollout:oracle=hands sees the other hands' true cards "
                                    "(a bot that cheats on purpose, not a player)**")
    assert "DIAGNOSTIC" not in (out / "report.md").read_text()
    for bad in ("smart", "rollout:oracle=x"):
        assert sb.main(["--games", "2", "--evaluator", bad, "--out", str(tmp_path / "bad"), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: --evaluator"), err
    assert not (tmp_path / "bad").exists()


STUDIES = sorted(p.name for p in ANALYSES.glob("*.py") if p.name not in ("analyses_common.py", "__init__.py"))


@pytest.mark.parametrize("script", STUDIES)
def test_every_study_refuses_a_folder_that_is_not_a_study(tmp_path, script):
    """As `run --out` refuses a folder that is not empty and holds no dataset: a study's --out
    must be new, empty or a study's own (issue 59: `going_down.py --out /` wrote into /). The
    folder here holds one file of the user's; it is left as it was."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    p = subprocess.run([sys.executable, str(ANALYSES / script), "--out", str(mine)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "not empty and holds no study" in lines[0], p.stderr
    assert sorted(x.name for x in mine.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("out, words", [
    ("/", "a system folder"), ("/etc", "a system folder"), ("/usr", "a system folder"),
    ("/proc/self", "a system folder"), ("/sys/kernel", "a system folder"), ("~", "your home folder"),
    ("", "give a folder"),
])
def test_study_out_refuses_system_folders(out, words):
    """Checked by the parser, before any folder is made (never run a study into / to test it)."""
    with pytest.raises(C.AnalysisError, match=words):
        C.check_out(out)
    ap = C.parser("going_down", "doc", 10)
    with pytest.raises(SystemExit) as e:
        ap.parse_args(["--out", out])
    assert e.value.code == 2


def test_study_out_takes_new_empty_and_study_folders(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "rerun" / "data").mkdir(parents=True)
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "report.md").write_text("# a study")
    (tmp_path / "file").write_text("x")
    for ok in ("new", "empty", "rerun", "done"):
        assert C.check_out(str(tmp_path / ok)) == tmp_path / ok
    with pytest.raises(C.AnalysisError, match="a file, not a folder"):
        C.check_out(str(tmp_path / "file"))
