"""One-line errors for the command line: bad input names the problem, exit status 2."""

import click


class InputError(click.ClickException):
    """Bad input: one line naming the problem, exit status 2."""
    exit_code = 2


class OneLineCommand(click.Command):
    """Report option parsing errors on one line too (no usage dump)."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            raise InputError(e.format_message()) from None


class Integer(click.ParamType):
    """An integer option, as every command reads one: ASCII digits with an optional sign, within
    ``lo..hi`` when given. Python's ``int()`` (click's ``type=int``) also takes ``1_000`` and
    other scripts' digits (``٥``): refused here, as ``play`` and ``replay`` refuse them."""
    name = "integer"

    def __init__(self, lo: int | None = None, hi: int | None = None):
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            s = str(value).strip()
            body = s[1:] if s[:1] in "+-" else s
            if not (body.isascii() and body.isdigit()) or len(body) > 40:
                self.fail(f"{str(value)[:40]!r} is not an integer (digits 0-9)", param, ctx)
            n = int(s)
        if (self.lo is not None and n < self.lo) or (self.hi is not None and n > self.hi):
            lo = "" if self.lo is None else f"{self.lo:,}"
            hi = "" if self.hi is None else f"{self.hi:,}"
            self.fail(f"{n} is not in {lo}..{hi}", param, ctx)
        return n


class Number(click.ParamType):
    """A real-number option: ASCII decimal notation (``2``, ``0.5``, ``1e3``), finite, within
    ``lo..hi`` when given. ``float()`` (click's ``type=float``) takes ``nan``, ``inf`` and
    other scripts' digits, which would pass any range check (NaN compares false)."""
    name = "number"

    def __init__(self, lo: float | None = None, hi: float | None = None):
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        import math
        import re
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            x = float(value)
        else:
            s = str(value).strip()
            if not (s.isascii() and len(s) <= 40
                    and re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s)):
                self.fail(f"{str(value)[:40]!r} is not a number (e.g. 2 or 0.5)", param, ctx)
            x = float(s)
        if not math.isfinite(x):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if (self.lo is not None and x < self.lo) or (self.hi is not None and x > self.hi):
            lo = "" if self.lo is None else f"{self.lo:g}"
            hi = "" if self.hi is None else f"{self.hi:g}"
            self.fail(f"{x:g} is not in {lo}..{hi}", param, ctx)
        return x


INT = Integer()
NUMBER = Number()


def rules_at(spec, items=(), players: int | None = None):
    """``--rules SPEC`` with the ``--rule`` ``items`` applied (``rules.resolve``), checked at the
    player count the command will play when it knows it: a change that fits 2 players (one
    pack for a long deal), by ``--rule`` or in a rules file, is not refused at the preset's 4.
    RulesError as ``resolve``."""
    from shanghai_sim.rules import RulesError, load_rules, resolve, with_options
    if players is None:
        return resolve(spec, items)
    try:
        at = load_rules(spec, players=players)
    except RulesError:          # the rules do not fit that count as they are: the usual refusal
        return resolve(spec, items)
    return with_options(at, items)


def rule_option(f):
    """``--rule KEY=VALUE`` (repeatable): change one rules option of --rules (docs/rules.md §7)."""
    return click.option("--rule", "rule_items", multiple=True, metavar="KEY=VALUE",
                        help="Change one rules option, e.g. --rule buy_penalty=1 "
                             "(repeatable; see shanghai-sim rules).")(f)


def run_job(start, *, scheduler: str | None, tls: tuple = (), resume_hint: str,
            worker_timeout: float = 60.0):
    """Run ``start(executor)`` (a runner job, an experiment, a tournament) as every command does:
    on a Dask executor when ``scheduler`` is given, bad input and unreadable datasets as one
    line (exit 2), a full disk as one line that says how to finish (exit 1), Ctrl-C as a line
    that says how to resume (exit 130). ``tls``: the --tls-* options (CA, cert, key), if any;
    ``resume_hint`` is the command that resumes; ``worker_timeout``: seconds with no live
    Dask worker before the run stops (exit 1, with ``resume_hint``)."""
    import sys

    from shanghai_sim.dataset import DatasetError, WriteError
    from shanghai_sim.runner import RunStopped
    executor = None
    try:
        if scheduler:
            from shanghai_sim.cluster import DaskExecutor, security_for
            executor = DaskExecutor(scheduler, security=security_for(scheduler, *tls),
                                    worker_timeout=worker_timeout).connect()
        return start(executor)
    except RunStopped as e:                       # the cluster lost its workers: nothing wrong with the input
        raise click.ClickException(f"{e}; only whole shards were kept; finish with: {resume_hint}") from None
    except (ValueError, DatasetError) as e:       # JobError, ExperimentError, TournamentError, DatasetError
        raise InputError(str(e)) from None
    except OSError as e:                          # a full disk, a lost share: the writer's WriteError
        import errno
        msg = e.strerror if isinstance(e, WriteError) else f"{e.strerror or e}"
        if e.filename and not isinstance(e, WriteError):
            msg = f"{e.filename}: {msg}"
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT):
            raise InputError(f"{msg}: the output folder may not be written here; choose another --out "
                             f"(or fix its permissions, then: {resume_hint})") from None
        if e.errno in (errno.ENOTDIR, errno.EEXIST, errno.EISDIR, errno.ENAMETOOLONG):
            raise InputError(f"{msg}: a file stands where the output needs a folder (or the name is too "
                             f"long); choose another --out, or move that file away, then: {resume_hint}") from None
        raise click.ClickException(
            f"{msg}; no part was left half-written and the manifest records only whole parts: "
            f"free some space (or fix the storage), then: {resume_hint}") from None
    except KeyboardInterrupt:
        click.echo(f"interrupted: only whole shards were kept; finish with: {resume_hint}", err=True)
        sys.exit(130)
    finally:
        if executor is not None:
            executor.close()


def run_and_print(start, *, scheduler: str | None, command: str, dest: str, as_json: bool) -> None:
    """Run an experiment or a tournament (``run_job``) and print its result, text or JSON."""
    import json
    result = run_job(start, scheduler=scheduler, resume_hint=f"shanghai-sim {command} --resume --out {dest}")
    click.echo(json.dumps(result.to_dict(), indent=1) if as_json else result.text())


def diagnostic_option(f):
    """``--diagnostic``: the commands that play bots refuse a diagnostic bot (one that cheats
    on purpose: ``rollout:oracle=hands``) without it (shanghai_sim.bots.refuse_diagnostics)."""
    return click.option("--diagnostic", is_flag=True,
                        help="Allow a diagnostic bot that cheats on purpose (rollout:oracle=hands|deal sees "
                             "hidden cards; refused without this), marked as such wherever it plays.")(f)
