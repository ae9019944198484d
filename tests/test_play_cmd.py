"""`shanghai-sim play`: a person at one seat, driven by scripted input.

The script is written in two ways: by a Python `read` callable that looks at
the game (HumanGame, as the command line uses it), and as the lines that
callable typed, fed to the command through click's CliRunner. The saved log
must be the replay --json format and, when the person plays what greedy would
play, the very game `replay --seed` plays with greedy in that seat.
"""

import json

import pytest
from click.testing import CliRunner

from shanghai_sim.cli.main import main
from shanghai_sim.game import game_events
from shanghai_sim.human import HINT_BOT, HumanGame
from shanghai_sim.rules import load_rules


def _run(args, text=""):
    return CliRunner().invoke(main, args, input=text)


def _log(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f]


def _greedy_script(rules, players, seat, seed, extra=None):
    """Play a game through HumanGame typing what greedy would choose (by verb where the
    verb names one action, else by number); `extra(hg)` may type other lines first.
    Returns (typed lines, HumanGame, screen)."""
    typed, screen, pending = [], [], []
    hg = None

    def read(prompt):
        if not pending:
            if extra is not None:
                pending.extend(extra(hg))
            a = hg.game.bot_action(HINT_BOT)
            choices = hg.choices()
            k = next(i for i, b in enumerate(choices, 1) if b.code == a.code)
            if a.kind in ("take", "pass", "buy", "draw"):
                pending.append(a.kind)
            elif a.kind == "discard":
                pending.append(f"discard {a.card}")
            elif a.kind == "go_down":
                pending.append("down")
            else:
                pending.append(str(k))
        line = pending.pop(0)
        typed.append(line)
        return line

    hg = HumanGame(rules, players, seat, "greedy", seed, read=read, write=screen.append)
    assert hg.play() is None
    return typed, hg, "\n".join(screen)


def test_playing_what_the_hint_bot_plays_is_the_replayed_game(tmp_path):
    seed, seat = 13, 1
    # asking for a hint, the melds or the score in between must not change the game
    asks = iter(range(10 ** 6))
    typed, hg, screen = _greedy_script(
        "shanghai", 3, seat, seed,
        extra=lambda hg: ["hint", "melds", "score"] if next(asks) % 40 == 0 else [])
    assert "hint from smart:" in screen and "hand " in screen
    ref, _ = game_events("shanghai", 3, seed, [HINT_BOT if q == seat else "greedy" for q in range(3)])
    ref = json.loads(json.dumps(ref))
    assert hg.log_events()[1:] == ref

    path = tmp_path / "game.jsonl"
    r = _run(["play", "--players", "3", "--seat", str(seat), "--seed", str(seed),
              "--log", str(path)], "\n".join(typed) + "\n")
    assert r.exit_code == 0, r.output[-2000:]
    assert "game over" in r.output and "you finished" in r.output
    events = _log(path)
    r3 = load_rules("shanghai")
    assert events[0] == {"event": "game", "schema": 2, "seed": seed, "rules": "shanghai",
                         "players": 3, "seats": ["greedy", "human", "greedy"], "human": seat,
                         "contracts": [str(c) for c in r3.contracts], "buys": list(r3.buys_per_hand),
                         "shoe": r3.shoe_size(3)}
    assert events[1:] == ref
    lineup = ",".join(HINT_BOT if q == seat else "greedy" for q in range(3))
    r2 = _run(["replay", "--seed", str(seed), "--players", "3", "--bots", lineup, "--json"])
    assert [json.loads(x) for x in r2.output.splitlines()] == events[1:]


