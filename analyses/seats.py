"""What is a seat worth? Seats relative to the first dealer, and playing first in a hand
(issue #15, question 4)

Plain runner datasets (`shanghai_sim.runner`), every seat played by the same bot,
so any difference between seats is the seat's own. The first dealer is drawn
from the game's seed and the deal moves one seat left every hand (docs/rules.md
§5.1). Two questions, for the `shanghai` and `contract` presets and 3-6 players:

- **the seat relative to the first dealer** (offset 0 = the first dealer,
  1 = the first dealer's left, who plays first in hand 1, ...): game points and
  win share per game;
- **the position in a hand relative to that hand's dealer** (1 = plays first,
  ..., 0 = the dealer, plays last): points per hand and the share of hands gone out.

The unit is the game: each game gives one value per seat (or position, averaged
over the game's hands), and a seat's effect is its paired difference from
offset 0 within the same games. Read by columns, one part file at a time.

    python analyses/seats.py
    python analyses/seats.py --levels greedy --players 4 --presets contract --games 4000
"""

from __future__ import annotations

import os
import sys

if __package__:                      # imported: analyses.seats (the tests, python -m analyses.seats)
    from . import analyses_common as C
else:                                # python analyses/seats.py: this folder is sys.path[0]
    import analyses_common as C


def dataset(level, preset, players, a, data):
    """One plain rotated run (resumed if already there)."""
    from shanghai_sim import runner
    job = runner.Job(rules=preset, players=players, bots=(level,), games=a.games, seed=a.seed,
                     threads=a.threads, out=os.path.join(data, f"{preset}-{level}-{players}p"), detail="hands")
    plan = runner.plan(job)
    runner.run(plan, resume=True, progress=None)
    return job.out, plan.rules.hands


def per_game(loc, players, hands, n):
    """Per game, per seat offset from the first dealer: points, win share; per position in the
    hand (from that hand's dealer): mean points and share gone out over the game's hands."""
    import numpy as np
    import pyarrow.compute as pc
    from shanghai_sim.integrity import iter_parts
    first = np.full(n, -1, dtype=np.int64)
    hp = np.zeros(n * players)
    ho = np.zeros(n * players)
    stopped = turn_cap = 0
    for _, t in iter_parts(loc, "hands", ["game", "hand", "seat", "dealer", "points", "went_out", "ended"]):
        g = t["game"].to_numpy().astype(np.int64)
        h = t["hand"].to_numpy()
        seat = t["seat"].to_numpy().astype(np.int64)
        dealer = t["dealer"].to_numpy().astype(np.int64)
        one = h == 1
        first[g[one]] = dealer[one]
        pos = (seat - dealer) % players                     # 0 = dealer, 1 = plays first
        idx = g * players + pos
        hp += np.bincount(idx, t["points"].to_numpy().astype(float), minlength=n * players)
        ho += np.bincount(idx, t["went_out"].to_numpy(zero_copy_only=False).astype(float), minlength=n * players)
        ended = t.filter(pc.equal(t["seat"], 0))["ended"].cast("string").to_numpy(zero_copy_only=False)
        stopped += int((ended == "stock").sum())
        turn_cap += int((ended == "turn_cap").sum())
    gp = np.zeros(n * players)
    gw = np.zeros(n * players)
    for _, t in iter_parts(loc, "games", ["game", "seat", "points", "win_share"]):
        g = t["game"].to_numpy().astype(np.int64)
        off = (t["seat"].to_numpy().astype(np.int64) - first[g]) % players
        idx = g * players + off
        gp += np.bincount(idx, t["points"].to_numpy().astype(float), minlength=n * players)
        gw += np.bincount(idx, t["win_share"].to_numpy().astype(float), minlength=n * players)
    if (first < 0).any():
        raise C.AnalysisError(f"{loc}: {int((first < 0).sum())} game(s) lack hand 1; rerun to repair the dataset")
    shape = (n, players)
    return {"game_points": gp.reshape(shape), "win_share": gw.reshape(shape),
            "hand_points": hp.reshape(shape) / hands, "went_out": ho.reshape(shape) / hands,
            "stopped_hands": stopped, "turn_cap_hands": turn_cap, "hands": n * hands}


def main(argv=None) -> int:
    ap = C.parser("seats", __doc__, games=10000)
    ap.add_argument("--presets", default="shanghai,contract")
    ap.add_argument("--players", default="3,4,5,6", help="player counts (default 3,4,5,6)")
    C.levels_arg(ap, default="smart")
    a = ap.parse_args(argv)
    return C.main_guard(lambda: run(a))


