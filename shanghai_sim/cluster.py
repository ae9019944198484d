"""Run a job's shards as tasks on a Dask distributed cluster.

Each task is ``runner.run_shard(plan, k)`` on a worker: the worker imports
shanghai_sim, plays shard ``k`` and writes its part files itself, straight to
the output location, so no rows travel through the scheduler. The location
must be storage every worker and this client see at the same path (a shared
file system, or a URL pyarrow opens such as ``s3://bucket/run``). The client
checks each reported shard is visible, records it in ``manifest.json`` and
shows progress; the rows equal a local run's because a shard depends only on
the plan and its number.

Start a cluster (docs/dataset.md)::

    dask scheduler                                   # prints tcp://HOST:8786
    dask worker tcp://HOST:8786 --nworkers 4 --nthreads 1
    shanghai-sim run --scheduler tcp://HOST:8786 --out /shared/run1 ...
"""

from __future__ import annotations

import socket
import time
import uuid
from typing import Any

from .runner import Engine, JobError, Plan, ShardResult, Tracker, run_shard


def shard_task(plan: Plan, shard: int, engine: Engine | None = None) -> ShardResult:
    """What a worker runs: one whole shard, written to the plan's location."""
    return run_shard(plan, shard, engine)


class DaskExecutor:
    """An executor for ``runner.run``: the pending shards as tasks on ``address``.

    ``address`` is a scheduler address (``tcp://host:8786``) or a
    ``distributed.Client``/``LocalCluster`` object already running.
    """

    def __init__(self, address: Any, connect_timeout: float = 10.0):
        self.address = address
        self.connect_timeout = connect_timeout
        self.client = None
        self.owned = False

    def connect(self) -> "DaskExecutor":
        """Connect now (before anything is written); JobError if the scheduler is unreachable."""
        if self.client is not None:
            return self
        try:
            from distributed import Client
        except ImportError:
            raise JobError("--scheduler needs Dask: pip install 'shanghai-sim[dask]'") from None
        if isinstance(self.address, Client):
            self.client, self.owned = self.address, False
            return self
        _check_reachable(str(self.address), self.connect_timeout)
        try:
            self.client, self.owned = Client(self.address, timeout=self.connect_timeout), True
        except (OSError, TimeoutError, ValueError) as e:
            raise JobError(f"--scheduler {self.address}: cannot connect ({e})") from None
        return self

    def close(self) -> None:
        if self.owned and self.client is not None:
            self.client.close()
        self.client, self.owned = None, False

    def __call__(self, plan: Plan, pending: list[int], engine: Engine | None, tracker: Tracker) -> None:
        from distributed import as_completed

        client = self.connect().client
        futures = []
        try:
            prefix = f"shanghai-shard-{uuid.uuid4().hex[:8]}"
            futures = [client.submit(shard_task, plan, k, engine, key=f"{prefix}-{k}", pure=False)
                       for k in pending]
            ac = as_completed(futures)
            while not ac.is_empty():
                for fut in ac.next_batch(block=False) or []:
                    res: ShardResult = fut.result()
                    missing = [t for t in plan.tables
                               if not tracker.store.exists(t, plan.part(res.shard))]
                    if missing:
                        raise JobError(
                            f"a worker wrote shard {res.shard} but {plan.location}/{missing[0]}/"
                            f"{plan.part(res.shard)} is not visible here: workers and client need "
                            "shared storage (or an s3:// / gs:// URL)")
                    tracker.shard_done(res, counted=False)
                    fut.release()
                tracker.tick()
                if not ac.is_empty():
                    ac_wait(ac, 0.25)
        finally:
            for f in futures:
                if not f.done():
                    f.cancel()


def _check_reachable(address: str, timeout: float) -> None:
    """Fail fast, in one line, when a tcp:// scheduler does not answer at all."""
    if not address.startswith("tcp://"):
        return
    hostport = address[len("tcp://"):].rstrip("/")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise JobError(f"--scheduler {address}: expected tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=min(timeout, 5.0)).close()
    except OSError as e:
        raise JobError(f"--scheduler {address}: cannot connect ({e.strerror or e})") from None


def ac_wait(ac, timeout: float) -> None:
    """Wait until ``ac`` has a finished future or ``timeout`` passes."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not ac.has_ready():
        time.sleep(0.02)
