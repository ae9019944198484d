"""Tune the `smart` bot's weights by coordinate search, against three `greedy` bots.

Each candidate plays a tournament (``shanghai_sim.tournament``): one `smart` and three
`greedy`, every deal in all four seatings, on *tuning* seeds (default job seed
7000000, kept apart from the seed 1 that the strength benchmark and docs/bots.md
report on). The objective is smart's win share per seat held, averaged over the
rules presets given; all candidates of a round play the same deals (common random
numbers), so their differences are less noisy than their levels.

Coordinate search: for each weight in turn, try each value of its grid with the
others fixed; keep the best if it beats the incumbent by more than ``--margin``
(a guard against chasing noise), then move on. Every evaluation is written to
``analyses/results/tune_smart.json`` with the seeds, deals, rules and versions, so
the tuning is reproducible from the record alone.

    python analyses/tune_smart.py --deals 1000 --rounds 1
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import time
from pathlib import Path

GRID = {
    "outs": [0, 0.25, 0.5, 1, 2, 4],
    "partner": [0, 1, 1.5, 2, 3, 6],
    "points": [0.1, 0.3, 0.6, 1.2, 2, 4],
    "late": [0, 0.5, 1, 2, 4],
    "feed": [0, 2, 4, 6, 8, 16, 32],
    "buy_dmax": [1, 2, 3, 4, 6, 8, 99],
    "buy_short": [0, 2, 4, 6, 8],
    "dump": [0, 2, 3, 4, 6],
}


def spec_of(params: dict) -> str:
    return "smart" + "".join(f":{k}={v:g}" for k, v in params.items())


def evaluate(params: dict, rules: list[str], deals: int, seed: int) -> dict:
    from shanghai_sim.tournament import Tournament, run_tournament
    out = {"spec": spec_of(params), "by_rules": {}}
    for r in rules:
        with tempfile.TemporaryDirectory() as d:
            res = run_tournament(Tournament((spec_of(params), "greedy", "greedy", "greedy"), rules=r,
                                            deals=deals, seed=seed), d + "/t", progress=None)
        b = res.bots[0]
        out["by_rules"][r] = {"win_share": b.figures["win_share"].mean, "points": b.figures["points"].mean,
                              "went_out": b.figures["went_out"].mean,
                              "d_points_greedy": res.bots[1].effects["points"].mean,
                              "no_winner_hands": res.no_winner_hands, "turn_cap_hands": res.turn_cap_hands}
    out["objective"] = sum(v["win_share"] for v in out["by_rules"].values()) / len(rules)
    return out


def main(argv=None) -> int:
    import analyses_common as C
    ap = C.Parser(prog="analyses/tune_smart.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7000000, help="tuning job seed (not the measuring seed 1)")
    ap.add_argument("--rules", default="shanghai,contract")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--margin", type=float, default=0.004, help="win share a change must gain to be kept")
    ap.add_argument("--only", default="", help="comma-separated weights to search (default: all)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "tune_smart.json"))
    a = ap.parse_args(argv)
    return C.main_guard(lambda: tune(a, C))


def _check(a, C) -> None:
    """Every option checked before the first tournament: one line and exit 2 otherwise."""
    import math
    if a.deals < 2:
        raise C.AnalysisError(f"--deals {a.deals}: at least 2 deals (a CI needs two)")
    if a.rounds < 0:
        raise C.AnalysisError(f"--rounds {a.rounds}: must be 0 or more")
    if not math.isfinite(a.margin) or a.margin < 0:
        raise C.AnalysisError(f"--margin {a.margin}: must be a win share of 0 or more")
    unknown = [k for k in (a.only.split(",") if a.only else []) if k not in GRID]
    if unknown:
        raise C.AnalysisError(f"--only {unknown[0]!r}: not a weight searched here (choose from {', '.join(GRID)})")
    C.parse_presets(a.rules, "--rules")
    out = Path(a.out)
    if out.is_dir():
        raise C.AnalysisError(f"--out {a.out}: is a folder; give the JSON file to write")
    out.parent.mkdir(parents=True, exist_ok=True)         # an unwritable --out fails now, not after hours


def tune(a, C) -> int:
    _check(a, C)
    from shanghai_sim import __version__
    from shanghai_sim.bots import BOTS
    info = BOTS["smart"]
    best = {p.key: p.default for p in info.params if p.key in GRID}
    rules = C.parse_presets(a.rules, "--rules")
    names = a.only.split(",") if a.only else list(GRID)
    log = []
    t0 = time.time()
    cur = evaluate(best, rules, a.deals, a.seed)
    log.append(cur)
    print(f"start {cur['spec']}: {cur['objective']:.4f}", flush=True)
    for rnd in range(a.rounds):
        for k in names:
            for v in GRID[k]:
                if v == best[k]:
                    continue
                trial = dict(best, **{k: v})
                r = evaluate(trial, rules, a.deals, a.seed)
                r["round"] = rnd
                log.append(r)
                print(f"  {k}={v:g}: {r['objective']:.4f} (best {cur['objective']:.4f})", flush=True)
                if r["objective"] > cur["objective"] + a.margin:
                    best, cur = trial, r
            print(f"round {rnd} {k}: keep {k}={best[k]:g} -> {cur['objective']:.4f}", flush=True)
    record = {"what": "coordinate search of smart's weights against three greedy bots",
              "package_version": __version__, "bot_version": info.version,
              "greedy_version": BOTS["greedy"].version, "rules": rules, "deals_per_candidate": a.deals,
              "seatings_per_deal": 4, "tuning_seed": a.seed, "margin": a.margin, "rounds": a.rounds,
              "grid": GRID, "best": best, "best_spec": spec_of(best), "best_result": cur,
              "evaluations": log, "seconds": round(time.time() - t0, 1),
              "machine": f"{platform.machine()}, {platform.python_version()}"}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(record, indent=1) + "\n")
    print(f"best {spec_of(best)}: {cur['objective']:.4f}; written {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
