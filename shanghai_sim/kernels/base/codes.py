"""The engine's codes, declared once: every number the kernels and Python share as a code.

Each code is a row of one table: its name, value, word and meaning; an event also lists its
payload fields, a refusal its message. The tables (``TABLES``): ``PHASES`` (``PH_*``),
``ACTIONS`` (``A_*``), ``EVENTS`` (``EV_*``), ``ERRORS`` (refusal reasons, ``E_*``), the
rollout bot's searched ``DECISIONS`` (``DEC_*``), how a hand ended (``ENDINGS``, ``END_*``:
the state's S_END_REASON, the record's HF_STOPPED, the dataset's ``ended``), the coded fields
of events (``DRAW_SOURCES`` ``SOURCE_*``, ``PASS_KINDS`` ``WHAT_*``, ``OUT_WAYS`` ``HOW_*``),
the bots' ``BUY_POLICIES`` (``BUY_*``) and an action's opt values (``RUN_ENDS`` and
``GO_DOWN_OPTS``, ``OPT_*``). Everything else is derived from these rows:

- the module constants the kernels compile against (``EV_DRAW``, ``E_NO_FIT``, ...), set
  below from the rows (numba reads them as integer globals);
- an event's payload offsets, ``<EVENT>_<FIELD>`` (``DRAW_CARD`` = 2: the card of an
  EV_DRAW event is at ``b + DRAW_CARD`` where ``b = state.ev_nb(...)``); a field written
  ``cards*`` is a variable tail that starts there;
- ``game.py``'s refusal messages (``ERROR_TEXT``), the words of ``log.py``, ``game.py`` and
  the dataset (``ACTION_WORD``, ``EVENT_WORD``, ``PHASE_WORD``, ``WORDS[table]``), and the
  event table of docs/replay.md (``replay_table()``; tests/test_codes.py checks the page
  against it).

Events in LOG are ``[type, n, payload(n)]``; a type of ``LOG_END`` (0) ends the log. Actions
are int64 codes ``type | card << ACT_CARD_SHIFT | meld << ACT_MELD_SHIFT | opt << ACT_OPT_SHIFT``
(the bit layout below): the kernels build and read them with ``action_nb`` and
``a_type``/``a_card``/``a_meld``/``a_opt``, Python with ``action_fields``. No other module
writes a shift or a mask of an action code (tests/test_codes.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb

from .layout import JOKER


class Code(NamedTuple):
    name: str                     # the constant: EV_DRAW
    value: int
    word: str                     # its word in logs and messages: "draw"
    meaning: str                  # what it is (docs)
    fields: tuple[str, ...] = ()  # an event's payload, in order ("cards*": a tail)
    json: str = ""                # an event: its fields in docs/replay.md's JSON
    message: str = ""             # a refusal: what a player is told


PHASES = (
    Code("PH_FIRST", 0, "first_refusal", "decision: the next player (not down) takes the upcard or passes"),
    Code("PH_BUY", 1, "buy", "decision: the buy candidate S_BO0 + S_CAND claims or passes"),
    Code("PH_DRAW", 2, "draw", "decision: a down player in turn takes the unbought upcard or draws"),
    Code("PH_PLAY", 3, "play", "decision: go down, lay off, swap, discard"),
    Code("PH_OVER", 4, "over", "game over"),
    Code("PH_NEWHAND", 5, "new_hand", "automatic: deal the next hand"),
    Code("PH_OFFER", 6, "offer", "automatic: offer the upcard"),
    Code("PH_OPENBUY", 7, "open_buy", "automatic: open the buy window"),
    Code("PH_AFTERWIN", 8, "after_window", "automatic: the buy window closed"),
    Code("PH_ENDHAND", 9, "end_hand", "automatic: score the hand"),
)

ACTIONS = (
    Code("A_DRAW", 0, "draw", "draw from the stock"),
    Code("A_TAKE", 1, "take", "take the upcard as one's draw"),
    Code("A_PASS", 2, "pass", "refuse the upcard (first refusal) or do not buy"),
    Code("A_BUY", 3, "buy", "claim the upcard with its penalty cards"),
    Code("A_GO_DOWN", 4, "go_down", "lay down the contract (opt 0: the meld finder's lay-down, "
         "1: the proposal written into GD by the caller)"),
    Code("A_LAYOFF", 5, "layoff", "lay a card off on a table meld (opt: run end 0 low / 1 high, "
         "or a joker's declared suit on a set)"),
    Code("A_SWAP", 6, "swap", "swap a natural card for a table joker (opt: the slot)"),
    Code("A_DISCARD", 7, "discard", "discard a card"),
)

# The action a bot kernel "chooses" when it cannot act (a search bot given no workspace,
# a smart seat compiled without smart): no action type has this value, so apply_action_nb
# refuses it with E_PHASE and the engine stops with an error.
NO_ACTION = 15

# An action's opt (the bits above ACT_OPT_SHIFT), where it is a code: the end of a run a card
# is laid off at, and which lay-down a going down applies. (A joker laid off on a set under
# set_joker_identity = card: opt is its declared suit; a swap: the joker's slot.)
RUN_ENDS = (
    Code("OPT_LOW", 0, "low", "A_LAYOFF on a run: at its low end"),
    Code("OPT_HIGH", 1, "high", "A_LAYOFF on a run: at its high end"),
)
GO_DOWN_OPTS = (
    Code("OPT_FINDER", 0, "finder", "A_GO_DOWN: the meld finder's lay-down (the one legal_actions_nb lists)"),
    Code("OPT_PROPOSAL", 1, "proposal", "A_GO_DOWN: the proposal the caller wrote into GD (Game's GoDown)"),
)

# The rollout bot's own choices: its playout policy (policy=), the outcome it minimises
# (utility=) and its diagnostic (oracle=, which cheats: docs/rollout.md, "The oracle").
PLAYOUT_POLICIES = (
    Code("POLICY_SMART", 0, "smart", "every seat of a playout plays smart"),
    Code("POLICY_GREEDY", 1, "greedy", "every seat of a playout plays greedy"),
)
UTILITIES = (
    Code("UTILITY_POINTS", 0, "points", "the seat's points for the hand"),
    Code("UTILITY_LEAD", 1, "lead", "the seat's total less the best other total after the hand"),
)
ORACLES = (
    Code("ORACLE_OFF", 0, "off", "the honest search: samples from the seat's view"),
    Code("ORACLE_HANDS", 1, "hands", "samples deal the other hands their true cards, the stock shuffled"),
    Code("ORACLE_DEAL", 2, "deal", "samples deal the true hands and the stock in its true order"),
)

# What the rollout bot searched (an EV_SEARCH event's decision).
DECISIONS = (
    Code("DEC_TAKE", 0, "take", "take the upcard by first refusal, or pass"),
    Code("DEC_BUY", 1, "buy", "buy the upcard, or pass"),
    Code("DEC_DISCARD", 2, "discard", "which card to discard"),
    Code("DEC_DOWN", 3, "down", "go down now, or discard and wait (smart's discard)"),
)

# How a hand ended: S_END_REASON, the record's HF_STOPPED, EV_HAND_END's reason and the
# dataset's ``ended`` column (the words).
ENDINGS = (
    Code("END_OUT", 0, "out", "a player went out"),
    Code("END_STOCK", 1, "stock", "stopped by the stock (docs/rules.md §5.5: max_stock_passes used up "
         "or nothing to reshuffle)"),
    Code("END_TURN_CAP", 2, "turn_cap", "stopped by the turn cap (max_hand_turns, §5.8): no winner, "
         "everybody scores their cards"),
)

# The coded fields of events: an EV_DRAW's source, an EV_PASS's what, an EV_OUT's how.
DRAW_SOURCES = (
    Code("SOURCE_STOCK", 0, "stock", "drawn from the stock"),
    Code("SOURCE_UPCARD", 1, "upcard", "the upcard, taken by first refusal or (when down) after nobody bought it"),
)
PASS_KINDS = (
    Code("WHAT_FIRST_REFUSAL", 0, "first_refusal", "the next player refused the upcard"),
    Code("WHAT_BUY", 1, "buy", "a buy candidate did not buy the upcard"),
)
OUT_WAYS = (
    Code("HOW_MELDS", 0, "melds", "the last cards went onto the table"),
    Code("HOW_DISCARD", 1, "discard", "the last card was discarded"),
)

# A bot's buy policy (the experiment knob ``buy=``, at BP_BUY and BP_HAND0 + h).
BUY_POLICIES = (
    Code("BUY_NEVER", 0, "never", "never buy"),
    Code("BUY_USEFUL", 1, "useful", "buy when the upcard lowers the hand's deficiency"),
    Code("BUY_ALWAYS", 2, "always", "buy whenever a buy is left"),
    Code("BUY_AUTO", 3, "auto", "the bot's own judgement (smart, rollout)"),
)

# The log buffer starts zeroed: an event type of LOG_END (no event has it) ends the log.
LOG_END = 0

EVENTS = (
    Code("EV_HAND", 1, "hand", "a hand starts; `first` (dealer's left) plays first",
         ("hand", "dealer", "first"), "`dealer`, `first`, `contract`"),
    Code("EV_DEAL", 2, "deal", "the cards dealt to a seat (one event per seat)",
         ("seat", "n", "cards*"), "`seat`, `cards`"),
    Code("EV_UPCARD", 3, "upcard", "the first upcard of the hand", ("card",), "`card`"),
    Code("EV_DRAW", 4, "draw", "a draw; taking the upcard by first refusal or (when down) after "
         "nobody bought is `upcard`", ("seat", "source", "card"),
         "`seat`, `source` (`stock` / `upcard`), `card`"),
    Code("EV_PASS", 5, "pass", "the next player refused the upcard, or a buy candidate did not buy "
         "it; candidates are asked in `buy_priority` order, and the first who buys wins it",
         ("seat", "card", "what"), "`seat`, `card`, `what` (`first_refusal` / `buy`)"),
    Code("EV_BUY", 6, "buy", "a buy: the upcard and the penalty cards from the stock (fewer than "
         "due only when the hand stopped)", ("seat", "card", "due"),
         "`seat`, `card`, `penalty_due`, `penalty`"),
    Code("EV_PENALTY", 7, "penalty", "one penalty card from the stock (in the log it joins its "
         "buy's `penalty`)", ("seat", "card")),
    Code("EV_GO_DOWN", 8, "go_down", "the melds laid down (see meld object)",
         ("seat", "melds", "meld*"), "`seat`, `melds`"),
    Code("EV_LAYOFF", 9, "layoff", "a lay-off; `joker_as` says what a joker stands for",
         ("seat", "card", "meld", "ident"),
         "`seat`, `card`, `meld`, `end` (runs: `low`/`high`), `position` (runs), `joker_as`, `meld_now`"),
    Code("EV_SWAP", 10, "swap", "a natural card replaces a joker, which goes to the seat's hand",
         ("seat", "card", "meld", "slot", "ident"), "`seat`, `card`, `meld`, `slot`, `joker_was`, `meld_now`"),
    Code("EV_DISCARD", 11, "discard", "a discard; it is the new upcard", ("seat", "card"), "`seat`, `card`"),
    Code("EV_RESHUFFLE", 12, "reshuffle", "the pile (less the upcard lying on it) became the stock; "
         "`pass` counts stock passes in the hand", ("pass", "cards", "kept"),
         "`pass`, `cards`, `upcard_kept`"),
    Code("EV_OUT", 13, "out", "a player went out", ("seat", "how", "blind", "jokers"),
         "`seat`, `how` (`melds` / `discard`), `blind`, `jokers_played`"),
    Code("EV_HAND_END", 14, "hand_end", "hand scores per seat and running totals",
         ("winner", "reason", "scores*"),
         "`winner` (or null), `reason` (`out` / `stock` / `turn_cap`), `scores`, `totals`"),
    Code("EV_GAME_END", 15, "game_end", "lowest total wins; equal totals share (ranking 1 = best, "
         "shared ranks)", ("totals*",), "`totals`, `winners`, `ranking`"),
    Code("EV_SEARCH", 16, "search", "the `rollout` bot searched this decision (docs/rollout.md); the "
         "action chosen follows as its own event. Another candidate replaces the first (smart's "
         "choice) only when its `diff` < -`margin` and `diff` + `z` x `se` < 0; under a race a "
         "challenger whose `diff` - `z` x `se` > -`tie` drops out early (fewer `samples`)",
         ("seat", "decision", "rollouts", "chosen", "margin", "z", "tie", "race", "n", "candidates*"),
         "`seat`, `decision` (`take` / `buy` / `discard` / `down`), `rollouts` (the first "
         "candidate's samples), `candidates` (each `action`, e.g. `take` or `discard 7C`; `mean`: "
         "its mean outcome over its `samples`, points for the hand by default, lower is better; "
         "`diff` and `se`: its mean paired difference with the first candidate over its samples "
         "and that difference's standard error), `chosen` (index into `candidates`; the first is "
         "smart's choice), the rule's `margin`, `z`, `tie` and `race` (the race's cap of samples, "
         "0: no race, `tie` null). Logs of schema 1 have no `samples`, `diff`, `se` and rule"),
)

# An EV_SEARCH payload holds, per candidate, this record (SR_<FIELD> offsets): its action
# code, then 100 x its mean outcome, its samples, 100 x its mean paired difference with the
# first candidate over those samples and 100 x that difference's standard error (rounded).
# The event's margin, z and tie are 100 x the bot's parameters.
SEARCH_RECORD = ("action", "mean", "samples", "diff", "se")

ERRORS = (
    Code("E_OK", 0, "ok", "the action was applied"),
    Code("E_PHASE", 1, "phase", "action not of this phase",
         message="this kind of action is not possible now"),
    Code("E_CARD", 2, "card", "card not in hand", message="that card is not in the hand"),
    Code("E_NOT_NOW", 4, "not_now", "not on this turn: lay-off when not down (or on the going-down "
         "turn under exact), swap when joker_swap forbids it, discard when a swap obliges going down",
         message="not allowed on this turn (lay-off: only once down, not on an exact going-down "
                 "turn; swap: joker_swap; discard: go down first after a swap)"),
    Code("E_NO_MELD", 5, "no_meld", "no such table meld", message="there is no such meld on the table"),
    Code("E_NO_FIT", 6, "no_fit", "the card does not fit that meld there (docs/rules.md §4, joker_limit)",
         message="the card does not fit that meld there (docs/rules.md §4, joker_limit)"),
    Code("E_FINISH", 7, "finish", "the turn could not be finished afterwards (go_out)",
         message="the turn could not be finished afterwards (go_out)"),
    Code("E_SWAP_DEF", 8, "swap_def", "a swap by a player not down that could not be followed by going down",
         message="a player not down may swap a joker only when going down follows"),
    Code("E_GD_DOWN", 10, "gd_down", "already down", message="the player is already down"),
    Code("E_GD_COUNT", 11, "gd_count", "melds do not match the contract",
         message="the melds do not match the contract"),
    Code("E_GD_SIZE", 12, "gd_size", "a meld size does not match (at_least / exact)",
         message="a meld size does not match the contract (initial_meld)"),
    Code("E_GD_MELD", 13, "gd_meld", "a meld is not valid",
         message="a meld is not valid (docs/rules.md §4, joker_limit)"),
    Code("E_GD_CARDS", 14, "gd_cards", "cards not in hand", message="the melds use cards that are not in the hand"),
    Code("E_GD_GAP", 15, "gd_gap", "same-suit runs touch (same_suit_runs = gap)",
         message="two runs of one suit touch (same_suit_runs = gap)"),
    Code("E_GD_FINISH", 16, "gd_finish", "the turn could not be finished afterwards (go_out)",
         message="the turn could not be finished afterwards (go_out)"),
    Code("E_GD_NONE", 18, "gd_none", "going down with the finder's lay-down: the hand has none that is legal now",
         message="the hand has no legal lay-down of the contract now"),
    Code("E_CHECK_CONS", 20, "check_cons", "card conservation broken", message="check failed: card conservation"),
    Code("E_CHECK_MELD", 21, "check_meld", "invalid table meld", message="check failed: an invalid table meld"),
    Code("E_CHECK_COUNT", 22, "check_count", "hand size bookkeeping broken",
         message="check failed: hand size bookkeeping"),
)

# An EV_GO_DOWN payload holds, per meld, this record, then its n cards, then their n
# identities (a run: positions; a set: a joker's declared suit or -1): MR_<FIELD> offsets.
MELD_RECORD = ("meld", "kind", "key", "lo", "n")

TABLES = {"phase": PHASES, "action": ACTIONS, "event": EVENTS, "error": ERRORS, "decision": DECISIONS,
          "ending": ENDINGS, "source": DRAW_SOURCES, "pass": PASS_KINDS, "out": OUT_WAYS,
          "buy_policy": BUY_POLICIES, "run_end": RUN_ENDS, "go_down": GO_DOWN_OPTS,
          "playout_policy": PLAYOUT_POLICIES, "utility": UTILITIES, "oracle": ORACLES}

# ---------------------------------------------------------------- the action bit layout
# An action code: its type (A_*) in the low ACT_TYPE_BITS bits, then the card (an id of
# shanghai_sim.cards, 0..52), the table meld (0..127) and opt (the rest of the bits).
ACT_TYPE_BITS = 4
ACT_CARD_BITS = 6
ACT_MELD_BITS = 7
ACT_CARD_SHIFT = ACT_TYPE_BITS
ACT_MELD_SHIFT = ACT_CARD_SHIFT + ACT_CARD_BITS
ACT_OPT_SHIFT = ACT_MELD_SHIFT + ACT_MELD_BITS
ACT_TYPE_MASK = (1 << ACT_TYPE_BITS) - 1
ACT_CARD_MASK = (1 << ACT_CARD_BITS) - 1
ACT_MELD_MASK = (1 << ACT_MELD_BITS) - 1
ACTION_LAYOUT = {"ACT_TYPE_BITS": ACT_TYPE_BITS, "ACT_CARD_BITS": ACT_CARD_BITS, "ACT_MELD_BITS": ACT_MELD_BITS,
                 "ACT_CARD_SHIFT": ACT_CARD_SHIFT, "ACT_MELD_SHIFT": ACT_MELD_SHIFT, "ACT_OPT_SHIFT": ACT_OPT_SHIFT,
                 "ACT_TYPE_MASK": ACT_TYPE_MASK, "ACT_CARD_MASK": ACT_CARD_MASK, "ACT_MELD_MASK": ACT_MELD_MASK}


def _offsets(ev: Code) -> dict[str, int]:
    """``<EVENT>_<FIELD>``: each field's offset in the payload; ``<EVENT>_SIZE``: the
    payload's length, for an event without a tail."""
    out = {f"{ev.name[3:]}_{f.rstrip('*').upper()}": i for i, f in enumerate(ev.fields)}
    if not any(f.endswith("*") for f in ev.fields):
        out[f"{ev.name[3:]}_SIZE"] = len(ev.fields)
    return out


