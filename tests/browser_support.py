"""Headless Chromium for the browser tests and benchmarks (selenium with Debian's chromium and
chromium-driver; selenium-manager never downloads anything: both binaries are named).

``chrome()`` starts one; ``missing()`` says why none can start (the tests skip with it).
Chromium is told to resolve no name but the loopback address and to fetch nothing on its
own (no updates, sync, safe browsing), and ``requests(driver)`` lists every URL the page
asked for (the DevTools performance log), so a test can check that nothing left the machine.
"""

from __future__ import annotations

import json
import shutil

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")


def _which(names):
    return next((p for p in map(shutil.which, names) if p), None)


def missing() -> str | None:
    """Why no browser test can run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if _which(CHROMIUM) is None:
        return "no chromium here (apt-get install chromium chromium-driver; .ci/run does it)"
    if shutil.which("chromedriver") is None:
        return "no chromedriver here (apt-get install chromium-driver; .ci/run does it)"
    return None


def chrome(width: int = 1400, height: int = 1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    o = webdriver.ChromeOptions()
    o.binary_location = _which(CHROMIUM)
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--window-size={width},{height}", "--no-first-run", "--no-default-browser-check",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-default-apps", "--disable-extensions", "--safebrowsing-disable-auto-update",
              "--disable-features=Translate,OptimizationHints,MediaRouter",
              "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
              "--allow-file-access-from-files"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=o)


def console_errors(driver) -> list[str]:
    """The page's console messages of level SEVERE (errors, uncaught exceptions) since the last call."""
    return [m["message"] for m in driver.get_log("browser") if m.get("level") == "SEVERE"]


def requests(driver) -> list[str]:
    """Every URL the browser asked for since the last call."""
    urls = []
    for m in driver.get_log("performance"):
        msg = json.loads(m["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def local(url: str) -> bool:
    """A URL that stays on this machine: a file, inline data, or the loopback address."""
    return url.startswith(("file://", "data:", "about:", "http://127.0.0.1:", "http://localhost:"))


# Scripts for driver.execute_async_script, shared by the browser tests.
# SETTLED(before): the page has drawn a state newer than drawing number ``before`` and waits on
# the person (a turn, a hand's end, the game over or stopped): [state, drawing number].
SETTLED = """
const before = Number(arguments[0]), done = arguments[arguments.length - 1];
(function wait() {
  const b = document.body;
  if (Number(b.dataset.drawn || 0) > before && ['turn', 'over', 'stopped', 'hand_end'].indexOf(b.dataset.state) >= 0)
    done([b.dataset.state, Number(b.dataset.drawn)]);
  else if (b.dataset.state === 'error') done(['error', 0]);
  else setTimeout(wait, 5);
})();
"""

# HINTED: the hinted action's button is drawn: [its action number, drawing number].
HINTED = """
const done = arguments[arguments.length - 1];
(function wait() {
  const b = document.querySelector('#actions button.hinted');
  if (b) done([b.dataset.n, Number(document.body.dataset.drawn)]); else setTimeout(wait, 5);
})();
"""
