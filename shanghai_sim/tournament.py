"""Tournaments: bots against bots over the same deals (docs/tournament.md).

A ``Tournament`` is a line-up of bot specs, one per seat. Every deal (seed) is
played once in every distinct seating of the line-up's specs (``runner``
seating ``"tournament"``: 4 for ``smart,greedy,greedy,greedy``, 12 for
a,a,b,c, 24 for four distinct bots; the rotations when there would be more
than 24), so deal, seat and dealer luck cancel. The run is an ordinary runner
job written to ``OUT`` (``manifest.json``, ``hands/``, ``games/``: threads,
Dask, resume, ``verify`` and ``summary`` come with it); ``OUT/tournament.json``
records the design, the seeds, the versions and the results.

The unit is the deal: a bot's value in a deal is its mean over every seat it
held in every seating of that deal. Each bot after the first-named is
compared with the first-named on the same deals (``stats.paired_effect``);
Holm's adjustment runs over the bots' point differences (the primary family,
on which each bot's sentence rests) and separately over the other
differences. The analysis streams the part files by columns
(``integrity.iter_parts``) and keeps a few numbers per deal and bot.

::

    from shanghai_sim.tournament import Tournament, run_tournament
    res = run_tournament(Tournament(("greedy:buy=never", "greedy", "greedy", "greedy"), deals=500), "t-out")
    print(res.text())
    df = res.frame()          # one row per bot: figures, differences against the first, CIs
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

import numpy as np

from . import __version__
from .stats import Effect, holm, paired_effect

DEFAULT_OUT = "shanghai-tournament"
DEFAULT_DEALS = 500
TOURNAMENT_FILE = "tournament.json"
FORMAT = "shanghai-sim tournament"
# Win shares are 1/k for k tied winners, k <= 8 players: in units of 1/840 they are whole
# numbers, so per-deal sums are exact and bots that play alike differ by exactly 0.
_WIN_UNIT = 840


class TournamentError(ValueError):
    """A tournament that cannot run as asked: one line naming the problem."""


@dataclass(frozen=True)
class Tournament:
    """What is asked: ``bots``, one spec per seat (at least two distinct bots);
    ``deals`` seeds, each played in every seating (``runner.tournament_seatings``)."""
    bots: tuple[str, ...]
    rules: Any = "shanghai"           # preset name, rules file, or Rules
    players: int | None = None        # None: one per spec (given, it must equal the specs)
    deals: int = DEFAULT_DEALS
    seed: int = 1
    threads: int | None = None
    scheduler: str | None = None
    level: float = 0.95
    diagnostic: bool = False          # a diagnostic bot (rollout:oracle=..., it cheats) only when set

    def __post_init__(self):
        if isinstance(self.bots, str):
            object.__setattr__(self, "bots", (self.bots,))
        object.__setattr__(self, "bots", tuple(self.bots))


def _specs(bots) -> list[str]:
    from .bots import BotError, split_specs
    try:
        return split_specs(list(bots))
    except BotError as e:
        raise TournamentError(f"bots: {e}") from None


def plan_tournament(t: Tournament, out: str = DEFAULT_OUT, engine=None, shard_size: int | None = None):
    """Resolve ``t`` into a runner plan (seating "tournament"). Checks everything before
    anything is written: TournamentError."""
    from . import runner
    specs = _specs(t.bots)
    if len(specs) < 2:
        raise TournamentError(f"bots: {','.join(specs)} is one bot; a tournament needs a line-up of at least "
                              "two specs with at least two distinct bots, e.g. --bots random,greedy,greedy,greedy")
    if t.players is not None and t.players != len(specs):
        raise TournamentError(f"players = {t.players} but {len(specs)} bot specs ({','.join(specs)}): "
                              "a tournament takes one spec per seat")
    if isinstance(t.deals, bool) or not isinstance(t.deals, int) or t.deals < 2:
        raise TournamentError(f"deals = {t.deals!r}: at least 2 deals (a CI needs two)")
    from .limits import check_seed, check_threads
    check_seed(t.seed)
    check_threads(t.threads)
    eng = engine or runner.default_engine()
    try:
        names = tuple(eng.bot_name(s) for s in specs)
    except ValueError as e:                      # BotError, a fake engine's
        raise TournamentError(f"bots: {e}") from None
    if len(set(names)) < 2:
        same = "" if len(set(specs)) == 1 else f" ({', '.join(sorted(set(specs)))} are all {names[0]})"
        raise TournamentError(f"bots: the line-up {','.join(specs)} holds one distinct bot{same}; a tournament "
                              "compares at least two")
    k = len(runner.tournament_seatings(names))
    from .limits import MAX_GAMES, analysis_bytes, check_count, check_memory
    check_count("deals", t.deals, 2, MAX_GAMES // k,
                f"each deal is played in {k} seatings, and the dataset numbers games in 32 bits")
    per_deal = analysis_bytes(deals=1, columns=4 * len(set(names)))
    check_memory(f"deals = {t.deals:,}", t.deals * per_deal, per_deal, "deals")
    games = t.deals * k
    size = shard_size or -(-runner.default_shard_size(games) // k) * k       # whole deals per part file
    job = runner.Job(rules=t.rules, players=len(specs), bots=tuple(specs), games=games, seed=t.seed,
                     threads=t.threads, out=out, detail="hands", shard_size=size,
                     scheduler=t.scheduler, seating="tournament", diagnostic=bool(t.diagnostic))
    try:
        return runner.plan(job, engine)
    except ValueError as e:                      # JobError, RulesError, BotError
        raise TournamentError(str(e)) from None


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _versions() -> dict[str, str]:
    import platform
    import numba
    import pyarrow
    return {"shanghai_sim": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "numba": numba.__version__, "pyarrow": pyarrow.__version__}


OVERWRITE_HINT = "choose another --out, or add --overwrite to replace it"


def _value(key: str, v: Any) -> str:
    """A value of a dataset's job as a tournament's message shows it (never Python's None)."""
    from . import runner
    if v is None:
        return "not recorded"
    if key == "rules" and isinstance(v, dict):
        return str(v.get("name") or "a rules table")
    return runner._fmt_value(key, v)


def _check_out(out: str, plan, resume: bool, overwrite: bool = False) -> bool:
    """Refuse an output folder that holds something else, in the tournament's words (the runner
    then checks the parts). Nothing is written here. True when a dataset there is to be replaced
    (``overwrite``: a shanghai-sim dataset, a tournament or a `run`, never anything else)."""
    from . import runner
    from .dataset import MANIFEST, Store
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise TournamentError(f"output {out!r} is a file, not a folder")
    if not p.exists():
        return False
    names = [n for n in os.listdir(p) if not n.startswith(".")]
    if not names:
        return False
    if MANIFEST not in names:
        raise TournamentError(f"output {out!r} is not empty and holds no tournament; choose a new or empty folder")
    if overwrite:
        from .dataset import TABLES
        from .integrity import QUARANTINE
        foreign = sorted(set(names) - {MANIFEST, *TABLES, QUARANTINE, TOURNAMENT_FILE})
        if foreign:
            raise TournamentError(f"output {out!r} also holds {foreign[0]!r}, which is not part of a dataset; "
                                  "--overwrite only replaces a shanghai-sim dataset: choose a new or empty folder")
        return True
    m = runner.read_manifest(Store(os.path.abspath(out)))
    if m.get("job", {}).get("seating") != "tournament":
        raise TournamentError(f"output {out!r} holds a dataset that is not a tournament (a `run` or an "
                              f"experiment arm); {OVERWRITE_HINT}")
    k = plan.games_per_deal
    if runner.same_job(m, plan):
        if m.get("status") != "complete" and not resume:
            raise TournamentError(f"output {out!r} holds this tournament unfinished: add --resume to finish it, "
                                  "or --overwrite to start again")
        return False
    diffs = runner._differences(m, plan)
    if set(diffs) <= {"games", "shard_size"} and "games" in diffs:
        have, want = diffs["games"][0] // k, diffs["games"][1] // k
        if want < have:
            raise TournamentError(f"output {out!r} holds this tournament with more deals ({have:,} there, "
                                  f"{want:,} asked): a tournament cannot shrink; ask for {have:,} or more "
                                  "(or --overwrite to start again)")
        if not resume:
            raise TournamentError(f"output {out!r} holds this tournament with fewer deals ({have:,} there, "
                                  f"{want:,} asked): add --resume to extend it (the deals played are kept), "
                                  "or --overwrite to start again")
        return False
    shown = {key: ab for key, ab in diffs.items() if key != "shard_size"}
    if "games" in shown and len(shown) > 1:
        del shown["games"]              # games = deals x seatings: follows the line-up's change
    if "rules" in shown and len(shown) > 1 and _value("rules", shown["rules"][0]) == _value("rules", shown["rules"][1]):
        del shown["rules"]              # resolved with another player count: named by "players"
    what = "; ".join(f"the resolved rules differ (both called {_value(key, a)!r})"
                     if key == "rules" and _value(key, a) == _value(key, b)
                     else f"{key}: {_value(key, a)} there, {_value(key, b)} asked"
                     for key, (a, b) in shown.items()) or "its parts are cut differently"
    raise TournamentError(f"output {out!r} holds another tournament ({what}); {OVERWRITE_HINT}")


def _shard_size_there(out: str) -> int | None:
    """The shard size of a tournament already in ``out``: extending it keeps its part files."""
    try:
        m = json.loads((Path(out) / "manifest.json").read_text(encoding="utf-8"))
        if m["job"].get("seating") == "tournament":
            return int(m["job"]["shard_size"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def tournament_from_dataset(out: str, **changes: Any) -> Tournament:
    """The tournament recorded in ``out`` (``--resume`` with no bots given), ``changes`` on top."""
    from . import runner
    from .dataset import MANIFEST, Store
    if not (Path(out) / MANIFEST).is_file():
        raise TournamentError(f"{out!r} holds no tournament to resume; give --bots")
    m = runner.read_manifest(Store(os.path.abspath(out)))
    job = m.get("job", {})
    if job.get("seating") != "tournament":
        raise TournamentError(f"output {out!r} holds a dataset that is not a tournament; give --bots and "
                              "another --out")
    try:
        rules = runner.rules_from_dict(m["rules"])
    except (ValueError, KeyError, TypeError) as e:
        raise TournamentError(f"{out}/{MANIFEST}: its rules cannot be rebuilt ({e})") from None
    k = len(m["bots"]["seatings"])
    q: dict[str, Any] = {"bots": tuple(job["bots"]), "rules": rules, "deals": int(job["games"]) // k,
                         "seed": int(job["seed"])}
    q.update({key: v for key, v in changes.items() if v is not None})
    return Tournament(**q)


def _write_record(out: str, record: dict[str, Any]) -> None:
    from .dataset import write_json_atomic
    write_json_atomic(Path(out) / TOURNAMENT_FILE, record)


def run_tournament(t: Tournament, out: str = DEFAULT_OUT, *, resume: bool = False,
                   overwrite: bool = False, progress: TextIO | None = sys.stderr, engine=None,
                   executor: Callable | None = None) -> "TournamentResult":
    """Play the tournament into ``out`` (or finish or extend it, with ``resume``; or replace
    the dataset there, with ``overwrite``), write ``tournament.json`` and return the analysis."""
    from . import runner
    if resume and overwrite:
        raise TournamentError("--resume keeps the tournament in --out and --overwrite replaces it: give one")
    plan = plan_tournament(t, out, engine, shard_size=None if overwrite else _shard_size_there(out))
    wipe = _check_out(out, plan, resume, overwrite)
    if plan.games_per_deal < runner.distinct_seatings_count(plan.lineup) and progress is not None:
        progress.write(f"note: the line-up has {runner.distinct_seatings_count(plan.lineup):,} distinct seatings, "
                       f"more than {runner.MAX_TOURNAMENT_SEATINGS}: each deal is played in the "
                       f"{plan.players} rotations instead (every bot in every seat, not every arrangement)\n")
    warning = plan.rules.two_player_warning()
    if warning and progress is not None:
        progress.write(warning + "\n")
    if progress is not None:
        progress.write(f"tournament: {t.deals:,} deals x {plan.games_per_deal} seatings = {plan.games:,} games "
                       f"-> {out}\n")
        progress.flush()
    t0 = time.perf_counter()
    old = Path(out) / TOURNAMENT_FILE
    if wipe:
        # the record of the tournament replaced goes first (the runner replaces only a dataset's own
        # files); its manifest and parts are replaced by the runner once the new job has started.
        # Not while another run writes the folder (the runner would refuse, the record lost).
        from .dataset import Store
        try:
            runner.OutputLock(Store(os.path.abspath(out))).acquire().release()
        except runner.JobError as e:
            raise TournamentError(str(e)) from None
        old.unlink(missing_ok=True)
    try:
        rr = runner.run(plan, resume=not wipe, overwrite=wipe, progress=progress, engine=engine,
                        executor=executor)
    except runner.JobError as e:
        raise TournamentError(str(e)) from None
    result = analyse(out, level=t.level)
    seconds = time.perf_counter() - t0
    record = {"format": FORMAT, "package_version": __version__, "versions": _versions(), "updated": _now(),
              "dataset": "manifest.json (the job, the resolved rules, the seating table, every part)",
              "request": {"bots": list(t.bots), "players": t.players, "deals": t.deals, "seed": t.seed,
                          "rules": plan.rules_spec, "level": t.level},
              "seconds_this_call": round(seconds, 3), "games_played_this_call": rr.played,
              "result": result.to_dict()}
    if old.exists():
        try:
            record["created"] = json.loads(old.read_text(encoding="utf-8")).get("created", record["updated"])
        except (OSError, ValueError):
            pass
    record.setdefault("created", record["updated"])
    _write_record(out, record)
    return result


# ---------------------------------------------------------------- reading the dataset

@dataclass
class PerDeal:
    """Per deal and distinct bot: its mean over every seat it held in every seating."""
    points: np.ndarray         # [deals, bots] game points
    win_share: np.ndarray      # [deals, bots] win share per seat held (par 1/players)
    went_out: np.ndarray       # [deals, bots] share of its hands it went out in
    hands_played: int = 0      # hands of the table (every seating of every deal)
    no_winner: int = 0         # hands stopped by the stock rule (nobody went out)
    turn_cap: int = 0          # hands stopped by the turn cap


def per_deal(location: str, lineup: list[str], bots: list[str], k: int, hands: int, deals: int) -> PerDeal:
    """Stream the dataset's parts (checked, by columns) into per-deal means of each distinct bot."""
    import pyarrow as pa
    from .dataset import GAMES, HANDS
    from .integrity import iter_parts
    nb, n = len(bots), deals
    code = np.array([bots.index(s) for s in lineup], dtype=np.int64)      # line-up index -> bot
    seats = np.bincount(code, minlength=nb)
    cnt = np.zeros(n * nb, dtype=np.int64)
    pts = np.zeros(n * nb, dtype=np.int64)
    win = np.zeros(n * nb, dtype=np.int64)
    for _, t in iter_parts(location, GAMES, ["game", "player", "points", "win_share"]):
        d = t["game"].to_numpy().astype(np.int64) // k
        keep = d < n
        idx = (d * nb + code[t["player"].to_numpy().astype(np.int64)])[keep]
        cnt += np.bincount(idx, minlength=n * nb)
        pts += np.bincount(idx, t["points"].to_numpy().astype(np.int64)[keep], minlength=n * nb).astype(np.int64)
        w = np.rint(t["win_share"].to_numpy() * _WIN_UNIT).astype(np.int64)[keep]
        win += np.bincount(idx, w, minlength=n * nb).astype(np.int64)
    want = np.tile(seats * k, n)
    if not (cnt == want).all():
        raise TournamentError(f"{location}: {int((cnt != want).sum() // max(1, nb))} deal(s) lack some of their "
                              f"{k} seatings; finish the tournament with --resume")
    out = PerDeal((pts / want).reshape(n, nb), (win / (want * _WIN_UNIT)).reshape(n, nb), np.zeros((n, nb)))
    wo = np.zeros(n * nb, dtype=np.int64)
    for _, t in iter_parts(location, HANDS, ["game", "player", "went_out", "ended"]):
        d = t["game"].to_numpy().astype(np.int64) // k
        keep = d < n
        player = t["player"].to_numpy().astype(np.int64)
        idx = (d * nb + code[player])[keep]
        wo += np.bincount(idx, t["went_out"].to_numpy(zero_copy_only=False).astype(np.int64)[keep],
                          minlength=n * nb).astype(np.int64)
        first = keep & (player == 0)              # one row per hand: the seat of line-up player 0
        ended = t["ended"].cast(pa.string()).to_numpy(zero_copy_only=False)[first]
        out.hands_played += int(first.sum())
        out.no_winner += int((ended == "stock").sum())
        out.turn_cap += int((ended == "turn_cap").sum())
    out.went_out = (wo / (want * hands)).reshape(n, nb)
    return out


# ---------------------------------------------------------------- the analysis

MEASURES = ("points", "win_share", "went_out")
LABELS = {"points": "points per game", "win_share": "win share per seat", "went_out": "share of hands out"}

MULTIPLICITY = (
    "The 95% CIs are per comparison (unadjusted). p_holm are Holm-adjusted p-values in two families: "
    "the primary one, each bot's game-points difference against the first-named bot, on which each "
    "bot's sentence rests; and a secondary one, every other difference (win share, share of hands "
    "gone out), for every bot. Each bot's own figures (not differences) carry plain 95% CIs over the deals.")


@dataclass
class BotResult:
    bot: str                       # canonical spec
    seats: int                     # seats it holds in the line-up
    deals: int
    games: int                     # games it played (deals x seatings)
    figures: dict[str, Effect]     # its own mean per deal, CI over deals (a paired effect against 0)
    effects: dict[str, Effect] | None = None     # against the first-named bot; None for it
    p_holm: dict[str, float | None] = field(default_factory=dict)
    verdict: str = ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"bot": self.bot, "seats": self.seats, "deals": self.deals, "games": self.games,
                             "figures": {k: {"mean": e.as_dict()["mean"], "ci": e.as_dict()["ci"], "n": e.n}
                                         for k, e in self.figures.items()}}
        d["against_first"] = None if self.effects is None else {
            k: dict(e.as_dict(), p_holm=self.p_holm.get(k)) for k, e in self.effects.items()}
        d["verdict"] = self.verdict
        return d


@dataclass
class TournamentResult:
    out: str
    design: dict[str, Any]
    deals: int
    bots: list[BotResult]
    hands_played: int
    no_winner_hands: int
    turn_cap_hands: int
    multiplicity: str = MULTIPLICITY
    diagnostic: list[str] = field(default_factory=list)    # bots.diagnostic_marks: a bot that cheats played

    def to_dict(self) -> dict[str, Any]:
        return {**({"diagnostic": self.diagnostic} if self.diagnostic else {}),
                "out": self.out, "design": self.design, "deals": self.deals,
                "unit": "deal: each bot's mean over every seat it held in every seating of one seed",
                "hands_played": self.hands_played, "no_winner_hands": self.no_winner_hands,
                "turn_cap_hands": self.turn_cap_hands, "bots": [b.to_dict() for b in self.bots],
                "multiplicity": self.multiplicity}

    def frame(self):
        """A tidy table: one row per bot, its figures and its differences against the first-named bot."""
        import pandas as pd
        rows = []
        for b in self.bots:
            r: dict[str, Any] = {"bot": b.bot, "seats": b.seats, "deals": b.deals, "games": b.games}
            for k, e in b.figures.items():
                r.update({k: e.mean, f"{k}_lo": e.lo, f"{k}_hi": e.hi})
            for k in MEASURES:
                e = (b.effects or {}).get(k)
                r.update({f"d_{k}": e.mean if e else None, f"d_{k}_lo": e.lo if e else None,
                          f"d_{k}_hi": e.hi if e else None, f"d_{k}_p_holm": b.p_holm.get(k)})
            rows.append(r)
        return pd.DataFrame(rows)

    def text(self) -> str:
        return format_result(self)


def analyse(out: str, level: float = 0.95) -> TournamentResult:
    """Read the tournament in ``out`` (its manifest and parts) and compare the bots by deal."""
    from . import runner
    from .dataset import MANIFEST, Store
    if not (Path(out) / MANIFEST).is_file():
        raise TournamentError(f"{out!r} holds no tournament ({MANIFEST} missing)")
    m = runner.read_manifest(Store(os.path.abspath(out)))
    job = m["job"]
    if job.get("seating") != "tournament":
        raise TournamentError(f"{out!r} holds a dataset that is not a tournament")
    lineup = list(job["bots"])
    seatings = m["bots"]["seatings"]
    k, players = len(seatings), int(job["players"])
    if m.get("status") != "complete":
        raise TournamentError(f"{out!r}: the tournament is unfinished (status {m.get('status') or 'not recorded'}); "
                              f"finish it with "
                              f"`shanghai-sim tournament --resume --out {out}`")
    deals = int(job["games"]) // k
    bots = list(dict.fromkeys(lineup))
    hands = len(m["rules"]["contracts"])
    d = per_deal(out, lineup, bots, k, hands, deals)
    res: list[BotResult] = []
    zero = np.zeros(deals)
    for i, b in enumerate(bots):
        figs = {"points": d.points[:, i], "win_share": d.win_share[:, i], "went_out": d.went_out[:, i]}
        # a one-sample t interval is the paired interval against 0
        br = BotResult(b, lineup.count(b), deals, deals * k, {key: paired_effect(v, zero, level)
                                                              for key, v in figs.items()})
        if i:
            ref = {"points": d.points[:, 0], "win_share": d.win_share[:, 0], "went_out": d.went_out[:, 0]}
            br.effects = {key: paired_effect(figs[key], ref[key], level) for key in MEASURES}
        res.append(br)
    others = res[1:]
    for b, p in zip(others, holm([b.effects["points"].p for b in others])):
        b.p_holm["points"] = p
    sec = [(b, key) for b in others for key in MEASURES if key != "points"]
    for (b, key), p in zip(sec, holm([b.effects[key].p for b, key in sec])):
        b.p_holm[key] = p
    design = {"bots": lineup, "distinct_bots": bots, "reference": bots[0], "players": players,
              "rules": job["rules"], "seed": int(job["seed"]), "seatings": seatings,
              "seating": m["bots"]["seating"], "games_per_deal": k,
              "deal_seed": m["seeds"]["game_seed"], "package_version": m.get("package_version"),
              "status": m.get("status"), "level": level}
    for b in res:
        b.verdict = verdict(b, res[0], design, level)
    from .bots import diagnostic_marks
    return TournamentResult(out, design, deals, res, d.hands_played, d.no_winner, d.turn_cap,
                            diagnostic=diagnostic_marks(bots))


def _p_text(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"= {p:.2g}"


def verdict(b: BotResult, ref: BotResult, design: dict[str, Any], level: float) -> str:
    """One sentence: what the data shows about this bot, or that it cannot tell."""
    pct, par = f"{level:.0%}", 1 / design["players"]
    w = b.figures["win_share"]
    wtext = f"win share per seat held {w.mean:.3f} ({pct} CI {w.lo:.3f} to {w.hi:.3f}; par {par:.3f})"
    if b.effects is None:
        return (f"{b.bot} is the reference: each other bot is compared with it on the same deals; its "
                f"{wtext}, {b.figures['points'].mean:.1f} points a game.")
    e, p = b.effects["points"], b.p_holm.get("points")
    if e.sd == 0 and e.mean == 0:
        return (f"{b.bot} scored exactly as {ref.bot} on every one of the {e.n:,} deals (difference 0, "
                "zero-width CI): on these deals the two played alike.")
    ci = f"{pct} CI {e.lo:+.1f} to {e.hi:+.1f}, n = {e.n:,} deals"
    if p is not None and p < 1 - level and not e.covers_zero():
        better = e.mean < 0
        dw = b.effects["win_share"]
        return (f"{b.bot} scores {abs(e.mean):.1f} {'fewer' if better else 'more'} points a game than "
                f"{ref.bot} on the same deals ({ci}, Holm-adjusted p {_p_text(p)}), so it is "
                f"{'stronger' if better else 'weaker'} (lowest total wins); its {wtext}, "
                f"a difference of {dw.mean:+.3f} from {ref.bot}'s ({pct} CI {dw.lo:+.3f} to {dw.hi:+.3f}).")
    return (f"The data cannot tell {b.bot} from {ref.bot} on points: {e.mean:+.1f} a game ({ci}"
            f"{'' if p is None else f', Holm-adjusted p {_p_text(p)}'}); its {wtext}.")


def _ci(e: Effect, digits: int, sign: bool = False) -> str:
    f = f"{'+' if sign else ''}.{digits}f"
    if not math.isfinite(e.lo):
        return f"{e.mean:{f}} [n too small]"
    return f"{e.mean:{f}} [{e.lo:{f}}, {e.hi:{f}}]"


def _seating_words(bots: "list[str]", k: int) -> str:
    """The design line in a reader's words (the manifest keeps the formula)."""
    distinct = math.factorial(len(bots))
    for c in Counter(bots).values():
        distinct //= math.factorial(c)
    if k < distinct:
        return (f"the line-up rotated through the seats ({distinct:,} distinct seatings would be "
                "too many), so every bot plays every seat of every deal")
    return "every distinct seating of the line-up, so seat and dealer luck cancel"


def format_result(r: TournamentResult) -> str:
    d = r.design
    k = d["games_per_deal"]
    lines = [*r.diagnostic,
             f"tournament: {','.join(d['bots'])}; {d['players']} players, rules {d['rules']}, seed {d['seed']}",
             f"{r.deals:,} deals, each played in {k} seatings ({r.deals * k:,} games): {_seating_words(d['bots'], k)}",
             f"hands: {r.hands_played:,}; nobody out (stock) {r.no_winner_hands:,} "
             f"({r.no_winner_hands / max(1, r.hands_played):.1%}); turn cap {r.turn_cap_hands:,}", ""]
    w = max(len(b.bot) for b in r.bots)
    lines.append(f"{'bot':<{w}}  seats  {'win share/seat [95% CI]':<25}  {'points/game [95% CI]':<24}  "
                 f"{'hands out':<9}")
    for b in r.bots:
        lines.append(f"{b.bot:<{w}}  {b.seats:>5}  {_ci(b.figures['win_share'], 3):<25}  "
                     f"{_ci(b.figures['points'], 1):<24}  {b.figures['went_out'].mean:>9.3f}")
    lines.append(f"(par win share {1 / d['players']:.3f} per seat held; points: lower is better; hands out: "
                 "the share of its hands the bot went out in)")
    lines.append("")
    lines.append(f"against {d['reference']} on the same deals (bot - {d['reference']}, per deal, mean [95% CI]):")
    lines.append(f"{'bot':<{w}}  {'points/game':<26}  {'p_holm':>7}  {'win share/seat':<26}  {'hands out':<26}")
    for b in r.bots[1:]:
        e = b.effects
        ph = b.p_holm.get("points")
        lines.append(f"{b.bot:<{w}}  {_ci(e['points'], 1, True):<26}  "
                     f"{'' if ph is None else ('<0.0001' if ph < 1e-4 else f'{ph:.2g}'):>7}  "
                     f"{_ci(e['win_share'], 3, True):<26}  {_ci(e['went_out'], 3, True):<26}")
    lines.append(f"n = {r.deals:,} deals for every figure")
    lines.append("")
    lines += [b.verdict for b in r.bots]
    lines += ["", f"multiplicity: {r.multiplicity}",
              "stopped hands count as played: every player scores what they hold (docs/rules.md §5.5-5.6)."]
    return "\n".join(lines)
