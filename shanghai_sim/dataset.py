"""The batch dataset: Arrow schemas, record -> table conversion, atomic shard files.

A dataset is a folder (local, or a URL pyarrow can open such as ``s3://b/x``)::

    OUT/manifest.json             the job, resolved rules, seeds, shards finished, timings
    OUT/hands/part-00000.parquet  one row per game x hand x seat  (detail = "hands")
    OUT/games/part-00000.parquet  one row per game x seat
    OUT/positions/part-00000.parquet  one row per sampled decision (``run --positions``)

Shard ``k`` holds games ``k * shard_size ... (k + 1) * shard_size - 1`` in every
folder, rows ordered by (game, hand, seat) (positions: by game and decision). A part file is written under a
hidden temporary name (``.part-00000.parquet.tmp-...``; readers skip names
starting with ``.``) and renamed into place, so a folder only ever holds whole
shards. The column lists are ``HANDS_SCHEMA``, ``GAMES_SCHEMA`` and ``POSITIONS_SCHEMA`` below
and docs/dataset.md.

This module knows nothing of games or the runner: it turns record arrays
(``kernels/base/records.py`` layout) into tables and puts bytes in place.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from .kernels.base.codes import ENDINGS as _ENDING_CODES
from .kernels.base.codes import ACTION_WORD, PHASE_WORD
from .kernels.base.positions import (FEATURES, NFEATURES, PC_ACTION, PC_DIFF, PC_MEAN, PC_SAMPLES, PC_SE,
                                   PI_ACTION, PI_GAME, PI_HAND, PI_PHASE, PI_SEARCHED, PI_SEAT, PI_STEP,
                                   POS_CANDS as POS_CANDS_ALL)
from .kernels.base.records import (HF_BLIND, HF_BUY_CARDS, HF_BUYS, HF_CARDS_LEFT, HF_DEALER,
                              HF_DOWN_TURN, HF_JOKERS_LEFT, HF_POINTS, HF_STOCK_PASSES,
                              HF_STOPPED, HF_TURNS, HF_WENT_OUT)

SCHEMA_VERSION = 1
HANDS, GAMES, POSITIONS = "hands", "games", "positions"
TABLES = (HANDS, GAMES, POSITIONS)      # every table folder a dataset may hold, in writing order
MANIFEST = "manifest.json"
COMPRESSION = "zstd"

_DICT = pa.dictionary(pa.int8(), pa.string())
_META = {b"shanghai_sim.schema_version": str(SCHEMA_VERSION).encode()}

HANDS_SCHEMA = pa.schema([
    pa.field("game", pa.uint32(), False),        # game index in the job, 0-based
    pa.field("game_seed", pa.uint64(), False),   # game_seed_nb(job seed, game): replay --seed
    pa.field("hand", pa.uint8(), False),         # 1-based hand number
    pa.field("contract", _DICT, False),          # contract notation, e.g. "set3 run4"
    pa.field("dealer", pa.uint8(), False),       # dealer seat of the hand
    pa.field("seat", pa.uint8(), False),         # 0..players-1, play goes clockwise
    pa.field("player", pa.uint8(), False),       # index of the bot in the job's line-up
    pa.field("bot", _DICT, False),               # canonical bot spec
    pa.field("down_turn", pa.int16(), True),     # own turn (1 = first) of going down; null = never
    pa.field("went_out", pa.bool_(), False),
    pa.field("buys", pa.uint8(), False),
    pa.field("buy_cards", pa.uint8(), False),    # cards taken by buying (upcards + penalty cards)
    pa.field("points", pa.int16(), False),       # hand score, blind bonus included
    pa.field("cards_left", pa.uint8(), False),
    pa.field("jokers_left", pa.uint8(), False),
    pa.field("turns", pa.uint16(), False),       # turns this seat took in the hand
    pa.field("stock_passes", pa.uint8(), False),  # reshuffles in the hand (same for every seat)
    pa.field("ended", _DICT, False),             # how the hand ended: ENDINGS (same for every seat)
    pa.field("blind", pa.bool_(), False),        # went out blind (docs/rules.md §3 blind_bonus)
], metadata=_META)

GAMES_SCHEMA = pa.schema([
    pa.field("game", pa.uint32(), False),
    pa.field("game_seed", pa.uint64(), False),
    pa.field("seat", pa.uint8(), False),
    pa.field("player", pa.uint8(), False),
    pa.field("bot", _DICT, False),
    pa.field("points", pa.int32(), False),       # total over all hands (lowest wins)
    pa.field("rank", pa.uint8(), False),         # 1 = best; tied totals share the better rank
    pa.field("win_share", pa.float64(), False),  # 1/k for each of the k seats tied lowest, else 0
    pa.field("hands_out", pa.uint8(), False),    # hands this seat went out in
    pa.field("buys", pa.uint16(), False),        # buys over the game
], metadata=_META)

# The decisions a position is recorded at (the phases a seat acts in) and the actions
_DECISION_WORDS = tuple(PHASE_WORD[v] for v in sorted(PHASE_WORD) if PHASE_WORD[v] != "over")
_ACTION_WORDS = tuple(ACTION_WORD[v] for v in sorted(ACTION_WORD))
_CARD_ACTIONS = ("layoff", "swap", "discard")      # actions whose card the table names
_JOKER = 52                                         # the last card id (cards.JOKER)
# the decision column's index of each phase value (phases a seat never acts in: 0, unused)
_DECISION_OF_PHASE = np.array([_DECISION_WORDS.index(PHASE_WORD[v]) if PHASE_WORD.get(v) in _DECISION_WORDS else 0
                               for v in range(max(PHASE_WORD) + 1)], np.int8)
CANDIDATE_TYPE = pa.struct([
    pa.field("action", pa.string(), False),     # the candidate's action word (as the action column)
    pa.field("card", pa.string(), True),        # its card, for a discard
    pa.field("mean", pa.float32(), False),      # its mean outcome over its samples (points: lower is better)
    pa.field("samples", pa.uint32(), False),    # the samples it was played on
    pa.field("diff", pa.float32(), False),      # its paired mean difference with the first candidate
    pa.field("se", pa.float32(), False),        # that difference's standard error
])

POSITIONS_SCHEMA = pa.schema([
    pa.field("game", pa.uint32(), False),
    pa.field("game_seed", pa.uint64(), False),
    pa.field("hand", pa.uint8(), False),         # 1-based hand number
    pa.field("step", pa.uint32(), False),        # the decision's number in the game (0 = its first action)
    pa.field("seat", pa.uint8(), False),         # the seat deciding
    pa.field("player", pa.uint8(), False),
    pa.field("bot", _DICT, False),
    pa.field("decision", _DICT, False),          # first_refusal, buy, draw or play (the phase)
    pa.field("action", _DICT, False),            # the action chosen: draw, take, pass, buy, go_down, ...
    pa.field("card", _DICT, True),               # its card (layoff, swap, discard), else null
    *(pa.field(name, pa.int16(), False) for name, _ in FEATURES),   # what the seat can see (docs/dataset.md)
    pa.field("searched", pa.uint8(), False),     # candidates a search bot played out (0: no search)
    pa.field("candidates", pa.list_(CANDIDATE_TYPE), False),   # what the search found, smart's choice first
    pa.field("points", pa.int16(), False),       # outcome: the seat's score for this hand (hands' points)
    pa.field("went_out", pa.bool_(), False),     # outcome: this seat went out in this hand
    pa.field("out_seat", pa.uint8(), True),      # outcome: the seat that went out (null: nobody)
    pa.field("game_points", pa.int32(), False),  # outcome: the seat's total for the game
    pa.field("rank", pa.uint8(), False),         # outcome: its rank in the game (games table)
    pa.field("win_share", pa.float64(), False),  # outcome: its win share (games table)
], metadata=_META)
assert len(set(POSITIONS_SCHEMA.names)) == len(POSITIONS_SCHEMA.names)

SCHEMAS = {HANDS: HANDS_SCHEMA, GAMES: GAMES_SCHEMA, POSITIONS: POSITIONS_SCHEMA}


def job_tables(detail: str, positions: "float | None") -> tuple[str, ...]:
    """The tables a job writes: hands/ (detail "hands"), games/, and positions/ when it
    records positions (a rate)."""
    return (*((HANDS,) if detail == HANDS else ()), GAMES, *((POSITIONS,) if positions else ()))
# Values of the ``ended`` column, indexed by the record's HF_STOPPED code (kernels.base.codes.ENDINGS).
ENDINGS = tuple(c.word for c in sorted(_ENDING_CODES, key=lambda c: c.value))
assert [c.value for c in _ENDING_CODES] == list(range(len(ENDINGS)))


class DatasetError(ValueError):
    """An output location that cannot be used (one line, names the location)."""


class WriteError(OSError):
    """Bytes could not be written (a full disk, a lost share): one line naming the file.
    The file's temporary was removed, so nothing half-written is left behind."""


