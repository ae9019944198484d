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
    from shanghai_sim.kernels import melds, play
    from shanghai_sim.kernels.cache import (MODULE_HASHES, PackageCacheLocator, cache_dir,
                                            cache_root)
    pkg = Path(shanghai_sim.__file__).resolve().parent
    for fn, stem in ((melds.deficiency_nb, "meld_deficiency"), (play.apply_action_nb, "play")):
        loc = fn._cache._impl.locator
        assert isinstance(loc, PackageCacheLocator)
        path = Path(loc.get_cache_path())
        assert cache_root() in path.parents and path.parent == cache_dir()
        assert path.name == f"{stem}-{MODULE_HASHES[stem]}"
        assert pkg not in path.parents                      # never inside the installed package
        assert loc.get_source_stamp() == MODULE_HASHES[stem]


def test_cache_folder_follows_the_environment(tmp_path):
    code = ("from shanghai_sim.kernels.cache import cache_root, cache_dir\n"
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


def test_a_fresh_cache_compiles_and_says_so(tmp_path):
    """A kernel compiled into an empty cache prints the notice; the next process loads it silently."""
    code = ("from shanghai_sim.kernels.rng import game_seed_nb\n"
            "print(game_seed_nb(1, 2))\n")
    env = dict(os.environ, SHANGHAI_SIM_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("SHANGHAI_SIM_QUIET_COMPILE", None)
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    files = list((tmp_path / "cache").rglob("*.nbi"))
    assert files, "nothing was cached in SHANGHAI_SIM_CACHE_DIR"
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert first.stdout == second.stdout
    assert "compiling" not in second.stderr


def test_compile_notice_speaks_after_a_second_and_says_when_done():
    from shanghai_sim.kernels.cache import _CompileNotice
    buf = io.StringIO()
    n = _CompileNotice(buf)
    n.on_start(None)
    n.on_start(None)            # nested compile: one notice
    n.on_end(None)
    time.sleep(1.6)
    n.on_end(None)
    text = buf.getvalue()
    assert text.count("compiling the numba kernels") == 1 and "compiled in" in text
    buf2 = io.StringIO()
    quick = _CompileNotice(buf2)
    quick.on_start(None)
    quick.on_end(None)          # a compile under a second says nothing
    time.sleep(1.2)
    assert buf2.getvalue() == ""


def test_compile_notice_can_be_muted(monkeypatch):
    """run --quiet (progress None) mutes the notice for its warm-up compile."""
    from shanghai_sim.kernels import cache
    buf = io.StringIO()
    n = cache._CompileNotice(buf)
    monkeypatch.setattr(cache, "_NOTICE", n)
    with cache.compile_notice_muted(True):
        n.on_start(None)
        time.sleep(1.3)
        n.on_end(None)
    assert buf.getvalue() == "" and n.muted is False
    with cache.compile_notice_muted(False):
        assert n.muted is False


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
