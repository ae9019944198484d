"""Is buying worth it, contract by contract? (issue #15, question 1: the flagship)

For each contract N of the `shanghai` and `contract` presets (4 players), the
focal player either never buys in that hand (`buyN=never`), buys by its own
judgement (the baseline: no knob), or buys whenever it may (`buyN=always`).
The focal player and its three opponents play the same bot: one experiment per
opponent level (`--levels`, default greedy and smart, about 15 minutes on 2 cores). A
search level is an option: `rollout:rollouts=8:race=0@100` (8 samples a decision, capped
at 100 deals per contract with `SPEC@N`, hand-level only) took 201 minutes of play with
rollout version 2 (analyses/README.md, compute).

- Hand-level experiments (`--hand N`: only hand N is played, about ten times
  cheaper) give the effect on that hand's points, run in rounds until the CI
  half-width is at most `--target-ci` points (cap `--games` deals).
- Whole games (`--game-deals`, 0 to skip) give the effect on game points and
  win share: one experiment per level and preset with the 20 variants
  (never/always in each hand N). Hands other than N are played identically in
  both arms (common random numbers) and cancel exactly; the script checks that.

    python analyses/buying.py                       # the committed default run (greedy, smart)
    python analyses/buying.py --levels greedy,smart,rollout:rollouts=8:race=0@100   # + a search level, hours
    python analyses/buying.py --levels greedy --presets contract --hands 8 --games 400
"""

from __future__ import annotations

import os
import sys

if __package__:                      # imported: analyses.buying (the tests, python -m analyses.buying)
    from . import analyses_common as C
else:                                # python analyses/buying.py: this folder is sys.path[0]
    import analyses_common as C

DEFAULT_LEVELS = "greedy,smart"
ARMS = (("never", "never buys in hand N"), ("always", "buys whenever it may in hand N"))


def hand_level(cell, a, data, cap=None):
    """One hand-level experiment: own buying vs never vs always in hand n (at most ``cap`` deals)."""
    from shanghai_sim.experiment import Arm
    level, preset, n = cell
    return C.experiment(level, preset, a, os.path.join(data, f"hand-{preset}-{level}-{n}"),
                        (Arm(k, f"{level}:buy{n}={k}") for k, _ in ARMS),
                        hand=n, target_ci=a.target_ci, max_games=cap or a.games)


def hand_rows(cell, res) -> dict:
    """``hand``: every arm of a hand-level experiment, its effects on hand n; ``times``: its play time."""
    from shanghai_sim.experiment import per_deal
    level, preset, n = cell
    base = per_deal(os.path.join(res.out, res.arms[0].folder), 4, 1, res.games)
    rows = []
    for arm in res.arms:
        rows.append({"level": level, "preset": preset, "hand": n, "arm": arm.name, "deals": res.games,
                     "hands_played": arm.hands_played, "no_winner_hands": arm.no_winner_hands,
                     "turn_cap_hands": arm.turn_cap_hands, "baseline_points": float(base.points.mean()),
                     "baseline_went_out": float(base.went_out.mean()), **C.effect_columns(arm.effects)})
    return {"hand": rows, "times": [{"level": level, "preset": preset, "hand": str(n), "mode": "hand",
                                     "deals": res.games, "seconds": round(C.recorded_seconds(res.out), 1)}]}


def whole_games(cell, hands, a, data):
    """Whole games: the 20 variants (never/always in each hand) against own buying."""
    from shanghai_sim.experiment import Arm
    level, preset, _ = cell
    return C.experiment(level, preset, a, os.path.join(data, f"game-{preset}-{level}"),
                        (Arm(f"{k} in {n}", f"{level}:buy{n}={k}") for n in hands for k, _ in ARMS),
                        games=a.game_deals)


