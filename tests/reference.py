"""A slow, plainly correct reference of the hand analysis (docs/rules.md §6).

Written from the rulebook's definitions only, independent of the kernel in
``shanghai_sim/kernels/melds/finder.py``: it shares nothing with it but the card
encoding of ``shanghai_sim.cards`` and the ``Rules`` object. The tests compare
the two; when they disagree, this file should be the easier one to check by
hand.

The model
---------
A contract is a list of melds (``MeldSpec``: kind and required size). Laying
it down means choosing, for every listed meld, a *shape* and filling each of
its slots:

- a set: a rank and a size; every slot holds a natural of that rank (any
  suit) or a joker (docs/rules.md §4);
- a run: a suit and a window ``lo..hi`` of run positions 0..13 (position p is
  rank index p, except that 13 is the ace again: ace low is 0, ace high 13).
  A window has at most 13 positions, so it never holds the ace at both ends,
  and windows never wrap (K-A-2 has no window). Every position holds the
  natural of that suit and rank or a joker, one card per position.

Each slot is filled by a hand natural, a hand joker, or (for ``deficiency``
only) an *added* natural. A lay-down is valid when:

- no hand card is used twice (counts per card id and the joker count bound
  the use; duplicates from several packs are separate cards, so two 8-8-8
  sets are fine);
- every meld's size is >= its required size (``initial_meld = at_least``) or
  equal to it (``exact``);
- the joker limit holds in every meld: ``naturals``: jokers <= naturals in
  the meld, added naturals included; ``table``: jokers <=
  ``Rules.joker_cap(size)``;
- under ``same_suit_runs = gap`` two runs of one suit do not touch: at least
  one run position lies strictly between their windows (overlap is touching).

Then (docs/rules.md §6):

- ``satisfiable``: a valid lay-down without added naturals exists;
- ``deadwood``: the least ``points`` left in hand over those lay-downs (a
  joker may be placed where a natural could go: nothing forces a natural);
- ``deficiency``: the fewest added naturals over all valid lay-downs.

Why "added naturals = slots filled by an added natural" is the definition:
adding a multiset A of naturals to the hand and laying down from hand + A
fills some slots with cards of A; conversely a lay-down with ``a`` added
slots names the ``a`` cards (the card each slot stands for) that make it
real. Supply is unlimited, so any card may be added any number of times.
Cards of A that are not used could be left out, so the least |A| is the
least number of added slots.

How it stays fast enough (every pruning keeps the answer exact)
--------------------------------------------------------------
1. *Options by consumption.* What a meld takes out of the hand is its
   consumption: the multiset of hand naturals and the number of hand jokers
   it uses (and, under ``gap``, a run's suit and window, which constrains
   later runs). The rest of the search sees nothing else, so among shapes
   with equal consumption only the one with fewest added naturals matters
   (``_set_options``/``_run_options`` keep that one).
2. *A bound on added naturals per meld.* If any valid lay-down exists, one
   exists with at most ``cards_needed`` (the sum of required sizes) added
   naturals: shrink every meld to its required size (a set to any
   ``size`` slots; a run to a sub-window of its window, which keeps ``gap``
   windows apart) and fill every slot with an added natural (0 jokers meets
   every joker limit). So the optimum has <= ``cards_needed`` added naturals
   and no single meld ever needs more; set sizes are bounded by that, plus
   the hand's cards of the rank.
3. *Interchangeable melds in order.* Melds with the same spec (set3 set3)
   can be listed in any order, so only lay-downs whose options are sorted by
   a fixed key are searched (``_search``'s ``last``). Sorting a valid
   lay-down gives a valid lay-down with the same cost, and by (1) each of its
   melds may be taken as the fewest-added option of its consumption, which is
   what the enumeration lists.
4. *Memoisation* on (meld index, remaining hand, remaining jokers, windows
   laid under ``gap``, key of the previous identical meld): the best
   completion depends on nothing else.
5. *A lower bound* inside each node: the rest of the contract needs at least
   the sum, over the remaining melds, of the fewest added naturals each one
   would need alone with the whole remaining hand (in the joint lay-down each
   meld uses a part of that hand, so it needs at least its solo minimum).
   An option whose added naturals plus that bound cannot beat the best
   completion found so far *in the same node* is skipped; the node's value
   stays exact, so memoising it is sound.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence

import numpy as np

from shanghai_sim.cards import JOKER, NRANKS, RANKS, card_id, card_str, to_counts
from shanghai_sim.rules import (InitialMeld, JokerLimit, MeldKind, MeldSpec, Rules, SameSuitRuns,
                                load_rules, resolve_contract)

NPOS = 14          # run positions 0..13 (0 = ace low, 13 = ace high)
MAX_RUN = 13       # a window of 14 would hold the ace twice
INF = float("inf")


def pos_card(suit: int, pos: int) -> int:
    """Card id of run position ``pos`` (0..13) in ``suit``: 13 is the ace again."""
    return suit * NRANKS + (pos % NRANKS)


class _Problem:
    """One (rules, contract) pair: the checks of docs/rules.md §4 and the searches."""

    def __init__(self, specs: Sequence[MeldSpec], rules: Rules, prune: bool = True):
        self.rules = rules
        self.prune = prune     # False: skip (3), (5) and dominance, to test that they change nothing
        # Runs first: they are the most constrained melds, so the per-node
        # bound (5) prunes earlier. The order of melds changes nothing else.
        self.specs = tuple(sorted(specs, key=lambda m: (-int(m.kind), m.size)))
        self.exact = rules.initial_meld == InitialMeld.EXACT
        self.gap = rules.same_suit_runs == SameSuitRuns.GAP
        self.naturals_limit = rules.joker_limit == JokerLimit.NATURALS
        self.budget = sum(m.size for m in specs)   # bound (2)
        pts = dict(rules.points)
        self.points = [pts[RANKS[c % NRANKS]] for c in range(52)] + [pts["JK"]]
        # (4) memoisation, per problem so that nothing outlives it
        self._piece_cache = {}
        self.solo_min = functools.lru_cache(maxsize=None)(self._solo_min)
        self.min_added = functools.lru_cache(maxsize=None)(self._min_added)
        self.max_used = functools.lru_cache(maxsize=None)(self._max_used)

    # ---- docs/rules.md §4 checks on one meld, from counts of its slots

    def size_ok(self, spec: MeldSpec, size: int) -> bool:
        return size == spec.size if self.exact else size >= spec.size

    def jokers_ok(self, size: int, naturals: int, jokers: int) -> bool:
        if self.naturals_limit:
            return jokers <= naturals
        return jokers <= self.rules.joker_cap(size)

    # ---- options of one meld given the hand (H: 52 counts, J: jokers)
    #
    # An option is (key, a) with key = (consumption, jokers, window): the
    # sorted tuple of hand natural ids it uses, the hand jokers it uses, and
    # under ``gap`` a run's (suit, lo, hi) (else None); a = its added
    # naturals. A set of rank r only sees the hand's cards of rank r, a run of
    # suit u only the hand's cards of suit u, so options are built per rank
    # and per suit and cached on exactly what they see (``_piece``).

    def _set_piece(self, spec, r, avail, J, max_added):
        """Set options of rank r; avail = the hand's count of rank r per suit.

        For a fixed consumption of n naturals and j jokers the size is
        n + j + a; try a = 0, 1, ... max_added and keep the first that the size
        and joker rules accept (1).
        """
        out = {}
        for c in itertools.product(*(range(x + 1) for x in avail)):
            n = sum(c)
            cons = tuple(itertools.chain.from_iterable([u * NRANKS + r] * c[u] for u in range(4)))
            for j in range(J + 1):
                for a in range(max_added + 1):
                    size = n + j + a
                    if self.size_ok(spec, size) and self.jokers_ok(size, n + a, j):
                        key = (cons, j, None)
                        if out.get(key, INF) > a:
                            out[key] = a
                        break
        return out

    def _run_piece(self, spec, u, present, J, max_added):
        """Run options of suit u; present[p] = the hand holds position p's card.

        A window fixes the size; a subset P of its positions is filled by hand
        naturals (only positions whose card the hand holds), j positions by
        hand jokers and the rest, a = size - |P| - j, by added naturals.
        Jokers and added naturals can each stand at any position, so which of
        the remaining positions gets which does not matter. The window is
        kept in the key only under ``gap``, where later runs depend on it.
        """
        out = {}
        sizes = [spec.size] if self.exact else range(spec.size, MAX_RUN + 1)
        for size in sizes:
            for lo in range(NPOS - size + 1):
                avail = [p for p in range(lo, lo + size) if present[p]]
                for k in range(len(avail) + 1):
                    for P in itertools.combinations(avail, k):
                        cons = tuple(sorted(pos_card(u, p) for p in P))
                        for j in range(min(J, size - k) + 1):
                            a = size - k - j
                            if a > max_added or not self.jokers_ok(size, k + a, j):
                                continue
                            key = (cons, j, (u, lo, lo + size - 1) if self.gap else None)
                            if out.get(key, INF) > a:
                                out[key] = a
        return out

    def _piece(self, spec, which, seen, J, max_added):
        """Options of one rank (sets) or one suit (runs), cached on what they see.

        With added naturals allowed (the deficiency search) dominated options
        are dropped: option 1 dominates option 2 when it uses a sub-multiset of
        2's hand naturals, no more jokers, no more added naturals, and (runs
        under ``gap``) a sub-window of 2's window. Swapping 2 for 1 in any
        valid lay-down keeps it valid (more cards stay free; a sub-window
        touches fewer runs) and costs no more, so some best lay-down uses only
        undominated options. The deadwood search (max_added = 0) keeps all:
        there a bigger meld may leave less deadwood.
        """
        ck = (spec, which, seen, J, max_added)
        got = self._piece_cache.get(ck)
        if got is None:
            if spec.kind == MeldKind.SET:
                opts = self._set_piece(spec, which, seen, J, max_added)
            else:
                opts = self._run_piece(spec, which, seen, J, max_added)
            got = list(opts.items())
            # The filter is quadratic; it only saves time, so it is skipped
            # for the rare huge lists (a whole suit in hand: 2^13 subsets).
            if max_added > 0 and self.prune and len(got) <= 1500:
                got = [o for o in got if not any(_dominates(q, o) for q in got if q is not o)]
            self._piece_cache[ck] = got
        return got

    def options(self, spec, H, J, max_added):
        """All options of a meld from H, J (a list of (key, a))."""
        out = []
        if spec.kind == MeldKind.SET:
            for r in range(NRANKS):
                avail = tuple(H[u * NRANKS + r] for u in range(4))
                out.extend(self._piece(spec, r, avail, J, max_added))
        else:
            for u in range(4):
                present = tuple(H[pos_card(u, p)] > 0 for p in range(NPOS))
                out.extend(self._piece(spec, u, present, J, max_added))
        # Options using no hand natural are alike for every rank or suit (the
        # same key when no window is kept): keep the fewest added per key (1).
        best = {}
        for key, a in out:
            if best.get(key, INF) > a:
                best[key] = a
        return list(best.items())

    def window_fits(self, windows, window) -> bool:
        """docs/rules.md §3 same_suit_runs = gap: no two runs of a suit touch."""
        if window is None:
            return True
        u, lo, hi = window
        return all(not (wu == u and lo <= whi + 1 and wlo <= hi + 1) for wu, wlo, whi in windows)

    # ---- lower bound (5)

    def _solo_min(self, i, H, J):
        """Fewest added naturals for meld i alone with hand H, J (INF if none)."""
        return min((a for _, a in self.options(self.specs[i], H, J, self.budget)), default=INF)

    def rest_bound(self, i, H, J):
        return sum(self.solo_min(k, H, J) for k in range(i, len(self.specs)))

    # ---- the searches

    def _same_as_previous(self, i):
        return i > 0 and self.specs[i] == self.specs[i - 1]

    def _min_added(self, i, H, J, windows, last):
        """Fewest added naturals to lay melds i.. from H, J (INF if impossible)."""
        if i == len(self.specs):
            return 0
        spec = self.specs[i]
        opts = sorted(self.options(spec, H, J, self.budget), key=lambda kv: (kv[1], kv[0]))
        best = INF
        for key, a in opts:
            if a >= best:
                break                      # sorted by a: no later option can do better
            if self.prune and self._same_as_previous(i) and last is not None and key < last:
                continue                   # (3)
            cons, j, window = key
            if not self.window_fits(windows, window):
                continue
            H2 = _take(H, cons)
            if self.prune and a + self.rest_bound(i + 1, H2, J - j) >= best:
                continue                   # (5)
            w2 = windows + (window,) if window is not None else windows
            nxt = key if i + 1 < len(self.specs) and self.specs[i + 1] == spec else None
            best = min(best, a + self.min_added(i + 1, H2, J - j, w2, nxt))
        return best

    def _max_used(self, i, H, J, windows, last):
        """Most points laid down from H, J by melds i.. with no added natural
        (-INF if impossible)."""
        if i == len(self.specs):
            return 0
        spec = self.specs[i]
        best = -INF
        for key, a in self.options(spec, H, J, 0):
            if self.prune and self._same_as_previous(i) and last is not None and key < last:
                continue                   # (3)
            cons, j, window = key
            if not self.window_fits(windows, window):
                continue
            w2 = windows + (window,) if window is not None else windows
            nxt = key if i + 1 < len(self.specs) and self.specs[i + 1] == spec else None
            used = sum(self.points[c] for c in cons) + j * self.points[JOKER]
            best = max(best, used + self.max_used(i + 1, _take(H, cons), J - j, w2, nxt))
        return best


def _sub_multiset(x: tuple, y: tuple) -> bool:
    """Is the sorted tuple x a sub-multiset of the sorted tuple y?"""
    it = iter(y)
    return all(any(c == d for d in it) for c in x)


def _dominates(q, o) -> bool:
    """Option q dominates option o (see ``_Problem._piece``)."""
    (qc, qj, qw), qa = q
    (oc, oj, ow), oa = o
    if qj > oj or qa > oa or not _sub_multiset(qc, oc):
        return False
    if qw != ow and not (qw[0] == ow[0] and ow[1] <= qw[1] and qw[2] <= ow[2]):
        return False
    return (qc, qj, qw, qa) != (oc, oj, ow, oa)


def _take(H: tuple, cons: tuple) -> tuple:
    h = list(H)
    for c in cons:
        h[c] -= 1
    return tuple(h)


def _counts(hand) -> np.ndarray:
    if isinstance(hand, np.ndarray):
        counts = np.asarray(hand, dtype=np.int64)
        if counts.shape != (53,) or (counts < 0).any():
            raise ValueError("a count array has shape (53,) and no negative entries")
        return counts
    return to_counts(hand)


def _specs(melds_spec, rules: Rules) -> tuple[MeldSpec, ...]:
    if isinstance(melds_spec, (str, int, np.integer)):
        return resolve_contract(rules, melds_spec)
    return tuple(melds_spec)


def reference_analysis(counts_or_cards, melds_spec, rules="shanghai", *, prune=True):
    """(satisfiable, deadwood or None, deficiency) by exhaustive search.

    ``counts_or_cards``: a length-53 count array, a card string or a list of
    cards; ``melds_spec``: MeldSpecs, contract notation or a hand number;
    ``rules``: a preset name, TOML path or Rules.
    """
    rules = load_rules(rules)
    counts = _counts(counts_or_cards)
    specs = _specs(melds_spec, rules)
    prob = _Problem(specs, rules, prune)
    H, J = tuple(int(x) for x in counts[:52]), int(counts[JOKER])
    deficiency = prob.min_added(0, H, J, (), None)
    if deficiency == INF:
        raise ValueError(f"contract {' '.join(map(str, specs))} cannot be laid down at all")
    used = prob.max_used(0, H, J, (), None)
    satisfiable = used != -INF
    assert satisfiable == (deficiency == 0), "the two searches disagree on satisfiable"
    total = sum(prob.points[c] * int(counts[c]) for c in range(53))
    deadwood = total - used if satisfiable else None
    return satisfiable, deadwood, int(deficiency)


# ---------------------------------------------------------------- lay-down checker

def _run_windows(cards: list[int]) -> list[tuple[int, int, int]]:
    """Every (suit, lo, hi) window in which these cards form a run (jokers anywhere)."""
    naturals = [c for c in cards if c != JOKER]
    size = len(cards)
    if size > MAX_RUN:
        return []
    suits = {c // NRANKS for c in naturals}
    if len(suits) > 1:
        return []
    out = []
    for u in (suits or range(4)):
        for lo in range(NPOS - size + 1):
            positions = {pos_card(u, p): p for p in range(lo, lo + size)}
            # each natural needs its own position in the window
            if all(c in positions for c in naturals) and len(set(naturals)) == len(naturals):
                out.append((u, lo, lo + size - 1))
    return out


def _is_set(cards: list[int]) -> bool:
    return len({c % NRANKS for c in cards if c != JOKER}) <= 1


def check_laydown(hand, melds: Iterable[Iterable[str]], leftover: Iterable[str], melds_spec,
                  rules="shanghai") -> int:
    """Check that ``melds`` is a valid lay-down of the contract from ``hand``
    with ``leftover`` the rest of the hand (docs/rules.md §4, no added cards);
    return the points of ``leftover``. Raises AssertionError naming the fault.
    """
    rules = load_rules(rules)
    specs = _specs(melds_spec, rules)
    prob = _Problem(specs, rules)
    counts = _counts(hand)
    ms = [[card_id(c) for c in m] for m in melds]
    leftover = list(leftover or [])
    left = to_counts(leftover) if leftover else np.zeros(53, dtype=np.int64)
    used = np.zeros(53, dtype=np.int64)
    for m in ms:
        for c in m:
            used[c] += 1
    assert (used + left == counts).all(), "melds + leftover are not the hand"
    assert len(ms) == len(specs), f"{len(ms)} melds for a contract of {len(specs)}"

    assert laydown_ok(ms, specs, rules), (
        f"melds {[melds_list_str(m) for m in ms]} do not lay down "
        f"{' '.join(map(str, specs))} under {rules.name}")
    return int(sum(prob.points[c] * int(left[c]) for c in range(53)))


def meld_shapes(m: list[int], prob: "_Problem") -> list:
    """What the cards ``m`` can be as one meld within the joker limit:
    (MeldKind.SET, None) and/or (MeldKind.RUN, window) for each window."""
    n_nat = sum(1 for c in m if c != JOKER)
    if not prob.jokers_ok(len(m), n_nat, len(m) - n_nat):
        return []
    out = []
    if _is_set(m) and len(m) >= 3:
        out.append((MeldKind.SET, None))
    if len(m) >= 4:
        out.extend((MeldKind.RUN, w) for w in _run_windows(m))
    return out


def laydown_ok(ms: list[list[int]], specs, rules: Rules) -> bool:
    """Are the card-id lists ``ms`` exactly the contract's melds (each matched
    to one spec, sizes per ``initial_meld``, joker limit, ``gap``)?"""
    prob = _Problem(specs, rules)
    if len(ms) != len(specs):
        return False
    all_shapes = [meld_shapes(m, prob) for m in ms]
    if not all(all_shapes):
        return False
    for perm in itertools.permutations(range(len(specs))):
        for choice in itertools.product(*all_shapes):
            windows = []
            for k, (kind, w) in enumerate(choice):
                spec = specs[perm[k]]
                if kind != spec.kind or not prob.size_ok(spec, len(ms[k])):
                    break
                if kind == MeldKind.RUN and prob.gap:
                    if not prob.window_fits(tuple(windows), w):
                        break
                    windows.append(w)
            else:
                return True
    return False


def naive_analysis(hand, melds_spec, rules="shanghai", max_deficiency=1):
    """Brute force for tiny hands: try every way to hand each physical card
    to one meld or leave it, and check the result with ``laydown_ok``.
    Returns (satisfiable, deadwood, deficiency) where deficiency is only
    exact up to ``max_deficiency`` (larger values come back as
    max_deficiency + 1): each added natural is tried as every one of the 52
    cards."""
    rules = load_rules(rules)
    specs = _specs(melds_spec, rules)
    prob = _Problem(specs, rules)
    ids = [c for c in range(53) for _ in range(int(_counts(hand)[c]))]

    def best_leftover(cards, forced):
        # forced: indices of cards that must be in a meld (added cards)
        best = None
        m = len(specs)
        for assign in itertools.product(range(-1, m), repeat=len(cards)):
            if any(assign[k] == -1 for k in forced):
                continue
            ms = [[c for c, a in zip(cards, assign) if a == k] for k in range(m)]
            if laydown_ok(ms, specs, rules):
                left = sum(prob.points[c] for c, a in zip(cards, assign) if a == -1)
                best = left if best is None else min(best, left)
        return best

    dead = best_leftover(ids, ())
    if dead is not None:
        return True, dead, 0
    for d in range(1, max_deficiency + 1):
        for extra in itertools.combinations_with_replacement(range(52), d):
            cards = ids + list(extra)
            if best_leftover(cards, range(len(ids), len(cards))) is not None:
                return False, None, d
    return False, None, max_deficiency + 1


def melds_list_str(m: list[int]) -> str:
    return " ".join(card_str(c) for c in m)
