"""Bot strength: one `smart` against three `greedy` (issue #13's target: win share per seat
at least 0.40, par 0.25), 4 players, every deal played with `smart` in each of the four
seats (`shanghai-sim tournament`), on the measuring seed 1: `smart`'s weights were tuned on
other seeds (analyses/tune_smart.py, seed 7000000).

Reports per preset smart's and greedy's win share per seat held, points per game, the
share of hands each went out, the paired point difference (greedy - smart) per deal, all
with 95% CIs over deals, and the hands that ended with nobody out or at the turn cap.

    python benchmarks/run_all.py --only strength [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import table  # noqa: E402

LINEUP = ("smart", "greedy", "greedy", "greedy")


def _one(rules: str, deals: int, seed: int) -> dict:
    import tempfile
    import time

    from shanghai_sim import tournament as T
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        r = T.run_tournament(T.Tournament(LINEUP, rules=rules, deals=deals, seed=seed), f"{d}/t",
                             progress=None)
        seconds = time.perf_counter() - t0
    out = {"rules": rules, "deals": r.deals, "games": r.bots[0].games, "seconds": seconds,
           "hands": r.hands_played, "no_winner_hands": r.no_winner_hands,
           "turn_cap_hands": r.turn_cap_hands, "bots": {}}
    for b in r.bots:
        row = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.figures.items()}
        if b.effects:
            row["vs_smart"] = {k: {"mean": e.mean, "lo": e.lo, "hi": e.hi} for k, e in b.effects.items()}
        out["bots"][b.bot] = row
    return out


def measure(deals: int = 10_000, presets=("shanghai", "contract"), seed: int = 1, progress=None) -> dict:
    say = progress or (lambda s: None)
    runs = []
    for rules in presets:
        say(f"  {','.join(LINEUP)}, {rules}, {deals:,} deals")
        runs.append(_one(rules, deals, seed))
        s = runs[-1]["bots"]["smart"]["win_share"]
        say(f"    smart win share {s['mean']:.3f} [{s['lo']:.3f}, {s['hi']:.3f}]")

    def ci(x, k=3):
        return f"{x['mean']:.{k}f} [{x['lo']:.{k}f}, {x['hi']:.{k}f}]"
    rows = []
    for r in runs:
        sm, gr = r["bots"]["smart"], r["bots"]["greedy"]
        rows.append([r["rules"], r["deals"], ci(sm["win_share"]), ci(gr["win_share"]),
                     ci(sm["points"], 1), ci(gr["vs_smart"]["points"], 1), ci(sm["went_out"]),
                     ci(gr["went_out"]), f"{r['no_winner_hands'] / r['hands']:.1%}", r["turn_cap_hands"]])
    return {
        "name": "strength",
        "title": "Strength: one smart against three greedy",
        "settings": {"lineup": list(LINEUP), "deals": deals, "presets": list(presets), "seed": seed,
                     "players": 4, "seatings_per_deal": 4},
        "figures": {"runs": runs},
        "tables": [table(f"`{','.join(LINEUP)}`, 4 players, {deals:,} deals (seed {seed}) each played "
                         f"with smart in every seat; 95% CIs over deals; par win share 0.250",
                         ["rules", "deals", "smart win share", "greedy win share", "smart points/game",
                          "greedy - smart points", "smart hands out", "greedy hands out",
                          "hands nobody out", "turn-cap hands"], rows)],
        "notes": ["smart's weights were tuned on job seed 7000000 (analyses/tune_smart.py, record in "
                  "analyses/results/); these runs use seed 1.",
                  "Win share per seat: a bot's share of the game's win (1/k for k tied winners) "
                  "averaged over the seats it held in every seating of a deal."],
    }
