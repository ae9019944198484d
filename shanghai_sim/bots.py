"""Bot specs: ``random``, ``greedy:buy=never:maxbuys=1`` -> kernel arrays.

A spec is a bot name, then ``:key=value`` parameters. Several seats are
given as a comma-separated list (or a Python list), one spec per seat, or
one spec for every seat. The kernels (``kernels.bots``) read a bot as an
integer kind and a float64 parameter vector (layout ``BP_*`` there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kernels.bots import (BOT_GREEDY, BOT_RANDOM, BP_BUY, BP_HAND0, BP_MAXBUYS, BP_WAIT_BLIND,
                           BUY_ALWAYS, BUY_NEVER, BUY_USEFUL, MAX_HAND_PARAMS, NBP)


class BotError(ValueError):
    """An unknown bot, parameter or value, or a wrong number of specs."""


@dataclass(frozen=True)
class BotParam:
    key: str
    values: str
    default: str
    help: str


@dataclass(frozen=True)
class BotInfo:
    name: str
    kind: int
    help: str
    params: tuple[BotParam, ...]


_BUY = {"never": BUY_NEVER, "useful": BUY_USEFUL, "always": BUY_ALWAYS}
_BOOL = {"true": 1, "false": 0, "yes": 1, "no": 0, "1": 1, "0": 0}

BOTS: dict[str, BotInfo] = {
    "random": BotInfo("random", BOT_RANDOM,
                      "uniformly random among the legal actions (fuzzing, and a floor)", ()),
    "greedy": BotInfo("greedy", BOT_GREEDY,
                      "lowest deficiency: takes/buys the upcard when it lowers the deficiency, "
                      "discards to keep it lowest (ties: more outs, then higher points), goes down "
                      "at once, lays off all it can, swaps jokers when that helps", (
                          BotParam("buy", "never|useful|always", "useful",
                                   "buy policy: never, when the upcard lowers the deficiency, or always"),
                          BotParam("buyN", "never|useful|always", "buy",
                                   "buy policy in hand N (1-based), e.g. buy8=never"),
                          BotParam("maxbuys", "integer >= 0", "the rules' limit",
                                   "most buys per hand"),
                          BotParam("wait_blind", "true|false", "false",
                                   "go down only when it can go out the same turn (blind)"),
                      )),
}


@dataclass(frozen=True)
class BotSpec:
    name: str                 # canonical spec string
    kind: int
    params: tuple[float, ...]  # the kernel's parameter vector (NBP floats)

    def array(self) -> np.ndarray:
        return np.array(self.params, dtype=np.float64)


def _valid_bots() -> str:
    return ", ".join(BOTS)


def _valid_params(info: BotInfo) -> str:
    if not info.params:
        return "none"
    return ", ".join(f"{p.key}={p.values}" for p in info.params)


def parse_bot(spec: str, hands: int | None = None) -> BotSpec:
    """One spec such as ``greedy:buy=never:buy9=useful`` -> BotSpec.

    ``hands``: the rules' number of hands, if known; a per-hand parameter
    (``buyN``) beyond it is an error, since it would silently do nothing.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise BotError(f"empty bot spec (valid bots: {_valid_bots()})")
    parts = [s.strip() for s in spec.strip().split(":")]
    name = parts[0].lower()
    if name not in BOTS:
        raise BotError(f"unknown bot {parts[0]!r} (valid bots: {_valid_bots()})")
    info = BOTS[name]
    bp = np.zeros(NBP, dtype=np.float64)
    bp[BP_BUY] = BUY_USEFUL
    bp[BP_MAXBUYS] = -1
    bp[BP_WAIT_BLIND] = 0
    bp[BP_HAND0:] = -1
    given: dict[str, str] = {}
    for part in parts[1:]:
        if "=" not in part:
            raise BotError(f"bad parameter {part!r} in bot spec {spec!r} (expected key=value; "
                           f"{name} takes: {_valid_params(info)})")
        key, value = (t.strip().lower() for t in part.split("=", 1))
        if not info.params:
            raise BotError(f"bot {name!r} takes no parameters (got {key!r})")
        if key in given:
            raise BotError(f"parameter {key!r} given twice in bot spec {spec!r} "
                           f"({key}={given[key]} and {key}={value})")
        if key == "buy":
            if value not in _BUY:
                raise BotError(f"bad value {value!r} for {key} in {spec!r} (valid: never, useful, always)")
            bp[BP_BUY] = _BUY[value]
        elif key.startswith("buy") and key[3:].isdigit():
            h = int(key[3:])
            top = MAX_HAND_PARAMS if hands is None else min(hands, MAX_HAND_PARAMS)
            if not 1 <= h <= top:
                raise BotError(f"bad parameter {key!r} in {spec!r}: hand numbers are 1..{top}"
                               + (f" (the rules have {hands} hands)" if hands is not None else ""))
            if value not in _BUY:
                raise BotError(f"bad value {value!r} for {key} in {spec!r} (valid: never, useful, always)")
            bp[BP_HAND0 + h - 1] = _BUY[value]
        elif key == "maxbuys":
            if not value.isdigit():
                raise BotError(f"bad value {value!r} for maxbuys in {spec!r} (valid: an integer >= 0)")
            bp[BP_MAXBUYS] = int(value)
        elif key == "wait_blind":
            if value not in _BOOL:
                raise BotError(f"bad value {value!r} for wait_blind in {spec!r} (valid: true, false)")
            bp[BP_WAIT_BLIND] = _BOOL[value]
        else:
            raise BotError(f"unknown parameter {key!r} for bot {name!r} (valid: {_valid_params(info)})")
        given[key] = value
    return BotSpec(_canonical(name, bp), info.kind, tuple(float(x) for x in bp))


def _canonical(name: str, bp: np.ndarray) -> str:
    inv = {v: k for k, v in _BUY.items()}
    out = [name]
    if name == "greedy":
        if bp[BP_BUY] != BUY_USEFUL:
            out.append(f"buy={inv[int(bp[BP_BUY])]}")
        for h in range(MAX_HAND_PARAMS):
            if bp[BP_HAND0 + h] >= 0:
                out.append(f"buy{h + 1}={inv[int(bp[BP_HAND0 + h])]}")
        if bp[BP_MAXBUYS] >= 0:
            out.append(f"maxbuys={int(bp[BP_MAXBUYS])}")
        if bp[BP_WAIT_BLIND]:
            out.append("wait_blind=true")
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
    kw = max([len(f"{p.key}={p.values}") for info in BOTS.values() for p in info.params] + [8])
    for info in BOTS.values():
        wrapped = textwrap.wrap(info.help, 96 - 10)
        lines.append(f"{info.name:<8}  {wrapped[0]}")
        lines += [f"{'':<8}  {w}" for w in wrapped[1:]]
        for p in info.params:
            text = textwrap.wrap(f"{p.help} (default: {p.default})", max(40, 96 - kw - 4))
            lines.append(f"  {p.key + '=' + p.values:<{kw}}  {text[0]}")
            lines += [f"  {'':<{kw}}  {t}" for t in text[1:]]
        lines.append("")
    lines.append("spec: NAME[:key=value[:key=value...]], each key at most once")
    lines.append("seats: one spec for every seat, or one per seat separated by commas,")
    lines.append("       e.g. --bots greedy:buy=never,random,greedy,greedy")
    return "\n".join(lines)
