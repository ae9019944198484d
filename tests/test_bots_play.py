"""The thinking bots' documented behaviours (docs/bots.md), on scripted positions built
with the public ``Game.set_position``, and the seat view: a bot decides from what its
seat may know, never from the other hands."""

import numpy as np
import pytest

from shanghai_sim.bots import BOTS
from shanghai_sim.cards import parse_cards
from shanghai_sim.game import Game
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.rules import Contract, parse_contract, preset

FILL = "2C 3D 4H 5S 6C 7D 9H TS JC QD KH"
THINKING = ["greedy", "smart"]


def one_hand(contract, base="shanghai", deal=11, **options):
    r = preset(base).replace(contracts=(Contract(parse_contract(contract), deal),),
                             buys_per_hand=(options.pop("buys", 3),), **options)
    g = Game(rules=r, players=4, seed=3, bots="python")
    return g, int(g.view(0)["dealer"])


def act(g, kind, card=None):
    for a in g.legal_actions():
        if a.kind == kind and (card is None or a.card == card):
            g.apply(a)
            return a
    raise AssertionError(f"no legal {kind} {card or ''}: {[str(a) for a in g.legal_actions()]}")


def offer(contract, hands, upcard, **options):
    """A position where seat x has just discarded ``upcard``: the next seat is to take it
    or pass (first refusal). ``hands``: role ('next', 'buyer') -> cards."""
    g, d = one_hand(contract, **options)
    x, nxt, buyer = (d + 2) % 4, (d + 3) % 4, (d + 1) % 4
    seats = {"next": nxt, "buyer": buyer}
    pos = {q: FILL for q in range(4)} | {x: FILL + " " + upcard}
    pos |= {seats[k]: v for k, v in hands.items()}
    g.set_position(pos, upcard="2S", stock="QC QS 8D 8C 3C 3S 4D 4S 5C 6D 6S 9C", play=x)
    act(g, "discard", upcard)
    return g, seats


def test_a_seat_view_holds_the_seats_own_cards_and_stream_alone():
    """The seat view by construction (issue 56): what a bot receives holds its seat's hand,
    private row and random stream, zeros in every other seat's rows, in the deal stream's and
    the game seed's, and a stock of zeros; a card it tries on the view's hand leaves the real
    hand as it was, and the view's end keeps the stream it moved on and clears its rows."""
    from shanghai_sim.kernels.engine.state import seat_view, seat_view_done_nb
    g = Game(rules="shanghai", players=4, seed=3, bots="smart")
    for _ in range(25):
        g.step()
    G, p = g.G, g.to_act
    hands, rng, stock = G.hands.copy(), G.rng.copy(), G.stock.copy()
    shoe = int(G.s[L.S_SHOE])
    V = seat_view(G, p)
    assert isinstance(V, L.State) and V.hands.shape == (L.MAXP, 53) and V.rng.shape == (L.NRNG, 4)
    assert (V.hands[p] == hands[p]).all() and V.hands.sum() == hands[p].sum()
    assert (V.rng[L.RNG_BOT0 + p] == rng[L.RNG_BOT0 + p]).all()
    assert [r for r in range(L.NRNG) if V.rng[r].any()] == [L.RNG_BOT0 + p]
    assert (hands[[q for q in range(4) if q != p]].sum() > 0)       # the others' cards exist,
    assert stock[:int(G.s[L.S_STOCK_N])].any()                       # and the stock's,
    assert V.stock.shape == (shoe,) and not V.stock.any()            # not in the view
    V.hands[p, 0] += 5                                                  # a trial move
    assert (G.hands[:L.MAXP] == hands[:L.MAXP]).all()                   # never touches the real hands
    V.hands[p, 0] -= 5
    V.rng[L.RNG_BOT0 + p, 0] ^= np.uint64(1)                            # the seat's stream moves on
    seat_view_done_nb(G, np.int64(p))
    assert G.rng[L.RNG_BOT0 + p, 0] == rng[L.RNG_BOT0 + p, 0] ^ np.uint64(1)
    assert not G.hands[L.MAXP:].any() and not G.rng[L.NRNG:].any() and not G.priv[L.MAXP:].any()


def test_no_kernel_writes_the_view_stock():
    """The seat view's stock is the half of the state's stock array the engine never writes: it
    stays zeros through whole games (and through a search's playouts, in the workspace)."""
    g = Game(rules="shanghai", players=4, seed=8, bots="smart,rollout:rollouts=2:candidates=2,greedy,random")
    while not g.over:
        g.step()
    shoe = int(g.G.s[L.S_SHOE])
    assert g.G.stock.shape == (2 * shoe,) and not g.G.stock[shoe:].any()
    assert not g.workspace().stock[shoe:].any()


