"""What an experiment costs over running its arms as plain jobs (issue 15: at most 10% more).

    .venv/bin/python benchmarks/bench_experiment.py                # 2 arms x 2,000 deals x 4 seats
    .venv/bin/python benchmarks/bench_experiment.py --deals 500 --hand 8 --repeat 3

Both sides run in this process on the same threads, after one warm-up, so
neither pays for importing or compiling: the plain side is one
``runner.run`` per arm (the default rotating seating, the same number of
games: deals x players), the experiment side is ``run_experiment`` (the same
arms with duplicate seating, then the paired analysis, which streams every
part back). The best of ``--repeat`` runs is kept for each side.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

from shanghai_sim import runner
from shanghai_sim.experiment import Experiment, one_hand_rules, one_hand_spec, run_experiment
from shanghai_sim.rules import load_rules
from shanghai_sim.limits import parse_args


def plain(exp: Experiment, deals: int, root: str) -> float:
    rules = load_rules(exp.rules)
    players = exp.players or rules.players
    t0 = time.perf_counter()
    for i, arm in enumerate(exp.arms):
        bots = [arm.bot] + [exp.opponents or exp.baseline] * (players - 1)
        r = rules
        if exp.hand is not None:
            r = one_hand_rules(rules, exp.hand)
            bots = [one_hand_spec(b, exp.hand)[0] for b in bots]
        job = runner.Job(rules=r, players=players, bots=tuple(bots), games=deals * players, seed=exp.seed,
                         threads=exp.threads, out=os.path.join(root, f"plain{i}"))
        runner.run(runner.plan(job), progress=None)
    return time.perf_counter() - t0


def experiment(exp: Experiment, root: str) -> float:
    t0 = time.perf_counter()
    run_experiment(exp, os.path.join(root, "exp"), progress=None)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000, help="deals per arm (games = deals x players)")
    ap.add_argument("--hand", type=int, default=None, help="hand-level mode: only this hand")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=2)
    a = parse_args(ap)
    exp = Experiment(baseline="greedy", variants=("greedy:buy8=never",), games=a.deals, hand=a.hand,
                     threads=a.threads)
    best = {"plain": float("inf"), "experiment": float("inf")}
    warm = tempfile.mkdtemp(prefix="bench-exp-warm-")
    try:
        run_experiment(Experiment(baseline="greedy", variants=("greedy:buy8=never",), games=4, hand=a.hand),
                       os.path.join(warm, "w"), progress=None)      # compile / load the kernels once
    finally:
        shutil.rmtree(warm, ignore_errors=True)
    for _ in range(a.repeat):
        for side in ("plain", "experiment"):       # interleaved: load drifts hit both sides
            root = tempfile.mkdtemp(prefix="bench-exp-")
            try:
                s = plain(exp, a.deals, root) if side == "plain" else experiment(exp, root)
            finally:
                shutil.rmtree(root, ignore_errors=True)
            best[side] = min(best[side], s)
    games = 2 * a.deals * (exp.players or load_rules(exp.rules).players)
    mode = f"hand {a.hand} only" if a.hand else "whole games"
    print(f"2 arms x {a.deals:,} deals x 4 seats = {games:,} games ({mode}), best of {a.repeat}")
    print(f"  plain run jobs : {best['plain']:7.2f} s  ({games / best['plain']:,.0f} games/s)")
    print(f"  experiment     : {best['experiment']:7.2f} s  ({games / best['experiment']:,.0f} games/s)")
    over = best["experiment"] / best["plain"] - 1
    print(f"  overhead       : {over:+.1%}  (target: at most +10%)")


if __name__ == "__main__":
    main()
