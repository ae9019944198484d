"""``shanghai-sim serve``: play a seat against the bots in a browser (thin over shanghai_sim.web.serve)."""

from __future__ import annotations

from typing import Callable

import click

from .errors import InputError
from .errors import OneLineCommand as _OneLineErrors
from .play_cmds import table_options

SERVE_HELP = """Play one game in your browser: you take one seat, bots the others.

\b
  shanghai-sim serve                         # then open http://127.0.0.1:8000/
  shanghai-sim serve --players 3 --bots smart --seat 1 --seed 7 --log game.jsonl
  shanghai-sim replay --log game.jsonl --html game.html   # the saved game as a replay page

The page shows the table as cards (your hand, the melds and their owners, the
upcard, stock, every seat's card count, buys left, who is down, the scores) and
your legal actions as buttons; click a card to pick it, again to discard it,
or a lit meld to lay it off. Hint shows what the smart bot would do; the box
takes the same commands as `play`. The options are play's. The server listens
on 127.0.0.1 only unless --host says otherwise (another address is warned
about); it takes moves only from its own page. Ctrl-C, SIGTERM or SIGHUP stop
it (an unfinished game's log is saved as stopped). docs/browser.md
"""

_STOPS = {"SIGINT": "interrupted", "SIGTERM": "terminated", "SIGHUP": "hung up"}


class _Signal(BaseException):
    """SIGTERM or SIGHUP, raised in the main thread as Ctrl-C raises KeyboardInterrupt (not
    an Exception: the server's per-request handlers must not catch it)."""

    def __init__(self, name: str):
        super().__init__(name)
        self.reason = _STOPS.get(name, "interrupted")


def _stop_on_signals() -> Callable[[], object]:
    """SIGTERM and SIGHUP stop the server as Ctrl-C does (the game saved as stopped, with the
    signal's reason); returns the undo."""
    import signal
    old = {}
    raised = []

    def handler(signum, frame):
        if not raised:              # once: a second signal while the log is saved waits
            raised.append(signum)
            raise _Signal(signal.Signals(signum).name)
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        try:
            old[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):       # not the main thread
            pass
    return lambda: [signal.signal(sig, h) for sig, h in old.items()]


def register(group: click.Group) -> None:
    @group.command("serve", cls=_OneLineErrors, help=SERVE_HELP)
    @table_options("Save the event log here after each of your turns (JSON lines, docs/replay.md).")
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help="Address to listen on (127.0.0.1: this machine only).")
    @click.option("--port", default="8000", show_default=True,
                  help="Port to listen on, 0..65535 (0: any free port).")
    @click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
    def serve_cmd(rules, rule_items, players, bots, seat, seed, log_path, host, port, open_browser, diagnostic):
        import os

        from .play_cmds import _int, human_game
        pt = _int("port", port, 0, 65535)
        if log_path is not None:
            folder = os.path.dirname(os.path.abspath(log_path))
            if os.path.isdir(log_path) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
                raise InputError(f"cannot write the log {log_path}: "
                                 + ("it is a folder" if os.path.isdir(log_path) else
                                    f"no folder {folder}" if not os.path.isdir(folder) else
                                    f"the folder {folder} is not writable"))
            try:        # write probes, as the log is written: a temporary beside it (root passes
                import tempfile         # os.access in /proc), and the name itself (too long?),
                fd, probe = tempfile.mkstemp(prefix=".log-", suffix=".jsonl", dir=folder)
                os.close(fd)            # opened without changing a log already there
                os.unlink(probe)
                existed = os.path.lexists(log_path)
                os.close(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666))
                if not existed:
                    os.unlink(log_path)
            except OSError as e:
                raise InputError(f"cannot write the log {log_path}: {e.strerror or e}") from None
        s, make = human_game(rules, rule_items, players, bots, seat, seed, later=True, diagnostic=diagnostic)
        from shanghai_sim.web.serve import make_server
        try:
            from shanghai_sim.bots import diagnostic_marks
            srv = make_server(make, host, pt, log_path=log_path, seed=s, notice=diagnostic_marks(bots))
        except OSError as e:
            raise InputError(f"cannot listen on {host}:{pt}: {e.strerror or e}"
                             + (" (another program has it: try --port 0 for any free port)"
                                if getattr(e, "errno", None) == 98 else "")) from None
        if not srv.loopback:
            click.echo(f"warning: serve listens on {host} ({srv.server_address[0]}), not only on this "
                       "machine: anyone who can reach it can open the page, see your cards and play "
                       "your seat (--host 127.0.0.1 keeps it to this machine)", err=True)
        undo = _stop_on_signals()
        reason = "interrupted"
        try:
            srv.session.start()
            click.echo(f"shanghai-sim serve: seed {s}, open {srv.url} (Ctrl-C stops)")
            if open_browser:
                import webbrowser
                webbrowser.open(srv.url)
            srv.serve_forever()
        except KeyboardInterrupt:
            pass
        except _Signal as e:
            reason = e.reason
        finally:
            srv.server_close()
            srv.session.stop(reason)
            undo()
            session = srv.session
            if log_path and session.log_error is None:
                if session.saved:
                    click.echo(f"log saved to {log_path} (shanghai-sim replay --log {log_path})")
                else:
                    click.echo(f"no log saved to {log_path}: the game stopped before its first deal", err=True)
        if log_path and session.log_error is not None:
            # the last save failed: what the file holds (if anything) is not the game's end
            raise click.ClickException(f"the log was not saved: {session.log_error}")
