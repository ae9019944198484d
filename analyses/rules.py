"""How do the rules options change the game? (issue #15, question 5)

One plain run (`shanghai_sim.runner`) per rules variant, the same bot in every
seat, against the preset as it is: the buy penalty (1 vs 2 extra cards), the
packs and jokers in the shoe, the number of players (3-8) and
`max_stock_passes` (reshuffles before a hand stops with no winner;
docs/rules.md §3). For each variant and contract: the hand's length in turns
(all seats), the share of hands with no winner (stopped by the stock rule, and
by the turn cap, counted apart), buys per player, and the distribution of a
player's points in the hand; and the distribution of game totals.

This is a description of the game under each rule, not a test: each figure
comes with its 95% CI over games, and no difference is tested (so no
multiplicity adjustment is needed; read overlapping CIs as "the data cannot
tell").

    python analyses/rules.py
    python analyses/rules.py --presets contract --games 500 --levels greedy
"""

from __future__ import annotations

import os
import sys

if __package__:                      # imported: analyses.rules (the tests, python -m analyses.rules)
    from . import analyses_common as C
else:                                # python analyses/rules.py: this folder is sys.path[0]
    import analyses_common as C

# family, label, options changed (docs/rules.md §3). "players" is the table size.
VARIANTS = [
    ("buy penalty", "buy_penalty=1", {"buy_penalty": 1}),
    ("buy penalty", "buy_penalty=2", {"buy_penalty": 2}),
    ("packs and jokers", "3 packs", {"decks": 3}),
    ("packs and jokers", "no jokers", {"jokers": 0}),
    ("packs and jokers", "8 jokers", {"jokers": 8}),
    ("players", "3 players", {"players": 3}),
    ("players", "5 players", {"players": 5}),
    ("players", "6 players", {"players": 6}),
    ("players", "7 players", {"players": 7}),
    ("players", "8 players", {"players": 8}),
    ("stock passes", "max_stock_passes=0", {"max_stock_passes": 0}),
    ("stock passes", "max_stock_passes=1", {"max_stock_passes": 1}),
    ("stock passes", "max_stock_passes=10", {"max_stock_passes": 10}),
]
POINTS_RANGE = (-200, 1200)     # histogram of a player's hand points (blind bonus can be negative)
GAME_RANGE = (-500, 6000)       # histogram of game totals


def play(level, preset, label, opts, a, data):
    """One plain run of the preset with ``opts`` changed; returns (location, rules, players)."""
    from shanghai_sim import runner
    rules, players = variant_rules(preset, label, opts)
    loc = os.path.join(data, f"{preset}-{level}-{label}".replace("=", "").replace(" ", "_"))
    job = runner.Job(rules=rules, players=players, bots=(level,), games=a.games, seed=a.seed, threads=a.threads,
                     out=loc, detail="hands")
    runner.run(runner.plan(job), resume=True, progress=None)
    return loc, rules, players


