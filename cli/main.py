"""The ``shanghai-sim`` command: thin click wrappers over the library.

Each command group lives in its own module and is registered here. Errors
in user input surface as one line naming the problem and exit status 2.
"""

from __future__ import annotations

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
    """Simulate and analyse Shanghai Rummy."""


def _register() -> None:
    from . import hand_cmds
    hand_cmds.register(main)
    from . import run_cmds
    run_cmds.register(main)
    from . import game_cmds
    game_cmds.register(main)
    from . import play_cmds
    play_cmds.register(main)


_register()
