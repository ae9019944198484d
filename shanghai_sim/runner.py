"""Batch runs: a job of many games -> a Parquet dataset (docs/dataset.md).

A ``Job`` is what the user asks for (options, a TOML job file, or the
manifest of a run to resume). ``plan()`` resolves it into a ``Plan``: rules,
bot line-up, and a fixed split of the games into shards. Shard ``k`` holds
games ``k * shard_size ...``; game ``g`` is played from
``game_seed_nb(job seed, g)`` with the line-up rotated ``g`` seats when
``rotate`` is on. Nothing about a game depends on threads, workers or which
shards ran before, so a resumed or distributed run writes the same rows.

``run_shard`` plays one shard and writes its part files; ``run`` runs the
pending shards on a thread pool (the game kernel releases the GIL) or hands
them to another executor (``cluster.DaskExecutor``), keeps ``manifest.json``
up to date as shards finish, and shows progress on stderr.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import os
import signal
import sys
import threading
import time
import tomllib
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

import numpy as np

from . import __version__
from .defaults import DEFAULT_GAMES, DEFAULT_OUT, DETAILS  # re-exported: runner.DEFAULT_GAMES ...
from .dataset import GAMES, HANDS, MANIFEST, SCHEMA_VERSION, DatasetError, Store, WriteError, \
    games_table, hands_table, part_name
from .integrity import FOREIGN, JOB_META, check_part, job_meta
from .kernels.records import NHF
from .kernels.rng import game_seed_nb
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules, RulesError, load_rules, overrides, preset

# Target time of one kernel call. Longer calls are faster (the engine keeps its meld
# memo for the length of a call); shorter ones give finer progress and a prompter Ctrl-C.
CHUNK_SECONDS = 5.0
MAX_CHUNK = 1000
MAX_GAMES = 2**32 - 1        # game index is a uint32 column
MAX_SEED = 2**63 - 1


class JobError(ValueError):
    """A job that cannot run as asked (bad option, job file or output folder): one line."""


class Interrupted(Exception):
    """Raised inside a shard when the run is being stopped; the shard is not written."""


# ---------------------------------------------------------------- engine hooks

@dataclass(frozen=True)
class Engine:
    """The game engine the runner drives: the numba kernel and the bot parser.

    ``play_games(*rules_arrays, bot_kind, bot_params, seeds, hand_out)`` fills
    ``hand_out`` int32[len(seeds), hands, players, NHF]; ``parse_bots(specs,
    players)`` -> (bot_kind, bot_params); ``bot_name(spec)`` -> canonical spec.
    ``None`` everywhere below means the real engine (``default_engine``).
    """
    play_games: Callable
    parse_bots: Callable
    bot_name: Callable


def _bot_name(spec: str) -> str:
    from .bots import parse_bot
    return parse_bot(spec).name


def default_engine() -> Engine:
    from .bots import parse_bots
    from .kernels.engine import play_games_nb
    return Engine(play_games_nb, parse_bots, _bot_name)


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


JOB_KEYS = tuple(f.name for f in dataclasses.fields(Job))
# Fields that define the rows; threads and scheduler only say where they are computed.
IDENTITY_KEYS = ("players", "bots", "games", "seed", "rotate", "detail", "shard_size")


def split_bots(value: "str | Iterable[str]") -> tuple[str, ...]:
    """``"random,greedy"`` or ``["random", "greedy"]`` -> a tuple of specs (``bots.split_specs``)."""
    from .bots import BotError, split_specs
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
            out[key] = _check_int("games", v, 1, MAX_GAMES)
        elif key == "seed":
            out[key] = _check_int("seed", v, 0, MAX_SEED)
        elif key == "threads":
            out[key] = _check_int("threads", v, 1, 1024)
        elif key == "shard_size":
            out[key] = _check_int("shard_size", v, 1, 10_000_000)
        elif key == "detail":
            if v not in DETAILS:
                raise JobError(f"detail = {v!r}: expected one of {', '.join(DETAILS)}")
            out[key] = v
        elif key == "rotate":
            if not isinstance(v, bool):
                raise JobError(f"rotate = {v!r}: expected true or false")
            out[key] = v
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
    p = Path(path)
    if not p.is_file():
        raise JobError(f"job file {str(path)!r} not found")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise JobError(f"job file {str(path)!r} is not valid TOML: {e}") from None
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


def make_job(job_file: "str | Path | None" = None, **options: Any) -> Job:
    """Defaults < job file < options (``None`` options are not given)."""
    merged: dict[str, Any] = {}
    if job_file is not None:
        merged.update(load_job_file(job_file))
    merged.update(normalise(options, "options"))
    return Job(**merged)


# ---------------------------------------------------------------- plans

@dataclass(frozen=True)
class Plan:
    """A resolved job: everything a shard needs, picklable for Dask workers."""
    location: str                  # absolute local path or URL
    rules: Rules                   # with players = the job's player count
    rules_spec: str
    lineup: tuple[str, ...]        # canonical bot spec of player 0..players-1
    games: int
    seed: int
    rotate: bool
    detail: str
    shard_size: int
    threads: int
    scheduler: str | None = None

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def hands(self) -> int:
        return self.rules.hands

    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    @property
    def digits(self) -> int:
        return max(5, len(str(self.n_shards - 1)))

    @property
    def tables(self) -> tuple[str, ...]:
        return (HANDS, GAMES) if self.detail == "hands" else (GAMES,)

    def bounds(self, shard: int) -> tuple[int, int]:
        start = shard * self.shard_size
        return start, min(self.games, start + self.shard_size)

    def part(self, shard: int) -> str:
        return part_name(shard, self.digits)

    def identity(self) -> dict[str, Any]:
        """The manifest's ``job`` section: equal identities write equal rows."""
        return {"rules": self.rules_spec, "players": self.players, "bots": list(self.lineup),
                "games": self.games, "seed": self.seed, "rotate": self.rotate,
                "detail": self.detail, "shard_size": self.shard_size}

    def job_meta(self) -> str:
        """What every part of this job carries in its ``shanghai_sim.job`` metadata."""
        return job_meta(self.identity(), self.rules.to_dict())

    def shard_rows(self, table: str, shard: int) -> int:
        a, b = self.bounds(shard)
        return self.rows(b - a)[table]

    def seating(self) -> str:
        if self.rotate:
            return "seat s of game g holds player (s - g) mod players: the line-up moves one seat left each game"
        return "seat s holds player s in every game"

    def rows(self, games: int) -> dict[str, int]:
        r = {GAMES: games * self.players}
        if self.detail == "hands":
            r[HANDS] = games * self.players * self.hands
        return r


