"""Every hand-unrolled fast path of the meld finder (sets only, one run, runs only, and the
memoised per-suit fronts) gives what the general branch-and-bound search gives, on random
hands of every contract of the three presets and a gap variant."""

import numpy as np
import pytest

from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.melds import finder as K
from shanghai_sim.rules import SameSuitRuns, preset

RULES = [preset("shanghai"), preset("contract"), preset("progressive"),
         preset("shanghai").replace(name="gap", same_suit_runs=SameSuitRuns.GAP)]
CASES = [(r, h) for r in RULES for h in range(r.hands)]


def shoe(r):
    a = r.arrays(4)
    decks, jokers = int(a.params.decks), int(a.params.jokers)
    return np.array([c for c in range(52) for _ in range(decks)] + [L.JOKER] * jokers)


def contract_args(r, h):
    """The finder's contract arguments for hand h of rules r: kinds, sizes, nm, joker_cap,
    exact, gap."""
    a = r.arrays(4)
    return (a.meld_kind[h], a.meld_size[h], a.n_melds[h], a.joker_cap,
            a.params.initial_exact, a.params.same_suit_gap)


@pytest.mark.parametrize("r,h", CASES, ids=[f"{r.name}-{h + 1}" for r, h in CASES])
def test_fast_paths_agree_with_the_general_search(r, h):
    args = contract_args(r, h)
    rng = np.random.default_rng(1000 + h)
    cards = shoe(r)
    cache = L.new_cache()
    for i in range(150):
        counts = np.bincount(rng.choice(cards, 12 if i % 2 else 14, replace=False),
                             minlength=L.NCARDS).astype(np.int64)
        fast = K.deficiency_ws_nb(counts, K.Contract(*args), cache)
        slow = max(0, K._search(counts, *args))
        assert fast == slow, (r.name, h + 1, np.flatnonzero(counts).tolist())


@pytest.mark.parametrize("r,h", CASES, ids=[f"{r.name}-{h + 1}" for r, h in CASES])
def test_bounded_deficiency_of_a_hand_one_card_away(r, h):
    # The bots ask about a hand one card from a hand of known deficiency d: with a card more
    # it is d - 1 or d, with a card less d or d + 1 (docs/rules.md §6; checked here too), and
    # deficiency_in_nb, told so, starts its branch and bound there and stops at the low end.
    args = contract_args(r, h)
    rng = np.random.default_rng(2000 + h)
    cards = shoe(r)
    cache = L.new_cache()
    lower = same = above = 0
    for i in range(200):
        pick = rng.choice(cards, 13 if i % 2 else 15, replace=False)
        counts = np.bincount(pick[:-1], minlength=L.NCARDS).astype(np.int64)
        d = K.deficiency_ws_nb(counts, K.Contract(*args), cache)
        above += d > 0
        c = pick[-1]
        counts[c] += 1                                   # a card more
        want = K.deficiency_ws_nb(counts, K.Contract(*args), cache)
        assert d - 1 <= want <= d
        lower += want < d
        same += want == d
        lo = d - 1 if d > 0 else 0
        assert K.deficiency_in_nb(counts, K.Contract(*args), cache, cache.mscr, lo, d) == want, (np.flatnonzero(counts).tolist(), c)
        counts[c] -= 1
        for x in np.flatnonzero(counts)[:6]:             # a card less
            counts[x] -= 1
            want = K.deficiency_ws_nb(counts, K.Contract(*args), cache)
            assert d <= want <= d + 1
            assert K.deficiency_in_nb(counts, K.Contract(*args), cache, cache.mscr, d, d + 1) == want, (np.flatnonzero(counts).tolist(), x)
            counts[x] += 1
    assert same and (lower or not above)      # both ends of the bounds were exercised
