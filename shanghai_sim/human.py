"""A person plays one seat at the terminal against the bots (``shanghai-sim play``).

The game is a ``shanghai_sim.Game`` (the same kernels as every other game)
whose person's seat is played by hand: the bots act through
``Game.advance()``, and at each of the person's decisions ``HumanGame``
shows what that seat may see (its cards, the table melds and their owners,
the upcard, every seat's card count, buys left and who is down), numbers the
legal actions, reads one line and applies the action. Input and output are
two callables, ``read(prompt) -> str`` (raising EOFError at the end of
input) and ``write(text)``, so the command line and the tests drive the same
code.

What a person may not see stays off the screen: the other seats' deals,
stock draws and penalty cards are shown as counts. A hand's end is a pause
(``play``): who went out or why the hand stopped, each seat's cards left (shown
at scoring, as at a real table) and points, the totals; the next deal comes
once the person presses Enter (``hand_results`` gives the same to the page of
``serve``, which pauses there too). The saved log
(``log_events()``) is the full event log in the ``replay --json`` format
(docs/replay.md), opened by a ``game`` event (seed, rules, who sat where)
and, when the person stopped before the end, closed by a ``stopped`` event.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Callable

from .bots import BotError, parse_bot, split_specs
from .cards import CardError, card_id, card_str
from .game import Action, Game, GameError, GoDown
from .hand import analyze_hand
from .kernels.base import layout as L
from .kernels.base import codes as K
from .log import SCHEMA_VERSION, decode, public_line
from .rules import GoOut, load_rules

# The bot that answers `hint`: the strongest in shanghai_sim.bots.BOTS. Change it here
# when a stronger one is registered.
HINT_BOT = "smart"
# Lay-downs offered besides the least-deadwood one (each keeps some card in hand).
MAX_ALTERNATIVES = 3
HUMAN = "human"

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


def _clip(message: str, width: int = 300) -> str:
    """A one-line answer no longer than ``width``: a pasted page is not echoed back whole."""
    return message if len(message) <= width else message[:width - 3] + "..."

class Stop(Exception):
    """The person stopped the game: `quit`, end of input or Ctrl-C."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Feed:
    """The decoded event log of a game in progress. Only the hand in progress is decoded
    again on each call; finished hands are kept (the decoder's table starts at a hand)."""

    def __init__(self, game: Game):
        self.g = game
        self.contracts = [str(c) for c in game.rules.contracts]
        self.done: list[dict[str, Any]] = []
        self.start = 0

    def events(self) -> list[dict[str, Any]]:
        G = self.g.G
        n = int(G[L.G_S][L.S_LOG_N])
        log = G[L.G_LOG]
        i = last = self.start
        while i < n:
            if int(log[i]) == K.EV_HAND:
                last = i
            i += 2 + int(log[i + 1])
        if last > self.start:
            self.done += decode(log[self.start:last], self.g.players, self.contracts)
            self.start = last
        return self.done + decode(log[self.start:n], self.g.players, self.contracts)


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def table_options(rules: Any = "shanghai", players: int | None = None, seat: int = 0,
                  bots: "str | list[str]" = "greedy") -> tuple[Any, int, int, list[str]]:
    """The table of a person's game, checked: (Rules, players, the person's seat, the other
    seats' canonical bot specs in seat order). GameError, BotError or RulesError with a
    one-line reason otherwise. HumanGame checks its options here; ``serve`` checks them
    before it starts (the game itself is built once the page is up)."""
    r = load_rules(rules, None if players is None else int(players))
    p = r.players if players is None else int(players)
    if not 0 <= int(seat) < p:
        raise GameError(f"seat {seat}: must be 0..{p - 1} for {p} players")
    specs = split_specs(bots)
    if len(specs) == 1:
        specs = specs * (p - 1)
    if len(specs) != p - 1:
        raise BotError(f"{len(specs)} bot specs for the {p - 1} other seats "
                       f"(give one spec for all of them or one per other seat)")
    return r, p, int(seat), [parse_bot(s, r.hands).name for s in specs]


