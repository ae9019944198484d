"""The bots' parameter row, declared once: every ``BP_*`` slot with its width and meaning.

A bot's parameters are one float64 row (``bots.parse_bot``'s ``params``; the engine's
``bot_params[seat]``), read by the bot kernels at the offsets below. The offsets are
derived from ``SLOTS`` in order, never written by hand, so a new slot cannot overlap
another, and ``NBP`` (the row's length) follows. The registry (``shanghai_sim.bots``)
names each slot it parses; ``tests/test_bots.py`` checks that every registry parameter
sits in a declared slot and every slot is read by a registry parameter. The playouts
copy whole rows into the workspace (``layout.RF_W``): the check below fails at import
if the row outgrows it.
"""

from __future__ import annotations

from .layout import RF_W

MAX_HAND_PARAMS = 29     # per-hand slots: hands 1..29 (rules allow up to this many hands)

SLOTS = (
    # the experiment knobs, read by every thinking bot
    ("BP_BUY", 1, "buy policy (BUY_*)"),
    ("BP_MAXBUYS", 1, "most buys in a hand (-1: the rules' limit)"),
    ("BP_WAIT_BLIND", 1, "1: waits to go out blind"),
    ("BP_HAND0", MAX_HAND_PARAMS, "buy policy in hand h: BP_HAND0 + h (-1: BP_BUY)"),
    ("BP_MAXBUYS0", MAX_HAND_PARAMS, "most buys in hand h: BP_MAXBUYS0 + h (-1: BP_MAXBUYS)"),
    # smart's weights (shanghai_sim.bots documents each; the defaults: docs/bots.md)
    ("BP_OUTS", 1, "per live out a discard gives up"),
    ("BP_PARTNER", 1, "per card in hand a discard would have partnered"),
    ("BP_POINTS", 1, "per penalty point a discard sheds"),
    ("BP_LATE", 1, "extra weight of points per opponent down"),
    ("BP_FEED", 1, "a discard next to cards the next player took"),
    ("BP_BUY_DMAX", 1, "buys a card that lowers a deficiency up to this"),
    ("BP_BUY_SHORT", 1, "short of cards: buys a partnered card up to this deficiency"),
    ("BP_DUMP", 1, "sheds points first at this deficiency when a down opponent is near out"),
    ("BP_FEED_DOWN", 1, "a discard a next player who is down could lay off"),
    ("BP_BUY_STOCK", 1, "below this many stock cards, buys only near the contract"),
    # rollout's budget and switches (kernels.rollout; shanghai_sim.bots documents each)
    ("BP_ROLLOUTS", 1, "samples per decision (each candidate plays every sample)"),
    ("BP_CANDS", 1, "discard candidates searched (smart's best first)"),
    ("BP_S_TAKE", 1, "1: search take-or-pass on the upcard"),
    ("BP_S_BUY", 1, "1: search buy-or-pass"),
    ("BP_S_DISCARD", 1, "1: search the discard"),
    ("BP_S_DOWN", 1, "1: search go down now or wait a turn"),
    ("BP_POLICY", 1, "playout policy: 0 smart, 1 greedy"),
    ("BP_UTILITY", 1, "0 own hand points, 1 own total less the best other total"),
    ("BP_MARGIN", 1, "points a candidate must beat smart's choice by"),
    ("BP_PRUNE", 1, "1: search take/buy only for a card that could matter"),
    ("BP_Z", 1, "standard errors a candidate must beat smart's choice by"),
    ("BP_FIT", 1, "sampled other hands: best of 1 + min(turns, fit) draws"),
    ("BP_DECL", 1, "sampled other hands: cards declined in the last decl turns are not of use"),
    ("BP_KMAX", 1, "a close call that favours a departure doubles its samples up to this"),
    ("BP_RACE", 1, "a race: samples doubled until each challenger is told apart, up to this (0: off)"),
    ("BP_TIE", 1, "race: a challenger that cannot beat smart's choice by this many points drops out"),
    ("BP_RACE_TAKE", 1, "a lower race cap at the upcard's take-or-pass (-1: BP_RACE's)"),
    ("BP_RACE_PLAY", 1, "a lower race cap at the discard and at going down (-1: BP_RACE's)"),
    # smart version 2 (kernels.outlook: the chance of going down; 0 = version 1's play)
    ("BP_CUT", 1, "below this chance of going down: shed points, take low upcards, stop buying"),
    ("BP_BUY_EV", 1, "1: a buy must lower the expected points of the hand (kernels.outlook)"),
    ("BP_FEED_BUY", 1, "a discard next to cards a player who may buy it took"),
    ("BP_HORIZON", 1, "turns a seat expects in a hand while nobody is down"),
    ("BP_PACE", 1, "turns a down opponent takes per card it holds to go out"),
    # smart version 3
    ("BP_OWED", 1, "1: the cards to go down include the discard a turn owes (discard_required)"),
    # smart's fishing (an option, off by default)
    ("BP_FISH", 1, "buys an upcard that does not lower the deficiency, for its penalty cards, at this deficiency or less"),
)


def _offsets() -> dict[str, int]:
    out: dict[str, int] = {}
    at = 0
    for name, width, _ in SLOTS:
        assert name.startswith("BP_") and name not in out and width >= 1, name
        out[name] = at
        at += width
    out["NBP"] = at
    return out


OFFSETS = _offsets()
WIDTH = {name: width for name, width, _ in SLOTS}
globals().update(OFFSETS)      # BP_BUY, ..., NBP: the kernels' names
assert OFFSETS["NBP"] <= RF_W, "layout.RF_W must hold a whole bot parameter row (NBP)"
__all__ = ["SLOTS", "OFFSETS", "WIDTH", "MAX_HAND_PARAMS", *OFFSETS]
