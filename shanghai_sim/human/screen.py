"""What the person sees: the text of the person's game, as the terminal and the page show it.

The decision's summary (``_status``: the cards, the table melds and their owners, the upcard,
every seat's count, buys left and who is down; ``situation``, ``_cards_line``), the numbered
menu of actions, the events scrolled as the person's seat may see them (``public_line``: the
other seats' hidden cards as counts), each finished hand's result (``hand_results``,
``hand_summary``), the running scores and the game's result.
It is a mixin of ``driver.HumanGame``, which gives it ``game``, ``rules``, ``seat``, ``seats``,
``players``, ``_write``, ``_feed`` (the decoded log) and the person's seat (``_cards()``,
``_down()``, ``_deficiency(cards)``).
"""

from __future__ import annotations

from typing import Any

from ..cards import card_str
from ..game import Action
from ..kernels.base import layout as L
from ..log import public_line


def _clip(message: str, width: int = 300) -> str:
    """A one-line answer no longer than ``width``: a pasted page is not echoed back whole."""
    return message if len(message) <= width else message[:width - 3] + "..."


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


class Screen:
    """The person's game as text (written through ``_write``)."""

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
            up = f"pile top: {card_str(int(g.G.pile[v['pile'] - 1]))}   "
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


def _melds_text(melds) -> str:
    return " | ".join(" ".join(m) for m in melds)


def meld_line(md: dict[str, Any]) -> str:
    """A table meld (``Game.table()`` or a log meld object) as 'meld 0: run of C: JK=4C 5C 6C 7C'
    or 'meld 1: set of rank 2: 2C 2H JK=2' (not 'set of 2', which reads as a two-card set)."""
    cards = " ".join(f"JK={j}" if c == "JK" and j else c for c, j in zip(md["cards"], md["jokers"]))
    head = f"set of rank {md['rank']}" if md["kind"] == "set" else f"run of {md['suit']}"
    return f"meld {md['meld']}: {head}: {cards}"
