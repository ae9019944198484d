"""Paired experiments: does one change make the focal player better? (docs/experiments.md)

An ``Experiment`` has a baseline arm and variant arms. In every arm the focal
player (player 0) plays the arm's bot spec and the other seats play the
opponents' spec; a rules arm keeps the bots and changes rules options. The
design follows docs/experiments.md:

- common random numbers: every arm plays the same game seeds
  (``game_seed_nb(seed, k)`` for deal k = 0..n-1);
- duplicate seating: each seed is played once with the focal player in each
  seat (``runner`` seating ``"duplicate"``: game g is deal g // players with the
  line-up rotated g % players seats), so deal and seat luck cancel;
- the unit of every CI is the deal (seed): the focal player's mean over its
  seatings, differenced against the baseline's on the same deal.

Each arm is an ordinary runner job (threads, Dask, resume, verify and the
Parquet layout of docs/dataset.md), written to ``OUT/arms/<i>-<name>/``;
``OUT/experiment.json`` records the design, the seeds and the versions.

The analysis streams the part files by columns (``integrity.iter_parts``) and
keeps one number per deal and measure, never a whole dataset.

A short script asks its own question::

    from shanghai_sim.experiment import Arm, Experiment, run_experiment
    exp = Experiment(baseline="greedy", variants=(Arm("never buys in 8", "greedy:buy8=never"),),
                     games=500, hand=8)
    res = run_experiment(exp, "buy8-out")
    print(res.text())
    df = res.effects_frame()        # one row per variant and measure: mean, lo, hi, n, ...
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import re
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

import numpy as np

from . import __version__
from .stats import Effect, holm, paired_effect

DEFAULT_OUT = "shanghai-experiment"
DEFAULT_GAMES = 200            # deals per arm (each played once per seat)
PILOT_GAMES = 200              # first round of a --target-ci run (or --max-games if fewer)
EXPERIMENT_FILE = "experiment.json"
ARMS_DIR = "arms"
FORMAT = "shanghai-sim experiment"


class ExperimentError(ValueError):
    """An experiment that cannot run as asked: one line naming the problem."""


# ---------------------------------------------------------------- the design

@dataclass(frozen=True)
class Arm:
    """One arm: the focal player's bot spec, or rules options changed (not both).

    ``bot`` None: the baseline's spec. ``rules``: options of docs/rules.md §3
    applied on top of the experiment's rules, as (key, value) pairs or a dict.
    """
    name: str
    bot: str | None = None
    rules: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        if isinstance(self.rules, dict):
            object.__setattr__(self, "rules", tuple(self.rules.items()))
        if not isinstance(self.name, str) or not self.name.strip():
            raise ExperimentError(f"an arm needs a name (got {self.name!r})")


def as_arm(v: "str | Arm") -> Arm:
    """A bot spec ``"greedy:buy8=never"`` is an arm named after itself."""
    return v if isinstance(v, Arm) else Arm(str(v), str(v))


@dataclass(frozen=True)
class Experiment:
    """What is asked. ``games``: deals per arm, each played once per seat (an arm plays
    ``games * players`` games); with ``target_ci``, rounds run until the CI half-width
    of every variant's game-points difference is at most ``target_ci`` points, or
    ``max_games`` deals. ``hand``: play only that hand of each deal (docs/experiments.md)."""
    baseline: str = "greedy"
    variants: tuple[Arm, ...] = ()
    opponents: str | None = None      # None: the baseline's spec
    rules: Any = "shanghai"           # preset name, rules file, or Rules
    players: int | None = None        # None: the rules' default
    games: int | None = None          # None: DEFAULT_GAMES (or the pilot, with target_ci)
    seed: int = 1
    hand: int | None = None
    target_ci: float | None = None
    max_games: int | None = None
    threads: int | None = None
    scheduler: str | None = None
    level: float = 0.95

    def __post_init__(self):
        object.__setattr__(self, "variants", tuple(as_arm(v) for v in self.variants))

    @property
    def arms(self) -> tuple[Arm, ...]:
        return (Arm("baseline", self.baseline),) + self.variants


def one_hand_rules(rules, n: int):
    """The rules with hand ``n``'s contract as the only hand (its deal size and buys)."""
    if not 1 <= n <= rules.hands:
        raise ExperimentError(f"hand = {n}: the rules {rules.name!r} have hands 1..{rules.hands}")
    return rules.replace(contracts=(rules.contracts[n - 1],), buys_per_hand=(rules.buys_per_hand[n - 1],),
                         name=f"{rules.name} (hand {n} only)")


def _per_hand_prefixes() -> set[str]:
    from .bots import BOTS
    return {p.key for info in BOTS.values() for p in info.params if p.per_hand}


