"""The output folder: manifest writing and reading, resume identity, part checks, the lock."""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from .. import __version__
from ..dataset import GAMES, HANDS, MANIFEST, POSITIONS, SCHEMA_VERSION, TABLES, Store
from ..integrity import FOREIGN, JOB_META, check_part, finished_list
from ..rules import Rules, RulesError, overrides, preset
from .job import IDENTITY_KEYS, JOB_KEYS, Job, JobError, _is_url, normalise
from .planning import Plan

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


# ---------------------------------------------------------------- output folder

def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def read_manifest(store: Store) -> dict[str, Any]:
    """The manifest of ``store`` (``integrity.load_manifest``), its one-line reason as a JobError."""
    from ..integrity import NotADatasetError, load_manifest
    try:
        return load_manifest(store)
    except NotADatasetError as e:
        raise JobError(str(e)) from None


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


def _holds_parts(store: Store) -> bool:
    """Does a table folder (``hands/``, ``games/``, ``positions/``) hold anything but hidden
    names (a writer's temporaries)? Empty table folders, or a leftover temporary, are no
    dataset: nothing to keep."""
    for t in TABLES:
        if store.exists(t) and not store.is_dir(t):
            return True
        if any(not n.startswith(".") for n in store.listdir(t)):
            return True
    return False


def _part_job(store: Store, t: str, name: str) -> tuple[str, dict[str, Any], int, int] | None:
    """(metadata text, its job, shard number, rows) of a part file, or None when it has no
    readable metadata or its games are not those of the shard its name says."""
    import pyarrow.parquet as pq
    try:
        k = int(name[len("part-"):-len(".parquet")])
        with store.open_input(t, name) as f:
            pf = pq.ParquetFile(f)
            text = (pf.schema_arrow.metadata or {})[JOB_META].decode()
            meta = json.loads(text)
            rows = pf.metadata.num_rows
            first = pf.read_row_group(0, columns=["game"]).column("game")[0].as_py() if rows else None
    except Exception:          # a damaged part, or one without the metadata: not evidence
        return None
    if not isinstance(meta, dict) or not isinstance(meta.get("shard_size"), int):
        return None
    size = meta["shard_size"]
    # positions/ holds the games whose decisions were drawn: its first need not be the shard's
    if first != k * size and not (t == POSITIONS and first is not None and k * size <= first < (k + 1) * size):
        return None
    return text, meta, k, rows


