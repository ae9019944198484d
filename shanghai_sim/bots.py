"""The bot registry, and bot specs: ``random``, ``greedy:buy=never:maxbuys=1`` -> kernel arrays.

A bot is a kernel (under ``kernels/``), one entry of ``BOTS`` here and its doc: the
entry gives its name, its kernel, help, its parameters (key, type, range, default, help,
and the slot of the float64 parameter vector its kernel reads, by name), its versions and
its gate; its kind is its place in ``BOTS``. Spec parsing, canonical spec strings,
``shanghai-sim bots`` and every error message are read from the registry, and the
kernels' dispatch and parameter row are generated from it (``python -m
shanghai_sim.botgen``; docs/DEVELOPING.md, "A new bot").

A spec is a bot name, then ``:key=value`` parameters, each key at most once. Several
seats are given as a comma-separated list (or a Python list), one spec per seat, or one
spec for every seat: ``split_specs`` and ``seat_specs`` are the one splitter and the one
seat filler that the game, the runner and the CLI use.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .rules import MAX_BUYS

from .kernels.base.codes import BUY_ALWAYS, BUY_AUTO, BUY_NEVER, BUY_POLICIES, BUY_USEFUL  # noqa: F401
from .kernels.base.codes import ORACLES, PLAYOUT_POLICIES, UTILITIES
from .kernels.bots.buycharts import CHART_NAMES
from .kernels.bots.params import MAX_HAND_PARAMS, NBP, OFFSETS


class BotError(ValueError):
    """An unknown bot, parameter or value, or a wrong number of specs."""


_BOOL_IN = {"true": 1, "false": 0, "yes": 1, "no": 0, "1": 1, "0": 0}


@dataclass(frozen=True)
class BotParam:
    """One parameter of a bot.

    kind: "choice" (``choices`` maps each word to the value stored), "int" (``lo``..``hi``,
    ``hi`` None: no upper bound), "float" (a number in ``lo``..``hi``) or "bool". ``default`` is the value stored when the key
    is not given (it may lie outside the range, as a "not set" marker: ``default_text``
    says what it means). ``per_hand``: the key is written ``keyN`` for hand N (1-based, up
    to the rules' hands and MAX_HAND_PARAMS) and hand N's value sits at ``slot + N - 1``.
    """
    key: str
    kind: str
    slot_name: str                  # its slot of the parameter row, e.g. "BP_STOP" (botgen)
    default: float
    help: str
    choices: tuple[tuple[str, int], ...] = ()
    lo: float = 0
    hi: float | None = None
    default_text: str | None = None
    per_hand: bool = False

    @property
    def slot(self) -> int:
        """Its offset in the parameter row (kernels.bots.params, generated from the registry)."""
        try:
            return OFFSETS[self.slot_name]
        except KeyError:
            raise BotError(f"parameter {self.name!r} names slot {self.slot_name}, which the kernels do "
                           f"not have yet: run python -m shanghai_sim.botgen") from None

    @property
    def name(self) -> str:
        """The key as written in help: ``buyN`` for a per-hand parameter."""
        return self.key + "N" if self.per_hand else self.key

    @property
    def values(self) -> str:
        """The values it takes, as shown by ``shanghai-sim bots``."""
        if self.kind == "choice":
            return "|".join(w for w, _ in self.choices)
        if self.kind == "bool":
            return "true|false"
        what = "number" if self.kind == "float" else "integer"
        lo, hi = f"{self.lo:g}", (None if self.hi is None else f"{self.hi:g}")
        return f"{what} >= {lo}" if hi is None else f"{what} {lo}..{hi}"

    def _valid(self) -> str:
        if self.kind in ("int", "float"):
            return ("an " if self.values.startswith("integer") else "a ") + self.values
        return self.values.replace("|", ", ")

    def parse(self, key: str, value: str, spec: str) -> float:
        """The stored value of ``value``; BotError naming the valid values if it is not one."""
        if self.kind == "choice":
            d = dict(self.choices)
            if value in d:
                return float(d[value])
        elif self.kind == "bool":
            if value in _BOOL_IN:
                return float(_BOOL_IN[value])
        elif self.kind == "float":
            try:
                x = float(value) if value.isascii() else float("nan")
            except ValueError:
                x = float("nan")
            if x == x and x >= self.lo and (self.hi is None or x <= self.hi):
                return x
        elif (value.isascii() and value.removeprefix("-").isdigit() and len(value) <= 18
              and int(value) >= self.lo and (self.hi is None or int(value) <= self.hi)):
            return float(int(value))        # exact: every int parameter's range lies below 2**53
        raise BotError(f"bad value {value!r} for {key} in {spec!r} (valid: {self._valid()})")

    def text(self, v: float) -> str:
        """The canonical spelling of a stored value."""
        if self.kind == "choice":
            return next(w for w, x in self.choices if x == int(v))
        if self.kind == "bool":
            return "true" if v else "false"
        if self.kind == "float":
            return f"{v:g}"
        return str(int(v))


@dataclass(frozen=True)
class BotVersion:
    """One version of a bot: what it changed, and the settings that make the newest
    version's defaults play as this one (``settings``: (key, value) pairs, as a spec writes
    them). A version that can no longer be played says why in ``retired``."""
    v: int
    change: str
    settings: tuple[tuple[str, str], ...] = ()
    retired: str = ""


@dataclass(frozen=True)
class Diagnostic:
    """A diagnostic variant of a bot: it cheats on purpose (it reads what its seat cannot
    see), to measure something, and is never a player. A spec of the bot that sets ``key``
    to anything but its default still parses (``rollout:oracle=hands``) and is played by the
    diagnostic's own kernel (its own kind in the dispatch, numbered after the registry's
    bots: shanghai_sim.botgen); every command and API refuses it unless asked for as a
    diagnostic (``refuse_diagnostics``: ``--diagnostic``, ``diagnostic=True``), and the
    datasets and reports it played in say so (``diagnostic_marks``)."""
    name: str                       # its kind's name: BOT_<BOT>_<NAME> (botgen)
    key: str                        # the spec key that asks for it
    kernel: str                     # its kernel in kernels/: "folder.module.function" (botgen)
    sees: tuple[tuple[str, str], ...]   # (value of key, what it reads that its seat cannot see)


@dataclass(frozen=True)
class BotInfo:
    name: str
    kernel: str                     # its kernel in kernels/: "folder.module.function" (botgen)
    help: str
    params: tuple[BotParam, ...] = ()
    # Every version, oldest first. A change of the bot's play is a new version (the spec
    # key ``v`` plays an old one: ``smart:v=1``); canonical specs carry it, datasets
    # record it, and `run --resume` refuses to mix games of two versions of a bot.
    versions: tuple[BotVersion, ...] = (BotVersion(1, "the first version"),)
    # None, or the engine argument without which its kernel is not compiled in: "smart"
    # (SM) or "workspace" (W, a search bot's; its kernel takes W): shanghai_sim.botgen
    gate: str | None = None
    kind: int = -1                  # its dispatch value: its place in BOTS (set there)
    # None, or its diagnostic variant (a cheat, refused unless asked for): see Diagnostic
    diagnostic: Diagnostic | None = None

    @property
    def version(self) -> int:
        """The newest version: what the bot's name alone plays."""
        return self.versions[-1].v

    def defaults(self) -> np.ndarray:
        """The parameter vector of the newest version with no key given."""
        bp = np.zeros(NBP, dtype=np.float64)
        for p in self.params:
            if p.per_hand:
                bp[p.slot:p.slot + MAX_HAND_PARAMS] = p.default
            else:
                bp[p.slot] = p.default
        return bp

    def version_defaults(self, v: int, spec: str = "") -> np.ndarray:
        """The parameter vector of version v with no other key given; BotError if the bot
        has no such version or it is retired."""
        found = [x for x in self.versions if x.v == v]
        if not found:
            raise BotError(f"bot {self.name!r} has no version {v} in {spec or self.name!r} "
                           f"(versions: {', '.join(str(x.v) for x in self.versions if not x.retired)})")
        if found[0].retired:
            raise BotError(f"version {v} of bot {self.name!r} can no longer be played: {found[0].retired}")
        bp = self.defaults()
        for key, value in found[0].settings:
            p, slot = _find_param(self, key, spec or self.name, None)
            bp[slot] = p.parse(key, value, spec or self.name)
        return bp


