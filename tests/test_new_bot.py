"""docs/DEVELOPING.md "A new bot": a bot is its kernel, its registry entry and its doc.

The slow test writes a bot into a copy of the package in exactly those three places (a
kernel module that reads a parameter slot of its own, one ``BotInfo`` in ``BOTS``, one row
of docs/bots.md's table), runs ``python -m shanghai_sim.botgen`` (which derives the
kernels' dispatch and parameter row from the registry), and plays the bot through the
runner (``run``), the replay, a tournament and the step API (``Game``), checking that its
kernel is what plays: the bot never buys after its ``stop`` hand, though greedy (whose
moves it otherwise makes) does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

KERNEL = '''"""cautious: greedy, but it never buys after hand ``stop`` (tests/test_new_bot.py)."""

import numba as nb

from .params import BP_STOP
from .players import greedy_action_nb
from ..base.codes import A_BUY, A_PASS, a_type, action_nb
from ..base.layout import S_HAND


@nb.njit(cache=True, _nrt=False, inline="always")
def cautious_action_nb(R, V, p, bp):
    a = greedy_action_nb(R, V, p, bp)
    if a_type(a) == A_BUY and V.s[S_HAND] + 1 > bp[BP_STOP]:
        return action_nb(A_PASS, 0, 0, 0)
    return a
'''

ENTRY = '''    BotInfo("cautious", "bots.cautious.cautious_action_nb", "greedy, but never buys after hand stop",
            _knobs(_BUY, BUY_USEFUL, "buy policy: never, useful or always")
            + (BotParam("stop", "int", "BP_STOP", 10, "last hand in which it buys", lo=0, hi=99),)),
'''

DOC_ROW = "| `cautious` | greedy, but it never buys after hand `stop` |\n"


def add_bot(pkg: Path, docs: Path) -> None:
    """The three places: the kernel, the registry entry, the doc."""
    (pkg / "kernels" / "bots" / "cautious.py").write_text(KERNEL)
    bots = pkg / "bots.py"
    text = bots.read_text()
    end = text.index("\n))}\n")                       # the end of the BOTS tuple
    bots.write_text(text[:end + 1] + ENTRY + text[end + 1:])
    doc = docs / "bots.md"
    text = doc.read_text()
    row = text.index("| `rollout` |")
    doc.write_text(text[:row] + DOC_ROW + text[row:])


def test_the_registry_bots_are_documented():
    """The doc place: every registry bot is a row of docs/bots.md's table of bots."""
    from shanghai_sim.bots import BOTS
    rows = set(re.findall(r"^\| `(\w+)` \|", (ROOT / "docs" / "bots.md").read_text(), re.M))
    assert set(BOTS) <= rows, set(BOTS) - rows


@pytest.mark.slow
def test_a_bot_added_in_three_places_plays_everywhere(tmp_path):
    copy = tmp_path / "src"
    pkg = copy / "shanghai_sim"
    shutil.copytree(ROOT / "shanghai_sim", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "cli", pkg / "cli", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "docs", copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    add_bot(pkg, copy / "docs")
    env = {**os.environ, "PYTHONPATH": str(copy), "SHANGHAI_SIM_CACHE_DIR": str(tmp_path / "cache"),
           "SHANGHAI_SIM_QUIET_COMPILE": "1"}

    def py(*args, check=True):
        r = subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert not check or r.returncode == 0, r.stderr[-3000:]
        return r

    def cli(*args, check=True):
        return py("-c", "from shanghai_sim.cli.main import main; main()", *args, check=check)

    # before the generator: the registry names a slot the kernels lack, and says what to run
    r = cli("replay", "--seed", "1", "--bots", "cautious:stop=4,greedy", check=False)
    assert r.returncode != 0 and "python -m shanghai_sim.botgen" in r.stderr + r.stdout
    py("-m", "shanghai_sim.botgen")
    assert py("-m", "shanghai_sim.botgen", "--check").returncode == 0
    where = py("-c", "import shanghai_sim; print(shanghai_sim.__file__)").stdout.strip()
    assert Path(where).parent == pkg                        # the copy is what runs

    listing = cli("bots").stdout
    assert "cautious" in listing and "stop=integer 0..99" in listing

    # the replay: seat 0 never buys after hand 4, greedy seats do
    buys = {0: [], 1: []}
    for seed in (1, 2, 3):
        out = cli("replay", "--seed", str(seed), "--json",
                 "--bots", "cautious:stop=4,greedy,greedy,greedy").stdout
        for e in map(json.loads, out.splitlines()):
            if e["event"] == "buy" and e["seat"] in (0, 1):
                buys[e["seat"]].append(e["hand"])
    assert buys[0] and max(buys[0]) <= 4, buys[0]
    assert buys[1] and max(buys[1]) > 4, buys[1]

    # the runner: a dataset whose seat-0 rows hold no buy after hand 4
    cli("run", "--bots", "cautious:stop=4,greedy,greedy,greedy",
       "--games", "40", "--threads", "2", "--out", str(tmp_path / "data"), "--quiet")
    check = py("-c", f"""
from shanghai_sim.integrity import read_table
df = read_table({str(tmp_path / 'data')!r}, "hands", ["bot", "hand", "buys"]).to_pandas()
df["bot"] = df.bot.astype(str)
me = df[df.bot.str.startswith('cautious')]
assert len(me) == 40 * 10, len(me)
assert me[me.hand > 4].buys.sum() == 0 and me.buys.sum() > 0
assert df[df.bot == 'greedy'].query("hand > 4").buys.sum() > 0
print('ok')
""")
    assert check.stdout.strip() == "ok"

    # a tournament, and the step API (Game) seat by seat
    t = cli("tournament", "--bots", "cautious:stop=4,greedy,greedy,greedy",
           "--deals", "2", "--out", str(tmp_path / "t"), "--quiet", "--json")
    assert "cautious:stop=4" in t.stdout
    g = py("-c", """
from shanghai_sim.game import Game
g = Game("shanghai", 4, seed=5, bots="cautious:stop=1,greedy,greedy,greedy")
bought = []
while not g.over:
    hand = g.hand
    a = g.step()
    if a.kind == "buy":
        bought.append((a.seat, hand))
assert all(h <= 1 for s, h in bought if s == 0), bought
print(len(bought), g.totals)
""")
    assert g.returncode == 0
