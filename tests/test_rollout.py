"""The rollout bot (kernels.search.rollout, docs/bots.md): its samples conserve the cards and keep
what the seat knows, it decides from its seat's view, it replays identically, and on a
scripted position it finds a move smart misses."""

import numpy as np
import pytest

from shanghai_sim.bots import parse_bot
from shanghai_sim.cards import card_str, parse_cards
from shanghai_sim.game import Game, game_events
from shanghai_sim.kernels.base import layout as L
from shanghai_sim.kernels.engine.handmemo import def_of_nb
from shanghai_sim.kernels.search.oracle import oracle_pool_nb
from shanghai_sim.kernels.search.playout import load_sample_nb
from shanghai_sim.kernels.search.sample import fit_hands_nb, unseen_pool_nb
from shanghai_sim.kernels.base.rng import shuffle_nb
from shanghai_sim.rules import preset

from test_bots_play import _hidden_shuffled, _restore, _saved, act, one_hand

# every upcard that could matter searched (prune=1), with a fixed budget of 2 samples
FAST = "rollout:rollouts=2:candidates=2:race=0:prune=1"
RACE = "rollout:rollouts=2:candidates=3:race=16:prune=1"    # a race from 2 samples up to 16


def _scratch(g):
    """The scratch state a search plays on: the workspace's game arrays, the real memo."""
    W, G = g.workspace(), g.G
    return L.State(*(getattr(W if f in L.GAME_FIELDS else G, f) for f in L.State._fields))


def _table_counts(G):
    out = np.zeros(53, np.int64)
    TM, TC = G.table, G.tcards
    for m in range(int(G.s[L.S_NT])):
        lo, hi = ((TM[m, L.TM_LO], TM[m, L.TM_HI]) if TM[m, L.TM_KIND] == L.RUN
                  else (0, TM[m, L.TM_N] - 1))
        for k in range(lo, hi + 1):
            if TC[m, k] >= 0:
                out[TC[m, k]] += 1
    return out


def _all_counts(G, players):
    S = G.s
    c = G.hands[:players].sum(axis=0) + _table_counts(G)
    c += np.bincount(G.stock[:S[L.S_STOCK_N]], minlength=53)
    c += np.bincount(G.pile[:S[L.S_PILE_N]], minlength=53)
    return c


def _check_sample(g, seat, seed, fit=0, decl=0, unready=0):
    R, G = g.R, g.G
    pool = g.workspace().ri[L.RI_POOL]
    n = unseen_pool_nb(R, G, seat, pool)
    assert n >= 0, "the seat's view does not add up"
    before = np.sort(pool[:n])
    rng = g.G.rng[L.RNG_BOT0 + seat].copy()
    if fit or decl:
        fit_hands_nb(R, G, seat, pool, n, fit, decl, rng, g.workspace().scr[L.SCR_TMP],
                     g.workspace().scr[L.SCR_CAND], unready)
    assert (np.sort(pool[:n]) == before).all()      # a reordering of the same cards
    G2 = _scratch(g)
    before = [getattr(G, f).copy() for f in L.GAME_FIELDS]
    load_sample_nb(R, G, G2, seat, pool, np.uint64(seed))
    for a, b in zip(before, (getattr(G, f) for f in L.GAME_FIELDS)):
        assert (a == b).all()                  # the real state is not written
    P = g.players
    assert (_all_counts(G2, P) == _all_counts(G, P)).all()      # the same shoe
    PS, PS2 = G.ps, G2.ps
    assert (G2.hands[seat] == G.hands[seat]).all()
    for q in range(P):
        assert G2.hands[q].sum() == PS[q, L.PS_N] == PS2[q, L.PS_N]
        known = PS[q, L.PS_KNOWN0:L.PS_KNOWN0 + 53]
        assert (G2.hands[q] >= known).all()                  # known cards stay
    S, S2 = G.s, G2.s
    assert S2[L.S_STOCK_N] == S[L.S_STOCK_N] and S2[L.S_PILE_N] == S[L.S_PILE_N]
    assert (G2.pile[:S[L.S_PILE_N]] == G.pile[:S[L.S_PILE_N]]).all()
    assert S2[L.S_LOG_ON] == 0 and S2[L.S_CHECK] == 0
    return G2


