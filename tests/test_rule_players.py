"""``--rule`` is checked at the player count the command will play, in every command that
takes --rule and a player count (``--players``, or one seat per bot spec).

``progressive`` deals up to 14 cards: with one pack (``--rule decks=1``) it fits 2 players
(2 x 14 + 1 <= 54 cards) but not the preset's 4; it was refused even with --players 2.
"""

from __future__ import annotations

import pytest

from test_runner_support import run_cli

ONE_PACK = ("--rules", "progressive", "--rule", "decks=1")

COMMANDS = [
    ["run", *ONE_PACK, "--players", "2", "--games", "4", "--out", "{tmp}/run", "--quiet"],
    ["run", *ONE_PACK, "--bots", "greedy,random", "--games", "4", "--out", "{tmp}/run2", "--quiet"],
    ["experiment", *ONE_PACK, "--players", "2", "--variant", "random", "--games", "2", "--out", "{tmp}/exp",
     "--quiet"],
    ["tournament", *ONE_PACK, "--bots", "greedy,random", "--deals", "2", "--out", "{tmp}/tour", "--quiet"],
    ["replay", *ONE_PACK, "--players", "2", "--seed", "3"],
    ["replay", *ONE_PACK, "--bots", "greedy,random", "--seed", "3"],
    ["meld", "5C", "6C", "7C", "-c", "1", *ONE_PACK, "--players", "2"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[f"{c[0]} {c[-3] if c[0] == 'meld' else c[5]}" for c in COMMANDS])
def test_a_rule_that_fits_the_player_count_played_is_accepted(tmp_path, args):
    r = run_cli(*[a.format(tmp=tmp_path) for a in args])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("args", [
    ["run", *ONE_PACK, "--players", "4", "--games", "4", "--out", "{tmp}/run"],
    ["run", *ONE_PACK, "--games", "4", "--out", "{tmp}/run"],            # the preset's 4
    ["replay", *ONE_PACK, "--seed", "3"],
    ["meld", "5C", "6C", "7C", "-c", "1", *ONE_PACK, "--players", "4"],
], ids=["run 4", "run default", "replay default", "meld 4"])
def test_the_same_rule_is_refused_where_it_does_not_fit(tmp_path, args):
    r = run_cli(*[a.format(tmp=tmp_path) for a in args])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert "14 x 4 players + upcard > 54 cards" in lines[0]


def test_play_checks_the_rule_at_its_table(tmp_path):
    """play: 2 players (the person and one bot) fit one pack; its introduction is reached."""
    from click.testing import CliRunner
    from shanghai_sim.cli.main import main
    r = CliRunner().invoke(main, ["play", *ONE_PACK, "--players", "2", "--seed", "5"], input="q\n")
    assert "14 x 4 players" not in r.output
    assert "progressive (decks=1)" in r.output, r.output
    r = CliRunner().invoke(main, ["play", *ONE_PACK, "--seed", "5"], input="q\n")
    assert r.exit_code == 2 and "14 x 4 players + upcard > 54 cards" in r.output


FILE_COMMANDS = [
    ["run", "--rules", "{file}", "--players", "2", "--games", "4", "--out", "{tmp}/run", "--quiet"],
    ["run", "--rules", "{file}", "--bots", "greedy,random", "--games", "4", "--out", "{tmp}/run2", "--quiet"],
    ["tournament", "--rules", "{file}", "--bots", "greedy,random", "--deals", "2", "--out", "{tmp}/tour",
     "--quiet"],
    ["experiment", "--rules", "{file}", "--players", "2", "--variant", "random", "--games", "2", "--out",
     "{tmp}/exp", "--quiet"],
    ["replay", "--rules", "{file}", "--players", "2", "--seed", "3"],
    ["meld", "5C", "6C", "7C", "-c", "1", "--rules", "{file}", "--players", "2"],
]


def _one_pack_file(tmp_path):
    f = tmp_path / "one_pack.toml"
    f.write_text('base = "progressive"\ndecks = 1\n')
    return f


@pytest.mark.parametrize("args", FILE_COMMANDS, ids=[" ".join(c[:1] + c[3:5]) for c in FILE_COMMANDS])
def test_a_rules_file_is_checked_at_the_player_count_played(tmp_path, args):
    """The same pack in a rules file that sets no player count: checked at the count played, as
    --rule is (it was refused at the base preset's 4 even with --players 2)."""
    f = _one_pack_file(tmp_path)
    r = run_cli(*[a.format(tmp=tmp_path, file=f) for a in args])
    assert r.exit_code == 0, r.output


def test_a_rules_file_that_does_not_fit_is_still_refused(tmp_path):
    f = _one_pack_file(tmp_path)
    r = run_cli("run", "--rules", str(f), "--players", "4", "--games", "4", "--out", str(tmp_path / "x"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert "14 x 4 players + upcard > 54 cards" in lines[0]
