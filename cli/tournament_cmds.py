"""``shanghai-sim tournament``: a thin wrapper over ``shanghai_sim.tournament``."""

from __future__ import annotations

import sys

import click

from .errors import INT, InputError, diagnostic_option, rule_option, rules_at, run_and_print
from .errors import OneLineCommand as _OneLineErrors
from .play_cmds import named_file

TOURNAMENT_HELP = """Bots against bots over the same deals, with paired 95% CIs.

\b
  shanghai-sim tournament --bots greedy:buy=never,greedy,greedy,greedy --deals 2000
  shanghai-sim tournament --bots random,greedy,greedy,greedy --rules contract --json
  shanghai-sim tournament --resume --out shanghai-tournament --deals 4000   # extend it

--bots gives one spec per seat (at least two distinct bots). Each deal
(seed) is played once in every distinct seating of the line-up (4 for
a,b,b,b; 12 for a,a,b,c; 24 for four distinct bots; the rotations when
there would be more than 24). Per distinct bot: win share per seat held
(par 1/players), points per game and the share of its hands it went out,
and its paired difference against the first-named bot on the same deals
(the unit is the deal: each bot's mean over every seat it held in every
seating of the deal), with 95% CIs, n and Holm-adjusted p-values; hands
with nobody out and turn-cap hands. docs/tournament.md has the details.
"""


def _engine(ctx: click.Context):
    return ctx.obj.get("engine") if isinstance(ctx.obj, dict) else None


def register(group: click.Group) -> None:
    @group.command("tournament", cls=_OneLineErrors, help=TOURNAMENT_HELP)
    @click.option("--bots", metavar="SPEC,SPEC,...", help="One bot spec per seat (shanghai-sim bots lists them).")
    @click.option("--rules", help="Preset (shanghai, contract, progressive) or a TOML rules file.")
    @rule_option
    @click.option("--players", type=INT, help="Players at the table (default: one per spec; must match them).")
    @click.option("--deals", type=INT, help="Deals (seeds), each played in every seating (default 500).")
    @click.option("--seed", type=INT, help="Tournament seed (default 1): deal k plays game_seed(seed, k).")
    @click.option("--threads", type=INT, help="Worker threads (default: every core).")
    @click.option("--scheduler", metavar="ADDRESS", help="Run the shards on a Dask cluster.")
    @click.option("--out", callback=named_file, help="Output folder (default ./shanghai-tournament).")
    @click.option("--resume", is_flag=True, help="Finish, or extend to more --deals, the tournament in --out.")
    @click.option("--overwrite", is_flag=True,
                  help="Replace the dataset in --out (another tournament or a run, or this one started again).")
    @click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
    @click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
    @diagnostic_option
    @click.pass_context
    def tournament_cmd(ctx, bots, rules, rule_items, players, deals, seed, threads, scheduler, out, resume,
                       overwrite, as_json, quiet, diagnostic):
        from shanghai_sim import tournament as T
        engine = _engine(ctx)
        dest = out or T.DEFAULT_OUT
        try:
            if resume and overwrite:
                raise InputError("--resume keeps the tournament in --out and --overwrite replaces it: give one")
            if resume and not (bots or rules or rule_items or players or seed is not None):
                t = T.tournament_from_dataset(dest, deals=deals, threads=threads, scheduler=scheduler,
                                              diagnostic=diagnostic)
            else:
                if not bots:
                    raise InputError("give --bots SPEC,SPEC,... (one per seat), e.g. "
                                     "--bots greedy:buy=never,greedy,greedy,greedy")
                from shanghai_sim.runner import split_bots
                r = (rules_at(rules or "shanghai", rule_items, players or len(split_bots(bots)))
                     if rule_items else (rules or "shanghai"))
                opts = dict(players=players, deals=deals, seed=seed, threads=threads, scheduler=scheduler,
                            diagnostic=diagnostic)
                t = T.Tournament(split_bots(bots), rules=r, **{k: v for k, v in opts.items() if v is not None})
        except (ValueError, TypeError) as e:           # TournamentError, JobError, RulesError
            raise InputError(str(e)) from None
        _run(T, t, dest, resume, overwrite, quiet, as_json, engine, scheduler)


def _run(T, t, dest, resume, overwrite, quiet, as_json, engine, scheduler) -> None:
    run_and_print(lambda executor: T.run_tournament(t, dest, resume=resume, overwrite=overwrite,
                                                    progress=None if quiet else sys.stderr,
                                                    engine=engine, executor=executor),
                  scheduler=scheduler, command="tournament", dest=dest, as_json=as_json)