class DamagedPartError(DatasetError):
    """A part file that does not read back as written (one line: the file and the way out)."""


# ---------------------------------------------------------------- tables

# (record field, column, numpy type) of the integer columns copied from hand_out
_HAND_INTS = [(HF_DEALER, "dealer", np.uint8), (HF_BUYS, "buys", np.uint8),
              (HF_BUY_CARDS, "buy_cards", np.uint8), (HF_POINTS, "points", np.int16),
              (HF_CARDS_LEFT, "cards_left", np.uint8), (HF_JOKERS_LEFT, "jokers_left", np.uint8),
              (HF_TURNS, "turns", np.uint16), (HF_STOCK_PASSES, "stock_passes", np.uint8)]


def _check_fits(name: str, lo: int, hi: int, dtype, allow_null: bool = False) -> None:
    info = np.iinfo(dtype)
    if (lo < info.min and not (allow_null and lo >= -1)) or hi > info.max:
        bad = hi if hi > info.max else lo
        raise OverflowError(f"column {name!r}: value {bad} does not fit {np.dtype(dtype).name} "
                            "(an engine record out of range)")


def _dict_col(codes: np.ndarray, names: Sequence[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int8, copy=False)),
                                          pa.array(list(names), pa.string()))


def hands_table(hand_out: np.ndarray, games: np.ndarray, seeds: np.ndarray, player: np.ndarray,
                bot_code: np.ndarray, bot_names: Sequence[str], contract_code: np.ndarray,
                contract_names: Sequence[str]) -> pa.Table:
    """Rows game x hand x seat from ``hand_out`` int32[n, hands, players, NHF].

    games, seeds: [n] game index and seed; player, bot_code: [n, players] line-up
    index and index into ``bot_names`` of the bot in each seat; contract_code:
    [hands] index into ``contract_names``. A value that does not fit its
    compact column type raises OverflowError (never wraps).
    """
    n, h, p, _ = hand_out.shape
    fields = np.ascontiguousarray(hand_out.reshape(n * h * p, -1).T)   # one row per record field
    lo, hi = fields.min(axis=1), fields.max(axis=1)
    _check_fits("game", int(games.min()), int(games.max()), np.uint32)
    for f, name, dt in _HAND_INTS:
        _check_fits(name, lo[f], hi[f], dt)
    _check_fits("down_turn", lo[HF_DOWN_TURN], hi[HF_DOWN_TURN], np.int16, allow_null=True)
    if lo[HF_STOPPED] < 0 or hi[HF_STOPPED] >= len(ENDINGS):
        raise OverflowError(f"column 'ended': code {hi[HF_STOPPED]} is not one of {ENDINGS}")
    down = fields[HF_DOWN_TURN]
    cols = {
        "game": np.repeat(games.astype(np.uint32), h * p),
        "game_seed": np.repeat(seeds.astype(np.uint64), h * p),
        "hand": np.tile(np.repeat(np.arange(1, h + 1, dtype=np.uint8), p), n),
        "contract": _dict_col(np.tile(np.repeat(contract_code, p), n), contract_names),
        "seat": np.tile(np.arange(p, dtype=np.uint8), n * h),
        "player": np.broadcast_to(player[:, None, :], (n, h, p)).astype(np.uint8).ravel(),
        "bot": _dict_col(np.broadcast_to(bot_code[:, None, :], (n, h, p)).ravel(), bot_names),
        "down_turn": pa.array(down.astype(np.int16), mask=down < 0),
        "ended": _dict_col(fields[HF_STOPPED], ENDINGS),
        "went_out": fields[HF_WENT_OUT] != 0,
        "blind": fields[HF_BLIND] != 0,
    }
    for f, name, dt in _HAND_INTS:
        cols[name] = fields[f].astype(dt)
    return pa.Table.from_arrays([pa.array(cols[f.name], f.type) if isinstance(cols[f.name], np.ndarray)
                                 else cols[f.name] for f in HANDS_SCHEMA], schema=HANDS_SCHEMA)


