"""The pages in a real browser (headless Chromium; tests/browser_support.py): ``replay --html``
stepped through a whole game, and a game played at ``serve`` by clicking the hint's action
each turn, its saved log read back. Screenshots go to pytest's temporary folder."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser_support import HINTED, SETTLED, chrome, console_errors, local, missing, requests
from shanghai_sim.cli.main import main
from shanghai_sim.game import game_events
from shanghai_sim.kernels.base.records import HF_CARDS_LEFT, HF_JOKERS_LEFT

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))

ROLLOUT = "rollout:rollouts=8:race=0,smart,smart,smart"
SHORT = ('contracts=["set3 set3", "run4 run4"]',)       # a two-hand game for the quick play test


@pytest.fixture(scope="module")
def driver():
    d = chrome()
    d.set_script_timeout(600)      # stepping a long replay on a loaded machine takes its time
    yield d
    d.quit()


@pytest.fixture
def clean(driver):
    """The browser with its logs emptied; after the test, no console error and no request
    beyond this machine."""
    console_errors(driver)
    requests(driver)
    yield driver
    assert console_errors(driver) == []
    far = [u for u in requests(driver) if not local(u)]
    assert far == []


def reference_hands(events, players):
    """Each seat's cards after each event, rebuilt here from the log (independently of the page)."""
    hands = [Counter() for _ in range(players)]
    out = []
    for e in events:
        ev, q = e["event"], e.get("seat")
        if ev == "hand":
            hands = [Counter() for _ in range(players)]
        elif ev == "deal":
            hands[q] = Counter(e["cards"])
        elif ev == "draw":
            hands[q][e["card"]] += 1
        elif ev == "buy":
            hands[q].update([e["card"]] + e["penalty"])
        elif ev == "go_down":
            hands[q].subtract(c for m in e["melds"] for c in m["cards"])
        elif ev in ("layoff", "discard"):
            hands[q][e["card"]] -= 1
        elif ev == "swap":
            hands[q][e["card"]] -= 1
            hands[q]["JK"] += 1
        out.append([sorted((+h).elements()) for h in hands])
    return out


STEP_ALL = """
const keys = arguments[0], home = arguments[1], out = [];
function snap() {
  const hands = [];
  document.querySelectorAll('.seat .cards').forEach(function (h) {
    hands.push(Array.from(h.querySelectorAll('.card')).map(function (c) { return c.dataset.card || '?'; }));
  });
  return {event: Number(document.body.dataset.event), hands: hands,
          stock: document.getElementById('stock').dataset.count,
          upcard: document.getElementById('upcard').dataset.card,
          totals: Array.from(document.querySelectorAll('#totals td[data-seat]')).map(function (t) { return Number(t.textContent); })};
}
if (home) {
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Home', bubbles: true}));
  out.push(snap());
}
for (let k = 0; k < keys; k++) {
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  out.push(snap());
}
return out;
"""


def step_all(d, keys: int, chunk: int = 100) -> list:
    """The page at its first event and after each of ``keys`` presses of the right arrow, in
    calls of ``chunk`` steps (one long call outlasts the driver's read timeout on a loaded
    machine)."""
    snaps = d.execute_script(STEP_ALL, min(chunk, keys), True)
    while len(snaps) <= keys:
        snaps += d.execute_script(STEP_ALL, min(chunk, keys + 1 - len(snaps)), False)
    return snaps


