"""smart version 2 (issue 30; docs/bots.md "Version 2"): each new behaviour in a scripted
position where version 1 plays otherwise, and the outlook's parts (kernels.bots.outlook) on
hands whose answer the rulebook settles. smart:v=1's own games are the golden replays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from shanghai_sim.bots import parse_bot
from shanghai_sim.cards import card_id
from shanghai_sim.game import Game
from shanghai_sim.kernels.base import codes as K
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.bots.players import smart_chance_nb
from shanghai_sim.kernels.bots.outlook import buys_left_nb, can_hold_contract_nb, poisson_tail_nb
from shanghai_sim.rules import Contract, load_rules, parse_contract

FILL = "2C 3D 4H 5S 6C 7D 9H TS JC QD KH"


def one_hand(melds: str, deal: int = 11, **kw):
    """The shanghai rules with one hand of this contract (a hand-level position)."""
    r = load_rules("shanghai")
    return replace(r, contracts=(Contract(parse_contract(melds), deal),), buys_per_hand=(3,), **kw)


def position(rules, hands, bots="smart", upcard="2C", stock="QC QS 8D 4C 4D 9C 9D 3H 3S",
             down=(), known=None, turns=8):
    """Seat a (the dealer's left) has drawn and plays its turn ``turns`` of the hand (late
    enough that smart v2 counts its outs); hands and known cards by offset from a."""
    g = Game(rules=rules, players=4, seed=1, bots=bots)
    a = (int(g.S[L.S_DEALER]) + 1) % 4
    g.set_position({q: FILL for q in range(4)} | {(a + k) % 4: h for k, h in hands.items()},
                   upcard=upcard, stock=stock, down=[(a + k) % 4 for k in down], play=a,
                   known={(a + k) % 4: c for k, c in (known or {}).items()})
    g.G.ps[:, L.PS_TURNS] = turns
    return g, a


def choice(g, spec):
    """The card seat to act would discard as ``spec``."""
    a = g.bot_action(spec)
    assert a.kind == "discard", a
    return a.card


def test_poisson_tail():
    assert poisson_tail_nb(0.0, 1) == 0.0
    assert poisson_tail_nb(3.0, 0) == 1.0
    assert poisson_tail_nb(2.0, 1) == pytest.approx(1 - np.exp(-2.0))
    assert poisson_tail_nb(2.0, 3) == pytest.approx(1 - np.exp(-2.0) * (1 + 2 + 2))


def test_a_dead_out_is_not_chased():
    # run4: J Q K of diamonds wants TD or AD (ace high) or a joker, and every copy of
    # each is in sight (known in other hands); a player is down, so the hand is racing
    # (while nobody is down and a stock pass is left, version 2 does not count outs). Version 1 keeps the three (its deficiency
    # is 1); version 2 knows no out can come and sheds ten-pointers first.
    r = one_hand("run4")
    hands = {0: "JD QD KD 3C 5H 8S", 1: "TD TD AD AD 4C", 2: "JK JK JK JK 6H"}
    g, a = position(r, hands, known={1: "TD TD AD AD", 2: "JK JK JK JK"}, down=(3,))
    assert smart_chance_nb(g.R, g.G, a, parse_bot("smart").array(), 0.01) == 0.0
    assert choice(g, "smart:v=1") in ("3C", "5H", "8S")
    assert choice(g, "smart") in ("JD", "QD", "KD")


def test_a_live_out_is_still_chased():
    # the same hand, but one TD may still come: version 2 keeps the run
    r = one_hand("run4")
    hands = {0: "JD QD KD 3C 5H 8S", 1: "TD AD AD 4C", 2: "JK JK JK JK 6H"}
    g, a = position(r, hands, known={1: "TD AD AD", 2: "JK JK JK JK"}, down=(3,))
    assert smart_chance_nb(g.R, g.G, a, parse_bot("smart").array(), 0.01) >= 0.01
    assert choice(g, "smart") in ("3C", "5H", "8S")


def test_a_hopeless_hand_sheds_an_ace_before_a_3():
    # set3 set3, deficiency 2 (an ace and a three short), a down opponent holds one card,
    # and of the aces, threes and jokers only one three may still come: the others are
    # known in other hands. Version 1 (its emergency shedding waits for deficiency 3)
    # keeps the pairs; version 2 sheds the most points first.
    hands = {0: "AS AD 3C 3D 7H 9S", 1: "KC", 2: "AC AC AH AH AS AD 3H 3H JK JK", 3: "3S 3S 3D JK JK"}
    known = {2: "AC AC AH AH AS AD 3H 3H JK JK", 3: "3S 3S 3D JK JK"}
    g, a = position(one_hand("set3 set3"), hands, down=(1,), known=known,
                    stock="QC QS 8D 4C 4D 9C 9D 5H 5S")
    assert smart_chance_nb(g.R, g.G, a, parse_bot("smart").array(), 0.01) < 0.01
    assert choice(g, "smart:v=1") in ("7H", "9S")
    assert choice(g, "smart") in ("AS", "AD")


def test_buying_never_in_a_contract_of_13_cards_sheds_from_the_first_turn():
    # shanghai's hand 8 (set3 run10, 13 cards; 11 dealt): without a buy no hand can hold
    # the contract, so smart:buy=never knows from its first turn that it will not go down
    r = one_hand("set3 run10")
    g = Game(rules=r, players=4, seed=5, bots="smart:buy=never")
    bp = parse_bot("smart:buy=never").array()
    seen = 0
    while not g.over and seen < 4:
        p = g.to_act
        if g.phase == "play":
            assert not can_hold_contract_nb(g.R, g.G, p, bp)
            assert buys_left_nb(g.R, g.G, p, bp) == 0
            took = int(g.G.ps[p, L.PS_TOOK]) - 1
            a = g.bot_action()
            pts = g.R.points
            H = g.G.hands[p]
            top = max(int(pts[c]) for c in range(L.JOKER) if H[c] > 0 and c != took)
            assert int(pts[card_id(a.card)]) == top, (g.hand_cards(p), a.card)
            seen += 1
        g.step()
    assert seen == 4
    # the same seat with buys allowed can still hold 13 cards
    g2 = Game(rules=r, players=4, seed=5, bots="smart")
    assert can_hold_contract_nb(g2.R, g2.G, g2.to_act, parse_bot("smart").array())


def test_under_discard_required_the_discard_a_turn_owes_counts():
    # contract's hand 9 (set3 set3 set3 run5): 14 cards and, since every turn ends with a
    # discard, 15 to go down (facts.hand_facts); a buy brings 2 cards (penalty 1). With one
    # buy allowed a seat holds at most 11 + 1 + 2 = 14: version 3 knows it cannot go down,
    # version 2 counted 14 as enough. Two buys reach 16. Under shanghai's no_discard the
    # same 14 cards are enough, so versions 2 and 3 agree there.
    from shanghai_sim.facts import hand_facts
    rc = replace(load_rules("contract"), contracts=(Contract(parse_contract("set3 set3 set3 run5"), 11),),
                 buys_per_hand=(4,))
    f = hand_facts(rc, 4)[0]
    assert (f.cards_to_go_down, f.buys_needed) == (15, 2)
    rs = replace(load_rules("shanghai"), contracts=rc.contracts, buys_per_hand=(4,), buy_penalty=1)
    for rules, spec, can in ((rc, "smart:maxbuys=1", False), (rc, "smart:v=2:maxbuys=1", True),
                             (rc, "smart:maxbuys=2", True), (rs, "smart:maxbuys=1", True),
                             (rs, "smart:v=2:maxbuys=1", True)):
        g = Game(rules=rules, players=4, seed=5, bots=spec)
        assert g.phase != "play"                    # before the first draw: the draw counts
        assert bool(can_hold_contract_nb(g.R, g.G, g.to_act, parse_bot(spec).array())) is can, (rules.name, spec)


def _buy_position(stock: str, passes: int):
    """Seat a + 2 (not the next player) is offered 7S with two buys made. Its hand meets
    set3 run10 with five cards short (three kings, 2S-6S: 7S-JS are missing); 7S lowers
    that to four."""
    r = one_hand("set3 run10")
    g, a = position(r, {0: "2C 3D 4H 5S 6C 7D 9H TS JC QD KH", 2: "KC KS KH 4D 5D 6D 7D 2S 3S 2H 3H 4S 5S 6S"},
                    upcard="7S", stock=stock)
    b = (a + 2) % 4
    S, PS = g.S, g.G.ps
    PS[b, L.PS_BUYS] = 2
    S[L.S_PASSES] = passes
    S[L.S_PHASE] = K.PH_BUY
    S[L.S_ACTOR] = b
    S[L.S_CUR] = (a + 1) % 4
    S[L.S_UP_FROM] = a
    return g, b


def test_no_third_buy_at_deficiency_5_with_a_short_stock():
    g, b = _buy_position("QC QS 8C 4C", passes=3)
    from shanghai_sim.kernels.engine.handmemo import def_of_nb
    assert def_of_nb(g.R, g.G, g.G.hands[b]) == 5
    assert g.bot_action("smart:v=1").kind == "buy"
    assert g.bot_action("smart").kind == "pass"
    # with stock passes left, the hand has time: version 2 buys as version 1
    g, b = _buy_position("QC QS 8C 4C", passes=0)
    assert g.bot_action("smart").kind == "buy"


def test_no_discard_a_visible_collector_can_take_when_a_neutral_card_exists():
    # seat a + 2 (who may buy) took 9H and 9S from the pile: 9C would feed it; 4D is a
    # card of the same points nobody has shown an interest in
    g, a = position(one_hand("set3 set3"), {0: "KC KD KS 9C 4D QH QS", 2: "9H 9S 2D 5C"},
                    known={2: "9H 9S"})
    assert choice(g, "smart") == "4D"
    # and the next player's interest weighs as before: 9C feeds the next player too
    g, a = position(one_hand("set3 set3"), {0: "KC KD KS 9C 4D QH QS", 1: "9H 9S 2D 5C"},
                    known={1: "9H 9S"})
    assert choice(g, "smart:v=1") == "4D" and choice(g, "smart") == "4D"


def test_smart_v1_is_version_1_and_specs_name_an_old_version():
    assert parse_bot("smart").name == "smart"          # the newest version
    assert parse_bot("smart:v=3").name == "smart"
    assert parse_bot("smart:v=2").name == "smart:v=2"
    assert parse_bot("smart:v=1").name == "smart:v=1"
    assert parse_bot("smart:v=1:cut=0.01").name == "smart:v=1:cut=0.01"
    assert parse_bot("smart:cut=0").name == "smart:cut=0"
    v1 = np.array(parse_bot("smart:v=1").params)
    v2 = np.array(parse_bot("smart:cut=0:feed_buy=0:owed=false").params)
    assert (v1 == v2).all()        # version 1 is version 3 with the new behaviours off
    assert (np.array(parse_bot("smart:v=2").params) == np.array(parse_bot("smart:owed=false").params)).all()
    # rollout versions 2 and 3 play over smart version 1 (their games did not change);
    # version 4 over smart version 2, version 5 over smart version 3
    from shanghai_sim.kernels.bots.params import BP_CUT, BP_FEED_BUY, BP_OWED, BP_RACE
    for v in (2, 3):
        rb = np.array(parse_bot(f"rollout:v={v}").params)
        assert rb[BP_CUT] == 0 and rb[BP_FEED_BUY] == 0 and rb[BP_RACE] == 0
    rb = np.array(parse_bot("rollout").params)
    sm = np.array(parse_bot("smart").params)
    assert (rb[BP_CUT], rb[BP_FEED_BUY]) == (sm[BP_CUT], sm[BP_FEED_BUY]) and rb[BP_RACE] > 0
    assert rb[BP_OWED] == sm[BP_OWED] == 1 and np.array(parse_bot("rollout:v=4").params)[BP_OWED] == 0


def test_a_line_up_of_two_versions_of_a_bot_records_both_and_resumes(tmp_path):
    """The real engine: a tournament of smart against smart:v=1 records both versions in
    its manifest and extends on --resume (the version check accepts the list)."""
    import json

    from click.testing import CliRunner

    from shanghai_sim.cli.main import main as cli
    out = tmp_path / "o"
    args = ["tournament", "--bots", "smart,smart:v=1", "--out", str(out), "--quiet"]
    r = CliRunner().invoke(cli, args + ["--deals", "2"])
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["bots"]["versions"] == {"smart": [1, 3]}
    r = CliRunner().invoke(cli, args + ["--deals", "4", "--resume"])
    assert r.exit_code == 0, r.output


def _fish_position(buys_made: int = 2, **rules_kw):
    """Seat a + 2 (not the next player) is offered 2H with ``buys_made`` buys made, in a
    hand of set3 set3 set3 run5 (14 cards: more than the deal of 11 and a draw), four buys
    allowed. Its 17 cards are two short (a nine, and 6S or AS); 2H lowers nothing."""
    kw = {"buys_per_hand": (4,)} | rules_kw
    r = replace(one_hand("set3 set3 set3 run5"), **kw)
    hand = "KC KS KH 4D 4C 4H 9C 9D 2S 3S 4S 5S 7H 8C TD JH QD"
    g, a = position(r, {2: hand}, upcard="2H", stock="QC QS 8D 4C 4D 9C 9D 3H 3S 7C 7D TC")
    b = (a + 2) % 4
    g.G.ps[b, L.PS_BUYS] = buys_made
    g.S[L.S_PHASE] = K.PH_BUY
    g.S[L.S_ACTOR] = b
    g.S[L.S_CUR] = (a + 1) % 4
    g.S[L.S_UP_FROM] = a
    from shanghai_sim.kernels.engine.handmemo import def_of_nb
    assert def_of_nb(g.R, g.G, g.G.hands[b]) == 2
    return g


def test_fishing_buys_a_card_that_lowers_nothing_for_its_penalty_cards():
    # smart's default (fish=0) buys only a card that lowers the deficiency here
    assert _fish_position().bot_action("smart").kind == "pass"
    assert _fish_position().bot_action("smart:fish=99").kind == "buy"
    assert _fish_position().bot_action("smart:fish=2").kind == "buy"
    assert _fish_position().bot_action("smart:fish=1").kind == "pass"     # two short: above 1
    # never with the last buy, never for one penalty card, never where no buy is forced
    assert _fish_position(buys_made=3).bot_action("smart:fish=99").kind == "pass"
    assert _fish_position(buy_penalty=1).bot_action("smart:fish=99").kind == "pass"
    g = _fish_position(contracts=(Contract(parse_contract("set3 set3 set3 run5"), 13),))
    assert g.bot_action("smart:fish=99").kind == "pass"
