"""When to buy? The value of buying against passing at real buy decisions, by situation
(issue #31, item 3: the question a player asks once "is buying worth it" is settled)

Games of four `smart` bots play one hand (hand N of the preset, `--hands`). At every buy
decision (a seat asked whether it buys the upcard, with a buy left) the search's evaluator
(`rollout`'s, asked through `shanghai_sim.valuing`) plays the hand out from that point, once
with the seat passing and once buying, on the same samples of what the seat cannot see
(common random numbers; every seat played by smart in the playouts), and the paired mean
difference of the seat's points at the hand's end is the value of buying there (< 0: buying
is better). Then the game goes on as smart plays it, so the decision points are the ones
smart's own games reach.

The points are tabulated by situation: the seat's deficiency before the upcard, whether the
upcard lowers it, and the buys it has made this hand. Per cell: the mean value with a 95% CI
over the deals (decision points of one deal are correlated, so the deal is the cluster), and
*buy*, *pass* or *cannot tell*. Every point is evaluated on K samples and on 2K (the first K
and K more); a cell's K is enough when doubling moves its mean by less than its CI half-width.

    python analyses/when_to_buy.py                              # shanghai and contract hand 8
    python analyses/when_to_buy.py --presets contract --hands 10 --games 40 --samples 32

The check, on other deals (`--check-seed`, `--check-deals`), in one paired hand-level
experiment against smart's own buying: the whole chart, played by a smart that reads it
(`smart:chartN=NAME`: the chart shipped in the package, `shanghai_sim.valuing.BUY_CHARTS`, when the
chart just computed is one of them; otherwise the report gives its rows to ship under a new
name), and the chart read as smart's one buying threshold (`buy_dmax`: the highest
deficiency at which a card that lowers it is a *buy* once a buy is made).
"""

from __future__ import annotations

import os
import sys

if __package__:                      # imported: analyses.when_to_buy (the tests, python -m analyses.when_to_buy)
    from . import analyses_common as C
else:                                # python analyses/when_to_buy.py: this folder is sys.path[0]
    import analyses_common as C

PLAYER = "smart"          # every seat of the games, and the playouts' bot
EVALUATOR = "rollout"     # the evaluator's sampling of the unseen cards (its fit, decl) and weights
DEF_CAP = 6               # deficiencies from this up share a column


def one_hand_rules(preset, n):
    """The preset with only hand n (its contract, deal and buy limit): a hand-level game."""
    from shanghai_sim.experiment import one_hand_rules as one
    from shanghai_sim.rules import load_rules
    return one(load_rules(preset), n)


def collect(preset, n, a, say) -> list[dict]:
    """Play ``a.games`` one-hand games of four smart (deal k: seed ``game_seed(a.seed, k)``)
    and evaluate every buy decision; one row per decision."""
    import numpy as np
    from shanghai_sim.bots import parse_bot
    from shanghai_sim.cards import card_id, to_counts
    from shanghai_sim.game import Game
    from shanghai_sim.hand import deficiency_batch
    from shanghai_sim.runner import game_seeds
    from shanghai_sim.valuing import seat_counters, value_actions_staged
    rules = one_hand_rules(preset, n)
    ev = parse_bot(EVALUATOR)
    K = a.samples
    seeds = game_seeds(a.seed, 0, a.games)
    rows = []
    for k in range(a.games):
        g = Game(rules=rules, players=4, seed=int(seeds[k]), bots=PLAYER)
        while not g.over:
            p = g.to_act
            row = None
            legal = {x.kind: x for x in g.legal_actions()} if g.phase == "buy" else {}
            if "buy" in legal:
                view = g.view(p)
                hand = to_counts(g.hand_cards(p))
                both = np.stack([hand, hand]).copy()
                both[1, card_id(view["upcard"])] += 1
                d0, d1 = (int(x) for x in deficiency_batch(both, 1, rules, shoe=False))
                # passing (first) against buying, on the seat's own samples: K, then K more
                est = value_actions_staged(g, [legal["pass"], legal["buy"]], [K, 2 * K], evaluator=ev)
                if est is not None:
                    (vk, v2k), counters = est, seat_counters(g, p)
                    row = {"preset": preset, "hand": n, "deal": k, "seat": int(p),
                           "turn": counters.turns, "upcard": view["upcard"],
                           "def_before": d0, "def_after": d1, "lowers": d1 < d0,
                           "buys_used": counters.buys, "buys_left": view["buys_left"][p],
                           "cards": view["hand_sizes"][p], "stock": view["stock"],
                           "passes": view["stock_passes"],
                           "opponent_down": any(view["down"][q] for q in range(4) if q != p),
                           "samples": K, "value_k": vk.diff[1], "se_k": vk.se[1],
                           "value_2k": v2k.diff[1], "se_2k": v2k.se[1]}
            act = g.step()
            if row is not None:
                row["smart_buys"] = act.kind == "buy"
                rows.append(row)
        if (k + 1) % 10 == 0:
            say(f"{preset} hand {n}: {k + 1} deals, {len(rows)} decisions")
    return rows


