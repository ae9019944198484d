"""The memoised fast paths of the meld finder against its general search.

``deficiency_ws_nb`` answers the contracts of the presets from per-suit
entries in a memo (run fronts, undominated run windows). These tests drive
the corners of that memo that random hands rarely reach: a suit too full for
its window list to fit an entry, hands with three or more copies of a card
(which skip the runs memo), and a memo too small for what it is asked, whose
entries go to its reserved slots once it is full. The answer must always equal ``_search``,
the plain branch and bound that uses no memo.
"""

from __future__ import annotations

import numpy as np
import pytest

from shanghai_sim.cards import to_counts
from shanghai_sim.kernels.melds import finder as K
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.rules import InitialMeld, preset

SH = preset("shanghai")
EXACT = SH.replace(name="shanghai-exact", initial_meld=InitialMeld.EXACT)
CO = preset("contract")


def _args(rules, hand_no):
    a = rules.arrays()
    h = hand_no - 1
    return (a.meld_kind[h], a.meld_size[h], a.n_melds[h], a.joker_cap,
            a.params.initial_exact, a.params.same_suit_gap)


def _small_cache(slots):
    return L.Memo(*L.allocate(L.CACHE_SPEC, **L.cache_dims(slots)))


FULL_SUIT = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"


@pytest.mark.parametrize("rules", [SH, EXACT, CO], ids=lambda r: r.name)
@pytest.mark.parametrize("hand", [
    FULL_SUIT,                                   # every window holds cards: the list overflows
    FULL_SUIT + " 7C 7D JK",
    FULL_SUIT + " AH 2H 3H 4H 5H JK JK",
    "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS 2S 3S 4S 5S 6S",
    "8C 8C 8C 8D 8D 9D TD JD QD 4S 5S 6S",       # three copies of a card (3 packs)
    "5H 5H 5H 6H 6H 6H 7H 7H 7H 8H 8H 8H JK JK",
    "AH 2H 3H 4H 5H 6H 7H 8H 9H KC KD 9S 9C JK",  # 17 windows of run4: too many for a table row
])
def test_memo_corners_match_search(rules, hand):
    counts = to_counts(hand)
    cache = K.new_cache()
    for hand_no in range(1, rules.hands + 1):
        args = _args(rules, hand_no)
        want = max(0, K._search(counts, *args))
        for _ in range(2):          # the second answer comes from the memo
            assert K.deficiency_ws_nb(counts, K.Contract(*args), cache) == want, (hand, hand_no)


def test_window_table_row_overflow_takes_the_general_path():
    """A suit with more undominated windows than a table row holds is marked -1
    and answered by the general one-run path, still exactly."""
    counts = to_counts("AH 2H 3H 4H 5H 6H 7H 8H 9H KC KD 9S 9C JK")
    cache = K.new_cache()
    args = _args(SH, 2)                       # set3 run4
    assert K.deficiency_ws_nb(counts, K.Contract(*args), cache) == max(0, K._search(counts, *args)) == 0
    wt = cache.wt
    px = 0b111111111 | (1 << 13)              # hearts A..9, the ace at both ends
    assert wt[((4 - 4) << K.NPOS) | px, 0] == -1
    counts = to_counts("2H 3H 4H 5H 6H 7H 8H 9H TH KC QD")
    assert K.deficiency_ws_nb(counts, K.Contract(*args), cache) == max(0, K._search(counts, *args)) == 2


