"""Valuing a position's candidate actions, and asking a bot what it would choose there: the
calls the studies (analyses/) make of the search, without reaching into the kernels; with
them, a seat's public counters (``seat_counters``) and the buy charts shipped for smart
(``BUY_CHARTS``), which the study of buying writes.

    >>> from shanghai_sim.game import Game
    >>> from shanghai_sim.valuing import value_actions, bot_choice
    >>> g = Game(rules="contract", players=4, seed=5, bots="smart")      # doctest: +SKIP
    >>> while g.phase != "buy": g.step()
    >>> pass_, buy = (a for a in g.legal_actions() if a.kind in ("pass", "buy"))
    >>> v = value_actions(g, [pass_, buy], 32)     # buying against passing, on 32 samples
    >>> v.diff[1], v.se[1]                         # buy - pass, points at the hand's end
    >>> bot_choice(g, "rollout:rollouts=8")        # what that search would do, and its cost

``value_actions`` plays each candidate action of the seat to act out to the end of the hand
on the same samples of what the seat cannot see (common random numbers), as the search bot
``rollout`` values its candidates: the evaluator (a ``rollout`` spec: its sampling of the
unseen cards, its playout policy and its utility) deals the other hands and the stock anew
from the seat's view each sample, applies the candidate and plays the hand out with smart in
every seat. The outcome is the seat's points at the hand's end (the evaluator's default
utility; lower is better). ``value_actions_staged`` draws the samples in stages, each
continuing the previous stage's random stream, and reports the values after each (say K and
2K: whether K samples were enough).

Neither changes the game: the seat's random stream is restored afterwards, so the game goes on
as the seeded game its bots play. The samples come from the seat's own bot stream at this
point (``seed=None``, what a search bot of that seat would draw) or from a stream of their own
(``seed=N``). The same game, position, candidates, evaluator, seed and sample counts give the
same values.

Floor 4 (docs/DEVELOPING.md): over ``game`` and ``bots``; the search's kernels
(``kernels.search.rollout.search_nb``, the oracle's ``kernels.search.oracle.oracle_search_nb``, the
dispatch's ``seat_action_nb``) are reached through here only.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple, Sequence

import numpy as np

from .bots import BotError, BotSpec, parse_bot, refuse_diagnostics
from .game import Action, Game
from .kernels.base import layout as L
from .kernels.bots.buycharts import CHART_DEF_CAP, CHART_SOURCES
from .kernels.games.dispatch import needs_workspace, seat_action_nb, smart_flag
from .kernels.base.rng import seed_state_nb
from .kernels.engine.state import seat_view, seat_view_done_nb
from .kernels.search.oracle import oracle_search_nb
from .kernels.search.rollout import search_nb
from .limits import MAX_GAME_SEED, LimitError, check_count

# The buy charts shipped in the package, which smart reads with ``chartN=NAME``: ``CHART_SOURCES``
# {name: (the committed result it was read from, {lowers: rows by buys made})}, each row a string
# over the deficiency columns 0..CHART_DEF_CAP (the last: that and more). The study that values
# buy decisions (analyses/when_to_buy.py) writes them and knows its answer by them.
BUY_CHARTS = CHART_SOURCES
BUY_CHART_DEF_CAP = CHART_DEF_CAP

MAX_SAMPLES = 1 << 20          # samples of one valuation (each plays every candidate out once)
EVALUATOR = "rollout"          # the default evaluator: the search bot's own sampling and playouts


class ValuingError(ValueError):
    """A bad request to value actions or ask a bot: one line naming what is wrong."""


class Valuation(NamedTuple):
    """Candidate actions of one seat valued on the same samples. Per candidate, in the order
    given: ``mean``, its mean outcome (the seat's points at the hand's end with the default
    utility; lower is better); ``diff``, its mean less the first candidate's (paired on the
    same samples; 0 for the first); ``se``, the standard error of that paired difference (0
    for the first)."""
    seat: int
    actions: tuple[Action, ...]
    samples: int
    mean: tuple[float, ...]
    diff: tuple[float, ...]
    se: tuple[float, ...]


class Choice(NamedTuple):
    """What a bot chose at a position: ``action``; ``playouts``, the playouts its search ran
    (samples times the candidates played on each; 0 for a bot that does not search);
    ``seconds``, the time the bot took to choose."""
    action: Action
    playouts: int
    seconds: float


def _spec(bot: "str | BotSpec", game: Game, what: str, diagnostic: bool) -> BotSpec:
    """The BotSpec of ``bot``; a diagnostic (``rollout:oracle=hands``: it cheats) only with
    ``diagnostic``."""
    if not isinstance(bot, (str, BotSpec)):
        raise ValuingError(f"{what}: expected a bot spec string, got {type(bot).__name__}")
    try:
        b = bot if isinstance(bot, BotSpec) else parse_bot(bot, game.rules.hands)
        refuse_diagnostics([b], diagnostic, "diagnostic=True")
    except BotError as e:
        raise ValuingError(f"{what}: {e}") from None
    return b


def _seat(game: Game, what: str) -> int:
    if not isinstance(game, Game):
        raise ValuingError(f"{what}: expected a shanghai_sim.game.Game, got {type(game).__name__}")
    if game.over:
        raise ValuingError(f"{what}: the game is over, no seat is to act")
    return int(game.to_act)


def _candidates(game: Game, actions: "Sequence[Action | int]", seat: int) -> tuple[Action, ...]:
    """The candidates as the seat's legal Actions, in the order given."""
    if isinstance(actions, np.ndarray) and actions.ndim == 1:
        actions = actions.tolist()                  # action codes
    if isinstance(actions, (str, bytes, Action, int)) or not isinstance(actions, Sequence):
        raise ValuingError("value_actions: give the candidate actions as a list (Actions or action codes)")
    legal = {a.code: a for a in game.legal_actions()}
    most = min(game.workspace().ri.shape[1], game.workspace().rf.shape[1])
    if not 1 <= len(actions) <= most:
        raise ValuingError(f"value_actions: give 1 to {most} candidate actions, got {len(actions)}")
    out = []
    for a in actions:
        if isinstance(a, Action):
            code = a.code
        elif isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            code = int(a)
        else:
            raise ValuingError(f"value_actions: candidate {a!r} is neither an Action nor an action code")
        if code not in legal:
            raise ValuingError(f"value_actions: {a} is not a legal action of seat {seat} now "
                               f"(phase {game.phase}; game.legal_actions() lists them)")
        if any(b.code == code for b in out):
            raise ValuingError(f"value_actions: {legal[code]} is given twice")
        out.append(legal[code])
    return tuple(out)


