"""What the person types: the legal actions offered, and a typed line read into one of them.

``choices`` is the menu (the legal actions, with other lay-downs after the finder's go down:
``_alternatives``); ``_parse`` reads a line (an action's number, or a command: ``take``,
``down 9D 9H 9S | 5C 6C 7C 8C``, ``layoff 7C 2 high``, ``discard 7C``, ``hint``, ``quit``...)
into an action, answers a command, or raises ``GameError``/``CardError`` with a one-line
reason, ``Stop`` when the person quits. ``HELP`` is the commands' list.
It is a mixin of ``driver.HumanGame``, which gives it ``game``, ``rules``, ``seat``, ``seats``,
``players``, ``_write``, ``_feed`` (the decoded log) and the person's seat (``_cards()``,
``_down()``, ``_deficiency(cards)``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..cards import card_id, card_str
from ..game import Action, GameError, GoDown
from ..hand import analyze_hand
from ..kernels.base import layout as L
from ..rules import GoOut
from .screen import _melds_text

# Lay-downs offered besides the least-deadwood one (each keeps some card in hand).
MAX_ALTERNATIVES = 3

HELP = """\
Type the number of an action, or one of:
  take | draw | pass | buy          the upcard and the stock (when they are offered)
  down                              go down with the proposed (least-deadwood) lay-down
  down 9D 9H 9S | 5C 6C 7C 8C       go down with melds of your own, separated by |
  layoff 7C [MELD] [low|high]       lay off a card (MELD: its number on the table)
  swap 7C [MELD]                    put 7C in place of the joker it stands for
  discard 7C                        discard a card
  hint    what the strongest bot would do, and why
  melds   the best lay-down of your hand
  score   the running totals
  show    this decision's summary again
  quit    stop the game (Ctrl-D and Ctrl-C stop it too)