class HumanGame:
    """One game with a person at ``seat`` and bots at the other seats.

    ``bots``: one spec for every other seat, or one per other seat in seat order
    (a comma-separated string or a list).
    """

    def __init__(self, rules: Any = "shanghai", players: int | None = None, seat: int = 0,
                 bots: "str | list[str]" = "greedy", seed: int = 0,
                 read: Callable[[str], str] = input, write: Callable[[str], None] = print):
        r, p, seat, names = table_options(rules, players, seat, bots)
        self.seat = seat
        self.seats = names[:self.seat] + [HUMAN] + names[self.seat:]
        self.game = Game(r, p, seed, bots=[HUMAN if q == self.seat else self.seats[q]
                                           for q in range(p)])
        self.rules = self.game.rules
        self.players = p
        self.seed = int(seed)
        self._read = read
        self._write = write
        self._feed = _Feed(self.game)
        self._shown = 0
        self._same_turn = False     # only the person has acted since their last decision
        self.stopped: str | None = None
        self._pause_hands = False   # play(): stop the screen at a hand's end until the person goes on
        self._paused: int | None = None     # the hand whose end the screen stopped at
        self._results: list[dict[str, Any]] = []
        self._results_at = 0        # events read into _results
        self._held: list[dict[str, int]] = []       # each seat's cards in the hand being read
        self._out: dict[str, Any] | None = None     # its `out` event

    # ------------------------------------------------------------ the loop
    def play(self) -> str | None:
        """Play until the game is over or the person stops it, pausing at each hand's end
        (``_pause``: its result, then Enter). Returns None when the game ended, else why it
        stopped ('quit', 'end of input', 'interrupted')."""
        self.start()
        self._pause_hands = True
        try:
            while True:
                self.advance()
                while self._paused is not None:
                    self._pause()
                if self.game.over:
                    break
                self._decide()
        except Stop as e:
            self.stopped = e.reason
        except KeyboardInterrupt:
            self.stopped = "interrupted"
        self.finish()
        return self.stopped

    # The steps of play(), for a front end that is not a terminal loop (shanghai-sim serve):
    # start(), then advance() and one submit() per line the person gives until the game is
    # over (or submit raises Stop: set stopped), then finish().
    def start(self) -> None:
        """Write who sits where."""
        self._write(self._intro())

    def advance(self) -> None:
        """Let the bots act until the person must decide or the game ends; write each event
        as the person may see it."""
        self.game.advance()
        self._scroll()

    def submit(self, line: str, choices: list[Action] | None = None) -> bool:
        """One line of the person's input (an action's number or a command, as at the
        terminal): True once it applied an action. A command's answer, or the one-line
        reason a line names no legal action, is written; Stop when the person quits."""
        choices = self.choices() if choices is None else choices
        line = line.strip()
        if len(line) > MAX_LINE:
            self._write(f"a line of {len(line):,} characters is no move (at most {MAX_LINE}): "
                        f"type a number 1-{len(choices)}, a command such as `discard 7C`, or help")
            return False
        try:
            action = self._parse(line, choices)
        except (GameError, CardError, BotError) as e:
            self._write(_clip(str(e)))
            return False
        if action is None:
            return False
        try:
            self.game.apply(action)
        except GameError as e:
            self._write("not allowed: " + _reason(e))
            return False
        return True

    def finish(self) -> None:
        """Write the result, or that the game stopped (``stopped``) and has none."""
        if self.stopped:
            self._pause_hands = False
            self._scroll()
            self._write(f"game stopped ({self.stopped}) in hand {self.game.hand}; "
                        f"it has no result")
        else:
            self._write(self._result())

    def log_events(self) -> list[dict[str, Any]]:
        """The game's events for ``play --log`` (docs/replay.md): the full log, the person's
        choices and the bots' hidden cards included."""
        r = self.rules
        head = {"event": "game", "schema": SCHEMA_VERSION, "seed": self.seed,
                "rules": r.name, "players": self.players,
                "seats": list(self.seats), "human": self.seat,
                "contracts": [str(c) for c in r.contracts], "buys": list(r.buys_per_hand),
                "shoe": r.shoe_size(self.players)}
        out = [head] + self._feed.events()
        if self.stopped:
            out.append({"event": "stopped", "hand": self.game.hand, "reason": self.stopped})
        return out

    def _ask(self, prompt: str) -> str:
        try:
            return self._read(prompt)
        except EOFError:
            self._write("")         # the prompt's line stays open at a terminal
            raise Stop("end of input") from None
        except KeyboardInterrupt:
            self._write("")
            raise Stop("interrupted") from None

    def _decide(self) -> None:
        choices = self.choices()
        # A second decision in one turn (after a lay-off, say): the line above said what
        # changed, so the cards and the menu are enough; `show` gives the whole picture.
        self._write(self._cards_line() if self._same_turn and self.game.phase == "play"
                    else self._status())
        self._write(self._menu(choices))
        prompt = f"seat {self.seat}, your move (1-{len(choices)}, or help)> "
        while not self.submit(self._ask(prompt), choices):
            pass

    # ------------------------------------------------------------ the screen
    def _intro(self) -> str:
        who = ", ".join(f"{q} {'you' if q == self.seat else n}" for q, n in enumerate(self.seats))
        return (f"Shanghai, rules {self.rules.name}, {self.players} players, seed {self.seed} "
                f"(the same game again: --seed {self.seed})\n"
                f"seats: {who}. Type the number of an action or a command; help lists them.")

    def _scroll(self) -> None:
        """Write the events not yet shown; in play(), stop after a hand's end that the game
        goes on from (the pause: ``_pause``)."""
        ev = self._feed.events()
        new = []
        for e in ev[self._shown:]:
            self._write(self.public_line(e))
            new.append(e)
            if self._pause_hands and e["event"] == "hand_end" and e["hand"] < self.rules.hands:
                self._paused = e["hand"]
                break
        self._shown += len(new)
        self._same_turn = bool(new) and all(e.get("seat") == self.seat for e in new)

    def _pause(self) -> None:
        """The end of hand ``_paused``: its result, then the next deal once the person goes on
        (Enter). ``score`` and ``help`` answer; ``quit`` stops; any other line goes on too,
        and is not played (the next hand is not on the screen yet)."""
        h = self._paused
        self._write(self.hand_summary(h))
        nxt = f"hand {h + 1} ({self.rules.contracts[h]})"
        while True:
            line = self._ask(f"press Enter for {nxt}, or type score or quit> ").strip()
            cmd = line.lower()
            if cmd in ("quit", "exit", "q"):
                raise Stop("quit")
            if cmd in ("score", "scores"):
                self._write(self._score())
                continue
            if cmd in ("help", "?", "h"):
                self._write(f"hand {h} is over; Enter deals {nxt}. score: the scores so far; "
                            f"quit: stop the game (it has no result)")
                continue
            if line and cmd not in ("next", "n", "continue", "c"):
                self._write(_clip(f"{line!r} is not played: {nxt} is dealt first, type your move there"))
            break
        self._paused = None
        self._scroll()

    def hand_results(self) -> list[dict[str, Any]]:
        """Each finished hand's result, from the log: ``hand``, ``contract``, ``winner`` (the
        seat that went out, or None), ``reason`` (``out`` / ``stock`` / ``turn_cap``),
        ``how`` (``melds`` / ``discard``, None when stopped), ``blind``, per seat ``left``
        (the cards it held at the end: shown at scoring, as at a real table) and ``scores``
        (its points for the hand), and the ``totals`` after it."""
        ev = self._feed.events()
        for e in ev[self._results_at:]:
            t, q = e["event"], e.get("seat")
            if t == "hand":
                self._held = [{} for _ in range(self.players)]
                self._out = None
            elif t == "deal":
                self._held[q] = {}
                _take(self._held[q], e["cards"])
            elif t == "draw":
                _take(self._held[q], [e["card"]])
            elif t == "buy":
                _take(self._held[q], [e["card"]] + list(e["penalty"]))
            elif t == "go_down":
                _give(self._held[q], [c for m in e["melds"] for c in m["cards"]])
            elif t in ("layoff", "discard"):
                _give(self._held[q], [e["card"]])
            elif t == "swap":
                _give(self._held[q], [e["card"]])
                _take(self._held[q], ["JK"])
            elif t == "out":
                self._out = {"how": e["how"], "blind": e["blind"]}
            elif t == "hand_end":
                how = self._out if e["winner"] is not None else None
                self._results.append({
                    "hand": e["hand"], "contract": str(self.rules.contracts[e["hand"] - 1]),
                    "winner": e["winner"], "reason": e["reason"],
                    "how": how["how"] if how else None, "blind": bool(how and how["blind"]),
                    "left": [_cards_of(hh) for hh in self._held], "scores": list(e["scores"]),
                    "totals": list(e["totals"])})
                self._out = None
        self._results_at = len(ev)
        return list(self._results)

    def hand_summary(self, hand: int) -> str:
        """A finished hand's result as the terminal shows it at the pause."""
        r = self.hand_results()[hand - 1]
        if r["winner"] is not None:
            w = r["winner"]
            who = "you" if w == self.seat else f"seat {w} ({self.seats[w]})"
            how = "by discarding" if r["how"] == "discard" else "melding the last card"
            head = f"{who} went out ({how}{', blind' if r['blind'] else ''})"
        elif r["reason"] == "stock":
            head = "nobody went out: the stock ran out (docs/rules.md §5.5); everybody scores what they hold"
        else:
            head = "nobody went out: the turn cap was reached (docs/rules.md §5.8); everybody scores what they hold"
        names = [f"{q} {'you' if q == self.seat else self.seats[q]}" for q in range(self.players)]
        w = max(len(n) for n in names) + 2
        lines = [f"== hand {hand} of {self.rules.hands} ({r['contract']}) is over: {head}",
                 f"   {'seat':<{w}}{'points':>6} {'total':>6}   cards left"]
        for q in range(self.players):
            cards = r["left"][q]
            left = "none (went out)" if r["winner"] == q else f"{len(cards)}: {' '.join(cards)}" if cards else "none"
            lines.append(f"   {names[q]:<{w}}{r['scores'][q]:>6} {r['totals'][q]:>6}   {left}")
        return "\n".join(lines)

    def public_line(self, e: dict[str, Any]) -> str:
        """format_event(e) as the person may see it: others' hidden cards as counts
        (``log.public_line``)."""
        return public_line(e, self.seat, " (you)")

    def _cards(self) -> list[str]:
        return self.game.hand_cards(self.seat)

    def _down(self) -> bool:
        return bool(self.game.G[L.G_PS][self.seat, L.PS_DOWN])

    def _deficiency(self, cards: list[str]) -> int:
        return analyze_hand(cards, self.game.hand, self.rules).deficiency

    def _status(self) -> str:
        g, v = self.game, self.game.view(self.seat)
        lines = [f"-- hand {v['hand']} of {self.rules.hands}, contract {v['contract']} -- "
                 + self._situation(v), self._cards_line()]
        if v["table"]:
            for k, md in enumerate(v["table"]):
                who = "you" if md["owner"] == self.seat else f"seat {md['owner']}"
                lines.append(f"{'table:' if k == 0 else '':<7}{meld_line(md)} ({who})")
        else:
            lines.append("table: no melds yet")
        up = ""
        if g.phase in ("first_refusal", "buy", "draw"):
            up = f"upcard: {card_str(int(g.S[L.S_UP]))}   "
        elif v["pile"] > 0:
            up = f"pile top: {card_str(int(g.G[L.G_PILE][v['pile'] - 1]))}   "
        lines.append(f"{up}stock {v['stock']}, pile {v['pile']}")
        for q in range(self.players):
            who = "you" if q == self.seat else self.seats[q]
            extra = "down" if v["down"][q] else _n(v["buys_left"][q], "buy") + " left"
            took = f", took {' '.join(v['known'][q])}" if v["known"][q] and q != self.seat else ""
            lines.append(f"{'seats:' if q == 0 else '':<7}{q} {who}: {_n(v['hand_sizes'][q], 'card')}, "
                         f"{extra}, total {v['totals'][q]}{took}")
        return "\n".join(lines)

    def situation(self) -> str:
        """The decision now in one line (what is on offer, what the person may do) and how far
        the hand is from the contract."""
        cards = self._cards()
        state = "you are down" if self._down() else f"deficiency {self._deficiency(cards)}"
        return f"{self._situation(self.game.view(self.seat))} [{state}]"

    def _cards_line(self) -> str:
        """The person's cards by suit, then rank (jokers last), and how far from the contract."""
        cards = self._cards()
        groups = [[c for c in cards if c != "JK" and c[-1] == s] for s in "CDHS"]
        groups.append([c for c in cards if c == "JK"])
        shown = "  ".join(" ".join(x) for x in groups if x)
        state = "you are down" if self._down() else f"deficiency {self._deficiency(cards)}"
        return f"your cards ({len(cards)}): {shown}   [{state}]"

    def _situation(self, v: dict[str, Any]) -> str:
        g = self.game
        up = card_str(int(g.S[L.S_UP]))
        if g.phase == "first_refusal":
            frm = int(g.S[L.S_UP_FROM])
            what = f"seat {frm} discarded {up}" if frm >= 0 else f"the first upcard is {up}"
            return (f"{what}: you are next. Take it as your draw, or pass "
                    f"(others may then buy it, and you draw from the stock)")
        if g.phase == "buy":
            return (f"{up} is for sale: buy it with {_n(self.rules.buy_penalty, 'penalty card')} "
                    f"({_n(v['buys_left'][self.seat], 'buy')} left), or pass")
        if g.phase == "draw":
            return f"your turn: take the upcard {up} or draw from the stock"
        return "your turn: play"

    def _menu(self, choices: list[Action]) -> str:
        lines, discards = [], []
        for i, a in enumerate(choices, 1):
            if a.kind == "discard":
                discards.append(f"{i}) {a.card}")
            else:
                lines.append(f"  {i}) {a}")
        if discards:
            lines.append("  discard: " + "  ".join(discards))
        return "\n".join(lines)

    def _result(self) -> str:
        tot = self.game.totals()
        rank = self.game.ranking()[self.seat]
        ties = sum(1 for t in tot if t == tot[self.seat]) - 1
        shared = f" (shared with {ties} other{'s' if ties > 1 else ''})" if ties else ""
        return (f"you finished {_ordinal(rank)} of {self.players}{shared} "
                f"with {tot[self.seat]} points (lowest wins)")

    # ------------------------------------------------------------ the actions
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
        pts = self.game.R[L.R_POINTS]
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

    # ------------------------------------------------------------ advice
    def hint(self, choices: list[Action] | None = None) -> str:
        """What HINT_BOT would do now and why, in one line."""
        return self.advice(choices)[1]

    def advice(self, choices: list[Action] | None = None) -> tuple[int | None, str]:
        """HINT_BOT's action now: its number among ``choices`` (1-based; None if it is not
        one of them) and the hint's line."""
        choices = self.choices() if choices is None else choices
        a = self.game.bot_action(HINT_BOT)
        k = next((i for i, b in enumerate(choices, 1) if b.code == a.code), None)
        num = f"{k}) " if k is not None else ""
        return k, f"hint from {parse_bot(HINT_BOT).name}: {num}{a}: {self._why(a)}"

    def _why(self, a: Action) -> str:
        g = self.game
        cards = self._cards()
        down = self._down()
        up = card_str(int(g.S[L.S_UP]))
        if down and a.kind in ("take", "draw"):
            return (f"the upcard {up} fits a meld on the table" if self._fits(up)
                    else f"the upcard {up} fits no meld on the table")
        if down and a.kind == "pass" and not self.rules.down_may_buy:
            return "a player who is down may not buy (docs/rules.md §3 down_may_buy)"
        if a.kind in ("take", "pass", "buy"):
            d0 = self._deficiency(cards)
            d1 = self._deficiency(cards + [up])
            eff = (f"{up} lowers your deficiency from {d0} to {d1}" if d1 < d0
                   else "your hand meets the contract already (deficiency 0)" if d0 == 0
                   else f"{up} would leave your deficiency at {d0}")
            if a.kind == "buy":
                price = f"at the price of {_n(self.rules.buy_penalty, 'penalty card')}"
                if d0 == 0:
                    return f"{eff}; the bot buys it all the same, {price}"
                if d1 >= d0:
                    return f"{eff}, but you need more cards to go down: {price}"
                return f"{eff}, {price}"
            if a.kind == "pass" and g.phase == "buy" and d1 < d0:
                left = g.view(self.seat)["buys_left"][self.seat]
                return f"{eff}, but {'you have no buys left' if left <= 0 else 'the bot keeps its buys'}"
            if a.kind == "pass" and d1 < d0:
                return f"{eff}, but every discard after it would raise it again"
            return eff
        if a.kind == "draw":
            return "draw from the stock"
        if a.kind == "go_down":
            left = self._left(a.melds or ())
            return (f"your hand meets the contract: {len(cards) - len(left)} cards go down, "
                    f"{self._points(left)} points of deadwood stay")
        if a.kind == "layoff":
            return f"{a.card} fits meld {a.meld}: one card fewer in your hand"
        if a.kind == "swap":
            return (f"{a.card} frees a joker from meld {a.meld}, which "
                    + ("can then be laid off" if down else "lets you go down this turn"))
        pts = self._points([a.card])
        if down:
            fit = "fits no table meld and " if not self._fits(a.card) else ""
            return f"{a.card} {fit}is worth {pts} points"
        rest = list(cards)
        rest.remove(a.card)
        d0, d1 = self._deficiency(cards), self._deficiency(rest)
        eff = f"your deficiency stays {d0}" if d1 == d0 else f"your deficiency goes from {d0} to {d1}"
        return f"{eff}; {a.card} is worth {pts} points"

    def _fits(self, card: str) -> bool:
        """Does the card extend a table meld (a natural by rank or run end; a joker anywhere
        the joker limit allows)? Used to explain, not to decide: the engine decides."""
        c = card_id(card)
        for md in self.game.table():
            n = len(md["cards"])
            if c == L.JOKER:
                if sum(1 for x in md["cards"] if x == "JK") + 1 <= self.rules.joker_cap(n + 1) \
                        and (md["kind"] == "set" or n < 13):
                    return True
                continue
            if md["kind"] == "set":
                if card[:-1] == md["rank"]:
                    return True
            elif card[-1] == md["suit"] and n < 13:
                r = "A23456789TJQK".index(card[:-1])
                lo, hi = md["positions"][0], md["positions"][-1]
                if (lo > 0 and r == (lo - 1) % 13) or (hi < 13 and r == (hi + 1) % 13):
                    return True
        return False

    def _melds_info(self) -> str:
        cards = self._cards()
        if self._down():
            fit = [c for c in dict.fromkeys(cards) if self._fits(c)]
            return ("you are down: lay off what fits the table"
                    + (f" ({' '.join(fit)})" if fit else " (none of your cards fits now)"))
        a = analyze_hand(cards, self.game.hand, self.rules)
        if not a.satisfiable:
            return (f"no lay-down of {a.contract} yet: deficiency {a.deficiency} "
                    f"({a.deficiency} more card{'s' if a.deficiency != 1 else ''} needed)")
        return (f"best lay-down of {a.contract}: {_melds_text(a.melds)}; deadwood {a.deadwood}"
                + (f" ({' '.join(a.leftover)} left)" if a.leftover else ""))

    def _score(self) -> str:
        ends = [e for e in self._feed.events() if e["event"] == "hand_end"]
        heads = ["you" if q == self.seat else f"s{q}" for q in range(self.players)]
        w = max(5, *(len(h) + 1 for h in heads))
        lines = ["hand " + "".join(f"{h:>{w}}" for h in heads)]
        for e in ends:
            lines.append(f"{e['hand']:<5}" + "".join(f"{x:>{w}}" for x in e["scores"]))
        lines.append("total" + "".join(f"{x:>{w}}" for x in self.game.totals()))
        return "\n".join(lines)