def measure(loc, rules, players, n):
    """Per game x contract: turns, stopped, turn-capped, buys per player; histograms of points."""
    import numpy as np
    import pyarrow.compute as pc
    from shanghai_sim.integrity import iter_parts
    H = rules.hands
    acc = {k: np.zeros(n * H) for k in ("turns", "stock", "turn_cap", "buys", "points")}
    lo, hi = POINTS_RANGE
    hist = np.zeros((H, hi - lo + 1), dtype=np.int64)
    for _, t in iter_parts(loc, "hands", ["game", "hand", "seat", "turns", "buys", "points", "ended"]):
        g = t["game"].to_numpy().astype(np.int64)
        h = t["hand"].to_numpy().astype(np.int64) - 1
        idx = g * H + h
        acc["turns"] += np.bincount(idx, t["turns"].to_numpy().astype(float), minlength=n * H)
        acc["buys"] += np.bincount(idx, t["buys"].to_numpy().astype(float), minlength=n * H) / players
        acc["points"] += np.bincount(idx, t["points"].to_numpy().astype(float), minlength=n * H) / players
        first = pc.equal(t["seat"], 0).to_numpy(zero_copy_only=False)
        ended = t["ended"].cast("string").to_numpy(zero_copy_only=False)
        acc["stock"] += np.bincount(idx[first], (ended[first] == "stock").astype(float), minlength=n * H)
        acc["turn_cap"] += np.bincount(idx[first], (ended[first] == "turn_cap").astype(float), minlength=n * H)
        p = np.clip(t["points"].to_numpy().astype(np.int64), lo, hi) - lo
        np.add.at(hist, (h, p), 1)
    glo, ghi = GAME_RANGE
    ghist = np.zeros(ghi - glo + 1, dtype=np.int64)
    for _, t in iter_parts(loc, "games", ["points"]):
        ghist += np.bincount(np.clip(t["points"].to_numpy().astype(np.int64), glo, ghi) - glo,
                             minlength=ghi - glo + 1)
    return {k: v.reshape(n, H) for k, v in acc.items()}, hist, ghist


def variant_rules(preset, label, opts):
    """The rules of a variant (the preset with ``opts`` changed) and its player count."""
    from shanghai_sim.rules import load_rules, overrides
    opts = dict(opts)
    players = opts.pop("players", None)
    rules = load_rules(preset)
    if opts:
        rules = overrides(rules, opts, where=label).replace(name=f"{preset} ({label})")
    return rules, players or rules.players


def same_as_preset(base, opts) -> bool:
    from shanghai_sim.rules import overrides
    opts = dict(opts)
    if opts.pop("players", base.players) != base.players:
        return False
    return not opts or overrides(base, opts).to_dict() == base.to_dict()


def quantiles(hist, lo, qs=(0.05, 0.25, 0.5, 0.75, 0.95)):
    import numpy as np
    c = np.cumsum(hist)
    return [int(np.searchsorted(c, q * c[-1]) + lo) for q in qs]


def main(argv=None) -> int:
    ap = C.parser("rules", __doc__, games=1500)
    ap.add_argument("--presets", default="shanghai,contract")
    C.levels_arg(ap, default="smart")
    a = ap.parse_args(argv)
    return C.main_guard(lambda: run(a))


def variants(level, preset):
    """The preset as it is, then every variant that changes it (buy_penalty=2 under shanghai is
    the preset itself)."""
    from shanghai_sim.rules import load_rules
    base = load_rules(preset)
    return [v for v in [("", "as the preset", {})] + VARIANTS if not (v[2] and same_as_preset(base, v[2]))]


def variant_rows(cell, played, a, q) -> dict:
    """``contracts``: per contract, its measures with 95% CIs over games and the points'
    quantiles; ``hists``: its exact points histogram; ``games``: the game totals' mean and
    quantiles; ``runs``: the run's rules and play time."""
    import numpy as np
    level, p, (fam, label, _) = cell
    loc, rules, players, (m, hist, ghist) = played
    rows, dists = [], []
    for h in range(rules.hands):
        r = {"level": level, "preset": p, "family": fam, "variant": label, "hand": h + 1,
             "contract": str(rules.contracts[h]), "n": a.games}
        for k, v in m.items():
            x = v[:, h]
            hw = q * x.std(ddof=1) / np.sqrt(len(x))
            lo_, hi_ = x.mean() - hw, x.mean() + hw
            if k in ("stock", "turn_cap"):          # shares: a t interval can pass 0 or 1
                lo_, hi_ = max(lo_, 0.0), min(hi_, 1.0)
            r.update({k: x.mean(), f"{k}_lo": lo_, f"{k}_hi": hi_})
        qs = quantiles(hist[h], POINTS_RANGE[0])
        r.update({f"points_q{int(100 * x)}": v for x, v in zip((0.05, 0.25, 0.5, 0.75, 0.95), qs)})
        rows.append(r)
        dists.append({"level": level, "preset": p, "variant": label, "hand": h + 1,
                      **{str(POINTS_RANGE[0] + i): int(c) for i, c in enumerate(hist[h]) if c}})
    gq = quantiles(ghist, GAME_RANGE[0])
    return {"contracts": rows, "hists": dists,
            "games": [{"level": level, "preset": p, "family": fam, "variant": label,
                       "game_points_mean": float((np.arange(len(ghist)) + GAME_RANGE[0]) @ ghist / ghist.sum()),
                       **{f"game_points_q{x}": v for x, v in zip((5, 25, 50, 75, 95), gq)}}],
            "runs": [{"level": level, "preset": p, "family": fam, "variant": label, "players": players,
                      "packs": rules.decks_for(players), "jokers": rules.jokers_for(players),
                      "buy_penalty": rules.buy_penalty, "max_stock_passes": rules.max_stock_passes,
                      "games": a.games, "seconds": round(C.recorded_seconds(loc), 1)}]}


