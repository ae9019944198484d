"""The oracle (``rollout:oracle=hands|deal``) is a diagnostic that cheats on purpose (issue 56):
its own kernel, walled off from the honest search; refused by every command and API unless
asked for (``--diagnostic``, ``diagnostic=True``); marked wherever it played.

The refusals and marks of run, tournament and experiment run on the runner tests' fake engine
(``test_runner_support.FAKE``); replay, the step API and the search play the real kernels at a
small budget.
"""
import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shanghai_sim import experiment as E
from shanghai_sim import runner
from shanghai_sim import tournament as T
from shanghai_sim.bots import (BOTS, BotError, DiagnosticRefused, diagnostic_marks, parse_bot,
                               refuse_diagnostics)
from shanghai_sim.cli.main import main
from shanghai_sim.game import Game, game_events
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.games import dispatch
from test_bots_play import _hidden_shuffled
import test_runner_support


@pytest.fixture(autouse=True)
def _fake_knows_the_oracle(monkeypatch):
    """The fake engine (test_runner_support) plays the oracle's canonical specs too."""
    bots = dict(test_runner_support.FAKE_BOTS, **{"rollout:oracle=hands": 3, "rollout:oracle=deal": 4})
    monkeypatch.setattr(test_runner_support, "FAKE_BOTS", bots)


FAKE = test_runner_support.FAKE

SEARCH = Path(__file__).resolve().parent.parent / "shanghai_sim" / "kernels" / "search"
ORACLE = "rollout:oracle=hands:rollouts=2:candidates=2:race=0:prune=1"
DEAL = "rollout:oracle=deal:rollouts=2:candidates=2:race=0:prune=1"
FAST = "rollout:rollouts=2:candidates=2:race=0:prune=1"
MARK = "DIAGNOSTIC: rollout:oracle=hands sees the other hands' true cards (a bot that cheats on purpose, not a player)"


def cli(*args):
    return CliRunner().invoke(main, list(args))


def one_line_refusal(r, spec="rollout:oracle=hands"):
    """Exit 2, one line naming the spec and the flag."""
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert f"bot spec {spec!r} is a diagnostic that cheats" in lines[0] and "--diagnostic" in lines[0], lines


# ---------------------------------------------------------------- the kernel, walled off

def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
    return out


def test_no_honest_search_module_imports_the_oracle_or_reads_hidden_cards():
    """The oracle's world-building is in kernels/search/oracle.py alone: the sampler, the
    playouts and the search import nothing of it; the sampler names neither the hands nor the
    stock, and only the oracle is given the true hands and stock, as arguments of its own."""
    honest = [p for p in SEARCH.glob("*.py") if p.name not in ("oracle.py", "__init__.py")]
    assert {p.name for p in honest} == {"sample.py", "playout.py", "rollout.py"}
    for p in honest:
        assert not {m for m in _imports(p) if m.endswith("oracle")}, p.name
        assert "G.stock" not in p.read_text(), p.name
    sample = (SEARCH / "sample.py").read_text()
    assert ".hands" not in sample and ".stock" not in sample
    assert "def oracle_action_nb(R, V, W, p, bp, hands, stock):" in (SEARCH / "oracle.py").read_text()
    for p in SEARCH.glob("*.py"):
        assert len(p.read_text().splitlines()) <= 450, p.name


def test_the_oracle_is_a_kind_of_its_own_in_the_dispatch():
    """The spec still parses, canonically as before; its kind is the diagnostic's (after the
    registry's bots), played by ``oracle_action_nb``; ``oracle=off`` is the honest bot."""
    b = parse_bot("rollout:oracle=hands")
    assert b.name == "rollout:oracle=hands" and b.diagnostic == "the other hands' true cards"
    assert b.kind == dispatch.BOT_ROLLOUT_ORACLE == len(BOTS) and dispatch.DIAGNOSTICS == ("rollout:oracle",)
    assert parse_bot("rollout:oracle=deal").diagnostic == "the other hands' true cards and the stock's order"
    for honest in ("rollout", "rollout:oracle=off", "smart", "greedy"):
        assert parse_bot(honest).kind < len(BOTS) and parse_bot(honest).diagnostic == ""
    assert dispatch.BOT_ROLLOUT_ORACLE in dispatch.WORKSPACE_KINDS
    assert "oracle_action_nb(R, V, W, p, bp, G.hands, G.stock)" in Path(dispatch.__file__).read_text()


def _stock_shuffled(g, rng):
    n = int(g.S[L.S_STOCK_N])
    rng.shuffle(g.G.stock[:n])


