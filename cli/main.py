"""The ``shanghai-sim`` command: thin click wrappers over the library.

Each command group lives in its own module and is registered here. Errors
in user input surface as one line naming the problem and exit status 2.

The command modules import click and ``shanghai_sim.defaults`` only at the
top; the library (numpy, pyarrow, the numba kernels) loads inside each
command, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import atexit
import gc

import click

from shanghai_sim import __version__


class OneLineGroup(click.Group):
    """Usage errors of any command (missing or unknown option, bad value) on one line, exit 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            click.echo(f"Error: {e.format_message()}", err=True)
            ctx.exit(2)


@click.group(cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shanghai-sim")
def main() -> None:
    """Simulate and analyse Shanghai Rummy.

    \b
    Start here:
      shanghai-sim run                  # 1,000 games of four greedy bots -> ./shanghai-out
      shanghai-sim summary              # points and win share per seat and bot, 95% CIs
      shanghai-sim meld 5C 6C 7C 8C 9D 9H 9S JK --contract 2
      shanghai-sim play                 # you against three greedy bots, at the terminal
      shanghai-sim serve                # the same in your browser (http://127.0.0.1:8000/)

    The first command that needs the compiled kernels builds them, once per
    version: about 45 seconds for `run` on 2 cores; `shanghai-sim warmup`
    builds every kernel up front, with progress, in under two minutes.
    The rulebook is docs/rules.md; every command has --help.
    """


def _register() -> None:
    from . import hand_cmds
    hand_cmds.register(main)
    from . import run_cmds
    run_cmds.register(main)
    from . import game_cmds
    game_cmds.register(main)
    from . import play_cmds
    play_cmds.register(main)
    from . import web_cmds
    web_cmds.register(main)
    from . import tool_cmds
    tool_cmds.register(main)
    from . import experiment_cmds
    experiment_cmds.register(main)
    from . import tournament_cmds
    tournament_cmds.register(main)
    from . import train_cmds
    train_cmds.register(main)


_register()

# Registered first, so run last: at exit, the interpreter's own collections pass over every
# object still alive, several times (after a first compile, about 800,000 objects of numba's:
# 2.5 s); frozen, they are freed by reference count alone, and what is cyclic garbage then is
# left to the process's end. Nothing the command writes waits for this.
atexit.register(gc.freeze)
