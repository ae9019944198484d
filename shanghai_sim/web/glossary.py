"""The browser pages' Help panel draws from docs/glossary.md, the one glossary of the
project's words.

docs/ is not installed with the package, so the entries the pages show (the sections in
``PAGE_SECTIONS``) are kept beside the page files as ``glossary.js`` (``var GLOSSARY``),
written from docs/glossary.md by

    python -m shanghai_sim.web.glossary           # rewrite glossary.js
    python -m shanghai_sim.web.glossary --check   # exit 1 if it differs from docs/glossary.md

(tests/test_glossary.py fails when the two differ). ``help.js`` draws the panel.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

PAGE_SECTIONS = ("At the table", "The bots' search", "Rules and presets", "Bots")
HERE = Path(__file__).parent
SOURCE = HERE.parent.parent / "docs" / "glossary.md"
TARGET = HERE / "glossary.js"


def _plain(text: str) -> str:
    """Markdown inline marks as plain text: links as their words, no backticks or asterisks."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[`*]", "", text)


def parse(text: str) -> list[dict[str, str]]:
    """The entries of a glossary page: ``## section``, then ``### term`` and its paragraph."""
    out: list[dict[str, str]] = []
    section, entry = "", None
    for line in text.splitlines():
        if line.startswith("## "):
            section, entry = line[3:].strip(), None
        elif line.startswith("### "):
            entry = {"section": section, "term": line[4:].strip(), "text": ""}
            out.append(entry)
        elif entry is not None and line.strip():
            entry["text"] = (entry["text"] + " " + line.strip()).strip()
        elif entry is not None and entry["text"]:
            entry = None                 # a blank line ends the entry's paragraph
    return out


def page_entries(text: str) -> list[dict[str, str]]:
    """The entries the pages' help shows, as plain text."""
    return [{"section": e["section"], "term": e["term"], "text": _plain(e["text"])}
            for e in parse(text) if e["section"] in PAGE_SECTIONS]


def script(entries: list[dict[str, str]]) -> str:
    body = json.dumps(entries, ensure_ascii=False, indent=0).replace("</", "<\\/")
    return ("/* The pages' Help: the entries of docs/glossary.md's sections "
            + ", ".join(f'"{s}"' for s in PAGE_SECTIONS) + ".\n"
            "   Written by python -m shanghai_sim.web.glossary from docs/glossary.md: edit that file,"
            " not this one. */\n"
            f"var GLOSSARY = {body};\n")


def main(argv: list[str]) -> int:
    if not SOURCE.exists():
        print(f"no {SOURCE}: run this from a clone of the repository (docs/ is not installed)")
        return 2
    want = script(page_entries(SOURCE.read_text(encoding="utf-8")))
    have = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if "--check" in argv:
        if want != have:
            print(f"{TARGET} differs from {SOURCE}: run python -m shanghai_sim.web.glossary")
            return 1
        return 0
    if want != have:
        TARGET.write_text(want, encoding="utf-8")
        print(f"wrote {TARGET} ({len(page_entries(SOURCE.read_text(encoding='utf-8')))} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
