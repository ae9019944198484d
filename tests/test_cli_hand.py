"""The ``meld`` and ``rules`` commands (CLI over analyze_hand and the rules).

Bad input: one line naming the problem, exit status 2, no traceback
(docs/DEVELOPING.md).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from shanghai_sim.rules import preset

from reference import check_laydown


@pytest.fixture(scope="module")
def main():
    from shanghai_sim.cli.main import main
    return main


def invoke(main, *args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def one_line_error(result, named):
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert named in lines[0], lines[0]
    assert "Traceback" not in result.output


# ---------------------------------------------------------------- meld

def test_meld_json(main):
    # shanghai hand 2 (set3 run4): 8-8-8 and 5-6-7-8 of clubs with a joker;
    # the KS (10) stays.
    hand = ["8C", "8D", "8H", "5C", "6C", "JK", "8C", "KS"]
    r = invoke(main, "meld", *hand, "--contract", "2", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert set(d) >= {"satisfiable", "deadwood", "deficiency", "melds", "leftover"}
    assert d["satisfiable"] is True and d["deficiency"] == 0 and d["deadwood"] == 10
    assert d["leftover"] == ["KS"]
    assert check_laydown(" ".join(hand), d["melds"], d["leftover"], "set3 run4") == 10


def test_meld_cards_as_one_argument_with_commas(main):
    r = invoke(main, "meld", "8C,8D,8H", "--contract", "set3", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["deadwood"] == 0


def test_meld_not_satisfiable_json(main):
    r = invoke(main, "meld", "8C", "JK", "JK", "--contract", "set3", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["satisfiable"] is False and d["deadwood"] is None and d["deficiency"] == 1


def test_meld_with_rules(main, tmp_path):
    # contract (table, exact): a set of three holds one joker; the other stays
    r = invoke(main, "meld", "8C 8D JK JK", "--contract", "set3", "--rules", "contract", "--players", "6", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["deadwood"] == 25
    f = tmp_path / "r.toml"
    f.write_text('base = "shanghai"\ninitial_meld = "exact"\n', encoding="utf-8")
    r = invoke(main, "meld", "8C 8D 8H 8S", "--contract", "set3", "--rules", str(f), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["deadwood"] == 5


def test_meld_readable(main):
    r = invoke(main, "meld", "AC 2C 3C 4C 9D", "--contract", "run4")
    assert r.exit_code == 0, r.output
    out = r.output.lower()
    assert "satisfiable" in out or "deadwood" in out
    assert "5" in r.output and "9D" in r.output            # 9D (5 points) stays
    assert "{" not in r.output.splitlines()[0]              # not JSON


@pytest.mark.parametrize("args, named", [
    (["meld", "AS", "ZZ", "--contract", "1"], "ZZ"),             # unknown card
    (["meld", "AS", "10", "--contract", "1"], "10"),
    (["meld", "--contract", "1"], ""),                           # empty hand
    (["meld", "AS", "--contract", "set2"], "set2"),              # unknown contract
    (["meld", "AS", "--contract", "11"], "11"),                  # no hand 11
    (["meld", "AS", "--contract", "pair3"], "pair3"),
    (["meld", "AS", "--contract", "1", "--rules", "rummy"], "rummy"),   # unknown preset
])
def test_meld_bad_input(main, args, named):
    one_line_error(invoke(main, *args), named)


def test_meld_empty_string_hand(main):
    one_line_error(invoke(main, "meld", "", "--contract", "1"), "")


# ---------------------------------------------------------------- rules

@pytest.mark.parametrize("name", ["shanghai", "contract", "progressive"])
def test_rules_json_is_the_resolved_rules(main, name):
    r = invoke(main, "rules", name, "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d == json.loads(json.dumps(preset(name).to_dict()))


def test_rules_default_and_readable(main):
    r = invoke(main, "rules", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["name"] == "shanghai"
    r = invoke(main, "rules", "progressive")
    assert r.exit_code == 0, r.output
    for text in ("run4 run4 run4 run4", "17", "naturals", "at_least"):
        assert text in r.output


def test_rules_from_toml(main, tmp_path):
    f = tmp_path / "house.toml"
    f.write_text('base = "contract"\nbuy_penalty = 3\ncontracts = ["set3 set3", "run4 run4"]\n',
                 encoding="utf-8")
    r = invoke(main, "rules", str(f), "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["buy_penalty"] == 3 and d["joker_limit"] == "table"
    assert [c["melds"] for c in d["contracts"]] == ["set3 set3", "run4 run4"]


@pytest.mark.parametrize("toml, named", [
    ("base = \n", "TOML"),                                   # malformed
    ('colour = "red"\n', "colour"),                          # unknown option
    ('joker_limit = "sometimes"\n', "joker_limit"),          # malformed option
    ('players = 12\n', "players"),
])
def test_rules_bad_file(main, tmp_path, toml, named):
    f = tmp_path / "bad.toml"
    f.write_text(toml, encoding="utf-8")
    one_line_error(invoke(main, "rules", str(f)), named)
    one_line_error(invoke(main, "meld", "AS", "--contract", "1", "--rules", str(f)), named)


def test_rules_unknown_preset(main):
    one_line_error(invoke(main, "rules", "rummy"), "rummy")
    one_line_error(invoke(main, "rules", "missing.toml"), "missing.toml")


# ---------------------------------------------------------------- bounded work (issue 59)

ALL_60 = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"] + ["JK"] * 8


def test_max_held_is_the_deal_a_draw_and_every_buy():
    from shanghai_sim.hand import max_held
    assert max_held(preset("shanghai"), 9) == (24, "hand 9: 11 dealt + 1 drawn + 4 buys x 3 cards")
    assert max_held(preset("shanghai"), "1")[0] == 21
    assert max_held(preset("shanghai"), "set3 run4 set3 run4")[0] == 24       # notation: the largest hand
    assert max_held(preset("contract"), "run5 run5")[0] == 20
    assert max_held(preset("progressive"), None)[0] == 30


@pytest.mark.parametrize("extra", [[], ["--any-hand"], ["--any-hand", "--json"]])
def test_meld_refuses_a_hand_no_player_holds_at_once(main, extra):
    """issue 59: 52 cards and 8 jokers against set3 run4 set3 run4 searched past 200 s."""
    import time
    t = time.perf_counter()
    r = invoke(main, "meld", *ALL_60, "--contract", "set3 run4 set3 run4", *extra)
    one_line_error(r, "a hand of 60 cards: under rules 'shanghai' a player holds at most 24 (hand 9: "
                      "11 dealt + 1 drawn + 4 buys x 3 cards)")
    assert time.perf_counter() - t < 10


def test_analyze_hand_has_the_same_bound():
    from shanghai_sim.hand import HandTooLarge, analyze_hand
    from shanghai_sim.cards import CardError
    hand = ALL_60[:21]
    assert analyze_hand(hand, 1, shoe=False).deficiency >= 0         # 21 = the most at hand 1
    with pytest.raises(HandTooLarge, match="a hand of 22 cards: .* at most 21 .*hand 1"):
        analyze_hand(hand + ["JK"], 1, shoe=False)
    with pytest.raises(CardError, match="at most 24"):              # a CardError to every caller
        analyze_hand(ALL_60[:48], "set3 run4 set3 run4", "shanghai", shoe=False)
    # limit=False lifts it (the kernel's tests of hands no table deals): 26 cards, two suits
    a = analyze_hand(ALL_60[:26], "run5 run5 run5", shoe=False, limit=False)
    assert a.satisfiable and a.deadwood == 0


def test_meld_stops_a_long_search_and_says_so(main):
    """At progressive's limit (30 cards, hand 9) with 12 jokers the search runs ~15 s: stopped."""
    import time
    hand = ALL_60[:18] + ["JK"] * 12
    t = time.perf_counter()
    r = invoke(main, "meld", *hand, "--contract", "9", "--rules", "progressive", "--any-hand",
               "--time-limit", "0.5")
    one_line_error(r, "a hand of 30 cards against contract '9': too large to analyse exactly within 0.5 s")
    assert time.perf_counter() - t < 8


def test_capped_returns_raises_and_stops():
    import time
    from shanghai_sim.cli.hand_cmds import _capped
    from shanghai_sim.cards import CardError
    assert _capped(lambda: {"a": [1, 2]}, 30) == {"a": [1, 2]}

    def bad():
        raise CardError("unknown card 'ZZ'")
    with pytest.raises(CardError, match="ZZ"):
        _capped(bad, 30)
    t = time.perf_counter()
    assert _capped(lambda: time.sleep(30), 0.3) is None
    assert time.perf_counter() - t < 5
    import os
    with pytest.raises(CardError, match="stopped without an answer .*ended with -9"):
        _capped(lambda: os.kill(os.getpid(), 9), 30)            # a child that dies says so