def test_full_memo_matches_search():
    """A memo of MEMO_MIN slots asked for far more entries than it holds."""
    rng = np.random.default_rng(7)
    shoe = np.array([c for c in range(52) for _ in range(2)] + [52] * 4)
    for rules in (SH, CO):
        cache = _small_cache(K.MEMO_MIN)     # a memo belongs to one rules object
        runs = [h for h in range(1, rules.hands + 1) if set(rules.arrays().meld_kind[h - 1][
            :rules.arrays().n_melds[h - 1]]) == {K.RUN}]
        for i in range(12000):
            # every contract, and half the hands on runs contracts: only their per-suit
            # fronts (and rare long window lists) take memo slots
            hand_no = 1 + (i // 2) % rules.hands if i % 2 else runs[(i // 2) % len(runs)]
            args = _args(rules, hand_no)
            counts = np.bincount(rng.choice(shoe, rng.integers(8, 19), replace=False),
                                 minlength=53).astype(np.int64)
            want = max(0, K._search(counts, *args))
            assert K.deficiency_ws_nb(counts, K.Contract(*args), cache) == want
        assert (cache.mkeys != 0).mean() > 0.95     # nearly full: probes run out
        # trimmed (as the engine does between games), it fills again with exact answers
        assert K.memo_trim_nb(cache.mkeys) and not cache.mkeys.any()
        for i in range(500):
            hand_no = 1 + i % rules.hands
            args = _args(rules, hand_no)
            counts = np.bincount(rng.choice(shoe, rng.integers(8, 19), replace=False),
                                 minlength=53).astype(np.int64)
            assert K.deficiency_ws_nb(counts, K.Contract(*args), cache) == max(0, K._search(counts, *args))
        assert cache.mkeys.any()


def _general_lay(counts, rules, hand_no):
    """Most points laid down by the all-suit lay-down search (no suit split)."""
    kinds, sizes, nm, cap, ex, gp = _args(rules, hand_no)
    pts = rules.arrays().points
    cnt = counts.copy()
    rank_av = np.zeros(13, np.int64)
    for t in range(52):
        rank_av[t % 13] += counts[t]
    return K._lay_search(K.Contract(kinds, sizes, nm, cap, ex, gp), np.arange(nm), nm, pts, cnt,
                         rank_av, np.zeros((nm, 7), np.int64), -1,
                         np.empty((1, 1), np.int64), np.empty((1, 1, 1, 7), np.int64))


@pytest.mark.parametrize("rules,hand_no", [(SH, 3), (SH, 7), (SH, 10), (EXACT, 7), (CO, 7), (CO, 10)])
def test_run_contract_lay_down_by_suit_equals_the_all_suit_search(rules, hand_no):
    """laydown_sat_nb lays contracts of one-size runs suit by suit (a knapsack over the
    jokers): same deadwood as the search over all suits, with cards from the hand."""
    kinds, sizes, nm, cap, ex, gp = _args(rules, hand_no)
    a = rules.arrays()
    rng = np.random.default_rng(hand_no)
    n = 0
    for _ in range(60):
        # the contract's runs laid out at random (a joker for some card), plus extra cards
        x = np.zeros(53, np.int64)
        for i in range(nm):
            suit, lo = rng.integers(4), rng.integers(0, 15 - sizes[i])
            for p in range(lo, lo + sizes[i]):
                x[suit * 13 + p % 13] += 1
            if rng.random() < 0.5:
                p = rng.integers(lo, lo + sizes[i])
                x[suit * 13 + p % 13] -= 1
                x[52] += 1
        for c in rng.integers(0, 53, rng.integers(0, 6)):
            x[c] += 1
        if K.deficiency_nb(x, K.Contract(kinds, sizes, nm, cap, ex, gp)) != 0:
            continue
        lay = np.zeros((nm, K.LAY_W), np.int64)
        dw = K.laydown_sat_nb(x, K.Contract(kinds, sizes, nm, cap, ex, gp), a.points, lay)
        total = int((x * a.points).sum())
        assert dw == total - _general_lay(x, rules, hand_no)
        used = np.zeros(53, np.int64)
        for i in range(nm):
            for k in range(lay[i, 3]):
                used[lay[i, 4 + k]] += 1
        assert (used <= x).all() and total - int((used * a.points).sum()) == dw
        n += 1
    assert n >= 30


def test_a_suit_and_its_mirror_share_a_memo_slot():
    """Ranks read backwards (A K Q ... 2) map runs to runs, so the per-suit fronts of a
    suit and of its mirror are one memo entry; both answers stay exact."""
    hand = to_counts("AH 2H 2H 3H 5H 9H TC JC QC 4S 4D 8D")
    mirror = to_counts("AH KH KH QH TH 6H 5C 4C 3C 4S 4D 8D")   # hearts and clubs mirrored
    for x in (1, 2):                                            # diamonds, hearts
        assert K._suit_key(hand, x, 4) == K._suit_key(mirror, x, 4)
    assert K._suit_key(hand, 0, 4) == K._suit_key(mirror, 0, 4)   # clubs T-Q and 3-5
    assert K._suit_key(hand, 2, 4) != K._suit_key(hand, 0, 4)
    for rules in (SH, CO):
        cache = K.new_cache()
        for hand_no in range(1, rules.hands + 1):
            args = _args(rules, hand_no)
            for counts in (hand, mirror, hand):
                assert K.deficiency_ws_nb(counts, K.Contract(*args), cache) == max(0, K._search(counts, *args))


def test_memo_trim_empties_a_memo_three_quarters_full():
    ckeys = np.zeros(K.MEMO_MIN, np.int64)
    ckeys[: K.MEMO_MIN // 2] = 1
    assert not K.memo_trim_nb(ckeys) and (ckeys != 0).sum() == K.MEMO_MIN // 2
    ckeys[:] = 7
    assert K.memo_trim_nb(ckeys) and (ckeys == 0).all()


def test_deficiency_batch_keeps_one_memo_per_thread_and_rules():
    """Repeated calls reuse the memo of their thread and rules (warm), and answer as a fresh one."""
    import threading

    import shanghai_sim.hand as H
    from shanghai_sim import deficiency_batch
    from shanghai_sim.rules import preset
    rng = np.random.default_rng(3)
    counts = np.zeros((300, 53), np.int64)
    for i in range(300):
        for c in rng.choice(104, 12, replace=False):
            counts[i, c % 52] += 1
    first = deficiency_batch(counts, 7)
    a = preset("shanghai").arrays()
    memo = H._memo(a.joker_cap, 0, 0)
    assert deficiency_batch(counts, 7) is not None and H._memo(a.joker_cap, 0, 0) is memo
    assert (deficiency_batch(counts, 7) == first).all()
    c = preset("contract").arrays()
    assert H._memo(c.joker_cap, 1, 1) is not memo                      # other rules, other memo
    fresh = deficiency_batch(counts, 7, "contract")
    got = {}
    t = threading.Thread(target=lambda: got.update(m=H._memo(a.joker_cap, 0, 0),
                                                    d=deficiency_batch(counts, 7, "contract")))
    t.start()
    t.join()
    assert got["m"] is not memo and (got["d"] == fresh).all()           # other thread, other memo
    for k in range(H.MEMOS_PER_THREAD + 2):                              # bounded per thread
        H._memo(np.full(3, k), 0, 0)
    assert len(H._MEMOS.d) == H.MEMOS_PER_THREAD
