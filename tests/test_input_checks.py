"""Issue #33, the input side: nothing out of range is accepted silently, nothing hangs,
nothing crashes. One test (or a parametrised set) per line item of the issue's items 5-9:
rules values bounded by the dataset's columns and the engine's arrays, contracts that
cannot be met or are too large, sizes, seeds and threads, the tracebacks and the
misleading lines. Each case is a one-line error with exit status 2 and no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from shanghai_sim import limits
from shanghai_sim.bots import BotError, parse_bot
from shanghai_sim.cli.main import main
from shanghai_sim.facts import hand_facts
from shanghai_sim.rules import (MAX_BONUS, MAX_HANDS, MAX_HELD, MAX_POINT, MIN_BONUS, Contract, RulesError,
                                load_rules, parse_contract, preset, resolve)

ROOT = Path(__file__).resolve().parents[1]
LONG = "a" * 300                      # a file name longer than any file system allows (255)


def cli(*args, text: str = ""):
    """``shanghai-sim ARGS`` in-process, exceptions caught: a traceback shows as result.exception."""
    return CliRunner().invoke(main, [str(a) for a in args], input=text)


def refused(r, *named: str) -> str:
    """Assert a one-line refusal, exit status 2, naming each of ``named``; returns the line."""
    out = r.output or ""                # click 8.2+: stdout and stderr together
    assert r.exit_code == 2, (r.exit_code, out, r.exception)
    assert "Traceback" not in out and not isinstance(r.exception, (AssertionError, KeyError, TypeError,
                                                                    AttributeError, OverflowError))
    lines = [x for x in out.strip().splitlines() if x.strip()]
    assert len(lines) == 1, out
    for n in named:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def toml(tmp_path, text: str, name: str = "r.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ---------------------------------------------------------------- item 5: rules values overflow

@pytest.mark.parametrize("rule, named", [
    ("points={K=4294967296}", "points.K"),
    ("points={K=40000}", "points.K"),
    (f"points={{K={2**62}}}", "points.K"),
    ("points={K=129}", "points.K"),
    ("max_stock_passes=99999999999999999999", "max_stock_passes"),
    ("max_stock_passes=256", "max_stock_passes"),
    (f"buys_per_hand={10**30}", "buys_per_hand"),
    (f"blind_bonus={{joker={10**30}}}", "blind_bonus.joker"),
    ("blind_bonus={no_joker=-40000}", "blind_bonus.no_joker"),
    (f"jokers={10**30}", "jokers"),
    ("jokers=65", "jokers"),
    ("max_hand_turns=32768", "max_hand_turns"),
    ("joker_table=[[3,33]]", "joker_table"),
    ("buy_penalty=10.0", "buy_penalty"),
])
def test_rules_values_out_of_range_are_refused(rule, named):
    """Item 5: a value that would overflow a column (or the engine) is refused, in `run` and
    `replay` alike, before a game is played."""
    refused(cli("run", "--rule", rule, "--games", "2", "--out", "unused", "-q"), named)
    refused(cli("replay", "--seed", "1", "--rule", rule), named)


def test_meld_with_a_huge_card_value_is_refused():
    """Item 5: `meld` with K = 2**62 printed deadwood 0 with four kings left over."""
    refused(cli("meld", "--rule", f"points={{K={2**62}}}", "-c", "set3 set3", "KS KH KD KC 2S"), "points.K")


def test_the_ranges_fit_the_dataset_columns():
    """Item 5: the ranges are derived from the columns: the most a hand can score fits
    hands.points (int16), 255 such hands fit games.points (int32), a hand's cards fit uint8."""
    from shanghai_sim.dataset import GAMES_SCHEMA, HANDS_SCHEMA
    hands = {f.name: f.type for f in HANDS_SCHEMA}
    games = {f.name: f.type for f in GAMES_SCHEMA}
    i16, i32 = np.iinfo(np.int16), np.iinfo(np.int32)
    assert str(hands["points"]) == "int16" and str(games["points"]) == "int32"
    assert MAX_HELD * MAX_POINT <= i16.max and i16.min <= MIN_BONUS and MAX_BONUS <= i16.max
    assert MAX_HANDS * max(MAX_HELD * MAX_POINT, -MIN_BONUS) <= i32.max
    assert str(hands["hand"]) == "uint8" and MAX_HANDS == np.iinfo(np.uint8).max
    assert str(hands["cards_left"]) == "uint8" and MAX_HELD == np.iinfo(np.uint8).max


