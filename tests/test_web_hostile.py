"""``serve`` against a hostile client (issue 59): the real server, in its own process, driven
over raw sockets on 127.0.0.1 with requests a browser's page would never send, or another
site's page would: each gets its refusal (the status asserted), the connection is closed
after every refusal (nothing sent after a refused request is read as a request), the game
does not change (its state, moves and log compared before and after), and nothing reaches
the server's stderr (no traceback, for any request or disconnect).

The servers run a cheap game (greedy bots, three players, two short hands) with a short
request timeout (``make_server(request_timeout=...)``), so the slow clients are cut off in
about a second."""

from __future__ import annotations

import json
import re
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

TIMEOUT = 1.0           # the servers' request timeout (seconds)
SLACK = 4.0             # what a loaded machine may add to it

SERVER = r"""
import sys
from shanghai_sim.cli.play_cmds import human_game
from shanghai_sim.web.serve import make_server
host, log, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
s, make = human_game("shanghai", ('contracts=["set3 set3", "run4 run4"]',), "3", "greedy", "0", "5",
                     later=True)
srv = make_server(make, host, 0, log_path=log, seed=s, request_timeout=timeout)
srv.session.start()
srv.session.wait()
print(srv.server_address[1], flush=True)
srv.serve_forever()
"""


class Server:
    """One ``serve`` process: its port, its game's token (read from its page, as the page's
    script does), its stderr so far."""

    def __init__(self, tmp: Path, name: str, host: str = "127.0.0.1"):
        self.log = tmp / f"{name}.jsonl"
        self.err_path = tmp / f"{name}.err"
        self._err = open(self.err_path, "w")
        self.p = subprocess.Popen([sys.executable, "-c", SERVER, host, str(self.log), str(TIMEOUT)],
                                  stdout=subprocess.PIPE, stderr=self._err, text=True)
        self.port = None

    def ready(self) -> "Server":
        line = self.p.stdout.readline()
        assert line.strip().isdigit(), (line, self.err())
        self.port = int(line)
        self.host = f"127.0.0.1:{self.port}"
        self.origin = f"http://{self.host}"
        page = get(self, "/")[2].decode()
        self.token = json.loads(page.split('id="game-data">', 1)[1].split("</script>", 1)[0])["token"]
        self.base_err = self.err()
        return self

    def err(self) -> str:
        return self.err_path.read_text()

    def close(self) -> None:
        self.p.terminate()
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
        self._err.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    a = Server(tmp, "a")                     # the game the requests try to change
    b = Server(tmp, "b", host="0.0.0.0")     # all addresses; its game is ended by one test
    try:
        yield a.ready(), b.ready()
    finally:
        a.close()
        b.close()
    for s in (a, b):
        assert "Traceback" not in s.err() and s.err() == s.base_err, s.err()


@pytest.fixture
def srv(servers):
    return servers[0]


# ---------------------------------------------------------------- the client

def exchange(srv: Server, data: bytes, *, wait: float = 5.0, hang_up: bool = False) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it (or ``wait``
    seconds pass: then the connection was left open, and what came is returned)."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=wait)
    out = b""
    try:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):    # refused before all was sent
            pass
        if hang_up:
            return b""
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:        # the server closed with our body unread
                break
            if not chunk:
                break
            out += chunk
    finally:
        s.close()
    return out


