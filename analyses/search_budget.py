"""Where does the search's budget pay? The rollout bot's budget variants asked at the same
decisions, their departures from smart valued (issue 30, item 3: the budget and race caps)

Games of four `smart` are played (whole games, the preset of --preset). At every decision of
seat 0 that the rollout bot searches (the upcard's take or pass, a buy, the discard, going
down), each budget variant (a `rollout` spec, --variants) is asked what it would do, on the
same state and the same samples (the seat's random stream is restored after each ask, so the
game stays the seeded game smart plays), and its search is timed. Where a variant leaves
smart's choice, the action it chose is valued against smart's by the search's evaluator
(`shanghai_sim.valuing.value_actions`: the default rollout's sampling of the unseen cards, smart
in every seat of the playouts) on --eval fresh samples with common random numbers for the two: the
one-step value of that departure, smart's choice's points for the hand less the departure's
(> 0: the departure pays). A variant's value per game is the sum over the game's decisions;
its cost is its search time as a share of the first variant's. One-step values add up the
worth of each departure with smart playing on; they rank budgets on the same decisions at a
fraction of a tournament's cost, and a tournament then measures the chosen one.
"""

from __future__ import annotations

import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

if __package__:                      # imported: analyses.search_budget (the tests, python -m analyses.search_budget)
    from . import analyses_common as C
else:                                # python analyses/search_budget.py: this folder is sys.path[0]
    import analyses_common as C

DEFAULT_VARIANTS = ("default=rollout;tie10=rollout:tie=10;tie20=rollout:tie=20;cap64=rollout:race=64;"
                    "cap32=rollout:race=32;fixed16=rollout:race=0;"
                    "mix64=rollout:tie=10:race_take=16:race_play=64;"
                    "mix32=rollout:tie=10:race_take=16:race_play=32;"
                    "mix20=rollout:tie=20:race_take=16:race_play=32;"
                    "fast=rollout:rollouts=8:race=64:prune=2")
KINDS = {"first_refusal": "take", "buy": "buy", "play": "discard or down"}
SMART = "rollout:s_take=0:s_buy=0:s_discard=0:s_down=0"     # smart's choice, as the search sees it
EVALUATOR = "rollout"


def _refuse_diagnostic(what: str, b, diagnostic: bool) -> None:
    """A diagnostic spec (``rollout:oracle=hands``: it cheats) only with --diagnostic."""
    from shanghai_sim.bots import BotError, refuse_diagnostics
    try:
        refuse_diagnostics([b], diagnostic, "--diagnostic")
    except BotError as e:
        raise C.AnalysisError(f"{what}: {e}") from None


def parse_variants(text: str, diagnostic: bool = False) -> dict[str, str]:
    """'name=spec;name=spec' -> {name: spec}; every spec a rollout spec the registry parses
    (a diagnostic one only with ``diagnostic``)."""
    from shanghai_sim.bots import BotError, parse_bot
    out = {}
    for part in (p.strip() for p in text.split(";") if p.strip()):
        name, eq, spec = part.partition("=")
        if not eq or not name or name in out:
            raise C.AnalysisError(f"--variants: {part!r} is not a new name=spec")
        try:
            parsed = parse_bot(spec)
        except BotError as e:
            raise C.AnalysisError(f"--variants: {name}: {e}") from None
        _refuse_diagnostic(f"--variants: {name}", parsed, diagnostic)
        bot = parsed.name.split(":")[0]
        if bot != "rollout":
            raise C.AnalysisError(f"--variants: {name}: {spec!r} is not a rollout spec")
        out[name] = spec
    if len(out) < 2:
        raise C.AnalysisError("--variants: give at least two variants (the first is the reference)")
    return out


def evaluator_name(a) -> str:
    """The evaluator as the report names it: ``rollout`` unless --evaluator chose another."""
    return parse_evaluator(getattr(a, "evaluator", EVALUATOR), True)


def parse_evaluator(spec: str, diagnostic: bool = False) -> str:
    """The evaluator's canonical rollout spec; a spec of another bot, or a diagnostic one
    (``rollout:oracle=hands``) without ``diagnostic``, one line."""
    from shanghai_sim.bots import BotError, parse_bot
    try:
        b = parse_bot(spec)
    except BotError as e:
        raise C.AnalysisError(f"--evaluator: {e}") from None
    _refuse_diagnostic("--evaluator", b, diagnostic)
    if b.name.split(":")[0] != "rollout":
        raise C.AnalysisError(f"--evaluator: {spec!r} is not a rollout spec")
    return b.name


