"""Shards as tasks on a real dask.distributed LocalCluster with two worker processes:
workers write the part files themselves, and the rows equal a local run's."""

import json
import sys

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

import cloudpickle  # noqa: E402

import test_runner_support  # noqa: E402
from shanghai_sim import runner  # noqa: E402
from shanghai_sim.cluster import DaskExecutor  # noqa: E402
from shanghai_sim.dataset import Store  # noqa: E402
from test_runner_support import ENGINE, read, run_cli  # noqa: E402

BOTS = ("random", "greedy", "greedy", "greedy")


@pytest.fixture(scope="module")
def cluster():
    # The engine test double lives in the tests, which workers cannot import: ship it by value.
    cloudpickle.register_pickle_by_value(test_runner_support)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as c:
        yield c
    cloudpickle.unregister_pickle_by_value(test_runner_support)


def test_dask_rows_equal_a_local_run(tmp_path, cluster):
    job = runner.Job(out=str(tmp_path / "local"), bots=BOTS, games=150, shard_size=25, threads=2)
    runner.run(runner.plan(job, ENGINE), progress=None, engine=ENGINE)
    r = run_cli("run", "--scheduler", cluster.scheduler_address, "--out", tmp_path / "dask",
                "--bots", ",".join(BOTS), "--games", 150, "--shard-size", 25, "--quiet")
    assert r.exit_code == 0, r.output
    for t in ("hands", "games"):
        pd.testing.assert_frame_equal(read(tmp_path / "local", t), read(tmp_path / "dask", t))
    m = json.loads((tmp_path / "dask" / "manifest.json").read_text())
    assert m["status"] == "complete" and m["shards"]["finished"] == [[0, 5]]
    assert m["sessions"][-1]["scheduler"] == cluster.scheduler_address


def test_dask_finishes_a_local_run_and_reports_progress(tmp_path, cluster, capsys):
    out = tmp_path / "mixed"
    # Three shards locally, then the rest on the cluster with --resume.
    job = runner.Job(out=str(out), games=100, shard_size=20, bots=("greedy",))
    plan = runner.plan(job, ENGINE)
    store = Store(plan.location)
    store.makedirs("hands")
    store.makedirs("games")
    for k in (0, 2, 3):
        runner.run_shard(plan, k, ENGINE)
    store.write_json(runner.new_manifest(plan), "manifest.json")
    executor = DaskExecutor(cluster.scheduler_address)
    try:
        res = runner.run(plan, resume=True, progress=sys.stderr, engine=ENGINE, executor=executor)
    finally:
        executor.close()
    assert res.played == 40 and res.status == "complete"
    assert "100/100 games" in capsys.readouterr().err
    whole = tmp_path / "whole"
    runner.run(runner.plan(runner.Job(out=str(whole), games=100, shard_size=20, bots=("greedy",)), ENGINE),
               progress=None, engine=ENGINE)
    pd.testing.assert_frame_equal(read(whole, "hands"), read(out, "hands"))


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    r = run_cli("run", "--scheduler", "tcp://127.0.0.1:9", "--out", tmp_path / "o", "--games", 10)
    assert r.exit_code == 2 and "cannot connect" in r.output, r.output
    assert not (tmp_path / "o").exists()
    assert len(r.output.strip().splitlines()) == 1


def test_an_experiment_on_dask_equals_a_local_one(tmp_path, cluster):
    # The experiment's arms are runner jobs, so --scheduler runs their shards on the cluster.
    args = ["experiment", "--variant", "greedy:buy=never", "--games", 12, "--json", "--quiet"]
    local = run_cli(*args, "--out", tmp_path / "local")
    dask = run_cli(*args, "--out", tmp_path / "dask", "--scheduler", cluster.scheduler_address)
    assert local.exit_code == 0 and dask.exit_code == 0, dask.output
    strip = lambda d: [{k: v for k, v in a.items() if k != "folder"} for a in json.loads(d)["arms"]]  # noqa: E731
    assert strip(dask.stdout) == strip(local.stdout)
    for arm in ("0-baseline", "1-greedy_buy=never"):
        pd.testing.assert_frame_equal(read(tmp_path / "local" / "arms" / arm, "games"),
                                      read(tmp_path / "dask" / "arms" / arm, "games"))
