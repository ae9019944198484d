"""Play that looks like play (issue #13): what the bots do, counted over sample games.

For each line-up (default: four ``greedy``, then four ``smart``, on the same seeds) and each
rules preset (default ``shanghai`` and ``contract``), 4 players:

1. per contract, the share of hands that ended with nobody out (stopped by the stock,
   docs/rules.md §5.5) and the share stopped by the turn cap (§5.8);
2. joker discards, and those made while the discarder held a natural card it could have
   discarded instead (count and per 1,000 discards);
3. discards to a next player who is down that this player could lay off on the table
   (the table as it is at the discard): the rate per discard made while the next player
   was down, and each line-up's rate over the first line-up's (the target: smart at most
   a third of greedy's);
4. buys by the buyer's deficiency at the moment of the buy, and the share of players who
   used every buy of the hand and never went down.

The games are played step by step through ``shanghai_sim.game.Game`` (the same kernels,
deals and choices as a batch run): before each action the position is looked at
(``observe``), so a discard is judged against the table it was made on. A discard that
goes out (the last card, where ``go_out`` allows it) is not counted as one to the next
player: the hand is over.

``--turn-cap``: hands stopped by the turn cap in batch runs (``shanghai_sim.runner``, the
hands/ table's ``ended`` column) for 3..8 players with each bot in every seat (the target:
zero in 100,000 games per bot).

    python benchmarks/bench_play_quality.py                       # 1,000 games per line-up and preset
    python benchmarks/bench_play_quality.py --games 50 --presets shanghai
    python benchmarks/bench_play_quality.py --turn-cap            # 5,000 games per player count
    python benchmarks/bench_play_quality.py --turn-cap --turn-cap-games 100000 --threads 2
    python benchmarks/run_all.py --only play_quality [--quick]    # both parts, into BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __package__:                      # imported: benchmarks.bench_play_quality (run_all, the tests)
    from ._common import Benchmark, Source, bot_versions_now, fmt, machine, table
else:                                # python benchmarks/bench_play_quality.py: this folder is sys.path[0]
    from _common import Benchmark, Source, bot_versions_now, fmt, machine, table
from shanghai_sim.limits import parse_args

LINEUP_BOTS = ("greedy", "smart")
PRESETS = ("shanghai", "contract")
PLAYERS = 4
TURN_CAP_PLAYERS = (3, 4, 5, 6, 7, 8)
DEF_BUCKETS = ("0", "1", "2", "3", "4", "5+")


def _bucket(d: int) -> int:
    return min(int(d), len(DEF_BUCKETS) - 1)


# ---------------------------------------------------------------- counting

@dataclass
class Tally:
    """What one line-up did over a sample of games of one rules preset. Per-contract
    lists are indexed by hand - 1."""
    hands: int
    games: int = 0
    hands_n: list[int] = field(default_factory=list)      # hands played, per contract
    stock: list[int] = field(default_factory=list)        # ended with nobody out (stock rule)
    turn_cap: list[int] = field(default_factory=list)     # ended at the turn cap
    discards: int = 0
    joker_discards: int = 0
    joker_with_natural: int = 0       # a joker discarded while a natural card could have gone
    to_down: int = 0                  # discards while the next player was down (not going out)
    layable_to_down: int = 0          # ... that the next player could lay off
    layable_avoidable: int = 0        # ... while the hand held a natural that could not be laid off
    buys: list[list[int]] = field(default_factory=list)   # [contract][deficiency bucket]
    seat_hands: list[int] = field(default_factory=list)   # player-hands, per contract
    all_buys_not_down: list[int] = field(default_factory=list)  # used every buy, never down

    def __post_init__(self):
        for name in ("hands_n", "stock", "turn_cap", "seat_hands", "all_buys_not_down"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.hands)
        if not self.buys:
            self.buys = [[0] * len(DEF_BUCKETS) for _ in range(self.hands)]

    def merge(self, o: "Tally") -> "Tally":
        """Add another tally of the same rules (e.g. from another process)."""
        self.games += o.games
        for name in ("discards", "joker_discards", "joker_with_natural", "to_down",
                     "layable_to_down", "layable_avoidable"):
            setattr(self, name, getattr(self, name) + getattr(o, name))
        for name in ("hands_n", "stock", "turn_cap", "seat_hands", "all_buys_not_down"):
            setattr(self, name, [a + b for a, b in zip(getattr(self, name), getattr(o, name))])
        self.buys = [[a + b for a, b in zip(x, y)] for x, y in zip(self.buys, o.buys)]
        return self

    # derived figures
    def joker_natural_per_1000(self) -> float | None:
        return 1000.0 * self.joker_with_natural / self.discards if self.discards else None

    def layable_rate(self) -> float | None:
        return self.layable_to_down / self.to_down if self.to_down else None

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("hands", "games", "hands_n", "stock", "turn_cap",
                                           "discards", "joker_discards", "joker_with_natural",
                                           "to_down", "layable_to_down", "layable_avoidable",
                                           "buys", "seat_hands", "all_buys_not_down")}
        d["joker_natural_per_1000"] = self.joker_natural_per_1000()
        d["layable_rate"] = self.layable_rate()
        return d


def observe(g, code: int, t: Tally) -> None:
    """Count action ``code`` of the seat to act in game ``g`` (a ``shanghai_sim.game.Game``),
    looking at the position before it is applied: discards (jokers, feeding a next player
    who is down) and buys (the buyer's deficiency)."""
    from shanghai_sim.kernels.base import layout as L
    from shanghai_sim.kernels.base import codes as K
    from shanghai_sim.kernels.engine.handmemo import hand_def_nb
    from shanghai_sim.kernels.engine.table import card_layable_nb
    typ = K.action_fields(int(code))[0]
    if typ != K.A_DISCARD and typ != K.A_BUY:
        return
    R, G = g.R, g.G
    S, PS, H = G.s, G.ps, G.hands
    p = int(S[L.S_ACTOR])
    if typ == K.A_BUY:
        h = int(S[L.S_HAND])
        t.buys[h][_bucket(hand_def_nb(R, G, p))] += 1
        return
    c = K.a_card(code)
    t.discards += 1
    naturals = int(H[p, :L.JOKER].sum())
    if c == L.JOKER:
        t.joker_discards += 1
        if naturals > 0:
            t.joker_with_natural += 1
    if int(PS[p, L.PS_N]) <= 1:          # the last card: going out, no next turn
        return
    nxt = (p + 1) % int(S[L.S_NP])
    if nxt == p or not PS[nxt, L.PS_DOWN]:
        return
    t.to_down += 1
    if card_layable_nb(R, G, c):
        t.layable_to_down += 1
        if any(H[p, x] > 0 and x != c and not card_layable_nb(R, G, x) for x in range(L.JOKER)):
            t.layable_avoidable += 1


def close_game(g, t: Tally) -> None:
    """Count the hands of a finished game from its records: how each ended, and the
    players who used every buy of the hand and never went down."""
    from shanghai_sim.kernels.base import codes as K
    from shanghai_sim.kernels.base import layout as L
    from shanghai_sim.kernels.base import records as RC
    rec = g.records()
    buys_max = g.R.buys
    t.games += 1
    for h in range(min(int(g.G.s[L.S_HANDS_DONE]), t.hands)):
        stopped = int(rec[h, 0, RC.HF_STOPPED])
        t.hands_n[h] += 1
        t.stock[h] += stopped == K.END_STOCK
        t.turn_cap[h] += stopped == K.END_TURN_CAP
        for q in range(g.players):
            t.seat_hands[h] += 1
            if (buys_max[h] > 0 and rec[h, q, RC.HF_BUYS] >= buys_max[h]
                    and rec[h, q, RC.HF_DOWN_TURN] < 0):
                t.all_buys_not_down[h] += 1


def play_counted(g, t: Tally) -> list[int]:
    """Play game ``g`` to the end with its seats' built-in bots, counting into ``t``.
    Returns the totals (the same game as a batch run of the same seed)."""
    import numpy as np

    from shanghai_sim.kernels.base import codes as K
    from shanghai_sim.kernels.engine.play import apply_action_nb
    from shanghai_sim.kernels.games.dispatch import seat_action_nb
    R, G = g.R, g.G
    kinds, params = g.kinds, g.params
    while not g.over:
        p = g.to_act
        # the step API's own call (Game.bot_action): the kernels `replay` and `play` use
        code = int(seat_action_nb(R, G, g.W, g.SM, np.int64(kinds[p]), params[p]))
        observe(g, code, t)
        err = apply_action_nb(R, G, code)
        if err != K.E_OK:
            raise RuntimeError(f"seed {g.seed}: the bot's action {code} was refused ({err})")
    close_game(g, t)
    return g.totals()


def count_games(rules: str, bot: str, seeds, players: int = PLAYERS) -> Tally:
    """Every seat played by ``bot``, one game per seed, counted."""
    from shanghai_sim.game import Game
    from shanghai_sim.rules import load_rules
    t = Tally(hands=load_rules(rules).hands)
    for s in seeds:
        play_counted(Game(rules, players, seed=int(s), bots=bot), t)
    return t


# ---------------------------------------------------------------- turn cap (batch runs)

def turn_cap_counts(rules: str, bot: str, players: int, games: int, seed: int = 1,
                    threads: int | None = 1) -> dict:
    """Hands of a batch run (every seat ``bot``) by how they ended."""
    import tempfile

    import numpy as np
    import pyarrow as pa

    from shanghai_sim import runner
    from shanghai_sim.dataset import HANDS
    from shanghai_sim.integrity import iter_parts
    out = {"hands": 0, "out": 0, "stock": 0, "turn_cap": 0}
    with tempfile.TemporaryDirectory(prefix="play_quality_") as d:
        job = runner.Job(rules=rules, players=players, bots=(bot,), games=games, seed=seed,
                         threads=threads, out=f"{d}/run")
        t0 = time.perf_counter()
        runner.run(runner.plan(job), progress=None)
        out["seconds"] = time.perf_counter() - t0
        for _, t in iter_parts(f"{d}/run", HANDS, ["player", "ended"]):
            first = t["player"].to_numpy() == 0        # one row per hand
            ended = t["ended"].cast(pa.string()).to_numpy(zero_copy_only=False)[first]
            out["hands"] += int(first.sum())
            for k in ("out", "stock", "turn_cap"):
                out[k] += int(np.sum(ended == k))
    out["games"] = games
    return out


# ---------------------------------------------------------------- the benchmark

def _pct(k: int, n: int) -> float | None:
    return 100.0 * k / n if n else None


def measure(presets=PRESETS, bots=LINEUP_BOTS, games: int = 1_000, seed: int = 1,
            players: int = PLAYERS, turn_cap_games: int = 0, turn_cap_players=TURN_CAP_PLAYERS,
            threads: int | None = 1, progress=None) -> dict:
    """The play-quality counts of each bot (four seats of it) under each preset over the
    same ``games`` seeds; with ``turn_cap_games``, the turn-cap counts of batch runs."""
    say = progress or (lambda s: None)
    presets, bots = tuple(presets), tuple(bots)
    tallies: dict[str, dict[str, Tally]] = {}
    timing: dict[str, dict[str, float]] = {}
    tables = []
    seeds = range(seed, seed + games)
    if games > 0:
        for rules in presets:
            tallies[rules], timing[rules] = {}, {}
            for bot in bots:
                t0 = time.perf_counter()
                tallies[rules][bot] = count_games(rules, bot, seeds, players)
                timing[rules][bot] = time.perf_counter() - t0
                tl = tallies[rules][bot]
                say(f"  {rules}, {players} x {bot}: {games} games in {timing[rules][bot]:.0f} s; "
                    f"nobody out {_pct(sum(tl.stock), sum(tl.hands_n)):.1f}% of hands, "
                    f"layable to a down next player {100 * (tl.layable_rate() or 0):.1f}%")
        tables += _quality_tables(tallies, presets, bots, games, players)
    tc_rows = []
    if turn_cap_games > 0:
        for rules in presets:
            for bot in bots:
                for p in turn_cap_players:
                    c = turn_cap_counts(rules, bot, p, turn_cap_games, seed, threads)
                    c.update(rules=rules, bot=bot, players=p)
                    tc_rows.append(c)
                    say(f"  turn cap: {rules}, {p} x {bot}: {c['turn_cap']} of {c['hands']:,} hands "
                        f"({c['seconds']:.0f} s)")
        tables.append(table(
            f"Turn-cap hands in batch runs, every seat the same bot, {turn_cap_games:,} games per "
            "row (target: zero in 100,000 games per bot)",
            ["rules", "bot", "players", "games", "hands", "turn-cap hands", "nobody out %"],
            [[c["rules"], c["bot"], c["players"], c["games"], c["hands"], c["turn_cap"],
              _pct(c["stock"] + c["turn_cap"], c["hands"])] for c in tc_rows]))
    ratio = {r: _ratio(tallies[r], bots) for r in tallies}
    return {
        "name": "play_quality",
        "title": "Play that looks like play: stopped hands, jokers thrown, feeding a player who is down",
        "settings": {"presets": list(presets), "bots": list(bots), "players": players,
                     "games": games, "seed": seed, "turn_cap_games": turn_cap_games,
                     "turn_cap_players": list(turn_cap_players) if turn_cap_games else [],
                     "threads": threads},
        "figures": {"tallies": {r: {b: t.to_dict() for b, t in d.items()} for r, d in tallies.items()},
                    "seconds": timing, "layable_ratio": ratio, "turn_cap": tc_rows},
        "tables": tables,
        "notes": _notes(tallies, ratio, bots, tc_rows),
    }


def _ratio(d: dict[str, Tally], bots) -> dict[str, float | None]:
    """Each bot's layable-discard rate over the first bot's."""
    base = d[bots[0]].layable_rate()
    return {b: (d[b].layable_rate() / base if base and d[b].layable_rate() is not None else None)
            for b in bots[1:]}


def _quality_tables(tallies, presets, bots, games, players) -> list[dict]:
    out = []
    for rules in presets:
        d = tallies[rules]
        hands = d[bots[0]].hands
        cols = ["contract", "hands per bot"]
        for b in bots:
            cols += [f"{b}: nobody out %", f"{b}: turn cap %"]
        rows = []
        for h in range(hands):
            row = [h + 1, d[bots[0]].hands_n[h]]
            for b in bots:
                row += [_pct(d[b].stock[h], d[b].hands_n[h]), _pct(d[b].turn_cap[h], d[b].hands_n[h])]
            rows.append(row)
        out.append(table(f"`{rules}`, {players} players, {games:,} games per bot (same seeds): hands "
                         "ended with nobody out (stock rule, §5.5) and at the turn cap (§5.8), % "
                         "(target for smart: nobody out at most 5% in every contract)", cols, rows))
    rows = []
    for rules in presets:
        base = tallies[rules][bots[0]].layable_rate()
        for b in bots:
            t = tallies[rules][b]
            r = t.layable_rate()
            rows.append([rules, b, t.discards, t.joker_discards, t.joker_with_natural,
                         t.joker_natural_per_1000(), t.to_down, t.layable_to_down,
                         None if r is None else 100.0 * r,
                         "reference" if b == bots[0] else (r / base if base and r is not None else None),
                         t.layable_avoidable])
    out.append(table(
        f"Discards, {players} players, four seats of each bot: jokers discarded while a natural "
        "could go (target: none), and discards the next player, who is down, could lay off (target: "
        f"smart's rate at most 1/3 of {bots[0]}'s)",
        ["rules", "bot", "discards", "joker discards", "jokers with a natural in hand",
         "per 1,000 discards", "discards to a down next player", "layable by them",
         "layable %", f"rate / {bots[0]}'s", "layable, a non-layable natural in hand"], rows))
    rows = []
    for rules in presets:
        for b in bots:
            t = tallies[rules][b]
            for h in range(t.hands):
                nb = sum(t.buys[h])
                rows.append([rules, b, h + 1,
                             nb / t.seat_hands[h] if t.seat_hands[h] else None]
                            + [_pct(k, nb) for k in t.buys[h]]
                            + [_pct(t.all_buys_not_down[h], t.seat_hands[h])])
    out.append(table(
        "Buys by the buyer's deficiency before the buy (% of the buys), and players who used every "
        "buy of the hand and never went down (% of player-hands)",
        ["rules", "bot", "contract", "buys per player-hand"]
        + [f"at {k} %" for k in DEF_BUCKETS] + ["all buys, never down %"], rows))
    return out


def _notes(tallies, ratio, bots, tc_rows) -> list[str]:
    notes = []
    for rules, d in tallies.items():
        worst = {b: max((_pct(d[b].stock[h] + d[b].turn_cap[h], d[b].hands_n[h]) or 0.0, h + 1)
                        for h in range(d[b].hands)) for b in bots}
        parts = [f"{b} {w[0]:.1f}% (contract {w[1]})" for b, w in worst.items()]
        line = f"`{rules}`: worst contract for hands with nobody out: " + ", ".join(parts)
        line += "; jokers thrown with a natural in hand: " + ", ".join(
            f"{b} {d[b].joker_with_natural}" for b in bots)
        if ratio.get(rules):
            line += "; layable-discard rate vs " + bots[0] + ": " + ", ".join(
                f"{b} {'n/a' if v is None else f'{v:.2f}x'}" for b, v in ratio[rules].items())
        notes.append(line + ".")
    if tc_rows:
        for b in bots:
            rows = [c for c in tc_rows if c["bot"] == b]
            notes.append(f"Turn cap, {b}: {sum(c['turn_cap'] for c in rows):,} turn-cap hands in "
                         f"{sum(c['games'] for c in rows):,} games.")
    if tallies:
        notes.append("A layable discard is one the next player, down at that moment, could lay off "
                     "on the table as it stands (structural fit, joker limit included); discards "
                     "that go out are not counted.")
    return notes


def _print(res: dict) -> None:
    for t in res["tables"]:
        cols = t["columns"]
        cells = [[fmt(v) for v in row] for row in t["rows"]]
        w = [max(len(str(c)), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(cols)]
        print(f"\n{t['title']}")
        print("  ".join(c.rjust(w[i]) for i, c in enumerate(cols)))
        for r in cells:
            print("  ".join(x.rjust(w[i]) for i, x in enumerate(r)))
    print()
    for n in res.get("notes", []):
        print(f"- {n}")


def chart(res: dict, path: Path) -> Path:
    """BENCHMARKS.md's chart of this benchmark (the shared style and helpers: charts.py)."""
    if __package__:
        from .charts import C_OURS, C_LAY, C_PEER, C_FLOOR, finish, np, plt
    else:
        from charts import C_OURS, C_LAY, C_PEER, C_FLOOR, finish, np, plt

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
    return finish(fig, res, path)


BENCHMARK = Benchmark(
    name="play_quality", order=90, measure=measure, chart=chart,
    title="Play that looks like play",
    how=(
        "Issue #13's targets for how the bots play, counted over sample games (four seats of "
        "each bot, the same seeds for every bot) played step by step through `Game`, each action "
        "looked at before it is applied: per contract the hands that ended with nobody out "
        "(stock rule) or at the turn cap; jokers discarded while the hand held a natural card; "
        "discards that the next player, down at that moment, could lay off on the table as it "
        "stood (a rate per discard made to a down next player, and each bot's rate over "
        "greedy's); buys by the buyer's deficiency before the buy. Then turn-cap hands in batch "
        "runs (`runner.run`, the hands table's `ended`) of 3-8 players per bot. "
        "`python benchmarks/bench_play_quality.py` runs the first part alone (`--turn-cap` the "
        "second, `--turn-cap-games 100000` the target's size)."),
    sizes={
        "full": dict(games=1_000, turn_cap_games=16_667),   # 100,002 games per bot and preset
        "quick": dict(games=100, turn_cap_games=100),
        "tiny": dict(presets=("shanghai",), games=2, turn_cap_games=2, turn_cap_players=(3,)),
    },
    source=Source(kernels=("games.batch", "engine.play", "games.dispatch"),
                  cut=("search.rollout", "search.oracle", "search.playout", "compile.linking"),          # greedy, smart; counts: how kernels are linked changes no game
                  files=("shanghai_sim/game.py", "shanghai_sim/bots.py", "shanghai_sim/rules/*.py",
                         "shanghai_sim/dataset.py", "shanghai_sim/runner/job.py", "shanghai_sim/runner/planning.py")),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000, help="games per bot and preset (default 1,000)")
    ap.add_argument("--bots", default=",".join(LINEUP_BOTS),
                    help="comma-separated bots, each played in every seat (default greedy,smart); "
                         "the first is the reference of the layable-discard ratio")
    ap.add_argument("--presets", default=",".join(PRESETS), help="comma-separated rules presets")
    ap.add_argument("--players", type=int, default=PLAYERS)
    ap.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")
    ap.add_argument("--quick", action="store_true", help="100 games (turn cap: 500 per player count)")
    ap.add_argument("--turn-cap", action="store_true",
                    help="count turn-cap hands of batch runs of 3..8 players instead")
    ap.add_argument("--turn-cap-games", type=int, default=None,
                    help="games per bot, preset and player count (default 5,000; 100,000 is the target's)")
    ap.add_argument("--threads", type=int, default=1, help="runner threads for --turn-cap (default 1)")
    ap.add_argument("--json", type=Path, default=None,
                    help="where to write the result (default benchmarks/results/play_quality.json, "
                         "play_quality_turn_cap.json with --turn-cap)")
    a = parse_args(ap, argv)
    bots = tuple(b.strip() for b in a.bots.split(",") if b.strip())
    presets = tuple(r.strip() for r in a.presets.split(",") if r.strip())
    if a.turn_cap:
        n = a.turn_cap_games if a.turn_cap_games is not None else (500 if a.quick else 5_000)
        kw = dict(games=0, turn_cap_games=n, threads=a.threads)
        default_json = HERE / "results" / "play_quality_turn_cap.json"
    else:
        kw = dict(games=100 if a.quick else a.games, turn_cap_games=0)
        default_json = HERE / "results" / "play_quality.json"
    t0 = time.perf_counter()
    res = measure(presets=presets, bots=bots, seed=a.seed, players=a.players,
                  progress=lambda s: print(s, flush=True), **kw)
    res["seconds"] = time.perf_counter() - t0
    res["run"] = "quick" if a.quick else "cli"
    res["machine"] = machine()
    res["bot_versions"] = bot_versions_now()
    path = a.json or default_json
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")
    _print(res)
    print(f"\nwrote {path} ({res['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
