"""Hand analysis (docs/rules.md §6): ``analyze_hand`` and ``deficiency_batch``.

Thin Python over ``kernels.melds.finder``: parses cards, contracts and rules once,
then calls the compiled search.

A hand must fit the rules' shoe (packs and jokers at a player count: the
rules' own by default): three copies of a card that two packs hold twice is
an error, not a question. ``shoe=False`` lifts the check for what-if
questions; the meld finder itself takes any counts.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .cards import CardError, NCARDS, card_str, parse_cards
from .kernels.melds import finder as K
from .rules import (MAX_MELDS, MAX_PLAYERS, MIN_PLAYERS, PRESETS, MeldKind, Rules,
                    RulesError, load_rules, resolve_contract)


@dataclass(frozen=True)
class HandAnalysis:
    """What the meld finder answers for one hand and contract."""

    cards: tuple[str, ...]
    contract: str
    satisfiable: bool
    deadwood: int | None
    deficiency: int
    melds: list[list[str]] | None
    leftover: list[str] | None

    def to_dict(self) -> dict:
        return {"satisfiable": self.satisfiable, "deadwood": self.deadwood,
                "deficiency": self.deficiency, "melds": self.melds, "leftover": self.leftover}


def _contract_rows(r: Rules, contract) -> tuple[np.ndarray, np.ndarray, int, str]:
    melds = resolve_contract(r, contract)
    kinds = np.full(MAX_MELDS, -1, dtype=np.int64)
    sizes = np.zeros(MAX_MELDS, dtype=np.int64)
    for i, m in enumerate(melds):
        kinds[i] = int(m.kind)
        sizes[i] = m.size
    return kinds, sizes, len(melds), " ".join(str(m) for m in melds)


def _rules(rules) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str) and rules in PRESETS:     # a preset by name: one object per name
        r = _PRESET_RULES.get(rules)                     # (Rules are frozen), so _prepared hits
        if r is None:
            r = _PRESET_RULES[rules] = load_rules(rules)
        return r
    return load_rules(rules)                             # a file: read every time (it may change)


_PRESET_RULES: dict[str, Rules] = {}


def shoe_limits(r: Rules, players: int | None = None) -> tuple[int, int, str]:
    """(copies of each natural card, jokers, description) of the shoe of ``r`` at ``players``."""
    p = r.players if players is None else int(players)
    if not MIN_PLAYERS <= p <= MAX_PLAYERS:
        raise RulesError(f"players = {p}: must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    packs, jokers = r.decks_for(p), r.jokers_for(p)
    return packs, jokers, (f"the shoe of rules {r.name!r} at {p} players ({packs} pack"
                           f"{'s' if packs != 1 else ''} of 52 and {jokers} joker"
                           f"{'s' if jokers != 1 else ''}, {r.shoe_size(p)} cards)")


def check_shoe(counts: np.ndarray, r: Rules, players: int | None = None) -> None:
    """CardError naming the first card of ``counts`` (53 or (n, 53)) that the shoe cannot hold."""
    packs, jokers, shoe = shoe_limits(r, players)
    c = np.asarray(counts)
    rows = c.reshape(-1, NCARDS)
    if rows.shape[0] == 0:
        return
    top = rows.max(axis=0)           # one pass: the card-by-card search below only on a failure
    if top[NCARDS - 1] <= jokers and top[:NCARDS - 1].max() <= packs:
        return
    over_j = rows[:, NCARDS - 1] > jokers
    over_n = (rows[:, :NCARDS - 1] > packs).any(axis=1)
    bad = np.flatnonzero(over_j | over_n)
    if bad.size == 0:
        return
    i = int(bad[0])
    where = f"hand {i}: " if c.ndim == 2 else ""
    if over_j[i]:
        msg = f"{where}{int(rows[i, -1])} jokers, but {shoe} holds {jokers}"
    else:
        cid = int(np.flatnonzero(rows[i, :NCARDS - 1] > packs)[0])
        msg = f"{where}{int(rows[i, cid])} x {card_str(cid)}, but {shoe} holds {packs} of each card"
    raise CardError(msg + " (choose --players, or lift the check with --any-hand / shoe=False)")


class HandTooLarge(CardError):
    """A hand larger than any player can hold under the rules (``max_held``): refused, since
    the meld finder's search grows steeply with the cards (issue 59: 60 cards ran for minutes)."""