def seat_rows(cell, played, a) -> dict:
    """``seats``: per measure and seat offset, the seat's level and its paired difference from
    offset 0; ``runs``: the run's games, stopped hands and play time."""
    import numpy as np
    from shanghai_sim.stats import paired_effect
    level, p, P = cell
    loc, d = played
    rows = []
    for m in ("game_points", "win_share", "hand_points", "went_out"):
        x = d[m]
        for s in range(P):
            lvl = x[:, s]
            e = paired_effect(lvl, x[:, 0]) if s else None
            q = 1.959963984540054 * lvl.std(ddof=1) / np.sqrt(len(lvl))
            rows.append({"level": level, "preset": p, "players": P, "measure": m,
                         "relative_to": "first dealer" if m in ("game_points", "win_share") else
                         "hand's dealer", "offset": s, "mean": lvl.mean(), "lo": lvl.mean() - q,
                         "hi": lvl.mean() + q, "n": len(lvl),
                         "d_mean": e.mean if e else 0.0, "d_lo": e.lo if e else 0.0,
                         "d_hi": e.hi if e else 0.0, "d_p": e.p if e else None})
    return {"seats": rows,
            "runs": [{"level": level, "preset": p, "players": P, "games": a.games, "hands": d["hands"],
                      "stopped_hands": d["stopped_hands"], "turn_cap_hands": d["turn_cap_hands"],
                      "seconds": round(C.recorded_seconds(loc), 1)}]}


def run(a) -> int:
    import pandas as pd
    try:
        counts = [int(x) for x in a.players.split(",")]
    except ValueError:
        raise C.AnalysisError(f"--players {a.players!r}: expected player counts such as 3,4,5,6") from None
    if a.games < 2:
        raise C.AnalysisError(f"--games {a.games}: at least 2 games (a CI needs two)")
    st = C.Study(a)
    levels, presets = st.levels, st.presets

    def play(c):
        loc, hands = dataset(c.level, c.preset, c.item, a, str(st.data))
        return loc, per_game(loc, c.item, hands, a.games)
    t = st.sweep(C.cells(levels, presets, counts), play, lambda c, r: seat_rows(c, r, a),
                 step=lambda c: f"{c.preset} {c.level} {c.item}p",
                 line=lambda c, r, s: f"{c.level} {c.preset} {c.item} players: {a.games} games, {s:.0f} s")
    df = pd.DataFrame(t["seats"])
    for m in df.measure.unique():                           # Holm within each measure's family
        sel = (df.measure == m) & df.d_p.notna()
        df.loc[sel, "d_p_holm"] = C.holm_column(df[sel].d_p)
    df.to_csv(st.out / "seats.csv", index=False)
    dr = pd.DataFrame(t["runs"])
    dr.to_csv(st.out / "runs.csv", index=False)
    for level in levels:
        st.chart(f"seats_{C.file_part(level)}.png", lambda path: chart(df[df.level == level], level, a, path))
    report(a, levels, presets, counts, df, dr, st)
    return st.done()


def chart(df, level, a, path):
    plt = C.pyplot()
    presets = list(dict.fromkeys(df.preset))
    fig, axes = plt.subplots(2, len(presets), figsize=(5.4 * len(presets), 7.2), squeeze=False)
    for j, p in enumerate(presets):
        for i, (m, ylab, scale, par) in enumerate((
                ("win_share", "win share (%) by seat\nrelative to the first dealer", 100, True),
                ("hand_points", "points per hand by position\nrelative to the hand's dealer", 1, False))):
            ax = axes[i][j]
            d = df[(df.preset == p) & (df.measure == m)]
            for k, (P, g) in enumerate(d.groupby("players")):
                st = C.STYLES[k % len(C.STYLES)]
                x = g.offset.to_numpy() + (k - 1.5) * 0.06
                ax.errorbar(x, scale * g["mean"], yerr=[scale * (g["mean"] - g.lo), scale * (g.hi - g["mean"])],
                            color=st["color"], marker=st["marker"], mfc=st["mfc"], mec=st["color"], ls=st["ls"],
                            capsize=2, ms=5, lw=1.1, label=f"{P} players")
                if par:
                    ax.axhline(100 / P, color=st["color"], lw=0.6, ls=st["ls"], alpha=0.6)
            ax.set_ylabel(ylab)
            ax.set_xticks(range(int(d.offset.max()) + 1))
            ax.set_xlabel("seats to the left of the first dealer (0 = first dealer, 1 = plays first in hand 1)"
                          if par else "position (0 = the dealer, plays last; 1 = plays first)", fontsize=8)
            ax.set_title(f"rules: {p}")
            ax.grid(color="0.9", lw=0.6)
        axes[0][j].legend(fontsize=7)
    fig.suptitle(f"What is a seat worth? Win share by seat and points by position in the hand ({level} in "
                 "every seat)", fontsize=10)
    C.caption(fig, f"Every seat plays {level}; plain runs of {int(df.n.max()):,} games per preset and player "
                   f"count, seed {a.seed}. Thin lines: par win share (100/players %). Bars: 95% CI of each seat's "
                   "mean over games (report.md: paired differences from seat 0 / the dealer, Holm).")
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    fig.savefig(path)
    plt.close(fig)


