"""``replay --html``: one game's events as a self-contained HTML page (docs/browser.md).

The page embeds the events exactly as ``replay --json`` prints them (docs/replay.md), each
with its text line (``log.format_event``), and a few facts about the game that the events
do not carry: the seats' bots, the shoe size (for the stock count) and the buys allowed per
hand. ``replay.js`` rebuilds the table at every event from the events' names and fields.
"""

from __future__ import annotations

from typing import Any

from ..log import format_event, public_line
from . import page


class ReplayError(ValueError):
    """A log the page cannot be drawn from (one line naming the problem)."""


BODY = """\
<header><h1 id="title"></h1><span class="sub" id="sub"></span></header>
<div id="controls">
  <button id="first" title="the start (Home)">&#x2502;&#x25c0; start</button>
  <button id="hand-back" title="previous hand (Page Up)">&#x25c0;&#x25c0; hand</button>
  <button id="turn-back" title="previous turn (&#x2191; or Shift+&#x2190;)">&#x25c0; turn</button>
  <button id="back" title="previous event (&#x2190;)">&#x2039; event</button>
  <button id="next" title="next event (&#x2192;)">event &#x203a;</button>
  <button id="turn-next" title="next turn (&#x2193; or Shift+&#x2192;)">turn &#x25b6;</button>
  <button id="hand-next" title="next hand (Page Down)">hand &#x25b6;&#x25b6;</button>
  <button id="last" title="the end (End)">end &#x25b6;&#x2502;</button>
  <button id="play" title="step by turn (space)">&#x25b6; play</button>
  <span class="sep"></span>
  <label>jump to <select id="jump"></select></label>
  <label>show <select id="view"><option value="all">every hand</option></select></label>
  <span class="pos" id="pos"></span>
</div>
<div id="layout">
  <main><div id="table-area"></div><div class="seats" id="seats"></div></main>
  <aside>
    <div><h3>Now</h3><div id="now"></div><div id="result"></div></div>
    <div id="search"></div>
    <div><h3>Scores</h3><div id="scores"></div></div>
    <div><h3>Events</h3><div id="log"></div>
      <div class="keys">keys: &#x2190; &#x2192; event, &#x2191; &#x2193; turn, Page Up/Down hand,
      Home/End, space plays</div></div>
  </aside>
</div>
"""


def _players(events: list[dict[str, Any]]) -> int:
    for e in events:
        if e["event"] == "game" and isinstance(e.get("players"), int):
            return e["players"]
        if e["event"] in ("hand_end", "game_end") and isinstance(e.get("totals"), list):
            return len(e["totals"])
    seats = [e["seat"] for e in events if isinstance(e.get("seat"), int)]
    if not seats:
        raise ReplayError("the log has no seat in it: nothing to draw (docs/replay.md)")
    return max(seats) + 1


def replay_page(events: list[dict[str, Any]], *, rules: Any = None, players: int | None = None,
                seats: list[str] | None = None, seed: int | None = None, source: str = "") -> str:
    """The HTML page of a game's events (a list of ``replay --json`` dicts).

    ``rules`` (a ``Rules``), ``players``, ``seats`` (each seat's bot) and ``seed``: what is
    known of the game besides its events (``replay --seed``). A saved log (``play --log``,
    ``serve``) names them in its ``game`` event; a ``replay --json`` file read back with
    ``--log`` has none, and the page then counts buys made instead of buys left and gives
    the stock as unknown."""
    if not events:
        raise ReplayError("no events: nothing to draw")
    head = next((e for e in events if e["event"] == "game"), {})
    p = int(players if players is not None else _players(events))
    lines = []
    for k, e in enumerate(events, 1):
        try:
            lines.append(format_event(e))
        except (KeyError, TypeError, IndexError, ValueError):
            raise ReplayError(f"event {k}: a {e.get('event')!r} event lacks fields (docs/replay.md)") from None
    shoe = buys = contracts = None
    if rules is not None:
        r = rules.with_players(p) if rules.players != p else rules
        shoe = r.shoe_size(p)
        buys = list(r.buys_per_hand)
        contracts = [str(c) for c in r.contracts]
        rules_name = r.name
    else:
        shoe, buys, contracts = head.get("shoe"), head.get("buys"), head.get("contracts")
        rules_name = head.get("rules")
    if seats is None:
        seats = head.get("seats")
    if seed is None:
        seed = head.get("seed")
    human = head.get("human")
    sub = [f"rules {rules_name}" if rules_name else "", f"{p} players",
           f"seed {seed}" if seed is not None else "", source]
    who = ", ".join(f"{q}: {'the person' if q == human else n}" for q, n in enumerate(seats or []))
    from ..bots import diagnostic_marks
    marks = diagnostic_marks([n for q, n in enumerate(seats or []) if q != human and isinstance(n, str)])
    meta = {"players": p, "seats": seats, "human": human, "seed": seed, "rules": rules_name,
            "shoe": shoe, "buys": buys, "contracts": contracts,
            "title": "Shanghai replay" + (f", seed {seed}" if seed is not None else ""),
            "subtitle": " \u00b7 ".join([*marks] + [x for x in sub if x]) + (f" \u00b7 seats {who}" if who else ""),
            "diagnostic": marks}
    # each seat's view of the lines that it may not read in full (others' hidden cards)
    hidden = [{k: t for k, (e, line) in enumerate(zip(events, lines))
               if (t := public_line(e, q)) != line} for q in range(p)]
    return page(meta["title"], BODY, ["replay.js"],
                data={"meta": meta, "events": events, "lines": lines, "hidden": hidden})
