"""The rollout bot (issue #14): how strong it is against `smart` (its playouts per second:
`bench_playouts.py`).

- Strength: one `rollout` against three `smart`, 4 players, every deal played with the
  rollout bot in each of the four seats (`shanghai-sim tournament`, seed 1): win share per
  seat held (par 0.25) with its 95% CI over deals, and points per game against smart.
- Budget curve: the same at several budgets K (rollouts=K, the other parameters at their
  defaults), same deals, with games per minute; the default budget's point is the
  `shanghai` strength row.

    python benchmarks/run_all.py --only rollout [--quick]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import table  # noqa: E402


def _tournament(spec: str, rules: str, deals: int, seed: int, threads: int | None) -> dict:
    import tempfile

    from shanghai_sim import tournament as T
    lineup = (spec, "smart", "smart", "smart")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        r = T.run_tournament(T.Tournament(lineup, rules=rules, deals=deals, seed=seed, threads=threads),
                             f"{d}/t", progress=None)
        seconds = time.perf_counter() - t0
    out = {"spec": spec, "rules": rules, "deals": r.deals, "games": r.bots[0].games,
           "seconds": seconds, "games_per_min": 60 * r.bots[0].games / seconds,
           "hands": r.hands_played, "no_winner_hands": r.no_winner_hands,
           "turn_cap_hands": r.turn_cap_hands, "bots": {}}
    for b in r.bots:
        row = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.figures.items()}
        if b.effects:
            row["vs_first"] = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.effects.items()}
        out["bots"]["rollout" if b.bot.startswith("rollout") else b.bot] = row
    return out


def measure(deals: int = 200, presets=("shanghai", "contract"), budgets=(4, 8, 16, 32, 64),
            default: str = "rollout", seed: int = 1, threads: int | None = None,
            curve_deals: dict | None = None, progress=None) -> dict:
    """curve_deals: {K: deals} for the budget curve where the time allows fewer deals at a
    large K (the first deals of the same seed: a prefix of the others); default ``deals``."""
    from shanghai_sim.bots import parse_bot
    curve_deals = {int(k): int(v) for k, v in (curve_deals or {}).items()}
    say = progress or (lambda s: None)
    curve = []
    for k in budgets:
        spec = parse_bot(f"rollout:rollouts={k}").name
        n = curve_deals.get(k, deals)
        say(f"  {spec},smart,smart,smart, shanghai, {n:,} deals")
        curve.append(_tournament(spec, "shanghai", n, seed, threads))
        curve[-1]["k"] = k
        w = curve[-1]["bots"]["rollout"]["win_share"]
        say(f"    win share {w['mean']:.3f} [{w['lo']:.3f}, {w['hi']:.3f}], "
            f"{curve[-1]['games_per_min']:.1f} games/min")
    default = parse_bot(default).name
    runs = []
    for rules in presets:
        same = [c for c in curve if c["spec"] == default and rules == "shanghai" and c["deals"] == deals]
        if same:                       # the curve's point at the default budget: the same run
            runs.append(same[0])
            continue
        say(f"  {default},smart,smart,smart, {rules}, {deals:,} deals")
        runs.append(_tournament(default, rules, deals, seed, threads))
        w = runs[-1]["bots"]["rollout"]["win_share"]
        say(f"    win share {w['mean']:.3f} [{w['lo']:.3f}, {w['hi']:.3f}]")

    def ci(x, k=3):
        return f"{x['mean']:.{k}f} [{x['lo']:.{k}f}, {x['hi']:.{k}f}]"
    rows = [[r["rules"], r["spec"], r["deals"], ci(r["bots"]["rollout"]["win_share"]),
             ci(r["bots"]["rollout"]["points"], 1), ci(r["bots"]["smart"]["vs_first"]["points"], 1),
             ci(r["bots"]["rollout"]["went_out"]), round(r["games_per_min"], 1),
             f"{r['no_winner_hands'] / r['hands']:.1%}", r["turn_cap_hands"]] for r in runs]
    crows = [[c["k"], c["deals"], ci(c["bots"]["rollout"]["win_share"]),
              ci(c["bots"]["smart"]["vs_first"]["points"], 1), round(c["games_per_min"], 1)]
             for c in curve]
    return {
        "name": "rollout",
        "title": "The rollout bot: one rollout against three smart",
        "settings": {"default": default, "deals": deals, "presets": list(presets), "budgets": list(budgets),
                     "curve_deals": {str(k): v for k, v in sorted(curve_deals.items())},
                     "seed": seed,
                     "players": 4, "seatings_per_deal": 4, "threads": threads},
        "figures": {"runs": runs, "curve": curve},
        "tables": [
            table(f"`{default},smart,smart,smart`, 4 players, seed {seed}, every deal with the rollout "
                  "bot in each seat; 95% CIs over deals; par win share 0.250",
                  ["rules", "rollout spec", "deals", "rollout win share", "rollout points/game",
                   "smart - rollout points", "rollout hands out", "games/min",
                   "hands nobody out", "turn-cap hands"], rows),
            table(f"Budget curve, `shanghai`, seed {seed}, the deals shown x 4 seatings per K "
                  "(fewer where a large K costs more time than the run has): "
                  "rollout:rollouts=K against three smart",
                  ["K", "deals", "rollout win share", "smart - rollout points", "games/min"], crows),
        ],
        "notes": ["Win share per seat: a bot's share of the game's win (1/k for k tied winners) "
                  "averaged over the seats it held in every seating of a deal.",
                  "games/min: the whole tournament's games (4 seatings x deals) per minute of wall "
                  "time on this machine, all threads the runner used."],
    }
