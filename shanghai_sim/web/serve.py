"""``shanghai-sim serve``: play one seat against the bots in a browser (docs/browser.md).

The game is a ``shanghai_sim.human.HumanGame`` (the person's seat of a ``Game``), driven as
``play`` drives it at the terminal: the bots act through ``HumanGame.advance``, each click
or typed line goes through ``HumanGame.submit`` (the same parser, the same one-line reasons),
and ``hint`` is ``HumanGame.advice``. The page (``play.js``) is a view of that game: it asks
``/api/state`` for what the person's seat may see and posts the person's choices.

Work that can take long (dealing, the bots' turns, a hint: kernels compile on first use) runs
on a worker thread, one job at a time; meanwhile ``/api/state`` answers at once with what is
being done, for how long, and whether numba is compiling.

Endpoints (all on the one server; nothing else is fetched):
  GET  /             the page (with the game's token embedded)
  GET  /api/state    the person's view, the legal actions, the hint, the text log, ``moves`` (JSON)
  POST /api/act      {"choice": N, "moves": M} (an action's number) or {"line": "discard 7C", "moves": M}
  POST /api/hint     {"moves": M}: ask for the hint (it appears in /api/state)
  GET  /log.jsonl    the game's log so far (docs/replay.md; ``replay --log`` reads it): the
                     person's seat view (``log.seat_view``) until the game is over
  GET  /replay.html  that log as a replay page (``replay --html``)

No request is trusted (tests/test_web_hostile.py): the Host must name this server; a POST
must carry the game's token (header ``X-Shanghai-Token``; the token of a game that is over
plays no more) and come from the page's origin (``Origin``, ``Sec-Fetch-Site``, else
``Referer``), else 403; an action names the ``moves`` of the state it was chosen in, and one
for a state the game has left gets 409; a body must state a small ``Content-Length`` (else
411, 400, 413, before anything is read) and nest no deeper than an action; a request that
comes too slowly is cut off (``request_timeout``). Every refusal closes the connection, and
no request or disconnect prints a traceback (``PlayServer.handle_error``).

The modules: ``web.session`` (``PlaySession``: the game, its worker thread, the person's view,
the log), ``web.guard`` (``GuardedHandler``: the checks above), and this one (the page, the
endpoints, ``PlayServer``).
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
import time
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from typing import Any, Callable

from ..log import seat_view
from . import page
from .guard import LOCAL_NAMES, REQUEST_TIMEOUT, GuardedHandler, json_depth, split_host
from .replay import replay_page
from .session import PlaySession, write_log

BODY = """\
<header><h1>Shanghai</h1><span class="sub" id="sub"></span></header>
<div id="banner" hidden></div>
<div id="layout">
  <main><div id="table-area"></div><div class="seats" id="seats"></div></main>
  <aside>
    <div><h3>Your move</h3><div id="situation"></div>
      <div id="actions"></div>
      <div style="margin-top:6px"><button id="hint">Hint</button>
        <button id="quit" title="stop the game (it has no result)">Quit</button></div>
      <div id="hint-text" class="muted"></div>
      <input type="text" id="cmd" placeholder="or type: discard 7C, down 9D 9H 9S | 5C 6C 7C 8C, help"
             autocomplete="off" spellcheck="false">
      <div id="answer"></div>
      <div class="muted">Click a card to pick it (its actions light up), again to discard it,
        or a lit meld to lay it off there.</div>
    </div>
    <div id="result" hidden></div>
    <div><h3>Scores</h3><div id="scores"></div></div>
    <div><h3>Game</h3><div id="log"></div></div>
  </aside>