def test_the_dispatch_calls_every_bot_with_a_seat_view():
    """The generated dispatch makes the seat's view and hands it to every bot kernel; only
    the diagnostic (which cheats on purpose) is given the true cards, beside the view."""
    import re
    from pathlib import Path
    from shanghai_sim.kernels.games import dispatch
    src = Path(dispatch.__file__).read_text()
    calls = re.findall(r"return (\w+_action_nb)\((.*?)\)\n", src)
    assert {f for f, _ in calls} >= {"random_action_nb", "greedy_action_nb", "smart_action_nb",
                                     "rollout_action_nb", "oracle_action_nb"}
    for f, args in calls:
        names = [a.strip() for a in args.split(",")]
        assert names[:2] == ["R", "V"] and "G" not in names, (f, names)
        assert (f == "oracle_action_nb") == any(a.startswith("G.") for a in names), (f, names)
    assert src.count("V = seat_view_nb(G, p)") == src.count("seat_view_done_nb(G, p)") == 2


@pytest.mark.parametrize("bot", THINKING)
def test_keeps_a_joker_when_every_discard_costs(bot):
    """Every discard raises the deficiency (it is 2 with 5C 5D JK 8C for set3 set3): the
    joker still stays, a natural goes."""
    g, d = one_hand("set3 set3")
    a = (d + 1) % 4
    g.set_position({a: "5C 5D JK 8C"}, upcard="2S", stock="3C 4C", play=a)
    act_ = g.bot_action(bot)
    assert act_.kind == "discard" and act_.card != "JK"


@pytest.mark.parametrize("bot", THINKING)
def test_refuses_a_card_it_would_throw_back(bot):
    """8H completes 5-5-5 8-8-8 but leaves no card to discard that keeps it complete: the
    bot would throw it (or a joker-less equivalent) back, so it passes; with a spare KS
    it takes it."""
    g, s = offer("set3 set3", {"next": "5C 5D 5H 8C 8D"}, "8H")
    assert g.to_act == s["next"] and g.phase == "first_refusal"
    assert g.bot_action(bot).kind == "pass"
    g, s = offer("set3 set3", {"next": "5C 5D 5H 8C 8D KS"}, "8H")
    assert g.bot_action(bot).kind == "take"
    g.apply(g.bot_action(bot))
    assert g.view(s["next"])["known"][s["next"]] == ["8H"]
    nxt = g.bot_action(bot)       # 7 cards cannot go down under no_discard: it discards, not 8H
    assert nxt.kind == "discard" and nxt.card == "KS"


@pytest.mark.parametrize("bot", THINKING)
def test_buys_the_card_that_completes_contract_8(bot):
    """Hand 8 (set3 run10) cannot be met with the dealt cards: holding 7-7-7 and 2H..TH,
    the bot buys JH, which meets the contract and brings the cards to go down."""
    g, s = offer("set3 run10", {"next": FILL, "buyer": "7C 7D 7S 2H 3H 4H 5H 6H 7H 8H 9H TH"},
                 "JH")
    act(g, "pass")                                   # the next player refuses
    while g.to_act != s["buyer"]:
        act(g, "pass")
    assert g.phase == "buy"
    assert g.bot_action(bot).kind == "buy"


def test_smart_buys_by_card_count():
    """Contract met (deficiency 0) but too few cards to go down under no_discard: smart
    buys any card; a card that does not partner the hand it leaves when not short."""
    g, s = offer("set3 run10", {"next": FILL, "buyer": "7C 7D 7S 2H 3H 4H 5H 6H 7H 8H 9H TH JH"},
                 "KS")
    act(g, "pass")
    while g.to_act != s["buyer"]:
        act(g, "pass")
    assert g.bot_action("smart").kind == "buy"
    g, s = offer("set3 set3", {"next": FILL, "buyer": "7C 7D 9S 2H 3H 4H 5H 6H 7H 8H 9H"}, "KS")
    act(g, "pass")
    while g.to_act != s["buyer"]:
        act(g, "pass")
    assert g.bot_action("smart").kind == "pass"


def test_smart_does_not_feed_a_down_next_player():
    """The next player is down with 9-9-9 on the table: of two equally useless cards, smart
    keeps the nine (the next player would lay it off), greedy's tie-break does not look."""
    g, d = one_hand("set3 set3")
    a, nxt = (d + 1) % 4, (d + 2) % 4
    g.set_position({a: "5C 5D 8C 8D KC 9S", nxt: "9C 9D 9H 2C 2D 2H QS JS"}, upcard="2S",
                   stock="3C 4C 6D 6H", play=nxt)
    act(g, "go_down")
    act(g, "discard", "QS")
    g.set_position({}, upcard="QS", stock="3C 4C 6D 6H", play=a)   # a drew; it plays
    assert g.bot_action("smart").card == "KC"
    assert g.bot_action("smart:feed=0:points=0:partner=0").card in ("KC", "9S")