def _take(held: dict[str, int], cards) -> None:
    for c in cards:
        held[c] = held.get(c, 0) + 1


def _give(held: dict[str, int], cards) -> None:
    for c in cards:
        if held.get(c, 0) > 0:
            held[c] -= 1


def _cards_of(held: dict[str, int]) -> list[str]:
    """The cards of a hand, by suit then rank (jokers last), as the person's cards are shown."""
    order = "A23456789TJQK"
    cards = [c for c, k in held.items() for _ in range(k)]
    return sorted(cards, key=lambda c: (5, 0) if c == "JK" else ("CDHS".index(c[-1]), order.index(c[:-1])))


def _n(k: int, what: str) -> str:
    return f"{k} {what}{'' if k == 1 else 's'}"


def _key(melds) -> tuple:
    return tuple(sorted(tuple(sorted(m)) for m in melds))


def _melds_text(melds) -> str:
    return " | ".join(" ".join(m) for m in melds)


def _reason(e: GameError) -> str:
    """The engine's reason without the 'seat N: action:' prefix of Game.apply."""
    msg = str(e)
    return msg.rsplit(": ", 1)[-1] if msg.startswith("seat ") else msg


def meld_line(md: dict[str, Any]) -> str:
    """A table meld (``Game.table()`` or a log meld object) as 'meld 0: run of C: JK=4C 5C 6C 7C'
    or 'meld 1: set of rank 2: 2C 2H JK=2' (not 'set of 2', which reads as a two-card set)."""
    cards = " ".join(f"JK={j}" if c == "JK" and j else c for c, j in zip(md["cards"], md["jokers"]))
    head = f"set of rank {md['rank']}" if md["kind"] == "set" else f"run of {md['suit']}"
    return f"meld {md['meld']}: {head}: {cards}"


__all__ = ["HumanGame", "Stop", "HINT_BOT", "meld_line", "table_options"]