</div>
"""


def play_page(token: str = "", title: str = "Shanghai", notice: "list[str] | tuple[str, ...]" = ()) -> str:
    """The page of one game; ``token``: the game's token (PlaySession.token), embedded for
    play.js to send with every request that changes anything. ``notice``: lines shown above
    the table (``bots.diagnostic_marks``: a diagnostic bot that sees hidden cards plays)."""
    import html
    body = BODY
    if notice:
        lines = "".join(f"<p class=\"diagnostic\" role=\"alert\"><strong>{html.escape(x)}</strong></p>"
                        for x in notice)
        body = BODY.replace('<div id="banner" hidden></div>', lines + '<div id="banner" hidden></div>', 1)
    return page(title, body, ["play.js"], data={"token": token}, connect=True)


class _Handler(GuardedHandler):
    """The endpoints (the module's docstring), each behind ``GuardedHandler``'s checks."""

    def do_GET(self):
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        s = self.server.session
        if path == "/":
            self._send(HTTPStatus.OK, self.server.page.encode(), "text/html; charset=utf-8")
        elif path == "/api/state":
            self._json(HTTPStatus.OK, s.state())
        elif path == "/log.jsonl":
            body = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in s.log_events())
            self._send(HTTPStatus.OK, body.encode(), "application/x-ndjson",
                       {"Content-Disposition": f'attachment; filename="shanghai-{self.server.seed}.jsonl"'})
        elif path == "/replay.html":
            events = s.log_events()
            if not events:
                self._refuse(HTTPStatus.CONFLICT, "the game has not started yet")
                return
            over = not any(e["event"] == "game" and "view" in e for e in events[:1])
            source = "from serve" if over else f"seat {events[0]['view']}'s view: the game goes on"
            self._send(HTTPStatus.OK, replay_page(events, source=source).encode(),
                       "text/html; charset=utf-8")
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        else:
            self._refuse(HTTPStatus.NOT_FOUND, f"no page {path[:200]}")

    do_HEAD = do_GET

    def do_POST(self):
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        s = self.server.session
        if path not in ("/api/act", "/api/hint"):
            self._refuse(HTTPStatus.NOT_FOUND, f"no endpoint {path[:200]}")
            return
        why = self._same_origin() or self._token()
        if why:
            self._refuse(HTTPStatus.FORBIDDEN, why)
            return
        body = self._body()
        if body is None:
            return
        moves = body.get("moves")
        if type(moves) is not int:
            self._refuse(HTTPStatus.BAD_REQUEST, 'expected "moves": the game\'s moves when the '
                         'page was drawn (/api/state)')
            return
        if path == "/api/act":
            if type(body.get("choice")) is int:
                line = str(body["choice"])
            elif isinstance(body.get("line"), str):
                line = body["line"]
            else:
                self._refuse(HTTPStatus.BAD_REQUEST,
                             'expected {"choice": N, "moves": M} or {"line": TEXT, "moves": M}')
                return
            self._json(*s.act(line, moves))
        else:
            self._json(*s.ask_hint(moves))

    def _not_allowed(self):
        if self._host_ok():
            self._refuse(HTTPStatus.METHOD_NOT_ALLOWED, f"{self.command} is not served here",
                         {"Allow": "GET, HEAD, POST"})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _not_allowed


class PlayServer(ThreadingHTTPServer):
    """The HTTP server of one PlaySession (``serve_forever`` in the caller's thread or another).
    ``request_timeout``: seconds a client has to send a request (its line and headers, then
    its body) before it is cut off."""
    daemon_threads = True

    def __init__(self, session: PlaySession, host: str = "127.0.0.1", port: int = 0, seed: int = 0,
                 request_timeout: float = REQUEST_TIMEOUT, notice: "list[str] | tuple[str, ...]" = ()):
        super().__init__((host, port), _Handler)
        self.session = session
        self.seed = seed
        self.request_timeout = request_timeout
        self.page = play_page(session.token, notice=notice)
        h, p = self.server_address[:2]
        self.port = p
        self.wildcard = h in ("0.0.0.0", "::")
        names = {str(h).lower(), host.strip("[]").lower(), *LOCAL_NAMES}
        if self.wildcard:
            # any address of the machine: its own name and the address a client reached
            # (own_host), never just any name (a name can be pointed here by another site)
            names.discard(h)
            names.add(socket.gethostname().lower())
        self.names = names

    def own_host(self, host: str, conn: socket.socket | None = None) -> bool:
        """Whether ``host`` (a Host header, an origin's host) names this server: a local
        name or the address it listens on, or (listening on every address) the address
        the connection came in on, with this server's port."""
        hp = split_host(host)
        if hp is None:
            return False
        name, port = hp
        if (port if port is not None else 80) != self.port:
            return False
        if name in self.names:
            return True
        if self.wildcard and conn is not None:
            try:
                local = conn.getsockname()[0].lower()
            except OSError:
                return False
            if local.startswith("::ffff:"):
                local = local[7:]
            return name == local
        return False

    @property
    def loopback(self) -> bool:
        """Whether only this machine can reach the server."""
        try:
            return ipaddress.ip_address(self.server_address[0]).is_loopback
        except ValueError:
            return False

    @property
    def url(self) -> str:
        h, p = self.server_address[:2]
        if h in ("0.0.0.0", "::"):
            h = "127.0.0.1"
        elif ":" in h:
            h = f"[{h}]"
        return f"http://{h}:{p}/"

    def shutdown_request(self, request):
        """Close a connection without losing the answer: stop sending, then read and drop
        what the client still sends (a refused body; never taken as a request), for at most
        a second and a MiB, so that closing does not reset the connection before the client
        has read the answer."""
        try:
            request.shutdown(socket.SHUT_WR)
            request.settimeout(0.25)
            end, left = time.monotonic() + 1.0, 1 << 20
            while left > 0 and time.monotonic() < end:
                data = request.recv(65536)
                if not data:
                    break
                left -= len(data)
        except OSError:
            pass
        self.close_request(request)

    def handle_error(self, request, client_address):
        """A request that failed: a client that hung up or was too slow is no news; anything
        else is one line on stderr, never a traceback (the server goes on)."""
        e = sys.exc_info()[1]
        if isinstance(e, (ConnectionError, TimeoutError)):
            return
        try:
            print(f"shanghai-sim serve: a request from {client_address[0]} failed: "
                  f"{type(e).__name__}: {str(e)[:200]}", file=sys.stderr, flush=True)
        except Exception:
            pass


def make_server(make: Callable[[Callable[[str], None]], Any], host: str = "127.0.0.1", port: int = 0,
                log_path: str | None = None, seed: int = 0,
                request_timeout: float = REQUEST_TIMEOUT, notice: "list[str] | tuple[str, ...]" = ()) -> PlayServer:
    """A server for one game (not started: call ``session.start()`` and ``serve_forever()``)."""
    session = PlaySession(make, log_path)
    return PlayServer(session, host, port, seed, request_timeout, notice)


__all__ = ["PlaySession", "PlayServer", "make_server", "play_page", "write_log", "seat_view", "json_depth"]