def test_replay_page_steps_through_the_game(tmp_path, clean):
    """The issue's example: the page of a rollout game opens with no console error; stepping
    by key through every event shows each hand's cards as the log has them, and the end shows
    the log's final scores."""
    page = tmp_path / "g.html"
    r = CliRunner().invoke(main, ["replay", "--seed", "42", "--bots", ROLLOUT, "--html", str(page)])
    assert r.exit_code == 0, r.output
    events, records = game_events("shanghai", 4, 42, ROLLOUT)
    embedded = json.loads(page.read_text().split('id="game-data">', 1)[1].split("</script>", 1)[0]
                          .replace("<\\/", "</"))
    assert embedded["events"] == events         # the very events of replay --json
    d = clean
    d.get(page.as_uri())
    d.save_screenshot(str(tmp_path / "replay-open.png"))
    snaps = step_all(d, len(events) - 1)
    assert [s["event"] for s in snaps] == list(range(len(events)))
    ref = reference_hands(events, 4)
    hand_no = 0
    for i, (e, s) in enumerate(zip(events, snaps)):
        assert [sorted(h) for h in s["hands"]] == ref[i], f"event {i}: {e}"
        if e["event"] == "deal":
            assert sorted(s["hands"][e["seat"]]) == sorted(e["cards"])
        if e["event"] == "discard":
            assert s["upcard"] == e["card"]
        if e["event"] == "hand_end":
            for q in range(4):      # the engine's own count of what each seat was left with
                assert len(s["hands"][q]) == records[hand_no, q, HF_CARDS_LEFT]
                assert s["hands"][q].count("JK") == records[hand_no, q, HF_JOKERS_LEFT]
            assert s["totals"] == e["totals"]
            hand_no += 1
    assert hand_no == len(records) == 10
    final = events[-1]
    assert final["event"] == "game_end" and snaps[-1]["totals"] == final["totals"]
    assert "Game over" in d.find_element("id", "result").text
    d.save_screenshot(str(tmp_path / "replay-end.png"))


def test_replay_page_buttons_keys_views_and_search(tmp_path, clean):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    events, _ = game_events("shanghai", 4, 7, ROLLOUT)
    from shanghai_sim.web.replay import replay_page
    page = tmp_path / "r.html"
    page.write_text(replay_page(events, seats=ROLLOUT.split(","), seed=7))
    d = clean
    d.get(page.as_uri())
    body = d.find_element(By.TAG_NAME, "body")
    at = lambda: int(body.get_attribute("data-event"))     # noqa: E731
    first_up = next(i for i, e in enumerate(events) if e["event"] == "upcard")
    assert at() == first_up                     # opens on the first hand, dealt
    d.find_element(By.ID, "next").click()
    assert at() == first_up + 1
    d.find_element(By.ID, "back").click()
    assert at() == first_up
    d.find_element(By.ID, "turn-next").click()
    assert events[at()]["event"] == "discard"
    body.send_keys(Keys.ARROW_DOWN)
    assert events[at()]["event"] in ("discard", "hand_end")
    body.send_keys(Keys.PAGE_DOWN)
    assert events[at()]["event"] == "upcard" and events[at()]["hand"] == 2
    body.send_keys(Keys.END)
    assert at() == len(events) - 1
    body.send_keys(Keys.HOME)
    assert at() == 0
    Select(d.find_element(By.ID, "jump")).select_by_value("5")
    assert events[at()]["event"] == "upcard" and events[at()]["hand"] == 5
    # one seat's view: its own cards, the others' as backs
    Select(d.find_element(By.ID, "view")).select_by_value("2")
    shown = [h.get_attribute("data-shown") for h in d.find_elements(By.CSS_SELECTOR, ".seat .cards")]
    assert shown == ["0", "0", "1", "0"]
    log = d.find_element(By.ID, "log").text       # and the others' deals as counts
    deal0 = next(e for e in events if e["event"] == "deal" and e["hand"] == 5 and e["seat"] == 0)
    assert f"deal seat 0: {len(deal0['cards'])} cards" in log and " ".join(deal0["cards"]) not in log
    deal2 = next(e for e in events if e["event"] == "deal" and e["hand"] == 5 and e["seat"] == 2)
    assert " ".join(deal2["cards"]) in log
    Select(d.find_element(By.ID, "view")).select_by_value("all")
    # the search's reasoning at a searched decision
    k = next(i for i, e in enumerate(events) if e["event"] == "search" and len(e["candidates"]) > 1)
    d.get(page.as_uri() + f"#event={k + 1}")
    assert at() == k
    rows = d.find_elements(By.CSS_SELECTOR, "#search tr")[1:]
    e = events[k]
    assert len(rows) == len(e["candidates"])
    for c, row in zip(e["candidates"], rows):
        cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
        assert cells[0].startswith(c["action"])
        assert float(cells[1]) == pytest.approx(c["mean"], abs=0.005)
        assert int(cells[2]) == e["rollouts"]
    chosen = d.find_elements(By.CSS_SELECTOR, "#search tr.chosen")
    assert len(chosen) == 1 and chosen[0] == rows[e["chosen"]]
    other = (e["seat"] + 1) % 4        # another seat's view: the candidates name cards it cannot see
    Select(d.find_element(By.ID, "view")).select_by_value(str(other))
    assert d.find_elements(By.CSS_SELECTOR, "#search tr") == []
    assert "hidden in seat" in d.find_element(By.ID, "search").text
    d.save_screenshot(str(tmp_path / "replay-search.png"))


