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

The package by concern: ``design`` (what is asked, planned into runner jobs), ``folder`` (the
output folder and its record), ``running`` (running the arms, in rounds), ``analysis`` (the paired
analysis), ``report`` (verdicts and the text report), ``files`` (TOML rules-arms and experiment
files). Every public name is importable from here.
"""

from .analysis import MEASURES, MULTIPLICITY, ArmResult, PerDeal, Result, analyse, per_deal
from .design import (ARMS_DIR, DEFAULT_GAMES, Arm, ArmPlan, Experiment, ExperimentError, as_arm, identity,
                     one_hand_rules, one_hand_spec, plan_arms)
from .files import FILE_KEYS, load_experiment_file, load_rules_arms
from .folder import EXPERIMENT_FILE, FORMAT, OVERWRITE_HINT, experiment_from_record, request
from .report import format_result, verdict
from .running import DEFAULT_OUT, PILOT_GAMES, run_experiment

__all__ = ["ARMS_DIR", "Arm", "ArmPlan", "ArmResult", "DEFAULT_GAMES", "DEFAULT_OUT", "EXPERIMENT_FILE",
           "Experiment", "ExperimentError", "FILE_KEYS", "FORMAT", "MEASURES", "MULTIPLICITY",
           "OVERWRITE_HINT", "PILOT_GAMES", "PerDeal", "Result", "analyse", "as_arm",
           "experiment_from_record", "format_result", "identity", "load_experiment_file",
           "load_rules_arms", "one_hand_rules", "one_hand_spec", "per_deal", "plan_arms", "request",
           "run_experiment", "verdict"]
