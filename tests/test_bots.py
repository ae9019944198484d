import numpy as np
import pytest
from click.testing import CliRunner

from shanghai_sim.bots import BOTS, BotError, parse_bot, parse_bots
from shanghai_sim.kernels.base import codes
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.games.dispatch import BOT_GREEDY, BOT_RANDOM
from shanghai_sim.kernels.bots.params import BP_BUY, BP_HAND0, BP_MAXBUYS, NBP


def test_parse_canonical_names():
    assert parse_bot("random").name == "random"
    assert parse_bot("GREEDY").name == "greedy"
    b = parse_bot("greedy:maxbuys=1:buy=never:buy8=useful")
    assert b.name == "greedy:buy=never:buy8=useful:maxbuys=1"
    assert b.kind == BOT_GREEDY
    assert b.params[BP_BUY] == codes.BUY_NEVER and b.params[BP_HAND0 + 7] == codes.BUY_USEFUL and b.params[BP_MAXBUYS] == 1
    assert parse_bot("greedy:wait_blind=true").name == "greedy:wait_blind=true"


@pytest.mark.parametrize("spec,needle", [
    ("clever", "valid bots: random, greedy, smart, rollout"),
    ("smart:outs=-1", "a number 0..100"),
    ("smart:outs=x", "a number 0..100"),
    ("greedy:buy=auto", "never, useful, always"),
    ("greedy:foo=1", "valid: buy="),
    ("greedy:buy=sometimes", "never, useful, always"),
    ("greedy:buy99=never", "hand numbers"),
    ("random:buy=never", "takes no parameters"),
    ("greedy:maxbuys=x", "integer"),
])
def test_parse_errors_list_valid_names(spec, needle):
    with pytest.raises(BotError) as e:
        parse_bot(spec)
    assert needle in str(e.value)
    assert "\n" not in str(e.value)


def test_parse_bots_seats():
    k, p = parse_bots("greedy", 3)
    assert k.tolist() == [BOT_GREEDY] * 3 and p.shape == (3, NBP)
    k, p = parse_bots("random,greedy:buy=never", 2)
    assert k.tolist() == [BOT_RANDOM, BOT_GREEDY]
    k, p = parse_bots(["random", "greedy"], 2)
    assert k.dtype == np.int64 and p.dtype == np.float64
    with pytest.raises(BotError, match="3 bot specs for 4 players"):
        parse_bots("random,greedy,greedy", 4)
    assert issubclass(BotError, ValueError)


def test_param_values_read_a_spec_through_the_registry():
    """What analyses read a spec's settings by (analyses/buying.py's budget pairs), never a slot."""
    v = parse_bot("greedy:buy=always:buy3=never").param_values()
    assert list(v) == [p.name for p in BOTS["greedy"].params]          # buy and buyN apart
    assert v["buy"] == parse_bot("greedy:buy=always").params[BP_BUY] and v["buy"] != BOTS["greedy"].defaults()[BP_BUY]
    assert v["buyN"][2] == parse_bot("greedy:buy3=never").params[BP_HAND0 + 2] and v["buyN"][3] == v["buyN"][0]
    r = parse_bot("rollout:rollouts=8:policy=greedy").param_values()
    assert r["rollouts"] == 8 and r["policy"] == 1 and r["candidates"] == 3
    assert "rollouts" not in parse_bot("smart").param_values()


def test_bots_command_lists_bots_and_params():
    from shanghai_sim.cli.main import main
    r = CliRunner().invoke(main, ["bots"])
    assert r.exit_code == 0
    for name in BOTS:
        assert name in r.output
    for key in ("buy=", "buyN=", "maxbuys=", "wait_blind="):
        assert key in r.output