def max_held(r: Rules, contract: "int | str | None" = None) -> tuple[int, str]:
    """The most cards one player can hold under ``r``, and why: the cards dealt, the one drawn,
    and every buy allowed with its penalty cards (``deal + 1 + buys x (1 + buy_penalty)``,
    the count ``rules.validate`` bounds by MAX_HELD; a joker swap leaves the count as it is).
    At hand ``contract`` when it is a hand number; for a contract in notation (or None) the
    most of any hand of the rules."""
    s = str(contract).strip() if contract is not None else ""
    hands = [int(s)] if s.isascii() and s.isdigit() and 1 <= int(s) <= r.hands else range(1, r.hands + 1)
    best, why = -1, ""
    for h in hands:
        c, buys = r.contracts[h - 1], r.buys_per_hand[h - 1]
        n = c.deal + 1 + buys * (1 + r.buy_penalty)
        if n > best:
            best, why = n, (f"hand {h}: {c.deal} dealt + 1 drawn + {buys} buy{'s' if buys != 1 else ''} "
                            f"x {1 + r.buy_penalty} cards")
    return best, why


def check_size(n: int, r: Rules, contract: "int | str | None" = None) -> None:
    """HandTooLarge unless a hand of ``n`` cards fits what a player can hold (``max_held``)."""
    most, why = max_held(r, contract)
    if n > most:
        raise HandTooLarge(f"a hand of {n} cards: under rules {r.name!r} a player holds at most {most} "
                           f"({why}); a larger hand is never played and too large to analyse exactly")


def analysis_args(counts=None, rules: "Rules | None" = None, contract: int | str = 2) -> tuple:
    """The meld finder's arguments for one hand as ``analyze_hand`` passes them: (counts,
    the contract as ``layout.Contract``, the rules' points, the lay-down rows). Without
    arguments, an empty hand under ``shanghai`` contract 2: the types a compile by signature
    needs (``compiling._lay_half``)."""
    r = _rules("shanghai") if rules is None else rules
    kinds, sizes, nm, _ = _contract_rows(r, contract)
    a = r.arrays()
    C = K.Contract(kinds, sizes, nm, a.joker_cap, int(a.params.initial_exact), int(a.params.same_suit_gap))
    if counts is None:
        counts = np.zeros(NCARDS, dtype=np.int64)
    return counts, C, a.points, np.zeros((MAX_MELDS, K.LAY_W), dtype=np.int64)


def analyze_hand(cards: str | Iterable[str], contract: int | str,
                 rules: str | Path | Rules = "shanghai", players: int | None = None,
                 shoe: bool = True, limit: bool = True) -> HandAnalysis:
    """Analyse one hand: satisfiable, deadwood, deficiency and a best lay-down.

    ``cards``: notation string or list of card strings; ``contract``: 1-based
    hand number of the rules or notation such as ``"set3 run10"``; ``rules``:
    preset name, TOML path or Rules object. The hand must fit the rules' shoe
    at ``players`` (default: the rules' player count) unless ``shoe=False``, and
    hold no more cards than a player can under the rules (``max_held``: e.g. 24 for
    ``shanghai``, 30 for ``progressive``), whatever ``shoe`` says: ``HandTooLarge``.
    ``limit=False`` lifts that bound too (a kernel test on a hand no table deals): the
    search may then run for minutes (60 cards: past 200 s).
    """
    r = _rules(rules)
    ids = parse_cards(cards)
    if not ids:
        raise CardError("empty hand: give at least one card")
    kinds, sizes, nm, text = _contract_rows(r, contract)
    if limit:
        check_size(len(ids), r, contract)
    counts = np.zeros(NCARDS, dtype=np.int64)
    for c in ids:
        counts[c] += 1
    if shoe:
        check_shoe(counts, r, players)
    counts, C, points, out = analysis_args(counts, r, contract)
    deficiency = int(K.deficiency_nb(counts, C))
    deadwood = int(K.laydown_nb(counts, C, points, out))
    if deadwood < 0:
        return HandAnalysis(tuple(card_str(c) for c in ids), text, False, None, deficiency, None, None)
    melds = []
    left = counts.copy()
    for i in range(nm):
        n = out[i, 3]
        cs = [int(c) for c in out[i, 4:4 + n]]
        for c in cs:
            left[c] -= 1
        melds.append([card_str(c) for c in cs])
    leftover = [card_str(c) for c in range(NCARDS) for _ in range(int(left[c]))]
    return HandAnalysis(tuple(card_str(c) for c in ids), text, True, deadwood, deficiency, melds, leftover)


