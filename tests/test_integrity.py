"""Damaged datasets (issue 19): each damage is found, said in one line, and repaired
by playing its shards again, to a dataset equal to an undamaged one row for row and
byte for byte. Also: a full disk, two runs into one folder, and extending a job.

Jobs are 120 games in shards of 25 (five parts, the last one short) on the
engine test double (``test_runner_support.ENGINE``).
"""

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from shanghai_sim import dataset as D
from shanghai_sim import runner
from shanghai_sim.integrity import iter_parts, read_table, verify

from test_runner_support import ENGINE, run_cli

JOB = ("--bots", "random,greedy,greedy,greedy", "--games", 120, "--shard-size", 25, "--threads", 1)


def make(out, *extra):
    r = run_cli("run", "--out", out, *JOB, *extra, "--quiet")
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """An undamaged dataset of the job, to compare repairs with."""
    return make(tmp_path_factory.mktemp("clean") / "ds")


def fingerprint(out):
    """Every part's SHA-256, and the manifest's part records: equal fingerprints, equal bytes."""
    out = Path(out)
    files = {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(out.glob("*/part-*.parquet"))}
    m = json.loads((out / "manifest.json").read_text())
    return files, m["parts"], m["status"], m["shards"]["finished"]


def assert_identical(a, b):
    fa, fb = fingerprint(a), fingerprint(b)
    assert fa == fb
    for t in ("hands", "games"):                               # and row for row
        assert read_table(str(a), t).equals(read_table(str(b), t))
    assert not [p for p in Path(b).rglob(".*")]                # no temporaries, no lock left


def one_line(r, *words):
    lines = r.output.strip().splitlines()
    assert len(lines) == 1, r.output
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def copy_of(clean, tmp_path):
    import shutil
    out = tmp_path / "ds"
    shutil.copytree(clean, out)
    return out


def flip_inside_a_page(path, column="turns", n=64):
    """Zero ``n`` bytes inside the data page of ``column`` (size and footer stay).
    Readers check the pages they read: summary reads turns (hands/) and points (games/)."""
    col = pq.ParquetFile(path).metadata.row_group(0).column(
        pq.ParquetFile(path).schema_arrow.names.index(column))
    start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
    end = start + col.total_compressed_size
    data = bytearray(path.read_bytes())
    at = end - n - 8
    data[at:at + n] = bytes(n) if any(data[at:at + n]) else b"\xff" * n
    path.write_bytes(bytes(data))


# ------------------------------------------------------------ the record

def test_the_manifest_records_every_part(clean):
    m = json.loads((clean / "manifest.json").read_text())
    assert sorted(m["parts"]) == [f"{t}/part-{k:05d}.parquet" for t in ("games", "hands") for k in range(5)]
    for rel, rec in m["parts"].items():
        data = (clean / rel).read_bytes()
        assert rec == {"bytes": len(data), "rows": pq.ParquetFile(clean / rel).metadata.num_rows,
                       "sha256": hashlib.sha256(data).hexdigest()}
    assert m["parts"]["games/part-00004.parquet"]["rows"] == 20 * 4          # the short last shard
    r = run_cli("verify", clean)
    assert r.exit_code == 0 and "all parts are as written" in r.output and "120 games" in r.output
    r = run_cli("verify", "--full", clean)
    assert r.exit_code == 0 and "SHA-256" in r.output


# ------------------------------------------------------------ damage, found and repaired

def _truncate(p):
    p.write_bytes(p.read_bytes()[:100])


def _empty(p):
    p.write_bytes(b"")


def _delete(p):
    p.unlink()


