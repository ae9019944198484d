"""``shanghai-sim play``: a person plays one seat against the bots (thin over shanghai_sim.human)."""

from __future__ import annotations

import json
import secrets
import sys

import click

from .errors import InputError, diagnostic_option, rule_option, rules_at
from .errors import OneLineCommand as _OneLineErrors

PLAY_HELP = """Play one game at the terminal: you take one seat, bots the others.

\b
  shanghai-sim play                          # seat 0 against three greedy bots
  shanghai-sim play --players 3 --bots greedy,random --seat 1 --seed 7 --log game.jsonl
  shanghai-sim replay --log game.jsonl       # read the saved game back

At each of your decisions the screen shows your cards (by suit and rank, with
the contract and your hand's deficiency), the table, the upcard, every seat's
card count, buys left and who is down, and the legal actions numbered. Type a
number, or a command: take, draw, pass, buy, down, layoff 7C, swap 7C,
discard 7C, hint, melds, score, show, help, quit. At a hand's end the screen
shows who went out, each seat's cards left, points and total, and waits: Enter
deals the next hand. Ctrl-D or Ctrl-C stops the game too; with --log the log
so far is saved (docs/replay.md).
"""


def _int(name: str, value: str | None, lo: int, hi: int) -> int | None:
    from shanghai_sim.limits import LimitError, parse_int
    if value is None:
        return None
    try:
        return parse_int(name, value, lo, hi)
    except LimitError as e:
        raise InputError(str(e)) from None


def named_file(ctx, param, value):
    """click callback of a file or folder an option writes (``--log``, ``--html``, ``--out``):
    an empty name (``--log ''``) would save nothing, silently, or write where it was not
    asked (``tournament --out ''``: the default folder); it is refused (exit 2) before
    anything runs."""
    if value is not None and not value.strip():
        name = param.name or ""
        example = ("a file name (e.g. game.html)" if "html" in name else
                   "a folder (e.g. results)" if name == "out" else "a file name (e.g. game.jsonl)")
        raise click.BadParameter(f"{value!r}: give {example}")
    return value


def human_game(rules, rule_items, players, bots, seat, seed, read=input, write=click.echo,
               later: bool = False, diagnostic: bool = False):
    """The HumanGame of play's options (``play``, ``serve``): bad values as InputError. A game
    with no --seed gets a random one (printed in its introduction). ``later``: check the
    options now, and return (seed, a function ``make(write)`` that builds the game)."""
    from shanghai_sim.bots import diagnostic_marks, refuse_diagnostics, split_specs
    from shanghai_sim.human import HumanGame, table_options
    s = _int("seed", seed, 0, 2 ** 64 - 1)
    if s is None:
        s = secrets.randbelow(2 ** 32)
    try:
        p = _int("players", players, 2, 8)
        n = len(split_specs(bots))
        refuse_diagnostics(bots, diagnostic)      # a bot that cheats only when asked for
        if p is None and n > 1:
            p = n + 1
        r = rules_at(rules, rule_items, p)        # --rule checked at the count to be played
        if p is None:
            p = r.players
        q = _int("seat", seat, 0, p - 1)
        if later:
            table_options(r, p, q, bots)
        else:
            hg = HumanGame(r, p, q, bots, s, read=read, write=write, diagnostic=diagnostic)
        warning = r.two_player_warning(p)
        if warning:
            click.echo(warning, err=True)
        for line in diagnostic_marks(bots):
            click.echo(line, err=True)
    except InputError:
        raise
    except ValueError as e:       # RulesError, BotError, GameError
        raise InputError(str(e)) from None
    if later:
        return s, lambda out: HumanGame(r, p, q, bots, s, read=read, write=out, diagnostic=diagnostic)
    return hg


def _read(prompt: str) -> str:
    """input(), and the line echoed when standard input is not a terminal (moves piped in
    from a file), so the transcript shows what was typed after each prompt."""
    from shanghai_sim.human.screen import _clip
    line = input(prompt)
    if not sys.stdin.isatty():      # a pasted page is not echoed back whole
        click.echo(_clip(line) if len(line) <= 300 else f"{line[:40]}... ({len(line):,} characters)")
    return line


def table_options(log_help: str):
    """The options of a game a person plays (``play``, ``serve``): rules, players, the bots,
    the person's seat, the seed and the log (``log_help`` says when it is saved)."""
    def decorate(f):
        for option in reversed((
                click.option("--rules", default="shanghai", show_default=True,
                             help="Preset (shanghai, contract, progressive) or a TOML rules file."),
                rule_option,
                click.option("--players", help="Players at the table, 2..8 (default: the rules', or one "
                                               "more than the bot specs when several are given)."),
                click.option("--bots", default="greedy", show_default=True, metavar="SPEC[,SPEC...]",
                             help="The other seats: one bot spec for all, or one per other seat in "
                                  "seat order."),
                click.option("--seat", default="0", show_default=True, help="Your seat, 0..players-1."),
                click.option("--seed", help="The game seed, 0..2**64-1 (default: a random one, shown)."),
                click.option("--log", "log_path", type=click.Path(dir_okay=False), callback=named_file,
                             help=log_help),
                diagnostic_option)):
            f = option(f)
        return f
    return decorate


def register(group: click.Group) -> None:
    @group.command("play", cls=_OneLineErrors, help=PLAY_HELP)
    @table_options("Save the event log here (JSON lines, docs/replay.md).")
    def play_cmd(rules, rule_items, players, bots, seat, seed, log_path, diagnostic):
        hg = human_game(rules, rule_items, players, bots, seat, seed, read=_read, write=click.echo,
                        diagnostic=diagnostic)
        out = None
        if log_path:
            try:        # opened now: a path that cannot be written fails before the game
                out = open(log_path, "w", encoding="utf-8")
            except OSError as e:
                raise InputError(f"cannot write the log {log_path}: {e.strerror}") from None
        if sys.stdin.isatty():
            try:        # line editing and history for input() at a terminal
                import readline  # noqa: F401
            except ImportError:
                pass
        try:
            hg.play()
        finally:
            if out is not None:
                with out:
                    for e in hg.log_events():
                        out.write(json.dumps(e, separators=(",", ":")) + "\n")
                click.echo(f"log saved to {log_path} (shanghai-sim replay --log {log_path})")
