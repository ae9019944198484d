"""Meld-finder speed: deficiency evaluations per second on one thread.

For each contract of a preset, random hands from the shoe the rules deal for
4 players (shanghai: 2 packs + 4 jokers), 12 cards (14 for hands 8-10, where
buys are usual). After a warm-up on other hands of the same distribution
(compilation and the per-suit memo), it times ``deficiency_ws_nb`` over the
measured hands (the median of ``--reps`` passes, each over fresh hands) and
``laydown_nb`` (satisfiable + deadwood) over the last pass's hands, and the plain Python reference of tests/reference.py on a sample, so
the table shows the speed-up over the reference measured in the same run.

    python benchmarks/bench_melds.py            # the full table (about 2-4 minutes)
    python benchmarks/bench_melds.py --quick    # fewer hands
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from shanghai_sim import rules as R  # noqa: E402
from shanghai_sim.kernels import melds as K  # noqa: E402
from shanghai_sim.rules import MAX_MELDS, P_INITIAL_EXACT, P_SAME_SUIT_GAP  # noqa: E402


def shoe_of(r: R.Rules) -> np.ndarray:
    packs, jokers = r.decks_for(4), r.jokers_for(4)
    return np.array([c for c in range(52) for _ in range(packs)] + [52] * jokers)


def draw(rng, shoe, n_hands, size):
    out = np.zeros((n_hands, 53), np.int64)
    for i in range(n_hands):
        out[i] = np.bincount(rng.choice(shoe, size, replace=False), minlength=53)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="shanghai")
    ap.add_argument("--hands", type=int, default=50_000, help="measured hands per contract")
    ap.add_argument("--ref-hands", type=int, default=20, help="hands per contract for the reference")
    ap.add_argument("--warm", type=int, default=200_000,
                    help="warm-up hands per contract (compilation and the per-suit memo)")
    ap.add_argument("--reps", type=int, default=5,
                    help="timed passes, each over fresh hands; the table gives the median")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="5,000 hands, 5 reference hands")
    args = ap.parse_args()
    if args.quick:
        args.hands, args.ref_hands, args.warm = 5_000, 5, 20_000
    r = R.load_rules(args.rules)
    a = r.arrays()
    exact, gap = a.params[P_INITIAL_EXACT], a.params[P_SAME_SUIT_GAP]
    rng = np.random.default_rng(args.seed)
    shoe = shoe_of(r)
    try:
        from reference import reference_analysis
    except ImportError:
        reference_analysis = None
    rows = []
    print(f"rules {r.name}; shoe {len(shoe)} cards; {args.hands:,} hands per contract; one thread",
          flush=True)
    print(f"warm-up: {args.warm:,} hands per contract; 'cold' = the same hands with an empty memo")
    print(f"{'hand':>4} {'contract':<22} {'cards':>5} {'deficiency/s':>14} {'cold/s':>12} {'sat+deadwood/s':>15} "
          f"{'reference/s':>12} {'speed-up':>9} {'mean def':>8}", flush=True)
    for h in range(r.hands):
        size = 14 if h >= 7 else 12
        kinds, sizes, nm = a.meld_kind[h], a.meld_size[h], a.n_melds[h]
        cache = K.new_cache()
        # every pass's hands drawn now, so no Python work runs between the timed passes
        tests = [draw(rng, shoe, args.hands, size) for _ in range(args.reps)]
        test = tests[0]
        out = np.empty(args.hands, np.int64)
        # Cold: a fresh memo (compilation excluded by a first tiny call).
        K.deficiency_batch_nb(test[:1], kinds, sizes, nm, a.joker_cap, exact, gap, out, *K.new_cache())
        t = time.perf_counter()
        K.deficiency_batch_nb(test, kinds, sizes, nm, a.joker_cap, exact, gap, out, *K.new_cache())
        cold = len(test) / (time.perf_counter() - t)
        done = 0
        while done < args.warm:
            warm = draw(rng, shoe, min(50_000, args.warm - done), size)
            K.deficiency_batch_nb(warm, kinds, sizes, nm, a.joker_cap, exact, gap,
                                  np.empty(len(warm), np.int64), *cache)
            done += len(warm)
        # The median of several passes, each over hands not seen before (one pass of
        # 50,000 hands lasts about 20 ms: a single timing is at the mercy of the machine),
        # back to back right after the warm-up, as the single pass was before.
        rates, defs = [], []
        for test in tests:
            t = time.perf_counter()
            K.deficiency_batch_nb(test, kinds, sizes, nm, a.joker_cap, exact, gap, out, *cache)
            rates.append(len(test) / (time.perf_counter() - t))
            defs.append(out.mean())
        dps = statistics.median(rates)
        mean_def = float(np.mean(defs))
        lay = np.zeros((MAX_MELDS, K.LAY_W), np.int64)
        n_lay = min(len(test), 20_000)
        K.laydown_nb(test[0], kinds, sizes, nm, a.joker_cap, exact, gap, a.points, lay)
        t = time.perf_counter()
        for i in range(n_lay):
            K.laydown_nb(test[i], kinds, sizes, nm, a.joker_cap, exact, gap, a.points, lay)
        lps = n_lay / (time.perf_counter() - t)
        rps = float("nan")
        if reference_analysis is not None and args.ref_hands > 0:
            spec = r.contracts[h].melds
            t = time.perf_counter()
            for i in range(args.ref_hands):
                reference_analysis(test[i], spec, r)
            rps = args.ref_hands / (time.perf_counter() - t)
        rows.append((h + 1, str(r.contracts[h]), size, dps, lps, rps, mean_def))
        print(f"{h + 1:>4} {str(r.contracts[h]):<22} {size:>5} {dps:>14,.0f} {cold:>12,.0f} "
              f"{lps:>15,.0f} {rps:>12,.1f} {dps / rps:>8,.0f}x {mean_def:>8.2f}", flush=True)
    d = [row[3] for row in rows]
    print(f"median deficiency/s over the contracts: {statistics.median(d):,.0f}; "
          f"slowest: {min(d):,.0f} (hand {rows[int(np.argmin(d))][0]})")


if __name__ == "__main__":
    main()