Cards: rank then suit, as in 7C, TH, 10H, AS, JK (docs/rules.md §2)."""


MAX_LINE = 500        # a longer input line is refused without being echoed back


class Stop(Exception):
    """The person stopped the game: `quit`, end of input or Ctrl-C."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Moves:
    """The actions on offer and the person's typed lines read into them."""

    def choices(self) -> list[Action]:
        """The legal actions, with other lay-downs after the finder's go down."""
        out: list[Action] = []
        for a in self.game.legal_actions():
            if a.kind == "go_down" and a.melds:
                dw = self._points(self._left(a.melds))
                out.append(replace(a, text=f"{a.text} (deadwood {dw})"))
                out += self._alternatives(a)
            else:
                out.append(a)
        return out

    def _points(self, cards: list[str]) -> int:
        pts = self.game.R.points
        return sum(int(pts[card_id(c)]) for c in cards)

    def _left(self, melds) -> list[str]:
        left = list(self._cards())
        for m in melds:
            for c in m:
                left.remove(c)
        return left

    def _alternatives(self, best: Action) -> list[Action]:
        """Other lay-downs, least deadwood first: for each card, the best lay-down of the hand
        without it, so that the card stays in hand (a joker kept back, a shorter run). Only
        those that leave a number of cards that can end the turn whatever they are
        (docs/rules.md §3 go_out); one per set of kept ranks."""
        cards = self._cards()
        best_left = self._left(best.melds)
        seen = {_key(best.melds)}
        kept_ranks: set[tuple[str, ...]] = set()
        found = []
        for c in dict.fromkeys(cards):
            rest = list(cards)
            rest.remove(c)
            a = analyze_hand(rest, self.game.hand, self.rules)
            if not a.satisfiable:
                continue
            melds = tuple(tuple(m) for m in a.melds)
            if _key(melds) in seen:
                continue
            seen.add(_key(melds))
            left = self._left(melds)
            if not self._finishable(len(left)):
                continue
            kept = list(left)
            for x in best_left:
                if x in kept:
                    kept.remove(x)
            # keeping 8S or 8H back from a set of 8s is one choice, not two
            ranks = tuple(sorted(c[:-1] if c != "JK" else c for c in kept))
            if ranks in kept_ranks:
                continue
            kept_ranks.add(ranks)
            found.append((self._points(left), _key(melds), melds, kept))
        found.sort(key=lambda t: (t[0], t[1]))
        # GoDown: a proposal of ours, which Game.apply hands to the engine to check
        return [replace(GoDown(list(melds)), seat=self.seat,
                        text=f"go down: {_melds_text(melds)} (deadwood {dw}, keeps {' '.join(kept)})")
                for dw, _, melds, kept in found[:MAX_ALTERNATIVES]]

    def _finishable(self, r: int) -> bool:
        go = self.rules.go_out
        if r >= 2:
            return True
        if r == 1:
            return go != GoOut.NO_DISCARD
        return go != GoOut.DISCARD_REQUIRED

    def _parse(self, line: str, choices: list[Action]) -> Action | None:
        """The action a line asks for, or None after answering a command; GameError or
        CardError with a one-line reason for input that names no legal action."""
        n = len(choices)
        if not line:
            self._write(f"type a number 1-{n}, a command such as `discard 7C`, or help")
            return None
        if line.isascii() and line.isdigit():
            k = int(line)
            if not 1 <= k <= n:
                raise GameError(f"there is no action {k}: choose 1-{n}")
            return choices[k - 1]
        words = line.split()
        cmd, args = words[0].lower(), words[1:]
        if cmd in ("quit", "exit", "q"):
            raise Stop("quit")
        if cmd in ("help", "?", "h"):
            self._write(HELP)
            return None
        if cmd == "hint":
            self._write(self.hint(choices))
            return None
        if cmd == "melds":
            self._write(self._melds_info())
            return None
        if cmd in ("score", "scores"):
            self._write(self._score())
            return None
        if cmd in ("show", "look"):
            self._write(self._status())
            self._write(self._menu(choices))
            return None
        if cmd in ("take", "draw", "pass", "buy"):
            return self._one(cmd, choices)
        if cmd in ("discard", "layoff", "lay", "swap"):
            if cmd == "lay" and args and args[0].lower() == "off":
                args = args[1:]
            return self._by_card("layoff" if cmd == "lay" else cmd, args, choices)
        if cmd in ("down", "godown", "go"):
            if cmd == "go" and args and args[0].lower() == "down":
                args = args[1:]
            return self._go_down(" ".join(args), choices)
        raise GameError(f"unknown command {words[0]!r}: type a number 1-{n}, or help")

    def _kinds_now(self, choices: list[Action]) -> str:
        names = {"take": "take", "draw": "draw", "pass": "pass", "buy": "buy", "go_down": "down",
                 "layoff": "layoff", "swap": "swap", "discard": "discard"}
        return ", ".join(dict.fromkeys(names[a.kind] for a in choices))

    def _one(self, kind: str, choices: list[Action]) -> Action:
        for a in choices:
            if a.kind == kind:
                return a
        raise GameError(f"you cannot {kind} now (you can: {self._kinds_now(choices)})")

    def _by_card(self, kind: str, args: list[str], choices: list[Action]) -> Action:
        usage = {"discard": "discard 7C", "layoff": "layoff 7C [MELD] [low|high]",
                 "swap": "swap 7C [MELD]"}[kind]
        if not args:
            raise GameError(f"which card? e.g. {usage}")
        card = card_str(card_id(args[0]))
        if card not in self._cards():
            raise GameError(f"{card} is not in your hand")
        meld = end = None
        for w in args[1:]:
            if w.isascii() and w.isdigit():
                meld = int(w)
            elif w.lower() in ("low", "high"):
                end = w.lower()
            else:
                raise GameError(f"unexpected {w!r}: {usage}")
        of_kind = [i for i, a in enumerate(choices, 1) if a.kind == kind]
        verb = "lay off" if kind == "layoff" else kind
        if not of_kind:
            why = ""
            if self.game.phase != "play":
                why = ": it is not your turn to play yet"
            elif kind == "layoff" and not self._down():
                why = ": only a player who is down may lay off (docs/rules.md §4)"
            elif kind == "layoff":
                why = ": nothing can be laid off now"
            raise GameError(f"you cannot {verb} now{why} (you can: {self._kinds_now(choices)})")
        match = [i for i in of_kind if choices[i - 1].card == card
                 and (meld is None or choices[i - 1].meld == meld)
                 and (end is None or choices[i - 1].end == end)]
        if not match:
            where = f" on meld {meld}" if meld is not None else ""
            if kind == "layoff":
                raise GameError(f"{card} cannot be laid off{where}{f' ({end} end)' if end else ''}")
            if kind == "swap":
                raise GameError(f"{card} cannot take a joker's place{where}")
            raise GameError(f"{card} cannot be discarded now (docs/rules.md §3 go_out)")
        if len(match) > 1:
            raise GameError(f"several actions fit: choose one of {', '.join(map(str, match))}")
        return choices[match[0] - 1]

    def _go_down(self, text: str, choices: list[Action]) -> Action:
        if self.game.phase != "play":
            raise GameError(f"you cannot go down now: it is not your turn to play yet "
                            f"(you can: {self._kinds_now(choices)})")
        if self._down():
            raise GameError("you are already down")
        if not text.strip():
            for a in choices:
                if a.kind == "go_down":
                    return a
            d = self._deficiency(self._cards())
            raise GameError(f"your hand does not meet the contract yet (deficiency {d})"
                            if d else "you cannot go down now (docs/rules.md §3 go_out)")
        melds = [m for m in re.split(r"[|/;]", text) if m.strip()]
        need = len(self.rules.contracts[self.game.hand - 1].melds)
        if len(melds) != need:
            raise GameError(f"the contract {self.rules.contracts[self.game.hand - 1]} needs "
                            f"{need} melds, separated by |: got {len(melds)}")
        return GoDown(melds)


def _key(melds) -> tuple:
    return tuple(sorted(tuple(sorted(m)) for m in melds))


def _reason(e: GameError) -> str:
    """The engine's reason without the 'seat N: action:' prefix of Game.apply."""
    msg = str(e)
    return msg.rsplit(": ", 1)[-1] if msg.startswith("seat ") else msg
