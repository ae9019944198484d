"""Run a job's shards as tasks on a Dask distributed cluster.

Each task is ``runner.run_shard(plan, k)`` on a worker: the worker imports
shanghai_sim, plays shard ``k`` and writes its part files itself, straight to
the output location, so no rows travel through the scheduler. The location
must be storage every worker and this client see at the same path (a shared
file system, or a URL pyarrow opens such as ``s3://bucket/run``). The client
checks each reported shard is visible, records it in ``manifest.json`` and
shows progress; the rows equal a local run's because a shard depends only on
the plan and its number.

A Dask scheduler runs whatever a connecting client sends it, so a cluster
reachable by others must use TLS with client certificates (``tls://``
addresses; certificates from options, or from Dask's own configuration,
``distributed.comm.tls.*``). Plain ``tcp://`` belongs on a private network.
Start a cluster (docs/dataset.md)::

    dask scheduler --tls-ca-file ca.pem --tls-cert sched.pem --tls-key sched.key   # tls://HOST:8786
    dask worker tls://HOST:8786 --tls-ca-file ca.pem --tls-cert w.pem --tls-key w.key --nworkers 4 --nthreads 1
    shanghai-sim run --scheduler tls://HOST:8786 --tls-ca-file ca.pem --tls-cert me.pem --tls-key me.key ...
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Any

from .runner import Engine, JobError, Plan, RunStopped, ShardResult, Tracker, run_shard

WORKER_TIMEOUT = 60.0    # seconds with no live worker before a run stops (``run --worker-timeout``)


def security_for(address: str, ca_file: str | None = None, cert: str | None = None,
                 key: str | None = None) -> Any:
    """The ``distributed.Security`` for ``address``: None for tcp:// (no TLS), else
    TLS with the given files, or, when none is given, Dask's configuration
    (``distributed.comm.tls.ca-file`` / ``.client.cert`` / ``.client.key``, e.g.
    in ~/.config/dask/distributed.yaml or DASK_DISTRIBUTED__COMM__TLS__... variables)."""
    if not str(address).startswith("tls://"):
        return None
    try:
        from distributed.security import Security
    except ImportError:
        raise JobError("--scheduler needs Dask: pip install 'shanghai-sim[dask]'") from None
    for what, path in (("--tls-ca-file", ca_file), ("--tls-cert", cert), ("--tls-key", key)):
        if path is not None and not os.path.isfile(path):
            raise JobError(f"{what} {path}: no such file")
    if ca_file or cert or key:
        if not (ca_file and cert):
            raise JobError("a tls:// scheduler needs --tls-ca-file and --tls-cert (and --tls-key unless the "
                           "key is in the certificate file)")
        return Security(tls_ca_file=ca_file, tls_client_cert=cert, tls_client_key=key,
                        require_encryption=True)
    sec = Security(require_encryption=True)          # from Dask's configuration, if any
    if not (sec.tls_ca_file and sec.tls_client_cert):
        raise JobError(f"--scheduler {address}: no TLS certificates: give --tls-ca-file, --tls-cert and "
                       "--tls-key, or set distributed.comm.tls in Dask's configuration (docs/dataset.md)")
    return sec


def shard_task(plan: Plan, shard: int, engine: Engine | None = None) -> ShardResult:
    """What a worker runs: one whole shard, written to the plan's location."""
    return run_shard(plan, shard, engine)