@pytest.mark.parametrize("damage, table, says", [
    (_truncate, "games", "100 bytes"),
    (_empty, "hands", "0 bytes"),
    (_delete, "games", "missing"),
])
def test_a_cut_or_missing_part_is_found_and_replayed(clean, tmp_path, damage, table, says):
    out = copy_of(clean, tmp_path)
    part = out / table / "part-00002.parquet"
    damage(part)
    # every reader stops on it with one line: the file and the way out
    r = run_cli("summary", out)
    assert r.exit_code == 2
    one_line(r, f"{table}/part-00002.parquet", "damaged", "shanghai-sim verify", "--resume")
    with pytest.raises(D.DamagedPartError, match="part-00002"):
        read_table(str(out), table)
    # verify lists it, exit 1, and says how to repair
    r = run_cli("verify", out)
    assert r.exit_code == 1, r.output
    first = r.output.splitlines()[0]
    assert first.startswith(f"{out}/{table}/part-00002.parquet: ") and says in first
    assert "run --resume" in r.output.splitlines()[-1]
    # the same command without --resume refuses; --resume plays the shard again
    r = run_cli("run", "--out", out, *JOB)
    assert r.exit_code == 2 and "1 part(s) missing or damaged" in r.output
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert f"playing again: {out}/{table}/part-00002.parquet" in r.stderr
    assert_identical(clean, out)
    assert run_cli("verify", "--full", out).exit_code == 0