def run(a) -> int:
    import pandas as pd
    from shanghai_sim.stats import t_quantile
    if a.games < 2:
        raise C.AnalysisError(f"--games {a.games}: at least 2 games (a CI needs two)")
    st = C.Study(a)
    levels, presets = st.levels, st.presets
    q = t_quantile(0.95, a.games - 1)

    def play_and_measure(c):
        loc, rules, players = play(c.level, c.preset, c.item[1], c.item[2], a, str(st.data))
        return loc, rules, players, measure(loc, rules, players, a.games)
    t = st.sweep(C.cells(levels, presets, variants), play_and_measure, lambda c, r: variant_rows(c, r, a, q),
                 step=lambda c: f"{c.preset} {c.level} {c.item[1]}",
                 line=lambda c, r, s: f"{c.level} {c.preset} {c.item[1]}: {s:.0f} s")
    rows, dists, games, runs = t["contracts"], t["hists"], t["games"], t["runs"]
    out = st.out
    df = pd.DataFrame(rows)
    df.to_csv(out / "by_contract.csv", index=False)
    pd.DataFrame(dists).fillna(0).to_csv(out / "points_histograms.csv", index=False)
    dg = pd.DataFrame(games)
    dg.to_csv(out / "game_points.csv", index=False)
    dr = pd.DataFrame(runs)
    dr.to_csv(out / "runs.csv", index=False)
    for level in levels:
        for p in presets:
            st.chart(f"rules_{p}_{C.file_part(level)}.png",
                     lambda path: chart_measures(df[(df.level == level) & (df.preset == p)], level, p, a, path))
        st.chart(f"points_by_contract_{C.file_part(level)}.png",
                 lambda path: chart_points(df[df.level == level], level, presets, a, path))
    report(a, levels, presets, df, dg, dr, st)
    return st.done()


