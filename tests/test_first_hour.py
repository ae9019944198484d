"""A new user's first hour: fast help, the kernel cache, compile notices, bad input.

Each bad input is one line naming the problem, exit status 2, no traceback.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_runner_support import run_cli


@pytest.fixture(scope="module")
def main():
    from shanghai_sim.cli.main import main
    return main


def invoke(main, *args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, **kw)


def one_line_error(result, named):
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert named in lines[0], lines[0]
    assert "Traceback" not in result.output


# ---------------------------------------------------------------- instant help

def test_help_and_version_load_no_library():
    """--help and --version import click and the defaults only: no numpy, numba or pyarrow."""
    code = ("import sys\n"
            "from shanghai_sim.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "try:\n    main(['run', '--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'numba', 'pyarrow', 'pandas', 'llvmlite'))\n"
            "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out, out
    assert "shanghai-sim run" in out and "Start here" in out


def test_help_states_the_first_compile_as_readme_does(main):
    """`--help` and `warmup --help` give the first compile's time in README's own figures (the
    main job's, and every kernel's with `warmup`), so the two cannot drift apart."""
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    run = re.search(r"The first run compiles the numba kernels it needs, (about \d+ seconds on 2 cores)",
                    readme)
    every = re.search(r"To compile every kernel up front instead, with progress \((under \w+ minutes) on 2 cores",
                      readme)
    assert run and every, "README no longer states the first compile's time where this test looks"
    run_s = run.group(1).replace(" on 2 cores", "")             # "about 35 seconds"
    for args in ([], ["warmup"]):
        text = " ".join(invoke(main, *args, "--help").output.split())
        assert f"{run_s} for `run` on 2 cores" in text, (args, text)
        assert f"in {every.group(1)}" in text, (args, text)
        assert "few minutes" not in text


def test_readmes_test_figures_say_when_and_at_what_load():
    """README's paragraph on the test run gives its time with the commit, the date and the
    load average it was measured at, and no test count (it would go stale with every test
    added); the warm-up's cadence it states is precompile.TICK."""
    from shanghai_sim.precompile import TICK
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    para = " ".join(readme.split("Run the tests", 1)[1].split("## ", 1)[0].split())
    assert "`.ci/run`" in para and re.search(r"took [\w.]+ minutes", para), para
    when = re.search(r"\(at ([0-9a-f]{7,40}), (\d{4}-\d\d-\d\d); load average[^)]*\)", para)
    assert when, "README's test run time must name its commit, date and load average"
    assert not re.search(r"\d[\d,]* tests\b", para), "a test count in README's test paragraph"
    assert f"at least every {TICK:g} seconds" in para


