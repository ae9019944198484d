"""The plain install (README's first block: ``pip install .``) carries every package: pyproject.toml
lists packages by name, so a folder left off the list would be missing from the wheel and every
command would fail on import after a plain install, while an editable checkout still worked."""

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _listed() -> set[str]:
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])


def _folders() -> set[str]:
    """Every folder of shanghai_sim/ and cli/ that holds Python, as the package it installs as."""
    out = set()
    for top, name in (("shanghai_sim", "shanghai_sim"), ("cli", "shanghai_sim.cli")):
        for init in (ROOT / top).rglob("*.py"):
            rel = init.parent.relative_to(ROOT / top)
            if "__pycache__" not in rel.parts:
                out.add(".".join((name, *rel.parts)))
    return out


def test_every_package_folder_is_listed_and_is_a_package():
    folders = _folders()
    assert folders - _listed() == set(), "folders of Python missing from pyproject.toml's packages"
    assert _listed() - folders == set(), "pyproject.toml lists packages that are not there"
    for pkg in folders:
        cli = pkg.startswith("shanghai_sim.cli")
        folder = (ROOT / "cli").joinpath(*pkg.split(".")[2:]) if cli else ROOT.joinpath(*pkg.split("."))
        assert (folder / "__init__.py").is_file(), f"{pkg}: no __init__.py"


def test_the_wheel_installs_into_a_fresh_environment_and_plays(tmp_path):
    """Build the wheel as ``pip install .`` does, install it alone into a new virtual environment
    (its dependencies read from this one's site-packages, so no download), and play there, from a
    folder outside the checkout: the installed copy runs, not the checkout."""
    src = tmp_path / "src"                   # a copy: building in the checkout would write build/ there
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("shanghai_sim", "cli"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    wheel, = wheels.glob("shanghai_sim-*.whl")
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                        "--no-index", str(wheel)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    # the dependencies from this environment; a plain path entry, so its .pth files (this
    # checkout's editable install among them) are not read
    (site / "deps_from_test.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    play = tmp_path / "play"
    play.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([py, "-c", "import shanghai_sim, shanghai_sim.cli; print(shanghai_sim.__file__)"],
                           cwd=play, env=env, capture_output=True, text=True, timeout=120)
    assert where.returncode == 0, where.stderr[-3000:]
    assert where.stdout.strip().startswith(str(site)), where.stdout
    # the value models are package data: the installed copy loads them
    models = subprocess.run([py, "-c", "from shanghai_sim.learning import value_model; "
                             "print(*(value_model(p).model_id for p in ('shanghai', 'contract', 'progressive')))"],
                            cwd=play, env=env, capture_output=True, text=True, timeout=300)
    assert models.returncode == 0 and models.stdout.count("value-") == 3, models.stdout + models.stderr[-2000:]
    run = subprocess.run([env_dir / "bin" / "shanghai-sim", "run", "--games", "3", "--out", "out", "--quiet"],
                         cwd=play, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    summary = subprocess.run([env_dir / "bin" / "shanghai-sim", "summary", "out"],
                             cwd=play, env=env, capture_output=True, text=True, timeout=300)
    assert summary.returncode == 0 and "3 games" in summary.stdout, summary.stdout + summary.stderr[-2000:]
