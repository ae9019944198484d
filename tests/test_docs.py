"""The documents are executed: every console, bash and Python block of README.md, docs/*.md and
analyses/README.md runs, one fresh folder per document with its blocks in order, and fails on a
non-zero exit (or another status a marker expects) or a traceback; every sample output equals
what the tool prints (docs/make_samples.py rewrites them). Markers: docs/DEVELOPING.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs"))
import docblocks  # noqa: E402
from docblocks import DOCUMENTS, DocError, Runner, parse  # noqa: E402


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_document_runs(doc, tmp_path):
    r = Runner(doc, tmp_path).run()
    assert not r.diffs, "\n\n".join(r.diffs)


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
    for f in files + benches:
        tree = ast.parse(f.read_text(), str(f))
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
