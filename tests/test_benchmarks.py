"""The benchmark pipeline on a tiny run: every result parses, every chart is a PNG,
and BENCHMARKS.md's tables are the JSON results, cell for cell. Not the timings."""

from __future__ import annotations

import importlib
import json

import pytest

pytest.importorskip("matplotlib")

import benchmarks._common as common  # noqa: E402  (the package benchmarks: pyproject's pytest pythonpath)
import benchmarks.report as report  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run_all():
    import benchmarks.run_all
    return benchmarks.run_all


@pytest.fixture(scope="module")
def fmt():
    return common.fmt


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, run_all):
    d = tmp_path_factory.mktemp("bench")
    rc = run_all.main(["--tiny", "--results", str(d / "results"), "--charts", str(d / "charts"),
                       "--markdown", str(d / "BENCHMARKS.md")])
    assert rc == 0
    return d


def _md_tables(text: str) -> list[list[list[str]]]:
    """Every markdown table of ``text``: rows of cells, the header first, the rule dropped."""
    tables, cur = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in line.strip()[1:-1].split(" | ")]
            if cur is None:
                cur = []
                tables.append(cur)
            if not set(line) <= set("|-"):
                cur.append(cells)
        else:
            cur = None
    return tables


def test_every_benchmark_writes_a_result_with_the_machine(tiny, run_all):
    for name in run_all.ORDER:
        res = json.loads((tiny / "results" / f"{name}.json").read_text())
        assert res["name"] == name and res["run"] == "tiny"
        m = res["machine"]
        for key in ("cpu", "cores", "python", "numba", "numpy", "pyarrow", "date"):
            assert m[key], key
        assert len(m["load"]) == 2 and min(m["load"]) >= 0       # how busy the machine was
        assert res["tables"] and all(t["rows"] for t in res["tables"])
        # the version a plain spec played, so the figure stays labelled once a bot moves on
        assert res["bot_versions"]["smart"] >= 3 and set(res["bot_versions"]) >= {"greedy", "rollout"}
        # the hash of the source it measured: today's, since it was measured just now
        assert res["source"] == common.source_now(run_all.BENCHMARKS[name])
        assert f"benchmarks/bench_{name}.py" in res["source"]["files"]
    text = (tiny / "BENCHMARKS.md").read_text()
    assert text.count("*Bot versions*: a spec here without `v=` played") == len(run_all.ORDER)
    assert text.count("; load average ") == len(run_all.ORDER)


def test_a_result_of_an_older_bot_names_the_spec_that_replays_it():
    """A committed result played by a version that is no longer the newest says which spec
    replays it today; BENCHMARKS.md carries that line for the strength tables."""
    from shanghai_sim.bots import BOTS
    line = report._versions_line({"greedy": BOTS["greedy"].version, "smart": 1})
    assert "played greedy 2, smart 1 (today: `smart:v=1`)" in line
    assert "(the newest today)" in report._versions_line({"smart": BOTS["smart"].version})
    assert report._versions_line(None) == ""
    from pathlib import Path
    root = Path(report.__file__).parents[1]
    md = (root / "BENCHMARKS.md").read_text()
    played = json.loads((root / "benchmarks" / "results" / "strength.json").read_text())["bot_versions"]
    section = md.split("## Bot strength")[1].split("\n## ")[0]
    assert report._versions_line(played).strip() in section


def test_charts_are_png(tiny, run_all):
    pngs = sorted((tiny / "charts").glob("*.png"))
    assert {p.stem for p in pngs} >= set(run_all.ORDER)
    for p in pngs:
        assert p.read_bytes()[:8] == PNG, p


def test_benchmarks_md_tables_equal_the_json(tiny, run_all, fmt):
    results = run_all.load_results(tiny / "results")
    expected = [[t["columns"]] + [[fmt(v) for v in row] for row in t["rows"]]
                for name in run_all.ORDER for t in results[name]["tables"]]
    text = (tiny / "BENCHMARKS.md").read_text()
    assert _md_tables(text) == expected
    for name in run_all.ORDER:                     # each chart shown, linked relative to the file
        assert f"(charts/{name}.png)" in text


def test_peers_are_measured_when_installed(tiny, run_all):
    results = run_all.load_results(tiny / "results")
    rows = results["melds"]["figures"]["rows"]
    assert all(r["reference"]["n"] > 0 for r in rows)      # tests/reference.py is always there
    try:
        import mahjong  # noqa: F401
        assert results["melds"]["figures"]["shanten"]["median"] > 0
    except ImportError:
        assert results["melds"]["figures"]["shanten"] is None
    try:
        import pyspiel  # noqa: F401
        assert results["engine"]["figures"]["openspiel_cpp"]["actions"]["median"] > 0
    except ImportError:
        assert results["engine"]["figures"]["openspiel_cpp"] is None


