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


# The studies (argparse): their int and float options read as the commands' (analyses_common.Parser:
# ascii_int, finite_float); each bad value is one line, exit 2, before anything runs.
SCRIPTS = [
    ("analyses/going_down.py", "--games", BAD_INTEGERS),
    ("analyses/going_down.py", "--seed", BAD_INTEGERS),
    ("analyses/buying.py", "--target-ci", BAD_NUMBERS),
    ("analyses/tune_smart.py", "--margin", BAD_NUMBERS),
    ("analyses/when_to_buy.py", "--samples", BAD_INTEGERS),
]


@pytest.mark.parametrize("path, option, values", SCRIPTS, ids=[f"{s[0]} {s[1]}" for s in SCRIPTS])
def test_the_scripts_refuse_them_too(tmp_path, monkeypatch, capsys, path, option, values):
    import importlib
    import sys
    from pathlib import Path
    mod = importlib.import_module(Path(path).with_suffix("").as_posix().replace("/", "."))
    for value in values:
        given = f"{option}={value}"           # -inf is not taken for an option
        monkeypatch.setattr(sys, "argv", [path, given, "--out", str(tmp_path / "never-written")])
        with pytest.raises(SystemExit) as e:
            mod.main()
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and len(err.splitlines()) == 1, (option, value, err)
        assert f"argument {option}: invalid" in err and repr(value) in err, err
    assert not (tmp_path / "never-written").exists()


def test_strict_numbers_read_what_the_commands_read():
    from analyses.analyses_common import ascii_int, finite_float
    assert ascii_int(" +42 ") == 42 and ascii_int("-7") == -7 and ascii_int("05") == 5
    assert finite_float("2") == 2.0 and finite_float("1.5e2") == 150.0 and finite_float(".5") == 0.5
    for bad in BAD_INTEGERS:
        with pytest.raises(ValueError):
            ascii_int(bad)
    for bad in BAD_NUMBERS:
        with pytest.raises(ValueError):
            finite_float(bad)


@pytest.mark.parametrize("line, says", [
    ("target_ci = inf", "--target-ci inf: must be a positive number of points"),
    ("target_ci = nan", "--target-ci nan: must be a positive number of points"),
    ('target_ci = "2"', "--target-ci '2': must be a positive number of points"),
    ("target_ci = true", "--target-ci True: must be a positive number of points"),
    ("players = 2.5", "players = 2.5: expected an integer"),
    ("players = inf", "players = inf: expected an integer"),
    ("players = 0", "players = 0: must be 2..8"),
])
def test_an_experiment_files_numbers_are_checked_as_its_options(tmp_path, line, says):
    """An experiment file's target_ci of infinity ran, a string or a fractional player count
    was a TypeError traceback, and players = 0 (or --players 0) played the rules' count."""
    size = "max_games = 4" if line.startswith("target_ci") else "games = 4"
    f = tmp_path / "e.toml"
    f.write_text(f'baseline = "greedy"\n{size}\n{line}\n[[variants]]\nname = "r"\nbot = "random"\n')
    r = run_cli("experiment", f, "--out", tmp_path / "never-written", "--quiet")
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert says in lines[0], lines[0]
    if line == "players = 0":
        r = run_cli("experiment", "--variant", "random", "--players", "0", "--games", "4",
                    "--out", tmp_path / "never-written", "--quiet")
        assert r.exit_code == 2 and says in r.output, r.output
    assert not (tmp_path / "never-written").exists()