def test_scripted_game_choosing_1_always_logs_and_replays(tmp_path):
    path = tmp_path / "g.jsonl"
    r = _run(["play", "--players", "3", "--bots", "greedy,random", "--seed", "11",
              "--log", str(path)], "1\n" * 3000)
    assert r.exit_code == 0, r.output[-2000:]
    assert "== game over" in r.output
    events = _log(path)
    assert events[0]["seats"] == ["human", "greedy", "random"]
    assert events[-1]["event"] == "game_end"
    assert len([e for e in events if e["event"] == "hand_end"]) == 10
    # the person's choices are in the log: option 1 takes every first-refusal upcard
    mine = [e for e in events if e.get("seat") == 0 and e["event"] in ("draw", "buy", "discard")]
    assert any(e["event"] == "draw" and e["source"] == "upcard" for e in mine)
    assert any(e["event"] == "discard" for e in mine)
    # the screen hides the bots' cards; the log and its replay show them
    assert "deal seat 1: 11 cards" in r.output
    shown = _run(["replay", "--log", str(path)])
    assert shown.exit_code == 0
    assert shown.output.startswith("# seed 11, rules shanghai, 3 players; seat 0: the person, "
                                   "seat 1: greedy, seat 2: random")
    deal1 = next(e for e in events if e["event"] == "deal" and e["seat"] == 1)
    assert f"deal seat 1: {' '.join(deal1['cards'])}" in shown.output
    assert "== game over" in shown.output
    again = _run(["replay", "--log", str(path), "--json"])
    assert [json.loads(x) for x in again.output.splitlines()] == events


def _first_hand(seed, players=4, seat=0):
    """The person's cards at the first question of game `seed` (then the game stops)."""
    seen = {}

    def read(prompt):
        seen["cards"] = hg.game.hand_cards(seat)
        seen["n"] = len(hg.choices())
        seen["prompt"] = prompt
        raise EOFError

    hg = HumanGame("shanghai", players, seat, "greedy", seed, read=read, write=lambda s: None)
    hg.play()
    return seen


