"""Advice to the person: ``hint`` (what the strongest bot would do now, and why) and ``melds``.

``advice`` asks ``HINT_BOT`` for its action in the person's seat and explains it in one line
from what the person may see (``_why``: the deficiency before and after, the price of a buy,
whether a card fits a table meld); ``_melds_info`` is the best lay-down of the hand. The
explanations never decide anything: the bot and the engine do.
It is a mixin of ``driver.HumanGame``, which gives it ``game``, ``rules``, ``seat``, ``seats``,
``players``, ``_write``, ``_feed`` (the decoded log) and the person's seat (``_cards()``,
``_down()``, ``_deficiency(cards)``).
"""

from __future__ import annotations

from ..bots import parse_bot
from ..cards import card_id, card_str
from ..game import Action
from ..hand import analyze_hand
from ..kernels.base import layout as L
from .screen import _melds_text, _n

# The bot that answers `hint`: the strongest in shanghai_sim.bots.BOTS. Change it here
# when a stronger one is registered.
HINT_BOT = "smart"


class Advice:
    """The hint and the best lay-down, explained."""

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
