"""``shanghai-sim replay`` and ``shanghai-sim bots``: thin wrappers over game/log/bots."""

from __future__ import annotations

import json
import os

import click


from .errors import InputError, rule_option
from .errors import OneLineCommand as _OneLineErrors


REPLAY_HELP = """Play one seeded game and print every event of it, or print a saved log.

\b
  shanghai-sim replay --seed 12345
  shanghai-sim replay --seed 7 --rules contract --bots greedy:buy=never,random,greedy,greedy,greedy
  shanghai-sim replay --seed 7 --json > game.jsonl     # schema: docs/replay.md
  shanghai-sim replay --log game.jsonl                 # a saved log (play --log, replay --json)
  shanghai-sim replay --seed 42 --html g.html          # the game as cards, in a browser (docs/browser.md)

With --seed the game comes from the same kernel run as a batch run of that
game seed: same deals, same choices, same scores. Give --seed or --log, not both.
"""


def _read_log(path: str) -> list[dict]:
    """The events of a JSON-lines log (docs/replay.md); InputError naming the first bad line."""
    events = []
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                e = json.loads(line)
            except ValueError as err:
                raise InputError(f"{path} line {k}: not JSON ({err})") from None
            if not isinstance(e, dict) or not isinstance(e.get("event"), str):
                raise InputError(f"{path} line {k}: not an event (an object with \"event\", "
                                 f"docs/replay.md)")
            events.append(e)
    if not events:
        raise InputError(f"{path}: no events")
    return events


def _write_html(path: str, events: list[dict], **facts) -> None:
    """The replay page of ``events`` (shanghai_sim.web.replay) written to ``path`` whole:
    a temporary file beside it, renamed when complete; InputError if it cannot be."""
    import os
    import tempfile

    from shanghai_sim.web.replay import ReplayError, replay_page
    try:
        text = replay_page(events, **facts)
    except ReplayError as e:
        raise InputError(f"cannot draw {facts.get('source') or 'the game'}: {e}") from None
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".replay-", suffix=".html", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)       # as an ordinary new file, not mkstemp's 0600
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(f"cannot write the page {path}: {e.strerror}") from None
    click.echo(f"replay page written to {path} (open it in a browser)", err=True)


def _check_html_path(path: str | None) -> None:
    """A page path that cannot be written fails before the game is played."""
    import os
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError(f"cannot write the page {path}: it is a folder")
    if not os.path.isdir(folder):
        raise InputError(f"cannot write the page {path}: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise InputError(f"cannot write the page {path}: the folder {folder} is not writable")


def register(group: click.Group) -> None:
    @group.command("replay", cls=_OneLineErrors, help=REPLAY_HELP)
    @click.option("--seed", help="The game seed (0..2**64-1).")
    @click.option("--rules", default="shanghai", show_default=True,
                  help="Preset (shanghai, contract, progressive) or a TOML rules file.")
    @rule_option
    @click.option("--players", help="Players at the table, 2..8 (default: the rules', or one per bot).")
    @click.option("--bots", default="greedy", show_default=True, metavar="SPEC[,SPEC...]",
                  help="One bot spec for every seat, or one per seat.")
    @click.option("--log", "log_path", type=click.Path(exists=True, dir_okay=False),
                  help="Print this saved log (JSON lines, e.g. from play --log) instead.")
    @click.option("--json", "as_json", is_flag=True, help="JSON lines (docs/replay.md) instead of text.")
    @click.option("--html", "html_path", type=click.Path(dir_okay=False),
                  help="Write the game as a self-contained web page here (the table as cards, "
                       "stepped by event, turn or hand; docs/browser.md) instead of printing it.")
    @click.pass_context
    def replay_cmd(ctx, seed, rules, rule_items, players, bots, log_path, as_json, html_path):
        from shanghai_sim.bots import parse_bot, seat_specs, split_specs
        from shanghai_sim.game import game_events
        from shanghai_sim.log import format_event
        from shanghai_sim.rules import resolve
        if (seed is None) == (log_path is None):
            raise InputError("give --seed S (play that game) or --log FILE (print a saved log), "
                             "exactly one of the two")
        if log_path is not None:
            given = [f"--{n}" for n, k in (("rules", "rules"), ("rule", "rule_items"),
                                           ("players", "players"), ("bots", "bots"))
                     if ctx.get_parameter_source(k) == click.core.ParameterSource.COMMANDLINE]
            if given:
                raise InputError(f"{', '.join(given)}: a saved log already holds its game "
                                 f"(drop them, or use --seed)")
            _check_html_path(html_path)
            events = _read_log(log_path)
            if html_path is not None:
                _write_html(html_path, events, source=f"from {os.path.basename(log_path)}")
                if not as_json:
                    return
            for e in events:
                if as_json:
                    click.echo(json.dumps(e, separators=(",", ":")))
                else:
                    try:
                        click.echo(format_event(e))
                    except (KeyError, TypeError, IndexError):
                        raise InputError(f"{log_path}: a {e['event']!r} event lacks fields "
                                         f"(docs/replay.md): {json.dumps(e)[:80]}") from None
            if not as_json and events[-1]["event"] not in ("game_end", "stopped"):
                click.echo("== the log ends here: the game was not finished")
            return
        try:
            s = int(str(seed).strip())
            if not 0 <= s < 2 ** 64:
                raise ValueError
        except ValueError:
            raise InputError(f"bad seed {seed!r}: expected an integer 0..2**64-1") from None
        try:
            r = resolve(rules, rule_items)
            if players is None:
                n = len(split_specs(bots))
                p = n if n > 1 else r.players
            else:
                try:
                    p = int(players)
                except ValueError:
                    raise InputError(f"bad players {players!r}: expected an integer 2..8") from None
            if not 2 <= p <= 8:
                raise InputError(f"bad players {p}: must be 2..8")
            warning = r.two_player_warning(p)
            if warning:
                click.echo(warning, err=True)
            _check_html_path(html_path)
            events, _ = game_events(r, p, s, bots)
            seats = [parse_bot(b, r.hands).name for b in seat_specs(split_specs(bots), p)]
        except InputError:
            raise
        except ValueError as e:       # RulesError, BotError, GameError
            raise InputError(str(e)) from None
        if html_path is not None:
            _write_html(html_path, events, rules=r, players=p, seats=seats, seed=s)
            if not as_json:
                return
        if as_json:
            for e in events:
                click.echo(json.dumps(e, separators=(",", ":")))
        else:
            click.echo(f"# seed {s}, rules {r.name}, {p} players, bots {bots}")
            for e in events:
                click.echo(format_event(e))

    @group.command("bots", cls=_OneLineErrors)
    def bots_cmd():
        """List the bots and their parameters."""
        from shanghai_sim.bots import bots_help
        click.echo(bots_help())
