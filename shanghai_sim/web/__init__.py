"""The game in a browser: ``replay --html`` (a self-contained page of one game's events) and
``serve`` (a local page to play a seat against the bots). docs/browser.md.

The pages are plain HTML, CSS and JavaScript kept beside this module (``table.css``,
``cards.js``, ``replay.js``, ``play.js``; ``help.js`` and ``glossary.js``, the Help
panel's words, written from docs/glossary.md by ``glossary.py``) and inlined into every
page: no network, no build step. A page's Content-Security-Policy allows nothing but its
own inline code (and, for ``serve``, requests to the page's own server), so it cannot reach
anything else.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any


def asset(name: str) -> str:
    """The text of one of the page files kept in this package."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """JSON that can sit inside a <script> element (no '</' to end it early)."""
    return (json.dumps(data, separators=(",", ":"), ensure_ascii=False)
            .replace("</", "<\\/").replace("<!--", "<\\!--"))


def page(title: str, body: str, scripts: list[str], data: Any = None, connect: bool = False) -> str:
    """One HTML page: the shared stylesheet and ``scripts`` (file names of this package)
    inlined, ``data`` embedded as JSON in ``<script id="game-data">``. ``connect``: the page
    may fetch from its own origin (the served page); otherwise it may fetch nothing."""
    csp = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
           "img-src data:" + ("; connect-src 'self'" if connect else ""))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>",
        f"<style>\n{asset('table.css')}</style>",
        "</head><body>",
        body,
    ]
    if data is not None:
        parts.append(f'<script type="application/json" id="game-data">{embed_json(data)}</script>')
    for s in ["cards.js", "glossary.js", "help.js"] + scripts:     # help: docs/glossary.md
        parts.append(f"<script>\n{asset(s)}</script>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
