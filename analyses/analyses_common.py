"""What the analyses/ scripts share: options, bad input, compute records, report pieces, charts.

A study imports this module as ``analyses.analyses_common`` when it is imported as a module of
the package ``analyses`` (the tests), and as ``analyses_common`` from its own folder when it
runs as a script (``python analyses/NAME.py``).

Each analysis (``python analyses/NAME.py [--games N] [--out DIR]``) asks one
question through the public API (``shanghai_sim.experiment``, ``runner``,
``tournament``) and writes ``report.md``, PNG charts and CSVs into ``--out``
(default ``analyses/results/NAME``). The raw datasets go to ``OUT/data/``
(git-ignored); a second run with the same options reuses them (the library's
resume), so an interrupted analysis continues where it stopped.

Charts follow docs/experiments.md and docs/method.md: a title that
states the question, axes with units, the CI drawn, the line-up, rules and n
in the caption, and markers/line styles that survive grey-scale printing.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, NamedTuple

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

# Grey-scale safe: black / dark grey / mid grey, each with its own marker and line.
STYLES = [dict(color="black", marker="o", mfc="black", ls="-"),
          dict(color="0.35", marker="s", mfc="white", ls="--"),
          dict(color="0.55", marker="^", mfc="0.55", ls=":"),
          dict(color="0.15", marker="D", mfc="white", ls="-."),
          dict(color="0.45", marker="v", mfc="0.45", ls=(0, (5, 1))),
          dict(color="0.25", marker="P", mfc="white", ls=(0, (1, 1)))]


class AnalysisError(ValueError):
    """A bad option of an analysis script: one line, exit status 2."""


def ascii_int(text: str) -> int:
    """An integer option of a study: ASCII digits with an optional sign, as every command reads
    one (``cli.errors.Integer``); ``int()`` also takes ``1_000`` and other scripts' digits
    (``٥``). ValueError otherwise (argparse: "invalid int value")."""
    s = str(text).strip()
    body = s[1:] if s[:1] in "+-" else s
    if not (body.isascii() and body.isdigit()) or len(body) > 40:
        raise ValueError(text)
    return int(s)


def finite_float(text: str) -> float:
    """A real-number option of a study: ASCII decimal notation, finite, as every command reads
    one (``cli.errors.Number``); ``float()`` also takes ``nan``, ``inf`` and other scripts'
    digits, which pass any range check (NaN compares false). ValueError otherwise (argparse:
    "invalid float value")."""
    import math
    import re
    s = str(text).strip()
    if not (s.isascii() and len(s) <= 40 and re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s)):
        raise ValueError(text)
    x = float(s)
    if not math.isfinite(x):
        raise ValueError(text)
    return x


class Parser(argparse.ArgumentParser):
    """argparse with the project's error shape: one line (no usage dump), exit status 2, and
    --seed/--threads/--games checked by ``shanghai_sim.limits`` as every command checks them;
    its ``type=int`` and ``type=float`` options read ASCII numbers only, finite ones
    (``ascii_int``, ``finite_float``: no NaN, infinity or other scripts' digits)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("type", int, ascii_int)
        self.register("type", float, finite_float)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def parse_args(self, args=None, namespace=None):
        from shanghai_sim.limits import LimitError, check_namespace
        a = super().parse_args(args, namespace)
        try:
            check_namespace(a)
            if getattr(a, "out", None) is not None:
                check_out(a.out)
        except (LimitError, AnalysisError) as e:
            self.error(str(e))
        return a


# Folders a study never writes into, whatever they hold: the root and the system's own
# top-level folders (and everything below /proc, /sys and /dev).
SYSTEM_FOLDERS = frozenset(["/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64",
                            "/libx32", "/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin",
                            "/srv", "/sys", "/tmp", "/usr", "/var"])
STUDY_MARKS = ("report.md", "data")     # what a study writes first (data/) and last (report.md)


def check_out(out: str) -> Path:
    """``--out`` as a study may write it, else AnalysisError (one line, exit 2): a new folder,
    an empty one, or one a study wrote before (its ``data/`` or ``report.md``: a rerun resumes
    or rewrites it), as ``shanghai-sim run --out`` takes only a new, empty or dataset folder.
    So ``--out /``, ``--out ~`` or ``--out /etc`` is refused before anything is written."""
    if not str(out).strip():
        raise AnalysisError("--out '': give a folder (e.g. --out results)")
    path = Path(out).expanduser()
    full = Path(os.path.realpath(path))
    if full == Path.home().resolve():
        raise AnalysisError(f"--out {out}: your home folder; choose a new or empty folder "
                            "(e.g. --out results)")
    if str(full) in SYSTEM_FOLDERS or any(full.is_relative_to(d) for d in ("/proc", "/sys", "/dev")):
        raise AnalysisError(f"--out {out}: a system folder; choose a new or empty folder "
                            "(e.g. --out results)")
    try:
        exists = full.exists()
    except OSError as e:            # a name too long, a loop of links: nothing can be written there
        raise AnalysisError(f"--out {str(out)[:80]}: cannot be used ({e.strerror}); choose another "
                            "folder") from None
    if exists:
        if not full.is_dir():
            raise AnalysisError(f"--out {out}: a file, not a folder; choose a new or empty folder")
        try:
            names = os.listdir(full)
        except OSError as e:
            raise AnalysisError(f"--out {out}: cannot be read ({e.strerror}); choose another folder") from None
        if names and not any(m in names for m in STUDY_MARKS):
            raise AnalysisError(f"--out {out}: not empty and holds no study (no report.md or data/); "
                                "choose a new or empty folder")
    return path


def parser(name: str, doc: str, games: int, seed: int = 1, games_help: str = "deals per arm") \
        -> argparse.ArgumentParser:
    """The options every analysis takes: --games, --out, --seed, --threads, --quiet."""
    ap = Parser(prog=f"analyses/{name}.py", description=doc.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=games, help=f"{games_help} (default {games})")
    ap.add_argument("--out", default=str(RESULTS / name), help=f"output folder (default analyses/results/{name})")
    ap.add_argument("--seed", type=int, default=seed, help=f"job seed (default {seed})")
    ap.add_argument("--threads", type=int, default=None, help="worker threads (default: every core)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return ap


def levels_arg(ap: argparse.ArgumentParser, default: str = "greedy,smart") -> None:
    ap.add_argument("--levels", default=default,
                    help="opponent levels: bot specs, the focal player and its opponents play the same one "
                         f"(default {default}); in the experiments, SPEC@N caps that level at N deals, for a "
                         "slow bot such as rollout (e.g. rollout:rollouts=8@100)")


def check_levels(text: str) -> list[str]:
    """Each level must be a known bot spec (one line and exit 2 otherwise), without a cap: for the
    analyses whose runs all have --games (the experiments read caps with ``level_caps``)."""
    caps = level_caps(text)
    capped = [lv for lv, n in caps.items() if n]
    if capped:
        raise AnalysisError(f"--levels {capped[0]}@{caps[capped[0]]}: a cap per level is for the experiments "
                            "(buying, buy_budget, going_down); here every level plays --games")
    return list(caps)


def level_caps(text: str) -> dict[str, int | None]:
    """``greedy,smart,rollout:rollouts=8@100`` -> {spec: cap of deals or None}, each spec checked."""
    from shanghai_sim.bots import parse_bot
    out: dict[str, int | None] = {}
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        spec, at, cap = item.partition("@")
        spec = spec.strip()
        n = None
        if at:
            try:
                n = int(cap)
            except ValueError:
                n = 0
            if n < 2:
                raise AnalysisError(f"--levels {item!r}: the cap after @ must be a number of deals, 2 or more")
        parse_bot(spec, 10)
        if spec in out:
            raise AnalysisError(f"--levels: {spec!r} is given twice")
        out[spec] = n
    if not out:
        raise AnalysisError("--levels: give at least one bot spec, e.g. --levels greedy,smart")
    return out


def no_rollout_note(levels: list[str]) -> str:
    """The report's words when an experiment ran without a rollout level ("" when it had one)."""
    if any(lv.startswith("rollout") for lv in levels):
        return ""
    return (" No `rollout` level: it plays about 1,000 times slower than smart, and the issue asks it of "
            "`buying` only (add one with `--levels smart,rollout:rollouts=8@N`).")


def file_part(spec: str) -> str:
    """A bot spec as part of a file name: ``rollout:rollouts=8`` -> ``rollout_rollouts8``."""
    return spec.replace(":", "_").replace("=", "")


def parse_presets(text: str, option: str = "--presets") -> list[str]:
    """``shanghai,contract`` -> the presets (or rules files), each checked; at least one."""
    from shanghai_sim.rules import load_rules
    presets = [p.strip() for p in text.split(",") if p.strip()]
    if not presets:
        raise AnalysisError(f"{option} {text!r}: give at least one preset, e.g. {option} shanghai,contract")
    for p in presets:
        load_rules(p)
    return presets


def parse_hands(text: str, presets: list[str]) -> list[int]:
    """``1-10`` or ``3,8`` -> hand numbers, each one a hand of every preset given."""
    from shanghai_sim.rules import MAX_HANDS, load_rules
    out: list[int] = []
    for part in text.split(","):
        a, _, b = (t.strip() for t in part.partition("-"))
        if not all(t.isascii() and t.isdigit() and len(t) <= 3 for t in (a, b or a)):
            raise AnalysisError(f"--hands {text!r}: expected hand numbers such as 1-10 or 3,8")
        if int(a) > int(b or a):
            raise AnalysisError(f"--hands {text!r}: {part.strip()} counts down (write low-high)")
        out += list(range(int(a), min(int(b or a), MAX_HANDS) + 1))
    for p in presets:
        r = load_rules(p)
        if not out or not all(1 <= h <= r.hands for h in out):
            raise AnalysisError(f"--hands {text}: the rules {p!r} have hands 1..{r.hands}")
    return out


def main_guard(fn) -> int:
    """Run ``fn()``; the library's errors (bad spec, rules, folder) are one line and exit 2."""
    from shanghai_sim.bots import BotError
    from shanghai_sim.dataset import DatasetError, WriteError
    from shanghai_sim.experiment import ExperimentError
    from shanghai_sim.rules import RulesError
    from shanghai_sim.runner import JobError
    from shanghai_sim.limits import LimitError
    from shanghai_sim.tournament import TournamentError
    try:
        return fn() or 0
    except (AnalysisError, BotError, DatasetError, ExperimentError, JobError, LimitError, RulesError,
            TournamentError, WriteError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:               # --out on a file, under a folder it may not write, ...
        where = f" {e.filename}" if e.filename else ""
        print(f"error: cannot write{where}: {e.strerror or e} (choose another --out)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to continue (the datasets played are kept)", file=sys.stderr)
        return 130


def progress(quiet: bool):
    return None if quiet else sys.stderr


def say(quiet: bool, msg: str) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


class Clock:
    """Wall time of each step, for the report's compute budget."""

    def __init__(self):
        self.t0 = time.perf_counter()
        self.steps: list[tuple[str, float]] = []

    @contextmanager
    def step(self, name: str):
        t = time.perf_counter()
        yield
        self.steps.append((name, time.perf_counter() - t))

    @property
    def total(self) -> float:
        return time.perf_counter() - self.t0


class Cell(NamedTuple):
    """One point of a sweep: the level (the bot spec of the focal player and its opponents, or of
    every seat), the rules preset, and the sweep's third axis (a hand number, a player count, a
    rules variant; None when there is none)."""
    level: str
    preset: str
    item: object = None


def cells(levels, presets, items=(None,)) -> list[Cell]:
    """levels x presets x items, nested in that order (the order of every report's rows).
    ``items``: the third axis, or a function of (level, preset) that gives it."""
    return [Cell(lv, p, x) for lv in levels for p in presets
            for x in (items(lv, p) if callable(items) else items)]


class Study:
    """One run of an analysis: the axes of its sweep, its folder ``out`` (report.md, charts,
    CSVs), the datasets' ``out/data`` (made here; resumed on a rerun), the clock of its steps,
    its progress lines on stderr (none with --quiet) and the charts it drew, in order.

    The axes are parsed first, each bad one a line and exit 2 before any folder is made:
    ``levels`` and ``caps`` from --levels (``caps=True``: with the experiments' ``SPEC@N``,
    else every cap None), ``presets`` from --presets, ``hands`` from --hands (``hands=True``;
    else None); an option the script does not take gives no axis."""

    def __init__(self, a, caps: bool = False, hands: bool = False):
        self.caps: dict[str, int | None] = {}
        if hasattr(a, "levels"):
            self.caps = level_caps(a.levels) if caps else dict.fromkeys(check_levels(a.levels))
        self.levels = list(self.caps)
        self.presets = parse_presets(a.presets) if hasattr(a, "presets") else []
        self.hands = parse_hands(a.hands, self.presets) if hands else None
        self.quiet = a.quiet
        self.out = Path(a.out)
        self.data = self.out / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.clock = Clock()
        self.charts: list[str] = []

    def say(self, msg: str) -> None:
        say(self.quiet, msg)

    def sweep(self, cells: list[Cell], play: Callable, rows: Callable, step: Callable,
              line: Callable) -> dict[str, list[dict]]:
        """Each cell in turn: ``play(cell)`` (its experiment or run, and whatever is read back
        inside the timing), timed as the clock step ``step(cell)``; the progress line
        ``line(cell, result, seconds)``; then ``rows(cell, result)``, {table: [row, ...]}: the
        report rows the cell adds to each table. Returns every table's rows in cell order (a
        table no cell added to is empty)."""
        tables: dict[str, list[dict]] = defaultdict(list)
        for cell in cells:
            with self.clock.step(step(cell)):
                res = play(cell)
            self.say(line(cell, res, self.clock.steps[-1][1]))
            for name, got in rows(cell, res).items():
                tables[name] += got
        return tables

    def chart(self, name: str, draw: Callable) -> Path:
        """``draw(path)`` into OUT/``name``, listed for the report (``self.charts``)."""
        path = self.out / name
        draw(path)
        self.charts.append(name)
        return path

    def write_report(self, lines: list[str]) -> None:
        (self.out / "report.md").write_text("\n".join(lines), encoding="utf-8")

    def done(self) -> int:
        """The last progress line; the exit status of a finished run."""
        self.say(f"written {self.out}/report.md ({self.clock.total:.0f} s)")
        return 0


def experiment(level: str, preset: str, a, folder, variants, **design):
    """One experiment of a sweep: the focal player and its three opponents at ``level``, 4
    players, the job's seed and threads, ``variants`` (``Arm``s) against the level's own bot and
    the rest of the design (``hand=``, ``games=`` or ``target_ci=``/``max_games=``), resumed
    from ``folder`` if played there before. Returns its ``ExperimentResult``."""
    from shanghai_sim.experiment import Experiment, run_experiment
    exp = Experiment(baseline=level, opponents=level, rules=preset, players=4, seed=a.seed,
                     variants=tuple(variants), threads=a.threads, **design)
    return run_experiment(exp, str(folder), resume=True, progress=None)


def effect_columns(effects, vr: bool = True) -> dict:
    """An arm's effects as report columns: ``{m}_mean``, ``_lo``, ``_hi``, ``_p`` per measure m
    (and ``_vr``, the variance reduction of the pairing, with ``vr``); none for the baseline."""
    row = {}
    for m, e in (effects or {}).items():
        row.update({f"{m}_mean": e.mean, f"{m}_lo": e.lo, f"{m}_hi": e.hi, f"{m}_p": e.p})
        if vr:
            row[f"{m}_vr"] = e.variance_reduction
    return row


def report_head(title: str, facts: list[tuple[str, object, int]] = ()) -> list[str]:
    """A report's first lines: its question, the command that reproduces it, the versions, what
    the rules settle before any game is played (``rules_facts(facts)``: (label, rules, players)
    per table), and the heading of its design."""
    return ([f"# {title}", "", f"Command: `{command_line()}`  ", f"Environment: {environment()}", ""]
            + rules_facts(facts) + ["## Design", ""])


def preset_facts(presets, players=(4,)) -> list[tuple[str, object, int]]:
    """``report_head``'s ``facts`` for rules presets (or rules files) at these player counts."""
    from shanghai_sim.rules import load_rules
    return [(p, load_rules(p), n) for p in presets for n in players]


def buys_words(n: int | None) -> str:
    return "impossible" if n is None else str(n)


def rules_facts(tables: list[tuple[str, object, int]]) -> list[str]:
    """The report section "What the rules settle": per (label, rules, players), each hand's
    contract, the cards it needs against the cards a player holds, and the buys that make up the
    difference, from ``shanghai_sim.facts.hand_facts`` (the function the rules' own checks
    use), then in words the hands a player who never buys cannot go down in, and those where it
    goes down only by going out in the same turn. Tables that say the same thing (the player
    counts of one preset, where only the shoe changes) are merged under one label."""
    if not tables:
        return []
    import pandas as pd
    from shanghai_sim.facts import hand_facts
    groups: dict[str, tuple[list[str], pd.DataFrame, list]] = {}
    for label, rules, players in tables:
        facts = hand_facts(rules, players)
        df = pd.DataFrame([{"hand": f.hand, "contract": f.contract, "dealt": f.deal,
                            "cards to go down": f.cards_to_go_down, "held without a buy": f.holds,
                            "buys to go down": buys_words(f.buys_needed),
                            "cards to go down and play on": f.cards_to_stay_in,
                            "buys to go down and play on": buys_words(f.buys_to_stay_in),
                            "shoe can make it": "yes" if f.jokers_needed is not None else "no"}
                           for f in facts])
        key = df.to_csv(index=False)
        groups.setdefault(key, ([], df, facts))[0].append(
            label if label.endswith("players") else f"{label}, {players} players")
    L = ["## What the rules settle (before any game is played)", "",
         "From the rules alone (`shanghai_sim.facts.hand_facts`, the function behind the rules' own "
         "check that every contract can be met; docs/rules.md §3): the cards a contract needs to go "
         "down (its melds at their least, plus the discard a turn owes where going out takes one) and "
         "to go down and play on (one card discarded, one kept), against the most a player holds in a "
         "turn without buying (the deal and the draw), and the buys (each the upcard and its penalty "
         "cards) that close the gap. No simulated number depends on the bots here.", ""]
    for labels, df, facts in groups.values():
        never = [f.hand for f in facts if f.buys_needed != 0]
        out_only = [f.hand for f in facts if f.buys_needed == 0 and f.buys_to_stay_in != 0]
        words = []
        if never:
            words.append(f"a player who never buys **cannot go down** in hand{'s' * (len(never) > 1)} "
                         f"{', '.join(map(str, never))}: never buying there gives the hand up, so its cost "
                         "is what the bot loses with a hand it cannot make, not a choice between two ways to "
                         "play it (true by construction; *when* and *how often* to buy are the questions "
                         "the rules leave open)")
        if out_only:
            words.append(f"in hand{'s' * (len(out_only) > 1)} {', '.join(map(str, out_only))} a player who "
                         "never buys can go down only by going out in the same turn")
        text = "; ".join(words) if words else "every contract can be gone down without a buy"
        L += [f"**{'; '.join(labels)}.** {text[0].upper()}{text[1:]}.", "", table_md(df), ""]
    return L


def environment() -> str:
    import numba
    import numpy
    import pyarrow
    from shanghai_sim import __version__
    from shanghai_sim.bots import BOTS
    bots = ", ".join(f"{k} v{v.version}" for k, v in BOTS.items())
    return (f"shanghai-sim {__version__} (bots: {bots}); Python {platform.python_version()}, numpy "
            f"{numpy.__version__}, numba {numba.__version__}, pyarrow {pyarrow.__version__}; "
            f"{platform.machine()}, run {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC")


def command_line() -> str:
    """The command as a shell takes it back (an argument with ';' or a space quoted)."""
    import shlex
    args = shlex.join(sys.argv[1:])
    return f"python analyses/{Path(sys.argv[0]).name}" + (f" {args}" if args else "")


def write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=1, default=str) + "\n", encoding="utf-8")


def fmt_ci(mean: float, lo: float, hi: float, digits: int = 1, sign: bool = True) -> str:
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    return f"{f.format(mean)} [{f.format(lo)}, {f.format(hi)}]"


def holm_words(p: float | None) -> str:
    if p is None:
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.2g}"


