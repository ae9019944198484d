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
``OUT/tune_smart.json`` (default ``analyses/results/tune_smart/``) with the seeds,
deals, rules and versions, so the tuning is reproducible from the record alone;
``report.md``, ``evaluations.csv`` and a chart beside it. The tournaments' datasets
go to ``OUT/data/``: a rerun reuses them, so an interrupted search continues.

    python analyses/tune_smart.py --games 1000 --rounds 1
    python analyses/tune_smart.py --games 200 --only points,feed --presets contract
"""

from __future__ import annotations

import os
import platform
import sys

if __package__:                      # imported: analyses.tune_smart (the tests, python -m analyses.tune_smart)
    from . import analyses_common as C
else:                                # python analyses/tune_smart.py: this folder is sys.path[0]
    import analyses_common as C

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


def evaluate(params: dict, presets: list[str], a, data: str) -> dict:
    """One candidate's tournaments (one per preset, resumed from ``data`` if played there) and
    its objective: smart's win share per seat held, averaged over the presets."""
    from shanghai_sim.tournament import Tournament, run_tournament
    spec = spec_of(params)
    out = {"spec": spec, "by_rules": {}}
    for r in presets:
        where = os.path.join(data, f"{r}-{C.file_part(spec)}")
        res = run_tournament(Tournament((spec, "greedy", "greedy", "greedy"), rules=r, deals=a.games, seed=a.seed,
                                        threads=a.threads), where, resume=True, progress=None)
        b = res.bots[0]
        out["by_rules"][r] = {"win_share": b.figures["win_share"].mean, "points": b.figures["points"].mean,
                              "went_out": b.figures["went_out"].mean,
                              "d_points_greedy": res.bots[1].effects["points"].mean,
                              "no_winner_hands": res.no_winner_hands, "turn_cap_hands": res.turn_cap_hands}
    out["objective"] = sum(v["win_share"] for v in out["by_rules"].values()) / len(presets)
    return out


def main(argv=None) -> int:
    ap = C.parser("tune_smart", __doc__, games=1000, seed=7000000, games_help="deals per candidate and preset")
    ap.add_argument("--presets", default="shanghai,contract", help="rules presets averaged (default shanghai,contract)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--margin", type=float, default=0.004, help="win share a change must gain to be kept")
    ap.add_argument("--only", default="", help="comma-separated weights to search (default: all)")
    a = ap.parse_args(argv)
    return C.main_guard(lambda: run(a))


def _check(a) -> None:
    """Every option checked before the first tournament: one line and exit 2 otherwise."""
    import math
    if a.games < 2:
        raise C.AnalysisError(f"--games {a.games}: at least 2 deals (a CI needs two)")
    if a.rounds < 0:
        raise C.AnalysisError(f"--rounds {a.rounds}: must be 0 or more")
    if not math.isfinite(a.margin) or a.margin < 0:
        raise C.AnalysisError(f"--margin {a.margin}: must be a win share of 0 or more")
    unknown = [k for k in (a.only.split(",") if a.only else []) if k not in GRID]
    if unknown:
        raise C.AnalysisError(f"--only {unknown[0]!r}: not a weight searched here (choose from {', '.join(GRID)})")


def run(a) -> int:
    import pandas as pd
    from shanghai_sim import __version__
    from shanghai_sim.bots import BOTS
    _check(a)
    st = C.Study(a)                  # --presets checked, OUT/data made: an unwritable --out fails now, not after hours
    info = BOTS["smart"]
    best = {p.key: p.default for p in info.params if p.key in GRID}
    first = dict(best)
    names = a.only.split(",") if a.only else list(GRID)
    data = str(st.data)
    log, tried = [], [("", "", None)]          # tried: (round, weight, value) of each evaluation
    with st.clock.step("start"):
        cur = evaluate(best, st.presets, a, data)
    start = cur
    log.append(cur)
    st.say(f"start {cur['spec']}: {cur['objective']:.4f}")
    for rnd in range(a.rounds):
        for k in names:
            for v in GRID[k]:
                if v == best[k]:
                    continue
                trial = dict(best, **{k: v})
                with st.clock.step(f"round {rnd} {k}={v:g}"):
                    r = evaluate(trial, st.presets, a, data)
                r["round"] = rnd
                log.append(r)
                tried.append((rnd, k, v))
                st.say(f"  {k}={v:g}: {r['objective']:.4f} (best {cur['objective']:.4f})")
                if r["objective"] > cur["objective"] + a.margin:
                    best, cur = trial, r
            st.say(f"round {rnd} {k}: keep {k}={best[k]:g} -> {cur['objective']:.4f}")
    record = {"what": "coordinate search of smart's weights against three greedy bots",
              "package_version": __version__, "bot_version": info.version,
              "greedy_version": BOTS["greedy"].version, "rules": st.presets, "deals_per_candidate": a.games,
              "seatings_per_deal": 4, "tuning_seed": a.seed, "margin": a.margin, "rounds": a.rounds,
              "grid": GRID, "best": best, "best_spec": spec_of(best), "best_result": cur,
              "evaluations": log, "seconds": round(st.clock.total, 1),
              "machine": f"{platform.machine()}, {platform.python_version()}"}
    C.write_json(st.out / "tune_smart.json", record)
    ev = pd.DataFrame([{"round": rnd, "weight": k, "value": v, "spec": e["spec"], "objective": e["objective"],
                        **{f"{r}_{m}": x for r, f in e["by_rules"].items() for m, x in f.items()}}
                       for (rnd, k, v), e in zip(tried, log)])
    ev.to_csv(st.out / "evaluations.csv", index=False)
    if len(ev) > 1:
        st.chart("tune_smart.png", lambda path: chart(ev, start, a, st.presets, path))
    report(a, st, start, cur, [k for k in best if best[k] != first[k]], best, ev)
    st.say(f"best {spec_of(best)}: {cur['objective']:.4f}; written {st.out}/tune_smart.json")
    return st.done()