_BUY_SMART = tuple((c.word, c.value) for c in BUY_POLICIES)      # never, useful, always, auto
_BUY = tuple(x for x in _BUY_SMART if x[1] != BUY_AUTO)          # greedy's: no judgement of its own


def _knobs(buy_choices, buy_default, buy_help):
    """The experiment knobs every thinking bot reads (kernels.bots.players BP_BUY..BP_HAND0)."""
    return (
        BotParam("buy", "choice", "BP_BUY", buy_default, buy_help, choices=buy_choices),
        BotParam("buy", "choice", "BP_HAND0", -1, "buy policy in hand N (1-based), e.g. buy8=never",
                 choices=buy_choices, default_text="buy", per_hand=True),
        BotParam("maxbuys", "int", "BP_MAXBUYS", -1, "most buys per hand (the rules' limit applies too)",
                 lo=0, hi=MAX_BUYS, default_text="the rules' limit"),
        BotParam("maxbuys", "int", "BP_MAXBUYS0", -1, "most buys in hand N (1-based), e.g. maxbuys8=1",
                 lo=0, hi=MAX_BUYS, default_text="maxbuys", per_hand=True),
        BotParam("wait_blind", "bool", "BP_WAIT_BLIND", 0,
                 "go down only when it can go out the same turn (blind)"),
    )


