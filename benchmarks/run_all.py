"""Run every benchmark, write its JSON result, draw the charts, regenerate BENCHMARKS.md.

    python benchmarks/run_all.py             # the full run (about two hours on 2 cores, cold compiles included)
    python benchmarks/run_all.py --only engine             # one benchmark, full size; the others' results are kept
    python benchmarks/run_all.py --check     # which committed sections measured code that has changed since
    python benchmarks/run_all.py --quick     # within 5 minutes on 2 cores with warm caches, into benchmarks/quick/

Needs the `bench` extra (``pip install -e '.[bench]'``; matplotlib, for the charts, is a dependency):
OpenSpiel and the mahjong package are the peers; without them their rows say n/a.

A full run (all, or ``--only``) writes ``benchmarks/results/NAME.json`` (figures, settings,
machine, run size, and the hash of the source it measured), ``benchmarks/charts/*.png`` and
``BENCHMARKS.md`` at the repository root: the committed results, drawn from every result present
in ``benchmarks/results/``. A ``--quick`` or ``--tiny`` run writes the same files under
``benchmarks/quick/`` or ``benchmarks/tiny/`` (git-ignored) instead, unless ``--publish`` (or
``--out DIR``, or ``--results``/``--charts``/``--markdown``) says where. ``--no-run`` redraws
the charts and the markdown of a size's folder from its results. The benchmarks, their sizes
per run, the source each measures, charts and text are their modules' ``BENCHMARK`` records
(``_common.Benchmark``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

if __package__:                      # imported: benchmarks.run_all (the tests, python -m benchmarks.run_all)
    from ._common import (ROOT, STALE, benchmarks, bot_versions_now, machine, recorded_commit,
                          source_now, stale_sections)
else:                                # python benchmarks/run_all.py: this folder is sys.path[0]
    from _common import (ROOT, STALE, benchmarks, bot_versions_now, machine, recorded_commit,
                         source_now, stale_sections)

HERE = Path(__file__).resolve().parent

BENCHMARKS = {b.name: b for b in benchmarks()}     # each bench_*.py's record, in its order
ORDER = tuple(BENCHMARKS)


def run_one(name: str, size: str, progress=print) -> dict:
    t = time.perf_counter()
    b = BENCHMARKS[name]
    load = os.getloadavg()[0]
    source = source_now(b)          # the code measured, as it is as the run starts (uncommitted edits included)
    res = b.measure(progress=progress, **b.sizes[size])
    res["seconds"] = time.perf_counter() - t
    res["run"] = size
    res["machine"] = machine()
    # the 1-minute load average as the benchmark started and ended: on a shared machine, how busy
    # the cores were while it timed (the ratios to peers timed in the same run suffer least)
    res["machine"]["load"] = [round(load, 2), round(os.getloadavg()[0], 2)]
    res["bot_versions"] = bot_versions_now()
    res["source"] = source
    return res


def load_results(results_dir: Path) -> dict[str, dict]:
    out = {}
    for name in ORDER:
        p = results_dir / f"{name}.json"
        if p.exists():
            out[name] = json.loads(p.read_text())
    return out


def outputs(size: str, publish: bool = False, out: Path | None = None) -> tuple[Path, Path, Path]:
    """Where a run of ``size`` writes its results, charts and markdown: the committed ones for a
    full run (or ``publish``), a git-ignored folder of its own for the others, or ``out``."""
    if out is None and (size == "full" or publish):
        return HERE / "results", HERE / "charts", ROOT / "BENCHMARKS.md"
    d = out if out is not None else HERE / size
    return d / "results", d / "charts", d / "BENCHMARKS.md"


def record_source(results_dir: Path, say=print) -> int:
    """Give each result in ``results_dir`` that has no ``source`` the hash of the source it measured:
    its benchmark's source at the commit it recorded (``git show``), so a result measured before the
    hashes were recorded is judged like any other. A result measured on uncommitted changes (or with
    no commit) cannot be: it stays without one, and stale. Returns how many were given one."""
    n = 0
    for b in benchmarks():
        p = results_dir / f"{b.name}.json"
        if not p.exists():
            continue
        res = json.loads(p.read_text())
        if res.get("source"):
            continue
        commit = recorded_commit(res)
        if commit is None:
            say(f"[{b.name}] measured on {res.get('machine', {}).get('commit')!r}: no commit to hash, left stale")
            continue
        res["source"] = source_now(b, commit)
        p.write_text(json.dumps(res, indent=1) + "\n")
        n += 1
        fresh = res["source"]["hash"] == source_now(b)["hash"]
        say(f"[{b.name}] source at {commit}: {res['source']['hash']} "
            f"({'the same today' if fresh else 'changed since: stale'})")
    return n


def check(results_dir: Path, say=print) -> int:
    """Say, for each result in ``results_dir``, whether the source it measured has changed since;
    exit status 1 if any has."""
    results = load_results(results_dir)
    stale = stale_sections(results)
    for name, res in results.items():
        when = (f"{res.get('run')} run at {res.get('machine', {}).get('commit')}, "
                f"{res.get('seconds', 0) / 60:.1f} minutes")
        if name in stale:
            known = f" (listed in STALE: {STALE[name]})" if name in STALE else ""
            say(f"{name:13s} stale: {stale[name]}{known}; {when}; rerun: python benchmarks/run_all.py --only {name}")
        else:
            say(f"{name:13s} up to date: source {res['source']['hash']}; {when}")
    for name in sorted(set(ORDER) - set(results)):
        say(f"{name:13s} no result in {results_dir}")
    return 1 if stale else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="small samples, no cold compiles (minutes); writes to benchmarks/quick/ unless --publish")
    ap.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # the tests' size: benchmarks/tiny/
    ap.add_argument("--only", choices=ORDER, action="append",
                    help="run this benchmark only (repeatable); the others' results are kept")
    ap.add_argument("--no-run", action="store_true",
                    help="only redraw the charts and BENCHMARKS.md from the results present")
    ap.add_argument("--publish", action="store_true",
                    help="write a --quick run into the committed results, charts and BENCHMARKS.md")
    ap.add_argument("--out", type=Path, metavar="DIR",
                    help="write results/, charts/ and BENCHMARKS.md under DIR instead")
    ap.add_argument("--check", action="store_true",
                    help="say which results measured source that has changed since (exit 1 if any); runs nothing")
    ap.add_argument("--record-source", action="store_true",
                    help="give results without a source hash the one of the source at their commit; runs nothing")
    ap.add_argument("--results", type=Path, help="the results folder (overrides --out)")
    ap.add_argument("--charts", type=Path, help="the charts folder (overrides --out)")
    ap.add_argument("--markdown", type=Path, help="the markdown file (overrides --out)")
    a = ap.parse_args(argv)
    if a.quick and a.tiny:
        ap.error("--quick and --tiny: choose one run size")
    if a.publish and a.out is not None:
        ap.error("--publish writes the committed results; --out DIR writes elsewhere: choose one")
    size = "tiny" if a.tiny else "quick" if a.quick else "full"
    results_dir, charts_dir, markdown = outputs(size, a.publish, a.out)
    results_dir, charts_dir, markdown = a.results or results_dir, a.charts or charts_dir, a.markdown or markdown
    for what, p in (("--out", a.out), ("--results", results_dir), ("--charts", charts_dir)):
        if p is not None and p.exists() and not p.is_dir():
            ap.error(f"{what} {p}: not a folder")
    if markdown.is_dir():
        ap.error(f"--markdown {markdown}: a folder, not a file")
    if a.check:
        return check(results_dir)
    if a.record_source:
        record_source(results_dir)
        return 0
    results_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if not a.no_run:
        for name in a.only or ORDER:
            print(f"[{name}] {size} run into {_shown(results_dir)} ...", flush=True)
            res = run_one(name, size)
            (results_dir / f"{name}.json").write_text(json.dumps(res, indent=1) + "\n")
            print(f"[{name}] done in {res['seconds']:.0f} s", flush=True)
    if __package__:
        from . import charts, report
    else:
        import charts
        import report
    results = load_results(results_dir)
    paths = charts.draw_all(results, charts_dir)
    markdown.write_text(report.render(results, paths, markdown.parent))
    print(f"wrote {len(results)} results, {len(paths)} charts, {_shown(markdown)} "
          f"in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


def _shown(p: Path) -> str:
    """A path as the user would type it: from the repository root when it is inside."""
    try:
        return Path(p).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(p)


if __name__ == "__main__":
    sys.exit(main())