@pytest.mark.parametrize("rules,seed", [("shanghai", 1), ("contract", 2)])
def test_greedy_discard_is_the_plain_rule(rules, seed):
    """greedy (not down) discards the card whose loss keeps the deficiency lowest; ties:
    more useful outs, then more points, then the lower card id; a joker or the card it
    just took from the pile only when no other card is left. The bot stops at the first
    candidate in tie order that keeps the deficiency; a plain loop over every card must
    agree at every discard of a seeded game."""
    from shanghai_sim import Game
    from shanghai_sim.kernels.bots.players import NEAR
    from shanghai_sim.kernels.melds.finder import deficiency_nb

    def outs(h):
        m = 0
        for c in range(52):
            if h[c]:
                m |= int(NEAR[c])
        return bin(m).count("1")

    g = Game(rules=rules, players=4, seed=seed, bots="greedy")
    R, G = g.R, g.G
    checked = 0
    while not g.over:
        S = G.s
        p = int(S[L.S_ACTOR])
        a = g.bot_action()
        if a.kind == "discard" and G.ps[p, L.PS_DOWN] == 0:
            h = int(S[L.S_HAND])
            H = G.hands[p].copy()
            took = int(G.ps[p, L.PS_TOOK]) - 1
            best = None
            for c in range(53):
                if H[c] == 0:
                    continue
                H[c] -= 1
                d = deficiency_nb(H, L.Contract(R.meld_kind[h], R.meld_size[h], R.n_melds[h], R.joker_cap,
                                                R.params.initial_exact, R.params.same_suit_gap))
                key = (0 if c in (52, took) else 1, -d, outs(H), int(R.points[c]), -c)
                H[c] += 1
                if best is None or key > best[0]:
                    best = (key, c)
            assert codes.action_fields(a.code)[1] == best[1]
            checked += 1
        g.apply(a)
    assert checked > 100


def _random_choices(g, draws):
    """The random bot's choice, drawn `draws` times from the same state (each draw
    moves on the seat's random stream only), against the legal actions there."""
    from shanghai_sim.kernels.engine.play import legal_actions_nb
    from shanghai_sim.kernels.bots.basics import random_action_nb
    p = int(g.S[L.S_ACTOR])
    buf = np.zeros(L.MAXLEGAL, np.int64)
    legal = {int(a) for a in buf[:legal_actions_nb(g.R, g.G, buf)]}
    counts = {}
    for _ in range(draws):
        a = int(random_action_nb(g.R, g.G, p))
        counts[a] = counts.get(a, 0) + 1
    return legal, counts


@pytest.mark.parametrize("go_down", [True, False])
def test_random_bot_is_uniform(go_down):
    """random draws every legal action with the same chance, also where it asks whether
    going down is legal only when the slot kept for it comes up (RULES-free check:
    the legal list of the engine is the reference)."""
    from shanghai_sim import Game
    from shanghai_sim.kernels.base import codes as K
    from shanghai_sim.kernels.engine.godown import go_down_available_nb
    g = Game(rules="shanghai", players=4, seed=3, bots="random")
    while True:
        p = int(g.S[L.S_ACTOR])
        if g.S[L.S_PHASE] == K.PH_PLAY and g.G.ps[p, L.PS_DOWN] == 0:
            if bool(go_down_available_nb(g.R, g.G, p)) == go_down:
                break
        g.step()
        assert not g.over, "no such state in this game"
    draws = 400 * 12
    legal, counts = _random_choices(g, draws)
    assert set(counts) == legal
    assert (K.action_nb(K.A_GO_DOWN, 0, 0, 0) in legal) == go_down
    mean = draws / len(legal)
    sd = (mean * (1 - 1 / len(legal))) ** 0.5
    for a, c in counts.items():
        assert abs(c - mean) < 5 * sd, (a, c, mean, sorted(counts.values()))


