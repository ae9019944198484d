"""Go down at once, or wait to go out in one turn? (issue #15, question 3)

The focal player either goes down as soon as it can (the bots' default) or
waits until it can lay its whole hand down and go out on the same turn
(`wait_blind=true`: going out "blind"). Under the `contract` preset going out
blind earns a bonus (docs/rules.md §3 `blind_bonus`); under `shanghai` it
earns nothing, so the question is whether hiding one's hand is worth the risk
of being caught with cards. Whole games, 4 players, the focal player and its
opponents at each level (`--levels`); effects on game points, win share and
each hand's points.

    python analyses/going_down.py
    python analyses/going_down.py --levels smart --presets contract --games 500
"""

from __future__ import annotations

import os
import sys

if __package__:                      # imported: analyses.going_down (the tests, python -m analyses.going_down)
    from . import analyses_common as C
else:                                # python analyses/going_down.py: this folder is sys.path[0]
    import analyses_common as C


def experiment(cell, a, data, cap=None):
    """Whole games of the preset: waiting to go out blind against going down at once."""
    from shanghai_sim.experiment import Arm
    level, preset, _ = cell
    out = os.path.join(data, f"{preset}-{level}")
    return C.experiment(level, preset, a, out, (Arm("wait_blind", f"{level}:wait_blind=true"),),
                        games=cap or a.games), out


def cell_rows(cell, played) -> dict:
    """``arms``: per arm, its games and the focal player's hands gone out (blind or not);
    ``effects``: the variant's effects on the game's measures and on each hand's points."""
    from shanghai_sim.experiment import per_deal
    from shanghai_sim.rules import load_rules
    level, p, _ = cell
    res, loc = played
    hands = len(load_rules(p).contracts)
    base = per_deal(os.path.join(loc, res.arms[0].folder), 4, hands, res.games)
    arms, rows = [], []
    for arm in res.arms:
        fc = C.focal_counts(os.path.join(loc, arm.folder))
        arms.append({"level": level, "preset": p, "arm": arm.name, "deals": res.games,
                     "games": arm.games_played, "hands": arm.hands_played,
                     "no_winner_hands": arm.no_winner_hands, "turn_cap_hands": arm.turn_cap_hands,
                     "focal_hands": fc["hands"], "focal_went_out": fc["went_out"], "focal_blind": fc["blind"],
                     "seconds": round(C.recorded_seconds(loc), 1)})
    v = res.arms[1]
    for m, e in v.effects.items():
        ref = {"points": base.points, "win_share": base.win_share, "rank": base.rank}[m].mean()
        rows.append({"level": level, "preset": p, "measure": m, "hand": "game", "mean": e.mean, "lo": e.lo,
                     "hi": e.hi, "n": e.n, "p": e.p, "vr": e.variance_reduction, "baseline": ref})
    for h, e in v.hand_effects.items():
        rows.append({"level": level, "preset": p, "measure": "hand_points", "hand": str(h), "mean": e.mean,
                     "lo": e.lo, "hi": e.hi, "n": e.n, "p": e.p, "vr": e.variance_reduction,
                     "baseline": base.hand_points[:, h - 1].mean()})
    return {"arms": arms, "effects": rows}


def main(argv=None) -> int:
    ap = C.parser("going_down", __doc__, games=1500)
    ap.add_argument("--presets", default="contract,shanghai")
    C.levels_arg(ap)
    a = ap.parse_args(argv)
    return C.main_guard(lambda: run(a))


def run(a) -> int:
    import pandas as pd
    st = C.Study(a, caps=True)
    levels, presets, caps = st.levels, st.presets, st.caps
    t = st.sweep(C.cells(levels, presets), lambda c: experiment(c, a, str(st.data), caps[c.level]), cell_rows,
                 step=lambda c: f"{c.preset} {c.level}",
                 line=lambda c, r, s: f"{c.level} {c.preset}: {r[0].games} deals, {s:.0f} s")
    df = pd.DataFrame(t["effects"])
    prim = df.measure == "points"
    df.loc[prim, "p_holm"] = C.holm_column(df[prim].p)           # primary: game points, one per level x preset
    df.loc[~prim, "p_holm"] = C.holm_column(df[~prim].p)         # secondary: everything else
    df.to_csv(st.out / "effects.csv", index=False)
    da = pd.DataFrame(t["arms"])
    da.to_csv(st.out / "arms.csv", index=False)
    st.chart("going_down.png", lambda path: chart(df, levels, presets, a, path))
    report(a, levels, presets, df, da, st)
    return st.done()


