"""``shanghai-sim warmup`` and ``shanghai-sim cache``: the compiled-kernel cache."""

from __future__ import annotations

import click

from .errors import Integer
from .errors import OneLineCommand as _OneLineErrors


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def register(group: click.Group) -> None:
    @group.command("warmup", cls=_OneLineErrors)
    @click.option("--jobs", type=Integer(1, 64), default=None,
                  help="Processes to compile in (default: one per core, at most 4, when the "
                       "cache is cold; 1 when a warm-up of this source already ran).")
    def warmup_cmd(jobs):
        """Compile (or load) every kernel now, with progress.

        The numba kernels compile on first use, once per version of
        shanghai-sim (about 45 seconds for `run` on 2 cores; every kernel,
        as this command builds them, in under two minutes), then they load
        from a per-user cache in seconds (see `shanghai-sim cache`). Run
        this after installing, before a big job, on each machine of a
        cluster, or before the tests. With a cold cache the kernel groups
        compile in parallel processes, one per core; a line at least every
        10 seconds says which are still compiling.
        """
        from shanghai_sim.precompile import warmup
        seconds = warmup(jobs=jobs)
        click.echo(f"warmup: every kernel ready in {seconds:.1f}s", err=True)

    @group.command("cache", cls=_OneLineErrors)
    @click.option("--clear", is_flag=True, help="Delete every cached kernel (all versions).")
    def cache_cmd(clear):
        """Where the compiled kernels are cached, and how much they take.

        \b
        The folder is per user: $SHANGHAI_SIM_CACHE_DIR if set, else
        $XDG_CACHE_HOME/shanghai-sim, else ~/.cache/shanghai-sim. Below it,
        one subfolder per numba and Python version, and in that one folder
        per kernel module and hash of the kernel sources the module reaches
        through its imports: installs of the same source (a wheel, an
        editable checkout) share them, and an edit recompiles only the
        modules that reach the edited one. A folder that cannot be used (a
        file, below /proc, not writable) is an error here; the other
        commands then cache into a temporary folder, compiling every run.
        """
        from shanghai_sim.kernels.compile.cache import (cache_dir, cache_problem, cache_root, cached_bytes,
                                                source_dirs, clear as clear_cache)
        from .errors import InputError
        why = cache_problem()
        if why is not None:
            raise InputError(f"cache folder {cache_root()} cannot be used: {why}; the kernels are then "
                             "cached in a temporary folder and compiled again every run (set "
                             "SHANGHAI_SIM_CACHE_DIR, or XDG_CACHE_HOME, to a writable folder)")
        if clear:
            files, size = clear_cache()
            click.echo(f"cleared {cache_root()}: {files} files, {_size(size)}")
            return
        root = cache_root()
        files, size = cached_bytes(root)
        here, here_size = cached_bytes()
        click.echo(f"cache folder:   {root}  ({files} files, {_size(size)} in all)")
        dirs = source_dirs()
        present = sum(d.is_dir() for d in dirs)
        click.echo(f"this source:    {cache_dir()}  ({here} files in {present} module folders, "
                   f"{_size(here_size)})"
                   + ("" if here else "  -- empty: the next command compiles (shanghai-sim warmup)"))