# smart's weights: smart reads them, and rollout for its playouts and unsearched decisions
_SMART_WEIGHTS = (
    BotParam("outs", "float", "BP_OUTS", 0.0,
             "weight of each unseen card a discard gives up as an out", lo=0, hi=100),
    BotParam("partner", "float", "BP_PARTNER", 1.5,
             "weight of each card in hand a discard would have partnered", lo=0, hi=100),
    BotParam("points", "float", "BP_POINTS", 1.2,
             "weight of each penalty point a discard sheds", lo=0, hi=100),
    BotParam("late", "float", "BP_LATE", 1.0,
             "extra weight of points for each opponent already down", lo=0, hi=100),
    BotParam("feed", "float", "BP_FEED", 4.0,
             "cost of discarding a mate of a card the next player took", lo=0, hi=1000),
    BotParam("buy_dmax", "int", "BP_BUY_DMAX", 6,
             "buys a card that lowers its deficiency only up to this deficiency "
             "(any, when short of cards)", lo=0, hi=99),
    BotParam("buy_short", "int", "BP_BUY_SHORT", 4,
             "short of cards: buys a card with a partner in hand up to this "
             "deficiency", lo=0, hi=99),
    BotParam("dump", "int", "BP_DUMP", 3,
             "when a down opponent holds 2 cards or fewer and its deficiency is at "
             "least this, it sheds its highest points first (0: never)", lo=0, hi=99),
    BotParam("feed_down", "float", "BP_FEED_DOWN", 100.0,
             "cost of discarding a card that a next player who is down could lay off",
             lo=0, hi=1000),
    BotParam("buy_stock", "int", "BP_BUY_STOCK", 0,
             "with fewer cards than this in the stock, it buys only at deficiency 2 "
             "or less (buys drain the stock; 0: no such rule)", lo=0, hi=999),
)

# smart version 2's (kernels.bots.outlook): off, each plays as version 1 (docs/bots.md, "Version 2"); and
# version 3's owed (off: version 2)
_SMART_V2 = (
    BotParam("cut", "float", "BP_CUT", 0.01,
             "below this chance of going down this hand (live outs, cards and buys it can still "
             "get, turns left) it cuts its losses: sheds its highest points, buys only if that "
             "lifts the chance to it; when the cards rule the contract out it also takes a low "
             "upcard (0: never)", lo=0, hi=1),
    BotParam("buy_ev", "bool", "BP_BUY_EV", 0,
             "a buy must lower the hand's expected points: a better chance of going down against "
             "the upcard's and the penalty cards' points"),
    BotParam("feed_buy", "float", "BP_FEED_BUY", 2.0,
             "cost of discarding a mate of a card that a player who may buy it took", lo=0, hi=1000),
    BotParam("horizon", "float", "BP_HORIZON", 12.0,
             "turns a seat expects in a hand while nobody is down", lo=1, hi=99),
    BotParam("pace", "float", "BP_PACE", 1.5,
             "turns a down opponent takes per card it holds to go out", lo=0.1, hi=20),
    # version 3
    BotParam("owed", "bool", "BP_OWED", 1,
             "counts the discard a turn owes (go_out = discard_required) among the cards it "
             "needs to go down, when it asks whether the cards and buys it can still get rule "
             "the contract out (off: version 2, one card short under `contract`)"),
    # an option, off by default (docs/bots.md, "Fishing")
    BotParam("fish", "int", "BP_FISH", 0,
             "buys an upcard that does not lower its deficiency, for the penalty cards that come "
             "with it (more draws towards the contract), while the deficiency is at most this: only "
             "where a buy brings two or more penalty cards, in a hand whose contract needs more "
             "cards than the deal and a draw, and never with its last buy (0: never; 99: at any "
             "deficiency)", lo=0, hi=99),
)
# an option, none by default: smart only (rollout's playouts read no chart)
_CHART = (
    BotParam("chart", "choice", "BP_CHART0", 0,
             "in hand N, buys as the shipped when-to-buy chart NAME says where it says buy or pass, "
             "elsewhere by its own judgement (docs/bots.md, \"Buying by a chart\"), e.g. "
             "chart8=shanghai8", choices=tuple((n, i) for i, n in enumerate(CHART_NAMES)),
             default_text="none", per_hand=True),
)
_V2_SETTINGS = (("owed", "false"),)
_V1_SETTINGS = (("cut", "0"), ("buy_ev", "false"), ("feed_buy", "0")) + _V2_SETTINGS