def game_rows(cell, res, deals) -> dict:
    """``games``: each variant's effects on game points and win share, and whether the hands
    other than its own cancel; ``base``: the baseline's stopped hands; ``times``: its play time."""
    level, preset, _ = cell
    rows = []
    for arm in res.arms[1:]:
        k, _, n = arm.name.partition(" in ")
        others = [e for h, e in arm.hand_effects.items() if h != int(n)]
        rows.append({"level": level, "preset": preset, "hand": int(n), "arm": k, "deals": res.games,
                     "no_winner_hands": arm.no_winner_hands, "turn_cap_hands": arm.turn_cap_hands,
                     "other_hands_cancel": all(e.mean == 0 and e.sd == 0 for e in others),
                     **C.effect_columns(arm.effects)})
    base = res.arms[0]
    return {"games": rows,
            "base": [{"level": level, "preset": preset, "deals": res.games, "no_winner_hands": base.no_winner_hands,
                      "turn_cap_hands": base.turn_cap_hands, "hands_played": base.hands_played}],
            "times": [{"level": level, "preset": preset, "hand": "all", "mode": "whole games",
                       "deals": deals, "seconds": round(C.recorded_seconds(res.out), 1)}]}


def verdict_sign(mean, lo, hi, p_holm) -> str:
    if p_holm is not None and p_holm < 0.05 and not (lo <= 0 <= hi):
        return "worse" if mean > 0 else "better"
    return "cannot tell"


def chart_hand(df, level, a, path):
    plt = C.pyplot()
    from shanghai_sim.rules import preset as get_preset
    presets = list(dict.fromkeys(df.preset))
    fig, axes = plt.subplots(1, len(presets), figsize=(max(5.2 * len(presets), 10.4), 5.4), sharex=True, squeeze=False)
    for ax, p in zip(axes[0], presets):
        r = get_preset(p)
        d = df[(df.preset == p) & (df.level == level)]
        hands = sorted(d.hand.unique())
        labels = [f"{h}: {r.contracts[h - 1]}" for h in hands]
        series = []
        for k, name in ARMS:
            s = d[d.arm == k].set_index("hand").reindex(hands)
            series.append((name, s.points_mean, s.points_lo, s.points_hi))
        C.forest(ax, labels, series, "change in the focal player's points in that hand\n"
                 "(variant - own buying; > 0 = worse, lower wins)", title=f"rules: {p}")
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=2, fontsize=8,
               bbox_to_anchor=(0.5, 0.955), frameon=False)
    n = int(df[df.level == level].deals.min()), int(df[df.level == level].deals.max())
    fig.suptitle(f"Does buying pay in each contract? The focal player's own buying vs never / always "
                 f"(4 x {level})", fontsize=10)
    C.caption(fig, f"Line-up: focal {level} + 3 x {level}, 4 players, rules presets as titled. Hand-level "
                   f"experiments (only hand N played), duplicate seating, common random numbers, seed {a.seed}; "
                   f"n = {n[0]:,}{'' if n[0] == n[1] else f'-{n[1]:,}'} deals per contract (each in 4 seatings). Bars: 95% CI per comparison, "
                   f"unadjusted (report.md: Holm over all comparisons).")
    fig.tight_layout(rect=(0, 0.06, 1, 0.92))
    fig.savefig(path)
    plt.close(fig)


def chart_games(dg, level, a, path):
    plt = C.pyplot()
    from shanghai_sim.rules import preset as get_preset
    presets = list(dict.fromkeys(dg.preset))
    fig, axes = plt.subplots(1, len(presets), figsize=(max(5.2 * len(presets), 10.4), 5.4), sharex=True, squeeze=False)
    for ax, p in zip(axes[0], presets):
        r = get_preset(p)
        d = dg[(dg.preset == p) & (dg.level == level)]
        hands = sorted(d.hand.unique())
        series = []
        for k, name in ARMS:
            s = d[d.arm == k].set_index("hand").reindex(hands)
            series.append((name, 100 * s.win_share_mean, 100 * s.win_share_lo, 100 * s.win_share_hi))
        C.forest(ax, [f"{h}: {r.contracts[h - 1]}" for h in hands], series,
                 "change in the focal player's win share, variant - own buying\n(percentage points; < 0 = the variant is worse)",
                 title=f"rules: {p}")
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=2, fontsize=8,
               bbox_to_anchor=(0.5, 0.955), frameon=False)
    fig.suptitle(f"Does buying in hand N win games? Win share, own buying vs never / always (4 x {level})",
                 fontsize=10)
    C.caption(fig, f"Line-up: focal {level} + 3 x {level}, 4 players. Whole games, duplicate seating, common "
                   f"random numbers, seed {a.seed}; n = {int(dg.deals.max()):,} deals per arm (each in 4 "
                   f"seatings). Par win share 25%. Bars: 95% CI per comparison, unadjusted.")
    fig.tight_layout(rect=(0, 0.06, 1, 0.92))
    fig.savefig(path)
    plt.close(fig)