def game_results(hand_out: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Totals, ranks and win shares [n, players] from ``hand_out`` (docs/rules.md §5.7).

    rank = 1 + the number of seats with a strictly lower total, so tied seats
    share the better rank; the k seats tied for the lowest total each get 1/k.
    """
    total = hand_out[..., HF_POINTS].sum(axis=1, dtype=np.int64)
    rank = 1 + (total[:, None, :] < total[:, :, None]).sum(axis=2)
    best = total == total.min(axis=1, keepdims=True)
    share = best / best.sum(axis=1, keepdims=True)
    return total, rank, share


def games_table(hand_out: np.ndarray, games: np.ndarray, seeds: np.ndarray, player: np.ndarray,
                bot_code: np.ndarray, bot_names: Sequence[str]) -> pa.Table:
    """Rows game x seat: totals, ranks and win shares (see ``game_results``)."""
    n, _, p, _ = hand_out.shape
    total, rank, share = game_results(hand_out)
    hands_out = hand_out[..., HF_WENT_OUT].sum(axis=1)
    buys = hand_out[..., HF_BUYS].sum(axis=1)
    for name, v, dt in (("points", total, np.int32), ("hands_out", hands_out, np.uint8),
                        ("buys", buys, np.uint16)):
        _check_fits(name, int(v.min()), int(v.max()), dt)
    cols = {
        "game": np.repeat(games.astype(np.uint32), p),
        "game_seed": np.repeat(seeds.astype(np.uint64), p),
        "seat": np.tile(np.arange(p, dtype=np.uint8), n),
        "player": player.astype(np.uint8).ravel(),
        "bot": _dict_col(bot_code.ravel(), bot_names),
        "points": total.astype(np.int32).ravel(),
        "rank": rank.astype(np.uint8).ravel(),
        "win_share": share.ravel(),
        "hands_out": hands_out.astype(np.uint8).ravel(),
        "buys": buys.astype(np.uint16).ravel(),
    }
    return pa.Table.from_arrays([pa.array(cols[f.name], f.type) if isinstance(cols[f.name], np.ndarray)
                                 else cols[f.name] for f in GAMES_SCHEMA], schema=GAMES_SCHEMA)


def _action_columns(codes: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """(index into _ACTION_WORDS, card names as a dictionary array, null where the action names
    no card) of each action code, vectorised (``codes.action_fields``'s layout)."""
    from .cards import card_str
    from .kernels.base.codes import ACT_CARD_MASK, ACT_CARD_SHIFT, ACT_TYPE_MASK
    codes = np.asarray(codes, np.int64)
    word_of_type = np.array([_ACTION_WORDS.index(ACTION_WORD[t]) if t in ACTION_WORD else 0
                             for t in range(ACT_TYPE_MASK + 1)], np.int8)
    has_card = np.array([ACTION_WORD.get(t) in _CARD_ACTIONS for t in range(ACT_TYPE_MASK + 1)])
    t = codes & ACT_TYPE_MASK
    card = (codes >> ACT_CARD_SHIFT) & ACT_CARD_MASK
    null = ~has_card[t] | (card > _JOKER)
    names = pa.array([card_str(c) for c in range(_JOKER + 1)], pa.string())
    cards = pa.DictionaryArray.from_arrays(pa.array(np.where(null, 0, card).astype(np.int8), mask=null), names)
    return word_of_type[t], cards


def positions_table(ints: np.ndarray, feats: np.ndarray, cands: np.ndarray, hand_out: np.ndarray,
                    games: np.ndarray, seeds: np.ndarray, player: np.ndarray, bot_code: np.ndarray,
                    bot_names: Sequence[str]) -> pa.Table:
    """Rows of sampled decision positions (``runner.positions.ShardPositions.arrays``: ints
    [m, records.NPI], feats [m, NFEATURES], cands [m, POS_CANDS, NPC], PI_GAME the game's
    index in the shard), with their outcomes read from the shard's ``hand_out``
    [n, hands, players, NHF]; games, seeds [n]; player, bot_code [n, players]."""
    m = len(ints)
    g = ints[:, PI_GAME]
    h = ints[:, PI_HAND]
    q = ints[:, PI_SEAT]
    if m:
        _check_fits("features", int(feats.min()), int(feats.max()), np.int16)
        _check_fits("step", int(ints[:, PI_STEP].min()), int(ints[:, PI_STEP].max()), np.uint32)
    total, rank, share = game_results(hand_out) if len(hand_out) else (np.zeros((0, 1)),) * 3
    out = hand_out[g, h, :, HF_WENT_OUT] if m else np.zeros((0, 1), np.int32)
    out_seat = np.where(out.any(axis=1), out.argmax(axis=1), -1) if m else np.zeros(0, np.int64)
    act, card = _action_columns(ints[:, PI_ACTION])
    decision = _DECISION_OF_PHASE[ints[:, PI_PHASE]]
    searched = ints[:, PI_SEARCHED]
    offsets = np.zeros(m + 1, np.int32)
    np.cumsum(searched, out=offsets[1:])
    flat = cands[np.arange(POS_CANDS_ALL)[None, :] < searched[:, None]] if m else cands.reshape(0, cands.shape[-1])
    c_act, c_card = _action_columns(flat[:, PC_ACTION].astype(np.int64))
    cand_struct = pa.StructArray.from_arrays(
        [pa.array(np.array(_ACTION_WORDS, object)[c_act], pa.string()), c_card.cast(pa.string()),
         pa.array(flat[:, PC_MEAN].astype(np.float32)), pa.array(flat[:, PC_SAMPLES].astype(np.uint32)),
         pa.array(flat[:, PC_DIFF].astype(np.float32)), pa.array(flat[:, PC_SE].astype(np.float32))],
        fields=list(CANDIDATE_TYPE))
    cols = {
        "game": games[g].astype(np.uint32),
        "game_seed": seeds[g].astype(np.uint64),
        "hand": (h + 1).astype(np.uint8),
        "step": ints[:, PI_STEP].astype(np.uint32),
        "seat": q.astype(np.uint8),
        "player": player[g, q].astype(np.uint8),
        "bot": _dict_col(bot_code[g, q], bot_names),
        "decision": _dict_col(decision, _DECISION_WORDS),
        "action": _dict_col(act, _ACTION_WORDS),
        "card": card,
        "searched": searched.astype(np.uint8),
        "candidates": pa.ListArray.from_arrays(pa.array(offsets), cand_struct),
        "points": hand_out[g, h, q, HF_POINTS].astype(np.int16),
        "went_out": hand_out[g, h, q, HF_WENT_OUT] != 0,
        "out_seat": pa.array(out_seat.astype(np.uint8), mask=out_seat < 0),
        "game_points": total[g, q].astype(np.int32),
        "rank": rank[g, q].astype(np.uint8),
        "win_share": share[g, q].astype(np.float64),
    }
    for i, (name, _) in enumerate(FEATURES):
        cols[name] = feats[:, i].astype(np.int16)
    arrays = []
    for f in POSITIONS_SCHEMA:
        v = cols[f.name]
        if isinstance(v, np.ndarray):
            v = pa.array(v, f.type)
        elif f.type != v.type:
            v = v.cast(f.type)
        arrays.append(v)
    return pa.Table.from_arrays(arrays, schema=POSITIONS_SCHEMA)


def write_json_atomic(path: "str | os.PathLike", record: dict) -> None:
    """Write ``record`` as JSON to a local ``path`` through a temporary file and a rename,
    so a reader never sees half a file (experiment.json, tournament.json)."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(record, indent=1, default=str) + "\n")
    os.replace(tmp, path)


def part_name(shard: int, digits: int = 5) -> str:
    return f"part-{shard:0{digits}d}.parquet"


# Every part is written with Parquet page checksums (CRC32 of each page) and its
# manifest record holds the file's size, rows and SHA-256; readers verify the pages.
PAGE_CHECKSUMS = True
HASH = "sha256"


def table_bytes(table: pa.Table) -> bytes:
    """``table`` as the bytes of one Parquet file: one row group, zstd, page checksums.
    The same table gives the same bytes (with the same pyarrow), so a shard played
    again is byte for byte the part it replaces."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=COMPRESSION, row_group_size=max(1, table.num_rows),
                   write_page_checksum=PAGE_CHECKSUMS)
    return sink.getvalue().to_pybytes()


def part_record(data: bytes, rows: int) -> dict:
    """What the manifest records of a part: ``{"bytes", "rows", "sha256"}``."""
    return {"bytes": len(data), "rows": int(rows), HASH: hashlib.sha256(data).hexdigest()}


# ---------------------------------------------------------------- storage

# Seconds of retries a remote location (gs://) gets before a command gives up on it with one
# line: pyarrow's GCS client otherwise retries for 15 minutes. Its last wait between retries
# and its credentials lookup come on top: offline, a command ends within about 25 s (22-27 s
# measured under a load of 7; 2 s: 6 s). Set by SHANGHAI_SIM_REMOTE_TIMEOUT (docs/dataset.md).
REMOTE_TIMEOUT = 15.0
REMOTE_TIMEOUT_ENV = "SHANGHAI_SIM_REMOTE_TIMEOUT"


def remote_timeout() -> float:
    """``SHANGHAI_SIM_REMOTE_TIMEOUT`` seconds (1..3600), else ``REMOTE_TIMEOUT``."""
    import math
    text = os.environ.get(REMOTE_TIMEOUT_ENV, "").strip()
    if not text:
        return REMOTE_TIMEOUT
    try:
        v = float(text) if text.isascii() else float("nan")
    except ValueError:
        v = float("nan")
    if not math.isfinite(v) or not 1 <= v <= 3600:
        raise DatasetError(f"{REMOTE_TIMEOUT_ENV} = {text[:40]!r}: expected seconds, 1..3600")
    return v


def _with_time_limit(loc: str, seconds: float) -> str:
    """``loc`` with the retry time limit its file system takes in the URL, where it takes one
    (GCS: ``retry_limit_seconds``; S3's client gives up within seconds by itself)."""
    scheme = loc.partition("://")[0].lower()
    if scheme in ("gs", "gcs") and "retry_limit_seconds=" not in loc:
        return loc + ("&" if "?" in loc else "?") + f"retry_limit_seconds={seconds:g}"
    return loc


def _answers(method):
    """A query of a remote location: its OSError (no answer, no access) -> one-line DatasetError."""
    import functools

    @functools.wraps(method)
    def call(self, *a, **k):
        try:
            return method(self, *a, **k)
        except (OSError, pa.ArrowException) as e:       # GCS: ArrowException for a permanent error
            if self.fs is None or self.local:
                raise
            why = (str(e).strip().splitlines() or [type(e).__name__])[0]
            why = why if len(why) <= 120 else why[:117].rstrip() + "..."
            raise DatasetError(f"{self.location}: the storage did not answer ({why}); remote locations are "
                               f"given up on after {self.timeout:g} s ({REMOTE_TIMEOUT_ENV})") from None
    return call


class Store:
    """A dataset location: a local folder, or a URL that ``pyarrow.fs`` opens.

    Every write is atomic: bytes go to a hidden temporary name in the same
    folder, then are renamed over the final name (``os.replace`` locally; on
    object stores an upload only becomes visible when complete).
    """

    def __init__(self, location: str | os.PathLike):
        loc = os.fspath(location)
        self.location = loc
        self.timeout = REMOTE_TIMEOUT
        if "://" in loc:
            self.timeout = remote_timeout()
            try:
                self.fs, self.root = pafs.FileSystem.from_uri(_with_time_limit(loc, self.timeout))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as e:
                raise DatasetError(f"output {loc!r}: pyarrow cannot open this URL ({e})") from None
            self.root = self.root.rstrip("/")
            self.local = isinstance(self.fs, pafs.LocalFileSystem)
        else:
            self.fs, self.root, self.local = None, os.path.abspath(loc), True

    def __repr__(self) -> str:
        return f"Store({self.location!r})"

    def path(self, *parts: str) -> str:
        return "/".join([self.root, *parts]) if parts else self.root

    # -- queries
    @_answers
    def exists(self, *parts: str) -> bool:
        if self.fs is None:
            return os.path.exists(self.path(*parts))
        return self.fs.get_file_info(self.path(*parts)).type != pafs.FileType.NotFound

    @_answers
    def is_dir(self, *parts: str) -> bool:
        if self.fs is None:
            return os.path.isdir(self.path(*parts))
        return self.fs.get_file_info(self.path(*parts)).type == pafs.FileType.Directory

    @_answers
    def listdir(self, *parts: str) -> list[str]:
        """Names directly inside a folder ([] if it does not exist)."""
        p = self.path(*parts)
        if self.fs is None:
            return sorted(os.listdir(p)) if os.path.isdir(p) else []
        if not self.is_dir(*parts):
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(p, recursive=False))
        return sorted(i.base_name for i in infos)

    @_answers
    def read_text(self, *parts: str) -> str:
        if self.fs is None:
            with open(self.path(*parts), encoding="utf-8") as f:
                return f.read()
        with self.fs.open_input_stream(self.path(*parts)) as f:
            return f.read().decode("utf-8")

    # -- writes
    def makedirs(self, *parts: str) -> None:
        if self.fs is None:
            os.makedirs(self.path(*parts), exist_ok=True)
        else:
            self.fs.create_dir(self.path(*parts), recursive=True)

    def _tmp(self, parts: tuple[str, ...]) -> str:
        *folder, name = parts
        return self.path(*folder, f".{name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")

    def _commit(self, tmp: str, final: str) -> None:
        if self.fs is None:
            os.replace(tmp, final)
        else:
            self.fs.move(tmp, final)

    def _discard(self, tmp: str) -> None:
        try:
            if self.fs is None:
                os.unlink(tmp)
            else:
                self.fs.delete_file(tmp)
        except (OSError, FileNotFoundError):
            pass

    def write_bytes(self, data: bytes, *parts: str) -> None:
        """Write ``data`` atomically; an OSError (full disk, ...) becomes a WriteError
        naming the final file, after the temporary is removed."""
        tmp, final = self._tmp(parts), self.path(*parts)
        try:
            if self.fs is None:
                with open(tmp, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            else:
                with self.fs.open_output_stream(tmp) as f:
                    f.write(data)
            self._commit(tmp, final)
        except OSError as e:
            self._discard(tmp)
            if isinstance(e, WriteError):
                raise
            raise WriteError(e.errno, f"cannot write {final}: {e.strerror or e}") from None
        except BaseException:
            self._discard(tmp)
            raise

    def write_json(self, obj, *parts: str) -> None:
        self.write_bytes((json.dumps(obj, indent=1) + "\n").encode("utf-8"), *parts)

    def write_table(self, table: pa.Table, *parts: str) -> dict:
        """Write ``table`` as one Parquet file (``table_bytes``) atomically; returns its
        manifest record (``part_record``). A shard is at most a few MB, so the file is
        built in memory, hashed, and written in one go."""
        data = table_bytes(table)
        self.write_bytes(data, *parts)
        return part_record(data, table.num_rows)

    @_answers
    def size(self, *parts: str) -> int | None:
        """Size in bytes of a file (None if there is none)."""
        p = self.path(*parts)
        if self.fs is None:
            try:
                st = os.stat(p)
            except OSError:
                return None
            return st.st_size if os.path.isfile(p) else None
        info = self.fs.get_file_info(p)
        return info.size if info.type == pafs.FileType.File else None

    def read_buffer(self, *parts: str) -> pa.Buffer:
        """The whole file in memory that Arrow owns (not a Python ``bytes``).

        A ParquetFile over a Python object holds it through a buffer whose release takes
        the GIL; a page reader's last reference can be dropped by one of Arrow's pool
        threads after the read returns, and when that happens during interpreter exit the
        thread is killed inside C++ code and the process aborts ("terminate called
        without an active exception", apache/arrow#34314). Arrow's own buffer needs no GIL."""
        if self.fs is None:
            with pa.OSFile(self.path(*parts), "rb") as f:
                return f.read_buffer()
        with self.fs.open_input_stream(self.path(*parts)) as f:
            return f.read_buffer()

    def open_input(self, *parts: str):
        """A random-access file for pyarrow (footer reads without reading the whole file)."""
        if self.fs is None:
            return pa.OSFile(self.path(*parts), "rb")
        return self.fs.open_input_file(self.path(*parts))

    def move(self, src: tuple[str, ...], dst: tuple[str, ...]) -> None:
        """Rename a file within the location (``os.replace`` locally); the destination's
        folder must exist. An OSError becomes a WriteError naming the file."""
        a, b = self.path(*src), self.path(*dst)
        try:
            if self.fs is None:
                os.replace(a, b)
            else:
                self.fs.move(a, b)
        except OSError as e:
            raise WriteError(e.errno, f"cannot move {a} to {b}: {e.strerror or e}") from None

    def delete(self, *parts: str) -> None:
        """Remove a file or a folder tree (missing is fine)."""
        p = self.path(*parts)
        if self.fs is None:
            if os.path.isdir(p):
                import shutil
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.unlink(p)
            return
        info = self.fs.get_file_info(p)
        if info.type == pafs.FileType.Directory:
            self.fs.delete_dir(p)
        elif info.type == pafs.FileType.File:
            self.fs.delete_file(p)

    def sweep_temporaries(self, *parts: str) -> int:
        """Delete leftover hidden temporary files of an interrupted writer."""
        n = 0
        for name in self.listdir(*parts):
            if name.startswith(".") and ".tmp-" in name:
                self._discard(self.path(*parts, name))
                n += 1
        return n

    def probe(self) -> None:
        """Raise DatasetError if the location cannot be created or written."""
        # a hidden temporary's name: a kill between its write and its removal leaves a file
        # that every listing skips and the next run sweeps away (``sweep_temporaries``)
        name = f".write-test.tmp-{os.getpid()}"
        try:
            self.makedirs()
            self.write_bytes(b"", name)
            self.delete(name)
        except WriteError as e:
            reason = str(e).rpartition(": ")[2]
            raise DatasetError(f"output {self.location!r} is not writable ({reason})") from None
        except OSError as e:
            reason = e.strerror or str(e)
            raise DatasetError(f"output {self.location!r} is not writable ({reason})") from None
