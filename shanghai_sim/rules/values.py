"""The values rules options take: the option enums, the ranges, melds and contracts.

The enums (``GoOut``, ``JokerLimit``, ...) take their values from ``kernels.base.layout``, which the
kernels read; the ranges of docs/rules.md §3 (``MAX_*``) are each derived from what holds the
value (a dataset column, an engine array). ``MeldSpec`` and ``Contract`` are a hand's contract,
``parse_contract`` reads contract notation (``set3 run4``) and ``resolve_contract`` a hand
number or notation; the presets' contracts and card points are here too. ``RulesError`` is
every refusal of the rules package.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..kernels.base import layout as L

if TYPE_CHECKING:
    from .model import Rules


class RulesError(ValueError):
    """A rules option, contract or rules file that cannot be used."""


class BuyPriority(enum.IntEnum):
    DEALER_LEFT = L.BUY_DEALER_LEFT
    TURN_ORDER = L.BUY_TURN_ORDER


class JokerLimit(enum.IntEnum):
    NATURALS = L.JL_NATURALS
    TABLE = L.JL_TABLE


class InitialMeld(enum.IntEnum):
    AT_LEAST = L.IM_AT_LEAST
    EXACT = L.IM_EXACT


class SameSuitRuns(enum.IntEnum):
    DISTINCT = L.SSR_DISTINCT
    GAP = L.SSR_GAP


class GoOut(enum.IntEnum):
    NO_DISCARD = L.GO_NO_DISCARD
    DISCARD_REQUIRED = L.GO_DISCARD_REQUIRED
    EITHER = L.GO_EITHER


class JokerSwap(enum.IntEnum):
    ANYONE = L.SWAP_ANYONE
    DOWN_ONLY = L.SWAP_DOWN_ONLY


class SetJokerIdentity(enum.IntEnum):
    RANK = L.SJI_RANK
    CARD = L.SJI_CARD


class MeldKind(enum.IntEnum):
    SET = L.SET
    RUN = L.RUN


MIN_SIZE = {MeldKind.SET: 3, MeldKind.RUN: 4}

# The ranges of docs/rules.md §3 ("Ranges"), each derived from what holds the value: the
# dataset's columns (hands.hand uint8, hands.points int16, hands.cards_left/buy_cards/
# stock_passes uint8, hands.down_turn int16, games.points int32, the contract column's int8
# dictionary codes) and the engine's arrays (kernels/base/layout.py: TW cards in a table meld).
MAX_HANDS = 255               # hands.hand is uint8
MAX_CONTRACT_NAMES = 128      # distinct contracts in a game: the contract column's codes are int8
MAX_CONTRACT_MELDS = 4        # the most any preset uses; the meld finder's search grows too fast beyond
MAX_SET = L.TW                # a table meld holds TW (64) cards: 32 naturals of a rank (8 packs) + 32 jokers
MAX_RUN = 13                  # a run never wraps and holds one ace (docs/rules.md §4)
MAX_DEAL = 60
MAX_HELD = 255                # cards one player can hold (deal + draw + buys): hands.cards_left is uint8
MAX_POINT = 128               # a card's value: 255 cards x 128 = 32,640 fits hands.points (int16)
MIN_BONUS, MAX_BONUS = -32768, 32767   # a blind bonus is a hand's score: int16; 255 hands fit int32
MAX_BUYS = 255                # per player per hand: hands.buys is uint8 (255 hands x 255 fit games.buys)
MAX_BUY_PENALTY = 10
MAX_JOKERS = 64               # jokers in a shoe (the hand memo keys up to 63 jokers in a hand)
MAX_JOKER_CAP = 32            # a meld's jokers under joker_table: 32 naturals + 32 jokers = TW
MAX_STOCK_PASSES = 255        # hands.stock_passes is uint8
MAX_HAND_TURNS = 32767        # a seat's turn number fits hands.down_turn (int16) at any table


@dataclass(frozen=True)
class MeldSpec:
    kind: MeldKind
    size: int

    def __str__(self) -> str:
        return f"{self.kind.name.lower()}{self.size}"


@dataclass(frozen=True)
class Contract:
    melds: tuple[MeldSpec, ...]
    deal: int

    def __str__(self) -> str:
        return " ".join(str(m) for m in self.melds)

    @property
    def cards_needed(self) -> int:
        return sum(m.size for m in self.melds)


def parse_contract(text: str) -> tuple[MeldSpec, ...]:
    """Contract notation (docs/rules.md §2): ``set3 run10`` -> melds."""
    if not isinstance(text, str):
        raise RulesError(f"unknown contract {text!r} (expected notation such as 'set3 run4')")
    tokens = text.replace(",", " ").lower().split()
    if not tokens:
        raise RulesError("empty contract (expected notation such as 'set3 run4')")
    melds = []
    for tok in tokens:
        for kind in MeldKind:
            name = kind.name.lower()
            digits = tok[len(name):]
            if tok.startswith(name) and digits.isascii() and digits.isdigit():
                lo = MIN_SIZE[kind]
                hi = MAX_RUN if kind == MeldKind.RUN else MAX_SET
                if len(digits) > 4 or not lo <= int(digits) <= hi:
                    raise RulesError(
                        f"bad meld {tok!r} in contract {text!r}: a {name} has {lo}..{hi} cards")
                size = int(digits)
                melds.append(MeldSpec(kind, size))
                break
        else:
            raise RulesError(f"unknown meld {tok!r} in contract {text!r} (expected setN or runN, e.g. 'set3 run4')")
    if len(melds) > MAX_CONTRACT_MELDS:
        raise RulesError(f"contract {text!r} has {len(melds)} melds; at most {MAX_CONTRACT_MELDS} "
                         "(the most any preset asks; the meld finder's search grows too fast beyond)")
    # Sets first, then runs, each by size: a canonical order for the kernels.
    return tuple(sorted(melds, key=lambda m: (m.kind, m.size)))


def _contracts(pairs) -> tuple[Contract, ...]:
    return tuple(Contract(parse_contract(m), d) for m, d in pairs)


SHANGHAI_CONTRACTS = _contracts([
    ("set3 set3", 11), ("set3 run4", 11), ("run4 run4", 11), ("set3 set3 set3", 11),
    ("set3 run7", 11), ("set3 set3 run5", 11), ("run4 run4 run4", 11), ("set3 run10", 11),
    ("set3 set3 set3 run5", 11), ("run5 run5 run5", 11),
])
PROGRESSIVE_CONTRACTS = _contracts([
    ("set3 set3 set3", 10), ("set3 set3 run4", 11), ("set3 run4 run4", 12),
    ("run4 run4 run4", 13), ("set3 set3 set3 set3", 13), ("set3 set3 set3 run4", 14),
    ("set3 set3 run4 run4", 15), ("run4 run4 run4 set3", 16), ("run4 run4 run4 run4", 17),
])

SHANGHAI_POINTS = {"A": 15, "2": 20, "3": 5, "4": 5, "5": 5, "6": 5, "7": 5, "8": 5, "9": 5,
                   "T": 10, "J": 10, "Q": 10, "K": 10, "JK": 25}
CONTRACT_POINTS = dict(SHANGHAI_POINTS, A=20)
DEFAULT_JOKER_TABLE = ((3, 1), (5, 2), (7, 3), (10, 4))   # (from size, jokers allowed)


def resolve_contract(r: Rules, contract: "int | str") -> tuple[MeldSpec, ...]:
    """A 1-based hand number of ``r`` or contract notation -> melds."""
    if isinstance(contract, (int, np.integer)) and not isinstance(contract, bool):
        if not 1 <= contract <= r.hands:
            raise RulesError(f"unknown contract {contract}: rules {r.name!r} have hands 1..{r.hands}")
        return r.contracts[contract - 1].melds
    s = str(contract).strip()
    if s.isascii() and s.isdigit():
        return resolve_contract(r, int(s))
    return parse_contract(s)
