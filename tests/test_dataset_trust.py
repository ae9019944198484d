"""Nothing silently wrong with a dataset (issue 33, its dataset items): readers trust
only what the manifest vouches for, every byte is checked by default, and every kill
leaves a job that ``--resume`` finishes.

One test (or a few) per item of the issue: 1 a stray part is counted, 2 a flipped
byte reads as data, 3 ``summary`` trusts a missing or edited manifest, 4 a kill in
the last milliseconds leaves a job that never finishes, 10 a Dask job whose workers
all die waits for ever. Each damage is made on a copy of a small job (120 games in
shards of 25, on the engine test double) and no case may exit 0 with other figures
than the undamaged dataset's.
"""

import json
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from shanghai_sim.integrity import IgnoredFileWarning, iter_parts, read_table

from test_integrity import JOB, assert_identical, copy_of, flip_inside_a_page, make, one_line
from test_runner_support import FAKE, run_cli

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return make(tmp_path_factory.mktemp("clean") / "ds")


@pytest.fixture(scope="module")
def other_seed(tmp_path_factory):
    """The same job with another seed: its parts have the same names, sizes and rows."""
    return make(tmp_path_factory.mktemp("seed2") / "ds", "--seed", 2)


def figures(out):
    """The summary as JSON, less what names the folder and the ignored files."""
    r = run_cli("summary", out, "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    return {k: v for k, v in s.items() if k not in ("out", "ignored")}, s.get("ignored", [])


def never_wrong(clean, out):
    """``summary`` either refuses (exit 2, one line) or gives the undamaged figures."""
    r = run_cli("summary", out, "--json")
    if r.exit_code == 0:
        assert figures(out)[0] == figures(clean)[0]
    else:
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    return r


# ------------------------------------------------------------ 1. a stray part is counted

def test_a_stray_part_is_named_never_counted_and_resume_quarantines_it(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    (out / "games" / "part-00099.parquet").write_bytes((out / "games" / "part-00001.parquet").read_bytes())
    (out / "games" / "junk.parquet").write_bytes(b"not parquet at all")
    got, ignored = figures(out)
    assert got == figures(clean)[0] and got["games"] == 120           # not 145
    assert [f["path"] for f in ignored] == [f"{out}/games/junk.parquet", f"{out}/games/part-00099.parquet"]
    text = run_cli("summary", out).stdout
    assert f"ignored: {out}/games/part-00099.parquet: not a part of this job" in text
    with pytest.warns(IgnoredFileWarning, match="part-00099.parquet: ignored"):
        assert read_table(str(out), "games").num_rows == 480
    r = run_cli("verify", out)
    assert r.exit_code == 1
    assert f"{out}/games/part-00099.parquet: not a part of this job" in r.output
    assert "repair: shanghai-sim run --resume" in r.output
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert f"moved {out}/games/part-00099.parquet to {out}/quarantine/games/part-00099.parquet" in r.stderr
    assert f"moved {out}/games/junk.parquet to {out}/quarantine/games/junk.parquet" in r.stderr
    assert (out / "quarantine" / "games" / "junk.parquet").read_bytes() == b"not parquet at all"
    shutil.rmtree(out / "quarantine")
    assert_identical(clean, out)
    assert figures(out)[1] == []
    r = run_cli("run", "--resume", "--out", out)
    assert "nothing to do" in r.stderr


def test_a_part_of_another_job_is_refused_by_readers_and_quarantined(clean, other_seed, tmp_path):
    out = copy_of(clean, tmp_path)
    alien = (other_seed / "hands" / "part-00002.parquet").read_bytes()
    (out / "hands" / "part-00002.parquet").write_bytes(alien)
    r = never_wrong(clean, out)
    assert r.exit_code == 2
    one_line(r, "hands/part-00002.parquet", "verify", "run --resume")
    r = run_cli("verify", out)
    assert r.exit_code == 1 and "hands/part-00002.parquet" in r.output
    assert run_cli("verify", "--quick", out).exit_code == 1          # same size, other job: found by footer
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert "quarantine/hands/part-00002.parquet" in r.stderr
    assert (out / "quarantine" / "hands" / "part-00002.parquet").read_bytes() == alien   # never deleted
    shutil.rmtree(out / "quarantine")
    assert_identical(clean, out)


def test_a_stray_part_of_an_expected_name_in_an_unfinished_job(clean, tmp_path):
    """A job stopped after 2 shards: a copy of part 0 named as part 3 is not read, and --resume
    does not take it for shard 3 (its games are shard 0's): it is quarantined and shard 3 played."""
    out = copy_of(clean, tmp_path)
    m = json.loads((out / "manifest.json").read_text())
    for k in (2, 3, 4):
        for t in ("games", "hands"):
            (out / t / f"part-{k:05d}.parquet").unlink()
            m["parts"].pop(f"{t}/part-{k:05d}.parquet")
    m["shards"]["finished"], m["status"] = [[0, 1]], "interrupted"
    (out / "manifest.json").write_text(json.dumps(m))
    for t in ("games", "hands"):
        shutil.copy(out / t / "part-00000.parquet", out / t / "part-00003.parquet")
    got, ignored = figures(out)
    assert got["games"] == 50 and len(ignored) == 2
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert "holds games other than its shard's" in r.stderr
    shutil.rmtree(out / "quarantine")
    assert_identical(clean, out)


# ------------------------------------------------------------ 2. flipped and zeroed bytes

@pytest.mark.parametrize("where", [0.02, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.995])
def test_one_flipped_byte_anywhere_is_found_by_every_default_check(clean, tmp_path, where):
    out = copy_of(clean, tmp_path)
    for t in ("games", "hands"):
        p = out / t / "part-00001.parquet"
        data = bytearray(p.read_bytes())
        data[int(where * len(data))] ^= 0x10
        p.write_bytes(bytes(data))
    r = never_wrong(clean, out)
    assert r.exit_code == 2 and "part-00001.parquet" in r.output
    with pytest.raises(Exception, match="part-00001.parquet"):
        read_table(str(out), "games")
    r = run_cli("verify", out)
    assert r.exit_code == 1 and r.output.count("part-00001.parquet:") == 2, r.output
    r = run_cli("run", "--resume", "--out", out, "-q")
    assert r.exit_code == 0, r.output
    assert_identical(clean, out)


def test_zeroed_bytes_are_found_by_the_command_named(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    flip_inside_a_page(out / "hands" / "part-00003.parquet", "turns", n=64)
    r = run_cli("summary", out)
    assert r.exit_code == 2
    line = one_line(r, "hands/part-00003.parquet", "damaged")
    named = line.split("`")[1]                       # "shanghai-sim verify OUT"
    assert named == f"shanghai-sim verify {out}"
    r = run_cli(*named.split()[1:])
    assert r.exit_code == 1 and f"{out}/hands/part-00003.parquet: its bytes differ" in r.output
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0 and f"playing again: {out}/hands/part-00003.parquet" in r.stderr, r.output
    assert_identical(clean, out)


def test_the_library_readers_check_every_byte(clean, tmp_path):
    out = copy_of(clean, tmp_path)
    p = out / "games" / "part-00000.parquet"
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 1
    p.write_bytes(bytes(data))
    with pytest.raises(Exception, match="differ from the recorded SHA-256"):
        list(iter_parts(str(out), "games", ["points"]))


# ------------------------------------------------------------ 3. a missing or edited manifest

def _edit(out, change):
    path = out / "manifest.json"
    m = json.loads(path.read_text())
    change(m)
    path.write_text(json.dumps(m))


def _set(*keys, value):
    def change(m):
        d = m
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return change


EDITS = {
    "deleted, a part with it": None,
    "empty file": "",
    "{}": "{}",
    "a list": "[1, 2]",
    "a folder": "folder",
    "seed edited": _set("job", "seed", value=2),
    "games edited": _set("job", "games", value=100),
    "players edited": _set("job", "players", value=3),
    "a part path outside": lambda m: m["parts"].update({"../../etc/passwd": m["parts"]["games/part-00000.parquet"]}),
    "a record removed": lambda m: m["parts"].pop("games/part-00002.parquet"),
    "a size edited": lambda m: m["parts"]["games/part-00002.parquet"].update(bytes=5),
    "finished edited": _set("shards", "finished", value=[[0, 7]]),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_missing_or_edited_manifest_is_never_trusted(clean, tmp_path, edit):
    out = copy_of(clean, tmp_path)
    how = EDITS[edit]
    path = out / "manifest.json"
    if how is None:
        path.unlink()
        (out / "games" / "part-00004.parquet").unlink()
    elif how == "folder":
        path.unlink()
        path.mkdir()
    elif isinstance(how, str):
        path.write_text(how)
    else:
        _edit(out, how)
    r = run_cli("summary", out)
    assert r.exit_code == 2, r.output                   # never "700 games, seed None", never "seed 2"
    line = one_line(r)
    assert "verify" in line and "run --resume" in line, line
    if edit == "a part path outside":
        assert "outside the dataset" in line
    assert run_cli("verify", out).exit_code in (1, 2)
    with pytest.raises(ValueError):                      # every edit touches games/ or the whole
        list(iter_parts(str(out), "games"))
    if how == "folder":
        r = run_cli("run", "--resume", "--out", out)
        assert r.exit_code == 2 and "is a folder" in r.output
        return
    r = run_cli("run", "--resume", "--out", out)
    if edit == "seed edited":
        assert r.exit_code == 2 and "describes another job than its parts" in r.output, r.output
        return
    if edit == "players edited":
        assert r.exit_code == 2 and "manifest.json does not describe a job" in r.output, r.output
        return
    assert r.exit_code == 0, r.output
    assert_identical(clean, out)


def test_a_rebuilt_manifest_accepts_only_the_jobs_parts_and_lists_them(clean, other_seed, tmp_path):
    out = copy_of(clean, tmp_path)
    (out / "manifest.json").unlink()
    alien = (other_seed / "games" / "part-00001.parquet").read_bytes()
    (out / "games" / "part-00001.parquet").write_bytes(alien)       # one part from the seed-2 job
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert "rebuilt for the job its parts were written for (120 games, seed 1)" in r.stderr
    assert "accepted 8 part(s) of 4 shard(s) (0, 2-4)" in r.stderr
    assert f"moved {out}/games/part-00001.parquet to {out}/quarantine/games/part-00001.parquet" in r.stderr
    assert (out / "quarantine" / "games" / "part-00001.parquet").read_bytes() == alien
    shutil.rmtree(out / "quarantine")
    assert_identical(clean, out)


# ------------------------------------------------------------ 4. a kill while finishing

_KILLED = textwrap.dedent("""
    import json, os, signal, sys
    sys.path.insert(0, {tests!r})
    from shanghai_sim import dataset as D, runner
    from test_runner_support import engine_impl
    target, when = sys.argv[1], sys.argv[2]
    real, seen = D.Store._commit, set()

    def commit(self, tmp, final):
        rel = os.path.relpath(final, self.root)
        if target == "next manifest":                   # the first manifest after the last part
            hit = rel == "manifest.json" and "games/part-00004.parquet" in seen
        elif target == "complete manifest":
            with open(tmp) as f:
                hit = rel == "manifest.json" and json.load(f)["status"] == "complete"
        else:
            hit = rel == target
        if hit and when == "before":                    # its bytes are in a temporary, not renamed
            os.kill(os.getpid(), signal.SIGKILL)
        real(self, tmp, final)
        seen.add(rel)
        if hit and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)

    D.Store._commit = commit
    eng = engine_impl()
    job = runner.Job(out={out!r}, bots=("random", "greedy", "greedy", "greedy"), games=120,
                     shard_size=25, threads=1)
    runner.run(runner.plan(job, eng), progress=None, engine=eng)
    print("not killed")
""")

STEPS = [("games/part-00002.parquet", "after"),          # mid-job, for comparison
         ("hands/part-00004.parquet", "before"), ("hands/part-00004.parquet", "after"),
         ("games/part-00004.parquet", "before"),
         ("games/part-00004.parquet", "after"),          # between the last part and the manifest
         ("next manifest", "before"), ("complete manifest", "before"), ("complete manifest", "after")]


def _manifest_less_times(out):
    m = json.loads((Path(out) / "manifest.json").read_text())
    return {k: v for k, v in m.items() if k not in ("timings", "sessions")}


@pytest.mark.parametrize("target, when", STEPS)
def test_a_kill_at_every_step_of_finishing_resumes_to_a_complete_dataset(clean, tmp_path, target, when):
    out = tmp_path / "ds"
    p = subprocess.run([sys.executable, "-c", _KILLED.format(tests=str(TESTS), out=str(out)), target, when],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == -signal.SIGKILL, p.stdout + p.stderr
    r = run_cli("summary", out)                          # whatever it says, never other figures
    if r.exit_code == 0:
        assert "(complete)" in r.stdout or "incomplete" in r.stdout
        assert figures(out)[0]["games"] <= 120
    else:
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert_identical(clean, out)
    assert _manifest_less_times(out) == _manifest_less_times(clean)
    assert figures(out)[0] == figures(clean)[0]
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0 and "nothing to do" in r.stderr


def test_a_job_whose_manifest_lags_its_parts_is_not_complete(clean, tmp_path):
    """The issue's case: every part on disk, the manifest still `running` with 4 of 5 shards."""
    out = copy_of(clean, tmp_path)
    m = json.loads((out / "manifest.json").read_text())
    for t in ("games", "hands"):
        m["parts"].pop(f"{t}/part-00004.parquet")
    m["shards"].update(finished=[[0, 3]], pending=1)
    m["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(m))
    r = run_cli("run", "--out", out, *JOB)
    assert r.exit_code == 2 and "its manifest does not say so yet" in r.output, r.output
    r = run_cli("run", "--resume", "--out", out)
    assert r.exit_code == 0, r.output
    assert "nothing to do" not in r.stderr and "recording them and finishing" in r.stderr
    assert_identical(clean, out)


@pytest.mark.slow
def test_a_hundred_kills_at_random_moments_each_resumed(tmp_path):
    """SIGKILL at 100 random moments of a 3,000-game job of the real engine (the command in a
    subprocess), each followed by --resume. Each kill falls uniformly within 1.15 times the
    expected life of the process it kills (start-up, the games left, finishing; the expected
    length of a whole job follows the runs that were not killed), so about one run in eight
    finishes: each time the job is complete it is checked byte for byte against an
    uninterrupted run and started again from nothing. About 10 minutes on 2 loaded cores."""
    args = ["--games", "3000", "--shard-size", "100", "--threads", "1", "--quiet"]
    cmd = [sys.executable, "-c", "from shanghai_sim.cli.main import main; main()", "run"]
    ref = tmp_path / "ref"
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd + args + ["--out", str(ref)])
    while proc.poll() is None and not list(ref.glob("games/part-*")):
        time.sleep(0.01)
    start = time.monotonic() - t0                      # start-up: kernels loaded, first shard played
    assert proc.wait(timeout=600) == 0
    whole = time.monotonic() - t0
    rng = random.Random(33)
    out = tmp_path / "ds"
    kills = completions = 0
    while kills < 100:
        m = out / "manifest.json"
        left = 1.0
        try:
            left = 1 - json.loads(m.read_text())["games_done"] / 3000
        except (OSError, ValueError, KeyError):
            pass
        at = rng.uniform(0, 1.15 * (start + left * (whole - start)))
        # the whole job every time, with --resume once a manifest records it (a kill before the
        # manifest leaves at most an empty folder, which --resume refuses: no job to finish)
        resume = ["--resume"] if m.exists() else []
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd + args + resume + ["--out", str(out)], stderr=subprocess.PIPE)
        try:
            proc.wait(timeout=at)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
            continue
        took = time.monotonic() - t0
        err = proc.stderr.read().decode()
        assert proc.returncode == 0, err
        if left == 1.0:                                 # the machine's speed drifts: follow it
            whole = max(start, (whole + took) / 2)
        assert json.loads(m.read_text())["status"] == "complete"
        assert_identical(ref, out)
        completions += 1
        shutil.rmtree(out)
    resume = ["--resume"] if (out / "manifest.json").exists() else []
    r = subprocess.run(cmd + args + resume + ["--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert_identical(ref, out)
    assert completions >= 3                             # the kills fell in every part of a job's life
    print(f"100 kills, {completions + 1} complete datasets checked, start-up {start:.1f}s, "
          f"whole job {whole:.1f}s")


# ------------------------------------------------------------ 10. a Dask job whose workers all die

def _slow_play(*a):
    time.sleep(0.3)                       # slow enough for the worker to die mid-job
    return FAKE.play_games(*a)


def test_a_dask_job_whose_workers_all_die_stops_in_one_line(tmp_path):
    distributed = pytest.importorskip("distributed")
    import threading

    import cloudpickle

    import test_runner_support
    from shanghai_sim import runner
    slow = runner.Engine(_slow_play, FAKE.parse_bots, FAKE.bot_name)
    here = sys.modules[__name__]                       # shipped to the worker by value
    cloudpickle.register_pickle_by_value(test_runner_support)
    cloudpickle.register_pickle_by_value(here)
    out = tmp_path / "ds"
    try:
        with distributed.LocalCluster(n_workers=0, dashboard_address=None, silence_logs=40) as cluster:
            worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                       cluster.scheduler_address, "--no-nanny", "--nthreads", "1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(TESTS))
            try:
                cluster.wait_for_workers(1, timeout=60)

                def kill_once_a_shard_is_written():
                    deadline = time.monotonic() + 60
                    while not list(out.glob("games/part-*")) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    worker.send_signal(signal.SIGKILL)

                threading.Thread(target=kill_once_a_shard_is_written, daemon=True).start()
                t0 = time.monotonic()
                r = run_cli("run", "--scheduler", cluster.scheduler_address, "--out", out, "--games", 200,
                            "--shard-size", 10, "--worker-timeout", 2, "--quiet", engine=slow)
                took = time.monotonic() - t0
            finally:
                worker.kill()
                worker.wait()
    finally:
        cloudpickle.unregister_pickle_by_value(test_runner_support)
        cloudpickle.unregister_pickle_by_value(here)
    assert r.exit_code == 1, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1, r.output
    assert "no live Dask worker for 2 s" in lines[0] and f"shanghai-sim run --resume --out {out}" in lines[0]
    assert took < 30
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and m["shards"]["pending"] > 0     # a part may be on disk, unreported
    r = run_cli("run", "--resume", "--out", out, "--threads", 1, "-q")      # finished here, identical
    assert r.exit_code == 0, r.output
    whole = tmp_path / "whole"
    runner.run(runner.plan(runner.Job(out=str(whole), games=200, shard_size=10), FAKE), progress=None, engine=FAKE)
    assert_identical(whole, out)
