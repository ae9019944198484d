"""A job killed at every write it makes resumes to the job that was asked, row for row.

The command runs in a subprocess whose storage calls are wrapped: every write of the job
(the output folder, the write probe, the lock file, each manifest and each part, as a
finished temporary and again once renamed, each table folder, each removal) is an event,
and the process kills itself with SIGKILL at event N. A first run only counts the events;
then, for every N, the folder left behind is finished two ways and compared row for row
(and manifest for manifest, less timings) with an unkilled run:

- ``run --resume --out OUT`` alone, when a manifest is there: the job recorded, never the
  defaults; with no manifest (killed before its first write), ``--resume`` refuses in one
  line (exit 2) and the same command without it starts the job;
- the same ``run`` command again: it starts or finishes the job, or refuses in one line
  saying to add ``--resume``, which then finishes it.

Shards run one after another with the manifest written after each (as a run does at most
every second), so the events come in the same order every time. The runner's test engine
(``test_runner_support``) plays the games in the default run; SHANGHAI_TEST_REAL_ENGINE=1,
or the ``slow`` variant, uses the real kernels (a cheap random/greedy line-up).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from test_integrity import assert_identical
from test_runner_support import run_cli

TESTS = Path(__file__).resolve().parent

# The job, smaller: 40 games in 2 shards, a seed that is not the default.
ARGS = ("run", "--games", "40", "--shard-size", "20", "--seed", "5", "--bots", "random,greedy,greedy,greedy",
        "--threads", "1", "--quiet")

_SCRIPT = textwrap.dedent("""
    import json, os, signal, sys
    sys.path.insert(0, {tests!r})
    if {real}:
        os.environ["SHANGHAI_TEST_REAL_ENGINE"] = "1"
    from shanghai_sim import dataset as D
    from shanghai_sim.runner import execute as X, manifest as M
    from shanghai_sim.cli.main import main
    from test_runner_support import ENGINE

    kill_at, log, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    events = []

    def event(what):
        events.append(what)
        if len(events) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def rel(store, path):
        return os.path.relpath(path, store.root) if path != store.root else "."

    def wrap(name, label):
        real = getattr(D.Store, name)
        def call(self, *a, **k):
            got = real(self, *a, **k)
            event(label(self, *a))
            return got
        setattr(D.Store, name, call)

    wrap("makedirs", lambda s, *p: "mkdir " + (rel(s, s.path(*p)) if p else "."))
    wrap("delete", lambda s, *p: "delete " + rel(s, s.path(*p)))
    wrap("move", lambda s, a, b: "move " + "/".join(a) + " -> " + "/".join(b))
    wrap("_discard", lambda s, tmp: "remove temporary " + rel(s, tmp))
    real_commit = D.Store._commit

    def commit(self, tmp, final):
        event("written, not renamed: " + rel(self, final))
        real_commit(self, tmp, final)
        event("renamed: " + rel(self, final))

    D.Store._commit = commit
    for name, label in (("acquire", "lock file created"), ("record_holder", "lock holder recorded"),
                        ("release", "lock released")):
        def make(real, label):
            def call(self, *a):
                got = real(self, *a)
                if self.store.local:
                    event(label)
                return got
            return call
        setattr(M.OutputLock, name, make(getattr(M.OutputLock, name), label))

    def serial(self, plan, pending, engine, tracker):     # LocalExecutor, one shard at a time
        for k in pending:
            tracker.shard_done(X.run_shard(plan, k, engine, tracker.stop, tracker.add_games))
            tracker.tick(force=True)

    X.LocalExecutor.__call__ = serial
    try:
        main(sys.argv[4:] + ["--out", out], obj={{"engine": ENGINE}}, standalone_mode=False)
    finally:
        with open(log, "w") as f:
            json.dump(events, f)
