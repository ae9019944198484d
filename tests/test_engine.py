"""The engine under fuzz: seeded games by random and greedy bots, checks on after every action.

With ``check`` on, the kernel verifies after every action: card conservation
(stock + pile + hands + table = the shoe), hand-size bookkeeping, and the
validity of every table meld under the rules (docs/rules.md §4, joker_limit).
"""

import numpy as np
import pytest

from shanghai_sim.bots import parse_bots
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.base import codes as K
from shanghai_sim.kernels.engine.godown import can_go_down_nb, go_down_possible_nb
from shanghai_sim.kernels.engine.handmemo import def_of_nb, hand_def_nb
from shanghai_sim.kernels.engine.state import def_restore_nb, def_saved_nb
from shanghai_sim.kernels.engine.table import do_swap_nb, fit_mask_nb, fits_nb, swap_struct_nb, undo_swap_nb
from shanghai_sim.kernels.games.batch import play_game_nb, play_games_nb
from shanghai_sim.kernels.base.records import (HF_CARDS_LEFT, HF_POINTS, HF_STOPPED, HF_WENT_OUT, NHF)
from shanghai_sim.rules import preset

PRESETS = ["shanghai", "contract", "progressive"]


def _fuzz(name, players, bots, seeds):
    r = preset(name).with_players(players)
    R = r.arrays(players)
    kinds, params = parse_bots(bots, players)
    G = L.new_state(R, 0)
    W = L.new_workspace(R)
    for seed in seeds:
        err = play_game_nb(R, G, W, True, None, kinds, params, np.uint64(seed), 0, 1)
        assert err == K.E_OK, f"{name} {players}p {bots} seed {seed}: error {err}"
        assert G.s[L.S_PHASE] == K.PH_OVER          # every game ends
        rec = G.rec[:, :players]
        for h in range(r.hands):
            out = rec[h, :, HF_WENT_OUT]
            assert out.sum() <= 1
            if out.sum() == 1:
                assert rec[h, 0, HF_STOPPED] == K.END_OUT
                w = int(np.argmax(out))
                assert rec[h, w, HF_CARDS_LEFT] == 0
            else:
                assert rec[h, 0, HF_STOPPED] in (K.END_STOCK, K.END_TURN_CAP)
            for q in range(players):
                if not out[q]:
                    # scores equal the cards left: nothing left scores 0, else > 0 unless all zero-valued
                    assert (rec[h, q, HF_POINTS] > 0) == (rec[h, q, HF_CARDS_LEFT] > 0)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("players", range(2, 9))
def test_fuzz_random_and_greedy(name, players):
    _fuzz(name, players, "random", range(3))
    _fuzz(name, players, "greedy", range(3))
    _fuzz(name, players, ["greedy", "random"] * 4 if players == 8 else
          (["greedy", "random"] * 4)[:players], range(2))


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("players", range(2, 9))
def test_fuzz_large(name, players):
    _fuzz(name, players, "random", range(100, 400))
    _fuzz(name, players, "greedy", range(100, 400))


def _batch(name, players, bots, seeds):
    r = preset(name).with_players(players)
    A = r.arrays(players)
    kinds, params = parse_bots(bots, players)
    out = np.zeros((len(seeds), r.hands, players, NHF), np.int32)
    play_games_nb(*A, kinds, params, np.asarray(seeds, np.uint64), out)
    return out


def test_batch_depends_only_on_seed():
    seeds = np.array([11, 12, 13, 14], np.uint64)
    a = _batch("shanghai", 4, "greedy", seeds)
    b = _batch("shanghai", 4, "greedy", seeds[::-1].copy())[::-1]
    c = _batch("shanghai", 4, "greedy", seeds[2:3])
    assert (a == b).all()
    assert (a[2] == c[0]).all()


def test_batch_matches_logged_game():
    from shanghai_sim.game import game_events
    out = _batch("contract", 4, "greedy", [99])
    events, rec = game_events("contract", 4, 99, "greedy")
    assert (rec == out[0]).all()
    ends = [e for e in events if e["event"] == "hand_end"]
    assert [e["scores"] for e in ends] == out[0, :, :, HF_POINTS].tolist()


