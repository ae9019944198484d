"""``shanghai-sim summary OUT``: the headline numbers of a dataset, with 95% CIs.

Reads the part files one at a time (memory stays flat however big the job).
The unit of every confidence interval is the game, the independent draw:

- per seat: the seat's total points and win share over the games;
- per bot: in each game, the mean over the seats that bot held, then over games
  (a bot in several seats of one game is one observation, not several);
- hands: in each game, the mean over its hands of the hand length (turns of
  all seats) and of the buys (all seats), then over games;
- by hand (``by_hand``, ``summary --by-hand``): for each hand of the game
  (its contract) and each bot, the bot's points in that hand, how often it
  went down and went out, and its buys: in each game, the mean over the
  seats that bot held, then over games; and per hand, the share of hands
  nobody went out of (stopped by the stock) and the hands stopped by the
  turn cap.

Intervals are normal: mean +- 1.96 sd / sqrt(n).

Only the parts the manifest records are read, each checked against its record
before it is decoded (``integrity.iter_parts``: size, SHA-256, rows, job): a
missing or damaged part is a ``DamagedPartError`` naming the file and the way
out, a missing or edited manifest a ``NotADatasetError``; any other file in
``hands/`` or ``games/`` is listed under ``ignored`` and never counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .dataset import GAMES, HANDS, Store
from .integrity import finished_list, iter_parts, load_manifest

Z95 = 1.959963984540054


class SummaryError(ValueError):
    """OUT is not a readable dataset (one line)."""


@dataclass
class Moments:
    """Running count, sum and sum of squares -> mean and 95% CI half-width."""
    n: int = 0
    s: float = 0.0
    ss: float = 0.0

    def add(self, x: np.ndarray) -> None:
        x = np.asarray(x, dtype=np.float64)
        self.n += x.size
        self.s += float(x.sum())
        self.ss += float((x * x).sum())

    def merge(self, n: int, s: float, ss: float) -> None:
        self.n += int(n)
        self.s += float(s)
        self.ss += float(ss)

    @property
    def mean(self) -> float:
        return self.s / self.n if self.n else math.nan

    @property
    def ci(self) -> float:
        if self.n < 2:
            return math.nan
        var = max(0.0, (self.ss - self.s * self.s / self.n) / (self.n - 1))
        return Z95 * math.sqrt(var / self.n)

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "mean": _num(self.mean), "ci95": _num(self.ci)}


def _num(x: float) -> float | None:
    return None if not math.isfinite(x) else round(x, 6)


@dataclass
class Group:
    games: int = 0
    points: Moments = field(default_factory=Moments)
    win_share: Moments = field(default_factory=Moments)

    def as_dict(self) -> dict[str, Any]:
        return {"games": self.games, "points": self.points.as_dict(),
                "win_share": self.win_share.as_dict()}


def _add_moments(groups: dict, frame: pd.DataFrame, key: str) -> None:
    agg = frame.groupby(key, observed=True).agg(
        n=("points", "size"), ps=("points", "sum"), pss=("points2", "sum"),
        ws=("win_share", "sum"), wss=("win_share2", "sum"))
    for k, row in agg.iterrows():
        g = groups.setdefault(k, Group())
        g.games += int(row.n)
        g.points.merge(row.n, row.ps, row.pss)
        g.win_share.merge(row.n, row.ws, row.wss)


def _grid(t, players: int | None, inner: int = 1) -> np.ndarray | None:
    """The game column as [games, inner * players] if the rows are whole games in
    (game, ..., seat) order, as the runner writes them; else None."""
    n = t.num_rows
    k = (players or 0) * inner
    if not k or n % k:
        return None
    g = t.column("game").to_numpy().reshape(n // k, k)
    seat = t.column("seat").to_numpy().reshape(n // k, k)
    if (g != g[:, :1]).any() or (seat != np.tile(np.arange(players), inner)[None, :]).any():
        return None
    return g


def _add_games(t, players: int | None, seats: dict, bots: dict) -> int:
    """Fold one part file of games/ into the per-seat and per-bot moments; returns its games."""
    if _grid(t, players) is None:                       # not in runner order: the slow, general way
        f = t.to_pandas()
        f["bot"] = f["bot"].astype(str)
        f["points"] = f["points"].astype(np.float64)
        f["points2"], f["win_share2"] = f["points"] ** 2, f["win_share"] ** 2
        _add_moments(seats, f, "seat")
        per_bot = f.groupby(["game", "bot"], observed=True)[["points", "win_share"]].mean().reset_index()
        per_bot["points2"], per_bot["win_share2"] = per_bot["points"] ** 2, per_bot["win_share"] ** 2
        _add_moments(bots, per_bot, "bot")
        return int(f["game"].nunique())
    n = t.num_rows // players
    pts = t.column("points").to_numpy().astype(np.float64).reshape(n, players)
    win = t.column("win_share").to_numpy().reshape(n, players)
    for s in range(players):
        g = seats.setdefault(s, Group())
        g.games += n
        g.points.add(pts[:, s])
        g.win_share.add(win[:, s])
    bot = t.column("bot").combine_chunks()
    codes = bot.indices.to_numpy().reshape(n, players)
    for b, label in enumerate(bot.dictionary.to_pylist()):
        mask = codes == b
        k = mask.sum(axis=1)
        has = k > 0
        if not has.any():
            continue
        g = bots.setdefault(label, Group())
        g.games += int(has.sum())
        g.points.add((pts * mask).sum(axis=1)[has] / k[has])
        g.win_share.add((win * mask).sum(axis=1)[has] / k[has])
    return n


def _add_hands(t, players: int | None, hands: int | None, hand_len: "Moments", buys: "Moments") -> int:
    """Fold one part file of hands/ into the per-game hand length and buys; returns its hands."""
    if hands and _grid(t, players, hands) is not None:
        n = t.num_rows // (players * hands)
        turns = t.column("turns").to_numpy().astype(np.float64).reshape(n, hands, players).sum(axis=2)
        b = t.column("buys").to_numpy().astype(np.float64).reshape(n, hands, players).sum(axis=2)
        hand_len.add(turns.mean(axis=1))
        buys.add(b.mean(axis=1))
        return n * hands
    f = t.to_pandas()
    per_hand = f.groupby(["game", "hand"])[["turns", "buys"]].sum()
    per_game = per_hand.groupby(level="game").mean()
    hand_len.add(per_game["turns"].to_numpy())
    buys.add(per_game["buys"].to_numpy())
    return len(per_hand)


_BY_HAND = ("points", "down", "out", "buys")


def _add_by_hand(t, by_hand: dict, ends: dict) -> None:
    """Fold one part file of hands/ into per (hand, bot) moments and per-hand endings."""
    f = t.to_pandas()
    f["bot"] = f["bot"].astype(str)
    f["ended"] = f["ended"].astype(str)
    f["points"] = f["points"].astype(np.float64)
    f["down"] = f["down_turn"].notna().astype(np.float64)
    f["out"] = f["went_out"].astype(np.float64)
    f["buys"] = f["buys"].astype(np.float64)
    per_game = f.groupby(["hand", "bot", "game"], observed=True)[list(_BY_HAND)].mean()
    for c in _BY_HAND:
        per_game[c + "2"] = per_game[c] ** 2
    agg = per_game.groupby(level=["hand", "bot"]).agg(
        n=("points", "size"), **{f"{c}_s": (c, "sum") for c in _BY_HAND},
        **{f"{c}_ss": (c + "2", "sum") for c in _BY_HAND})
    for (hand, bot), row in agg.iterrows():
        m = by_hand.setdefault((int(hand), bot), {c: Moments() for c in _BY_HAND})
        for c in _BY_HAND:
            m[c].merge(row.n, row[f"{c}_s"], row[f"{c}_ss"])
    hands = f.drop_duplicates(["game", "hand"])[["hand", "ended"]]
    for (hand, ended), k in hands.groupby(["hand", "ended"]).size().items():
        e = ends.setdefault(int(hand), {"hands": 0, "out": 0, "stock": 0, "turn_cap": 0})
        e["hands"] += int(k)
        e[ended] = e.get(ended, 0) + int(k)


def summarize(out: str, full: bool = True) -> dict[str, Any]:
    """The summary of the dataset at ``out`` (a folder or URL) as plain data.

    Only the parts its manifest records are read, each checked against its record
    first (every byte unless ``full`` is False); files of ``hands/`` and ``games/``
    the manifest does not record are listed under ``ignored`` and never counted."""
    store = Store(out)
    if not store.is_dir():
        if store.exists():          # a file: never suggest writing a dataset over it
            raise SummaryError(f"{out!r} is a file, not a dataset folder; give the folder a `shanghai-sim run` "
                               "wrote (--out, default shanghai-out)")
        raise SummaryError(f"{out!r} does not exist (a dataset is the folder `shanghai-sim run --out {out}` "
                           "writes)")
    from .dataset import MANIFEST
    if not store.exists(MANIFEST) and store.exists("experiment.json") and store.is_dir("arms"):
        arms = sorted(store.listdir("arms"))
        first = f"{out.rstrip('/')}/arms/{arms[0]}" if arms else f"{out.rstrip('/')}/arms/..."
        raise SummaryError(f"{out!r} holds an experiment, not one dataset: each arm is a dataset "
                           f"(`shanghai-sim summary {first}`), and `shanghai-sim experiment --resume --out {out}` "
                           "prints its report")
    manifest = load_manifest(store)
    if not finished_list(manifest):
        raise SummaryError(f"{out!r} holds no finished shard yet (status {manifest.get('status') or 'not recorded'}); "
                           f"finish it with `shanghai-sim run --resume --out {out}`")
    ignored: list[dict[str, str]] = []

    def note(rel: str, why: str) -> None:
        ignored.append({"path": f"{out.rstrip('/')}/{rel}", "why": why})

    seats: dict[int, Group] = {}
    bots: dict[str, Group] = {}
    n_games = 0
    players = manifest["job"]["players"]
    for _, t in iter_parts(out, GAMES, ["game", "seat", "bot", "points", "win_share"], full=full,
                           on_ignored=note):
        n_games += _add_games(t, players, seats, bots)
    hand_len, buys, n_hands = Moments(), Moments(), 0
    by_hand: dict[tuple[int, str], dict[str, Moments]] = {}
    ends: dict[int, dict[str, int]] = {}
    hand_parts = manifest["job"]["detail"] == HANDS
    hands = len(manifest["rules"]["contracts"])
    for _, t in iter_parts(out, HANDS, ["game", "hand", "seat", "bot", "turns", "buys", "points",
                                        "down_turn", "went_out", "ended"], full=full, on_ignored=note):
        n_hands += _add_hands(t, players, hands, hand_len, buys)
        _add_by_hand(t, by_hand, ends)
    shards = manifest.get("shards", {})
    job = manifest.get("job", {})
    result: dict[str, Any] = {
        "out": out,
        "games": n_games,
        "status": manifest.get("status", "unknown"),
        "shards": {"finished": sum(b - a + 1 for a, b in shards.get("finished", [])),
                   "count": shards.get("count")},
        "rules": manifest.get("rules", {}).get("name"),
        "players": job.get("players"),
        "seed": job.get("seed"),
        "seats": {int(k): v.as_dict() for k, v in sorted(seats.items())},
        "bots": {k: v.as_dict() for k, v in sorted(bots.items())},
        "ignored": ignored,
    }
    if manifest.get("diagnostic"):          # a bot that cheats on purpose played (bots.Diagnostic)
        from .bots import diagnostic_marks
        result["diagnostic"] = diagnostic_marks(job.get("bots", []))
    if hand_parts:
        result["hands"] = {"hands": n_hands, "hand_length_turns": hand_len.as_dict(),
                           "buys_per_hand": buys.as_dict()}
        contracts = [c.get("melds") for c in manifest.get("rules", {}).get("contracts", [])]
        result["by_hand"] = [
            {"hand": h, "contract": contracts[h - 1] if 0 < h <= len(contracts) else None,
             **ends[h],
             "bots": {bot: {c: m[c].as_dict() for c in _BY_HAND}
                      for (hh, bot), m in sorted(by_hand.items()) if hh == h}}
            for h in sorted(ends)]
    return result


def _pm(d: dict[str, Any], digits: int) -> str:
    m, c = d["mean"], d["ci95"]
    if m is None:
        return "-"
    if c is not None and 0 < c < 0.5 * 10 ** -digits:
        # a half-width that would print as 0.000 (a bot that almost never wins): enough
        # digits for its first significant one, not "0.001 ± 0.000"
        import math
        digits = -math.floor(math.log10(c))
    return f"{m:.{digits}f} ± {c:.{digits}f}" if c is not None else f"{m:.{digits}f}"


def _wrap(text: str) -> list[str]:
    import textwrap
    return textwrap.wrap(text, 96)


def _all_seats(d: dict[str, Any], players: int | None) -> bool:
    """A bot that held every seat of every game: its win share is 1/players by construction."""
    w = d["win_share"]
    return bool(players) and w["ci95"] == 0 and w["mean"] is not None and abs(w["mean"] * players - 1) < 1e-9


def format_by_hand(s: dict[str, Any]) -> str:
    """The per-hand table of ``summary --by-hand``."""
    if "by_hand" not in s:
        return "by hand: not recorded (run with --detail hands)"
    w = max([len(b) for h in s["by_hand"] for b in h["bots"]] + [3])
    lines = [f"{'hand':>4}  {'contract':<20}  {'no one out':>10}  {'bot':<{w}}  {'points (95% CI)':>17}  "
             f"{'down':>6}  {'out':>6}  {'buys':>5}"]
    for h in s["by_hand"]:
        stopped = h["hands"] - h["out"]
        nobody = f"{stopped / h['hands']:.1%}" if h["hands"] else "-"
        if h.get("turn_cap"):
            nobody += f" ({h['turn_cap']} cap)"
        first = True
        for bot, d in h["bots"].items():
            head = (f"{h['hand']:>4}  {h['contract'] or '':<20}  {nobody:>10}" if first
                    else f"{'':>4}  {'':<20}  {'':>10}")
            first = False
            lines.append(f"{head}  {bot:<{w}}  {_pm(d['points'], 1):>17}  {d['down']['mean']:>6.1%}  "
                         f"{d['out']['mean']:>6.1%}  {d['buys']['mean']:>5.2f}")
    lines += [""] + _wrap("points: the bot's points in that hand (mean over its seats in a game, then "
                          "over games, 95% CI); down, out: share of its seats that went down / went out; "
                          "buys: mean buys; no one out: hands stopped by the stock (or the turn cap) "
                          "with no winner.")
    return "\n".join(lines)


def format_summary(s: dict[str, Any], by_hand: bool = False) -> str:
    state = s["status"]
    if s["shards"]["count"] and s["shards"]["finished"] != s["shards"]["count"]:
        state = f"incomplete: {s['shards']['finished']}/{s['shards']['count']} shards"
    lines = [*s.get("diagnostic", ()), f"{s['out']}: {s['games']:,} games, rules {s['rules']}, {s['players']} players, "
             f"seed {s['seed']} ({state})", ""]
    w = max([len(f"bot {b}") for b in s["bots"]] + [8])
    lines.append(f"{'':<{w}}  {'games':>9}  {'points (95% CI)':>20}  {'win share (95% CI)':>20}")
    every_seat = False
    for label, d in [(f"seat {k}", v) for k, v in s["seats"].items()] + \
                    [(f"bot {k}", v) for k, v in s["bots"].items()]:
        win = _pm(d["win_share"], 3)
        if label.startswith("bot ") and _all_seats(d, s["players"]):
            win, every_seat = f"{d['win_share']['mean']:.3f} (every seat)", True
        lines.append(f"{label:<{w}}  {d['games']:>9,}  {_pm(d['points'], 1):>20}  {win:>20}")
    if "hands" in s:
        h = s["hands"]
        lines += ["", f"hands: {h['hands']:,}; mean hand length {_pm(h['hand_length_turns'], 2)} turns "
                      f"(all seats); buys per hand {_pm(h['buys_per_hand'], 3)} (all seats)"]
    else:
        lines += ["", "hands: not recorded (run with --detail hands)"]
    if every_seat:
        lines += _wrap("(every seat): that bot held every seat of every game, so its win share is "
                       "1/players by construction (the shares of a game sum to 1); compare bots in a "
                       "mixed line-up.")
    for f in s.get("ignored", [])[:10]:
        lines.append(f"ignored: {f['path']}: {f['why']}")
    if len(s.get("ignored", [])) > 10:
        lines.append(f"ignored: ... and {len(s['ignored']) - 10} more files the manifest does not record")
    if s.get("ignored"):
        lines += _wrap(f"(ignored files are not counted; `shanghai-sim run --resume --out {s['out']}` "
                       "moves those that are not the job's to quarantine/)")
    if by_hand:
        lines += ["", format_by_hand(s)]
    elif "by_hand" in s:
        lines += ["", "per hand (points, going down and out, buys by contract): shanghai-sim summary --by-hand"]
    return "\n".join(lines)
