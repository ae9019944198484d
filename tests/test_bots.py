import numpy as np
import pytest
from click.testing import CliRunner

from shanghai_sim.bots import BOTS, BotError, parse_bot, parse_bots
from shanghai_sim.kernels.bots import BOT_GREEDY, BOT_RANDOM, BP_BUY, BP_HAND0, BP_MAXBUYS, NBP


def test_parse_canonical_names():
    assert parse_bot("random").name == "random"
    assert parse_bot("GREEDY").name == "greedy"
    b = parse_bot("greedy:maxbuys=1:buy=never:buy8=useful")
    assert b.name == "greedy:buy=never:buy8=useful:maxbuys=1"
    assert b.kind == BOT_GREEDY
    assert b.params[BP_BUY] == 0 and b.params[BP_HAND0 + 7] == 1 and b.params[BP_MAXBUYS] == 1
    assert parse_bot("greedy:wait_blind=true").name == "greedy:wait_blind=true"


@pytest.mark.parametrize("spec,needle", [
    ("smart", "valid bots: random, greedy"),
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


def test_bots_command_lists_bots_and_params():
    from shanghai_sim.cli.main import main
    r = CliRunner().invoke(main, ["bots"])
    assert r.exit_code == 0
    for name in BOTS:
        assert name in r.output
    for key in ("buy=", "buyN=", "maxbuys=", "wait_blind="):
        assert key in r.output
