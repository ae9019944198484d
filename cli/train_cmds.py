"""``shanghai-sim train``: models learned from a dataset's positions (docs/learning.md)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click

from .errors import InputError, Integer, Number, OneLineCommand


def register(group: click.Group) -> None:
    @group.group("train")
    def train() -> None:
        """Learn models from a dataset's positions table (docs/learning.md).

        \b
          shanghai-sim run --games 20000 --bots smart --positions 0.05 --out pos
          shanghai-sim train value pos --out value.npz
        """

    @train.command("value", cls=OneLineCommand)
    @click.argument("dataset")
    @click.option("--out", "out", required=True, metavar="FILE",
                  help="The model file to write (.npz): weights and what they were learned from.")
    @click.option("--seed", type=Integer(0, 2**64 - 1), default=1, show_default=True,
                  help="Chooses the held-out games (a hash of each game's seed with this one).")
    @click.option("--holdout", type=Number(0, 1), default=0.2, show_default=True,
                  help="Share of the games held out to test the model on (above 0, below 1).")
    @click.option("--ridge", type=Number(0, 1e9), default=1.0, show_default=True,
                  help="Ridge penalty on every weight but the intercept.")
    @click.option("--overwrite", is_flag=True, help="Replace FILE if it exists.")
    @click.option("--json", "as_json", is_flag=True, help="Print the held-out report as JSON.")
    @click.option("--quiet", is_flag=True, help="No progress on stderr.")
    def value_cmd(dataset, out, seed, holdout, ridge, overwrite, as_json, quiet):
        """Fit the value model (a seat's points at the hand's end and its chance to go
        out, from what it can see) on DATASET's positions, testing it on held-out games.

        \b
        DATASET is a folder written by `shanghai-sim run --positions`. The model is
        fitted on whole games and tested on other whole games (--holdout of them,
        chosen by --seed); the report gives its error there beside two baselines
        (the mean by contract and deficiency; by contract, deficiency and turn
        bucket) and its calibration. The same dataset and options give the same
        weights. FILE is written whole or not at all.
        """
        from shanghai_sim.dataset import DatasetError
        from shanghai_sim.learning import ModelError, format_report, train_value
        path = Path(out)
        if len(os.fsencode(path.name)) > 255:
            raise InputError(f"--out {out[:60]!r}...: the file name is longer than 255 bytes")
        try:
            if path.is_dir():
                raise InputError(f"--out {out!r} is a folder: give a file name, e.g. {out.rstrip('/')}/value.npz")
            if not path.parent.is_dir():
                raise InputError(f"--out {out!r}: no folder {str(path.parent)!r} to write it in")
            if path.exists() and not overwrite:
                raise InputError(f"--out {out!r} exists: --overwrite replaces it")
        except OSError as e:              # a folder name too long, a loop of links
            raise InputError(f"--out {out[:80]!r}: {e.strerror or e}") from None
        _probe(path, out)          # before the training: a file that cannot be written says so now
        if not 0 < holdout < 1:
            raise InputError(f"--holdout {holdout:g}: the share of games held out, above 0 and below 1")
        say = None if quiet else (lambda s: click.echo(s, err=True))
        try:
            model, report = train_value(dataset, seed=seed, holdout=holdout, ridge=ridge, progress=say)
        except (ModelError, DatasetError) as e:
            raise InputError(str(e)) from None
        try:
            model.save(path)
        except OSError as e:
            raise InputError(f"--out {out!r}: {e.strerror or e}") from None
        click.echo(json.dumps(report, indent=1) if as_json else format_report(model, report))
        if not quiet:
            click.echo(f"wrote {model.model_id} -> {out}", err=True)


def _probe(path: Path, out: str) -> None:
    """Refuse, in one line, a FILE whose folder cannot take it (read-only, /proc)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".value-probe-", dir=path.parent)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise InputError(f"--out {out!r}: cannot write in {str(path.parent)!r} ({e.strerror or e})") from None