def report(a, levels, presets, counts, df, dr, st):
    L = C.report_head("What is a seat worth?", C.preset_facts(presets, counts)) + [
         f"- Plain runs (`shanghai_sim.runner`), the same bot in every seat ({', '.join(levels)}), rules presets "
         f"{', '.join(presets)}, {', '.join(map(str, counts))} players; {a.games:,} games each, job seed {a.seed} "
         "(game seeds `game_seed_nb(seed, g)`). The first dealer comes from the seed; the deal moves one seat left "
         "each hand (docs/rules.md §5.1).",
         "- Seat offset: seats to the left of the first dealer (1 plays first in hand 1). Position in a hand: seats "
         "to the left of that hand's dealer (1 plays first, 0 = the dealer plays last).",
         "- The unit is the game. A seat's effect is its paired difference from offset 0 (the first dealer / the "
         "hand's dealer) in the same games, mean with a 95% t CI over games. Multiplicity: Holm within each "
         "measure over every seat, player count and preset; *differs* below means CI excludes 0 and Holm p < 0.05.",
         "- Stopped hands (nobody out, docs/rules.md §5.5) and turn-cap hands (§5.8) are scored as played (every "
         "player scores what it holds) and counted in the last table.", "", "## Answer", ""]
    for lv in levels:
        for p in presets:
            for P in counts:
                d = df[(df.level == lv) & (df.preset == p) & (df.players == P)]
                w = d[d.measure == "win_share"]
                hp = d[d.measure == "hand_points"]
                sig = lambda x: x[(x.d_p_holm < 0.05) & ((x.d_lo > 0) | (x.d_hi < 0))]
                ws = ", ".join(f"{o}: {100 * m:.1f}%" for o, m in zip(w.offset, w["mean"]))
                wd = sig(w)
                first = hp[hp.offset == 1].iloc[0] if P > 1 else None
                L.append(f"- **{lv}, {p}, {P} players.** Win share by seat from the first dealer: {ws} (par "
                         f"{100 / P:.1f}%); seats that differ from the first dealer's (Holm): "
                         + (", ".join(f"{o} ({100 * m:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}])"
                                      for o, m, lo, hi in zip(wd.offset, wd.d_mean, wd.d_lo, wd.d_hi)) or "none")
                         + f". Playing first in a hand: {first['mean']:.2f} points a hand against the dealer's "
                         f"{hp[hp.offset == 0].iloc[0]['mean']:.2f} (difference "
                         f"{C.fmt_ci(first.d_mean, first.d_lo, first.d_hi, 2)}, Holm p {C.holm_words(first.d_p_holm)}).")
    L += [""] + [f"![{c}]({c})" for c in st.charts] + ["", "## Every seat", "",
          "`mean` is the seat's level (win share as a fraction, points per game or per hand, share of hands gone "
          "out), `d` its paired difference from offset 0, with 95% CIs; n games.", ""]
    t = df.copy()
    t["mean [95% CI]"] = [C.fmt_ci(m, lo, hi, 3, sign=False) for m, lo, hi in zip(t["mean"], t.lo, t.hi)]
    t["d [95% CI]"] = [C.fmt_ci(m, lo, hi, 3) for m, lo, hi in zip(t.d_mean, t.d_lo, t.d_hi)]
    t["p_holm"] = t.d_p_holm.map(lambda x: "" if x != x else C.holm_words(x))
    L += [C.table_md(t[["level", "preset", "players", "measure", "relative_to", "offset", "mean [95% CI]",
                        "d [95% CI]", "p_holm", "n"]]), "", "## Runs", "", C.table_md(dr), "",
          f"Compute: {dr.seconds.sum() / 60:.1f} min of run time as recorded in each manifest.json (this session's "
          f"wall time, reading included: {st.clock.total / 60:.1f} min; {os.cpu_count()} cores, shared with other "
          "work). Files: seats.csv, runs.csv; "
          "raw datasets in data/ (not committed).", ""]
    st.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