def table_md(df, floatfmt: str = ".2f") -> str:
    """A pandas frame as a Markdown table (no tabulate dependency)."""
    cols = list(df.columns)
    out = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, float):
                cells.append("" if v != v else format(v, floatfmt))
            else:
                cells.append(str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "figure.dpi": 110, "savefig.dpi": 110})
    return plt


def caption(fig, text: str) -> None:
    """The caption under the chart: line-up, rules, n, what the bars are."""
    import textwrap
    fig.text(0.01, 0.005, "\n".join(textwrap.wrap(text, 150)), fontsize=7, va="bottom", ha="left", color="0.2")


def forest(ax, labels: list[str], series: list[tuple[str, list[float], list[float], list[float]]],
           xlabel: str, title: str | None = None) -> None:
    """A forest plot: one row per label (top to bottom), one marker per series with its CI.

    ``series``: (name, means, los, his), each list aligned with ``labels`` (NaN: missing)."""
    import numpy as np
    k = len(series)
    y0 = np.arange(len(labels))[::-1].astype(float)
    off = (np.arange(k) - (k - 1) / 2) * (0.8 / max(k, 1))
    for j, (name, m, lo, hi) in enumerate(series):
        st = STYLES[j % len(STYLES)]
        m, lo, hi = (np.asarray(x, dtype=float) for x in (m, lo, hi))
        ax.errorbar(m, y0 + off[j], xerr=[m - lo, hi - m], fmt=st["marker"], color=st["color"],
                    mfc=st["mfc"], mec=st["color"], ms=5, capsize=2, lw=1.2, label=name)
    ax.axvline(0, color="0.5", lw=0.8, ls="-")
    ax.set_yticks(y0)
    ax.set_yticklabels(labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", color="0.9", lw=0.6)
    if title:
        ax.set_title(title)


def focal_counts(location: str, hand: int | None = None) -> dict[str, float]:
    """The focal player's (player 0) hands, hands gone out, blind go-outs and buys in one arm's
    dataset, streamed by columns through the checked reader (memory: one part at a time)."""
    import pyarrow.compute as pc
    from shanghai_sim.integrity import iter_parts
    c = {"hands": 0, "went_out": 0, "blind": 0, "buys": 0}
    for _, t in iter_parts(location, "hands", ["player", "hand", "went_out", "blind", "buys"]):
        keep = pc.equal(t["player"], 0)
        if hand is not None:
            keep = pc.and_(keep, pc.equal(t["hand"], hand))
        t = t.filter(keep)
        c["hands"] += t.num_rows
        for k in ("went_out", "blind", "buys"):
            c[k] += int(pc.sum(t[k].cast("int64")).as_py() or 0)
    return c


def recorded_seconds(folder: str) -> float:
    """The time spent playing a run (``run_seconds`` of its manifest.json) or an experiment (the sum
    over its arms' manifests), over every session that played games, so a rerun that only reads
    the data again reports the time the data took to make, not the time to read it."""
    p = Path(folder)
    manifests = sorted((p / "arms").glob("*/manifest.json")) if (p / "experiment.json").exists() \
        else [p / "manifest.json"]
    try:
        return sum(float(json.loads(m.read_text())["timings"]["run_seconds"]) for m in manifests) \
            if manifests else float("nan")
    except (OSError, ValueError, KeyError, TypeError):
        return float("nan")


def holm_column(p) -> list[float]:
    """Holm-adjusted p-values of a column of p-values. A missing p (NaN: the arms played alike on
    every deal, no variance) takes no part in the family and stays NaN (``stats.holm`` skips None,
    but a NaN would upset its ordering)."""
    import math
    from shanghai_sim.stats import holm
    vals = [None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x) for x in p]
    return [float("nan") if x is None else x for x in holm(vals)]
