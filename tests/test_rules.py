"""Rules as data (docs/rules.md §3): every row of the preset table, TOML overrides, errors."""

from __future__ import annotations

import pytest

from shanghai_sim.rules import (BuyPriority, GoOut, InitialMeld, JokerLimit, JokerSwap, MeldKind,
                                MeldSpec, RulesError, SameSuitRuns, SetJokerIdentity, load_rules,
                                parse_contract, preset, resolve_contract)

SH_CONTRACTS = ["set3 set3", "set3 run4", "run4 run4", "set3 set3 set3", "set3 run7",
                "set3 set3 run5", "run4 run4 run4", "set3 run10", "set3 set3 set3 run5",
                "run5 run5 run5"]
# 001's nine, in the canonical order (sets first): "run4 run4 run4 set3" is set3 run4 run4 run4
PROG_CONTRACTS = ["set3 set3 set3", "set3 set3 run4", "set3 run4 run4", "run4 run4 run4",
                  "set3 set3 set3 set3", "set3 set3 set3 run4", "set3 set3 run4 run4",
                  "set3 run4 run4 run4", "run4 run4 run4 run4"]
PROG_DEALS = [10, 11, 12, 13, 13, 14, 15, 16, 17]
SH_POINTS = {"A": 15, "2": 20, **{str(n): 5 for n in range(3, 10)}, "T": 10, "J": 10, "Q": 10,
             "K": 10, "JK": 25}


def _packs(r):
    return {p: r.decks_for(p) for p in range(2, 9)}


# ---------------------------------------------------------------- the §3 table, row by row

@pytest.mark.parametrize("name", ["shanghai", "progressive"])
def test_shanghai_like_rows(name):
    r = preset(name)
    assert r.name == name and r.players == 4
    assert _packs(r) == {2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4}              # decks
    assert [r.jokers_for(p) for p in (4, 5, 7)] == [4, 6, 8]                  # 2 per pack
    assert r.buy_penalty == 2
    assert r.buy_priority == BuyPriority.DEALER_LEFT
    assert r.joker_limit == JokerLimit.NATURALS
    assert r.initial_meld == InitialMeld.AT_LEAST
    assert r.same_suit_runs == SameSuitRuns.DISTINCT
    assert r.go_out == GoOut.NO_DISCARD
    assert r.joker_swap == JokerSwap.ANYONE
    assert r.set_joker_identity == SetJokerIdentity.RANK
    assert r.blind_bonus == (0, 0)
    assert dict(r.points) == SH_POINTS
    assert r.down_may_buy is False
    assert r.max_stock_passes == 3