def test_a_player_cannot_be_made_to_hold_more_than_255_cards():
    """Item 5: deal + draw + every buy's cards must fit the one-byte cards_left column."""
    with pytest.raises(RulesError, match="hold 276 cards"):
        preset("shanghai").replace(buys_per_hand=(3,) * 9 + (24,), buy_penalty=10)
    preset("shanghai").replace(buys_per_hand=(3,) * 9 + (22,), buy_penalty=10)   # 11 + 1 + 22 x 11 = 254


def test_300_hands_are_refused_and_255_play(tmp_path):
    """Item 5: 300 contracts wrapped the uint8 hand column (251..255, 0, 1, ...)."""
    f = toml(tmp_path, f'contracts = {json.dumps(["set3 set3"] * 300)}\nbuys_per_hand = 0\n')
    refused(cli("run", "--rules", f, "--games", "1", "--out", tmp_path / "o", "-q"), "300 hands", "255")
    ok = toml(tmp_path, f'contracts = {json.dumps(["set3 set3"] * 255)}\nbuys_per_hand = 0\n'
                        'max_hand_turns = 40\n', "ok.toml")
    r = cli("run", "--rules", ok, "--games", "1", "--threads", "1", "--out", tmp_path / "o", "-q")
    assert r.exit_code == 0, r.output
    import pyarrow.parquet as pq
    hands = pq.read_table(tmp_path / "o" / "hands").column("hand").to_pylist()
    assert sorted(set(hands)) == list(range(1, 256))


def test_more_than_128_different_contracts_are_refused(tmp_path):
    """Item 5: 140 contracts crashed with ArrowIndexError: the contract column's dictionary
    codes are int8, so a game holds at most 128 different contracts."""
    many = [f"set{a} set{b}" for a in range(3, 30) for b in range(a, 30)][:140]
    f = toml(tmp_path, f"contracts = {json.dumps(many)}\nbuys_per_hand = 0\n")
    refused(cli("run", "--rules", f, "--games", "1", "--out", tmp_path / "o", "-q"), "140 different contracts", "128")


@pytest.mark.parametrize("spec, named", [
    ("greedy:maxbuys=99999999999999999999999", "0..255"), ("greedy:maxbuys=256", "0..255"),
    ("greedy:maxbuys8=1000", "0..255"), ("smart:buy_dmax=²", "bad value"), ("smart:outs=١", "bad value"),
    ("greedy:buy²=never", "unknown parameter"), ("greedy:buy99999=never", "unknown parameter")])
def test_bot_parameters_are_integers_in_range(spec, named):
    """Item 5: greedy:maxbuys=99999999999999999999999 was recorded as 99999999999999991611392."""
    with pytest.raises(BotError):
        parse_bot(spec)
    refused(cli("replay", "--seed", "1", "--bots", spec), named)


def test_integers_are_never_read_through_a_float():
    assert parse_bot("greedy:maxbuys=255").name == "greedy:maxbuys=255"
    with pytest.raises(RulesError):
        resolve("shanghai", ["buys_per_hand=3.0"])


# ---------------------------------------------------------------- item 6: contracts that hang or cannot be met

def test_a_contract_of_eight_melds_is_refused_at_once(tmp_path):
    """Item 6: `set3 set3 set3 set3 run5 run5 run5 run5` took 116 s in `meld` and hung `run`."""
    f = toml(tmp_path, 'contracts = ["set3 set3 set3 set3 run5 run5 run5 run5"]\n')
    t = time.perf_counter()
    refused(cli("run", "--rules", f, "--games", "4", "--out", tmp_path / "o", "-q"), "8 melds", "at most 4")
    refused(cli("meld", "-c", "set3 set3 set3 set3 run5", "AS AH AD 2S 2H 2D 3S 3H 3D 4S 4H"), "5 melds")
    assert time.perf_counter() - t < 5