def cluster_ci(values, clusters):
    """Mean of ``values`` with a 95% CI that treats each cluster (a deal) as one unit:
    the ratio estimator's standard error over clusters, Student t on clusters - 1."""
    import numpy as np
    from shanghai_sim.stats import t_quantile
    v = np.asarray(values, float)
    c = np.asarray(clusters)
    ids, inv = np.unique(c, return_inverse=True)
    G = len(ids)
    m = v.mean()
    if G < 2:
        return m, float("nan"), float("nan")
    sums = np.bincount(inv, weights=v - m)
    se = np.sqrt(G / (G - 1) * (sums ** 2).sum()) / len(v)
    h = t_quantile(0.95, G - 1) * se
    return m, m - h, m + h


def cells(df):
    """One row per (preset, hand, lowers, deficiency before, buys used) cell."""
    import pandas as pd
    out = []
    df = df.assign(def_col=df.def_before.clip(upper=DEF_CAP))
    for key, d in df.groupby(["preset", "hand", "lowers", "def_col", "buys_used"], sort=True):
        m, lo, hi = cluster_ci(d.value_2k, d.deal)
        mk, _, _ = cluster_ci(d.value_k, d.deal)
        hw = (hi - lo) / 2
        verdict = "cannot tell" if not (hi < 0 or lo > 0) else ("buy" if hi < 0 else "pass")
        out.append({"preset": key[0], "hand": key[1], "lowers": key[2], "def_before": int(key[3]),
                    "buys_used": key[4], "n": len(d), "deals": d.deal.nunique(),
                    "value_mean": m, "value_lo": lo, "value_hi": hi, "verdict": verdict,
                    "value_mean_k": mk, "doubling_moves": abs(m - mk),
                    "k_enough": bool(abs(m - mk) < hw) if hw == hw else False,
                    "smart_buys_share": float(d.smart_buys.mean())})
    return pd.DataFrame(out)


