"""BENCHMARKS.md, written from the JSON results: what is measured, how, the tables,
the charts, how to rerun. Every table cell is ``_common.fmt`` of the JSON value, so
a test can read the tables back and compare them with the results."""

from __future__ import annotations

import os
from pathlib import Path

from _common import fmt

HOW = {
    "melds": (
        "Hand analysis",
        "For each contract of each preset: random hands from the 4-player shoe (12 cards; 14 "
        "for hands 8-10, where buys are usual). *Cold*: `deficiency_batch_nb` with an empty memo "
        "each pass. Then a warm-up as a user's loop runs it: the public "
        "`shanghai_sim.hand.deficiency_batch` called again and again, each call n fresh hands (n: "
        "the pass size in the settings; it keeps its memo, per thread and per rules, across calls), "
        "until the warm-up's hands are done; then, alternately on fresh hands with that same memo, "
        "*deficiency, warm memo*: the kernel `deficiency_batch_nb` alone, and *deficiency_batch, "
        "calls*: the public call (its input and shoe checks and set-up included), with the ratio "
        "of the two (the issue #17 target: 0.8 or more); *lay-downs*: `laydown_sat_nb` hand by hand "
        "on hands that meet the contract (its melds built from the shoe, random cards to the "
        "same size, kept if their deficiency is 0): the least-deadwood lay-down the engine "
        "computes when a player goes down. Peers in the same run: the plain Python reference meld finder "
        "(`tests/reference.py`, the same answers, written from the rulebook), and, as the "
        "nearest public analogue of `deficiency`, the `mahjong` package's shanten number "
        "(riichi mahjong, another game: 13 tiles of 34 kinds, pure Python): it answers the same "
        "question, cards missing to a complete hand, for a smaller hand and no jokers. "
        "The full run measures every preset alike (the quick run samples `progressive` lighter)."),
    "growth": (
        "How cost grows",
        "Deficiency time per hand (warm memo) for hands of 10-22 cards drawn from the "
        "`shanghai` shoe, and for 12-card hands holding exactly 0-4 jokers; game time with four "
        "greedy bots at 2-8 players for each preset (`progressive` with a smaller sample: it "
        "is about 100x slower). Two-player games are the long ones: at two players nobody "
        "can buy a discard (docs/rules.md §5.9), so under `shanghai` hands 8-10 mostly end "
        "by the stock rule (§5.5) with nobody out (greedy version 1 passed cards through the "
        "pile until the turn cap instead)."),
    "engine": (
        "The engine",
        "Games per second of `play_games_nb` (the batch kernel, one thread) with greedy and with "
        "random bots, per preset; the machine's floor next to them: shuffling and dealing every "
        "hand of a game in numba and nothing else. Random-player actions per second against "
        "OpenSpiel's gin rummy (two players, a different game with a single pack: the nearest "
        "public card-game engine) at its best, driven two ways, each game from a clone of one "
        "initial state: its Python API (`legal_actions`, `apply_action` per step) and its C++ "
        "loop (`pyspiel.evaluate_bots` with `make_uniform_random_bot` players; it does not report "
        "a game's length, so its actions/s are its games/s times the mean decisions per game of "
        "the Python-API games). The C++ loop from `game.new_initial_state()` per game, which "
        "costs more than the game itself, is shown beside it only: the ratios and the headline "
        "use the cloned start."),
    "runner": (
        "The batch runner",
        "The default job (`shanghai`, 4 greedy bots): the kernel alone and `runner.run` (seeds, "
        "kernel, Arrow tables, zstd Parquet, manifest) on 1..N threads; the writing overhead on "
        "one thread; the runner's own cost with the kernel replaced by a no-op; and the peak "
        "RSS of whole jobs in a fresh process: `real` is `shanghai-sim run --quiet` up to the "
        "size this run's time allows, `no-op` is the runner with the no-op kernel up to 1M "
        "games. On a shared machine a second thread competes with other people's work, so "
        "the scaling shown is a lower bound."),
    "verify": (
        "Checking a dataset",
        "A dataset written by the real runner (Parquet, page checksums, manifest records) with "
        "the game kernel replaced by a stand-in that fills random, plausible records (what "
        "`verify` costs depends on the bytes, not on how the games were played): reading and "
        "hashing every part alone (the floor of the default check), then `verify --quick` (sizes, "
        "footers, rows, job metadata), `verify` (the default: every byte against its SHA-256) and "
        "a reader of every part with and without that check. The files were just written, so "
        "they come from the page cache: CPU speeds, an upper bound on what a disk delivers."),
    "startup": (
        "First use",
        "Cold: each step of `shanghai-sim warmup` (the kernels of `meld`, of `run`, of "
        "`replay`/`play`) in a fresh process with an empty `SHANGHAI_SIM_CACHE_DIR`: the time a "
        "new user waits once per version. Warm: the wall time of the first commands in a fresh "
        "process with the cache filled, next to starting Python and `shanghai-sim --help`."),
    "bots": (
        "The bots",
        "Four seats of each bot, `shanghai` rules, one thread: games per second and decisions "
        "per second; then a tournament of smart, greedy, a greedy that never buys and a random "
        "bot, every deal in all 24 seatings, as `shanghai-sim tournament` reports it."),
    "strength": (
        "Bot strength",
        "Issue #13's strength target: one `smart` against three `greedy`, 4 players, every deal "
        "played with `smart` in each of the four seats (`shanghai-sim tournament`), on seed 1; "
        "smart's weights were tuned on other seeds (`analyses/tune_smart.py`, seed 7000000). Win "
        "share per seat held (par 0.25), points, the share of hands gone out, the paired point "
        "difference per deal, with 95% CIs over deals."),
    "play_quality": (
        "Play that looks like play",
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
    "playouts": (
        "The rollout bot's playouts",
        "Seat 0's first searched decisions in games of four smart bots (`shanghai`), each searched "
        "with K samples and each playout policy (`rollout:rollouts=K:policy=P`); a decision's time "
        "is all of the bot's work on it, and a playout is one candidate played to the end of the "
        "hand on one sample. The policies take turns within each rep, so a shared machine's drift "
        "falls on all of them. `python benchmarks/bench_playouts.py` runs it alone."),
    "rollout": (
        "The rollout bot",
        "Strength: `shanghai-sim tournament` of one rollout bot "
        "against three smart bots, every deal with the rollout bot in each seat, win share per seat "
        "held with 95% CIs over deals (par 0.25); the budget curve repeats it at several K on "
        "the same deals (its point at the default K is the `shanghai` strength row). Figures of "
        "a shared 2-core machine: the quick run shared it with a test suite. The engine has been "
        "made faster since this run without changing a game (the K = 8 point replayed to the last "
        "digit at 210 games/min against 146; docs/DEVELOPING.md speed notes): games/min are "
        "this run's."),
    "browser": (
        "The replay page in a browser",
        "`shanghai-sim replay --seed 42 --bots rollout:rollouts=8,smart,smart,smart --html` "
        "(a 4-player game of `shanghai`, every event with the search bot's reasoning) opened "
        "in headless Chromium (Debian's `chromium` with `chromium-driver`, driven by selenium as "
        "the browser tests drive it). *Load*: navigation start to the end of the load event "
        "(Navigation Timing), the first load of a run not counted: reading the page, its "
        "events' JSON, the table rebuilt at every event, the first one drawn; next to it the "
        "wall time of `driver.get`. *Step*: one keypress forward (by event, turn, hand) timed in "
        "the page from the key to the end of the layout it causes, every step of the game "
        "once per rep. Issue 34's targets: load under 1 s, a step under 50 ms (medians). "
        "`python benchmarks/bench_browser.py` runs it alone."),
}


def md_table(t: dict) -> str:
    lines = [f"**{t['title']}**", "",
             "| " + " | ".join(t["columns"]) + " |",
             "|" + "|".join("---" for _ in t["columns"]) + "|"]
    for row in t["rows"]:
        lines.append("| " + " | ".join(fmt(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines)


def _machine_line(m: dict) -> str:
    return (f"{m.get('cpu')}, {m.get('cores')} cores, {m.get('os')}; Python {m.get('python')}, "
            f"numba {m.get('numba')}, numpy {m.get('numpy')}, pyarrow {m.get('pyarrow')}, "
            f"open_spiel {m.get('open_spiel') or 'not installed'}, "
            f"mahjong {m.get('mahjong') or 'not installed'}; commit {m.get('commit')}; "
            f"{m.get('date')}")


def render(results: dict, charts: dict, base: Path) -> str:
    def rel(p: Path) -> str:
        return Path(os.path.relpath(Path(p).resolve(), Path(base).resolve())).as_posix()

    runs = sorted({r.get("run", "?") for r in results.values()})
    out = [
        "# Benchmarks",
        "",
        "Generated by `python benchmarks/run_all.py` from the results in `benchmarks/results/`: "
        "do not edit by hand. Every figure below comes from that one command; the peers "
        "(OpenSpiel gin rummy, the Python reference meld finder, the mahjong shanten "
        "calculator, the floor of dealing cards) are measured in the same run, side by side, "
        "so read the ratios first: absolute times drift between runs on a shared machine. "
        "A figure is the median of repeated passes with the min-max in brackets.",
        "",
        f"**These results are from a `{'`, `'.join(runs)}` run** of "
        f"{sum(r.get('seconds', 0) for r in results.values()) / 60:.1f} minutes of benchmarks "
        "(`full`: `python benchmarks/run_all.py`, about two hours on 2 cores, most of it the rollout bot's tournaments, cold compiles "
        "included; `quick`: `--quick`, a few minutes, small samples, no cold compiles).",
        "",
        "## Rerun",
        "",
        "```bash",
        "pip install -e '.[bench]'                     # OpenSpiel and mahjong are the peers",
        "shanghai-sim warmup                           # compile the kernels once",
        "python benchmarks/run_all.py                  # everything (about two hours on 2 cores)",
        "python benchmarks/run_all.py --quick          # small samples, no cold compiles (minutes)",
        "python benchmarks/run_all.py --only engine    # one benchmark; the others' results kept",
        "```",
        "",
    ]
    if "headline" in charts:
        from charts import headline_ratios
        out += ["## At a glance", "", f"![headline]({rel(charts['headline'])})", ""]
        out += [f"- {label.replace(chr(10), ' ')}: **{_x(s['median'])}** "
                f"({_x(s['min'])}-{_x(s['max'])} over the passes)"
                for label, s in headline_ratios(results)]
        out += [""]
    for name in ("melds", "growth", "engine", "runner", "verify", "startup", "bots", "strength",
                 "play_quality", "playouts", "rollout", "browser"):
        res = results.get(name)
        if not res:
            continue
        title, how = HOW[name]
        out += [f"## {title}", "", res["title"] + ".", "", how, ""]
        if name in charts:
            out += [f"![{name}]({rel(charts[name])})", ""]
        for t in res["tables"]:
            out += [md_table(t), ""]
        for n in res.get("notes", []):
            out += [f"- {n}"]
        if res.get("notes"):
            out += [""]
        out += [f"*Machine*: {_machine_line(res['machine'])}. *Run*: `{res['run']}`, "
                f"{res['seconds']:.0f} s. *Settings*: `{_settings(res['settings'])}`.", ""]
    return "\n".join(out).rstrip() + "\n"


def _x(v: float) -> str:
    return f"{v:,.0f}x" if v >= 10 else f"{v:.1f}x"


def _settings(s: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in s.items())
