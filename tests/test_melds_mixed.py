"""Every fast path of the meld finder gives the general search's deficiency and the Python
reference's, on random hands of every contract of every preset and of `progressive` under
same_suit_runs = gap and initial_meld = exact (issue #17: no result may change); above
all the paths for several runs (``meld_runs._split_min``, 2 to 4 runs) and for sets with
several runs (``meld_mixed._sets_runs``), on hands where sets and runs compete for cards.

The memo is shared across the hands of a test, as in a game, so later hands read fronts
that earlier ones stored; a memo with every slot taken sends the fronts to the reserved
slots, where the mixed path must fall back to the general search.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.melds import finder as K
from shanghai_sim.rules import InitialMeld, MeldKind, SameSuitRuns, preset

from reference import reference_analysis

PROGRESSIVE = preset("progressive")
RULES = [preset("shanghai"), preset("contract"), PROGRESSIVE,
         PROGRESSIVE.replace(name="progressive+gap", same_suit_runs=SameSuitRuns.GAP),
         PROGRESSIVE.replace(name="progressive+exact", initial_meld=InitialMeld.EXACT)]
CASES = [(r, h) for r in RULES for h in range(r.hands)]
IDS = [f"{r.name}-{h + 1}-{str(r.contracts[h]).replace(' ', '_')}" for r, h in CASES]
_MEMO: dict[str, tuple] = {}


def _memo(r):
    """One warm memo per rules for the whole test session (a memo belongs to one rules)."""
    if r.name not in _MEMO:
        _MEMO[r.name] = L.new_cache()
    return _MEMO[r.name]


def _rows(r, h):
    a = r.arrays(4)
    return (a.meld_kind[h], a.meld_size[h], a.n_melds[h], a.joker_cap,
            a.params.initial_exact, a.params.same_suit_gap)


def _shoe(r):
    a = r.arrays(4)
    decks, jokers = int(a.params.decks), int(a.params.jokers)
    return [c for c in range(52) for _ in range(decks)] + [L.JOKER] * jokers


def _fast_and_search(r, h, counts, cache):
    kinds, sizes, nm, cap, exact, gap = _rows(r, h)
    fast = int(K.deficiency_ws_nb(counts, K.Contract(kinds, sizes, nm, cap, exact, gap), cache))
    slow = max(0, int(K._search(counts, kinds, sizes, nm, cap, exact, gap)))
    return fast, slow


@pytest.mark.parametrize("r,h", CASES, ids=IDS)
def test_fast_paths_agree_with_the_search_on_dealt_hands(r, h):
    """400 hands dealt from the rules' 4-player shoe, 10 to 16 cards (the sizes of play)."""
    rng = np.random.default_rng(7000 + 31 * h)
    shoe = np.array(_shoe(r))
    cache = _memo(r)
    for i in range(400):
        counts = np.bincount(rng.choice(shoe, 10 + i % 7, replace=False),
                             minlength=L.NCARDS).astype(np.int64)
        fast, slow = _fast_and_search(r, h, counts, cache)
        assert fast == slow, (r.name, h + 1, np.flatnonzero(counts).tolist())


@st.composite
def hands(draw, max_size=13):
    """Hands where runs and sets compete: 2 packs and 4 jokers, often from two or three
    suits and a few neighbouring ranks, so a card of a set's rank is often wanted by a run
    of its suit too."""
    if draw(st.booleans()):
        suits = draw(st.lists(st.integers(0, 3), min_size=2, max_size=3, unique=True))
        lo = draw(st.integers(0, 7))
        naturals = [u * 13 + (p % 13) for u in suits for p in range(lo, lo + 7)]
    else:
        naturals = list(range(52))
    shoe = naturals * 2 + [L.JOKER] * 4
    n = draw(st.integers(8, min(max_size, len(shoe))))
    idx = draw(st.lists(st.integers(0, len(shoe) - 1), min_size=n, max_size=n, unique=True))
    return np.bincount([shoe[i] for i in idx], minlength=L.NCARDS).astype(np.int64)


def _runs(r, h):
    return sum(m.kind == MeldKind.RUN for m in r.contracts[h].melds)


def _gap(r):
    return r.same_suit_runs == SameSuitRuns.GAP


# The reference is slow on three or more runs, most under gap, where it keeps every window
# apart (minutes a hand for four runs): those draw fewer and smaller hands, and four runs
# under gap are checked against the general search only (the dealt-hands test above).
MIXED = [(r, h) for r, h in CASES if _runs(r, h) <= 2]
HEAVY = [(r, h) for r, h in CASES if _runs(r, h) >= 3 and not _gap(r)]
HEAVY_GAP = [(r, h) for r, h in CASES if _runs(r, h) == 3 and _gap(r)]


def _ids(cases):
    return [f"{r.name}-{h + 1}-{str(r.contracts[h]).replace(' ', '_')}" for r, h in cases]


def _check_all_three(r, h, counts):
    fast, slow = _fast_and_search(r, h, counts, _memo(r))
    want = reference_analysis(counts, h + 1, r)[2]
    assert fast == slow == want, (r.name, h + 1, np.flatnonzero(counts).tolist(), fast, slow, want)


@pytest.mark.parametrize("r,h", MIXED, ids=_ids(MIXED))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands())
def test_up_to_two_runs_match_the_search_and_the_reference(r, h, counts):
    _check_all_three(r, h, counts)


@pytest.mark.parametrize("r,h", HEAVY, ids=_ids(HEAVY))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands(11))
def test_three_or_four_runs_match_the_search_and_the_reference(r, h, counts):
    _check_all_three(r, h, counts)


@pytest.mark.parametrize("r,h", HEAVY_GAP, ids=_ids(HEAVY_GAP))
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands(10))
def test_three_runs_under_gap_match_the_search_and_the_reference(r, h, counts):
    _check_all_three(r, h, counts)


@pytest.mark.slow
@pytest.mark.parametrize("r,h", MIXED + HEAVY, ids=_ids(MIXED + HEAVY))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands(14))
def test_several_runs_match_the_reference_many(r, h, counts):
    _check_all_three(r, h, counts)


@pytest.mark.parametrize("h", [2, 6, 7, 8], ids=lambda h: str(PROGRESSIVE.contracts[h]))
def test_a_full_memo_falls_back_and_stays_exact(h):
    """Every memo slot taken: per-suit fronts land in the reserved slots, which the mixed
    path may not share between two contents of one suit; the answer must not change."""
    r = PROGRESSIVE
    cache = L.new_cache()
    cache.mkeys[:] = np.arange(1, cache.mkeys.shape[0] + 1) * 7919     # keys that never match
    rng = np.random.default_rng(99 + h)
    shoe = np.array(_shoe(r))
    for i in range(60):
        counts = np.bincount(rng.choice(shoe, 12 + i % 3, replace=False),
                             minlength=L.NCARDS).astype(np.int64)
        fast, slow = _fast_and_search(r, h, counts, cache)
        assert fast == slow, (h + 1, np.flatnonzero(counts).tolist())
