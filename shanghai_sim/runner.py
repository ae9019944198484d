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
from .dataset import GAMES, HANDS, MANIFEST, SCHEMA_VERSION, DatasetError, Store, games_table, \
    hands_table, part_name
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
    if plan.detail == "hands":
        contract_names, contract_code = _codes(str(c) for c in plan.rules.contracts)
        store.write_table(hands_table(hand_out, games, seeds, player, bot_code, bot_names,
                                      contract_code, contract_names), HANDS, name)
    store.write_table(games_table(hand_out, games, seeds, player, bot_code, bot_names), GAMES, name)
    return ShardResult(shard, len(games), time.perf_counter() - t0)


# ---------------------------------------------------------------- output folder

def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def read_manifest(store: Store) -> dict[str, Any]:
    try:
        m = json.loads(store.read_text(MANIFEST))
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise JobError(f"{store.location}/{MANIFEST} cannot be read as a shanghai-sim manifest ({e})") from None
    if not isinstance(m, dict) or m.get("format") != "shanghai-sim dataset" or "job" not in m:
        raise JobError(f"{store.location}/{MANIFEST} is not a shanghai-sim manifest")
    return m


def finished_shards(store: Store, plan: Plan) -> set[int]:
    """Shards whose part files are all in place (a rename only ever lands a whole file)."""
    have = None
    for t in plan.tables:
        names = set(store.listdir(t))
        ks = {k for k in range(plan.n_shards) if plan.part(k) in names}
        have = ks if have is None else have & ks
    return have or set()


def job_for_resume(out: str, given: dict[str, Any]) -> Job:
    """The job recorded in OUT's manifest, with ``given`` options on top (checked later)."""
    store = Store(out if _is_url(out) else os.path.abspath(out))
    if MANIFEST not in store.listdir():
        return Job(**dict(normalise(given, "options"), out=out))
    m = read_manifest(store)
    base = normalise({k: m["job"][k] for k in IDENTITY_KEYS if k in m["job"]}, "manifest")
    try:
        base["rules"] = rules_from_dict(m["rules"])
    except (RulesError, KeyError, TypeError) as e:
        raise JobError(f"{store.location}/{MANIFEST}: its rules cannot be rebuilt ({e})") from None
    base.update(normalise(given, "options"))
    base["out"] = out
    return Job(**base)


def same_job(manifest: dict[str, Any], plan_: Plan) -> bool:
    """Would ``plan_`` write the rows recorded in ``manifest``? (The rules are
    compared resolved, so a preset and an identical rules file are one job.)"""
    old, new = manifest.get("job", {}), plan_.identity()
    return (all(old.get(k) == new[k] for k in IDENTITY_KEYS)
            and manifest.get("rules") == plan_.rules.to_dict())


def _describe_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    for k in IDENTITY_KEYS:
        if old.get(k) != new.get(k):
            a, b = old.get(k), new.get(k)
            if k == "bots":
                a, b = ",".join(a or []), ",".join(b or [])
            return f"{k} {b} here, {a} there"
    return "rules differ"


def _prepare(plan: Plan, resume: bool, overwrite: bool) -> tuple[Store, dict[str, Any] | None, set[int], bool]:
    """Check the output location; returns (store, old manifest or None, shards already
    done, whether to wipe the old dataset first).

    Refuses (JobError) anything that would lose or mix data. Changes nothing
    but a write probe: the caller wipes (``--overwrite``) only when it starts.
    """
    store = Store(plan.location)
    where = plan.location
    if store.exists() and not store.is_dir():
        raise JobError(f"output {where!r} is a file, not a folder")
    names = [n for n in store.listdir() if not (n.startswith(".") and ".tmp-" in n)]
    if not names:
        store.probe()
        return store, None, set(), False
    if MANIFEST not in names:
        raise JobError(f"output {where!r} is not empty and holds no shanghai-sim dataset; "
                       "choose a new or empty folder")
    old = read_manifest(store)
    foreign = sorted(set(names) - {MANIFEST, HANDS, GAMES, ".write-test"})
    same = same_job(old, plan)
    if overwrite:
        if foreign:
            raise JobError(f"output {where!r} also holds {foreign[0]!r}, which is not part of a "
                           "dataset; --overwrite only replaces a shanghai-sim dataset")
        store.probe()
        return store, None, set(), True
    if not same:
        diff = _describe_difference(old["job"], plan.identity())
        raise JobError(f"output {where!r} holds another job ({diff}); choose another --out, "
                       "or add --overwrite to replace it")
    if old.get("package_version") != __version__:
        raise JobError(f"output {where!r} was written by shanghai-sim {old.get('package_version')} "
                       f"(this is {__version__}); its rows may differ: use another --out or --overwrite")
    done = finished_shards(store, plan)
    if len(done) == plan.n_shards:
        return store, old, done, False
    if not resume:
        raise JobError(f"output {where!r} holds an unfinished run of this job "
                       f"({len(done)}/{plan.n_shards} shards); add --resume to finish it, "
                       "or --overwrite to start again")
    store.probe()
    return store, old, done, False


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
        with self.lock:
            done = sorted(self.done)
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
        self.store.write_json(m, MANIFEST)
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


def run(plan_: Plan, *, resume: bool = False, overwrite: bool = False,
        progress: TextIO | None = sys.stderr, engine: Engine | None = None,
        executor: Callable | None = None) -> RunResult:
    """Run ``plan_`` into its output location. Ctrl-C / SIGTERM stop after the current
    chunk and leave only whole shards (KeyboardInterrupt is re-raised)."""
    store, old, done, wipe = _prepare(plan_, resume, overwrite)
    if old is not None and len(done) == plan_.n_shards:
        return RunResult(plan_.location, plan_.games, 0, 0.0, "already complete", old)
    eng = engine or default_engine()
    _warm_up(plan_, eng, progress)          # compile errors surface before anything changes
    if wipe:
        for part in (HANDS, GAMES, MANIFEST):
            store.delete(part)
    for t in plan_.tables:
        store.sweep_temporaries(t)
    manifest = old if old is not None else new_manifest(plan_)
    manifest["status"] = "running"
    manifest["sessions"].append({"started": _now(), "threads": plan_.threads,
                                 "scheduler": plan_.scheduler, "resumed_at_shards": len(done)})
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
        tracker.write_manifest("interrupted")
        prog.close()
        raise
    except BaseException:
        tracker.write_manifest("failed")
        prog.close()
        raise
    finally:
        restore()
    if len(tracker.done) != plan_.n_shards:     # an executor that stopped early
        tracker.write_manifest("interrupted")
        prog.close()
        raise KeyboardInterrupt
    tracker.write_manifest("complete")
    prog.close()
    return RunResult(plan_.location, plan_.games, tracker.session_games,
                     time.perf_counter() - prog.t0, "complete", manifest)


def _warm_up(plan_: Plan, eng: Engine, stream: TextIO | None) -> None:
    """Compile (or load from numba's cache) the kernel once, before the threads start."""
    note = None
    if stream is not None:
        note = threading.Timer(1.5, lambda: (stream.write("compiling the game engine "
                                                          "(once; cached afterwards)...\n"),
                                             stream.flush()))
        note.daemon = True
        note.start()
    try:
        ra = plan_.rules.arrays()
        kind, params = eng.parse_bots(list(plan_.lineup), plan_.players)
        eng.play_games(*ra, kind, params, np.zeros(0, dtype=np.uint64),
                       np.zeros((0, plan_.hands, plan_.players, NHF), dtype=np.int32))
    finally:
        if note is not None:
            note.cancel()


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