def _constants() -> dict[str, int]:
    out: dict[str, int] = {}
    for kind, rows in TABLES.items():
        values = [c.value for c in rows]
        assert len(set(values)) == len(values), f"two {kind} codes share a value"
        for c in rows:
            assert c.name not in out, f"{c.name} declared twice"
            out[c.name] = c.value
    assert all(0 <= c.value <= ACT_TYPE_MASK for c in ACTIONS), "an action type does not fit its bits"
    assert NO_ACTION <= ACT_TYPE_MASK and NO_ACTION not in {c.value for c in ACTIONS}
    assert LOG_END not in {c.value for c in EVENTS}, "an event has the log's end marker"
    assert JOKER <= ACT_CARD_MASK, "a card id does not fit its bits"
    extra = {f"MR_{f.upper()}": i for i, f in enumerate(MELD_RECORD)}
    extra["MR_SIZE"] = len(MELD_RECORD)
    extra.update({f"SR_{f.upper()}": i for i, f in enumerate(SEARCH_RECORD)})
    extra["SR_SIZE"] = len(SEARCH_RECORD)
    out.update(extra)
    for ev in EVENTS:
        for k, v in _offsets(ev).items():
            assert k not in out, f"{k} declared twice"
            out[k] = v
    return out


CONSTANTS = _constants()
globals().update(CONSTANTS)          # EV_DRAW, E_NO_FIT, DRAW_CARD, DEC_BUY, ...: the kernels' names
__all__ = ["Code", "PHASES", "ACTIONS", "EVENTS", "ERRORS", "DECISIONS", "ENDINGS", "DRAW_SOURCES",
           "PASS_KINDS", "OUT_WAYS", "BUY_POLICIES", "RUN_ENDS", "GO_DOWN_OPTS", "PLAYOUT_POLICIES",
           "UTILITIES", "ORACLES", "TABLES", "NO_ACTION",
           "LOG_END", "CONSTANTS", "SEARCH_RECORD", "MELD_RECORD", "ACTION_LAYOUT", *ACTION_LAYOUT,
           "ERROR_TEXT", "ACTION_WORD", "EVENT_WORD", "PHASE_WORD", "WORDS", "event_fields",
           "replay_table", "action_nb", "a_type", "a_card", "a_meld", "a_opt", "action_fields",
           *CONSTANTS]

