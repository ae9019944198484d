"""Property tests: the meld kernel against the exhaustive reference.

Random hands of 6 to 18 cards from a 2-pack shoe with 4 jokers (some from 3
packs with 6 jokers), half of them from a narrow slice of the shoe (two
suits, six neighbouring ranks) so that melds are common, for every contract
of the three presets and of custom rules that cross the options the presets
keep together (exact + naturals, at_least + table, at_least + gap). The
kernel must give the reference's (satisfiable, deadwood, deficiency), a
lay-down that is valid and leaves exactly ``deadwood`` points (and takes no
more cards than ``max_laid_nb`` allows), and ``deficiency_batch`` must agree
row by row.

The reference itself is checked too: with its prunings switched off, and
against a brute force that tries every way to split tiny hands into melds.

Default run: about two minutes on two cores (numba compile included); ``-m slow`` runs many more hands.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_sim.cards import JOKER, NRANKS, format_cards
from shanghai_sim.hand import _contract_rows
from shanghai_sim.kernels.melds.finder import max_laid_nb
from shanghai_sim.rules import InitialMeld, JokerLimit, MeldKind, SameSuitRuns, preset

from reference import check_laydown, naive_analysis, reference_analysis

SHANGHAI, CONTRACT, PROGRESSIVE = preset("shanghai"), preset("contract"), preset("progressive")
EXACT_NATURALS = SHANGHAI.replace(name="exact+naturals", initial_meld=InitialMeld.EXACT)
ATLEAST_TABLE = SHANGHAI.replace(name="at_least+table", joker_limit=JokerLimit.TABLE)
ATLEAST_GAP = SHANGHAI.replace(name="at_least+gap", same_suit_runs=SameSuitRuns.GAP)
ALL_RULES = [SHANGHAI, CONTRACT, PROGRESSIVE, EXACT_NATURALS, ATLEAST_TABLE, ATLEAST_GAP]

# Every (rules, hand number) pair: 10 + 10 + 9 + 3 * 10 contracts.
PAIRS = [(r, h) for r in ALL_RULES for h in range(1, r.hands + 1)]
PAIR_IDS = [f"{r.name}-{h}-{str(r.contracts[h - 1]).replace(' ', '_')}" for r, h in PAIRS]


@st.composite
def hands(draw, min_size=6, max_size=18):
    """A hand drawn without replacement from a 2- or 3-pack shoe, as counts."""
    packs = draw(st.sampled_from([2, 2, 2, 3]))
    jokers = 2 * packs
    if draw(st.booleans()):
        # narrow slice: two suits, six neighbouring run positions (0..13, so
        # the ace may sit low or high)
        suits = draw(st.lists(st.integers(0, 3), min_size=2, max_size=2, unique=True))
        lo = draw(st.integers(0, 8))
        naturals = [u * NRANKS + (p % NRANKS) for u in suits for p in range(lo, lo + 6)]
    else:
        naturals = list(range(52))
    shoe = naturals * packs + [JOKER] * jokers
    n = draw(st.integers(min_size, min(max_size, len(shoe))))
    idx = draw(st.lists(st.integers(0, len(shoe) - 1), min_size=n, max_size=n, unique=True))
    return np.bincount([shoe[i] for i in idx], minlength=53).astype(np.int64)


def _show(counts) -> str:
    return format_cards(c for c in range(53) for _ in range(int(counts[c])))


def compare(counts, rules, hand_no):
    """Kernel vs reference on one hand; the message names hand, contract and rules."""
    from shanghai_sim import analyze_hand, deficiency_batch
    cards = _show(counts)
    contract = rules.contracts[hand_no - 1].melds
    expected = reference_analysis(counts, contract, rules)
    a = analyze_hand(cards, hand_no, rules, shoe=False)
    got = (a.satisfiable, a.deadwood, a.deficiency)
    where = f"hand {cards!r}, contract {hand_no} ({rules.contracts[hand_no - 1]}), rules {rules.name}"
    assert got == expected, f"{where}: kernel {got} != reference {expected}"
    if a.satisfiable:
        left = check_laydown(counts, a.melds, a.leftover, contract, rules)
        assert left == a.deadwood, f"{where}: melds {a.melds} leave {left}, not {a.deadwood}"
        # the engine skips the lay-down search when this bound settles going down
        kinds, _, nm, _ = _contract_rows(rules, hand_no)
        laid = sum(len(m) for m in a.melds)
        bound = max_laid_nb(counts, kinds, nm)
        assert laid <= bound, f"{where}: lay-down of {laid} cards > max_laid_nb {bound}"
    batch = deficiency_batch(counts[None, :], hand_no, rules, shoe=False)
    assert int(batch[0]) == expected[2], f"{where}: deficiency_batch {batch[0]} != {expected[2]}"


def _heavy(rules, hand_no):
    """Three or more runs under gap: the reference keeps every run window
    apart there (slow), so the default run draws fewer hands for them."""
    runs = sum(m.kind == MeldKind.RUN for m in rules.contracts[hand_no - 1].melds)
    return rules.same_suit_runs == SameSuitRuns.GAP and runs >= 3


LIGHT = [(p, i) for p, i in zip(PAIRS, PAIR_IDS) if not _heavy(*p)]
HEAVY = [(p, i) for p, i in zip(PAIRS, PAIR_IDS) if _heavy(*p)]


@pytest.mark.parametrize("rules, hand_no", [p for p, _ in LIGHT], ids=[i for _, i in LIGHT])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands())
def test_kernel_matches_reference(rules, hand_no, counts):
    compare(counts, rules, hand_no)


@pytest.mark.parametrize("rules, hand_no", [p for p, _ in HEAVY], ids=[i for _, i in HEAVY])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands(6, 14))
def test_kernel_matches_reference_gap_runs(rules, hand_no, counts):
    compare(counts, rules, hand_no)


@pytest.mark.slow
@pytest.mark.parametrize("rules, hand_no", PAIRS, ids=PAIR_IDS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands())
def test_kernel_matches_reference_many(rules, hand_no, counts):
    compare(counts, rules, hand_no)


@pytest.mark.parametrize("rules", ALL_RULES, ids=[r.name for r in ALL_RULES])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(hands(0, 18), min_size=1, max_size=8), hand_no=st.integers(1, 9))
def test_deficiency_batch_matches_reference(rules, rows, hand_no):
    """deficiency_batch on many rows at once (empty rows included) = reference per row."""
    from shanghai_sim import deficiency_batch
    counts = np.stack(rows)
    got = deficiency_batch(counts, hand_no, rules, shoe=False)
    assert got.shape == (len(rows),) and got.dtype == np.int64
    want = [reference_analysis(c, hand_no, rules)[2] for c in rows]
    assert got.tolist() == want


# ---------------------------------------------------------------- the reference itself

SMALL_CONTRACTS = ["set3", "run4", "set4", "run5", "set3 set3", "set3 run4", "run4 run4"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands(6, 10), contract=st.sampled_from(SMALL_CONTRACTS),
       rules=st.sampled_from(ALL_RULES))
def test_reference_prunings_change_nothing(counts, contract, rules):
    """Dominance, symmetry and the lower bound of reference.py keep it exact."""
    assert reference_analysis(counts, contract, rules) == \
        reference_analysis(counts, contract, rules, prune=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands(3, 5), contract=st.sampled_from(["set3", "run4", "set4", "run5"]),
       rules=st.sampled_from(ALL_RULES))
def test_reference_matches_brute_force_one_meld(counts, contract, rules):
    """Every split of a tiny hand into one meld and the rest, every added card."""
    sat, dead, defi = reference_analysis(counts, contract, rules)
    assert naive_analysis(counts, contract, rules, 1) == (sat, dead, min(defi, 2))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=hands(3, 4), contract=st.sampled_from(["set3 set3", "set3 run4", "run4 run4"]),
       rules=st.sampled_from(ALL_RULES))
def test_reference_matches_brute_force_two_melds(counts, contract, rules):
    sat, dead, defi = reference_analysis(counts, contract, rules)
    assert naive_analysis(counts, contract, rules, 0) == (sat, dead, min(defi, 1))


@pytest.mark.parametrize("hand, contract, rules", [
    ("5C 6C 7C 8C 9C TC JC", "set3 run4", SHANGHAI),
    ("8C 8D 8H 8S JK", "set3", SHANGHAI),
    ("JC QC KC AC 2C", "run4", CONTRACT),
    ("5C 6C 7C 8C 9C", "run4", ATLEAST_GAP),
])
def test_reference_matches_brute_force_drawn(hand, contract, rules):
    sat, dead, defi = reference_analysis(hand, contract, rules)
    assert naive_analysis(hand, contract, rules, 0) == (sat, dead, min(defi, 1))
