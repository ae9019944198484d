"""The served page's HTTP hardening: the checks every request passes before it reaches the game.

``GuardedHandler`` is the connection every request of ``serve`` comes in on: the Host must name
this server (``split_host``, ``PlayServer.own_host``); a POST must come from the page's origin
(``Sec-Fetch-Site``, ``Origin``, else ``Referer``) and carry the game's token
(``TOKEN_HEADER``); a body must state a small ``Content-Length`` (``MAX_BODY``, read before
anything else) and nest no deeper than an action (``json_depth``, ``MAX_DEPTH``); a request that
comes too slowly is cut off (``_DeadlineReader``, ``REQUEST_TIMEOUT``); every refusal closes
the connection. ``tests/test_web_hostile.py`` drives it with bad requests.
"""

from __future__ import annotations

import hmac
import io
import json
import re
import socket
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .serve import PlayServer

MAX_BODY = 8192          # an action is a few dozen bytes, a typed line a few hundred
MAX_DEPTH = 8            # {"choice": N, "moves": M}: one object; nothing deeper is an action
REQUEST_TIMEOUT = 15.0   # seconds a client has to send a request's line and headers, or its body
TOKEN_HEADER = "X-Shanghai-Token"
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


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


class GuardedHandler(BaseHTTPRequestHandler):
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
