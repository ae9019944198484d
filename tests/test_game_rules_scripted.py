"""Scripted positions for the rules the older scripted tests leave out (issue #12, tier b).

Each test puts a position on the table with the public ``Game.set_position`` (never by
writing into the state arrays) and plays the rule through the step API. Positions are
one-hand games (a one-contract rules variant) so that the contract is the one written here.
"""

import pytest

from shanghai_sim.game import Game, GameError, GoDown
from shanghai_sim.kernels.base.codes import END_OUT, END_TURN_CAP
from shanghai_sim.kernels.base.records import HF_STOPPED
from shanghai_sim.rules import Contract, parse_contract, preset

FILL = "2C 3D 4H 5S 6C 7D 9H TS JC QD KH"


def one_hand(contract, base="shanghai", deal=11, **options):
    r = preset(base).replace(contracts=(Contract(parse_contract(contract), deal),),
                             buys_per_hand=(options.pop("buys", 3),), **options)
    g = Game(rules=r, players=4, seed=3, bots="python")
    return g, int(g.view(0)["dealer"])


def legal(g, kind, card=None):
    return [a for a in g.legal_actions() if a.kind == kind and (card is None or a.card == card)]


def act(g, kind, card=None, **match):
    for a in legal(g, kind, card):
        if all(getattr(a, k) == v for k, v in match.items()):
            g.apply(a)
            return a
    raise AssertionError(f"no legal {kind} {card or ''} {match}: {[str(a) for a in g.legal_actions()]}")


def meld_of(g, kind):
    return next(m for m in g.table() if m["kind"] == kind)


def test_layoff_at_both_run_ends_and_ace_high():
    """docs/rules.md §4-§5: a run grows at either end; the ace stands high after the king."""
    g, d = one_hand("set3 run4")
    a = (d + 1) % 4
    g.set_position({a: "TH JH QH KH 9C 9D 9S AH 9H QS QD"}, upcard="2S", stock="3C 4C", play=a)
    g.apply(GoDown(["9C 9D 9S", "TH JH QH KH"]))
    run = meld_of(g, "run")["meld"]
    ends = {(x.card, x.end) for x in legal(g, "layoff") if x.meld == run}
    assert ends == {("AH", "high"), ("9H", "low")}
    act(g, "layoff", "AH", meld=run, end="high")
    assert meld_of(g, "run")["cards"] == ["TH", "JH", "QH", "KH", "AH"]
    assert meld_of(g, "run")["positions"][-1] == 13              # ace high: position 13
    assert meld_of(g, "run")["high"] == "AH"
    assert not [x for x in legal(g, "layoff") if x.meld == run and x.end == "high"]
    act(g, "layoff", "9H", meld=run, end="low")
    assert meld_of(g, "run")["cards"][0] == "9H"
    act(g, "discard", "QS")


def test_joker_limit_counts_jokers_laid_off():
    """docs/rules.md §3 joker_limit = naturals: a lay-off may not give a meld more jokers
    than natural cards."""
    g, d = one_hand("set3 set3")
    a = (d + 1) % 4
    g.set_position({a: "8C 8D JK 9C 9D 9H JK JK KS QS"}, upcard="2S", stock="3C 4C", play=a)
    g.apply(GoDown(["8C 8D JK", "9C 9D 9H"]))
    eights = next(m["meld"] for m in g.table() if m.get("rank") == "8")
    act(g, "layoff", "JK", meld=eights)                       # 2 naturals, 2 jokers: allowed
    assert not [x for x in legal(g, "layoff", "JK") if x.meld == eights]   # a third: refused
    assert [x.meld for x in legal(g, "layoff", "JK")] != []   # the nines may still take one


