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
