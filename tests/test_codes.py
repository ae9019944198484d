"""The engine's codes are declared once (kernels/base/codes.py) and everything else derives from them."""

import ast
import re
from pathlib import Path

import numpy as np

from astparse import parse_files, parse_texts
from shanghai_sim.game import _ERRORS, _KIND
from shanghai_sim.kernels.base import codes
from shanghai_sim.log import _ACTION_WORDS, _DECISIONS, decode

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("shanghai_sim", "cli", "analyses", "benchmarks", "tests", "docs")   # every Python file of the repo
# A name with one of these prefixes is a code (phase, action, event, refusal, searched decision)
# or a part of the action bit layout: no module but codes.py assigns one, declared there or not.
CODE_NAME = re.compile(r"(PH|A|EV|E|DEC|ACT)_[A-Z0-9_]+$")
# Folders whose modules pack words of their own with the same shifts and masks as an action
# code, and never hold an action (checked: they import nothing from codes.py).
OWN_BIT_WORDS = {"shanghai_sim/kernels/melds": "the meld finder's memo and window lists"}


def _repo_files() -> list[Path]:
    """Every Python file of the repository but codes.py (a symlinked folder counted once)."""
    seen: dict[Path, Path] = {}
    for d in SOURCES:
        for p in sorted((ROOT / d).rglob("*.py")):
            seen.setdefault(p.resolve(), p)
    return [p for r, p in seen.items() if r != Path(codes.__file__).resolve()]


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


def test_each_code_is_defined_once_in_the_repository():
    """No module of the repository but codes.py assigns a code (a row of any table: phases,
    actions, events, refusals, searched decisions DEC_*, hand endings, event field codes,
    buy policies, opt values), an event's payload offset, NO_ACTION, LOG_END or a name of the
    action bit layout: the old copies (rollout's DEC_*, players' and outlook's BUY_*, game.py's
    messages, log.py's words) are gone."""
    declared = set(codes.CONSTANTS) | set(codes.ACTION_LAYOUT) | {"NO_ACTION", "LOG_END"}
    for path, tree in parse_files(_repo_files()).items():      # in a child process: see astparse.py
        again = {n for n in _assigned_names(tree) if CODE_NAME.match(n) or n in declared}
        assert not again, f"{path.relative_to(ROOT)} defines {sorted(again)} again: import it from codes.py"


def _bit_ops(tree: ast.Module) -> list[ast.BinOp]:
    """The shifts by an action field's offset and the ands with an action field's mask, applied
    to something other than a constant (``64 << 10``, a size, is no action)."""
    shifts = {codes.ACT_CARD_SHIFT, codes.ACT_MELD_SHIFT, codes.ACT_OPT_SHIFT}
    masks = {codes.ACT_TYPE_MASK, codes.ACT_CARD_MASK, codes.ACT_MELD_MASK}

    def num(n):
        return isinstance(n, ast.Constant) and type(n.value) is int

    out = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.BinOp):
            continue
        if isinstance(n.op, (ast.LShift, ast.RShift)) and num(n.right) and n.right.value in shifts \
                and not num(n.left):
            out.append(n)
        elif isinstance(n.op, ast.BitAnd) and any(num(a) and a.value in masks and not num(b)
                                                  for a, b in ((n.left, n.right), (n.right, n.left))):
            out.append(n)
    return out


def _imports_codes(tree: ast.Module) -> bool:
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and ((n.module or "").endswith("codes")
                                               or any(a.name == "codes" for a in n.names)):
            return True
        if isinstance(n, ast.Import) and any(a.name.endswith(".codes") for a in n.names):
            return True
    return False