def test_shanghai_contracts_and_buys():
    r = preset("shanghai")
    assert r.hands == 10
    assert [str(c) for c in r.contracts] == SH_CONTRACTS
    assert [c.deal for c in r.contracts] == [11] * 10
    assert [c.cards_needed for c in r.contracts] == [6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    assert r.buys_per_hand == (3,) * 8 + (4, 4)


def test_progressive_contracts_and_buys():
    r = preset("progressive")
    assert r.hands == 9
    assert [str(c) for c in r.contracts] == PROG_CONTRACTS
    assert [c.deal for c in r.contracts] == PROG_DEALS
    # the deal is one more than the cards the contract needs
    assert [c.deal - c.cards_needed for c in r.contracts] == [1] * 9
    assert r.buys_per_hand == (3,) * 8 + (4,)


def test_contract_rows():
    r = preset("contract")
    assert r.name == "contract" and r.players == 4
    assert _packs(r) == {2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3, 8: 3}
    assert [r.jokers_for(p) for p in (4, 5, 8)] == [1, 2, 2]                  # 1 / 2 per shoe
    assert r.shoe_size(4) == 105 and r.shoe_size(8) == 158                    # 002's packs
    assert [str(c) for c in r.contracts] == SH_CONTRACTS
    assert [c.deal for c in r.contracts] == [11] * 10
    assert r.buy_penalty == 1
    assert r.buys_per_hand == (3,) * 8 + (4, 4)
    assert r.buy_priority == BuyPriority.TURN_ORDER
    assert r.joker_limit == JokerLimit.TABLE
    assert r.initial_meld == InitialMeld.EXACT
    assert r.same_suit_runs == SameSuitRuns.GAP
    assert r.go_out == GoOut.DISCARD_REQUIRED
    assert r.joker_swap == JokerSwap.DOWN_ONLY
    assert r.set_joker_identity == SetJokerIdentity.CARD
    assert r.blind_bonus == (-25, -50)          # with a joker played, without
    assert dict(r.points) == dict(SH_POINTS, A=20)
    assert r.down_may_buy is False
    assert r.max_stock_passes == 3


def test_joker_caps():
    """table: 3-4: 1, 5-6: 2, 7-9: 3, 10+: 4; naturals: jokers <= naturals."""
    table = preset("contract")
    assert [table.joker_cap(n) for n in range(3, 15)] == [1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4]
    nat = preset("shanghai")
    for n in range(3, 20):
        assert nat.joker_cap(n) == max(j for j in range(n + 1) if j <= n - j)


def test_points_by_rank():
    r = preset("shanghai")
    assert [r.point_of(k) for k in "A23456789TJQK"] + [r.point_of("JK")] == \
        [15, 20, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 25]
    assert preset("contract").point_of("A") == 20


def test_to_dict_prints_the_contract_table():
    d = preset("progressive").to_dict()
    assert [row["melds"] for row in d["contracts"]] == PROG_CONTRACTS
    assert [row["deal"] for row in d["contracts"]] == PROG_DEALS
    assert d["contracts"][8] == {"hand": 9, "melds": "run4 run4 run4 run4", "deal": 17,
                                 "cards_needed": 16, "buys": 4}
    assert d["joker_limit"] == "naturals" and d["blind_bonus"] == "none"
    c = preset("contract").to_dict()
    assert c["blind_bonus"] == {"joker": -25, "no_joker": -50}
    assert c["decks"]["8"] == 3 and c["jokers"]["3"] == 2


def test_unknown_preset():
    with pytest.raises(RulesError, match="'rummy'"):
        preset("rummy")
    with pytest.raises(RulesError, match="'rummy'"):
        load_rules("rummy")


# ---------------------------------------------------------------- contracts

def test_contract_notation():
    assert parse_contract("run10 set3") == (MeldSpec(MeldKind.SET, 3), MeldSpec(MeldKind.RUN, 10))
    assert parse_contract("SET3, RUN4") == parse_contract("set3 run4")
    r = preset("shanghai")
    assert resolve_contract(r, 8) == resolve_contract(r, "8") == parse_contract("set3 run10")


@pytest.mark.parametrize("text, named", [
    ("set2", "set2"), ("run3", "run3"), ("run14", "run14"), ("pair3", "pair3"), ("set", "set"),
    ("set3 xx", "xx"), ("", "empty"),
])
def test_bad_contracts(text, named):
    with pytest.raises(RulesError, match=named):
        parse_contract(text)


@pytest.mark.parametrize("hand", [0, 11, -1])
def test_hand_number_out_of_range(hand):
    with pytest.raises(RulesError, match=str(hand)):
        resolve_contract(preset("shanghai"), hand)


# ---------------------------------------------------------------- TOML

def _toml(tmp_path, text, name="my.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_toml_base_and_overrides(tmp_path):
    r = load_rules(_toml(tmp_path, '''
base = "contract"
buy_penalty = 2
joker_limit = "naturals"
initial_meld = "at_least"
same_suit_runs = "distinct"
points = { A = 15, 10 = 11 }
down_may_buy = true
max_stock_passes = 1
blind_bonus = "none"
'''))
    assert r.name == "my"                                     # the file's stem
    assert r.buy_penalty == 2 and r.joker_limit == JokerLimit.NATURALS
    assert r.initial_meld == InitialMeld.AT_LEAST and r.same_suit_runs == SameSuitRuns.DISTINCT
    assert r.point_of("A") == 15 and r.point_of("T") == 11
    assert r.down_may_buy is True and r.max_stock_passes == 1 and r.blind_bonus == (0, 0)
    # untouched options keep the base's values
    assert r.buy_priority == BuyPriority.TURN_ORDER and r.go_out == GoOut.DISCARD_REQUIRED
    assert r.contracts == preset("contract").contracts


def test_toml_default_base_is_shanghai(tmp_path):
    r = load_rules(_toml(tmp_path, "buy_penalty = 0\n"))
    assert r.buy_penalty == 0 and r.contracts == preset("shanghai").contracts


def test_toml_contracts_as_strings_and_tables(tmp_path):
    r = load_rules(_toml(tmp_path, '''
deal = 12
contracts = [ "set3 set3", { melds = "set3 run4", deal = 10 }, { melds = "run4 run4" } ]
buys_per_hand = 2
'''))
    assert [str(c) for c in r.contracts] == ["set3 set3", "set3 run4", "run4 run4"]
    assert [c.deal for c in r.contracts] == [12, 10, 12]
    assert r.buys_per_hand == (2, 2, 2)


def test_toml_contracts_keep_base_buys(tmp_path):
    r = load_rules(_toml(tmp_path, 'contracts = ["set3 set3"] \n'))
    assert r.hands == 1 and r.buys_per_hand == (3,)


@pytest.mark.parametrize("jokers, want", [
    ("jokers = 3", (3,) * 8),
    ("jokers = { per_pack = 1 }", tuple(range(1, 9))),
    ('jokers = { "2" = 0, "3" = 1 }', (2, 0, 1, 8, 10, 12, 14, 16)),
])
def test_toml_jokers_forms(tmp_path, jokers, want):
    assert load_rules(_toml(tmp_path, jokers + "\n")).jokers == want


@pytest.mark.parametrize("decks, want", [
    ("decks = 3", (3,) * 7),
    ('decks = { "4" = 3, "8" = 5 }', (2, 2, 3, 3, 3, 4, 5)),
])
def test_toml_decks_forms(tmp_path, decks, want):
    assert load_rules(_toml(tmp_path, decks + "\n")).decks == want


def test_toml_joker_table(tmp_path):
    r = load_rules(_toml(tmp_path, 'joker_limit = "table"\njoker_table = [[3, 1], [6, 2]]\n'))
    assert [r.joker_cap(n) for n in (3, 5, 6, 12)] == [1, 1, 2, 2]


@pytest.mark.parametrize("line, named", [
    ('joker_limit = "sometimes"', "joker_limit"),
    ('initial_meld = 1', "initial_meld"),
    ('players = 9', "players"),
    ('players = "four"', "players"),
    ('buy_penalty = 2.5', "buy_penalty"),
    ('buy_penalty = 11', "buy_penalty"),
    ('down_may_buy = 1', "down_may_buy"),
    ('max_stock_passes = -1', "max_stock_passes"),
    ('colour = "red"', "colour"),
    ('jokers = "many"', "jokers"),
    ('jokers = { "9" = 1 }', "jokers"),
    ('decks = { "1" = 2 }', "decks"),
    ('decks = [2, 2]', "decks"),
    ('contracts = []', "contracts"),
    ('contracts = ["set3 pair2"]', "pair2"),
    ('contracts = [{ cards = "set3" }]', "contracts"),
    ('contracts = [{ melds = "set3 set3", deal = 40 }]', "contracts"),
    ('buys_per_hand = [3, 3]', "buys_per_hand"),
    ('joker_table = [[3, 1, 2]]', "joker_table"),
    ('joker_table = [[5, 1], [3, 2]]', "joker_table"),
    ('blind_bonus = 5', "blind_bonus"),
    ('points = { Z = 3 }', "points"),
    ('points = { A = "x" }', "points.A"),
    ('points = 3', "points"),
    ('base = "rummy"', "rummy"),
])
def test_toml_bad_values_name_the_option(tmp_path, line, named):
    with pytest.raises(RulesError) as e:
        load_rules(_toml(tmp_path, line + "\n"))
    assert named in str(e.value)
    assert "\n" not in str(e.value)


def test_toml_malformed_and_missing(tmp_path):
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules(_toml(tmp_path, "base = \n"))
    with pytest.raises(RulesError, match="not found"):
        load_rules(str(tmp_path / "nope.toml"))


def test_rules_objects_are_frozen_data():
    r = preset("shanghai")
    assert load_rules(r) is r and load_rules(None) == r
    with pytest.raises(Exception):
        r.players = 5                                     # frozen
    assert r.replace(players=5).decks_for() == 3
    with pytest.raises(RulesError, match="players"):
        r.replace(players=1)
