"""kernels/base/layout.py is the one description of the kernels' arrays: every allocator
agrees with it, and no module reads the bundles (rules, rules options, state, workspace, memo) by
position."""

import pathlib
import re

import numpy as np
import pytest

from shanghai_sim import cards, rules
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.melds import finder as melds
from shanghai_sim.kernels.engine.state import new_state_nb

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _check(arrays, spec, dims):
    assert len(arrays) == len(spec)
    for a, (name, dtype, shape, fill) in zip(arrays, spec):
        assert a.dtype == np.dtype(dtype), name
        assert a.shape == L.spec_shape(shape, **dims), name
        if name != "s":
            assert (a == fill).all(), name


@pytest.mark.parametrize("preset,players,log_size", [("shanghai", 4, 0), ("contract", 5, 100),
                                                     ("progressive", 2, 7)])
def test_every_state_allocator_follows_the_spec(preset, players, log_size):
    R = rules.preset(preset).with_players(players).arrays(players)
    dims = L.state_dims(R.params, log_size)
    for G in (L.new_state(R, log_size), new_state_nb(R.params, log_size)):
        _check(G, L.STATE_SPEC, dims)
        S = G.s
        assert S[L.S_SHOE] == dims["shoe"] and S[L.S_NP] == players
        assert (np.delete(S, [L.S_SHOE, L.S_NP]) == 0).all()


@pytest.mark.parametrize("preset,players", [("shanghai", 4), ("contract", 5)])
def test_the_rollout_workspace_follows_its_spec(preset, players):
    from shanghai_sim.kernels.search.playout import new_workspace_nb
    R = rules.preset(preset).with_players(players).arrays(players)
    dims = L.state_dims(R.params, 0)
    assert L.WORKSPACE_SPEC[:L.NGAME] == L.STATE_SPEC[:L.NGAME]
    for W in (L.new_workspace(R), new_workspace_nb(R.params)):
        _check(W, L.WORKSPACE_SPEC, dims)
        S = W.s
        assert S[L.S_SHOE] == dims["shoe"] and S[L.S_NP] == players
        assert (np.delete(S, [L.S_SHOE, L.S_NP]) == 0).all()


def test_the_memo_follows_its_spec():
    _check(L.new_cache(), L.CACHE_SPEC, L.cache_dims())
    assert melds.new_cache is L.new_cache
    assert L.Memo._fields == L.State._fields[L.NGAME:L.NGAME + len(L.CACHE_SPEC)]


def test_scratch_offsets_do_not_overlap():
    assert L.MS_FRONT + 8 * L.FP + 4 <= L.MS_HEAD
    from shanghai_sim.kernels.melds.mixed import MIX_W
    assert L.MS_FRONT + 8 * L.FP + 4 <= L.MS_MIX and L.MS_MIX + MIX_W <= L.MS_HEAD
    tail = sorted([(L.MS_SUIT_CNT, L.NPOS), (L.MS_RUN_CNT, 4 * L.NPOS), (L.MS_PMASK, 4),
                   (L.MS_WR, 4), (L.MS_RC, 13)])
    for (a, n), (b, _) in zip(tail, tail[1:]):
        assert a + n <= b
    assert tail[-1][0] + tail[-1][1] <= L.SCRATCH


def test_rules_take_their_constants_from_the_kernels():
    assert rules.RulesArrays is L.RulesArrays and rules.Params is L.Params
    assert rules.GoOut.EITHER == L.GO_EITHER and rules.JokerSwap.DOWN_ONLY == L.SWAP_DOWN_ONLY
    assert rules.MeldKind.RUN == L.RUN and rules.MeldKind.SET == L.SET
    assert cards.JOKER == L.JOKER and cards.NCARDS == L.NCARDS   # cards.py stays free of numba


SOURCES = [p for d in ("shanghai_sim", "cli", "tests", "benchmarks", "analyses")
           for p in (ROOT / d).rglob("*.py") if p.name != "layout.py"]


def test_the_bundles_are_read_by_name_not_by_position():
    """Issue 56: R, R.params, G, W and the meld memo M are named tuples read by their fields'
    names (``G.hands``, ``R.params.go_out``), never by a number or an index constant."""
    for bundle in (L.RulesArrays, L.Params, L.State, L.Workspace, L.Memo):
        assert issubclass(bundle, tuple) and bundle._fields
    position = re.compile(r"\b(G|G2|R|W|M|Gs|params|cache|self\.G|self\.R|g\.G|g\.R|game\.G|game\.R)\[(\d|(?!BP_)[A-Z]+_|L\.)")
    bad = []
    for p in SOURCES:
        for i, line in enumerate(p.read_text().splitlines(), 1):
            if position.search(line):
                bad.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_kernels_import_nothing_from_outside_kernels():
    kernels = ROOT / "shanghai_sim" / "kernels"
    for p in kernels.rglob("*.py"):
        text = p.read_text()
        depth = len(p.relative_to(kernels).parts)       # from kernels/x.py "..", from kernels/f/x.py "..."
        assert not re.search(r"^\s*from \.{%d}|^\s*from shanghai_sim|^\s*import shanghai_sim" % (depth + 1),
                             text, re.M), p.relative_to(ROOT)


