"""``shanghai-sim replay`` and ``shanghai-sim bots``: thin wrappers over game/log/bots."""

from __future__ import annotations

import json
import os

import click


from .errors import InputError, diagnostic_option, rule_option, rules_at
from .errors import OneLineCommand as _OneLineErrors
from .play_cmds import named_file


REPLAY_HELP = """Play one seeded game and print every event of it, or print a saved log.

\b
  shanghai-sim replay --seed 12345
  shanghai-sim replay --seed 7 --rules contract --bots greedy:buy=never,random,greedy,greedy,greedy
  shanghai-sim replay --seed 7 --json > game.jsonl     # schema: docs/replay.md
  shanghai-sim replay --log game.jsonl                 # a saved log (play --log, replay --json)
  shanghai-sim replay --seed 42 --html g.html          # the game as cards, in a browser (docs/browser.md)

With --seed the game comes from the same kernel run as a batch run of that
game seed: same deals, same choices, same scores. Give --seed or --log, not both.
"""


# What a log read by ``replay --log`` may hold (issue 59): every count and size within what the
# rules allow a game (shanghai_sim.rules / kernels.base.layout), checked line by line before the
# line is kept, so a crafted log cannot make replay (or its page) allocate past a game's size.
MAX_LOG_BYTES = 8 << 20       # the whole file: a 10-hand game's log is 50-300 kB (with the rollout
#                               bot's searches about 1 MB). Worst case in memory ~25 bytes a byte:
#                               under 400 MB in all (tests/test_replay_fuzz.py measures it)
MAX_LINE_BYTES = 64 << 10     # one event: the largest (a search, a go_down, the game line) < 16 kB
MAX_DEPTH = 6                 # JSON nesting: the deepest event (go_down: melds, a meld, its cards) is 4


def _json_depth(line: str) -> int:
    """How deep the JSON of ``line`` nests (brackets inside strings do not count); counted
    before ``json.loads``, which recurses once a level."""
    opens = line.count("[") + line.count("{")
    if opens <= MAX_DEPTH:
        return opens
    import re
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    depth = top = 0
    for ch in re.findall(r"[\[\]{}]", bare):
        depth += 1 if ch in "[{" else -1
        if depth > top:
            top = depth
            if top > MAX_DEPTH:
                break
    return top