def test_the_honest_search_reads_neither_the_hands_nor_the_stock_and_the_oracle_does():
    """With the other hands dealt anew and the stock reshuffled, the rollout bot's action and
    search means stay the same at every decision; the oracle's (``oracle=deal``) change."""
    rng = np.random.default_rng(11)
    g = Game(rules="shanghai", players=4, seed=3, bots="smart", diagnostic=True)
    searched = changed = checked = 0
    while not g.over and checked < 120:
        seat = g.to_act
        rf = g.workspace().rf[L.RF_SUM]
        saved = (g.G.hands.copy(), g.G.ps.copy(), g.G.stock.copy())
        out = {}
        for spec in (FAST, DEAL):
            rf[:] = -1
            out[spec] = (str(g.bot_action(spec)), rf[:8].copy())
        _hidden_shuffled(g, seat, rng)
        _stock_shuffled(g, rng)
        for spec in (FAST, DEAL):
            rf[:] = -1
            got = (str(g.bot_action(spec)), rf[:8].copy())
            if spec == FAST:
                assert got[0] == out[spec][0] and (got[1] == out[spec][1]).all(), (g.view(seat), spec)
            else:
                changed += int((got[1] != out[spec][1]).any())
        searched += int((out[FAST][1] != -1).any())
        g.G.hands[:], g.G.ps[:], g.G.stock[:] = saved
        checked += 1
        g.step()
    assert searched > 10 and changed > 5


# ---------------------------------------------------------------- refused unless asked for

def test_the_python_apis_refuse_it_unless_diagnostic():
    with pytest.raises(DiagnosticRefused, match=r"'rollout:oracle=hands'.*diagnostic=True"):
        Game(rules="shanghai", players=4, seed=1, bots=["rollout:oracle=hands", "greedy", "greedy", "greedy"])
    with pytest.raises(DiagnosticRefused):
        game_events("shanghai", 4, 1, "greedy,rollout:oracle=deal,greedy,greedy")
    g = Game(rules="shanghai", players=4, seed=1, bots="greedy")
    assert g.diagnostics == []
    with pytest.raises(DiagnosticRefused):
        g.bot_action("rollout:oracle=hands")
    g = Game(rules="shanghai", players=4, seed=1, bots=[ORACLE, "greedy", "greedy", "greedy"], diagnostic=True)
    assert g.diagnostics == [parse_bot(ORACLE).name] == ["rollout:rollouts=2:race=0:candidates=2:oracle=hands"]
    assert isinstance(DiagnosticRefused("x"), BotError) and isinstance(DiagnosticRefused("x"), ValueError)
    assert refuse_diagnostics("greedy,smart", False) == []
    assert [b.name for b in refuse_diagnostics(["rollout:oracle=hands", "greedy"], True)] == ["rollout:oracle=hands"]


def test_the_runner_tournament_and_experiment_refuse_it_unless_diagnostic(tmp_path):
    job = runner.Job(out=str(tmp_path / "r"), bots=("rollout:oracle=hands", "greedy"), games=4)
    with pytest.raises(runner.JobError, match=r"^bots: bot spec 'rollout:oracle=hands' is a diagnostic"):
        runner.plan(job, FAKE)
    runner.plan(runner.Job(out=str(tmp_path / "r"), bots=job.bots, games=4, diagnostic=True), FAKE)
    with pytest.raises(T.TournamentError, match="diagnostic"):
        T.plan_tournament(T.Tournament(("rollout:oracle=hands", "greedy")), str(tmp_path / "t"), FAKE)
    with pytest.raises(E.ExperimentError, match="diagnostic"):
        E.plan_arms(E.Experiment(baseline="greedy", variants=("rollout:oracle=deal",)), str(tmp_path / "e"), 4, FAKE)
    with pytest.raises(E.ExperimentError, match="diagnostic"):
        E.plan_arms(E.Experiment(baseline="greedy", variants=("greedy:buy=never",), opponents="rollout:oracle=deal"), str(tmp_path / "e"), 4, FAKE)
    assert runner.normalise({"diagnostic": True}) == {"diagnostic": True}
    with pytest.raises(runner.JobError, match="diagnostic = 'yes': expected true or false"):
        runner.normalise({"diagnostic": "yes"})


