"""``replay --log`` of crafted logs (issue 59): every count a log states (players, hands,
seats, card lists, scores), its nesting, its lines and its size are checked against what the
rules allow a game before anything is allocated for them; each bad log is one line and exit
status 2, and the worst logs within the limits stay under 500 MB and a few seconds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_sim.cli.main import main

GOLDEN = Path(__file__).parent / "golden" / "shanghai_s11_p4_greedy.jsonl"
EVENTS = [json.loads(x) for x in GOLDEN.read_text().splitlines()]
GAME = {"event": "game", "schema": 1, "seed": 11, "rules": "shanghai", "players": 4,
        "seats": ["human", "greedy", "greedy", "greedy"], "human": 0}


def _write(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def _replay(path: Path, *more: str):
    return CliRunner().invoke(main, ["replay", "--log", str(path), *more])


def _one_line_refusal(r, *words: str) -> None:
    assert r.exit_code == 2, (r.exit_code, r.output[-300:])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output[-300:]
    for w in words:
        assert w in lines[0], lines[0]


def _with(i: int, **change) -> list:
    """The golden log with event ``i`` changed (a key given None is dropped)."""
    out = [dict(e) for e in EVENTS]
    for k, v in change.items():
        if v is None:
            out[i].pop(k, None)
        else:
            out[i][k] = v
    return out


def test_the_golden_log_reads(tmp_path):
    r = _replay(_write(tmp_path / "g.jsonl", [GAME, *EVENTS]))
    assert r.exit_code == 0 and "== game over" in r.output


@pytest.mark.parametrize("players, words", [
    (10**9, "players = 1000000000: must be 2..8"), (10**12, "players = 1000000000000: must be 2..8"),
    (0, "players = 0: must be 2..8"), (-3, "players = -3: must be 2..8"), (1, "players = 1"),
    (9, "players = 9"), (4.5, "players = 4.5: expected an integer"), ("4", "expected an integer"),
    (True, "expected an integer"), ([4], "expected an integer"),
])
@pytest.mark.parametrize("html", [False, True])
def test_players_outside_the_rules(tmp_path, players, words, html):
    log = _write(tmp_path / "g.jsonl", [dict(GAME, players=players), *EVENTS])
    more = ["--html", str(tmp_path / "g.html")] if html else []
    _one_line_refusal(_replay(log, *more), "line 1", words)
    assert not (tmp_path / "g.html").exists()


def _deal_index() -> int:
    return next(i for i, e in enumerate(EVENTS) if e["event"] == "deal")


def _end_index() -> int:
    return next(i for i, e in enumerate(EVENTS) if e["event"] == "hand_end")


@pytest.mark.parametrize("make, words", [
    (lambda: _with(0, hand=10**12), "hand = 1000000000000: must be 1..255"),
    (lambda: _with(0, hand=0), "hand = 0: must be 1..255"),
    (lambda: _with(0, dealer=10**9), "dealer = 1000000000: must be 0..3 (seats of 4 players)"),
    (lambda: _with(0, first=-1), "first = -1"),
    (lambda: _with(_deal_index(), seat=10**15), "seat = 1000000000000000"),
    (lambda: _with(_deal_index(), seat="2"), "seat = \"2\": expected an integer"),
    (lambda: _with(_deal_index(), cards=["AS"] * 61), "cards: 61 cards; at most 60"),
    (lambda: _with(_deal_index(), cards=["ZZ"]), "\"ZZ\" is not a card"),
    (lambda: _with(_deal_index(), cards="AS 2S"), "expected a list of cards"),
    (lambda: _with(_deal_index(), cards=[1, 2]), "is not a card"),
    (lambda: _with(_end_index(), scores=[0] * 10**4), "scores"),
    (lambda: _with(_end_index(), totals=[0] * 3), "totals: 3 scores for 4 players"),
    (lambda: _with(_end_index(), scores=[0.5, 1, 2, 3]), "is not an integer"),
    (lambda: _with(_end_index(), winner=8), "winner = 8"),
])
def test_counts_outside_the_rules(tmp_path, make, words):
    _one_line_refusal(_replay(_write(tmp_path / "g.jsonl", [GAME, *make()])), words)


def test_other_events_outside_the_rules(tmp_path):
    cases = [
        ({"event": "buy", "hand": 1, "seat": 1, "card": "AS", "penalty_due": 10**6, "penalty": []},
         "penalty_due = 1000000"),
        ({"event": "buy", "hand": 1, "seat": 1, "card": "AS", "penalty_due": 1, "penalty": ["AS"] * 11},
         "penalty: 11 penalty cards"),
        ({"event": "go_down", "hand": 1, "seat": 1, "melds": [{"meld": 0, "cards": []}] * 9}, "melds: 9 melds"),
        ({"event": "go_down", "hand": 1, "seat": 1, "melds": [{"meld": 0, "cards": ["AS"] * 65}]},
         "cards: 65 cards; at most 64"),
        ({"event": "go_down", "hand": 1, "seat": 1, "melds": [7]}, "a meld: expected an object"),
        ({"event": "layoff", "hand": 1, "seat": 1, "card": "AS", "meld": 10**9}, "meld = 1000000000"),
        ({"event": "reshuffle", "hand": 1, "pass": 1, "cards": 10**12, "upcard_kept": None}, "cards = "),
        ({"event": "search", "hand": 1, "seat": 1, "decision": "take", "rollouts": 4, "chosen": 5,
          "candidates": [{"action": "take", "mean": 1}]}, "chosen = 5: must be 0..0"),
        ({"event": "search", "hand": 1, "seat": 1, "decision": "take", "rollouts": 4, "chosen": 0,
          "candidates": [{}] * 256}, "candidates: 256 candidates"),
        ({"event": "game_end", "totals": [1] * 9, "winners": [], "ranking": []}, "totals: 9 scores for 4"),
        ({"event": "draw", "hand": 1, "seat": 1, "source": "stock", "card": "XX"}, "card = \"XX\": not a card"),
    ]
    for ev, words in cases:
        _one_line_refusal(_replay(_write(tmp_path / "g.jsonl", [GAME, EVENTS[0], ev])), "line 3", words)
    for key, v in (("seats", ["x"] * 9), ("contracts", ["set3"] * 256), ("buys", [3] * 256),
                   ("buys", [256]), ("shoe", 10**9), ("human", 4), ("view", -1)):
        _one_line_refusal(_replay(_write(tmp_path / "g.jsonl", [dict(GAME, **{key: v}), *EVENTS])),
                          "line 1", key)


@pytest.mark.parametrize("text, words", [
    ("[" * 60_000, "nested deeper than 6"),
    ('{"event":"x","a":' + "[" * 7 + "]" * 7 + "}", "nested deeper than 6"),
    ('{"event":"x","a":' + "{\"b\":" * 200 + "1" + "}" * 200 + "}", "nested deeper than 6"),
    ("[" * 100_000, "longer than 64 KiB"),
    ('{"event":"hand","hand":1,"dealer":0,"fir', "not JSON"),
    ('{"event":"x","pad":"' + "a" * 70_000 + '"}', "longer than 64 KiB"),
    ('{"event":"game","players":NaN}', "expected an integer"),
    ('{"event":"game","players":Infinity}', "expected an integer"),
    ('{"event":"game","players":1' + "0" * 5000 + "}", "not JSON"),
    ("[]", "not an event"),
    ('{"event":7}', "not an event"),
])
def test_lines_bounded(tmp_path, text, words):
    _one_line_refusal(_replay(_write(tmp_path / "g.jsonl", [GAME, text, *EVENTS])), words)


def test_brackets_inside_strings_are_not_nesting(tmp_path):
    ev = dict(GAME, rules="[[[[[[[[{{{{{{{{")
    r = _replay(_write(tmp_path / "g.jsonl", [ev, *EVENTS]))
    assert r.exit_code == 0, r.output[-300:]


def test_a_log_larger_than_any_game_is_refused(tmp_path):
    from shanghai_sim.cli.game_cmds import MAX_LOG_BYTES
    pad = {"event": "upcard", "hand": 1, "card": "AS", "pad": "x" * 60_000}
    n = MAX_LOG_BYTES // 60_000 + 2
    _one_line_refusal(_replay(_write(tmp_path / "big.jsonl", [GAME, EVENTS[0], *[pad] * n])),
                      "larger than 8 MiB")


def test_not_text_and_special_files(tmp_path):
    p = tmp_path / "b.jsonl"
    p.write_bytes(json.dumps(GAME).encode() + b"\n\xff\xfe\n")
    _one_line_refusal(_replay(p), "is not UTF-8")
    if Path("/dev/zero").exists():                     # endless, one endless line
        _one_line_refusal(_replay(Path("/dev/zero")), "longer than 64 KiB")


# ---------------------------------------------------------------- memory and time


def _worst_logs(folder: Path) -> dict[str, Path]:
    """Logs at the limits: as large as allowed, each line as wide and as costly to hold in
    memory as allowed (empty lists and objects cost Python the most per byte), and a whole
    valid game padded to the size limit (it passes every check, so --html draws it)."""
    from shanghai_sim.cli.game_cmds import MAX_LINE_BYTES, MAX_LOG_BYTES
    out = {}
    head = json.dumps(GAME) + "\n" + json.dumps(EVENTS[0]) + "\n"
    for name, item in (("lists", "[]"), ("objects", "{}"), ("numbers", "1000"), ("strings", '"a"')):
        body = ",".join([item] * ((MAX_LINE_BYTES - 200) // (len(item) + 1)))
        line = '{"event":"upcard","hand":1,"card":"AS","x":[' + body + "]}\n"
        n = (MAX_LOG_BYTES - len(head)) // len(line)
        out[name] = folder / f"{name}.jsonl"
        out[name].write_text(head + line * n)
    game = [GAME, *EVENTS]
    base = sum(len(json.dumps(e, separators=(",", ":"))) + 1 for e in game)
    n = int((MAX_LOG_BYTES * 0.97 - base) / (len(game) * 3))       # "[]," a pad item
    game = [dict(e, pad=[[]] * n) for e in game]
    out["game"] = folder / "game.jsonl"
    out["game"].write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in game))
    assert all(p.stat().st_size <= MAX_LOG_BYTES for p in out.values())
    return out


MEASURE = """
import resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
      round(time.perf_counter() - t, 2), (p.stderr.strip().splitlines() or [''])[-1][:1000])
