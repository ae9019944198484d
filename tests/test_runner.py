"""Batch runs (issue 4): reproducible rows, seating, the dataset, resume and the overwrite policy.

Jobs here are a few hundred games; the real engine is used once it is
importable (``test_runner_support.ENGINE``).
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shanghai_sim import runner
from shanghai_sim.kernels.base.records import HF_BUYS, HF_DEALER, HF_POINTS, HF_TURNS, NHF
from shanghai_sim.kernels.base.rng import game_seed_nb
from shanghai_sim.rules import preset

from test_runner_support import ENGINE, engine_impl, read, run_cli

BOTS = ("random", "greedy", "greedy", "greedy")


def do_run(out, engine=ENGINE, **kw):
    kw.setdefault("bots", BOTS)
    kw.setdefault("games", 120)
    job = runner.Job(out=str(out), **kw)
    return runner.run(runner.plan(job, engine), progress=None, engine=engine)


def frames(out):
    tables = ["games"] + (["hands"] if (Path(out) / "hands").exists() else [])
    return {t: read(Path(out), t) for t in tables}


def assert_same_rows(a, b):
    fa, fb = frames(a), frames(b)
    assert fa.keys() == fb.keys()
    for t in fa:
        pd.testing.assert_frame_equal(fa[t], fb[t])


# ------------------------------------------------------------ reproducibility

def test_rows_do_not_depend_on_threads_or_shard_size(tmp_path):
    do_run(tmp_path / "a", threads=1, shard_size=50)
    do_run(tmp_path / "b", threads=2, shard_size=7)
    assert len(os.listdir(tmp_path / "b" / "hands")) == 18
    assert_same_rows(tmp_path / "a", tmp_path / "b")


def test_every_row_carries_its_game_seed_from_job_seed_and_index(tmp_path):
    do_run(tmp_path, games=90, seed=12345, shard_size=40)
    g = read(tmp_path, "games")
    assert sorted(set(g.game)) == list(range(90))
    for game, seed in g.groupby("game").game_seed.first().items():
        assert seed == game_seed_nb(12345, game)
    h = read(tmp_path, "hands")
    assert list(h.columns) == [f.name for f in runner.HANDS_SCHEMA] if hasattr(runner, "HANDS_SCHEMA") else True
    assert h.sort_values(["game", "hand", "seat"]).index.equals(h.index)     # stored in order
    assert len(h) == 90 * 10 * 4 and len(g) == 90 * 4


def test_a_row_is_the_game_its_seed_replays(tmp_path):
    """The rows of game g are the game `shanghai-sim replay --seed GAME_SEED --bots <bots by seat>`
    plays: same kernel, same seed, same seats."""
    do_run(tmp_path, games=12, seed=5)
    h = read(tmp_path, "hands")
    fields = [("points", HF_POINTS), ("turns", HF_TURNS), ("buys", HF_BUYS), ("dealer", HF_DEALER)]
    for game in (0, 1, 2, 11):
        rows = h[h.game == game]
        seats = rows[rows.hand == 1].sort_values("seat")
        bots_in_seat_order = [str(b) for b in seats.bot]
        seed = int(rows.game_seed.iloc[0])
        if ENGINE is None:
            from shanghai_sim.game import game_events
            _, rec = game_events("shanghai", 4, seed, bots_in_seat_order)
        else:
            eng = engine_impl()
            kind, params = eng.parse_bots(bots_in_seat_order, 4)
            out = np.zeros((1, 10, 4, NHF), dtype=np.int32)
            eng.play_games(*preset("shanghai").arrays(4), kind, params, np.array([seed], dtype=np.uint64), out)
            rec = out[0]
        for col, f in fields:
            assert rows[col].tolist() == rec[:, :, f].ravel().tolist(), col


def test_seat_rotation_moves_the_lineup_one_seat_per_game(tmp_path):
    do_run(tmp_path / "rot", games=8)
    g = read(tmp_path / "rot", "games")
    assert ((g.seat.astype(int) - g.game.astype(int)) % 4 == g.player).all()
    assert (g.bot.astype(str) == np.array(BOTS)[g.player]).all()
    # every seat holds the random bot equally often
    assert g[g.bot == "random"].seat.value_counts().tolist() == [2, 2, 2, 2]
    do_run(tmp_path / "fixed", games=8, rotate=False)
    g = read(tmp_path / "fixed", "games")
    assert (g.seat == g.player).all() and (g[g.seat == 0].bot == "random").all()


def test_duplicate_seating_plays_each_seed_once_per_seat(tmp_path):
    # Paired experiments (docs/experiments.md): seed k is games 4k..4k+3, the line-up
    # rotated 0..3 seats, so player 0 sits once in every seat of every deal.
    do_run(tmp_path / "dup", games=12, seed=9, seating="duplicate", shard_size=5)
    g = read(tmp_path / "dup", "games")
    game = g.game.astype(int)
    assert (g.game_seed.astype("uint64") == [game_seed_nb(9, k // 4) for k in game]).all()
    assert ((g.seat.astype(int) - game) % 4 == g.player).all()
    focal = g[g.player == 0]
    assert focal.groupby("game_seed").seat.apply(sorted).tolist() == [[0, 1, 2, 3]] * 3
    m = json.loads((tmp_path / "dup" / "manifest.json").read_text())
    assert m["job"]["seating"] == "duplicate" and "once with the line-up in each rotation" in m["bots"]["seating"]
    # a plain job's identity (and its parts' metadata) are unchanged: no seating key
    do_run(tmp_path / "plain", games=8)
    assert "seating" not in json.loads((tmp_path / "plain" / "manifest.json").read_text())["job"]
    # resume and extend work as for any job
    r = do_run(tmp_path / "dup", games=12, seed=9, seating="duplicate", shard_size=5)
    assert r.status == "already complete"
    with pytest.raises(runner.JobError, match="multiple of the 4 players"):
        runner.plan(runner.Job(bots=BOTS, games=10, seating="duplicate"), ENGINE)


def test_games_rows_add_up_the_hands(tmp_path):
    do_run(tmp_path, games=60)
    h, g = read(tmp_path, "hands"), read(tmp_path, "games")
    tot = h.groupby(["game", "seat"]).points.sum().to_numpy()
    assert (g.points.to_numpy() == tot).all()
    assert (g.groupby("game").win_share.sum().round(9) == 1).all()
    best = g.groupby("game").points.transform("min")
    assert ((g.points == best) == (g["rank"] == 1)).all()
    assert (g.hands_out.to_numpy() == h.groupby(["game", "seat"]).went_out.sum().to_numpy()).all()


def test_detail_games_writes_only_games(tmp_path):
    do_run(tmp_path, games=40, detail="games")
    assert sorted(os.listdir(tmp_path)) == ["games", "manifest.json"]
    assert len(read(tmp_path, "games")) == 160


def test_manifest_records_the_job(tmp_path):
    res = do_run(tmp_path, games=100, shard_size=30, seed=9)
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert m["status"] == "complete" and res.status == "complete"
    assert m["job"] == {"rules": "shanghai", "players": 4, "bots": list(BOTS), "games": 100, "seed": 9,
                        "rotate": True, "detail": "hands", "shard_size": 30}
    assert m["rules"] == preset("shanghai").to_dict()
    assert m["shards"]["count"] == 4 and m["shards"]["finished"] == [[0, 3]]
    assert m["rows"] == {"games": 400, "hands": 4000}
    assert m["seeds"]["first_games"] == [int(game_seed_nb(9, g)) for g in range(3)]
    assert m["package_version"] and m["timings"]["finished"] and m["timings"]["run_seconds"] > 0


# ------------------------------------------------------------ resume and interruption

class _Interrupting:
    """The engine, except that a kernel call raises KeyboardInterrupt (a Ctrl-C) once
    ``n`` games have been played."""

    def __init__(self, n):
        self.n, self.games = n, 0
        eng = engine_impl()
        self.parse_bots, self.bot_name, self._play = eng.parse_bots, eng.bot_name, eng.play_games

    def play_games(self, *a):
        if len(a[-2]):
            if self.games >= self.n:
                raise KeyboardInterrupt
            self.games += len(a[-2])
        return self._play(*a)


@pytest.mark.parametrize("threads", [1, 2])
def test_an_interrupted_run_keeps_whole_shards_and_resume_finishes_it(tmp_path, threads):
    do_run(tmp_path / "whole", games=150, shard_size=20)
    eng = _Interrupting(70)
    job = runner.Job(out=str(tmp_path / "cut"), bots=BOTS, games=150, shard_size=20, threads=threads)
    with pytest.raises(KeyboardInterrupt):
        runner.run(runner.plan(job, eng), progress=None, engine=eng)
    m = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert m["status"] == "interrupted"
    parts = os.listdir(tmp_path / "cut" / "games")
    assert 0 < len(parts) < 8 and all(p.startswith("part-") for p in parts)
    # The same command without --resume refuses, naming the way out; nothing is touched.
    r = run_cli("run", "--out", tmp_path / "cut", "--games", 150, "--shard-size", 20, "--bots", ",".join(BOTS))
    assert r.exit_code == 2 and "--resume" in r.output and len(r.output.strip().splitlines()) == 1
    assert sorted(os.listdir(tmp_path / "cut" / "games")) == sorted(parts)
    # --resume alone takes the job from the manifest.
    r = run_cli("run", "--resume", "--out", tmp_path / "cut", "--quiet")
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "cut" / "manifest.json").read_text())["status"] == "complete"
    assert_same_rows(tmp_path / "whole", tmp_path / "cut")


_KILL_SCRIPT = textwrap.dedent("""
    import signal, sys, time
    # A shell that starts a job in the background hands it SIGINT ignored, and Python then
    # keeps it ignored: make Ctrl-C a KeyboardInterrupt here, as it is for a user.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, {tests!r})
    from shanghai_sim import runner
    from test_runner_support import ENGINE, engine_impl
    eng = engine_impl()

    class Slow:
        parse_bots, bot_name = staticmethod(eng.parse_bots), staticmethod(eng.bot_name)
        def play_games(self, *a):
            # slow enough that the job is far from done when the test signals it
            # (20 shard calls over 2 threads: at least 2.5 s), however fast the engine
            time.sleep(0.25)
            return eng.play_games(*a)

    e = Slow()
    job = runner.Job(out={out!r}, bots=("random", "greedy", "greedy", "greedy"), games=200,
                     shard_size=10, threads=2)
    runner.run(runner.plan(job, e), progress=None, engine=e)
