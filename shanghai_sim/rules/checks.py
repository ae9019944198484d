"""The checks of a rules object: every option in its range, every contract within reach.

``validate`` runs on every ``Rules`` built (ranges from ``values``, so every score and count
fits the dataset's columns and the engine's arrays); ``check_players`` checks the rules at a
player count (an upcard for every hand, every contract within reach of a hand the shoe can
give: ``facts.hand_facts``), its answers kept per key. Both take any object with the
attributes of a ``Rules``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import RANKS
from ..facts import hand_facts
from ..kernels.base.layout import MAX_PLAYERS, MIN_PLAYERS
from .values import (MAX_BONUS, MAX_BUY_PENALTY, MAX_BUYS, MAX_CONTRACT_NAMES, MAX_DEAL, MAX_HAND_TURNS,
                     MAX_HANDS, MAX_HELD, MAX_JOKER_CAP, MAX_JOKERS, MAX_POINT, MAX_SET, MAX_STOCK_PASSES,
                     MIN_BONUS, RulesError)

if TYPE_CHECKING:
    from .model import Rules


def _range(what: str, v: int, lo: int, hi: int, why: str = "") -> None:
    if not lo <= v <= hi:
        raise RulesError(f"{what} = {v}: must be {lo}..{hi}{' (' + why + ')' if why else ''}")


def validate(r: Rules) -> None:
    """Every option within its range of docs/rules.md §3 (so every score and count fits the
    dataset's columns and the engine's arrays), and every contract within reach of a hand."""
    if not MIN_PLAYERS <= r.players <= MAX_PLAYERS:
        raise RulesError(f"players = {r.players}: must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    if len(r.decks) != MAX_PLAYERS - MIN_PLAYERS + 1 or any(not 1 <= d <= 8 for d in r.decks):
        raise RulesError(f"decks = {r.decks}: need 1..8 packs for each player count 2..8")
    if len(r.jokers) != 8 or any(not 0 <= j <= MAX_JOKERS for j in r.jokers):
        raise RulesError(f"jokers = {r.jokers}: need a count 0..{MAX_JOKERS} for 1..8 packs")
    if not r.contracts:
        raise RulesError("contracts: at least one hand is needed")
    if len(r.contracts) > MAX_HANDS:
        raise RulesError(f"contracts: {len(r.contracts)} hands; at most {MAX_HANDS} "
                         "(the dataset's hand column is one byte)")
    names = {c.melds for c in r.contracts}
    if len(names) > MAX_CONTRACT_NAMES:
        raise RulesError(f"contracts: {len(names)} different contracts; at most {MAX_CONTRACT_NAMES} "
                         "(the dataset's contract column codes them in one signed byte)")
    for i, c in enumerate(r.contracts):
        if not 1 <= c.deal <= MAX_DEAL:
            raise RulesError(f"contracts: hand {i + 1} deals {c.deal} cards; must be 1..{MAX_DEAL}")
    if len(r.buys_per_hand) != len(r.contracts):
        raise RulesError(f"buys_per_hand has {len(r.buys_per_hand)} entries for {len(r.contracts)} hands")
    if any(not 0 <= b <= MAX_BUYS for b in r.buys_per_hand):
        bad = next(b for b in r.buys_per_hand if not 0 <= b <= MAX_BUYS)
        raise RulesError(f"buys_per_hand = {bad}: must be 0..{MAX_BUYS}")
    _range("buy_penalty", r.buy_penalty, 0, MAX_BUY_PENALTY)
    _range("max_stock_passes", r.max_stock_passes, 0, MAX_STOCK_PASSES,
           "the dataset's stock_passes column is one byte")
    _range("max_hand_turns", r.max_hand_turns, 1, MAX_HAND_TURNS,
           "a seat's turn number fits the dataset's down_turn column")
    if not r.joker_table or any(not 1 <= lo <= MAX_SET or not 0 <= n <= MAX_JOKER_CAP
                                for lo, n in r.joker_table) or \
            list(r.joker_table) != sorted(r.joker_table):
        raise RulesError(f"joker_table = {[list(b) for b in r.joker_table]}: need ascending "
                         f"[from_size 1..{MAX_SET}, jokers 0..{MAX_JOKER_CAP}] bands")
    for what, v in zip(("blind_bonus.joker", "blind_bonus.no_joker"), r.blind_bonus):
        _range(what, v, MIN_BONUS, MAX_BONUS, "a hand's score fits the dataset's points column")
    pts = dict(r.points)
    if set(pts) != set(RANKS) | {"JK"}:
        raise RulesError(f"points: need a value for each of {' '.join(RANKS)} JK")
    for rank, v in pts.items():
        _range(f"points.{rank}", v, 0, MAX_POINT,
               f"{MAX_HELD} cards x {MAX_POINT} fits the dataset's hand points, int16")
    for i, c in enumerate(r.contracts):
        held = c.deal + 1 + r.buys_per_hand[i] * (1 + r.buy_penalty)
        if held > MAX_HELD:
            raise RulesError(f"hand {i + 1}: a player could hold {held} cards ({c.deal} dealt + 1 drawn + "
                             f"{r.buys_per_hand[i]} buys x {1 + r.buy_penalty}); at most {MAX_HELD} "
                             "(the dataset's cards_left column is one byte): lower buys_per_hand or buy_penalty")
    check_players(r, r.players)


def check_players(r: Rules, p: int) -> None:
    """RulesError unless ``r`` at ``p`` players deals every hand with an upcard and every
    hand's contract can be met by some hand of the shoe a player can hold (facts.hand_facts)."""
    # Rules objects are built often (every preset(), every replace()); the answer depends on
    # these fields only, so it is kept per key.
    key = (r.contracts, r.buys_per_hand, r.buy_penalty, r.decks_for(p), r.jokers_for(p), r.joker_limit,
           r.joker_table, r.go_out, p)
    problem = _PROBLEMS.get(key, False)
    if problem is False:
        problem = _players_problem(r, p)
        if len(_PROBLEMS) > 4096:
            _PROBLEMS.clear()
        _PROBLEMS[key] = problem
    if problem is not None:
        raise RulesError(problem)


_PROBLEMS: dict = {}


def _players_problem(r: Rules, p: int) -> str | None:
    shoe = r.shoe_size(p)
    for i, c in enumerate(r.contracts):
        if c.deal * p + 1 > shoe:
            return f"contracts: hand {i + 1} deals {c.deal} x {p} players + upcard > {shoe} cards in the shoe"
    for f in hand_facts(r, p):
        why = f.why_not()
        if why:
            return f"contracts: hand {f.hand} can never be met at {p} players: {why}"
    return None