def build_parser():
    """buying.py's options (also how analyses/sizes.py reads a committed report's command)."""
    ap = C.parser("buying", __doc__, games=3000)
    ap.add_argument("--target-ci", type=float, default=2.5,
                    help="hand-level: CI half-width to reach, points (default 2.5; --games caps the deals)")
    ap.add_argument("--game-deals", type=int, default=200, help="whole-game deals per arm (0: skip)")
    ap.add_argument("--presets", default="shanghai,contract")
    ap.add_argument("--hands", default="1-10", help="contracts to test, e.g. 1-10 or 8")
    ap.add_argument("--skip", default="", help="hand-level cells to leave out, PRESET:HAND[,...] (e.g. "
                    "contract:10 with --presets shanghai,contract --hands 8,10: the long search level "
                    "plays only the cells asked for)")
    C.levels_arg(ap, DEFAULT_LEVELS)
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    return C.main_guard(lambda: run(a))


def run(a) -> int:
    import pandas as pd
    ps = C.parse_presets(a.presets)
    skip = parse_skip(a.skip, ps, C.parse_hands(a.hands, ps))      # before Study makes the folder
    st = C.Study(a, caps=True, hands=True)
    levels, presets, caps, hands = st.levels, st.presets, st.caps, st.hands
    t = st.sweep(C.cells(levels, presets, lambda lv, p: [n for n in hands if (p, n) not in skip]), lambda c: hand_level(c, a, str(st.data), caps[c.level]), hand_rows,
                 step=lambda c: f"hand {c.preset} {c.level} {c.item}",
                 line=lambda c, r, s: f"{c.level} {c.preset} hand {c.item}: {r.games} deals, {s:.0f} s; " + "; ".join(
                     f"{x.name} {x.effects['points'].mean:+.1f}±{x.effects['points'].half_width:.1f}"
                     for x in r.arms[1:]))
    g = st.sweep(C.cells([lv for lv in levels if caps[lv] is None], presets) if a.game_deals else [],
                 lambda c: whole_games(c, hands, a, str(st.data)), lambda c, r: game_rows(c, r, a.game_deals),
                 step=lambda c: f"games {c.preset} {c.level}",
                 line=lambda c, r, s: f"{c.level} {c.preset} whole games: {a.game_deals} deals, {s:.0f} s")
    times, gbase = t["times"] + g["times"], g["base"]

    df = pd.DataFrame(t["hand"])
    var = df[df.arm != "baseline"].copy()
    var["points_p_holm"] = C.holm_column(var.points_p)          # one family: every hand-level comparison
    var["verdict"] = [verdict_sign(m, lo, hi, ph) for m, lo, hi, ph in
                      zip(var.points_mean, var.points_lo, var.points_hi, var.points_p_holm)]
    var["half_width"] = (var.points_hi - var.points_lo) / 2
    df.to_csv(st.out / "hand_level.csv", index=False)
    var.to_csv(st.out / "hand_points_effects.csv", index=False)
    pd.DataFrame(times).to_csv(st.out / "times.csv", index=False)
    dg = pd.DataFrame(g["games"])
    if len(dg):
        dg["points_p_holm"] = C.holm_column(dg.points_p)
        dg["win_share_p_holm"] = C.holm_column(dg.win_share_p)
        dg.to_csv(st.out / "game_effects.csv", index=False)
    for level in levels:
        st.chart(f"hand_points_{C.file_part(level)}.png", lambda path: chart_hand(var, level, a, path))
        if len(dg) and (dg.level == level).any():
            st.chart(f"win_share_{C.file_part(level)}.png", lambda path: chart_games(dg, level, a, path))
    report(a, levels, caps, presets, hands, df, var, dg, gbase, times, st, skip)
    return st.done()