def chart(df, levels, presets, a, path):
    plt = C.pyplot()
    from shanghai_sim.rules import preset as get_preset
    # Each row shares one x scale across the presets (side by side, the same measure). The two
    # rows are different measures (a hand's points, a game's: ten hands summed), so each row
    # has its own scale, said in its label.
    fig, axes = plt.subplots(2, len(presets), figsize=(5.4 * len(presets), 6.6), squeeze=False,
                             sharex="row", gridspec_kw={"height_ratios": [10, 2.2]})
    for j, p in enumerate(presets):
        r = get_preset(p)
        hands = [str(h) for h in range(1, r.hands + 1)]
        hs, gs = [], []
        for lv in levels:
            d = df[(df.level == lv) & (df.preset == p)]
            hp = d[d.measure == "hand_points"].set_index("hand").reindex(hands)
            g = d[d.measure == "points"]
            hs.append((f"4 x {lv}", hp["mean"], hp.lo, hp.hi))
            gs.append((f"4 x {lv}", g["mean"], g.lo, g.hi))
        C.forest(axes[0][j], [f"hand {h}: {r.contracts[int(h) - 1]}" for h in hands], hs,
                 "change in the focal player's points in the hand\n(> 0 = waiting is worse)",
                 title=f"rules: {p} (blind bonus {', '.join(map(str, r.blind_bonus))})")
        C.forest(axes[1][j], ["whole game"], gs, "change in game points, wait blind - go down at once\n"
                 "(> 0 = waiting is worse; ten hands summed)")
    # one legend for the one meaning the markers carry (the level), for every panel
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", fontsize=7, title="level: the focal player and its 3 opponents",
               title_fontsize=7, ncol=len(labels))
    fig.suptitle("Is it worth waiting to go out in one turn (blind) rather than going down at once?", fontsize=10)
    n = int(df.n.max())
    C.caption(fig, f"Focal player plays the level's bot with wait_blind=true; 3 opponents of the same level; "
                   f"4 players; whole games, duplicate seating, common random numbers, seed {a.seed}; n = {n:,} deals "
                   "per level and preset (each in 4 seatings). Bars: 95% CI per comparison, unadjusted.")
    fig.tight_layout(rect=(0, 0.05, 1, 0.93))
    fig.savefig(path)
    plt.close(fig)


