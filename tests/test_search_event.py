"""The rollout bot's search event (schema 2): each candidate's samples, paired difference
with smart's choice and its standard error, and the rule's margin, z, tie and race, so that a
reader can tell why a candidate with a lower mean was not chosen (issue 59). Logs written
before (schema 1, tests/logs/) still read through ``replay --log``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from shanghai_sim.cli.main import main
from shanghai_sim.game import game_events
from shanghai_sim.log import SCHEMA_VERSION, format_event, search_reasons

LOGS = Path(__file__).parent / "logs"
OLD = sorted(LOGS.glob("schema1_*.jsonl"))
RACE = "rollout:rollouts=4:race=16:race_take=-1:race_play=-1:tie=6"   # a small race that drops some
PLAIN = "rollout:rollouts=4:race=0:kmax=16:candidates=3"             # no race: the lowest mean is tried


def _run(args):
    return CliRunner().invoke(main, args)


@pytest.fixture(scope="module")
def race_searches():
    ev, _ = game_events("shanghai", 3, 4, f"{RACE},smart,smart")
    return [e for e in ev if e["event"] == "search"]


@pytest.fixture(scope="module")
def plain_searches():
    ev, _ = game_events("shanghai", 3, 4, f"{PLAIN},smart,smart")
    return [e for e in ev if e["event"] == "search"]


def test_the_schema_is_2():
    assert SCHEMA_VERSION == 2


def test_every_candidate_carries_its_samples_diff_and_se(race_searches, plain_searches):
    for searches, race in ((race_searches, 16), (plain_searches, 0)):
        assert len(searches) > 20
        for e in searches:
            assert e["z"] == 2.0 and e["margin"] == 0.0 and e["race"] == race
            assert (e["tie"] == 6.0) if race else e["tie"] is None
            first = e["candidates"][0]
            assert first["samples"] == e["rollouts"] and first["diff"] == 0 and first["se"] == 0
            for c in e["candidates"][1:]:
                assert 1 <= c["samples"] <= e["rollouts"] and c["se"] >= 0
                if c["samples"] == e["rollouts"]:       # same samples: diff is the means' difference
                    assert c["diff"] == pytest.approx(c["mean"] - first["mean"], abs=0.011)


def test_the_logged_figures_follow_the_rule_that_chose(race_searches, plain_searches):
    """What the search read is what the rule needs: a chosen challenger beat smart's choice
    (diff < -margin, diff + z se < 0); under the race a challenger with fewer samples dropped
    out (diff - z se > -tie) and one played to the end did not beat it; without a race the
    lowest mean of the others was tried and did not beat it when smart's choice stayed."""
    eps = 0.03                 # the figures are rounded to 0.01
    kinds = set()
    for e in race_searches + plain_searches:
        cs, ch, z, m = e["candidates"], e["chosen"], e["z"], e["margin"]
        if ch > 0:
            c = cs[ch]
            assert c["diff"] < -m + eps and c["diff"] + z * c["se"] < eps
            kinds.add("chosen")
        for i, c in enumerate(cs[1:], 1):
            if i == ch:
                continue
            if e["race"]:
                if c["samples"] < e["rollouts"]:
                    assert c["diff"] - z * c["se"] > -e["tie"] - eps
                    kinds.add("dropped")
                elif ch == 0 and c["diff"] - z * c["se"] <= -e["tie"]:
                    assert not (c["diff"] < -m - eps and c["diff"] + z * c["se"] < -eps)
                    kinds.add("not better at the cap")
            elif ch == 0 and i == min(range(1, len(cs)), key=lambda j: cs[j]["mean"]):
                assert not (c["diff"] < -m - eps and c["diff"] + z * c["se"] < -eps)
                kinds.add("best other not better")
    assert {"chosen", "dropped", "best other not better"} <= kinds


