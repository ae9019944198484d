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
"""

from __future__ import annotations

import hmac
import io
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import tempfile
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from ..log import seat_view
from . import page
from .replay import replay_page

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


class _Compiling:
    """Whether numba is compiling now, and since when (numba's ``numba:compile`` event, which
    fires only for a real compile, not a load from the cache)."""

    def __init__(self):
        self.depth = 0
        self.since: float | None = None
        self._lock = threading.Lock()
        from numba.core import event

        class Listener(event.Listener):
            def on_start(_, ev):
                with self._lock:
                    self.depth += 1
                    if self.depth == 1:
                        self.since = time.monotonic()

            def on_end(_, ev):
                with self._lock:
                    self.depth -= 1
                    if self.depth == 0:
                        self.since = None

        event.register("numba:compile", Listener())

    def elapsed(self) -> float | None:
        since = self.since
        return None if since is None else time.monotonic() - since


_COMPILING: _Compiling | None = None


def _compiling() -> _Compiling:
    global _COMPILING
    if _COMPILING is None:
        _COMPILING = _Compiling()
    return _COMPILING


def write_log(path: str, events: list[dict[str, Any]]) -> None:
    """The log as JSON lines, written whole: a temporary file beside ``path``, then renamed,
    so a log already there is never left half-written."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".log-", suffix=".jsonl", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for e in events:
                f.write(json.dumps(e, separators=(",", ":")) + "\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class PlaySession:
    """One game at the served page. ``make(write)`` builds the HumanGame (``write``: where
    its lines go); ``log_path``: where the log is saved after every turn of the person."""

    def __init__(self, make: Callable[[Callable[[str], None]], Any], log_path: str | None = None):
        self._make = make
        self.log_path = log_path
        self.hg = None
        self.lines: list[str] = []
        self.lock = threading.RLock()
        self.busy: str | None = None
        self.busy_since = 0.0
        self.error: str | None = None
        self.log_error: str | None = None
        self.hint: dict[str, Any] | None = None
        self.version = 0
        # The game's own moves: the person's actions applied so far. Every action names the
        # count it was chosen at; one chosen before the game moved on is refused (409).
        self.moves = 0
        # The game's token: the page carries it in every request that changes anything (a
        # page of another site cannot read it); it stops playing when the game ends.
        self.token = secrets.token_urlsafe(32)
        self.compiling = _compiling()

    # ------------------------------------------------------------ the worker
    def _write(self, text: str) -> None:
        self.lines.extend(str(text).split("\n"))

    def _job(self, what: str, fn: Callable[[], None]) -> None:
        self.busy_since = time.monotonic()
        self.busy = what

        def run():
            try:
                with self.lock:
                    fn()
            except Exception as e:       # shown on the page: a fault of ours, not bad input
                self.error = f"{what} failed: {type(e).__name__}: {e}"
            finally:
                self.version += 1
                self.busy = None

        threading.Thread(target=run, name="shanghai-serve", daemon=True).start()

    def start(self) -> None:
        def boot():
            self.hg = self._make(self._write)
            self.hg.start()
            self._advance()
        self._job("dealing", boot)

    def _advance(self) -> None:
        hg = self.hg
        hg.advance()
        if hg.game.over:
            hg.finish()
        self.save()

    def save(self) -> None:
        """The log to ``log_path``: the person's seat view while the game goes on or when it
        was stopped, the full log once it is over (``log_events``)."""
        if self.log_path is None or self.hg is None:
            return
        try:
            write_log(self.log_path, self._events())
            self.log_error = None
        except OSError as e:
            self.log_error = f"cannot write the log {self.log_path}: {e.strerror}"

    def stop(self, reason: str = "interrupted") -> None:
        """The server is closing: an unfinished game is saved as stopped (play --log does the same)."""
        with self.lock:
            hg = self.hg
            if hg is not None and not hg.game.over and not hg.stopped:
                hg.stopped = reason
                hg.finish()
                self.save()

    def wait(self, timeout: float = 600.0) -> None:
        """Until no job runs (tests)."""
        end = time.monotonic() + timeout
        while self.busy is not None and time.monotonic() < end:
            time.sleep(0.01)

    # ------------------------------------------------------------ requests
    def _refused(self) -> str | None:
        """Why the person cannot act now (under the lock: a second request that came in
        with the first sees the job the first started), or None."""
        hg = self.hg
        if self.busy is not None:
            return f"wait: {self.busy}"
        if hg.stopped:
            return f"the game was stopped ({hg.stopped})"
        if hg.game.over:
            return "the game is over"
        if hg.game.to_act != hg.seat:
            return "it is not your turn"
        return None

    def ended(self) -> bool:
        """Whether the game is over or was stopped (its token no longer plays)."""
        hg = self.hg
        return hg is not None and bool(hg.game.over or hg.stopped)

    def _stale(self, moves: int | None) -> tuple[int, dict[str, Any]] | None:
        if moves is None or moves == self.moves:
            return None
        return HTTPStatus.CONFLICT, {
            "error": "the game has moved on since this page was drawn (it was played from another "
                     "tab or window): here are the current choices",
            "stale": True, "moves": self.moves}

    def act(self, line: str, moves: int | None = None) -> tuple[int, dict[str, Any]]:
        """The person's input: one line (an action's number or a command), chosen when the
        game had made ``moves`` moves (None: not checked). (HTTP status, reply)."""
        from ..human import Stop
        if self.busy is not None or self.hg is None:
            return HTTPStatus.CONFLICT, {"error": f"wait: {self.busy or 'starting'}"}
        with self.lock:
            hg = self.hg
            refused = self._stale(moves) or self._refused()
            if isinstance(refused, tuple):
                return refused
            if refused:
                return HTTPStatus.CONFLICT, {"error": refused}
            before = len(self.lines)
            try:
                applied = hg.submit(line)
            except Stop as e:
                hg.stopped = e.reason
                hg.finish()
                self.save()
                applied = True
            answer = self.lines[before:]
            if applied:
                self.moves += 1
                self.hint = None
                if not hg.stopped:
                    self._job("the bots are playing", self._advance)
            self.version += 1
            return HTTPStatus.OK, {"applied": applied, "answer": answer}

    def ask_hint(self, moves: int | None = None) -> tuple[int, dict[str, Any]]:
        if self.busy is not None or self.hg is None:
            return HTTPStatus.CONFLICT, {"error": f"wait: {self.busy or 'starting'}"}
        with self.lock:
            stale = self._stale(moves)
            if stale:
                return stale
            refused = self._refused()
            if refused:
                return HTTPStatus.CONFLICT, {"error": refused}

            def think():
                k, text = self.hg.advice()
                self.hint = {"choice": k, "text": text}
            self._job("thinking of a hint", think)
            return HTTPStatus.OK, {"asked": True}

    def state(self) -> dict[str, Any]:
        busy = self.busy
        out: dict[str, Any] = {"version": self.version, "moves": self.moves, "error": self.error,
                               "log": self.log_path, "log_error": self.log_error}
        if busy is not None or self.hg is None:
            c = self.compiling.elapsed()
            out.update(busy=busy or "starting", elapsed=round(time.monotonic() - self.busy_since, 1),
                       compiling=None if c is None else round(c, 1))
            return out
        with self.lock:
            out.update(self._view())
        return out

    def _view(self) -> dict[str, Any]:
        from ..cards import card_str
        from ..kernels.base import layout as L
        hg = self.hg
        g, seat = hg.game, hg.seat
        v = g.view(seat)
        events = hg._feed.events()
        scores = hg.hand_results()      # each finished hand: scores, totals, who went out, cards left
        fresh: list[str] = []
        for e in reversed(events):
            if e["event"] in ("discard", "hand", "upcard"):
                break
            if e.get("seat") == seat and e["event"] in ("draw", "buy"):
                fresh = [e["card"]] + list(e.get("penalty", []))
                break
        ended = bool(g.over or hg.stopped)
        upcard = v["upcard"]
        if upcard is None and not ended and g.phase in ("first_refusal", "buy", "draw"):
            upcard = card_str(int(g.S[L.S_UP]))
        out_seat = next((e["seat"] for e in reversed(events)
                         if e["event"] == "out" and e["hand"] == v["hand"]), None)
        seats = [{"cards": v["cards"] if q == seat else None, "count": v["hand_sizes"][q],
                  "down": v["down"][q], "buys": v["buys_left"][q], "buysUsed": None,
                  "out": out_seat == q, "fresh": fresh if q == seat else [],
                  "known": [] if q == seat else v["known"][q]} for q in range(hg.players)]
        choices = [] if ended else hg.choices()
        game_over = g.over and not hg.stopped
        result = None
        if game_over or hg.stopped:
            result = self.lines[-1] if self.lines else ""
        return {
            "busy": None, "seed": hg.seed, "rules": hg.rules.name, "players": hg.players,
            "seat": seat, "names": hg.seats, "phase": g.phase, "over": game_over,
            "stopped": hg.stopped, "result": result,
            "situation": "" if ended else hg.situation(),
            "table": {"players": hg.players, "names": hg.seats, "human": seat, "hand": v["hand"],
                      "contract": v["contract"], "turn": None if ended else v["to_act"],
                      "upcard": upcard, "pile": v["pile"], "stock": v["stock"], "melds": v["table"],
                      "seats": seats, "scores": scores, "totals": v["totals"]},
            "choices": [{"n": i, "text": str(a), "kind": a.kind, "card": a.card, "meld": a.meld,
                         "end": a.end} for i, a in enumerate(choices, 1)],
            "hint": self.hint,
            "lines": self.lines[-400:],
        }

    def _events(self) -> list[dict[str, Any]]:
        hg = self.hg
        if hg is None:
            return []
        events = hg.log_events()
        return events if hg.game.over and not hg.stopped else seat_view(events, hg.seat)

    def log_events(self) -> list[dict[str, Any]]:
        """The log the server shows and saves: the person's seat view (``log.seat_view``: no
        other seat's deal, stock draw, penalty card or search) until the game is over, then
        the full log. A stopped game stays a seat view."""
        with self.lock:
            return self._events()

    def full_events(self) -> list[dict[str, Any]]:
        """Every event, the bots' hidden cards included (tests; never served during play)."""
        with self.lock:
            return self.hg.log_events() if self.hg is not None else []


MAX_BODY = 8192          # an action is a few dozen bytes, a typed line a few hundred
MAX_DEPTH = 8            # {"choice": N, "moves": M}: one object; nothing deeper is an action
REQUEST_TIMEOUT = 15.0   # seconds a client has to send a request's line and headers, or its body
TOKEN_HEADER = "X-Shanghai-Token"
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


def play_page(token: str = "", title: str = "Shanghai") -> str:
    """The page of one game; ``token``: the game's token (PlaySession.token), embedded for
    play.js to send with every request that changes anything."""
    return page(title, BODY, ["play.js"], data={"token": token}, connect=True)


def json_depth(data: bytes) -> int:
    """How deeply JSON text nests its arrays and objects (brackets inside strings do not
    count), found without parsing: json.loads recurses once per level."""
    depth = deepest = 0
    in_str = escaped = False
    for b in data:
        if in_str:
            if escaped:
                escaped = False
            elif b == 0x5C:             # backslash
                escaped = True
            elif b == 0x22:             # quote
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in (0x5B, 0x7B):         # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x5D, 0x7D):
            depth -= 1
    return deepest


def split_host(value: str) -> tuple[str, int | None] | None:
    """A Host header (or an origin's host part) as (name, port): ``name:port``,
    ``[v6]:port``, or without the port (None); None if it is not one."""
    value = value.strip().lower()
    m = re.fullmatch(r"(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::([0-9]{1,5}))?", value)
    if not m:
        return None
    name = m.group(1).strip("[]")
    return name, (int(m.group(2)) if m.group(2) else None)


class _DeadlineReader(io.RawIOBase):
    """The connection's input with a deadline: each read may wait only until ``deadline``
    (time.monotonic), so a client that sends a byte now and then is cut off all the same
    (``socket.settimeout`` alone bounds each read, not the request)."""

    def __init__(self, sock: socket.socket, idle: float):
        self.sock = sock
        self.idle = idle
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the client was too slow")
            self.sock.settimeout(left)
        try:
            return self.sock.recv_into(b)
        finally:
            self.sock.settimeout(self.idle)        # for the answer's writes


class _Handler(BaseHTTPRequestHandler):
    """One connection. Every refusal (4xx) closes it, as does a request whose body is not
    read, so nothing a client sent after a refused request is taken as a request."""
    server: "PlayServer"
    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.1"    # a malformed request's refusal has its status line too

    def setup(self):
        self.timeout = self.server.request_timeout
        super().setup()
        self._reader = _DeadlineReader(self.connection, self.server.request_timeout)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self):
        # the request line and headers must come whole within the timeout (a slow or idle
        # client is cut off: the base class closes the connection on the TimeoutError)
        self._reader.deadline = time.monotonic() + self.server.request_timeout
        self._body_read = False
        super().handle_one_request()

    def log_message(self, format, *args):       # the terminal keeps the compile notice and errors
        pass

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        if status >= 400 or self._unread_body():
            self.close_connection = True
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        # not no-referrer: with it a browser may send the page's own POSTs as Origin: null
        self.send_header("Referrer-Policy", "same-origin")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any, extra: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), "application/json", extra)

    def _refuse(self, status: int, why: str, extra: dict[str, str] | None = None) -> None:
        self.close_connection = True
        self._json(status, {"error": why}, extra)

    def _unread_body(self) -> bool:
        """A request that carries a body this handler has not read (a GET with one, say)."""
        if getattr(self, "_body_read", False):
            return False
        n = self.headers.get("Content-Length") if self.headers else None
        te = self.headers.get("Transfer-Encoding") if self.headers else None
        return te is not None or (n is not None and n.strip() != "0")

    # ------------------------------------------------------------ checks
    def _host_ok(self) -> bool:
        """Only requests addressed to this server by its own name (no DNS rebinding)."""
        hosts = self.headers.get_all("Host") or []
        host = hosts[0].strip() if len(hosts) == 1 else ""
        if not self.server.own_host(host, self.connection):
            self._refuse(HTTPStatus.FORBIDDEN, f"unexpected Host {host!r}" if len(hosts) < 2
                         else "more than one Host")
            return False
        return True

    def _same_origin(self) -> str | None:
        """Why a request that changes the game does not come from this server's own page
        (``Sec-Fetch-Site``, ``Origin``, else ``Referer``, each when the browser sent it), or None."""
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site.strip().lower() not in ("same-origin", "none"):
            return f"a request from another site (Sec-Fetch-Site: {site.strip()[:40]})"
        origin = self.headers.get("Origin")
        if origin is not None:
            m = re.fullmatch(r"http://([^/?#@]+)", origin.strip(), re.I)
            if not m or not self.server.own_host(m.group(1), self.connection):
                return f"a request from another origin ({origin.strip()[:80]!r})"
            return None
        ref = self.headers.get("Referer")
        if ref is not None:
            m = re.match(r"http://([^/?#@]+)(/|$)", ref.strip(), re.I)
            if not m or not self.server.own_host(m.group(1), self.connection):
                return f"a request from another page ({ref.strip()[:80]!r})"
        return None

    def _token(self) -> str | None:
        """Why the request's game token does not play this game, or None."""
        sent = self.headers.get(TOKEN_HEADER)
        s = self.server.session
        if not sent:
            return f"no game token ({TOKEN_HEADER}): only the game's own page can play"
        if not hmac.compare_digest(sent.strip().encode(), s.token.encode()):
            return "wrong game token (a page of another game or server?): reload the page"
        if s.ended():
            return "the game is over: its token no longer plays"
        return None

    def _body(self) -> dict[str, Any] | None:
        """The request's JSON object, read only when its length is stated and small; None
        after a refusal was sent."""
        if self.headers.get("Transfer-Encoding") is not None:
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length (no Transfer-Encoding)")
            return None
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "a Content-Length is required")
            return None
        if len(lengths) > 1 or not re.fullmatch(r"[0-9]{1,12}", lengths[0].strip()):
            self._refuse(HTTPStatus.BAD_REQUEST, f"bad Content-Length {', '.join(lengths)[:40]!r}")
            return None
        n = int(lengths[0])
        if n > MAX_BODY:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                         f"a body of {n} bytes: an action is at most {MAX_BODY}")
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            self._refuse(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "expected Content-Type: application/json")
            return None
        self._reader.deadline = time.monotonic() + self.server.request_timeout
        try:
            data = self.rfile.read(n)
        except TimeoutError:
            self._refuse(HTTPStatus.REQUEST_TIMEOUT, "the body came too slowly")
            return None
        self._body_read = True
        if len(data) < n:               # the client hung up: nobody to answer
            self.close_connection = True
            return None
        if json_depth(data) > MAX_DEPTH:
            self._refuse(HTTPStatus.BAD_REQUEST, "expected a JSON object (this one nests too deeply)")
            return None
        try:
            body = json.loads(data or b"{}")
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            self._refuse(HTTPStatus.BAD_REQUEST, "expected a JSON object")
            return None
        return body

    # ------------------------------------------------------------ methods
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
                 request_timeout: float = REQUEST_TIMEOUT):
        super().__init__((host, port), _Handler)
        self.session = session
        self.seed = seed
        self.request_timeout = request_timeout
        self.page = play_page(session.token)
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
                request_timeout: float = REQUEST_TIMEOUT) -> PlayServer:
    """A server for one game (not started: call ``session.start()`` and ``serve_forever()``)."""
    session = PlaySession(make, log_path)
    return PlayServer(session, host, port, seed, request_timeout)


__all__ = ["PlaySession", "PlayServer", "make_server", "play_page", "write_log", "seat_view", "json_depth"]
