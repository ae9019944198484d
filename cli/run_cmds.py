"""``shanghai-sim run``, ``summary`` and ``verify``: thin wrappers over runner/summary/integrity."""

from __future__ import annotations

import json
import sys

import click

from shanghai_sim.defaults import DEFAULT_GAMES, DEFAULT_OUT, DEFAULT_POSITIONS_RATE, DETAILS

from .errors import INT, InputError, Number, diagnostic_option, rule_option, rules_at, run_job
from .errors import OneLineCommand as _OneLineErrors


def _engine(ctx: click.Context):
    # Tests may pass obj={"engine": ...}; everyone else gets the real engine.
    return ctx.obj.get("engine") if isinstance(ctx.obj, dict) else None


RUN_HELP = """Play many games and stream them to a Parquet dataset.

\b
  shanghai-sim run                               # 1,000 games, 4 greedy bots, into ./shanghai-out
  shanghai-sim run --games 1000000 --bots random,greedy,greedy,greedy --out big
  shanghai-sim run job.toml --seed 7             # a TOML job file; options override it
  shanghai-sim run --resume --out big            # finish an interrupted run
  shanghai-sim run --resume --games 2000000 --out big   # extend a job to more games
  shanghai-sim run --scheduler tls://host:8786 --tls-ca-file ca.pem --tls-cert me.pem \\
      --tls-key me.key --out /shared/big         # on a Dask cluster (TLS: docs/dataset.md)

Each game's seed is derived from (seed, game index); rows do not depend on
threads, shards or workers, and `shanghai-sim replay --seed GAME_SEED` shows
any game again. --resume checks every byte of the parts already there
against the manifest (SHA-256; --quick: sizes, footers and rows only), plays
again any that is missing or damaged, moves files that are not the job's to
OUT/quarantine/ and finishes the manifest of a run stopped while finishing.
The manifest is a job's first write, so a run stopped at any moment is
finished by `run --resume --out OUT` alone (or, if it left only an empty
folder, started again by the same command); --resume refuses a folder with
no job in it.

A job whose estimated size exceeds the free space of a local --out's disk is
refused (--force starts it anyway). A URL --out (gs://, s3://) that does not
answer is given up on within about 25 s (SHANGHAI_SIM_REMOTE_TIMEOUT: 15 s of
retries). The dataset layout is in docs/dataset.md.
"""


SUMMARY_HELP = """Headline numbers of a dataset, with 95% confidence intervals.

\b
  shanghai-sim summary                 # ./shanghai-out
  shanghai-sim summary buy-study --by-hand

\b
Columns:
  games              games in which that seat (or bot) played
  points (95% CI)    mean game total (lower is better) +- the 95% CI half-width
  win share (95% CI) mean share of wins: 1 for a sole winner, 1/k for each of
                     k tied winners, else 0; the shares of a game sum to 1, so
                     par is 1/players

A bot's figures count each game once (the mean over the seats it held in
that game); the unit of every CI is the game. A bot that holds every seat
has a win share of exactly 1/players, shown as "(every seat)". --by-hand
adds, per hand (contract) and bot: points in that hand, the share of its
seats that went down and that went out, its mean buys, and the share of
hands that ended with nobody out.
"""


