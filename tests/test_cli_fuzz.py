"""A fuzz test of the command line (issue #33): hypothesis draws option values, bot specs,
rules options and contracts, valid and hostile (huge, negative, non-ASCII digits, floats,
long names, TOML of the wrong shape), for every command that takes them, and the command
must answer: a result, or one line with a non-zero exit status; never a traceback.

CI runs a few hundred examples with games of at most three; ``-m slow`` runs thousands.
The rollout bot is left out of the commands that play (it is a thousand times slower than
smart); its specs are fuzzed through the parser only."""

from __future__ import annotations

import tempfile

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_sim.bots import BOTS, BotError, parse_bot
from shanghai_sim.cli.main import main

HOSTILE_INTS = [-1, 0, 2**31, 2**32, 2**32 - 1, 2**63, 2**64, 10**20, 10**30, -2**63]
HOSTILE_TEXT = ["", " ", "x", "²", "¹", "①", "١", "1e9", "1.5", "nan", "inf", "-0", "0x10", "1_000", "a" * 300,
                "../..", "∞", "true", "[]", "{}", "\"q\"", "🂡"]

ints = st.one_of(st.integers(-3, 12), st.sampled_from(HOSTILE_INTS))
words = st.one_of(ints.map(str), st.sampled_from(HOSTILE_TEXT), st.text(max_size=6))


def mostly(valid, hostile=words, share: int = 85):
    """``valid`` in ``share`` % of draws, else ``hostile``: most examples then reach the
    code past the first check, each with one or two hostile values."""
    return st.integers(0, 99).flatmap(lambda k: valid if k < share else hostile)


small_games = mostly(st.integers(1, 3).map(str))

PLAY_BOTS = ["random", "greedy", "smart"]


def _params(name: str) -> list[str]:
    info = BOTS.get(name)
    return [p.key + ("8" if p.per_hand else "") for p in info.params] if info else []


def _value_for(key: str, name: str):
    """A value of the parameter ``key`` names (mostly one it takes), or a hostile one."""
    info = BOTS.get(name)
    choices = []
    if info:
        for p in info.params:
            if key.rstrip("0123456789") == p.key:
                choices = [w for w, _ in p.choices] + (["true", "false"] if p.kind == "bool" else [])
                if p.kind in ("int", "float"):
                    choices += [str(int(p.lo)), str(int(p.hi) if p.hi is not None else 3)]
    return mostly(st.sampled_from(choices or ["1"]))


@st.composite
def bot_spec(draw, names=PLAY_BOTS):
    name = draw(mostly(st.sampled_from(names), st.sampled_from(["nosuch", "", "GREEDY", "greedy "])))
    parts = [name]
    keys = _params(name) or ["buy"]
    for _ in range(draw(st.integers(0, 2))):
        key = draw(mostly(st.sampled_from(keys), st.sampled_from(["buy99999", "maxbuys0", "zzz", "buy²", ""])))
        parts.append(f"{key}={draw(_value_for(key, name))}" if draw(st.integers(0, 9)) else key)
    return ":".join(parts)


RULE_KEYS = ["players", "decks", "jokers", "contracts", "deal", "buy_penalty", "buys_per_hand", "buy_priority",
             "joker_limit", "joker_table", "initial_meld", "same_suit_runs", "go_out", "joker_swap",
             "set_joker_identity", "blind_bonus", "points", "down_may_buy", "max_stock_passes", "max_hand_turns",
             "name", "base", "colour"]
TOML_VALUES = ["[1, 2]", "[[3, 1], [5, 40]]", "{K=5}", "{K=4294967296}", "{ZZ=1}", "{joker=-25}",
               "{joker=99999}", "{per_pack=99}", "{\"9\"=1}", "{\"²\"=1}", "[\"set3 set3\"]", "[\"set100\"]",
               "[\"run13 run13 run13\"]", "[\"set3 set3 set3 set3 run5\"]", "[{melds=\"set3\", deal=99}]",
               "either", "table", "exact", "\"none\"", "true", "false", "nope"]


VALID_RULES = ["buy_penalty=1", "go_out=either", "go_out=discard_required", "max_stock_passes=0",
               "points={K=128}", "max_hand_turns=60", "joker_limit=table", "contracts=[\"set3 set3\"]",
               "buys_per_hand=0", "blind_bonus={joker=-25}", "initial_meld=exact", "same_suit_runs=gap",
               "jokers=0", "decks=1", "down_may_buy=true", "joker_swap=down_only", "set_joker_identity=card",
               "buy_priority=turn_order", "contracts=[\"set3 run4\", \"run4 run4 run4 run4\"]"]


@st.composite
def rule_item(draw):
    if draw(st.integers(0, 99)) < 60:
        return draw(st.sampled_from(VALID_RULES))
    key = draw(st.sampled_from(RULE_KEYS + ["", "=", "buy_penalty=="]))
    value = draw(st.one_of(ints.map(str), st.sampled_from(TOML_VALUES), words))
    return f"{key}={value}"