def test_fmt_writes_a_spread_as_median_and_range(fmt):
    s = {"median": 2.5e6, "min": 1.0e6, "max": 3.25e6, "n": 3, "samples": []}
    assert fmt(s) == "2.50M (1.00M-3.25M)"
    assert fmt(None) == "n/a" and fmt(1234) == "1,234" and fmt(0.5) == "0.50"


def test_every_benchmark_module_declares_its_record(run_all):
    """One record per bench_*.py: its measure, its sizes for every run size, its chart and text."""
    from pathlib import Path
    mods = sorted(p.stem for p in Path(run_all.HERE).glob("bench_*.py"))
    assert sorted(f"bench_{n}" for n in run_all.ORDER) == mods
    for b in common.benchmarks():
        assert set(b.sizes) == {"full", "quick", "tiny"} and b.title and len(b.how) > 80
        assert b.measure is importlib.import_module(f"benchmarks.bench_{b.name}").measure and callable(b.chart)


TOY = '''
from pathlib import Path

if __package__:                      # imported: benchmarks.bench_toy
    from ._common import Benchmark, Source, spread, table
else:                                # python benchmarks/bench_toy.py
    from _common import Benchmark, Source, spread, table


def measure(n=1, progress=None):
    s = spread([float(n), n + 1.0])
    return {"name": "toy", "title": "A toy", "settings": {"n": n}, "figures": {"s": s},
            "tables": [table("Toy", ["n", "spread"], [[n, s]])], "notes": []}


def chart(res, path):
    if __package__:
        from .charts import finish, plt
    else:
        from charts import finish, plt
    fig, ax = plt.subplots(figsize=(4, 2))
    ax.bar([0], [res["figures"]["s"]["median"]])
    return finish(fig, res, path)


BENCHMARK = Benchmark(name="toy", order=5, measure=measure, chart=chart, title="The toy section",
                      how="What the toy measures.", sizes={"full": dict(n=3), "quick": dict(n=2), "tiny": dict(n=1)},
                      source=Source())
'''