def test_search_reasons_name_each_rule():
    base = {"event": "search", "hand": 1, "seat": 0, "decision": "discard", "rollouts": 32,
            "margin": 0.0, "z": 2.0, "tie": 20.0, "race": 32}
    cand = lambda a, mean, n, d, se: {"action": a, "mean": mean, "samples": n, "diff": d, "se": se}  # noqa: E731
    e = dict(base, chosen=0, candidates=[cand("discard QS", 30.0, 32, 0, 0),
                                         cand("discard 3D", 24.0, 16, -6.0, 2.0),
                                         cand("discard 8D", 25.0, 32, -5.0, 3.0)])
    r = search_reasons(e)
    assert r[0] == "smart's choice: kept"
    assert r[1] == ("dropped after 16 samples: diff - z*se = -10 > -tie (-20): it cannot beat "
                    "smart's choice by 20 points")
    e["tie"] = 5.0
    r = search_reasons(e)
    assert r[2] == "not clearly better: diff + z*se = 1 >= 0 after 32 samples"
    e = dict(base, chosen=2, candidates=[cand("take", 30.0, 32, 0, 0), cand("pass", 5.0, 32, -25.0, 3.0),
                                         cand("buy", 2.0, 32, -28.0, 2.0)])
    r = search_reasons(e)
    assert r[0] == "smart's choice: replaced"
    assert r[2] == "chosen: diff -28 < -margin (0) and diff + z*se = -24 < 0"
    assert r[1] == "better too, but buy is better still"
    e = dict(base, race=0, tie=None, chosen=0, candidates=[cand("a", 10.0, 8, 0, 0), cand("b", 9.0, 8, -1.0, 1.0),
                                                             cand("c", 9.5, 8, -0.5, 1.0)])
    r = search_reasons(e)
    assert r[1] == "not clearly better: diff + z*se = 1 >= 0 after 8 samples"
    assert r[2].startswith("not tried: without a race only the lowest mean of the others (b)")
    e["margin"] = 2.0
    assert search_reasons(e)[1] == "not better: diff -1 is not below -margin (-2)"
    line = format_event(e)
    assert line.endswith("-> a (kept: b not better: diff -1 is not below -margin (-2))")


def test_a_schema_1_event_reads_as_before():
    e = {"event": "search", "hand": 1, "seat": 1, "decision": "buy", "rollouts": 16, "chosen": 0,
         "candidates": [{"action": "pass", "mean": 9.38}, {"action": "buy", "mean": 7.0}]}
    assert search_reasons(e) is None
    assert format_event(e) == "  seat 1 searches (buy, 16 samples, mean points): pass 9.38, buy 7 -> pass"


@pytest.mark.parametrize("path", OLD, ids=[p.name for p in OLD])
def test_replay_log_reads_schema_1_logs(path, tmp_path):
    """Logs saved before the schema bump (a play --log with a rollout seat, the first hands of
    a replay --json of three bots, two of them rollout) print, round-trip and draw."""
    events = [json.loads(x) for x in path.read_text().splitlines()]
    assert any(e["event"] == "search" and "samples" not in e["candidates"][0] for e in events)
    r = _run(["replay", "--log", str(path)])
    assert r.exit_code == 0, r.output
    assert "searches (" in r.output and "Traceback" not in r.output
    r = _run(["replay", "--log", str(path), "--json"])
    assert r.exit_code == 0, r.output
    assert [json.loads(x) for x in r.output.splitlines()] == events
    page = tmp_path / "old.html"
    r = _run(["replay", "--log", str(path), "--html", str(page)])
    assert r.exit_code == 0, r.output
    assert page.stat().st_size > 1000


def test_replay_log_reads_a_schema_2_rollout_game(tmp_path):
    r = _run(["replay", "--seed", "4", "--players", "3", "--bots", f"{RACE},smart,smart", "--json"])
    assert r.exit_code == 0, r.output
    log = tmp_path / "new.jsonl"
    log.write_text(r.output)
    r2 = _run(["replay", "--log", str(log), "--json"])
    assert r2.exit_code == 0, r2.output
    assert r2.output == r.output
    r3 = _run(["replay", "--log", str(log)])
    assert r3.exit_code == 0 and "(kept: " in r3.output


@pytest.mark.parametrize("field,value", [("mean", "x"), ("diff", None), ("se", [1]), ("samples", True)])
def test_a_search_figure_that_is_no_number_is_one_line(tmp_path, field, value):
    """A damaged log whose search names a figure that is not a number: replay --log stops there
    with one line naming the event (exit 2), no traceback."""
    events = [json.loads(x) for x in (LOGS / "schema1_play_s3_p3_rollout.jsonl").read_text().splitlines()]
    k = next(i for i, e in enumerate(events) if e["event"] == "search")
    e = events[k]
    e.update(margin=0, z=2, tie=20, race=16)
    for c in e["candidates"]:
        c.update(samples=16, diff=0, se=0)
    e["candidates"][1][field] = value
    log = tmp_path / "bad.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in events))
    r = _run(["replay", "--log", str(log)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "'search' event" in r.output.strip().splitlines()[-1]      # the lines before it print first