def responses(raw: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """The HTTP responses in a byte stream, in order."""
    out = []
    while raw:
        head, sep, rest = raw.partition(b"\r\n\r\n")
        assert sep, raw[:200]
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
        n = int(headers.get("content-length", 0))
        out.append((status, headers, rest[:n]))
        raw = rest[n:]
    return out


def get(srv: Server, path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    raw = exchange(srv, f"GET {path} HTTP/1.1\r\nHost: {host or srv.host}\r\nConnection: close\r\n\r\n"
                   .encode())
    (r,) = responses(raw)
    return r


def post(srv: Server, path: str = "/api/act", body: bytes | None = None, *, token: str | None = "ok",
         headers: dict[str, str] | None = None, extra: bytes = b"", length: str | None = "auto",
         host: str | None = None) -> bytes:
    """A POST as the page sends it (its token, its origin, JSON), less or plus what a test
    says: ``token`` None sends none; ``headers`` a value None leaves that header out."""
    if body is None:
        body = json.dumps({"choice": 1, "moves": state(srv)["moves"]}).encode()
    h = {"Host": srv.host if host is None else host, "Content-Type": "application/json", "Origin": srv.origin,
         "Sec-Fetch-Site": "same-origin", "X-Shanghai-Token": srv.token if token == "ok" else token}
    if length == "auto":
        h["Content-Length"] = str(len(body))
    elif length is not None:
        h["Content-Length"] = length
    h.update(headers or {})
    head = "".join(f"{k}: {v}\r\n" for k, v in h.items() if v is not None)
    return exchange(srv, f"POST {path} HTTP/1.1\r\n{head}\r\n".encode() + body + extra)


def state(srv: Server) -> dict:
    status, _, body = get(srv, "/api/state")
    assert status == 200
    return json.loads(body)


def snapshot(srv: Server) -> tuple:
    """What a request must not change: the game's state, its log as served and as saved."""
    st = state(srv)
    assert st["busy"] is None
    return st, get(srv, "/log.jsonl")[2], srv.log.read_bytes(), srv.err()


def refused(srv: Server, raw: bytes, status: int) -> dict:
    """One response of ``status`` that closes the connection (nothing else answered)."""
    rs = responses(raw)
    assert [r[0] for r in rs] == [status], raw[:300]
    assert rs[0][1].get("connection") == "close"
    try:
        return json.loads(rs[0][2])
    except ValueError:
        return {}


@pytest.fixture
def unchanged(srv):
    """The game, its log and the server's stderr are the same after the test as before."""
    before = snapshot(srv)
    yield
    after = snapshot(srv)
    assert after == before
    assert "Traceback" not in after[3]


# ---------------------------------------------------------------- cross-site and token

EVIL = "http://evil.example"


def _origin_cases():
    # (name, headers over the page's own, token) -> 403
    return [
        ("the issue's attack: evil origin, text/plain, no token",
         {"Origin": EVIL, "Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"}, None),
        ("evil origin with the right token", {"Origin": EVIL}, "ok"),
        ("null origin", {"Origin": "null"}, "ok"),
        ("https instead of http", {"Origin": "https://{host}"}, "ok"),
        ("another port", {"Origin": "http://127.0.0.1:{other}"}, "ok"),
        ("a look-alike host", {"Origin": "http://127.0.0.1.evil.example:{port}"}, "ok"),
        ("a port with a tail", {"Origin": "http://{host}.evil.example"}, "ok"),
        ("user info", {"Origin": "http://{host}@evil.example"}, "ok"),
        ("origin with a path", {"Origin": "http://{host}/x"}, "ok"),
        ("Sec-Fetch-Site cross-site", {"Sec-Fetch-Site": "cross-site"}, "ok"),
        ("Sec-Fetch-Site same-site", {"Sec-Fetch-Site": "same-site"}, "ok"),
        ("no Origin, an evil Referer", {"Origin": None, "Referer": EVIL + "/page"}, "ok"),
        ("no Origin, a Referer of another port", {"Origin": None, "Referer": "http://127.0.0.1:{other}/"}, "ok"),
        ("no Origin, a Referer with user info", {"Origin": None, "Referer": "http://{host}@evil.example/"}, "ok"),
        ("no token", {}, None),
        ("an empty token", {}, ""),
        ("a wrong token", {}, "wrong"),
        ("the token with one letter changed", {}, "flip"),
        ("the token of another game", {}, "other"),
    ]


@pytest.mark.parametrize("name, headers, token", _origin_cases(), ids=[c[0] for c in _origin_cases()])
def test_cross_site_and_token_refused(servers, unchanged, name, headers, token):
    srv, other = servers
    fill = {"host": srv.host, "port": srv.port, "other": srv.port + 1 if srv.port < 65535 else 1}
    headers = {k: v.format(**fill) if v else v for k, v in headers.items()}
    if token == "flip":
        token = ("A" if srv.token[0] != "A" else "B") + srv.token[1:]
    elif token == "other":
        token = other.token
    reply = refused(srv, post(srv, token=token, headers=headers), 403)
    assert reply["error"]


def test_the_pages_own_requests_pass(srv):
    """The checks let the page's own requests through: its Origin, no Origin at all (an old
    browser), its Referer, localhost for 127.0.0.1; a command that changes nothing."""
    for headers in ({}, {"Origin": None, "Sec-Fetch-Site": None}, {"Origin": None, "Referer": srv.origin + "/"},
                    {"Origin": f"http://localhost:{srv.port}"}):
        moves = state(srv)["moves"]
        (r,) = responses(post(srv, body=json.dumps({"line": "help", "moves": moves}).encode(),
                              headers={"Connection": "close", **headers}))
        assert r[0] == 200 and json.loads(r[2])["applied"] is False


# ---------------------------------------------------------------- Host

@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:{other}", "", "127.0.0.1:{port}:1",
                                  "localhost.evil.example:{port}"])
