"""docs/glossary.md, the one glossary of the project's words, and the pages' Help panel that
draws from it (shanghai_sim/web/glossary.js, written by ``python -m shanghai_sim.web.glossary``):
the two agree; the words the pages use are in it, and the words it shows are used there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shanghai_sim.web import glossary
from shanghai_sim.web.serve import BODY
from shanghai_sim.web.replay import BODY as REPLAY_BODY

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "shanghai_sim" / "web"
TEXT = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")

# How each word of the Help shows on the pages (its forms in the text the pages draw).
FORMS = {
    "going down": ("go down", "goes down", "down"), "going out": ("went out", "goes out"),
    "lay off": ("lay off", "lays off", "layoff", "lay-off"), "penalty card": ("penalty card",),
    "first refusal": ("first refusal", "refuses the upcard"), "stopped hand": ("stopped", "nobody went out"),
    "samples": ("samples",), "diff": ("diff",), "se": ("se",), "z": ("z",), "total": ("total",),
    "points": ("points",), "candidate": ("candidate",), "search": ("search",), "hint": ("hint",),
    "preset": ("rules",), "rules option": ("rules",), "bot spec": ("seats",),
    "greedy, smart, rollout": ("greedy", "smart", "rollout"),
    "turn cap": ("turn cap",), "stock pass": ("stock pass",),
}
# The jargon a player meets on the pages: each must be explained by the Help (its term).
PAGE_WORDS = {
    "deficiency": "deficiency", "contract": "contract",
    "upcard": "upcard", "stock": "stock", "pile": "pile", "buy": "buy", "penalty": "penalty card",
    "down": "going down", "lay off": "lay off", "swap": "swap", "discard": "discard",
    "deadwood": "deadwood", "meld": "meld", "joker": "joker", "points": "points", "total": "total",
    "went out": "going out", "blind": "blind", "refuses the upcard": "first refusal", "hint": "hint",
    "turn cap": "turn cap", "stock pass": "stock pass", "samples": "samples", "mean": "mean",
    "margin": "margin", "tie": "tie", "race": "race", "diff": "diff", "se": "se",
    "smart's choice": "candidate", "rules": "preset", "rollout": "greedy, smart, rollout",
}


def _page_text() -> str:
    """The words the pages can show: their HTML, their scripts' strings, and the lines and
    reasons the play and replay code writes on them."""
    parts = [BODY, REPLAY_BODY]
    for f in ("play.js", "replay.js", "cards.js"):
        parts.append((WEB / f).read_text(encoding="utf-8"))
    for f in sorted((ROOT / "shanghai_sim" / "human").glob("*.py")) + [ROOT / "shanghai_sim" / "log.py"]:
        parts.append(f.read_text(encoding="utf-8"))
    return "\n".join(parts).lower()


def test_glossary_js_is_written_from_docs_glossary():
    want = glossary.script(glossary.page_entries(TEXT))
    assert (WEB / "glossary.js").read_text(encoding="utf-8") == want, \
        "run python -m shanghai_sim.web.glossary"
    assert glossary.main(["--check"]) == 0


def test_the_glossary_has_issue_60s_words_and_each_entry_says_something():
    entries = glossary.parse(TEXT)
    terms = {e["term"] for e in entries}
    assert {"deficiency", "contract", "preset", "stopped hand", "win share", "paired", "seating"} <= terms
    assert len(terms) == len(entries), "a term defined twice"
    for e in entries:
        assert len(e["text"].split()) >= 8, e["term"]
    # contract vs preset: each entry tells the two apart
    by = {e["term"]: e["text"] for e in entries}
    assert "preset" in by["contract"] and "contract" in by["preset"]


def test_every_help_word_is_used_on_the_pages():
    text = _page_text()
    for e in glossary.page_entries(TEXT):
        forms = FORMS.get(e["term"], (e["term"],))
        assert any(re.search(r"\b" + re.escape(f) + r"\b", text) for f in forms), e["term"]


@pytest.mark.parametrize("word,term", sorted(PAGE_WORDS.items()))
def test_every_page_word_is_in_the_help(word, term):
    assert re.search(r"\b" + re.escape(word) + r"\b", _page_text()), f"{word!r} is not on the pages"
    shown = {e["term"] for e in glossary.page_entries(TEXT)}
    assert term in shown, f"{word!r} ({term}) is not explained by the Help"


def test_the_studies_words_stay_off_the_pages_help():
    shown = {e["term"] for e in glossary.page_entries(TEXT)}
    assert "win share" not in shown and "paired" not in shown
    assert {"deficiency", "contract", "upcard", "margin", "z", "preset"} <= shown