contract = mostly(st.sampled_from(["set3 set3", "set3 run4", "run4 run4 run4", "8", "1", "set3 set3 set3 run5"]),
                  st.lists(st.sampled_from(["set3", "run4", "set100", "run13", "run14", "set³", "pair2", "set0",
                                            "run4,", "SET5", "11", "0", "²"]), min_size=0, max_size=9).map(" ".join))
cards = mostly(st.lists(st.sampled_from(["AS", "2S", "3S", "4S", "5S", "KH", "KD", "KC", "JK", "7C", "7D", "7H"]),
                        min_size=1, max_size=14).map(" ".join),
               st.lists(st.sampled_from(["AS", "2H", "TH", "10D", "JK", "ZZ", "1S", "KC", "♠A", "QS", "²"]),
                        max_size=14).map(" ".join))


def _command(draw, out: str) -> list[str]:
    kind = draw(st.sampled_from(["rules", "meld", "replay", "run", "experiment", "tournament", "summary", "verify"]))
    rules = [a for r in draw(st.lists(rule_item(), max_size=2)) for a in ("--rule", r)]
    if draw(st.booleans()):
        rules += ["--rules", draw(mostly(st.sampled_from(["shanghai", "contract", "progressive"]),
                                         st.sampled_from(["nosuch", "x.toml", "a" * 300 + ".toml", "", "/dev/null"])))]
    if kind == "rules":
        return ["rules", *rules]
    if kind == "meld":
        return ["meld", *rules, "-c", draw(contract), draw(cards)]
    if kind == "replay":
        args = ["replay", "--seed", draw(mostly(st.integers(0, 2**64 - 1).map(str))), "--bots", draw(bot_spec()),
                *rules]
        if draw(st.booleans()):
            args += ["--players", draw(mostly(st.integers(2, 8).map(str)))]
        return args
    if kind in ("summary", "verify"):
        return [kind, draw(st.sampled_from([out, out + "/nosuch", "a" * 300, "/proc", "/dev/null"]))]
    common = ["--seed", draw(mostly(st.integers(0, 2**63 - 1).map(str))), "--out", out, "-q", "--threads",
              draw(mostly(st.just("1")))]
    if kind == "run":
        args = ["run", "--games", draw(small_games), "--bots", draw(bot_spec()), *rules, *common]
        if draw(st.booleans()):
            args += ["--shard-size", draw(mostly(st.integers(1, 3).map(str)))]
        return args
    if kind == "experiment":
        return ["experiment", "--variant", draw(bot_spec()), "--games", draw(mostly(st.just("2"))),
                *rules, *common]
    return ["tournament", "--bots", f"{draw(bot_spec())},{draw(bot_spec())}",
            "--deals", draw(mostly(st.just("2"))), *rules, *common]


def _no_traceback(args: list[str]) -> None:
    r = CliRunner().invoke(main, args)
    out = r.output or ""
    assert "Traceback" not in out, (args, out)
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    if r.exit_code != 0:
        lines = [x for x in out.strip().splitlines() if x.strip()]
        assert lines and len(lines[-1]) < 2000, (args, out[-500:])


def _check(data) -> None:
    with tempfile.TemporaryDirectory() as d:
        _no_traceback(_command(data.draw, d + "/out"))


FAST = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LONG = settings(max_examples=3000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(st.data())
def test_cli_fuzz_finds_no_traceback(data):
    _check(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_cli_fuzz_finds_no_traceback_long(data):
    _check(data)


@FAST
@given(bot_spec(names=list(BOTS)))
def test_bot_specs_parse_or_name_the_problem(spec):
    """Every bot, rollout included: a spec parses to a canonical spec that parses to itself,
    or is a BotError of one line."""
    try:
        b = parse_bot(spec, 10)
    except BotError as e:
        assert "\n" not in str(e)
        return
    assert parse_bot(b.name, 10).params == b.params


TYPED = st.one_of(st.text(max_size=30), st.sampled_from(["1", "2", "99", "0", "-1", "²", "①", "١", "discard",
                                                          "discard ZZ", "discard 7C 9", "layoff 7C 99999999999",
                                                          "down set3", "swap JK 1", "hint", "melds", "show",
                                                          "x" * 5000, "1" * 400, "help"]))


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(TYPED, max_size=12), st.integers(0, 5))
def test_play_answers_any_typed_line(lines, seed):
    """`play` fed hostile lines (non-ASCII digits, huge numbers, pages of text) answers
    each in one line and keeps the game; the input's end stops it, never a traceback."""
    text = "\n".join(line.replace("\n", " ").replace("\r", " ") for line in lines) + "\n"
    with tempfile.TemporaryDirectory() as d:
        r = CliRunner().invoke(main, ["play", "--seed", str(seed), "--log", d + "/g.jsonl"], input=text)
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert max(map(len, r.output.splitlines() or [""])) < 2000