def test_wrong_host_refused(srv, unchanged, host):
    host = host.format(port=srv.port, other=srv.port + 1)
    refused(srv, post(srv, host=host), 403)
    refused(srv, exchange(srv, f"GET /api/state HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()), 403)


def test_no_host_and_two_hosts_refused(srv, unchanged):
    refused(srv, exchange(srv, b"GET /api/state HTTP/1.1\r\n\r\n"), 403)
    raw = exchange(srv, f"GET /log.jsonl HTTP/1.1\r\nHost: {srv.host}\r\nHost: evil.example\r\n\r\n".encode())
    refused(srv, raw, 403)


def test_all_addresses_still_check_the_host(servers):
    """--host 0.0.0.0: the Host check stays on; the server's own names and the address a
    client reached it at pass, any other name gets 403."""
    _, b = servers
    before = snapshot(b)
    assert get(b, "/api/state")[0] == 200
    assert get(b, "/api/state", host=f"localhost:{b.port}")[0] == 200
    assert get(b, "/api/state", host=f"evil.example:{b.port}")[0] == 403
    assert get(b, "/api/state", host=f"10.11.12.13:{b.port}")[0] == 403   # not the address reached
    assert get(b, "/log.jsonl", host=f"evil.example:{b.port}")[0] == 403
    refused(b, post(b, host=f"evil.example:{b.port}"), 403)
    refused(b, post(b, host=f"10.11.12.13:{b.port}", headers={"Origin": f"http://10.11.12.13:{b.port}"}), 403)
    assert snapshot(b) == before


# ---------------------------------------------------------------- bodies

def _body_cases():
    # (name, body, Content-Length header (auto: the body's), other headers, status)
    act = b'{"choice": 1, "moves": 0}'
    return [
        ("Content-Length -1", act, "-1", {}, 400),
        ("no Content-Length", act, None, {}, 411),
        ("a huge Content-Length", b"", "10000000000", {}, 413),
        ("a Content-Length over the limit", b"", "70000", {}, 413),
        ("Content-Length not a number", act, "abc", {}, 400),
        ("Content-Length with a sign", act, "+25", {}, 400),
        ("Content-Length in Arabic digits", act, "\u0662\u0665", {}, 400),
        ("two Content-Lengths", act, "auto", {"Content-Length ": "5"}, 400),
        ("chunked", b"5\r\nhello\r\n0\r\n\r\n", None, {"Transfer-Encoding": "chunked"}, 411),
        ("text/plain", act, "auto", {"Content-Type": "text/plain"}, 415),
        ("a form", b"choice=1", "auto", {"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ("60,000 [", b"[" * 60000, "auto", {}, 413),
        ("100k nested JSON", b'{"a":' * 100000 + b"1" + b"}" * 100000, "auto", {}, 413),
        ("5,000 [ (under the size limit)", b"[" * 5000, "auto", {}, 400),
        ("nested objects", b'{"choice": 1, "moves": 0, "x": ' + b'{"a": ' * 20 + b"1" + b"}" * 21, "auto", {}, 400),
        ("not JSON", b"choice one", "auto", {}, 400),
        ("bad UTF-8", b'{"line": "\xff\xfe"}', "auto", {}, 400),
        ("a JSON array", b"[1]", "auto", {}, 400),
        ("a JSON string", b'"quit"', "auto", {}, 400),
        ("an empty body", b"", "auto", {}, 400),
        ("no moves", b'{"choice": 1}', "auto", {}, 400),
        ("moves as text", b'{"choice": 1, "moves": "0"}', "auto", {}, 400),
        ("moves true", b'{"choice": 1, "moves": true}', "auto", {}, 400),
        ("choice as a command", b'{"choice": "quit", "moves": 0}', "auto", {}, 400),
        ("choice true", b'{"choice": true, "moves": 0}', "auto", {}, 400),
        ("line not text", b'{"line": ["quit"], "moves": 0}', "auto", {}, 400),
    ]


@pytest.mark.parametrize("name, body, length, headers, status", _body_cases(), ids=[c[0] for c in _body_cases()])
def test_bad_bodies_refused_before_anything(srv, unchanged, name, body, length, headers, status):
    if b'"moves": 0' in body:      # the right count, so that only the body is wrong
        body = body.replace(b'"moves": 0', f'"moves": {state(srv)["moves"]}'.encode())
    if "Content-Length " in headers:     # a second Content-Length header (a dict has one key)
        headers = {"Content-Length": f"{len(body)}\r\nContent-Length: 5"}
    reply = refused(srv, post(srv, body=body, length=length, headers=headers), status)
    assert reply.get("error")


@pytest.mark.parametrize("endpoint", ["/api/act", "/api/hint"])
def test_stale_state_409(srv, unchanged, endpoint):
    """An action chosen at a state the game has left (a stale tab): 409, with the current
    count, and nothing played."""
    moves = state(srv)["moves"]
    for stale in (moves + 1, moves - 1, 10 ** 30):
        raw = post(srv, endpoint, body=json.dumps({"choice": 1, "moves": stale}).encode(),
                   headers={"Connection": "close"})
        (r,) = responses(raw)
        assert r[0] == 409 and json.loads(r[2])["stale"] and json.loads(r[2])["moves"] == moves


# ---------------------------------------------------------------- smuggling

SMUGGLED = "GET /smuggled HTTP/1.1\r\nHost: {host}\r\n\r\n"


@pytest.mark.parametrize("case", ["no token", "wrong host", "too large", "evil origin", "not JSON",
                                  "a GET with a body"])
def test_a_refused_body_is_never_read_as_a_request(srv, unchanged, case):
    """The issue's 70 kB body holding GET /smuggled: one answer, then the connection closes;
    the smuggled request is never answered (no 404 'no page /smuggled')."""
    sm = SMUGGLED.format(host=srv.host).encode()
    if case == "a GET with a body":
        raw = exchange(srv, f"GET /api/state HTTP/1.1\r\nHost: {srv.host}\r\nContent-Length: {len(sm)}\r\n\r\n"
                       .encode() + sm)
        rs = responses(raw)
        assert [r[0] for r in rs] == [200] and rs[0][1]["connection"] == "close"
        return
    body = {"too large": b"x" * 70000 + sm, "not JSON": sm}.get(case, sm)
    kw = {"no token": {"token": None}, "wrong host": {"host": "evil.example"},
          "evil origin": {"headers": {"Origin": EVIL}}}.get(case, {})
    raw = post(srv, body=body, **kw)
    status = {"too large": 413, "not JSON": 400}.get(case, 403)
    refused(srv, raw, status)
    assert b"smuggled" not in raw


def test_pipelined_requests_after_a_refusal_are_dropped(srv, unchanged):
    """A refusal in a pipeline: the requests after it are not answered."""
    req = f"GET /api/state HTTP/1.1\r\nHost: {srv.host}\r\n\r\n".encode()
    bad = b"PUT /api/act HTTP/1.1\r\nHost: " + srv.host.encode() + b"\r\nContent-Length: 0\r\n\r\n"
    rs = responses(exchange(srv, req + bad + req + SMUGGLED.format(host=srv.host).encode()))
    assert [r[0] for r in rs] == [200, 405]


# ---------------------------------------------------------------- slow and vanishing clients

def _slow(srv: Server, first: bytes, drip: bytes, every: float = 0.2, limit: float = 12.0):
    """Send ``first``, then ``drip`` a byte at a time every ``every`` seconds until the server
    closes the connection; (seconds it took, what came back)."""
    s = socket.create_connection(("127.0.0.1", srv.port))
    t0 = time.monotonic()
    got = b""
    try:
        s.sendall(first)
        s.settimeout(every)
        for k in range(int(limit / every)):
            try:
                s.send(drip[k % len(drip):k % len(drip) + 1])
            except (BrokenPipeError, ConnectionResetError):
                break
            try:
                chunk = s.recv(4096)
            except socket.timeout:
                continue
            except ConnectionResetError:
                break
            got += chunk
            if not chunk:
                break
    finally:
        s.close()
    return time.monotonic() - t0, got


def test_slow_headers_cut_off(srv, unchanged):
    """Slowloris: headers a byte every 0.2 s; the server closes within its timeout."""
    took, got = _slow(srv, f"GET /api/state HTTP/1.1\r\nHost: {srv.host}\r\n".encode(), b"X-Slow: aaaaaa\r\n")
    assert TIMEOUT * 0.8 <= took <= TIMEOUT + SLACK, took
    assert b"HTTP/1.1 200" not in got


def test_slow_request_line_cut_off(srv, unchanged):
    took, got = _slow(srv, b"G", b"ET /api/state HTTP/1.1")
    assert TIMEOUT * 0.8 <= took <= TIMEOUT + SLACK, took
    assert b"HTTP/1.1 200" not in got


def test_slow_body_408(srv, unchanged):
    """A body a byte every 0.2 s (a Content-Length of 200): 408 within the timeout, nothing played."""
    moves = state(srv)["moves"]
    head = (f"POST /api/act HTTP/1.1\r\nHost: {srv.host}\r\nOrigin: {srv.origin}\r\nX-Shanghai-Token: {srv.token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n").encode()
    took, got = _slow(srv, head, (json.dumps({"choice": 1, "moves": moves}) + " " * 200).encode())
    assert took <= TIMEOUT + SLACK, took
    refused(srv, got, 408)


def test_an_idle_connection_is_closed(srv, unchanged):
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.settimeout(TIMEOUT + SLACK)
    t0 = time.monotonic()
    try:
        assert s.recv(10) == b""
    finally:
        s.close()
    assert time.monotonic() - t0 <= TIMEOUT + SLACK


@pytest.mark.parametrize("path", ["/replay.html", "/log.jsonl", "/", "/api/state"])
def test_a_client_that_hangs_up_is_no_traceback(srv, unchanged, path):
    """The client sends its request and goes (a reset, not a polite close) before the answer."""
    for _ in range(3):
        s = socket.create_connection(("127.0.0.1", srv.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {srv.host}\r\n\r\n".encode())
        s.close()
    half = socket.create_connection(("127.0.0.1", srv.port))
    half.sendall(f"POST /api/act HTTP/1.1\r\nHost: {srv.host}\r\nContent-Length: 100\r\n".encode())
    half.close()
    time.sleep(0.3)        # the server's threads meet the closed sockets


# ---------------------------------------------------------------- methods and paths

@pytest.mark.parametrize("request_line, status", [
    ("PUT /api/act HTTP/1.1", 405),
    ("DELETE / HTTP/1.1", 405),
    ("PATCH /api/act HTTP/1.1", 405),
    ("OPTIONS /api/act HTTP/1.1", 405),
    ("TRACE / HTTP/1.1", 405),
    ("FROB /api/act HTTP/1.1", 501),
    ("GET /../../etc/passwd HTTP/1.1", 404),
    ("GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1", 404),
    ("GET //etc/passwd HTTP/1.1", 404),
    ("GET /play.js HTTP/1.1", 404),
    ("GET /log.jsonl/../../../../etc/passwd HTTP/1.1", 404),
    ("POST /api/act/../hint HTTP/1.1", 404),
    ("POST /api/state HTTP/1.1", 404),
    ("GET / HTTP/9.9", 505),
    ("GET /" + "a" * 70000 + " HTTP/1.1", 414),
    ("garbage", 400),
])
def test_methods_and_paths(srv, unchanged, request_line, status):
    """Wrong methods, paths that try to climb out, a bad request line: refused, and a CORS
    preflight gets no permission."""
    head = f"{request_line}\r\nHost: {srv.host}\r\nOrigin: {EVIL}\r\nAccess-Control-Request-Method: POST\r\n"
    if request_line.startswith("POST"):
        head += f"X-Shanghai-Token: {srv.token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        head = head.replace(f"Origin: {EVIL}", f"Origin: {srv.origin}")
    raw = exchange(srv, (head + "\r\n").encode() + (b"{}" if request_line.startswith("POST") else b""))
    rs = responses(raw)
    assert [r[0] for r in rs] == [status]
    assert not any(k.startswith("access-control-") for k in rs[0][1])
    assert rs[0][1].get("connection") == "close"


def test_too_many_headers(srv, unchanged):
    hs = "".join(f"X-{k}: {k}\r\n" for k in range(200))
    raw = exchange(srv, f"GET / HTTP/1.1\r\nHost: {srv.host}\r\n{hs}\r\n".encode())
    assert [r[0] for r in responses(raw)] == [431]


# ---------------------------------------------------------------- a finished game's token

def test_a_finished_games_token_no_longer_plays(servers):
    """The page quits (its own, legitimate request); the same token then plays nothing: 403,
    the game stopped as it was."""
    _, b = servers
    moves = state(b)["moves"]
    (r,) = responses(post(b, body=json.dumps({"line": "quit", "moves": moves}).encode(),
                          headers={"Connection": "close"}))
    assert r[0] == 200 and json.loads(r[2])["applied"]
    before = snapshot(b)
    assert before[0]["stopped"] == "quit"
    for body in ({"choice": 1, "moves": moves + 1}, {"line": "quit", "moves": moves + 1},
                 {"choice": 1, "moves": moves}):
        reply = refused(b, post(b, body=json.dumps(body).encode()), 403)
        assert "over" in reply["error"]
    refused(b, post(b, "/api/hint", body=json.dumps({"moves": moves + 1}).encode()), 403)
    assert snapshot(b) == before
    # the stopped game's log is still the seat view: the bots' hands are not shown
    head = json.loads(get(b, "/log.jsonl")[2].decode().splitlines()[0])
    assert head["view"] == 0
    assert re.search(r'"deal","hand":1,"seat":1,"cards":\["\?\?"', get(b, "/log.jsonl")[2].decode())