def report(a, levels, presets, df, da, st):
    clock = st.clock
    L = C.report_head("Go down at once, or wait to go out blind?", C.preset_facts(presets)) + [
         "- Baseline: the bot goes down as soon as it can. Variant: `wait_blind=true`, it goes down only when it "
         "can go out on the same turn. One change, the focal player only; the 3 opponents play the same level's bot "
         "with its default.",
         f"- Levels: {', '.join(levels)}." + C.no_rollout_note(levels),
         f"- Rules presets: {', '.join(presets)}; 4 players. Whole games, duplicate seating, common random "
         f"numbers; {a.games:,} deals per arm, job seed {a.seed}, deal seeds `game_seed_nb({a.seed}, k)`.",
         "- 95% Student-t CIs over deals, per comparison. Multiplicity: Holm over the game-points comparisons "
         f"({(df.measure == 'points').sum()}, the primary family: the verdicts rest on it) and separately over "
         "every other effect (win share, rank, each hand's points).", "", "## Answer", ""]
    for lv in levels:
        for p in presets:
            d = df[(df.level == lv) & (df.preset == p)].set_index(["measure", "hand"])
            g, w = d.loc[("points", "game")], d.loc[("win_share", "game")]
            sig = g.p_holm < 0.05 and not (g.lo <= 0 <= g.hi)
            word = ("costs" if g["mean"] > 0 else "saves") if sig else "cannot be told from going down at once:"
            hp = d.loc["hand_points"]
            hs = hp[(hp.p_holm < 0.05) & ((hp.lo > 0) | (hp.hi < 0))]
            o = da[(da.level == lv) & (da.preset == p)].set_index("arm")
            L.append(f"- **{lv}, {p}.** Waiting to go out blind {word} "
                     f"{abs(g['mean']):.1f} points a game ({C.fmt_ci(g['mean'], g.lo, g.hi)}, Holm p "
                     f"{C.holm_words(g.p_holm)}, n = {int(g.n):,} deals; own level {g.baseline:.0f} points a game); "
                     f"win share {C.fmt_ci(100 * w['mean'], 100 * w.lo, 100 * w.hi)} percentage points (Holm p "
                     f"{C.holm_words(w.p_holm)}). Hands where the effect is clear (Holm): "
                     + (", ".join(f"{h} ({m:+.1f})" for h, m in zip(hs.index, hs["mean"])) or "none")
                     + f". Waiting, it went out in {o.loc['wait_blind', 'focal_went_out']:,} of "
                     f"{o.loc['wait_blind', 'focal_hands']:,} hands ({o.loc['wait_blind', 'focal_blind']:,} blind), "
                     f"against {o.loc['baseline', 'focal_went_out']:,} ({o.loc['baseline', 'focal_blind']:,} blind) "
                     "going down at once.")
    L += ["", "![going_down.png](going_down.png)", "", "## All effects", "",
          "Points: focal player's points (variant - baseline; lower wins, > 0 = waiting is worse). Win share in "
          "percentage points. `own` is the baseline focal player's mean.", ""]
    t = df.copy()
    scale = t.measure.eq("win_share") * 99 + 1
    t["effect [95% CI]"] = [C.fmt_ci(m * s, lo * s, hi * s, 3 if k == "rank" else 1)
                            for m, lo, hi, s, k in zip(t["mean"], t.lo, t.hi, scale, t.measure)]
    t["own"] = (t.baseline * scale).round(2)
    t["p_holm"] = t.p_holm.map(C.holm_words)
    t["pairing"] = t.vr.map(lambda x: "exact" if x != x or x is None else f"x{x:.1f}")
    L += [C.table_md(t[["level", "preset", "measure", "hand", "own", "effect [95% CI]", "n", "p_holm", "pairing"]]),
          "", "## Stopped hands", "",
          "Hands that ended with nobody out (stock rule, docs/rules.md §5.5) and at the turn cap (§5.8), per arm.", "",
          C.table_md(da[["level", "preset", "arm", "deals", "games", "hands", "no_winner_hands", "turn_cap_hands"]]), "",
          "## How often the focal player went out", "",
          "The focal player's hands (every seating), the hands it went out in, and those it went out blind "
          "(laid its whole hand down in one turn). The bots' `wait_blind` only holds back going down; it does "
          "not change their draws or discards to aim at a one-turn go-out, so this is the value of waiting as "
          "these bots play it, not of the best waiting strategy.", "",
          C.table_md(da[["level", "preset", "arm", "focal_hands", "focal_went_out", "focal_blind"]]), "",
          "## Compute budget", "",
          f"Compute: {da.drop_duplicates(['level', 'preset']).seconds.sum() / 60:.1f} min of play time as "
          f"recorded in the arms' manifest.json files (this session's wall time, reading included: {clock.total / 60:.1f} "
          f"min; {os.cpu_count()} cores, shared with other work); per experiment: "
          + ", ".join(f"{r.level} {r.preset} {r.seconds:.0f} s" for r in da.drop_duplicates(['level', 'preset'])
                      .itertuples()) + ".", "",
          "Files: effects.csv, arms.csv; raw datasets in data/ (not committed; rerunning rebuilds them).", ""]
    st.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