def test_a_new_benchmark_is_its_one_module(tmp_path, run_all):
    """Adding bench_toy.py to a copy of benchmarks/ is enough: run_all runs it at its sizes, charts draws
    its chart and BENCHMARKS.md gets its section, first by its order."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    here = Path(run_all.HERE)
    shutil.copytree(here, tmp_path / "benchmarks", ignore=shutil.ignore_patterns("results", "charts", "__pycache__"))
    (tmp_path / "tests").symlink_to(here.parent / "tests")
    (tmp_path / "benchmarks" / "bench_toy.py").write_text(TOY)
    # a quick run, no folders named: its own folder, benchmarks/quick/, never the committed results
    d = tmp_path / "benchmarks" / "quick"
    p = subprocess.run([sys.executable, str(tmp_path / "benchmarks" / "run_all.py"), "--only", "toy", "--quick"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "benchmarks" / "results").exists() and not (tmp_path / "benchmarks" / "charts").exists()
    assert not (tmp_path / "BENCHMARKS.md").exists()
    assert "into benchmarks/quick/results" in p.stdout and "benchmarks/quick/BENCHMARKS.md" in p.stdout
    res = json.loads((d / "results" / "toy.json").read_text())
    assert res["settings"] == {"n": 2} and res["run"] == "quick"
    assert list(res["source"]["files"]) == ["benchmarks/bench_toy.py"]
    assert (d / "charts" / "toy.png").read_bytes()[:8] == PNG
    md = (d / "BENCHMARKS.md").read_text()
    # under its heading (after a warning, when this machine is busier than its cores), its title and text
    section = md.split("## The toy section\n\n", 1)[1]
    if section.startswith("> **Measured on a busy machine**"):
        section = section.split("\n\n", 1)[1]
    assert section.startswith("A toy.\n\nWhat the toy measures.") and "(charts/toy.png)" in md
    assert f"*Source*: `{res['source']['hash']}`, 1 files: `benchmarks/bench_toy.py` (unchanged since)." in md
    # the toy's measuring code changes: its section is stale, said at the top and under its heading
    (tmp_path / "benchmarks" / "bench_toy.py").write_text(TOY.replace("n + 1.0", "n + 2.0"))
    p = subprocess.run([sys.executable, str(tmp_path / "benchmarks" / "run_all.py"), "--quick", "--no-run"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    md = (d / "BENCHMARKS.md").read_text()
    assert "**Stale: source changed since**: 1 of 1 sections" in md
    assert ("## The toy section\n\n> **Stale: source changed since.** The source it measures has changed "
            f"since it was measured (no commit recorded) (hash {res['source']['hash']} then, " in md)
    assert "now): `benchmarks/bench_toy.py`: these figures describe" in md
    assert "rerun: python benchmarks/run_all.py --only toy" in subprocess.run(
        [sys.executable, str(tmp_path / "benchmarks" / "run_all.py"), "--quick", "--check"],
        capture_output=True, text=True, timeout=300).stdout
    # --publish: a quick run into the committed results
    p = subprocess.run([sys.executable, str(tmp_path / "benchmarks" / "run_all.py"), "--only", "toy", "--quick",
                        "--publish"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "benchmarks" / "results" / "toy.json").read_text())["run"] == "quick"
    assert "## The toy section" in (tmp_path / "BENCHMARKS.md").read_text()


def test_a_result_measured_on_uncommitted_code_says_so(tmp_path, monkeypatch):
    """The machine line names the commit, and a run on changed library or benchmark code says
    "with uncommitted changes": its figures are not that commit's (a result in BENCHMARKS once
    named the parent of the code it measured)."""
    import subprocess
    (tmp_path / "shanghai_sim").mkdir()
    code = tmp_path / "shanghai_sim" / "x.py"
    code.write_text("A = 1\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=tmp_path, check=True)
    monkeypatch.setattr(common, "ROOT", tmp_path)
    (tmp_path / "notes.txt").write_text("untracked, not code\n")
    clean = common.machine()["commit"]
    assert clean and " " not in clean
    code.write_text("A = 2\n")
    assert common.machine()["commit"] == f"{clean} with uncommitted changes"


def test_each_run_size_has_its_own_folder(run_all):
    """Only a full run (or --publish) writes the committed results, charts and BENCHMARKS.md."""
    here, root = run_all.HERE, run_all.ROOT
    committed = (here / "results", here / "charts", root / "BENCHMARKS.md")
    assert run_all.outputs("full") == committed == run_all.outputs("quick", publish=True)
    assert run_all.outputs("quick") == (here / "quick" / "results", here / "quick" / "charts",
                                        here / "quick" / "BENCHMARKS.md")
    assert run_all.outputs("tiny")[0] == here / "tiny" / "results"
    assert run_all.outputs("full", out=root / "x") == (root / "x" / "results", root / "x" / "charts",
                                                       root / "x" / "BENCHMARKS.md")
    ignored = (here / ".gitignore").read_text().split()
    assert "/quick/" in ignored and "/tiny/" in ignored


@pytest.mark.parametrize("args, says", [
    (["--quick", "--tiny"], "--quick and --tiny: choose one run size"),
    (["--quick", "--publish", "--out", "X"], "--publish writes the committed results"),
    (["--out", "FILE"], "not a folder"),
])
def test_run_all_refuses_bad_options_in_one_line(run_all, tmp_path, capsys, args, says):
    (tmp_path / "FILE").write_text("")
    args = [str(tmp_path / a) if a in ("X", "FILE") else a for a in args]
    with pytest.raises(SystemExit) as e:
        run_all.main(args + ["--no-run"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def _git(cwd, *args):
    import subprocess
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                   cwd=cwd, check=True, capture_output=True)


def test_source_hash_follows_content_not_paths(tmp_path):
    """The source hash of a section: its files' contents, not their names. A file moved unchanged
    keeps it; a byte changed anywhere in it changes it; a benchmark's own record (its text, sizes)
    is not part of it; at a commit (``git show``) it is what the working tree had then. Kernel
    modules count with what they import, transitively, unless cut."""
    k = tmp_path / "shanghai_sim" / "kernels"
    k.mkdir(parents=True)
    (k / "search").mkdir()                # kernels in sub-folders count, by their dotted key
    (k / "top.py").write_text("from .mid import f\nfrom .search.rollout import g\n")
    (k / "mid.py").write_text("from shanghai_sim.kernels.low import h\n")
    (k / "low.py").write_text("H = 1\n")
    (k / "search" / "__init__.py").write_text("")
    (k / "search" / "rollout.py").write_text("from ..far import x\n")
    (k / "far.py").write_text("X = 1\n")
    (k / "other.py").write_text("Y = 1\n")
    (k / "compile").mkdir()
    (k / "compile" / "cache.py").write_text("# no kernel\n")
    (tmp_path / "benchmarks").mkdir()
    mod = tmp_path / "benchmarks" / "bench_toy.py"
    mod.write_text("def measure():\n    return 1\n\n\nBENCHMARK = Benchmark(\n    how='text',\n)\n")
    (tmp_path / "shanghai_sim" / "rules.py").write_text("R = 1\n")

    def files(src, commit=None):
        return common.source_files(src, "toy", common._Tree(commit, tmp_path))

    def hash_(src, commit=None):
        tree = common._Tree(commit, tmp_path)
        return common.content_hash(common._measuring_code(f, tree.read(f)) for f in files(src, commit))

    src = common.Source(kernels=("top",), files=("shanghai_sim/*.py",))
    assert files(src) == ["benchmarks/bench_toy.py", "shanghai_sim/kernels/far.py", "shanghai_sim/kernels/low.py",
                          "shanghai_sim/kernels/mid.py", "shanghai_sim/kernels/search/rollout.py",
                          "shanghai_sim/kernels/top.py", "shanghai_sim/rules.py"]
    cut = common.Source(kernels=("top",), cut=("search.rollout",))
    assert "shanghai_sim/kernels/search/rollout.py" not in files(cut) and "shanghai_sim/kernels/far.py" not in files(cut)
    with pytest.raises(ValueError, match="matches no file"):
        files(common.Source(files=("shanghai_sim/nothing*.py",)))
    with pytest.raises(ValueError, match="no kernel module nope"):
        files(common.Source(kernels=("nope",)))

    h = hash_(src)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "one")
    assert hash_(src, "HEAD") == h                           # git show gives the same bytes
    mod.write_text(mod.read_text().replace("'text'", "'other text'"))
    assert hash_(src) == h                                   # the record is not the measuring code
    (tmp_path / "shanghai_sim" / "rules.py").rename(tmp_path / "shanghai_sim" / "rules2.py")
    assert hash_(src) == h                                   # a file renamed unchanged: the same hash
    (k / "mid.py").write_bytes((k / "mid.py").read_bytes().replace(b"\n", b"\r\n"))
    assert hash_(src) == h                                   # a CRLF checkout of the same file
    (k / "far.py").write_text("X = 2\n")
    assert hash_(src) != h and hash_(cut) == hash_(cut, "HEAD")   # far.py: only through the cut rollout
    (k / "other.py").write_text("Y = 2\n")
    mod.write_text(mod.read_text().replace("return 1", "return 2"))
    assert hash_(cut) != hash_(cut, "HEAD")                  # the measuring code changed


def _sections(md: str) -> dict[str, str]:
    return {part.split("\n", 1)[0]: part for part in md.split("\n## ")[1:]}


def test_committed_sections_measured_todays_source():
    """Each committed section's result holds the hash of the source it measured; a section whose
    source has changed since must be rerun, or listed in STALE (benchmarks/_common.py) with the
    reason, and BENCHMARKS.md must say so under its heading. A listed section that is up to date
    again comes off the list."""
    import benchmarks.run_all as run_all
    results = run_all.load_results(run_all.HERE / "results")
    stale = common.stale_sections(results)
    unlisted = [f"section {n!r} of BENCHMARKS.md is stale: {why}. Rerun it: python benchmarks/run_all.py "
                f"--only {n} (or list it in STALE, benchmarks/_common.py, with the reason, and regenerate "
                "BENCHMARKS.md: python benchmarks/run_all.py --no-run)"
                for n, why in stale.items() if n not in common.STALE]
    assert not unlisted, "\n".join(unlisted)
    fresh_again = sorted(set(common.STALE) - set(stale))
    assert not fresh_again, (f"listed in STALE (benchmarks/_common.py) but up to date: {', '.join(fresh_again)}: "
                             "take them off and regenerate BENCHMARKS.md (python benchmarks/run_all.py --no-run)")
    md = _sections((run_all.ROOT / "BENCHMARKS.md").read_text())
    for b in common.benchmarks():
        res = results.get(b.name)
        if res is None:
            continue
        section = md[b.title]
        assert f"*Source*: `{res['source']['hash']}`" in section, (
            f"BENCHMARKS.md's {b.title!r} does not show its result's source: python benchmarks/run_all.py --no-run")
        marked = "> **Stale: source changed since.**" in section
        assert marked == (b.name in stale), (
            f"BENCHMARKS.md's {b.title!r} {'says' if marked else 'does not say'} it is stale, but it "
            f"{'is not' if marked else 'is'}: python benchmarks/run_all.py --no-run")


def test_stale_list_names_benchmarks_with_reasons():
    import benchmarks.run_all as run_all
    for name, why in common.STALE.items():
        assert name in run_all.ORDER and len(why) > 20, (name, why)


def test_a_section_measured_on_a_busy_machine_says_so():
    line = report._busy_line({"cores": 2, "load": [7.0, 7.61]})
    assert line.startswith("> **Measured on a busy machine**: load average 7.0 at the start, 7.6 at the end, on 2 cores")
    assert report._busy_line({"cores": 2, "load": [1.5, 2.0]}) == "" == report._busy_line({"cores": 2})
