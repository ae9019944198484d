"""A kernel cache folder that cannot be used (issue 59): ``SHANGHAI_SIM_CACHE_DIR`` a file,
below /proc, not writable. ``shanghai-sim cache`` says so on one line (exit 2); the other
commands cache into a temporary folder of their own, say so once, and never write into the
installed package (numba's own fallback is the package's ``kernels/__pycache__``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import shanghai_sim
from shanghai_sim.cli.main import main
from shanghai_sim.kernels.compile import cache as C

PKG = Path(shanghai_sim.__file__).resolve().parent


def _numba_files(folder: Path) -> set[str]:
    return {str(p) for pat in ("*.nbi", "*.nbc", "*.cell", "*.lock") for p in folder.rglob(pat)}


@pytest.fixture
def a_file(tmp_path):
    f = tmp_path / "not-a-folder"
    f.write_text("a file")
    return f


def test_cache_problem_names_why(tmp_path, a_file, monkeypatch):
    assert C.cache_problem(tmp_path) is None
    assert C.cache_problem(tmp_path / "new" / "deeper") is None        # made on first use
    assert C.cache_problem(a_file) == "it is a file, not a folder"
    assert C.cache_problem(a_file / "sub") == f"{a_file} is a file, not a folder"
    assert C.cache_problem(Path("/proc/cache")) == "it is below /proc, which holds the system's own files"
    assert "below /sys" in C.cache_problem(Path("/sys"))
    (tmp_path / "link").symlink_to(tmp_path / "nowhere" / "x")
    assert C.cache_problem(tmp_path / "link") == "it is a broken link"
    if os.geteuid() != 0:                   # root writes anywhere: no such folder for root
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        assert C.cache_problem(ro) == "it is not writable"
    monkeypatch.setenv("SHANGHAI_SIM_CACHE_DIR", str(a_file))
    assert C.cache_problem() == "it is a file, not a folder"


@pytest.mark.parametrize("where, why", [("file", "it is a file, not a folder"),
                                        ("/proc/shanghai", "it is below /proc")])
@pytest.mark.parametrize("clear", [[], ["--clear"]])
def test_cache_command_says_the_folder_cannot_be_used(a_file, monkeypatch, where, why, clear):
    folder = str(a_file) if where == "file" else where
    monkeypatch.setenv("SHANGHAI_SIM_CACHE_DIR", folder)
    r = CliRunner().invoke(main, ["cache", *clear])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: cache folder {folder} cannot be used: {why}")
    assert "temporary folder" in lines[0] and "SHANGHAI_SIM_CACHE_DIR" in lines[0]
    assert a_file.read_text() == "a file"                              # --clear touched nothing


def test_active_root_falls_back_to_a_temporary_folder_once(a_file, monkeypatch, capsys):
    monkeypatch.setenv("SHANGHAI_SIM_CACHE_DIR", str(a_file))
    monkeypatch.delenv("SHANGHAI_SIM_CACHE_WARNED", raising=False)
    monkeypatch.setattr(C, "_FALLBACK", {})
    first = C.active_root()
    assert first.is_dir() and first != a_file and PKG not in first.parents
    assert C.active_root() == first and C.cache_dir().parent == first
    err = capsys.readouterr().err
    assert err.count("warning: the kernel cache folder") == 1 and "it is a file, not a folder" in err
    assert os.environ.get("SHANGHAI_SIM_CACHE_WARNED") == "1"           # child processes stay quiet


# A tiny kernel of the package (kernels/base/rng.py) compiled from scratch in a process whose cache
# folder is a file: where did its cache go? (PYTHONDONTWRITEBYTECODE: no .pyc either.)
_COMPILE = """
from shanghai_sim.kernels.compile.cache import active_root, cache_dir
from shanghai_sim.kernels.base.rng import game_seed_nb
print(game_seed_nb(1, 2)); print(active_root())
"""


def test_a_bad_cache_folder_writes_nothing_into_the_package(a_file):
    before = _numba_files(PKG)
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=str(a_file), PYTHONDONTWRITEBYTECODE="1")
    env.pop("SHANGHAI_SIM_CACHE_WARNED", None)
    p = subprocess.run([sys.executable, "-c", _COMPILE], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    seed, used = p.stdout.split()
    assert int(seed) != 0
    assert _numba_files(PKG) == before, sorted(_numba_files(PKG) - before)
    assert not (PKG / "kernels" / "__pycache__").exists() or \
        not _numba_files(PKG / "kernels" / "__pycache__") - before
    assert f"the kernel cache folder {a_file} cannot be used (it is a file, not a folder)" in p.stderr
    assert f"this run caches into {used}" in p.stderr
    assert not Path(used).exists()                     # the temporary folder went at exit
    assert a_file.read_text() == "a file"
