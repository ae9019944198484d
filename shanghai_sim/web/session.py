"""The game behind the served page: ``PlaySession``, one ``HumanGame`` driven for the browser.

Work that can take long (dealing, the bots' turns, a hint: kernels compile on first use) runs
on a worker thread, one job at a time, under the session's lock; meanwhile ``state`` answers at
once with what is being done, for how long, and whether numba is compiling (``_Compiling``).
``act`` and ``ask_hint`` take the person's input with the game's ``moves`` it was chosen at
(a stale one: 409), ``state`` is the person's view as ``play.js`` draws it, and the log is
saved after every turn (``write_log``: whole or not at all), the person's seat view until the
game is over.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
import time
from http import HTTPStatus
from typing import Any, Callable

from ..log import seat_view


class _Compiling:
    """Whether numba is compiling now, and since when (numba's ``numba:compile`` event, which
    fires only for a real compile, not a load from the cache)."""

    def __init__(self):
        self.depth = 0
        self.since: float | None = None
        self._lock = threading.Lock()
        from numba.core import event

        class Listener(event.Listener):
            def on_start(_, ev):
                with self._lock:
                    self.depth += 1
                    if self.depth == 1:
                        self.since = time.monotonic()

            def on_end(_, ev):
                with self._lock:
                    self.depth -= 1
                    if self.depth == 0:
                        self.since = None

        event.register("numba:compile", Listener())

    def elapsed(self) -> float | None:
        since = self.since
        return None if since is None else time.monotonic() - since


_COMPILING: _Compiling | None = None


def _compiling() -> _Compiling:
    global _COMPILING
    if _COMPILING is None:
        _COMPILING = _Compiling()
    return _COMPILING


def write_log(path: str, events: list[dict[str, Any]]) -> None:
    """The log as JSON lines, written whole: a temporary file beside ``path``, then renamed,
    so a log already there is never left half-written."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".log-", suffix=".jsonl", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for e in events:
                f.write(json.dumps(e, separators=(",", ":")) + "\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class PlaySession:
    """One game at the served page. ``make(write)`` builds the HumanGame (``write``: where
    its lines go); ``log_path``: where the log is saved after every turn of the person."""

    def __init__(self, make: Callable[[Callable[[str], None]], Any], log_path: str | None = None):
        self._make = make
        self.log_path = log_path
        self.hg = None
        self.lines: list[str] = []
        self.lock = threading.RLock()
        self.busy: str | None = None
        self.busy_since = 0.0
        self.error: str | None = None
        self.log_error: str | None = None
        self.saved = False          # whether the log was written (the last write: unless log_error)
        self.hint: dict[str, Any] | None = None
        self.version = 0
        # The game's own moves: the person's actions applied so far. Every action names the
        # count it was chosen at; one chosen before the game moved on is refused (409).
        self.moves = 0
        # The game's token: the page carries it in every request that changes anything (a
        # page of another site cannot read it); it stops playing when the game ends.
        self.token = secrets.token_urlsafe(32)
        self.compiling = _compiling()

    # ------------------------------------------------------------ the worker
    def _write(self, text: str) -> None:
        self.lines.extend(str(text).split("\n"))

    def _job(self, what: str, fn: Callable[[], None]) -> None:
        self.busy_since = time.monotonic()
        self.busy = what

        def run():
            try:
                with self.lock:
                    fn()
            except Exception as e:       # shown on the page: a fault of ours, not bad input
                self.error = f"{what} failed: {type(e).__name__}: {e}"
            finally:
                self.version += 1
                self.busy = None

        threading.Thread(target=run, name="shanghai-serve", daemon=True).start()

    def start(self) -> None:
        def boot():
            self.hg = self._make(self._write)
            self.hg.start()
            self._advance()
        self._job("dealing", boot)

    def _advance(self) -> None:
        hg = self.hg
        hg.advance()
        if hg.game.over:
            hg.finish()
        self.save()

    def save(self) -> None:
        """The log to ``log_path``: the person's seat view while the game goes on or when it
        was stopped, the full log once it is over (``log_events``)."""
        if self.log_path is None or self.hg is None:
            return
        try:
            write_log(self.log_path, self._events())
            self.log_error = None
            self.saved = True
        except OSError as e:
            self.log_error = f"cannot write the log {self.log_path}: {e.strerror}"

    def stop(self, reason: str = "interrupted") -> None:
        """The server is closing: an unfinished game is saved as stopped (play --log does the same)."""
        with self.lock:
            hg = self.hg
            if hg is not None and not hg.game.over and not hg.stopped:
                hg.stopped = reason
                hg.finish()
                self.save()

    def wait(self, timeout: float = 600.0) -> None:
        """Until no job runs (tests)."""
        end = time.monotonic() + timeout
        while self.busy is not None and time.monotonic() < end:
            time.sleep(0.01)

    # ------------------------------------------------------------ requests
    def _refused(self) -> str | None:
        """Why the person cannot act now (under the lock: a second request that came in
        with the first sees the job the first started), or None."""
        hg = self.hg
        if self.busy is not None:
            return f"wait: {self.busy}"
        if hg.stopped:
            return f"the game was stopped ({hg.stopped})"
        if hg.game.over:
            return "the game is over"
        if hg.game.to_act != hg.seat:
            return "it is not your turn"
        return None

    def ended(self) -> bool:
        """Whether the game is over or was stopped (its token no longer plays)."""
        hg = self.hg
        return hg is not None and bool(hg.game.over or hg.stopped)

    def _stale(self, moves: int | None) -> tuple[int, dict[str, Any]] | None:
        if moves is None or moves == self.moves:
            return None
        return HTTPStatus.CONFLICT, {
            "error": "the game has moved on since this page was drawn (it was played from another "
                     "tab or window): here are the current choices",
            "stale": True, "moves": self.moves}

    def act(self, line: str, moves: int | None = None) -> tuple[int, dict[str, Any]]:
        """The person's input: one line (an action's number or a command), chosen when the
        game had made ``moves`` moves (None: not checked). (HTTP status, reply)."""
        from ..human import Stop
        if self.busy is not None or self.hg is None:
            return HTTPStatus.CONFLICT, {"error": f"wait: {self.busy or 'starting'}"}
        with self.lock:
            hg = self.hg
            refused = self._stale(moves) or self._refused()
            if isinstance(refused, tuple):
                return refused
            if refused:
                return HTTPStatus.CONFLICT, {"error": refused}
            before = len(self.lines)
            try:
                applied = hg.submit(line)
            except Stop as e:
                hg.stopped = e.reason
                hg.finish()
                self.save()
                applied = True
            answer = self.lines[before:]
            if applied:
                self.moves += 1
                self.hint = None
                if not hg.stopped:
                    self._job("the bots are playing", self._advance)
            self.version += 1
            return HTTPStatus.OK, {"applied": applied, "answer": answer}

    def ask_hint(self, moves: int | None = None) -> tuple[int, dict[str, Any]]:
        if self.busy is not None or self.hg is None:
            return HTTPStatus.CONFLICT, {"error": f"wait: {self.busy or 'starting'}"}
        with self.lock:
            stale = self._stale(moves)
            if stale:
                return stale
            refused = self._refused()
            if refused:
                return HTTPStatus.CONFLICT, {"error": refused}

            def think():
                k, text = self.hg.advice()
                self.hint = {"choice": k, "text": text}
            self._job("thinking of a hint", think)
            return HTTPStatus.OK, {"asked": True}

    def state(self) -> dict[str, Any]:
        busy = self.busy
        out: dict[str, Any] = {"version": self.version, "moves": self.moves, "error": self.error,
                               "log": self.log_path, "log_error": self.log_error}
        if busy is not None or self.hg is None:
            c = self.compiling.elapsed()
            out.update(busy=busy or "starting", elapsed=round(time.monotonic() - self.busy_since, 1),
                       compiling=None if c is None else round(c, 1))
            return out
        with self.lock:
            out.update(self._view())
        return out

    def _view(self) -> dict[str, Any]:
        from ..cards import card_str
        from ..kernels.base import layout as L
        hg = self.hg
        g, seat = hg.game, hg.seat
        v = g.view(seat)
        events = hg._feed.events()
        scores = hg.hand_results()      # each finished hand: scores, totals, who went out, cards left
        fresh: list[str] = []
        for e in reversed(events):
            if e["event"] in ("discard", "hand", "upcard"):
                break
            if e.get("seat") == seat and e["event"] in ("draw", "buy"):
                fresh = [e["card"]] + list(e.get("penalty", []))
                break
        ended = bool(g.over or hg.stopped)
        upcard = v["upcard"]
        if upcard is None and not ended and g.phase in ("first_refusal", "buy", "draw"):
            upcard = card_str(int(g.S[L.S_UP]))
        out_seat = next((e["seat"] for e in reversed(events)
                         if e["event"] == "out" and e["hand"] == v["hand"]), None)
        seats = [{"cards": v["cards"] if q == seat else None, "count": v["hand_sizes"][q],
                  "down": v["down"][q], "buys": v["buys_left"][q], "buysUsed": None,
                  "out": out_seat == q, "fresh": fresh if q == seat else [],
                  "known": [] if q == seat else v["known"][q]} for q in range(hg.players)]
        choices = [] if ended else hg.choices()
        game_over = g.over and not hg.stopped
        result = None
        if game_over or hg.stopped:
            result = self.lines[-1] if self.lines else ""
        return {
            "busy": None, "seed": hg.seed, "rules": hg.rules.name, "players": hg.players,
            "seat": seat, "names": hg.seats, "phase": g.phase, "over": game_over,
            "stopped": hg.stopped, "result": result,
            "situation": "" if ended else hg.situation(),
            "table": {"players": hg.players, "names": hg.seats, "human": seat, "hand": v["hand"],
                      "contract": v["contract"], "turn": None if ended else v["to_act"],
                      "upcard": upcard, "pile": v["pile"], "stock": v["stock"], "melds": v["table"],
                      "seats": seats, "scores": scores, "totals": v["totals"]},
            "choices": [{"n": i, "text": str(a), "kind": a.kind, "card": a.card, "meld": a.meld,
                         "end": a.end} for i, a in enumerate(choices, 1)],
            "hint": self.hint,
            "lines": self.lines[-400:],
        }

    def _events(self) -> list[dict[str, Any]]:
        hg = self.hg
        if hg is None:
            return []
        events = hg.log_events()
        return events if hg.game.over and not hg.stopped else seat_view(events, hg.seat)

    def log_events(self) -> list[dict[str, Any]]:
        """The log the server shows and saves: the person's seat view (``log.seat_view``: no
        other seat's deal, stock draw, penalty card or search) until the game is over, then
        the full log. A stopped game stays a seat view."""
        with self.lock:
            return self._events()

    def full_events(self) -> list[dict[str, Any]]:
        """Every event, the bots' hidden cards included (tests; never served during play)."""
        with self.lock:
            return self.hg.log_events() if self.hg is not None else []
