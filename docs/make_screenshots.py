"""Make the screenshots of docs/browser.md (docs/img/*.png) in headless Chromium.

    python docs/make_screenshots.py [--out docs/img]

replay.png: the replay page of ``shanghai-sim replay --seed 42 --bots
rollout:rollouts=8,smart,smart,smart --html`` at a searched decision with melds on the table
where smart's choice was kept although another candidate's mean is lower (the panel says why);
serve.png: ``shanghai-sim serve --seed 5`` a few turns in, a card picked and the hint shown;
hand-end.png: the same game at the end of hand 1 (the pause), played there by the hint;
help.png: the served page with its Help panel open.
The window is 1400 x 860. The same games every time (seeded); the pictures change only when
the pages do.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import HINTED, SETTLED, chrome, console_errors, missing  # noqa: E402

BOTS = "rollout:rollouts=8,smart,smart,smart"


def replay_shot(d, out: Path) -> Path:
    from shanghai_sim.game import game_events
    from shanghai_sim.rules import load_rules
    from shanghai_sim.web.replay import replay_page
    r = load_rules("shanghai")
    events, _ = game_events(r, 4, 42, BOTS)
    page = Path(tempfile.mkdtemp(prefix="shots-")) / "replay.html"
    page.write_text(replay_page(events, rules=r, players=4, seats=BOTS.split(","), seed=42))
    down = set()
    at = None
    for i, e in enumerate(events):          # a searched decision once two seats are down, where
        if e["event"] == "hand":            # a lower mean than smart's choice was not chosen
            down = set()
        elif e["event"] == "go_down":
            down.add(e["seat"])
        elif (e["event"] == "search" and len(down) >= 2 and len(e["candidates"]) >= 3
              and e["chosen"] == 0 and min(c["mean"] for c in e["candidates"]) < e["candidates"][0]["mean"]):
            at = i
            break
    d.get(page.as_uri() + f"#event={(at or 0) + 1}")
    path = out / "replay.png"
    d.save_screenshot(str(path))
    return path


def serve_shot(d, out: Path, turns: int = 14) -> Path:
    from selenium.webdriver.common.by import By

    from shanghai_sim.cli.play_cmds import human_game
    from shanghai_sim.web.serve import make_server
    seed, make = human_game("shanghai", (), None, "greedy", "0", "5", later=True)
    srv = make_server(make, "127.0.0.1", 0, seed=seed)
    ps = srv.session
    ps.start()
    ps.wait()
    for _ in range(turns):                  # play on by the hint to a position with melds down
        ps.ask_hint()
        ps.wait()
        ps.act(str(ps.state()["hint"]["choice"]))
        ps.wait()
        st = ps.state()
        if st["phase"] == "play" and len(st["table"]["melds"]) >= 2 and any(
                c["kind"] == "discard" for c in st["choices"]):
            break
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        d.set_script_timeout(120)
        d.get(srv.url)
        d.execute_async_script("""const done = arguments[0];
            (function w() { if (document.body.dataset.state === 'turn') done(); else setTimeout(w, 20); })();""")
        d.find_element(By.ID, "hint").click()
        d.execute_async_script("""const done = arguments[0];
            (function w() { if (document.querySelector('#actions button.hinted')) done(); else setTimeout(w, 20); })();""")
        cards = d.find_elements(By.CSS_SELECTOR, "#hand-0 .card.pick")
        if cards:
            cards[len(cards) // 2].click()
        path = out / "serve.png"
        d.save_screenshot(str(path))
    finally:
        srv.shutdown()
        srv.server_close()
    return path


def hand_end_shots(d, out: Path) -> list[Path]:
    """The served game of serve.png played by the hint in the page to the end of hand 1: the
    pause (hand-end.png); then, in hand 2, the Help panel open (help.png)."""
    from selenium.webdriver.common.by import By

    from shanghai_sim.cli.play_cmds import human_game
    from shanghai_sim.web.serve import make_server
    seed, make = human_game("shanghai", (), None, "greedy", "0", "5", later=True)
    srv = make_server(make, "127.0.0.1", 0, seed=seed)
    srv.session.start()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    paths = []
    try:
        d.set_script_timeout(300)
        d.get(srv.url)
        state, drawn = d.execute_async_script(SETTLED, 0)
        while state == "turn":
            d.find_element(By.ID, "hint").click()
            n, drawn = d.execute_async_script(HINTED)      # the hint's own drawing
            d.find_element(By.CSS_SELECTOR, f'#actions button[data-n="{n}"]').click()
            state, drawn = d.execute_async_script(SETTLED, drawn)
        if state == "hand_end":
            paths.append(out / "hand-end.png")
            d.save_screenshot(str(paths[-1]))
            d.find_element(By.ID, "next-hand").click()
            d.execute_async_script(SETTLED, drawn)
            d.find_element(By.ID, "help-button").click()
            d.execute_script("document.getElementById('word-deficiency').scrollIntoView();")
            paths.append(out / "help.png")
            d.save_screenshot(str(paths[-1]))
    finally:
        srv.shutdown()
        srv.server_close()
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    a = ap.parse_args(argv)
    why = missing()
    if why:
        print(f"make_screenshots: {why}", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    d = chrome(1400, 1000)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",       # the page: 1400 x 860
                      {"width": 1400, "height": 860, "deviceScaleFactor": 1, "mobile": False})
    try:
        for p in (replay_shot(d, a.out), serve_shot(d, a.out), *hand_end_shots(d, a.out)):
            print(f"wrote {p}")
        errors = console_errors(d)
        if errors:
            print("console errors:\n" + "\n".join(errors), file=sys.stderr)
            return 1
    finally:
        d.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