# rollout's budget and switches (kernels.search.rollout); defaults from benchmarks/bench_rollout.py
_ROLLOUT_PARAMS = (
    BotParam("rollouts", "int", "BP_ROLLOUTS", 16,
             "samples per searched decision (with race: its first round); each candidate is "
             "played out on every sample", lo=1, hi=4096),
    BotParam("race", "int", "BP_RACE", 256,
             "a race: while a challenger of smart's choice is neither better by z standard "
             "errors nor unable to beat it by tie points, the samples double, up to race "
             "(0: off, rollouts samples and kmax)", lo=0, hi=4096),
    BotParam("race_take", "int", "BP_RACE_TAKE", 16,
             "a lower cap of the race at the upcard's take-or-pass, where the search finds least "
             "(-1: race's; 0: no race there)", lo=-1, hi=4096),
    BotParam("race_play", "int", "BP_RACE_PLAY", 32,
             "a lower cap of the race at the discard and at going down (-1: race's; 0: no race "
             "there)", lo=-1, hi=4096),
    BotParam("tie", "float", "BP_TIE", 20.0,
             "race: a challenger whose paired mean less z standard errors is above -tie points "
             "drops out (it cannot beat smart's choice by tie)", lo=0, hi=1000),
    BotParam("kmax", "int", "BP_KMAX", 0,
             "without race: a close call (another candidate ahead of smart's choice on the mean, "
             "not by z standard errors) is sampled again with twice the samples, up to kmax "
             "(0 or <= rollouts: every search takes rollouts samples)", lo=0, hi=4096),
    BotParam("candidates", "int", "BP_CANDS", 3,
             "discards searched: smart's choice and its next best that keep the deficiency",
             lo=1, hi=8),
    BotParam("s_take", "bool", "BP_S_TAKE", 1, "search take or pass on the upcard"),
    BotParam("s_buy", "bool", "BP_S_BUY", 1, "search buy or pass (with buy=auto)"),
    BotParam("s_discard", "bool", "BP_S_DISCARD", 1, "search the discard (not down)"),
    BotParam("s_down", "bool", "BP_S_DOWN", 1, "search going down now or waiting a turn"),
    BotParam("policy", "choice", "BP_POLICY", 0, "the playout policy of every seat",
             choices=tuple((c.word, c.value) for c in PLAYOUT_POLICIES)),
    BotParam("utility", "choice", "BP_UTILITY", 0,
             "outcome minimised: its points for the hand, or its total less the best other "
             "total after the hand (lead)", choices=tuple((c.word, c.value) for c in UTILITIES)),
    BotParam("margin", "float", "BP_MARGIN", 0.0,
             "points per hand another candidate's mean must beat smart's choice by", lo=0, hi=1000),
    BotParam("z", "float", "BP_Z", 2.0,
             "another candidate replaces smart's choice only when its mean paired difference "
             "(same samples) is below -z standard errors (0: whenever it is lower)", lo=0, hi=10),
    BotParam("fit", "int", "BP_FIT", 8,
             "a sampled other hand (not down) is drawn with min(turns it played this hand, fit) "
             "cards more, and those that serve its contract least go back: players keep the "
             "cards that serve them (0: uniform samples)", lo=0, hi=64),
    BotParam("decl", "int", "BP_DECL", 0,
             "a sampled other hand (not down) is redealt so that no card it discarded, "
             "passed or did not buy in its last decl turns would lower its deficiency: players throw and "
             "refuse what they cannot use (0: not read)", lo=0, hi=99),
    BotParam("prune", "int", "BP_PRUNE", 1,
             "upcards searched: 0 every one, 1 a joker, one that lowers the deficiency or "
             "has a partner in hand, 2 a joker or one that lowers the deficiency", lo=0, hi=2),
    BotParam("unready", "bool", "BP_UNREADY", 0,
             "a sampled other hand (not down) that the fit leaves meeting its contract swaps a "
             "card it needs for one of the rest: a player who is not down could not go down at "
             "its last turn, or it would have"),
    BotParam("nolay", "bool", "BP_NOLAY", 0,
             "a sampled hand of a player who is down holds no natural card that fits a meld on "
             "the table (it swaps with a stock card that fits none): a player who is down lays "
             "off all it can"),
    # a diagnostic, off by default: it reads what the seat cannot see (docs/rollout.md, "The oracle")
    BotParam("oracle", "choice", "BP_ORACLE", 0,
             "a diagnostic that cheats, never a player: its samples deal the other hands their "
             "true cards (hands; the stock still shuffled) or the true hands and the true stock "
             "order (deal): what reading the hidden cards would be worth to the search; refused "
             "unless asked for as a diagnostic (--diagnostic)",
             choices=tuple((c.word, c.value) for c in ORACLES)),
)


