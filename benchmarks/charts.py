"""The charts of BENCHMARKS.md, drawn from the JSON results (matplotlib, Agg: headless).

Every chart: a title that says what is compared, axes with units, whiskers for the
spread of the repeated passes (min-max), and the machine in the caption. Each
benchmark draws its own (``chart`` in its ``BENCHMARK`` record, benchmarks/bench_*.py)
with the colours and helpers here (``bars``, ``median_err``, ``finish``); the headline
of peers' ratios is drawn here. ``draw_all(results, folder)`` returns {chart name: path}.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

if __package__:                      # imported: benchmarks.charts (run_all, the tests)
    from ._common import benchmarks, spread, stale_sections
else:                                # python benchmarks/run_all.py: this folder is sys.path[0]
    from _common import benchmarks, spread, stale_sections

C_OURS, C_COLD, C_LAY, C_PEER, C_PEER2, C_FLOOR = ("#1f77b4", "#9ecae1", "#2ca02c", "#d62728",
                                                   "#ff9896", "#7f7f7f")


def caption(res: dict, whiskers: str = "min-max of the passes") -> str:
    m = res.get("machine", {})
    return (f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores · Python {m.get('python')}, "
            f"numba {m.get('numba')}, numpy {m.get('numpy')} · {m.get('date')} · "
            f"{res.get('run', '?')} run · whiskers: {whiskers}")


def median_err(spreads):
    med = np.array([s["median"] if s and s.get("median") else np.nan for s in spreads])
    lo = np.array([s["min"] if s and s.get("median") else np.nan for s in spreads])
    hi = np.array([s["max"] if s and s.get("median") else np.nan for s in spreads])
    return med, np.vstack([med - lo, hi - med])


def finish(fig, res, path: Path, whiskers: str = "min-max of the passes") -> Path:
    import textwrap
    width = int(fig.get_figwidth() * 17)                # characters of 7 pt text per line
    text = "\n".join(textwrap.wrap(caption(res, whiskers), width))
    fig.text(0.5, 0.005, text, ha="center", va="bottom", fontsize=7, color="#555555")
    lines = text.count("\n") + 1
    fig.tight_layout(rect=(0, (0.06 + 0.13 * lines) / fig.get_figheight(), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def bars(ax, x, spreads, width, color, label, offset=0.0):
    med, err = median_err(spreads)
    ax.bar(np.asarray(x) + offset, med, width, yerr=err, color=color, label=label,
           capsize=2, error_kw={"elinewidth": 0.8})


def headline_ratios(results: dict) -> list[tuple[str, dict, str]]:
    """Our speed as a multiple of each peer, measured in the same run: (label, spread of the
    per-pass ratios, the benchmark it comes from). Pass k of ours is divided by pass k of the peer."""
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
                        per_pass(lambda r: r["reference"]), "melds"))
        sh = m["figures"].get("shanten")
        if sh and sh.get("n"):
            out.append(("deficiency vs mahjong shanten\n(another game, pure Python)",
                        per_pass(lambda r: sh), "melds"))
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
                out.append((label, spread([a / b for a, b in zip(ours, peer)]), "engine"))
    return [(lab, s, name) for lab, s, name in out if s and s.get("median")]


def headline(results: dict, path: Path) -> Path | None:
    stale = stale_sections(results)
    ratios = [(lab + ("  [stale]" if name in stale else ""), s) for lab, s, name in headline_ratios(results)]
    if not ratios:
        return None
    res = results.get("melds") or results.get("engine")
    fig, ax = plt.subplots(figsize=(10, 1.1 + 0.75 * len(ratios)))
    med, err = median_err([s for _, s in ratios])
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
    return finish(fig, res, path)


def draw_all(results: dict, folder: Path) -> dict[str, Path]:
    """The headline, then each result's chart (its benchmark's ``chart``), into ``folder``."""
    chart = {b.name: b.chart for b in benchmarks()}
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    h = headline(results, folder / "headline.png")
    if h:
        paths["headline"] = h
    for name, res in results.items():
        paths[name] = chart[name](res, folder / f"{name}.png")
    return paths