def register(group: click.Group) -> None:
    @group.command("run", cls=_OneLineErrors, help=RUN_HELP)
    @click.argument("job_file", required=False)
    @click.option("--rules", help="Preset (shanghai, contract, progressive) or a TOML rules file.")
    @rule_option
    @click.option("--players", type=INT, help="Players at the table (default: the rules', or one per bot).")
    @click.option("--bots", multiple=True, metavar="SPEC[,SPEC...]",
                  help="One bot spec for every seat, or one per seat (e.g. random,greedy,greedy,greedy).")
    @click.option("--games", type=INT, help=f"Games to play (default {DEFAULT_GAMES:,}).")
    @click.option("--seed", type=INT, help="Job seed (default 1); game g plays from game_seed(seed, g).")
    @click.option("--threads", type=INT, help="Worker threads (default: every core).")
    @click.option("--out", help=f"Output folder or URL (default ./{DEFAULT_OUT}).")
    @click.option("--detail", type=click.Choice(DETAILS),
                  help="hands: hands/ and games/ (default); games: games/ only.")
    @click.option("--positions", type=Number(0, 1), is_flag=False, flag_value=DEFAULT_POSITIONS_RATE,
                  metavar="[RATE]",
                  help="Also write positions/: decisions sampled at this rate (above 0, at most 1; "
                       f"--positions alone: {DEFAULT_POSITIONS_RATE:g}), each with what the seat could see, "
                       "its action and the outcome (docs/dataset.md).")
    @click.option("--rotate/--no-rotate", default=None,
                  help="Rotate the bot line-up one seat per game so seat effects cancel (default on).")
    @click.option("--shard-size", type=INT, help="Games per part file (default: from --games; fixed per job).")
    @click.option("--scheduler", metavar="ADDRESS",
                  help="Run the shards on a Dask cluster (tls://host:8786; tcp:// on a private network only).")
    @click.option("--tls-ca-file", metavar="PEM", help="TLS: the CA certificate the scheduler's certificate is signed by.")
    @click.option("--tls-cert", metavar="PEM", help="TLS: this client's certificate.")
    @click.option("--tls-key", metavar="PEM", help="TLS: this client's private key (if not in --tls-cert).")
    @click.option("--resume", is_flag=True,
                  help="Finish (or extend to more --games) the job in --out; missing or damaged parts are played again.")
    @click.option("--quick", is_flag=True,
                  help="With --resume: check sizes, footers and rows of the parts already there, "
                       "not the SHA-256 of every byte.")
    @click.option("--full-check", is_flag=True,
                  help="With --resume: check every byte of the parts already there "
                       "(the default; kept for scripts).")
    @click.option("--worker-timeout", type=Number(1, 86400), default=60.0,
                  show_default=True, metavar="SECONDS",
                  help="With --scheduler: stop (exit 1, with the --resume line) when no Dask worker is alive "
                       "for this long.")
    @click.option("--overwrite", is_flag=True, help="Replace a dataset of another job in --out.")
    @click.option("--force", is_flag=True,
                  help="Start even when the dataset's estimated size exceeds the free space of a local "
                       "--out's disk (refused otherwise).")
    @click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
    @diagnostic_option
    @click.pass_context
    def run_cmd(ctx, job_file, rules, rule_items, players, bots, games, seed, threads, out, detail, positions, rotate,
                shard_size, scheduler, tls_ca_file, tls_cert, tls_key, resume, quick, full_check, worker_timeout,
                overwrite, force, quiet, diagnostic):
        from shanghai_sim import runner
        engine = _engine(ctx)
        options = dict(rules=rules, players=players, bots=list(bots) or None, games=games, seed=seed,
                       threads=threads, out=out, detail=detail, rotate=rotate, shard_size=shard_size,
                       scheduler=scheduler, diagnostic=diagnostic or None, positions=positions)
        try:
            given = runner.load_job_file(job_file) if job_file else {}
            given.update(runner.normalise(options, "options"))
            if rule_items:
                bots_given = given.get("bots") or ()
                at = given.get("players") or (len(bots_given) if len(bots_given) > 1 else None)
                given["rules"] = rules_at(given.get("rules", "shanghai"), rule_items, at)
            if resume:
                job = runner.job_for_resume(given.pop("out", DEFAULT_OUT), given)
            else:
                job = runner.Job(**given)
            plan = runner.plan(job, engine)
        except ValueError as e:       # JobError, RulesError, the bot parser's BotError
            raise InputError(str(e)) from None
        if (tls_ca_file or tls_cert or tls_key) and not (plan.scheduler or "").startswith("tls://"):
            raise InputError("--tls-ca-file/--tls-cert/--tls-key go with a --scheduler tls://HOST:PORT address")
        if full_check and not resume:
            raise InputError("--full-check goes with --resume (or use `shanghai-sim verify OUT`)")
        if quick and not resume:
            raise InputError("--quick goes with --resume (or use `shanghai-sim verify --quick OUT`)")
        if quick and full_check:
            raise InputError("--quick and --full-check contradict each other: give one")
        warning = plan.rules.two_player_warning()
        if warning and not quiet:
            click.echo(warning, err=True)
        hint = f"shanghai-sim run --resume --out {job.out}"
        result = run_job(lambda executor: runner.run(plan, resume=resume, overwrite=overwrite, quick=quick, force=force,
                                                      progress=None if quiet else sys.stderr,
                                                      engine=engine, executor=executor),
                         scheduler=plan.scheduler, tls=(tls_ca_file, tls_cert, tls_key), resume_hint=hint,
                         worker_timeout=worker_timeout)
        if not quiet:
            if result.status == "already complete":
                click.echo(f"{result.location} already holds this job, complete "
                           f"({result.games:,} games); nothing to do", err=True)
            elif result.played == 0:
                click.echo(f"done: nothing to play; {result.location} is complete ({result.games:,} games)\n"
                           f"next: shanghai-sim summary {result.location}", err=True)
            else:
                rate = result.played / result.seconds if result.seconds > 0 else 0.0
                # a resume plays only what was missing: say so beside the dataset's whole count,
                # which the progress line above shows (100,000/100,000 games)
                kept = result.games - result.played
                whole = (f"; the dataset now holds all {result.games:,} games ({kept:,} kept as they were"
                         + (f", {len(result.repaired)} damaged or missing part(s) played again)"
                            if result.repaired else ")")) if kept > 0 else ""
                click.echo(f"done: {result.played:,} games played in {result.seconds:.1f}s "
                           f"({rate:,.0f} games/s){whole} -> {result.location}\n"
                           f"next: shanghai-sim summary {result.location}", err=True)

    @group.command("verify", cls=_OneLineErrors)
    @click.argument("out", default=DEFAULT_OUT)
    @click.option("--quick", is_flag=True,
                  help="Sizes, footers, rows and job only: not the SHA-256 of every byte (reads only footers).")
    @click.option("--full", is_flag=True, help="Check every byte (the default; kept for scripts).")
    def verify_cmd(out, quick, full):
        """Check every part file of a dataset against its manifest.

        \b
        By default: each part the manifest records is there, with its recorded
        size and SHA-256 (every byte is read, once), a readable footer, its rows
        and columns, written for this job; and every other file in hands/ and
        games/ is named (readers ignore it). --quick: the same without the
        SHA-256 (reads only footers: bytes changed in place pass it). The
        manifest's own fields are checked too: rows and games done against its
        finished shards, shards pending, status, schema version, line-up, job
        seed and the bots' versions.

        Prints one line per missing, damaged or stray file, then a summary line.
        Exit status: 0 all parts are as written, 1 something is missing, damaged
        or not the job's (`shanghai-sim run --resume --out OUT` plays those shards
        again and moves strays to OUT/quarantine/), or a field of the manifest
        disagrees with the rest, 2 OUT is not a dataset or its manifest is
        missing, unreadable or no longer describes a job.
        """
        from shanghai_sim.dataset import DatasetError
        from shanghai_sim.integrity import NotADatasetError, verify
        if quick and full:
            raise InputError("--quick and --full contradict each other: give one")
        try:
            report = verify(out, full=not quick)
        except (NotADatasetError, DatasetError) as e:
            raise InputError(str(e)) from None
        for line in report.lines():
            click.echo(line)
        sys.exit(0 if report.ok else 1)

    @group.command("summary", cls=_OneLineErrors, help=SUMMARY_HELP)
    @click.argument("out", default=DEFAULT_OUT)
    @click.option("--by-hand", is_flag=True,
                  help="Also a table per hand (contract) and bot: points, going down and out, buys.")
    @click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (by_hand included).")
    def summary_cmd(out, by_hand, as_json):
        from shanghai_sim.dataset import DatasetError
        from shanghai_sim.summary import SummaryError, format_summary, summarize
        try:
            s = summarize(out)
        except (SummaryError, DatasetError) as e:
            raise InputError(str(e)) from None
        click.echo(json.dumps(s, indent=1) if as_json else format_summary(s, by_hand=by_hand))
