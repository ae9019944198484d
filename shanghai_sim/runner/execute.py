"""Execution: playing and writing shards, the run on threads or another executor, signals."""

from __future__ import annotations

import signal
import sys
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, TextIO

import numpy as np

from ..dataset import GAMES, HANDS, MANIFEST, POSITIONS, TABLES, Store, games_table, hands_table, positions_table
from ..integrity import JOB_META
from ..kernels.base.records import NHF
from .job import JobError
from .manifest import OutputLock, Prepared, _now, _prepare, _ranges, new_manifest, quarantine
from .planning import Engine, Plan, default_engine
from .positions import ShardPositions
from .progress import Progress

# Target time of one kernel call: shorter ones give finer progress and a prompter Ctrl-C.
# The meld memo stays warm across calls (planning.play_games_warm keeps a state per thread).
CHUNK_SECONDS = 5.0
MAX_CHUNK = 1000


class Interrupted(Exception):
    """Raised inside a shard when the run is being stopped; the shard is not written."""


class RunStopped(RuntimeError):
    """The run cannot go on for a reason outside its input (a cluster with no live worker):
    one line saying why. The manifest records the whole parts written so far and is
    marked ``failed``; ``run --resume`` finishes the job."""

# ---------------------------------------------------------------- one shard

@dataclass(frozen=True)
class ShardResult:
    shard: int
    games: int
    seconds: float       # time to play and write it
    parts: dict = field(default_factory=dict)   # "games/part-00000.parquet" -> manifest record


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
               on_games: Callable[[int], None] | None = None,
               positions: "ShardPositions | None" = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play the games of ``shard``. Returns (games, seeds, player[n, players], hand_out).
    ``positions``: record the shard's sampled positions into it as well (``plan.positions``)."""
    eng = engine or default_engine()
    ra = plan.rules.arrays()
    p, h = plan.players, plan.hands
    kind, params = eng.parse_bots(list(plan.lineup), p)
    start, end = plan.bounds(shard)
    n = end - start
    games = np.arange(start, end, dtype=np.int64)
    seeds = plan.seeds(start, end)
    table = plan.seatings()
    rot = plan.seating_index(games)
    # player[i, s]: the line-up index sitting in seat s of game i
    player = table[rot]
    hand_out = np.zeros((n, h, p, NHF), dtype=np.int32)
    same_bots = len(set(plan.lineup)) == 1
    c0, size, t0 = 0, 1, time.perf_counter()      # one game first: a slow rules job is stoppable at once
    while c0 < n:
        if stop is not None and stop.is_set():
            raise Interrupted
        c1 = min(n, c0 + size)
        if same_bots or len(table) == 1:
            # Seating does not change who plays what: one call on a contiguous slice.
            perm = player[c0] if not same_bots else np.arange(p)
            if positions is not None:
                positions.games = np.arange(c0, c1)
            eng.play_games(*ra, np.ascontiguousarray(kind[perm]), np.ascontiguousarray(params[perm]),
                           seeds[c0:c1], hand_out[c0:c1], **_recording(positions))
        else:
            for r in np.unique(rot[c0:c1]):
                idx = c0 + np.flatnonzero(rot[c0:c1] == r)
                perm = player[idx[0]]
                buf = np.zeros((len(idx), h, p, NHF), dtype=np.int32)
                if positions is not None:
                    positions.games = idx
                eng.play_games(*ra, np.ascontiguousarray(kind[perm]), np.ascontiguousarray(params[perm]),
                               np.ascontiguousarray(seeds[idx]), buf, **_recording(positions))
                hand_out[idx] = buf
        if on_games is not None:
            on_games(c1 - c0)
        c0 = c1
        # Calls of about CHUNK_SECONDS whatever the engine's speed. Call sizes never
        # change what a game is.
        rate = c0 / max(time.perf_counter() - t0, 1e-6)
        size = int(min(MAX_CHUNK, max(1, rate * CHUNK_SECONDS)))
    return games, seeds, player, hand_out


def _recording(positions: "ShardPositions | None") -> dict:
    """The engine's keyword for recording positions (none without: an engine of a test, or
    a peer's, need not take it)."""
    return {} if positions is None else {"positions": positions}


