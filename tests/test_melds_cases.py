"""Hand-drawn cases of the hand analysis (docs/rules.md §4 and §6).

Each case is a rule, a drawn hand and the expected (satisfiable, deadwood,
deficiency), worked out by hand from the rulebook. Every case is checked
twice: against the exhaustive reference (``tests/reference.py``, so the
reference itself is tested) and against ``analyze_hand`` (the kernel), whose
``.melds`` must also be a valid lay-down of the contract leaving exactly
``.deadwood`` points.

Points (docs/rules.md §3): shanghai A 15, 2 20, 3-9 5, T-K 10, JK 25; contract
the same but A 20.
"""

from __future__ import annotations

import numpy as np
import pytest

from shanghai_sim.cards import to_counts
from shanghai_sim.rules import InitialMeld, JokerLimit, SameSuitRuns, preset

from reference import check_laydown, reference_analysis

SH = preset("shanghai")                  # naturals, at_least, distinct
CO = preset("contract")                  # table, exact, gap
SH_EXACT = SH.replace(name="shanghai-exact", initial_meld=InitialMeld.EXACT)
SH_GAP = SH.replace(name="shanghai-gap", same_suit_runs=SameSuitRuns.GAP)
SH_TABLE = SH.replace(name="shanghai-table", joker_limit=JokerLimit.TABLE)   # at_least + table

NO = (False, None)

