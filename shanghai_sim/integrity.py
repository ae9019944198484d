"""Is every part file of a dataset what was written? Checks, ``verify``, and safe reads.

The manifest records each part file when its shard is finished::

    "parts": {"games/part-00000.parquet": {"bytes": 41133, "rows": 400, "sha256": "9f2c..."}, ...}

and every part carries, in its Parquet key-value metadata (``shanghai_sim.job``),
the job it was written for: the resolved rules, players, line-up, seed,
rotation, detail and shard size (not the game count, so that extending a job
keeps its parts). Parts are written with Parquet page checksums.

Two levels of checking a part:

- quick (the default of ``verify`` and of ``run --resume``): the file is there,
  its size is the recorded one, its footer parses, its row count and columns
  are the expected ones and it was written for this job. Reads only footers.
- full (``--full``): also the SHA-256 of every byte against the record
  (catches bytes changed in place, which leave size and footer alone). Equal
  hashes mean the file is the one written, its page checksums included; a part
  the manifest does not record has no hash to compare, so every page of it is
  read back instead, its CRC checked. Reads every byte once.

Readers (``iter_parts``, ``read_table``; ``summary`` uses them) check sizes
and rows against the manifest and verify page checksums as they read; a part
that fails is a ``DamagedPartError``: one line naming the file and the way out.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from .dataset import GAMES, HANDS, MANIFEST, SCHEMAS, DamagedPartError, DatasetError, Store, part_name

JOB_META = b"shanghai_sim.job"
FOREIGN = "written for another job (its shanghai_sim.job metadata differs)"
QUICK, FULL = "quick", "full"


class NotADatasetError(DatasetError):
    """OUT is not a shanghai-sim dataset (no folder, no readable manifest): one line."""


def job_meta(job: dict[str, Any], rules: dict[str, Any]) -> str:
    """The ``shanghai_sim.job`` metadata of a part: what its rows depend on.

    ``job`` is a manifest's ``job`` section (or ``Plan.identity()``), ``rules``
    the resolved rules. The game count and the rules' spelling are left out: a
    shard's rows do not depend on them.
    """
    keep = {k: job.get(k) for k in ("players", "bots", "seed", "rotate", "detail", "shard_size")}
    keep["rules"] = rules
    return json.dumps(keep, sort_keys=True, separators=(",", ":"))


def repair_hint(location: str) -> str:
    return (f"`shanghai-sim verify {location}` lists every damaged part; "
            f"`shanghai-sim run --resume --full-check --out {location}` plays them again")


# ---------------------------------------------------------------- what a manifest expects

@dataclass(frozen=True)
class Layout:
    """Shards, part names and row counts as a manifest describes them."""
    games: int
    shard_size: int
    players: int
    hands: int
    tables: tuple[str, ...]
    digits: int
    meta: str

    @classmethod
    def of(cls, manifest: dict[str, Any]) -> "Layout":
        try:
            job, rules = manifest["job"], manifest["rules"]
            n = -(-int(job["games"]) // int(job["shard_size"]))
            digits = int(manifest.get("shards", {}).get("digits") or max(5, len(str(n - 1))))
            tables = (HANDS, GAMES) if job["detail"] == "hands" else (GAMES,)
            return cls(int(job["games"]), int(job["shard_size"]), int(job["players"]),
                       len(rules["contracts"]), tables, digits, job_meta(job, rules))
        except (KeyError, TypeError, ValueError) as e:
            raise NotADatasetError(f"{MANIFEST} lacks part of the job ({e})") from None

    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    def shard_games(self, k: int) -> int:
        return min(self.games, (k + 1) * self.shard_size) - k * self.shard_size

    def rows(self, table: str, k: int) -> int:
        per_game = self.players * (self.hands if table == HANDS else 1)
        return self.shard_games(k) * per_game

    def part(self, k: int) -> str:
        return part_name(k, self.digits)


def finished_list(manifest: dict[str, Any]) -> list[int]:
    return [k for a, b in manifest.get("shards", {}).get("finished", []) for k in range(a, b + 1)]


# ---------------------------------------------------------------- one part

def _short(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return (msg[0] if msg else type(e).__name__)[:160]


def check_part(store: Store, table: str, name: str, record: dict | None, rows: int | None,
               meta: str | None, full: bool = False) -> tuple[str | None, dict | None]:
    """Check one part file. Returns (problem or None, the record of the file as it is
    when ``full`` and it is sound, else None).

    ``record``: the manifest's record (None: not recorded); ``rows``: the rows the
    shard must hold; ``meta``: the ``job_meta`` it must carry (None: not checked).
    """
    size = store.size(table, name)
    if size is None:
        return "missing", None
    if record is not None and size != record.get("bytes"):
        return f"{size:,} bytes, {record.get('bytes'):,} recorded (truncated, cut short or replaced)", None
    if size == 0:
        return "empty (0 bytes)", None
    data = None
    try:
        if full:
            data = store.read_bytes(table, name)
            if record is not None and hashlib.sha256(data).hexdigest() != record.get("sha256"):
                return "its bytes differ from the recorded SHA-256 (changed in place)", None
            pf = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
            if record is None:
                # No hash to compare with: read every page back, checking its CRC.
                n = pf.read().num_rows
            else:
                # The bytes are the ones written, page checksums included: decoding the
                # pages again would only re-check the writer (and is ten times slower).
                n = pf.metadata.num_rows
            schema = pf.schema_arrow
        else:
            with store.open_input(table, name) as f:
                pf = pq.ParquetFile(f)
                n, schema = pf.metadata.num_rows, pf.schema_arrow
    except (pa.ArrowException, OSError, ValueError, EOFError) as e:
        return f"unreadable ({_short(e)})", None
    if schema.names != SCHEMAS[table].names:
        return "columns are not those of a shanghai-sim " + table + " table", None
    if record is not None and n != record.get("rows"):
        return f"{n:,} rows, {record.get('rows'):,} recorded", None
    if rows is not None and n != rows:
        return f"{n:,} rows, {rows:,} expected for this shard", None
    if meta is not None and (schema.metadata or {}).get(JOB_META, b"").decode() != meta:
        return FOREIGN, None
    if data is None:
        return None, None
    return None, {"bytes": len(data), "rows": int(n), "sha256": hashlib.sha256(data).hexdigest()}


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
    damaged: list[Finding] = field(default_factory=list)   # missing or damaged: exit 1
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
        what = "full: sizes, footers, rows, SHA-256 of every byte" if self.full else \
            "quick: sizes, footers, rows; --full also checks every byte"
        mb = self.bytes / 1e6
        head = (f"{self.location}: {self.parts:,} sound parts, {self.games:,} games, {mb:,.1f} MB, "
                f"checked in {self.seconds:.1f}s ({what})")
        out.append(head)
        out += self.notes
        if self.damaged:
            flag = " --full-check" if self.full else ""
            out.append(f"{len(self.damaged)} part(s) missing or damaged; repair: "
                       f"shanghai-sim run --resume{flag} --out {self.location}")
        else:
            out.append("all parts are as written")
        return out


def load_manifest(store: Store) -> dict[str, Any]:
    """The manifest of ``store``; NotADatasetError (one line) if there is none or it is unreadable."""
    loc = store.location
    if not store.is_dir():
        raise NotADatasetError(f"{loc!r} is not a folder (no dataset there)")
    if not store.exists(MANIFEST):
        if store.exists(GAMES) or store.exists(HANDS):
            raise NotADatasetError(f"{loc}/{MANIFEST} is missing (deleted?): its parts cannot be checked; "
                                   f"`shanghai-sim run --resume --out {loc}` rebuilds it from the parts")
        raise NotADatasetError(f"{loc!r} holds no shanghai-sim dataset (no {MANIFEST})")
    try:
        m = json.loads(store.read_text(MANIFEST))
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise NotADatasetError(f"{loc}/{MANIFEST} cannot be read ({_short(e)}); "
                               f"`shanghai-sim run --resume --out {loc}` rebuilds it from the parts") from None
    if not isinstance(m, dict) or m.get("format") != "shanghai-sim dataset" or "job" not in m:
        raise NotADatasetError(f"{loc}/{MANIFEST} is not a shanghai-sim manifest")
    return m


def verify(location: str, full: bool = False) -> Report:
    """Check every part of the dataset at ``location`` against its manifest."""
    t0 = time.perf_counter()
    store = Store(location)
    m = load_manifest(store)
    lay = Layout.of(m)
    rep = Report(location, full)
    records: dict[str, dict] = m.get("parts") or {}
    finished = set(finished_list(m))
    for t in lay.tables:
        present = {n for n in store.listdir(t) if n.endswith(".parquet") and not n.startswith(".")}
        expected = {lay.part(k): k for k in range(lay.n_shards)}
        for name in sorted(present - expected.keys()):
            rep.damaged.append(Finding(f"{t}/{name}", "not a part of this job (unexpected name)"))
        for name, k in expected.items():
            rel = f"{t}/{name}"
            rec = records.get(rel)
            if k not in finished and name not in present:
                continue                                     # not run yet: a note below
            if k in finished and rec is None and name in present:
                rep.notes.append(f"{rel}: not recorded in {MANIFEST} (written by an older version?); "
                                 "checked without a record")
            problem, _ = check_part(store, t, name, rec, lay.rows(t, k), lay.meta, full)
            if problem is not None:
                if k not in finished:
                    problem += " (its shard is not finished: run --resume replaces it)"
                rep.damaged.append(Finding(rel, problem))
                continue
            rep.parts += 1
            rep.bytes += rec["bytes"] if rec else (store.size(t, name) or 0)
            if t == GAMES:
                rep.games += lay.shard_games(k)
    if rep.damaged and not rep.parts and all(f.reason == FOREIGN for f in rep.damaged):
        rep.notes.append(f"{MANIFEST} describes another job than every part (edited or copied by hand?): "
                         f"restore it, or delete it and `shanghai-sim run --resume --out {location}` "
                         "rebuilds it from the parts")
    pending = lay.n_shards - len(finished)
    if pending:
        rep.notes.append(f"{pending:,} of {lay.n_shards:,} shards not run yet (status {m.get('status')}): "
                         f"finish with shanghai-sim run --resume --out {location}")
    rep.seconds = time.perf_counter() - t0
    return rep


# ---------------------------------------------------------------- safe reads

def iter_parts(location: str, table: str, columns: list[str] | None = None) -> Iterator[tuple[str, pa.Table]]:
    """Yield ``(part name, table)`` for every part of ``table``, in shard order, checked
    on the way: sizes and rows against the manifest (when there is one), page
    checksums as pages are read. A missing or damaged part raises DamagedPartError."""
    store = Store(location)
    records: dict[str, dict] = {}
    names = {n for n in store.listdir(table) if n.endswith(".parquet") and not n.startswith(".")}
    if store.exists(MANIFEST):
        try:
            m = json.loads(store.read_text(MANIFEST))
            records = {k.split("/", 1)[1]: v for k, v in (m.get("parts") or {}).items()
                       if k.startswith(table + "/")}
        except (OSError, ValueError, AttributeError, IndexError):
            records = {}
    for name in sorted(names | records.keys()):
        rel = f"{table}/{name}"
        rec = records.get(name)
        size = store.size(table, name)
        problem = None
        if size is None:
            problem = "missing"
        elif rec is not None and size != rec.get("bytes"):
            problem = f"{size:,} bytes, {rec.get('bytes'):,} recorded"
        elif size == 0:
            problem = "empty (0 bytes)"
        if problem is None:
            try:
                with store.open_input(table, name) as f:
                    pf = pq.ParquetFile(f, page_checksum_verification=True)
                    if rec is not None and pf.metadata.num_rows != rec.get("rows"):
                        problem = f"{pf.metadata.num_rows:,} rows, {rec.get('rows'):,} recorded"
                    else:
                        yield name, pf.read(columns=columns)
                        continue
            except (pa.ArrowException, OSError, ValueError, EOFError) as e:
                problem = f"unreadable: {_short(e)}"
        raise DamagedPartError(f"{store.location.rstrip('/')}/{rel} is damaged ({problem}); "
                               + repair_hint(store.location))


def read_table(location: str, table: str = GAMES, columns: list[str] | None = None) -> pa.Table:
    """A whole table of a dataset, every part checked (``iter_parts``)."""
    parts = [t for _, t in iter_parts(location, table, columns)]
    if not parts:
        raise NotADatasetError(f"{location!r} holds no {table}/ part files")
    return pa.concat_tables(parts)