def run_shard(plan: Plan, shard: int, engine: Engine | None = None,
              stop: threading.Event | None = None,
              on_games: Callable[[int], None] | None = None) -> ShardResult:
    """Play shard ``shard`` and write its part files atomically (hands first, then games)."""
    t0 = time.perf_counter()
    positions = ShardPositions(plan.positions) if plan.positions is not None else None
    games, seeds, player, hand_out = play_shard(plan, shard, engine, stop, on_games, positions)
    bot_names, lineup_code = _codes(plan.lineup)
    bot_code = lineup_code[player]
    store = Store(plan.location)
    name = plan.part(shard)
    tables = {}
    if plan.detail == "hands":
        contract_names, contract_code = _codes(str(c) for c in plan.rules.contracts)
        tables[HANDS] = hands_table(hand_out, games, seeds, player, bot_code, bot_names,
                                    contract_code, contract_names)
    tables[GAMES] = games_table(hand_out, games, seeds, player, bot_code, bot_names)
    if positions is not None:
        tables[POSITIONS] = positions_table(*positions.arrays(), hand_out, games, seeds, player, bot_code,
                                            bot_names)
    parts = {}
    for t, table in tables.items():
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), JOB_META: plan.job_meta(t).encode()})
        parts[f"{t}/{name}"] = store.write_table(table, t, name)
    return ShardResult(shard, len(games), time.perf_counter() - t0, parts)


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
        m["rows"] = self.plan.rows(games_done, parts)
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
    moved: tuple[tuple[str, str], ...] = ()   # (from, to): files not the job's, moved to quarantine/


def run(plan_: Plan, *, resume: bool = False, overwrite: bool = False,
        progress: TextIO | None = sys.stderr, engine: Engine | None = None,
        executor: Callable | None = None, quick: bool = False, full_check: bool = True,
        force: bool = False) -> RunResult:
    """Run ``plan_`` into its output location. Ctrl-C / SIGTERM stop after the current
    chunk and leave only whole shards (KeyboardInterrupt is re-raised).

    With ``resume``, the parts already there are checked against the manifest
    (every byte: SHA-256; sizes, footers and rows only with ``quick``;
    ``full_check`` is the default, kept for callers that ask for it), every
    shard whose part is missing or damaged is played again, and files in
    ``hands/``/``games/`` that are not the job's are moved to ``quarantine/``.
    The job is complete when its manifest says so: a run stopped after its last
    part but before its manifest is finished by ``resume``, which records the
    parts on disk and writes the manifest. A second run into the same local
    folder is refused while this one holds it (``OutputLock``). A write that
    fails (a full disk) raises ``WriteError``: the part being written is not
    kept and the manifest never records it.

    Before anything is written, the dataset's estimated size (``limits.dataset_bytes``,
    less the parts already there) is compared with the space free on a local output's disk:
    a job that would not fit is refused (JobError) unless ``force``. Remote and Dask outputs
    get a note on ``progress`` instead (their space cannot be told from here).
    """
    full = not quick
    _check_disk(plan_, progress, force)
    first = _prepare(plan_, resume, overwrite, full, checks=False)   # refuse early, lock-free
    _check_disk(plan_, progress, force, remote=True)                  # the location answered
    lock = OutputLock(first.store).acquire()
    try:
        prep = _prepare(plan_, resume, overwrite, full)     # again, under the lock
        if prep.finished_as_recorded:
            for where in ((), *((t,) for t in plan_.tables)):    # a killed writer's temporaries
                prep.store.sweep_temporaries(*where)
            return RunResult(plan_.location, plan_.games, 0, 0.0, "already complete", prep.old)
        lock.record_holder()
        return _run_locked(plan_, prep, progress, engine, executor)
    finally:
        lock.release()


def _run_locked(plan_: Plan, prep: Prepared, progress: TextIO | None, engine: Engine | None,
                executor: Callable | None) -> RunResult:
    """The run, under the output's lock. The job's manifest is its first write (before the
    kernels are compiled or loaded, before any folder of parts or any removal): a run stopped
    at any moment leaves either nothing but an empty folder (the same command starts the job)
    or the manifest of the job asked (``run --resume --out OUT`` finishes it)."""
    store, old, done = prep.store, prep.old, prep.done
    pending = [k for k in range(plan_.n_shards) if k not in done]
    manifest = new_manifest(plan_)
    if old is not None:
        # the job is this plan's (checked): what follows from it is written afresh, the
        # history (creation, sessions) kept
        manifest = dict(old, **{k: manifest[k] for k in ("format", "bots", "seeds", "tables")})
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
    tracker = Tracker(plan_, store, manifest, set(done), Progress(plan_.games, already, None))
    tracker.write_manifest()                     # the job's identity, first
    restore = _sigterm_as_interrupt()            # from here on SIGTERM stops the run as Ctrl-C does
    try:
        prog, moved = _set_up(plan_, prep, engine, progress, tracker, session, pending, already)
    except KeyboardInterrupt:
        restore()
        _last_manifest(tracker, "interrupted")
        raise
    except BaseException:
        restore()
        _last_manifest(tracker, "failed")
        raise
    execute = executor or LocalExecutor(plan_.threads)
    try:
        if pending:
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
                     time.perf_counter() - prog.t0, "complete", manifest, tuple(prep.repairs), tuple(moved))


