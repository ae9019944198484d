"""A Dask cluster only its owners can use (issue 19): a TLS scheduler on loopback with
certificates made here; a client with the cluster's certificate runs a job, a client
without one (or with a certificate of another authority, or over plain tcp://) is refused."""

import datetime as dt
import ipaddress

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
x509 = pytest.importorskip("cryptography.x509")

from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402
from distributed.security import Security  # noqa: E402

from shanghai_sim import runner  # noqa: E402
from shanghai_sim.cluster import DaskExecutor, security_for  # noqa: E402
from test_runner_support import ENGINE, read, run_cli  # noqa: E402

BOTS = ("random", "greedy", "greedy", "greedy")


def _name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _write_key(key, path):
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))


def make_authority(folder, tag):
    """A CA and one certificate it signs (for 127.0.0.1 and localhost): ca.pem, cert.pem, key.pem."""
    now = dt.datetime.now(dt.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name(f"{tag} test CA")).issuer_name(_name(f"{tag} test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    san = x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    cert = (x509.CertificateBuilder().subject_name(_name(f"{tag} member")).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
            .add_extension(san, critical=False).sign(ca_key, hashes.SHA256()))
    folder.mkdir()
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(key, folder / "key.pem")
    return {k: str(folder / f"{k}.pem") for k in ("ca", "cert", "key")}


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("tls")
    ours, theirs = make_authority(base / "ours", "cluster"), make_authority(base / "theirs", "stranger")
    sec = Security(tls_ca_file=ours["ca"], tls_scheduler_cert=ours["cert"], tls_scheduler_key=ours["key"],
                   tls_worker_cert=ours["cert"], tls_worker_key=ours["key"],
                   tls_client_cert=ours["cert"], tls_client_key=ours["key"], require_encryption=True)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tls://",
                                  host="127.0.0.1", security=sec, dashboard_address=None,
                                  silence_logs=50) as cluster:
        assert cluster.scheduler_address.startswith("tls://127.0.0.1:")
        yield cluster.scheduler_address, ours, theirs


def test_a_client_with_the_clusters_certificate_runs_a_job(tmp_path, tls_cluster):
    address, ours, _ = tls_cluster
    r = run_cli("run", "--scheduler", address, "--tls-ca-file", ours["ca"], "--tls-cert", ours["cert"],
                "--tls-key", ours["key"], "--out", tmp_path / "tls", "--bots", ",".join(BOTS),
                "--games", 60, "--shard-size", 20, "--quiet")
    assert r.exit_code == 0, r.output
    local = runner.Job(out=str(tmp_path / "local"), bots=BOTS, games=60, shard_size=20, threads=1)
    runner.run(runner.plan(local, ENGINE), progress=None, engine=ENGINE)
    for t in ("hands", "games"):
        pd.testing.assert_frame_equal(read(tmp_path / "local", t), read(tmp_path / "tls", t))


def test_a_client_without_the_certificate_is_refused(tmp_path, tls_cluster, monkeypatch):
    address, ours, theirs = tls_cluster
    # no certificate at all: refused before connecting, in one line
    r = run_cli("run", "--scheduler", address, "--out", tmp_path / "o", "--games", 10)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert "no TLS certificates" in r.output and not (tmp_path / "o").exists()
    # a certificate of another authority: the scheduler refuses the handshake
    stranger = Security(tls_ca_file=ours["ca"], tls_client_cert=theirs["cert"], tls_client_key=theirs["key"],
                        require_encryption=True)
    with pytest.raises(runner.JobError, match="cannot connect"):
        DaskExecutor(address, connect_timeout=3, security=stranger).connect()
    # plain tcp:// to the TLS port: no cluster either
    with pytest.raises(runner.JobError, match="cannot connect"):
        DaskExecutor(address.replace("tls://", "tcp://"), connect_timeout=3).connect()
    # Dask's own configuration is a way to give the certificates too
    import dask
    with dask.config.set({"distributed.comm.tls.ca-file": ours["ca"],
                          "distributed.comm.tls.client.cert": ours["cert"],
                          "distributed.comm.tls.client.key": ours["key"]}):
        ex = DaskExecutor(address, connect_timeout=5, security=security_for(address)).connect()
        try:
            assert ex.client.run_on_scheduler(lambda: 1) == 1
        finally:
            ex.close()


def test_tls_options_need_a_tls_address(tmp_path):
    r = run_cli("run", "--scheduler", "tcp://127.0.0.1:9", "--tls-cert", "x.pem", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "tls://" in r.output
