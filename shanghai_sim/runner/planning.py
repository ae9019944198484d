"""Plans: a job resolved into rules, line-up, seatings, seeds and shards; the engine hooks."""

from __future__ import annotations

import functools
import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..dataset import GAMES, HANDS, POSITIONS, job_tables, part_name
from ..integrity import job_meta
from ..kernels.base.rng import game_seed_nb
from ..rules import Rules, load_rules
from .job import Job, JobError, _is_url

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
    from ..bots import parse_bot
    return parse_bot(spec).name


def default_engine() -> Engine:
    from ..bots import parse_bots
    return Engine(play_games_warm, parse_bots, _bot_name)


# The engine's state tuples kept per thread, one per rules (the meld memo in them belongs to
# one rules and one thread), the least recently used dropped past WARM_STATES.
_WARM = threading.local()
WARM_STATES = 2


def play_games_warm(*args, positions=None) -> None:
    """``kernels.games.batch.play_games_nb``'s arguments and results, on a state kept per thread
    and per rules, so the meld memo stays warm from one shard call to the next (a
    tournament's seatings are many small calls). Answers never depend on the memo.

    ``positions`` (a ``runner.positions.ShardPositions``): record sampled decision positions
    into it as well, on the thread's recorder buffers (doubled when one game's positions do
    not fit, that game then played again: a game is a pure function of its seed)."""
    from ..kernels.games.dispatch import needs_workspace, smart_flag
    from ..kernels.games.batch import play_games_on_nb
    from ..kernels.base.layout import RulesArrays, new_state, new_workspace
    *ra, kind, params, seeds, out = args
    R = RulesArrays(*ra)
    key = (R.params,) + tuple((a.dtype.str, a.shape, a.tobytes()) for a in R if isinstance(a, np.ndarray))
    states = getattr(_WARM, "d", None)
    if states is None:
        states = _WARM.d = OrderedDict()
    GW = states.pop(key, None)
    if GW is None:
        GW = [new_state(R, 0), None]      # the search bots' scratch, once a line-up needs it
        while len(states) >= WARM_STATES:
            states.popitem(last=False)
    states[key] = GW
    W = None          # no search bot: the engine compiled without the search kernels
    if needs_workspace(kind):
        if GW[1] is None:
            GW[1] = new_workspace(R)
        W = GW[1]
    PO = None
    if positions is not None:
        from .positions import new_buffers
        PO = getattr(_WARM, "po", None)
        if PO is None or PO.rate != positions.rate:
            PO = _WARM.po = new_buffers(positions.rate)
        PO.ctl[:] = 0
    start = 0
    while True:
        rc = play_games_on_nb(R, GW[0], W, smart_flag(kind), PO, kind, params, seeds[start:], out[start:])
        if PO is not None:
            positions.take(PO, start)
        if rc == -1:
            return
        if rc >= 0:
            raise RuntimeError("engine: a bot chose an illegal action (run the replay of this seed)")
        done = -2 - rc               # games played before the one whose positions did not fit
        if done == 0:
            PO = _WARM.po = new_buffers(positions.rate, 2 * PO.ints.shape[0])
        start += done


# A tournament plays at most this many seatings of a deal; past it, the rotations (docs/tournament.md).
MAX_TOURNAMENT_SEATINGS = 24


def rotations(players: int) -> np.ndarray:
    """The ``players`` rotations as a seating table: row r, seat s holds player (s - r) mod players."""
    s = np.arange(players)
    return ((s[None, :] - s[:, None]) % players).astype(np.int64)


def distinct_seatings_count(lineup: "tuple[str, ...] | list[str]") -> int:
    """Distinct seatings of a line-up's multiset of specs: players! / prod(copies!)."""
    n = math.factorial(len(lineup))
    for spec in set(lineup):
        n //= math.factorial(list(lineup).count(spec))
    return n


