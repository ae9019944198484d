import json

import pytest
from click.testing import CliRunner

from shanghai_sim.cli.main import main
from shanghai_sim.game import game_events


def _run(args):
    return CliRunner().invoke(main, args)


def test_replay_text_has_every_kind_of_event():
    r = _run(["replay", "--seed", "3"])
    assert r.exit_code == 0, r.output
    out = r.output
    for needle in ("== hand 1 (set3 set3)", "deal seat", "upcard", "discards", "hand 1 ends",
                   "== game over"):
        assert needle in out


def test_replay_json_lines_follow_schema():
    r = _run(["replay", "--seed", "5", "--rules", "contract", "--players", "3",
              "--bots", "greedy,random,greedy:buy=never", "--json"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.output.splitlines()]
    kinds = {e["event"] for e in lines}
    assert {"hand", "deal", "upcard", "draw", "discard", "hand_end", "game_end"} <= kinds
    assert lines[-1]["event"] == "game_end"
    assert all("hand" in e for e in lines if e["event"] != "game_end")
    ends = [e for e in lines if e["event"] == "hand_end"]
    assert len(ends) == 10
    assert lines[-1]["totals"] == ends[-1]["totals"]


def test_replay_is_the_same_game_as_the_log():
    a, _ = game_events("shanghai", 4, 8, "greedy")
    r = _run(["replay", "--seed", "8", "--json"])
    assert [json.loads(x) for x in r.output.splitlines()] == json.loads(json.dumps(a))


def test_deal_and_scores_are_consistent():
    # every hand's deal gives each seat the deal size; scores are the points of cards left
    events, rec = game_events("progressive", 4, 21, "greedy")
    deals = [e for e in events if e["event"] == "deal" and e["hand"] == 1]
    assert len(deals) == 4 and all(len(d["cards"]) == 10 for d in deals)


@pytest.mark.parametrize("args,needle", [
    (["replay", "--seed", "x"], "seed = 'x': expected an integer"),
    (["replay", "--seed", "-1"], "seed = -1: must be 0..18446744073709551615"),
    (["replay", "--seed", "1", "--bots", "clever"], "unknown bot"),
    (["replay", "--seed", "1", "--players", "9"], "players"),
    (["replay", "--seed", "1", "--players", "two"], "players"),
    (["replay", "--seed", "1", "--rules", "nope"], "unknown preset"),
    (["replay", "--seed", "1", "--players", "3", "--bots", "greedy,greedy"], "2 bot specs for 3"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    r = _run(args)
    assert r.exit_code == 2
    assert needle in r.output
    assert "Traceback" not in r.output