def parse_skip(text: str, presets: list[str], hands: list[int]) -> set[tuple[str, int]]:
    """``contract:10,shanghai:9`` -> {(preset, hand)}: hand-level cells not to play; each one a
    cell of --presets x --hands, and at least one cell left."""
    out: set[tuple[str, int]] = set()
    for part in (x.strip() for x in text.split(",") if x.strip()):
        p, _, n = part.rpartition(":")
        if not (n.isascii() and n.isdigit()) or p not in presets or int(n) not in hands:
            raise C.AnalysisError(f"--skip {part!r}: expected PRESET:HAND, a cell of --presets "
                                  f"{','.join(presets)} x --hands {','.join(map(str, hands))}")
        out.add((p, int(n)))
    if len(out) == len(presets) * len(hands):
        raise C.AnalysisError(f"--skip {text!r}: leaves no cell to play")
    return out


def sign_table(var, levels):
    """Per preset, hand and arm: the verdict at each level, and whether it depends on the level."""
    rows = []
    for (p, n, k), d in var.groupby(["preset", "hand", "arm"], sort=False):
        v = {lv: d[d.level == lv].verdict.iloc[0] if (d.level == lv).any() else "" for lv in levels}
        kinds = {x for x in v.values() if x in ("better", "worse")}
        if len(kinds) == 2:
            dep = "sign flips"
        elif kinds and any(x == "cannot tell" for x in v.values()):
            dep = "only at " + ", ".join(lv for lv, x in v.items() if x in kinds)
        else:
            dep = "same at every level"
        rows.append({"preset": p, "hand": n, "arm": k, **v, "depends on opponents": dep})
    import pandas as pd
    return pd.DataFrame(rows)


def budget_pairs(levels):
    """(K, 2K) level pairs: the same search bot, equal but for a doubled rollouts=K."""
    from shanghai_sim.bots import parse_bot
    specs = {lv: parse_bot(lv, 10) for lv in levels}
    rest = {lv: {k: v for k, v in s.param_values().items() if k != "rollouts"} for lv, s in specs.items()}
    rollouts = {lv: s.param_values().get("rollouts", 0) for lv, s in specs.items()}
    return [(lo, hi) for lo in levels for hi in levels
            if specs[lo].kind == specs[hi].kind and rollouts[lo] > 0 and rollouts[hi] == 2 * rollouts[lo]
            and rest[lo] == rest[hi]]


def budget_table(var, lo, hi):
    """Per (preset, hand, arm) cell of both levels: their effects, verdicts, and the change."""
    import numpy as np
    import pandas as pd
    key = ["preset", "hand", "arm"]
    cols = key + ["points_mean", "half_width", "verdict", "deals"]
    m = var[var.level == lo][cols].merge(var[var.level == hi][cols], on=key, suffixes=("_lo", "_hi"))
    change = m.points_mean_hi - m.points_mean_lo
    hw = np.hypot(m.half_width_lo, m.half_width_hi)
    return pd.DataFrame({"preset": m.preset, "hand": m.hand, "arm": m.arm,
                         f"{lo}": [C.fmt_ci(x, x - h, x + h) for x, h in zip(m.points_mean_lo, m.half_width_lo)],
                         f"{hi}": [C.fmt_ci(x, x - h, x + h) for x, h in zip(m.points_mean_hi, m.half_width_hi)],
                         "verdicts": m.verdict_lo + " / " + m.verdict_hi,
                         "change": change.round(1), "change CI": [C.fmt_ci(x, x - h, x + h) for x, h in zip(change, hw)],
                         "n deals": m.deals_lo.astype(str) + " / " + m.deals_hi.astype(str),
                         "agree": m.verdict_lo == m.verdict_hi, "apart": change.abs() > hw})


def size_pairs(levels):
    """(smart level, search level) pairs: a rollout level and a smart level, the search's own
    base player (a rollout level plays smart's weights and its playouts are smart)."""
    from shanghai_sim.bots import parse_bot
    kind = {lv: parse_bot(lv, 10).name.split(":", 1)[0] for lv in levels}
    return [(lo, hi) for lo in levels for hi in levels if kind[lo] == "smart" and kind[hi] == "rollout"]