@pytest.mark.parametrize("rules", ["shanghai", "contract"])
def test_samples_conserve_cards_and_keep_what_the_seat_knows(rules):
    hidden_differ = 0
    for seed in range(2):
        g = Game(rules=rules, players=4, seed=seed, bots="smart", check=True)
        k = 0
        while not g.over:
            if k % 7 == 0:
                seat = g.to_act
                G2 = _check_sample(g, seat, 1000 + k, fit=(k // 7) % 3 * 4, decl=(k // 21) % 2 * 5,
                                   unready=(k // 42) % 2)
                others = [q for q in range(4) if q != seat]
                hidden_differ += int(any((G2.hands[q] != g.G.hands[q]).any() for q in others))
            g.step()
            k += 1
    assert hidden_differ > 50           # the other hands really are resampled


def _fitted_samples(every, unready=0, nolay=0):
    """(game, seat to act, a sample dealt there with fit=8) at every ``every``-th position of
    games of four smart (``shanghai``, game seeds 0-2)."""
    from shanghai_sim.kernels.search.sample import layable_mask_nb, nolay_nb
    for seed in range(3):
        g = Game(rules="shanghai", players=4, seed=seed, bots="smart")
        k = 0
        while not g.over:
            if k % every == 0:
                R, G = g.R, g.G
                seat = g.to_act
                pool = g.workspace().ri[L.RI_POOL]
                n = unseen_pool_nb(R, G, seat, pool)
                rng = G.rng[L.RNG_BOT0 + seat].copy()
                shuffle_nb(rng, pool, n)
                fit_hands_nb(R, G, seat, pool, n, 8, 0, rng, g.workspace().scr[L.SCR_TMP],
                             g.workspace().scr[L.SCR_CAND], unready)
                if nolay:
                    nolay_nb(G, seat, pool, n, rng, layable_mask_nb(R, G))
                G2 = _scratch(g)
                load_sample_nb(R, G, G2, seat, pool, np.uint64(k))
                yield g, seat, G2
            g.step()
            k += 1


def test_unready_samples_no_other_hand_that_could_go_down():
    """A player who is not down could not meet its contract at its last turn (smart goes
    down at once): about 1.5% of such hands meet it in real games of smart (a buy since),
    but the fit deals 8% of them one that does; with unready the fit's hands that meet
    their contract are repaired, under 2% again."""
    share = {}
    for unready in (0, 1):
        ready = seen = 0
        for g, seat, G2 in _fitted_samples(3, unready=unready):
            PS = g.G.ps
            for q in range(4):
                if q != seat and PS[q, L.PS_DOWN] == 0 and PS[q, L.PS_TURNS] > 0:
                    seen += 1
                    ready += int(def_of_nb(g.R, G2, G2.hands[q].copy()) == 0)
        share[unready] = ready / seen
    assert share[0] > 0.05 and share[1] < 0.02, share


def test_nolay_samples_no_down_hand_that_could_lay_off():
    """A player who is down lays off all it can at its turn: about 6% of its cards fit the
    table in real games of smart (melds laid since), but a fitted sample deals it over 15%;
    with nolay under 2%."""
    from shanghai_sim.kernels.engine.table import card_layable_nb
    share = {}
    for nolay in (0, 1):
        lay = held = 0
        for g, seat, G2 in _fitted_samples(2, unready=1, nolay=nolay):
            for q in range(4):
                if q != seat and g.G.ps[q, L.PS_DOWN] != 0:
                    for c in range(52):
                        h = int(G2.hands[q, c])
                        held += h
                        lay += h * bool(h and card_layable_nb(g.R, G2, np.int64(c)))
        share[nolay] = lay / held
    assert share[0] > 0.15 and share[1] < 0.02, share


def _keeps(g, counts, c):
    """Whether a hand (counts) would keep card c: c in place of one of its cards (not a
    joker) lowers its deficiency (what decline_fit_nb reads as a contradiction)."""
    d0 = def_of_nb(g.R, g.G, counts)
    counts[c] += 1
    try:
        for x in range(52):
            if x != c and counts[x] > 0:
                counts[x] -= 1
                d = def_of_nb(g.R, g.G, counts)
                counts[x] += 1
                if d < d0:
                    return True
        return False
    finally:
        counts[c] -= 1


def test_samples_respect_what_the_other_seats_declined():
    """With decl=, a sampled other hand (not down) rarely would keep a card its seat
    discarded or passed in its last decl turns; uniform samples often would."""
    g = Game(rules="shanghai", players=4, seed=3, bots="smart")
    R, G = g.R, g.G
    pool = g.workspace().ri[L.RI_POOL]
    tmp = g.workspace().scr[L.SCR_TMP]
    seen = {0: [0, 0], 99: [0, 0]}
    positions = 0
    while not g.over and positions < 40:
        g.step()
        if g.phase != "play":
            continue
        seat = g.to_act
        rng = G.rng[L.RNG_BOT0 + seat].copy()
        PS = G.ps
        checks = [(q, c) for q in range(4) if q != seat and PS[q, L.PS_DOWN] == 0
                  for c in range(52) if PS[q, L.PS_DECL0 + c] > 0]
        if not checks:
            continue
        positions += 1
        for decl in (0, 99):
            for k in range(5):
                n = unseen_pool_nb(R, G, seat, pool)
                pool[:n] = np.random.default_rng(100 * positions + k).permutation(pool[:n])
                if decl:
                    fit_hands_nb(R, G, seat, pool, n, 0, decl, rng, tmp, tmp, 0)
                G2 = _scratch(g)
                load_sample_nb(R, G, G2, seat, pool, np.uint64(k))
                for q, c in checks:
                    seen[decl][0] += int(_keeps(g, G2.hands[q].copy(), c))
                    seen[decl][1] += 1
    assert positions == 40
    uniform, fitted = seen[0][0] / seen[0][1], seen[99][0] / seen[99][1]
    assert uniform > 0.1 and fitted < uniform / 3, (uniform, fitted)


def test_a_sample_ignores_the_hidden_cards():
    """The pool is built from the seat's view only: dealing the other hands' hidden cards
    anew gives the same pool and the same sample."""
    rng = np.random.default_rng(1)
    g = Game(rules="shanghai", players=4, seed=4, bots="smart")
    for _ in range(60):
        g.step()
    seat = g.to_act
    pool = g.workspace().ri[L.RI_POOL]
    n = unseen_pool_nb(g.R, g.G, seat, pool)
    want = pool[:n].copy()
    saved = _saved(g)
    _hidden_shuffled(g, seat, rng)
    assert unseen_pool_nb(g.R, g.G, seat, pool) == n and (pool[:n] == want).all()
    _restore(g, saved)


@pytest.mark.parametrize("mode", [1, 2])
def test_the_oracle_deals_its_samples_from_the_true_cards(mode):
    """The oracle (a diagnostic that cheats, off by default): every sample deals the other
    hands their true cards, and the stock in its true order (mode 2, ``oracle=deal``) or
    its own cards reshuffled (mode 1, ``oracle=hands``)."""
    g = Game(rules="shanghai", players=4, seed=4, bots="smart")
    checked = reordered = 0
    k = 0
    while not g.over and k < 300:
        if k % 5 == 0:
            seat = g.to_act
            pool = g.workspace().ri[L.RI_POOL]
            n = unseen_pool_nb(g.R, g.G, seat, pool)
            rng = g.G.rng[L.RNG_BOT0 + seat].copy()
            assert n >= 0 and oracle_pool_nb(g.G, seat, pool, n, mode, rng, g.G.hands, g.G.stock)
            G2 = _scratch(g)
            load_sample_nb(g.R, g.G, G2, seat, pool, np.uint64(k))
            assert (G2.hands[:4] == g.G.hands[:4]).all()
            sn = int(g.S[L.S_STOCK_N])
            stock, stock2 = g.G.stock[:sn], G2.stock[:sn]
            if mode == 2:
                assert (stock2 == stock).all()
            else:
                assert (np.sort(stock2) == np.sort(stock)).all()
                reordered += int((stock2 != stock).any())
            checked += 1
        g.step()
        k += 1
    assert checked == 60 and (mode == 2 or reordered == checked)


def test_the_oracle_reads_the_hidden_cards():
    """The counterpart of the seat-view test below, so that it can fail: the oracle's search
    means change when the other hands' hidden cards are dealt anew (a diagnostic: the game asks
    for it, diagnostic=True)."""
    spec = "rollout:oracle=hands:rollouts=2:candidates=2:race=0:prune=1"
    rng = np.random.default_rng(5)
    g = Game(rules="shanghai", players=4, seed=2, bots="smart", diagnostic=True)
    changed = 0
    while not g.over and changed < 3:
        seat = g.to_act
        rf = g.workspace().rf[L.RF_SUM]
        rf[:] = -1
        g.bot_action(spec)
        means = rf[:8].copy()
        saved = _saved(g)
        _hidden_shuffled(g, seat, rng)
        rf[:] = -1
        g.bot_action(spec)
        changed += int((rf[:8] != means).any())
        _restore(g, saved)
        g.step()
    assert changed == 3


def test_rollout_decides_from_its_seat_view():
    """At every decision of a game, the rollout bot's action and the means of its search are
    the same after the other hands' hidden cards and the stock are dealt anew among them and
    every other random stream replaced (its samples come from the seat's view and its own
    random stream, restored by bot_action)."""
    rng = np.random.default_rng(5)
    g = Game(rules="shanghai", players=4, seed=2, bots="smart")
    checked = searched = 0
    while not g.over and checked < 250:
        seat = g.to_act
        rf = g.workspace().rf[L.RF_SUM]
        rf[:] = -1
        want = str(g.bot_action(FAST))
        means = rf[:8].copy()
        saved = _saved(g)
        _hidden_shuffled(g, seat, rng)
        got = str(g.bot_action(FAST))
        assert got == want and (rf[:8] == means).all(), (g.view(seat), want, got)
        _restore(g, saved)
        searched += int((means != -1).any())
        checked += 1
        g.step()
    assert checked == 250 and searched > 20


def test_the_real_state_is_left_as_it_was():
    """A search reads the game and writes only its workspace, the bot scratch rows and
    the seat's bot stream: after smart's own call (which fills smart's caches), the rollout
    bot's call leaves every other array of the state as it was (logging off here: with it
    on, a search adds its event)."""
    g = Game(rules="shanghai", players=4, seed=6, bots="smart")
    searched = 0
    skip = ("scr", "buf", "rng")
    for _ in range(150):
        g.bot_action("smart")
        g.S[L.S_LOG_ON] = 0
        before = {f: getattr(g.G, f).copy() for f in L.GAME_FIELDS}
        rf = g.workspace().rf[L.RF_SUM]
        rf[:] = -1
        g.bot_action(FAST)
        searched += int((rf[:8] != -1).any())
        for f, x in before.items():
            assert f in skip or (x == getattr(g.G, f)).all(), f
        g.S[L.S_LOG_ON] = 1
        g.step()
    assert searched > 10


def test_same_seed_same_game_with_its_searches_logged():
    bots = f"{FAST},smart,smart,smart"
    ev1, rec1 = game_events("shanghai", 4, seed=11, bots=bots)
    ev2, rec2 = game_events("shanghai", 4, seed=11, bots=bots)
    assert ev1 == ev2 and (rec1 == rec2).all()
    searches = [e for e in ev1 if e["event"] == "search"]
    assert searches and all(e["seat"] == 0 for e in searches)
    assert {e["decision"] for e in searches} >= {"take", "discard"}
    for e in searches:
        assert 2 <= len(e["candidates"]) and 0 <= e["chosen"] < len(e["candidates"])
    from shanghai_sim.log import format_event
    assert "searches" in format_event(searches[0])


def test_a_close_call_doubles_its_samples():
    """kmax: a search whose best other candidate is ahead of smart's choice on the mean but
    not by z standard errors is sampled again with twice the samples, up to kmax; the log
    says how many it took. Without kmax every search takes rollouts samples."""
    fixed, _ = game_events("shanghai", 4, seed=11, bots=f"{FAST},smart,smart,smart")
    assert {e["rollouts"] for e in fixed if e["event"] == "search"} == {2}
    ev, _ = game_events("shanghai", 4, seed=11, bots=f"{FAST}:kmax=16,smart,smart,smart")
    assert parse_bot(f"{FAST}:kmax=16").name == "rollout:rollouts=2:race=0:kmax=16:candidates=2"
    searches = [e for e in ev if e["event"] == "search"]
    used = [e["rollouts"] for e in searches]
    assert set(used) <= {2, 4, 8, 16} and max(used) > 2 and used.count(2) > len(used) // 2
    for e in searches:
        means = [c["mean"] for c in e["candidates"]]
        if e["chosen"] == 0 and e["rollouts"] < 16:
            # it stopped early keeping smart's choice: no other candidate was ahead on the mean
            assert min(means[1:]) >= means[0] - 0.01


def test_a_close_search_gets_more_samples():
    """The race (version 4): every search starts with rollouts samples; a challenger that
    cannot beat smart's choice by tie points (its paired mean less z standard errors above
    -tie) drops out, one better by z standard errors is chosen, and while neither holds for
    some challenger the samples double, up to race. Checked at every search of a game from
    the workspace (each candidate's samples, mean and squared paired differences): a search
    stopped below the cap was decided by the rule, close calls took more samples than
    clear ones, and the log says how many smart's choice was played on."""
    from shanghai_sim.kernels.bots.params import BP_TIE, BP_Z
    bp = parse_bot(RACE).array()
    z, tie = bp[BP_Z], bp[BP_TIE]
    g = Game(rules="shanghai", players=4, seed=11, bots="smart")
    used = []
    while not g.over and len(used) < 60:
        if g.to_act != 0:
            g.step()
            continue
        W = g.workspace()
        W.rf[L.RF_N][:] = -1
        a = g.bot_action(RACE)
        N = W.rf[L.RF_N]
        n = int((N[:8] > 0).sum())
        if n >= 2:
            mean, dsq = W.rf[L.RF_SUM][:n], W.rf[L.RF_DSQ][:n]
            K = int(N[0])
            assert K in (2, 4, 8, 16) and all(int(x) in (2, 4, 8, 16) and x <= K for x in N[1:n])
            chosen = [int(c) for c in W.ri[L.RI_CAND][:n]].index(a.code)
            stats = []
            for i in range(1, n):
                k = int(N[i])
                if k != K:
                    continue
                d = mean[i] - mean[0]
                var = (dsq[i] / k - d * d) * k / (k - 1)
                stats.append((i, d, np.sqrt(max(var, 0.0) / k)))
            if chosen > 0:
                i, d, se = next(t for t in stats if t[0] == chosen)
                assert d + z * se < 1e-9 and d < 0
            elif K < 16:
                # every challenger still in at the last look could not beat smart's by tie
                assert all(d - z * se > -tie - 1e-9 for _, d, se in stats)
            used.append(K)
        g.apply(a)
    assert len(used) >= 20
    assert min(used) == 2 and max(used) > 2      # clear calls stop early, close ones sample more


def test_each_decision_kind_races_to_its_own_cap():
    """race_take and race_play cap the race at the upcard's take and at the discard or going
    down; buys race to race. Unset (-1), every kind races to race: the same searches."""
    caps = {"take": 2, "buy": 16, "discard": 4, "down": 4}
    ev, _ = game_events("shanghai", 4, seed=11, bots=f"{RACE}:race_take=2:race_play=4,smart,smart,smart")
    searches = [e for e in ev if e["event"] == "search"]
    assert {e["decision"] for e in searches} >= {"take", "buy", "discard"}
    assert all(e["rollouts"] <= caps[e["decision"]] for e in searches)
    assert max(e["rollouts"] for e in searches if e["decision"] == "buy") > 4
    same, _ = game_events("shanghai", 4, seed=11, bots=f"{RACE}:race_take=-1:race_play=-1,smart,smart,smart")
    plain, _ = game_events("shanghai", 4, seed=11, bots=f"{RACE},smart,smart,smart")
    assert same == plain
    # version 6 is these caps with tie 20; version 5 the race at every kind with tie 2
    assert parse_bot("rollout:race_take=16:race_play=32:tie=20").name == "rollout"
    assert (parse_bot("rollout:v=5").array() == parse_bot("rollout:tie=2:race_take=-1:race_play=-1").array()).all()


def test_equal_across_threads():
    """The batch runner's shards on 1 and on 2 threads give the same records."""
    from shanghai_sim.bots import parse_bots
    from shanghai_sim.kernels.games.batch import play_games_nb
    base = preset("shanghai")
    r = base.replace(contracts=base.contracts[:3], buys_per_hand=base.buys_per_hand[:3])
    R = r.arrays(4)
    kinds, params = parse_bots(f"{FAST},smart,smart,smart", 4, r.hands)
    seeds = np.arange(4, dtype=np.uint64) * np.uint64(7919)
    out1 = np.zeros((4, r.hands, 4, 12), np.int32)
    play_games_nb(*R, kinds, params, seeds, out1)
    import threading
    out2 = np.zeros_like(out1)

    def half(i):
        play_games_nb(*R, kinds, params, seeds[2 * i:2 * i + 2], out2[2 * i:2 * i + 2])
    ts = [threading.Thread(target=half, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert (out1 == out2).all()


def _stock_rest(g, players, pile, known_table=()):
    """The cards of the shoe not in a hand, on the table or in the pile, as a stock
    string (a fixed order), so that a scripted position conserves the cards."""
    G = g.G
    shoe = np.full(53, 2, np.int64)
    shoe[52] = 4
    used = G.hands[:players].sum(axis=0) + _table_counts(G)
    for c in parse_cards(pile):
        used[c] += 1
    rest = shoe - used
    assert (rest >= 0).all()
    cards = [c for c in range(53) for _ in range(rest[c])]
    np.random.default_rng(0).shuffle(cards)
    return " ".join(card_str(c) for c in cards)


def test_the_search_finds_a_move_smart_misses():
    """set3 set3: the next player is down with one card, a nine, that it is known to hold
    (it took it) and that fits its 9-9-9. Smart without its feed_down weight sheds KS (more
    points) though the next player
    would take it and go out at once (it fits K-K-K); discarding 3H instead leaves it a
    draw to find a fit, and this seat the turns to complete 7-7-7 or 8-8-8."""
    g, d = one_hand("set3 set3")
    a, nxt, b, c = (d + 1) % 4, (d + 2) % 4, (d + 3) % 4, d
    hands = {nxt: "9C 9D 9S KC KD KH 9H 5H", a: "4C 4D 4S 7C 7D 8C 8D KS 3H",
             b: "AC 2D 3S 5C 6D TS JC QD AH 2H 6S", c: "AD 2C 3C 5D 6C TH JD QC AS 3D 5S"}
    g.set_position(hands)
    g.set_position({}, upcard="2S", stock=_stock_rest(g, 4, "2S"), play=nxt)
    act(g, "go_down")
    act(g, "discard", "5H")
    nine = g.hand_cards(nxt)
    assert len(nine) == 1 and nine[0][0] == "9"
    g.set_position({}, pile="2S", upcard="5H", stock=_stock_rest(g, 4, "2S 5H"), play=a,
                   known={nxt: nine[0]})
    for q in (b, c):
        g.G.ps[q, L.PS_BUYS] = 3           # no buys left: nobody takes KS away from nxt
    # smart's own feed_down weight now sees this one (it keeps KS); with it off, smart's
    # choice is KS, and the search, with the same weights, finds the better discard
    assert g.bot_action("smart").card != "KS"
    assert g.bot_action("smart:feed_down=0").card == "KS"
    spec = "rollout:v=5:feed_down=0"                 # version 5's budget (a race from 16, tie 2)
    assert g.bot_action(spec).card == "3H"
    means = dict(zip(("KS", "3H"), g.workspace().rf[L.RF_SUM][:2]))
    assert means["KS"] == 40              # the next player always goes out: 4-4-4 7-7 8-8 3H left
    assert means["3H"] < 35
    assert parse_bot(spec).name == spec
    # version 6 (tie 20) drops 3H, better by some 10 points but not by 20, before it asks
    # whether 3H is told better: its known weakness (docs/rollout.md, "Version 6"); at 16
    # samples 3H is 7.5 points better on the mean, not yet by 2 standard errors
    assert g.bot_action("rollout:feed_down=0").card == "KS"


def test_the_playout_parameters_hold_the_whole_bot_vector():
    """The playouts' parameter rows (W.rf: RF_SELF, RF_OTHER) keep the seat's whole parameter
    vector through a search: the candidates' sums (RF_SUM, RF_DSQ) are written in rows of
    their own. With rows narrower than the vector (RF_W 64 < NBP 83, rollout version 1) the
    playouts read the sums as smart's weights."""
    from shanghai_sim.bots import parse_bot
    from shanghai_sim.kernels.bots.players import BUY_AUTO
    from shanghai_sim.kernels.bots.params import (BP_BUY, BP_HAND0, BP_MAXBUYS, BP_WAIT_BLIND,
                                                MAX_HAND_PARAMS, NBP)
    assert L.RF_W >= NBP
    spec = parse_bot("rollout:rollouts=4:candidates=3")
    bp = spec.array()
    g = Game(rules="shanghai", players=4, seed=2, bots="smart")
    searched = 0
    while not g.over and searched < 5:
        if g.to_act == 0:
            rf = g.workspace().rf
            rf[:] = -7.0
            g.bot_action("rollout:rollouts=4:candidates=3")
            if (rf[L.RF_SELF] != -7.0).any():              # a search ran
                searched += 1
                assert (rf[L.RF_SELF, :NBP] == bp).all()
                other = bp.copy()                       # the other seats: knobs cleared
                other[BP_BUY], other[BP_MAXBUYS], other[BP_WAIT_BLIND] = BUY_AUTO, -1, 0
                other[BP_HAND0:BP_HAND0 + MAX_HAND_PARAMS] = -1
                assert (rf[L.RF_OTHER, :NBP] == other).all()
        g.step()
    assert searched == 5
