"""Running an experiment: every arm as a runner job into ``OUT/arms/``, in rounds.

``run_experiment`` checks everything first (``design``), refuses or replaces what is in the
output folder (``folder``), writes the record, runs each arm (threads, Dask, resume, as
``run`` does) and analyses them (``analysis``); with ``target_ci`` it sizes each next round
from the paired variance seen so far, until the CI is narrow enough or ``max_games`` is
reached.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Callable, TextIO

from .. import __version__
from .analysis import Result, analyse
from .design import DEFAULT_GAMES, Experiment, ExperimentError, _check_sizes, identity, plan_arms
from .folder import FORMAT, _check_out, _now, _replace, _versions, _write_record, request

DEFAULT_OUT = "shanghai-experiment"
PILOT_GAMES = 200              # first round of a --target-ci run (or --max-games if fewer)


def run_experiment(exp: Experiment, out: str = DEFAULT_OUT, *, resume: bool = False,
                   overwrite: bool = False, progress: TextIO | None = sys.stderr, engine=None,
                   executor: Callable | None = None) -> Result:
    """Run every arm (in rounds, with ``target_ci``) into ``out`` and analyse them.

    Everything is checked before anything is written; an interrupted experiment
    continues with ``resume`` (each arm resumes like ``run --resume``); ``overwrite``
    replaces an experiment already in ``out`` (any other, or this one, started again).
    """
    from .. import runner
    if exp.target_ci is not None:
        if exp.max_games is None:
            raise ExperimentError("--target-ci needs a cap: add --max-games N (deals per arm)")
        if exp.games is not None:
            raise ExperimentError("give --games N or --target-ci X with --max-games N, not both")
        ci = exp.target_ci
        # an experiment file's value too: a string, a bool, NaN or infinity is no CI half-width
        if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not math.isfinite(ci) or not ci > 0:
            raise ExperimentError(f"--target-ci {repr(ci)[:40]}: must be a positive number of points")
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