def test_the_action_bit_layout_is_written_only_in_codes():
    """No module but codes.py shifts or masks an action code by hand (``code >> 4 & 63``):
    the kernels call a_type/a_card/a_meld/a_opt and action_nb, Python action_fields. A module
    that packs words of its own with the same numbers is listed in OWN_BIT_WORDS, and must not
    touch actions (it imports nothing from codes.py)."""
    trees = parse_files(_repo_files())
    for path, tree in trees.items():
        rel = path.relative_to(ROOT).as_posix()
        own = next((d for d in OWN_BIT_WORDS if rel.startswith(d + "/")), None)
        if own:
            assert not _imports_codes(tree), f"{rel} imports codes: it may hold actions, so it is not {own!r}"
            continue
        ops = [f"line {n.lineno}: {ast.unparse(n)}" for n in _bit_ops(tree)]
        assert not ops, (f"{rel} writes the action bit layout by hand ({'; '.join(ops)}): use "
                         f"codes.action_fields / a_type / a_card / a_meld / a_opt / action_nb, or, for a "
                         f"word that is no action, list its folder in OWN_BIT_WORDS")
    # the check sees a copy, and the numbers it looks for are the layout's
    found = _bit_ops(parse_texts([("t, c = code & 15, (code >> 4) & 63\nsize = 64 << 10\n", "x")])[0])
    assert [ast.unparse(n) for n in found] == ["code & 15", "code >> 4 & 63", "code >> 4"]


def test_the_action_bit_layout():
    """The fields follow each other without overlap, and action_nb, the kernels' readers and
    Python's action_fields agree on every field."""
    assert codes.ACT_CARD_SHIFT == codes.ACT_TYPE_BITS
    assert codes.ACT_MELD_SHIFT == codes.ACT_CARD_SHIFT + codes.ACT_CARD_BITS
    assert codes.ACT_OPT_SHIFT == codes.ACT_MELD_SHIFT + codes.ACT_MELD_BITS
    assert (codes.ACT_TYPE_MASK, codes.ACT_CARD_MASK, codes.ACT_MELD_MASK) == (15, 63, 127)
    assert codes.ACT_OPT_SHIFT == 17          # the codes in logs and golden transcripts
    for t in (c.value for c in codes.ACTIONS):
        for card, meld, opt in ((0, 0, 0), (52, 0, 1), (17, 127, 3), (63, 5, 40)):
            a = codes.action_nb.py_func(t, card, meld, opt)
            assert codes.action_fields(a) == (t, card, meld, opt)
            assert codes.action_fields(np.int64(a)) == (t, card, meld, opt)
            assert (codes.a_type.py_func(a), codes.a_card.py_func(a), codes.a_meld.py_func(a),
                    codes.a_opt.py_func(a)) == (t, card, meld, opt)
    assert int(codes.action_nb(codes.A_DISCARD, 8, 0, 0)) == codes.A_DISCARD | (8 << codes.ACT_CARD_SHIFT)


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
    from shanghai_sim import bots, dataset
    assert _ERRORS == {c.value: c.message for c in codes.ERRORS if c.message}
    assert set(_ERRORS) == {c.value for c in codes.ERRORS} - {codes.E_OK}      # every refusal has a message
    assert _KIND == _ACTION_WORDS == {c.value: c.word for c in codes.ACTIONS}
    assert _DECISIONS == {c.value: c.word for c in codes.DECISIONS} == {0: "take", 1: "buy", 2: "discard", 3: "down"}
    assert dataset.ENDINGS == ("out", "stock", "turn_cap")      # the ended column, indexed by HF_STOPPED
    assert [dataset.ENDINGS[c.value] for c in codes.ENDINGS] == [c.word for c in codes.ENDINGS]
    assert bots._BUY_SMART == tuple((c.word, c.value) for c in codes.BUY_POLICIES)
    assert dict(bots._BUY_SMART)["auto"] == codes.BUY_AUTO and "auto" not in dict(bots._BUY)
    assert codes.PHASE_WORD == {codes.PH_FIRST: "first_refusal", codes.PH_BUY: "buy", codes.PH_DRAW: "draw",
                                codes.PH_PLAY: "play", codes.PH_OVER: "over"}      # Game.phase
    assert codes.WORDS["run_end"] == {codes.OPT_LOW: "low", codes.OPT_HIGH: "high"}   # Action.end