def chart_measures(df, level, preset, a, path):
    """Rows: hand length, no-winner share, buys per player; columns: the option families."""
    plt = C.pyplot()
    fams = [f for f in dict.fromkeys(v[0] for v in VARIANTS)]
    metrics = [("turns", "hand length\n(turns, all seats)", 1), ("stock", "hands with no winner\n(stock rule, %)", 100),
               ("buys", "buys per player\nper hand", 1)]
    fig, axes = plt.subplots(len(metrics), len(fams), figsize=(3.4 * len(fams), 7.4), sharex=True, squeeze=False)
    for j, fam in enumerate(fams):
        labels = ["as the preset"] + [v[1] for v in VARIANTS if v[0] == fam and v[1] in set(df.variant)]
        for i, (k, ylab, s) in enumerate(metrics):
            ax = axes[i][j]
            for c, lab in enumerate(labels):
                d = df[df.variant == lab]
                st = C.STYLES[c % len(C.STYLES)]
                x = d.hand + (c - (len(labels) - 1) / 2) * 0.07
                ax.errorbar(x, s * d[k], yerr=[s * (d[k] - d[f"{k}_lo"]), s * (d[f"{k}_hi"] - d[k])],
                            color=st["color"], marker=st["marker"], mfc=st["mfc"], mec=st["color"], ls=st["ls"],
                            ms=3.5, lw=1, capsize=1.5, label=lab)
            if j == 0:
                ax.set_ylabel(ylab)
            if i == 0:
                ax.set_title(fam)
                ax.legend(fontsize=6)
            if i == len(metrics) - 1:
                ax.set_xlabel("hand (contract)")
            ax.set_xticks(range(1, int(df.hand.max()) + 1))
            ax.grid(color="0.9", lw=0.6)
    fig.suptitle(f"How do the rules options change each hand? (preset {preset}, {level} in every seat)", fontsize=10)
    C.caption(fig, f"Every seat plays {level}; {preset} preset (4 players unless the variant says), one option changed "
                   f"per line; plain runs of {int(df.n.max()):,} games each, seed {a.seed}. Bars: 95% CI over games.")
    fig.tight_layout(rect=(0, 0.04, 1, 0.96))
    fig.savefig(path)
    plt.close(fig)


def chart_points(df, level, presets, a, path):
    """A player's points per hand, by contract: median, quartiles and 5-95% for each preset as it is."""
    plt = C.pyplot()
    fig, axes = plt.subplots(1, len(presets), figsize=(max(8.0, 5.4 * len(presets)), 4.4), squeeze=False, sharey=True)
    for ax, p in zip(axes[0], presets):
        d = df[(df.preset == p) & (df.variant == "as the preset")]
        x = d.hand.to_numpy()
        ax.vlines(x, d.points_q5, d.points_q95, color="0.6", lw=1, label="5-95% of players' hands")
        ax.vlines(x, d.points_q25, d.points_q75, color="0.25", lw=5, label="middle 50%")
        ax.plot(x, d.points_q50, "w_", ms=9, mew=2)
        ax.errorbar(x + 0.25, d.points, yerr=[d.points - d.points_lo, d.points_hi - d.points], fmt="o", ms=3.5,
                    color="black", mfc="white", capsize=2, label="mean (95% CI)")
        ax.set_xticks(x)
        ax.set_xticklabels([f"{h}\n{c.replace(' ', chr(10))}" for h, c in zip(x, d.contract)], fontsize=6.5)
        ax.set_title(f"rules: {p}")
        ax.set_xlabel("hand and contract")
        ax.grid(axis="y", color="0.9", lw=0.6)
    axes[0][0].set_ylabel("a player's points in the hand")
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"How many points does each contract cost a player? ({level} in every seat, 4 players)", fontsize=10)
    C.caption(fig, f"Every seat plays {level}; presets as they are, 4 players; {int(df.n.max()):,} games each "
                   f"({int(df.n.max()) * 4:,} player-hands per contract), seed {a.seed}. White tick: median.")
    fig.tight_layout(rect=(0, 0.05, 1, 0.95))
    fig.savefig(path)
    plt.close(fig)


