"""Jobs: what the user asks for (options, a TOML job file) and its validation."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ..defaults import DEFAULT_GAMES, DEFAULT_OUT, DETAILS
from ..rules import MAX_PLAYERS, MIN_PLAYERS, Rules, RulesError, overrides, preset

from ..limits import MAX_GAMES, MAX_SEED, check_count, check_seed, check_threads  # noqa: F401  (re-exported)


class JobError(ValueError):
    """A job that cannot run as asked (bad option, job file or output folder): one line."""


def check_rate(v: Any) -> float:
    """A positions rate: a finite real number, 0 < rate <= 1 (the share of decisions recorded)."""
    import math
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 < v <= 1:
        raise JobError(f"positions = {v!r}: expected the share of decisions to record, a number "
                       "above 0 and at most 1 (e.g. 0.02)")
    return float(v)



# ---------------------------------------------------------------- jobs

@dataclass(frozen=True)
class Job:
    """A batch job as asked for. ``None`` players: the rules' default (or one per bot)."""
    rules: "str | Rules" = "shanghai"  # preset name, TOML rules file, or resolved Rules
    players: int | None = None
    bots: tuple[str, ...] = ("greedy",)  # one spec for every seat, or one per seat
    games: int = DEFAULT_GAMES
    seed: int = 1
    threads: int | None = None         # None: every core
    out: str = DEFAULT_OUT
    detail: str = "hands"              # "hands": hands/ and games/; "games": games/ only
    rotate: bool = True                # rotate the line-up one seat per game
    shard_size: int | None = None      # None: chosen from the number of games
    scheduler: str | None = None       # Dask scheduler address; None: local threads
    diagnostic: bool = False           # a diagnostic bot (rollout:oracle=..., it cheats) is refused unless set
    seating: str = "rotate"            # "rotate": as ``rotate`` says; "duplicate": each seed once per
                                       # seat; "tournament": each seed once per distinct seating
    positions: float | None = None     # the share of decisions written to positions/ (None: no table)


# How the line-up sits (``Job.seating``): "rotate" is today's scheme (one seat per game, or
# fixed with rotate off); "duplicate" plays each seed once with the line-up in each rotation;
# "tournament" plays each seed once in every distinct seating of the line-up's specs.
SEATINGS = ("rotate", "duplicate", "tournament")


JOB_KEYS = tuple(f.name for f in dataclasses.fields(Job))
# Fields that define the rows; threads and scheduler only say where they are computed.
IDENTITY_KEYS = ("players", "bots", "games", "seed", "rotate", "detail", "shard_size", "seating", "positions")


def split_bots(value: "str | Iterable[str]") -> tuple[str, ...]:
    """``"random,greedy"`` or ``["random", "greedy"]`` -> a tuple of specs (``bots.split_specs``)."""
    from ..bots import BotError, split_specs
    try:
        return tuple(split_specs(value))
    except BotError as e:
        raise JobError(f"bots: {e}") from None


def _check_int(key: str, v: Any, lo: int, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise JobError(f"{key} = {v!r}: expected an integer")
    if v < lo or (hi is not None and v > hi):
        raise JobError(f"{key} = {v}: must be {lo}..{hi}" if hi is not None else f"{key} = {v}: must be >= {lo}")
    return v


def normalise(options: dict[str, Any], where: str = "job") -> dict[str, Any]:
    """Validate and normalise job options (from a file, the command line or a manifest)."""
    out: dict[str, Any] = {}
    for key, v in options.items():
        if v is None:
            continue
        if key not in JOB_KEYS:
            if key == "base":
                raise JobError(f"{where} is a rules file, not a job file: give it as --rules FILE "
                               "(a job file names its rules with rules = ...)")
            raise JobError(f"{where}: unknown option {key!r} (known: {', '.join(JOB_KEYS)})")
        if key == "bots":
            out[key] = split_bots(v)
        elif key == "players":
            out[key] = _check_int("players", v, MIN_PLAYERS, MAX_PLAYERS)
        elif key == "games":
            out[key] = check_count("games", v, 1, MAX_GAMES)
        elif key == "seed":
            out[key] = check_seed(v)
        elif key == "threads":
            out[key] = check_threads(v)
        elif key == "shard_size":
            out[key] = _check_int("shard_size", v, 1, 10_000_000)
        elif key == "detail":
            if v not in DETAILS:
                raise JobError(f"detail = {v!r}: expected one of {', '.join(DETAILS)}")
            out[key] = v
        elif key in ("rotate", "diagnostic"):
            if not isinstance(v, bool):
                raise JobError(f"{key} = {v!r}: expected true or false")
            out[key] = v
        elif key == "seating":
            if v not in SEATINGS:
                raise JobError(f"seating = {v!r}: expected one of {', '.join(SEATINGS)}")
            out[key] = v
        elif key == "positions":
            out[key] = check_rate(v)
        elif key == "rules" and isinstance(v, Rules):
            out[key] = v
        elif key in ("rules", "out", "scheduler"):
            if isinstance(v, os.PathLike):
                v = os.fspath(v)
            if not isinstance(v, str) or not v:
                raise JobError(f"{key} = {v!r}: expected a non-empty string")
            out[key] = v
    return out


def _is_url(s: str) -> bool:
    return "://" in s


def load_job_file(path: "str | Path") -> dict[str, Any]:
    """A TOML job file -> normalised options. Relative paths are relative to the file.

    Keys: the fields of ``Job``; ``rules`` is a preset name, a rules file, or a
    table of rules options (``[rules]`` with ``base = "contract"`` + overrides).
    """
    from ..rules.parsing import read_toml
    data = read_toml(path, "job file", JobError)
    p = Path(path)
    where = f"job file {str(path)!r}"
    rules = data.pop("rules", None)
    opts = normalise(data, where)
    here = p.resolve().parent
    if isinstance(rules, dict):
        # An inline rules table is resolved now; the plan carries the Rules object.
        base = rules.get("base", "shanghai")
        try:
            opts["rules"] = overrides(preset(base), dict(rules, name=rules.get("name", p.stem)), where=where)
        except RulesError as e:
            raise JobError(str(e)) from None
    elif rules is not None:
        if not isinstance(rules, str) or not rules:
            raise JobError(f"{where}: rules = {rules!r}: expected a preset name, a rules file or a table")
        if rules.endswith(".toml") and not os.path.isabs(rules):
            rules = str(here / rules)
        opts["rules"] = rules
    if "out" in opts and not _is_url(opts["out"]) and not os.path.isabs(opts["out"]):
        opts["out"] = str(here / opts["out"])
    return opts