# ---------------------------------------------------------------- serve

def _serve(tmp_path, rule_items=(), bots="greedy", seed="5", players=None, seat="0"):
    from shanghai_sim.cli.play_cmds import human_game
    from shanghai_sim.web.serve import make_server
    s, make = human_game("shanghai", rule_items, players, bots, seat, seed, later=True)
    log = tmp_path / "game.jsonl"
    srv = make_server(make, "127.0.0.1", 0, log_path=str(log), seed=s)
    srv.session.start()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, log


MOVED = """
const target = Number(arguments[0]), done = arguments[arguments.length - 1];
(function wait() {
  const b = document.body;
  if (window.S && S.moves >= target && ['turn', 'over', 'stopped', 'hand_end'].indexOf(b.dataset.state) >= 0)
    done([b.dataset.state, Number(b.dataset.drawn)]);
  else if (b.dataset.state === 'error') done(['error', 0]);
  else setTimeout(wait, 5);
})();
"""


def play_by_hints(d, url, shots: Path | None = None, pauses: list | None = None):
    """Click Hint, then the hinted action, until the game ends; (final state, clicks). At a
    hand's end (the pause) click "Next hand", and note the hand's result in ``pauses``."""
    from selenium.webdriver.common.by import By
    d.set_script_timeout(600)
    d.get(url)
    state, drawn = d.execute_async_script(SETTLED, 0)
    clicks = 0
    while state in ("turn", "hand_end"):
        if state == "hand_end":
            if pauses is not None:
                pauses.append(d.find_element(By.ID, "hand-result").text)
            d.find_element(By.ID, "next-hand").click()
            state, drawn = d.execute_async_script(SETTLED, drawn)
            continue
        d.find_element(By.ID, "hint").click()
        n, drawn = d.execute_async_script(HINTED)     # the hint's drawing of the table
        if shots is not None and clicks == 12:
            d.save_screenshot(str(shots / "serve-hint.png"))
        d.find_element(By.CSS_SELECTOR, f'#actions button[data-n="{n}"]').click()
        clicks += 1
        state, drawn = d.execute_async_script(SETTLED, drawn)
    return state, clicks


def _log_totals(log: Path) -> list[int]:
    r = CliRunner().invoke(main, ["replay", "--log", str(log), "--json"])
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in r.output.splitlines()][-1]["totals"]