def test_a_new_bot_is_one_registry_entry(monkeypatch):
    """docs/DEVELOPING.md 'A new bot': parsing, canonical specs, errors and the listing
    follow from the entry alone (tests/test_new_bot.py plays one)."""
    from shanghai_sim import bots as B
    from dataclasses import replace
    from shanghai_sim.kernels.bots.params import SLOTS
    slot = SLOTS[-1][0]           # any declared slot: parsing only stores into it
    entry = replace(B.BotInfo("cautious", "bots.greedy_action_nb", "greedy, but never buys after hand N", (
        B.BotParam("stop", "int", slot, 0, "last hand in which it buys", lo=1, hi=10),)), kind=BOT_GREEDY)
    monkeypatch.setitem(B.BOTS, "cautious", entry)
    monkeypatch.setattr(B, "_GENERATED_OK", True)   # parsing only: the kernels never see it
    b = parse_bot("cautious:stop=4")
    assert b.name == "cautious:stop=4" and b.kind == BOT_GREEDY and b.params[B.OFFSETS[slot]] == 4
    assert parse_bot("cautious").name == "cautious"
    with pytest.raises(BotError, match="integer 1..10"):
        parse_bot("cautious:stop=11")
    with pytest.raises(BotError, match="valid: stop="):
        parse_bot("cautious:go=1")
    assert "stop=integer 1..10" in B.bots_help()
    k, _ = parse_bots("cautious:stop=2,random", 2)
    assert k.tolist() == [BOT_GREEDY, BOT_RANDOM]


def test_every_registry_parameter_sits_in_a_declared_slot_and_every_slot_is_read():
    """kernels.bots.params declares the parameter row once; the registry parses into it: a
    parameter's slot is the start of a declared slot, a per-hand one takes the slot's whole
    width (MAX_HAND_PARAMS), a single one width 1, and no slot is left unread."""
    from shanghai_sim.kernels.bots import params as P
    start = {off: name for name, off in P.OFFSETS.items() if name != "NBP"}
    read = set()
    for info in BOTS.values():
        for prm in info.params:
            assert prm.slot in start, (info.name, prm.key, prm.slot)
            name = start[prm.slot]
            assert P.WIDTH[name] == (P.MAX_HAND_PARAMS if prm.per_hand else 1), (info.name, prm.key)
            read.add(name)
    assert read == set(P.WIDTH), set(P.WIDTH) - read
    assert sum(P.WIDTH.values()) == P.NBP and P.NBP <= L.RF_W


def test_a_seats_private_row_is_read_and_written_only_by_the_state_and_the_hand_memo():
    """The seat view by construction: what only a seat may know of its hidden hand (its
    cached deficiency) is a private row apart from the public per-seat row (``G.priv``,
    PV_*). Only state.py (add_card/rem_card, def_saved_nb/def_restore_nb/def_forget_nb: a
    probe tries a move on the real hand and restores the cache) and handmemo.hand_def_nb
    touch it; the search's playouts only put their scratch copy's row into the scratch state
    tuple (search/playout.py)."""
    import re
    from pathlib import Path
    kernels = Path(__file__).resolve().parent.parent / "shanghai_sim" / "kernels"
    allowed = {"base/layout.py", "engine/state.py", "engine/handmemo.py"}
    pat = re.compile(r"(\.priv\b|\bPV_DEF|\bPV_DEFOK|\bPV_[A-Z]+\b)")
    paths = sorted(kernels.rglob("*.py"))
    assert len(paths) > 30
    for path in paths:
        rel = path.relative_to(kernels).as_posix()
        if rel in allowed:
            continue
        hits = [ln for ln in path.read_text().splitlines() if pat.search(ln)]
        if rel == "search/playout.py":        # the import, and the scratch tuple's W.priv
            hits = [ln for ln in hits if ln.replace("W.priv", "") == ln and not ln.startswith("from ..base.layout import")
                    or pat.search(ln.replace("W.priv", ""))]
        assert not hits, (rel, hits)
    assert not re.search(r"\bPS_DEF", "".join(p.read_text() for p in paths))


def test_a_registry_the_kernels_were_not_generated_from_is_refused(monkeypatch):
    """A bot added without python -m shanghai_sim.botgen would be played by kind 0's
    kernel: parsing any spec says what to run instead."""
    from shanghai_sim import bots as B
    monkeypatch.setitem(B.BOTS, "cautious", B.BOTS["greedy"])
    monkeypatch.setattr(B, "_GENERATED_OK", False)
    with pytest.raises(BotError, match="run python -m shanghai_sim.botgen"):
        parse_bot("greedy")
