"""Rules as data (docs/rules.md §3): frozen dataclasses, named presets, TOML files.

A ``Rules`` object holds every option of docs/rules.md §3. The kernels never see
it: ``Rules.arrays(players)`` converts it once, at the boundary into numba,
into plain integer arrays (``RulesArrays``) whose layout is documented there.

A rules file is TOML: ``base = "shanghai"`` (or ``contract``,
``progressive``) plus any overrides, for example::

    base = "shanghai"
    buy_penalty = 1
    joker_limit = "table"
    contracts = [ { melds = "set3 set3", deal = 10 }, "set3 run4" ]
    deal = 11            # deal size for contracts given as plain strings
"""

from __future__ import annotations

import dataclasses
import enum
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .cards import NCARDS, JOKER, NRANKS, RANKS
from .facts import hand_facts

from .kernels.base import layout as L
from .kernels.base.layout import (MAX_MELD_SIZE, MAX_MELDS, MAX_PLAYERS, MIN_PLAYERS, NPARAMS,  # noqa: F401
                             P_BLIND_JOKER, P_BLIND_NO_JOKER, P_BUY_PENALTY, P_BUY_PRIORITY,
                             P_DECKS, P_DOWN_MAY_BUY, P_GO_OUT, P_INITIAL_EXACT, P_JOKER_LIMIT,
                             P_JOKER_SWAP, P_JOKERS, P_MAX_HAND_TURNS, P_MAX_STOCK_PASSES,
                             P_NHANDS, P_PLAYERS, P_SAME_SUIT_GAP, P_SET_JOKER_CARD)


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

    def arrays(self, players: int | None = None) -> "RulesArrays":
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


# ---------------------------------------------------------------- presets

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


# ---------------------------------------------------------------- TOML

_ENUMS = {"buy_priority": BuyPriority, "joker_limit": JokerLimit, "initial_meld": InitialMeld,
          "same_suit_runs": SameSuitRuns, "go_out": GoOut, "joker_swap": JokerSwap,
          "set_joker_identity": SetJokerIdentity}
_KEYS = {"base", "name", "players", "decks", "jokers", "contracts", "deal", "buy_penalty",
         "buys_per_hand", "joker_table", "blind_bonus", "points", "down_may_buy",
         "max_stock_passes", "max_hand_turns", *_ENUMS}