def chart(cl, preset, n, a, path):
    import numpy as np
    plt = C.pyplot()
    from matplotlib.colors import TwoSlopeNorm
    d = cl[(cl.preset == preset) & (cl.hand == n)]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), squeeze=False)
    lim = max(1.0, float(np.nanmax(np.abs(d.value_mean)))) if len(d) else 1.0
    norm = TwoSlopeNorm(vmin=-lim, vcenter=0, vmax=lim)
    im = None
    for ax, lowers in zip(axes[0], (True, False)):
        x = d[d.lowers == lowers]
        defs = list(range(0, DEF_CAP + 1))
        buys = sorted(cl.buys_used.unique())
        grid = np.full((len(buys), len(defs)), np.nan)
        for r in x.itertuples():
            grid[buys.index(r.buys_used), defs.index(r.def_before)] = r.value_mean
        im = ax.imshow(grid, cmap="RdBu_r", norm=norm, origin="lower", aspect="auto")
        for r in x.itertuples():
            word = {"buy": "BUY", "pass": "pass", "cannot tell": "?"}[r.verdict]
            ax.text(defs.index(r.def_before), buys.index(r.buys_used),
                    f"{word}\n{r.value_mean:+.1f}\nn={r.n}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(defs)))
        ax.set_xticklabels([str(v) if v < DEF_CAP else f"{DEF_CAP}+" for v in defs])
        ax.set_yticks(range(len(buys)))
        ax.set_yticklabels([str(b) for b in buys])
        ax.set_xlabel("the seat's deficiency before the upcard (cards short of the contract)")
        ax.set_ylabel("buys it has made this hand")
        ax.set_title("the upcard lowers its deficiency" if lowers else "the upcard does not lower it")
    fig.subplots_adjust(left=0.07, right=0.84, bottom=0.2, top=0.86, wspace=0.25)
    cb = fig.colorbar(im, cax=fig.add_axes((0.87, 0.2, 0.015, 0.66)))
    cb.set_label("value of buying, points at the hand's end\n(buy - pass; < 0 (blue): buying is better)")
    from shanghai_sim.rules import load_rules
    fig.suptitle(f"When does buying pay? {preset} hand {n} ({load_rules(preset).contracts[n - 1]}): "
                 "buy, pass or cannot tell, by situation", fontsize=10)
    C.caption(fig, f"Decision points: every buy decision ({int(d.n.sum()):,}) in {a.games} one-hand games of four {PLAYER} (seed "
                   f"{a.seed}); each valued by the search's evaluator ({EVALUATOR}'s sampling, {PLAYER} playouts) "
                   f"on {2 * a.samples} common samples, buy against pass. Cell: mean over its n points; BUY/pass "
                   "where the 95% CI over deals excludes 0, ? where it does not. Empty: no such decision.")
    fig.savefig(path)
    plt.close(fig)


def chart_dmax(cl, preset, n):
    """The chart read as smart's ``buy_dmax``: the highest deficiency at which a card that
    lowers it is a *buy* cell once a buy is made (None if there is none)."""
    x = cl[(cl.preset == preset) & (cl.hand == n) & cl.lowers & (cl.verdict == "buy") & (cl.buys_used >= 1)]
    return int(x.def_before.max()) if len(x) else None


def chart_rows(cl, preset, n) -> dict:
    """The chart of (preset, hand n) as the shipped charts write one (``valuing.BUY_CHARTS``): {lowers: rows by
    buys made, each a string over the deficiency columns: B buy, P pass, . cannot tell}."""
    from shanghai_sim.valuing import BUY_CHART_DEF_CAP as CHART_DEF_CAP
    d = cl[(cl.preset == preset) & (cl.hand == n)]
    word = {"buy": "B", "pass": "P", "cannot tell": "."}
    out = {}
    for lowers in (False, True):
        x = d[d.lowers == lowers]
        nb = int(d.buys_used.max()) + 1 if len(d) else 0
        out[lowers] = tuple("".join(next((word[r.verdict] for r in x.itertuples()
                                          if r.buys_used == b and r.def_before == k), ".")
                                    for k in range(CHART_DEF_CAP + 1)) for b in range(nb))
    return out


def shipped_chart(cl, preset, n):
    """The name of the chart shipped in the package (``valuing.BUY_CHARTS``) that is this
    chart, cell for cell, or None."""
    from shanghai_sim.valuing import BUY_CHARTS
    mine = chart_rows(cl, preset, n)
    for name, (_, rows) in BUY_CHARTS.items():
        if name == f"{preset}{n}" or name.startswith(f"{preset}{n}_"):
            pad = {k: tuple(v) + ("." * len(v[0]),) * (len(mine[k]) - len(v)) for k, v in rows.items()}
            if all(pad.get(k) == v for k, v in mine.items()):
                return name
    return None


def check(preset, n, arms, a, folder):
    """Each of ``arms`` ((what, spec): smart reading the chart, smart on its threshold) against
    smart's own buying: one hand-level paired experiment (duplicate seating, common random
    numbers) on ``a.check_deals`` deals of seed ``a.check_seed`` (other deals than the
    chart's). One row per arm."""
    from shanghai_sim.experiment import Arm, Experiment, run_experiment
    exp = Experiment(baseline=PLAYER, opponents=PLAYER, rules=preset, players=4, seed=a.check_seed,
                     variants=tuple(Arm(what, spec) for what, spec in arms), threads=a.threads, hand=n,
                     games=a.check_deals)
    res = run_experiment(exp, str(folder), resume=True, progress=None)
    return [{"preset": preset, "hand": n, "arm": what, "spec": spec, "deals": res.games, "seed": a.check_seed,
             "no_winner_hands_own": res.arms[0].no_winner_hands, "no_winner_hands_arm": arm.no_winner_hands,
             "hands_played": arm.hands_played, **C.effect_columns(arm.effects)}
            for (what, spec), arm in zip(arms, res.arms[1:])]


def main(argv=None) -> int:
    ap = C.parser("when_to_buy", __doc__, games=100, games_help="one-hand games per contract")
    ap.add_argument("--presets", default="shanghai,contract")
    ap.add_argument("--hands", default="8", help="contracts, e.g. 8 or 8,10 (default 8)")
    ap.add_argument("--samples", type=int, default=16,
                    help="K: samples per decision point (each point is also valued on 2K; default 16)")
    ap.add_argument("--check-deals", type=int, default=1500,
                    help="deals of the chart's check, each in 4 seatings (0: no check; default 1500)")
    ap.add_argument("--check-seed", type=int, default=2,
                    help="seed of the check's deals (default 2: not the chart's)")
    a = ap.parse_args(argv)
    if not 2 <= a.samples <= 1024:
        ap.error(f"--samples {a.samples}: give 2 to 1024")
    return C.main_guard(lambda: run(a))


def run(a) -> int:
    import pandas as pd
    st = C.Study(a, hands=True)
    pts = []
    for p in st.presets:
        for n in st.hands:
            with st.clock.step(f"{p} hand {n}"):
                rows = collect(p, n, a, st.say)
            st.say(f"{p} hand {n}: {a.games} deals, {len(rows)} decisions, {st.clock.steps[-1][1]:.0f} s")
            pts += rows
    df = pd.DataFrame(pts)
    df.to_csv(st.out / "decisions.csv", index=False)
    cl = cells(df)
    cl.to_csv(st.out / "cells.csv", index=False)
    for p in st.presets:
        for n in st.hands:
            st.chart(f"when_to_buy_{p}_{n}.png", lambda path: chart(cl, p, n, a, path))
    checks = []
    for p in st.presets:
        for n in st.hands:
            dmax, name = chart_dmax(cl, p, n), shipped_chart(cl, p, n)
            arms = ([("chart", f"{PLAYER}:chart{n}={name}")] if name else []) + (
                [("threshold", f"{PLAYER}:buy_dmax={dmax}")] if dmax is not None else []) + (
                [("both", f"{PLAYER}:buy_dmax={dmax}:chart{n}={name}")] if name and dmax is not None else [])
            if a.check_deals and arms:
                with st.clock.step(f"check {p} hand {n}"):
                    checks += check(p, n, arms, a, st.data / f"check-{p}-{n}")
    ck = pd.DataFrame(checks)
    if len(ck):
        ck["points_p_holm"] = C.holm_column(ck.points_p)
        ck.to_csv(st.out / "check.csv", index=False)
    report(a, st, df, cl, ck)
    return st.done()


def report(a, st, df, cl, ck):
    L = C.report_head("When does buying pay?", C.preset_facts(st.presets))
    L += [f"- One-hand games (hand {', '.join(map(str, st.hands))} of the preset: its contract, deal and buy "
          f"limit) of four `{PLAYER}` (version as in the environment line), {a.games} deals per contract, deal k "
          f"seeded `game_seed_nb({a.seed}, k)`.",
          "- Decision points: every buy decision (a seat asked whether it buys the upcard, a buy left); "
          "the game then goes on as smart plays it.",
          f"- Value of buying at a point: the search's evaluator (`shanghai_sim.valuing.value_actions_staged`, {EVALUATOR}'s "
          f"sampling of the unseen cards, {PLAYER} in every seat of the playouts) plays the hand out passing and "
          f"buying on the same {a.samples} samples, then on {a.samples} more; the paired mean difference of the "
          "seat's points at the hand's end (buy - pass; < 0: buying is better).",
          "- Cells: the seat's deficiency before the upcard (docs/rules.md §6; "
          f"{DEF_CAP}+ together), whether the upcard lowers it, buys made this hand. Per cell the mean over its "
          "points with a 95% CI that treats the deal as the unit (points of one deal are correlated: a "
          "cluster-robust standard error, Student t over the deals in the cell); *buy* / *pass* where the CI "
          "excludes 0, else *cannot tell*. No multiplicity adjustment: the chart is a map, each cell read on "
          "its own.",
          "- The check, against smart's own buying in one hand-level paired experiment (duplicate seating, "
          f"common random numbers) on {a.check_deals:,} other deals (seed {a.check_seed}): the whole chart, played "
          "by a smart that reads it (`smart:chartN=NAME`, the chart shipped in the package that is this one cell "
          "for cell: docs/bots.md, \"Buying by a chart\"), where it says *buy* or *pass*, and by its own "
          "judgement in the cells that cannot tell; the chart read as smart's one threshold `buy_dmax` (the "
          "highest deficiency at which a card that lowers it is a *buy* cell once a buy is made); and the two "
          "together (the chart where it says *buy* or *pass*, smart on that threshold elsewhere). Holm over "
          "every arm checked.",
          f"- Budget: a cell's K = {a.samples} samples are enough when the mean on 2K moves by less than the CI "
          "half-width.", "", "## Answer", ""]
    for (p, n), d in sorted(cl.groupby(["preset", "hand"], sort=False),
                            key=lambda x: (st.presets.index(x[0][0]), x[0][1])):
        x = df[(df.preset == p) & (df.hand == n)]
        def lst(v):
            s = d[d.verdict == v]
            return "; ".join(f"deficiency {r.def_before}{'+' if r.def_before == DEF_CAP else ''}, "
                             f"{'lowers' if r.lowers else 'does not lower'}, {r.buys_used} buys made "
                             f"({C.fmt_ci(r.value_mean, r.value_lo, r.value_hi)}, n = {r.n})"
                             for r in s.itertuples()) or "none"
        agree = ((x.value_2k < 0) == x.smart_buys).mean()
        L += [f"- **{p}, hand {n}** ({len(x):,} decision points in {x.deal.nunique()} deals; smart bought at "
              f"{x.smart_buys.mean():.1%} of them). Buying pays: {lst('buy')}. Passing pays: {lst('pass')}. "
              f"Cells that cannot tell: {int((d.verdict == 'cannot tell').sum())} of {len(d)}. K enough in "
              f"{int(d.k_enough.sum())} of {len(d)} cells (the cells where it is not need more samples). "
              f"Smart's own choice has the sign of the point's value at {agree:.1%} of the points.", ""]
    if len(ck):
        L += ["### The check: smart buying by the chart", ""]
        for r in ck.itertuples():
            ok = r.points_hi < 0
            what = {"chart": "the whole chart", "threshold": "the chart's threshold",
                    "both": "the chart, and its threshold where it cannot tell"}[r.arm]
            L.append(f"- **{r.preset}, hand {r.hand}, {what}:** `{r.spec}` against smart's own buying: "
                     f"{C.fmt_ci(r.points_mean, r.points_lo, r.points_hi)} points in the hand (Holm p "
                     f"{C.holm_words(r.points_p_holm)}, n = {r.deals:,} deals x 4 seatings); "
                     + ("better" if ok and r.points_p_holm < 0.05 else
                        "worse" if r.points_lo > 0 and r.points_p_holm < 0.05 else "cannot tell")
                     + f". Hands stopped with nobody out: {r.no_winner_hands_own:,} own, "
                     f"{r.no_winner_hands_arm:,} {r.arm}, of {r.hands_played:,}.")
        L.append("")
    elif a.check_deals:
        L += ["### The check", "", "No chart here is one shipped in the package, and none has a *buy* cell for a "
              "card that lowers the deficiency once a buy is made (a threshold), so there is nothing to play.", ""]
    unshipped = [(p, n) for p in st.presets for n in st.hands
                 if len(cl[(cl.preset == p) & (cl.hand == n)]) and shipped_chart(cl, p, n) is None]
    for p, n in unshipped:
        rows = chart_rows(cl, p, n)
        L += [f"**{p}, hand {n}: this chart is not one shipped in the package** (kernels/bots/buycharts.py), so a "
              "bot cannot read it yet and the check plays only its threshold. To ship it, add it there under a "
              "new name (a shipped chart never changes) with these rows (buys made 0, 1, ...; deficiency "
              f"0..{DEF_CAP}+; B buy, P pass, . cannot tell):", "",
              f"    does not lower: {', '.join(rows[False])}", f"    lowers:         {', '.join(rows[True])}", ""]
    for c in st.charts:
        L += [f"![{c}]({c})", ""]
    L += ["## Every cell", "", "value: buy - pass, points at the hand's end, mean [95% CI over deals]; "
          "moves: |mean on 2K - mean on K|.", "",
          C.table_md(cl.assign(value=[C.fmt_ci(m, lo, hi) for m, lo, hi in zip(cl.value_mean, cl.value_lo, cl.value_hi)])
                     [["preset", "hand", "lowers", "def_before", "buys_used", "n", "deals", "value", "verdict",
                       "doubling_moves", "k_enough", "smart_buys_share"]]), "",
          "## Compute budget", "",
          f"Compute: {st.clock.total / 60:.1f} min wall on this machine ({os.cpu_count()} cores, one used: the games "
          "are played step by step in Python, the playouts in compiled code). Per contract: "
          + "; ".join(f"{name} {s:.0f} s" for name, s in st.clock.steps) + ".", "",
          "Files: decisions.csv (every point: situation, smart's choice, the value on K and 2K samples with its "
          "standard error), cells.csv, check.csv (the check's effects). Raw datasets of the check: data/ (not "
          "committed; rerunning rebuilds them).", ""]
    st.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
