"""The TOML files of an experiment: rules arms (``--variant-rules``) and experiment files.

``load_rules_arms`` reads a file of rules arms (a table per arm); ``load_experiment_file``
reads an experiment file into ``Experiment``'s keyword arguments (and ``out``), with paths
relative to the file. Any problem is an ``ExperimentError`` naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .design import Arm, ExperimentError


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
    from ..rules.parsing import read_toml
    return read_toml(path, what, ExperimentError)


FILE_KEYS = ("baseline", "opponents", "rules", "players", "games", "seed", "hand", "target_ci",
             "max_games", "out", "variants")


def load_experiment_file(path: "str | Path") -> dict[str, Any]:
    """A TOML experiment file -> keyword arguments of ``Experiment`` (and ``out``).

    ``[[variants]]`` tables hold ``name`` and either ``bot`` or ``rules`` (a table of
    rules options); ``rules`` at the top is a preset, a rules file or a table."""
    from ..rules import RulesError, overrides, preset
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