def _set_up(plan_: Plan, prep: Prepared, engine: Engine | None, progress: TextIO | None, tracker: Tracker,
            session: dict[str, Any], pending: list[int], already: int
            ) -> tuple[Progress, list[tuple[str, str]]]:
    """After the first manifest: the kernels (compile errors surface before any part is
    removed), the old dataset's parts of --overwrite, leftover temporaries, strays to
    quarantine, the table folders and the manifest again. Returns the run's progress and the
    files moved to quarantine."""
    store = prep.store
    if pending:
        _warm_up(plan_, engine or default_engine(), progress)
    if prep.wipe:
        for part in TABLES:                  # the old dataset's parts (its manifest is replaced)
            store.delete(part)
    store.sweep_temporaries()
    for t in plan_.tables:
        store.sweep_temporaries(t)
    moved = quarantine(store, prep.strays)
    if progress is not None:
        _say_repairs(prep, plan_, progress, moved)
    if moved:
        session["quarantined"] = [a for a, _ in moved]
    prog = Progress(plan_.games, already, progress if pending else None)   # nothing to show otherwise
    tracker.progress = prog
    for t in plan_.tables:
        store.makedirs(t)
    tracker.write_manifest()
    return prog, moved


def _check_disk(plan_: Plan, stream: TextIO | None, force: bool, remote: bool = False) -> None:
    """JobError when a local output's disk has less free space than the job's parts still
    to write are estimated to take (unless ``force``); with ``remote``, a note for remote or
    Dask outputs instead (once the location has answered)."""
    from .. import limits
    need = limits.dataset_bytes(games=plan_.games, shard_size=plan_.shard_size, players=plan_.players,
                                hands=plan_.hands, tables=plan_.tables, positions=plan_.positions or 0.0)
    loc = plan_.location
    local = "://" not in loc or loc.startswith("file://")
    if remote != (not local or bool(plan_.scheduler)):
        return
    if remote:
        if stream is not None:
            where = "on the workers' storage" if plan_.scheduler else "there"
            stream.write(f"note: the dataset will take about {limits.size_text(need)} (an estimate); the space "
                         f"free {where} is not checked\n")
            stream.flush()
        return
    store = Store(loc)
    have = sum(store.size(t, n) or 0 for t in TABLES for n in store.listdir(t))
    free = limits.free_disk(store.root)
    left = need - have
    if force or free is None or left <= free:
        return
    per_game = max(1, need // max(plan_.games, 1))
    raise JobError(f"output {loc!r}: the job would write about {limits.size_text(left)} more (an estimate, "
                   f"{per_game:,} bytes a game), and its disk has {limits.size_text(free)} free; about "
                   f"{max(0, free // per_game):,} games fit: free some space, or choose another --out or fewer "
                   "--games (run --force starts it anyway)")


def _last_manifest(tracker: Tracker, status: str) -> None:
    """Record how the run ended, if the storage still takes it (a full disk may not:
    then the last manifest written stays, which records only whole, checked parts)."""
    try:
        tracker.write_manifest(status)
    except OSError:
        pass


def _say_repairs(prep: Prepared, plan_: Plan, stream: TextIO, moved: list[tuple[str, str]] = ()) -> None:
    loc = plan_.location.rstrip("/")
    if prep.rebuilt:
        shards = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in _ranges(sorted(prep.done))) or "none"
        stream.write(f"{loc}/{MANIFEST} was missing or unreadable: rebuilt for the job its parts were "
                     f"written for ({plan_.games:,} games, seed {plan_.seed}); accepted "
                     f"{len(prep.records)} part(s) of {len(prep.done)} shard(s) ({shards}), "
                     "each checked page by page\n")
    for a, b in moved:
        why = dict(prep.strays).get(a, "not the job's")
        stream.write(f"moved {loc}/{a} to {loc}/{b}: {why}\n")
    if not prep.rebuilt and not prep.repairs and not moved and prep.extend_from is None \
            and len(prep.done) == plan_.n_shards:
        stream.write(f"{loc}: every part was already written; recording them and finishing its {MANIFEST}\n")
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

    A compile says so on stderr with its elapsed time (``kernels.compile.cache``), unless
    progress is off (``stream`` None, ``run --quiet``)."""
    from ..kernels.compile.cache import compile_notice_muted
    from ..compiling import engine_helper
    with compile_notice_muted(stream is None), engine_helper():
        ra = plan_.rules.arrays()
        kind, params = eng.parse_bots(list(plan_.lineup), plan_.players)
        positions = ShardPositions(plan_.positions) if plan_.positions is not None else None
        eng.play_games(*ra, kind, params, np.zeros(0, dtype=np.uint64),
                       np.zeros((0, plan_.hands, plan_.players, NHF), dtype=np.int32), **_recording(positions))


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