@functools.lru_cache(maxsize=64)
def _tournament_seatings(lineup: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    import itertools
    p = len(lineup)
    if distinct_seatings_count(lineup) > MAX_TOURNAMENT_SEATINGS:
        return tuple(tuple(int(x) for x in row) for row in rotations(p))
    seen, rows = set(), []
    # Permutations in lexicographic order; the first one of each arrangement of specs seats
    # the copies of a spec in line-up order, and the identity (the line-up as given) comes first.
    for perm in itertools.permutations(range(p)):
        key = tuple(lineup[i] for i in perm)
        if key not in seen:
            seen.add(key)
            rows.append(perm)
    return tuple(rows)


def tournament_seatings(lineup: "tuple[str, ...] | list[str]") -> np.ndarray:
    """A tournament's seating table ``[k, players]`` (line-up index in each seat): every distinct
    seating of the line-up's specs (4 for a,b,b,b; 12 for a,a,b,c; 24 for four distinct bots),
    the line-up as given first; when there would be more than ``MAX_TOURNAMENT_SEATINGS``,
    the ``players`` rotations instead."""
    return np.array(_tournament_seatings(tuple(lineup)), dtype=np.int64)


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
    seating: str = "rotate"
    positions: float | None = None  # the share of decisions recorded in positions/ (None: no table)

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
        return job_tables(self.detail, self.positions)

    def bounds(self, shard: int) -> tuple[int, int]:
        start = shard * self.shard_size
        return start, min(self.games, start + self.shard_size)

    def part(self, shard: int) -> str:
        return part_name(shard, self.digits)

    @property
    def duplicate(self) -> bool:
        return self.seating == "duplicate"

    @property
    def paired(self) -> bool:
        """Is each seed played once in each of several seatings (``seatings()``)?"""
        return self.seating in ("duplicate", "tournament")

    @property
    def rotating(self) -> bool:
        """Does the line-up change seats between games?"""
        return self.rotate or self.paired

    def seatings(self) -> np.ndarray:
        """The seating table ``[k, players]``: the line-up index in each seat of each of the
        ``k`` seatings the job cycles through (game g sits in seating ``g % k``). A plain job
        rotating one seat per game has the ``players`` rotations; a fixed one, one row."""
        p = self.players
        if self.seating == "tournament":
            return tournament_seatings(self.lineup)
        if self.rotating:
            return rotations(p)
        return np.arange(p, dtype=np.int64)[None, :]

    @property
    def games_per_deal(self) -> int:
        """Games played from one seed: the seatings of a paired job, else 1."""
        return len(self.seatings()) if self.paired else 1

    def identity(self) -> dict[str, Any]:
        """The manifest's ``job`` section: equal identities write equal rows. ``seating``
        appears only when it is not the default, so datasets written before it existed
        keep their identity (and resume)."""
        d = {"rules": self.rules_spec, "players": self.players, "bots": list(self.lineup),
             "games": self.games, "seed": self.seed, "rotate": self.rotate,
             "detail": self.detail, "shard_size": self.shard_size}
        if self.seating != "rotate":
            d["seating"] = self.seating
        if self.positions is not None:      # likewise: datasets without positions keep theirs
            d["positions"] = self.positions
        return d

    def seeds(self, start: int, stop: int) -> np.ndarray:
        """Seeds of games ``start..stop-1`` (``game_seeds``; a paired job repeats each seed
        once per seating)."""
        if not self.paired:
            return game_seeds(self.seed, start, stop)
        if stop <= start:
            return np.zeros(0, np.uint64)
        g = np.arange(start, stop) // self.games_per_deal
        uniq = game_seeds(self.seed, int(g[0]), int(g[-1]) + 1)
        return uniq[g - g[0]]

    def seating_index(self, games: np.ndarray) -> np.ndarray:
        """The row of ``seatings()`` each of ``games`` is played in."""
        return np.asarray(games, dtype=np.int64) % len(self.seatings())

    def rotation(self, games: np.ndarray) -> np.ndarray:
        """Seats the line-up is rotated by in each of ``games`` (rotating seatings only)."""
        if self.seating == "tournament":
            raise ValueError("a tournament's seatings are not all rotations: use seatings()[seating_index(g)]")
        if self.rotating:
            return np.asarray(games, dtype=np.int64) % self.players
        return np.zeros(len(games), dtype=np.int64)

    def job_meta(self, table: str = GAMES) -> str:
        """What every part of ``table`` of this job carries in its ``shanghai_sim.job`` metadata."""
        return job_meta(self.identity(), self.rules.to_dict(), table)

    def shard_rows(self, table: str, shard: int) -> int | None:
        """The rows shard ``shard``'s part of ``table`` holds (None for positions/: a draw)."""
        if table == POSITIONS:
            return None
        a, b = self.bounds(shard)
        return self.rows(b - a)[table]

    def seating_text(self) -> str:
        if self.seating == "tournament":
            k, p = len(self.seatings()), self.players
            scheme = (f"every distinct seating of the line-up's specs ({k})"
                      if distinct_seatings_count(self.lineup) <= MAX_TOURNAMENT_SEATINGS else
                      f"the {p} rotations (its {distinct_seatings_count(self.lineup):,} distinct seatings "
                      f"would exceed {MAX_TOURNAMENT_SEATINGS})")
            return (f"tournament: game g plays seed game_seed(job_seed, g // {k}) in seating g % {k} of "
                    f"bots.seatings (seat s holds player seatings[g % {k}][s]): each seed once in {scheme}")
        if self.duplicate:
            return ("duplicate: game g plays seed game_seed(job_seed, g // players) and seat s holds "
                    "player (s - g) mod players, so each seed is played once with the line-up in each rotation")
        if self.rotate:
            return "seat s of game g holds player (s - g) mod players: the line-up moves one seat left each game"
        return "seat s holds player s in every game"

    def rows(self, games: int, parts: dict[str, dict] | None = None) -> dict[str, int]:
        """The rows of each table once ``games`` games are written; positions/ counts the
        rows its ``parts`` (manifest records) hold."""
        r = {GAMES: games * self.players}
        if self.detail == "hands":
            r[HANDS] = games * self.players * self.hands
        if self.positions is not None:
            r[POSITIONS] = sum(rec["rows"] for rel, rec in (parts or {}).items()
                               if rel.startswith(POSITIONS + "/"))
        return r


def default_shard_size(games: int) -> int:
    # About 8 shards for small jobs (both cores busy to the end; big shards keep the
    # kernel calls long), at most 1000 games (about 0.4 MB of Parquet) for big ones.
    return max(50, min(1000, -(-games // 8)))


def plan(job: Job, engine: Engine | None = None) -> Plan:
    """Resolve ``job``: rules, players, bot line-up, shards. Raises JobError/RulesError/ValueError."""
    from ..kernels.base.records import NHF
    from ..limits import MAX_GAMES, check_count, check_memory, check_seed, check_threads, job_bytes
    check_seed(job.seed)
    check_threads(job.threads)
    check_count("games", job.games, 1, MAX_GAMES, "the dataset numbers games in 32 bits")
    if job.shard_size is not None:
        check_count("shard_size", job.shard_size, 1, 10_000_000)
    eng = engine or default_engine()
    if isinstance(job.rules, Rules):
        rules, spec = job.rules, job.rules.name
    else:
        # a rules file is checked at the count to be played, where the job says it
        at = job.players or (len(job.bots) if len(job.bots) > 1 else None)
        rules, spec = load_rules(job.rules, players=at), job.rules
    from ..bots import BotError, parse_bot, refuse_diagnostics, seat_specs
    players = job.players
    if players is None:
        players = len(job.bots) if len(job.bots) > 1 else rules.players
    try:
        bots = seat_specs(job.bots, players)
        for b in set(bots):
            parse_bot(b, rules.hands)        # a per-hand parameter past the rules' hands is an error
        refuse_diagnostics(bots, job.diagnostic)     # a bot that cheats only when asked for
    except BotError as e:
        raise JobError(f"bots: {e}") from None
    rules = rules.with_players(players)      # validates the deal for this many players
    names = tuple(eng.bot_name(b) for b in bots)
    eng.parse_bots(list(names), players)     # the whole line-up must parse too
    if job.seating == "duplicate" and job.games % players:
        raise JobError(f"games = {job.games}: a duplicate job plays each seed once per seat, so its games "
                       f"must be a multiple of the {players} players")
    if job.seating == "tournament":
        k = len(tournament_seatings(names))
        if job.games % k:
            raise JobError(f"games = {job.games}: a tournament plays each seed once in each of its {k} "
                           f"seatings, so its games must be a multiple of {k}")
    location = job.out if _is_url(job.out) else os.path.abspath(job.out)
    shard_size = job.shard_size or default_shard_size(job.games)
    threads = job.threads or os.cpu_count() or 1
    check_memory(f"games = {job.games:,} in shards of {shard_size:,}",
                 job_bytes(games=job.games, shard_size=shard_size, players=players, hands=rules.hands,
                           threads=threads, nhf=NHF, positions=job.positions or 0.0))
    return Plan(location, rules, spec, names, job.games, job.seed, job.rotate, job.detail,
                shard_size, threads, job.scheduler, job.seating, job.positions)


def game_seeds(job_seed: int, start: int, stop: int) -> np.ndarray:
    """Seeds of games ``start..stop-1``: ``game_seed_nb(job_seed, g)``, uint64."""
    return np.fromiter((game_seed_nb(job_seed, g) for g in range(start, stop)),
                       dtype=np.uint64, count=stop - start)
