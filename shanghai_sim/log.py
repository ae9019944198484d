"""Decode the engine's event log (``kernels.base.codes`` EVENTS) into readable events.

``decode(log, players, rules)`` turns the int64 event buffer of one game
into a list of dicts (one JSON line each; the schema is in docs/replay.md),
and ``format_event`` prints one as a line of text with cards in docs/rules.md §2
notation. The decoder keeps a copy of the table so that lay-offs and swaps
can name the meld they touch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cards import RANKS, SUITS, card_str
from .kernels.base import codes as K
from .kernels.base import layout as L

_DECISIONS = K.WORDS["decision"]   # kernels.base.codes.DECISIONS (DEC_*)
_ACTION_WORDS = K.ACTION_WORD   # kernels.base.codes.ACTIONS


def _action_word(code: int) -> str:
    """A searched candidate (an action code, kernels.base.codes.action_nb) in words."""
    t, c, _, _ = K.action_fields(code)
    w = _ACTION_WORDS.get(t, str(t))
    return f"{w} {card_str(c)}" if t == K.A_DISCARD else w

SCHEMA_VERSION = 2      # 2: a search event's rule (margin, z, tie, race) and each candidate's
                        # samples, diff and se; schema 1 logs (without them) still read

_POS_RANK = [RANKS[p % 13] for p in range(14)]


def _stands_for_run(suit: int, pos: int) -> str:
    return _POS_RANK[pos] + SUITS[suit]


def _stands_for_set(rank: int, suit: int) -> str:
    return RANKS[rank] + (SUITS[suit] if suit >= 0 else "")


def meld_dict(idx: int, owner: int, kind: int, key: int, cards: list[int],
              ident: list[int]) -> dict[str, Any]:
    """The one description of a table meld (docs/replay.md, meld object), for the log and
    for ``Game.table``: ``cards`` in order and ``ident`` per card (a run: its position
    0..13; a set: a joker's declared suit, or -1)."""
    d: dict[str, Any] = {"meld": idx, "owner": owner, "kind": "set" if kind == L.SET else "run"}
    if kind == L.SET:
        d["rank"] = RANKS[key]
        d["cards"] = [card_str(c) for c in cards]
        d["jokers"] = [_stands_for_set(key, s) if c == L.JOKER else None
                       for c, s in zip(cards, ident)]
    else:
        d["suit"] = SUITS[key]
        d["cards"] = [card_str(c) for c in cards]
        d["positions"] = list(ident)
        d["jokers"] = [_stands_for_run(key, p) if c == L.JOKER else None
                       for c, p in zip(cards, ident)]
        d["low"] = _POS_RANK[ident[0]] + SUITS[key]
        d["high"] = _POS_RANK[ident[-1]] + SUITS[key]
    return d


def decode(log: np.ndarray, players: int, contracts: "list[str] | None" = None) -> list[dict[str, Any]]:
    """The events of one game as dicts (see docs/replay.md for the schema)."""
    out: list[dict[str, Any]] = []
    log = np.asarray(log)
    i = 0
    hand = 0
    table: dict[int, dict[str, Any]] = {}
    n_total = len(log)
    while i < n_total:
        t = int(log[i])
        n = int(log[i + 1])
        a = [int(x) for x in log[i + 2:i + 2 + n]]
        i += 2 + n
        if t == K.LOG_END:
            break
        e: dict[str, Any]
        word = K.EVENT_WORD.get(t)      # the event's name in the log (kernels.base.codes.EVENTS)
        f = K.event_fields(t, a) if word is not None else {}     # its payload by field name
        if t == K.EV_HAND:
            hand = f["hand"] + 1
            table = {}
            e = {"event": word, "hand": hand, "dealer": f["dealer"], "first": f["first"]}
            if contracts is not None:
                e["contract"] = contracts[f["hand"]]
        elif t == K.EV_DEAL:
            e = {"event": word, "hand": hand, "seat": f["seat"], "cards": [card_str(c) for c in f["cards"]]}
        elif t == K.EV_UPCARD:
            e = {"event": word, "hand": hand, "card": card_str(f["card"])}
        elif t == K.EV_DRAW:
            e = {"event": word, "hand": hand, "seat": f["seat"],
                 "source": K.WORDS["source"][f["source"]], "card": card_str(f["card"])}
        elif t == K.EV_PASS:
            e = {"event": word, "hand": hand, "seat": f["seat"], "card": card_str(f["card"]),
                 "what": K.WORDS["pass"][f["what"]]}
        elif t == K.EV_BUY:
            e = {"event": word, "hand": hand, "seat": f["seat"], "card": card_str(f["card"]),
                 "penalty_due": f["due"], "penalty": []}
        elif t == K.EV_PENALTY:
            # attach to the buy it belongs to (reshuffles may come between)
            for prev in reversed(out):
                if prev["event"] == "buy":
                    prev["penalty"].append(card_str(f["card"]))
                    break
            continue
        elif t == K.EV_GO_DOWN:
            seat, nm, rec = f["seat"], f["melds"], f["meld"]
            k = 0
            melds = []
            for _ in range(nm):      # per meld: its record (codes.MELD_RECORD), cards, identities
                idx, kind, key, lo, nn = rec[k:k + K.MR_SIZE]
                cards = rec[k + K.MR_SIZE:k + K.MR_SIZE + nn]
                ident = rec[k + K.MR_SIZE + nn:k + K.MR_SIZE + 2 * nn]
                k += K.MR_SIZE + 2 * nn
                md = meld_dict(idx, seat, kind, key, cards, ident)
                table[idx] = {"kind": kind, "key": key, "owner": seat,
                              "cards": list(cards), "ident": list(ident)}
                melds.append(md)
            e = {"event": word, "hand": hand, "seat": seat, "melds": melds}
        elif t == K.EV_LAYOFF:
            seat, c, m, ident = f["seat"], f["card"], f["meld"], f["ident"]
            tm = table.get(m)
            e = {"event": word, "hand": hand, "seat": seat, "card": card_str(c), "meld": m}
            if tm is not None:
                if tm["kind"] == L.RUN:
                    if ident < tm["ident"][0]:
                        tm["cards"].insert(0, c)
                        tm["ident"].insert(0, ident)
                        e["end"] = "low"
                    else:
                        tm["cards"].append(c)
                        tm["ident"].append(ident)
                        e["end"] = "high"
                    e["position"] = ident
                    if c == L.JOKER:
                        e["joker_as"] = _stands_for_run(tm["key"], ident)
                else:
                    tm["cards"].append(c)
                    tm["ident"].append(ident)
                    if c == L.JOKER:
                        e["joker_as"] = _stands_for_set(tm["key"], ident)
                e["meld_now"] = meld_dict(m, tm["owner"], tm["kind"], tm["key"], tm["cards"], tm["ident"])
        elif t == K.EV_SWAP:
            seat, c, m, slot, ident = f["seat"], f["card"], f["meld"], f["slot"], f["ident"]
            tm = table.get(m)
            e = {"event": word, "hand": hand, "seat": seat, "card": card_str(c), "meld": m,
                 "slot": slot}
            if tm is not None:
                if tm["kind"] == L.RUN:
                    e["joker_was"] = _stands_for_run(tm["key"], ident)
                    j = tm["ident"].index(slot)
                else:
                    e["joker_was"] = _stands_for_set(tm["key"], ident)
                    j = slot
                    tm["ident"][j] = -1
                tm["cards"][j] = c
                e["meld_now"] = meld_dict(m, tm["owner"], tm["kind"], tm["key"], tm["cards"], tm["ident"])
        elif t == K.EV_DISCARD:
            e = {"event": word, "hand": hand, "seat": f["seat"], "card": card_str(f["card"])}
        elif t == K.EV_RESHUFFLE:
            e = {"event": word, "hand": hand, "pass": f["pass"], "cards": f["cards"],
                 "upcard_kept": card_str(f["kept"]) if f["kept"] >= 0 else None}
        elif t == K.EV_OUT:
            e = {"event": word, "hand": hand, "seat": f["seat"],
                 "how": K.WORDS["out"][f["how"]], "blind": bool(f["blind"]),
                 "jokers_played": f["jokers"]}
        elif t == K.EV_HAND_END:
            p, sc = players, f["scores"]         # the scores, then the totals
            e = {"event": word, "hand": hand, "winner": f["winner"] if f["winner"] >= 0 else None,
                 "reason": K.WORDS["ending"][f["reason"]],
                 "scores": sc[:p], "totals": sc[p:2 * p]}
        elif t == K.EV_SEARCH:
            cand, w = f["candidates"], K.SR_SIZE     # per candidate: codes.SEARCH_RECORD
            e = {"event": word, "hand": hand, "seat": f["seat"], "decision": _DECISIONS[f["decision"]],
                 "rollouts": f["rollouts"], "chosen": f["chosen"],
                 "candidates": [{"action": _action_word(cand[w * j]), "mean": cand[w * j + K.SR_MEAN] / 100,
                                 "samples": cand[w * j + K.SR_SAMPLES], "diff": cand[w * j + K.SR_DIFF] / 100,
                                 "se": cand[w * j + K.SR_SE] / 100}
                                for j in range(f["n"])],
                 "margin": f["margin"] / 100, "z": f["z"] / 100,
                 "tie": f["tie"] / 100 if f["race"] > 0 else None, "race": f["race"]}
        elif t == K.EV_GAME_END:
            totals = f["totals"][:players]
            best = min(totals)
            e = {"event": word, "totals": totals,
                 "winners": [q for q in range(players) if totals[q] == best],
                 "ranking": ranking(totals)}
        else:
            raise ValueError(f"unknown event code {t} in the log")
        out.append(e)
    return out


def ranking(totals: list[int]) -> list[int]:
    """docs/rules.md §5.7: rank per seat (1 = best); equal totals share a rank."""
    return [1 + sum(1 for u in totals if u < t) for t in totals]


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")


def _g(x: Any) -> str:
    """A logged figure as the text line shows it; TypeError for a value that is not a number
    (a damaged log: ``replay --log`` reports the line)."""
    if not _is_number(x):
        raise TypeError(f"{x!r} is not a number")
    return f"{x:g}"


def _pts(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if x else "0"


def search_reasons(e: dict[str, Any]) -> "list[str] | None":
    """Why each candidate of a search event was kept, chosen, dropped or passed over, in the
    rule of kernels/search/rollout.py (docs/rollout.md): another candidate replaces the first
    (smart's choice) only when its ``diff`` < -margin and ``diff`` + z x ``se`` < 0; in a race
    a challenger whose ``diff`` - z x ``se`` > -tie drops out first; without a race only the
    lowest mean of the others is tried. None for a schema 1 log, which lacks the figures.
    The replay page's search panel says the same (replay.js, searchReasons)."""
    cs = e.get("candidates") or []
    if not cs or any(k not in c for c in cs for k in ("diff", "se", "samples")) or "z" not in e:
        return None
    figures = [e["z"], e.get("margin"), *(c[k] for c in cs for k in ("mean", "diff", "se", "samples"))]
    if not all(_is_number(x) for x in figures) or not (e.get("tie") is None or _is_number(e["tie"])):
        raise TypeError("a search figure that is not a number")      # replay --log: one line, exit 2
    z, m, tie, race, ch = e["z"], e["margin"], e.get("tie"), e.get("race") or 0, e["chosen"]
    best = min(range(1, len(cs)), key=lambda j: cs[j]["mean"]) if len(cs) > 1 else 0
    out = []
    for i, c in enumerate(cs):
        d, se, n = c["diff"], c["se"], c["samples"]
        hi, lo = d + z * se, d - z * se
        if i == 0:
            out.append("smart's choice: kept" if ch == 0 else "smart's choice: replaced")
        elif i == ch:
            out.append(f"chosen: diff {_pts(d)} < -margin ({_pts(-m)}) and diff + z*se = "
                       f"{_pts(hi)} < 0")
        elif race and tie is not None and lo > -tie:
            out.append(f"dropped after {n} samples: diff - z*se = {_pts(lo)} > -tie "
                       f"({_pts(-tie)}): it cannot beat smart's choice by {_pts(tie)} points")
        elif not race and i != best:
            out.append(f"not tried: without a race only the lowest mean of the others "
                       f"({cs[best]['action']}) may replace smart's choice")
        elif d >= -m:
            out.append(f"not better: diff {_pts(d)} is not below -margin ({_pts(-m)})")
        elif hi >= 0:
            out.append(f"not clearly better: diff + z*se = {_pts(hi)} >= 0 after {n} samples")
        else:
            out.append(f"better too, but {cs[ch]['action']} is better still")
    return out


def _search_why(e: dict[str, Any]) -> str:
    """The text line's note on a search: why smart's choice was kept although another
    candidate's mean is lower (its reason, search_reasons), else nothing."""
    reasons = search_reasons(e)
    cs = e["candidates"]
    if reasons is None or e["chosen"] != 0 or len(cs) < 2:
        return ""
    j = min(range(1, len(cs)), key=lambda k: cs[k]["mean"])
    if cs[j]["mean"] >= cs[0]["mean"]:
        return ""
    return f" (kept: {cs[j]['action']} {reasons[j]})"


def _meld_text(md: dict[str, Any]) -> str:
    parts = []
    for c, j in zip(md["cards"], md["jokers"]):
        parts.append(f"JK={j}" if j is not None and c == "JK" else c)
    head = f"set of rank {md['rank']}" if md["kind"] == "set" else f"run of {md['suit']}"
    return f"[{md['meld']}] {head}: {' '.join(parts)}"


def format_event(e: dict[str, Any]) -> str:
    """One event as a readable line (cards in docs/rules.md §2 notation)."""
    ev = e["event"]
    if ev in ("deal", "draw", "buy") and e.get("seat") is not None and HIDDEN_CARD in _hidden_slots(e):
        return public_line(e, -1)       # a seat view's hidden cards (seat_view): as counts
    s = f"seat {e['seat']}" if "seat" in e else ""
    if ev == "game":        # the first line of a log saved by `shanghai-sim play --log`
        who = ", ".join(f"seat {q}: {'the person' if q == e.get('human') else b}"
                        for q, b in enumerate(e.get("seats", [])))
        return f"# seed {e.get('seed')}, rules {e.get('rules')}, {e.get('players')} players; {who}"
    if ev == "stopped":     # the last line of a `play --log` game that was not finished
        return f"== game stopped in hand {e.get('hand')} ({e.get('reason')}): no result"
    if ev == "hand":
        c = f" ({e['contract']})" if "contract" in e else ""
        return f"== hand {e['hand']}{c}: dealer seat {e['dealer']}, seat {e['first']} plays first"
    if ev == "deal":
        return f"  deal {s}: {' '.join(e['cards'])}"
    if ev == "upcard":
        return f"  upcard {e['card']}"
    if ev == "draw":
        if e["source"] == "upcard":
            return f"  {s} takes the upcard {e['card']}"
        return f"  {s} draws {e['card']} from the stock"
    if ev == "pass":
        what = "refuses the upcard" if e["what"] == "first_refusal" else "does not buy"
        return f"  {s} {what} {e['card']}"
    if ev == "buy":
        pen = " ".join(e["penalty"]) or "none"
        short = "" if len(e["penalty"]) == e["penalty_due"] else f" (stock ran out, {e['penalty_due']} due)"
        return f"  {s} buys {e['card']} + penalty {pen}{short}"
    if ev == "go_down":
        return f"  {s} goes down: " + " ; ".join(_meld_text(m) for m in e["melds"])
    if ev == "layoff":
        j = f" as {e['joker_as']}" if "joker_as" in e else ""
        now = f" -> {_meld_text(e['meld_now'])}" if "meld_now" in e else ""
        return f"  {s} lays off {e['card']}{j} on meld {e['meld']}{now}"
    if ev == "swap":
        was = f" (it stood for {e['joker_was']})" if "joker_was" in e else ""
        return f"  {s} swaps {e['card']} for the joker in meld {e['meld']}{was}"
    if ev == "discard":
        return f"  {s} discards {e['card']}"
    if ev == "reshuffle":
        kept = f", upcard {e['upcard_kept']} stays" if e["upcard_kept"] else ""
        return f"  reshuffle: stock pass {e['pass']}, {e['cards']} cards from the pile{kept}"
    if ev == "out":
        b = " BLIND" if e["blind"] else ""
        return f"  {s} goes out ({'by discard' if e['how'] == 'discard' else 'melding the last card'}){b}"
    if ev == "hand_end":
        who = f"seat {e['winner']} went out" if e["winner"] is not None else \
            ("stopped: stock exhausted" if e["reason"] == "stock" else "stopped: turn cap (max_hand_turns)")
        return (f"  hand {e['hand']} ends, {who}; scores {' '.join(map(str, e['scores']))}; "
                f"totals {' '.join(map(str, e['totals']))}")
    if ev == "search":
        cs = ", ".join(f"{c['action']} {_g(c['mean'])}" for c in e["candidates"])
        return (f"  {s} searches ({e['decision']}, {e['rollouts']} samples, mean points): {cs}"
                f" -> {e['candidates'][e['chosen']]['action']}{_search_why(e)}")
    if ev == "game_end":
        w = ", ".join(f"seat {q}" for q in e["winners"])
        shared = " (shared)" if len(e["winners"]) > 1 else ""
        return f"== game over: totals {' '.join(map(str, e['totals']))}; winner {w}{shared}"
    return str(e)


def public_line(e: dict[str, Any], seat: int, mark: str = "") -> str:
    """format_event(e) as ``seat`` may see it: the other seats' hidden cards (their deals,
    stock draws, penalty cards, and the candidates of their searches, which name cards of
    their hands) as counts. ``mark`` follows the seat's own number (`` (you)``)."""
    ev, q = e["event"], e.get("seat")
    if q is not None and q != seat:
        n = len(e.get("penalty", []))
        if ev == "deal":
            return f"  deal seat {q}: {len(e['cards'])} cards"
        if ev == "draw" and e["source"] == "stock":
            return f"  seat {q} draws from the stock"
        if ev == "buy":
            return f"  seat {q} buys {e['card']} + {n} penalty card{'' if n == 1 else 's'}"
        if ev == "search":
            return (f"  seat {q} searches ({e['decision']}, {e['rollouts']} samples, "
                    f"{len(e['candidates'])} candidates)")
    line = format_event(e)
    if q == seat and mark:
        line = line.replace(f"seat {q} ", f"seat {q}{mark} ", 1)
    return line


HIDDEN_CARD = "??"      # a card a seat view does not show (seat_view, docs/replay.md)


def _hidden_slots(e: dict[str, Any]) -> list[Any]:
    """The cards of an event that only its own seat sees: a deal, a stock draw, penalty cards."""
    ev = e["event"]
    if ev == "deal":
        return list(e.get("cards") or ())
    if ev == "draw" and e.get("source") == "stock":
        return [e.get("card")]
    if ev == "buy":
        return list(e.get("penalty") or ())
    return []


def seat_view(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The log as ``seat`` may see it (``serve`` during play, docs/replay.md): the other seats'
    dealt cards, stock draws and penalty cards each written ``"??"`` (their number kept, so
    the log still adds up), the other seats' searches left out (their candidates name cards
    of their hands), and ``"view": seat`` on the ``game`` line. The events themselves are
    not changed."""
    out = []
    for e in events:
        ev, q = e["event"], e.get("seat")
        if ev == "game":
            e = {**e, "view": seat}
        elif q is not None and q != seat:
            if ev == "search":
                continue
            if ev == "deal":
                e = {**e, "cards": [HIDDEN_CARD] * len(e["cards"])}
            elif ev == "draw" and e.get("source") == "stock":
                e = {**e, "card": HIDDEN_CARD}
            elif ev == "buy":
                e = {**e, "penalty": [HIDDEN_CARD] * len(e["penalty"])}
        out.append(e)
    return out
