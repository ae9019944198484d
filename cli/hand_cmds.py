"""``shanghai-sim rules`` and ``shanghai-sim meld``."""

from __future__ import annotations

import json
import sys

import click

from .errors import INT, rule_option, rules_at
from .errors import Number


def fail(message: str) -> None:
    """One line on stderr naming the problem, exit status 2."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def rules_or_fail(spec, rule_items=(), players=None):
    from shanghai_sim.rules import RulesError
    try:
        return rules_at(spec, rule_items, players)
    except RulesError as e:
        fail(str(e))


def _format_rules(d: dict, meanings: dict[str, str]) -> str:
    lines = [f"rules: {d['name']}   (every option: docs/rules.md §3)", ""]

    def row(key: str, value: str) -> None:
        import textwrap
        meaning = textwrap.wrap(meanings.get(key, ""), 96 - 38) or [""]
        if len(value) > 16:                       # a long value: its meaning below it
            lines.append(f"  {key:<19} {value}")
            lines.extend(f"  {'':<19} {'':<16} {m}" for m in meaning)
        else:
            lines.append(f"  {key:<19} {value:<16} {meaning[0]}".rstrip())
            lines.extend(f"  {'':<19} {'':<16} {m}" for m in meaning[1:])

    for key, value in d.items():
        if key in ("name", "contracts", "points", "decks", "jokers", "buys_per_hand"):
            continue
        row(key, json.dumps(value) if isinstance(value, (list, dict, bool)) else str(value))
    row("decks", "by players " + ", ".join(f"{p}: {n}" for p, n in d["decks"].items()))
    row("jokers", "by packs " + ", ".join(f"{p}: {n}" for p, n in d["jokers"].items()))
    row("points", ", ".join(f"{k} {v}" for k, v in d["points"].items()))
    row("contracts", "(table below)")
    row("buys_per_hand", "(table below)")
    lines.append("")
    lines.append(f"  {'hand':>4}  {'contract':<24} {'deal':>4}  {'cards needed':>12}  {'buys':>4}")
    for c in d["contracts"]:
        lines.append(f"  {c['hand']:>4}  {c['melds']:<24} {c['deal']:>4}  {c['cards_needed']:>12}  {c['buys']:>4}")
    return "\n".join(lines)


@click.command("rules")
@click.argument("spec", required=False, default="shanghai", metavar="[PRESET|FILE]")
@rule_option
@click.option("--json", "as_json", is_flag=True, help="Print the resolved rules as JSON.")
def rules_cmd(spec: str, rule_items: tuple[str, ...], as_json: bool) -> None:
    """Print the full resolved rules of a preset or a TOML rules file.

    Each option is shown with its one-line meaning; docs/rules.md is the
    rulebook (every option's values, sources and presets).
    """
    from shanghai_sim.rules import OPTION_HELP
    r = rules_or_fail(spec, rule_items)
    d = r.to_dict()
    click.echo(json.dumps(d, indent=2) if as_json else _format_rules(d, OPTION_HELP))


TIME_LIMIT = 6.0      # seconds of meld search: with start-up (2-4 s) the answer comes within 10 s


def _capped(fn, seconds: float):
    """``fn()`` run in a forked child (its compiled kernels inherited), its result or exception
    back through a pipe; None if it runs past ``seconds``: the child is then killed. The meld
    finder's compiled search cannot be interrupted in-process, and a hand at the rules' size
    limit with many jokers can search for a minute. Without ``os.fork``: ``fn()`` uncapped."""
    import os
    import pickle
    import select
    import signal
    import time
    from shanghai_sim.cards import CardError
    if not hasattr(os, "fork"):
        return fn()
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # the child: answer, then leave at once
        code = 0
        try:
            os.close(rd)
            try:
                got = ("ok", fn())
            except Exception as e:              # CardError, RulesError: the parent says it
                got = ("error", e)
            data = pickle.dumps(got)
            while data:
                data = data[os.write(wr, data):]
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(wr)
    chunks, done, status = [], False, None
    try:
        end = time.monotonic() + seconds
        while not done:
            left = end - time.monotonic()
            if left <= 0 or not select.select([rd], [], [], left)[0]:
                return None
            chunk = os.read(rd, 1 << 16)
            chunks.append(chunk)
            done = not chunk
    finally:
        os.close(rd)
        if not done:
            os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
    if not b"".join(chunks):                       # the child died (killed, out of memory)
        status = os.waitstatus_to_exitcode(status) if status is not None else None
        raise CardError(f"the meld search stopped without an answer (its process ended with {status})")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "error":
        raise value
    return value


@click.command("meld")
@click.argument("cards", nargs=-1)
@click.option("--contract", "-c", required=True,
              help="Hand number of the rules (1-based) or notation such as 'set3 run10'.")
@click.option("--rules", "-r", "rules_spec", default="shanghai", show_default=True,
              help="Preset name or TOML rules file.")
@rule_option
@click.option("--players", "-p", type=INT, default=None,
              help="Check the hand against the shoe at this many players (default: the rules').")
@click.option("--any-hand", is_flag=True,
              help="Accept a hand the rules' shoe cannot hold (what-if questions).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: satisfiable, deadwood, "
              "deficiency, melds, leftover.")
@click.option("--time-limit", type=Number(0.1, 3600), default=TIME_LIMIT, show_default=True,
              metavar="SECONDS", help="Stop a search that runs longer (a large hand with many "
              "jokers) and say so.")
def meld_cmd(cards: tuple[str, ...], contract: str, rules_spec: str, rule_items: tuple[str, ...],
             players: int | None,
             any_hand: bool, as_json: bool, time_limit: float) -> None:
    """Analyse a hand: can it lay the contract down, deadwood, deficiency, a best lay-down.

    Example: shanghai-sim meld 5C 6C 7C 8C 9D 9H 9S JK --contract 2

    The definitions are docs/rules.md §6. The hand must fit the rules' shoe
    (e.g. at most two of each card and four jokers with two packs), and hold
    no more cards than a player can (the deal, a draw and every buy with its
    penalty cards: 24 under shanghai), --any-hand or not. A search that runs
    past --time-limit is stopped: "too large to analyse exactly", exit 2.
    """
    from shanghai_sim.cards import CardError
    from shanghai_sim.hand import analyze_hand
    from shanghai_sim.rules import RulesError
    if not cards:
        fail("empty hand: give the cards, e.g. shanghai-sim meld 5C 6C 7C 8C JK --contract 2")
    from shanghai_sim.compiling import hand_helper
    r = rules_or_fail(rules_spec, rule_items, players)

    def analyse():
        return analyze_hand(list(cards), contract, r, players=players, shoe=not any_hand)

    try:
        with hand_helper():          # a cold cache: the lay-down search compiles on the other core
            analyze_hand(["AS"], contract, r, shoe=False)    # compiled (or loaded) here: uncapped
        a = _capped(analyse, time_limit)     # a bad card, contract or size is raised from the child
    except (CardError, RulesError) as e:
        fail(str(e))
    if a is None:
        fail(f"a hand of {len(cards)} cards against contract {contract!r}: too large to analyse exactly "
             f"within {time_limit:g} s (the search grows steeply with the jokers and the cards); give "
             "--time-limit more seconds, or fewer cards")
    if as_json:
        click.echo(json.dumps(a.to_dict()))
        return
    click.echo(f"hand:        {' '.join(a.cards)}")
    click.echo(f"contract:    {a.contract}   (rules: {r.name})")
    click.echo(f"deficiency:  {a.deficiency}" + ("" if a.satisfiable else
                                                 f"   (needs {a.deficiency} more natural card"
                                                 f"{'s' if a.deficiency != 1 else ''})"))
    if a.satisfiable:
        click.echo(f"satisfiable: yes, deadwood {a.deadwood}")
        for m in a.melds:
            click.echo(f"  meld:      {' '.join(m)}")
        click.echo(f"  leftover:  {' '.join(a.leftover) if a.leftover else '(none)'}")
    else:
        click.echo("satisfiable: no")


def register(group: click.Group) -> None:
    group.add_command(rules_cmd)
    group.add_command(meld_cmd)