# rollout versions 2 and 3 (fixed budgets, over smart version 1), from version 4's defaults
_ROLLOUT_V3 = _V1_SETTINGS + (("race", "0"),)     # no race: tie and the per-kind caps unused
# rollout version 5's budget, from version 6's defaults
_ROLLOUT_V5 = (("tie", "2"), ("race_take", "-1"), ("race_play", "-1"))


# The registry: one entry per bot. The order of ``params`` is the order of canonical specs.
# A bot's kind (its kernel's dispatch value) is its place here: kernels/games/dispatch.py is
# generated from this registry (python -m shanghai_sim.botgen), so keep the order.
BOTS: dict[str, BotInfo] = {b.name: replace(b, kind=kind) for kind, b in enumerate((
    BotInfo("random", "bots.basics.random_action_nb", "uniformly random among the legal actions (fuzzing, and a floor)"),
    BotInfo("greedy", "bots.players.greedy_action_nb",
            "lowest deficiency, the baseline: takes the upcard when that lowers the deficiency "
            "even after its discard, buys when the upcard lowers it (or when the hand meets the "
            "contract but is short of cards), discards to keep it lowest (ties: more outs, "
            "then higher points; never a joker or the card just taken while another can go), "
            "goes down at once, lays off all it can, swaps jokers when that helps",
            _knobs(_BUY, BUY_USEFUL, "buy policy: never, useful (the upcard lowers the "
                   "deficiency, or the contract is met but short of cards), or always"),
            (BotVersion(1, "the first greedy", retired="its take and buy rules disagreed and it threw "
                        "jokers (fixed in version 2)"),
             BotVersion(2, "takes and buys by one rule, never throws a joker or the card just taken "
                        "while another can go, buys when the contract is met but short of cards"))),
    BotInfo("smart", "bots.players.smart_action_nb",
            "a strong heuristic player (docs/bots.md): greedy's deficiency first, then live "
            "outs (cards it has not seen), partners, penalty points as opponents go down, "
            "and not feeding the next player; buys by card count as well as by card; "
            "decides from its seat's view only",
            _knobs(_BUY_SMART, BUY_AUTO, "buy policy: its own judgement (auto), or greedy's "
                   "never, useful, always") + _SMART_WEIGHTS + _SMART_V2 + _CHART,
            (BotVersion(1, "the first smart: deficiency, partners, points, not feeding the next "
                        "player; buys by card count", _V1_SETTINGS),
             BotVersion(2, "knows when it cannot go down (the cards and buys it can still get, "
                        "live outs, turns left) and then sheds its points; does not feed a "
                        "player who may buy the discard", _V2_SETTINGS),
             BotVersion(3, "counts the discard a turn owes under go_out = discard_required "
                        "(`contract`) among the cards to go down: version 2 kept buying for a "
                        "card count one short of going down; the same play under no_discard "
                        "(`shanghai`)")),
            gate="smart"),
    BotInfo("rollout", "search.rollout.rollout_action_nb",
            "determinized Monte Carlo search over smart (docs/rollout.md): at the upcard, buy, "
            "discard and going-down decisions it samples the cards it has not seen (consistent "
            "with its seat's view), plays the hand out with smart in every seat once per "
            "candidate on the same samples, and takes the best mean; elsewhere it plays as smart",
            _knobs(_BUY_SMART, BUY_AUTO, "buy policy: searched (auto), or greedy's never, "
                   "useful, always (no search then)") + _ROLLOUT_PARAMS + _SMART_WEIGHTS
            + _SMART_V2,
            (BotVersion(1, "the first search", retired="its playouts' parameter rows overlapped, so "
                        "they played on wrong weights (fixed in version 2)"),
             BotVersion(2, "the playouts' parameter rows fixed; 8 samples a decision, over smart "
                        "version 1", _ROLLOUT_V3 + (("rollouts", "8"),)),
             BotVersion(3, "64 samples a decision (docs/rollout.md, the default budget), over "
                        "smart version 1", _ROLLOUT_V3 + (("rollouts", "64"),)),
             BotVersion(4, "over smart version 2 (base play and playouts); a race: 16 samples "
                        "where the choice is clear, doubled up to 256 where a challenger is close "
                        "(docs/rollout.md)", _V2_SETTINGS + _ROLLOUT_V5),
             BotVersion(5, "over smart version 3 (the same play under `shanghai`)", _ROLLOUT_V5),
             BotVersion(6, "the race capped by decision kind: 16 samples at the upcard's take, up to 32 "
                        "at the discard and going down, 256 at the buy; a challenger that cannot beat "
                        "smart's choice by 20 points drops out (analyses/search_budget.py): a sixth "
                        "of version 5's search time (docs/rollout.md)")),
            gate="workspace",
            diagnostic=Diagnostic("oracle", "oracle", "search.oracle.oracle_action_nb",
                                  (("hands", "the other hands' true cards"),
                                   ("deal", "the other hands' true cards and the stock's order")))),
))}