def play_game(args) -> list[dict]:
    """One game of four smart (seed ``seed``): every searched decision of seat 0, each
    variant's choice, search time and samples, and the value of each departure."""
    preset, seed, variants, n_eval, evaluator, diagnostic = args
    from shanghai_sim.bots import parse_bot
    from shanghai_sim.game import Game
    from shanghai_sim.runner import game_seeds
    from shanghai_sim.valuing import bot_choice, value_actions
    bots = {k: parse_bot(s) for k, s in variants.items()}
    smart = parse_bot(SMART)
    ev = parse_bot(evaluator)
    g = Game(rules=preset, players=4, seed=seed, bots="smart")
    rows = []
    n_dec = 0
    while not g.over:
        p = g.to_act
        if p == 0 and g.phase in KINDS:
            a0 = bot_choice(g, smart).action.code
            asked = {}
            for name, b in bots.items():
                c = bot_choice(g, b, diagnostic=diagnostic)
                asked[name] = (c.action.code, c.playouts, c.seconds)
            if any(x[1] > 0 for x in asked.values()):          # the search ran
                values = {}
                for j, c in enumerate(sorted({x[0] for x in asked.values()} - {a0})):
                    v = value_actions(g, [a0, c], n_eval, evaluator=ev, diagnostic=diagnostic,
                                      seed=int(game_seeds(seed, 1 + 64 * n_dec + j, 2 + 64 * n_dec + j)[0]))
                    if v is not None:
                        values[c] = (-v.diff[1], v.se[1])
                for name, (c, samples, secs) in asked.items():
                    v, se = values.get(c, (0.0, 0.0)) if c != a0 else (0.0, 0.0)
                    rows.append({"game": seed, "hand": g.hand, "decision": n_dec,
                                 "kind": KINDS[g.phase], "variant": name, "departs": c != a0,
                                 "valued": c == a0 or c in values, "value": v, "value_se": se,
                                 "samples": samples, "seconds": secs})
                n_dec += 1
        g.step()
    return rows


def parse_bot_name(spec: str) -> str:
    from shanghai_sim.bots import parse_bot
    return parse_bot(spec).name


def package_version() -> str:
    from shanghai_sim import __version__
    from shanghai_sim.bots import BOTS
    return f"{__version__} " + " ".join(f"{b.name} v{b.versions[-1].v}" for b in BOTS.values())


def _keep(rows: list[dict], path: Path, say) -> None:
    """One game's rows, written whole (a temporary file renamed: an interrupted run leaves no
    half game to reuse)."""
    import pandas as pd
    tmp = path.with_suffix(".tmp")
    pd.DataFrame(rows).to_csv(tmp, index=False)
    tmp.replace(path)
    say(f"{path.stem}: {len(rows)} rows")


