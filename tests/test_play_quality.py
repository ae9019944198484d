"""The counters of benchmarks/bench_play_quality.py (issue #13, "play that looks like play"):
scripted positions for what one discard counts, and a few whole games whose counts must
agree with their event logs. Correctness only: no timings."""

from __future__ import annotations

import numpy as np
import pytest

from shanghai_sim.cards import card_id
from shanghai_sim.game import Game, GoDown, game_events
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.base import codes as K
from shanghai_sim.kernels.base.records import HF_BUYS, HF_DOWN_TURN, NHF


@pytest.fixture(scope="module")
def B():
    """benchmarks/bench_play_quality.py, whose counters these tests check."""
    from benchmarks import bench_play_quality
    return bench_play_quality

FILL = "2C 3D 4H 5S 6C 7D 9H TS JC QD KH"


def discard(card: str) -> int:
    return int(K.action_nb(K.A_DISCARD, card_id(card), 0, 0))


def scripted(hands, down=(), rules="shanghai"):
    """A game played by hand; seat a = the dealer's left is to play (drawn already)."""
    g = Game(rules=rules, players=4, seed=1, bots="python")
    a = (int(g.S[L.S_DEALER]) + 1) % 4
    g.set_position({q: FILL for q in range(4)} | {(a + k) % 4: h for k, h in hands.items()},
                   upcard="AH", stock="QC QS 8D 4C 4D", down=[(a + k) % 4 for k in down], play=a)
    return g, a


def test_a_joker_discarded_with_a_natural_in_hand_is_counted(B):
    g, _ = scripted({0: "JK 5C 9D"})
    t = B.Tally(hands=10)
    B.observe(g, discard("JK"), t)
    assert (t.discards, t.joker_discards, t.joker_with_natural) == (1, 1, 1)
    B.observe(g, discard("5C"), t)               # a natural: a discard, no joker
    assert (t.discards, t.joker_discards, t.joker_with_natural) == (2, 1, 1)
    assert t.joker_natural_per_1000() == 500.0


def test_a_joker_discarded_from_jokers_only_is_not_held_against_it(B):
    g, _ = scripted({0: "JK JK"})
    t = B.Tally(hands=10)
    B.observe(g, discard("JK"), t)
    assert (t.discards, t.joker_discards, t.joker_with_natural) == (1, 1, 0)


def test_a_layable_discard_to_a_down_next_player_is_counted(B):
    # seat a goes down with two sets (8s and 9s); the next player is down
    g, a = scripted({0: "8C 8D 8H 9C 9D 9H 8S 7C KS QS"}, down=(1,))
    g.apply(GoDown(["8C 8D 8H", "9C 9D 9H"]))
    assert g.view(a)["down"][a] and g.view(a)["down"][(a + 1) % 4]
    t = B.Tally(hands=10)
    B.observe(g, discard("8S"), t)               # fits the set of eights
    assert (t.to_down, t.layable_to_down, t.layable_avoidable) == (1, 1, 1)
    B.observe(g, discard("KS"), t)               # fits nothing
    assert (t.to_down, t.layable_to_down) == (2, 1)
    assert t.layable_rate() == 0.5
    assert t.discards == 2
    # the counter looks at the table the discard is made on: apply it, the hand goes on
    g.apply(discard("8S"))
    assert g.table()[0]["cards"] == ["8C", "8D", "8H"]


def test_discards_to_a_next_player_not_down_are_not_counted(B):
    g, a = scripted({0: "8C 8D 8H 9C 9D 9H 8S 7C KS QS"}, down=(2,))   # the player after next
    g.apply(GoDown(["8C 8D 8H", "9C 9D 9H"]))
    t = B.Tally(hands=10)
    B.observe(g, discard("8S"), t)
    assert (t.discards, t.to_down, t.layable_to_down) == (1, 0, 0)


def test_a_discard_that_goes_out_has_no_next_player(B):
    g, a = scripted({0: "8C 8D 8H 9C 9D 9H 8S"}, down=(1,), rules="contract")
    g.apply(GoDown(["8C 8D 8H", "9C 9D 9H"]))
    assert g.hand_cards(a) == ["8S"]
    t = B.Tally(hands=10)
    B.observe(g, discard("8S"), t)               # discard_required: going out by this discard
    assert (t.discards, t.to_down, t.layable_to_down) == (1, 0, 0)


def test_a_layable_discard_with_nothing_else_to_throw_is_not_avoidable(B):
    g, a = scripted({0: "8C 8D 8H 9C 9D 9H 8S 9S"}, down=(1,))
    g.apply(GoDown(["8C 8D 8H", "9C 9D 9H"]))
    t = B.Tally(hands=10)
    B.observe(g, discard("8S"), t)               # 9S would feed the nines as well
    assert (t.to_down, t.layable_to_down, t.layable_avoidable) == (1, 1, 0)


def test_buys_are_bucketed_by_the_buyers_deficiency_and_players_short_of_buys_counted(B):
    g = Game(rules="shanghai", players=4, seed=1, bots="greedy")
    hands = g.rules.hands
    rec = np.zeros((hands, 4, NHF), dtype=np.int32)
    rec[:, :, HF_DOWN_TURN] = 3
    rec[7, 0, HF_BUYS], rec[7, 0, HF_DOWN_TURN] = 3, -1     # hand 8: all 3 buys, never down
    rec[7, 1, HF_BUYS], rec[7, 1, HF_DOWN_TURN] = 2, -1     # buys left: not counted
    rec[8, 2, HF_BUYS] = 4                                   # all 4 buys, but went down

    class Done:
        players, R, G = 4, g.R, g.G

        @staticmethod
        def records():
            return rec

    g.G.s[L.S_HANDS_DONE] = hands
    t = B.Tally(hands=hands)
    B.close_game(Done, t)
    assert t.all_buys_not_down == [0] * 7 + [1, 0, 0]
    assert t.seat_hands == [4] * hands and t.hands_n == [1] * hands
    assert B._bucket(0) == 0 and B._bucket(4) == 4 and B._bucket(9) == 5


@pytest.mark.parametrize("rules,bot,seed", [("shanghai", "greedy", 3), ("contract", "smart", 4)])
def test_whole_games_agree_with_their_event_logs(rules, bot, seed, B):
    events, rec = game_events(rules, 4, seed=seed, bots=bot)
    g = Game(rules, 4, seed=seed, bots=bot)
    t = B.Tally(hands=g.rules.hands)
    totals = B.play_counted(g, t)
    assert totals == events[-1]["totals"]                  # counting did not change the game
    assert (g.records() == rec).all()
    disc = [e for e in events if e["event"] == "discard"]
    assert t.discards == len(disc)
    assert t.joker_discards == sum(e["card"] == "JK" for e in disc)
    assert sum(map(sum, t.buys)) == sum(e["event"] == "buy" for e in events)
    ends = [e for e in events if e["event"] == "hand_end"]
    assert t.stock == [int(e["reason"] == "stock") for e in ends]
    assert t.turn_cap == [int(e["reason"] == "turn_cap") for e in ends]
    assert t.games == 1 and t.hands_n == [1] * g.rules.hands
    assert 0 <= t.layable_to_down <= t.to_down < t.discards


def test_measure_makes_tables_and_the_ratio(B):
    res = B.measure(presets=("shanghai",), games=1)
    assert res["name"] == "play_quality" and len(res["tables"]) == 3
    assert set(res["figures"]["layable_ratio"]["shanghai"]) == {"smart"}
    assert all(t["rows"] for t in res["tables"])