def one_hand_spec(spec: str, n: int) -> tuple[str, list[str]]:
    """Map a bot spec's per-hand parameters to a game of hand ``n`` only: ``buyN=`` becomes
    ``buy1=``, those of other hands are dropped. Returns (spec, dropped parameters)."""
    prefixes = _per_hand_prefixes()
    parts = [s.strip() for s in spec.split(":")]
    out, dropped = [parts[0]], []
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        m = re.fullmatch(r"([a-z_]+?)(\d+)", key.strip().lower())
        if eq and m and m.group(1) in prefixes:
            if int(m.group(2)) == n:
                out.append(f"{m.group(1)}1={value}")
            else:
                dropped.append(part)
        else:
            out.append(part)
    return ":".join(out), dropped


def _single_spec(spec: str, what: str) -> str:
    from .bots import BotError, split_specs
    try:
        specs = split_specs(spec)
    except BotError as e:
        raise ExperimentError(f"{what}: {e}") from None
    if len(specs) != 1:
        raise ExperimentError(f"{what}: {spec!r} is {len(specs)} specs; an arm's bot is the focal player's "
                              "one spec (the other seats play --opponents)")
    return specs[0]


@dataclass(frozen=True)
class ArmPlan:
    arm: Arm
    spec: str                 # canonical spec of the focal player, as asked
    folder: str               # relative to OUT
    plan: Any                 # runner.Plan
    notes: tuple[str, ...] = ()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", name).strip("_")[:60] or "arm"


def _base_rules(exp: Experiment):
    from .rules import RulesError, load_rules
    try:
        return load_rules(exp.rules)
    except (RulesError, OSError) as e:
        players = exp.players if isinstance(exp.players, int) and not isinstance(exp.players, bool) else None
        if players is not None and isinstance(e, RulesError):
            try:    # a rules file that fits the count played, not its base preset's
                return load_rules(exp.rules, players=players)
            except (RulesError, OSError):
                pass
        raise ExperimentError(f"rules: {e}") from None