def t_ci(xs):
    """Mean and 95% CI (Student t) of per-game figures."""
    import numpy as np
    from shanghai_sim.stats import t_quantile
    x = np.asarray(xs, float)
    m = float(x.mean())
    if len(x) < 2:
        return m, float("nan"), float("nan")
    h = float(t_quantile(0.95, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return m, m - h, m + h


def summarise(df, names):
    """One row per variant and decision kind (and 'all'): value per game with its CI, the paired
    difference from the first variant, cost share, departures per game."""
    import pandas as pd
    games = sorted(df.game.unique())
    ref = names[0]
    out = []
    for kind in ["all", *dict.fromkeys(KINDS.values())]:
        d = df if kind == "all" else df[df.kind == kind]
        g = d.groupby(["variant", "game"]).agg(value=("value", "sum"), seconds=("seconds", "sum"),
                                               departs=("departs", "sum"), samples=("samples", "sum"))
        g = g.reindex(pd.MultiIndex.from_product([names, games], names=["variant", "game"]), fill_value=0)
        ref_s = g.loc[ref].seconds.sum()
        for nm in names:
            x = g.loc[nm]
            m, lo, hi = t_ci(x.value)
            dm, dlo, dhi = t_ci(x.value - g.loc[ref].value)
            out.append({"variant": nm, "spec": None, "kind": kind, "games": len(games),
                        "value_mean": m, "value_lo": lo, "value_hi": hi,
                        "vs_first_mean": dm, "vs_first_lo": dlo, "vs_first_hi": dhi,
                        "cost_share": x.seconds.sum() / ref_s if ref_s else float("nan"),
                        "seconds_per_game": x.seconds.mean(), "samples_per_game": x.samples.mean(),
                        "departures_per_game": x.departs.mean()})
    return pd.DataFrame(out)


def chart(sm, variants, a, path):
    plt = C.pyplot()
    d = sm[sm.kind == "all"]
    ref = d.variant.iloc[0]
    fig, ax = plt.subplots(figsize=(8, 5.2))
    ax.axhline(0, color="0.5", lw=0.8)
    ax.errorbar(d.cost_share, d.vs_first_mean, yerr=[d.vs_first_mean - d.vs_first_lo, d.vs_first_hi - d.vs_first_mean],
                fmt="o", capsize=3, color="#1f77b4")
    for r in d.itertuples():
        ax.annotate(r.variant, (r.cost_share, r.vs_first_mean), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.set_xlabel(f"search time per game, share of {ref}'s")
    ax.set_ylabel(f"one-step value of its departures from smart\nless {ref}'s, points per game (higher is better)")
    ax.set_title(f"Which search chooses best, judged with the true hands? ({a.preset}, seat 0 of four smart)"
                 if "oracle=" in evaluator_name(a) else
                 f"What does a cheaper search give up? ({a.preset}, seat 0 of four smart)")
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    r0 = d.iloc[0]
    C.caption(fig, f"n = {int(r0.games)} games (games {a.seed}..{a.seed + a.games - 1}), paired on the same decisions; "
              f"{ref} recovers {r0.value_mean:+.1f} [{r0.value_lo:+.1f}, {r0.value_hi:+.1f}] a game; "
              f"each departure valued on {a.eval} fresh samples; 95% CIs over games")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def main(argv=None) -> int:
    ap = C.parser("search_budget", __doc__, games=16, seed=200, games_help="games of four smart")
    ap.add_argument("--preset", default="shanghai", help="rules preset (default shanghai)")
    ap.add_argument("--variants", default=DEFAULT_VARIANTS,
                    help="name=rollout-spec;... the first is the reference (default: the budget and race "
                         "settings of docs/rollout.md)")
    ap.add_argument("--eval", type=int, default=512, help="fresh samples that value a departure (default 512)")
    ap.add_argument("--evaluator", default=EVALUATOR,
                    help="the rollout spec whose sampling values a departure (default rollout; "
                         "rollout:oracle=hands: the other hands' true cards, a value in hindsight "
                         "that also judges the variants' samplers; with --diagnostic)")
    ap.add_argument("--diagnostic", action="store_true",
                    help="allow a diagnostic spec that cheats (rollout:oracle=hands|deal sees the hidden "
                         "cards) as --evaluator or a variant; refused otherwise, and the report says it")
    a = ap.parse_args(argv)
    if not 2 <= a.eval <= 8192:
        ap.error(f"--eval {a.eval}: give 2 to 8192")
    if a.games < 2:
        ap.error(f"--games {a.games}: give at least 2 (the CIs are over games)")
    return C.main_guard(lambda: run(a))


def run(a) -> int:
    import os

    import pandas as pd
    from shanghai_sim.rules import load_rules
    load_rules(a.preset)                                 # a bad preset: one line, before any work
    variants = parse_variants(a.variants, a.diagnostic)
    evaluator = parse_evaluator(a.evaluator, a.diagnostic)
    st = C.Study(a)
    settings = {"preset": a.preset, "variants": variants, "eval": a.eval, "evaluator": evaluator,
                "bots": {k: parse_bot_name(v) for k, v in variants.items()}, "package": package_version()}
    meta = st.data / "settings.json"
    if meta.exists() and json.loads(meta.read_text()) != settings:
        raise C.AnalysisError(f"{st.data} holds games played with other settings (preset, variants, "
                              "--eval, --evaluator or package version): delete it or choose another --out")
    meta.write_text(json.dumps(settings, indent=1))
    done = {k: st.data / f"game-{a.seed + k}.csv" for k in range(a.games)}
    jobs = [(a.preset, a.seed + k, variants, a.eval, evaluator, a.diagnostic) for k in range(a.games) if not done[k].exists()]
    if len(jobs) < a.games:
        st.say(f"{a.games - len(jobs)} games already played in {st.data}: reused")
    workers = a.threads or os.cpu_count() or 1
    with st.clock.step("games"):
        if workers == 1 or len(jobs) <= 1:
            for j in jobs:
                _keep(play_game(j), done[j[1] - a.seed], st.say)
        elif jobs:
            with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as ex:
                for j, got in zip(jobs, ex.map(play_game, jobs)):
                    _keep(got, done[j[1] - a.seed], st.say)
    df = pd.concat([pd.read_csv(done[k]) for k in range(a.games)], ignore_index=True)
    df.to_csv(st.out / "decisions.csv", index=False)
    names = list(variants)
    sm = summarise(df, names)
    sm["spec"] = sm.variant.map(variants)
    sm.to_csv(st.out / "variants.csv", index=False)
    st.chart("search_budget.png", lambda path: chart(sm, variants, a, path))
    report(a, st, df, sm, variants)
    return st.done()


def report(a, st, df, sm, variants):
    names = list(variants)
    ref = names[0]
    n_dec = df[df.variant == ref].shape[0]
    oracle = "oracle=" in evaluator_name(a)
    L = C.report_head("Which search chooses best, judged with the true hands?" if oracle
                      else "Where does the search's budget pay?")
    from shanghai_sim.bots import diagnostic_marks
    marks = diagnostic_marks([evaluator_name(a), *variants.values()])
    if marks:                # a diagnostic that sees hidden cards played: said before anything else
        L[1:1] = ["", *(f"**{m}**" for m in marks)]
    L += [f"- Games of four `smart` (`{a.preset}`, 4 players), seeds {a.seed}..{a.seed + a.games - 1} "
          f"({a.games} games); seat 0's searched decisions: {n_dec:,}.",
          "- At each, every variant is asked on the same state and samples (the seat's random stream "
          "restored after each ask) and timed; the game goes on as smart plays it.",
          f"- A departure from smart's choice is valued by the search's evaluator (`{evaluator_name(a)}`'s sampling, smart "
          f"playouts) on {a.eval} fresh samples with common random numbers: smart's choice's points for the hand "
          "less the departure's (> 0: it pays). Per variant: the sum over a game, mean over games with a 95% CI "
          "(Student t over games), and the paired difference from the first variant on the same decisions.",
          f"- Cost: search time per game as a share of `{ref}`'s (one process per game, "
          f"{a.threads or 'every'} worker(s)).",
          "- One-step values credit each departure with smart playing on after it; they rank budgets, "
          "they are not a tournament's points (a tournament measures the chosen budget).",
          *(["- The evaluator reads the other hands' true cards (`oracle=`, a diagnostic that cheats): each "
             "departure is valued in hindsight, so the variants' models of the other hands (their samplers) "
             "are judged too; a variant that is itself an oracle is judged by its own model, which flatters it."]
            if oracle else []),
          "", "## Answer", ""]
    al = sm[sm.kind == "all"].set_index("variant")
    r0 = al.loc[ref]
    L.append(f"`{ref}` (`{variants[ref]}`) recovers {C.fmt_ci(r0.value_mean, r0.value_lo, r0.value_hi)} "
             f"points a game over smart's choices at {r0.seconds_per_game:.1f} s of search a game.")
    for nm in names[1:]:
        r = al.loc[nm]
        L.append(f"- `{nm}` (`{variants[nm]}`): {r.cost_share:.2f} of the cost, "
                 f"{C.fmt_ci(r.value_mean, r.value_lo, r.value_hi)} points a game, "
                 f"{C.fmt_ci(r.vs_first_mean, r.vs_first_lo, r.vs_first_hi)} against `{ref}`"
                 + (" (cannot tell)" if r.vs_first_lo <= 0 <= r.vs_first_hi else "") + ".")
    L += ["", "## By decision kind", "",
          "| variant | kind | value a game [95% CI] | against the first | cost share | samples a game | departures a game |",
          "|---|---|---|---|---|---|---|"]
    for r in sm.itertuples():
        L.append(f"| `{r.variant}` | {r.kind} | {C.fmt_ci(r.value_mean, r.value_lo, r.value_hi)} | "
                 f"{C.fmt_ci(r.vs_first_mean, r.vs_first_lo, r.vs_first_hi)} | {r.cost_share:.2f} | "
                 f"{r.samples_per_game:,.0f} | {r.departures_per_game:.1f} |")
    L += ["", "## Charts", ""] + [f"![{c}]({c})" for c in st.charts]
    L += ["", "Files: decisions.csv (every decision x variant: choice departs, value and its standard error, "
          "samples, seconds), variants.csv (the table above). The games played are kept in data/ (one file "
          "a game, not committed): a rerun with the same settings reuses them.", "", C.environment(),
          f"Command: `{C.command_line()}`; this run {st.clock.total:.0f} s (games already in data/ are reused); "
          f"the variants' searches recorded {df.seconds.sum() / 60:.1f} min of one core in all (the games "
          "themselves and the valuing of departures come on top)."]
    st.write_report(L)


if __name__ == "__main__":
    sys.exit(main())
