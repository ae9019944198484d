"""Cards: docs/rules.md §2 notation <-> card ids <-> count arrays.

This module owns the card encoding; everything else refers to it.

Card id (0..52) and count-array layout (the public layout)
----------------------------------------------------------
A hand is a count array of length 53 (``NCARDS``), integer dtype:

    index = suit * 13 + rank_index      for natural cards
    index = 52                          for jokers (JOKER)

- suits in the order C, D, H, S  (suit 0..3)
- rank index A=0, 2=1, 3=2, ..., 9=8, T=9, J=10, Q=11, K=12

``counts[i]`` is how many copies of card ``i`` the hand holds; several packs
make counts above 1 legal. A card *id* is the same index, so a list of ids and
a count array describe the same hand.

The ace is stored once (rank index 0). Runs treat it as low (position 0,
before the 2) or high (position 13, after the K) but never both in one run:
see ``shanghai_sim.kernels.melds.finder`` for the run positions 0..13.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

NSUITS = 4
NRANKS = 13
NCARDS = 53
JOKER = 52

SUITS = "CDHS"
RANKS = "A23456789TJQK"
_SUIT_ALIASES = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3}
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)}
_RANK_ALIASES["10"] = 9
_SPLIT = re.compile(r"[\s,]+")


class CardError(ValueError):
    """A card token or hand that docs/rules.md §2 does not accept."""


def card_id(token: str) -> int:
    """Parse one card token (``AS``, ``10H``, ``th``, ``JK``, ``Q♠``) to its id."""
    t = token.strip()
    up = t.upper()
    if up == "JK":
        return JOKER
    if len(t) >= 2:
        rank, suit = up[:-1], up[-1]
        if rank in _RANK_ALIASES and suit in _SUIT_ALIASES:
            return _SUIT_ALIASES[suit] * NRANKS + _RANK_ALIASES[rank]
    raise CardError(f"unknown card {token!r} (expected rank+suit such as AS, TH, 10H, or JK)")


def card_str(cid: int) -> str:
    """The canonical notation of a card id: ``AS``, ``TH``, ``JK``."""
    cid = int(cid)
    if cid == JOKER:
        return "JK"
    if not 0 <= cid < JOKER:
        raise CardError(f"card id {cid} is outside 0..52")
    return RANKS[cid % NRANKS] + SUITS[cid // NRANKS]


def parse_cards(cards: str | Iterable[str]) -> list[int]:
    """Parse a hand given as one string (spaces or commas) or a list of tokens."""
    if isinstance(cards, str):
        tokens = [t for t in _SPLIT.split(cards) if t]
    else:
        tokens = []
        for item in cards:
            if not isinstance(item, str):
                raise CardError(f"unknown card {item!r} (cards are strings such as AS or JK)")
            tokens.extend(t for t in _SPLIT.split(item) if t)
    return [card_id(t) for t in tokens]


def to_counts(cards: str | Iterable[str] | Iterable[int]) -> np.ndarray:
    """A hand (notation or ids) as a length-53 int64 count array."""
    counts = np.zeros(NCARDS, dtype=np.int64)
    if isinstance(cards, str):
        ids = parse_cards(cards)
    else:
        items = list(cards)
        ids = parse_cards(items) if items and isinstance(items[0], str) else [int(c) for c in items]
    for c in ids:
        if not 0 <= c < NCARDS:
            raise CardError(f"card id {c} is outside 0..52")
        counts[c] += 1
    return counts


def from_counts(counts: np.ndarray) -> list[str]:
    """Card strings of a count array, in id order (jokers last)."""
    out = []
    for cid in np.flatnonzero(np.asarray(counts)):
        out.extend([card_str(cid)] * int(counts[cid]))
    return out


def format_cards(ids: Iterable[int]) -> str:
    return " ".join(card_str(c) for c in ids)
