"""Step-by-step games over the engine kernels, and the event log of a seeded game.

    >>> from shanghai_sim import Game
    >>> g = Game(rules="shanghai", players=4, seed=7, bots=["python", "greedy", "greedy", "greedy"])  # doctest: +SKIP
    >>> g.advance()            # the built-in bots play until seat 0 must act
    >>> g.legal_actions()      # readable Action objects
    >>> g.apply(g.legal_actions()[0])
    >>> g.play()               # let bots finish (seat 0 falls back to greedy)

A seat is played by a built-in bot (a spec string, see ``shanghai_sim.bots``),
by a Python callable ``f(game, seat, legal_actions) -> Action``, or by hand
(``"python"``): then ``advance()`` stops when that seat must act.
``game_events`` plays one seeded game with the batch kernel and logging on,
for the replay: same deals, same choices, same scores as a batch run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .bots import BotError, parse_bot, refuse_diagnostics, seat_specs, split_specs
from .cards import RANKS, SUITS, card_id, card_str, parse_cards
from .kernels.base import layout as L
from .kernels.base import codes as K
from .kernels.engine.flow import init_game_nb
from .kernels.engine.godown import can_go_down_nb
from .kernels.engine.play import apply_action_nb, legal_actions_nb
from .kernels.games.dispatch import needs_workspace, seat_action_nb, smart_flag
from .kernels.games.batch import play_game_nb
from .log import decode, meld_dict, ranking
from .rules import Rules, RulesError, load_rules

MANUAL = ("python", "human", "manual")
DEFAULT_LOG_SIZE = 1 << 20


class GameError(ValueError):
    """An action that is not legal now, or a seat that cannot act."""


_ERRORS = K.ERROR_TEXT          # refusal reason -> message (kernels.base.codes.ERRORS)

_KIND = K.ACTION_WORD           # action type -> word (kernels.base.codes.ACTIONS)


@dataclass(frozen=True)
class Action:
    """One action, readable: ``str(action)`` says what it does."""
    code: int
    kind: str
    seat: int = -1
    card: str | None = None
    meld: int | None = None
    end: str | None = None        # lay-off on a run: "low" or "high"
    suit: str | None = None       # joker laid off on a set under set_joker_identity = card
    slot: int | None = None       # swap: run position or set index of the joker
    melds: tuple[tuple[str, ...], ...] | None = None   # go down
    text: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.text or self.kind


def GoDown(melds: "list[list[str] | str]") -> Action:
    """A going down with these melds (each a list of cards or a string such as '8C 8D JK')."""
    ms = tuple(tuple(card_str(c) for c in parse_cards(m)) for m in melds)
    return Action(K.action_nb(K.A_GO_DOWN, 0, 0, K.OPT_PROPOSAL), "go_down", melds=ms,
                  text="go down: " + " | ".join(" ".join(m) for m in ms))


def _proposal_rows(melds: tuple[tuple[str, ...], ...]) -> list[tuple[int, int, int, list[int]]]:
    """Cards of each meld -> (kind, rank or suit, lo, cards) as the engine reads them."""
    rows = []
    for m in melds:
        ids = [card_id(c) for c in m]
        nat = [c for c in ids if c != L.JOKER]
        if not nat:
            raise GameError(f"meld {' '.join(m)!r} has no natural card")
        if len({c % 13 for c in nat}) == 1 and (len(nat) > 1 or len(ids) == 3):
            rows.append((L.SET, nat[0] % 13, 0, ids))
            continue
        if len({c // 13 for c in nat}) != 1:
            raise GameError(f"meld {' '.join(m)!r} is neither a set nor a run")
        suit = nat[0] // 13
        lo = None
        for cand in range(0, 14):
            ok = all(c == L.JOKER or c == suit * 13 + (cand + k) % 13 for k, c in enumerate(ids))
            if ok and cand + len(ids) - 1 <= 13:
                lo = cand
                break
        if lo is None:
            raise GameError(f"meld {' '.join(m)!r} is not a run in sequence (docs/rules.md §4)")
        rows.append((L.RUN, suit, lo, ids))
    return rows


def _rules_for(rules: "str | Rules | None", players: "int | None", seed: int) -> "tuple[Rules, int]":
    """The rules of a game (a preset, a rules file or a Rules) at its player count (the
    rules' own if None), and the count; a seed outside 0..2**64-1 is refused."""
    r = load_rules(rules, None if players is None else int(players))
    p = r.players if players is None else int(players)
    if p != r.players:
        r = r.with_players(p)
    if not 0 <= int(seed) < 2 ** 64:
        raise GameError(f"seed {seed}: must be 0..2**64-1")
    return r, p


class Game:
    """A game played step by step; the same kernels as the batch runs."""

    def __init__(self, rules: "str | Rules | None" = "shanghai", players: int | None = None,
                 seed: int = 0, bots: "str | list[Any]" = "greedy",
                 log_size: int = DEFAULT_LOG_SIZE, check: bool = False, diagnostic: bool = False):
        r, p = _rules_for(rules, players, seed)
        self.rules = r
        self.players = p
        self.seed = int(seed)
        self.R = r.arrays(p)
        specs = seat_specs(split_specs(bots) if isinstance(bots, str) else list(bots), p)
        self.kinds = np.zeros(p, dtype=np.int64)
        self.params = np.zeros((p, len(parse_bot("greedy").params)), dtype=np.float64)
        self.python: dict[int, Callable | None] = {}
        self.bot_names: list[str] = []
        for q, s in enumerate(specs):
            if callable(s):
                self.python[q] = s
                s = "greedy"
                self.bot_names.append(getattr(self.python[q], "__name__", "python"))
            elif s is None or str(s).strip().lower() in MANUAL:
                self.python[q] = None
                s = "greedy"
                self.bot_names.append("python")
            spec = parse_bot(s, r.hands)
            if q not in self.python:
                self.bot_names.append(spec.name)
            self.kinds[q] = spec.kind
            self.params[q] = spec.array()
        # a diagnostic bot (rollout:oracle=..., it cheats) only when asked for: its specs, for the marks
        self._diagnostic = bool(diagnostic)
        self._asked: dict[str, Any] = {}     # bot_action: spec -> its BotSpec
        self.diagnostics = [b.name for b in refuse_diagnostics(
            [n for q, n in enumerate(self.bot_names) if q not in self.python], diagnostic)]
        self._log_size = int(log_size)
        self._check = bool(check)
        self.G = L.new_state(self.R, self._log_size)
        # the search bots' scratch (kernels.search.rollout); None at a table without one, so the
        # search kernels are not compiled (kernels.games.dispatch)
        self.W = L.new_workspace(self.R) if needs_workspace(self.kinds) else None
        # True once a seat (or a bot asked for a hint) plays smart: else None, and the smart
        # kernels are not compiled either
        self.SM = smart_flag(self.kinds)
        init_game_nb(self.R, self.G, np.uint64(self.seed), 1, int(check))

    # ------------------------------------------------------------ state
    @property
    def S(self) -> np.ndarray:
        return self.G.s

    @property
    def over(self) -> bool:
        return int(self.S[L.S_PHASE]) == K.PH_OVER

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is pending (None when the game is over)."""
        return None if self.over else int(self.S[L.S_ACTOR])

    @property
    def hand(self) -> int:
        """The hand being played, 1-based."""
        return int(self.S[L.S_HAND]) + 1

    @property
    def phase(self) -> str:
        return K.PHASE_WORD.get(int(self.S[L.S_PHASE]), "?")

    def totals(self) -> list[int]:
        return [int(x) for x in self.G.ps[:self.players, L.PS_TOTAL]]

    def ranking(self) -> list[int]:
        return ranking(self.totals())

    def records(self) -> np.ndarray:
        """int32[hands, players, NHF] (kernels.base.records) for the hands played so far."""
        return self.G.rec[:, :self.players].copy()

    def hand_cards(self, seat: int) -> list[str]:
        row = self.G.hands[seat]
        return [card_str(c) for c in range(53) for _ in range(int(row[c]))]

    def table(self) -> list[dict[str, Any]]:
        """The melds on the table, with what each joker stands for: the replay log's meld
        objects (``log.meld_dict``, docs/replay.md)."""
        S, TM, TC, TJ = self.S, self.G.table, self.G.tcards, self.G.tjokers
        out = []
        for m in range(int(S[L.S_NT])):
            kind, key = int(TM[m, L.TM_KIND]), int(TM[m, L.TM_KEY])
            if kind == L.SET:
                ident = [int(TJ[m, k]) for k in range(int(TM[m, L.TM_N]))]
                cards = [int(TC[m, k]) for k in range(len(ident))]
            else:
                ident = list(range(int(TM[m, L.TM_LO]), int(TM[m, L.TM_HI]) + 1))
                cards = [int(TC[m, pos]) for pos in ident]
            out.append(meld_dict(m, int(TM[m, L.TM_OWNER]), kind, key, cards, ident))
        return out

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may see (default: the seat to act): its own cards, and public facts."""
        if seat is None:
            seat = self.to_act if self.to_act is not None else 0
        S, PS = self.S, self.G.ps
        h = int(S[L.S_HAND])
        up = None
        if S[L.S_UP_ON_PILE] and S[L.S_PILE_N] > 0:
            up = card_str(int(S[L.S_UP]))
        return {
            "seat": seat, "hand": h + 1, "contract": str(self.rules.contracts[h]),
            "phase": self.phase, "to_act": self.to_act, "dealer": int(S[L.S_DEALER]),
            "cards": self.hand_cards(seat),
            "upcard": up, "stock": int(S[L.S_STOCK_N]), "pile": int(S[L.S_PILE_N]),
            "stock_passes": int(S[L.S_PASSES]),
            "hand_sizes": [int(PS[q, L.PS_N]) for q in range(self.players)],
            "down": [bool(PS[q, L.PS_DOWN]) for q in range(self.players)],
            "buys_left": [int(self.R.buys[h] - PS[q, L.PS_BUYS]) for q in range(self.players)],
            "known": [self.known_cards(q) for q in range(self.players)],
            "table": self.table(), "totals": self.totals(),
        }

    def known_cards(self, seat: int) -> list[str]:
        """The cards ``seat`` took from the pile or bought in this hand (or swapped off the
        table) and has not played since: public, every seat saw them go in."""
        row = self.G.ps[seat, L.PS_KNOWN0:L.PS_KNOWN0 + 53]
        return [card_str(c) for c in range(53) for _ in range(int(row[c]))]

    # ------------------------------------------------------------ actions
    def _describe(self, code: int) -> Action:
        t, c, m, opt = K.action_fields(code)
        seat = self.to_act if self.to_act is not None else -1
        S, TM = self.S, self.G.table
        up = card_str(int(S[L.S_UP]))
        if t == K.A_DRAW:
            return Action(code, "draw", seat, text="draw from the stock")
        if t == K.A_TAKE:
            return Action(code, "take", seat, up, text=f"take the upcard {up}")
        if t == K.A_PASS:
            what = "refuse the upcard" if int(S[L.S_PHASE]) == K.PH_FIRST else "do not buy"
            return Action(code, "pass", seat, up, text=f"pass ({what} {up})")
        if t == K.A_BUY:
            pen = int(self.R.params.buy_penalty)
            return Action(code, "buy", seat, up,
                          text=f"buy {up} (+{pen} penalty card{'' if pen == 1 else 's'})")
        if t == K.A_GO_DOWN:
            melds = None
            if can_go_down_nb(self.R, self.G, seat):
                GD = self.G.gd
                nm = int(self.R.n_melds[int(S[L.S_HAND])])
                melds = tuple(tuple(card_str(int(GD[i, L.M_CARDS + k])) for k in range(int(GD[i, L.M_N])))
                              for i in range(nm))
            txt = "go down: " + " | ".join(" ".join(x) for x in melds) if melds else "go down"
            return Action(code, "go_down", seat, melds=melds, text=txt)
        cs = card_str(c)
        if t == K.A_LAYOFF:
            end = suit = None
            if TM[m, L.TM_KIND] == L.RUN:
                end = K.WORDS["run_end"][opt]
                txt = f"lay off {cs} on meld {m} ({end} end)"
            else:
                if c == L.JOKER and self.R.params.set_joker_card:
                    suit = SUITS[opt]
                    txt = f"lay off {cs} as {RANKS[int(TM[m, L.TM_KEY])]}{suit} on meld {m}"
                else:
                    txt = f"lay off {cs} on meld {m}"
            return Action(code, "layoff", seat, cs, m, end=end, suit=suit, text=txt)
        if t == K.A_SWAP:
            return Action(code, "swap", seat, cs, m, slot=opt,
                          text=f"swap {cs} for the joker in meld {m}")
        return Action(code, "discard", seat, cs, text=f"discard {cs}")

    def legal_actions(self) -> list[Action]:
        """The legal actions of the seat to act (going down: the meld finder's lay-down;
        any other valid lay-down can be applied with ``GoDown(melds)``)."""
        if self.over:
            return []
        buf = self.G.buf
        n = legal_actions_nb(self.R, self.G, buf)
        return [self._describe(int(x)) for x in buf[:n]]

    def apply(self, action: "Action | int") -> None:
        """Apply an action of the seat to act; GameError if it is not legal now."""
        if self.over:
            raise GameError("the game is over")
        code = action.code if isinstance(action, Action) else int(action)
        if isinstance(action, Action) and action.kind == "go_down" and K.action_fields(code)[3] == K.OPT_PROPOSAL:
            self._write_proposal(action.melds or ())
        err = apply_action_nb(self.R, self.G, np.int64(code))
        if err != K.E_OK:
            msg = _ERRORS.get(int(err), f"error {err}")
            raise GameError(f"seat {self.to_act}: {action}: {msg}")

    def _write_proposal(self, melds: tuple[tuple[str, ...], ...]) -> None:
        nm = int(self.R.n_melds[int(self.S[L.S_HAND])])
        if len(melds) != nm:
            raise GameError(f"the contract {self.rules.contracts[int(self.S[L.S_HAND])]} "
                            f"needs {nm} melds, got {len(melds)}")
        GD, GDJ = self.G.gd, self.G.gdj
        self.S[L.S_GD_AT] = 0     # GD no longer holds the finder's lay-down
        GD[:] = 0
        GDJ[:] = -1
        for i, (kind, key, lo, ids) in enumerate(_proposal_rows(melds)):
            if len(ids) > L.TW:
                raise GameError("meld too long")
            GD[i, L.M_KIND], GD[i, L.M_KEY], GD[i, L.M_LO], GD[i, L.M_N] = kind, key, lo, len(ids)
            GD[i, L.M_CARDS:L.M_CARDS + len(ids)] = ids

    def set_position(self, hands: "dict[int, str]", upcard: str | None = None, stock: str = "",
                     pile: str = "", down: "tuple[int, ...] | list[int]" = (),
                     play: int | None = None, known: "dict[int, str] | None" = None) -> None:
        """Put a scripted position on the table, for rule tests and puzzles.

        ``hands``: seat -> its cards (``"5C 6C 7C JK"``), replacing what it was dealt;
        ``stock``: the stock, top card first; ``pile``: the discard pile under the
        upcard, bottom first; ``upcard``: the card on top of the pile, on offer;
        ``down``: seats marked as down already; ``play``: the seat that has drawn and now
        plays (phase "play"); ``known``: seat -> the cards it took from the pile or bought
        in this hand and still holds, which every seat knows (they must be in its hand).
        Card conservation is the caller's business (a game built with ``check=True`` would
        refuse a position that breaks it).
        """
        S, PS, H = self.S, self.G.ps, self.G.hands
        for q, cards in hands.items():
            H[q, :] = 0
            ids = parse_cards(cards)
            for c in ids:
                H[q, c] += 1
            PS[q, L.PS_N] = len(ids)
            self.G.priv[q, L.PV_DEFOK] = L.DEF_UNKNOWN     # its cached deficiency
            PS[q, L.PS_DECL0:L.PS_DECL0 + L.NCARDS] = 0    # what it threw or refused: not known here
        for q in down:
            PS[q, L.PS_DOWN] = 1
        for q, cards in (known or {}).items():
            PS[q, L.PS_KNOWN0:L.PS_KNOWN0 + 53] = 0
            for c in parse_cards(cards):
                PS[q, L.PS_KNOWN0 + c] += 1
        st = parse_cards(stock)
        self.G.stock[:len(st)] = st[::-1]
        S[L.S_STOCK_N] = len(st)
        pl = parse_cards(pile) + ([card_id(upcard)] if upcard else [])
        self.G.pile[:len(pl)] = pl
        S[L.S_PILE_N] = len(pl)
        if upcard:
            S[L.S_UP] = card_id(upcard)
            S[L.S_UP_ON_PILE] = 1
        if play is not None:
            S[L.S_PHASE] = K.PH_PLAY
            S[L.S_CUR] = S[L.S_ACTOR] = play
        S[L.S_CGD_AT] = -1        # the cached "can go down" answer no longer holds

    def workspace(self) -> tuple:
        """The search bots' workspace W of this table (``layout.WORKSPACE_SPEC``: where the
        rollout bot samples and plays out), allocated on first use; ``self.W`` stays None at
        a table without a search bot, so their kernels are not compiled (kernels.games.dispatch)."""
        if self.W is None:
            self.W = L.new_workspace(self.R)
        return self.W

    def bot_action(self, spec: str | None = None) -> Action:
        """What the seat's built-in bot would do now, or the bot of ``spec`` (a bot spec
        string) if given: then only a question, so the seat's random stream is left as it was
        (a random bot draws from it) and the game stays the same seeded game."""
        seat = self.to_act
        if spec is None:
            code = int(seat_action_nb(self.R, self.G, self.W, self.SM, np.int64(self.kinds[seat]), self.params[seat]))
            return self._describe(code)
        b = self._asked.get(spec)
        if b is None:           # parsed and checked once per game: a hint or a study asks often
            b = parse_bot(spec)
            refuse_diagnostics([b], self._diagnostic)
            self._asked[spec] = b
        if needs_workspace([b.kind]):
            self.workspace()
        if smart_flag([b.kind]):
            self.SM = True
        rng = self.G.rng[L.RNG_BOT0 + seat].copy()
        try:
            code = int(seat_action_nb(self.R, self.G, self.W, self.SM, np.int64(b.kind), b.array()))
        finally:
            self.G.rng[L.RNG_BOT0 + seat] = rng
        return self._describe(code)

    def step(self) -> Action:
        """One action of the seat to act by its bot (or Python callable)."""
        seat = self.to_act
        if seat is None:
            raise GameError("the game is over")
        fn = self.python.get(seat, "bot")
        if fn is None:
            raise GameError(f"seat {seat} is played by Python code: apply() its action")
        a = fn(self, seat, self.legal_actions()) if callable(fn) else self.bot_action()
        self.apply(a)
        return a

    def advance(self) -> None:
        """Let bots and Python callables act until a hand-played seat must act or the game ends."""
        while not self.over and self.python.get(self.to_act, "bot") is not None:
            self.step()

    def play(self, fallback: str = "greedy") -> list[int]:
        """Play to the end; seats played by hand are handed to the ``fallback`` bot.
        Returns the totals."""
        fb = parse_bot(fallback)
        if needs_workspace([fb.kind]):
            self.workspace()
        if smart_flag([fb.kind]):
            self.SM = True
        for q, fn in list(self.python.items()):
            if fn is None:
                del self.python[q]
                self.kinds[q] = fb.kind
                self.params[q] = fb.array()
        while not self.over:
            self.step()
        return self.totals()

    def events(self) -> list[dict[str, Any]]:
        """The event log so far, decoded (docs/replay.md)."""
        n = int(self.S[L.S_LOG_N])
        return decode(self.G.log[:n], self.players, [str(c) for c in self.rules.contracts])


def game_events(rules: "str | Rules | None" = "shanghai", players: int | None = None,
                seed: int = 0, bots: "str | list[str]" = "greedy",
                log_size: int = DEFAULT_LOG_SIZE, check: bool = False, diagnostic: bool = False
                ) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Play one seeded game with the batch kernel, logging on: (events, records[hands, players, NHF]).
    A diagnostic bot (it cheats) is refused unless ``diagnostic``."""
    from .bots import parse_bots
    refuse_diagnostics(bots, diagnostic)
    r, p = _rules_for(rules, players, seed)
    R = r.arrays(p)
    kinds, params = parse_bots(bots, p, r.hands)
    size = int(log_size)
    while True:
        G = L.new_state(R, size)
        try:
            W = L.new_workspace(R) if needs_workspace(kinds) else None
            err = play_game_nb(R, G, W, smart_flag(kinds), None, kinds, params, np.uint64(int(seed)), 1, int(check))
        except ValueError as e:
            if "log_size" in str(e) and size < (1 << 28):
                size *= 4
                continue
            raise
        break
    if err != K.E_OK:
        raise GameError(f"seed {seed}: {_ERRORS.get(int(err), f'error {err}')}")
    n = int(G.s[L.S_LOG_N])
    return decode(G.log[:n], p, [str(c) for c in r.contracts]), G.rec[:, :p].copy()
