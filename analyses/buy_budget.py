"""How many buys per hand are worth using, contract by contract? (issue #15, question 2)

For each contract N, the focal player buys by its own judgement but at most k
times in that hand (`maxbuysN=k`, k = 0 .. the rules' limit - 1), against the
same bot with no cap of its own (the rules' limit: 3 buys a hand, 4 in
hands 9-10). Hand-level experiments (only hand N is played), 4
players, the focal player and its opponents at each level (`--levels`), run in
rounds to a CI half-width of `--target-ci` points on hand-N points.

    python analyses/buy_budget.py
    python analyses/buy_budget.py --levels smart --presets contract --hands 8-10 --games 600
"""

from __future__ import annotations

import os
import sys

if __package__:                      # imported: analyses.buy_budget (the tests, python -m analyses.buy_budget)
    from . import analyses_common as C
else:                                # python analyses/buy_budget.py: this folder is sys.path[0]
    import analyses_common as C


def experiment(cell, a, data, cap=None):
    """Hand ``cell.item`` of the preset: every cap below the rules' limit against none."""
    from shanghai_sim.experiment import Arm
    from shanghai_sim.rules import load_rules
    level, preset, n = cell
    limit = load_rules(preset).buys_per_hand[n - 1]
    caps = [k for k in range(0, 5) if k < limit]
    out = os.path.join(data, f"{preset}-{level}-{n}")
    res = C.experiment(level, preset, a, out, (Arm(f"at most {k}", f"{level}:maxbuys{n}={k}") for k in caps),
                       hand=n, target_ci=a.target_ci, max_games=cap or a.games)
    return res, out, limit


def arm_rows(cell, played) -> dict:
    """One row per arm: its cap, buys and hands gone out, its effects on hand N."""
    from shanghai_sim.experiment import per_deal
    level, p, n = cell
    res, loc, limit = played
    base = per_deal(os.path.join(loc, res.arms[0].folder), 4, 1, res.games)
    rows = []
    for arm in res.arms:
        fc = C.focal_counts(os.path.join(loc, arm.folder))
        rows.append({"level": level, "preset": p, "hand": n, "limit": limit,
                     "cap": limit if arm.effects is None else int(arm.name.split()[-1]),
                     "arm": arm.name, "deals": res.games, "baseline_points": float(base.points.mean()),
                     "buys_per_hand": fc["buys"] / max(fc["hands"], 1),
                     "went_out_share": fc["went_out"] / max(fc["hands"], 1),
                     "no_winner_hands": arm.no_winner_hands, "turn_cap_hands": arm.turn_cap_hands,
                     "hands_played": arm.hands_played, "seconds": round(C.recorded_seconds(loc), 1),
                     **C.effect_columns(arm.effects, vr=False)})
    return {"arms": rows}


def main(argv=None) -> int:
    ap = C.parser("buy_budget", __doc__, games=2000)
    ap.add_argument("--target-ci", type=float, default=3.0, help="CI half-width to reach, points (default 3)")
    ap.add_argument("--presets", default="shanghai,contract")
    ap.add_argument("--hands", default="1-10")
    C.levels_arg(ap)
    a = ap.parse_args(argv)
    return C.main_guard(lambda: run(a))


def run(a) -> int:
    import pandas as pd
    st = C.Study(a, caps=True, hands=True)
    levels, presets, caps = st.levels, st.presets, st.caps
    t = st.sweep(C.cells(levels, presets, st.hands), lambda c: experiment(c, a, str(st.data), caps[c.level]), arm_rows,
                 step=lambda c: f"{c.preset} {c.level} {c.item}",
                 line=lambda c, r, s: f"{c.level} {c.preset} hand {c.item}: {r[0].games} deals, {s:.0f} s")
    df = pd.DataFrame(t["arms"])
    var = df.arm != "baseline"
    df.loc[var, "points_p_holm"] = C.holm_column(df[var].points_p)     # one family: every cap tested
    df.to_csv(st.out / "buy_budget.csv", index=False)
    for level in levels:
        st.chart(f"buy_budget_{C.file_part(level)}.png", lambda path: chart(df[df.level == level], level, a, path))
    report(a, levels, presets, df, st)
    return st.done()


def chart(df, level, a, path):
    plt = C.pyplot()
    from shanghai_sim.rules import preset as get_preset
    presets = list(dict.fromkeys(df.preset))
    fig, axes = plt.subplots(1, len(presets), figsize=(5.4 * len(presets), 6.0), sharex=True, squeeze=False)
    caps = sorted(df[df.arm != "baseline"].cap.unique())
    for ax, p in zip(axes[0], presets):
        r = get_preset(p)
        d = df[(df.preset == p) & (df.arm != "baseline")]
        hands = sorted(d.hand.unique())
        own = df[(df.preset == p) & (df.arm == "baseline")].set_index("hand").reindex(hands)
        labels = [f"{h}: {r.contracts[h - 1]}\n(own: {b:.2f} buys)" for h, b in zip(hands, own.buys_per_hand)]
        series = []
        for k in caps:
            s = d[d.cap == k].set_index("hand").reindex(hands)
            series.append((f"at most {k} buy{'s' if k != 1 else ''}", s.points_mean, s.points_lo, s.points_hi))
        C.forest(ax, labels, series, "change in the focal player's points in that hand\n"
                 "(cap - no cap of its own; > 0 = the cap costs points)", title=f"rules: {p}")
        ax.tick_params(axis="y", labelsize=7)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=len(caps), fontsize=8,
               bbox_to_anchor=(0.5, 0.955), frameon=False)
    fig.suptitle(f"How many buys in a hand are worth using? Capping the focal player's buys (4 x {level})",
                 fontsize=10)
    C.caption(fig, f"Line-up: focal {level} + 3 x {level}, 4 players. Hand-level experiments (only hand N played), "
                   f"duplicate seating, common random numbers, seed {a.seed}; n = {int(df.deals.min()):,}-"
                   f"{int(df.deals.max()):,} deals per contract (each in 4 seatings). No cap = the rules' limit "
                   "(3 a hand; hands 9-10: 4). Bars: 95% CI per comparison, unadjusted (report.md: Holm).")
    fig.tight_layout(rect=(0, 0.06, 1, 0.92))
    fig.savefig(path)
    plt.close(fig)


