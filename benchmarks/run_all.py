"""Run every benchmark, write its JSON result, draw the charts, regenerate BENCHMARKS.md.

    python benchmarks/run_all.py             # the full run (about two hours on 2 cores, cold compiles included)
    python benchmarks/run_all.py --quick     # within 5 minutes on 2 cores with warm caches, no cold compiles
    python benchmarks/run_all.py --only engine [--quick]   # one benchmark; the others' results are kept

Needs the `bench` extra (``pip install -e '.[bench]'``; matplotlib, for the charts, is a dependency):
OpenSpiel and the mahjong package are the peers; without them their rows say n/a.

Writes ``benchmarks/results/NAME.json`` (figures, settings, machine, run size),
``benchmarks/charts/*.png`` and ``BENCHMARKS.md`` at the repository root, which
are drawn from every result present in ``benchmarks/results/``.
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

from _common import ROOT, machine  # noqa: E402

ORDER = ("melds", "growth", "engine", "runner", "verify", "startup", "bots", "strength", "play_quality",
         "playouts", "rollout", "browser")

# Sample sizes of each run size. "tiny" exists for the tests (the pipeline, not the timings).
SIZES: dict[str, dict[str, dict]] = {
    "full": {
        "melds": dict(hands=20_000, warm=100_000, reps=5, ref_hands=10, ref_reps=3,
                      shanten_hands=10_000),      # every preset in calls of 20,000 hands (issue #17)
        "growth": dict(hands=5_000, warm=10_000, reps=5, games=50,
                       scale={"progressive": 0.04}),
        "engine": dict(greedy_games=500, random_games=50, scale={"progressive": 0.02},
                       action_games=50, os_python_games=100, os_cpp_games=500,
                       floor_games=20_000, reps=5),
        "runner": dict(target_s=10.0, reps=3, stub_games=100_000,
                       rss_real=(1_000, 10_000, 50_000), rss_stub=(10_000, 100_000, 1_000_000)),
        "verify": dict(games=1_000_000, reps=3),
        "startup": dict(reps=5, cold=True, cold_reps=1),
        "bots": dict(games={"random": 50, "greedy": 500, "smart": 500}, reps=5, tournament_deals=200),
        "strength": dict(deals=10_000),
        "play_quality": dict(games=1_000, turn_cap_games=16_667),   # 100,002 games per bot and preset
        "playouts": dict(decisions=200, reps=7),
        "rollout": dict(deals=100, budgets=(4, 8, 16, 32, 64),
                        curve_deals={4: 160, 8: 160, 16: 100, 32: 50}),
        "browser": dict(loads=15, reps=3),
    },
    "quick": {
        "melds": dict(hands=5_000, warm=20_000, reps=3, ref_hands=3, ref_reps=3,
                      shanten_hands=2_000, scale={"progressive": 0.1}),
        "growth": dict(hands=4_000, warm=4_000, reps=3, games=10,
                       scale={"progressive": 0.1}),
        "engine": dict(greedy_games=100, random_games=20, scale={"progressive": 0.05},
                       action_games=20, os_python_games=30, os_cpp_games=200,
                       floor_games=2_000, reps=3),
        "runner": dict(target_s=2.0, reps=3, stub_games=20_000,
                       rss_real=(2_000,), rss_stub=(10_000, 100_000, 1_000_000)),
        "verify": dict(games=100_000, reps=3),
        "startup": dict(reps=3, cold=False),
        "bots": dict(games={"random": 20, "greedy": 100, "smart": 100}, reps=3, tournament_deals=20),
        "strength": dict(deals=1_000),
        "play_quality": dict(games=100, turn_cap_games=100),
        "playouts": dict(decisions=100, reps=3),
        # small search budgets: the quick run stays within 5 minutes on 2 cores (the budget
        # curve to the default rollouts=64 is the full run's)
        "rollout": dict(deals=12, budgets=(2, 4, 8), default="rollout:rollouts=8",
                        presets=("shanghai",)),
        "browser": dict(loads=5, reps=1),
    },
    "tiny": {
        "melds": dict(presets=("shanghai",), hands=20, warm=20, reps=2, ref_hands=1, ref_reps=1,
                      shanten_hands=20),
        "growth": dict(sizes=(10, 12), jokers=(0, 1), contracts=(1, 7), hands=10, warm=10, reps=2,
                       players=(2, 4), presets=("shanghai",), games=1),
        "engine": dict(presets=("shanghai",), greedy_games=2, random_games=1, action_games=1,
                       os_python_games=1, os_cpp_games=2, floor_games=10, reps=2),
        "runner": dict(games=4, reps=2, max_threads=2, stub_games=200, rss_real=(2,),
                       rss_stub=(200,)),
        "verify": dict(games=300, reps=2),
        "startup": dict(reps=1, cold=False),
        "bots": dict(games={"random": 1, "greedy": 2, "smart": 2}, reps=2, tournament_deals=2),
        "strength": dict(deals=2, presets=("shanghai",)),
        "play_quality": dict(presets=("shanghai",), games=2, turn_cap_games=2, turn_cap_players=(3,)),
        "playouts": dict(k=2, decisions=2, reps=2),
        "rollout": dict(deals=2, presets=("shanghai",), budgets=(2,),
                        default="rollout:rollouts=2:candidates=2"),
        "browser": dict(game=dict(bots="greedy", seed=1), loads=1, reps=1, steps=30),
    },
}


def _module(name: str):
    import importlib
    return importlib.import_module(f"bench_{name}")


def run_one(name: str, size: str, progress=print) -> dict:
    t = time.perf_counter()
    res = _module(name).measure(progress=progress, **SIZES[size][name])
    res["seconds"] = time.perf_counter() - t
    res["run"] = size
    res["machine"] = machine()
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
