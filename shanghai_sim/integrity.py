"""Is every part file of a dataset what was written? Checks, ``verify``, and safe reads.

The manifest records each part file when its shard is finished::

    "parts": {"games/part-00000.parquet": {"bytes": 41133, "rows": 400, "sha256": "9f2c..."}, ...}

and every part carries, in its Parquet key-value metadata (``shanghai_sim.job``),
the job it was written for: the resolved rules, players, line-up, seed,
rotation, detail and shard size (not the game count, so that extending a job
keeps its parts). Parts are written with Parquet page checksums.

The manifest is the only thing trusted: readers read exactly the parts it
records, nothing else in the folder. A manifest that is missing, not a
shanghai-sim manifest, or edited so that it no longer describes a job
(``manifest_problem``: keys missing, records of parts no shard has, a part
path outside the dataset) is a ``NotADatasetError`` naming ``verify`` and
``run --resume``.

Two levels of checking a part:

- full (the default of ``verify``, ``run --resume`` and every reader): the file
  is there, its size is the recorded one, the SHA-256 of every byte is the
  recorded one, its footer parses, its row count and columns are the expected
  ones and it was written for this job. Equal hashes mean the file is the one
  written, page checksums included, so pages are not decoded again. A part the
  manifest does not record has no hash to compare: every page of it is read
  back instead, its CRC checked. Reads every byte once.
- quick (``--quick``): the same without the hash (reads only footers). Bytes
  changed in place, which leave size and footer alone, pass it.

Readers (``iter_parts``, ``read_table``; ``summary``, experiments, tournaments
and the analyses use them) make the full check of each part before decoding
it; a part that fails is a ``DamagedPartError``: one line naming the file and
the way out. Files in ``hands/`` or ``games/`` that the manifest does not
record are named (``IgnoredFileWarning``, ``ignored_files``) and never read.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.parquet as pq

from .dataset import (GAMES, HANDS, MANIFEST, POSITIONS, SCHEMAS, TABLES, DamagedPartError, DatasetError, Store,
                      job_tables, part_name)

JOB_META = b"shanghai_sim.job"
FOREIGN = "written for another job (its shanghai_sim.job metadata differs)"
QUICK, FULL = "quick", "full"
QUARANTINE = "quarantine"            # OUT/quarantine/: files --resume moved out of hands/ and games/
_HEX64 = re.compile(r"[0-9a-f]{64}")


class NotADatasetError(DatasetError):
    """OUT is not a shanghai-sim dataset (no folder, no readable manifest): one line."""


class IgnoredFileWarning(UserWarning):
    """A file in ``hands/`` or ``games/`` that the manifest does not record: not read."""


def job_meta(job: dict[str, Any], rules: dict[str, Any], table: str = GAMES) -> str:
    """The ``shanghai_sim.job`` metadata of a part of ``table``: what its rows depend on.

    ``job`` is a manifest's ``job`` section (or ``Plan.identity()``), ``rules``
    the resolved rules. The game count and the rules' spelling are left out: a
    shard's rows do not depend on them. Nor does the positions rate, but in positions/
    parts: hands/ and games/ are byte for byte the same with or without positions.
    """
    keep = {k: job.get(k) for k in ("players", "bots", "seed", "rotate", "detail", "shard_size")}
    if job.get("seating", "rotate") != "rotate":      # absent in jobs of the default seating
        keep["seating"] = job["seating"]
    if table == POSITIONS:
        keep["positions"] = job.get("positions")
    keep["rules"] = rules
    return json.dumps(keep, sort_keys=True, separators=(",", ":"))


def repair_hint(location: str) -> str:
    return (f"`shanghai-sim verify {location}` lists every damaged part; "
            f"`shanghai-sim run --resume --out {location}` plays them again")


def manifest_hint(location: str) -> str:
    return (f"`shanghai-sim verify {location}` says what is there; `shanghai-sim run --resume --out "
            f"{location}` rebuilds the manifest from the parts written for its job")


# ---------------------------------------------------------------- what a manifest expects

def _int(v: Any, lo: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= lo


def _outside(rel: str) -> bool:
    """Does a manifest's part path leave the dataset (absolute, ``..``, a drive, a URL)?"""
    return (rel.startswith(("/", "\\")) or "\\" in rel or ":" in rel
            or any(p in ("..", ".", "") for p in rel.split("/")))


