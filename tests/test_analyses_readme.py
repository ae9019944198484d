"""analyses/README.md quotes the committed results: every effect with its CI there, ``m [lo,
hi]``, is a row of a CSV in a results folder its section links, at the precision shown (issue
31: one number, one label). A figure typed by hand, or left behind when a result is played
again, fails here."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ANALYSES = ROOT / "analyses"
README = ANALYSES / "README.md"

NUM = r"[+-]?\d[\d,]*(?:\.\d+)?"
CI = re.compile(rf"({NUM})(?:%| pp)?\s*\[({NUM}),\s*({NUM})\]")
LINK = re.compile(r"\((results/[^)#\s]+)")


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) per ``## `` section of the README."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def folders(body: str) -> set[Path]:
    """The results folders a section links (a linked file's folder, or the folder itself)."""
    out = set()
    for link in LINK.findall(body):
        p = ANALYSES / link
        out.add(p if p.is_dir() else p.parent)
    return out


def _num(s: str) -> float | None:
    try:
        return float(str(s).replace(",", "").replace("+", ""))
    except ValueError:
        return None


def triples(folder: Path) -> list[tuple[float, float, float]]:
    """Every (mean, lo, hi) a CSV of the folder holds: columns ``X_mean/X_lo/X_hi``,
    ``X/X_lo/X_hi`` and ``mean/lo/hi`` (``d_mean``...), and cells already written as CIs."""
    out = []
    for f in sorted(folder.glob("*.csv")):
        with f.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        if not rows:
            continue
        cols = set(rows[0])
        bases = []
        for c in cols:
            if c.endswith("_lo"):
                b = c[:-3]
                hi = b + "_hi"
                mean = next((m for m in (b + "_mean", b, (b[:-1] + "mean") if b.endswith("_") else None)
                             if m in cols), None)
                if b == "":
                    mean = "mean" if "mean" in cols else None
                if hi in cols and mean:
                    bases.append((mean, c, hi))
        if {"mean", "lo", "hi"} <= cols:
            bases.append(("mean", "lo", "hi"))
        for r in rows:
            for m, lo, hi in bases:
                v = tuple(_num(r[k]) for k in (m, lo, hi))
                if None not in v:
                    out.append(v)
            for cell in r.values():
                for x in CI.findall(str(cell)):
                    out.append(tuple(_num(t) for t in x))
    return out


def shown(value: float, like: str) -> str:
    """``value`` written to the decimals of ``like``."""
    d = len(like.split(".")[1]) if "." in like else 0
    s = f"{value:.{d}f}"
    return "0" + s[2:] if s.startswith("-0") and float(s) == 0 else s


def matches(quoted: tuple[str, str, str], t: tuple[float, float, float]) -> bool:
    """A quoted CI equals a CSV triple at its precision, as is or in percent / points of 100,
    or turned round ("8.5 [8.1, 8.9] fewer points" for a difference of -8.5 [-8.9, -8.1])."""
    q = [x.replace(",", "").replace("+", "") for x in quoted]
    m, lo, hi = t
    for scale in (1, 100):
        for v3 in ((m, lo, hi), (-m, -hi, -lo)):
            if all(shown(v * scale, s) == s for v, s in zip(v3, q)):
                return True
    return False


def quoted_cis(body: str) -> list[tuple[str, str, str]]:
    return CI.findall(body)


def test_the_readme_quotes_cis_and_links_results():
    secs = sections(README.read_text(encoding="utf-8"))
    quoting = [h for h, b in secs if quoted_cis(b)]
    assert len(quoting) >= 4, quoting                  # the questions quote their answers' CIs
    for h, b in secs:
        if quoted_cis(b):
            assert folders(b), f"section {h!r} quotes CIs but links no results folder"
            for f in folders(b):
                assert f.is_dir(), f"section {h!r} links {f}, which is not there"


@pytest.mark.parametrize("heading", [h for h, b in sections(README.read_text(encoding="utf-8"))
                                     if quoted_cis(b)])
def test_every_ci_in_the_readme_is_a_committed_result(heading):
    body = dict(sections(README.read_text(encoding="utf-8")))[heading]
    cands = [t for f in folders(body) for t in triples(f)]
    missing = [f"{m} [{lo}, {hi}]" for m, lo, hi in quoted_cis(body)
               if not any(matches((m, lo, hi), t) for t in cands)]
    assert not missing, (f"analyses/README.md, {heading!r}: these CIs are in no CSV of "
                         f"{sorted(str(f.relative_to(ANALYSES)) for f in folders(body))}: {missing}")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def in_short() -> tuple[str, list[str]]:
    """The "In short" section (it opens the README) and its bullets."""
    secs = sections(README.read_text(encoding="utf-8"))
    assert secs and secs[0][0] == "In short", "analyses/README.md opens with '## In short'"
    body = secs[0][1]
    return body, [b for b in re.split(r"^- ", body, flags=re.M)[1:]]


def test_in_short_answers_each_question_and_links_its_section():
    body, bullets = in_short()
    anchors = {slug(h) for h, _ in sections(README.read_text(encoding="utf-8"))}
    assert len(bullets) >= 6, "one plain sentence per question"
    for b in bullets:
        first = b.split("**")[1] if b.startswith("**") else ""
        assert first, f"an answer opens with its sentence in bold: {b[:80]!r}"
        links = re.findall(r"\]\(#([^)]+)\)", b)
        assert links, f"no link to its section: {first!r}"
        assert set(links) <= anchors, f"{first!r} links {set(links) - anchors}, not a section"
        assert re.search(r"\d", b.split("**", 2)[2]), f"{first!r} gives no figure"
    assert "../docs/glossary.md" in body and (ROOT / "docs" / "glossary.md").is_file()
    # plain words: the versions and the jargon of the sections are not needed to read it
    assert not re.search(r"\bv\d\b|\bp_holm\b|\barm\b", body)


def test_in_short_quotes_only_figures_the_results_hold():
    """Its CIs are checked with every section's (above); a figure without a CI (52%, +3.5 to
    +6.5) must be one a numbered section quotes, so it is a committed result too."""
    body, _ = in_short()
    text = README.read_text(encoding="utf-8")
    rest = text[text.index("## In short") + len("## In short") + len(body):]
    bare = CI.sub(" ", body)
    figures = re.findall(r"(?<![\w.])[+-]?\d[\d,]*(?:\.\d+)?(?=%| points| pp|\b)", bare)
    small = {str(n) for n in range(0, 41)}          # hand numbers, counts of players, buys, cards
    figures = [f for f in figures if f.lstrip("+-") not in small]
    missing = [f for f in figures if not re.search(rf"(?<![\w.]){re.escape(f)}(?![\d])", rest)]
    assert not missing, f"In short quotes figures no section of analyses/README.md gives: {missing}"


def test_the_matcher_rounds_as_shown():
    assert matches(("+57.3", "+55.1", "+59.5"), (57.3049, 55.14, 59.456))
    assert not matches(("+57.3", "+55.1", "+59.5"), (57.36, 55.14, 59.456))
    assert matches(("-17.0", "-18.6", "-15.4"), (-0.17004, -0.18551, -0.15449))   # percentage points
    assert matches(("+1,033.5", "+1,029.1", "+1,037.9"), (1033.52, 1029.06, 1037.9))
    assert not matches(("0.2", "0.1", "0.3"), (0.24, 0.1, 0.36))
    assert matches(("8.5", "8.1", "8.9"), (-8.46, -8.93, -8.05))                  # "fewer"
    assert not matches(("8.5", "8.1", "8.9"), (-8.46, -8.05, -8.93))
    assert [c for c in quoted_cis("hand 8: 38.9% [36.5, 41.4]; -3.0 [-4.2, -1.8] pp")] == \
        [("38.9", "36.5", "41.4"), ("-3.0", "-4.2", "-1.8")]