def _swap_tries(R, G, p):
    """(card, meld, slot) of every joker on the table that a natural of seat p may replace."""
    TM, H = G.table, G.hands
    for m in range(int(G.s[L.S_NT])):
        for slot in range(L.TW):
            if G.tcards[m, slot] != L.JOKER:
                continue
            key = int(TM[m, L.TM_KEY])
            cands = ([key * 13 + slot % 13] if TM[m, L.TM_KIND] == L.RUN
                     else [s * 13 + key for s in range(4)])
            for c in cands:
                if H[p, c] > 0 and swap_struct_nb(R, G, c, m, slot):
                    yield c, m, slot


@pytest.mark.parametrize("name, players", [("shanghai", 4), ("progressive", 3),
                                           ("contract", 5), ("shanghai", 2)])
def test_go_down_possible_matches_the_search(name, players):
    """go_down_possible_nb (which skips the lay-down search when the hand's size decides)
    answers as can_go_down_nb, on real hands and on hands with a joker swap tried.
    Random bots buy often, so the hands grow large and both answers come up."""
    from shanghai_sim.game import Game
    seen = {True: 0, False: 0}
    for seed in range(4):
        g = Game(rules=name, players=players, seed=seed, bots="random")
        R, G = g.R, g.G
        PS = G.ps
        while not g.over:
            S = G.s
            p = int(S[L.S_ACTOR])
            if S[L.S_PHASE] == K.PH_PLAY and PS[p, L.PS_DOWN] == 0 and hand_def_nb(R, G, p) <= 1:
                tries = [None] + list(_swap_tries(R, G, p))
                for t in tries:
                    if t is not None:
                        saved = def_saved_nb(G, p)
                        ident = do_swap_nb(G, p, *t)
                    fast = bool(go_down_possible_nb(R, G, p))
                    full = bool(can_go_down_nb(R, G, p))
                    assert fast == full, f"{name} seed {seed} action {S[L.S_NACT]} swap {t}"
                    seen[full] += 1
                    if t is not None:
                        undo_swap_nb(G, p, *t, ident)
                        def_restore_nb(G, p, saved)
                S[L.S_GD_AT] = 0       # GD was rewritten for the tried hands
            g.step()
    assert seen[True] > 0 and seen[False] > 0, seen


# ---------------------------------------------------------------- the search workspace W
# kernels.games.dispatch: a line-up without a search bot runs the engine with W = None, which numba
# compiles without the rollout kernels. The two engines must play the same games.

def test_engine_without_workspace_plays_the_same_games():
    from shanghai_sim.kernels.games.batch import play_games_on_nb
    r = preset("shanghai")
    R = r.arrays(4)
    kinds, params = parse_bots("smart,greedy,random,greedy", 4)
    seeds = np.array([3, 4, 5], np.uint64)
    outs = []
    for W in (None, L.new_workspace(R)):
        out = np.zeros((len(seeds), r.hands, 4, NHF), np.int32)
        assert play_games_on_nb(R, L.new_state(R, 0), W, True, None, kinds, params, seeds, out) == -1
        outs.append(out)
    assert (outs[0] == outs[1]).all()


def test_a_search_bot_without_workspace_stops_the_engine():
    # never another bot in its seat: the engine refuses the "no workspace" action
    from shanghai_sim.kernels.games.dispatch import needs_workspace
    r = preset("shanghai")
    R = r.arrays(4)
    kinds, params = parse_bots("rollout,greedy,greedy,greedy", 4)
    assert needs_workspace(kinds) and not needs_workspace(parse_bots("smart", 4)[0])
    err = play_game_nb(R, L.new_state(R, 0), None, True, None, kinds, params, np.uint64(1), 0, 0)
    assert err == K.E_PHASE


# The smart flag SM: a line-up without a smart seat runs the engine with SM = None, which numba
# compiles without the smart bot. The engines must play the same games.

