"""The pages as a card player meets them, in headless Chromium (tests/browser_support.py):
the hand's end is a pause (its result, then "Next hand"), the Help panel explains the page's
words from docs/glossary.md, the replay's search panel says why a lower mean was not chosen,
and an eight-player table fits 1400 x 860 with the seat to act in view (issue 59, item 7)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser_support import HINTED, SETTLED, chrome, console_errors, local, missing, requests
from shanghai_sim.cli.main import main
from shanghai_sim.kernels.base.records import HF_CARDS_LEFT, HF_POINTS

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))

SHORT = ('contracts=["set3 set3", "run4 run4"]',)       # a two-hand game
W, H = 1400, 860
LOGS = Path(__file__).parent / "logs"

RECT = "var r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];"

SCAN = """
const n = arguments[0], w = arguments[1], h = arguments[2], outside = [];
let melds = 0, wide = 0;
for (let k = 0; k < n; k++) {
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  const t = document.querySelector('.seat.turn');
  if (t) {
    const r = t.getBoundingClientRect();
    if (r.top < 0 || r.bottom > h || r.left < 0 || r.right > w)
      outside.push([Number(document.body.dataset.event), r.top, r.bottom]);
  }
  melds = Math.max(melds, document.querySelectorAll('.meld').length);
  wide = Math.max(wide, document.documentElement.scrollWidth);
}
return [outside, melds, wide];
"""


@pytest.fixture(scope="module")
def driver():
    d = chrome(W, H + 140)
    # the page's own viewport exactly 1400 x 860, whatever the window's frame takes
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": W, "height": H, "deviceScaleFactor": 1, "mobile": False})
    d.set_script_timeout(600)
    yield d
    d.quit()


@pytest.fixture
def clean(driver):
    console_errors(driver)
    requests(driver)
    yield driver
    assert console_errors(driver) == []
    assert [u for u in requests(driver) if not local(u)] == []


def _serve(tmp_path, rule_items=(), bots="greedy", seed="5", players=None):
    from shanghai_sim.cli.play_cmds import human_game
    from shanghai_sim.web.serve import make_server
    s, make = human_game("shanghai", rule_items, players, bots, "0", seed, later=True)
    srv = make_server(make, "127.0.0.1", 0, log_path=str(tmp_path / "game.jsonl"), seed=s)
    srv.session.start()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def _close(srv):
    srv.shutdown()
    srv.server_close()


def _hint_click(d, drawn):
    from selenium.webdriver.common.by import By
    d.find_element(By.ID, "hint").click()
    n, drawn = d.execute_async_script(HINTED)
    d.find_element(By.CSS_SELECTOR, f'#actions button[data-n="{n}"]').click()
    return d.execute_async_script(SETTLED, drawn)


def _play_to_the_pause(d, srv) -> int:
    """Open the page and follow the hints to the first hand's end: the pause's drawing number."""
    d.get(srv.url)
    state, drawn = d.execute_async_script(SETTLED, 0)
    while state == "turn":
        state, drawn = _hint_click(d, drawn)
    assert state == "hand_end"
    return drawn


def _in_view(d, element) -> bool:
    left, top, right, bottom = d.execute_script(RECT, element)
    return 0 <= left and right <= W and 0 <= top and bottom <= H


def test_the_hands_end_is_a_pause_with_its_result(tmp_path, clean):
    """Played by hints to the end of hand 1: the page stops there, the next deal hidden, and
    shows who went out, each seat's cards left, points and total (the engine's own records);
    a reload keeps the pause; "Next hand" deals hand 2; the last hand's result shows at the end."""
    from selenium.webdriver.common.by import By
    srv = _serve(tmp_path, SHORT)
    d = clean
    try:
        _play_to_the_pause(d, srv)
        hg = srv.session.hg
        r = hg.hand_results()[0]
        rec = hg.game.records()
        assert d.find_element(By.ID, "handend").is_displayed()
        assert not d.find_element(By.ID, "layout").is_displayed()          # the next deal: not shown
        assert "Hand 1 (set3 set3) is over" in d.find_element(By.ID, "handend").text
        who = d.find_element(By.CSS_SELECTOR, "#hand-result .who").text
        w = r["winner"]
        assert (f"seat {w}" in who or "You went out" in who) if w is not None else "Nobody went out" in who
        rows = d.find_elements(By.CSS_SELECTOR, "#hand-result tr[data-seat]")
        assert len(rows) == 4
        for q, row in enumerate(rows):
            cards = [c.get_attribute("data-card") for c in row.find_elements(By.CSS_SELECTOR, ".card")]
            assert cards == r["left"][q] and len(cards) == rec[0, q, HF_CARDS_LEFT]
            assert int(row.find_element(By.CSS_SELECTOR, "td.pts").text) == r["scores"][q] == rec[0, q, HF_POINTS]
            assert int(row.find_element(By.CSS_SELECTOR, "td.tot").text) == r["totals"][q]
        assert "went out" in rows[w].text if w is not None else True
        assert _in_view(d, d.find_element(By.ID, "next-hand"))
        d.refresh()                                         # a reload keeps the pause
        state, drawn = d.execute_async_script(SETTLED, 0)
        assert state == "hand_end"
        d.find_element(By.ID, "next-hand").click()
        state, drawn = d.execute_async_script(SETTLED, drawn)
        assert state == "turn"
        assert d.find_element(By.ID, "layout").is_displayed()
        assert d.find_element(By.CSS_SELECTOR, "#table-area h2").text.startswith("Hand 2")
        while state == "turn":
            state, drawn = _hint_click(d, drawn)
        assert state == "over"                              # the last hand: no pause, the result
        res = d.find_element(By.ID, "result")
        assert "Game over" in res.text and "the last" in res.text
        last = hg.hand_results()[-1]
        pts = [int(td.text) for td in res.find_elements(By.CSS_SELECTOR, "td.pts")]
        assert pts == last["scores"]
        d.save_screenshot(str(tmp_path / "over.png"))
    finally:
        _close(srv)