def report(a, levels, presets, df, st):
    import pandas as pd
    v = df[df.arm != "baseline"]
    clock, out = st.clock, st.out
    L = C.report_head("How many buys per hand are worth using?", C.preset_facts(presets)) + [
         "- Per contract N: the baseline is the bot's own buying with no cap but the rules' (3 buys a hand; "
         "4 in hands 9-10 of both presets); each variant caps the focal player at k buys in hand N "
         "(`maxbuysN=k`, k from 0 to the limit - 1). `maxbuysN=0` is never buying in hand N.",
         f"- Levels: {', '.join(levels)} (focal player and opponents play the same bot)."
         + C.no_rollout_note(levels),
         f"- Rules presets {', '.join(presets)}, 4 players. Hand-level experiments (only hand N played), duplicate "
         f"seating, common random numbers, job seed {a.seed}; rounds to a CI half-width of {a.target_ci:g} points, "
         f"cap {a.games:,} deals.",
         f"- Multiplicity: Holm over all {len(v)} caps tested together; a cap *costs* or *saves* points only when its "
         "CI excludes 0 and its Holm p < 0.05.", "", "## Answer", "",
         "For each contract, *enough*: the smallest number of buys from which no cap can be told from the full "
         "allowance (Holm: no larger cap costs points either), with the caps that cost or save points; `own` is how many buys the bot makes per hand with no cap.", ""]
    rows = []
    for (lv, p, n), d in df.groupby(["level", "preset", "hand"], sort=False):
        b = d[d.arm == "baseline"].iloc[0]
        dv = d[d.arm != "baseline"].sort_values("cap")
        costs = dv[(dv.points_p_holm < 0.05) & (dv.points_lo > 0)]
        saves = dv[(dv.points_p_holm < 0.05) & (dv.points_hi < 0)]
        enough = int(costs.cap.max()) + 1 if len(costs) else 0     # every cap from here up is harmless
        rows.append({"level": lv, "rules": p, "hand": n, "own buys/hand": round(b.buys_per_hand, 2),
                     "enough": f"{enough}" + ("" if enough < b.limit else " (all)"),
                     "costly caps": ", ".join(f"{int(k)} ({m:+.1f})" for k, m in zip(costs.cap, costs.points_mean))
                     or "none",
                     "caps that save points": ", ".join(f"{int(k)} ({m:+.1f})" for k, m in
                                                        zip(saves.cap, saves.points_mean)) or "none"})
    summ = pd.DataFrame(rows)
    summ.to_csv(out / "summary.csv", index=False)
    L += [C.table_md(summ), ""]
    for c in st.charts:
        L += [f"![{c}]({c})", ""]
    t = v.copy()
    t["points (cap - own) [95% CI]"] = [C.fmt_ci(m, lo, hi) for m, lo, hi in zip(t.points_mean, t.points_lo, t.points_hi)]
    t["went out"] = [C.fmt_ci(m, lo, hi, 3) for m, lo, hi in zip(t.went_out_mean, t.went_out_lo, t.went_out_hi)]
    t["p_holm"] = t.points_p_holm.map(C.holm_words)
    t["buys/hand"] = t.buys_per_hand.round(2)
    t["stopped"] = [f"{x / h:.1%}" for x, h in zip(t.no_winner_hands, t.hands_played)]
    L += ["## Every cap", "", "Points: the focal player's points in hand N, cap minus no cap (> 0: the cap costs). "
          "Stopped: share of the arm's hands with nobody out (stock rule, docs/rules.md §5.5); turn-cap hands "
          f"in all arms: {int(df.turn_cap_hands.sum())}.", "",
          C.table_md(t[["level", "preset", "hand", "cap", "buys/hand", "points (cap - own) [95% CI]", "went out",
                        "p_holm", "deals", "stopped"]]), "",
          "## Compute budget", "", f"Compute: {df[df.arm == 'baseline'].seconds.sum() / 60:.1f} min of play time as recorded in the arms' "
          f"manifest.json files (this session's wall time, reading included: {clock.total / 60:.1f} min; "
          f"{os.cpu_count()} cores, shared with other work); "
          f"{int(df[df.arm == 'baseline'].deals.sum()):,} deals over {len(summ)} experiments; CI half-widths: median "
          f"{((v.points_hi - v.points_lo) / 2).median():.2f}, widest {((v.points_hi - v.points_lo) / 2).max():.2f} "
          "points. Files: buy_budget.csv (every arm), summary.csv; raw datasets in data/ (not committed).", ""]
    st.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