def _int(key: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RulesError(f"{key} = {v!r}: expected an integer")
    return v


def overrides(base: Rules, data: dict[str, Any], where: str = "rules") -> Rules:
    """Apply a dict of options (TOML or command line) on top of ``base``."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise RulesError(f"{where}: unknown option {unknown[0]!r} (known: {', '.join(sorted(_KEYS - {'base'}))})")
    if "deal" in data and "contracts" not in data:
        raise RulesError(f"{where}: deal = {data['deal']!r} applies only to contracts given as plain "
                         "strings in the same file (give contracts too, or set deal per contract)")
    ch: dict[str, Any] = {}
    for key, v in data.items():
        if key in ("base", "deal"):
            continue
        if key in _ENUMS:
            enum_t = _ENUMS[key]
            names = [e.name.lower() for e in enum_t]
            if not isinstance(v, str) or v.lower() not in names:
                raise RulesError(f"{key} = {v!r}: expected one of {', '.join(names)}")
            ch[key] = enum_t[v.upper()]
        elif key in ("players", "buy_penalty", "max_stock_passes", "max_hand_turns"):
            ch[key] = _int(key, v)
        elif key == "name":
            ch[key] = str(v)
        elif key == "down_may_buy":
            if not isinstance(v, bool):
                raise RulesError(f"down_may_buy = {v!r}: expected true or false")
            ch[key] = v
        elif key == "decks":
            if isinstance(v, int) and not isinstance(v, bool):
                ch[key] = (v,) * 7
            elif isinstance(v, dict):
                d = list(base.decks)
                for p, n in v.items():
                    if not (str(p).isascii() and str(p).isdigit()) or not MIN_PLAYERS <= int(p) <= MAX_PLAYERS:
                        raise RulesError(f"decks: bad player count {p!r} (2..8)")
                    d[int(p) - MIN_PLAYERS] = _int("decks", n)
                ch[key] = tuple(d)
            else:
                raise RulesError(f"decks = {v!r}: expected an integer or a table {{ \"5\" = 3, ... }}")
        elif key == "jokers":
            if isinstance(v, int) and not isinstance(v, bool):
                ch[key] = (v,) * 8
            elif isinstance(v, dict) and set(v) == {"per_pack"}:
                per = _int("jokers.per_pack", v["per_pack"])
                ch[key] = tuple(per * k for k in range(1, 9))
            elif isinstance(v, dict):
                j = list(base.jokers)
                for k, n in v.items():
                    if not (str(k).isascii() and str(k).isdigit()) or not 1 <= int(k) <= 8:
                        raise RulesError(f"jokers: bad pack count {k!r} (1..8)")
                    j[int(k) - 1] = _int("jokers", n)
                ch[key] = tuple(j)
            else:
                raise RulesError(f"jokers = {v!r}: expected an integer, {{ per_pack = N }} or {{ \"2\" = N, ... }}")
        elif key == "contracts":
            deal = _int("deal", data.get("deal", 11))
            if not isinstance(v, list) or not v:
                raise RulesError("contracts: expected a non-empty list")
            cs = []
            for item in v:
                if isinstance(item, str):
                    cs.append(Contract(parse_contract(item), deal))
                elif isinstance(item, dict) and "melds" in item and set(item) <= {"melds", "deal"}:
                    cs.append(Contract(parse_contract(item["melds"]), _int("deal", item.get("deal", deal))))
                else:
                    raise RulesError(f"contracts: bad entry {item!r} (a string or {{ melds = \"set3 run4\", deal = 11 }})")
            ch[key] = tuple(cs)
        elif key == "buys_per_hand":
            if isinstance(v, list):
                ch[key] = tuple(_int(key, x) for x in v)
            else:
                ch[key] = None
                ch["_buys_all"] = _int(key, v)
        elif key == "joker_table":
            if not isinstance(v, list) or any(not isinstance(b, list) or len(b) != 2 for b in v):
                raise RulesError("joker_table: expected a list of [from_size, jokers] pairs")
            ch[key] = tuple((_int(key, a), _int(key, b)) for a, b in v)
        elif key == "blind_bonus":
            if v == "none" or v is False:
                ch[key] = (0, 0)
            elif isinstance(v, dict) and set(v) <= {"joker", "no_joker"}:
                ch[key] = (_int("blind_bonus.joker", v.get("joker", 0)),
                           _int("blind_bonus.no_joker", v.get("no_joker", 0)))
            else:
                raise RulesError(f"blind_bonus = {v!r}: expected \"none\" or {{ joker = -25, no_joker = -50 }}")
        elif key == "points":
            if not isinstance(v, dict):
                raise RulesError("points: expected a table such as { A = 15, JK = 25 }")
            p = dict(base.points)
            for rank, n in v.items():
                rk = "T" if str(rank).upper() == "10" else str(rank).upper()
                if rk not in p:
                    raise RulesError(f"points: unknown rank {rank!r} (ranks {' '.join(RANKS)} JK)")
                p[rk] = _int(f"points.{rank}", n)
            ch[key] = tuple(p.items())
    buys_all = ch.pop("_buys_all", None)
    contracts = ch.get("contracts", base.contracts)
    if buys_all is not None:
        ch["buys_per_hand"] = (buys_all,) * len(contracts)
    elif "contracts" in ch and "buys_per_hand" not in ch:
        # Keep the base's per-hand limits where hands line up; extend with its last value.
        b = list(base.buys_per_hand[:len(contracts)])
        b += [base.buys_per_hand[-1]] * (len(contracts) - len(b))
        ch["buys_per_hand"] = tuple(b)
    try:
        return dataclasses.replace(base, **ch)
    except RulesError as e:
        raise RulesError(f"{where}: {e}") from None


def parse_rule_options(items: "list[str] | tuple[str, ...]") -> dict[str, Any]:
    """``["buy_penalty=1", "go_out=either", "blind_bonus={joker=-25, no_joker=-50}"]`` -> options.

    Each value is read as a TOML value (numbers, booleans, arrays, inline
    tables, quoted strings); a bare word such as ``either`` is a string.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, eq, text = str(item).partition("=")
        key, text = key.strip(), text.strip()
        if not eq or not key or not text:
            raise RulesError(f"--rule {item!r}: expected KEY=VALUE, e.g. --rule buy_penalty=1")
        if key in out:
            raise RulesError(f"--rule {key} given twice")
        try:
            out[key] = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            if not text.replace("_", "").isalnum():
                raise RulesError(f"--rule {item!r}: {text!r} is not a value (a number, true/false, "
                                 "a word, [..] or {..})") from None
            out[key] = text
    return out


def with_options(r: Rules, items: "list[str] | tuple[str, ...]") -> Rules:
    """``r`` with ``--rule KEY=VALUE`` options applied (docs/rules.md §7); named after them."""
    if not items:
        return r
    data = parse_rule_options(items)
    if "name" in data:
        raise RulesError("--rule name: the rules' name is not an option (rules changed by --rule "
                         "are named after the changes); the base rules are chosen with --rules")
    if "base" in data:
        raise RulesError("--rule base: the base rules are chosen with --rules (a preset or a "
                         "rules file), not --rule")
    changed = overrides(r, data, where="--rule")
    label = ", ".join(f"{k}={v}" for k, v in zip(data, (str(i).partition("=")[2].strip() for i in items)))
    return changed.replace(name=f"{r.name} ({label})")


def resolve(spec: "str | Path | Rules | None", items: "list[str] | tuple[str, ...]" = ()) -> Rules:
    """A preset, rules file or Rules object, with ``--rule KEY=VALUE`` options applied."""
    return with_options(load_rules(spec), items)


def file_name(path: "str | Path", width: int = 80) -> str:
    """A file name as error messages quote it: repr'd, a long one cut in the middle."""
    s = str(path)
    if len(s) > width:
        s = s[:width // 2 - 2] + "..." + s[-(width // 2 - 2):]
    return repr(s)


def load_rules(spec: "str | Path | Rules | None" = None, players: int | None = None) -> Rules:
    """A preset name, a TOML path, or a Rules object -> Rules.

    ``players``: the count the rules will be played at, where the caller knows it. A rules
    file that does not set ``players`` itself is then checked at that count, not at its base
    preset's (``decks = 1`` on a ``progressive`` base fits 2 players, not the preset's 4)."""
    if spec is None:
        spec = "shanghai"
    if isinstance(spec, Rules):
        return spec if players is None else spec.with_players(players)
    s = str(spec)
    if s in PRESETS:
        return preset(s) if players is None else preset(s).with_players(players)
    path = Path(s)
    try:
        if not s.endswith(".toml") and not path.exists():
            raise RulesError(f"unknown preset {file_name(s)} (choose from {', '.join(PRESETS)}, "
                             "or give a .toml rules file)")
        if path.is_dir():
            raise RulesError(f"rules file {file_name(s)} is a folder, not a file (give a .toml rules file, "
                             f"or a preset: {', '.join(PRESETS)})")
        if not path.is_file():
            raise RulesError(f"rules file {file_name(s)} not found")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise RulesError(f"rules file {file_name(s)} is not valid TOML: {e}") from None
    except OSError as e:            # a name too long, a file it may not read
        raise RulesError(f"rules file {file_name(s)} cannot be read: {e.strerror or e}") from None
    base = data.get("base", "shanghai")
    if base not in PRESETS:
        raise RulesError(f"rules file {s!r}: unknown base {base!r} (choose from {', '.join(PRESETS)})")
    data.setdefault("name", f"{path.stem}")
    if players is not None and "players" not in data:
        data["players"] = players
    return overrides(preset(base), data, where=f"rules file {s!r}")


# ---------------------------------------------------------------- kernel arrays

# The layout of these arrays (R_*, and P_* into params) lives in kernels/base/layout.py.


class RulesArrays(NamedTuple):
    """The rules as plain arrays for the numba kernels.

    params        int64[NPARAMS]   scalar options, indexed by the P_* constants
    points        int64[53]        penalty value of each card id (count-array layout)
    joker_cap     int64[MAX_MELD_SIZE]  jokers allowed in a meld of that many cards
    meld_kind     int64[hands, MAX_MELDS]  MeldKind of each contract meld, -1 = none;
                                    sets first, then runs, each by size
    meld_size     int64[hands, MAX_MELDS]  required size of each meld, 0 = none
    n_melds       int64[hands]
    deal          int64[hands]     cards dealt to each player
    buys          int64[hands]     buys allowed per player in that hand
    """
    params: np.ndarray
    points: np.ndarray
    joker_cap: np.ndarray
    meld_kind: np.ndarray
    meld_size: np.ndarray
    n_melds: np.ndarray
    deal: np.ndarray
    buys: np.ndarray


def to_arrays(r: Rules, players: int | None = None) -> RulesArrays:
    p = r.players if players is None else players
    if not MIN_PLAYERS <= p <= MAX_PLAYERS:
        raise RulesError(f"players = {p}: must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    if p != r.players:
        check_players(r, p)
    params = np.zeros(NPARAMS, dtype=np.int64)
    params[P_PLAYERS] = p
    params[P_DECKS] = r.decks_for(p)
    params[P_JOKERS] = r.jokers_for(p)
    params[P_BUY_PENALTY] = r.buy_penalty
    params[P_BUY_PRIORITY] = int(r.buy_priority)
    params[P_JOKER_LIMIT] = int(r.joker_limit)
    params[P_INITIAL_EXACT] = int(r.initial_meld == InitialMeld.EXACT)
    params[P_SAME_SUIT_GAP] = int(r.same_suit_runs == SameSuitRuns.GAP)
    params[P_GO_OUT] = int(r.go_out)
    params[P_JOKER_SWAP] = int(r.joker_swap)
    params[P_SET_JOKER_CARD] = int(r.set_joker_identity == SetJokerIdentity.CARD)
    params[P_BLIND_JOKER], params[P_BLIND_NO_JOKER] = r.blind_bonus
    params[P_DOWN_MAY_BUY] = int(r.down_may_buy)
    params[P_MAX_STOCK_PASSES] = r.max_stock_passes
    params[P_NHANDS] = r.hands
    params[P_MAX_HAND_TURNS] = r.max_hand_turns
    pts = dict(r.points)
    points = np.zeros(NCARDS, dtype=np.int64)
    for cid in range(52):
        points[cid] = pts[RANKS[cid % NRANKS]]
    points[JOKER] = pts["JK"]
    joker_cap = np.array([r.joker_cap(n) for n in range(MAX_MELD_SIZE)], dtype=np.int64)
    h = r.hands
    kind = np.full((h, MAX_MELDS), -1, dtype=np.int64)
    size = np.zeros((h, MAX_MELDS), dtype=np.int64)
    n = np.zeros(h, dtype=np.int64)
    for i, c in enumerate(r.contracts):
        n[i] = len(c.melds)
        for j, m in enumerate(c.melds):
            kind[i, j] = int(m.kind)
            size[i, j] = m.size
    deal = np.array([c.deal for c in r.contracts], dtype=np.int64)
    buys = np.array(r.buys_per_hand, dtype=np.int64)
    return RulesArrays(params, points, joker_cap, kind, size, n, deal, buys)


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