def default_shard_size(games: int) -> int:
    # About 8 shards for small jobs (both cores busy to the end; big shards keep the
    # kernel calls long), at most 1000 games (about 0.4 MB of Parquet) for big ones.
    return max(50, min(1000, -(-games // 8)))


def rules_from_dict(d: dict[str, Any]) -> Rules:
    """Rebuild the rules recorded in a manifest (``Rules.to_dict()``)."""
    data = {k: v for k, v in d.items() if k not in ("contracts", "blind_bonus")}
    data["contracts"] = [{"melds": c["melds"], "deal": c["deal"]} for c in d["contracts"]]
    bb = d.get("blind_bonus", "none")
    data["blind_bonus"] = bb
    r = overrides(preset("shanghai"), data, where="manifest rules")
    if r.to_dict() != d:
        raise RulesError("manifest rules could not be rebuilt exactly")
    return r


def plan(job: Job, engine: Engine | None = None) -> Plan:
    """Resolve ``job``: rules, players, bot line-up, shards. Raises JobError/RulesError/ValueError."""
    eng = engine or default_engine()
    if isinstance(job.rules, Rules):
        rules, spec = job.rules, job.rules.name
    else:
        rules, spec = load_rules(job.rules), job.rules
    from .bots import BotError, parse_bot, seat_specs
    players = job.players
    if players is None:
        players = len(job.bots) if len(job.bots) > 1 else rules.players
    try:
        bots = seat_specs(job.bots, players)
        for b in set(bots):
            parse_bot(b, rules.hands)        # a per-hand parameter past the rules' hands is an error
    except BotError as e:
        raise JobError(f"bots: {e}") from None
    rules = rules.with_players(players)      # validates the deal for this many players
    names = tuple(eng.bot_name(b) for b in bots)
    eng.parse_bots(list(names), players)     # the whole line-up must parse too
    location = job.out if _is_url(job.out) else os.path.abspath(job.out)
    shard_size = job.shard_size or default_shard_size(job.games)
    threads = job.threads or os.cpu_count() or 1
    return Plan(location, rules, spec, names, job.games, job.seed, job.rotate, job.detail,
                shard_size, threads, job.scheduler)


# ---------------------------------------------------------------- one shard

@dataclass(frozen=True)
class ShardResult:
    shard: int
    games: int
    seconds: float       # time to play and write it
    parts: dict = field(default_factory=dict)   # "games/part-00000.parquet" -> manifest record


def game_seeds(job_seed: int, start: int, stop: int) -> np.ndarray:
    """Seeds of games ``start..stop-1``: ``game_seed_nb(job_seed, g)``, uint64."""
    return np.fromiter((game_seed_nb(job_seed, g) for g in range(start, stop)),
                       dtype=np.uint64, count=stop - start)


def _codes(names: Iterable[str]) -> tuple[list[str], np.ndarray]:
    uniq: list[str] = []
    codes = []
    for n in names:
        if n not in uniq:
            uniq.append(n)
        codes.append(uniq.index(n))
    return uniq, np.array(codes, dtype=np.int64)


def play_shard(plan: Plan, shard: int, engine: Engine | None = None,
               stop: threading.Event | None = None,
               on_games: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play the games of ``shard``. Returns (games, seeds, player[n, players], hand_out)."""
    eng = engine or default_engine()
    ra = plan.rules.arrays()
    p, h = plan.players, plan.hands
    kind, params = eng.parse_bots(list(plan.lineup), p)
    start, end = plan.bounds(shard)
    n = end - start
    games = np.arange(start, end, dtype=np.int64)
    seeds = game_seeds(plan.seed, start, end)
    rot = games % p if plan.rotate else np.zeros(n, dtype=np.int64)
    # player[i, s]: the line-up index sitting in seat s of game i
    player = (np.arange(p)[None, :] - rot[:, None]) % p
    hand_out = np.zeros((n, h, p, NHF), dtype=np.int32)
    same_bots = len(set(plan.lineup)) == 1
    c0, size, t0 = 0, 16, time.perf_counter()
    while c0 < n:
        if stop is not None and stop.is_set():
            raise Interrupted
        c1 = min(n, c0 + size)
        if same_bots or not plan.rotate:
            # Seating does not change who plays what: one call on a contiguous slice.
            perm = player[c0] if not same_bots else np.arange(p)
            eng.play_games(*ra, np.ascontiguousarray(kind[perm]), np.ascontiguousarray(params[perm]),
                           seeds[c0:c1], hand_out[c0:c1])
        else:
            for r in np.unique(rot[c0:c1]):
                idx = c0 + np.flatnonzero(rot[c0:c1] == r)
                perm = player[idx[0]]
                buf = np.zeros((len(idx), h, p, NHF), dtype=np.int32)
                eng.play_games(*ra, np.ascontiguousarray(kind[perm]), np.ascontiguousarray(params[perm]),
                               np.ascontiguousarray(seeds[idx]), buf)
                hand_out[idx] = buf
        if on_games is not None:
            on_games(c1 - c0)
        c0 = c1
        # Calls of about CHUNK_SECONDS whatever the engine's speed. Call sizes never
        # change what a game is.
        rate = c0 / max(time.perf_counter() - t0, 1e-6)
        size = int(min(MAX_CHUNK, max(1, rate * CHUNK_SECONDS)))
    return games, seeds, player, hand_out


def run_shard(plan: Plan, shard: int, engine: Engine | None = None,
              stop: threading.Event | None = None,
              on_games: Callable[[int], None] | None = None) -> ShardResult:
    """Play shard ``shard`` and write its part files atomically (hands first, then games)."""
    t0 = time.perf_counter()
    games, seeds, player, hand_out = play_shard(plan, shard, engine, stop, on_games)
    bot_names, lineup_code = _codes(plan.lineup)
    bot_code = lineup_code[player]
    store = Store(plan.location)
    name = plan.part(shard)
    meta = plan.job_meta().encode()
    tables = {}
    if plan.detail == "hands":
        contract_names, contract_code = _codes(str(c) for c in plan.rules.contracts)
        tables[HANDS] = hands_table(hand_out, games, seeds, player, bot_code, bot_names,
                                    contract_code, contract_names)
    tables[GAMES] = games_table(hand_out, games, seeds, player, bot_code, bot_names)
    parts = {}
    for t, table in tables.items():
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), JOB_META: meta})
        parts[f"{t}/{name}"] = store.write_table(table, t, name)
    return ShardResult(shard, len(games), time.perf_counter() - t0, parts)


# ---------------------------------------------------------------- output folder

def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def read_manifest(store: Store) -> dict[str, Any]:
    try:
        m = json.loads(store.read_text(MANIFEST))
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise JobError(f"{store.location}/{MANIFEST} cannot be read as a shanghai-sim manifest ({e}); "
                       f"`shanghai-sim run --resume --out {store.location}` rebuilds it from the parts") from None
    if not isinstance(m, dict) or m.get("format") != "shanghai-sim dataset" or "job" not in m:
        raise JobError(f"{store.location}/{MANIFEST} is not a shanghai-sim manifest")
    return m


def _manifest_or_none(store: Store) -> dict[str, Any] | None:
    """The manifest, or None when it is missing or unreadable (``--resume`` rebuilds it)."""
    if not store.exists(MANIFEST):
        return None
    try:
        return read_manifest(store)
    except JobError:
        return None


def _part_names(store: Store, table: str) -> list[str]:
    return [n for n in store.listdir(table) if n.startswith("part-") and n.endswith(".parquet")]


def job_from_parts(store: Store, given: dict[str, Any]) -> dict[str, Any]:
    """Job options read back from the parts' ``shanghai_sim.job`` metadata, for a dataset
    whose manifest was deleted or damaged. The game count is ``given["games"]``, else
    inferred from the last part (the last shards may never have run: say --games)."""
    import pyarrow.parquet as pq
    for t in (GAMES, HANDS):
        for name in reversed(_part_names(store, t)):
            try:
                with store.open_input(t, name) as f:
                    pf = pq.ParquetFile(f)
                    meta = json.loads((pf.schema_arrow.metadata or {})[JOB_META])
                    rows = pf.metadata.num_rows
                    k = int(name[len("part-"):-len(".parquet")])
                    base = normalise({key: meta[key] for key in ("players", "bots", "seed", "rotate",
                                                                 "detail", "shard_size")}, "parts")
                    base["rules"] = rules_from_dict(meta["rules"])
            except Exception:          # a damaged part, or one without the metadata: try another
                continue
            per_game = base["players"] * (len(meta["rules"]["contracts"]) if t == HANDS else 1)
            base["games"] = k * base["shard_size"] + rows // per_game
            base.update(given)
            return base
    raise JobError(f"{store.location}: no {MANIFEST} and no readable part to rebuild it from; "
                   "give the job's options with --overwrite to start again")


def job_for_resume(out: str, given: dict[str, Any]) -> Job:
    """The job recorded in OUT's manifest (or, without one, in its parts), with ``given``
    options on top (checked later)."""
    store = Store(out if _is_url(out) else os.path.abspath(out))
    given = normalise(given, "options")
    names = store.listdir()
    m = _manifest_or_none(store) if MANIFEST in names else None
    if m is None:
        if not (set(names) & {HANDS, GAMES}):
            if MANIFEST in names:
                read_manifest(store)                 # raises its one-line reason
            return Job(**dict(given, out=out))
        base = job_from_parts(store, {k: v for k, v in given.items() if k in JOB_KEYS and k != "out"})
        return Job(**dict(base, out=out))
    base = normalise({k: m["job"][k] for k in IDENTITY_KEYS if k in m["job"]}, "manifest")
    try:
        base["rules"] = rules_from_dict(m["rules"])
    except (RulesError, KeyError, TypeError) as e:
        raise JobError(f"{store.location}/{MANIFEST}: its rules cannot be rebuilt ({e})") from None
    base.update(given)
    base["out"] = out
    return Job(**base)


def same_job(manifest: dict[str, Any], plan_: Plan) -> bool:
    """Would ``plan_`` write the rows recorded in ``manifest``? (The rules are
    compared resolved, so a preset and an identical rules file are one job.)"""
    old, new = manifest.get("job", {}), plan_.identity()
    return (all(old.get(k) == new[k] for k in IDENTITY_KEYS)
            and manifest.get("rules") == plan_.rules.to_dict())


def _differences(manifest: dict[str, Any], plan_: Plan) -> dict[str, tuple[Any, Any]]:
    """key -> (value in the dataset, value asked), for every key that differs."""
    old, new = manifest.get("job", {}), plan_.identity()
    out = {k: (old.get(k), new[k]) for k in IDENTITY_KEYS if old.get(k) != new[k]}
    if manifest.get("rules") != plan_.rules.to_dict():
        out["rules"] = (old.get("rules"), new["rules"])
    return out


def _fmt_value(k: str, v: Any) -> str:
    if k == "bots":
        return ",".join(v or [])
    if isinstance(v, int) and not isinstance(v, bool) and k in ("games", "shard_size"):
        return f"{v:,}"
    return str(v)


def _describe_difference(diffs: dict[str, tuple[Any, Any]]) -> str:
    """"games: 20,000 in the dataset, 30,000 asked; seed: 1 in the dataset, 2 asked"."""
    parts = []
    for k, (a, b) in diffs.items():
        if k == "rules" and a == b:
            parts.append(f"rules: the resolved rules differ (both called {a!r})")
        else:
            parts.append(f"{k}: {_fmt_value(k, a)} in the dataset, {_fmt_value(k, b)} asked")
    return "; ".join(parts)


@dataclass
class Prepared:
    """What ``_prepare`` found in the output location."""
    store: Store
    old: dict[str, Any] | None           # the manifest there (None: new, wiped or to rebuild)
    done: set[int]                       # shards whose parts passed the checks
    wipe: bool = False                   # --overwrite: delete the old dataset first
    records: dict[str, dict] = field(default_factory=dict)   # manifest records of those parts
    repairs: list[str] = field(default_factory=list)          # "games/part-00003.parquet: missing"
    extend_from: int | None = None       # the dataset's game count when extending the job
    rebuilt: bool = False                # the manifest was missing or unreadable


def check_shards(store: Store, plan: Plan, manifest: dict[str, Any] | None, full: bool = False,
                 quiet_shards: Iterable[int] = ()) -> tuple[set[int], dict[str, dict], list[str]]:
    """Which shards' parts are sound: (done, their records, damaged or missing parts).

    A finished shard's parts get the quick checks (the full ones with ``full``)
    against their manifest records; a part on disk that the manifest does not
    record (written after its last update, or before records existed) gets the
    full checks and is recorded as it is. ``quiet_shards`` are replayed without
    being reported (the last shard of a job being extended).
    """
    from .integrity import finished_list
    records = (manifest or {}).get("parts") or {}
    finished = set(finished_list(manifest)) if manifest else set()
    meta = plan.job_meta()
    listing = {t: set(_part_names(store, t)) for t in plan.tables}
    quiet = set(quiet_shards)
    done: set[int] = set()
    keep: dict[str, dict] = {}
    repairs: list[str] = []
    for k in range(plan.n_shards):
        name = plan.part(k)
        recs: dict[str, dict] = {}
        ok = True
        for t in plan.tables:
            rel = f"{t}/{name}"
            if name not in listing[t]:
                if k in finished and k not in quiet:
                    repairs.append(f"{rel}: missing")
                ok = False
                continue
            rec = records.get(rel) if k in finished else None
            problem, fresh = check_part(store, t, name, rec, plan.shard_rows(t, k), meta,
                                        full=full or rec is None)
            if problem is not None:
                if k not in quiet:
                    repairs.append(f"{rel}: {problem}")
                ok = False
            else:
                recs[rel] = rec if rec is not None else fresh
        if ok:
            done.add(k)
            keep.update(recs)
    return done, keep, repairs


LOCK = ".shanghai-sim.lock"


def _prepare(plan: Plan, resume: bool, overwrite: bool, full: bool = False,
             checks: bool = True) -> Prepared:
    """Check the output location; says what is there and what to do.

    Refuses (JobError) anything that would lose or mix data. Changes nothing
    but a write probe: the caller wipes (``--overwrite``) only when it starts.
    ``checks=False`` skips checking the parts (a first look before taking the lock).
    """
    store = Store(plan.location)
    where = plan.location
    if store.exists() and not store.is_dir():
        raise JobError(f"output {where!r} is a file, not a folder")
    names = [n for n in store.listdir() if not (n.startswith(".") and ".tmp-" in n) and n != LOCK]
    if not names:
        store.probe()
        return Prepared(store, None, set())
    foreign = sorted(set(names) - {MANIFEST, HANDS, GAMES, ".write-test"})
    if MANIFEST not in names and foreign:
        raise JobError(f"output {where!r} is not empty and holds no shanghai-sim dataset; "
                       "choose a new or empty folder")
    if overwrite:
        if foreign:
            raise JobError(f"output {where!r} also holds {foreign[0]!r}, which is not part of a "
                           "dataset; --overwrite only replaces a shanghai-sim dataset")
        store.probe()
        return Prepared(store, None, set(), wipe=True)
    old = _manifest_or_none(store) if MANIFEST in names else None
    if old is None:
        # parts without a (readable) manifest: --resume rebuilds it from the parts that check out
        if not resume:
            what = "no manifest.json (deleted?)" if MANIFEST not in names else "an unreadable manifest.json"
            raise JobError(f"output {where!r} holds parts but {what}; add --resume to check the parts "
                           "and rebuild it (the job is read from the parts), or --overwrite to start again")
        done, records, repairs = check_shards(store, plan, None, True) if checks else (set(), {}, [])
        store.probe()
        return Prepared(store, None, done, records=records, repairs=repairs, rebuilt=True)
    extend_from = None
    if not same_job(old, plan):
        diffs = _differences(old, plan)
        desc = _describe_difference(diffs)
        old_games, new_games = diffs.get("games", (None, None))
        if set(diffs) == {"games"} and new_games > old_games and resume:
            if max(5, len(str(plan.n_shards - 1))) != old.get("shards", {}).get("digits", plan.digits):
                raise JobError(f"output {where!r}: extending to {new_games:,} games would rename its part "
                               "files (more shards than their names hold); choose another --out")
            extend_from = old_games
        elif set(diffs) <= {"games", "shard_size"} and "games" in diffs and not resume:
            if new_games > old_games:
                raise JobError(f"output {where!r} holds this job with fewer games ({desc}): add --resume to "
                               f"extend it to {new_games:,} games (its {old_games:,} are kept: game g depends "
                               "only on the seed and g), or choose another --out, or --overwrite to start anew")
            raise JobError(f"output {where!r} holds this job with more games ({desc}): a job cannot shrink; "
                           f"read its first {new_games:,} games (game < {new_games}), or choose another --out, "
                           "or --overwrite to start anew")
        elif resume:
            hint = (" (a job cannot shrink)" if set(diffs) == {"games"} else "")
            raise JobError(f"output {where!r} holds a different job ({desc}){hint}: --resume finishes the job "
                           "recorded there, or extends it to more games; drop the differing options, "
                           "or choose another --out, or --overwrite to start anew")
        else:
            raise JobError(f"output {where!r} holds another job ({desc}); choose another --out, "
                           "or add --overwrite to replace it")
    if old.get("package_version") != __version__:
        raise JobError(f"output {where!r} was written by shanghai-sim {old.get('package_version')} "
                       f"(this is {__version__}); its rows may differ: use another --out or --overwrite")
    if not checks:
        return Prepared(store, old, set(), extend_from=extend_from)
    quiet: list[int] = []
    if extend_from is not None and extend_from % plan.shard_size:
        quiet = [extend_from // plan.shard_size]           # the old last shard grows
    done, records, repairs = check_shards(store, plan, old, full, quiet)
    foreign_parts = [r for r in repairs if r.endswith(FOREIGN)]
    if foreign_parts and not done:
        # Not damage: the manifest and the parts disagree on the job (a manifest edited
        # or copied by hand). Playing "again" would replace the parts with another job's.
        raise JobError(f"output {where!r}: its {MANIFEST} describes another job than its parts "
                       f"({foreign_parts[0].split(':')[0]} and {len(foreign_parts) - 1} more); restore the "
                       f"manifest, or delete it and `shanghai-sim run --resume --out {where}` rebuilds it "
                       "from the parts")
    if len(done) == plan.n_shards and extend_from is None:
        return Prepared(store, old, done, records=records)
    if not resume:
        damaged = f", {len(repairs)} part(s) missing or damaged" if repairs else ""
        raise JobError(f"output {where!r} holds an unfinished run of this job "
                       f"({len(done)}/{plan.n_shards} shards{damaged}); add --resume to finish it, "
                       "or --overwrite to start again")
    store.probe()
    return Prepared(store, old, done, records=records, repairs=repairs, extend_from=extend_from)


class OutputLock:
    """An exclusive ``flock`` on ``OUT/.shanghai-sim.lock`` while a run writes there.

    The kernel drops the lock when the process ends, however it ends (a crash or
    ``kill -9`` leaves nothing stuck, at most the unlocked file, which the next run
    takes). The file names its holder for the refusal message and is removed on
    release (while still locked; a run that opened it meanwhile finds its name gone
    and opens it again). Local folders only (and file:// URLs): object stores have
    no such lock (docs/dataset.md).
    """

    def __init__(self, store: Store):
        self.store, self.fd = store, None

    def acquire(self) -> "OutputLock":
        try:
            import fcntl
        except ImportError:                    # no flock on this platform: unprotected
            return self
        if not self.store.local:
            return self
        path = self.store.path(LOCK)
        for _ in range(20):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise JobError(f"output {self.store.location!r}: cannot create its lock file "
                               f"({e.strerror})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                try:
                    holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
                finally:
                    os.close(fd)
                raise JobError(f"output {self.store.location!r} is being written by another run "
                               f"({holder}); wait for it to end, or stop it, then run again") from None
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd, self.path = fd, path
                return self
            os.close(fd)                       # released and removed meanwhile: open it again
        raise JobError(f"output {self.store.location!r}: its lock file keeps changing; is another run starting?")

    def record_holder(self) -> None:
        if self.fd is not None:
            import socket
            text = f"pid {os.getpid()} on {socket.gethostname()}, since {_now()}\n".encode()
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, text, 0)

    def release(self) -> None:
        if self.fd is not None:
            import fcntl
            try:
                os.unlink(self.path)
            except OSError:
                pass
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None



# ---------------------------------------------------------------- progress

def _fmt_duration(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class Progress:
    """Games done, games per second and time left, on one stderr line."""

    def __init__(self, total: int, already: int, stream: TextIO | None, every: float | None = None):
        self.total, self.done, self.stream = total, already, stream
        self.start_done = already
        self.t0 = time.perf_counter()
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.every = every if every is not None else (0.5 if self.tty else 10.0)
        self.last = 0.0
        self.lock = threading.Lock()

    def add(self, n: int) -> None:
        with self.lock:
            self.done += n

    def line(self) -> str:
        el = time.perf_counter() - self.t0
        new = self.done - self.start_done
        rate = new / el if el > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (f"{self.done:,}/{self.total:,} games ({pct:.1f}%)  {rate:,.0f} games/s  "
                f"elapsed {_fmt_duration(el)}  left {_fmt_duration(left)}")

    def show(self, force: bool = False) -> None:
        if self.stream is None:
            return
        now = time.perf_counter()
        if not force and now - self.last < self.every:
            return
        self.last = now
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.stream is not None:
            self.show(force=True)
            if self.tty:
                self.stream.write("\n")
            self.stream.flush()


# ---------------------------------------------------------------- the run

@dataclass
class Tracker:
    """Shared state of a run: finished shards, progress, the manifest on disk."""
    plan: Plan
    store: Store
    manifest: dict[str, Any]
    done: set[int]
    progress: Progress
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    dirty: bool = False
    last_write: float = 0.0
    session_games: int = 0

    def add_games(self, n: int) -> None:
        self.progress.add(n)

    def shard_done(self, res: ShardResult, counted: bool = True) -> None:
        with self.lock:
            self.done.add(res.shard)
            self.manifest.setdefault("parts", {}).update(res.parts)
            self.session_games += res.games
            self.dirty = True
        if not counted:
            self.progress.add(res.games)

    def tick(self, force: bool = False) -> None:
        """Called from the main thread: progress line, and the manifest every second."""
        self.progress.show()
        now = time.perf_counter()
        if self.dirty and (force or now - self.last_write >= 1.0):
            self.write_manifest()

    def write_manifest(self, status: str | None = None) -> None:
        with self.lock:         # worker threads add shards and part records meanwhile
            done = sorted(self.done)
            parts = dict(sorted(self.manifest.get("parts", {}).items()))
            self.dirty = False
        m = self.manifest
        games_done = sum(self.plan.bounds(k)[1] - self.plan.bounds(k)[0] for k in done)
        m["shards"]["finished"] = _ranges(done)
        m["shards"]["pending"] = self.plan.n_shards - len(done)
        m["rows"] = self.plan.rows(games_done)
        m["games_done"] = games_done
        sess = m["sessions"][-1]
        sess["ended"] = _now()
        sess["games"] = self.session_games
        sess["seconds"] = round(time.perf_counter() - self.progress.t0, 3)
        total_s = sum(s.get("seconds", 0.0) for s in m["sessions"])
        m["timings"] = {"created": m["timings"]["created"], "updated": _now(),
                        "finished": _now() if len(done) == self.plan.n_shards else None,
                        "run_seconds": round(total_s, 3),
                        "games_per_second": round(games_done / total_s, 1) if total_s > 0 else None}
        if status is not None:
            m["status"] = sess["outcome"] = status
        self.store.write_json(dict(m, parts=parts), MANIFEST)
        self.last_write = time.perf_counter()


def _ranges(ks: list[int]) -> list[list[int]]:
    """Sorted shard numbers -> inclusive [first, last] runs: [0, 1, 2, 5] -> [[0, 2], [5, 5]]."""
    out: list[list[int]] = []
    for k in ks:
        if out and out[-1][1] == k - 1:
            out[-1][1] = k
        else:
            out.append([k, k])
    return out


def shard_list(ranges: list[list[int]]) -> list[int]:
    """The inverse of the manifest's ``shards.finished`` runs."""
    return [k for a, b in ranges for k in range(a, b + 1)]


def new_manifest(plan: Plan) -> dict[str, Any]:
    first = game_seeds(plan.seed, 0, min(plan.games, 3))
    return {
        "format": "shanghai-sim dataset",
        "schema_version": SCHEMA_VERSION,
        "package_version": __version__,
        "status": "running",
        "job": plan.identity(),
        "rules": plan.rules.to_dict(),
        "bots": {"lineup": list(plan.lineup), "seating": plan.seating()},
        "seeds": {"job_seed": plan.seed,
                  "game_seed": "shanghai_sim.kernels.rng.game_seed_nb(job_seed, game)",
                  "first_games": [int(s) for s in first]},
        "tables": list(plan.tables),
        "shards": {"count": plan.n_shards, "size": plan.shard_size, "digits": plan.digits,
                   "finished": [], "pending": plan.n_shards},
        "games_done": 0,
        "rows": plan.rows(0),
        "parts": {},
        "timings": {"created": _now()},
        "sessions": [],
    }


class LocalExecutor:
    """Runs shards on a pool of threads in this process (the kernel releases the GIL)."""

    def __init__(self, threads: int):
        self.threads = threads

    def __call__(self, plan: Plan, pending: list[int], engine: Engine | None, tracker: Tracker) -> None:
        queue = iter(pending)
        qlock = threading.Lock()

        def worker() -> None:
            while not tracker.stop.is_set():
                with qlock:
                    k = next(queue, None)
                if k is None:
                    return
                res = run_shard(plan, k, engine, tracker.stop, tracker.add_games)
                tracker.shard_done(res)

        n = max(1, min(self.threads, len(pending)))
        with ThreadPoolExecutor(n, thread_name_prefix="shanghai-shard") as ex:
            futs = [ex.submit(worker) for _ in range(n)]
            try:
                while True:
                    finished, running = wait(futs, timeout=0.25, return_when=FIRST_EXCEPTION)
                    tracker.tick()
                    if any(f.exception() is not None for f in finished) or not running:
                        break
            except BaseException:
                tracker.stop.set()
                wait(futs)
                raise
            tracker.stop.set()
            wait(futs)
            for f in futs:
                exc = f.exception()
                if exc is not None and not isinstance(exc, Interrupted):
                    raise exc


@dataclass(frozen=True)
class RunResult:
    location: str
    games: int              # games in the dataset
    played: int             # games played by this call
    seconds: float
    status: str             # "complete", or "already complete"
    manifest: dict[str, Any]
    repaired: tuple[str, ...] = ()   # parts found missing or damaged and played again


def run(plan_: Plan, *, resume: bool = False, overwrite: bool = False,
        progress: TextIO | None = sys.stderr, engine: Engine | None = None,
        executor: Callable | None = None, full_check: bool = False) -> RunResult:
    """Run ``plan_`` into its output location. Ctrl-C / SIGTERM stop after the current
    chunk and leave only whole shards (KeyboardInterrupt is re-raised).

    With ``resume``, the parts already there are checked (quick checks; every byte
    with ``full_check``) and every shard whose part is missing or damaged is played
    again. A second run into the same local folder is refused while this one holds
    it (``OutputLock``). A write that fails (a full disk) raises ``WriteError``: the
    part being written is not kept and the manifest never records it.
    """
    first = _prepare(plan_, resume, overwrite, full_check, checks=False)   # refuse early, lock-free
    lock = OutputLock(first.store).acquire()
    try:
        prep = _prepare(plan_, resume, overwrite, full_check)     # again, under the lock
        if prep.old is not None and len(prep.done) == plan_.n_shards and prep.extend_from is None:
            return RunResult(plan_.location, plan_.games, 0, 0.0, "already complete", prep.old)
        lock.record_holder()
        return _run_locked(plan_, prep, progress, engine, executor)
    finally:
        lock.release()


def _run_locked(plan_: Plan, prep: Prepared, progress: TextIO | None, engine: Engine | None,
                executor: Callable | None) -> RunResult:
    store, old, done = prep.store, prep.old, prep.done
    eng = engine or default_engine()
    _warm_up(plan_, eng, progress)          # compile errors surface before anything changes
    if prep.wipe:
        for part in (HANDS, GAMES, MANIFEST):
            store.delete(part)
    for t in plan_.tables:
        store.sweep_temporaries(t)
    if progress is not None:
        _say_repairs(prep, plan_, progress)
    manifest = old if old is not None else new_manifest(plan_)
    manifest["parts"] = dict(prep.records)        # parts of shards to play again are forgotten
    manifest["status"] = "running"
    session = {"started": _now(), "threads": plan_.threads, "scheduler": plan_.scheduler,
               "resumed_at_shards": len(done)}
    if prep.repairs:
        session["repaired_parts"] = [r.split(":", 1)[0] for r in prep.repairs]
    if prep.extend_from is not None:
        session["extended_from_games"] = prep.extend_from
        manifest["job"] = plan_.identity()
        manifest["shards"].update(count=plan_.n_shards, digits=plan_.digits)
    if prep.rebuilt:
        session["manifest_rebuilt"] = True
    manifest["sessions"].append(session)
    already = sum(plan_.bounds(k)[1] - plan_.bounds(k)[0] for k in done)
    prog = Progress(plan_.games, already, progress)
    tracker = Tracker(plan_, store, manifest, set(done), prog)
    for t in plan_.tables:
        store.makedirs(t)
    tracker.write_manifest()
    pending = [k for k in range(plan_.n_shards) if k not in done]
    execute = executor or LocalExecutor(plan_.threads)
    restore = _sigterm_as_interrupt()
    try:
        execute(plan_, pending, engine, tracker)
    except KeyboardInterrupt:
        _last_manifest(tracker, "interrupted")
        prog.close()
        raise
    except BaseException:
        _last_manifest(tracker, "failed")
        prog.close()
        raise
    finally:
        restore()
    if len(tracker.done) != plan_.n_shards:     # an executor that stopped early
        _last_manifest(tracker, "interrupted")
        prog.close()
        raise KeyboardInterrupt
    tracker.write_manifest("complete")
    prog.close()
    return RunResult(plan_.location, plan_.games, tracker.session_games,
                     time.perf_counter() - prog.t0, "complete", manifest, tuple(prep.repairs))


def _last_manifest(tracker: Tracker, status: str) -> None:
    """Record how the run ended, if the storage still takes it (a full disk may not:
    then the last manifest written stays, which records only whole, checked parts)."""
    try:
        tracker.write_manifest(status)
    except OSError:
        pass


def _say_repairs(prep: Prepared, plan_: Plan, stream: TextIO) -> None:
    loc = plan_.location.rstrip("/")
    if prep.rebuilt:
        stream.write(f"{loc}/{MANIFEST} was missing or unreadable: rebuilt from the {len(prep.done)} "
                     f"shard(s) whose parts check out ({plan_.games:,} games, seed {plan_.seed})\n")
    if prep.extend_from is not None:
        stream.write(f"extending the job from {prep.extend_from:,} to {plan_.games:,} games "
                     "(the games already played are kept: game g depends only on the seed and g)\n")
    for line in prep.repairs[:10]:
        stream.write(f"playing again: {loc}/{line}\n")
    if len(prep.repairs) > 10:
        stream.write(f"... and {len(prep.repairs) - 10} more damaged or missing parts\n")
    stream.flush()


def _warm_up(plan_: Plan, eng: Engine, stream: TextIO | None) -> None:
    """Compile (or load from the kernel cache) the kernel once, before the threads start.

    A compile says so on stderr with its elapsed time (``kernels.cache``), unless
    progress is off (``stream`` None, ``run --quiet``)."""
    from .kernels.cache import compile_notice_muted
    with compile_notice_muted(stream is None):
        ra = plan_.rules.arrays()
        kind, params = eng.parse_bots(list(plan_.lineup), plan_.players)
        eng.play_games(*ra, kind, params, np.zeros(0, dtype=np.uint64),
                       np.zeros((0, plan_.hands, plan_.players, NHF), dtype=np.int32))


def _sigterm_as_interrupt() -> Callable[[], None]:
    """Treat SIGTERM like Ctrl-C while a run is going (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum, frame):
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, old)