def _stages(stages: Sequence[int]) -> tuple[int, ...]:
    if isinstance(stages, (str, bytes)) or not isinstance(stages, Sequence) or not stages:
        raise ValuingError("value_actions_staged: give the sample counts of the stages as a list, e.g. [16, 32]")
    out = []
    for k in stages:
        try:
            out.append(check_count("samples", int(k) if isinstance(k, np.integer) else k, 2, MAX_SAMPLES,
                                   "the standard error needs two"))
        except LimitError as e:
            raise ValuingError(f"value_actions: {e}") from None
    if any(b <= a for a, b in zip(out, out[1:])):
        raise ValuingError(f"value_actions_staged: stages {out}: each must have more samples than the one before")
    return tuple(out)


def value_actions_staged(game: Game, actions: "Sequence[Action | int]", stages: Sequence[int], *,
                         evaluator: "str | BotSpec" = EVALUATOR, seed: "int | None" = None,
                         diagnostic: bool = False) -> "list[Valuation] | None":
    """The seat to act's candidate ``actions`` (its legal Actions or their codes) valued on
    ``stages[-1]`` samples drawn in stages: samples ``0..stages[0]-1``, then up to
    ``stages[1]``, ..., each stage continuing the previous one's random stream. One
    ``Valuation`` per stage, each over every sample drawn so far. ``evaluator``: a ``rollout``
    spec (its sampling of the unseen cards, playout policy and utility; the oracle,
    ``rollout:oracle=hands|deal``, deals the true cards instead: a diagnostic that cheats,
    refused unless ``diagnostic``). ``seed``: None draws
    the samples from the seat's own bot stream at this point; an integer from a stream seeded
    by it. The game is left as it was (the seat's stream restored). None if the seat's view of
    the cards does not add up (a scripted position that breaks card conservation): nothing
    was valued."""
    seat = _seat(game, "value_actions")
    ks = _stages(stages)
    cands = _candidates(game, actions, seat)
    ev = _spec(evaluator, game, "value_actions: evaluator", diagnostic)
    if ev.name.split(":")[0] != "rollout":
        raise ValuingError(f"value_actions: evaluator {ev.name!r} is not a rollout spec "
                           "(the search's sampling values the actions)")
    if seed is not None:
        try:
            seed = check_count("seed", int(seed) if isinstance(seed, np.integer) else seed, 0, MAX_GAME_SEED)
        except LimitError as e:
            raise ValuingError(f"value_actions: {e}") from None
    W = game.workspace()
    n = len(cands)
    W.ri[L.RI_CAND][:n] = [a.code for a in cands]
    stream = game.G.rng[L.RNG_BOT0 + seat]
    keep = stream.copy()
    bp = ev.array()
    out: list[Valuation] = []
    G = game.G
    if seed is not None:
        seed_state_nb(np.uint64(seed), stream)
    V = seat_view(G, seat)        # the search reads the seat's view, as its bot does
    try:
        k0 = 0
        for k in ks:
            args = (game.R, V, W, np.int64(seat), bp, np.int64(n), np.int64(k0), np.int64(k))
            # the oracle's worlds: its own kernel, given the true cards beside the view
            if not (oracle_search_nb(*args, G.hands, G.stock) if ev.diagnostic else search_nb(*args)):
                return None
            out.append(_valuation(W.rf, seat, cands, k))
            k0 = k
    finally:
        seat_view_done_nb(G, np.int64(seat))
        stream[:] = keep
    return out