# An event's field that holds a code, and the table of its codes (the log writes their words).
CODED_FIELDS = {(codes.EV_DRAW, "source"): codes.DRAW_SOURCES, (codes.EV_PASS, "what"): codes.PASS_KINDS,
                (codes.EV_OUT, "how"): codes.OUT_WAYS, (codes.EV_HAND_END, "reason"): codes.ENDINGS,
                (codes.EV_SEARCH, "decision"): codes.DECISIONS}


def test_coded_fields_are_documented_with_their_words():
    """docs/replay.md's event table (each event's json text) names every word of a coded field."""
    by_value = {c.value: c for c in codes.EVENTS}
    for (ev, field), rows in CODED_FIELDS.items():
        e = by_value[ev]
        assert field in e.fields, (e.name, field)
        for c in rows:
            assert f"`{c.word}`" in e.json, (e.name, field, c.word)


def test_the_decoder_writes_each_coded_field_as_its_word():
    """Every code of a coded field, written into its event as the engine does, decodes to its word."""
    P = 2
    by_value = {c.value: c for c in codes.EVENTS}
    for (ev, field), rows in CODED_FIELDS.items():
        fixed = [f for f in by_value[ev].fields if not f.endswith("*")]
        tail = [0] * (2 * P) if ev == codes.EV_HAND_END else []      # scores, totals
        for c in rows:
            payload = [c.value if f == field else 0 for f in fixed] + tail
            e, = decode(np.array([ev, len(payload), *payload, codes.LOG_END, 0], np.int64), P)
            assert e[field] == c.word, (by_value[ev].name, field, c.name)


def test_replay_md_shows_the_table_of_events():
    text = (ROOT / "docs" / "replay.md").read_text()
    assert codes.replay_table() in text


def test_the_decoder_names_each_event_by_its_table_word():
    """A hand-written log: every event type decodes to the word of its row."""
    P = 2
    ev = lambda t, *a: [t, len(a), *a]       # noqa: E731
    log = (ev(codes.EV_HAND, 0, 0, 1) + ev(codes.EV_DEAL, 0, 2, 0, 13) + ev(codes.EV_UPCARD, 5)
           + ev(codes.EV_DRAW, 1, codes.SOURCE_STOCK, 7) + ev(codes.EV_PASS, 0, 5, codes.WHAT_FIRST_REFUSAL)
           + ev(codes.EV_BUY, 0, 5, 1)
           + ev(codes.EV_PENALTY, 0, 9) + ev(codes.EV_DISCARD, 1, 8) + ev(codes.EV_RESHUFFLE, 1, 20, -1)
           + ev(codes.EV_OUT, 1, codes.HOW_DISCARD, 0, 0) + ev(codes.EV_HAND_END, 1, codes.END_OUT, 30, 0, 30, 0)
           + ev(codes.EV_SEARCH, 0, codes.DEC_DISCARD, 8, 0, 0, 200, 2000, 16, 1,
                codes.action_nb(codes.A_DISCARD, 8, 0, 0), 1250, 8, 0, 0)
           + ev(codes.EV_GAME_END, 30, 0))
    events = decode(np.array(log + [codes.LOG_END, 0, 99], np.int64), P)     # LOG_END: nothing after it is read
    words = [e["event"] for e in events]
    expected = [c.word for t in (codes.EV_HAND, codes.EV_DEAL, codes.EV_UPCARD, codes.EV_DRAW, codes.EV_PASS,
                                 codes.EV_BUY, codes.EV_DISCARD, codes.EV_RESHUFFLE, codes.EV_OUT,
                                 codes.EV_HAND_END, codes.EV_SEARCH, codes.EV_GAME_END)
                for c in codes.EVENTS if c.value == t]
    assert words == expected
    assert events[5]["penalty"] == ["TC"]         # the penalty card joined its buy
    assert (events[3]["source"], events[4]["what"], events[8]["how"], events[9]["reason"], events[10]["decision"]) \
        == ("stock", "first_refusal", "discard", "out", "discard")     # coded fields: their table's words
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
    for fn, search in ((dispatch._seat_choice, True), (dispatch._plain_choice, False)):
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