"""The output folder of an experiment: ``OUT/experiment.json`` and the arms beside it.

The record holds the design, the seeds, the versions, the rounds played and the request
(``request``; ``experiment_from_record`` reads it back for ``--resume``). ``_check_out``
refuses a folder that would lose or mix data and says in words what differs from the
experiment asked; ``_replace`` is ``--overwrite`` (only ever an experiment, never a folder
that holds anything else).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from .design import ARMS_DIR, Arm, Experiment, ExperimentError, _base_rules

EXPERIMENT_FILE = "experiment.json"
FORMAT = "shanghai-sim experiment"


def _versions() -> dict[str, str]:
    import numba
    import pyarrow
    return {"shanghai_sim": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "numba": numba.__version__, "pyarrow": pyarrow.__version__}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


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

    from ..dataset import Store
    from ..runner import JobError, OutputLock
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


def request(exp: Experiment) -> dict[str, Any]:
    """The experiment as asked, in plain data (``experiment_from_record`` reads it back)."""
    return {"baseline": exp.baseline, "opponents": exp.opponents,
            "variants": [{"name": a.name, "bot": a.bot, "rules": dict(a.rules)} for a in exp.variants],
            "rules": _base_rules(exp).to_dict(), "players": exp.players, "games": exp.games, "seed": exp.seed,
            "hand": exp.hand, "target_ci": exp.target_ci, "max_games": exp.max_games}


def experiment_from_record(out: str, **changes: Any) -> Experiment:
    """The experiment recorded in ``out`` (to continue it: ``--resume`` with no arms given),
    with ``changes`` (e.g. more ``games``, ``threads``) on top."""
    from ..runner import rules_from_dict
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
    from ..dataset import write_json_atomic
    write_json_atomic(Path(out) / EXPERIMENT_FILE, record)