def value_actions(game: Game, actions: "Sequence[Action | int]", samples: int, *,
                  evaluator: "str | BotSpec" = EVALUATOR, seed: "int | None" = None,
                  diagnostic: bool = False) -> "Valuation | None":
    """The seat to act's candidate ``actions`` valued on ``samples`` common samples
    (``value_actions_staged`` with one stage; the same arguments)."""
    got = value_actions_staged(game, actions, [samples], evaluator=evaluator, seed=seed, diagnostic=diagnostic)
    return None if got is None else got[0]


def _valuation(RF: np.ndarray, seat: int, cands: tuple[Action, ...], k: int) -> Valuation:
    """The search's sums after k samples (kernels.search.rollout.search_nb: per candidate the summed
    outcome, and the summed squares of its paired difference with the first) as a Valuation."""
    s0 = float(RF[L.RF_SUM, 0])
    mean, diff, se = [], [], []
    for i in range(len(cands)):
        si = float(RF[L.RF_SUM, i])
        mean.append(si / k)
        if i == 0:
            diff.append(0.0)
            se.append(0.0)
            continue
        d = (si - s0) / k
        var = max((float(RF[L.RF_DSQ, i]) / k - d * d) * k / (k - 1), 0.0)
        diff.append(d)
        se.append(math.sqrt(var / k))
    return Valuation(seat, cands, k, tuple(mean), tuple(diff), tuple(se))


class SeatCounters(NamedTuple):
    """A seat's public counters in the hand being played: the turns it has begun, the buys it
    has made (what a study records of a position beside ``Game.view``)."""
    turns: int
    buys: int


def seat_counters(game: Game, seat: int) -> SeatCounters:
    """``seat``'s public counters in the hand being played."""
    if not isinstance(game, Game):
        raise ValuingError(f"seat_counters: expected a shanghai_sim.game.Game, got {type(game).__name__}")
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < game.players:
        raise ValuingError(f"seat_counters: seat {seat!r}: give 0..{game.players - 1}")
    PS = game.G.ps
    return SeatCounters(int(PS[seat, L.PS_TURNS]), int(PS[seat, L.PS_BUYS]))


def bot_choice(game: Game, bot: "str | BotSpec", *, diagnostic: bool = False) -> Choice:
    """What the bot of spec ``bot`` would do for the seat to act now, how many playouts its
    search ran and how long it took (the bot's decision only). A question: the seat's random
    stream is restored and the search's event is not kept in the game's log, so the game stays
    the same seeded game with the same events. A diagnostic bot (it cheats) only with
    ``diagnostic``."""
    seat = _seat(game, "bot_choice")
    b = _spec(bot, game, "bot_choice", diagnostic)
    W = game.workspace() if needs_workspace([b.kind]) else game.W
    if smart_flag([b.kind]):
        game.SM = True
    if W is not None:
        W.rf[L.RF_N, :] = 0
    stream = game.G.rng[L.RNG_BOT0 + seat]
    keep, logged = stream.copy(), int(game.S[L.S_LOG_N])
    bp, kind = b.array(), np.int64(b.kind)
    try:
        t0 = time.perf_counter()
        code = int(seat_action_nb(game.R, game.G, W, game.SM, kind, bp))
        secs = time.perf_counter() - t0
    finally:
        stream[:] = keep
        game.S[L.S_LOG_N] = logged          # a search bot logs its search: not an event of this game
    playouts = int(W.rf[L.RF_N].sum()) if W is not None else 0
    return Choice(game._describe(code), playouts, secs)