def chart(ev, start, a, presets, path):
    """One panel per weight searched: each value's objective, per round, against the start's."""
    plt = C.pyplot()
    tried = ev[ev.weight != ""]
    weights = list(dict.fromkeys(tried.weight))
    fig, axes = plt.subplots(1, len(weights), figsize=(max(2.4 * len(weights), 6.0), 3.6), squeeze=False,
                             sharey=True)
    for ax, k in zip(axes[0], weights):
        for j, (rnd, d) in enumerate(tried[tried.weight == k].groupby("round")):
            s = C.STYLES[j % len(C.STYLES)]
            d = d.sort_values("value")
            ax.plot(range(len(d)), 100 * d.objective, marker=s["marker"], color=s["color"], mfc=s["mfc"],
                    ls=s["ls"], ms=4, lw=1, label=f"round {rnd}")
            ax.set_xticks(range(len(d)))
            ax.set_xticklabels([f"{v:g}" for v in d.value], fontsize=7)
        ax.axhline(100 * start["objective"], color="0.5", lw=0.8, ls=":")
        ax.set_title(k, fontsize=9)
        ax.set_xlabel("value tried")
        ax.grid(axis="y", color="0.9", lw=0.6)
    axes[0][0].set_ylabel("smart's win share per seat (%),\nmean over the presets")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Which weights make smart win more against three greedy? One weight at a time", fontsize=10)
    C.caption(fig, f"One smart + 3 greedy, 4 players, every deal in the 4 seatings; {a.games:,} deals per candidate "
                   f"and preset ({', '.join(presets)}), tuning seed {a.seed}; the other weights at the incumbent of "
                   "that moment. Dotted: the defaults' objective. Par 25%.")
    fig.tight_layout(rect=(0, 0.07, 1, 0.93))
    fig.savefig(path)
    plt.close(fig)


def report(a, st, start, cur, changed, best, ev):
    L = C.report_head("Which weights make smart win more against three greedy?") + [
         f"- Candidates: `smart` with one weight changed at a time over its grid (`GRID`, listed in tune_smart.json), the others at the "
         f"incumbent; each plays one smart against three greedy, 4 players, {a.games:,} deals per preset "
         f"({', '.join(st.presets)}), every deal in the 4 seatings (`shanghai_sim.tournament`), tuning job seed "
         f"{a.seed} (never the measuring seed 1): every candidate plays the same deals.",
         "- Objective: smart's win share per seat held (par 0.25), averaged over the presets. A value is kept only "
         f"when it beats the incumbent by more than {a.margin:g} (a guard against chasing noise); "
         f"{a.rounds} round(s) over {', '.join(a.only.split(',') if a.only else GRID)}.", "",
         "## Answer", "",
         f"Start (the defaults) `{start['spec']}`: {start['objective']:.4f}. Best `{cur['spec']}`: "
         f"{cur['objective']:.4f}" + (f" (changed: {', '.join(f'{k}={best[k]:g}' for k in changed)})." if changed
                                      else " (no change kept)."), ""]
    L += [f"![{c}]({c})" for c in st.charts] + ["", "## Every evaluation", "",
          "Win share per seat held and points per game of smart, per preset; the objective is their win shares' "
          "mean.", "", C.table_md(ev, ".4f"), "",
          "## Compute budget", "",
          f"{len(ev)} candidates x {len(st.presets)} presets in {st.clock.total / 60:.1f} min ({os.cpu_count()} "
          "cores, shared with other work). Files: tune_smart.json (the record: grid, seeds, versions, every "
          "evaluation), evaluations.csv; raw datasets in data/ (not committed).", ""]
    st.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