STUDIES = [p for d in ("analyses", "benchmarks") for p in sorted((ROOT / d).glob("*.py"))]


def test_the_studies_call_the_library_not_the_kernels():
    """analyses/ reaches the search through shanghai_sim.valuing, never shanghai_sim.kernels
    (docs/DEVELOPING.md: floor 5 calls the library)."""
    bad = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
           for p in sorted((ROOT / "analyses").glob("*.py"))
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if re.search(r"^\s*(from|import)\s+shanghai_sim\.kernels\b|^\s*from\s+shanghai_sim\s+import\s+.*\bkernels\b", line)]
    assert not bad, "\n".join(bad)


def test_no_study_or_benchmark_edits_the_import_path():
    """analyses/ and benchmarks/ are packages (the tests import them by name) whose scripts also
    run as ``python analyses/NAME.py``: neither edits sys.path, and neither do the tests that
    reach them."""
    files = STUDIES + [ROOT / "tests" / f for f in ("conftest.py", "test_analyses.py", "test_benchmarks.py",
                                                     "test_play_quality.py", "test_input_checks.py")]
    bad = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
           for p in files for i, line in enumerate(p.read_text().splitlines(), 1)
           if re.search(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=|syspath_prepend|spec_from_file_location", line)
           and not (p.name == "_common.py" and "spec_from_file_location" in line)]     # _common.peer: tests/ files
    assert not bad, "\n".join(bad)


# The kernels' house (docs/DEVELOPING.md): what each folder of kernels/ may import
HOUSE = {
    "compile": set(),
    "base": set(),
    "melds": {"base", "compile"},
    "engine": {"melds", "base", "compile"},
    "bots": {"engine", "melds", "base", "compile"},
    "search": {"bots", "engine", "melds", "base", "compile"},
    "games": {"search", "bots", "engine", "melds", "base", "compile"},
}


def _kernel_folder_imports(path, kernels):
    """The kernels/ folders the module at ``path`` imports: relative imports at any depth
    (``from ..base.layout import``, ``from .. import base``), and absolute ones."""
    import ast
    here = list(path.relative_to(kernels).parts[:-1])          # its folder, below kernels/
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level:
            if node.level - 1 > len(here):
                continue                                        # above kernels/: another test's
            parts = here[:len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            out.update(parts[:1] or [a.name for a in node.names])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("shanghai_sim.kernels."):
            out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[2] for a in node.names if a.name.startswith("shanghai_sim.kernels."))
    return out & set(HOUSE)


def test_each_kernel_folder_imports_only_the_folders_below_it():
    kernels = ROOT / "shanghai_sim" / "kernels"
    folders = {p.name for p in kernels.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(HOUSE), "a kernels/ folder missing from the house (tests/test_layout.py, docs/DEVELOPING.md)"
    assert [p.name for p in kernels.glob("*.py")] == ["__init__.py"], "a kernel module outside the folders"
    bad = []
    for folder, allowed in HOUSE.items():
        assert (kernels / folder / "__init__.py").read_text().startswith('"""'), f"kernels/{folder}: no docstring"
        for p in sorted((kernels / folder).glob("*.py")):
            wrong = _kernel_folder_imports(p, kernels) - allowed - {folder}
            if wrong:
                bad.append(f"{p.relative_to(ROOT)} imports kernels/{', kernels/'.join(sorted(wrong))}")
    assert not bad, "\n".join(bad)
    # the checker sees an import across folders (a guard against a checker that finds nothing)
    assert "base" in _kernel_folder_imports(kernels / "melds" / "finder.py", kernels)
    assert "engine" in _kernel_folder_imports(kernels / "bots" / "players.py", kernels)


def test_no_module_of_the_package_or_the_cli_is_over_700_lines():
    """Rooms by concern (issue 56): a module past 700 lines mixes concerns; split it."""
    long = {str(p.relative_to(ROOT)): n for d in ("shanghai_sim", "cli") for p in sorted((ROOT / d).rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > 700}
    assert not long, long