def spec_version(spec: str) -> tuple[str, int] | None:
    """(bot name, version played) of a spec, canonical or not; None if it names no bot."""
    parts = [t.strip().lower() for t in str(spec).split(":")]
    if parts[0] not in BOTS:
        return None
    for part in parts[1:]:
        key, _, value = part.partition("=")
        if key.strip() == "v" and value.strip().isdigit():
            return parts[0], int(value.strip())
    return parts[0], BOTS[parts[0]].version


def bot_versions(specs) -> dict[str, int | list[int]]:
    """{bot name: version played} of the bots in ``specs`` (canonical or not); a bot
    played in several versions: the sorted list of them."""
    out: dict[str, set[int]] = {}
    for s in specs:
        nv = spec_version(s)
        if nv is not None:
            out.setdefault(nv[0], set()).add(nv[1])
    return {k: (min(v) if len(v) == 1 else sorted(v)) for k, v in sorted(out.items())}


@dataclass(frozen=True)
class BotSpec:
    name: str                 # canonical spec string
    kind: int
    params: tuple[float, ...]  # the kernel's parameter vector (NBP floats)
    # a diagnostic (Diagnostic.sees: what it reads that its seat cannot see), or "" for a player
    diagnostic: str = ""

    def array(self) -> np.ndarray:
        return np.array(self.params, dtype=np.float64)

    def param_values(self) -> dict[str, float | tuple[float, ...]]:
        """{name: value} of every parameter of the spec's bot, read through its registry entry
        (a per-hand one, ``buyN``: its values for hands 1..MAX_HAND_PARAMS): what a caller
        outside the kernels reads a spec's settings by, never a slot number."""
        info = BOTS[self.name.split(":", 1)[0]]
        return {p.name: (tuple(self.params[p.slot:p.slot + MAX_HAND_PARAMS]) if p.per_hand else self.params[p.slot])
                for p in info.params}


def _valid_bots() -> str:
    return ", ".join(BOTS)


def _valid_params(info: BotInfo) -> str:
    if not info.params:
        return "none"
    return ", ".join(f"{p.name}={p.values}" for p in info.params)


def _find_param(info: BotInfo, key: str, spec: str, hands: int | None) -> tuple[BotParam, int]:
    """The parameter a key names, and its slot."""
    for p in info.params:
        if not p.per_hand and key == p.key:
            return p, p.slot
    for p in info.params:
        if p.per_hand and key.startswith(p.key) and key[len(p.key):].isascii() and key[len(p.key):].isdigit() and len(key) - len(p.key) <= 4:
            h = int(key[len(p.key):])
            top = MAX_HAND_PARAMS if hands is None else min(hands, MAX_HAND_PARAMS)
            if not 1 <= h <= top:
                raise BotError(f"bad parameter {key!r} in {spec!r}: hand numbers are 1..{top}"
                               + (f" (the rules have {hands} hands)" if hands is not None else ""))
            return p, p.slot + h - 1
    raise BotError(f"unknown parameter {key!r} for bot {info.name!r} (valid: {_valid_params(info)})")


_GENERATED_OK = False


def _check_generated() -> None:
    """BotError unless the kernels' dispatch was generated from this registry (a bot added
    or moved without python -m shanghai_sim.botgen would be played by another kernel)."""
    global _GENERATED_OK
    if _GENERATED_OK:
        return
    from .kernels.games.dispatch import DIAGNOSTICS, NAMES
    diags = tuple(f"{b.name}:{b.diagnostic.name}" for b in BOTS.values() if b.diagnostic is not None)
    if tuple(NAMES) != tuple(BOTS) or tuple(DIAGNOSTICS) != diags:
        raise BotError(f"the kernels dispatch bots {', '.join(NAMES + DIAGNOSTICS)} but the registry has "
                       f"{', '.join(tuple(BOTS) + diags)}: run python -m shanghai_sim.botgen")
    _GENERATED_OK = True


