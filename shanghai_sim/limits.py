"""Seeds, threads and sizes: the one validation every command and script shares.

``check_seed``, ``check_threads`` and ``check_count`` give every caller (``run``,
``experiment``, ``tournament``, the analyses and the benchmarks) the same one-line
message for the same bad value (``seed = -1: must be 0..9223372036854775807``);
``check_memory`` refuses a size whose arrays would not fit in memory before anything
is played (an estimate from what the runner, an experiment and a tournament allocate),
instead of letting the out-of-memory killer find out.

Floor 1: imports nothing of the package, so ``--help`` paths may use it.
"""

from __future__ import annotations

import os

MAX_SEED = 2**63 - 1          # seeds are derived as uint64 from a non-negative int64
MAX_THREADS = 1024
MAX_GAMES = 2**32 - 1         # the dataset's game column is uint32
MEMORY_SHARE = 0.8            # of the memory available now that a plan may take


class LimitError(ValueError):
    """A seed, thread count or size out of range: one line naming it."""


def check_count(what: str, v, lo: int, hi: int, why: str = "") -> int:
    """``v`` as an int within ``lo..hi``; LimitError naming ``what`` (and ``why`` the range is
    so) otherwise. A bool or a float is not an integer."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise LimitError(f"{what} = {v!r}: expected an integer")
    if not lo <= v <= hi:
        raise LimitError(f"{what} = {v}: must be {lo}..{hi}" + (f" ({why})" if why else ""))
    return v


MAX_GAME_SEED = 2**64 - 1     # a game's own seed (replay --seed, play --seed) is a uint64


def parse_int(what: str, text, lo: int, hi: int) -> int:
    """An option given as text (``replay --seed``, ``play --players``) -> int within lo..hi:
    ASCII digits with an optional sign only (no ``1_000``, ``1e3``, ``١``), the messages of
    ``check_count``."""
    s = str(text).strip()
    body = s[1:] if s[:1] in "+-" else s
    if not (body.isascii() and body.isdigit()) or len(body) > 40:
        raise LimitError(f"{what} = {str(text)[:40]!r}: expected an integer")
    return check_count(what, int(s), lo, hi)


def check_seed(v, what: str = "seed") -> int:
    return check_count(what, v, 0, MAX_SEED)


def check_threads(v, what: str = "threads") -> int | None:
    """None (every core) or 1..MAX_THREADS."""
    return None if v is None else check_count(what, v, 1, MAX_THREADS)


def check_namespace(a) -> None:
    """The shared checks of a script's parsed options (argparse): ``seed``, ``threads``,
    and the sizes ``games``, ``deals`` (1 .. MAX_GAMES), where present and not None."""
    if getattr(a, "seed", None) is not None:
        check_seed(a.seed)
    check_threads(getattr(a, "threads", None))
    for key in ("games", "deals"):
        if getattr(a, key, None) is not None:
            check_count(key, getattr(a, key), 1, MAX_GAMES)


def parse_args(ap, argv=None):
    """``ap.parse_args(argv)`` then ``check_namespace``: a bad value is one line and exit 2,
    as every command says it (the analyses' and the benchmarks' scripts)."""
    a = ap.parse_args(argv)
    try:
        check_namespace(a)
    except LimitError as e:
        ap.exit(2, f"{ap.prog}: error: {e}\n")
    return a


def available_memory() -> int:
    """Bytes of memory available now (MemAvailable; the physical memory where that is unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


# What a plan holds in memory, per unit (measured from the code that allocates it):
SHARD_RECORD_BYTES = 600      # runner: a shard's entry in the plan, the manifest and the pending list
PER_DEAL_ANALYSIS = 8 * 8     # experiment/tournament per-deal analysis: float64 arrays, ~8 live per column


# The positions table (run --positions RATE): decisions a seat takes in a hand (measured: 35.7
# under shanghai, 4 greedy players), and a recorded position's bytes while its shard is in
# flight (its int64 columns, int32 features and float64 candidates, copied once, then the table)
DECISIONS_PER_SEAT_HAND = 36
POSITION_MEMORY_BYTES = 2_000


def job_bytes(*, games: int, shard_size: int, players: int, hands: int, threads: int,
              nhf: int, positions: float = 0.0) -> int:
    """Estimated peak bytes of a runner job: every shard's record, plus each thread's shard
    in flight (its int32 records, the Arrow tables and the Parquet writer's buffers, ~4x;
    its positions at the rate ``positions``)."""
    shards = -(-games // max(shard_size, 1))
    in_flight = shard_size * hands * players * nhf * 4 * 4
    in_flight += int(shard_size * hands * players * DECISIONS_PER_SEAT_HAND * positions * POSITION_MEMORY_BYTES)
    return shards * SHARD_RECORD_BYTES + max(1, threads) * in_flight


def analysis_bytes(*, deals: int, columns: int) -> int:
    """Estimated peak bytes of the per-deal analysis of ``columns`` figures per deal."""
    return deals * columns * PER_DEAL_ANALYSIS


def check_memory(what: str, need: int, per_unit: int | None = None, unit: str = "") -> None:
    """LimitError if ``need`` bytes exceed the share of memory available now; the message
    names ``what`` (e.g. ``deals = 3,000,000,000``) and, given the bytes ``per_unit``, how
    many units fit."""
    have = available_memory()
    if need <= MEMORY_SHARE * have:
        return
    fit = f"; at most about {int(MEMORY_SHARE * have // per_unit):,} {unit} fit" if per_unit else ""
    raise LimitError(f"{what}: would need about {_size(need)} of memory, more than the "
                     f"{_size(int(MEMORY_SHARE * have))} this machine has free{fit}")


# What a dataset takes on disk (zstd Parquet), measured on the real engine's datasets of 2, 4
# and 8 players (random and greedy bots, 250- and 1,000-game shards; docs/dataset.md):
# a hands/ row 3.1-3.5 bytes, a games/ table 19-32 bytes a game, and each part file's fixed
# footer (schema and job metadata) about 9.3 kB in hands/, 6.5 kB in games/. The estimate
# takes the top of each range: 4 greedy players, 1,000-game shards: about 180 bytes a game.
HANDS_ROW_BYTES = 3.5          # a row of hands/ (one game x hand x seat)
GAMES_ROW_BYTES = 4.5          # a row of games/ (one game x seat) ...
GAMES_GAME_BYTES = 12          # ... plus this much a game
PART_BYTES = {"hands": 9_500, "games": 6_600, "positions": 40_000}
POSITION_ROW_BYTES = 60        # positions/: a row


def dataset_bytes(*, games: int, shard_size: int, players: int, hands: int,
                  tables: "tuple[str, ...]", positions: float = 0.0) -> int:
    """Estimated bytes of a dataset of ``games`` games (every table written, part footers
    included; positions at the rate ``positions``): the constants above."""
    shards = -(-games // max(shard_size, 1))
    total = 0.0
    if "hands" in tables:
        total += games * players * hands * HANDS_ROW_BYTES + shards * PART_BYTES["hands"]
    if "games" in tables:
        total += games * (players * GAMES_ROW_BYTES + GAMES_GAME_BYTES) + shards * PART_BYTES["games"]
    if "positions" in tables:
        rows = games * players * hands * DECISIONS_PER_SEAT_HAND * positions
        total += rows * POSITION_ROW_BYTES + shards * PART_BYTES["positions"]
    return int(total)


def free_disk(path: str) -> int | None:
    """Bytes free for this user on the file system that holds ``path`` (its nearest existing
    folder), or None when that cannot be told."""
    import shutil
    p = os.path.abspath(path)
    while not os.path.exists(p):
        parent = os.path.dirname(p)
        if parent == p:
            return None
        p = parent
    try:
        return shutil.disk_usage(p).free
    except OSError:
        return None


def size_text(n: int) -> str:
    """``n`` bytes as people read them: "770.5 GB", "96 B"."""
    return _size(n)


def _size(n: int) -> str:
    for u in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or u == "PB":
            return f"{n:,.0f} {u}" if u == "B" else f"{n:,.1f} {u}"
        n /= 1000
    return f"{n} B"
