"""Rules as data (docs/rules.md §3): frozen dataclasses, named presets, TOML files.

A ``Rules`` object holds every option of docs/rules.md §3. The kernels never see
it: ``Rules.arrays(players)`` converts it once, at the boundary into numba,
into plain integer arrays (``RulesArrays``) whose layout is documented there.

A rules file is TOML: ``base = "shanghai"`` (or ``contract``,
``progressive``) plus any overrides, for example::

    base = "shanghai"
    buy_penalty = 1
    joker_limit = "table"
    contracts = [ { melds = "set3 set3", deal = 10 }, "set3 run4" ]
    deal = 11            # deal size for contracts given as plain strings

The package by concern: ``values`` (the option enums, the ranges, melds and contracts),
``checks`` (validation of a rules object, at a player count), ``model`` (``Rules``, the
presets, ``OPTION_HELP``), ``parsing`` (rules files, ``--rule`` options, overrides) and
``arrays`` (``RulesArrays``, the kernels' view). Every public name is importable from here.
"""

from ..kernels.base.layout import MAX_MELD_SIZE, MAX_MELDS, MAX_PLAYERS, MIN_PLAYERS, NPARAMS, Params  # noqa: F401
from .arrays import RulesArrays, to_arrays  # noqa: F401
from .checks import check_players, validate  # noqa: F401
from .model import OPTION_HELP, PRESETS, Rules, preset  # noqa: F401
from .parsing import file_name, load_rules, overrides, parse_rule_options, resolve, with_options  # noqa: F401
from .values import (CONTRACT_POINTS, DEFAULT_JOKER_TABLE, MAX_BONUS, MAX_BUY_PENALTY,  # noqa: F401
                     MAX_BUYS, MAX_CONTRACT_MELDS, MAX_CONTRACT_NAMES, MAX_DEAL, MAX_HAND_TURNS, MAX_HANDS,
                     MAX_HELD, MAX_JOKER_CAP, MAX_JOKERS, MAX_POINT, MAX_RUN, MAX_SET, MAX_STOCK_PASSES,
                     MIN_BONUS, MIN_SIZE, PROGRESSIVE_CONTRACTS, SHANGHAI_CONTRACTS, SHANGHAI_POINTS,
                     BuyPriority, Contract, GoOut, InitialMeld, JokerLimit, JokerSwap, MeldKind, MeldSpec,
                     RulesError, SameSuitRuns, SetJokerIdentity, parse_contract, resolve_contract)
