"""Scripted positions, one rule of docs/rules.md §3-§5 each, with exact outcomes.

Each test builds a game with every seat played by hand, puts the position it
needs on the table with ``Game.set_position`` (hands, stock top first, the
upcard), and plays the actions of the rule through the step API.
"""

import pytest

from shanghai_sim.cards import card_id
from shanghai_sim.game import Game, GameError, GoDown
from shanghai_sim.kernels.base import codes as K
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.base.records import HF_BLIND, HF_POINTS, HF_STOPPED, HF_WENT_OUT
from shanghai_sim.rules import preset

FILL = "2C 3D 4H 5S 6C 7D 9H TS JC QD KH"


def rig(g, hands, upcard=None, stock="", pile="", down=(), play=None):
    g.set_position(hands, upcard=upcard, stock=stock, pile=pile, down=down, play=play)


def act(g, kind, card=None):
    for a in g.legal_actions():
        if a.kind == kind and (card is None or a.card == card):
            g.apply(a)
            return a
    raise AssertionError(f"no legal {kind} {card or ''}: {[str(a) for a in g.legal_actions()]}")


def new(rules="shanghai", players=4, seed=1):
    g = Game(rules=rules, players=players, seed=seed, bots="python")
    return g, int(g.S[L.S_DEALER])


@pytest.mark.parametrize("rules,first_claimant,penalty", [
    ("shanghai", 1, 2),     # buy_priority = dealer_left: counting from the dealer's left
    ("contract", 0, 1),     # buy_priority = turn_order: counting from the player in turn
])
def test_contested_buy_priority_and_penalty(rules, first_claimant, penalty):
    g, d = new(rules)
    x = (d + 2) % 4                               # x discards; d+3 is next
    rig(g, {q: FILL for q in range(4)} | {x: FILL + " KS"}, upcard="AH",
        stock="QC QS 8D 8C 3C 3S", play=x)
    act(g, "discard", "KS")
    assert g.to_act == (d + 3) % 4 and g.phase == "first_refusal"
    act(g, "pass")
    # candidates: not the discarder, not the next player
    buyer = (d + first_claimant) % 4
    assert g.to_act == buyer and g.phase == "buy"
    act(g, "buy")
    cards = g.hand_cards(buyer)
    assert "KS" in cards and len(cards) == 11 + 1 + penalty
    assert g.to_act == (d + 3) % 4                # the next player now draws from the stock
    ev = [e for e in g.events() if e["event"] == "buy"][-1]
    assert ev["card"] == "KS" and ev["penalty"] == ["QC", "QS", "8D"][:penalty]


def test_down_player_can_neither_block_nor_buy():
    g, d = new()
    x, nxt, other = (d + 1) % 4, (d + 2) % 4, (d + 3) % 4
    rig(g, {q: FILL for q in range(4)} | {x: FILL + " KS"}, upcard="AH",
        stock="QC QS 8D", down=(nxt, other), play=x)
    act(g, "discard", "KS")
    # nxt is down: no first refusal; `other` is down: not asked; only the dealer may buy
    assert g.phase == "buy" and g.to_act == d
    act(g, "pass")
    # nobody bought: the down next player may still take it as the draw
    assert g.phase == "draw" and g.to_act == nxt
    act(g, "take")
    assert "KS" in g.hand_cards(nxt)


def test_joker_swap_by_a_player_not_yet_down_must_then_go_down():
    g, d = new()
    a, b = (d + 1) % 4, (d + 2) % 4
    rig(g, {a: "8C 8D JK 9C 9D 9H KS QS", b: "8H 5C 5D 5H 2S 2D 7C 7D KD"},
        upcard="AH", stock="QC QH TD", play=a)
    g.apply(GoDown(["8C 8D JK", "9C 9D 9H"]))
    assert g.table()[0]["jokers"] == [None, None, "8"]      # set_joker_identity = rank
    act(g, "discard", "KS")
    act(g, "pass")                                          # b refuses QS
    while g.phase == "buy":
        act(g, "pass")
    assert g.to_act == b and g.phase == "play"              # b drew QC
    swap = [x for x in g.legal_actions() if x.kind == "swap"]
    assert [x.card for x in swap] == ["8H"]
    g.apply(swap[0])
    assert "JK" in g.hand_cards(b)
    assert [x.kind for x in g.legal_actions()] == ["go_down"]   # no discard before going down
    with pytest.raises(GameError):
        g.apply(K.action_nb(K.A_DISCARD, card_id("KD"), 0, 0))
    act(g, "go_down")
    assert g.view(b)["down"][b]