@pytest.mark.parametrize("args", [
    ["run", "--bots", "rollout:oracle=hands,greedy", "--games", "2"],
    ["tournament", "--bots", "rollout:oracle=hands,greedy", "--deals", "2"],
    ["experiment", "--baseline", "greedy", "--variant", "rollout:oracle=hands", "--games", "2"],
    ["replay", "--seed", "1", "--bots", "rollout:oracle=hands,greedy,greedy,greedy"],
    ["play", "--bots", "rollout:oracle=hands", "--seed", "1"],
    ["serve", "--bots", "greedy,rollout:oracle=hands,greedy", "--seed", "1", "--port", "0"],
])
def test_every_command_refuses_it_without_the_flag(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line_refusal(cli(*args))
    assert not any(tmp_path.iterdir())          # nothing written


# ---------------------------------------------------------------- marked wherever it played

def test_the_manifest_marks_it_and_verify_accepts_it(tmp_path):
    out = tmp_path / "ds"
    lineup = ("rollout:oracle=hands", "greedy", "greedy", "rollout:oracle=hands")
    runner.run(runner.plan(runner.Job(out=str(out), bots=lineup, games=4, diagnostic=True), FAKE),
               progress=None, engine=FAKE)
    m = json.loads((out / "manifest.json").read_text())
    assert m["diagnostic"] is True
    assert m["bots"]["diagnostic"] == [{"spec": "rollout:oracle=hands", "lineup_seats": [0, 3],
                                        "sees": "the other hands' true cards"}]
    r = cli("verify", str(out))
    assert r.exit_code == 0, r.output
    r = cli("summary", str(out))
    assert r.exit_code == 0 and r.output.splitlines()[0] == MARK, r.output
    plain = tmp_path / "plain"
    runner.run(runner.plan(runner.Job(out=str(plain), bots=("greedy",), games=4), FAKE), progress=None, engine=FAKE)
    m = json.loads((plain / "manifest.json").read_text())
    assert "diagnostic" not in m and "diagnostic" not in m["bots"]
    assert "DIAGNOSTIC" not in cli("summary", str(plain)).output


def test_the_tournament_and_experiment_reports_mark_it(tmp_path):
    res = T.run_tournament(T.Tournament(("rollout:oracle=hands", "greedy"), deals=2, diagnostic=True),
                           str(tmp_path / "t"), engine=FAKE, progress=None)
    assert res.text().splitlines()[0] == MARK and res.to_dict()["diagnostic"] == [MARK]
    rec = json.loads((tmp_path / "t" / T.TOURNAMENT_FILE).read_text())
    assert rec["result"]["diagnostic"] == [MARK]
    res = T.run_tournament(T.Tournament(("greedy:buy=never", "greedy"), deals=2), str(tmp_path / "t2"),
                           engine=FAKE, progress=None)
    assert "DIAGNOSTIC" not in res.text() and "diagnostic" not in res.to_dict()
    res = E.run_experiment(E.Experiment(baseline="greedy", variants=("rollout:oracle=hands",), games=4,
                                        diagnostic=True), str(tmp_path / "e"), engine=FAKE, progress=None)
    assert res.text().splitlines()[0] == MARK and res.to_dict()["diagnostic"] == [MARK]
    # resuming it asks for the flag again
    with pytest.raises(E.ExperimentError, match="diagnostic"):
        E.run_experiment(E.experiment_from_record(str(tmp_path / "e"), games=8), str(tmp_path / "e"),
                         resume=True, engine=FAKE, progress=None)


def test_replay_marks_it_in_its_text_and_page(tmp_path):
    bots = f"{ORACLE},greedy,greedy,greedy"
    r = cli("replay", "--seed", "1", "--bots", bots, "--diagnostic")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    name = parse_bot(ORACLE).name
    assert lines[0].startswith("# seed 1") and re.fullmatch(
        rf"# DIAGNOSTIC: {re.escape(name)} sees the other hands' true cards \(.*\)", lines[1])
    plain = cli("replay", "--seed", "1", "--bots", FAST + ",greedy,greedy,greedy")
    assert "DIAGNOSTIC" not in plain.output
    page = tmp_path / "g.html"
    assert cli("replay", "--seed", "1", "--bots", bots, "--diagnostic", "--html", str(page)).exit_code == 0
    assert f"DIAGNOSTIC: {name} sees the other hands" in page.read_text()
    # the JSON log is the game's events only: the same with or without the flag's mark
    j = cli("replay", "--seed", "1", "--bots", bots, "--diagnostic", "--json").output
    assert "DIAGNOSTIC" not in j and j.count("\n") > 100


def test_the_browser_page_marks_it():
    from shanghai_sim.web.serve import play_page
    marks = diagnostic_marks(["greedy", "rollout:oracle=deal"])
    assert marks == ["DIAGNOSTIC: rollout:oracle=deal sees the other hands' true cards and the stock's order "
                     "(a bot that cheats on purpose, not a player)"]
    page = play_page("tok", notice=marks)
    assert 'class="diagnostic" role="alert"' in page and "the stock&#x27;s order" in page
    assert "diagnostic" not in play_page("tok").split("<script")[0]