def size_table(var, lo, hi):
    """Per (preset, hand, arm) cell of both levels: does the size hold as the players get
    stronger? ``holds``: the change's CI (from the two CIs, as if independent) covers 0;
    ``answer``: where it does not, the stronger level's (the search's) size with its CI."""
    bt = budget_table(var, lo, hi)
    key = ["preset", "hand", "arm"]
    m = var[var.level == hi][key + ["points_mean", "points_lo", "points_hi"]]
    bt = bt.merge(m, on=key, how="left")
    bt["holds"] = ~bt.apart
    w_lo = var[var.level == lo].set_index(key).half_width
    w_hi = var[var.level == hi].set_index(key).half_width
    narrow = [lo if w_lo[k] <= w_hi[k] else hi for k in zip(bt.preset, bt.hand, bt.arm)]
    bt["answer"] = [f"{C.fmt_ci(x, lo_, hi_)} (`{hi}`; `{lo}` differs)" if apart
                    else f"both agree: {bt.at[i, nl]} (`{nl}`, the narrower CI)"
                    for i, (x, lo_, hi_, apart, nl) in enumerate(zip(bt.points_mean, bt.points_lo, bt.points_hi,
                                                                     bt.apart, narrow))]
    return bt.drop(columns=["points_mean", "points_lo", "points_hi"])