def test_the_help_panel_shows_the_glossary(tmp_path, clean):
    """The Help button opens the words of docs/glossary.md's page sections, each with its
    explanation; Escape closes it. The same panel is on the replay page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from shanghai_sim.web import glossary
    want = [e["term"] for e in glossary.page_entries(glossary.SOURCE.read_text(encoding="utf-8"))]
    srv = _serve(tmp_path, SHORT, seed="3")
    d = clean
    try:
        d.get(srv.url)
        state, drawn = d.execute_async_script(SETTLED, 0)
        assert not d.find_element(By.ID, "help").is_displayed()
        d.find_element(By.ID, "help-button").click()
        panel = d.find_element(By.ID, "help")
        assert panel.is_displayed() and _in_view(d, d.find_element(By.ID, "help-close"))
        terms = [t.text for t in panel.find_elements(By.TAG_NAME, "dt")]
        assert terms == want
        assert {"deficiency", "contract", "upcard", "buy", "penalty card", "going down", "lay off",
                "stock", "points", "margin", "z"} <= set(terms)
        dd = panel.find_element(By.ID, "word-deficiency").find_element(By.XPATH, "following-sibling::dd[1]")
        assert "fewest cards" in dd.text
        # the page's own words are among them: the situation line says "deficiency"
        assert "deficiency" in d.find_element(By.ID, "situation").text
        d.save_screenshot(str(tmp_path / "help.png"))
        d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        assert not panel.is_displayed()
    finally:
        _close(srv)
    page = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["replay", "--log", str(LOGS / "schema1_play_s3_p3_rollout.jsonl"),
                                  "--html", str(page)])
    assert r.exit_code == 0, r.output
    d.get(page.as_uri())
    d.find_element(By.ID, "help-button").click()
    assert [t.text for t in d.find_elements(By.CSS_SELECTOR, "#help dt")] == want


def _norm(text: str) -> str:
    return text.replace("\u2212", "-").replace("\u00b7", "*").replace("\u2265", ">=")


def test_the_search_panel_says_why_a_lower_mean_was_not_chosen(tmp_path, clean):
    """At each search of a rollout game (the default race) where smart's choice was kept
    although another candidate's mean is lower, the panel names each candidate's samples,
    diff and se and the rule's reason, as log.search_reasons does; a schema 1 log's panel
    says it lacks them."""
    from selenium.webdriver.common.by import By
    from shanghai_sim.log import search_reasons
    page = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["replay", "--seed", "3", "--bots", "rollout,smart,smart,smart",
                                  "--html", str(page), "--json"])
    assert r.exit_code == 0, r.output
    events = [json.loads(x) for x in r.output.splitlines() if x.startswith("{")]
    puzzling = [i for i, e in enumerate(events) if e["event"] == "search" and e["chosen"] == 0
                and min(c["mean"] for c in e["candidates"]) < e["candidates"][0]["mean"]]
    assert len(puzzling) >= 5
    d = clean
    for k in puzzling[:5]:
        d.get(page.as_uri() + f"#event={k + 1}")
        e = events[k]
        rows = d.find_elements(By.CSS_SELECTOR, "#search tr")[1:]
        assert len(rows) == len(e["candidates"])
        why = search_reasons(e)
        for c, row, reason in zip(e["candidates"], rows, why):
            cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
            assert cells[0].startswith(c["action"])
            assert int(cells[2]) == c["samples"]
            assert _norm(row.find_element(By.CSS_SELECTOR, ".why").text) == reason
        rule = _norm(d.find_element(By.CSS_SELECTOR, "#search .rule").text)
        assert f"-margin (0)" in rule and "z = 2" in rule and f"up to {e['race']}" in rule and "-tie (-20)" in rule
    d.save_screenshot(str(tmp_path / "search.png"))
    old = tmp_path / "old.html"
    r = CliRunner().invoke(main, ["replay", "--log", str(LOGS / "schema1_replay_s7_p3_rollout.jsonl"),
                                  "--html", str(old)])
    assert r.exit_code == 0, r.output
    old_events = [json.loads(x) for x in (LOGS / "schema1_replay_s7_p3_rollout.jsonl").read_text().splitlines()]
    k = next(i for i, e in enumerate(old_events) if e["event"] == "search")
    d.get(old.as_uri() + f"#event={k + 1}")      # the page counts the game line too
    text = d.find_element(By.ID, "search").text
    assert "schema 1" in text and d.find_elements(By.CSS_SELECTOR, "#search .why") == []


def test_eight_players_fit_with_the_seat_to_act_in_view(tmp_path, clean):
    """1400 x 860: the served page of an eight-player game, played a while by hints, keeps the
    person's seat (the one to act) and the actions in view, the page no wider than the window;
    the replay page of a whole eight-player game (hands with up to 21 melds on the table, every
    hand shown face up) keeps the seat to act in view at every one of its 3,000 events."""
    from selenium.webdriver.common.by import By
    srv = _serve(tmp_path, players="8")
    d = clean
    try:
        d.get(srv.url)
        state, drawn = d.execute_async_script(SETTLED, 0)
        for _ in range(25):
            if state == "hand_end":
                d.find_element(By.ID, "next-hand").click()
                state, drawn = d.execute_async_script(SETTLED, drawn)
            if state != "turn":
                break
            turn = d.find_element(By.CSS_SELECTOR, ".seat.turn")
            assert _in_view(d, turn), d.execute_script(RECT, turn)
            assert _in_view(d, d.find_element(By.CSS_SELECTOR, "#actions button"))
            assert d.execute_script("return document.documentElement.scrollWidth") <= W
            state, drawn = _hint_click(d, drawn)
        d.save_screenshot(str(tmp_path / "serve8.png"))
    finally:
        _close(srv)
    page = tmp_path / "r8.html"
    r = CliRunner().invoke(main, ["replay", "--seed", "3", "--players", "8", "--html", str(page), "--json"])
    assert r.exit_code == 0, r.output
    events = [json.loads(x) for x in r.output.splitlines() if x.startswith("{")]
    d.get(page.as_uri() + "#event=0")
    outside, melds, wide = [], 0, 0
    for k in range(0, len(events) - 1, 250):       # in calls of 250 events: each well within the
        o, m, w = d.execute_script(SCAN, min(250, len(events) - 1 - k), W, H)   # driver's timeout
        outside += o
        melds, wide = max(melds, m), max(wide, w)
    assert int(d.find_element(By.TAG_NAME, "body").get_attribute("data-event")) == len(events) - 1
    assert outside == [], outside[:5]              # [event, top, bottom] of the seat to act
    assert melds >= 20 and wide <= W               # up to 21 melds on the table, no sideways scroll
    d.save_screenshot(str(tmp_path / "replay8.png"))


def test_quit_at_the_pause_stops_the_game(tmp_path, clean):
    from selenium.webdriver.common.by import By
    srv = _serve(tmp_path, SHORT, seed="7")
    d = clean
    try:
        drawn = _play_to_the_pause(d, srv)
        d.find_element(By.ID, "pause-quit").click()
        d.switch_to.alert.accept()
        state, drawn = d.execute_async_script(SETTLED, drawn)
        assert state == "stopped" and srv.session.hg.stopped == "quit"
        assert "Game stopped" in d.find_element(By.ID, "result").text
        assert not d.find_element(By.ID, "handend").is_displayed()
    finally:
        _close(srv)