def _shard_size(exp: Experiment, players: int) -> int:
    from .runner import default_shard_size
    cap = (exp.max_games if exp.target_ci is not None else exp.games) or DEFAULT_GAMES
    s = default_shard_size(cap * players)
    return -(-s // players) * players           # whole deals per part file


def _check_sizes(exp: Experiment) -> None:
    """The shared checks of seeds, threads and sizes (``limits``), before anything is planned:
    an arm's games (deals x players) fit the dataset's uint32 game column, and every arm's
    per-deal analysis fits in memory."""
    from .limits import MAX_GAMES, analysis_bytes, check_count, check_memory, check_seed, check_threads
    check_seed(exp.seed)
    check_threads(exp.threads)
    rules = _base_rules(exp)
    players = exp.players if isinstance(exp.players, int) and not isinstance(exp.players, bool) else rules.players
    players = max(2, players)
    hands = 1 if exp.hand is not None else rules.hands
    for key, v in (("games", exp.games), ("max_games", exp.max_games)):
        if v is None:
            continue
        check_count(key, v, 2, MAX_GAMES // players,
                    f"deals per arm, each played once per seat of {players}, and the dataset numbers games in 32 bits")
        per_deal = analysis_bytes(deals=1, columns=(3 + 2 * hands)) * len(exp.arms)
        check_memory(f"{key} = {v:,}", v * per_deal, per_deal, "deals per arm")


def plan_arms(exp: Experiment, out: str, deals: int, engine=None) -> list[ArmPlan]:
    """Resolve every arm into a runner plan for ``deals`` deals. Checks everything (bot
    specs, rules options, pairing) before anything is written: ExperimentError."""
    from .rules import RulesError, overrides
    from . import runner
    if not exp.variants:
        raise ExperimentError("no variant: give at least one --variant SPEC (or --variant-rules FILE)")
    names = [a.name for a in exp.arms]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ExperimentError(f"two arms are named {dup[0]!r}: name each arm once")
    if exp.hand is not None and (isinstance(exp.hand, bool) or not isinstance(exp.hand, int)):
        raise ExperimentError(f"hand = {exp.hand!r}: expected a hand number")
    base_rules = _base_rules(exp)
    players = exp.players or base_rules.players
    _single_spec(exp.baseline, "baseline")                 # one spec, not a line-up
    opponents = _single_spec(exp.opponents or exp.baseline, "opponents")
    out_abs = os.path.abspath(out)
    size = _shard_size(exp, players)
    plans: list[ArmPlan] = []
    for i, arm in enumerate(exp.arms):
        where = f"arm {arm.name!r}"
        if arm.bot is not None and arm.rules and arm.bot != exp.baseline:
            raise ExperimentError(f"{where} changes both the focal bot and the rules; an arm changes one "
                                  "thing (docs/experiments.md): make them two arms")
        keys = {k for k, _ in arm.rules}
        if keys & {"players", "base", "name"}:
            bad = sorted(keys & {"players", "base", "name"})[0]
            raise ExperimentError(f"{where}: rules option {bad!r} cannot differ between arms (arms pair by "
                                  "deal and seat, so they share the table); run another experiment for it")
        focal = _single_spec(arm.bot if arm.bot is not None else exp.baseline, where)
        rules = base_rules
        if arm.rules:
            try:
                rules = overrides(base_rules, dict(arm.rules), where=where)
            except RulesError as e:
                raise ExperimentError(str(e)) from None
            label = ", ".join(f"{k}={v}" for k, v in arm.rules)
            rules = rules.replace(name=f"{base_rules.name} ({label})")
        notes: list[str] = []
        lineup = [focal] + [opponents] * (players - 1)
        if exp.hand is not None:
            if engine is None:               # the spec as asked must suit the whole game's hands
                from .bots import BotError, parse_bot
                try:
                    parse_bot(focal, rules.hands)
                except BotError as e:
                    raise ExperimentError(f"{where}: bots: {e}") from None
            rules = one_hand_rules(rules, exp.hand)
            mapped = []
            for s in lineup:
                m, dropped = one_hand_spec(s, exp.hand)
                mapped.append(m)
                if dropped and s is focal:
                    notes.append(f"{where}: {', '.join(dropped)} does nothing when only hand {exp.hand} is played")
            lineup = mapped
        job = runner.Job(rules=rules, players=players, bots=tuple(lineup), games=deals * players,
                         seed=exp.seed, threads=exp.threads, out=os.path.join(out_abs, ARMS_DIR, f"{i}-{_slug(arm.name)}"),
                         detail="hands", shard_size=size, scheduler=exp.scheduler, seating="duplicate")
        try:
            plan = runner.plan(job, engine)
        except ValueError as e:                    # JobError, RulesError, BotError, a fake engine's
            raise ExperimentError(f"{where}: {e}") from None
        asked = (engine or runner.default_engine()).bot_name(focal) if exp.hand is not None else plan.lineup[0]
        if plans and _same_play(plan, plans[0].plan):
            notes.append(f"{where} is identical to the baseline (the same rules once resolved and the "
                         f"same bots once canonicalised): an A/A check, it measures nothing")
        plans.append(ArmPlan(arm, asked, os.path.join(ARMS_DIR, f"{i}-{_slug(arm.name)}"), plan,
                             tuple(notes)))
    return plans        # rules arms with other contracts: hands are compared where both have them


def _rules_key(rules: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rules.items() if k != "name"}


def _same_play(a, b) -> bool:
    """Two arms' plans play the same games: equal resolved rules (the name aside) and line-up."""
    return tuple(a.lineup) == tuple(b.lineup) and _rules_key(a.rules.to_dict()) == _rules_key(b.rules.to_dict())


def identity(exp: Experiment, plans: list[ArmPlan]) -> dict[str, Any]:
    """What defines the rows of an experiment: equal identities, equal datasets."""
    return {"players": plans[0].plan.players, "seed": exp.seed, "hand": exp.hand,
            "shard_size": plans[0].plan.shard_size,
            "arms": [{"name": p.arm.name, "focal": p.spec, "lineup": list(p.plan.lineup),
                      "rules_changed": {k: v for k, v in p.arm.rules}, "rules": p.plan.rules.to_dict(),
                      "folder": p.folder} for p in plans]}


def _versions() -> dict[str, str]:
    import numba
    import pyarrow
    return {"shanghai_sim": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "numba": numba.__version__, "pyarrow": pyarrow.__version__}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- the output folder

def _read_record(out: str) -> dict[str, Any] | None:
    p = Path(out) / EXPERIMENT_FILE
    if not p.exists():
        return None
    try:
        rec = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ExperimentError(f"{p} cannot be read ({e}); choose another --out") from None
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        raise ExperimentError(f"{p} is not a shanghai-sim experiment record; choose another --out")
    return rec


def _hand_words(hand: Any) -> str:
    return "whole games" if hand is None else f"hand {hand} only"


def _identity_value(key: str, v: Any) -> str:
    """A value of an experiment's identity as a message shows it (never Python's None)."""
    if key == "hand":
        return _hand_words(v)
    if v is None:
        return "not recorded"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def _describe_other(old: dict[str, Any], ident: dict[str, Any]) -> str:
    """What differs between the experiment recorded in a folder and the one asked, in words:
    "hand: whole games there, hand 8 only asked"."""
    diff = [k for k in ident if old.get(k) != ident[k]]
    what = diff[0] if diff else "design"
    if what == "arms":
        a, b = old.get("arms") or [], ident["arms"]

        def arm(x: dict) -> str:
            return f"{x.get('name', '?')!r} ({x.get('focal') or '?'})"

        def rules(x: dict) -> str:
            r = x.get("rules")
            return str(r.get("name") or "?") if isinstance(r, dict) else "?"
        for i, (x, y) in enumerate(zip(a, b)):
            if x == y:
                continue
            if (x.get("name"), x.get("focal")) != (y.get("name"), y.get("focal")):
                return f"arm {i}: {arm(x)} there, {arm(y)} asked"
            if x.get("lineup") != y.get("lineup"):
                return (f"arm {i} {arm(y)}: line-up {','.join(x.get('lineup') or ['?'])} there, "
                        f"{','.join(y['lineup'])} asked")
            if rules(x) != rules(y):
                return f"arm {i} {arm(y)}: rules {rules(x)} there, {rules(y)} asked"
            if x.get("rules") != y.get("rules"):
                return f"arm {i} {arm(y)}: the resolved rules differ (both called {rules(y)!r})"
            return f"arm {i} {arm(y)}: its output folder differs"
        return f"{len(a)} arms there, {len(b)} asked"
    if what == "design":
        return "its design differs"
    return f"{what}: {_identity_value(what, old.get(what))} there, {_identity_value(what, ident[what])} asked"


OVERWRITE_HINT = "choose another --out, or add --overwrite to replace it"


def _check_out(out: str, ident: dict[str, Any], deals: int, exp: Experiment, resume: bool,
               overwrite: bool = False) -> tuple[dict | None, bool]:
    """Refuse an output folder that would lose or mix data. Returns the record there (None when
    the experiment starts afresh) and whether the experiment there is to be replaced first
    (``overwrite``: only an experiment, never a folder holding anything else)."""
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise ExperimentError(f"output {out!r} is a file, not a folder")
    if not p.exists():
        return None, False
    names = [n for n in os.listdir(p) if not n.startswith(".")]
    if not names:
        return None, False
    if EXPERIMENT_FILE not in names:
        raise ExperimentError(f"output {out!r} is not empty and holds no experiment ({EXPERIMENT_FILE}); "
                              "choose a new or empty folder")
    if overwrite:
        if (p / EXPERIMENT_FILE).is_dir():
            raise ExperimentError(f"output {out!r}: its {EXPERIMENT_FILE} is a folder, not an experiment record; "
                                  "--overwrite only replaces a shanghai-sim experiment: choose a new or empty folder")
        foreign = sorted(set(names) - {EXPERIMENT_FILE, ARMS_DIR})
        if foreign:
            raise ExperimentError(f"output {out!r} also holds {foreign[0]!r}, which is not part of an "
                                  "experiment; --overwrite only replaces a shanghai-sim experiment: "
                                  "choose a new or empty folder")
        try:
            rec = json.loads((p / EXPERIMENT_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            rec = None                     # damaged: ours by its name and layout, replaced
        if isinstance(rec, dict) and rec.get("format") not in (None, FORMAT):
            raise ExperimentError(f"{p / EXPERIMENT_FILE} is not a shanghai-sim experiment record; "
                                  "--overwrite only replaces a shanghai-sim experiment: choose another --out")
        return None, True
    rec = _read_record(out)
    if rec.get("package_version") != __version__:
        there = rec.get("package_version")
        there = f"shanghai-sim {there}" if there else "a shanghai-sim that did not record its version"
        raise ExperimentError(f"output {out!r} was written by {there} (this is {__version__}); "
                              f"{OVERWRITE_HINT}")
    old = rec.get("identity", {})
    if old != ident:
        raise ExperimentError(f"output {out!r} holds another experiment ({_describe_other(old, ident)}); "
                              f"{OVERWRITE_HINT}")
    have = int(rec.get("games") or 0)
    if exp.target_ci is None:
        if deals < have:
            raise ExperimentError(f"output {out!r} holds this experiment with more deals ({have:,} there, "
                                  f"{deals:,} asked): an experiment cannot shrink; ask for {have:,} or more "
                                  "(or --overwrite to start again)")
        if (deals > have or rec.get("status") != "complete") and not resume:
            what = ("unfinished" if rec.get("status") != "complete"
                    else f"with fewer deals ({have:,} there, {deals:,} asked)")
            raise ExperimentError(f"output {out!r} holds this experiment {what}: add --resume to "
                                  "continue it (the deals already played are kept), or --overwrite to start again")
    elif rec.get("status") != "complete" and not resume:
        raise ExperimentError(f"output {out!r} holds this experiment unfinished: add --resume to continue it, "
                              "or --overwrite to start again")
    return rec, False


def _replace(out: str) -> None:
    """``--overwrite``: remove the experiment in ``out`` (its arms first, its record last, so a
    stop half-way leaves a folder that ``--overwrite`` still recognises and replaces)."""
    import shutil

    from .dataset import Store
    from .runner import JobError, OutputLock
    arms = Path(out) / ARMS_DIR
    if arms.is_dir() and not arms.is_symlink():
        for arm in sorted(p for p in arms.iterdir() if p.is_dir() and not p.is_symlink()):
            try:                           # an arm another run is writing is not pulled from under it
                OutputLock(Store(str(arm))).acquire().release()
            except JobError as e:
                raise ExperimentError(f"--overwrite: {e}") from None
        shutil.rmtree(arms)
    elif arms.exists() or arms.is_symlink():
        arms.unlink()
    (Path(out) / EXPERIMENT_FILE).unlink(missing_ok=True)


# ---------------------------------------------------------------- running

def run_experiment(exp: Experiment, out: str = DEFAULT_OUT, *, resume: bool = False,
                   overwrite: bool = False, progress: TextIO | None = sys.stderr, engine=None,
                   executor: Callable | None = None) -> "Result":
    """Run every arm (in rounds, with ``target_ci``) into ``out`` and analyse them.

    Everything is checked before anything is written; an interrupted experiment
    continues with ``resume`` (each arm resumes like ``run --resume``); ``overwrite``
    replaces an experiment already in ``out`` (any other, or this one, started again).
    """
    from . import runner
    if exp.target_ci is not None:
        if exp.max_games is None:
            raise ExperimentError("--target-ci needs a cap: add --max-games N (deals per arm)")
        if exp.games is not None:
            raise ExperimentError("give --games N or --target-ci X with --max-games N, not both")
        if not exp.target_ci > 0:
            raise ExperimentError(f"--target-ci {exp.target_ci}: must be a positive number of points")
    elif exp.max_games is not None:
        raise ExperimentError("--max-games goes with --target-ci X (or give --games N)")
    for key, v in (("games", exp.games), ("max_games", exp.max_games)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise ExperimentError(f"{key} = {v!r}: expected a whole number of deals")
        if v is not None and v < 2:
            raise ExperimentError(f"{key} = {v!r}: at least 2 deals (a CI needs two)")
    _check_sizes(exp)
    if exp.target_ci is not None:
        deals = min(exp.max_games, PILOT_GAMES)
    else:
        deals = exp.games or DEFAULT_GAMES
    plans = plan_arms(exp, out, deals, engine)
    ident = identity(exp, plans)
    if resume and overwrite:
        raise ExperimentError("--resume keeps the experiment in --out and --overwrite replaces it: give one")
    old, wipe = _check_out(out, ident, deals, exp, resume, overwrite)
    if exp.target_ci is not None and old is not None:
        deals = max(deals, min(int(old.get("games") or 0), exp.max_games))
    for p in plans:
        for note in p.notes:
            if progress is not None:
                progress.write(f"note: {note}\n")
    warning = plans[0].plan.rules.two_player_warning()
    if warning and progress is not None:
        progress.write(warning + "\n")
    record = dict(old) if old is not None else {
        "format": FORMAT, "package_version": __version__, "created": _now(), "identity": ident,
        "design": {"baseline": exp.baseline, "opponents": exp.opponents or exp.baseline,
                   "rules": plans[0].plan.rules_spec if exp.hand is None else plans[0].plan.rules.name,
                   "players": plans[0].plan.players, "hand": exp.hand, "level": exp.level,
                   "seating": "duplicate: each deal once per seat of the focal player"},
        "seeds": {"seed": exp.seed, "deal_seed": "shanghai_sim.kernels.base.rng.game_seed_nb(seed, deal)",
                  "games_per_deal": plans[0].plan.players},
        "rounds": [], "games": 0}
    record["versions"] = _versions()
    record["request"] = request(exp)
    record["status"] = "running"
    record["target_ci"] = exp.target_ci
    record["max_games"] = exp.max_games
    if wipe:
        _replace(out)
    Path(out).mkdir(parents=True, exist_ok=True)
    _write_record(out, record)
    t0 = time.perf_counter()
    stopped = None
    measure = "game-points" if exp.hand is None else f"hand-{exp.hand}-points"
    while True:
        plans = plan_arms(exp, out, deals, engine) if plans[0].plan.games != deals * plans[0].plan.players else plans
        for i, p in enumerate(plans):
            if progress is not None:
                progress.write(f"arm {i + 1}/{len(plans)} {p.arm.name!r} ({p.spec}): {deals:,} deals x "
                               f"{p.plan.players} seats -> {p.folder}\n")
                progress.flush()
            try:
                runner.run(p.plan, resume=True, progress=progress, engine=engine, executor=executor)
            except runner.JobError as e:
                raise ExperimentError(f"arm {p.arm.name!r}: {e}") from None
        if record["games"] != deals or not record["rounds"]:
            record["rounds"].append({"games": deals, "ended": _now()})
        record["games"] = deals
        _write_record(out, record)
        result = analyse(out, _record=record)
        if exp.target_ci is None:
            break
        hw = max(a.effects["points"].half_width for a in result.arms if a.effects)
        if hw <= exp.target_ci:
            stopped = (f"target reached: the widest {measure} CI half-width is {hw:.2f} <= {exp.target_ci:g} "
                       f"points after {deals:,} deals")
            break
        if deals >= exp.max_games:
            stopped = (f"--max-games reached ({deals:,} deals): the widest {measure} CI half-width is "
                       f"{hw:.2f} points, wider than the target {exp.target_ci:g}")
            break
        # Size the next round from the paired variance seen so far (size from a pilot).
        need = math.ceil(1.1 * deals * (hw / exp.target_ci) ** 2)
        deals = min(exp.max_games, max(need, deals + max(1, deals // 4)))
        if progress is not None:
            progress.write(f"CI half-width {hw:.2f} > {exp.target_ci:g} points: next round to {deals:,} deals\n")
    record["status"] = "complete"
    record["stopped"] = stopped
    record["seconds"] = round(float(record.get("seconds", 0.0)) + time.perf_counter() - t0, 3)
    _write_record(out, record)
    result.stopped = stopped
    return result


def request(exp: Experiment) -> dict[str, Any]:
    """The experiment as asked, in plain data (``experiment_from_record`` reads it back)."""
    return {"baseline": exp.baseline, "opponents": exp.opponents,
            "variants": [{"name": a.name, "bot": a.bot, "rules": dict(a.rules)} for a in exp.variants],
            "rules": _base_rules(exp).to_dict(), "players": exp.players, "games": exp.games, "seed": exp.seed,
            "hand": exp.hand, "target_ci": exp.target_ci, "max_games": exp.max_games}


def experiment_from_record(out: str, **changes: Any) -> Experiment:
    """The experiment recorded in ``out`` (to continue it: ``--resume`` with no arms given),
    with ``changes`` (e.g. more ``games``, ``threads``) on top."""
    from .runner import rules_from_dict
    rec = _read_record(out)
    if rec is None or "request" not in rec:
        raise ExperimentError(f"{out!r} holds no experiment to resume; give --baseline and --variant")
    q = dict(rec["request"])
    try:
        q["rules"] = rules_from_dict(q["rules"])
    except (ValueError, KeyError, TypeError) as e:
        raise ExperimentError(f"{out}/{EXPERIMENT_FILE}: its rules cannot be rebuilt ({e})") from None
    q["variants"] = tuple(Arm(v["name"], v.get("bot"), tuple((v.get("rules") or {}).items()))
                          for v in q["variants"])
    changes = {k: v for k, v in changes.items() if v is not None}
    if "games" in changes:
        q["target_ci"] = q["max_games"] = None
    elif "target_ci" in changes or "max_games" in changes:
        q["games"] = None
    q.update(changes)
    return Experiment(**q)


def _write_record(out: str, record: dict[str, Any]) -> None:
    from .dataset import write_json_atomic
    write_json_atomic(Path(out) / EXPERIMENT_FILE, record)


# ---------------------------------------------------------------- reading the arms

@dataclass
class PerDeal:
    """The focal player's outcomes per deal (mean over its seatings) and the arm's endings."""
    points: np.ndarray            # [n] game points (hand mode: the hand's points)
    win_share: np.ndarray         # [n]
    rank: np.ndarray              # [n]
    hand_points: np.ndarray       # [n, hands]
    went_out: np.ndarray          # [n, hands] share of the seatings in which it went out
    hands_played: int = 0         # hands in the arm (every seating of every deal)
    no_winner: int = 0            # hands stopped by the stock rule (nobody went out)
    turn_cap: int = 0             # hands stopped by the turn cap


def per_deal(location: str, players: int, hands: int, deals: int) -> PerDeal:
    """Stream an arm's part files (checked, by columns) into per-deal means of player 0."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from .dataset import GAMES, HANDS
    from .integrity import iter_parts
    n = deals
    cnt = np.zeros(n)
    acc = {k: np.zeros(n) for k in ("points", "win_share", "rank")}
    for _, t in iter_parts(location, GAMES, ["game", "player", "points", "rank", "win_share"]):
        t = t.filter(pc.equal(t["player"], 0))
        k = t["game"].to_numpy().astype(np.int64) // players
        keep = k < n
        k = k[keep]
        cnt += np.bincount(k, minlength=n)[:n]
        for c in acc:
            acc[c] += np.bincount(k, t[c].to_numpy().astype(np.float64)[keep], minlength=n)[:n]
    if not (cnt == players).all():
        raise ExperimentError(f"{location}: {int((cnt != players).sum())} deal(s) lack some of their "
                              f"{players} seatings; finish the experiment with --resume")
    hp = np.zeros(n * hands)
    wo = np.zeros(n * hands)
    out = PerDeal(acc["points"] / players, acc["win_share"] / players, acc["rank"] / players,
                  np.zeros((n, hands)), np.zeros((n, hands)))
    for _, t in iter_parts(location, HANDS, ["game", "hand", "player", "points", "went_out", "ended"]):
        t = t.filter(pc.equal(t["player"], 0))
        g = t["game"].to_numpy().astype(np.int64)
        keep = g < n * players
        idx = (g // players) * hands + t["hand"].to_numpy().astype(np.int64) - 1
        idx = idx[keep]
        hp += np.bincount(idx, t["points"].to_numpy().astype(np.float64)[keep], minlength=n * hands)
        wo += np.bincount(idx, t["went_out"].to_numpy(zero_copy_only=False).astype(np.float64)[keep],
                          minlength=n * hands)
        ended = t["ended"].cast(pa.string()).to_numpy(zero_copy_only=False)[keep]
        out.hands_played += int(keep.sum())
        out.no_winner += int((ended == "stock").sum())
        out.turn_cap += int((ended == "turn_cap").sum())
    out.hand_points = hp.reshape(n, hands) / players
    out.went_out = wo.reshape(n, hands) / players
    return out


# ---------------------------------------------------------------- the analysis

MEASURES = ("points", "win_share", "rank")


@dataclass
class ArmResult:
    name: str
    spec: str
    rules: str
    folder: str
    games: int                     # deals (the unit of the CIs)
    games_played: int              # deals x players
    hands_played: int
    no_winner_hands: int
    turn_cap_hands: int
    effects: dict[str, Effect] | None = None          # None for the baseline
    hand_effects: dict[int, Effect] = field(default_factory=dict)
    p_holm: dict[str, float | None] = field(default_factory=dict)   # "points", "hand 8", ...
    verdict: str = ""
    identical: bool = False        # the same rules and line-up as the baseline: an A/A check

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "spec": self.spec, "rules": self.rules, "folder": self.folder,
                             "games": self.games, "games_played": self.games_played,
                             "hands_played": self.hands_played, "no_winner_hands": self.no_winner_hands,
                             "turn_cap_hands": self.turn_cap_hands}
        if self.effects is None:
            d["effects"] = None
        else:
            eff = {k: dict(e.as_dict(), p_holm=self.p_holm.get(k)) for k, e in self.effects.items()}
            eff["hand_points"] = {str(h): dict(e.as_dict(), p_holm=self.p_holm.get(f"hand {h}"))
                                  for h, e in self.hand_effects.items()}
            d["effects"] = eff
            d["identical_to_baseline"] = self.identical
            d["verdict"] = self.verdict
        return d


MULTIPLICITY = (
    "The 95% CIs are per comparison (unadjusted). p_holm are Holm-adjusted p-values in two families: "
    "the primary one, each variant's game points (with --hand, that hand's points), on which each "
    "variant's sentence rests; and a secondary one, every other effect reported (win share, rank, "
    "went out, each hand's points, for every variant). Among many unadjusted CIs, a few exclude zero "
    "by chance: read them with their p_holm.")


@dataclass
class Result:
    out: str
    design: dict[str, Any]
    games: int
    arms: list[ArmResult]
    hands: list[int]               # hand numbers reported
    stopped: str | None = None
    multiplicity: str = MULTIPLICITY

    def to_dict(self) -> dict[str, Any]:
        return {"out": self.out, "design": self.design, "games": self.games,
                "unit": "deal: the focal player's mean over its seatings of one seed",
                "arms": [a.to_dict() for a in self.arms], "stopped": self.stopped,
                "multiplicity": self.multiplicity}

    def effects_frame(self):
        """A tidy table: one row per variant and measure (hand points: one per hand)."""
        import pandas as pd
        rows = []
        for a in self.arms:
            if a.effects is None:
                continue
            items = [(k, None, e) for k, e in a.effects.items()] + \
                    [("hand_points", h, e) for h, e in a.hand_effects.items()]
            for k, h, e in items:
                key = k if h is None else f"hand {h}"
                rows.append({"arm": a.name, "spec": a.spec, "measure": k, "hand": h, "mean": e.mean,
                             "lo": e.lo, "hi": e.hi, "n": e.n, "variance_reduction": e.variance_reduction,
                             "p": e.p, "p_holm": a.p_holm.get(key)})
        return pd.DataFrame(rows)

    def text(self) -> str:
        return format_result(self)


def analyse(out: str, *, _record: dict | None = None, level: float | None = None) -> Result:
    """Pair the arms of the experiment in ``out`` by deal and report the effects."""
    rec = _record or _read_record(out)
    if rec is None:
        raise ExperimentError(f"{out!r} holds no {EXPERIMENT_FILE}: not an experiment folder")
    ident, design = rec["identity"], rec["design"]
    n, players, hand = int(rec["games"]), int(ident["players"]), ident.get("hand")
    level = level or float(design.get("level", 0.95))
    if n < 1:
        raise ExperimentError(f"{out!r}: the experiment has no finished round yet; continue it with --resume")
    data, arms = [], []
    for a in ident["arms"]:
        hands = len(a["rules"]["contracts"])
        pdl = per_deal(os.path.join(out, a["folder"]), players, hands, n)
        data.append(pdl)
        arms.append(ArmResult(a["name"], a["focal"], a["rules"]["name"], a["folder"], n, n * players,
                              pdl.hands_played, pdl.no_winner, pdl.turn_cap,
                              identical=bool(arms) and list(a["lineup"]) == list(ident["arms"][0]["lineup"])
                              and _rules_key(a["rules"]) == _rules_key(ident["arms"][0]["rules"])))
    base = data[0]
    hand_numbers = [hand] if hand is not None else list(range(1, base.hand_points.shape[1] + 1))
    for arm, d in zip(arms[1:], data[1:]):
        if hand is not None:
            arm.effects = {"points": paired_effect(d.points, base.points, level),
                           "went_out": paired_effect(d.went_out[:, 0], base.went_out[:, 0], level)}
            arm.hand_effects = {hand: arm.effects["points"]}
        else:
            arm.effects = {m: paired_effect(getattr(d, m), getattr(base, m), level) for m in MEASURES}
            common = min(d.hand_points.shape[1], base.hand_points.shape[1])
            arm.hand_effects = {h + 1: paired_effect(d.hand_points[:, h], base.hand_points[:, h], level)
                                for h in range(common)}
    variants = arms[1:]
    prim = holm([a.effects["points"].p for a in variants])
    sec_keys = [(a, k) for a in variants for k in a.effects if k != "points"]
    if hand is None:
        sec_keys += [(a, f"hand {h}") for a in variants for h in a.hand_effects]
    sec_p = [(a.effects[k].p if k in a.effects else a.hand_effects[int(k.split()[1])].p) for a, k in sec_keys]
    sec = holm(sec_p)
    for a, p in zip(variants, prim):
        a.p_holm["points"] = p
        if hand is not None:
            a.p_holm[f"hand {hand}"] = p
    for (a, k), p in zip(sec_keys, sec):
        a.p_holm[k] = p
    for a in variants:
        a.verdict = verdict(a, design, hand, level)
    return Result(out, dict(design, seeds=rec.get("seeds"), versions=rec.get("versions")), n, arms,
                  hand_numbers, rec.get("stopped"))


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
    lines = [f"experiment: {d['players']} players, rules {d['rules']}, opponents {d['opponents']}; "
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


# ---------------------------------------------------------------- files

def load_rules_arms(path: "str | Path") -> list[Arm]:
    """A TOML file of rules arms: each table is an arm named by its key, holding the rules
    options it changes (docs/rules.md §3), e.g. ``[penalty1]`` / ``buy_penalty = 1``."""
    data = _toml(path, "rules-arms file")
    arms = []
    for name, opts in data.items():
        if not isinstance(opts, dict) or not opts:
            raise ExperimentError(f"rules-arms file {str(path)!r}: {name} = {opts!r}: expected a table of "
                                  "rules options, e.g. [penalty1] with buy_penalty = 1")
        arms.append(Arm(name, None, tuple(opts.items())))
    if not arms:
        raise ExperimentError(f"rules-arms file {str(path)!r} holds no arm (a table per arm)")
    return arms


def _toml(path: "str | Path", what: str) -> dict[str, Any]:
    from .rules import file_name
    p = Path(path)
    try:
        if not p.is_file():
            raise ExperimentError(f"{what} {file_name(path)} not found")
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ExperimentError(f"{what} {file_name(path)} is not valid TOML: {e}") from None
    except OSError as e:            # a name too long, a folder it may not read
        raise ExperimentError(f"{what} {file_name(path)} cannot be read: {e.strerror or e}") from None


FILE_KEYS = ("baseline", "opponents", "rules", "players", "games", "seed", "hand", "target_ci",
             "max_games", "out", "variants")


def load_experiment_file(path: "str | Path") -> dict[str, Any]:
    """A TOML experiment file -> keyword arguments of ``Experiment`` (and ``out``).

    ``[[variants]]`` tables hold ``name`` and either ``bot`` or ``rules`` (a table of
    rules options); ``rules`` at the top is a preset, a rules file or a table."""
    from .rules import RulesError, overrides, preset
    data = _toml(path, "experiment file")
    where = f"experiment file {str(path)!r}"
    unknown = sorted(set(data) - set(FILE_KEYS))
    if unknown:
        raise ExperimentError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(FILE_KEYS)})")
    here = Path(path).resolve().parent
    out: dict[str, Any] = {k: v for k, v in data.items() if k != "variants"}
    rules = data.get("rules")
    if isinstance(rules, dict):
        try:
            out["rules"] = overrides(preset(rules.get("base", "shanghai")),
                                     dict(rules, name=rules.get("name", Path(path).stem)), where=where)
        except RulesError as e:
            raise ExperimentError(str(e)) from None
    elif isinstance(rules, str) and rules.endswith(".toml") and not os.path.isabs(rules):
        out["rules"] = str(here / rules)
    if isinstance(out.get("out"), str) and not os.path.isabs(out["out"]):
        out["out"] = str(here / out["out"])
    arms = []
    for v in data.get("variants", []):
        if not isinstance(v, dict) or not set(v) <= {"name", "bot", "rules"} or not ({"bot", "rules"} & set(v)):
            raise ExperimentError(f"{where}: a [[variants]] table holds name and bot = SPEC or "
                                  f"rules = {{ option = value }} (got {v!r})")
        if "bot" in v and "rules" in v:
            raise ExperimentError(f"{where}: variant {v.get('name', v['bot'])!r} changes both the focal bot "
                                  "and the rules; an arm changes one thing: make them two arms")
        rules_v = v.get("rules", {})
        if not isinstance(rules_v, dict):
            raise ExperimentError(f"{where}: variant rules = {rules_v!r}: expected a table of rules options")
        arms.append(Arm(str(v.get("name") or v.get("bot") or ", ".join(f"{k}={x}" for k, x in rules_v.items())),
                        v.get("bot"), tuple(rules_v.items())))
    out["variants"] = tuple(arms)
    return out