def manifest_problem(m: Any) -> str | None:
    """What makes ``m`` (a parsed manifest.json) unusable as a description of a job, or None.

    Checked: the format, the job's counts and detail, the rules' contracts, the
    finished shards, and every part record (a path inside the dataset, a part of
    a finished shard of this job, an integer size and row count, a SHA-256).
    """
    if not isinstance(m, dict):
        return f"is not a shanghai-sim manifest (a JSON {type(m).__name__}, not an object)"
    if m.get("format") != "shanghai-sim dataset":
        return "is not a shanghai-sim manifest (no \"format\": \"shanghai-sim dataset\")"
    job, rules, shards = m.get("job"), m.get("rules"), m.get("shards", {})
    if not isinstance(job, dict):
        return "lacks its job"
    for key in ("games", "shard_size", "players"):
        if not _int(job.get(key), 1):
            return f"has no valid job.{key} ({'missing' if job.get(key) is None else repr(job.get(key))})"
    if not _int(job.get("seed")) or job.get("detail") not in (HANDS, GAMES) \
            or not isinstance(job.get("bots"), list):
        return "has no valid job seed, detail or bots"
    rate = job.get("positions")
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 1):
        return f"has no valid job.positions ({rate!r}: a share of decisions, above 0 and at most 1)"
    if not isinstance(rules, dict) or not isinstance(rules.get("contracts"), list) or not rules["contracts"] \
            or not all(isinstance(c, dict) for c in rules["contracts"]):
        return "lacks the job's rules"
    if not isinstance(shards, dict) or not _int(shards.get("digits", 5), 1):
        return "has no valid shards section"
    n = -(-job["games"] // job["shard_size"])
    fin = shards.get("finished", [])
    if not isinstance(fin, list) or not all(isinstance(r, list) and len(r) == 2 and _int(r[0]) and _int(r[1])
                                            and r[0] <= r[1] < n for r in fin):
        return f"lists finished shards its job does not have ({n:,} shards)"
    parts = m.get("parts", {})
    if not isinstance(parts, dict):
        return "has no valid parts section"
    lay = Layout.of(m)
    finished = set(finished_list(m))
    for rel, rec in parts.items():
        if not isinstance(rel, str) or _outside(rel):
            return f"names a part outside the dataset ({rel!r})"
        t, _, name = rel.partition("/")
        k = _shard_of(name, lay.digits)
        if t not in lay.tables or k is None or k >= lay.n_shards:
            return f"records a part its job does not have ({rel!r})"
        if k not in finished:
            return f"records {rel} of a shard it does not list as finished"
        if not (isinstance(rec, dict) and _int(rec.get("bytes")) and _int(rec.get("rows"))
                and isinstance(rec.get("sha256"), str) and _HEX64.fullmatch(rec["sha256"])):
            return f"has a damaged record of {rel}"
    return None


def _shard_of(name: str, digits: int) -> int | None:
    """``part-00042.parquet`` -> 42 when the name is exactly a part's name of that width."""
    m = re.fullmatch(r"part-(\d+)\.parquet", name)
    if m is None:
        return None
    k = int(m.group(1))
    return k if part_name(k, digits) == name else None


@dataclass(frozen=True)
class Layout:
    """Shards, part names and row counts as a manifest describes them."""
    games: int
    shard_size: int
    players: int
    hands: int
    tables: tuple[str, ...]
    digits: int
    meta: dict[str, str]     # table -> the job metadata its parts carry (job_meta)

    @classmethod
    def of(cls, manifest: dict[str, Any]) -> "Layout":
        try:
            job, rules = manifest["job"], manifest["rules"]
            n = -(-int(job["games"]) // int(job["shard_size"]))
            digits = int(manifest.get("shards", {}).get("digits") or max(5, len(str(n - 1))))
            tables = job_tables(job["detail"], job.get("positions"))
            return cls(int(job["games"]), int(job["shard_size"]), int(job["players"]),
                       len(rules["contracts"]), tables, digits,
                       {t: job_meta(job, rules, t) for t in tables})
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise NotADatasetError(f"{MANIFEST} lacks part of the job ({e})") from None

    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    def shard_games(self, k: int) -> int:
        return min(self.games, (k + 1) * self.shard_size) - k * self.shard_size

    def rows(self, table: str, k: int) -> int | None:
        """The rows shard k's part of ``table`` holds (None for positions/: a draw; its
        record says)."""
        if table == POSITIONS:
            return None
        per_game = self.players * (self.hands if table == HANDS else 1)
        return self.shard_games(k) * per_game

    def part(self, k: int) -> str:
        return part_name(k, self.digits)


def finished_list(manifest: dict[str, Any]) -> list[int]:
    return [k for a, b in manifest.get("shards", {}).get("finished", []) for k in range(a, b + 1)]


def ignored_files(store: Store, manifest: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, why) of every file in a table folder (``hands/``, ``games/``, ``positions/``)
    that ``manifest`` does not record: readers never read them. Hidden names (a writer's ``.part-*.tmp-*``
    temporaries, ``.DS_Store``) are left out."""
    lay = Layout.of(manifest)
    records = manifest.get("parts") or {}
    out = []
    for t in TABLES:
        for name in store.listdir(t):
            rel = f"{t}/{name}"
            if name.startswith(".") or rel in records:
                continue
            k = _shard_of(name, lay.digits) if t in lay.tables else None
            if k is None or k >= lay.n_shards:
                why = "not a part of this job (unexpected name)"
            else:
                why = f"not recorded in {MANIFEST} (a shard being written, or a file copied in)"
            out.append((rel, why))
    return out


STATUSES = ("running", "complete", "interrupted", "failed")


def manifest_disagreements(m: dict[str, Any]) -> list[str]:
    """The manifest's own fields that disagree with its job and its finished shards (a
    manifest edited by hand, or damaged in a way that still parses): one reason each.

    Checked: ``games_done`` and ``rows`` (what the finished shards hold), ``shards``
    (count, size, pending), ``status`` (one the runner writes; ``complete`` only with every
    shard finished), ``schema_version`` (the one this version reads), ``tables``,
    ``seeds.job_seed`` and ``bots`` (the job's line-up, and the versions of its bots that
    this version plays; a manifest of another package version is not held to them).
    ``manifest_problem`` comes first: this needs a manifest that describes a job.
    """
    from . import __version__
    from .dataset import SCHEMA_VERSION
    lay = Layout.of(m)
    job = m["job"]
    finished = set(finished_list(m))
    games = sum(lay.shard_games(k) for k in finished)
    rows = {GAMES: games * lay.players}
    if HANDS in lay.tables:
        rows[HANDS] = games * lay.players * lay.hands
    if POSITIONS in lay.tables:         # drawn: as many as the finished shards' parts record
        parts = m.get("parts") or {}
        rows[POSITIONS] = sum(parts.get(f"{POSITIONS}/{lay.part(k)}", {}).get("rows", 0) for k in finished)
    out = []

    def show(v: Any) -> str:
        return json.dumps(v, sort_keys=True)[:80] if not isinstance(v, float) else repr(v)

    if not _int(m.get("games_done")) or m.get("games_done") != games:
        out.append(f"games_done is {show(m.get('games_done'))}; its {len(finished):,} finished shard(s) "
                   f"hold {games:,} games")
    got = m.get("rows")
    if not isinstance(got, dict) or set(got) != set(rows) or not all(_int(v) for v in got.values()) \
            or got != rows:
        out.append(f"rows is {show(got)}; its finished shards hold {show(rows)}")
    shards = m.get("shards") or {}
    for key, want in (("count", lay.n_shards), ("size", lay.shard_size),
                      ("pending", lay.n_shards - len(finished))):
        if key in shards or key == "pending":
            if not _int(shards.get(key)) or shards.get(key) != want:
                out.append(f"shards.{key} is {show(shards.get(key))}; its job has {want:,}")
    status = m.get("status")
    if status not in STATUSES:
        out.append(f"status is {show(status)}, not one the runner writes ({', '.join(STATUSES)})")
    elif status == "complete" and len(finished) != lay.n_shards:
        out.append(f"status is \"complete\" with {lay.n_shards - len(finished):,} of {lay.n_shards:,} "
                   "shards not finished")
    if m.get("schema_version") != SCHEMA_VERSION or isinstance(m.get("schema_version"), bool):
        out.append(f"schema_version is {show(m.get('schema_version'))}; this shanghai-sim reads version "
                   f"{SCHEMA_VERSION}")
    if "tables" in m and m.get("tables") != list(lay.tables):
        out.append(f"tables is {show(m.get('tables'))}; its job (detail {job.get('detail')}) writes "
                   f"{show(list(lay.tables))}")
    seeds = m.get("seeds")
    if "seeds" in m and not isinstance(seeds, dict):
        out.append(f"seeds is {show(seeds)}; expected the job's seeds (job_seed, game_seed, first_games)")
    elif isinstance(seeds, dict) and "job_seed" in seeds and seeds.get("job_seed") != job.get("seed"):
        out.append(f"seeds.job_seed is {show(seeds.get('job_seed'))}; its job's seed is {job.get('seed')}")
    bots = m.get("bots")
    if not isinstance(bots, dict):
        out.append("has no bots section")
    else:
        if "lineup" in bots and bots.get("lineup") != job.get("bots"):
            out.append(f"bots.lineup is {show(bots.get('lineup'))}; its job's bots are {show(job.get('bots'))}")
        try:
            from .bots import bot_versions
            want = bot_versions(job.get("bots") or [])
        except Exception:           # a spec this version cannot read: the parts' checks say more
            want = None
        had = bots.get("versions")
        if want is not None and had != want and m.get("package_version") == __version__:
            out.append(f"bots.versions is {show(had)}; its bots, as this shanghai-sim "
                       f"{__version__} plays them, are {show(want)}")
    return out


# ---------------------------------------------------------------- one part

def _short(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return (msg[0] if msg else type(e).__name__)[:160]


def _open_part(store: Store, table: str, name: str, record: dict | None, rows: int | None,
               meta: str | None, full: bool, games: tuple[int, int] | None = None,
               ) -> tuple[str | None, "pq.ParquetFile | None", "pa.Buffer | None"]:
    """Check one part file: (problem or None, its ParquetFile when sound, its bytes when read,
    in an Arrow buffer: ``Store.read_buffer``).
    ``games``: the shard's first and last game, checked against the ``game`` column of a
    part without a record (a part copied to another shard's name holds other games)."""
    size = store.size(table, name)
    if size is None:
        return ("missing" if not store.exists(table, name) else "not a file"), None, None
    if record is not None and size != record.get("bytes"):
        if _another_jobs(store, table, name, meta):
            return FOREIGN, None, None
        return f"{size:,} bytes, {record.get('bytes'):,} recorded (truncated, cut short or replaced)", None, None
    if size == 0:
        return "empty (0 bytes)", None, None
    data = None
    try:
        if full:
            data = store.read_buffer(table, name)
            if record is not None and hashlib.sha256(data).hexdigest() != record.get("sha256"):
                if _another_jobs(store, table, name, meta):
                    return FOREIGN, None, None
                return "its bytes differ from the recorded SHA-256 (changed in place)", None, None
            # Equal hashes mean the bytes are the ones written, page checksums included:
            # checking each page's CRC again while decoding would only re-check the writer.
            pf = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=record is None)
            if record is None:
                # No hash to compare with: read every page back, checking its CRC.
                whole = pf.read()
                n = whole.num_rows
                if games is not None and n:
                    g = whole.column("game")
                    lo, hi = pa.compute.min(g).as_py(), pa.compute.max(g).as_py()
                    # positions/ holds the games whose decisions were drawn, within the shard's
                    if ((lo, hi) != games if table != POSITIONS else not games[0] <= lo <= hi <= games[1]):
                        return f"holds games other than its shard's {games[0]:,}..{games[1]:,}", None, None
            else:
                # Decoding the pages here would only re-check the writer (ten times slower).
                n = pf.metadata.num_rows
        else:
            # Footer only; a reader that decodes pages later checks their CRCs on the way.
            pf = pq.ParquetFile(store.open_input(table, name), page_checksum_verification=True)
            n = pf.metadata.num_rows
        schema = pf.schema_arrow
    except (pa.ArrowException, OSError, ValueError, EOFError) as e:
        return f"unreadable ({_short(e)})", None, None
    if schema.names != SCHEMAS[table].names:
        return "columns are not those of a shanghai-sim " + table + " table", None, None
    if record is not None and n != record.get("rows"):
        return f"{n:,} rows, {record.get('rows'):,} recorded", None, None
    if rows is not None and n != rows:
        return f"{n:,} rows, {rows:,} expected for this shard", None, None
    if meta is not None and (schema.metadata or {}).get(JOB_META, b"").decode("utf-8", "replace") != meta:
        return FOREIGN, None, None
    return None, pf, data


def _another_jobs(store: Store, table: str, name: str, meta: str | None) -> bool:
    """Is this file a sound-looking part written for another job (a footer that parses,
    with other job metadata)? Such a file is a user's, not damage: never overwritten."""
    if meta is None:
        return False
    try:
        with store.open_input(table, name) as f:
            got = (pq.ParquetFile(f).schema_arrow.metadata or {}).get(JOB_META)
    except (pa.ArrowException, OSError, ValueError, EOFError):
        return False
    return got is not None and got.decode("utf-8", "replace") != meta


def check_part(store: Store, table: str, name: str, record: dict | None, rows: int | None,
               meta: str | None, full: bool = True,
               games: tuple[int, int] | None = None) -> tuple[str | None, dict | None]:
    """Check one part file. Returns (problem or None, the record of the file as it is
    when ``full`` and it is sound, else None).

    ``record``: the manifest's record (None: not recorded); ``rows``: the rows the
    shard must hold; ``meta``: the ``job_meta`` it must carry (None: not checked);
    ``games``: see ``_open_part``.
    """
    problem, pf, data = _open_part(store, table, name, record, rows, meta, full, games)
    if problem is not None or data is None:
        return problem, None
    return None, {"bytes": data.size, "rows": int(pf.metadata.num_rows), "sha256": hashlib.sha256(data).hexdigest()}


# ---------------------------------------------------------------- verify

@dataclass
class Finding:
    path: str            # "games/part-00003.parquet", or "manifest.json"
    reason: str

    def line(self, location: str) -> str:
        return f"{location.rstrip('/')}/{self.path}: {self.reason}"


@dataclass
class Report:
    location: str
    full: bool
    damaged: list[Finding] = field(default_factory=list)   # missing, damaged or stray: exit 1
    notes: list[str] = field(default_factory=list)          # not damage (shards not run yet, ...)
    parts: int = 0
    games: int = 0
    bytes: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.damaged

    def lines(self) -> list[str]:
        out = [f.line(self.location) for f in self.damaged]
        what = "full: sizes, SHA-256 of every byte, footers, rows, job" if self.full else \
            "quick: sizes, footers, rows, job; without --quick every byte is checked"
        mb = self.bytes / 1e6
        head = (f"{self.location}: {self.parts:,} sound parts, {self.games:,} games, {mb:,.1f} MB, "
                f"checked in {self.seconds:.1f}s ({what})")
        out.append(head)
        out += self.notes
        if any(f.path == MANIFEST for f in self.damaged):
            out.append(f"its {MANIFEST} disagrees with itself or its parts: restore it, or let `shanghai-sim "
                       f"run --resume --out {self.location}` write it again from the parts (if that refuses, "
                       "delete it first: --resume rebuilds it)")
        elif self.damaged:
            flag = " --quick" if not self.full else ""
            out.append(f"{len(self.damaged)} file(s) missing, damaged or not the job's; repair: "
                       f"shanghai-sim run --resume{flag} --out {self.location}")
        else:
            out.append("all parts are as written")
        return out


def load_manifest(store: Store) -> dict[str, Any]:
    """The manifest of ``store``; NotADatasetError (one line naming ``verify`` and
    ``run --resume``) if there is none, it is unreadable, or it does not describe a job."""
    loc = store.location.rstrip("/")
    if not store.is_dir():
        raise NotADatasetError(f"{store.location!r} is not a folder (no dataset there)")
    has_parts = store.exists(GAMES) or store.exists(HANDS)
    if not store.exists(MANIFEST):
        if has_parts:
            raise NotADatasetError(f"{loc}/{MANIFEST} is missing (deleted?): its parts cannot be trusted; "
                                   + manifest_hint(loc))
        raise NotADatasetError(f"{store.location!r} holds no shanghai-sim dataset (no {MANIFEST})")
    if store.is_dir(MANIFEST):
        raise NotADatasetError(f"{loc}/{MANIFEST} is a folder, not a manifest: move it away; " + manifest_hint(loc))
    try:
        text = store.read_text(MANIFEST)
        m = json.loads(text) if text.strip() else {}
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise NotADatasetError(f"{loc}/{MANIFEST} cannot be read ({_short(e)}); " + manifest_hint(loc)) from None
    problem = manifest_problem(m)
    if problem is not None:
        if m == {} or m == []:
            problem = "is empty"
        raise NotADatasetError(f"{loc}/{MANIFEST} {problem} (edited?); " + manifest_hint(loc))
    return m


def verify(location: str, full: bool = True) -> Report:
    """Check every part of the dataset at ``location`` against its manifest (every byte
    unless ``full`` is False), and name every file its folders hold that is not a part."""
    t0 = time.perf_counter()
    store = Store(location)
    m = load_manifest(store)
    lay = Layout.of(m)
    rep = Report(location, full)
    records: dict[str, dict] = m.get("parts") or {}
    finished = set(finished_list(m))
    for rel, why in ignored_files(store, m):
        k = _shard_of(rel.partition("/")[2], lay.digits)
        if k is not None and k < lay.n_shards and k not in finished and rel.partition("/")[0] in lay.tables:
            rep.notes.append(f"{rel}: written, not recorded yet (its shard is unfinished; "
                             "run --resume checks it and records it or plays it again)")
        else:
            rep.damaged.append(Finding(rel, why + f"; readers ignore it, run --resume moves it to {QUARANTINE}/"))
    for t in lay.tables:
        for k in sorted(finished):
            name = lay.part(k)
            rel = f"{t}/{name}"
            rec = records.get(rel)
            if rec is None:
                rep.damaged.append(Finding(rel, f"its shard is finished but {MANIFEST} has no record of it"))
                continue
            problem, _, _ = _open_part(store, t, name, rec, lay.rows(t, k), lay.meta[t], full)
            if problem is not None:
                rep.damaged.append(Finding(rel, problem))
                continue
            rep.parts += 1
            rep.bytes += rec["bytes"]
            if t == GAMES:
                rep.games += lay.shard_games(k)
    of_parts = [f for f in rep.damaged if f.path in records]
    if of_parts and not rep.parts and all(f.reason == FOREIGN for f in of_parts):
        rep.notes.append(f"{MANIFEST} describes another job than every part (edited or copied by hand?): "
                         f"restore it, or delete it and `shanghai-sim run --resume --out {location}` "
                         "rebuilds it from the parts")
    for why in manifest_disagreements(m):
        rep.damaged.append(Finding(MANIFEST, why + " (edited?)"))
    pending = lay.n_shards - len(finished)
    if pending:
        rep.notes.append(f"{pending:,} of {lay.n_shards:,} shards not run yet (status {m.get('status') or 'not recorded'}): "
                         f"finish with shanghai-sim run --resume --out {location}")
    rep.seconds = time.perf_counter() - t0
    return rep


# ---------------------------------------------------------------- safe reads

def iter_parts(location: str, table: str, columns: list[str] | None = None, *, full: bool = True,
               on_ignored: Callable[[str, str], None] | None = None) -> Iterator[tuple[str, pa.Table]]:
    """Yield ``(part name, table)`` for every part of ``table`` that the manifest records,
    in shard order, each checked before it is decoded: its size, the SHA-256 of its
    bytes (unless ``full`` is False), rows, columns and job against the manifest.

    No manifest, or one that does not describe a job: NotADatasetError. A missing or
    damaged part: DamagedPartError. Files of the folder that the manifest does not
    record are never read; each is passed to ``on_ignored(path, why)``, by default an
    ``IgnoredFileWarning``. An unfinished job yields its finished shards.
    """
    store = Store(location)
    loc = store.location.rstrip("/")
    m = load_manifest(store)
    lay = Layout.of(m)
    for rel, why in ignored_files(store, m):
        if rel.startswith(table + "/"):
            if on_ignored is not None:
                on_ignored(rel, why)
            else:
                warnings.warn(IgnoredFileWarning(f"{loc}/{rel}: ignored, {why}"), stacklevel=2)
    if table not in lay.tables:
        return
    records: dict[str, dict] = m.get("parts") or {}
    for k in sorted(set(finished_list(m))):
        name = lay.part(k)
        rel = f"{table}/{name}"
        rec = records.get(rel)
        if rec is None:
            problem = f"its shard is finished but {MANIFEST} has no record of it"
        else:
            problem, pf, _ = _open_part(store, table, name, rec, lay.rows(table, k), lay.meta[table], full)
            if problem is None:
                yield name, pf.read(columns=columns)
                continue
        if problem == FOREIGN:
            raise DamagedPartError(f"{loc}/{rel} was written for another job than {loc}/{MANIFEST} describes "
                                   f"(the manifest edited, or the part copied in); " + repair_hint(loc))
        raise DamagedPartError(f"{loc}/{rel} is damaged ({problem}); " + repair_hint(loc))


def read_table(location: str, table: str = GAMES, columns: list[str] | None = None, *,
               full: bool = True) -> pa.Table:
    """A whole table of a dataset, every part checked (``iter_parts``)."""
    parts = [t for _, t in iter_parts(location, table, columns, full=full)]
    if not parts:
        raise NotADatasetError(f"{location!r} holds no finished {table}/ part yet")
    return pa.concat_tables(parts)
