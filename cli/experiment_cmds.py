"""``shanghai-sim experiment``: a thin wrapper over ``shanghai_sim.experiment``."""

from __future__ import annotations

import sys

import click

from .errors import INT, NUMBER, InputError, diagnostic_option, rule_option, rules_at, run_and_print
from .errors import OneLineCommand as _OneLineErrors
from .play_cmds import named_file

EXPERIMENT_HELP = """Paired experiment: does one change make the focal player better?

\b
  shanghai-sim experiment --baseline greedy --variant greedy:buy8=never --games 500
  shanghai-sim experiment --baseline greedy --variant greedy:buy8=never --hand 8 \\
      --target-ci 1 --max-games 20000           # hand 8 only, until the CI is +-1 point
  shanghai-sim experiment --baseline greedy --variant-rules arms.toml   # rules arms
  shanghai-sim experiment exp.toml --json       # a TOML experiment file

Player 0 (the focal player) plays the arm's spec, the other seats
--opponents (default: the baseline's spec). Every arm plays the same deals
(seeds), each once with the focal player in each seat, so an arm of --games N
plays N x players games; the unit of every CI is the deal. Reported per
variant against the baseline: game points, win share (0..1), rank and each
hand's points, as mean paired difference [95% CI], n and the variance
reduction pairing achieved; per arm, hands stopped by the stock rule and by
the turn cap. docs/experiments.md has the design and the statistics.
"""


def _engine(ctx: click.Context):
    return ctx.obj.get("engine") if isinstance(ctx.obj, dict) else None


def register(group: click.Group) -> None:
    @group.command("experiment", cls=_OneLineErrors, help=EXPERIMENT_HELP)
    @click.argument("experiment_file", required=False)
    @click.option("--baseline", metavar="SPEC", help="The focal player's bot in the baseline arm (default greedy).")
    @click.option("--variant", "variants", multiple=True, metavar="SPEC",
                  help="A variant arm: the focal player's bot spec (repeatable).")
    @click.option("--variant-rules", metavar="FILE",
                  help="Rules arms from a TOML file: [name] tables of rules options (same bots).")
    @click.option("--opponents", metavar="SPEC", help="The other seats' bot (default: the baseline's spec).")
    @click.option("--rules", help="Preset (shanghai, contract, progressive) or a TOML rules file.")
    @rule_option
    @click.option("--players", type=INT, help="Players at the table (default: the rules').")
    @click.option("--games", type=INT, help="Deals per arm, each played once per seat (default 200).")
    @click.option("--target-ci", type=NUMBER, metavar="POINTS",
                  help="Run in rounds until every game-points CI half-width is at most POINTS (needs --max-games).")
    @click.option("--max-games", type=INT, help="With --target-ci: the most deals per arm.")
    @click.option("--seed", type=INT, help="Experiment seed (default 1): deal k plays game_seed(seed, k).")
    @click.option("--hand", type=INT, metavar="N",
                  help="Play only hand N of each deal (effects on that hand's points and going out).")
    @click.option("--threads", type=INT, help="Worker threads (default: every core).")
    @click.option("--scheduler", metavar="ADDRESS", help="Run the arms' shards on a Dask cluster.")
    @click.option("--out", callback=named_file, help="Output folder (default ./shanghai-experiment).")
    @click.option("--resume", is_flag=True, help="Continue (or extend to more --games) the experiment in --out.")
    @click.option("--overwrite", is_flag=True,
                  help="Replace the experiment in --out (another one, or this one started again).")
    @click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
    @click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
    @diagnostic_option
    @click.pass_context
    def experiment_cmd(ctx, experiment_file, baseline, variants, variant_rules, opponents, rules, rule_items,
                       players, games, target_ci, max_games, seed, hand, threads, scheduler, out, resume,
                       overwrite, as_json, quiet, diagnostic):
        from shanghai_sim import experiment as E
        engine = _engine(ctx)
        try:
            if resume and not (experiment_file or baseline or variants or variant_rules or opponents or rules
                               or rule_items or players or seed is not None or hand is not None):
                # --resume alone: the experiment recorded in --out, more --games or rounds on top
                dest = out or E.DEFAULT_OUT
                exp = E.experiment_from_record(dest, games=games, target_ci=target_ci, max_games=max_games,
                                               threads=threads, scheduler=scheduler, diagnostic=diagnostic)
                return _run(E, exp, dest, True, overwrite, quiet, as_json, engine, scheduler)
            opts = E.load_experiment_file(experiment_file) if experiment_file else {}
            arms = list(opts.pop("variants", ()))
            given = dict(baseline=baseline, opponents=opponents, rules=rules, players=players, games=games,
                         target_ci=target_ci, max_games=max_games, seed=seed, hand=hand, out=out)
            opts.update({k: v for k, v in given.items() if v is not None})
            arms += [E.as_arm(v) for v in variants]
            if variant_rules:
                arms += E.load_rules_arms(variant_rules)
            if rule_items:
                opts["rules"] = rules_at(opts.get("rules", "shanghai"), rule_items, opts.get("players"))
            dest = opts.pop("out", E.DEFAULT_OUT)
            exp = E.Experiment(variants=tuple(arms), threads=threads, scheduler=scheduler, diagnostic=diagnostic,
                               **opts)
        except (ValueError, TypeError) as e:          # ExperimentError, RulesError
            raise InputError(str(e)) from None
        _run(E, exp, dest, resume, overwrite, quiet, as_json, engine, scheduler)


def _run(E, exp, dest, resume, overwrite, quiet, as_json, engine, scheduler) -> None:
    run_and_print(lambda executor: E.run_experiment(exp, dest, resume=resume, overwrite=overwrite,
                                                    progress=None if quiet else sys.stderr,
                                                    engine=engine, executor=executor),
                  scheduler=scheduler, command="experiment", dest=dest, as_json=as_json)