def test_serve_plays_a_short_game_by_hints(tmp_path, clean):
    """A two-hand game at the served page, each of the person's decisions the hint's action
    clicked; the saved log replays to the totals the page shows, and draws as a replay page."""
    from selenium.webdriver.common.by import By
    srv, log = _serve(tmp_path, SHORT)
    try:
        pauses = []
        state, clicks = play_by_hints(clean, srv.url, tmp_path, pauses)
        assert state == "over" and clicks > 10
        assert len(pauses) == 1 and ("went out" in pauses[0] or "Nobody" in pauses[0])    # hand 1's end
        shown = [int(td.text) for td in clean.find_elements(By.CSS_SELECTOR, "#totals td[data-seat]")]
        clean.save_screenshot(str(tmp_path / "serve-over.png"))
        assert "Game over" in clean.find_element(By.ID, "result").text
        assert _log_totals(log) == shown == srv.session.hg.game.totals()
        r = CliRunner().invoke(main, ["replay", "--log", str(log), "--html", str(tmp_path / "p.html")])
        assert r.exit_code == 0, r.output
        clean.get((tmp_path / "p.html").as_uri())
        clean.find_element(By.ID, "last").click()
        assert [int(td.text) for td in clean.find_elements(By.CSS_SELECTOR, "#totals td[data-seat]")] == shown
        clean.get(srv.url + "replay.html")        # the same page, from the server
        clean.find_element(By.ID, "last").click()
        assert [int(td.text) for td in clean.find_elements(By.CSS_SELECTOR, "#totals td[data-seat]")] == shown
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.mark.slow
def test_serve_plays_a_full_game_by_hints(tmp_path, clean):
    """The issue's test: a full game of shanghai (ten hands, four players) played at the
    served page by clicks; the saved log replays to the same scores."""
    from selenium.webdriver.common.by import By
    srv, log = _serve(tmp_path)
    try:
        state, clicks = play_by_hints(clean, srv.url)
        assert state == "over"
        shown = [int(td.text) for td in clean.find_elements(By.CSS_SELECTOR, "#totals td[data-seat]")]
        assert _log_totals(log) == shown == srv.session.hg.game.totals()
        assert len(srv.session.hg.rules.contracts) == 10
    finally:
        srv.shutdown()
        srv.server_close()