def test_bad_input_gets_a_reason_and_the_same_question():
    first = _first_hand(5)
    missing = next(c for c in ("2S", "3S", "4S", "5S", "6S", "7S", "8S") if c not in first["cards"])
    n = first["n"]
    lines = [str(n + 1), "0", "foo", "discard ZZ", f"discard {missing}", "layoff", "quit"]
    r = _run(["play", "--seed", "5"], "\n".join(lines) + "\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert f"there is no action {n + 1}: choose 1-{n}" in out
    assert f"there is no action 0: choose 1-{n}" in out
    assert "unknown command 'foo'" in out
    assert "unknown card 'ZZ'" in out
    assert f"{missing} is not in your hand" in out
    assert "which card? e.g. layoff 7C" in out
    # every answer is followed by the same question, and the game goes on to the quit
    assert out.count(first["prompt"]) == len(lines)
    assert "game stopped (quit) in hand 1" in out
    assert "Traceback" not in out


def _greedy_until(seed, players, found):
    """HumanGame at seat 0 playing greedy's moves until `found(hg)` returns lines to type;
    those are typed, then the input ends. Returns (HumanGame, screen lines, typed lines)."""
    screen, pending, typed, state = [], [], [], {}
    hg = None

    def read(prompt):
        if not pending:
            if state.get("done"):
                raise EOFError
            lines = found(hg)
            if lines:
                state["done"] = True
                pending.extend(lines)
            else:
                a = hg.game.bot_action(HINT_BOT)
                pending.append(str(next(i for i, b in enumerate(hg.choices(), 1)
                                        if b.code == a.code)))
        typed.append(pending.pop(0))
        return typed[-1]

    hg = HumanGame("shanghai", players, 0, "greedy", seed, read=read, write=screen.append)
    assert hg.play() == "end of input"
    return hg, screen, typed


def test_an_illegal_layoff_gets_its_reason():
    """Once the person is down and can lay something off, a lay-off that does not fit is
    refused with a one-line reason and the question comes again."""
    tried = {}

    def found(hg):
        if hg.game.phase != "play" or not hg._down():
            return None
        legal = {(a.card, a.meld) for a in hg.choices() if a.kind == "layoff"}
        if not legal:
            return None
        for c in hg.game.hand_cards(0):
            for m in range(len(hg.game.table())):
                if (c, m) not in legal:
                    tried["layoff"] = (c, m)
                    return [f"layoff {c} {m}", f"lay off {c} {m} low"]
        return None

    hg, screen, typed = _greedy_until(2, 4, found)
    c, m = tried["layoff"]
    i = screen.index(f"{c} cannot be laid off on meld {m}")
    assert screen[i + 1] == f"{c} cannot be laid off on meld {m} (low end)"


def test_an_other_lay_down_can_be_chosen():
    """The menu offers lay-downs besides the least-deadwood one; choosing one lays it down."""
    picked = {}

    def found(hg):
        ch = hg.choices()
        downs = [i for i, a in enumerate(ch, 1) if a.kind == "go_down"]
        if len(downs) < 2:
            return None
        picked["melds"], picked["best"] = ch[downs[1] - 1].melds, ch[downs[0] - 1].melds
        assert "keeps" in str(ch[downs[1] - 1]) and "deadwood" in str(ch[downs[0] - 1])
        return [str(downs[1])]

    hg, screen, typed = _greedy_until(1, 4, found)
    down = next(e for e in hg.log_events() if e["event"] == "go_down" and e["seat"] == 0)
    assert sorted(sorted(m["cards"]) for m in down["melds"]) == \
        sorted(sorted(m) for m in picked["melds"])
    assert sorted(sorted(m) for m in picked["melds"]) != sorted(sorted(m) for m in picked["best"])


def test_end_of_input_mid_game_saves_the_log(tmp_path):
    path = tmp_path / "cut.jsonl"
    r = _run(["play", "--seed", "4", "--log", str(path)], "1\n" * 25)
    assert r.exit_code == 0, r.output
    assert "game stopped (end of input)" in r.output
    assert f"log saved to {path}" in r.output
    events = _log(path)
    assert events[0]["event"] == "game" and events[-1]["event"] == "stopped"
    assert events[-1]["reason"] == "end of input"
    assert not any(e["event"] == "game_end" for e in events)
    # the same moves as far as they went: the log is a prefix of the uninterrupted game
    full = _run(["play", "--seed", "4", "--log", str(tmp_path / "full.jsonl")], "1\n" * 3000)
    assert full.exit_code == 0
    assert _log(tmp_path / "full.jsonl")[:len(events) - 1] == events[:-1]
    shown = _run(["replay", "--log", str(path)])
    assert shown.exit_code == 0
    assert shown.output.rstrip().endswith("no result")


def test_quit_and_ctrl_c_end_cleanly(tmp_path):
    path = tmp_path / "q.jsonl"
    r = _run(["play", "--seed", "9", "--log", str(path)], "quit\n")
    assert r.exit_code == 0
    assert "game stopped (quit) in hand 1" in r.output
    assert _log(path)[-1] == {"event": "stopped", "hand": 1, "reason": "quit"}

    def ctrl_c(prompt):
        raise KeyboardInterrupt

    hg = HumanGame("shanghai", 4, 2, "random", 9, read=ctrl_c, write=lambda s: None)
    assert hg.play() == "interrupted"
    assert hg.log_events()[-1]["reason"] == "interrupted"


@pytest.mark.parametrize("args,needle", [
    (["play", "--seat", "4"], "seat = 4: must be 0..3"),
    (["play", "--players", "9"], "players = 9: must be 2..8"),
    (["play", "--seed", "x"], "seed = 'x': expected an integer"),
    (["play", "--bots", "clever"], "unknown bot 'clever'"),
    (["play", "--players", "4", "--bots", "greedy,random"], "2 bot specs for the 3 other seats"),
    (["play", "--rules", "nope"], "unknown preset"),
    (["play", "--log", "no/such/dir/g.jsonl"], "cannot write the log no/such/dir/g.jsonl"),
    (["replay"], "exactly one of the two"),
    (["replay", "--seed", "1", "--log", "x.jsonl"], "exactly one of the two"),
])
def test_bad_options_are_one_line_exit_2(args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    open("x.jsonl", "w").close()
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_replay_log_refuses_game_options_and_bad_lines(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"event": "hand", "hand": 1, "dealer": 0, "first": 1}\nnot json\n')
    r = _run(["replay", "--log", str(path)])
    assert r.exit_code == 2 and "line 2: not JSON" in r.output
    path.write_text('{"event": "hand", "hand": 1, "dealer": 0, "first": 1}\n')
    r = _run(["replay", "--log", str(path), "--bots", "random"])
    assert r.exit_code == 2 and "--bots: a saved log already holds its game" in r.output
    r = _run(["replay", "--log", str(path)])
    assert r.exit_code == 0
    assert r.output.splitlines()[-1] == "== the log ends here: the game was not finished"


def test_players_follow_the_bot_specs_and_the_help_example_runs(tmp_path, monkeypatch):
    # three specs for the other seats: four players without --players
    r = _run(["play", "--bots", "greedy,random,greedy:buy=never", "--seed", "3"], "quit\n")
    assert r.exit_code == 0
    assert "seats: 0 you, 1 greedy, 2 random, 3 greedy:buy=never" in r.output
    # the example of --help, as written there
    help_text = _run(["play", "--help"]).output
    example = "shanghai-sim play --players 3 --bots greedy,random --seat 1 --seed 7 --log game.jsonl"
    assert example in help_text
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, example.split()[1:], input="1\n" * 40)
    assert r.exit_code == 0
    assert "log saved to game.jsonl" in r.output
    r = CliRunner().invoke(main, ["replay", "--log", "game.jsonl"])
    assert r.exit_code == 0 and "seat 1: the person" in r.output


@pytest.mark.parametrize("rules,players,bots", [("shanghai", 4, "greedy"), ("contract", 3, "random"),
                                                ("progressive", 5, "greedy,random,greedy,random")])
def test_whatever_is_typed_the_game_goes_on(rules, players, bots):
    """Random numbers and commands, good and bad: every line gets an answer, never a crash,
    and the game advances until the input ends."""
    import random
    rng = random.Random(players)
    words = ["take", "draw", "pass", "buy", "down", "hint", "melds", "score", "show", "help",
             "", "0", "999", "foo", "go down", "layoff", "lay off 7C 1 low", "swap JK", "discard ZZ"]
    hg = None

    def read(prompt):
        if len(typed) == 300:
            raise EOFError
        cards = hg.game.hand_cards(hg.seat)
        r = rng.random()
        if r < 0.55:
            line = str(rng.randint(1, len(hg.choices())))
        elif r < 0.75:
            line = f"{rng.choice(['discard', 'layoff', 'swap'])} {rng.choice(cards + ['AS', 'JK'])}" \
                   + rng.choice(["", " 0", " 2 high", " x"])
        elif r < 0.8:
            rng.shuffle(cards)
            line = f"down {' '.join(cards[:3])} | {' '.join(cards[3:7])}"
        else:
            line = rng.choice(words)
        typed.append(line)
        return line

    typed, screen = [], []
    hg = HumanGame(rules, players, 1, bots, 3, read=read, write=screen.append)
    assert hg.play() == "end of input"
    events = hg.log_events()
    assert events[-1] == {"event": "stopped", "hand": hg.game.hand, "reason": "end of input"}
    assert sum(1 for e in events if e.get("seat") == 1 and e["event"] == "discard") > 3


def test_rule_options_and_the_two_player_warning():
    r = _run(["play", "--rule", "buy_penalty=1", "--seed", "3"], "quit\n")
    assert r.exit_code == 0, r.output
    assert "rules shanghai (buy_penalty=1)" in r.output
    assert "warning" not in r.stderr
    r = _run(["play", "--players", "2", "--seed", "3"], "quit\n")
    assert r.exit_code == 0
    assert r.stderr.count("warning: with 2 players") == 1      # docs/rules.md §5.9


def test_a_hint_with_the_contract_already_met_does_not_say_it_leaves_the_deficiency_at_0():
    hg = HumanGame("shanghai", 4, 0, "greedy", 21, read=lambda p: "quit", write=lambda s: None)
    hg.game.advance()                  # seat 0's first decision: the upcard (take or pass, or buy)
    hg.game.set_position({0: "9D 9H 9S QC QD QH 2C 3D 5H 7S KC"}, upcard="4C")   # set3 set3 met
    asked = [a for a in hg.choices() if a.kind in ("take", "pass", "buy")]
    assert asked
    for a in asked:
        why = hg._why(a)
        assert "would leave your deficiency at 0" not in why
        assert "meets the contract already (deficiency 0)" in why


def test_moves_piped_in_are_echoed_after_their_prompt():
    r = _run(["play", "--seed", "21"], "hint\n2\nquit\n")
    assert r.exit_code == 0
    assert "your move (1-2, or help)> hint\nhint from smart:" in r.output
    assert "your move (1-2, or help)> 2\n" in r.output