""")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_killed_run_resumes_to_the_uninterrupted_dataset(tmp_path, sig):
    out = tmp_path / "killed"
    script = _KILL_SCRIPT.format(tests=str(Path(__file__).parent), out=str(out))
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        # whole parts only: a dot-file is a part still being written
        done = (len([p for p in os.listdir(out / "games") if not p.startswith(".")])
                if (out / "games").exists() else 0)
        if done >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1].decode()
    proc.send_signal(sig)
    err = proc.communicate(timeout=60)[1].decode()
    assert proc.returncode != 0, err
    visible = [p for p in os.listdir(out / "games") if not p.startswith(".")]
    assert 3 <= len(visible) < 20
    for p in visible:                                      # every visible part is a whole file
        assert len(pd.read_parquet(out / "games" / p)) == 40
    if sig != signal.SIGKILL:
        assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    r = run_cli("run", "--resume", "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    assert not [p for p in os.listdir(out / "games") if p.startswith(".")]
    do_run(tmp_path / "whole", games=200, shard_size=10)
    assert_same_rows(tmp_path / "whole", out)


def test_a_finished_job_run_again_is_left_alone(tmp_path):
    args = ("run", "--out", tmp_path, "--games", 40, "--bots", "greedy")
    assert run_cli(*args, "--quiet").exit_code == 0
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    r = run_cli(*args)
    assert r.exit_code == 0 and "nothing to do" in r.output
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


# ------------------------------------------------------------ output folder policy

def test_another_jobs_dataset_is_refused_unless_overwrite(tmp_path):
    assert run_cli("run", "--out", tmp_path, "--games", 40, "-q").exit_code == 0
    before = read(tmp_path, "games")
    r = run_cli("run", "--out", tmp_path, "--games", 40, "--seed", 2, "-q")
    assert r.exit_code == 2 and "another job" in r.output and "seed" in r.output
    assert len(r.output.strip().splitlines()) == 1
    pd.testing.assert_frame_equal(read(tmp_path, "games"), before)
    r = run_cli("run", "--out", tmp_path, "--games", 30, "--seed", 2, "-q", "--overwrite")
    assert r.exit_code == 0, r.output
    assert len(read(tmp_path, "games")) == 120


def test_a_folder_of_other_files_is_never_touched(tmp_path):
    (tmp_path / "notes.txt").write_text("my thesis")
    for extra in ([], ["--overwrite"], ["--resume"]):
        r = run_cli("run", "--out", tmp_path, "--games", 10, *extra)
        assert r.exit_code == 2 and "not empty" in r.output, r.output
    assert os.listdir(tmp_path) == ["notes.txt"]
    # a dataset folder with a stray file is not wiped by --overwrite either
    ds = tmp_path / "ds"
    assert run_cli("run", "--out", ds, "--games", 10, "-q").exit_code == 0
    (ds / "keep.csv").write_text("1,2")
    r = run_cli("run", "--out", ds, "--games", 20, "--overwrite")
    assert r.exit_code == 2 and "keep.csv" in r.output
    assert (ds / "keep.csv").exists() and len(read(ds, "games")) == 40


@pytest.mark.parametrize("args, words", [
    (["--rules", "nosuch"], "unknown preset"),
    (["--rules", "missing.toml"], "not found"),
    (["--players", "9"], "players"),
    (["--players", "4", "--bots", "random,greedy,greedy"], "3 bot specs for 4 players"),
    (["--bots", "grumpy"], "grumpy"),
    (["--games", "0"], "games"),
    (["--games", "lots"], "lots"),
    (["--detail", "moves"], "moves"),
    (["--seed", "-1"], "seed"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    out = tmp_path / "o"
    r = run_cli("run", "--out", out, *args)
    assert r.exit_code == 2, r.output
    assert words in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not out.exists()


def test_bad_rules_and_job_files_and_outputs(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("base = 'shanghai'\nbuy_penalty = 'two'\n")
    r = run_cli("run", "--rules", bad, "--out", tmp_path / "o")
    assert r.exit_code == 2 and "buy_penalty" in r.output
    job = tmp_path / "job.toml"
    job.write_text("games = 10\nbots = [\n")
    r = run_cli("run", job)
    assert r.exit_code == 2 and "not valid TOML" in r.output
    job.write_text("games = 10\nspeed = 'fast'\n")
    r = run_cli("run", job)
    assert r.exit_code == 2 and "speed" in r.output
    r = run_cli("run", tmp_path / "nojob.toml")
    assert r.exit_code == 2 and "not found" in r.output
    (tmp_path / "afile").write_text("x")
    r = run_cli("run", "--out", tmp_path / "afile", "--games", 5)
    assert r.exit_code == 2 and "is a file" in r.output
    r = run_cli("run", "--out", tmp_path / "afile" / "sub", "--games", 5)
    assert r.exit_code == 2 and "not writable" in r.output
    assert (tmp_path / "afile").read_text() == "x"


# ------------------------------------------------------------ job files and defaults

def test_job_file_with_options_on_top(tmp_path):
    (tmp_path / "house.toml").write_text('base = "shanghai"\nbuy_penalty = 1\n')
    (tmp_path / "job.toml").write_text(textwrap.dedent("""
        rules = "house.toml"          # relative to the job file
        players = 3
        bots = ["random", "greedy", "greedy"]
        games = 50
        seed = 3
        out = "result"
        detail = "games"
        rotate = false
    """))
    r = run_cli("run", tmp_path / "job.toml", "--seed", 4, "--games", 20, "-q")
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "result" / "manifest.json").read_text())
    assert m["job"]["seed"] == 4 and m["job"]["games"] == 20 and m["job"]["players"] == 3
    assert m["rules"]["buy_penalty"] == 1 and m["job"]["rotate"] is False
    assert sorted(os.listdir(tmp_path / "result")) == ["games", "manifest.json"]


def test_job_file_with_an_inline_rules_table(tmp_path):
    (tmp_path / "job.toml").write_text(textwrap.dedent("""
        games = 12
        out = "o"
        [rules]
        base = "contract"
        max_stock_passes = 1
    """))
    r = run_cli("run", tmp_path / "job.toml", "-q")
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert m["rules"]["max_stock_passes"] == 1 and m["rules"]["go_out"] == "discard_required"
    # resume rebuilds those rules from the manifest
    r = run_cli("run", "--resume", "--out", tmp_path / "o")
    assert r.exit_code == 0 and "nothing to do" in r.output


def test_players_follow_the_bots_and_other_presets(tmp_path):
    do_run(tmp_path / "two", bots=("random", "greedy"), games=20, rules="progressive")
    g = read(tmp_path / "two", "games")
    assert sorted(set(g.seat)) == [0, 1]
    assert read(tmp_path / "two", "hands").hand.max() == 9


def test_default_job_runs_into_shanghai_out(tmp_path, monkeypatch):
    j = runner.Job()
    assert (j.games, j.seed, j.bots, j.out, j.detail, j.rotate) == (1000, 1, ("greedy",), "shanghai-out",
                                                                    "hands", True)
    monkeypatch.chdir(tmp_path)
    r = run_cli("run", "--games", 40)              # the default job, made smaller
    assert r.exit_code == 0, r.output
    assert "games/s" in r.stderr and "done: 40 games" in r.stderr
    assert len(read(tmp_path / "shanghai-out", "games")) == 160
    r = run_cli("run", "--games", 40, "--out", "q", "--quiet")
    assert r.exit_code == 0 and r.stderr == "" and r.stdout == ""


@pytest.mark.slow
def test_the_true_default_job(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli("run")
    assert r.exit_code == 0, r.output
    assert len(read(tmp_path / "shanghai-out", "games")) == 4000


def test_output_as_a_url(tmp_path):
    """--out may be a URL pyarrow opens (here file://; s3:// and gs:// work the same way)."""
    res = do_run(f"file://{tmp_path}/viaurl", games=20)
    assert res.status == "complete" and res.location == f"file://{tmp_path}/viaurl"
    assert len(read(tmp_path / "viaurl", "games")) == 80
    r = run_cli("summary", f"file://{tmp_path}/viaurl")
    assert r.exit_code == 0 and "20 games" in r.stdout


def test_resume_refuses_games_of_another_bot_version(tmp_path, monkeypatch):
    """The manifest records each bot's version; a resume under another version is refused
    in one line (two versions of a bot must not mix in one dataset)."""
    import dataclasses
    import json

    from shanghai_sim import bots as B
    out = tmp_path / "o"
    r = run_cli("run", "--games", "40", "--shard-size", "10", "--out", out)
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["bots"]["versions"] == {"greedy": B.BOTS["greedy"].version}
    (out / "games" / "part-00003.parquet").unlink()
    v = B.BOTS["greedy"].version
    monkeypatch.setitem(B.BOTS, "greedy", dataclasses.replace(
        B.BOTS["greedy"], versions=B.BOTS["greedy"].versions + (B.BotVersion(99, "a test's version"),)))
    r = run_cli("run", "--games", "40", "--shard-size", "10", "--out", out, "--resume")
    assert r.exit_code == 2 and f"greedy v{v} there, v99 here" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not (out / "games" / "part-00003.parquet").exists()      # nothing played or replaced