def test_serve_cards_typed_lines_and_reasons(tmp_path, clean):
    """Clicking a card lights its actions, a second click discards it; a typed line goes through
    play's parser, with the terminal's one-line reasons."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from shanghai_sim.human import HumanGame
    srv, log = _serve(tmp_path, SHORT, seed="11")
    d = clean
    try:
        d.set_script_timeout(600)      # a cold cache compiles the hint (smart) on first use
        d.get(srv.url)
        state, drawn = d.execute_async_script(SETTLED, 0)
        # a line that names no legal action: the terminal's reason, word for word
        said = []
        terminal = HumanGame("shanghai", 4, 0, "greedy", 11, read=lambda p: "", write=said.append)
        terminal.advance()
        for line in ("discard ZZ", "layoff 7C", "frobnicate", "9"):
            said.clear()
            assert terminal.submit(line) is False
            box = d.find_element(By.ID, "cmd")
            box.send_keys(line + Keys.ENTER)
            state, drawn = d.execute_async_script(SETTLED, drawn)
            assert d.find_element(By.ID, "answer").text == "\n".join(said)
        # play on by the hint until a discard is legal, then discard by two clicks on a card
        while True:
            kinds = [b.get_attribute("data-kind") for b in d.find_elements(By.CSS_SELECTOR, "#actions button")]
            if "discard" in kinds:
                break
            d.find_element(By.CSS_SELECTOR, "#actions button").click()
            state, drawn = d.execute_async_script(SETTLED, drawn)
        card = d.find_element(By.CSS_SELECTOR, "#hand-0 .card.pick")
        name = card.get_attribute("data-card")
        card.click()
        lit = d.find_elements(By.CSS_SELECTOR, "#actions button.forcard")
        assert lit and all(name in b.text for b in lit)
        moves = srv.session.moves
        d.find_element(By.CSS_SELECTOR, f'#hand-0 .card.sel[data-card="{name}"]').click()
        # the wait is for the server's answer (its moves counter in the state the page drew),
        # not for a redraw: picking the card redrew the page already
        state, drawn = d.execute_async_script(MOVED, moves + 1)
        assert srv.session.moves == moves + 1
        discards = [e for e in srv.session.log_events() if e["event"] == "discard" and e["seat"] == 0]
        assert discards and discards[-1]["card"] == name
        d.find_element(By.ID, "hint").click()
        d.execute_async_script(HINTED)
        assert d.find_element(By.ID, "hint-text").text.startswith("hint from smart")
    finally:
        srv.shutdown()
        srv.server_close()


def _buttons(d):
    from selenium.webdriver.common.by import By
    return [b.get_attribute("title") for b in d.find_elements(By.CSS_SELECTOR, "#actions button[data-n]")]


def test_serve_a_stale_tab_cannot_play(tmp_path, driver):
    """Issue 59: the game open in two windows; one acts; a click in the other, still showing
    the old choices, is refused (409): nothing is played, and that page redraws the current
    choices with the reason."""
    from selenium.webdriver.common.by import By
    srv, log = _serve(tmp_path, SHORT, seed="11")
    d = driver
    console_errors(d)
    first = d.current_window_handle
    try:
        d.get(srv.url)
        d.execute_async_script(SETTLED, 0)
        d.switch_to.new_window("window")
        second = d.current_window_handle
        d.get(srv.url)
        d.execute_async_script(SETTLED, 0)
        old = _buttons(d)
        assert old
        d.switch_to.window(first)             # the first window acts
        moves = srv.session.moves
        d.find_element(By.CSS_SELECTOR, "#actions button[data-n]").click()
        d.execute_async_script(MOVED, moves + 1)
        assert srv.session.moves == moves + 1
        before = srv.session.full_events()
        now = [c["text"] for c in srv.session.state()["choices"]]
        d.switch_to.window(second)            # the second still shows the old choices
        assert _buttons(d) == old
        drawn = int(d.find_element(By.TAG_NAME, "body").get_attribute("data-drawn"))
        d.find_element(By.CSS_SELECTOR, "#actions button[data-n]").click()
        state, _ = d.execute_async_script(SETTLED, drawn)
        assert state == "turn"
        assert "moved on" in d.find_element(By.ID, "answer").text
        assert srv.session.full_events() == before and srv.session.moves == moves + 1
        assert _buttons(d) == now
        errors = console_errors(d)            # the browser reports the refusal, and only it
        assert errors and all("409" in m for m in errors), errors
    finally:
        if d.current_window_handle != first:
            d.close()
        d.switch_to.window(first)
        srv.shutdown()
        srv.server_close()


def test_serve_replay_during_play_is_the_seat_view(tmp_path, clean):
    """Issue 59: the replay page the server gives during play draws the person's seat view:
    the bots' hands as backs at every event (even in the page's "all seats" view), the
    person's own cards shown, the log adding up; the page's source says so."""
    from selenium.webdriver.common.by import By
    srv, log = _serve(tmp_path, SHORT, seed="8")
    d = clean
    try:
        ps = srv.session
        ps.wait()
        for _ in range(10):
            ps.act("1", ps.moves)
            ps.wait()
        assert not ps.state()["over"]
        d.get(srv.url + "replay.html")
        assert "the game goes on" in d.find_element(By.ID, "sub").text
        n = len(ps.log_events())
        snaps = step_all(d, n - 1)
        assert len(snaps) == n
        full = ps.full_events()
        ref = reference_hands(full, 4)
        for i, s in enumerate(snaps):
            assert s["hands"][1:] == [["?"] * len(h) for h in ref[i][1:]], i
            assert sorted(s["hands"][0]) == ref[i][0], i
        assert "does not add up" not in d.find_element(By.ID, "result").text
        assert d.find_element(By.ID, "now").text
    finally:
        srv.shutdown()
        srv.server_close()
