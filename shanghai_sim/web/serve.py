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
  GET  /             the page
  GET  /api/state    the person's view, the legal actions, the hint, the text log (JSON)
  POST /api/act      {"choice": N} (an action's number) or {"line": "discard 7C"}
  POST /api/hint     ask for the hint (it appears in /api/state)
  GET  /log.jsonl    the game's log so far (docs/replay.md; ``replay --log`` reads it)
  GET  /replay.html  that log as a replay page (``replay --html``)
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

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
        if self.log_path is None or self.hg is None:
            return
        try:
            write_log(self.log_path, self.hg.log_events())
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

    def act(self, line: str) -> tuple[int, dict[str, Any]]:
        """The person's input: one line (an action's number or a command). (HTTP status, reply)."""
        from ..human import Stop
        if self.busy is not None or self.hg is None:
            return HTTPStatus.CONFLICT, {"error": f"wait: {self.busy or 'starting'}"}
        with self.lock:
            hg = self.hg
            refused = self._refused()
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
                self.hint = None
                if not hg.stopped:
                    self._job("the bots are playing", self._advance)
            self.version += 1
            return HTTPStatus.OK, {"applied": applied, "answer": answer}

    def ask_hint(self) -> tuple[int, dict[str, Any]]:
        if self.busy is not None or self.hg is None:
            return HTTPStatus.CONFLICT, {"error": f"wait: {self.busy or 'starting'}"}
        with self.lock:
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
        out: dict[str, Any] = {"version": self.version, "error": self.error, "log": self.log_path,
                               "log_error": self.log_error}
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
        from ..kernels import layout as L
        hg = self.hg
        g, seat = hg.game, hg.seat
        v = g.view(seat)
        events = hg._feed.events()
        scores = [{"hand": e["hand"], "scores": e["scores"]} for e in events if e["event"] == "hand_end"]
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

    def log_events(self) -> list[dict[str, Any]]:
        with self.lock:
            return self.hg.log_events() if self.hg is not None else []


def play_page(title: str = "Shanghai") -> str:
    return page(title, BODY, ["play.js"], connect=True)


class _Handler(BaseHTTPRequestHandler):
    server: "PlayServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):       # the terminal keeps the compile notice and errors
        pass

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _host_ok(self) -> bool:
        """Only requests addressed to this server by its own name (no DNS rebinding)."""
        host = (self.headers.get("Host") or "").strip().lower()
        if host in self.server.allowed_hosts:
            return True
        self._json(HTTPStatus.FORBIDDEN, {"error": f"unexpected Host {host!r}"})
        return False

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
                self._json(HTTPStatus.CONFLICT, {"error": "the game has not started yet"})
                return
            self._send(HTTPStatus.OK, replay_page(events, source="from serve").encode(),
                       "text/html; charset=utf-8")
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {path}"})

    do_HEAD = do_GET

    def do_POST(self):
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        s = self.server.session
        try:
            n = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(n) or b"{}") if n <= 65536 else None
            if not isinstance(body, dict):
                raise ValueError
        except ValueError:
            self._json(HTTPStatus.BAD_REQUEST, {"error": "expected a JSON object"})
            return
        if path == "/api/act":
            if "choice" in body:
                line = str(body["choice"])
            elif isinstance(body.get("line"), str):
                line = body["line"]
            else:
                self._json(HTTPStatus.BAD_REQUEST, {"error": "expected {\"choice\": N} or {\"line\": TEXT}"})
                return
            self._json(*s.act(line))
        elif path == "/api/hint":
            self._json(*s.ask_hint())
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no endpoint {path}"})


class PlayServer(ThreadingHTTPServer):
    """The HTTP server of one PlaySession (``serve_forever`` in the caller's thread or another)."""
    daemon_threads = True

    def __init__(self, session: PlaySession, host: str = "127.0.0.1", port: int = 0, seed: int = 0):
        super().__init__((host, port), _Handler)
        self.session = session
        self.seed = seed
        self.page = play_page()
        h, p = self.server_address[:2]
        names = {h, host, "localhost", "127.0.0.1", "[::1]"}
        self.allowed_hosts = {f"{n}:{p}".lower() for n in names} | {n.lower() for n in names}
        if host in ("0.0.0.0", "::", ""):
            self.allowed_hosts = None       # every address of the machine: any name it has

    @property
    def url(self) -> str:
        h, p = self.server_address[:2]
        if h in ("0.0.0.0", "::"):
            h = "127.0.0.1"
        return f"http://{h}:{p}/"


class _AnyHost(set):
    def __contains__(self, item):
        return True


def make_server(make: Callable[[Callable[[str], None]], Any], host: str = "127.0.0.1", port: int = 0,
                log_path: str | None = None, seed: int = 0) -> PlayServer:
    """A server for one game (not started: call ``session.start()`` and ``serve_forever()``)."""
    session = PlaySession(make, log_path)
    srv = PlayServer(session, host, port, seed)
    if srv.allowed_hosts is None:
        srv.allowed_hosts = _AnyHost()
    return srv


__all__ = ["PlaySession", "PlayServer", "make_server", "play_page", "write_log"]
