"""The web pages without a browser: replay --html's command line and page, serve's command
line, session and HTTP endpoints (the pages in a browser: tests/test_browser.py)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from click.testing import CliRunner

from shanghai_sim.cli.main import main
from shanghai_sim.game import game_events

SHORT = ('contracts=["set3 set3", "run4 run4"]',)


def _embedded(html: str):
    return json.loads(html.split('id="game-data">', 1)[1].split("</script>", 1)[0].replace("<\\/", "</"))


def test_replay_html_embeds_the_events_and_nothing_remote(tmp_path):
    page = tmp_path / "g.html"
    r = CliRunner().invoke(main, ["replay", "--seed", "3", "--players", "3", "--html", str(page)])
    assert r.exit_code == 0, r.output
    html = page.read_text()
    data = _embedded(html)
    events, _ = game_events("shanghai", 3, 3, "greedy")
    assert data["events"] == events
    assert len(data["lines"]) == len(events)
    assert data["meta"]["players"] == 3 and data["meta"]["seats"] == ["greedy"] * 3
    from shanghai_sim.rules import load_rules
    assert data["meta"]["shoe"] == 108 and data["meta"]["buys"] == list(load_rules("shanghai").buys_per_hand)
    # self-contained: no external script, style, image or link; the policy allows nothing else
    for bad in ("src=", "href=", "http://", "https://", "@import"):
        assert bad not in html.split('id="game-data">', 1)[0], bad
    assert "default-src 'none'" in html
    # --json with --html: the page and the JSON lines both
    r2 = CliRunner().invoke(main, ["replay", "--seed", "3", "--players", "3", "--json", "--html",
                                   str(tmp_path / "h.html")])
    assert [json.loads(x) for x in r2.stdout.splitlines()] == events


def test_replay_html_from_a_saved_log(tmp_path):
    log = tmp_path / "g.jsonl"
    r = CliRunner().invoke(main, ["replay", "--seed", "4", "--json"])
    log.write_text(r.output)
    page = tmp_path / "g.html"
    r = CliRunner().invoke(main, ["replay", "--log", str(log), "--html", str(page)])
    assert r.exit_code == 0, r.output
    data = _embedded(page.read_text())
    assert data["events"] == [json.loads(x) for x in log.read_text().splitlines()]
    assert data["meta"]["shoe"] is None          # a replay --json file does not say the shoe


def test_public_lines_hide_the_other_seats_cards():
    from shanghai_sim.log import format_event, public_line
    search = {"event": "search", "hand": 1, "seat": 1, "decision": "discard", "rollouts": 8,
              "chosen": 0, "candidates": [{"action": "discard 7C", "mean": 5.0},
                                          {"action": "discard KD", "mean": 6.5}]}
    assert public_line(search, 0) == "  seat 1 searches (discard, 8 samples, 2 candidates)"
    assert public_line(search, 1) == format_event(search)
    buy = {"event": "buy", "hand": 1, "seat": 2, "card": "7C", "penalty_due": 2, "penalty": ["AS", "JK"]}
    assert public_line(buy, 0) == "  seat 2 buys 7C + 2 penalty cards"
    assert public_line(buy, 2, " (you)") == "  seat 2 (you) buys 7C + penalty AS JK"
    events, _ = game_events("shanghai", 4, 3, "greedy")
    from shanghai_sim.web.replay import replay_page
    data = _embedded(replay_page(events))
    for q in range(4):
        for k, line in data["hidden"][q].items():
            e = events[int(k)]
            assert e["seat"] != q and line == public_line(e, q) != data["lines"][int(k)]


def test_replay_html_a_markup_card_cannot_end_the_script(tmp_path):
    from shanghai_sim.web.replay import replay_page
    html = replay_page([{"event": "stopped", "hand": 1, "reason": "</script><b>x"}], players=2)
    assert "</script><b>" not in html
    assert _embedded(html)["events"][0]["reason"] == "</script><b>x"


def test_replay_html_errors(tmp_path):
    r = CliRunner().invoke(main, ["replay", "--seed", "1", "--html", str(tmp_path / "no" / "g.html")])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "no folder" in r.output
    r = CliRunner().invoke(main, ["replay", "--seed", "1", "--html", str(tmp_path)])
    assert r.exit_code == 2 and "is a directory" in r.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event": "deal", "hand": 1, "seat": 0}\n')
    r = CliRunner().invoke(main, ["replay", "--log", str(bad), "--html", str(tmp_path / "b.html")])
    # the log check of replay --log speaks first: a deal before its hand line is a log with
    # lines missing
    assert r.exit_code == 2 and "incomplete" in r.output and r.output.count("\n") == 1
    assert not (tmp_path / "b.html").exists()
    from shanghai_sim.web.replay import ReplayError, replay_page
    with pytest.raises(ReplayError, match="lacks fields"):
        replay_page([{"event": "deal", "hand": 1, "seat": 0}], players=2)



# ---------------------------------------------------------------- serve

@pytest.mark.parametrize("args, says", [
    (["--seat", "4"], "seat = 4: must be 0..3"),
    (["--port", "70000"], "port = 70000: must be 0..65535"),
    (["--port", "x"], "port = 'x': expected an integer"),
    (["--bots", "nosuch"], "unknown bot 'nosuch'"),
    (["--players", "9"], "players = 9: must be 2..8"),
    (["--rule", "buy_penalty=-1"], "buy_penalty"),
    (["--log", "/no/such/folder/g.jsonl"], "cannot write the log /no/such/folder/g.jsonl"),
    # a folder that os.access calls writable for root, where nothing can be written
    (["--log", "/proc/shanghai-sim-test.jsonl"], "cannot write the log /proc/shanghai-sim-test.jsonl"),
    # a name longer than a file system takes: the game started and no save ever succeeded
    (["--log", "/tmp/" + "a" * 300 + ".jsonl"], "cannot write the log /tmp/aaaa"),
])
def test_serve_bad_options_one_line(args, says):
    r = CliRunner().invoke(main, ["serve", *args])
    assert r.exit_code == 2, r.output
    assert says in r.output and r.output.count("\n") == 1 and "Traceback" not in r.output


def test_serve_port_in_use_one_line():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        r = CliRunner().invoke(main, ["serve", "--port", str(s.getsockname()[1])])
    finally:
        s.close()
    assert r.exit_code == 2 and "cannot listen on 127.0.0.1:" in r.output and r.output.count("\n") == 1


def _session(tmp_path, seed="5", rules=SHORT):
    from shanghai_sim.cli.play_cmds import human_game
    from shanghai_sim.web.serve import make_server
    s, make = human_game("shanghai", rules, None, "greedy", "0", seed, later=True)
    srv = make_server(make, "127.0.0.1", 0, log_path=str(tmp_path / "g.jsonl"), seed=s)
    return srv


def test_session_plays_to_the_end_as_the_terminal_does(tmp_path):
    """Submitting the hint's number at each decision plays the game that `play` plays when the
    person types the same (the same HumanGame underneath); the log is saved after each turn."""
    from shanghai_sim.human import HumanGame
    srv = _session(tmp_path)
    ps = srv.session
    ps.start()
    ps.wait()
    typed = []
    while True:
        st = ps.state()
        if st["over"]:
            break
        assert st["busy"] is None and st["choices"]
        ps.ask_hint()
        ps.wait()
        k = ps.state()["hint"]["choice"]
        typed.append(str(k))
        status, reply = ps.act(str(k))
        assert status == 200 and reply["applied"], reply
        ps.wait()
        saved = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
        assert saved == ps.log_events()
    feed = iter(typed)
    # the same moves at the terminal, Enter at each hand's end (the pause)
    hg = HumanGame(ps.hg.rules, 4, 0, "greedy", 5, read=lambda p: "" if p.startswith("press Enter") else next(feed),
                   write=lambda t: None)
    assert hg.play() is None
    assert hg.game.totals() == ps.hg.game.totals() == st["table"]["totals"]
    assert hg.log_events() == ps.log_events()
    # and the game that replay --seed plays with the hint's bot in the person's seat
    ref, _ = game_events(ps.hg.rules, 4, 5, ["smart", "greedy", "greedy", "greedy"])
    assert ps.log_events()[1:] == json.loads(json.dumps(ref))
    assert ps.act("1")[0] == 409           # the game is over
    # over: the full log is served and saved; the game's token plays no more
    assert ps.log_events() == ps.full_events()
    assert [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()] == ps.full_events()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        req = urllib.request.Request(srv.url + "api/act", data=json.dumps({"choice": 1, "moves": ps.moves}).encode(),
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "X-Shanghai-Token": ps.token})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req)
        assert e.value.code == 403 and "over" in json.load(e.value)["error"]
        assert "view" not in json.loads(urllib.request.urlopen(srv.url + "log.jsonl").readline())
    finally:
        srv.shutdown()
        srv.server_close()


def _hidden_cards_of_others(events, seat):
    """Every card of another seat that ``seat`` may not see, as (event index, card)."""
    out = []
    for i, e in enumerate(events):
        q = e.get("seat")
        if q is None or q == seat:
            continue
        if e["event"] == "deal":
            out += [(i, c) for c in e["cards"]]
        elif e["event"] == "draw" and e["source"] == "stock":
            out.append((i, e["card"]))
        elif e["event"] == "buy":
            out += [(i, c) for c in e["penalty"]]
    return out


def test_seat_view_hides_the_other_seats_cards():
    from shanghai_sim.log import format_event, public_line, seat_view
    events, _ = game_events("shanghai", 4, 3, "greedy")
    events = [{"event": "game", "human": 0, "players": 4}] + events + [
        {"event": "search", "hand": 10, "seat": 1, "decision": "discard", "rollouts": 8, "chosen": 0,
         "candidates": [{"action": "discard 7C", "mean": 5.0}]},
        {"event": "search", "hand": 10, "seat": 0, "decision": "discard", "rollouts": 8, "chosen": 0,
         "candidates": [{"action": "discard 7C", "mean": 5.0}]}]
    before = json.dumps(events)
    view = seat_view(events, 0)
    assert json.dumps(events) == before                 # the events themselves are not changed
    assert view[0]["view"] == 0
    assert [e["seat"] for e in view if e["event"] == "search"] == [0]
    assert len(view) == len(events) - 1
    hidden = _hidden_cards_of_others(view, 0)
    assert hidden and all(c == "??" for _, c in hidden)
    assert any(c != "??" for _, c in _hidden_cards_of_others(view, 1))      # seat 0's own cards
    # the lines of the view are the seat's public lines (cards as counts), and replay --log's
    # check of a whole log accepts it (the counts add up)
    full = [e for e in events if not (e["event"] == "search" and e["seat"] == 1)]
    for e, v in zip(full[1:], view[1:]):
        assert format_event(v) == public_line(e, 0)
    from cli.game_cmds import _check_log
    assert _check_log(view) is None


def test_served_log_is_the_seat_view_during_play(tmp_path):
    """Issue 59: during play /log.jsonl, /replay.html and the saved --log show no other seat's
    deal, stock draw or penalty card; replay --log reads that log (and draws it); once the
    game is over, all three are the full log."""
    from shanghai_sim.log import seat_view
    srv = _session(tmp_path, seed="8")
    ps = srv.session
    ps.start()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = srv.url
    try:
        ps.wait()
        for _ in range(12):             # a few turns in: stock draws and buys by the bots
            ps.act("1", ps.moves)
            ps.wait()
        full = ps.full_events()
        assert _hidden_cards_of_others(full, 0)
        served = [json.loads(x) for x in urllib.request.urlopen(base + "log.jsonl").read().decode().splitlines()]
        saved = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
        page = _embedded(urllib.request.urlopen(base + "replay.html").read().decode())
        for log in (served, saved, page["events"]):
            assert log == seat_view(full[:len(log)], 0) and log[0]["view"] == 0
            assert all(c == "??" for _, c in _hidden_cards_of_others(log, 0))
        r = CliRunner().invoke(main, ["replay", "--log", str(tmp_path / "g.jsonl")])
        assert r.exit_code == 0, r.output
        assert "deal seat 1: 11 cards" in r.output and "??" not in r.output
        r = CliRunner().invoke(main, ["replay", "--log", str(tmp_path / "g.jsonl"), "--html", str(tmp_path / "v.html")])
        assert r.exit_code == 0, r.output
        # to the end: the full log everywhere
        while not ps.state()["over"]:
            ps.ask_hint(ps.moves)
            ps.wait()
            assert ps.act(str(ps.state()["hint"]["choice"]), ps.moves)[0] == 200
            ps.wait()
        served = [json.loads(x) for x in urllib.request.urlopen(base + "log.jsonl").read().decode().splitlines()]
        assert served == ps.full_events() == [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
        assert "view" not in served[0]
    finally:
        srv.shutdown()
        srv.server_close()


def test_session_refuses_a_stale_action(tmp_path):
    """An action names the moves it was chosen at: one chosen before the game moved on is
    refused (409, the current count) and nothing is played; a hint does not count as a move."""
    srv = _session(tmp_path)
    ps = srv.session
    ps.start()
    ps.wait()
    assert ps.moves == 0 and ps.state()["moves"] == 0
    assert ps.ask_hint(0)[0] == 200
    ps.wait()
    assert ps.moves == 0
    before = ps.full_events()
    code, reply = ps.act("1", 1)
    assert code == 409 and reply["stale"] and reply["moves"] == 0
    assert ps.ask_hint(3)[0] == 409
    assert ps.full_events() == before
    assert ps.act("1", 0)[0] == 200
    ps.wait()
    assert ps.moves == ps.state()["moves"] == 1
    assert ps.act("1", 0)[0] == 409
    srv.server_close()


def test_session_quit_saves_a_stopped_log(tmp_path):
    srv = _session(tmp_path)
    ps = srv.session
    ps.start()
    ps.wait()
    assert ps.act("quit") == (200, {"applied": True,
                                    "answer": ["game stopped (quit) in hand 1; it has no result"]})
    st = ps.state()
    assert st["stopped"] == "quit" and not st["over"] and st["choices"] == []
    assert json.loads((tmp_path / "g.jsonl").read_text().splitlines()[-1])["event"] == "stopped"
    srv.server_close()


def test_session_says_it_is_compiling(tmp_path):
    """While numba compiles, /api/state says so with the elapsed time (numba's compile event:
    a fresh function here, compiled inside the session's first job)."""
    import numba
    from numba.core import event
    from shanghai_sim.web.serve import PlaySession
    seen = []
    ps = None

    class Spy(event.Listener):
        def on_start(self, ev):
            seen.append(ps.state())

        def on_end(self, ev):
            pass

    def make(write):
        numba.njit(lambda x: x + 1)(1)
        time.sleep(0.05)
        raise RuntimeError("no game: this test only compiles")

    ps = PlaySession(make)
    spy = Spy()
    event.register("numba:compile", spy)
    try:
        ps.start()
        ps.wait()
    finally:
        event.unregister("numba:compile", spy)
    assert seen and seen[0]["busy"] == "dealing" and seen[0]["compiling"] is not None
    assert ps.state()["error"] == "dealing failed: RuntimeError: no game: this test only compiles"


def test_http_endpoints_and_host_check(tmp_path):
    srv = _session(tmp_path)
    srv.session.start()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = srv.url
    try:
        srv.session.wait()
        with urllib.request.urlopen(base) as r:
            assert r.headers["Content-Type"].startswith("text/html")
            assert "connect-src 'self'" in r.read().decode()
        st = json.load(urllib.request.urlopen(base + "api/state"))
        assert st["seat"] == 0 and st["table"]["seats"][0]["cards"] and st["table"]["seats"][1]["cards"] is None

        token = _embedded(urllib.request.urlopen(base).read().decode())["token"]
        assert token == srv.session.token and len(token) >= 40

        def post(path, body, host=None, token=token):
            req = urllib.request.Request(base + path, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
            if token:
                req.add_header("X-Shanghai-Token", token)
            if host:
                req.add_header("Host", host)
            try:
                with urllib.request.urlopen(req) as r:
                    return r.status, json.load(r)
            except urllib.error.HTTPError as e:
                return e.code, json.load(e)
        assert post("api/act", b"[1]") == (400, {"error": "expected a JSON object"})
        assert post("api/act", b'{"x": 1, "moves": 0}')[0] == 400
        assert post("api/act", b'{"choice": 1}')[0] == 400          # no "moves": not an action
        code, reply = post("api/act", b'{"line": "discard ZZ", "moves": 0}')
        assert code == 200 and reply["applied"] is False and len(reply["answer"]) == 1
        assert post("api/act", b'{"choice": 1, "moves": 0}', host="evil.example:80")[0] == 403
        assert post("api/act", b'{"choice": 1, "moves": 0}', token=None)[0] == 403
        assert post("api/act", b'{"choice": 1, "moves": 0}', token="x" + token[1:])[0] == 403
        assert post("api/nothing", b"{}")[0] == 404
        code, reply = post("api/act", b'{"choice": 1, "moves": 1}')
        assert code == 409 and reply["stale"] and reply["moves"] == 0
        code, reply = post("api/act", b'{"choice": 1, "moves": 0}')
        assert code == 200 and reply["applied"]
        srv.session.wait()
        assert json.load(urllib.request.urlopen(base + "api/state"))["moves"] == 1
        log = urllib.request.urlopen(base + "log.jsonl").read().decode().splitlines()
        assert json.loads(log[0])["event"] == "game" and json.loads(log[0])["shoe"] == 108
        assert json.loads(log[0])["view"] == 0
        assert "game-data" in urllib.request.urlopen(base + "replay.html").read().decode()
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.mark.parametrize("sig, reason", [("SIGINT", "interrupted"), ("SIGTERM", "terminated"),
                                         ("SIGHUP", "hung up")])
def test_serve_command_serves_and_saves_a_stopped_log_on_ctrl_c(tmp_path, sig, reason):
    """The command itself: it prints the address, serves the page, and Ctrl-C (SIGINT),
    SIGTERM or SIGHUP saves the unfinished game's log with its stopped line, exit status 0.
    Listening on every address (the SIGHUP run), it warns on stderr and still checks Host."""
    import signal
    import subprocess
    import sys
    log = tmp_path / "g.jsonl"
    from pathlib import Path
    exe = Path(sys.executable).with_name("shanghai-sim")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-c", "from shanghai_sim.cli.main import main; main()"]
    wide = ["--host", "0.0.0.0"] if sig == "SIGHUP" else []
    # A shell that starts the tests in the background hands them SIGINT ignored, and a child
    # keeps it ignored: give the server Ctrl-C as a user's terminal does.
    p = subprocess.Popen(cli + ["serve", "--port", "0", *wide,
                          "--seed", "3", "--log", str(log), "--rule", SHORT[0]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = p.stdout.readline()
        assert line.startswith("shanghai-sim serve: seed 3, open http://127.0.0.1:"), line
        url = line.split("open ", 1)[1].split(" ", 1)[0]
        end = time.monotonic() + 300
        while True:
            st = json.load(urllib.request.urlopen(url + "api/state"))
            if st.get("busy") is None or time.monotonic() > end:
                break
            time.sleep(0.1)
        assert st["seed"] == 3 and st["choices"]
        if wide:
            req = urllib.request.Request(url + "api/state", headers={"Host": "evil.example"})
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(req)
            assert e.value.code == 403
        p.send_signal(getattr(signal, sig))
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert f"log saved to {log}" in out and "Traceback" not in err
    assert ("warning: serve listens on 0.0.0.0" in err) == bool(wide), err
    last = json.loads(log.read_text().splitlines()[-1])
    assert last == {"event": "stopped", "hand": 1, "reason": reason}


def test_serve_says_when_its_log_could_not_be_saved(tmp_path):
    """The log's folder removed during the game: stopping, serve does not say 'log saved' (it
    said so whether or not the log was written); one line naming the log, exit status 1."""
    import shutil
    import signal
    import subprocess
    import sys
    from pathlib import Path
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "g.jsonl"
    exe = Path(sys.executable).with_name("shanghai-sim")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-c", "from shanghai_sim.cli.main import main; main()"]
    p = subprocess.Popen(cli + ["serve", "--port", "0", "--seed", "3", "--log", str(log), "--rule", SHORT[0]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = p.stdout.readline()
        url = line.split("open ", 1)[1].split(" ", 1)[0]
        end = time.monotonic() + 300
        while json.load(urllib.request.urlopen(url + "api/state")).get("busy") is not None \
                and time.monotonic() < end:
            time.sleep(0.1)
        assert log.exists()                     # saved after the deal
        shutil.rmtree(folder)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 1, (out, err)
    assert "log saved" not in out and "Traceback" not in err
    assert err.strip().splitlines() == [f"Error: the log was not saved: cannot write the log {log}: "
                                        "No such file or directory"], err


def test_session_one_action_at_a_time(tmp_path):
    """A second post that came in with the first waits for it; it is refused while the bots
    play, and acts only at the person's own next decision: the person never acts for a bot."""
    srv = _session(tmp_path)
    ps = srv.session
    ps.start()
    ps.wait()
    replies = []
    with ps.lock:                   # the first action's job and the second post queue behind this
        replies.append(ps.act("1"))
        t = threading.Thread(target=lambda: replies.append(ps.act("1")))
        t.start()
        time.sleep(0.1)
    t.join()
    ps.wait()
    codes = [int(c) for c, _ in replies]
    assert codes in ([200, 409], [200, 200])
    if codes[1] == 409:
        assert replies[1][1]["error"].startswith("wait: ")
    mine = [e for e in ps.log_events() if e.get("seat") == 0 and e["event"] in
            ("draw", "pass", "buy", "go_down", "layoff", "swap", "discard")]
    assert len(mine) == codes.count(200)
    srv.server_close()