def test_engine_without_smart_plays_the_same_games():
    from shanghai_sim.kernels.games.dispatch import smart_flag
    from shanghai_sim.kernels.games.batch import play_games_on_nb
    r = preset("shanghai")
    R = r.arrays(4)
    kinds, params = parse_bots("greedy,random,greedy,random", 4)
    assert smart_flag(kinds) is None and smart_flag(parse_bots("smart", 4)[0]) is True
    seeds = np.array([3, 4, 5], np.uint64)
    outs = []
    for SM in (None, True):
        out = np.zeros((len(seeds), r.hands, 4, NHF), np.int32)
        assert play_games_on_nb(R, L.new_state(R, 0), None, SM, None, kinds, params, seeds, out) == -1
        outs.append(out)
    assert (outs[0] == outs[1]).all()
    # and the same as the engine with everything compiled in (play_games_nb)
    out = np.zeros((len(seeds), r.hands, 4, NHF), np.int32)
    play_games_nb(*R, kinds, params, seeds, out)
    assert (outs[0] == out).all()


def test_a_smart_seat_without_the_flag_stops_the_engine():
    # never another bot in its seat: the engine refuses the "no smart" action
    r = preset("shanghai")
    R = r.arrays(4)
    kinds, params = parse_bots("smart,greedy,greedy,greedy", 4)
    err = play_game_nb(R, L.new_state(R, 0), None, None, None, kinds, params, np.uint64(1), 0, 0)
    assert err == K.E_PHASE


@pytest.mark.parametrize("name", ["shanghai", "contract", "progressive"])
def test_the_hand_memo_answers_what_the_finder_answers(name):
    """def_of_nb goes through the hand memo (G.hmemo): asked again, or after other hands
    took the slots, every answer is the meld finder's own, in every hand of the game."""
    from shanghai_sim.kernels.melds.finder import deficiency_nb
    r = preset(name)
    R = r.arrays(4)
    G = L.new_state(R)
    params = R.params
    rng = np.random.default_rng(5)
    packs, jokers = int(params.decks), int(params.jokers)
    hands = []
    for _ in range(150):
        c = np.zeros(L.NCARDS, np.int64)
        for card in rng.choice(52 * packs, size=int(rng.integers(8, 16)), replace=False):
            c[card % 52] += 1
        c[L.JOKER] = int(rng.integers(0, jokers + 1))
        hands.append(c)
    for h in range(int(params.nhands)):
        G.s[L.S_HAND] = h
        kinds, sizes, nm = R.meld_kind[h], R.meld_size[h], R.n_melds[h]
        want = [deficiency_nb(c, L.Contract(kinds, sizes, nm, R.joker_cap, params.initial_exact,
                                            params.same_suit_gap)) for c in hands]
        for _ in range(2):                     # the second pass answers from the memo
            assert [def_of_nb(R, G, c) for c in hands] == want, (name, h + 1)
    assert (G.hmemo[:, 3] != 0).sum() > 0  # the memo was used


@pytest.mark.parametrize("name", ["shanghai", "contract"])
def test_fit_mask_and_the_bounded_hand_deficiency(name):
    """fit_mask_nb holds every card that fits a table meld (the lay-off loops skip the
    others), and hand_def_nb, which after a drawn card bounds the search by the deficiency
    before it (PS_DEFOK 2), answers what the meld finder answers for every seat."""
    from shanghai_sim.game import Game
    from shanghai_sim.kernels.melds.finder import deficiency_nb
    fits = left_out = bounded = 0
    for seed in range(3):
        g = Game(rules=name, players=4, seed=seed, bots="greedy")
        R, G = g.R, g.G
        params = R.params
        cap, sjc = R.joker_cap, params.set_joker_card
        while not g.over:
            S, PS, TM = G.s, G.ps, G.table
            nt = int(S[L.S_NT])
            fm = int(fit_mask_nb(TM, nt))
            for c in range(L.NCARDS):
                fit = any(fits_nb(TM, cap, sjc, c, m, opt) for m in range(nt) for opt in range(4))
                assert not fit or (fm >> c) & 1, (name, seed, c)
                fits += fit
                left_out += not (fm >> c) & 1
            h = int(S[L.S_HAND])
            for q in range(4):
                bounded += G.priv[q, L.PV_DEFOK] == L.DEF_LESS_ONE
                want = deficiency_nb(G.hands[q], L.Contract(R.meld_kind[h], R.meld_size[h],
                                     R.n_melds[h], cap, params.initial_exact,
                                     params.same_suit_gap))
                assert hand_def_nb(R, G, q) == want, (name, seed, int(S[L.S_NACT]), q)
            g.step()
    assert fits and left_out and bounded
