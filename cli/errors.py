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


def rule_option(f):
    """``--rule KEY=VALUE`` (repeatable): change one rules option of --rules (docs/rules.md §7)."""
    return click.option("--rule", "rule_items", multiple=True, metavar="KEY=VALUE",
                        help="Change one rules option, e.g. --rule buy_penalty=1 "
                             "(repeatable; see shanghai-sim rules).")(f)
