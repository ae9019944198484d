"""The paired analysis of an experiment's arms: per-deal outcomes, effects, Holm.

``per_deal`` streams an arm's part files by columns (``integrity.iter_parts``) into the focal
player's mean per deal, one number per deal and measure, never a whole dataset; ``analyse``
differences each variant against the baseline deal by deal (``stats.paired_effect``), adjusts
the p-values in two Holm families and gives each variant its sentence (``report.verdict``).
``Result`` holds it all (``to_dict``, ``effects_frame``, ``text``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..stats import Effect, holm, paired_effect
from .design import ExperimentError, _rules_key
from .folder import EXPERIMENT_FILE, _read_record
from .report import format_result, verdict


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
    from ..dataset import GAMES, HANDS
    from ..integrity import iter_parts
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
    diagnostic: list[str] = field(default_factory=list)    # bots.diagnostic_marks: a bot that cheats played

    def to_dict(self) -> dict[str, Any]:
        return {**({"diagnostic": self.diagnostic} if self.diagnostic else {}), "out": self.out, "design": self.design, "games": self.games,
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
    from ..bots import diagnostic_marks
    return Result(out, dict(design, seeds=rec.get("seeds"), versions=rec.get("versions")), n, arms,
                  hand_numbers, rec.get("stopped"),
                  diagnostic=diagnostic_marks([s for a in ident["arms"] for s in a["lineup"]]))