class _Bounds:
    """The limits of the rules that a log's events are checked against, as the log is read:
    players (the ``game`` line's, else the first ``hand_end``'s count; up to 8 before either),
    hands, seats, card lists, meld, candidate and score counts."""

    def __init__(self):
        from shanghai_sim.cards import card_str
        from shanghai_sim.limits import MAX_GAME_SEED
        from shanghai_sim.log import SCHEMA_VERSION
        from shanghai_sim.rules import (MAX_BUY_PENALTY, MAX_BUYS, MAX_DEAL, MAX_HANDS, MAX_HELD, MAX_JOKERS,
                                        MAX_MELDS, MAX_PLAYERS, MAX_SET, MAX_STOCK_PASSES, MIN_PLAYERS)
        self.cards = {card_str(c) for c in range(53)} | {"??"}   # ??: a card a seat view hides
        self.players = None
        self.max_players, self.min_players = MAX_PLAYERS, MIN_PLAYERS
        self.schema, self.max_seed = SCHEMA_VERSION, MAX_GAME_SEED
        self.shoe = 8 * 52 + MAX_JOKERS                 # the largest shoe: 8 packs and their jokers
        self.lim = dict(hands=MAX_HANDS, deal=MAX_DEAL, held=MAX_HELD, set=MAX_SET, melds=MAX_MELDS,
                        table=MAX_PLAYERS * MAX_MELDS, buys=MAX_BUYS, penalty=MAX_BUY_PENALTY,
                        passes=MAX_STOCK_PASSES)

    @staticmethod
    def _int(e, key, lo, hi, why="", none=False):
        v = e.get(key)
        if v is None and (none or key not in e):
            return
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{key} = {json.dumps(v)[:40]}: expected an integer")
        if not lo <= v <= hi:
            raise ValueError(f"{key} = {v}: must be {lo}..{hi}" + (f" ({why})" if why else ""))

    def _list(self, e, key, hi, what, kind=None, exact=None):
        v = e.get(key)
        if v is None and key not in e:
            return
        if not isinstance(v, list):
            raise ValueError(f"{key}: expected a list of {what}")
        if exact is not None and len(v) != exact:
            raise ValueError(f"{key}: {len(v)} {what} for {exact} players")
        if len(v) > hi:
            raise ValueError(f"{key}: {len(v):,} {what}; at most {hi} in a game the rules allow")
        for x in v:
            if kind == "card" and (not isinstance(x, str) or x not in self.cards):
                raise ValueError(f"{key}: {json.dumps(x)[:20]} is not a card (AS, TH, JK: docs/rules.md §2)")
            if kind == "int" and (isinstance(x, bool) or not isinstance(x, int)):
                raise ValueError(f"{key}: {json.dumps(x)[:20]} is not an integer")

    def _card(self, e, key):
        if key in e and e[key] is not None and (not isinstance(e[key], str) or e[key] not in self.cards):
            raise ValueError(f"{key} = {json.dumps(e[key])[:20]}: not a card (AS, TH, JK: docs/rules.md §2)")

    def check(self, e: dict) -> None:
        """ValueError naming the first field of event ``e`` outside the rules' limits."""
        L, p = self.lim, self.players or self.max_players
        ev = e["event"]
        if ev == "game":
            # a log of a later schema may mean what this version would misread: said, not guessed
            self._int(e, "schema", 1, self.schema, "the log schemas this shanghai-sim reads, docs/replay.md")
            self._int(e, "seed", 0, self.max_seed, "a game seed", none=True)
            self._int(e, "players", self.min_players, self.max_players)
            if isinstance(e.get("players"), int):
                self.players = p = e["players"]
            self._list(e, "seats", p, "seats", exact=self.players)
            self._int(e, "human", 0, p - 1, none=True)
            self._int(e, "view", 0, p - 1, none=True)
            self._list(e, "contracts", L["hands"], "contracts")
            self._list(e, "buys", L["hands"], "hands' buys", kind="int")
            if isinstance(e.get("buys"), list) and any(not 0 <= b <= L["buys"] for b in e["buys"]):
                raise ValueError(f"buys: a count outside 0..{L['buys']}")
            self._int(e, "shoe", 1, self.shoe)
            return
        self._int(e, "hand", 1, L["hands"], "a game has at most that many hands")
        for key in ("seat", "dealer", "first"):
            self._int(e, key, 0, p - 1, f"seats of {p} players")
        self._int(e, "winner", 0, p - 1, f"seats of {p} players", none=True)
        for key in ("card", "upcard_kept"):
            self._card(e, key)
        if ev == "deal":
            self._list(e, "cards", L["deal"], "cards", kind="card")
        elif ev == "buy":
            self._int(e, "penalty_due", 0, L["penalty"])
            self._list(e, "penalty", L["penalty"], "penalty cards", kind="card")
        elif ev == "reshuffle":
            self._int(e, "cards", 0, self.shoe)
            self._int(e, "pass", 0, L["passes"])
        elif ev == "go_down":
            self._list(e, "melds", L["melds"], "melds")
            for m in e.get("melds") or ():
                self._meld(m)
        elif ev in ("layoff", "swap"):
            self._int(e, "meld", 0, L["table"] - 1)
            self._int(e, "slot", 0, L["set"] - 1)
            self._int(e, "position", 0, 13)
            if "meld_now" in e:
                self._meld(e["meld_now"])
        elif ev in ("hand_end", "game_end"):
            n = len(e["totals"]) if isinstance(e.get("totals"), list) else None
            if self.players is None and n is not None and self.min_players <= n <= self.max_players:
                self.players = n
            for key in ("scores", "totals"):
                self._list(e, key, self.max_players, "scores", kind="int", exact=self.players)
            self._list(e, "winners", p, "winners", kind="int")
            self._list(e, "ranking", p, "ranks", kind="int")
        elif ev == "search":
            self._list(e, "candidates", L["held"], "candidates")
            if isinstance(e.get("candidates"), list):
                self._int(e, "chosen", 0, max(len(e["candidates"]) - 1, 0))
            self._int(e, "rollouts", 0, 2**31 - 1)

    def _meld(self, m) -> None:
        if not isinstance(m, dict):
            raise ValueError("a meld: expected an object (docs/replay.md, meld object)")
        self._int(m, "meld", 0, self.lim["table"] - 1)
        self._int(m, "owner", 0, (self.players or self.max_players) - 1)
        for key in ("cards", "jokers", "positions"):
            self._list(m, key, self.lim["set"], "cards" if key == "cards" else key,
                       kind="card" if key == "cards" else None)