WORDS = {kind: {c.value: c.word for c in rows} for kind, rows in TABLES.items()}   # table -> value -> word
ERROR_TEXT = {c.value: c.message for c in ERRORS if c.message}
ACTION_WORD = WORDS["action"]
EVENT_WORD = WORDS["event"]
# Game.phase: the phases a game waits in (the decisions, and over); the automatic ones
# pass inside advance_nb.
PHASE_WORD = {c.value: c.word for c in PHASES if c.value <= CONSTANTS["PH_OVER"]}
_EVENT_BY_VALUE = {c.value: c for c in EVENTS}


def event_fields(t: int, payload: list[int]) -> dict[str, "int | list[int]"]:
    """An event's payload by field name (a ``*`` field: the list of the rest)."""
    ev = _EVENT_BY_VALUE[t]
    out: dict[str, int | list[int]] = {}
    for i, f in enumerate(ev.fields):
        if f.endswith("*"):
            out[f[:-1]] = payload[i:]
            break
        out[f] = payload[i]
    return out


def replay_table() -> str:
    """docs/replay.md's table of the JSON events the engine's log decodes to."""
    rows = ["| event | fields | meaning |", "|---|---|---|"]
    rows += [f"| `{c.word}` | {c.json} | {c.meaning} |" for c in EVENTS if c.json]
    return "\n".join(rows)


