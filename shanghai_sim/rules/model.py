"""The ``Rules`` object (every option of docs/rules.md §3), its presets and its options' help.

A ``Rules`` is frozen and checked when built (``checks.validate``); ``to_dict`` is the full
resolved rules as plain data (what ``shanghai-sim rules`` prints, beside ``OPTION_HELP``),
``arrays`` the kernels' view (``arrays.to_arrays``). ``preset`` builds the named presets
(``shanghai``, ``contract``, ``progressive``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..facts import hand_facts
from ..kernels.base.layout import MAX_PLAYERS, MIN_PLAYERS
from .arrays import RulesArrays, to_arrays
from .checks import validate
from .values import (CONTRACT_POINTS, DEFAULT_JOKER_TABLE, PROGRESSIVE_CONTRACTS, SHANGHAI_CONTRACTS,
                     SHANGHAI_POINTS, BuyPriority, Contract, GoOut, InitialMeld, JokerLimit, JokerSwap,
                     RulesError, SameSuitRuns, SetJokerIdentity)


@dataclass(frozen=True)
class Rules:
    """Every option of docs/rules.md §3. Build with ``preset()`` or ``load_rules()``."""

    name: str = "shanghai"
    players: int = 4
    # packs for 2..8 players (index players - 2)
    decks: tuple[int, ...] = (2, 2, 2, 3, 3, 4, 4)
    # total jokers in the shoe for 1..8 packs (index packs - 1)
    jokers: tuple[int, ...] = (2, 4, 6, 8, 10, 12, 14, 16)
    contracts: tuple[Contract, ...] = SHANGHAI_CONTRACTS
    buy_penalty: int = 2
    buys_per_hand: tuple[int, ...] = (3, 3, 3, 3, 3, 3, 3, 3, 4, 4)
    buy_priority: BuyPriority = BuyPriority.DEALER_LEFT
    joker_limit: JokerLimit = JokerLimit.NATURALS
    joker_table: tuple[tuple[int, int], ...] = DEFAULT_JOKER_TABLE
    initial_meld: InitialMeld = InitialMeld.AT_LEAST
    same_suit_runs: SameSuitRuns = SameSuitRuns.DISTINCT
    go_out: GoOut = GoOut.NO_DISCARD
    joker_swap: JokerSwap = JokerSwap.ANYONE
    set_joker_identity: SetJokerIdentity = SetJokerIdentity.RANK
    # (bonus when a joker was among the cards played, bonus without a joker); (0, 0) = none
    blind_bonus: tuple[int, int] = (0, 0)
    points: tuple[tuple[str, int], ...] = tuple(SHANGHAI_POINTS.items())
    down_may_buy: bool = False
    max_stock_passes: int = 3
    max_hand_turns: int = 3000

    def __post_init__(self):
        validate(self)

    @property
    def hands(self) -> int:
        return len(self.contracts)

    def decks_for(self, players: int | None = None) -> int:
        p = self.players if players is None else players
        return self.decks[p - MIN_PLAYERS]

    def jokers_for(self, players: int | None = None) -> int:
        return self.jokers[self.decks_for(players) - 1]

    def shoe_size(self, players: int | None = None) -> int:
        return 52 * self.decks_for(players) + self.jokers_for(players)

    def point_of(self, rank: str) -> int:
        return dict(self.points)[rank]

    def joker_cap(self, size: int) -> int:
        """Jokers allowed in one meld of ``size`` cards (docs/rules.md §3 joker_limit)."""
        if self.joker_limit == JokerLimit.NATURALS:
            return size // 2
        cap = 0
        for lo, n in self.joker_table:
            if size >= lo:
                cap = n
        return min(cap, size)

    def hands_needing_buys(self) -> list[int]:
        """Hands (1-based) whose contract a player cannot lay down with the cards dealt plus
        the turn's draw: more cards than deal + 1, or than the deal when a discard is owed
        (``go_out = discard_required``). docs/rules.md §3 (the squeeze) and §5.9."""
        return [f.hand for f in hand_facts(self) if f.buys_needed != 0]

    def two_player_warning(self, players: int | None = None) -> str | None:
        """One line for a two-player table under contracts that need buys (docs/rules.md §5.9)."""
        p = self.players if players is None else players
        hands = self.hands_needing_buys()
        if p != 2 or not hands:
            return None
        return (f"warning: with 2 players nobody can buy a discard (docs/rules.md §5.9), so hand"
                f"{'s' if len(hands) > 1 else ''} {', '.join(map(str, hands))} of rules {self.name!r} "
                f"can be met only if the dealer buys the first upcard; otherwise they end by the stock rule")

    def replace(self, **changes) -> "Rules":
        return dataclasses.replace(self, **changes)

    def with_players(self, players: int) -> "Rules":
        return self.replace(players=players)

    def arrays(self, players: int | None = None) -> RulesArrays:
        return to_arrays(self, players)

    def to_dict(self) -> dict[str, Any]:
        """The full resolved rules as plain data (what ``shanghai-sim rules`` prints)."""
        d: dict[str, Any] = {"name": self.name, "players": self.players}
        d["decks"] = {str(p): self.decks[p - MIN_PLAYERS] for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
        d["jokers"] = {str(k + 1): j for k, j in enumerate(self.jokers)}
        d["contracts"] = [{"hand": i + 1, "melds": str(c), "deal": c.deal,
                           "cards_needed": c.cards_needed, "buys": self.buys_per_hand[i]}
                          for i, c in enumerate(self.contracts)]
        d["buy_penalty"] = self.buy_penalty
        d["buys_per_hand"] = list(self.buys_per_hand)
        for name in ("buy_priority", "joker_limit", "initial_meld", "same_suit_runs", "go_out",
                     "joker_swap", "set_joker_identity"):
            d[name] = getattr(self, name).name.lower()
        d["joker_table"] = [list(b) for b in self.joker_table]
        d["blind_bonus"] = ("none" if self.blind_bonus == (0, 0)
                            else {"joker": self.blind_bonus[0], "no_joker": self.blind_bonus[1]})
        d["points"] = dict(self.points)
        d["down_may_buy"] = self.down_may_buy
        d["max_stock_passes"] = self.max_stock_passes
        d["max_hand_turns"] = self.max_hand_turns
        return d


# One line per option: what ``shanghai-sim rules`` prints beside each value.
# The full text, with sources and the values of each preset, is docs/rules.md §3.
OPTION_HELP: dict[str, str] = {
    "players": "players at the table, 2..8 (a job or command may choose another)",
    "decks": "52-card packs in the shoe, by player count",
    "jokers": "jokers in the whole shoe, by number of packs, 0..64",
    "contracts": "one contract per hand (1..255 hands, at most 128 different; each at most 4 melds), with its deal size (1..60)",
    "buy_penalty": "extra cards from the stock that a buyer takes with the upcard, 0..10",
    "buys_per_hand": "buys allowed to each player in each hand, 0..255 (deal + 1 + buys x (1 + buy_penalty) <= 255 cards)",
    "buy_priority": "who gets a contested buy: first claimant from the dealer's left (dealer_left) "
                    "or from the player in turn (turn_order)",
    "joker_limit": "jokers allowed in one meld: no more than its natural cards (naturals), "
                   "or by meld size from joker_table (table)",
    "joker_table": "with joker_limit = table: [from meld size 1..64, jokers allowed 0..32] bands",
    "initial_meld": "when going down, melds may be longer than the contract asks (at_least) "
                    "or exactly its size, with no lay-off that turn (exact)",
    "same_suit_runs": "two contract runs of one suit when going down: any distinct cards (distinct) "
                      "or with at least one rank between them (gap)",
    "go_out": "how a hand is emptied: by melds and lay-offs only (no_discard), by discarding the "
              "last card (discard_required), or either",
    "joker_swap": "who may take a table joker by putting down the card it stands for: anyone "
                  "(a player not yet down only when going down that turn) or down_only",
    "set_joker_identity": "what a joker in a set stands for: any card of the rank (rank) or a "
                          "declared rank and suit (card)",
    "blind_bonus": "score for going out in one turn without having been down (none, or joker / no_joker, each -32768..32767)",
    "points": "penalty points of each card left in hand at the end of a hand, 0..128",
    "down_may_buy": "may a player who is down buy",
    "max_stock_passes": "reshuffles of the pile into a new stock before a hand stops with no winner, 0..255",
    "max_hand_turns": "turns in one hand (all seats) after which it stops with no winner (the turn cap), 1..32767",
}


def _shanghai() -> Rules:
    return Rules()


def _contract() -> Rules:
    return Rules(
        name="contract", decks=(2, 2, 2, 3, 3, 3, 3), jokers=(1, 1, 2, 3, 4, 5, 6, 7),
        buy_penalty=1, buy_priority=BuyPriority.TURN_ORDER, joker_limit=JokerLimit.TABLE,
        initial_meld=InitialMeld.EXACT, same_suit_runs=SameSuitRuns.GAP,
        go_out=GoOut.DISCARD_REQUIRED, joker_swap=JokerSwap.DOWN_ONLY,
        set_joker_identity=SetJokerIdentity.CARD, blind_bonus=(-25, -50),
        points=tuple(CONTRACT_POINTS.items()))


def _progressive() -> Rules:
    return Rules(name="progressive", contracts=PROGRESSIVE_CONTRACTS,
                 buys_per_hand=(3, 3, 3, 3, 3, 3, 3, 3, 4))


PRESETS = {"shanghai": _shanghai, "contract": _contract, "progressive": _progressive}


def preset(name: str = "shanghai") -> Rules:
    try:
        return PRESETS[name]()
    except KeyError:
        raise RulesError(f"unknown preset {name!r} (choose from {', '.join(PRESETS)})") from None