def _hidden_shuffled(g, seat, rng):
    """The same game as ``seat`` sees it, with everything else redrawn: the hidden cards of
    every other seat and the stock dealt anew among them (each hand keeping its size and the
    cards it is known to hold, the stock its size, in a new order), and every random stream
    but the seat's own (the deal's, the other seats', the game seed's row) replaced."""
    G = g.G
    H, PS, stock = G.hands, G.ps, G.stock
    n_stock = int(G.s[L.S_STOCK_N])
    others = [q for q in range(g.players) if q != seat]
    pool = [int(c) for c in stock[:n_stock]]
    for q in others:
        for c in range(53):
            free = int(H[q, c]) - int(PS[q, L.PS_KNOWN0 + c])
            pool += [c] * free
    rng.shuffle(pool)
    k = 0
    for q in others:
        free = int(PS[q, L.PS_N]) - int(PS[q, L.PS_KNOWN0:L.PS_KNOWN0 + 53].sum())
        H[q, :] = PS[q, L.PS_KNOWN0:L.PS_KNOWN0 + 53]
        for c in pool[k:k + free]:
            H[q, c] += 1
        k += free
        G.priv[q, L.PV_DEFOK] = L.DEF_UNKNOWN
    stock[:n_stock] = pool[k:]
    assert k + n_stock == len(pool)
    streams = G.rng
    for row in range(L.NRNG):
        if row != L.RNG_BOT0 + seat:
            streams[row] = rng.integers(1, 2**63, size=streams.shape[1], dtype=np.uint64)


def _saved(g):
    return {k: getattr(g.G, k).copy() for k in ("hands", "ps", "priv", "stock", "rng")}


def _restore(g, saved):
    for k, a in saved.items():
        getattr(g.G, k)[:] = a


# Every bot of the registry (a new bot joins by itself); a search bot (one with a rollouts
# budget) at a small budget, over fewer decisions. rollout's own seat-view test
# (tests/test_rollout.py) checks its search means as well.
def _searches(name: str) -> bool:
    return any(p.key == "rollouts" for p in BOTS[name].params)


SEAT_VIEW = {name: name + (":rollouts=2:race=4:candidates=2" if _searches(name) else "") for name in BOTS}
SEAT_VIEW_DECISIONS = {name: 60 for name in BOTS if _searches(name)}


@pytest.mark.parametrize("rules", ["shanghai", "contract"])
@pytest.mark.parametrize("bot", sorted(BOTS))
def test_every_bot_decides_from_its_seat_view(bot, rules):
    """At every decision of a few games, each registry bot's choice is the same after the
    other hands' hidden cards and the stock are dealt anew among them, in a new stock order,
    and every random stream but the seat's own is replaced (docs/bots.md, the seat view)."""
    spec = SEAT_VIEW[bot]
    cap = SEAT_VIEW_DECISIONS.get(bot, 400)
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(3):
        g = Game(rules=rules, players=4, seed=seed, bots="smart")
        while not g.over and checked < cap * (seed + 1):
            seat = g.to_act
            want = str(g.bot_action(spec))
            saved = _saved(g)
            _hidden_shuffled(g, seat, rng)
            got = str(g.bot_action(spec))
            _restore(g, saved)
            assert got == want, (seed, g.view(seat))
            checked += 1
            g.step()
    assert checked > cap * 3 // 4


@pytest.mark.parametrize("bot", THINKING)
def test_no_joker_thrown_while_a_natural_can_go(bot):
    """Over whole games, a bot discards a joker only when its hand holds no natural it
    could discard instead."""
    for seed in range(4):
        g = Game(rules="shanghai", players=4, seed=seed, bots=bot)
        while not g.over:
            a = g.bot_action()
            if a.kind == "discard" and a.card == "JK":
                hand = g.hand_cards(g.to_act)
                assert all(c == "JK" for c in hand), (seed, hand)
            g.apply(a)


def test_known_cards_follow_takes_and_plays():
    g, s = offer("set3 set3", {"next": "5C 5D 5H 8C 8D KS QS"}, "8H")
    act(g, "take")
    q = s["next"]
    assert g.view(0)["known"][q] == ["8H"]
    act(g, "go_down")
    assert g.view(0)["known"][q] == []
    assert sorted(parse_cards("KS QS")) == sorted(parse_cards(" ".join(g.hand_cards(q))))
