"""Do the sizes hold as the players get stronger? (issue #31, item 4)

Compares the hand-level answers of two committed `buying.py` runs cell by cell: a
smart level from one (`--smart`, default the committed default run) and a search
(`rollout`) level from the other (`--search`, default the committed search-level
run), on the cells both played. It plays no game: the search level takes hours, so
its run is kept apart and compared here with whatever smart run is committed.

The two runs must share the design: both `buying.py`, hand-level, the same job seed
(so the search's first n deals are the smart level's first n), and the search must
play over the smart version the smart level played (the environment line of each
report names the versions). A mismatch is a one-line error.

Per cell: both sizes, the change (search minus smart) with a 95% CI from the two CIs
as if independent (wider than the truth: the levels share deals), whether the size
holds (that CI covers 0), and the answer: where it does not hold, the search's size;
else the narrower of the two. `buying.py` builds the same table when one run plays
both levels (`--levels smart,rollout@200`).

    python analyses/sizes.py
    python analyses/sizes.py --smart analyses/results/buying --search analyses/results/buying_rollout
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from pathlib import Path

if __package__:                      # imported: analyses.sizes (the tests, python -m analyses.sizes)
    from . import analyses_common as C, buying
else:                                # python analyses/sizes.py: this folder is sys.path[0]
    import analyses_common as C
    import buying

EFFECTS = "hand_points_effects.csv"


def build_parser():
    ap = C.Parser(prog="analyses/sizes.py", description=__doc__.split("\n\n")[0],
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smart", default=str(C.RESULTS / "buying"),
                    help="a buying.py results folder with a smart level (default analyses/results/buying)")
    ap.add_argument("--search", default=str(C.RESULTS / "buying_rollout"),
                    help="a buying.py results folder with a rollout level (default "
                         "analyses/results/buying_rollout)")
    ap.add_argument("--out", default=str(C.RESULTS / "buying_sizes"),
                    help="output folder (default analyses/results/buying_sizes)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    return C.main_guard(lambda: run(a))


class Run:
    """A committed buying.py run: its folder, command (parsed), environment line, bot versions
    and hand-level effects."""

    def __init__(self, option: str, folder: str):
        import pandas as pd
        self.option, self.folder = option, Path(folder)
        rep, eff = self.folder / "report.md", self.folder / EFFECTS
        if not (rep.is_file() and eff.is_file()):
            raise C.AnalysisError(f"{option} {folder}: not a buying.py results folder (no report.md and {EFFECTS})")
        head = rep.read_text(encoding="utf-8").splitlines()[:6]
        cmd = next((ln for ln in head if ln.startswith("Command: `")), "")
        self.env = next((ln[len("Environment: "):] for ln in head if ln.startswith("Environment: ")), "")
        self.command = cmd[len("Command: `"):].rstrip().rstrip("`").rstrip()
        words = shlex.split(self.command)
        if words[:2] != ["python", "analyses/buying.py"]:
            raise C.AnalysisError(f"{option} {folder}: its report.md was not written by analyses/buying.py")
        self.args = buying.build_parser().parse_args(words[2:])
        m = re.search(r"\(bots: ([^)]*)\)", self.env)
        self.versions = dict((k, int(v)) for k, v in re.findall(r"(\w+) v(\d+)", m.group(1))) if m else {}
        if not self.versions:
            raise C.AnalysisError(f"{option} {folder}: its report.md names no bot versions")
        self.effects = pd.read_csv(eff)

    def smart_version(self, level: str) -> int:
        """The smart version a level plays: its `v=` if it names one, else the newest of its run."""
        from shanghai_sim.bots import parse_bot
        v = parse_bot(level, 10).param_values().get("v")
        return int(v) if v is not None else self.versions["smart"]

    def link(self, out: Path) -> str:
        return Path(os.path.relpath(self.folder / "report.md", out)).as_posix()


def run(a) -> int:
    import pandas as pd
    lo_run, hi_run = Run("--smart", a.smart), Run("--search", a.search)
    if lo_run.args.seed != hi_run.args.seed:
        raise C.AnalysisError(f"--smart and --search: job seeds {lo_run.args.seed} and {hi_run.args.seed} "
                              "differ (the levels would not share their deals)")
    lo_levels = list(dict.fromkeys(lo_run.effects.level))
    hi_levels = list(dict.fromkeys(hi_run.effects.level))
    pairs = [(lo, hi) for lo, hi in buying.size_pairs(lo_levels + hi_levels)
             if lo in lo_levels and hi in hi_levels and lo not in hi_levels and hi not in lo_levels]
    if not pairs:
        raise C.AnalysisError(f"--smart {a.smart} (levels {', '.join(lo_levels)}) and --search {a.search} "
                              f"(levels {', '.join(hi_levels)}): no smart level in the one and rollout level "
                              "in the other")
    base = hi_run.versions["smart"]
    for lo, _ in pairs:
        if lo_run.smart_version(lo) != base:
            raise C.AnalysisError(f"--smart {a.smart}: level {lo} is smart version {lo_run.smart_version(lo)}, "
                                  f"but the search in --search {a.search} plays over smart version {base}")
    out = Path(a.out)                       # made only once every table is built: an error leaves no folder
    tables = {}
    key = ["preset", "hand", "arm"]
    L = C.report_head("Do the sizes hold as the players get stronger?")
    L += [f"- Two committed `buying.py` runs, compared cell by cell (no game is played here):",
          f"  - the smart level: [{lo_run.folder.name}]({lo_run.link(out)}), `{lo_run.command}`; "
          f"{lo_run.env};",
          f"  - the search level: [{hi_run.folder.name}]({hi_run.link(out)}), `{hi_run.command}`; "
          f"{hi_run.env}.",
          f"- Both hand-level (`hand=N`: only hand N is played), 4 players, duplicate seating, common random "
          f"numbers, job seed {hi_run.args.seed}: deal k is `game_seed_nb({hi_run.args.seed}, k)` in both, so "
          "the level with fewer deals played the other's first deals. The search plays over smart version "
          f"{base} (its base play and playouts), the version the smart level played.",
          "- Effects: the focal player's points in hand N, arm minus the bot's own buying (lower wins), mean "
          "[95% CI], the deal the unit; each verdict as its own run's Holm adjustment gave it "
          f"({len(lo_run.effects)} and {len(hi_run.effects)} comparisons).",
          "- Change: search minus smart, a 95% CI from the two CIs as if independent (wider than the truth: the "
          "levels share deals). The size *holds* where that CI covers 0; the answer is then the narrower of the "
          "two, else the search's size (the stronger player).", "", "## Answer", ""]
    for lo, hi in pairs:
        var = pd.concat([lo_run.effects[lo_run.effects.level == lo], hi_run.effects[hi_run.effects.level == hi]])
        both = var.groupby(key, sort=False)["level"].nunique()
        common = [k for k in map(tuple, hi_run.effects[hi_run.effects.level == hi][key].values)
                  if both.get(k, 0) == 2]                                 # in the search run's order
        var = var.set_index(key).loc[common].reset_index()
        if var.empty:
            raise C.AnalysisError(f"--smart {a.smart} and --search {a.search}: no (preset, hand, arm) cell "
                                  f"played at both {lo} and {hi}")
        zt = buying.size_table(var, lo, hi)
        name = f"sizes_{C.file_part(lo)}_vs_{C.file_part(hi)}.csv"
        tables[name] = zt
        L += [f"### `{lo}` (smart v{base}) -> `{hi}` (rollout v{hi_run.versions['rollout']})", "",
              f"The size holds in {int(zt.holds.sum())} of {len(zt)} (preset, contract, arm) cells; the verdicts "
              f"(better, worse, cannot tell) agree in {int(zt.agree.sum())}; the search's effect is the larger "
              f"in {int((zt.change > 0).sum())} (the change's sign, whatever its CI).", ""]
        arm_words = dict(never="never buying", always="always buying")
        for r in zt.to_dict("records"):
            verb = "holds" if r["holds"] else "does not hold"
            L.append(f"- **{r['preset']} hand {r['hand']}, {arm_words.get(r['arm'], r['arm'])}**: {r[lo]} at "
                     f"`{lo}`, {r[hi]} at `{hi}` ({r['n deals']} deals); change {r['change CI']}: the size "
                     f"{verb}. Answer: {r['answer']}.")
        L += ["", C.table_md(zt[key + [lo, hi, "change CI", "n deals", "holds", "answer"]]), "",
              f"File: {name}.", ""]
    out.mkdir(parents=True, exist_ok=True)
    for name, zt in tables.items():
        zt.to_csv(out / name, index=False)
    (out / "report.md").write_text("\n".join(L), encoding="utf-8")
    C.say(a.quiet, f"written {out}/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