def _read_log(path: str) -> list[dict]:
    """The events of a JSON-lines log (docs/replay.md); InputError naming the first bad line,
    or the first place where lines are missing (``_check_log``). Bounded: the file, each
    line, the JSON nesting and every count in an event (players, hands, seats, cards) are
    checked against what the rules allow a game (``_Bounds``) before the line is kept."""
    events, lines = [], []
    bounds = _Bounds()
    size = k = 0
    try:
        with open(path, "rb") as f:
            try:                            # a binary file: said as such, not as line 1's JSON
                f.peek(1 << 13)[:1 << 13].decode("utf-8")
            except UnicodeDecodeError as e:
                if e.reason != "unexpected end of data":        # not a character cut at the end
                    raise InputError(f"{path}: not a log (byte {e.start} is not UTF-8 text; a log is "
                                     "JSON lines, docs/replay.md)") from None
            while True:
                raw = f.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                k += 1
                if len(raw) > MAX_LINE_BYTES:
                    raise InputError(f"{path} line {k}: longer than {MAX_LINE_BYTES // 1024} KiB; an event "
                                     "of a game is far shorter (a log is JSON lines, docs/replay.md)")
                size += len(raw)
                if size > MAX_LOG_BYTES:
                    raise InputError(f"{path}: larger than {MAX_LOG_BYTES >> 20} MiB at line {k}; the log of "
                                     "a game the rules allow is smaller (docs/replay.md)")
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise InputError(f"{path}: not a log (byte {size - len(raw) + e.start} is not UTF-8 "
                                     "text; a log is JSON lines, docs/replay.md)") from None
                if not line.strip():
                    continue
                if _json_depth(line) > MAX_DEPTH:
                    raise InputError(f"{path} line {k}: JSON nested deeper than {MAX_DEPTH} levels; no "
                                     "event of a log is (docs/replay.md)")
                try:
                    e = json.loads(line)
                except (ValueError, RecursionError) as err:
                    raise InputError(f"{path} line {k}: not JSON ({str(err)[:80]})") from None
                if not isinstance(e, dict) or not isinstance(e.get("event"), str):
                    raise InputError(f"{path} line {k}: not an event (an object with \"event\", "
                                     f"docs/replay.md)")
                try:
                    bounds.check(e)
                except ValueError as err:
                    raise InputError(f"{path} line {k}: {e['event'][:20]!r} event: {err}") from None
                events.append(e)
                lines.append(k)
    except OSError as e:
        raise InputError(f"{path}: cannot be read ({e.strerror or e})") from None
    if not events:
        raise InputError(f"{path}: no events")
    problem = _check_log(events)
    if problem is not None:
        i, what = problem
        raise InputError(f"{path} line {lines[i]}: {what}: lines are missing or edited, the log is "
                         "incomplete (replay --seed plays the game again whole)")
    return events


def _write_html(path: str, events: list[dict], **facts) -> None:
    """The replay page of ``events`` (shanghai_sim.web.replay) written to ``path`` whole:
    a temporary file beside it, renamed when complete; InputError if it cannot be."""
    import os
    import tempfile

    from shanghai_sim.web.replay import ReplayError, replay_page
    try:
        text = replay_page(events, **facts)
    except ReplayError as e:
        raise InputError(f"cannot draw {facts.get('source') or 'the game'}: {e}") from None
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".replay-", suffix=".html", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)       # as an ordinary new file, not mkstemp's 0600
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(f"cannot write the page {path}: {e.strerror}") from None
    click.echo(f"replay page written to {path} (open it in a browser)", err=True)


