"""What the rules settle before a card is dealt: can each hand's contract be met at all, and
with how many buys (docs/rules.md §3, "the squeeze").

``hand_facts(rules, players)`` is the one function: the rules' checks (``rules.validate``
refuses a contract no hand can meet) and the analyses' statements of what the rules settle
both read it. It imports nothing above ``cards`` and ``kernels.base.layout``, so ``rules`` can
call it; it takes any object with the attributes of a ``rules.Rules``.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

from .cards import NRANKS
from .kernels.base.layout import GO_DISCARD_REQUIRED, NPOS, RUN, SET


@dataclass(frozen=True)
class HandFacts:
    """One hand of a game under one rules object and player count.

    hand             1-based hand number
    contract         its contract, e.g. ``"set3 run7"``
    deal             cards dealt to each player
    cards_needed     cards the contract's melds hold at their least
    cards_to_go_down cards a player must hold to go down: ``cards_needed``, plus the discard
                     a turn owes under ``go_out = discard_required``
    jokers_needed    the fewest jokers a lay-down of it needs from this shoe (``None``: the
                     shoe cannot make it, whatever a player holds)
    holds            the most cards a player holds in a turn without buying: deal + 1 draw
    buys_allowed     buys each player may make in the hand (``buys_per_hand``)
    holds_with_buys  the most with every buy: holds + buys_allowed x (1 + buy_penalty)
    buys_needed      the fewest buys that bring a player to ``cards_to_go_down``
                     (0: none; ``None``: not even every buy allowed does)
    cards_to_stay_in cards a player must hold to go down and still play on: ``cards_needed``,
                     the discard the turn owes and one card kept (a discard may not empty the
                     hand under ``go_out = no_discard``, and does end it by going out under
                     ``discard_required``), so with fewer a player goes down only by going out
                     in the same turn
    buys_to_stay_in  the fewest buys that bring a player to ``cards_to_stay_in`` (as
                     ``buys_needed``)
    """
    hand: int
    contract: str
    deal: int
    cards_needed: int
    cards_to_go_down: int
    jokers_needed: int | None
    holds: int
    buys_allowed: int
    holds_with_buys: int
    buys_needed: int | None
    cards_to_stay_in: int
    buys_to_stay_in: int | None

    @property
    def meetable(self) -> bool:
        """Some hand this shoe can deal and a player can hold meets the contract."""
        return self.jokers_needed is not None and self.buys_needed is not None

    def why_not(self) -> str | None:
        """Why no hand can meet the contract (one clause), or None when one can."""
        if self.jokers_needed is None:
            return f"no hand of this shoe makes {self.contract} (not enough cards of a rank or suit, or jokers)"
        if self.buys_needed is None:
            return (f"{self.contract} needs {self.cards_to_go_down} cards and a player holds at most "
                    f"{self.holds_with_buys} ({self.deal} dealt, 1 drawn, {self.holds_with_buys - self.holds} "
                    f"from {self.buys_allowed} buys)")
        return None


def hand_facts(rules, players: int | None = None) -> list[HandFacts]:
    """Per hand of ``rules`` at ``players`` players (default: the rules'), what the rules
    settle: the cards its contract needs against the cards a player can hold, with and
    without buys, and whether the shoe can make it at all (``HandFacts``).

    A player holds at most deal + 1 cards in a turn without buying (the deal and the turn's
    draw), and ``buy_penalty + 1`` more per buy. Under ``shanghai`` (4 players) hands 8-10
    need 13, 14 and 15 cards against 12 held: a player who never buys cannot go down there::

        >>> from shanghai_sim.rules import preset
        >>> [(f.hand, f.cards_needed, f.holds, f.buys_needed) for f in hand_facts(preset("shanghai"))][6:]
        [(7, 12, 12, 0), (8, 13, 12, 1), (9, 14, 12, 1), (10, 15, 12, 1)]

    The shoe question (``jokers_needed``) is exact for contracts of at most four melds
    (every contract the rules accept): each run in a suit of its own, each set at a rank of
    its own, every placement of the runs' windows and the sets' ranks tried, and the jokers
    each needs bounded by ``joker_limit`` in every meld.
    """
    p = rules.players if players is None else players
    decks = rules.decks_for(p)
    jokers = rules.jokers_for(p)
    caps = tuple(rules.joker_cap(n) for n in range(65))
    owed = 1 if int(rules.go_out) == GO_DISCARD_REQUIRED else 0
    out = []
    for i, c in enumerate(rules.contracts):
        melds = tuple((int(m.kind), int(m.size)) for m in c.melds)
        need = sum(s for _, s in melds)
        holds = c.deal + 1
        buys = rules.buys_per_hand[i]
        per_buy = 1 + rules.buy_penalty
        with_buys = holds + buys * per_buy
        to_go_down, to_stay_in = need + owed, need + 2

        def buys_for(cards: int) -> int | None:
            if cards <= holds:
                return 0
            return -(-(cards - holds) // per_buy) if cards <= with_buys else None

        out.append(HandFacts(i + 1, str(c), c.deal, need, to_go_down,
                             _jokers_needed(melds, decks, jokers, caps), holds, buys, with_buys,
                             buys_for(to_go_down), to_stay_in, buys_for(to_stay_in)))
    return out


@functools.lru_cache(maxsize=4096)
def _jokers_needed(melds: tuple[tuple[int, int], ...], decks: int, jokers: int,
                   caps: tuple[int, ...]) -> int | None:
    """The fewest jokers with which ``decks`` packs and ``jokers`` jokers make every meld of
    ``melds`` ((kind, size) pairs) at once from distinct cards; None if none does.

    Runs sit in distinct suits (two runs of one suit only compete for its cards), each in a
    window of consecutive run positions (0 = ace low .. 13 = ace high; one rank each); sets
    sit at distinct ranks (two sets of one rank share its 4 x decks naturals). A meld keeps
    at least one natural and at most its joker cap. A set at rank r takes its naturals from
    the 4 x decks cards of r, less one for each run whose window covers r and holds a natural
    there; the jokers that relieve a rank come from the set itself or from the runs over it
    (each at most one there, each within its cap), a small transport problem decided by Hall's
    condition. The answer is the least total over every placement."""
    runs = [s for k, s in melds if k == RUN]
    sets = [s for k, s in melds if k == SET]
    if len(runs) > 4:
        return None
    cap = [min(caps[min(s, len(caps) - 1)], s - 1) for s in (*sets, *runs)]
    set_cap, run_cap = cap[:len(sets)], cap[len(sets):]
    if any(s > NPOS - 1 for s in runs):
        return None
    per_rank = 4 * decks
    if any(s - c > per_rank for s, c in zip(sets, set_cap)):
        return None
    if not sets:
        return 0
    if not runs:
        # Each set takes its own rank's naturals, and jokers only past 4 x decks.
        need = sum(max(0, s - per_rank) for s in sets)
        return need if need <= jokers else None
    if all(s + len(runs) <= per_rank for s in sets):
        return 0                  # even with every run through its rank, each set has naturals enough
    # Windows: start positions of each run (distinct suits, so windows may overlap freely).
    # A set's rank matters only through which runs cover it (its signature): ranks of one
    # signature are interchangeable, so sets are placed on signatures, as many as it has ranks.
    starts = [range(0, NPOS - s + 1) for s in runs]
    best: int | None = None
    seen_cover: set = set()
    for wins in itertools.product(*starts):
        cover = [frozenset(q % NRANKS for q in range(a, a + s)) for a, s in zip(wins, runs)]
        key = tuple(sorted(cover, key=sorted))
        if key in seen_cover:
            continue
        seen_cover.add(key)
        classes: dict[tuple[bool, ...], int] = {}
        for r in range(NRANKS):
            sig = tuple(r in cv for cv in cover)
            classes[sig] = classes.get(sig, 0) + 1
        for sigs in itertools.product(list(classes), repeat=len(sets)):
            if any(sigs.count(g) > n for g, n in classes.items()):
                continue
            total = _relief(sets, set_cap, run_cap, sigs, per_rank)
            if total is not None and (best is None or total < best):
                best = total
                if best == 0:
                    break
        if best == 0:
            break
    if best is None or best > jokers:
        return None
    return best


def _relief(sets, set_cap, run_cap, sigs, per_rank) -> int | None:
    """Jokers that a placement needs (set i at a rank covered by the runs j with
    ``sigs[i][j]``), or None when the runs' caps cannot relieve what the sets' cannot."""
    left: list[int] = []          # demand at each set's rank still to be met by the runs over it
    total = 0
    for s, c, sig in zip(sets, set_cap, sigs):
        excess = s + sum(sig) - per_rank
        if excess <= 0:
            left.append(0)
            continue
        total += excess
        left.append(max(0, excess - c))
    if not any(left):
        return total
    # Hall: every subset S of the set ranks asks no more than the runs over it can give.
    idx = [i for i, d in enumerate(left) if d]
    for k in range(1, len(idx) + 1):
        for sub in itertools.combinations(idx, k):
            ask = sum(left[i] for i in sub)
            give = sum(min(rc, sum(1 for i in sub if sigs[i][j])) for j, rc in enumerate(run_cap))
            if ask > give:
                return None
    return total