@pytest.mark.parametrize("second,ok", [("6H 7H 8H 9H", False), ("7H 8H 9H TH", True)])
def test_same_suit_runs_gap_when_going_down(second, ok):
    """docs/rules.md §3 same_suit_runs = gap: two contract runs of one suit need a rank
    between them."""
    g, d = one_hand("run4 run4", same_suit_runs=preset("shanghai").same_suit_runs.__class__.GAP)
    a = (d + 1) % 4
    g.set_position({a: "2H 3H 4H 5H 6H 7H 8H 9H TH KS QS"}, upcard="2S", stock="3C 4C", play=a)
    melds = GoDown(["2H 3H 4H 5H", second])
    if ok:
        g.apply(melds)
        assert g.view(a)["down"][a]
    else:
        with pytest.raises(GameError, match="touch"):
            g.apply(melds)


def test_buys_per_hand_limit():
    """docs/rules.md §3 buys_per_hand: a player who has used its buys is not offered one."""
    g, d = one_hand("set3 set3 set3", buys=1)
    x, nxt, buyer = (d + 2) % 4, (d + 3) % 4, (d + 1) % 4
    g.set_position({q: FILL for q in range(4)} | {x: FILL + " KS"}, upcard="AH",
                   stock="QC QS 8D 8C 3C 3S 4D 4S 5C", play=x)
    act(g, "discard", "KS")
    act(g, "pass")                                             # nxt refuses
    while g.to_act != buyer:
        act(g, "pass")
    act(g, "buy")
    assert g.view(buyer)["buys_left"][buyer] == 0
    offered = []
    for _ in range(40):                                        # play on with passes and draws
        if g.phase == "buy":
            offered.append(g.to_act)
            act(g, "pass")
        elif g.phase in ("first_refusal",):
            act(g, "pass")
        elif g.phase == "draw":
            act(g, "draw")
        elif g.phase == "play":
            act(g, "discard", g.view()["cards"][-1])
        if g.over or g.records()[0, 0, HF_STOPPED] != END_OUT:
            break
    assert offered and buyer not in offered


@pytest.mark.parametrize("may", [False, True])
def test_down_may_buy(may):
    """docs/rules.md §3 down_may_buy: whether a player who is down may buy."""
    g, d = one_hand("set3 set3", down_may_buy=may)
    x = (d + 2) % 4
    first = (d + 1) % 4                                        # first claimant from the dealer's left
    g.set_position({q: FILL for q in range(4)} | {x: FILL + " KS"}, upcard="AH",
                   stock="QC QS 8D 8C 3C 3S", down=(first,), play=x)
    act(g, "discard", "KS")
    act(g, "pass")                                             # the next player refuses
    assert (g.phase == "buy" and g.to_act == first) == may


def test_joker_laid_off_on_a_set_with_a_declared_suit():
    """docs/rules.md §3 set_joker_identity = card: a joker laid off on a set stands for one
    declared card, and each suit is offered."""
    g, d = one_hand("set3 set3", set_joker_identity=preset("contract").set_joker_identity)
    a = (d + 1) % 4
    g.set_position({a: "8C 8D 8H 9C 9D 9H JK KS QS"}, upcard="2S", stock="3C 4C", play=a)
    g.apply(GoDown(["8C 8D 8H", "9C 9D 9H"]))
    eights = next(m["meld"] for m in g.table() if m.get("rank") == "8")
    suits = sorted(x.suit for x in legal(g, "layoff", "JK") if x.meld == eights)
    assert suits == ["C", "D", "H", "S"]
    act(g, "layoff", "JK", meld=eights, suit="S")
    assert next(m for m in g.table() if m["meld"] == eights)["jokers"][-1] == "8S"


def test_turn_cap_stops_the_hand_with_no_winner():
    """docs/rules.md §5.8: after max_hand_turns turns the hand stops, everybody scores."""
    r = preset("shanghai").replace(max_hand_turns=6)
    g = Game(rules=r, players=4, seed=5, bots="greedy:buy=never")
    g.play()
    assert (g.records()[:, 0, HF_STOPPED] == END_TURN_CAP).any()
    ends = [e for e in g.events() if e["event"] == "hand_end"]
    assert any(e["reason"] == "turn_cap" and e["winner"] is None for e in ends)