def test_import_is_lazy():
    code = ("import sys, shanghai_sim as ss\n"
            "assert 'numba' not in sys.modules and ss.__version__\n"
            "assert callable(ss.analyze_hand) and 'numba' in sys.modules\n"
            "assert ss.Game.__name__ == 'Game' and callable(ss.warmup)\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- the kernel cache

def test_kernels_are_cached_per_user_not_in_the_package():
    """Every kernel of the package uses the per-user locator, one folder per module keyed by
    the hash of its dependency closure."""
    import shanghai_sim
    from shanghai_sim.kernels.melds import finder as melds
    from shanghai_sim.kernels.engine import play
    from shanghai_sim.kernels.compile.cache import (MODULE_HASHES, PackageCacheLocator, cache_dir,
                                            cache_root)
    pkg = Path(shanghai_sim.__file__).resolve().parent
    for fn, stem in ((melds.deficiency_nb, "melds.deficiency"), (play.apply_action_nb, "engine.play")):
        loc = fn._cache._impl.locator
        assert isinstance(loc, PackageCacheLocator)
        path = Path(loc.get_cache_path())
        assert cache_root() in path.parents and path.parent == cache_dir()
        assert path.name == f"{stem}-{MODULE_HASHES[stem]}"
        assert pkg not in path.parents                      # never inside the installed package
        assert loc.get_source_stamp() == MODULE_HASHES[stem]


def test_cache_folder_follows_the_environment(tmp_path):
    code = ("from shanghai_sim.kernels.compile.cache import cache_root, cache_dir\n"
            "print(cache_root()); print(cache_dir())\n")
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=str(tmp_path / "c"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == str(tmp_path / "c") and out[1].startswith(out[0])
    env = {k: v for k, v in os.environ.items() if k != "SHANGHAI_SIM_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == str(tmp_path / "xdg" / "shanghai-sim")


def test_cache_command(main):
    r = invoke(main, "cache")
    assert r.exit_code == 0 and "cache folder:" in r.output and "this source:" in r.output


# numba's compiler and its cache load, each slowed in a child process: `slow_compile` and
# `slow_load` seconds added (a compile that takes a while; a load on a stalled machine)
_SLOWED = """
import sys, time
from numba.core import caching, dispatcher
slow_compile, slow_load = map(float, sys.argv[1:3])
compile_, load = dispatcher._FunctionCompiler.compile, caching.Cache.load_overload
def compile_slowly(self, *a, **k):
    time.sleep(slow_compile)
    return compile_(self, *a, **k)
def load_slowly(self, *a, **k):
    out = load(self, *a, **k)
    if out is not None:
        time.sleep(slow_load)
    return out
dispatcher._FunctionCompiler.compile = compile_slowly
caching.Cache.load_overload = load_slowly
from shanghai_sim.kernels.compile.cache import compile_seconds
from shanghai_sim.kernels.base.rng import game_seed_nb
print(game_seed_nb(1, 2), compile_seconds() > 0)
"""


def _kernel_process(cache, slow_compile=0.0, slow_load=0.0):
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=str(cache))
    env.pop("SHANGHAI_SIM_QUIET_COMPILE", None)
    return subprocess.run([sys.executable, "-c", _SLOWED, str(slow_compile), str(slow_load)],
                          env=env, capture_output=True, text=True, check=True, timeout=600)


def test_a_fresh_cache_compiles_and_says_so(tmp_path):
    """A kernel compiled into an empty cache prints the notice (its compile made to take more
    than the notice's second, whatever the machine's speed); the next process loads it
    silently, even when the load itself takes seconds (a stalled or loaded machine: issue 60,
    a load under the notice's old timer said "compiling")."""
    first = _kernel_process(tmp_path / "cache", slow_compile=1.5)
    assert "compiling the numba kernels" in first.stderr and "compiled in" in first.stderr, first.stderr
    assert first.stdout.split()[1] == "True"
    assert list((tmp_path / "cache").rglob("*.nbi")), "nothing was cached in SHANGHAI_SIM_CACHE_DIR"
    second = _kernel_process(tmp_path / "cache", slow_load=2.5)
    assert second.stdout.split()[0] == first.stdout.split()[0]
    assert second.stdout.split()[1] == "False"          # loaded: no second spent compiling
    assert "compil" not in second.stderr, second.stderr


class _Event:
    """A numba event as the notice sees it: a kind, and for numba's compile the dispatcher."""

    def __init__(self, kind, dispatcher=None):
        self.kind = kind
        self.data = {"dispatcher": dispatcher} if dispatcher is not None else None


def _package_compile():
    from shanghai_sim.kernels.base.rng import game_seed_nb
    return _Event("numba:compile", game_seed_nb)


_GROUP = _Event("custom/shanghai_sim:compile")          # kernels.compile.linking: one whole compile


def test_compile_notice_speaks_after_a_second_of_compiling_and_says_when_done():
    from shanghai_sim.kernels.compile.cache import _CompileNotice
    buf = io.StringIO()
    n = _CompileNotice(buf)
    n.on_start(_GROUP)
    n.on_start(_package_compile())
    n.on_start(_package_compile())      # nested compile: one notice
    n.on_end(_package_compile())
    time.sleep(1.6)
    n.on_end(_package_compile())
    assert n.seconds() >= 1.5
    n.on_end(_GROUP)
    text = buf.getvalue()
    assert text.count("compiling the numba kernels") == 1 and "compiled in" in text
    buf2 = io.StringIO()
    quick = _CompileNotice(buf2)
    quick.on_start(_package_compile())
    quick.on_end(_package_compile())    # a compile under a second says nothing
    time.sleep(1.2)
    assert buf2.getvalue() == ""


def test_compile_notice_is_silent_for_loads_and_other_code():
    """A group (kernels.compile.linking's event) that only loads from the cache says nothing however
    long it takes; neither does numba compiling code that is not this package's."""
    from shanghai_sim.kernels.compile.cache import _CompileNotice
    buf = io.StringIO()
    n = _CompileNotice(buf)
    n.on_start(_GROUP)                  # loads only: numba raises no compile event for them
    time.sleep(1.5)
    n.on_end(_GROUP)
    mine = _Event("numba:compile", type("D", (), {"py_func": staticmethod(lambda: 0)})())
    n.on_start(_GROUP)
    n.on_start(mine)                    # a user's own kernel (this test module's function)
    time.sleep(1.5)
    n.on_end(mine)
    n.on_end(_GROUP)
    time.sleep(0.5)
    assert buf.getvalue() == "" and n.seconds() == 0.0
    # a group's short compile, then a long load: the load adds nothing
    n.on_start(_GROUP)
    n.on_start(_package_compile())
    time.sleep(0.3)
    n.on_end(_package_compile())
    time.sleep(1.5)
    n.on_end(_GROUP)
    assert buf.getvalue() == "" and 0.25 < n.seconds() < 1.0


def test_compile_notice_ticks_in_a_log(monkeypatch):
    """Off a terminal (a log, CI) a running compile prints a line at least every TICK seconds."""
    from shanghai_sim.kernels.compile import cache
    monkeypatch.setattr(cache, "TICK", 0.5)
    monkeypatch.setattr(cache, "_EARLY", 0.1)
    stamps = []

    class Log(io.StringIO):
        def write(self, text):
            stamps.append((time.monotonic(), text))
            return super().write(text)

    n = cache._CompileNotice(Log())
    t = time.monotonic()
    n.on_start(_package_compile())
    time.sleep(3.0)
    n.on_end(_package_compile())
    lines = [s for s, text in stamps if text.strip()]
    assert len(lines) >= 4, stamps                       # the first line at 1 s, then every 0.5 s
    gaps = [b - a for a, b in zip([t + 1.0] + lines, lines + [time.monotonic()])]
    assert max(gaps) < 0.5 + 1.0, gaps                   # a wake every 0.25 s; slack for a busy CPU
    assert "compiled in" in stamps[-1][1]


def test_compile_notice_can_be_muted(monkeypatch):
    """run --quiet (progress None) mutes the notice for its warm-up compile."""
    from shanghai_sim.kernels.compile import cache
    buf = io.StringIO()
    n = cache._CompileNotice(buf)
    monkeypatch.setattr(cache, "_NOTICE", n)
    with cache.compile_notice_muted(True):
        n.on_start(_package_compile())
        time.sleep(1.3)
        n.on_end(_package_compile())
    assert buf.getvalue() == "" and n.muted is False
    assert n.seconds() >= 1.2                            # muted, still counted
    with cache.compile_notice_muted(False):
        assert n.muted is False


def test_warmup_says_each_step_and_ticks_while_one_runs(monkeypatch, tmp_path):
    """`warmup` (and the test run's warm-up, tests/conftest.py) prints a line when a step starts
    and ends, and a line at least every TICK seconds while it runs, on any stream: a log too."""
    import shanghai_sim.precompile as P
    monkeypatch.setattr(P, "TICK", 0.5)
    monkeypatch.setattr(P, "_EARLY", 0.1)
    monkeypatch.setattr(P, "STEPS", (("a step of two seconds", lambda: time.sleep(2.0)),))
    monkeypatch.setattr(P, "_marker", lambda: tmp_path / "warm")
    stamps = []

    class Log(io.StringIO):
        def write(self, text):
            if text.strip():
                stamps.append((time.monotonic(), text))
            return super().write(text)

    seconds = P.warmup(stream=Log(), jobs=1)
    texts = [text for _, text in stamps]
    assert texts[1] == "[1/1] a step of two seconds ..."
    assert texts[0].startswith("kernel cache: ")
    assert re.fullmatch(r"\[1/1\] ready in [\d.]+s \(loaded from the cache\)", texts[-1]), texts
    assert 2.0 <= seconds
    ticks = [t for t in texts if t.startswith("[1/1] loading from the cache ... ")]
    assert len(ticks) >= 2, texts                        # nothing compiled: it says loading
    times = [s for s, _ in stamps]
    assert max(b - a for a, b in zip(times, times[1:])) < 0.5 + 1.0, texts   # slack: a busy CPU
    assert (tmp_path / "warm").is_file()


def test_the_test_runs_warm_up_talks():
    """The test session's warm-up (tests/conftest.py) shows each step on the terminal through
    pytest's reporter, and how long it took."""
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                        "tests/test_first_hour.py::test_import_is_lazy"],
                       cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    from shanghai_sim.precompile import STEPS
    n = len(STEPS)
    for i in range(1, n + 1):
        assert f"[{i}/{n}] {STEPS[i - 1][0]} ..." in out and f"[{i}/{n}] ready in " in out, out
    assert re.search(r"^shanghai-sim: kernels ready in [\d.ms]+$", out, re.M), out
    assert out.index("kernels ready in") < out.index("test_import_is_lazy")


def test_warmup_command(main):
    r = invoke(main, "warmup")
    assert r.exit_code == 0, r.output
    assert "[5/5] ready" in r.output and "every kernel ready" in r.output


def test_warmup_jobs_reach_the_warm_up(main, monkeypatch):
    import shanghai_sim.precompile as P
    seen = []
    monkeypatch.setattr(P, "warmup", lambda stream=None, jobs=None: seen.append(jobs) or 0.0)
    assert invoke(main, "warmup", "--jobs", "3").exit_code == 0
    assert invoke(main, "warmup").exit_code == 0
    assert seen == [3, None]
    r = invoke(main, "warmup", "--jobs", "0")
    assert r.exit_code == 2 and "--jobs" in r.output


# ---------------------------------------------------------------- bad bot specs

@pytest.mark.parametrize("bots, named", [
    ("greedy,,greedy,greedy", "empty bot spec"),
    ("greedy,greedy,", "empty bot spec"),
    ("greedy:buy=never:buy=always", "given twice"),
    ("greedy:buy11=never", "buy11"),
    ("greedy:buy0=never", "buy0"),
])
def test_bad_bot_specs_are_refused(tmp_path, bots, named):
    r = run_cli("run", "--bots", bots, "--out", tmp_path / "o", "--games", "10")
    one_line_error(r, named)
    assert not (tmp_path / "o").exists()
    r = run_cli("replay", "--seed", "1", "--bots", bots)
    one_line_error(r, named)


def test_per_hand_parameters_follow_the_rules_hands(tmp_path):
    """progressive has nine hands: buy9 is fine, buy10 is not."""
    r = run_cli("run", "--rules", "progressive", "--bots", "greedy:buy10=never", "--out", tmp_path / "o")
    one_line_error(r, "the rules have 9 hands")
    from shanghai_sim import Game
    from shanghai_sim.bots import BotError
    with pytest.raises(BotError, match="buy11"):
        Game(rules="shanghai", seed=1, bots="greedy:buy11=never")


def test_the_replay_help_examples_work(main, tmp_path, monkeypatch):
    """Every example in `replay --help` runs, in order, as in a shell (`> FILE` writes the
    output there: `replay --log` reads what an earlier example saved)."""
    monkeypatch.chdir(tmp_path)
    text = invoke(main, "replay", "--help").output
    examples = [ln.strip().split("#")[0] for ln in text.splitlines()
                if ln.strip().startswith("shanghai-sim replay")]
    assert len(examples) >= 3
    for ex in examples:
        command, _, target = ex.partition(">")
        r = invoke(main, *shlex.split(command)[1:])
        assert r.exit_code == 0, (ex, r.output[-300:])
        if target.strip():
            (tmp_path / target.strip()).write_text(r.output)


# ---------------------------------------------------------------- hands the shoe cannot hold

@pytest.mark.parametrize("cards, named", [
    ("AS AS AS AS AS AS", "6 x AS"),
    ("JK JK JK JK JK JK JK JK JK 5C 6C 7C", "9 jokers"),
    (" ".join(["KH"] * 3 + ["2C", "3C"]), "3 x KH"),
])
def test_meld_refuses_a_hand_the_shoe_cannot_hold(main, cards, named):
    r = invoke(main, "meld", *cards.split(), "--contract", "1")
    one_line_error(r, named)
    assert "2 packs of 52" in r.output and "--any-hand" in r.output


def test_meld_shoe_follows_players_and_can_be_lifted(main):
    r = invoke(main, "meld", *"AS AS AS AS 5C 5D 5H".split(), "--contract", "1")
    one_line_error(r, "4 x AS")
    r = invoke(main, "meld", *"AS AS AS AS 5C 5D 5H".split(), "--contract", "1", "--players", "8")
    assert r.exit_code == 0 and "satisfiable: yes" in r.output      # 4 packs at 8 players
    r = invoke(main, "meld", *"AS AS AS AS AS AS".split(), "--contract", "1", "--any-hand", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["satisfiable"] is True
    # contract: one joker with two packs
    r = invoke(main, "meld", "JK", "JK", "5C", "5D", "--contract", "1", "--rules", "contract")
    one_line_error(r, "2 jokers")
    r = invoke(main, "meld", "AS", "--contract", "1", "--players", "9")
    one_line_error(r, "players")


def test_deficiency_batch_checks_the_shoe_too():
    import numpy as np
    from shanghai_sim import CardError, deficiency_batch
    counts = np.zeros((3, 53), np.int64)
    counts[2, 0] = 3
    with pytest.raises(CardError, match="hand 2: 3 x AC"):
        deficiency_batch(counts, 1)
    assert deficiency_batch(counts, 1, shoe=False).shape == (3,)
    counts[2, 0] = 1
    counts[1, 52] = 5                                    # shanghai at 4 players: 4 jokers
    with pytest.raises(CardError, match="hand 1: 5 jokers"):
        deficiency_batch(counts, 1)
    counts[0, 7] = -1                                    # checked with or without the shoe
    for shoe in (True, False):
        with pytest.raises(CardError, match="hand 0: counts must be non-negative"):
            deficiency_batch(counts, 1, shoe=shoe)


# ---------------------------------------------------------------- rules

def test_rules_of_a_folder_says_folder(main, tmp_path):
    one_line_error(invoke(main, "rules", tmp_path), "is a folder")


def test_rules_show_every_option_with_its_meaning(main):
    from shanghai_sim.rules import OPTION_HELP
    text = invoke(main, "rules").output
    for key, meaning in OPTION_HELP.items():
        assert re.search(rf"^  {key}\s", text, re.M), key
        assert meaning.split()[0] in text
    assert "docs/rules.md" in text


def test_max_hand_turns_is_a_rules_option(tmp_path):
    """The turn cap (docs/rules.md §5.8) comes from the rules: a tiny cap stops every hand."""
    import pandas as pd
    from shanghai_sim.game import game_events
    from shanghai_sim.rules import load_rules, preset
    f = tmp_path / "cap.toml"
    f.write_text('base = "shanghai"\nmax_hand_turns = 6\n')
    r = load_rules(f)
    assert r.max_hand_turns == 6 and r.to_dict()["max_hand_turns"] == 6
    events, _ = game_events(r, 4, 5, "greedy")
    ends = [e for e in events if e["event"] == "hand_end"]
    assert len(ends) == 10
    assert sum(e["reason"] == "turn_cap" and e["winner"] is None for e in ends) >= 8
    for h in range(1, 11):                 # every turn starts with a draw: at most 6 a hand
        assert sum(e["event"] == "draw" and e["hand"] == h for e in events) <= 6
    events, _ = game_events(preset("shanghai"), 4, 5, "greedy")
    assert all(e["reason"] != "turn_cap" for e in events if e["event"] == "hand_end")
    one_line_error(run_cli("run", f, "--games", "3", "--out", tmp_path / "o"), "--rules")
    r2 = run_cli("run", "--rules", f, "--games", "3", "--out", tmp_path / "o", engine=None)
    assert r2.exit_code == 0, r2.output
    rows = pd.read_parquet(tmp_path / "o" / "hands")
    h = rows.drop_duplicates(["game", "hand"])
    assert (h.ended.astype(str) == "turn_cap").sum() >= 24 and set(h.ended.astype(str)) <= {"turn_cap", "out"}
    capped = rows[rows.ended.astype(str) == "turn_cap"].groupby(["game", "hand"]).turns.sum()
    assert (capped == 6).all()             # the turns played, none counted past the cap
    bad = tmp_path / "bad.toml"
    bad.write_text("max_hand_turns = 0\n")
    from shanghai_sim.rules import RulesError
    with pytest.raises(RulesError, match="max_hand_turns"):
        load_rules(bad)


def test_a_deal_without_contracts_is_an_error(tmp_path):
    from shanghai_sim.rules import RulesError, load_rules
    f = tmp_path / "d.toml"
    f.write_text("deal = 10\n")
    with pytest.raises(RulesError, match="deal = 10 applies only"):
        load_rules(f)


def test_two_players_under_contracts_that_need_buys_warn(tmp_path):
    r = run_cli("replay", "--seed", "3", "--players", "2")
    assert r.exit_code == 0
    assert r.stderr.count("warning: with 2 players") == 1 and "hands 8, 9, 10" in r.stderr
    r = run_cli("replay", "--seed", "3", "--players", "3")
    assert "warning" not in r.stderr
    r = run_cli("replay", "--seed", "3", "--players", "2", "--rules", "progressive")
    assert "warning" not in r.stderr


# ---------------------------------------------------------------- bots listing

def test_bots_listing_is_aligned(main):
    """Every parameter's help starts in the same column."""
    from shanghai_sim.bots import BOTS
    text = invoke(main, "bots").output
    cols = set()
    for info in BOTS.values():
        for p in info.params:
            line = next(ln for ln in text.splitlines() if ln.startswith(f"  {p.name}={p.values} "))
            cols.add(line.index(p.help.split()[0], len(f"  {p.name}={p.values}")))
    assert len(cols) == 1, cols


# ---------------------------------------------------------------- --rule KEY=VALUE

def test_rule_options_on_the_command_line(main, tmp_path):
    """docs/rules.md §7: every option can be changed from the command line too."""
    r = invoke(main, "rules", "contract", "--rule", "buy_penalty=2", "--rule", "go_out=either",
               "--rule", "blind_bonus={joker=-10, no_joker=-20}", "--json")
    d = json.loads(r.output)
    assert d["buy_penalty"] == 2 and d["go_out"] == "either" and d["blind_bonus"] == {"joker": -10, "no_joker": -20}
    assert d["name"].startswith("contract (")
    one_line_error(invoke(main, "rules", "--rule", "nope=1"), "unknown option 'nope'")
    one_line_error(invoke(main, "rules", "--rule", "buy_penalty"), "KEY=VALUE")
    one_line_error(invoke(main, "rules", "--rule", "go_out=sideways"), "go_out")
    one_line_error(invoke(main, "rules", "--rule", "base=contract"), "--rules")
    r = run_cli("run", "--rule", "max_hand_turns=8", "--games", "4", "--out", tmp_path / "o", engine=None)
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert m["rules"]["max_hand_turns"] == 8
    r = run_cli("run", "--rule", "max_hand_turns=8", "--games", "4", "--out", tmp_path / "o", "--resume",
                engine=None)
    assert r.exit_code == 0, r.output
    r = run_cli("replay", "--seed", "2", "--rule", "max_hand_turns=8")
    assert r.exit_code == 0 and "turn cap" in r.output
