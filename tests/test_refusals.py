"""Tier (c): on sampled states of seeded games, every action that is not in the legal list
is refused with a reason (an error code the step API can name), and a refusal leaves the
game as it was."""

import numpy as np
import pytest

from shanghai_sim.game import _ERRORS, Game, GameError
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.base import codes as K

GAME_ARRAYS = ("ps", "hands", "stock", "pile", "table", "tcards", "tjokers")
GAME_SCALARS = [L.S_PHASE, L.S_HAND, L.S_CUR, L.S_ACTOR, L.S_UP, L.S_UP_ON_PILE, L.S_STOCK_N,
                L.S_PILE_N, L.S_NT, L.S_TURNS, L.S_DOWN_NOW, L.S_MUST_DOWN]


def candidates(g):
    """Every well-formed action code of the seat to act (the encodings the legal list uses)."""
    S, TM = g.S, g.G.table
    out = [K.action_nb(t, 0, 0, 0) for t in (K.A_DRAW, K.A_TAKE, K.A_PASS, K.A_BUY, K.A_GO_DOWN)]
    out += [K.action_nb(K.A_DISCARD, c, 0, 0) for c in range(53)]
    card_id = g.R.params.set_joker_card != 0
    for m in range(int(S[L.S_NT]) + 1):
        run = TM[m, L.TM_KIND] == L.RUN and m < S[L.S_NT]
        for c in range(53):
            opts = (0, 1) if run else ((0, 1, 2, 3) if c == L.JOKER and card_id else (0,))
            out += [K.action_nb(K.A_LAYOFF, c, m, o) for o in opts]
            if run and c != L.JOKER:
                out += [K.action_nb(K.A_SWAP, c, m, pos) for pos in range(L.NPOS)]
    return out


def snapshot(g):
    return [getattr(g.G, f).copy() for f in GAME_ARRAYS] + [g.S[GAME_SCALARS].copy()]


@pytest.mark.parametrize("rules,players,seed", [("shanghai", 4, 2), ("contract", 3, 5),
                                                ("progressive", 2, 9)])
def test_actions_outside_the_legal_list_are_refused_with_a_reason(rules, players, seed):
    g = Game(rules=rules, players=players, seed=seed, bots="python")
    rng = np.random.default_rng(seed)
    checked = 0
    for step in range(3000):
        if g.over:
            break
        legal = g.legal_actions()
        if step % 37 == 0:
            codes = {a.code for a in legal}
            for code in candidates(g):
                if code in codes:
                    continue
                before = snapshot(g)
                with pytest.raises(GameError) as e:
                    g.apply(int(code))
                assert "error " not in str(e.value).split(": ")[-1], (code, str(e.value))
                after = snapshot(g)
                assert all((a == b).all() for a, b in zip(before, after)), \
                    f"a refused action changed the game: {code} {e.value}"
            checked += 1
        g.apply(legal[int(rng.integers(len(legal)))])
    assert checked >= 10
    assert set(_ERRORS)          # every refusal above was named from this table