def parse_bot(spec: str, hands: int | None = None) -> BotSpec:
    """One spec such as ``greedy:buy=never:buy9=useful`` -> BotSpec.

    ``hands``: the rules' number of hands, if known; a per-hand parameter
    (``buyN``) beyond it is an error, since it would silently do nothing.
    """
    _check_generated()
    if not isinstance(spec, str) or not spec.strip():
        raise BotError(f"empty bot spec (valid bots: {_valid_bots()})")
    parts = [s.strip() for s in spec.strip().split(":")]
    name = parts[0].lower()
    if name not in BOTS:
        raise BotError(f"unknown bot {parts[0]!r} (valid bots: {_valid_bots()})")
    info = BOTS[name]
    pairs: list[tuple[str, str]] = []
    for part in parts[1:]:
        if "=" not in part:
            raise BotError(f"bad parameter {part!r} in bot spec {spec!r} (expected key=value; "
                           f"{name} takes: {_valid_params(info)})")
        key, value = (t.strip().lower() for t in part.split("=", 1))
        if key in dict(pairs):
            raise BotError(f"parameter {key!r} given twice in bot spec {spec!r} "
                           f"({key}={dict(pairs)[key]} and {key}={value})")
        pairs.append((key, value))
    # the version first: the other keys change its settings, wherever v is written
    v = info.version
    if "v" in dict(pairs):
        text = dict(pairs)["v"]
        if not (text.isascii() and text.isdigit() and len(text) <= 6):
            raise BotError(f"bad value {text!r} for v in {spec!r} (valid: a version of {name}: "
                           f"{', '.join(str(x.v) for x in info.versions if not x.retired)})")
        v = int(text)
    bp = info.version_defaults(v, spec)
    for key, value in pairs:
        if key == "v":
            continue
        if not info.params:
            raise BotError(f"bot {name!r} takes no parameters but v (got {key!r})")
        p, slot = _find_param(info, key, spec, hands)
        bp[slot] = p.parse(key, value, spec)
    kind, sees = info.kind, ""
    d = info.diagnostic
    if d is not None:
        p, slot = _find_param(info, d.key, spec, hands)
        if bp[slot] != p.default:
            kind, sees = diagnostic_kind(info), dict(d.sees)[p.text(bp[slot])]
    return BotSpec(canonical(info, bp, v), kind, tuple(float(x) for x in bp), sees)


def diagnostic_kind(info: BotInfo) -> int:
    """The dispatch kind of a bot's diagnostic variant: after the registry's bots, in the
    registry's order (kernels/games/dispatch.py, generated by shanghai_sim.botgen)."""
    with_d = [b.name for b in BOTS.values() if b.diagnostic is not None]
    return len(BOTS) + with_d.index(info.name)


class DiagnosticRefused(BotError):
    """A diagnostic bot spec (one that cheats) given where it was not asked for."""


def diagnostic_specs(specs) -> list[BotSpec]:
    """The diagnostic specs (BotSpec, canonical, each once, in order) among ``specs``
    (spec strings, a comma-separated string or BotSpecs); an unparsable spec is skipped
    (the caller's own parsing reports it)."""
    out: dict[str, BotSpec] = {}
    items = [specs] if isinstance(specs, (str, BotSpec)) else list(specs)
    for item in items:
        for s in ([item] if isinstance(item, BotSpec) else split_specs(item) if isinstance(item, str) else []):
            try:
                b = s if isinstance(s, BotSpec) else parse_bot(s)
            except BotError:
                continue
            if b.diagnostic:
                out.setdefault(b.name, b)
    return list(out.values())


def refuse_diagnostics(specs, diagnostic: bool, how: str = "--diagnostic (diagnostic=True in Python)"
                       ) -> list[BotSpec]:
    """DiagnosticRefused (one line naming the spec and ``how`` to ask for it) if ``specs``
    hold a diagnostic bot (``rollout:oracle=hands``: it sees hidden cards) and ``diagnostic``
    is false; else the diagnostic specs among them (``diagnostic_specs``), for the marks."""
    found = diagnostic_specs(specs)
    if found and not diagnostic:
        b = found[0]
        raise DiagnosticRefused(f"bot spec {b.name!r} is a diagnostic that cheats (it sees {b.diagnostic}), "
                                f"never a player: give {how} to play it")
    return found