def _check_html_path(path: str | None) -> None:
    """A page path that cannot be written fails before the game is played."""
    import os
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError(f"cannot write the page {path}: it is a folder")
    if not os.path.isdir(folder):
        raise InputError(f"cannot write the page {path}: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise InputError(f"cannot write the page {path}: the folder {folder} is not writable")


def _check_log(events: list[dict]) -> "tuple[int, str] | None":
    """The first event (its index) that a whole log could not hold there, and why; None if
    none. Checks what a deleted line breaks: hands numbered 1, 2, ... each dealt to every
    seat; a seat draws once a turn and discards, goes down, lays off or swaps only after
    drawing; a seat that goes out holds no card (counting dealt, drawn, bought, played); the
    totals add up the scores."""
    hand, players, totals = 0, None, None
    held: dict = {}
    drawn: dict = {}
    dealt: set = set()
    melds: dict = {}            # table meld id -> cards, from go_down and every meld_now
    upcard = went_out = False
    first, down = 0, set()
    offered = None              # the seat that must answer a fresh upcard first (not down), if any
    try:
        for i, e in enumerate(events):
            ev, q = e["event"], e.get("seat")
            if ev == "hand":
                if e["hand"] != hand + 1:
                    return i, f"hand {e['hand']} follows hand {hand}"
                if hand and players is not None and len(dealt) < players:
                    return i, f"hand {hand} was dealt to {len(dealt)} of {players} seats"
                hand, held, drawn, dealt, melds = e["hand"], {}, {}, set(), {}
                upcard = went_out = False
                first, down, offered = e["first"], set(), None
                continue
            if offered is not None and ev != "search":
                # A fresh upcard goes first to the next player who is not down: their refusal
                # (a pass) or their taking it (a draw) comes before anything else (a rollout
                # seat's search of that decision, which comes first, aside).
                asked, offered = offered, None
                if ev not in ("out", "hand_end", "reshuffle", "stopped") and not (
                        q == asked and ((ev == "pass" and e.get("what") == "first_refusal")
                                        or (ev == "draw" and e.get("source") != "stock"))):
                    return i, f"seat {asked} was not offered the upcard first (its refusal or take is missing)"
            if "hand" in e and ev != "hand_end" and e["hand"] != hand:
                return i, f"a hand {e['hand']} event inside hand {hand}"
            if ev in ("pass", "buy", "draw") and not upcard:
                return i, f"seat {q} {ev}s before hand {hand}'s upcard is turned"
            if ev == "upcard":
                upcard = True
                offered = first if first not in down else None
            if ev in ("layoff", "swap"):
                from collections import Counter
                now, before = Counter(e["meld_now"]["cards"]), Counter(melds.get(e["meld"], ()))
                want = before + Counter([e["card"]])
                if ev == "swap":
                    want -= Counter(["JK"])
                if now != want:
                    return i, (f"meld {e['meld']} after this {ev} is not the meld before it "
                               f"{'plus' if ev == 'layoff' else 'with a joker for'} {e['card']}")
                melds[e["meld"]] = e["meld_now"]["cards"]
            if ev == "deal":
                dealt.add(q)
                held[q] = len(e["cards"])
            elif ev == "draw":
                if drawn.get(q):
                    return i, f"seat {q} draws twice in one turn"
                drawn[q] = True
                held[q] = held.get(q, 0) + 1
            elif ev == "buy":
                held[q] = held.get(q, 0) + 1 + len(e.get("penalty", ()))
            elif ev in ("discard", "go_down", "layoff", "swap"):
                if not drawn.get(q):
                    return i, f"seat {q} plays ({ev}) without having drawn"
                if ev == "discard":
                    held[q] -= 1
                    drawn[q] = False
                    if players is not None or dealt:
                        nxt = (q + 1) % (players or len(dealt))
                        offered = nxt if nxt not in down else None
                elif ev == "layoff":
                    held[q] -= 1
                elif ev == "go_down":
                    held[q] -= sum(len(m["cards"]) for m in e["melds"])
                    ids = [m["meld"] for m in e["melds"]]
                    if ids != list(range(len(melds), len(melds) + len(ids))):
                        return i, f"its melds are numbered {ids}, after {len(melds)} melds on the table"
                    for m in e["melds"]:
                        melds[m["meld"]] = m["cards"]
                    down.add(q)
            elif ev == "out":
                went_out = True
                if held.get(q) != 0:
                    return i, f"seat {q} goes out holding {held.get(q)} cards by the log's count"
            elif ev == "hand_end":
                scores = e["scores"]
                players = len(scores)
                if e.get("reason") == "out" and not went_out:
                    return i, f"hand {hand} ends with seat {e.get('winner')} out, but no seat went out"
                if len(dealt) < players:
                    return i, f"hand {hand} was dealt to {len(dealt)} of {players} seats"
                want = [a + b for a, b in zip(totals or [0] * players, scores)]
                if e["totals"] != want:
                    return i, f"hand {hand}'s totals {e['totals']} are not the last totals plus its scores"
                totals = e["totals"]
            elif ev == "game_end":
                if totals is not None and e["totals"] != totals:
                    return i, "the game's totals are not the last hand's"
    except (KeyError, TypeError, AttributeError):
        return None                 # a malformed event: the printer names it
    return None


def register(group: click.Group) -> None:
    @group.command("replay", cls=_OneLineErrors, help=REPLAY_HELP)
    @click.option("--seed", help="The game seed (0..2**64-1).")
    @click.option("--rules", default="shanghai", show_default=True,
                  help="Preset (shanghai, contract, progressive) or a TOML rules file.")
    @rule_option
    @click.option("--players", help="Players at the table, 2..8 (default: the rules', or one per bot).")
    @click.option("--bots", default="greedy", show_default=True, metavar="SPEC[,SPEC...]",
                  help="One bot spec for every seat, or one per seat.")
    @click.option("--log", "log_path", type=click.Path(exists=True, dir_okay=False),
                  help="Print this saved log (JSON lines, e.g. from play --log) instead.")
    @click.option("--json", "as_json", is_flag=True, help="JSON lines (docs/replay.md) instead of text.")
    @click.option("--html", "html_path", type=click.Path(dir_okay=False), callback=named_file,
                  help="Write the game as a self-contained web page here (the table as cards, "
                       "stepped by event, turn or hand; docs/browser.md) instead of printing it.")
    @diagnostic_option
    @click.pass_context
    def replay_cmd(ctx, seed, rules, rule_items, players, bots, log_path, as_json, html_path, diagnostic):
        from shanghai_sim.bots import parse_bot, seat_specs, split_specs
        from shanghai_sim.game import game_events
        from shanghai_sim.log import format_event
        if (seed is None) == (log_path is None):
            raise InputError("give --seed S (play that game) or --log FILE (print a saved log), "
                             "exactly one of the two")
        if log_path is not None:
            given = [f"--{n}" for n, k in (("rules", "rules"), ("rule", "rule_items"),
                                           ("players", "players"), ("bots", "bots"))
                     if ctx.get_parameter_source(k) == click.core.ParameterSource.COMMANDLINE]
            if given:
                raise InputError(f"{', '.join(given)}: a saved log already holds its game "
                                 f"(drop them, or use --seed)")
            _check_html_path(html_path)
            events = _read_log(log_path)
            if html_path is not None:
                _write_html(html_path, events, source=f"from {os.path.basename(log_path)}")
                if not as_json:
                    return
            for e in events:
                if as_json:
                    click.echo(json.dumps(e, separators=(",", ":")))
                else:
                    try:
                        click.echo(format_event(e))
                    except (KeyError, TypeError, IndexError):
                        raise InputError(f"{log_path}: a {e['event']!r} event lacks fields "
                                         f"(docs/replay.md): {json.dumps(e)[:80]}") from None
            if not as_json and events[-1]["event"] not in ("game_end", "stopped"):
                click.echo("== the log ends here: the game was not finished")
            return
        from shanghai_sim.limits import MAX_GAME_SEED, LimitError, parse_int
        try:
            s = parse_int("seed", seed, 0, MAX_GAME_SEED)
        except LimitError as e:
            raise InputError(str(e)) from None
        try:
            if players is None:
                n = len(split_specs(bots))
                p = n if n > 1 else None
            else:
                try:
                    p = parse_int("players", players, 2, 8)
                except LimitError as e:
                    raise InputError(str(e)) from None
            r = rules_at(rules, rule_items, p)        # --rule checked at the count to be played
            if p is None:
                p = r.players
            if not 2 <= p <= 8:
                raise InputError(f"players = {p}: must be 2..8")
            warning = r.two_player_warning(p)
            if warning:
                click.echo(warning, err=True)
            _check_html_path(html_path)
            events, _ = game_events(r, p, s, bots, diagnostic=diagnostic)
            seats = [parse_bot(b, r.hands).name for b in seat_specs(split_specs(bots), p)]
        except InputError:
            raise
        except ValueError as e:       # RulesError, BotError, GameError
            raise InputError(str(e)) from None
        if html_path is not None:
            _write_html(html_path, events, rules=r, players=p, seats=seats, seed=s)
            if not as_json:
                return
        if as_json:
            for e in events:
                click.echo(json.dumps(e, separators=(",", ":")))
        else:
            click.echo(f"# seed {s}, rules {r.name}, {p} players, bots {bots}")
            from shanghai_sim.bots import diagnostic_marks
            for line in diagnostic_marks(seats):
                click.echo(f"# {line}")
            for e in events:
                click.echo(format_event(e))

    @group.command("bots", cls=_OneLineErrors)
    def bots_cmd():
        """List the bots and their parameters."""
        from shanghai_sim.bots import bots_help
        click.echo(bots_help())