# (id, rules, contract, hand, (satisfiable, deadwood, deficiency))
CASES = [
    # ---- joker limit = naturals (shanghai): jokers <= naturals in every meld
    # 8C 8D JK: two naturals carry one joker.
    ("naturals-set3-2n1j", SH, "set3", "8C 8D JK", (True, 0, 0)),
    # 8C JK JK: one natural cannot carry two jokers; one added 8 makes
    # 8C 8x JK JK, a set of four with 2 naturals and 2 jokers.
    ("naturals-set3-1n2j", SH, "set3", "8C JK JK", (*NO, 1)),
    # 8C 8D JK JK: 2 naturals + 2 jokers is within the limit.
    ("naturals-set4-2n2j", SH, "set4", "8C 8D JK JK", (True, 0, 0)),
    # 5C JK JK 8C: a run 5-6-7-8 with the jokers as 6 and 7.
    ("naturals-run4-2n2j", SH, "run4", "5C 8C JK JK", (True, 0, 0)),
    # 5C JK JK JK: 1 natural and 3 jokers; adding one natural gives
    # 5C 6C JK JK (the third joker stays): deficiency 1.
    ("naturals-run4-1n3j", SH, "run4", "5C JK JK JK", (*NO, 1)),
    # Jokers count toward the limit in deficiency too: 3 jokers only, a set
    # needs naturals >= jokers and >= 3 cards, so 2 added naturals.
    ("naturals-set3-jokers-only", SH, "set3", "JK JK JK", (*NO, 2)),
    # Two sets from four jokers: each set needs >= 2 naturals (n >= j and
    # n + j >= 3), so 4 added naturals.
    ("naturals-two-sets-4j", SH, "set3 set3", "JK JK JK JK", (*NO, 4)),

    # ---- joker limit = table (contract: exact, table 3-4: 1, 5-6: 2, ...)
    # 5C 6C 7C JK JK: a run of five may hold two jokers.
    ("table-run5-2j", CO, "run5", "5C 6C 7C JK JK", (True, 0, 0)),
    # 8C 8D JK JK: a set of three may hold only one joker; exact size 3, so
    # 8C 8D JK and one joker (25) stays in hand.
    ("table-set3-2j", CO, "set3", "8C 8D JK JK", (True, 25, 0)),
    # 8C JK JK: one added 8 gives 8C 8x JK (one joker allowed).
    ("table-set3-1n2j", CO, "set3", "8C JK JK", (*NO, 1)),
    # 5C 6C JK JK, run4 exactly: one joker allowed in four cards; 5 6 JK +
    # an added natural.
    ("table-run4-2n2j", CO, "run4", "5C 6C JK JK", (*NO, 1)),
    # at_least + table: 5C 6C 8C JK JK lays JK 5C 6C JK 8C (4-8, five cards,
    # two jokers); exact would keep one joker (see the next case).
    ("table-atleast-run5", SH_TABLE, "run4", "5C 6C 8C JK JK", (True, 0, 0)),
    ("table-exact-run4", CO, "run4", "5C 6C 8C JK JK", (True, 25, 0)),

    # ---- ace low and high, no wrap (docs/rules.md §4)
    ("ace-low", SH, "run4", "AC 2C 3C 4C", (True, 0, 0)),
    ("ace-high", SH, "run4", "JC QC KC AC", (True, 0, 0)),
    # Q-K-A-2 wraps: not a run. Adding JC gives J-Q-K-A; 2C (20) stays.
    ("no-wrap-QKA2", SH, "run4", "QC KC AC 2C", (*NO, 1)),
    ("no-wrap-KA23", SH, "run4", "KC AC 2C 3C", (*NO, 1)),
    # A joker above the king stands for the ace.
    ("joker-as-ace-high", SH, "run4", "JC QC KC JK", (True, 0, 0)),
    # All thirteen clubs are a run of 13; a second ace cannot join (the ace
    # is low or high, never both): it stays, 15 points.
    ("run13-plus-ace", SH, "run13", "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", (True, 15, 0)),

    # ---- initial_meld: at_least vs exact
    # 9C TC JC QC KC AC, run4: at_least lays all six. Exact lays four and
    # keeps the cheapest two: J-Q-K-A leaves 9C TC = 15 (9-Q would leave
    # K A = 25, T-K leaves 9 A = 20).
    ("atleast-run", SH, "run4", "9C TC JC QC KC AC", (True, 0, 0)),
    ("exact-run", SH_EXACT, "run4", "9C TC JC QC KC AC", (True, 15, 0)),
    # 8C 8D 8H 8S, set3: exact leaves one eight (5).
    ("atleast-set", SH, "set3", "8C 8D 8H 8S", (True, 0, 0)),
    ("exact-set", SH_EXACT, "set3", "8C 8D 8H 8S", (True, 5, 0)),
    # Exact + naturals: 8C 8D JK JK cannot be an exact set3 with both jokers;
    # one joker stays (25).
    ("exact-naturals-set3", SH_EXACT, "set3", "8C 8D JK JK", (True, 25, 0)),

    # ---- same_suit_runs: 5-8C and 9-QC touch
    ("distinct-touching", SH, "run4 run4", "5C 6C 7C 8C 9C TC JC QC", (True, 0, 0)),
    # Under gap two club runs need a rank between them: 8 clubs in a row
    # give at most 4 + gap + 3; adding one card (4C: 4-7 and 9-Q, 8C left, or
    # KC: 5-8 and T-K, 9C left) suffices.
    ("gap-touching", SH_GAP, "run4 run4", "5C 6C 7C 8C 9C TC JC QC", (*NO, 1)),
    # With KC in hand: 5-8 and T-K, 9C (5) stays.
    ("gap-with-room", SH_GAP, "run4 run4", "5C 6C 7C 8C 9C TC JC QC KC", (True, 5, 0)),
    # Runs in different suits never touch.
    ("gap-other-suit", SH_GAP, "run4 run4", "5C 6C 7C 8C 9D TD JD QD", (True, 0, 0)),
    # Two copies of 5-8C (two packs): two runs under distinct; under gap the
    # second run must sit elsewhere: four added cards (another suit, or e.g.
    # 2-5C + 7-TC with 5C, 7C, 8C from the hand and 5 added... so 4 is best).
    ("distinct-twin-runs", SH, "run4 run4", "5C 6C 7C 8C 5C 6C 7C 8C", (True, 0, 0)),
    ("gap-twin-runs", SH_GAP, "run4 run4", "5C 6C 7C 8C 5C 6C 7C 8C", (*NO, 4)),
    # A-2-3-4 and J-Q-K-A of one suit: run positions 0-3 and 10-13, far
    # apart (the ace is low in one, high in the other).
    ("gap-ace-low-and-high", SH_GAP, "run4 run4", "AC 2C 3C 4C JC QC KC AC", (True, 0, 0)),

    # ---- duplicates from several packs
    # Two 8-8-8 sets from two packs are two melds.
    ("two-sets-one-rank", SH, "set3 set3", "8C 8D 8H 8C 8D 8S", (True, 0, 0)),
    # Nine eights, set3 set3: exactly two melds, never a third. at_least
    # grows them (6 + 3 eights): nothing stays. Exact lays 3 + 3; three
    # eights (15) stay.
    ("three-sets-atleast", SH, "set3 set3", "8C 8D 8H 8S 8C 8D 8H 8S 8C", (True, 0, 0)),
    ("three-sets-exact", SH_EXACT, "set3 set3", "8C 8D 8H 8S 8C 8D 8H 8S 8C", (True, 15, 0)),

    # ---- empty-ish hands: deficiency counts every missing natural
    # One ace: AS + 2 added = one set, 3 more for the other.
    ("one-card", SH, "set3 set3", "AS", (*NO, 5)),
    # One joker: a set with it needs 2 naturals, the other set 3.
    ("one-joker", SH, "set3 set3", "JK", (*NO, 5)),
    # Hand 10 of shanghai from one card: 15 minus the one card it can use.
    ("one-card-hand10", SH, 10, "5H", (*NO, 14)),

    # ---- larger hands
    # 26 cards, all clubs and hearts: run5 run5 run5 takes everything under
    # shanghai (A-K clubs, A-6 and 7-K hearts).
    ("two-full-suits", SH, "run5 run5 run5",
     "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", (True, 0, 0)),
    # The same under contract (exact, gap, A = 20): three runs of exactly
    # five; the dearest are T-J-Q-K-A (60) twice, once per suit, and a third
    # run, non-touching, 2-3-4-5-6 (40) in either suit: 24 + 16 cards... the
    # 26 cards are worth 2 * (20 + 20 + 7 * 5 + 4 * 10) = 230, laid 160.
    ("two-full-suits-exact-gap", CO, "run5 run5 run5",
     "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", (True, 70, 0)),
]


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("name, rules, contract, hand, expected", CASES, ids=_ids(CASES))
def test_reference_case(name, rules, contract, hand, expected):
    """The reference agrees with the hand-worked answer."""
    assert reference_analysis(hand, contract, rules) == expected


