"""The documents are executed: every console, bash and Python block of README.md, docs/*.md and
analyses/README.md runs, as a reader follows them: README first, then the documents in the order
README links them (``docblocks.DOCUMENTS``), their blocks in order, ALL IN ONE FOLDER (a later
document's example runs where the earlier ones left their outputs, as it does for a reader who
follows them in order); a block fails on a non-zero exit (or another status a marker expects) or a
traceback; every sample output equals what the tool prints (docs/make_samples.py rewrites them).
Markers: docs/DEVELOPING.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs"))
import docblocks  # noqa: E402
from docblocks import DOCUMENTS, DocError, Reading, Runner, parse  # noqa: E402
from astparse import parse_files  # noqa: E402


@pytest.fixture(scope="module")
def reading(tmp_path_factory):
    """One folder for every document, read in order (each document once, whatever order the
    tests run in or which of them -k selects: a document's test first runs those before it)."""
    return Reading(tmp_path_factory.mktemp("reader"))


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_document_runs(doc, reading):
    r = reading.upto(doc)
    assert not r.diffs, "\n\n".join(r.diffs)


def test_the_documents_are_read_in_the_order_readme_links_them():
    assert DOCUMENTS[0] == "README.md"
    readme = (docblocks.ROOT / "README.md").read_text()
    named = [d for d in DOCUMENTS[1:] if d in readme]
    assert named == sorted(named, key=readme.index), "README's documents come in the order it names them"
    assert DOCUMENTS.index("docs/experiments.md") < DOCUMENTS.index("docs/tournament.md")
    assert DOCUMENTS.index("analyses/README.md") < DOCUMENTS.index("docs/rollout.md")  # named by the analyses


def test_documents_share_one_folder_in_reading_order(tmp_path):
    (tmp_path / "README.md").write_text("See [b](docs/b.md), then docs/a.md.\n"
                                        "```console\n$ echo one > shared.txt\n```\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("```console\n$ cat shared.txt\none\ntwo\n```\n")
    (tmp_path / "docs" / "b.md").write_text("```console\n$ echo two >> shared.txt\n```\n")
    work = tmp_path / "w"
    r = Reading(work, root=tmp_path)
    assert r.documents == ("README.md", "docs/b.md", "docs/a.md")
    assert not r.upto("docs/a.md").diffs            # README and b ran first, in the same folder
    assert list(r.done) == ["README.md", "docs/b.md", "docs/a.md"]
    # an earlier document's failure is its own; a later one runs and names it
    (tmp_path / "docs" / "b.md").write_text("```console\n$ exit 3\n```\n")
    (tmp_path / "docs" / "a.md").write_text("```console\n$ cat b.txt\n```\n")
    r = Reading(tmp_path / "w2", root=tmp_path)
    with pytest.raises(DocError, match="after an earlier document failed in the same folder: docs/b.md"):
        r.upto("docs/a.md")
    with pytest.raises(DocError, match="exit status 3"):
        r.upto("docs/b.md")


def test_every_document_is_checked():
    here = {str(p.relative_to(docblocks.ROOT)) for p in docblocks.ROOT.glob("docs/*.md")}
    assert here | {"README.md", "analyses/README.md"} == set(DOCUMENTS)


def _doc(tmp_path, text):
    (tmp_path / "d.md").write_text(text)
    return "d.md"


def test_markers_and_failures(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    doc = _doc(tmp_path, "\n".join([
        "<!-- docs: file=x.txt -->", "```text", "hello", "```",
        "```console", "$ cat x.txt", "hello", "$ echo a \\", "      b", "a b", "```",
        "<!-- docs: exit=3 -->", "```bash", "exit 3", "```",
        "<!-- docs: stdin=\"1\\n2\\n\" -->", "```console", "$ wc -l", "2", "```",
        "<!-- docs: skip=\"a server\" -->", "```console", "$ false", "```",
        "<!-- docs: games=7 -->", "```console", "$ echo --games 100000", "```",
        "<!-- docs: sample=\"echo 'x 1.5 s'; echo y\" lines=1 mask=\"[0-9.]+ s\" -->",
        "```text", "x 9 s", "```", ""]))
    r = Runner(doc, work, root=tmp_path).run()
    assert r.diffs == [] and r.ran == 6 and r.skipped == ["d.md:22: a server"]
    # a shown output that differs, a wrong exit status, a traceback
    doc = _doc(tmp_path, "```console\n$ echo 1\n2\n```\n")
    assert Runner(doc, work, root=tmp_path).run().diffs
    doc = _doc(tmp_path, "```bash\nexit 1\n```\n")
    with pytest.raises(DocError, match="exit status 1, expected 0"):
        Runner(doc, work, root=tmp_path).run()
    doc = _doc(tmp_path, "```python\nraise SystemExit(0) if 0 else 1/0\n```\n")
    with pytest.raises(DocError, match="exit status 1"):
        Runner(doc, work, root=tmp_path).run()
    doc = _doc(tmp_path, "```bash\necho 'Traceback (most recent call last):' >&2\n```\n")
    with pytest.raises(DocError, match="traceback"):
        Runner(doc, work, root=tmp_path).run()


def test_resize_and_rewrite(tmp_path):
    assert docblocks.resize("run --games 100000 --deals=2000 --max-games 20_000", "5") == \
        "run --games 5 --deals=5 --max-games 5"
    assert docblocks.resize("Job(games=50_000, max_games=20_000)", "5", python=True) == \
        "Job(games=5, max_games=5)"
    doc = _doc(tmp_path, "a\n<!-- docs: sample=\"printf 'new\\nlines\\n'\" -->\n```text\nold\n```\nb\n")
    r = Runner(doc, tmp_path, root=tmp_path, rewrite=True).run()
    assert docblocks.rewrite_samples(doc, r.samples, root=tmp_path)
    assert (tmp_path / doc).read_text() == \
        "a\n<!-- docs: sample=\"printf 'new\\nlines\\n'\" -->\n```text\nnew\nlines\n```\nb\n"
    assert not Runner(doc, tmp_path, root=tmp_path).run().diffs


@pytest.mark.parametrize("text,msg", [
    ("<!-- docs: skip= -->\n```bash\n```\n", "needs a reason"),
    ("<!-- docs: gamez=3 -->\n```bash\n```\n", "bad docs marker item"),
    ("<!-- docs: exit=2 -->\ntext\n```bash\n```\n", "not followed by a block"),
    ("```console\nworker$ dask worker\n```\n", "before any"),
])
def test_bad_markers(tmp_path, text, msg):
    doc = _doc(tmp_path, text)
    with pytest.raises(DocError, match=msg):
        for b in parse(doc, tmp_path):
            if b.lang == "console":
                docblocks.console_commands(b)


def test_every_bot_version_has_a_changelog_entry():
    """CHANGELOG.md names every version of every bot the registry declares (a retired one says
    so), under the bot's heading, and the package version; DEVELOPING says to keep it so."""
    import re
    from shanghai_sim import __version__
    from shanghai_sim.bots import BOTS
    text = (docblocks.ROOT / "CHANGELOG.md").read_text()
    sections = dict(re.findall(r"^### `([\w-]+)`\n(.*?)(?=^##|\Z)", text, re.M | re.S))
    missing = []
    for name, info in BOTS.items():
        body = sections.get(name, "")
        for v in info.versions:
            entry = re.search(rf"^- \*\*version {v.v}\*\* \((\d{{4}}-\d\d-\d\d), [0-9a-f]{{7}}.*?(?=^- |\Z)",
                              body, re.M | re.S)
            if entry is None or (v.retired and "*retired*" not in entry.group(0)):
                missing.append(f"{name} version {v.v}")
        extra = {int(x) for x in re.findall(r"^- \*\*version (\d+)\*\*", body, re.M)} - {v.v for v in info.versions}
        missing += [f"{name} version {x} (not in the registry)" for x in sorted(extra)]
    assert not missing, f"CHANGELOG.md lacks (or has no bot for): {', '.join(missing)}"
    assert f"### {__version__} " in text
    assert "CHANGELOG.md" in (docblocks.ROOT / "docs" / "DEVELOPING.md").read_text()


def test_the_license_ships_with_the_package():
    import tomllib
    project = tomllib.loads((docblocks.ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (docblocks.ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026" in text


def test_pip_install_brings_what_the_analyses_and_the_charts_import():
    """`pip install .` (README's first block) must be enough for `python analyses/NAME.py` and
    `benchmarks/run_all.py --no-run`: every third-party module they import is a dependency."""
    import ast
    import importlib.metadata as md
    import re
    import tomllib
    root = docblocks.ROOT
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~\[; ]", d, 1)[0].lower().replace("_", "-") for d in deps}
    files = [*sorted((root / "analyses").glob("*.py"))] + [root / "benchmarks" / f for f in
                                                          ("_common.py", "charts.py", "report.py", "run_all.py")]
    # run_all reads every benchmark's record, so --no-run imports each bench_*.py: what its module body
    # imports (a peer such as pyspiel or mahjong is imported inside its measure, and optional)
    benches = sorted((root / "benchmarks").glob("bench_*.py"))
    local = {p.stem for f in files for p in f.parent.glob("*.py")} | {"shanghai_sim", "reference"}
    dists = md.packages_distributions()
    missing = {}
    trees = parse_files(files + benches)     # in a child process: see astparse.py
    for f in files + benches:
        tree = trees[f]
        for node in (ast.walk(tree) if f in files else tree.body):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                    [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for m in mods:
                top = m.split(".")[0]
                if top in sys.stdlib_module_names or top in local:
                    continue
                have = {d.lower().replace("_", "-") for d in dists.get(top, [top])}
                if not have & names:
                    missing.setdefault(top, []).append(f.name)
    assert not missing, f"imported but not in pyproject's dependencies: {missing}"


def test_an_exit_status_per_command(tmp_path):
    doc = _doc(tmp_path, "<!-- docs: exit=0,3 -->\n```console\n$ true\n$ exit 3\n```\n")
    assert Runner(doc, tmp_path, root=tmp_path).run().ran == 2
    doc = _doc(tmp_path, "<!-- docs: exit=0,3 -->\n```console\n$ exit 3\n$ exit 3\n```\n")
    with pytest.raises(DocError, match="exit status 3, expected 0"):
        Runner(doc, tmp_path, root=tmp_path).run()
    doc = _doc(tmp_path, "<!-- docs: exit=0,3 -->\n```console\n$ true\n```\n")
    with pytest.raises(DocError, match="lists 2 statuses for 1 commands"):
        Runner(doc, tmp_path, root=tmp_path).run()


def test_a_block_needing_a_missing_program_is_skipped_with_a_note(tmp_path):
    doc = _doc(tmp_path, "<!-- docs: needs=bash,no-such-program-here -->\n```bash\nexit 1\n```\n"
                         "<!-- docs: needs=bash -->\n```bash\ntrue\n```\n")
    r = Runner(doc, tmp_path, root=tmp_path).run()
    assert r.ran == 1 and r.skipped == ["d.md:2: needs no-such-program-here, not installed here"]
