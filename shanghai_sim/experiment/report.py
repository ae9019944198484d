"""The words of an experiment's report: each variant's verdict and the text table.

``verdict`` is the one sentence on what the data shows about a variant (or that it cannot
tell, or that an arm is an A/A check); ``format_result`` is what ``shanghai-sim experiment``
prints (the arms, the effects with their CIs and Holm-adjusted p-values, the verdicts).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..stats import Effect

if TYPE_CHECKING:
    from .analysis import ArmResult, Result


def _opponents_words(design: dict[str, Any]) -> str:
    p = int(design.get("players", 4))
    return f"against {p - 1} x {design.get('opponents')}"


def verdict(a: ArmResult, design: dict[str, Any], hand: int | None, level: float) -> str:
    """One sentence: what the data shows about this variant, or that it cannot tell."""
    e = a.effects["points"]
    pct = f"{level:.0%}"
    what = f"in hand {hand}" if hand is not None else "a game"
    who = f"{a.name!r}" + (f" ({a.spec})" if a.spec != a.name else "")
    if a.identical:
        return (f"{who} is identical to the baseline (the same rules once resolved and the same bots "
                f"once canonicalised): an A/A check, not a finding"
                + (f"; as it must, it scored exactly as the baseline on all {e.n:,} deals." if e.sd == 0 and e.mean == 0
                   else f", yet it scored {e.mean:+.1f} points apart, which identical arms never should."))
    if e.sd == 0 and e.mean == 0:
        return (f"{who} scored exactly as the baseline on every one of the {e.n:,} deals (difference 0, "
                f"zero-width CI): on these deals the change never altered play.")
    ci = f"{pct} CI {e.lo:+.1f} to {e.hi:+.1f}, n = {e.n:,} deals"
    p = a.p_holm.get("points")
    if p is not None and p < 1 - level and not e.covers_zero():
        better = e.mean < 0
        s = (f"{who} scores {abs(e.mean):.1f} {'fewer' if better else 'more'} points {what} than the baseline "
             f"{_opponents_words(design)} ({ci}), so it is {'better' if better else 'worse'} "
             f"(lowest total wins)")
        if hand is None:
            w = a.effects["win_share"]
            s += f"; its win share changes by {w.mean:+.3f} ({pct} CI {w.lo:+.3f} to {w.hi:+.3f})"
        else:
            w = a.effects["went_out"]
            s += (f"; its share of hands gone out changes by {w.mean:+.3f} "
                  f"({pct} CI {w.lo:+.3f} to {w.hi:+.3f})")
        return s + "."
    return (f"The data cannot tell {who} from the baseline on points {what}: {e.mean:+.1f} ({ci}"
            f"{'' if p is None else f', Holm-adjusted p = {p:.2g}'}).")


def _fmt(e: Effect, digits: int) -> str:
    if not math.isfinite(e.lo):
        return f"{e.mean:+.{digits}f}  (n = {e.n}: too few deals for a CI)"
    vr = "exact" if e.variance_reduction is None else f"x{e.variance_reduction:.1f}"
    return f"{e.mean:+.{digits}f}  [{e.lo:+.{digits}f}, {e.hi:+.{digits}f}]  n={e.n:,}  pairing {vr}"


def _p(p: float | None) -> str:
    if p is None:
        return ""
    return "  p_holm<0.0001" if p < 1e-4 else f"  p_holm={p:.2g}"


def format_result(r: Result) -> str:
    d = r.design
    lines = [*r.diagnostic, f"experiment: {d['players']} players, rules {d['rules']}, opponents {d['opponents']}; "
             f"{r.games:,} deals (seed {d['seeds']['seed']}), each played once with the focal player in each "
             f"seat ({r.games * d['players']:,} games per arm)"]
    if d.get("hand") is not None:
        lines.append(f"hand-level: only hand {d['hand']} of each deal is played (docs/experiments.md)")
    lines.append("")
    w = max(len(a.name) for a in r.arms)
    lines.append(f"{'arm':<{w}}  {'focal player':<24}  {'games':>9}  {'hands':>9}  {'no winner':>9}  {'turn cap':>8}")
    for a in r.arms:
        lines.append(f"{a.name:<{w}}  {a.spec:<24}  {a.games_played:>9,}  {a.hands_played:>9,}  "
                     f"{a.no_winner_hands:>9,}  {a.turn_cap_hands:>8,}")
    lines.append("")
    lines.append("effects: variant - baseline, per deal (the focal player's mean over its seatings), "
                 "mean [95% CI]; lower points and rank are better")
    labels = {"points": "points", "win_share": "win share", "rank": "rank", "went_out": "went out"}
    for a in r.arms[1:]:
        lines.append(f"{a.name}:")
        for k, e in a.effects.items():
            ph = a.p_holm.get(k)
            lines.append(f"  {labels[k]:<14} {_fmt(e, 3 if k in ('win_share', 'went_out', 'rank') else 2)}"
                         + _p(ph))
        if d.get("hand") is None:
            for h, e in a.hand_effects.items():
                ph = a.p_holm.get(f"hand {h}")
                lines.append(f"  {'hand ' + str(h) + ' points':<14} {_fmt(e, 2)}" + _p(ph))
    lines.append("")
    lines += [a.verdict for a in r.arms[1:]]
    if r.stopped:
        lines += ["", f"stopped: {r.stopped}"]
    lines += ["", f"multiplicity: {r.multiplicity}"]
    return "\n".join(lines)