@pytest.mark.parametrize("name, rules, contract, hand, expected", CASES, ids=_ids(CASES))
def test_kernel_case(name, rules, contract, hand, expected):
    """analyze_hand agrees with the hand-worked answer and lays a valid best lay-down."""
    from shanghai_sim import analyze_hand
    a = analyze_hand(hand, contract, rules, shoe=False, limit=False)   # the definitions hold for any hand
    assert (a.satisfiable, a.deadwood, a.deficiency) == expected
    if a.satisfiable:
        assert check_laydown(hand, a.melds, a.leftover, contract, rules) == a.deadwood
    else:
        assert a.deadwood is None


@pytest.mark.parametrize("name, rules, contract, hand, expected", CASES, ids=_ids(CASES))
def test_deficiency_batch_rows(name, rules, contract, hand, expected):
    """deficiency_batch answers row by row what analyze_hand answers."""
    from shanghai_sim import deficiency_batch
    counts = to_counts(hand)
    batch = np.stack([counts, np.zeros(53, dtype=np.int64), counts])
    got = deficiency_batch(batch, contract, rules, shoe=False)
    assert got.dtype == np.int64 and got.shape == (3,)
    assert got[0] == got[2] == expected[2]
    # An empty row needs every card of the contract (no joker to help).
    assert got[1] == reference_analysis(np.zeros(53, dtype=np.int64), contract, rules)[2]


def test_contract_by_hand_number():
    """A contract given as a hand number of the rules means that hand's melds."""
    from shanghai_sim import analyze_hand
    hand = "8C 8D 8H 9S 9C 9D"
    assert analyze_hand(hand, 1).satisfiable             # shanghai hand 1: set3 set3
    assert not analyze_hand(hand, 2).satisfiable         # hand 2: set3 run4
    assert analyze_hand(hand, 1, "contract").deadwood == 0
