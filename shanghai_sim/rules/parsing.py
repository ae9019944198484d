"""Rules from text: rules files (TOML), ``--rule KEY=VALUE`` options, tables of overrides.

``overrides`` applies a table of options (a rules file's, an experiment's, the command line's)
on top of a ``Rules``, each value checked and read into its type; ``load_rules`` takes a
preset name, a rules file or a ``Rules``; ``with_options`` and ``resolve`` add ``--rule``
options (docs/rules.md §7). A new option's TOML key goes in ``_KEYS`` (an enum option in
``_ENUMS``) and its reading in ``overrides``.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

from ..cards import RANKS
from ..kernels.base.layout import MAX_PLAYERS, MIN_PLAYERS
from .model import PRESETS, Rules, preset
from .values import (BuyPriority, Contract, GoOut, InitialMeld, JokerLimit, JokerSwap, RulesError,
                     SameSuitRuns, SetJokerIdentity, parse_contract)


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


def read_toml(path: "str | Path", what: str, error: type[Exception]) -> dict:
    """The table of the TOML file at ``path``; ``error`` with one line naming it as ``what``
    (``"rules file"``, ``"job file"``) if it is not there, not a file, not valid TOML or cannot
    be read."""
    p = Path(path)
    try:
        if not p.is_file():
            raise error(f"{what} {file_name(path)} not found")
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise error(f"{what} {file_name(path)} is not valid TOML: {e}") from None
    except OSError as e:            # a name too long, a file it may not read
        raise error(f"{what} {file_name(path)} cannot be read: {e.strerror or e}") from None


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
    except OSError as e:            # a name too long
        raise RulesError(f"rules file {file_name(s)} cannot be read: {e.strerror or e}") from None
    data = read_toml(s, "rules file", RulesError)
    base = data.get("base", "shanghai")
    if base not in PRESETS:
        raise RulesError(f"rules file {s!r}: unknown base {base!r} (choose from {', '.join(PRESETS)})")
    data.setdefault("name", f"{path.stem}")
    if players is not None and "players" not in data:
        data["players"] = players
    return overrides(preset(base), data, where=f"rules file {s!r}")