def deficiency_batch(counts, contract: int | str, rules: str | Path | Rules = "shanghai",
                     players: int | None = None, shoe: bool = True) -> np.ndarray:
    """Deficiencies of n hands given as an (n, 53) integer array, in compiled code.

    Every hand must fit the rules' shoe at ``players`` unless ``shoe=False``.
    """
    r = _rules(rules)
    arr = np.asarray(counts)
    if arr.ndim != 2 or arr.shape[1] != NCARDS:
        raise CardError(f"counts must be an (n, {NCARDS}) array, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise CardError(f"counts must be integers, got dtype {arr.dtype}")
    packs, jokers = shoe_limits(r, players)[:2] if shoe else (NO_SHOE_LIMIT, NO_SHOE_LIMIT)
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    C = _prepared(r, contract)
    out = np.empty(arr.shape[0], dtype=np.int64)
    # The kernel checks each hand as it reads it (no pass of its own) and stops at the first
    # bad one; the message is then built here.
    bad = K.deficiency_batch_nb(arr, C, out, _memo(C.joker_cap, C.exact, C.gap), packs, jokers)
    if bad >= 0:
        if (arr[bad] < 0).any():
            raise CardError(f"hand {bad}: counts must be non-negative")
        check_shoe(arr, r, players)
    return out


NO_SHOE_LIMIT = np.int64(1) << 62     # deficiency_batch_nb's packs/jokers for shoe=False: any count

# What a call needs of (rules, contract), built once: Rules.arrays() rebuilds its arrays on
# every call (0.1 ms), too much for a loop of small batches. Keyed by the Rules object's id;
# the entry holds the object, so the id cannot be reused while it is cached.
_PREP: dict = {}


def _prepared(r: Rules, contract) -> "K.Contract":
    key = (id(r), contract if isinstance(contract, (int, str)) else repr(contract))
    hit = _PREP.get(key)
    if hit is not None and hit[0] is r:
        return hit[1]
    kinds, sizes, nm, _ = _contract_rows(r, contract)
    a = r.arrays()
    prep = K.Contract(kinds, sizes, nm, a.joker_cap, int(a.params.initial_exact), int(a.params.same_suit_gap))
    if len(_PREP) >= 64:
        _PREP.clear()
    _PREP[key] = (r, prep)
    return prep


# The meld memo of deficiency_batch: one per thread and per rules (the options the
# finder reads: joker caps, initial_meld, same_suit_runs), kept across calls, so that a
# loop over small batches runs at the warm rate instead of starting cold each call.
# Answers never depend on the memo (it only holds results already computed).
_MEMOS = threading.local()
MEMOS_PER_THREAD = 4


def _memo(joker_cap: np.ndarray, exact: int, gap: int) -> tuple:
    memos = getattr(_MEMOS, "d", None)
    if memos is None:
        memos = _MEMOS.d = OrderedDict()
    key = (joker_cap.tobytes(), exact, gap)
    cache = memos.pop(key, None)
    if cache is None:
        cache = K.new_cache()
        while len(memos) >= MEMOS_PER_THREAD:
            memos.popitem(last=False)            # the least recently used rules
    memos[key] = cache
    return cache


__all__ = ["HandAnalysis", "analyze_hand", "deficiency_batch", "max_held", "HandTooLarge", "RulesError",
           "CardError", "MeldKind"]
