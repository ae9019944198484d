"""The charts of BENCHMARKS.md, drawn from the JSON results (matplotlib, Agg: headless).

Every chart: a title that says what is compared, axes with units, whiskers for the
spread of the repeated passes (min-max), and the machine in the caption.
``draw_all(results, folder)`` returns {chart name: path}.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

C_OURS, C_COLD, C_LAY, C_PEER, C_PEER2, C_FLOOR = ("#1f77b4", "#9ecae1", "#2ca02c", "#d62728",
                                                   "#ff9896", "#7f7f7f")


def caption(res: dict, whiskers: str = "min-max of the passes") -> str:
    m = res.get("machine", {})
    return (f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores · Python {m.get('python')}, "
            f"numba {m.get('numba')}, numpy {m.get('numpy')} · {m.get('date')} · "
            f"{res.get('run', '?')} run · whiskers: {whiskers}")


def _err(spreads):
    med = np.array([s["median"] if s and s.get("median") else np.nan for s in spreads])
    lo = np.array([s["min"] if s and s.get("median") else np.nan for s in spreads])
    hi = np.array([s["max"] if s and s.get("median") else np.nan for s in spreads])
    return med, np.vstack([med - lo, hi - med])


def _finish(fig, res, path: Path, whiskers: str = "min-max of the passes") -> Path:
    import textwrap
    width = int(fig.get_figwidth() * 17)                # characters of 7 pt text per line
    text = "\n".join(textwrap.wrap(caption(res, whiskers), width))
    fig.text(0.5, 0.005, text, ha="center", va="bottom", fontsize=7, color="#555555")
    lines = text.count("\n") + 1
    fig.tight_layout(rect=(0, (0.06 + 0.13 * lines) / fig.get_figheight(), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _bars(ax, x, spreads, width, color, label, offset=0.0):
    med, err = _err(spreads)
    ax.bar(np.asarray(x) + offset, med, width, yerr=err, color=color, label=label,
           capsize=2, error_kw={"elinewidth": 0.8})


def melds(res: dict, path: Path) -> Path:
    rows = res["figures"]["rows"]
    presets = list(dict.fromkeys(r["rules"] for r in rows))
    shanten = res["figures"].get("shanten")
    fig, axes = plt.subplots(len(presets), 1, figsize=(11, 3.3 * len(presets) + 0.6), squeeze=False)
    for ax, p in zip(axes[:, 0], presets):
        rs = [r for r in rows if r["rules"] == p]
        x = np.arange(len(rs))
        w = 0.2
        _bars(ax, x, [r["deficiency"] for r in rs], w, C_OURS, "deficiency, warm memo", -1.5 * w)
        _bars(ax, x, [r["cold"] for r in rs], w, C_COLD, "deficiency, cold memo", -0.5 * w)
        _bars(ax, x, [r["laydown"] for r in rs], w, C_LAY, "lay-down of a hand that meets the contract", 0.5 * w)
        _bars(ax, x, [r["reference"] for r in rs], w, C_PEER, "Python reference (tests/reference.py)",
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
    return _finish(fig, res, path)


def growth(res: dict, path: Path) -> Path:
    f = res["figures"]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6))
    for key, ax, xl, title in (("by_size", axes[0], "cards in hand", "against hand size"),
                               ("by_jokers", axes[1], "jokers held (12 cards)", "against jokers held")):
        xk = "cards" if key == "by_size" else "jokers"
        for c in dict.fromkeys(r["hand"] for r in f[key]):
            rs = [r for r in f[key] if r["hand"] == c]
            med, err = _err([r["us"] for r in rs])
            ax.errorbar([r[xk] for r in rs], med, yerr=err, marker="o", ms=3, capsize=2,
                        label=f"{c}: {rs[0]['contract']}")
        ax.set_xlabel(xl)
        ax.set_xticks(sorted({r[xk] for r in f[key]}))
        ax.set_ylabel("µs per hand, warm memo")
        ax.set_title(f"Deficiency time {title}\n(`shanghai` contracts)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[2]
    for p in dict.fromkeys(r["rules"] for r in f["by_players"]):
        rs = [r for r in f["by_players"] if r["rules"] == p]
        med, err = _err([r["ms"] for r in rs])
        ax.errorbar([r["players"] for r in rs], med, yerr=err, marker="o", ms=3, capsize=2,
                    label=f"{p} ({rs[0]['games']} games/pass)")
    ax.set_yscale("log")
    ax.set_xlabel("players")
    ax.set_ylabel("ms per game, greedy bots (log)")
    ax.set_title("Game time against players and preset\n(one thread)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return _finish(fig, res, path)


def engine(res: dict, path: Path) -> Path:
    f = res["figures"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.2, 1]})
    ax = axes[0]
    ps = f["presets"]
    x = np.arange(len(ps))
    w = 0.27
    _bars(ax, x, [p["greedy"] for p in ps], w, C_OURS, "greedy bots", -w)
    _bars(ax, x, [p["random"] for p in ps], w, C_COLD, "random bots", 0)
    _bars(ax, x, [p["floor"] for p in ps], w, C_FLOOR, "floor: shuffle + deal every hand", w)
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels([p["rules"] for p in ps])
    ax.set_ylabel("games per second, one thread (log)")
    ax.set_title(f"Games/s per preset, {res['settings']['players']} players:\n"
                 "greedy and random bots vs the floor of dealing", fontsize=10)
    ax.set_ylim(ax.get_ylim()[0], ax.get_ylim()[1] * 30)        # room for the legend
    ax.legend(fontsize=7, ncol=3, loc="upper center")
    ax.grid(axis="y", alpha=0.3)
    ax = axes[1]
    labels, spreads, colors = ["shanghai-sim\n4 random bots"], [f["random_actions"]], [C_OURS]
    if f.get("openspiel_cpp") and f.get("openspiel_start") == "clone":
        labels.append("OpenSpiel gin rummy\nC++ loop, cloned start")
        spreads.append(f["openspiel_cpp"]["actions"])
        colors.append(C_PEER)
    if f.get("openspiel_cpp_new_state"):
        labels.append("(beside it: C++ loop,\nnew state per game)")
        spreads.append(f["openspiel_cpp_new_state"]["actions"])
        colors.append("0.8")
    if f.get("openspiel_python"):
        labels.append("OpenSpiel gin rummy\nPython API")
        spreads.append(f["openspiel_python"]["actions"])
        colors.append(C_PEER2)
    med, err = _err(spreads)
    ax.bar(np.arange(len(labels)), med, 0.6, yerr=err, color=colors, capsize=3)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(labels)))
    ax.set_xticklabels([f"{lab}\n{m:,.0f} actions/s" for lab, m in zip(labels, med)], fontsize=8)
    ax.set_ylabel("actions per second, one thread (log)")
    ax.set_title("Random players: actions/s,\nours vs OpenSpiel gin rummy (same run)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return _finish(fig, res, path)


def runner(res: dict, path: Path) -> Path:
    f = res["figures"]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6))
    ax = axes[0]
    th = [s["threads"] for s in f["scaling"]]
    for key, label, c in (("engine", "engine alone", C_OURS), ("parquet", "run + Parquet", C_LAY)):
        med, err = _err([s[key] for s in f["scaling"]])
        ax.errorbar(th, med, yerr=err, marker="o", capsize=3, label=label, color=c)
    ax.set_xticks(th)
    ax.set_xlabel("threads")
    ax.set_ylabel("games per second")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Thread scaling, {res['settings']['games']:,} games\n"
                 "(shanghai, 4 greedy bots)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax = axes[1]
    one = f["scaling"][0]
    med, err = _err([one["engine"], one["parquet"]])
    sec = 1e3 / med
    # ms per game from games/s: whiskers flip (min games/s = max ms)
    lo = 1e3 / (med + err[1])
    hi = 1e3 / (med - err[0])
    ax.bar([0, 1], sec, 0.6, yerr=np.vstack([sec - lo, hi - sec]), color=[C_OURS, C_LAY], capsize=3)
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["engine alone", "run + Parquet\n(tables, zstd, manifest)"], fontsize=8)
    ax.set_ylabel("ms per game, one thread")
    ov = f["overhead_pct"]["median"]
    ax.set_title(f"Parquet overhead: {ov:+.0f}% of engine time\n(one thread)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax = axes[2]
    for eng, mk, c in (("real", "o", C_OURS), ("no-op", "s", C_FLOOR)):
        rs = [r for r in f["rss"] if r["engine"] == eng]
        if rs:
            ax.plot([r["games"] for r in rs], [r["peak_rss_mib"] for r in rs], marker=mk, color=c,
                    label=("real engine (`shanghai-sim run`)" if eng == "real"
                           else "no-op engine (runner only)"))
    ax.set_xscale("log")
    ax.set_ylim(0, 1.3 * max(r["peak_rss_mib"] for r in f["rss"]))
    ax.set_xlabel("games in the job (log)")
    ax.set_ylabel("peak RSS, MiB (one run each)")
    ax.set_title("Peak memory against job size\n(fresh process, whole job)", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3, which="both")
    return _finish(fig, res, path)


def startup(res: dict, path: Path) -> Path:
    f = res["figures"]
    n = 2 if f.get("cold") else 1
    fig, axes = plt.subplots(1, n, figsize=(max(9.0, 6.5 * n), 4.4), squeeze=False)
    ax = axes[0, 0]
    med, err = _err([w["seconds"] for w in f["warm"]])
    y = np.arange(len(med))
    ax.barh(y, med, xerr=err, color=[C_FLOOR, C_FLOOR, C_OURS, C_OURS][:len(med)], capsize=3)
    ax.set_yticks(y)
    ax.set_yticklabels([w["command"].replace(" 5C 6C", "\n5C 6C") for w in f["warm"]], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("seconds, wall time of a fresh process")
    ax.set_title("Warm start: the first commands, cache filled,\nvs starting Python", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    if n == 2:
        ax = axes[0, 1]
        med, err = _err([c["seconds"] for c in f["cold"]])
        y = np.arange(len(med))
        ax.barh(y, med, xerr=err, color=C_PEER, capsize=3)
        ax.set_yticks(y)
        ax.set_yticklabels([c["step"].replace(" (", "\n(").replace("whole command: ", "whole command:\n")
                            for c in f["cold"]], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("seconds to compile, empty cache")
        ax.set_title(f"Cold compile of each command's kernels\n(fresh SHANGHAI_SIM_CACHE_DIR, "
                     f"{f['cold'][0]['seconds']['n']} run each)",
                     fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    return _finish(fig, res, path)


def verify(res: dict, path: Path) -> Path:
    f = res["figures"]
    labels = ["read + SHA-256 alone\n(the floor of the default)", "shanghai-sim verify\n--quick",
              "shanghai-sim verify\n(every byte, the default)"]
    med, err = _err([f["hash"], f["quick"], f["full"]])
    fig, ax = plt.subplots(figsize=(9, 3.6))
    y = np.arange(3)
    ax.barh(y, med, xerr=err, color=[C_FLOOR, C_OURS, C_OURS], capsize=3)
    for i, m in enumerate(med):
        ax.text(m + err[1][i], i, f"  {m:,.0f} MB/s", va="center", fontsize=8)
    ax.set_xlim(0, 1.25 * max(med + err[1]))
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("MB per second over the part files (page cache)")
    ax.set_title(f"Checking a dataset of {res['settings']['games']:,} games ({f['mb']:,.0f} MB, "
                 f"{f['parts']:,} parts): verify vs reading and hashing alone", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _finish(fig, res, path)


def bots(res: dict, path: Path) -> Path:
    rows = res["figures"]["bots"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, key, yl in ((axes[0], "games_per_s", "games per second"),
                        (axes[1], "decisions_per_s", "decisions per second")):
        med, err = _err([r[key] for r in rows])
        ax.bar(np.arange(len(rows)), med, 0.6, yerr=err, color=C_OURS, capsize=3)
        for i, m in enumerate(med):
            ax.text(i, m, f"{m:,.0f}  ", ha="right", va="bottom", fontsize=8)
        ax.set_xticks(np.arange(len(rows)))
        ax.set_xticklabels([r["bot"] for r in rows])
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_ylabel(f"{yl}, one thread")
        ax.set_title(f"{yl.capitalize()} of each bot\n(4 seats of it, `shanghai`)", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    return _finish(fig, res, path)


def strength(res: dict, path: Path) -> Path:
    runs = res["figures"]["runs"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = np.arange(len(runs))
    for off, bot, color in ((-0.18, "smart", C_OURS), (0.18, "greedy", C_PEER)):
        ws = [r["bots"][bot]["win_share"] for r in runs]
        med = np.array([w["mean"] for w in ws])
        err = np.vstack([med - [w["lo"] for w in ws], [w["hi"] for w in ws] - med])
        ax.bar(x + off, med, 0.34, yerr=err, color=color, capsize=3, label=bot)
        for i, m in enumerate(med):
            ax.text(x[i] + off, m + 0.01, f"{m:.3f}", ha="center", va="bottom", fontsize=8)
    ax.axhline(0.25, color=C_FLOOR, ls="--", lw=1, label="par (0.25)")
    ax.axhline(0.40, color=C_LAY, ls=":", lw=1, label="target for smart (0.40)")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{r['rules']}\n(n = {r['deals']:,} deals x 4 seatings)" for r in runs], fontsize=8)
    ax.set_ylabel("win share per seat held (95% CI)")
    ax.set_ylim(0, max(0.6, max(r["bots"]["smart"]["win_share"]["hi"] for r in runs) + 0.08))
    ax.set_title("How often does one smart bot win against three greedy bots?", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    return _finish(fig, res, path, whiskers=f"95% CI over deals · seed {res['settings']['seed']}, "
                   f"every deal with smart in each of the 4 seats")


def play_quality(res: dict, path: Path) -> Path:
    tallies = res["figures"]["tallies"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    ax = axes[0]
    styles = ["-", "--", ":", "-."]
    colors = [C_PEER, C_OURS, C_LAY, C_FLOOR]
    bars = []
    for i, (rules, d) in enumerate(tallies.items()):
        for j, (bot, t) in enumerate(d.items()):
            share = [100.0 * (a + b) / n if n else np.nan
                     for a, b, n in zip(t["stock"], t["turn_cap"], t["hands_n"])]
            ax.plot(np.arange(1, len(share) + 1), share, styles[i % 4], marker="o", ms=3,
                    color=colors[j % 4], label=f"{bot}, {rules}")
            rate = t["layable_rate"]
            bars.append((f"{bot}\n{rules}", np.nan if rate is None else 100.0 * rate, colors[j % 4]))
    ax.axhline(5, color="#555555", lw=0.8, ls=":")
    ax.set_xlabel("contract (hand)")
    ax.set_ylabel("% of hands with nobody out")
    ax.set_ylim(bottom=0)
    ax.set_xticks(np.arange(1, 11))
    ax.legend(fontsize=7)
    ax.set_title("Hands ending with nobody out, per contract\n(4 seats of one bot; dotted: the 5% target)",
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax = axes[1]
    x = np.arange(len(bars))
    ax.bar(x, [b[1] for b in bars], 0.6, color=[b[2] for b in bars])
    for i, b in enumerate(bars):
        if b[1] == b[1]:
            ax.text(i, b[1], f"{b[1]:.1f}%", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels([b[0] for b in bars], fontsize=8)
    ax.set_ylabel("% of discards to a down next player")
    ax.set_title("Discards the next player (down)\ncould lay off", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return _finish(fig, res, path)


def playouts(res: dict, path: Path) -> Path:
    figs = res["figures"]["policies"]
    target = res["settings"].get("target")
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    med, err = _err([f["rate"] for f in figs])
    x = np.arange(len(figs))
    ax.bar(x, med, 0.55, yerr=err, color=C_OURS, capsize=4)
    for i, f in enumerate(figs):
        ax.text(i + 0.3, med[i], f"{med[i]:,.0f}", ha="left", va="bottom", fontsize=8)
    if target:
        ax.axhline(target, color=C_LAY, ls=":", lw=1, label=f"target, greedy ({target:,}/s)")
        ax.legend(fontsize=8, loc="upper right")
    ax.set_xticks(x)
    ax.set_xticklabels([f["policy"] for f in figs])
    ax.set_xlabel("playout policy (every seat in the playouts)")
    ax.set_ylabel("playouts per second, one thread")
    ax.set_ylim(0, max(max(med + err[1]), target or 0) * 1.2)
    st = res["settings"]
    ax.set_title(f"How fast does the rollout bot play hands out?\n(shanghai, K = {st['k']}, "
                 f"{figs[0]['decisions']} searched decisions, {st['reps']} reps)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return _finish(fig, res, path, whiskers=f"min-max of the {st['reps']} reps")


def rollout(res: dict, path: Path) -> Path:
    f = res["figures"]
    curve = f["curve"]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    if curve:
        ks = [c["k"] for c in curve]
        ws = [c["bots"]["rollout"]["win_share"] for c in curve]
        med = np.array([w["mean"] for w in ws])
        err = np.vstack([med - [w["lo"] for w in ws], [w["hi"] for w in ws] - med])
        x = np.arange(len(ks))
        ax.errorbar(x, med, yerr=err, fmt="o-", color=C_OURS, capsize=4, label="rollout (95% CI)")
        for i, c in enumerate(curve):       # under each lower whisker, clear of the line and the next point
            ax.text(x[i], med[i] - err[0][i] - 0.015, f"{med[i]:.3f}\n{c['games_per_min']:.1f} games/min",
                    fontsize=7, va="top", ha="center")
        ax.set_xlim(-0.5, len(ks) - 0.5)
        ax.set_xticks(x)
        ax.set_xticklabels([f"K = {k}\nn = {c['deals']}" for k, c in zip(ks, curve)])
        ax.axhline(0.25, color=C_FLOOR, ls="--", lw=1, label="par (0.25)")
        ax.axhline(0.33, color=C_LAY, ls=":", lw=1, label="target (0.33)")
        ax.set_ylim(0, max(0.6, max(w["hi"] for w in ws) + 0.08))
        ax.set_ylabel("win share per seat held")
        ax.set_xlabel("rollouts per candidate (samples)")
        ns = sorted({c["deals"] for c in curve})
        nd = f"{ns[0]:,}" if len(ns) == 1 else f"{ns[0]:,}-{ns[-1]:,} (n under each K)"
        ax.set_title(f"Does more search win more? one rollout vs three smart\n(shanghai, "
                     f"n = {nd} deals x 4 seatings per K)", fontsize=10)
        ax.legend(fontsize=8, loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    return _finish(fig, res, path, whiskers=f"95% CI over deals · seed {res['settings']['seed']}, "
                   "every deal with the rollout bot in each of the 4 seats")


def headline_ratios(results: dict) -> list[tuple[str, dict]]:
    """Our speed as a multiple of each peer, measured in the same run: (label, spread of the
    per-pass ratios). Pass k of ours is divided by pass k of the peer."""
    from _common import spread
    out = []
    m = results.get("melds")
    if m:
        rows = [r for r in m["figures"]["rows"] if r["rules"] == "shanghai"] or m["figures"]["rows"]

        def per_pass(peer_of):
            ks = min(min(len(r["deficiency"]["samples"]), len(peer_of(r)["samples"])) for r in rows)
            return spread([statistics.median(r["deficiency"]["samples"][k] / peer_of(r)["samples"][k]
                                             for r in rows) for k in range(ks)]) if ks else None
        if all(r["reference"]["n"] for r in rows):
            out.append(("deficiency vs the Python reference\n(same rules; median over contracts)",
                        per_pass(lambda r: r["reference"])))
        sh = m["figures"].get("shanten")
        if sh and sh.get("n"):
            out.append(("deficiency vs mahjong shanten\n(another game, pure Python)",
                        per_pass(lambda r: sh)))
    e = results.get("engine")
    if e:
        f = e["figures"]
        ours = f["random_actions"]["samples"]
        # the peer at its best only (games from a cloned initial state); a result measured
        # before that (each game from new_initial_state(), an inflated ratio) is left out
        fair = f.get("openspiel_start") == "clone"
        for key, label in (("openspiel_cpp", "random actions/s vs OpenSpiel\ngin rummy, C++ loop"),
                           ("openspiel_python", "random actions/s vs OpenSpiel\ngin rummy, Python API")):
            if f.get(key) and fair:
                peer = f[key]["actions"]["samples"]
                out.append((label, spread([a / b for a, b in zip(ours, peer)])))
    return [(lab, s) for lab, s in out if s and s.get("median")]


def headline(results: dict, path: Path) -> Path | None:
    ratios = headline_ratios(results)
    if not ratios:
        return None
    res = results.get("melds") or results.get("engine")
    fig, ax = plt.subplots(figsize=(10, 1.1 + 0.75 * len(ratios)))
    med, err = _err([s for _, s in ratios])
    y = np.arange(len(ratios))
    ax.barh(y, med, xerr=err, color=C_OURS, capsize=3)
    for i, v in enumerate(med):
        ax.text((v + err[1][i]) * 1.15, i, f"{v:,.0f}x", va="center", fontsize=9)
    ax.set_xscale("log")
    ax.set_xlim(1, max(med) * 20)
    ax.set_yticks(y)
    ax.set_yticklabels([lab for lab, _ in ratios], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("times faster than the peer, same run, one thread (log)")
    ax.set_title("shanghai-sim as a multiple of each peer, measured side by side", fontsize=11)
    ax.grid(axis="x", alpha=0.3, which="both")
    return _finish(fig, res, path)


def browser(res: dict, path: Path) -> Path:
    f = res["figures"]
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.8), gridspec_kw={"width_ratios": [1, 2]})
    if not f:           # no chromium on the machine of this run
        for ax in axes:
            ax.axis("off")
        axes[0].text(0, 0.5, "not measured: " + str(res["tables"][0]["rows"][0][0]), fontsize=9)
        return _finish(fig, res, path)
    ax = axes[0]
    med, err = _err([f["load_ms"], f["wall_ms"]])
    ax.bar([0, 1], med, yerr=err, color=[C_OURS, C_COLD], capsize=4)
    ax.axhline(1000, color=C_PEER, ls="--", lw=1, label="target 1 s")
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["load event", "driver.get\n(wall)"], fontsize=8)
    ax.set_ylabel("ms")
    ax.set_ylim(0, 1100)
    ax.set_title(f"Opening the page\n({f['events']:,} events, {f['page_kib']:.0f} KiB)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax = axes[1]
    names = ["event", "turn", "hand"]
    med = [f["steps_ms"][n]["median"] for n in names]
    p95 = [f["p95_ms"][n] for n in names]
    x = np.arange(len(names))
    ax.bar(x - 0.2, med, 0.4, color=C_OURS, label="median")
    ax.bar(x + 0.2, p95, 0.4, color=C_COLD, label="95th percentile")
    ax.axhline(50, color=C_PEER, ls="--", lw=1, label="target 50 ms")
    ax.set_xticks(x)
    ax.set_xticklabels([f"by {n}\n({f['steps_ms'][n]['n']:,} steps)" for n in names], fontsize=8)
    ax.set_ylabel("ms, key to layout")
    ax.set_ylim(0, max(60, 1.2 * max(p95)))
    ax.set_title("One step forward", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _finish(fig, res, path, whiskers="min-max of the loads")


DRAW = {"melds": melds, "growth": growth, "engine": engine, "runner": runner,
        "verify": verify, "startup": startup, "bots": bots, "strength": strength,
        "play_quality": play_quality, "playouts": playouts, "rollout": rollout,
        "browser": browser}


def draw_all(results: dict, folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    h = headline(results, folder / "headline.png")
    if h:
        paths["headline"] = h
    for name, res in results.items():
        paths[name] = DRAW[name](res, folder / f"{name}.png")
    return paths
