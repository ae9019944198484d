"""shanghai_sim.valuing: the studies' one call into the search ("value these candidate actions in
this position on K samples") and "what would this bot choose here". Checked against the kernel
path the analyses took before it existed (the same numbers, bit for bit, on fixed seeds), against
a fact of the rules (a seat that goes out scores 0, whatever the samples), for leaving the game as
it was, and for one-line errors on bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shanghai_sim.game import Game
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.base.rng import game_seed_nb, seed_state_nb
from shanghai_sim.kernels.search.oracle import oracle_search_nb
from shanghai_sim.kernels.search.rollout import search_nb
from shanghai_sim.bots import parse_bot
from shanghai_sim.rules import load_rules
from shanghai_sim.valuing import (BUY_CHART_DEF_CAP, BUY_CHARTS, Choice, SeatCounters, Valuation, ValuingError,
                                  bot_choice, seat_counters, value_actions, value_actions_staged)


def one_hand(preset: str, n: int = 1):
    """The preset with hand n as its only hand (as the studies play it)."""
    r = load_rules(preset)
    return r.replace(contracts=(r.contracts[n - 1],), buys_per_hand=(r.buys_per_hand[n - 1],),
                     name=f"{r.name} (hand {n} only)")


def at(want, preset="contract", seed=3, bots="smart", hand=1) -> Game:
    """A seeded one-hand game of four ``bots``, stepped to the first position where ``want(g)``."""
    g = Game(rules=one_hand(preset, hand), players=4, seed=seed, bots=bots)
    while not g.over and not want(g):
        g.step()
    assert not g.over, "no such position in this game"
    return g


def buy_position(g: Game) -> bool:
    return g.phase == "buy" and any(a.kind == "buy" for a in g.legal_actions())


def kinds(g: Game) -> dict:
    return {a.kind: a for a in g.legal_actions()}


def state(g: Game) -> dict[str, np.ndarray]:
    """The game's arrays, once the legal actions are listed (listing them fills the state's
    cached answers: whether the seat can go down, its deficiency)."""
    g.legal_actions()
    return {f: a.copy() for f, a in zip(L.State._fields, g.G)}


def same_state(a: dict[str, np.ndarray], g: Game) -> bool:
    """The game arrays as they were, scratch aside: the engine's scratch rows, the lay-down
    and legal-action buffers, the meld finder's memo and scratch and the hand memo (any look-up
    writes them; nothing reads them as state)."""
    scratch = {"scr", "ld", "buf", "log", *L.State._fields[L.NGAME:]}
    n = int(g.S[L.S_LOG_N])
    return (all(np.array_equal(x, getattr(g.G, f)) for f, x in a.items() if f not in scratch)
            and np.array_equal(a["log"][:n], g.G.log[:n]))     # the events logged, no more


def kernel_sums(g: Game, codes, bp, stages, seed=None, search=search_nb):
    """The kernel path analyses/when_to_buy.py and search_budget.py took before valuing.py:
    the candidates written into the workspace, ``search_nb`` over each stage's samples, the
    sums read back: [(k, RF_SUM row, RF_DSQ row)]."""
    p = g.to_act
    W = g.workspace()
    cand = W.ri[L.RI_CAND]
    cand[:len(codes)] = codes
    st = g.G.rng[L.RNG_BOT0 + p]
    keep = st.copy()
    if seed is not None:
        seed_state_nb(np.uint64(seed), st)
    out, k0 = [], 0
    for k in stages:
        truth = (g.G.hands, g.G.stock) if search is oracle_search_nb else ()     # the oracle's own arguments
        assert search(g.R, g.G, W, np.int64(p), bp, np.int64(len(codes)), np.int64(k0), np.int64(k), *truth)
        RF = W.rf
        out.append((k, RF[L.RF_SUM, :len(codes)].copy(), RF[L.RF_DSQ, :len(codes)].copy()))
        k0 = k
    st[:] = keep
    return out


def test_a_buy_is_valued_as_the_kernels_valued_it_for_when_to_buy():
    """Passing against buying on the seat's own stream, K then K more: the numbers of the
    kernel path, bit for bit (analyses/when_to_buy.py's value_k, se_k, value_2k, se_2k)."""
    g = at(buy_position)
    ev = parse_bot("rollout")
    K = 6
    got = value_actions_staged(g, [kinds(g)["pass"], kinds(g)["buy"]], [K, 2 * K])
    want = kernel_sums(g, [kinds(g)["pass"].code, kinds(g)["buy"].code], ev.array(), [K, 2 * K])
    assert [v.samples for v in got] == [K, 2 * K]
    for v, (k, s, dsq) in zip(got, want):
        d = (s[1] - s[0]) / k
        var = (dsq[1] / k - d * d) * k / (k - 1)
        assert v.diff == (0.0, float(d)) and v.se == (0.0, float(np.sqrt(max(var, 0.0) / k)))
        assert v.mean == (float(s[0]) / k, float(s[1]) / k)
        assert v.seat == g.to_act and [a.kind for a in v.actions] == ["pass", "buy"]
    # the first stage alone is value_actions on K samples
    assert value_actions(g, [kinds(g)["pass"], kinds(g)["buy"]], K) == got[0]


def test_a_departure_is_valued_as_the_kernels_valued_it_for_search_budget():
    """Two play-phase actions on a stream seeded apart (search_budget.py's game_seed(seed, 1 +
    64 decision + j)), by action code, with the oracle evaluator too (its own kernel,
    ``oracle_search_nb``, and only with diagnostic=True): the kernel path's sums."""
    g = at(lambda g: g.phase == "play" and sum(a.kind == "discard" for a in g.legal_actions()) >= 3, seed=5)
    discards = [a for a in g.legal_actions() if a.kind == "discard"][:3]
    seed = int(game_seed_nb(np.uint64(200), np.uint64(1 + 64 * 3 + 1)))
    for spec, search in (("rollout", search_nb), ("rollout:oracle=hands", oracle_search_nb)):
        ev = parse_bot(spec)
        v = value_actions(g, np.array([a.code for a in discards]), 8, evaluator=spec, seed=seed,
                          diagnostic=search is oracle_search_nb)
        ((k, s, dsq),) = kernel_sums(g, [a.code for a in discards], ev.array(), [8], seed=seed, search=search)
        for i in (1, 2):
            d = (s[i] - s[0]) / k
            assert v.diff[i] == d and v.se[i] == math.sqrt(max((dsq[i] / k - d * d) * k / (k - 1), 0.0) / k)
        assert v.actions == tuple(discards)
    with pytest.raises(ValuingError, match=r"^value_actions: evaluator: bot spec 'rollout:oracle=hands' is a "
                                           r"diagnostic that cheats .*give diagnostic=True"):
        value_actions(g, discards[:2], 8, evaluator="rollout:oracle=hands")
    with pytest.raises(ValuingError, match=r"^bot_choice: bot spec 'rollout:oracle=deal' .*diagnostic=True"):
        bot_choice(g, "rollout:oracle=deal")


def test_going_out_scores_nothing_in_every_sample():
    """A fact of the rules, not of the search: a seat that goes out scores 0 points in the hand
    (docs/rules.md §5.6; no blind bonus: it is down already), so its last card played is worth 0 on every sample; its other cards
    are worth at least 0."""
    for preset in ("contract", "shanghai"):
        g = at(lambda g: g.phase == "play" and g.view()["hand_sizes"][g.to_act] == 1, preset, bots="greedy")
        legal = g.legal_actions()
        v = value_actions(g, legal, 8, seed=1)
        assert v.mean == (0.0,) * len(legal) and v.diff == v.se == (0.0,) * len(legal)
    g = at(lambda g: g.phase == "play" and len([a for a in g.legal_actions() if a.kind == "discard"]) >= 4)
    v = value_actions(g, [a for a in g.legal_actions() if a.kind == "discard"], 16, seed=2)
    assert all(m >= 0 for m in v.mean) and all(s >= 0 for s in v.se)
    assert all(d == pytest.approx(m - v.mean[0]) for d, m in zip(v.diff, v.mean))


def test_the_same_question_gets_the_same_answer_and_leaves_the_game_as_it_was():
    g = at(buy_position, seed=7)
    before = state(g)
    cands = [kinds(g)["buy"], kinds(g)["pass"]]
    a = value_actions(g, cands, 8)
    assert same_state(before, g)                   # the seat's stream restored, nothing else touched
    assert value_actions(g, cands, 8) == a          # the seat's own stream: the same samples again
    b = value_actions(g, cands, 8, seed=9)
    assert value_actions(g, cands, 8, seed=9) == b and same_state(before, g)
    assert b != a                                   # another stream, other samples
    assert isinstance(a, Valuation) and a.diff[0] == 0.0 and a.samples == 8


def test_a_game_valued_at_every_buy_plays_as_the_game_not_valued():
    """Valuing is a question: the game goes on as its seeded bots play it (the studies rely on it)."""
    def play(value: bool):
        g = Game(rules=one_hand("contract", 8), players=4, seed=11, bots="smart")
        while not g.over:
            if value and buy_position(g):
                assert value_actions(g, [kinds(g)["pass"], kinds(g)["buy"]], 2) is not None
                assert bot_choice(g, "rollout:rollouts=2:race=0").action in g.legal_actions()
            g.step()
        return g.events(), g.totals()
    assert play(True) == play(False)


def test_bot_choice_is_the_bots_action_and_counts_its_playouts():
    g = at(lambda g: g.phase == "play", seed=4)
    before = state(g)
    c = bot_choice(g, "rollout:rollouts=4:race=0")
    assert isinstance(c, Choice) and c.playouts > 0 and c.seconds > 0 and same_state(before, g)
    again = bot_choice(g, "rollout:rollouts=4:race=0")           # the seat's stream was restored: the same search
    assert again._replace(seconds=0.0) == c._replace(seconds=0.0)
    s = bot_choice(g, parse_bot("smart"))
    assert s.playouts == 0 and same_state(before, g)
    assert c.action == g.bot_action("rollout:rollouts=4:race=0") and s.action == g.bot_action("smart")


def test_a_view_that_does_not_add_up_values_nothing():
    """A scripted position that breaks card conservation: the search cannot sample it."""
    g = Game(rules="contract", players=4, seed=1, bots="greedy")
    g.set_position({0: "5C 6C 7C 8C 9C TC JC QC KC AC 2D"}, upcard="5C", stock="3H 4H")
    before = state(g)
    assert value_actions(g, g.legal_actions(), 4) is None and same_state(before, g)


@pytest.mark.parametrize("call, words", [
    (lambda g: value_actions(g, [], 4), "give 1 to"),
    (lambda g: value_actions(g, g.legal_actions()[0], 4), "as a list"),
    (lambda g: value_actions(g, "draw", 4), "as a list"),
    (lambda g: value_actions(g, [1 << 30], 4), "is not a legal action of seat"),
    (lambda g: value_actions(g, ["take"], 4), "neither an Action nor an action code"),
    (lambda g: value_actions(g, [True], 4), "neither an Action nor an action code"),
    (lambda g: value_actions(g, g.legal_actions()[:1] * 2, 4), "given twice"),
    (lambda g: value_actions(g, g.legal_actions(), 1), "samples = 1: must be 2..1048576 (the standard error"),
    (lambda g: value_actions(g, g.legal_actions(), 2.5), "samples = 2.5: expected an integer"),
    (lambda g: value_actions(g, g.legal_actions(), 1 << 21), "samples = 2097152: must be 2.."),
    (lambda g: value_actions_staged(g, g.legal_actions(), [8, 8]), "each must have more samples"),
    (lambda g: value_actions_staged(g, g.legal_actions(), []), "as a list"),
    (lambda g: value_actions(g, g.legal_actions(), 4, evaluator="smart"), "evaluator 'smart' is not a rollout spec"),
    (lambda g: value_actions(g, g.legal_actions(), 4, evaluator="rollout:nosuch=1"), "unknown parameter 'nosuch'"),
    (lambda g: value_actions(g, g.legal_actions(), 4, evaluator=3), "expected a bot spec string"),
    (lambda g: value_actions(g, g.legal_actions(), 4, seed=-1), "seed = -1: must be 0.."),
    (lambda g: value_actions(g, g.legal_actions(), 4, seed=1 << 64), "seed = 18446744073709551616"),
    (lambda g: value_actions("game", [], 4), "expected a shanghai_sim.game.Game"),
    (lambda g: bot_choice(g, "nosuchbot"), "bot_choice: unknown bot 'nosuchbot'"),
    (lambda g: seat_counters(g, 4), "seat_counters: seat 4: give 0..3"),
    (lambda g: seat_counters(g, True), "seat_counters: seat True: give 0..3"),
    (lambda g: seat_counters(None, 0), "expected a shanghai_sim.game.Game"),
])
def test_bad_requests_are_one_line(call, words):
    g = at(lambda g: g.phase == "play", seed=2, bots="greedy")
    before = state(g)
    with pytest.raises(ValuingError) as e:
        call(g)
    msg = str(e.value)
    assert words in msg and "\n" not in msg, msg
    assert same_state(before, g)


def test_a_game_that_is_over_has_nothing_to_value():
    g = Game(rules=one_hand("contract"), players=4, seed=1, bots="greedy")
    g.play()
    for call in (lambda: value_actions(g, [], 4), lambda: bot_choice(g, "smart")):
        with pytest.raises(ValuingError, match="the game is over"):
            call()


def test_seat_counters_count_the_turns_and_buys_the_log_and_records_show():
    """Each seat's counters at every decision of a hand, against its events (the buys it made;
    the turns it began: its draws, and the turn in progress not drawn yet), and at the hand's
    end against the hand's records."""
    from shanghai_sim.kernels.base.records import HF_BUYS, HF_TURNS
    g = Game(rules=one_hand("shanghai", 8), players=4, seed=3, bots="smart")
    buys = 0
    while not g.over:
        ev = g.events()
        for q in range(4):
            c = seat_counters(g, q)
            assert isinstance(c, SeatCounters)
            assert c.buys == sum(e["event"] == "buy" and e["seat"] == q for e in ev)
            assert c.turns - sum(e["event"] == "draw" and e["seat"] == q for e in ev) in (0, 1)
        buys += c.buys
        g.step()
    rec = g.records()[0]
    assert [tuple(seat_counters(g, q)) for q in range(4)] == [(rec[q, HF_TURNS], rec[q, HF_BUYS]) for q in range(4)]
    assert buys > 0


def test_the_buy_charts_are_the_ones_smart_reads():
    """``BUY_CHARTS``: every chart a smart spec can name (``chartN=NAME``), rows over the
    deficiency columns 0..BUY_CHART_DEF_CAP."""
    from shanghai_sim.bots import BOTS
    chart = next(p for p in BOTS["smart"].params if p.key == "chart")
    assert set(BUY_CHARTS) == {name for name, _ in chart.choices} - {"none"}
    for source, rows in BUY_CHARTS.values():
        assert "analyses/results/when_to_buy" in source
        assert all(len(r) == BUY_CHART_DEF_CAP + 1 for lowers in (False, True) for r in rows[lowers])