"""


def _measure(args: list[str]) -> tuple[int, int, float, str]:
    cli = [sys.executable, "-c", "from shanghai_sim.cli.main import main; main()"]
    out = subprocess.run([sys.executable, "-c", MEASURE, *cli, *args], capture_output=True,
                         text=True, timeout=300).stdout.split(maxsplit=3)
    return int(out[0]), int(out[1]) * 1024, float(out[2]), out[3] if len(out) > 3 else ""


def test_worst_logs_stay_bounded_in_memory_and_time(tmp_path):
    for name, path in _worst_logs(tmp_path).items():
        modes = ([], ["--json"], ["--html", str(tmp_path / f"{name}.html")]) if name == "game" else ([],)
        for more in modes:
            rc, rss, secs, err = _measure(["replay", "--log", str(path), *more])
            assert rc in (0, 2), (name, more, rc, err)
            assert "Traceback" not in err
            assert rss < 500e6, (name, more, f"{rss / 1e6:.0f} MB")
            assert secs < 60, (name, more, secs)
            if name != "game":
                assert rc == 2 and "lines are missing or edited" in err, err
        if name == "game" and rc == 0:
            assert (tmp_path / "game.html").stat().st_size > 1e6


def test_crafted_counts_stay_bounded_in_memory(tmp_path):
    """issue 59: players = 10**9 grew past 5.5 GB (10**12: 2.9 GB) drawing --html."""
    for players in (10**9, 10**12):
        log = _write(tmp_path / "g.jsonl", [dict(GAME, players=players), *EVENTS])
        rc, rss, secs, err = _measure(["replay", "--log", str(log), "--html", str(tmp_path / "g.html")])
        assert rc == 2 and "must be 2..8" in err and rss < 500e6, (rc, rss, err)


# ---------------------------------------------------------------- random mutation

_INTS = st.one_of(st.integers(-3, 300), st.sampled_from([10**9, 10**12, -10**9, 2**63, 2**64]),
                  st.floats(allow_nan=True), st.booleans(), st.none(), st.text(max_size=3),
                  st.lists(st.integers(-2, 9), max_size=3))
_LISTS = st.one_of(st.integers(0, 300).map(lambda n: ["AS"] * n), st.integers(0, 2000).map(lambda n: [0] * n),
                   st.just("AS"), st.just({}), st.lists(st.text(max_size=3), max_size=4))


@st.composite
def _mutated(draw):
    lines = [dict(GAME)] + [dict(e) for e in EVENTS[:200]]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        e = lines[i]
        if not isinstance(e, dict):
            continue
        how = draw(st.sampled_from(["int", "list", "drop", "truncate", "nest", "event"]))
        keys = sorted(e)
        key = draw(st.sampled_from(keys))
        if how == "int":
            e[key] = draw(_INTS)
        elif how == "list":
            e[key] = draw(_LISTS)
        elif how == "drop" and key != "event":
            del e[key]
        elif how == "truncate":
            text = json.dumps(e)
            lines[i] = text[:draw(st.integers(0, len(text) - 1))]
        elif how == "nest":
            d = draw(st.integers(1, 4000))
            e[key] = json.loads("[" * min(d, 900) + "]" * min(d, 900)) if d < 900 else None
            if d >= 900:
                lines[i] = '{"event":"x","a":' + "[" * d + "]" * d + "}"
        else:
            e["event"] = draw(st.sampled_from(["game", "hand", "deal", "search", "hand_end",
                                               "game_end", "go_down", "layoff", "bogus"]))
    return lines


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=_mutated(), html=st.booleans())
def test_mutated_logs_are_read_or_refused_on_one_line(tmp_path_factory, lines, html):
    folder = tmp_path_factory.mktemp("m")
    more = ["--html", str(folder / "m.html")] if html else []
    r = _replay(_write(folder / "m.jsonl", lines), *more)
    assert r.exception is None or isinstance(r.exception, SystemExit), \
        f"{r.exception!r}\n{r.output[-400:]}"
    assert r.exit_code in (0, 2), r.output[-400:]
    if r.exit_code == 2:
        assert r.output.strip().splitlines()[-1].startswith("Error: "), r.output[-400:]


@pytest.mark.parametrize("args", [["play", "--log", ""], ["play", "--log", "  "],
                                  ["replay", "--seed", "1", "--html", ""],
                                  ["replay", "--log", str(GOLDEN), "--html", ""],
                                  ["tournament", "--bots", "random,greedy", "--deals", "2", "--out", ""],
                                  ["experiment", "--variant", "greedy:buy=never", "--games", "2", "--out", ""]])
def test_an_empty_output_path_is_refused_before_anything_runs(args):
    """issue 59: `play --log ''` played the game and saved nothing, silently; `tournament
    --out ''` wrote into ./shanghai-tournament, the default it was not asked for."""
    r = CliRunner().invoke(main, args, input="quit\n")
    _one_line_refusal(r, "give a folder" if "--out" in args else "give a file name")


@pytest.mark.parametrize("change, words", [
    ({"schema": 99}, "schema = 99: must be 1..2"), ({"schema": 0}, "schema = 0: must be 1..2"),
    ({"schema": "2"}, 'schema = "2": expected an integer'), ({"seed": -1}, "seed = -1: must be 0..18446744073709551615"),
    ({"seed": 1e400}, "seed = Infinity: expected an integer"), ({"seed": 2**64}, "seed = 18446744073709551616"),
])
def test_a_schema_or_seed_this_version_does_not_read(tmp_path, change, words):
    """A log of a later schema was read as if it were this one (its fields may mean otherwise);
    a seed no game has (negative, infinite, past 64 bits) was printed as the game's."""
    _one_line_refusal(_replay(_write(tmp_path / "g.jsonl", [dict(GAME, **change), *EVENTS])), "line 1", words)
