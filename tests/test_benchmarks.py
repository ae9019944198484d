"""The benchmark pipeline on a tiny run: every result parses, every chart is a PNG,
and BENCHMARKS.md's tables are the JSON results, cell for cell. Not the timings."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run_all(bench):
    return bench("run_all")


@pytest.fixture(scope="module")
def fmt(bench):
    return bench("_common").fmt


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
        assert res["tables"] and all(t["rows"] for t in res["tables"])
        # the version a plain spec played, so the figure stays labelled once a bot moves on
        assert res["bot_versions"]["smart"] >= 3 and set(res["bot_versions"]) >= {"greedy", "rollout"}
    text = (tiny / "BENCHMARKS.md").read_text()
    assert text.count("*Bot versions*: a spec here without `v=` played") == len(run_all.ORDER)


def test_a_result_of_an_older_bot_names_the_spec_that_replays_it(bench):
    """A committed result played by a version that is no longer the newest says which spec
    replays it today; BENCHMARKS.md carries that line for the strength tables."""
    report = bench("report")
    from shanghai_sim.bots import BOTS
    line = report._versions_line({"greedy": BOTS["greedy"].version, "smart": 1})
    assert "played greedy 2, smart 1 (today: `smart:v=1`)" in line
    assert "(the newest today)" in report._versions_line({"smart": BOTS["smart"].version})
    assert report._versions_line(None) == ""
    from pathlib import Path
    md = (Path(report.__file__).parents[1] / "BENCHMARKS.md").read_text()
    section = md.split("## Bot strength")[1].split("\n## ")[0]
    assert "played greedy 2, smart 1 (today: `smart:v=1`)" in section


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


def test_every_benchmark_module_declares_its_record(run_all, bench):
    """One record per bench_*.py: its measure, its sizes for every run size, its chart and text."""
    from pathlib import Path
    common = bench("_common")
    mods = sorted(p.stem for p in Path(run_all.HERE).glob("bench_*.py"))
    assert sorted(f"bench_{n}" for n in run_all.ORDER) == mods
    for b in common.benchmarks():
        assert set(b.sizes) == {"full", "quick", "tiny"} and b.title and len(b.how) > 80
        assert b.measure is bench(f"bench_{b.name}").measure and callable(b.chart)


TOY = '''
from pathlib import Path
from _common import Benchmark, spread, table


def measure(n=1, progress=None):
    s = spread([float(n), n + 1.0])
    return {"name": "toy", "title": "A toy", "settings": {"n": n}, "figures": {"s": s},
            "tables": [table("Toy", ["n", "spread"], [[n, s]])], "notes": []}


def chart(res, path):
    from charts import finish, plt
    fig, ax = plt.subplots(figsize=(4, 2))
    ax.bar([0], [res["figures"]["s"]["median"]])
    return finish(fig, res, path)


BENCHMARK = Benchmark(name="toy", order=5, measure=measure, chart=chart, title="The toy section",
                      how="What the toy measures.", sizes={"full": dict(n=3), "quick": dict(n=2), "tiny": dict(n=1)})
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
    d = tmp_path / "out"
    p = subprocess.run([sys.executable, str(tmp_path / "benchmarks" / "run_all.py"), "--only", "toy", "--quick",
                        "--results", str(d / "results"), "--charts", str(d / "charts"),
                        "--markdown", str(d / "BENCHMARKS.md")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    res = json.loads((d / "results" / "toy.json").read_text())
    assert res["settings"] == {"n": 2} and res["run"] == "quick"
    assert (d / "charts" / "toy.png").read_bytes()[:8] == PNG
    md = (d / "BENCHMARKS.md").read_text()
    assert "## The toy section\n\nA toy.\n\nWhat the toy measures." in md and "(charts/toy.png)" in md


def test_a_result_measured_on_uncommitted_code_says_so(tmp_path, bench, monkeypatch):
    """The machine line names the commit, and a run on changed library or benchmark code says
    "with uncommitted changes": its figures are not that commit's (a result in BENCHMARKS once
    named the parent of the code it measured)."""
    import subprocess
    common = bench("_common")
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
