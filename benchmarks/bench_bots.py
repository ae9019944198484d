"""The bots: games per second and decisions per second of each bot, four seats of it,
`shanghai` rules, one thread (``_count_actions_nb`` of bench_engine: the batch loop,
counting each decision).

The bot tournament (a table of bots against each other) does not exist yet: this
benchmark lists each bot's speed only, and will add the tournament table once the
tournament lands.

    python benchmarks/run_all.py --only bots [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import table  # noqa: E402
from bench_engine import actions_rate  # noqa: E402

BOTS = ("random", "greedy")


def measure(games: dict | None = None, reps: int = 3, rules: str = "shanghai", players: int = 4,
            progress=None) -> dict:
    say = progress or (lambda s: None)
    games = games or {"random": 20, "greedy": 100}
    rows = []
    for bot in BOTS:
        dps, gps = actions_rate(rules, players, bot, games[bot], reps)
        rows.append({"bot": bot, "games": games[bot], "games_per_s": gps, "decisions_per_s": dps,
                     "decisions_per_game": dps["median"] / gps["median"]})
        say(f"  {bot}: {gps['median']:,.0f} games/s, {dps['median']:,.0f} decisions/s")
    return {
        "name": "bots",
        "title": "Bots: games/s and decisions/s of each bot",
        "settings": {"rules": rules, "players": players, "games": games, "reps": reps},
        "figures": {"bots": rows},
        "tables": [table(f"Four seats of one bot, `{rules}`, one thread, median (min-max) of {reps}",
                         ["bot", "games per pass", "games/s", "decisions/s", "decisions per game"],
                         [[r["bot"], r["games"], r["games_per_s"], r["decisions_per_s"],
                           r["decisions_per_game"]] for r in rows])],
        "notes": ["The bot tournament does not exist yet (the bot issue): no tournament table."],
    }
