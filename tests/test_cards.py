"""Card notation and count arrays (docs/rules.md §2, shanghai_sim/cards.py)."""

from __future__ import annotations

import numpy as np
import pytest

from shanghai_sim.cards import (JOKER, NCARDS, CardError, card_id, card_str, format_cards,
                                from_counts, parse_cards, to_counts)

ALL = [r + s for s in "CDHS" for r in "A23456789TJQK"] + ["JK"]


def test_every_card_round_trips():
    assert [card_id(c) for c in ALL] == list(range(NCARDS))
    assert [card_str(i) for i in range(NCARDS)] == ALL


@pytest.mark.parametrize("token, canonical", [
    ("10H", "TH"), ("th", "TH"), ("Th", "TH"), ("10h", "TH"), ("as", "AS"), ("jk", "JK"),
    ("Jk", "JK"), ("A♠", "AS"), ("10♥", "TH"), ("q♦", "QD"), ("K♣", "KC"), (" 7d ", "7D"),
])
def test_accepted_spellings(token, canonical):
    assert card_str(card_id(token)) == canonical


def test_layout_is_suit_major_ace_first():
    """index = suit * 13 + rank index (A=0 .. K=12), suits C D H S, joker 52."""
    assert card_id("AC") == 0 and card_id("KC") == 12
    assert card_id("AD") == 13 and card_id("2H") == 27 and card_id("KS") == 51
    assert card_id("JK") == JOKER == 52


def test_lists_by_spaces_commas_and_lists():
    want = [card_id("AS"), card_id("TH"), card_id("TC"), JOKER]
    assert parse_cards("AS TH 10C JK") == want
    assert parse_cards("AS,TH,10C,JK") == want
    assert parse_cards("AS, TH ,10C  JK") == want
    assert parse_cards(["AS", "TH", "10C", "JK"]) == want
    assert parse_cards(["AS TH", "10C,JK"]) == want


def test_counts_hold_duplicates_and_round_trip():
    counts = to_counts("8C 8C 8D JK JK QS")
    assert counts.shape == (NCARDS,) and counts.dtype == np.int64
    assert counts[card_id("8C")] == 2 and counts[JOKER] == 2 and counts.sum() == 6
    # from_counts lists in id order, jokers last
    assert from_counts(counts) == ["8C", "8C", "8D", "QS", "JK", "JK"]
    assert (to_counts(from_counts(counts)) == counts).all()
    assert (to_counts([card_id("8C"), card_id("8C")]) == to_counts("8C 8C")).all()
    assert to_counts("").sum() == 0 and to_counts([]).sum() == 0
    assert format_cards([0, 52, 51]) == "AC JK KS"


@pytest.mark.parametrize("hand, bad", [
    ("AS XX 3C", "XX"), ("1H", "1H"), ("AX", "AX"), ("11H", "11H"), ("A", "A"),
    ("JKS", "JKS"), ("AS 10", "10"), ("QQ", "QQ"), ("AS;KS", "AS;KS"), ("♠A", "♠A"),
])
def test_bad_tokens_are_named(hand, bad):
    with pytest.raises(CardError) as e:
        parse_cards(hand)
    assert repr(bad) in str(e.value)
    with pytest.raises(CardError):
        to_counts(hand)


def test_non_string_and_out_of_range():
    with pytest.raises(CardError, match="5"):
        parse_cards(["AS", 5])
    with pytest.raises(CardError, match="53"):
        card_str(53)
    with pytest.raises(CardError, match="-1"):
        to_counts([-1])
    with pytest.raises(CardError, match="60"):
        to_counts([60])
