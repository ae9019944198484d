"""The person's game: ``HumanGame`` drives one game with a person at one seat.

The bots act through ``Game.advance()``; at each of the person's decisions ``HumanGame`` shows
the seat's view and the menu (``screen``), reads one line and applies the action it names
(``moves``), pausing at each hand's end. ``play`` is the terminal loop; ``start``,
``advance``, ``submit`` and ``finish`` are its steps for a front end that is not one (``serve``).
``table_options`` checks a table before a game is built; ``log_events`` is the game's full
event log (docs/replay.md).
"""

from __future__ import annotations

from typing import Any, Callable

from ..bots import BotError, parse_bot, split_specs
from ..cards import CardError
from ..game import Action, Game, GameError
from ..hand import analyze_hand
from ..kernels.base import codes as K
from ..kernels.base import layout as L
from ..log import SCHEMA_VERSION, decode
from ..rules import load_rules
from .advice import Advice
from .moves import MAX_LINE, Moves, Stop, _reason
from .screen import Screen, _clip

HUMAN = "human"


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
        n = int(G.s[L.S_LOG_N])
        log = G.log
        i = last = self.start
        while i < n:
            if int(log[i]) == K.EV_HAND:
                last = i
            i += 2 + int(log[i + 1])
        if last > self.start:
            self.done += decode(log[self.start:last], self.g.players, self.contracts)
            self.start = last
        return self.done + decode(log[self.start:n], self.g.players, self.contracts)


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


class HumanGame(Screen, Moves, Advice):
    """One game with a person at ``seat`` and bots at the other seats.

    ``bots``: one spec for every other seat, or one per other seat in seat order
    (a comma-separated string or a list).
    """

    def __init__(self, rules: Any = "shanghai", players: int | None = None, seat: int = 0,
                 bots: "str | list[str]" = "greedy", seed: int = 0,
                 read: Callable[[str], str] = input, write: Callable[[str], None] = print,
                 diagnostic: bool = False):
        r, p, seat, names = table_options(rules, players, seat, bots)
        self.seat = seat
        self.seats = names[:self.seat] + [HUMAN] + names[self.seat:]
        self.game = Game(r, p, seed, bots=[HUMAN if q == self.seat else self.seats[q]
                                           for q in range(p)], diagnostic=diagnostic)
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

    # ------------------------------------------------------------ the person's seat
    def _cards(self) -> list[str]:
        return self.game.hand_cards(self.seat)

    def _down(self) -> bool:
        return bool(self.game.G.ps[self.seat, L.PS_DOWN])

    def _deficiency(self, cards: list[str]) -> int:
        return analyze_hand(cards, self.game.hand, self.rules).deficiency