class DaskExecutor:
    """An executor for ``runner.run``: the pending shards as tasks on ``address``.

    ``address`` is a scheduler address (``tcp://host:8786``) or a
    ``distributed.Client``/``LocalCluster`` object already running. When the
    scheduler has had no live worker for ``worker_timeout`` seconds (all died,
    or none ever came), or a shard's task killed every worker it was given, the
    run stops with ``RunStopped`` (one line) instead of waiting for ever.
    """

    def __init__(self, address: Any, connect_timeout: float = 10.0, security: Any = None,
                 worker_timeout: float = WORKER_TIMEOUT):
        import math
        for what, v in (("worker_timeout", worker_timeout), ("connect_timeout", connect_timeout)):
            # NaN passes every comparison: a NaN timeout would never expire (a job with no worker
            # waiting for ever)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise JobError(f"{what} = {v!r}: expected a positive number of seconds")
        self.address = address
        self.connect_timeout = connect_timeout
        self.security = security
        self.worker_timeout = worker_timeout
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
            self.client, self.owned = Client(self.address, timeout=self.connect_timeout,
                                             security=self.security), True
        except Exception as e:   # OSError, TimeoutError, a TLS handshake refused, a bad TLS setup
            why = _short(e)
            if str(self.address).startswith("tls://"):
                why += "; does the scheduler accept this client's certificate?"
            raise JobError(f"--scheduler {self.address}: cannot connect ({why})") from None
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
            alive = _WorkerWatch(client, self.worker_timeout, self.address)
            while not ac.is_empty():
                for fut in ac.next_batch(block=False) or []:
                    res: ShardResult = _result(fut, self.address, alive)
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
                    alive.check()
        finally:
            for f in futures:
                if not f.done():
                    f.cancel()
            # a client this executor opened ends with the run: left open, it outlives a
            # LocalCluster closed after run() and logs its failed reconnects
            self.close()


class _WorkerWatch:
    """Counts how long the scheduler has had no worker (asked at most once a second)."""

    def __init__(self, client: Any, timeout: float, address: Any):
        self.client, self.timeout, self.address = client, timeout, address
        self.since: float | None = None
        self.asked = 0.0

    def workers(self) -> int | None:
        try:
            return len(self.client.scheduler_info().get("workers", {}))
        except Exception:                 # the scheduler itself is gone: no worker either
            return 0

    def check(self) -> None:
        now = time.monotonic()
        if now - self.asked < min(1.0, self.timeout / 4):
            return
        self.asked = now
        if self.workers():
            self.since = None
            return
        if self.since is None:
            self.since = now
        elif now - self.since >= self.timeout:
            raise RunStopped(f"--scheduler {_name(self.address)}: no live Dask worker for "
                             f"{self.timeout:g} s (all stopped or died); start workers")


def _name(address: Any) -> str:
    """A scheduler address, or the address of a ``Client`` given instead."""
    if isinstance(address, str):
        return address
    return str(getattr(getattr(address, "scheduler", None), "address", None) or address)


def _result(fut: Any, address: Any, alive: _WorkerWatch) -> ShardResult:
    """A finished task's result; a task that killed every worker it ran on is RunStopped.
    A result held by a worker that died before sending it must be computed again, so
    the wait for it is watched for live workers too (it would otherwise never end)."""
    while True:
        try:
            return fut.result(timeout=1.0)
        except Exception as e:
            if type(e).__name__ == "KilledWorker":
                raise RunStopped(f"--scheduler {_name(address)}: the workers running a shard died "
                                 f"({_short(e)}); check their memory and logs") from None
            if not isinstance(e, TimeoutError) and "Timeout" not in type(e).__name__:
                raise
        alive.check()


def _short(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return (msg[0] if msg else type(e).__name__)[:200]


def _check_reachable(address: str, timeout: float) -> None:
    """Fail fast, in one line, when a tcp:// or tls:// scheduler does not answer at all."""
    scheme = address.partition("://")[0]
    if scheme not in ("tcp", "tls"):
        return
    hostport = address[len(scheme) + 3:].rstrip("/")
    host, _, port = hostport.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):
        raise JobError(f"--scheduler {address}: expected {scheme}://HOST:PORT (e.g. {scheme}://10.0.0.5:8786)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=min(timeout, 5.0)).close()
    except OSError as e:
        raise JobError(f"--scheduler {address}: cannot connect ({e.strerror or e})") from None


def ac_wait(ac, timeout: float) -> None:
    """Wait until ``ac`` has a finished future or ``timeout`` passes."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not ac.has_ready():
        time.sleep(0.02)