def report(a, levels, caps, presets, hands, df, var, dg, gbase, times, study, skip=frozenset()):
    import pandas as pd
    clock, out = study.clock, study.out
    L = C.report_head("Is buying worth it, contract by contract?", C.preset_facts(presets))
    L += [f"- 4 players; rules presets {', '.join(presets)} (docs/rules.md); contracts {a.hands}"
          + (" (hand level: not " + ", ".join(f"{p} hand {n}" for p, n in sorted(skip)) + ", left out with --skip)"
             if skip else "") + ".",
          f"- Opponent levels: {', '.join(levels)} (focal player and opponents play the same bot)."
          + "".join(f" Level `{lv}`: at most {c:,} deals per contract (a slow bot: the n its compute allows), "
                    "hand-level only (no whole games)." for lv, c in caps.items() if c)
          + ("" if any(lv.startswith("rollout") for lv in levels) else
             " No rollout level here: add one with e.g. `--levels greedy,smart,rollout:rollouts=8:race=0@100`."),
          "- Arms, per contract N: the baseline (the bot's own buying, no knob), `buyN=never` and `buyN=always`.",
          f"- Hand-level experiments (`shanghai_sim.experiment`, `hand=N`: only hand N is played), duplicate "
          f"seating (each deal once with the focal player in each seat), common random numbers, job seed "
          f"{a.seed}, deal seeds `game_seed_nb({a.seed}, k)`. Run in rounds to a CI half-width of "
          f"{a.target_ci:g} points on hand-N points, capped at {a.games:,} deals"
          + (" (" + ", ".join(f"{c:,} at `{lv}`" for lv, c in caps.items() if c) + ")" if any(caps.values()) else "")
          + ".",
          f"- Whole games: {a.game_deals:,} deals per arm, all 20 variants in one experiment per level and preset"
          + (f" (levels {', '.join(lv for lv in levels if not caps[lv])})." if any(caps.values()) else ".")
          if a.game_deals else "- Whole games: skipped (`--game-deals 0`).",
          "- The unit of every CI is the deal (the focal player's mean over its 4 seatings); 95% Student-t CIs, "
          "per comparison.",
          f"- Multiplicity: Holm's adjustment over all {len(var)} hand-level comparisons together (levels x "
          "presets x contracts x 2 arms); a cell says *better*/*worse* only when its CI excludes 0 and its "
          "Holm-adjusted p < 0.05, else *cannot tell*. Whole-game points and win share: Holm over each measure's "
          f"{len(dg)} comparisons.", ""]
    L += ["## Answer", ""]
    for level in levels:
        for p in presets:
            d = var[(var.level == level) & (var.preset == p)]
            nev, alw = d[d.arm == "never"], d[d.arm == "always"]
            def lst(x, kind):
                s = x[x.verdict == kind]
                return ", ".join(f"{int(h)} ({m:+.1f} [{lo:+.1f}, {hi:+.1f}])"
                                 for h, m, lo, hi in zip(s.hand, s.points_mean, s.points_lo, s.points_hi)) or "none"
            L.append(f"- **{level}, {p}.** Never buying is worse (costs points in that hand) in contracts "
                     f"{lst(nev, 'worse')}; better in {lst(nev, 'better')}; cannot tell in "
                     f"{', '.join(str(int(h)) for h in nev[nev.verdict == 'cannot tell'].hand) or 'none'}. "
                     f"Always buying is worse than its own judgement in {lst(alw, 'worse')}; better in "
                     f"{lst(alw, 'better')}; cannot tell in "
                     f"{', '.join(str(int(h)) for h in alw[alw.verdict == 'cannot tell'].hand) or 'none'}.")
    for p in presets:
        from shanghai_sim.rules import load_rules
        forced = [h for h in load_rules(p).hands_needing_buys() if h in hands and (p, h) not in skip]
        if forced:
            L.append(f"- **{p}: what never buying means in hand{'s' * (len(forced) > 1)} "
                     f"{', '.join(map(str, forced))}.** There a player "
                     "who never buys cannot go down at all (What the rules settle, above), so `buyN=never` gives the "
                     "hand up and its cost is that of a hand the bot cannot make, played as the bot plays it (one "
                     "that sheds its high cards loses less). The choices the rules leave open are how many buys "
                     "to use (`analyses/buy_budget.py`) and when in the hand to buy, which these arms do not "
                     "measure.")
    L += ["", "Points are the focal player's points in hand N, variant minus its own buying (lower wins; "
          "+10 means the variant costs 10 points in that hand), mean [95% CI].", ""]
    if len(levels) > 1:
        st = sign_table(var, levels)
        st.to_csv(out / "sign_by_level.csv", index=False)
        dep = st[st["depends on opponents"] != "same at every level"]
        L += ["### Where the answer depends on the opponents", "",
              f"{len(dep)} of {len(st)} (preset, contract, arm) cells differ between levels "
              f"({(dep['depends on opponents'] == 'sign flips').sum()} flip sign, both significant).", "",
              C.table_md(dep) if len(dep) else "(none)", ""]
    for lo, hi in budget_pairs(levels):
        bt = budget_table(var, lo, hi)
        bt.to_csv(out / f"budget_{C.file_part(lo)}_vs_{C.file_part(hi)}.csv", index=False)
        moved = bt[bt.apart]
        L += [f"### Does doubling the search budget change the answer? (`{lo}` -> `{hi}`)", "",
              f"Verdicts agree in {int(bt.agree.sum())} of {len(bt)} (preset, contract, arm) cells; the effect "
              f"moves by {bt['change'].abs().median():.1f} points in the median cell (largest "
              f"{bt['change'].abs().max():.1f}). Change = effect at `{hi}` - effect at `{lo}`, with a 95% CI "
              "from the two CIs as if independent (wider than the truth: the levels play the same deals); "
              f"{len(moved)} cell(s) where that CI excludes 0.", "",
              C.table_md(bt[~bt.agree | bt.apart].drop(columns=["agree", "apart", "change"])) if (~bt.agree | bt.apart).any() else "(no cell differs)", ""]
    for lo, hi in size_pairs(levels):
        zt = size_table(var, lo, hi)
        zt.to_csv(out / f"sizes_{C.file_part(lo)}_vs_{C.file_part(hi)}.csv", index=False)
        L += [f"### Do the sizes hold as the players get stronger? (`{lo}` -> `{hi}`)", "",
              f"The search level plays smart's moves except where its search finds better ones (docs/rollout.md), "
              f"so it is the stronger player. Per cell: the effect at each level, the change (`{hi}` - `{lo}`, a 95% "
              "CI from the two CIs as if independent: wider than the truth, the levels play the same deals), and "
              "whether the size holds (that CI covers 0). Where it does not, the answer is the stronger level's "
              f"size. The size holds in {int(zt.holds.sum())} of {len(zt)} (preset, contract, arm) cells.", "",
              C.table_md(zt[["preset", "hand", "arm", lo, hi, "change CI", "n deals", "holds", "answer"]]), ""]
    for c in study.charts:
        L += [f"![{c}]({c})", ""]
    L += ["## Hand-level effects (points in hand N)", "",
          "Own-buying level: the baseline's mean points in hand N and share of its seatings it went out. "
          "Stopped hands: share of the arm's hands that ended with nobody out (stock rule, docs/rules.md §5.5) "
          "and at the turn cap (§5.8), counted apart.", ""]
    tab = []
    for (level, p, n), d in df.groupby(["level", "preset", "hand"], sort=False):
        b = d[d.arm == "baseline"].iloc[0]
        for k, _ in ARMS:
            v = var[(var.level == level) & (var.preset == p) & (var.hand == n) & (var.arm == k)].iloc[0]
            x = d[d.arm == k].iloc[0]
            tab.append({"level": level, "rules": p, "hand": n, "own: pts": round(b.baseline_points, 1),
                        "own: out": round(b.baseline_went_out, 3),
                        "arm": k, "points (variant - own)": C.fmt_ci(v.points_mean, v.points_lo, v.points_hi),
                        "went out": C.fmt_ci(v.went_out_mean, v.went_out_lo, v.went_out_hi, 3),
                        "p_holm": C.holm_words(v.points_p_holm), "verdict": v.verdict, "n deals": int(v.deals),
                        "stopped own / arm": f"{b.no_winner_hands / b.hands_played:.1%} / "
                                             f"{x.no_winner_hands / x.hands_played:.1%}",
                        "turn cap own / arm": f"{int(b.turn_cap_hands)} / {int(x.turn_cap_hands)}"})
    L += [C.table_md(pd.DataFrame(tab)), ""]
    if len(dg):
        L += ["## Whole games: game points and win share", "",
              "Hands other than N cancel exactly between arms (common random numbers): "
              f"{'yes, in every arm' if dg.other_hands_cancel.all() else 'NO: see game_effects.csv'}. So the "
              "game-points effect is the hand-N effect measured again on fewer deals; win share is new.", ""]
        tab = []
        for r in dg.itertuples():
            tab.append({"level": r.level, "rules": r.preset, "hand": r.hand, "arm": r.arm,
                        "game points": C.fmt_ci(r.points_mean, r.points_lo, r.points_hi),
                        "win share (pp)": C.fmt_ci(100 * r.win_share_mean, 100 * r.win_share_lo,
                                                   100 * r.win_share_hi),
                        "p_holm win share": C.holm_words(r.win_share_p_holm),
                        "rank": C.fmt_ci(r.rank_mean, r.rank_lo, r.rank_hi, 3), "n deals": r.deals,
                        "stopped hands": int(r.no_winner_hands), "turn cap": int(r.turn_cap_hands)})
        L += [C.table_md(pd.DataFrame(tab)), "",
              "Baselines' stopped hands (whole games): " + "; ".join(
                  f"{b['level']} {b['preset']}: {b['no_winner_hands']:,} of {b['hands_played']:,} hands "
                  f"({b['no_winner_hands'] / b['hands_played']:.1%}) with nobody out, {b['turn_cap_hands']} "
                  "at the turn cap" for b in gbase) + ".", ""]
    tt = pd.DataFrame(times)
    L += ["## Compute budget", "",
          f"Compute: {tt.seconds.sum() / 60:.1f} min of play time as recorded in the arms' manifest.json files "
          f"(this session's wall time, reading included: {clock.total / 60:.1f} min) on this machine "
          f"({os.cpu_count()} cores, shared with other work). Per level (hand-level: deals x 3 arms x 4 seatings; "
          f"CI half-widths on hand-N points, target {a.target_ci:g}):", ""]
    for level in levels:
        t = tt[tt.level == level]
        h = t[t["mode"] == "hand"]
        w = var[var.level == level].half_width
        g = t[t["mode"] == "whole games"]
        L.append(f"- `{level}`: hand-level {h.seconds.sum() / 60:.1f} min, {int(h.deals.sum()):,} deals (cap "
                 f"{caps[level] or a.games:,} per contract), half-widths median {w.median():.2f}, widest {w.max():.2f} "
                 "points" + (f"; whole games {g.seconds.sum() / 60:.1f} min." if len(g) else "; no whole games."))
    L += ["", "Per-experiment times: times.csv.", "",
          "Files: hand_level.csv (every arm, stopped hands), hand_points_effects.csv (effects, Holm), "
          "game_effects.csv (whole games), sign_by_level.csv, times.csv. Raw datasets: data/ (not committed; "
          "rerunning the command rebuilds them identically).", ""]
    study.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
