"""Run every benchmark, write its JSON result, draw the charts, regenerate BENCHMARKS.md.

    python benchmarks/run_all.py             # the full run (about two hours on 2 cores, cold compiles included)
    python benchmarks/run_all.py --quick     # within 5 minutes on 2 cores with warm caches, no cold compiles
    python benchmarks/run_all.py --only engine [--quick]   # one benchmark; the others' results are kept

Needs the `bench` extra (``pip install -e '.[bench]'``; matplotlib, for the charts, is a dependency):
OpenSpiel and the mahjong package are the peers; without them their rows say n/a.

Writes ``benchmarks/results/NAME.json`` (figures, settings, machine, run size),
``benchmarks/charts/*.png`` and ``BENCHMARKS.md`` at the repository root, which
are drawn from every result present in ``benchmarks/results/``. The benchmarks, their
sizes per run, charts and text are their modules' ``BENCHMARK`` records (``_common.Benchmark``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))          # tests/reference.py, the Python peer

from _common import ROOT, benchmarks, bot_versions_now, machine  # noqa: E402

BENCHMARKS = {b.name: b for b in benchmarks()}     # each bench_*.py's record, in its order
ORDER = tuple(BENCHMARKS)


def run_one(name: str, size: str, progress=print) -> dict:
    t = time.perf_counter()
    b = BENCHMARKS[name]
    res = b.measure(progress=progress, **b.sizes[size])
    res["seconds"] = time.perf_counter() - t
    res["run"] = size
    res["machine"] = machine()
    res["bot_versions"] = bot_versions_now()
    return res


def load_results(results_dir: Path) -> dict[str, dict]:
    out = {}
    for name in ORDER:
        p = results_dir / f"{name}.json"
        if p.exists():
            out[name] = json.loads(p.read_text())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small samples, no cold compiles (minutes)")
    ap.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # the tests' size
    ap.add_argument("--only", choices=ORDER, action="append",
                    help="run this benchmark only (repeatable); the others' results are kept")
    ap.add_argument("--no-run", action="store_true",
                    help="only redraw the charts and BENCHMARKS.md from the results present")
    ap.add_argument("--results", type=Path, default=HERE / "results")
    ap.add_argument("--charts", type=Path, default=HERE / "charts")
    ap.add_argument("--markdown", type=Path, default=ROOT / "BENCHMARKS.md")
    a = ap.parse_args(argv)
    size = "tiny" if a.tiny else "quick" if a.quick else "full"
    a.results.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if not a.no_run:
        for name in a.only or ORDER:
            print(f"[{name}] {size} run ...", flush=True)
            res = run_one(name, size)
            (a.results / f"{name}.json").write_text(json.dumps(res, indent=1) + "\n")
            print(f"[{name}] done in {res['seconds']:.0f} s", flush=True)
    import charts
    import report
    results = load_results(a.results)
    paths = charts.draw_all(results, a.charts)
    a.markdown.write_text(report.render(results, paths, a.markdown.parent))
    print(f"wrote {len(results)} results, {len(paths)} charts, {a.markdown} "
          f"in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