def test_bytes_changed_in_place_are_found_by_the_default_check(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    flip_inside_a_page(out / "hands" / "part-00001.parquet")
    r = run_cli("summary", out)                     # readers compare every part's SHA-256
    assert r.exit_code == 2
    one_line(r, "hands/part-00001.parquet", "damaged", "SHA-256", "verify", "run --resume")
    r = run_cli("verify", "--quick", out)           # size, footer and rows are intact...
    assert r.exit_code == 0, r.output
    r = run_cli("verify", out)                      # ...the bytes are not
    assert r.exit_code == 1
    assert "hands/part-00001.parquet: its bytes differ from the recorded SHA-256" in r.output
    assert "repair: shanghai-sim run --resume --out" in r.output
    assert run_cli("verify", "--full", out).exit_code == 1     # the old flag: the default check
    r = run_cli("run", "--resume", "--quick", "--out", out)   # --quick keeps what it cannot see
    assert r.exit_code == 0 and "nothing to do" in r.stderr, r.output
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert "playing again" in r.stderr
    assert_identical(clean, out)


def test_a_deleted_manifest_is_rebuilt_from_the_parts(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    (out / "manifest.json").unlink()
    r = run_cli("verify", out)
    assert r.exit_code == 2
    one_line(r, "manifest.json is missing", "--resume")
    r = run_cli("run", "--out", out, *JOB)
    assert r.exit_code == 2
    one_line(r, "no manifest.json", "--resume", "--overwrite")
    (out / "games" / "part-00003.parquet").unlink()          # and a part gone with it
    r = run_cli("run", "--resume", "--out", out)             # the job is read from the parts
    assert r.exit_code == 0, r.output
    assert "rebuilt" in r.stderr
    assert_identical(clean, out)
    m = json.loads((out / "manifest.json").read_text())
    assert m["sessions"][-1]["manifest_rebuilt"] is True


def test_a_hand_edited_manifest(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    path = out / "manifest.json"
    good = path.read_text()
    # not JSON any more
    path.write_text(good[:-40])
    r = run_cli("verify", out)
    assert r.exit_code == 2
    one_line(r, "manifest.json cannot be read", "--resume")
    r = run_cli("summary", out)
    assert r.exit_code == 2
    one_line(r, "manifest.json cannot be read", "shanghai-sim verify", "run --resume")
    assert run_cli("run", "--resume", "--out", out, "-q").exit_code == 0
    assert_identical(clean, out)
    # a record changed: that part no longer matches it
    m = json.loads(good)
    m["parts"]["games/part-00000.parquet"]["sha256"] = "0" * 64
    path.write_text(json.dumps(m))
    r = run_cli("verify", out)
    assert r.exit_code == 1 and "games/part-00000.parquet: its bytes differ" in r.output
    assert run_cli("run", "--resume", "--full-check", "--out", out, "-q").exit_code == 0
    assert_identical(clean, out)
    # the job changed (another seed): no part was written for it
    m = json.loads(good)
    m["job"]["seed"] = 2
    path.write_text(json.dumps(m))
    r = run_cli("verify", out)
    assert r.exit_code == 1 and "written for another job" in r.output.splitlines()[0]
    assert "describes another job than every part" in r.output
    r = run_cli("run", "--resume", "--out", out)           # nothing is replaced by another job's rows
    assert r.exit_code == 2
    one_line(r, "describes another job than its parts", "restore the manifest")
    path.write_text(good)
    assert_identical(clean, out)


# ------------------------------------------------------------ a full disk

def test_a_full_disk_ends_the_run_in_one_line_and_resume_finishes(clean, tmp_path, monkeypatch):
    out = tmp_path / "ds"
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) > 8:                  # probes, the manifest, a few parts, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(D.os, "fsync", fsync)
    r = run_cli("run", "--out", out, *JOB, "--quiet")
    assert r.exit_code == 1
    line = one_line(r, "No space left on device", "shanghai-sim run --resume --out")
    assert "cannot write" in line and "Traceback" not in r.output
    # no half-written part, no temporary, and the manifest claims only whole parts
    assert not [p for p in out.rglob(".*")]
    m = json.loads((out / "manifest.json").read_text())
    for rel, rec in m["parts"].items():
        assert (out / rel).stat().st_size == rec["bytes"]
    assert m["status"] in ("running", "failed") and m["shards"]["pending"] > 0
    assert 0 < len(list(out.glob("games/part-*")))          # whole parts written before it stay
    assert run_cli("verify", out).exit_code == 0
    monkeypatch.setattr(D.os, "fsync", real_fsync)            # space is back
    r = run_cli("run", "--resume", "--out", out, "-q")
    assert r.exit_code == 0, r.output
    assert_identical(clean, out)


# ------------------------------------------------------------ one writer at a time

_HOLD = textwrap.dedent("""
    import sys, time
    from shanghai_sim import runner
    from shanghai_sim.dataset import Store
    store = Store({out!r})
    store.makedirs()
    runner.OutputLock(store).acquire().record_holder()
    print("held", flush=True)
    time.sleep(60)
""")


def test_a_second_writer_is_refused_and_a_crash_leaves_no_stale_lock(tmp_path):
    out = tmp_path / "ds"
    proc = subprocess.Popen([sys.executable, "-c", _HOLD.format(out=str(out))], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"held"
        r = run_cli("run", "--out", out, *JOB)
        assert r.exit_code == 2
        one_line(r, "is being written by another run", f"pid {proc.pid}")
        assert not (out / "games").exists()
    finally:
        proc.send_signal(signal.SIGKILL)                     # the holder crashes
        proc.wait()
    assert (out / ".shanghai-sim.lock").exists()            # its file stays, unlocked
    make(out)                                                # and the folder is usable at once
    assert not (out / ".shanghai-sim.lock").exists()


def test_two_runs_at_once_one_is_refused(tmp_path):
    """A slow run holds the folder; a second run into it, started meanwhile, is refused."""
    out = tmp_path / "ds"
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from shanghai_sim import runner
        from test_runner_support import engine_impl
        eng = engine_impl()
        class Slow:
            parse_bots, bot_name = staticmethod(eng.parse_bots), staticmethod(eng.bot_name)
            def play_games(self, *a):
                time.sleep(0.3)
                return eng.play_games(*a)
        e = Slow()
        job = runner.Job(out={str(out)!r}, games=120, shard_size=10, threads=1)
        runner.run(runner.plan(job, e), progress=None, engine=e)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not (out / "manifest.json").exists():
            time.sleep(0.05)
        r = run_cli("run", "--out", out, "--games", 120, "--shard-size", 10, "--resume")
        assert r.exit_code == 2, r.output
        one_line(r, "being written by another run")
    finally:
        err = proc.communicate(timeout=120)[1].decode()
    assert proc.returncode == 0, err
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert run_cli("verify", "--full", out).exit_code == 0


# ------------------------------------------------------------ more games for a job

def test_resume_with_more_games_extends_the_job(clean, tmp_path):
    out = tmp_path / "ds"
    make(out)
    more = [a if a != 120 else 170 for a in JOB]
    r = run_cli("run", "--out", out, *more)                  # without --resume: what differs, the ways out
    assert r.exit_code == 2
    one_line(r, "games: 120 in the dataset, 170 asked", "--resume", "--overwrite")
    r = run_cli("run", "--resume", "--out", out, "--games", 170)
    assert r.exit_code == 0, r.output
    assert "extending the job from 120 to 170 games" in r.stderr
    whole = make(tmp_path / "whole", "--games", 170)        # the 170-game job from scratch
    assert_identical(whole, out)
    m = json.loads((out / "manifest.json").read_text())
    assert m["job"]["games"] == 170 and m["sessions"][-1]["extended_from_games"] == 120
    r = run_cli("run", "--resume", "--out", out, "--games", 100)
    assert r.exit_code == 2
    one_line(r, "games: 170 in the dataset, 100 asked", "cannot shrink")
    r = run_cli("run", "--resume", "--out", out, "--seed", 5)
    assert r.exit_code == 2
    one_line(r, "seed: 1 in the dataset, 5 asked")


def test_library_readers_check_as_they_read(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    assert [n for n, _ in iter_parts(str(out), "games")] == [f"part-{k:05d}.parquet" for k in range(5)]
    assert read_table(str(out), "games", ["game"]).num_rows == 480
    rep = verify(str(out), full=True)
    assert rep.ok and rep.parts == 10 and rep.games == 120
    flip_inside_a_page(out / "games" / "part-00004.parquet", "points", n=8)
    with pytest.raises(D.DamagedPartError, match="games/part-00004.parquet is damaged"):
        read_table(str(out), "games")


# ---------------------------------------------------------------- the manifest's own fields

def _nan(m):
    m["games_done"] = float("nan")


MANIFEST_EDITS = [
    ("rows", lambda m: m["rows"].update(games=m["rows"]["games"] + 4), "rows is", True),
    ("games_done", lambda m: m.update(games_done=119), "games_done is 119", True),
    ("games_done NaN", _nan, "games_done is nan", True),
    ("games_done text", lambda m: m.update(games_done="120"), "games_done is \"120\"", True),
    ("status", lambda m: m.update(status="bogus"), "status is \"bogus\"", True),
    ("pending", lambda m: m["shards"].update(pending=3), "shards.pending is 3", True),
    ("schema_version", lambda m: m.update(schema_version=99), "schema_version is 99", False),
    ("bot versions", lambda m: m["bots"]["versions"].update(greedy=99), "bots.versions is", False),
    ("lineup", lambda m: m["bots"].update(lineup=["random"] * 4), "bots.lineup is", True),
    ("job seed", lambda m: m["seeds"].update(job_seed=2), "seeds.job_seed is 2", True),
    ("seeds not an object", lambda m: m.update(seeds=[1]), "seeds is [1]", True),
    # run --resume said AttributeError with a traceback
    ("bots not an object", lambda m: m.update(bots=[1]), "has no bots section", False),
]


@pytest.mark.parametrize("edit, words, resumable", [e[1:] for e in MANIFEST_EDITS],
                         ids=[e[0] for e in MANIFEST_EDITS])
def test_verify_checks_the_manifests_own_fields(clean, tmp_path, edit, words, resumable):
    """Each field edited by hand makes verify exit 1 with one line naming manifest.json and the
    field; --resume writes the manifest again where the parts vouch for it (the counts, the
    status), and refuses in one line what it cannot vouch for (schema and bot versions)."""
    out = copy_of(clean, tmp_path)
    path = out / "manifest.json"
    m = json.loads(path.read_text())
    edit(m)
    path.write_text(json.dumps(m, indent=1))
    r = run_cli("verify", out)
    assert r.exit_code == 1, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith(f"{out}/manifest.json: ")]
    assert len(lines) == 1 and words in lines[0], r.output
    assert "restore it, or let `shanghai-sim run --resume" in r.output.strip().splitlines()[-1]
    r = run_cli("run", "--resume", "--out", out, "--quiet")
    if resumable:
        assert r.exit_code == 0, r.output
        assert run_cli("verify", out).exit_code == 0
        assert_identical(clean, out)
    else:
        one_line(r, "version")
        assert r.exit_code == 2


def test_verify_of_an_unreadable_manifest_exits_2(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    (out / "manifest.json").write_text('{"format": "shanghai-sim dataset", "job": ')
    r = run_cli("verify", out)
    assert r.exit_code == 2
    one_line(r, "manifest.json cannot be read")
