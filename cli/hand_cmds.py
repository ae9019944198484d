"""``shanghai-sim rules`` and ``shanghai-sim meld``."""

from __future__ import annotations

import json
import sys

import click

from shanghai_sim.cards import CardError
from shanghai_sim.rules import RulesError, load_rules


def fail(message: str) -> None:
    """One line on stderr naming the problem, exit status 2."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def rules_or_fail(spec):
    try:
        return load_rules(spec)
    except RulesError as e:
        fail(str(e))


def _format_rules(d: dict) -> str:
    lines = [f"rules: {d['name']}"]
    for key, value in d.items():
        if key in ("name", "contracts", "points", "decks", "jokers", "buys_per_hand"):
            continue
        lines.append(f"  {key:<20} {value if not isinstance(value, list) else json.dumps(value)}")
    lines.append("  decks by players     " + ", ".join(f"{p}: {n}" for p, n in d["decks"].items()))
    lines.append("  jokers by packs      " + ", ".join(f"{p}: {n}" for p, n in d["jokers"].items()))
    lines.append("  points               " + ", ".join(f"{k} {v}" for k, v in d["points"].items()))
    lines.append("")
    lines.append(f"  {'hand':>4}  {'contract':<24} {'deal':>4}  {'cards needed':>12}  {'buys':>4}")
    for c in d["contracts"]:
        lines.append(f"  {c['hand']:>4}  {c['melds']:<24} {c['deal']:>4}  {c['cards_needed']:>12}  {c['buys']:>4}")
    return "\n".join(lines)


@click.command("rules")
@click.argument("spec", required=False, default="shanghai", metavar="[PRESET|FILE]")
@click.option("--json", "as_json", is_flag=True, help="Print the resolved rules as JSON.")
def rules_cmd(spec: str, as_json: bool) -> None:
    """Print the full resolved rules of a preset or a TOML rules file."""
    r = rules_or_fail(spec)
    d = r.to_dict()
    click.echo(json.dumps(d, indent=2) if as_json else _format_rules(d))


@click.command("meld")
@click.argument("cards", nargs=-1)
@click.option("--contract", "-c", required=True,
              help="Hand number of the rules (1-based) or notation such as 'set3 run10'.")
@click.option("--rules", "-r", "rules_spec", default="shanghai", show_default=True,
              help="Preset name or TOML rules file.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: satisfiable, deadwood, "
              "deficiency, melds, leftover.")
def meld_cmd(cards: tuple[str, ...], contract: str, rules_spec: str, as_json: bool) -> None:
    """Analyse a hand: can it lay the contract down, deadwood, deficiency, a best lay-down.

    Example: shanghai-sim meld 5C 6C 7C 8C 9D 9H 9S JK --contract 2
    """
    from shanghai_sim.hand import analyze_hand
    if not cards:
        fail("empty hand: give the cards, e.g. shanghai-sim meld 5C 6C 7C 8C JK --contract 2")
    r = rules_or_fail(rules_spec)
    try:
        a = analyze_hand(list(cards), contract, r)
    except (CardError, RulesError) as e:
        fail(str(e))
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
