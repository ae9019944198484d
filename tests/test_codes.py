"""The engine's codes are declared once (kernels/base/codes.py) and everything else derives from them."""

import ast
import re
from pathlib import Path

import numpy as np

from astparse import parse_files, parse_texts
from shanghai_sim.game import _ERRORS, _KIND
from shanghai_sim.kernels.base import codes
from shanghai_sim.log import _ACTION_WORDS, decode

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "shanghai_sim"
CODE_NAME = re.compile(r"(PH|A|EV|E)_[A-Z_]+$")


def _assigned_names(tree: ast.Module) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.add(n.id)
    return out


def test_each_code_is_defined_once_in_the_package():
    """No module but codes.py assigns a phase, action, event or error code: the old
    copies (game.py's messages, log.py's words, rollout's EV_SEARCH) are gone."""
    declared = {c.name for rows in codes.TABLES.values() for c in rows}
    paths = [p for p in PACKAGE.rglob("*.py") if p.name != "codes.py"]
    for path, tree in parse_files(paths).items():      # in a child process: see astparse.py
        again = {n for n in _assigned_names(tree) if CODE_NAME.match(n) and n in declared}
        assert not again, f"{path.relative_to(ROOT)} defines {sorted(again)} again"


def test_codes_are_unique_and_payload_offsets_follow_the_fields():
    for kind, rows in codes.TABLES.items():
        values = [c.value for c in rows]
        assert len(values) == len(set(values)), kind
        assert len({c.name for c in rows}) == len(rows), kind
    assert codes.NO_ACTION not in {c.value for c in codes.ACTIONS}
    assert codes.NO_ACTION == 15 and codes.a_type.py_func(codes.NO_ACTION) == 15   # fits the 4-bit type
    assert codes.DRAW_SEAT == 0 and codes.DRAW_SOURCE == 1 and codes.DRAW_CARD == 2 and codes.DRAW_SIZE == 3
    assert codes.HAND_END_SCORES == 2 and not hasattr(codes, "HAND_END_SIZE")      # a tail: no fixed size
    assert codes.SEARCH_CANDIDATES == 9            # seat, decision, rollouts, chosen, margin, z, tie, race, n
    assert codes.SR_SIZE == 5 and codes.SR_SE == 4  # per candidate: codes.SEARCH_RECORD
    for ev in codes.EVENTS:
        tails = [f for f in ev.fields if f.endswith("*")]
        assert len(tails) <= 1 and (not tails or ev.fields[-1] == tails[0]), ev.name


def test_messages_and_words_come_from_the_table():
    assert _ERRORS == {c.value: c.message for c in codes.ERRORS if c.message}
    assert set(_ERRORS) == {c.value for c in codes.ERRORS} - {codes.E_OK}      # every refusal has a message
    assert _KIND == _ACTION_WORDS == {c.value: c.word for c in codes.ACTIONS}


def test_replay_md_shows_the_table_of_events():
    text = (ROOT / "docs" / "replay.md").read_text()
    assert codes.replay_table() in text


def test_the_decoder_names_each_event_by_its_table_word():
    """A hand-written log: every event type decodes to the word of its row."""
    P = 2
    ev = lambda t, *a: [t, len(a), *a]       # noqa: E731
    log = (ev(codes.EV_HAND, 0, 0, 1) + ev(codes.EV_DEAL, 0, 2, 0, 13) + ev(codes.EV_UPCARD, 5)
           + ev(codes.EV_DRAW, 1, 0, 7) + ev(codes.EV_PASS, 0, 5, 0) + ev(codes.EV_BUY, 0, 5, 1)
           + ev(codes.EV_PENALTY, 0, 9) + ev(codes.EV_DISCARD, 1, 8) + ev(codes.EV_RESHUFFLE, 1, 20, -1)
           + ev(codes.EV_OUT, 1, 1, 0, 0) + ev(codes.EV_HAND_END, 1, 0, 30, 0, 30, 0)
           + ev(codes.EV_SEARCH, 0, 2, 8, 0, 0, 200, 2000, 16, 1, codes.A_DISCARD | (8 << 4), 1250, 8, 0, 0)
           + ev(codes.EV_GAME_END, 30, 0))
    events = decode(np.array(log + [0, 0], np.int64), P)
    words = [e["event"] for e in events]
    expected = [c.word for t in (codes.EV_HAND, codes.EV_DEAL, codes.EV_UPCARD, codes.EV_DRAW, codes.EV_PASS,
                                 codes.EV_BUY, codes.EV_DISCARD, codes.EV_RESHUFFLE, codes.EV_OUT,
                                 codes.EV_HAND_END, codes.EV_SEARCH, codes.EV_GAME_END)
                for c in codes.EVENTS if c.value == t]
    assert words == expected
    assert events[5]["penalty"] == ["TC"]         # the penalty card joined its buy
    assert events[10]["candidates"] == [{"action": "discard 9C", "mean": 12.5, "samples": 8, "diff": 0, "se": 0}]
    assert (events[10]["margin"], events[10]["z"], events[10]["tie"], events[10]["race"]) == (0, 2, 20, 16)


def _dispatch_pairs(fn) -> dict[str, str]:
    """``kind == BOT_X`` -> the ``*_action_nb`` it returns, read from a dispatch function's source."""
    import inspect
    import textwrap
    tree, = parse_texts([(textwrap.dedent(inspect.getsource(fn.py_func)), fn.__name__)])
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) \
                and isinstance(node.test.comparators[0], ast.Name):
            kind = node.test.comparators[0].id
            for stmt in node.body:
                if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call):
                    out[kind] = stmt.value.func.id
    fallback = tree.body[0].body[-1]
    out["else"] = fallback.value.func.id
    return out


def test_the_dispatches_are_generated_from_the_registry_and_cover_it():
    """kernels/games/dispatch.py and kernels/bots/params.py are what python -m shanghai_sim.botgen
    writes from the registry, and both dispatches send every registry bot to the kernel its
    entry names (bot_action_nb: every bot but a search bot), an unknown kind to kind 0's."""
    from shanghai_sim import botgen
    from shanghai_sim.bots import BOTS
    from shanghai_sim.kernels.games import dispatch
    assert botgen.stale() == []
    for fn, search in ((dispatch.seat_action_nb, True), (dispatch.bot_action_nb, False)):
        pairs = _dispatch_pairs(fn)
        for info in BOTS.values():
            kernel = info.kernel.rsplit(".", 1)[1]
            const = "BOT_" + info.name.upper()
            assert getattr(dispatch, const) == info.kind
            if info.kind == 0:
                assert pairs["else"] == kernel, info.name
            elif search or info.gate != "workspace":
                assert pairs[const] == kernel, info.name
            else:
                assert const not in pairs, info.name