""")


def _killed_run(tmp_path: Path, kill_at: int, out: Path, real: bool,
                extra: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess, list]:
    log = tmp_path / f"events-{kill_at}.json"
    script = _SCRIPT.format(tests=str(TESTS), real=real)
    env = dict(os.environ)
    env.pop("SHANGHAI_TEST_REAL_ENGINE", None)
    p = subprocess.run([sys.executable, "-c", script, str(kill_at), str(log), str(out), *ARGS, *extra],
                       capture_output=True, text=True, timeout=300, env=env)
    events = json.loads(log.read_text()) if log.exists() else None
    return p, events


def _engine(real: bool):
    if not real:
        return "tests"
    return None           # run_cli: the real engine


def _manifest_less_times(out):
    m = json.loads((Path(out) / "manifest.json").read_text())
    return {k: v for k, v in m.items() if k not in ("timings", "sessions")}


def _one_line_refusal(r, *words):
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1, r.output
    for w in words:
        assert w in lines[0], lines[0]


def _finish_with_resume(out: Path, real: bool) -> None:
    """``run --resume --out OUT`` alone: the job recorded there, or a refusal when none is."""
    eng = _engine(real)
    if (out / "manifest.json").exists():
        r = run_cli("run", "--resume", "--out", out, "--quiet", engine=eng)
        assert r.exit_code == 0, r.output
    else:
        r = run_cli("run", "--resume", "--out", out, engine=eng)
        _one_line_refusal(r, "--resume", "without --resume")
        r = run_cli(*ARGS, "--out", out, engine=eng)
        assert r.exit_code == 0, r.output


def _finish_with_the_same_command(out: Path, real: bool) -> None:
    eng = _engine(real)
    r = run_cli(*ARGS, "--out", out, engine=eng)
    if r.exit_code != 0:
        _one_line_refusal(r, "add --resume")
        r = run_cli("run", "--resume", "--out", out, "--quiet", engine=eng)
        assert r.exit_code == 0, r.output


def _start_and_end(events: list[str]) -> list[int]:
    """The kill points of the default run: each kind of write up to the first part (the second
    write probe, under the lock, left out), and the last three (the complete manifest and
    the lock's release); the slow test kills at every one."""
    stop = events.index("renamed: hands/part-00000.parquet") + 1
    seen, points = set(), []
    for n, e in enumerate(events[:stop], 1):
        key = e.split(".tmp-")[0]
        if key not in seen or e == "renamed: manifest.json" and n == stop - 1:
            seen.add(key)
            points.append(n)
    return points + [n for n in range(len(events) - 2, len(events) + 1) if n > stop]


def _check_every_kill(tmp_path: Path, real: bool, select=None) -> list[str]:
    ref = tmp_path / "ref"
    p, events = _killed_run(tmp_path, 0, ref, real)        # 0: never killed, the events counted
    assert p.returncode == 0, p.stdout + p.stderr
    assert events, "no write was seen"
    # the job's identity comes first: nothing but the folder, its probe and its lock before it
    first = events.index("renamed: manifest.json")
    assert all(e.startswith(("mkdir .", "written, not renamed: .write-test", "renamed: .write-test",
                             "delete .write-test", "lock ")) or e == "written, not renamed: manifest.json"
               for e in events[:first]), events[:first]
    assert "mkdir hands" in events[first:] and "mkdir games" in events[first:]
    assert sum(e == "renamed: manifest.json" for e in events) >= 4      # first, tables, each shard, complete
    points = select(events) if select is not None else list(range(1, len(events) + 1))
    for n in points:
        out = tmp_path / f"k{n}"
        p, seen = _killed_run(tmp_path, n, out, real)
        assert p.returncode == -signal.SIGKILL, (n, events[n - 1], p.stdout + p.stderr)
        assert seen is None or len(seen) < n                    # killed, its log never written
        for how, finish in (("resume", _finish_with_resume), ("again", _finish_with_the_same_command)):
            copy = tmp_path / f"k{n}-{how}"
            if out.exists():
                shutil.copytree(out, copy)
            try:
                finish(copy, real)
                assert_identical(ref, copy)
                assert _manifest_less_times(copy) == _manifest_less_times(ref)
            except AssertionError as e:
                raise AssertionError(f"killed at write {n} ({events[n - 1]}), finished by {how}: {e}") from None
            shutil.rmtree(copy)
        shutil.rmtree(out, ignore_errors=True)
    return events


def test_a_kill_at_each_kind_of_write_of_a_job_resumes_to_the_job_asked(tmp_path):
    """A kill at each kind of write of a 40-game job of 2 shards, from the output folder to the
    first part, and at its last writes (the test engine, or the real one under
    SHANGHAI_TEST_REAL_ENGINE=1): 15 kills, each finished two ways."""
    events = _check_every_kill(tmp_path, real=bool(os.environ.get("SHANGHAI_TEST_REAL_ENGINE")),
                               select=_start_and_end)
    assert len(_start_and_end(events)) >= 14, events


@pytest.mark.slow
@pytest.mark.parametrize("real", [False, True], ids=["test engine", "real engine"])
def test_a_kill_at_every_write_of_a_job_resumes_to_the_job_asked(tmp_path, real):
    """Every write of the job (31 with the test engine's 2 shards), each killed, finished two
    ways and compared; the real engine's processes load the kernels from the cache."""
    events = _check_every_kill(tmp_path, real=real)
    assert len(events) >= 30, events


def test_resume_of_a_folder_with_no_job_refuses_in_one_line(tmp_path):
    for out in (tmp_path / "missing", tmp_path):
        r = run_cli("run", "--resume", "--out", out, "--games", 800, "--seed", 5)
        _one_line_refusal(r, "--resume", "without --resume")
        assert not (tmp_path / "missing").exists()
    (tmp_path / "hands").mkdir()                     # left by an old version killed early
    (tmp_path / "games").mkdir()
    r = run_cli("run", "--resume", "--out", tmp_path)
    _one_line_refusal(r, "holds no job")
    r = run_cli("run", "--out", tmp_path, "--games", 40, "--shard-size", 20, "--quiet")
    assert r.exit_code == 0, r.output                # the same command starts it afresh
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert m["status"] == "complete" and m["job"]["games"] == 40


def test_the_same_command_continues_a_job_stopped_before_its_first_part(tmp_path):
    """A manifest and nothing else (stopped while compiling): nothing to lose, so the command
    that started it starts it again; another job is still refused."""
    out = tmp_path / "ds"
    r = run_cli(*ARGS, "--out", out)
    assert r.exit_code == 0
    shutil.rmtree(out / "hands")
    shutil.rmtree(out / "games")
    m = json.loads((out / "manifest.json").read_text())
    m.update(status="running", parts={}, games_done=0)
    m["shards"].update(finished=[], pending=2)
    (out / "manifest.json").write_text(json.dumps(m))
    r = run_cli(*ARGS[:-1], "--seed", 6, "--quiet", "--out", out)
    _one_line_refusal(r, "another job", "seed: 5 in the dataset, 6 asked")
    r = run_cli(*ARGS, "--out", out)
    assert r.exit_code == 0, r.output
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


# ---------------------------------------------------------------- --overwrite

OTHER = ("--seed", "6")          # the job the folder holds before --overwrite replaces it


def _overwrite_points(events: list[str]) -> list[int]:
    """The writes where an overwrite changes the folder: the new manifest (before and after
    its rename), the removal of each old table, and the first part after it."""
    first = events.index("renamed: manifest.json")
    keep = {"delete hands", "delete games", "written, not renamed: hands/part-00000.parquet"}
    return [first, first + 1] + [n for n, e in enumerate(events, 1) if n > first and e in keep]


def _check_overwrite_kills(tmp_path: Path, select=None) -> list[str]:
    """``run ... --overwrite`` over another job's dataset, killed at each write. Before its
    manifest nothing of the old dataset has changed (``--resume`` finds it complete); from
    its manifest on, ``--resume`` finishes the new job, keeping the old job's parts in
    quarantine/; the same command with --overwrite always gives the new job."""
    ref, old = tmp_path / "ref", tmp_path / "old"
    assert run_cli(*ARGS, "--out", ref).exit_code == 0
    assert run_cli(*ARGS, *OTHER, "--out", old).exit_code == 0
    shutil.copytree(old, tmp_path / "count")
    p, events = _killed_run(tmp_path, 0, tmp_path / "count", False, ("--overwrite",))
    assert p.returncode == 0, p.stdout + p.stderr
    first = events.index("renamed: manifest.json")
    assert not [e for e in events[:first] if e.startswith("delete ") and ".write-test" not in e], events
    for n in (select(events) if select is not None else range(1, len(events) + 1)):
        out = tmp_path / f"k{n}"
        shutil.copytree(old, out)
        p, _ = _killed_run(tmp_path, n, out, False, ("--overwrite",))
        assert p.returncode == -signal.SIGKILL, (n, events[n - 1], p.stdout + p.stderr)
        seed = json.loads((out / "manifest.json").read_text())["job"]["seed"]
        assert seed == (6 if n <= first else 5), (n, events[n - 1])
        try:
            copy = tmp_path / f"k{n}-resume"
            shutil.copytree(out, copy)
            r = run_cli("run", "--resume", "--out", copy, "--quiet")
            assert r.exit_code == 0, r.output
            shutil.rmtree(copy / "quarantine", ignore_errors=True)     # the old job's parts, kept
            assert_identical(ref if seed == 5 else old, copy)
            copy = tmp_path / f"k{n}-again"
            shutil.copytree(out, copy)
            r = run_cli(*ARGS, "--overwrite", "--out", copy)
            assert r.exit_code == 0, r.output
            assert_identical(ref, copy)
        except AssertionError as e:
            raise AssertionError(f"--overwrite killed at write {n} ({events[n - 1]}): {e}") from None
    return events


def test_a_kill_during_an_overwrite_loses_nothing_and_finishes_either_job(tmp_path):
    _check_overwrite_kills(tmp_path, select=_overwrite_points)


@pytest.mark.slow
def test_a_kill_at_every_write_of_an_overwrite(tmp_path):
    _check_overwrite_kills(tmp_path)
