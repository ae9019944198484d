"""Meld-finder speed: deficiency evaluations per second on one thread.

For each contract of a preset, random hands from the shoe the rules deal for
4 players (shanghai: 2 packs + 4 jokers), 12 cards (14 for hands 8-10, where
buys are usual). With a fresh memo per pass ("cold"); then after a warm-up of
``--warm`` hands through the public ``deficiency_batch`` called in a loop (each call
``hands`` fresh hands; it keeps its memo per thread and rules across calls), alternately
on fresh hands with that same memo: the kernel alone (``deficiency_batch_nb``, "warm")
and the public call (checks and set-up included), the median of ``--reps`` passes each;
the
lay-down of hands that meet the contract (``laydown_sat_nb``, the engine's call when
a player goes down: the least-deadwood melds), and the plain
Python reference of tests/reference.py on a sample, so the table shows the
speed-up over the reference measured in the same run. ``measure()`` is what
``run_all.py`` calls (every preset, and the mahjong shanten peer).

    python benchmarks/bench_melds.py            # the full table (about 2-4 minutes)
    python benchmarks/bench_melds.py --quick    # fewer hands
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from shanghai_sim import rules as R
from shanghai_sim.hand import NO_SHOE_LIMIT, _memo, deficiency_batch
from shanghai_sim.kernels.melds import finder as K
from shanghai_sim.rules import MAX_MELDS
from shanghai_sim.kernels.base.layout import RUN
from shanghai_sim.limits import parse_args

if __package__:                      # imported: benchmarks.bench_melds (run_all, the tests)
    from ._common import Benchmark, Source, peer, rates, ratio, table
else:                                # python benchmarks/bench_melds.py: this folder is sys.path[0]
    from _common import Benchmark, Source, peer, rates, ratio, table


ANY = NO_SHOE_LIMIT       # the kernel's shoe check off


def memo_of(a) -> tuple:
    """The memo deficiency_batch keeps for these rules on this thread."""
    return _memo(a.joker_cap, int(a.params.initial_exact), int(a.params.same_suit_gap))


def shoe_of(r: R.Rules) -> np.ndarray:
    packs, jokers = r.decks_for(4), r.jokers_for(4)
    return np.array([c for c in range(52) for _ in range(packs)] + [52] * jokers)


def draw(rng, shoe, n_hands, size):
    out = np.zeros((n_hands, 53), np.int64)
    for i in range(n_hands):
        out[i] = np.bincount(rng.choice(shoe, size, replace=False), minlength=53)
    return out


def draw_meeting(rng, shoe, kinds, sizes, nm, n_hands, size):
    """Hands that meet the contract: its melds built from natural cards of the shoe (a set:
    one rank in any suits; a run: one suit, consecutive, ace low or high), then random
    cards of what is left up to ``size`` (at least the melds' cards). Some may still fail
    the contract (runs of one suit too close under the rules' gap): the caller filters."""
    avail0 = np.bincount(shoe, minlength=53)
    out = np.zeros((n_hands, 53), np.int64)
    need = int(sum(sizes[:nm]))
    i = 0
    while i < n_hands:
        avail = avail0.copy()
        hand = np.zeros(53, np.int64)
        ok = True
        for m in range(nm):
            s = int(sizes[m])
            if kinds[m] == RUN:
                x, lo = rng.integers(4), rng.integers(0, 14 - s + 1)
                cards = [x * 13 + (p - 13 if p == 13 else p) for p in range(lo, lo + s)]
            else:
                r = rng.integers(13)
                cards = [x * 13 + r for x in rng.integers(0, 4, s)]
            for c in cards:
                if avail[c] == 0:
                    ok = False
                    break
                avail[c] -= 1
                hand[c] += 1
            if not ok:
                break
        if not ok:
            continue
        rest = np.repeat(np.arange(53), avail)
        hand += np.bincount(rng.choice(rest, max(size, need) - need, replace=False), minlength=53)
        out[i] = hand
        i += 1
    return out


def _ref_fn():
    """The Python reference's hand analysis (tests/reference.py), or None without tests/."""
    try:
        return peer("reference").reference_analysis
    except (ImportError, OSError):
        return None


def contract_rows(rules: str, hands: int, warm: int, reps: int, ref_hands: int, ref_reps: int,
                  seed: int = 1, progress=None) -> list[dict]:
    """Per contract of ``rules``: deficiency/s with a warm memo and cold (a fresh memo per
    pass), lay-downs/s, and the Python reference's evaluations/s, each over ``reps`` passes."""
    r = R.load_rules(rules)
    a = r.arrays()
    exact, gap = a.params.initial_exact, a.params.same_suit_gap
    rng = np.random.default_rng(seed)
    shoe = shoe_of(r)
    reference_analysis = _ref_fn()
    rows = []
    for h in range(r.hands):
        size = 14 if h >= 7 else 12
        kinds, sizes, nm = a.meld_kind[h], a.meld_size[h], a.n_melds[h]
        C = K.Contract(kinds, sizes, nm, a.joker_cap, exact, gap)
        # every pass's hands drawn now, so no Python work runs between the timed passes
        tests = [draw(rng, shoe, hands, size) for _ in range(reps)]
        out = np.empty(hands, np.int64)
        # Cold: a fresh memo per pass (compilation excluded by a first tiny call).
        K.deficiency_batch_nb(tests[0][:1], C, out, K.new_cache(),
                              ANY, ANY)
        cold = []
        for test in tests:
            t = time.perf_counter()
            K.deficiency_batch_nb(test, C, out, K.new_cache(), ANY, ANY)
            cold.append((len(test), time.perf_counter() - t))
        # Warm-up: the public deficiency_batch in a loop of calls of `hands` fresh hands, as a
        # user calls it; it keeps its memo (per thread and rules) across the calls.
        done = 0
        while done < warm:
            deficiency_batch(draw(rng, shoe, hands, size), h + 1, r)
            done += hands
        cache = memo_of(a)
        # Then, alternately on fresh hands and with that same memo: the kernel alone (warm) and
        # the public call (its checks and set-up included), so the two differ by the call only.
        hot, calls, defs = [], [], []
        for test in tests:
            t = time.perf_counter()
            K.deficiency_batch_nb(test, C, out, cache, ANY, ANY)
            hot.append((len(test), time.perf_counter() - t))
            defs.append(out.mean())
            batch = draw(rng, shoe, hands, size)
            t = time.perf_counter()
            deficiency_batch(batch, h + 1, r)
            calls.append((hands, time.perf_counter() - t))
        lay = np.zeros((MAX_MELDS, K.LAY_W), np.int64)
        n_lay = min(hands, 20_000)
        lays = []
        for _ in range(reps):
            meet = draw_meeting(rng, shoe, kinds, sizes, nm, n_lay, size)
            d = np.empty(n_lay, np.int64)
            K.deficiency_batch_nb(meet, C, d, cache, ANY, ANY)
            meet = meet[d == 0]
            K.laydown_sat_nb(meet[0], C, a.points, lay)
            t = time.perf_counter()
            for i in range(len(meet)):
                K.laydown_sat_nb(meet[i], C, a.points, lay)
            lays.append((len(meet), time.perf_counter() - t))
        ref = []
        if reference_analysis is not None and ref_hands > 0:
            spec = r.contracts[h].melds
            for k in range(ref_reps):
                test = tests[k % len(tests)]
                t = time.perf_counter()
                for i in range(ref_hands):
                    reference_analysis(test[i], spec, r)
                ref.append((ref_hands, time.perf_counter() - t))
        row = {"rules": r.name, "hand": h + 1, "contract": str(r.contracts[h]), "cards": size,
               "deficiency": rates(hot), "cold": rates(cold), "calls": rates(calls), "laydown": rates(lays),
               "reference": rates(ref), "mean_deficiency": float(np.mean(defs))}
        rows.append(row)
        if progress:
            progress(f"  {r.name} hand {h + 1} {row['contract']}: "
                     f"{row['deficiency']['median']:,.0f} deficiency/s")
    return rows


def shanten_rate(hands: int, reps: int, seed: int = 1) -> dict | None:
    """The `mahjong` package's shanten number (pure Python) on random 13-tile hands:
    the nearest public analogue of ``deficiency`` (another game: riichi mahjong)."""
    try:
        from mahjong.shanten import Shanten
    except ImportError:
        return None
    rng = np.random.default_rng(seed)
    sh = Shanten()
    passes = []
    for _ in range(reps):
        tiles = []
        for _ in range(hands):
            t34 = [0] * 34
            for tile in rng.choice(136, 13, replace=False):
                t34[tile // 4] += 1
            tiles.append(t34)
        t = time.perf_counter()
        for t34 in tiles:
            sh.calculate_shanten(t34)
        passes.append((hands, time.perf_counter() - t))
    return rates(passes)


def measure(presets=("shanghai", "contract", "progressive"), hands=5_000, warm=20_000, reps=3,
            ref_hands=5, ref_reps=3, shanten_hands=2_000, scale=None, seed=1, progress=None) -> dict:
    """The hand-analysis benchmark as a result dict (see _common).

    ``scale`` shrinks the sample for a slow preset (e.g. {"progressive": 0.1}).
    """
    scale = scale or {}
    rows = []
    for p in presets:
        s = scale.get(p, 1.0)
        rows += contract_rows(p, max(2, int(hands * s)), int(warm * s), reps, ref_hands, ref_reps,
                              seed, progress)
    shanten = shanten_rate(shanten_hands, reps, seed)
    table_rows = []
    for row in rows:
        table_rows.append([row["rules"], row["hand"], row["contract"], row["cards"],
                           row["deficiency"], row["cold"], row["calls"],
                           round(row["calls"]["median"] / row["deficiency"]["median"], 2),
                           row["laydown"], row["reference"],
                           ratio(row["deficiency"], row["reference"]),
                           ratio(row["deficiency"], shanten), row["mean_deficiency"]])
    return {
        "name": "melds",
        "title": "Hand analysis: deficiency and lay-down throughput per contract",
        "settings": {"presets": list(presets), "hands": hands, "warm": warm, "reps": reps,
                     "ref_hands": ref_hands, "ref_reps": ref_reps, "shanten_hands": shanten_hands,
                     "scale": scale, "seed": seed},
        "figures": {"rows": rows, "shanten": shanten},
        "tables": [
            table("Evaluations per second on one thread, median (min-max) of the passes",
                  ["rules", "hand", "contract", "cards", "deficiency/s (warm memo)",
                   "deficiency/s (cold memo)", "deficiency_batch/s (calls of n hands)",
                   "calls / warm", "lay-downs/s", "reference/s",
                   "x reference", "x shanten peer", "mean deficiency"], table_rows),
            table("Peer: the mahjong package's shanten number (riichi mahjong, 13 tiles, pure Python)",
                  ["peer", "evaluations/s"],
                  [["mahjong.shanten.Shanten.calculate_shanten" if shanten else
                    "mahjong not installed (pip install -e '.[bench]')", shanten]]),
        ],
    }

def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_COLD, C_LAY, C_PEER, C_PEER2, bars, finish, np, plt
    else:
        from charts import C_OURS, C_COLD, C_LAY, C_PEER, C_PEER2, bars, finish, np, plt

    rows = res["figures"]["rows"]
    presets = list(dict.fromkeys(r["rules"] for r in rows))
    shanten = res["figures"].get("shanten")
    fig, axes = plt.subplots(len(presets), 1, figsize=(11, 3.3 * len(presets) + 0.6), squeeze=False)
    for ax, p in zip(axes[:, 0], presets):
        rs = [r for r in rows if r["rules"] == p]
        x = np.arange(len(rs))
        w = 0.2
        bars(ax, x, [r["deficiency"] for r in rs], w, C_OURS, "deficiency, warm memo", -1.5 * w)
        bars(ax, x, [r["cold"] for r in rs], w, C_COLD, "deficiency, cold memo", -0.5 * w)
        bars(ax, x, [r["laydown"] for r in rs], w, C_LAY, "lay-down of a hand that meets the contract", 0.5 * w)
        bars(ax, x, [r["reference"] for r in rs], w, C_PEER, "Python reference (tests/reference.py)",
              1.5 * w)
        if shanten and shanten.get("median"):
            ax.axhspan(shanten["min"], shanten["max"], color=C_PEER2, alpha=0.4)
            ax.axhline(shanten["median"], color=C_PEER2, lw=1.5,
                       label="peer, another game: mahjong shanten number (pure Python)")
        ax.set_yscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels([f"{r['hand']}: {r['contract']} ({r['cards']})" for r in rs],
                           fontsize=7, rotation=20, ha="right")
        ax.set_xlabel("hand: contract (cards in hand)", fontsize=8)
        ax.set_ylabel("hands per second (log)")
        ax.set_title(f"`{p}`: hand analysis per contract, ours vs the Python reference and "
                     f"the shanten peer", fontsize=10)
        ax.grid(axis="y", which="major", alpha=0.3)
    top = axes[0, 0]
    lo, hi = top.get_ylim()
    for ax in axes[:, 0]:
        ax.set_ylim(ax.get_ylim()[0], ax.get_ylim()[1] * 30)     # room for the legend
    top.legend(fontsize=7, ncol=3, loc="upper center", framealpha=0.9)
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="melds", order=10, measure=measure, chart=chart,
    title="Hand analysis",
    how=(
        "For each contract of each preset: random hands from the 4-player shoe (12 cards; 14 "
        "for hands 8-10, where buys are usual). *Cold*: `deficiency_batch_nb` with an empty memo "
        "each pass. Then a warm-up as a user's loop runs it: the public "
        "`shanghai_sim.hand.deficiency_batch` called again and again, each call n fresh hands (n: "
        "the pass size in the settings; it keeps its memo, per thread and per rules, across calls), "
        "until the warm-up's hands are done; then, alternately on fresh hands with that same memo, "
        "*deficiency, warm memo*: the kernel `deficiency_batch_nb` alone, and *deficiency_batch, "
        "calls*: the public call (its input and shoe checks and set-up included), with the ratio "
        "of the two (the issue #17 target: 0.8 or more); *lay-downs*: `laydown_sat_nb` hand by hand "
        "on hands that meet the contract (its melds built from the shoe, random cards to the "
        "same size, kept if their deficiency is 0): the least-deadwood lay-down the engine "
        "computes when a player goes down. Peers in the same run: the plain Python reference meld finder "
        "(`tests/reference.py`, the same answers, written from the rulebook), and, as the "
        "nearest public analogue of `deficiency`, the `mahjong` package's shanten number "
        "(riichi mahjong, another game: 13 tiles of 34 kinds, pure Python): it answers the same "
        "question, cards missing to a complete hand, for a smaller hand and no jokers. "
        "The full run measures every preset alike (the quick run samples `progressive` lighter)."),
    sizes={
        "full": dict(hands=20_000, warm=100_000, reps=5, ref_hands=10, ref_reps=3,
                     shanten_hands=10_000),   # every preset in calls of 20,000 hands (issue #17)
        "quick": dict(hands=5_000, warm=20_000, reps=3, ref_hands=3, ref_reps=3,
                      shanten_hands=2_000, scale={"progressive": 0.1}),
        "tiny": dict(presets=("shanghai",), hands=20, warm=20, reps=2, ref_hands=1, ref_reps=1,
                     shanten_hands=20),
    },
    source=Source(kernels=("melds.finder",), files=("shanghai_sim/hand.py", "shanghai_sim/rules/*.py", "tests/reference.py")),
)


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
    args = parse_args(ap)
    if args.quick:
        args.hands, args.ref_hands, args.warm = 5_000, 5, 20_000
    print(f"rules {args.rules}; {args.hands:,} hands per contract; one thread; "
          f"warm-up {args.warm:,} hands; 'cold' = a fresh memo per pass", flush=True)
    rows = contract_rows(args.rules, args.hands, args.warm, args.reps, args.ref_hands, 1, args.seed)
    print(f"{'hand':>4} {'contract':<22} {'cards':>5} {'deficiency/s':>14} {'cold/s':>12} {'calls/s':>12} "
          f"{'calls/warm':>10} {' lay-downs/s':>15} {'reference/s':>12} {'speed-up':>9} {'mean def':>8}")
    for row in rows:
        dps, rps = row["deficiency"]["median"], row["reference"]["median"] or float("nan")
        cps = row["calls"]["median"]
        print(f"{row['hand']:>4} {row['contract']:<22} {row['cards']:>5} {dps:>14,.0f} "
              f"{row['cold']['median']:>12,.0f} {cps:>12,.0f} {cps / dps:>10.2f} {row['laydown']['median']:>15,.0f} "
              f"{rps:>12,.1f} {dps / rps:>8,.0f}x {row['mean_deficiency']:>8.2f}")
    d = [row["deficiency"]["median"] for row in rows]
    print(f"median deficiency/s over the contracts: {statistics.median(d):,.0f}; "
          f"slowest: {min(d):,.0f} (hand {rows[int(np.argmin(d))]['hand']})")


if __name__ == "__main__":
    main()
