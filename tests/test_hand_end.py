"""The hand's end is a pause at the terminal (``shanghai-sim play``): who went out or why the
hand stopped, each seat's cards left, points and total, then the next deal once the person
presses Enter (issue 59, item 7). ``HumanGame.hand_results`` feeds the served page the same."""

from __future__ import annotations

from click.testing import CliRunner

from shanghai_sim.cli.main import main
from shanghai_sim.human import HINT_BOT, HumanGame
from shanghai_sim.kernels.base.records import HF_CARDS_LEFT, HF_POINTS

SHORT = 'contracts=["set3 set3", "run4 run4"]'


def _game(answers_at_pause, seed=5, players=3, rules=None):
    """A HumanGame at seat 0 playing the hint bot's moves; at each pause prompt the next of
    ``answers_at_pause`` is typed. Returns (HumanGame, screen lines, prompts)."""
    from shanghai_sim.rules import load_rules, with_options
    screen, prompts = [], []
    answers = iter(answers_at_pause)

    def read(prompt):
        prompts.append(prompt)
        screen.append(f"<{prompt}>")
        if prompt.startswith("press Enter"):
            return next(answers)
        a = hg.game.bot_action(HINT_BOT)
        return str(next(i for i, b in enumerate(hg.choices(), 1) if b.code == a.code))

    r = with_options(load_rules("shanghai"), [SHORT]) if rules is None else rules
    hg = HumanGame(r, players, 0, "greedy", seed, read=read, write=screen.append)
    hg.play()
    return hg, screen, prompts


def test_the_pause_shows_the_hand_and_waits_for_enter():
    hg, screen, prompts = _game([""])
    assert hg.stopped is None and hg.game.over
    pauses = [p for p in prompts if p.startswith("press Enter")]
    assert pauses == ["press Enter for hand 2 (run4 run4), or type score or quit> "]   # not after the last hand
    i = screen.index(f"<{pauses[0]}>")
    summary = screen[i - 1].split("\n")
    assert summary[0].startswith("== hand 1 of 2 (set3 set3) is over: ")
    r = hg.hand_results()[0]
    rec = hg.game.records()
    for q in range(3):
        row = summary[2 + q].split()
        assert int(row[2]) == r["scores"][q] == rec[0, q, HF_POINTS] and int(row[3]) == r["totals"][q]
        assert len(r["left"][q]) == rec[0, q, HF_CARDS_LEFT]
        if r["winner"] == q:
            assert "none (went out)" in summary[2 + q]
        elif r["left"][q]:
            assert summary[2 + q].endswith(f"{len(r['left'][q])}: {' '.join(r['left'][q])}")
    # the hand's last line comes before the pause, the next deal only after it
    assert screen[i - 2].startswith("  hand 1 ends")
    assert screen[i + 1].startswith("== hand 2 (run4 run4)")


def test_score_help_and_a_stray_line_at_the_pause():
    hg, screen, prompts = _game(["score", "help", "7"])
    text = "\n".join(screen)
    assert text.count("<press Enter for hand 2") == 3       # score and help ask again
    assert "hand   you   s1   s2" in text and "Enter deals hand 2" in text
    assert "'7' is not played: hand 2 (run4 run4) is dealt first, type your move there" in text
    assert hg.game.over and hg.stopped is None


def test_quit_at_the_pause_stops_the_game():
    hg, screen, _ = _game(["quit"])
    assert hg.stopped == "quit"
    assert screen[-1] == "game stopped (quit) in hand 2; it has no result"
    assert hg.log_events()[-1] == {"event": "stopped", "hand": 2, "reason": "quit"}


def test_a_stopped_hand_says_why():
    """A hand ended by the turn cap: nobody went out, everybody scores what they hold."""
    from shanghai_sim.rules import load_rules, with_options
    r = with_options(load_rules("shanghai"), [SHORT, "max_hand_turns=6"])
    hg, screen, prompts = _game([""], rules=r)
    res = hg.hand_results()[0]
    assert res["winner"] is None and res["reason"] == "turn_cap" and res["how"] is None
    summary = next(s for s in screen if s.startswith("== hand 1 of 2"))
    assert "nobody went out: the turn cap was reached" in summary
    assert all(len(cards) > 0 for cards in res["left"])


def test_play_pauses_at_the_terminal():
    r = CliRunner().invoke(main, ["play", "--players", "3", "--seed", "11", "--rule", SHORT], input="1\n" * 400)
    assert r.exit_code == 0, r.output[-2000:]
    out = r.output
    assert "== hand 1 of 2 (set3 set3) is over: " in out
    assert "press Enter for hand 2 (run4 run4), or type score or quit> 1" in out
    assert out.index("is over") < out.index("== hand 2 (run4 run4)")
    assert "== game over" in out and "you finished" in out
