"""Every numeric option of every command refuses NaN, infinities and digits other than 0-9.

``type=int`` and ``type=float`` (click) take what Python's ``int()`` and ``float()`` take:
``٥`` (an Arabic-Indic five), ``1_000``, ``nan`` and ``inf``, and NaN passes any range check
(a ``--worker-timeout nan`` never expired). The commands share ``cli.errors.Integer`` and
``Number``; the options given as text (``play``, ``replay``, ``serve``) go through
``limits.parse_int``. Each bad value: exit 2, one line naming the option or the value.
"""

from __future__ import annotations

import pytest

from test_runner_support import run_cli

BAD_INTEGERS = ["nan", "inf", "-inf", "\u0665", "\uff11", "1_000", "1e3", "0x10", "2.0", ""]
BAD_NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "\u0665", "1_0", "0x1p3", ""]

# (command and the arguments before the option, option, the bad values)
TABLE = [
    (["run", "--out", "never-written"], "--games", BAD_INTEGERS),
    (["run", "--out", "never-written"], "--players", BAD_INTEGERS),
    (["run", "--out", "never-written"], "--seed", BAD_INTEGERS),
    (["run", "--out", "never-written"], "--threads", BAD_INTEGERS),
    (["run", "--out", "never-written"], "--shard-size", BAD_INTEGERS),
    (["run", "--out", "never-written"], "--worker-timeout", BAD_NUMBERS + ["0", "86401"]),
    (["experiment", "--out", "never-written"], "--games", BAD_INTEGERS),
    (["experiment", "--out", "never-written"], "--players", BAD_INTEGERS),
    (["experiment", "--out", "never-written"], "--seed", BAD_INTEGERS),
    (["experiment", "--out", "never-written"], "--hand", BAD_INTEGERS),
    (["experiment", "--out", "never-written"], "--max-games", BAD_INTEGERS),
    (["experiment", "--out", "never-written"], "--threads", BAD_INTEGERS),
    (["experiment", "--out", "never-written"], "--target-ci", BAD_NUMBERS),
    (["tournament", "--out", "never-written", "--bots", "greedy,random"], "--deals", BAD_INTEGERS),
    (["tournament", "--out", "never-written", "--bots", "greedy,random"], "--players", BAD_INTEGERS),
    (["tournament", "--out", "never-written", "--bots", "greedy,random"], "--seed", BAD_INTEGERS),
    (["tournament", "--out", "never-written", "--bots", "greedy,random"], "--threads", BAD_INTEGERS),
    (["meld", "5C", "6C", "7C", "-c", "1"], "--players", BAD_INTEGERS),
    (["warmup"], "--jobs", BAD_INTEGERS + ["0", "65"]),
    (["replay"], "--seed", BAD_INTEGERS),
    (["replay", "--seed", "1"], "--players", BAD_INTEGERS),
    (["play"], "--players", BAD_INTEGERS),
    (["play"], "--seat", BAD_INTEGERS),
    (["play"], "--seed", BAD_INTEGERS),
    (["serve"], "--port", BAD_INTEGERS),
    (["serve"], "--players", BAD_INTEGERS),
    (["serve"], "--seed", BAD_INTEGERS),
]


@pytest.mark.parametrize("before, option, values", TABLE, ids=[f"{t[0][0]} {t[1]}" for t in TABLE])
def test_every_numeric_option_refuses_nan_infinities_and_other_digits(tmp_path, monkeypatch, before,
                                                                        option, values):
    monkeypatch.chdir(tmp_path)
    for value in values:
        r = run_cli(*before, option, value)
        lines = r.output.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1, (option, value, r.output)
        assert option.lstrip("-").split("-")[0] in lines[0] or repr(value)[1:-1] in lines[0], (value, lines[0])
        assert "Traceback" not in r.output
    assert not (tmp_path / "never-written").exists()


def test_good_values_still_read(tmp_path):
    """ASCII digits with a sign, and decimal or exponent notation for the real-number options."""
    from shanghai_sim.cli.errors import Integer, Number
    assert Integer().convert(" +42 ", None, None) == 42 and Integer().convert("-7", None, None) == -7
    assert Number().convert("2", None, None) == 2.0 and Number().convert("1.5e2", None, None) == 150.0
    assert Number().convert(".5", None, None) == 0.5 and Number(1, 86400).convert("60", None, None) == 60.0
    r = run_cli("run", "--out", tmp_path / "ok", "--games", "+8", "--seed", "05", "--worker-timeout", "1e2",
                "--quiet")
    assert r.exit_code == 0, r.output
    import json
    job = json.loads((tmp_path / "ok" / "manifest.json").read_text())["job"]
    assert job["games"] == 8 and job["seed"] == 5


def test_the_dask_executor_refuses_a_nan_timeout():
    from shanghai_sim.cluster import DaskExecutor
    from shanghai_sim.runner import JobError
    for bad in (float("nan"), float("inf"), 0, -1, "60", True):
        with pytest.raises(JobError, match="positive number of seconds"):
            DaskExecutor("tcp://127.0.0.1:1", worker_timeout=bad)