@pytest.mark.parametrize("contract, why", [
    ("run13 run13 run13", "needs 39 cards"),
    ("set40", "no hand of this shoe"),
    ("set100", "a set has 3..64 cards"),
])
def test_a_contract_no_hand_can_meet_is_refused(tmp_path, contract, why):
    """Item 6: contracts that cannot be met ran with no warning, every hand ending on the stock."""
    f = toml(tmp_path, f'contracts = ["{contract}"]\n')
    refused(cli("run", "--rules", f, "--games", "2", "--out", tmp_path / "o", "-q"), why)


def test_a_player_count_whose_shoe_cannot_make_the_contract_is_refused():
    """The check follows the player count: 8 players get 4 packs, 2 players 1 here."""
    r = preset("shanghai").replace(decks=(1, 1, 1, 1, 1, 1, 4), jokers=(0,) * 8,
                                   contracts=(Contract(parse_contract("set6"), 5),), buys_per_hand=(3,),
                                   players=8)
    with pytest.raises(RulesError, match="never be met at 2 players"):
        r.arrays(2)


def test_hand_facts_state_the_squeeze_of_docs_rules_3():
    """The tables of docs/rules.md §3: cards needed per hand, and the buys they take."""
    sh = hand_facts(preset("shanghai"))
    assert [f.cards_needed for f in sh] == [6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    assert all(f.holds == 12 and f.jokers_needed == 0 and f.meetable for f in sh)
    # "from hand 8 on, a player who never buys cannot go down at all"
    assert [f.hand for f in sh if f.buys_needed] == [8, 9, 10]
    assert [f.holds_with_buys for f in sh] == [21] * 8 + [24, 24]
    # "without buys, hand 6 can only be gone down together with going out, and hand 7 only by
    # going out at once with all twelve": to play on after going down takes two more cards
    assert [f.hand for f in sh if f.buys_needed == 0 and f.buys_to_stay_in] == [6, 7]
    assert [f.cards_to_stay_in - f.cards_needed for f in sh] == [2] * 10
    # contract: a discard is always owed; "not at all from hand 7 on" without buys
    ct = hand_facts(preset("contract"))
    assert [f.cards_to_go_down for f in ct] == [7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
    assert [f.hand for f in ct if f.buys_needed] == [7, 8, 9, 10]
    assert [f.buys_needed for f in ct][6:] == [1, 1, 2, 2]           # 1 + buy_penalty 1 = 2 cards a buy
    # "can go down in hand 6 only by discarding the last card"
    assert [f.hand for f in ct if f.buys_needed == 0 and f.buys_to_stay_in] == [6]
    # progressive: each hand deals one card more than the contract needs
    pg = hand_facts(preset("progressive"))
    assert [f.deal for f in pg] == [10, 11, 12, 13, 13, 14, 15, 16, 17]
    assert [f.holds - f.cards_needed for f in pg] == [2, 2, 2, 2, 2, 2, 2, 2, 2]
    assert not any(f.buys_needed for f in pg)


@pytest.mark.parametrize("melds, decks, jokers, needed", [
    ("set4 run13", 1, 0, None),          # the run takes one card of every rank: 3 are left for the set
    ("set4 run13", 1, 2, 1),             # one joker fills the set
    ("set5 set5 run12 run12", 1, 4, 4),
    ("set12", 2, 4, 4),                  # 8 naturals of a rank in two packs, 4 jokers
    ("set13", 2, 8, 5),                  # 8 naturals, 5 jokers (at most 6: half of 13)
    ("set17", 2, 16, None),              # 8 naturals + 8 jokers at most: jokers <= naturals
    ("run13 run13 run13 run13", 1, 0, 0),
    ("set3 set3 set3 set3", 1, 0, 0),
])
def test_jokers_needed_from_the_shoe(melds, decks, jokers, needed):
    """The shoe question of hand_facts: the fewest jokers a contract needs, or None."""
    r = preset("shanghai").replace(decks=(decks,) * 7, jokers=(jokers,) * 8)
    f = hand_facts(_unchecked(r, Contract(parse_contract(melds), 60)))[0]
    assert f.jokers_needed == needed


def _unchecked(r, c):
    """``r`` with contract ``c`` and no validation (hand_facts reads attributes only)."""
    import dataclasses
    fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(r)}
    fields.update(contracts=(c,), buys_per_hand=(20,))
    obj = object.__new__(type(r))
    for k, v in fields.items():
        object.__setattr__(obj, k, v)
    return obj


def test_a_run_answers_sigterm_within_seconds(tmp_path):
    """Item 6: a job was still alive 90 s after SIGTERM. A slow-rules job (8 packs, 40-card
    hands) stops within a few seconds of SIGTERM, keeping only whole shards."""
    f = toml(tmp_path, 'decks = 8\njokers = 16\ncontracts = [{ melds = "set3 run4 run7 run13", deal = 40 }]\n')
    out = tmp_path / "o"
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    exe = Path(sys.executable).parent / "shanghai-sim"
    p = subprocess.Popen([str(exe), "run", "--rules", str(f), "--players", "2",
                          "--games", "400", "--threads", "1", "--out", str(out), "-q"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 120
    while not (out / "manifest.json").exists() and time.time() < deadline and p.poll() is None:
        time.sleep(0.2)
    time.sleep(2)
    t = time.perf_counter()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert time.perf_counter() - t < 10
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err


# ---------------------------------------------------------------- item 7: sizes, seeds, threads

@pytest.mark.parametrize("args, named", [
    (("tournament", "--bots", "random,greedy", "--deals", 10**12), "deals"),
    (("tournament", "--bots", "random,greedy", "--deals", 3_000_000_000), "deals"),
    (("experiment", "--variant", "greedy:buy=never", "--games", 10**12), "games"),
    (("experiment", "--variant", "greedy:buy=never", "--games", 2_000_000_000), "games"),
])
def test_sizes_beyond_the_game_column_are_refused_before_playing(tmp_path, args, named):
    """Item 7: `tournament --deals 1000000000000` was killed by the OOM killer after 83 s."""
    t = time.perf_counter()
    refused(cli(*args, "--out", tmp_path / "o", "-q"), named, "32 bits")
    assert time.perf_counter() - t < 10 and not (tmp_path / "o").exists()


def test_memory_is_planned_before_playing(tmp_path, monkeypatch):
    """Item 7: a size that fits the column but not this machine's memory is refused with the
    memory it would take, not found out by the OOM killer."""
    monkeypatch.setattr(limits, "available_memory", lambda: 64 << 20)
    line = refused(cli("tournament", "--bots", "random,greedy", "--deals", 2_000_000, "--out", tmp_path / "o", "-q"),
                   "deals = 2,000,000", "memory")
    assert "at most about" in line
    refused(cli("experiment", "--variant", "greedy:buy=never", "--games", 1_000_000, "--out", tmp_path / "o", "-q"),
            "games = 1,000,000", "memory")
    refused(cli("run", "--games", 4_000_000_000, "--shard-size", 1, "--out", tmp_path / "o", "-q"), "memory")


SEED_LINE = "seed = -1: must be 0..9223372036854775807"
THREADS_LINE = "threads = 0: must be 1..1024"


@pytest.mark.parametrize("cmd", [("run", "--games", 2), ("experiment", "--variant", "greedy:buy=never"),
                                 ("tournament", "--bots", "random,greedy")])
def test_seed_and_threads_are_checked_alike_by_every_command(tmp_path, cmd):
    """Item 7: experiment/tournament accepted --seed -1 and --threads 0, and the arms they
    wrote then failed `run --resume`."""
    assert SEED_LINE in refused(cli(*cmd, "--seed", -1, "--out", tmp_path / "o", "-q"))
    assert THREADS_LINE in refused(cli(*cmd, "--threads", 0, "--out", tmp_path / "o", "-q"))
    assert not (tmp_path / "o").exists()


class _Done:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def script(monkeypatch, capsys):
    """Run ``analyses/NAME.py`` or ``benchmarks/NAME.py`` in this process (no interpreter
    start-up per case), as the module ``analyses.NAME`` or ``benchmarks.NAME`` of its package:
    returns its exit status and what it printed."""
    import importlib

    def run(path: str, *args) -> _Done:
        monkeypatch.setattr(sys, "argv", [path, *map(str, args)])
        mod = importlib.import_module(Path(path).with_suffix("").as_posix().replace("/", "."))
        capsys.readouterr()
        try:
            rc = mod.main()
        except SystemExit as e:
            rc = e.code
        out = capsys.readouterr()
        return _Done(rc, out.out, out.err)
    return run


def _one_line_2(p, *named: str) -> str:
    err = p.stderr.strip()
    assert p.returncode == 2, (p.returncode, p.stdout, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for n in named:
        assert n in err, (n, err)
    return err


@pytest.mark.parametrize("path, seed, threads", [
    ("analyses/buying.py", True, True), ("analyses/seats.py", True, True), ("analyses/tune_smart.py", True, True),
    ("benchmarks/bench_verify.py", False, True), ("benchmarks/bench_melds.py", True, False),
    ("benchmarks/bench_play_quality.py", True, True)])
def test_scripts_check_seed_and_threads_as_the_commands_do(script, path, seed, threads):
    if seed:
        _one_line_2(script(path, "--seed", -1), SEED_LINE)
    if threads:
        _one_line_2(script(path, "--threads", 0), THREADS_LINE)


# ---------------------------------------------------------------- item 8: tracebacks

@pytest.mark.parametrize("args", [
    ("run", "--rules", LONG + ".toml", "--games", 2),
    ("rules", LONG + ".toml"),
    ("replay", "--seed", 1, "--rules", LONG + ".toml"),
    ("run", LONG + ".toml"),
    ("experiment", LONG + ".toml"),
    ("experiment", "--variant-rules", LONG + ".toml"),
])
def test_a_file_name_too_long_is_one_line(tmp_path, args):
    """Item 8: a file name over 255 characters for --rules, a rules file, a job file or an
    experiment file gave `OSError: [Errno 36]`."""
    line = refused(cli(*args, "--out", tmp_path / "o") if args[0] in ("run", "experiment") else cli(*args),
                   "too long")
    assert LONG not in line                   # the name is quoted cut short


def test_a_rules_file_naming_a_too_long_base_file_is_one_line(tmp_path):
    job = toml(tmp_path, f'rules = "{LONG}.toml"\ngames = 2\n', "job.toml")
    refused(cli("run", job, "--out", tmp_path / "o"), "too long")


@pytest.mark.parametrize("content", ["[1, 2]", None])
def test_summary_of_a_manifest_that_is_a_list_or_a_folder(tmp_path, content):
    """Item 8: `summary` on a manifest.json that is a list or a folder."""
    d = tmp_path / "ds"
    d.mkdir()
    if content is None:
        (d / "manifest.json").mkdir()
    else:
        (d / "manifest.json").write_text(content)
    refused(cli("summary", d), "manifest.json")


def test_replay_of_a_binary_file(tmp_path):
    """Item 8: `replay --log` on a binary file gave UnicodeDecodeError."""
    f = tmp_path / "bin.jsonl"
    f.write_bytes(bytes(range(256)) * 4)
    refused(cli("replay", "--log", f), "not a log", "UTF-8")


@pytest.mark.parametrize("typed", ["²", "¹", "①", "١"])
def test_play_takes_only_ascii_digits(tmp_path, typed):
    """Item 8: `play` with ², ¹ or ① crashed (isdigit() accepts them, int() does not)."""
    r = cli("play", "--seed", 3, "--log", tmp_path / "g.jsonl", text=f"{typed}\nquit\n")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "Traceback" not in r.output
    assert f"unknown command {typed!r}" in r.output


def test_analyses_bad_presets_and_out(tmp_path, script):
    """Item 8: `buying.py --presets ''`, and --out on a file or under a folder that cannot be
    written, in buying.py, going_down.py, rules.py."""
    _one_line_2(script("analyses/buying.py", "--presets", ""), "--presets")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for s in ("analyses/buying.py", "analyses/going_down.py", "analyses/rules.py"):
        _one_line_2(script(s, "--games", 2, "--out", blocker / "sub"), "cannot write", "--out")
        _one_line_2(script(s, "--games", 2, "--out", "/proc/shanghai-sim-test"), "a system folder", "--out")
        _one_line_2(script(s, "--games", 2, "--out", tmp_path / ("a" * 300)), "cannot be used (File name too long)",
                    "--out")


@pytest.mark.parametrize("args, named", [
    (("--games", "x"), "--games"), (("--games", 0), "games"), (("--games", 1), "--games"),
    (("--rounds", -1), "--rounds"), (("--margin", "nan"), "--margin"), (("--margin", "-1"), "--margin"),
    (("--only", "nosuch"), "--only"), (("--presets", ""), "--presets"), (("--presets", "nosuch"), "nosuch"),
    (("--seed", -1), "seed"), (("--out", "/proc/shanghai-sim-test/t"), "a system folder"),
    (("--bogus",), "--bogus"),
])
def test_tune_smart_bad_arguments(script, args, named):
    """Item 8: every bad argument of tune_smart.py gave a traceback (or hours of work first)."""
    _one_line_2(script("analyses/tune_smart.py", *args), named)


# ---------------------------------------------------------------- item 9: misleading lines

def test_an_unwritable_out_is_not_a_full_disk(tmp_path):
    """Item 9: `experiment --out` under a system folder said "free some space"."""
    line = refused(cli("experiment", "--variant", "greedy:buy=never", "--games", 2, "--out", "/proc/shanghai-x", "-q"),
                   "choose another --out")
    assert "free some space" not in line


def test_a_games_file_is_named_as_in_the_way(tmp_path):
    """Item 9: a games/ that is a file said "free some space"."""
    out = tmp_path / "o"
    assert cli("run", "--games", 4, "--threads", 1, "--out", out, "-q").exit_code == 0
    import shutil
    shutil.rmtree(out / "games")
    (out / "games").write_text("in the way")
    line = refused(cli("run", "--games", 8, "--threads", 1, "--out", out, "--resume", "-q"), "games")
    assert "free some space" not in line and "file stands where" in line


def test_rule_name_says_it_is_not_an_option():
    """Item 9: `--rule name=x` said only "choose the base with --rules"."""
    line = refused(cli("replay", "--seed", 1, "--rule", "name=x"), "--rule name", "not an option", "--rules")
    assert "base" in line


def test_an_edited_bots_record_names_the_real_problem(tmp_path):
    """Item 9: an edited bots line of the manifest said "random v? there"."""
    out = tmp_path / "o"
    assert cli("run", "--games", 4, "--threads", 1, "--bots", "random,greedy,greedy,greedy", "--out", out,
               "-q").exit_code == 0
    m = json.loads((out / "manifest.json").read_text())
    m["bots"]["versions"] = {"rando": 1, "greedy": 2}
    (out / "manifest.json").write_text(json.dumps(m))
    line = refused(cli("run", "--games", 8, "--threads", 1, "--bots", "random,greedy,greedy,greedy", "--out", out,
                       "--resume", "-q"), "edited or damaged")
    assert "v?" not in line


def test_replay_of_a_log_with_deleted_lines_says_it_is_incomplete(tmp_path):
    """Item 9: `replay --log` printed a log with deleted lines as if whole."""
    r = cli("replay", "--seed", 3, "--json")
    lines = r.output.splitlines()
    whole = tmp_path / "whole.jsonl"
    whole.write_text(r.output)
    assert cli("replay", "--log", whole).exit_code == 0
    kinds = [json.loads(x)["event"] for x in lines]
    for kind in ("draw", "deal", "hand", "hand_end", "go_down"):
        k = kinds.index(kind, 30) if kind in kinds[30:] else kinds.index(kind)
        cut = tmp_path / f"cut-{kind}.jsonl"
        cut.write_text("\n".join(lines[:k] + lines[k + 1:]) + "\n")
        refused(cli("replay", "--log", cut), "incomplete")


def test_play_does_not_echo_a_huge_line(tmp_path):
    """Item 9: `play` echoed a 1 MB line whole."""
    r = cli("play", "--seed", 3, "--log", tmp_path / "g.jsonl", text="x" * 1_000_000 + "\nquit\n")
    assert "Traceback" not in r.output
    assert len(r.output) < 20_000 and "1,000,000 characters" in r.output
    r = cli("play", "--seed", 3, "--log", tmp_path / "g.jsonl", text="discard " + "Z" * 400 + "\nquit\n")
    assert "Z" * 301 not in r.output


def test_rules_load_errors_never_leak_oserror(tmp_path):
    with pytest.raises(RulesError, match="too long"):
        load_rules(LONG + ".toml")


_SHOE_CASES = (st.lists(st.one_of(st.integers(3, 12).map(lambda n: f"set{n}"),
                                  st.integers(4, 13).map(lambda n: f"run{n}")), min_size=1, max_size=4),
               st.integers(1, 2), st.integers(0, 4))


def _facts_agree_with_the_finder(melds, decks, jokers):
    """The shoe question two ways: hand_facts' placement count, and the meld finder's
    deficiency of a hand holding the whole shoe (0 exactly when the shoe makes the contract)."""
    from shanghai_sim.cards import JOKER
    from shanghai_sim.hand import deficiency_batch
    text = " ".join(melds)
    r = _unchecked(preset("shanghai").replace(decks=(decks,) * 7, jokers=(jokers,) * 8),
                   Contract(parse_contract(text), 60))
    counts = np.full((1, 53), decks, dtype=np.int64)
    counts[0, JOKER] = jokers
    d = int(deficiency_batch(counts, text, r, shoe=False)[0])
    assert (hand_facts(r)[0].jokers_needed is not None) == (d == 0), (text, decks, jokers, d)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(*_SHOE_CASES)
def test_hand_facts_agree_with_the_meld_finder_on_the_whole_shoe(melds, decks, jokers):
    _facts_agree_with_the_finder(melds, decks, jokers)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, database=None)
@given(*_SHOE_CASES)
def test_hand_facts_agree_with_the_meld_finder_on_the_whole_shoe_long(melds, decks, jokers):
    _facts_agree_with_the_finder(melds, decks, jokers)


def _doc_ranges(path: str) -> dict[str, str]:
    """``| `key` | integer 0 to 99 | ...`` rows of a doc table -> {key: "integer 0 to 99"}."""
    import re
    out = {}
    for line in (ROOT / path).read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`(\w+)`\s*\|\s*((?:integer|number) [-\d.]+ to [-\d.]+)\s*\|", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def test_documented_bot_parameter_ranges_are_the_registry_ranges():
    """Every numeric parameter of smart and rollout has its range in docs/bots.md or
    docs/rollout.md, the very range the parser checks (maxbuys: docs/bots.md's knobs)."""
    from shanghai_sim.bots import BOTS
    docs = {**_doc_ranges("docs/bots.md"), **_doc_ranges("docs/rollout.md")}
    for name in ("smart", "rollout"):
        for p in BOTS[name].params:
            if p.kind in ("int", "float"):
                want = f"{'number' if p.kind == 'float' else 'integer'} {p.lo:g} to {p.hi:g}"
                assert docs.get(p.key) == want, (name, p.key, docs.get(p.key), want)


@pytest.mark.parametrize("rules", ["shanghai", "contract", "progressive"])
def test_whole_logs_are_never_called_incomplete(tmp_path, rules):
    """The other side of the deleted-lines check: no whole log of any preset, with random,
    greedy and smart seats, 2 to 8 players, is flagged."""
    for seed, bots in ((1, "random,greedy,smart,greedy"), (2, "random,random"), (3, "smart,greedy,random,smart,greedy")):
        r = cli("replay", "--seed", seed, "--rules", rules, "--bots", bots, "--json")
        assert r.exit_code == 0, r.output
        f = tmp_path / f"{rules}-{seed}.jsonl"
        f.write_text("\n".join(x for x in r.output.splitlines() if x.startswith("{")) + "\n")
        assert cli("replay", "--log", f).exit_code == 0
