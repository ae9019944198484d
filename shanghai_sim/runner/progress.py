"""Progress on stderr: games done, rate and time left."""

from __future__ import annotations

import math
import threading
import time
from typing import TextIO

# ---------------------------------------------------------------- progress

def _fmt_duration(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


# The first estimate of the time left waits for this much of the session (seconds, or share
# of the games it plays): the first chunks (one game, then ~5 s of games) say little of the rate.
ESTIMATE_AFTER_SECONDS = 5.0
ESTIMATE_AFTER_SHARE = 0.02


class Progress:
    """Games done, games per second and time left, on one stderr line. The time left is
    "estimating" until ``ESTIMATE_AFTER_SECONDS`` have passed or ``ESTIMATE_AFTER_SHARE``
    of the games to play are done."""

    def __init__(self, total: int, already: int, stream: TextIO | None, every: float | None = None):
        self.total, self.done, self.stream = total, already, stream
        self.start_done = already
        self.t0 = time.perf_counter()
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.every = every if every is not None else (0.5 if self.tty else 10.0)
        self.last = 0.0
        self.lock = threading.Lock()

    def add(self, n: int) -> None:
        with self.lock:
            self.done += n

    def line(self) -> str:
        el = time.perf_counter() - self.t0
        new = self.done - self.start_done
        rate = new / el if el > 0 else 0.0
        to_play = self.total - self.start_done
        settled = el >= ESTIMATE_AFTER_SECONDS or new >= ESTIMATE_AFTER_SHARE * to_play or self.done >= self.total
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (f"{self.done:,}/{self.total:,} games ({pct:.1f}%)  {rate:,.0f} games/s  "
                f"elapsed {_fmt_duration(el)}  left {_fmt_duration(left) if settled else 'estimating'}")

    def show(self, force: bool = False) -> None:
        if self.stream is None:
            return
        now = time.perf_counter()
        if not force and now - self.last < self.every:
            return
        self.last = now
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.stream is not None:
            self.show(force=True)
            if self.tty:
                self.stream.write("\n")
            self.stream.flush()