def test_joker_swap_down_only_refused_to_a_player_not_down():
    g, d = new("contract")
    a, b = (d + 1) % 4, (d + 2) % 4
    rig(g, {a: "8C 8D JK 9C 9D 9H KS", b: "8H 5C 5D 5H 2S 2D 7C 7D KD"},
        upcard="AH", stock="QC QH TD", play=a)
    g.apply(GoDown(["8C 8D JK", "9C 9D 9H"]))
    assert g.table()[0]["jokers"][2] in ("8H", "8S")         # set_joker_identity = card
    act(g, "discard", "KS")
    act(g, "pass")
    while g.phase == "buy":
        act(g, "pass")
    assert not [x for x in g.legal_actions() if x.kind == "swap"]


@pytest.mark.parametrize("rules,allowed", [("shanghai", False), ("contract", True)])
def test_going_out_by_discard(rules, allowed):
    g, d = new(rules)
    a = (d + 1) % 4
    rig(g, {a: "KS"}, upcard="AH", stock="QC QH TD", down=(a,), play=a)
    if not allowed:       # go_out = no_discard: a discard must leave a card in hand
        assert not g.legal_actions()
        with pytest.raises(GameError):
            g.apply(K.action_nb(K.A_DISCARD, card_id("KS"), 0, 0))
    else:
        act(g, "discard", "KS")
        rec = g.records()
        assert rec[0, a, HF_WENT_OUT] == 1 and rec[0, a, HF_POINTS] == 0


@pytest.mark.parametrize("hand,bonus", [("8C 8D 8H 9C 9D 9H 4S", -50), ("8C 8D JK 9C 9D 9H 4S", -25)])
def test_blind_bonus(hand, bonus):
    g, d = new("contract")
    a = (d + 1) % 4
    rig(g, {a: hand}, upcard="AH", stock="QC QH TD", play=a)
    act(g, "go_down")
    act(g, "discard", "4S")            # go_out = discard_required: out by discarding the last card
    rec = g.records()
    assert rec[0, a, HF_WENT_OUT] == 1 and rec[0, a, HF_BLIND] == 1
    assert rec[0, a, HF_POINTS] == bonus


def test_no_blind_bonus_under_shanghai():
    g, d = new("shanghai")
    a = (d + 1) % 4
    rig(g, {a: "8C 8D 8H 9C 9D 9H"}, upcard="AH", stock="QC", play=a)
    act(g, "go_down")                  # melds every card: out, blind, but no bonus in this preset
    rec = g.records()
    assert rec[0, a, HF_WENT_OUT] == 1 and rec[0, a, HF_BLIND] == 1 and rec[0, a, HF_POINTS] == 0


def test_exact_melds_and_no_layoff_on_the_going_down_turn():
    g, d = new("contract")
    a = (d + 1) % 4
    rig(g, {a: "8C 8D 8H 8S 9C 9D 9H KS KD"}, upcard="AH", stock="QC", play=a)
    with pytest.raises(GameError, match="size"):
        g.apply(GoDown(["8C 8D 8H 8S", "9C 9D 9H"]))
    act(g, "go_down")
    assert sorted(len(m["cards"]) for m in g.table()) == [3, 3]
    assert not [x for x in g.legal_actions() if x.kind == "layoff"]   # 8S waits a turn


@pytest.mark.parametrize("passes,stopped", [(0, True), (1, False)])
def test_hand_stops_after_max_stock_passes(passes, stopped):
    r = preset("shanghai").replace(max_stock_passes=passes)
    g = Game(rules=r, players=4, seed=1, bots="python")
    d = int(g.S[L.S_DEALER])
    x, nxt = (d + 1) % 4, (d + 2) % 4
    rig(g, {q: FILL for q in range(4)} | {x: FILL + " KS"}, upcard="AH",
        stock="", pile="3C 4C", play=x)
    act(g, "discard", "KS")
    act(g, "pass")
    while g.phase == "buy":
        act(g, "pass")
    if stopped:                        # nothing can be drawn: no winner, everybody scores
        rec = g.records()
        assert rec[0, 0, HF_STOPPED] == K.END_STOCK and rec[0, :, HF_WENT_OUT].sum() == 0
        assert (rec[0, :, HF_POINTS] > 0).all()
    else:
        ev = [e for e in g.events() if e["event"] == "reshuffle"][-1]
        assert ev["cards"] == 3 and ev["upcard_kept"] == "KS"
        assert g.to_act == nxt and len(g.hand_cards(nxt)) == 12


def test_python_seat_against_bots_and_play_to_the_end():
    g = Game(rules="shanghai", players=3, seed=4, bots=["python", "greedy", "random"])
    g.advance()
    assert g.to_act == 0 or g.over
    if not g.over:
        acts = g.legal_actions()
        assert acts and all(str(a) for a in acts)
        g.apply(acts[-1])
    totals = g.play()
    assert g.over and len(totals) == 3 and g.ranking()