# ---------------------------------------------------------------- action codes

@nb.njit(cache=True, inline="always")
def action_nb(t, card, meld, opt):
    """The action code of type t (A_*), card, meld and opt."""
    return t | (card << ACT_CARD_SHIFT) | (meld << ACT_MELD_SHIFT) | (opt << ACT_OPT_SHIFT)


@nb.njit(cache=True, inline="always")
def a_type(a):
    return a & ACT_TYPE_MASK


@nb.njit(cache=True, inline="always")
def a_card(a):
    return (a >> ACT_CARD_SHIFT) & ACT_CARD_MASK


@nb.njit(cache=True, inline="always")
def a_meld(a):
    return (a >> ACT_MELD_SHIFT) & ACT_MELD_MASK


@nb.njit(cache=True, inline="always")
def a_opt(a):
    return a >> ACT_OPT_SHIFT


def action_fields(a):
    """An action code's (type, card, meld, opt), for Python (no compiled call): what
    ``a_type``, ``a_card``, ``a_meld`` and ``a_opt`` read in the kernels."""
    return (a & ACT_TYPE_MASK, (a >> ACT_CARD_SHIFT) & ACT_CARD_MASK,
            (a >> ACT_MELD_SHIFT) & ACT_MELD_MASK, a >> ACT_OPT_SHIFT)