def report(a, levels, presets, df, dg, dr, st):
    facts = [(f"{p} {label}", *variant_rules(p, label, opts)) for p in presets
             for _, label, opts in variants(levels[0], p)]
    L = C.report_head("How do the rules options change the game?", facts) + [
         f"- One plain run per variant, {', '.join(levels)} in every seat, {a.games:,} games each, job seed {a.seed} "
         "(the same game seeds in every run; a changed rule changes the deals, so runs are compared as levels, not "
         "paired). Variants change one option of the preset: " + "; ".join(f"{v[1]}" for v in VARIANTS) + " (a "
         "variant equal to the preset, such as buy_penalty=2 under `shanghai`, is the preset's run).",
         "- Per contract: mean hand length (turns taken by all seats), share of hands that stopped with nobody out "
         "(the stock rule, docs/rules.md §5.5) and at the turn cap (§5.8, counted apart), buys per player, a "
         "player's points (mean, and quantiles 5/25/50/75/95 from exact histograms). The game is the unit of each "
         "CI (95%, Student t over games; the shares' CIs are clipped to 0..1).",
         "- Descriptive: no difference is tested, so there is no multiplicity to adjust; a difference is reported in "
         "words only where the CIs are apart.", "", "## Answer", ""]
    for lv in levels:
        for p in presets:
            d = df[(df.level == lv) & (df.preset == p)]
            agg = d.groupby("variant", sort=False).agg(turns=("turns", "mean"), stock=("stock", "mean"),
                                                       cap=("turn_cap", "mean"), buys=("buys", "mean"),
                                                       points=("points", "mean"))
            b = agg.loc["as the preset"]
            def line(v):
                x = agg.loc[v]
                return (f"{v}: {x.turns:.0f} turns a hand ({x.turns - b.turns:+.0f}), {100 * x.stock:.1f}% hands "
                        f"with no winner ({100 * (x.stock - b.stock):+.1f} pp), {x.buys:.2f} buys per player "
                        f"({x.buys - b.buys:+.2f}), {x.points:.1f} points per player-hand ({x.points - b.points:+.1f})")
            L.append(f"- **{lv}, {p}** as the preset: {b.turns:.0f} turns a hand, {100 * b.stock:.1f}% of hands with "
                     f"no winner, {100 * b.cap:.2f}% at the turn cap, {b.buys:.2f} buys per player per hand, "
                     f"{b.points:.1f} points per player-hand (averages over the 10 contracts). Against that: "
                     + "; ".join(line(v) for v in agg.index if v != "as the preset") + ".")
    L += ["", "Per-contract figures with CIs are in the table below and by_contract.csv; which contracts drive each "
          "change is in the charts.", ""] + [f"![{c}]({c})\n" for c in st.charts]
    t = df.copy()
    t["turns [95% CI]"] = [C.fmt_ci(m, lo, hi, 1, False) for m, lo, hi in zip(t.turns, t.turns_lo, t.turns_hi)]
    t["no winner %"] = [C.fmt_ci(100 * m, 100 * lo, 100 * hi, 1, False) for m, lo, hi in
                        zip(t.stock, t.stock_lo, t.stock_hi)]
    t["turn cap %"] = (100 * t.turn_cap).round(2)
    t["buys/player"] = [C.fmt_ci(m, lo, hi, 2, False) for m, lo, hi in zip(t.buys, t.buys_lo, t.buys_hi)]
    t["points/player"] = [C.fmt_ci(m, lo, hi, 1, False) for m, lo, hi in zip(t.points, t.points_lo, t.points_hi)]
    t["points q5/25/50/75/95"] = [f"{a_}/{b_}/{c_}/{d_}/{e_}" for a_, b_, c_, d_, e_ in
                                  zip(t.points_q5, t.points_q25, t.points_q50, t.points_q75, t.points_q95)]
    L += ["## By contract", "", C.table_md(t[["level", "preset", "variant", "hand", "contract", "turns [95% CI]",
                                              "no winner %", "turn cap %", "buys/player", "points/player",
                                              "points q5/25/50/75/95"]]), "",
          "## Game totals", "", "A player's game total (lower wins): mean and quantiles.", "",
          C.table_md(dg.drop(columns=["family"]), ".1f"), "", "## Runs", "", C.table_md(dr), "",
          f"Compute: {dr.seconds.sum() / 60:.1f} min of run time as recorded in each manifest.json (this session's "
          f"wall time, reading included: {st.clock.total / 60:.1f} min; {os.cpu_count()} cores, shared with other "
          "work). Files: by_contract.csv, "
          "points_histograms.csv (exact counts of a player's hand points, per variant and contract), game_points.csv, "
          "runs.csv; raw datasets in data/ (not committed).", ""]
    st.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