def diagnostic_marks(specs) -> list[str]:
    """The lines a dataset or report says about the diagnostic bots among ``specs`` (none
    when none played): each spec and what it sees."""
    return [f"DIAGNOSTIC: {b.name} sees {b.diagnostic} (a bot that cheats on purpose, not a player)"
            for b in diagnostic_specs(specs)]


def canonical(info: BotInfo, bp: np.ndarray, v: int | None = None) -> str:
    """The canonical spec of a parameter vector played as version v (default: the
    newest): the name, ``v=N`` unless v is the newest (datasets record which version
    that was: ``bot_versions``), then every parameter that differs from that version's
    defaults, in registry order."""
    v = info.version if v is None else v
    base = info.version_defaults(v)
    out = [info.name] if v == info.version else [info.name, f"v={v}"]
    for p in info.params:
        if p.per_hand:
            for h in range(MAX_HAND_PARAMS):
                if bp[p.slot + h] != base[p.slot + h]:
                    out.append(f"{p.key}{h + 1}={p.text(bp[p.slot + h])}")
        elif bp[p.slot] != base[p.slot]:
            out.append(f"{p.key}={p.text(bp[p.slot])}")
    return ":".join(out)


def split_specs(specs: "str | list[str] | tuple[str, ...]") -> list[str]:
    """The one spec splitter: ``"random,greedy"``, or a list whose items may hold commas,
    -> a list of specs. An empty spec (``"greedy,,greedy"``) is an error, not dropped."""
    items = [specs] if isinstance(specs, str) else list(specs)
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise BotError(f"expected bot specs such as \"greedy\" or \"random,greedy\", got {item!r}")
        parts = [s.strip() for s in item.split(",")]
        if any(not s for s in parts):
            raise BotError(f"empty bot spec in {item!r} (two commas in a row, or one at an end)")
        out += parts
    if not out:
        raise BotError(f"no bot given (e.g. \"greedy\" or \"random,greedy,greedy,greedy\"; "
                       f"valid bots: {_valid_bots()})")
    return out


def seat_specs(specs: "list[str] | tuple[str, ...]", players: int) -> list:
    """One spec for every seat, or exactly one per seat -> one per seat."""
    lst = list(specs)
    if len(lst) == 1:
        return lst * players
    if len(lst) != players:
        raise BotError(f"{len(lst)} bot specs for {players} players "
                       f"(give one spec for every seat, or one per seat)")
    return lst


def parse_bots(specs: "str | list[str] | tuple[str, ...]", players: int, hands: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Specs for ``players`` seats -> (bot_kind int64[players], bot_params float64[players, NBP])."""
    lst = seat_specs(split_specs(specs), players)
    parsed = [parse_bot(s, hands) for s in lst]
    kind = np.array([b.kind for b in parsed], dtype=np.int64)
    params = np.stack([b.array() for b in parsed]).astype(np.float64)
    return kind, params


def bots_help() -> str:
    """The text of ``shanghai-sim bots``: one line per bot and per parameter."""
    import textwrap
    lines = []
    kw = max([len(f"{p.name}={p.values}") for info in BOTS.values() for p in info.params] + [8])
    for info in BOTS.values():
        wrapped = textwrap.wrap(f"{info.help} (version {info.version})", 96 - 10)
        lines.append(f"{info.name:<8}  {wrapped[0]}")
        lines += [f"{'':<8}  {w}" for w in wrapped[1:]]
        if len(info.versions) > 1:
            for x in info.versions:
                what = f"v={x.v}: {x.change}" + (f" (retired: {x.retired})" if x.retired else "")
                text = textwrap.wrap(what, 96 - 14)
                lines.append(f"{'':<10}{text[0]}")
                lines += [f"{'':<14}{t}" for t in text[1:]]
        for p in info.params:
            default = p.default_text if p.default_text is not None else p.text(p.default)
            text = textwrap.wrap(f"{p.help} (default: {default})", max(40, 96 - kw - 4))
            lines.append(f"  {p.name + '=' + p.values:<{kw}}  {text[0]}")
            lines += [f"  {'':<{kw}}  {t}" for t in text[1:]]
        lines.append("")
    lines.append("spec: NAME[:key=value[:key=value...]], each key at most once; v=N plays version N")
    lines.append("seats: one spec for every seat, or one per seat separated by commas,")
    lines.append("       e.g. --bots greedy:buy=never,random,greedy,greedy")
    return "\n".join(lines)
