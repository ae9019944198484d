"""The design of a paired experiment: what is asked and how it is planned.

``Arm`` (the focal player's bot spec, or rules options changed) and ``Experiment`` (a baseline,
its variants, the opponents, the rules and the sizes) say what is asked; ``plan_arms`` checks
all of it (bot specs, rules options, pairing, sizes through ``limits``) and resolves every arm
into a ``runner`` plan over the same seeds with duplicate seating, before anything is written.
``one_hand_rules`` and ``one_hand_spec`` turn a whole game into one hand (``--hand``);
``identity`` is what defines an experiment's rows. Every refusal is an ``ExperimentError``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

DEFAULT_GAMES = 200            # deals per arm (each played once per seat)
ARMS_DIR = "arms"


class ExperimentError(ValueError):
    """An experiment that cannot run as asked: one line naming the problem."""


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
    diagnostic: bool = False          # a diagnostic bot (rollout:oracle=..., it cheats) only when set

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
    from ..bots import BOTS
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
    from ..bots import BotError, split_specs
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
    from ..rules import RulesError, load_rules
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
    from ..runner import default_shard_size
    cap = (exp.max_games if exp.target_ci is not None else exp.games) or DEFAULT_GAMES
    s = default_shard_size(cap * players)
    return -(-s // players) * players           # whole deals per part file


def _check_sizes(exp: Experiment) -> None:
    """The shared checks of seeds, threads and sizes (``limits``), before anything is planned:
    an arm's games (deals x players) fit the dataset's uint32 game column, and every arm's
    per-deal analysis fits in memory."""
    from ..limits import MAX_GAMES, analysis_bytes, check_count, check_memory, check_seed, check_threads
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
    from ..rules import RulesError, overrides
    from .. import runner
    if not exp.variants:
        raise ExperimentError("no variant: give at least one --variant SPEC (or --variant-rules FILE)")
    names = [a.name for a in exp.arms]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ExperimentError(f"two arms are named {dup[0]!r}: name each arm once")
    if exp.hand is not None and (isinstance(exp.hand, bool) or not isinstance(exp.hand, int)):
        raise ExperimentError(f"hand = {exp.hand!r}: expected a hand number")
    base_rules = _base_rules(exp)
    if exp.players is not None:          # 0 is a bad count, not the rules' default (as run says)
        from ..limits import LimitError, check_count
        from ..rules import MAX_PLAYERS, MIN_PLAYERS
        try:
            check_count("players", exp.players, MIN_PLAYERS, MAX_PLAYERS)
        except LimitError as e:
            raise ExperimentError(str(e)) from None
    players = base_rules.players if exp.players is None else exp.players
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
                from ..bots import BotError, parse_bot
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
                         detail="hands", shard_size=size, scheduler=exp.scheduler, seating="duplicate",
                         diagnostic=bool(exp.diagnostic))
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