def job_from_parts(store: Store, given: dict[str, Any]) -> dict[str, Any]:
    """Job options read back from the parts' ``shanghai_sim.job`` metadata, for a dataset
    whose manifest was deleted or damaged.

    The job is the one most parts were written for (with ``given`` options such as
    ``--seed``, among the parts that agree with them); parts of other jobs are left
    for the checks to refuse. The game count is ``given["games"]``, else inferred from
    the job's last part (the last shards may never have run: say --games)."""
    votes: dict[str, list[tuple[str, dict, int, int]]] = {}
    for t in (GAMES, HANDS):           # positions/ parts carry the same job, but not the game count
        for name in _part_names(store, t):
            got = _part_job(store, t, name)
            if got is not None:
                votes.setdefault(got[0], []).append((t, got[1], got[2], got[3]))
    wanted = {k: v for k, v in given.items() if k in ("players", "seed", "rotate", "detail", "shard_size",
                                                       "seating")}
    fits = {text: ps for text, ps in votes.items()
            if all(ps[0][1].get(k, "rotate" if k == "seating" else None) == v for k, v in wanted.items())}
    for text, ps in sorted(fits.items(), key=lambda kv: (-len(kv[1]), min(p[2] for p in kv[1]))):
        meta = ps[0][1]
        try:
            base = normalise({key: meta.get(key) for key in ("players", "bots", "seed", "rotate",
                                                             "detail", "shard_size", "seating")}, "parts")
            base["rules"] = rules_from_dict(meta["rules"])
        except Exception:          # metadata that does not make a job: try another
            continue
        last = []
        for t, _, k, rows in ps:
            per_game = base["players"] * (len(meta["rules"]["contracts"]) if t == HANDS else 1)
            last.append(k * base["shard_size"] + rows // per_game)
        base["games"] = max(last)
        rate = _positions_rate(store, text)
        if rate is not None and "positions" not in given:
            base["positions"] = rate
        base.update(given)
        return base
    raise JobError(f"{store.location}: no {MANIFEST} and no readable part to rebuild it from"
                   + (" that agrees with the options given" if votes else "")
                   + "; give the job's options with --overwrite to start again")


def _positions_rate(store: Store, text: str) -> float | None:
    """The positions rate the positions/ parts of the job whose hands/ and games/ parts carry
    ``text`` were recorded at (most of them agreeing), or None when it has none."""
    rates: dict[float, int] = {}
    for name in _part_names(store, POSITIONS):
        got = _part_job(store, POSITIONS, name)
        if got is None:
            continue
        meta = dict(got[1])
        rate = meta.pop("positions", None)
        if json.dumps(meta, sort_keys=True, separators=(",", ":")) == text and isinstance(rate, float):
            rates[rate] = rates.get(rate, 0) + 1
    return max(rates, key=lambda r: rates[r]) if rates else None


def job_for_resume(out: str, given: dict[str, Any]) -> Job:
    """The job recorded in OUT's manifest (or, without one, in its parts), with ``given``
    options on top (checked later)."""
    store = Store(out if _is_url(out) else os.path.abspath(out))
    given = normalise(given, "options")
    names = store.listdir()
    m = _manifest_or_none(store) if MANIFEST in names else None
    if m is None:
        if not _holds_parts(store):
            if MANIFEST in names:
                read_manifest(store)                 # raises its one-line reason
            # Nothing records a job here (a run stopped before its first write, or the wrong
            # folder): never guess one, above all not the defaults.
            from ..integrity import QUARANTINE
            others = [n for n in names if not n.startswith(".") and n not in (*TABLES, QUARANTINE, LOCK)]
            if others:
                raise JobError(f"output {out!r} is not empty and holds no shanghai-sim dataset "
                               f"({others[0]!r}...); choose a new or empty folder")
            where = "does not exist" if not store.exists() else (
                "is a file, not a folder" if not store.is_dir() else f"holds no job (no {MANIFEST}, no parts)")
            raise JobError(f"output {out!r} {where}: --resume finishes the job recorded there, and there is "
                           "none to finish; start the job with the same command without --resume")
        base = job_from_parts(store, {k: v for k, v in given.items() if k in JOB_KEYS and k != "out"})
        return Job(**dict(base, out=out))
    edited = (f"{store.location}/{MANIFEST} does not describe a job ({{}}; edited?): restore it, or delete it "
              f"and `shanghai-sim run --resume --out {out}` rebuilds it from the parts")
    try:
        base = normalise({k: m["job"][k] for k in IDENTITY_KEYS if k in m["job"]}, "manifest")
    except JobError as e:
        raise JobError(edited.format(e)) from None
    if len(base.get("bots", ())) not in (1, base.get("players")):
        raise JobError(edited.format(f"{len(base['bots'])} bots for {base.get('players', 'an unrecorded number of')} players"))
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
    return (all(old.get(k) == new.get(k) for k in IDENTITY_KEYS)
            and manifest.get("rules") == plan_.rules.to_dict())


def _differences(manifest: dict[str, Any], plan_: Plan) -> dict[str, tuple[Any, Any]]:
    """key -> (value in the dataset, value asked), for every key that differs."""
    old, new = manifest.get("job", {}), plan_.identity()
    out = {k: (old.get(k), new.get(k)) for k in IDENTITY_KEYS if old.get(k) != new.get(k)}
    if manifest.get("rules") != plan_.rules.to_dict():
        out["rules"] = (old.get("rules"), new["rules"])
    return out


def _fmt_value(k: str, v: Any) -> str:
    if v is None:                   # a field the job leaves unset: in words, never Python's None
        return {"seating": "plain games (no seating)", "positions": "no positions table"}.get(k, "not set")
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
    strays: list[tuple[str, str]] = field(default_factory=list)   # (path, why): files to quarantine

    @property
    def finished_as_recorded(self) -> bool:
        """Is the job complete by its manifest, every part recorded as it is on disk, and
        nothing to move? (Only then is there nothing to do: completion is read from the
        manifest, never from the parts alone.)"""
        from ..integrity import finished_list, manifest_disagreements
        old = self.old
        return (old is not None and self.extend_from is None and not self.strays and not self.repairs
                and old.get("status") == "complete"
                and set(finished_list(old)) == self.done and (old.get("parts") or {}) == self.records
                and not manifest_disagreements(old))        # else --resume writes it again


def check_shards(store: Store, plan: Plan, manifest: dict[str, Any] | None, full: bool = True,
                 quiet_shards: Iterable[int] = ()) -> tuple[set[int], dict[str, dict], list[str]]:
    """Which shards' parts are sound: (done, their records, damaged or missing parts).

    A finished shard's parts are checked against their manifest records (every
    byte with ``full``, the default; sizes, footers, rows and job without); a part
    on disk that the manifest does not record (written after its last update, or
    with no manifest to rebuild from) gets the full checks, its games included,
    must carry this job's metadata, and is recorded as it is. ``quiet_shards`` are
    replayed without being reported (the last shard of a job being extended).
    """
    from ..integrity import finished_list
    records = (manifest or {}).get("parts") or {}
    finished = set(finished_list(manifest)) if manifest else set()
    listing = {t: set(_part_names(store, t)) for t in plan.tables}
    quiet = set(quiet_shards)
    done: set[int] = set()
    keep: dict[str, dict] = {}
    repairs: list[str] = []
    for k in range(plan.n_shards):
        name = plan.part(k)
        first, end = plan.bounds(k)
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
            problem, fresh = check_part(store, t, name, rec, plan.shard_rows(t, k), plan.job_meta(t),
                                        full=full or rec is None, games=(first, end - 1))
            if problem is not None:
                if k not in quiet or problem == FOREIGN:
                    repairs.append(f"{rel}: {problem}")
                ok = False
            else:
                recs[rel] = rec if rec is not None else fresh
        if ok:
            done.add(k)
            keep.update(recs)
    return done, keep, repairs


NOT_THE_JOBS = (FOREIGN, "holds games other than")


def _strays(store: Store, plan: Plan, repairs: list[str]) -> list[tuple[str, str]]:
    """(path, why) of the files in ``hands/`` and ``games/`` that are not this job's: names no
    part of it has, a table it does not write, and parts written for another job or
    holding another shard's games (from ``repairs``). ``--resume`` moves them to
    ``quarantine/``; hidden names (a writer's temporaries) are not among them."""
    expected = {plan.part(k) for k in range(plan.n_shards)}
    out = []
    for t in TABLES:
        for name in store.listdir(t):
            if name.startswith("."):
                continue
            if t not in plan.tables:
                out.append((f"{t}/{name}", f"this job writes no {t}/ table"))
            elif name not in expected or store.is_dir(t, name):
                out.append((f"{t}/{name}", "not a part of this job (unexpected name)"))
    for r in repairs:
        rel, _, why = r.partition(": ")
        if why.startswith(NOT_THE_JOBS):
            out.append((rel, why))
    return out


def quarantine(store: Store, strays: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Move each stray file to ``OUT/quarantine/`` (same table folder; a free name if one is
    taken): never deleted. Returns (from, to) pairs, relative to the dataset."""
    from ..integrity import QUARANTINE
    moved = []
    for rel, _ in strays:
        t, _, name = rel.partition("/")
        store.makedirs(QUARANTINE, t)
        dest, n = name, 1
        while store.exists(QUARANTINE, t, dest):
            dest, n = f"{name}.{n}", n + 1
        store.move((t, name), (QUARANTINE, t, dest))
        moved.append((rel, f"{QUARANTINE}/{t}/{dest}"))
    return moved


LOCK = ".shanghai-sim.lock"



def _is_version(v) -> bool:
    """A manifest's record of a bot's version: an int, or the sorted ints of the versions
    a line-up plays (bots.bot_versions)."""
    ok = lambda x: isinstance(x, int) and not isinstance(x, bool)     # noqa: E731
    return ok(v) or (isinstance(v, list) and len(v) > 1 and all(ok(x) for x in v))


def _prepare(plan: Plan, resume: bool, overwrite: bool, full: bool = True,
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
    names = [n for n in store.listdir() if not (n.startswith(".") and ".tmp-" in n)
             and n not in (LOCK, ".write-test")]
    if not names or (MANIFEST not in names and set(names) <= set(TABLES) and not _holds_parts(store)):
        # new, empty, or left by a run stopped before its first manifest (empty table folders):
        # nothing to keep, so the job starts afresh (with or without --resume)
        store.probe()
        return Prepared(store, None, set())
    from ..integrity import QUARANTINE
    if store.is_dir(MANIFEST):
        raise JobError(f"output {where!r}: its {MANIFEST} is a folder, not a manifest; move it away "
                       "(then --resume rebuilds the manifest from the parts)")
    foreign = sorted(set(names) - {MANIFEST, *TABLES, QUARANTINE, ".write-test"})
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
        if not checks:
            return Prepared(store, None, set(), rebuilt=True)
        done, records, repairs = check_shards(store, plan, None, True)
        strays = _strays(store, plan, repairs)
        moved = {rel for rel, _ in strays}
        store.probe()
        return Prepared(store, None, done, records=records,
                        repairs=[r for r in repairs if r.partition(": ")[0] not in moved],
                        rebuilt=True, strays=strays)
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
    if old.get("schema_version") != SCHEMA_VERSION:
        raise JobError(f"output {where!r}: its {MANIFEST} records dataset schema version "
                       f"{str(old.get('schema_version'))[:20]} (this shanghai-sim writes {SCHEMA_VERSION}); use "
                       "another --out or --overwrite, or restore the manifest if it was edited")
    if old.get("package_version") != __version__:
        raise JobError(f"output {where!r} was written by shanghai-sim {old.get('package_version') or '(version not recorded)'} "
                       f"(this is {__version__}); its rows may differ: use another --out or --overwrite")
    from ..bots import bot_versions
    bots = old.get("bots", {})          # an edited manifest's bots may be no object at all
    had, now = bots.get("versions", {}) if isinstance(bots, dict) else bots, bot_versions(plan.lineup)
    if had != now and (not isinstance(had, dict) or set(had) != set(now)
                       or not all(_is_version(v) for v in had.values())):
        raise JobError(f"output {where!r}: its {MANIFEST} records the bots' versions as {str(had)[:120]}, "
                       f"not one version for each of the job's bots ({', '.join(now)}): the manifest was "
                       f"edited or damaged; restore it, or delete it and `shanghai-sim run --resume --out "
                       f"{where}` rebuilds it from the parts")
    if had != now:
        desc = ", ".join(f"{b} v{had.get(b, '?')} there, v{v} here" for b, v in now.items() if had.get(b) != v)
        raise JobError(f"output {where!r} was played by other versions of its bots ({desc or had}): "
                       "games of two versions of a bot must not mix; use another --out or --overwrite")
    if not checks:
        return Prepared(store, old, set(), extend_from=extend_from)
    quiet: list[int] = []
    if extend_from is not None and extend_from % plan.shard_size:
        quiet = [extend_from // plan.shard_size]           # the old last shard grows
    done, records, repairs = check_shards(store, plan, old, full, quiet)
    foreign_parts = [r for r in repairs if r.endswith(FOREIGN)]
    if foreign_parts and not done and len(foreign_parts) >= len(finished_list(old)) * len(plan.tables) > 0:
        # Not damage: the manifest and the parts disagree on the job (a manifest edited
        # or copied by hand). Playing "again" would replace the parts with another job's.
        raise JobError(f"output {where!r}: its {MANIFEST} describes another job than its parts "
                       f"({foreign_parts[0].split(':')[0]} and {len(foreign_parts) - 1} more); restore the "
                       f"manifest, or delete it and `shanghai-sim run --resume --out {where}` rebuilds it "
                       "from the parts")
    strays = _strays(store, plan, repairs)
    moved = {rel for rel, _ in strays}
    repairs = [r for r in repairs if r.partition(": ")[0] not in moved]
    prep = Prepared(store, old, done, records=records, repairs=repairs, extend_from=extend_from,
                    strays=strays)
    if prep.finished_as_recorded:
        return prep
    if not resume and not done and not repairs and not strays and not finished_list(old) \
            and not _holds_parts(store):
        # this job's manifest and nothing else (a run stopped before its first part):
        # nothing to lose, so the same command starts it again
        store.probe()
        return prep
    if not resume:
        if len(done) == plan.n_shards and extend_from is None and not repairs and not strays:
            what = "this job complete, but its manifest does not say so yet (a run stopped while finishing)"
        elif len(done) == plan.n_shards and extend_from is None and not repairs:
            raise JobError(f"output {where!r} holds this job complete, with {len(strays)} file(s) in its folders "
                           f"that are not the job's ({strays[0][0]}: {strays[0][1]}); add --resume to move them "
                           f"to {where}/quarantine/")
        else:
            what = f"an unfinished run of this job ({len(done)}/{plan.n_shards} shards"
            if repairs:
                what += f", {len(repairs)} part(s) missing or damaged"
            if strays:
                what += f", {len(strays)} file(s) not the job's"
            what += ")"
        raise JobError(f"output {where!r} holds {what}; add --resume to finish it, "
                       "or --overwrite to start again")
    store.probe()
    return prep


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



def _ranges(ks: list[int]) -> list[list[int]]:
    """Sorted shard numbers -> inclusive [first, last] runs: [0, 1, 2, 5] -> [[0, 2], [5, 5]]."""
    out: list[list[int]] = []
    for k in ks:
        if out and out[-1][1] == k - 1:
            out[-1][1] = k
        else:
            out.append([k, k])
    return out


def diagnostic_lineup(lineup) -> list[dict[str, Any]]:
    """The diagnostic bots of a line-up (bots that cheat on purpose, ``rollout:oracle=...``), as
    a manifest records them: each spec, the line-up's places it holds and what it sees."""
    from ..bots import diagnostic_specs
    return [{"spec": b.name, "lineup_seats": [i for i, s in enumerate(lineup) if s == b.name],
             "sees": b.diagnostic} for b in diagnostic_specs(list(lineup))]


def new_manifest(plan: Plan) -> dict[str, Any]:
    first = plan.seeds(0, min(plan.games, 3))
    from ..bots import bot_versions
    bots: dict[str, Any] = {"lineup": list(plan.lineup), "seating": plan.seating_text(),
                            "versions": bot_versions(plan.lineup)}
    if plan.seating == "tournament":          # recorded only when used: other manifests are unchanged
        bots["seatings"] = plan.seatings().tolist()
    diagnostic = diagnostic_lineup(plan.lineup)
    if diagnostic:                            # likewise: a bot that cheats played (bots.Diagnostic)
        bots["diagnostic"] = diagnostic
    return {
        "format": "shanghai-sim dataset",
        "schema_version": SCHEMA_VERSION,
        "package_version": __version__,
        "status": "running",
        "job": plan.identity(),
        "rules": plan.rules.to_dict(),
        **({"diagnostic": True} if diagnostic else {}),
        "bots": bots,
        "seeds": {"job_seed": plan.seed,
                  "game_seed": (f"shanghai_sim.kernels.base.rng.game_seed_nb(job_seed, game // "
                                f"{'players' if plan.duplicate else plan.games_per_deal})" if plan.paired
                                else "shanghai_sim.kernels.base.rng.game_seed_nb(job_seed, game)"),
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
