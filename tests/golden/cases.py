"""The golden replays: one `shanghai-sim replay --json` transcript per case (docs/replay.md).

Each case is (file stem, replay arguments). The transcripts were written before the
kernels' refactor (issue #12) so that any change of play shows up as a diff. Regenerate
them only on purpose, after a deliberate change of play or of the log's fields:

    .venv/bin/python tests/golden/regen.py          # rewrites tests/golden/*.jsonl
    git diff --stat tests/golden                     # review what changed, say why in the commit
"""

CASES = [
    # shanghai: 2..5 players, greedy and random, a few rules options that change play
    ("shanghai_s11_p4_greedy", ["--seed", "11", "--rules", "shanghai", "--players", "4",
                                "--bots", "greedy"]),
    ("shanghai_s12_p2_random_greedy", ["--seed", "12", "--rules", "shanghai",
                                       "--bots", "random,greedy"]),
    ("shanghai_s13_p5_mixed", ["--seed", "13", "--rules", "shanghai",
                               "--bots", "greedy:buy=never,greedy:wait_blind=true,"
                                         "greedy:buy=always:maxbuys=1,greedy:buy8=never,greedy"]),
    ("shanghai_s14_p3_options", ["--seed", "14", "--rules", "shanghai", "--players", "3",
                                 "--rule", "go_out=either", "--rule", "same_suit_runs=gap",
                                 "--rule", "set_joker_identity=card", "--rule", "down_may_buy=true",
                                 "--bots", "greedy"]),
    ("shanghai_s15_p4_smart_greedy", ["--seed", "15", "--rules", "shanghai",
                                      "--bots", "smart:v=1,greedy,smart:v=1:buy8=never:maxbuys9=1,greedy"]),
    # smart version 2 (docs/bots.md "Version 2"), with a player who never buys in hand 8
    ("shanghai_s16_p4_smart2", ["--seed", "16", "--rules", "shanghai",
                                "--bots", "smart,smart:buy8=never,greedy,smart:v=1"]),
    # contract
    ("contract_s21_p3_greedy_random", ["--seed", "21", "--rules", "contract",
                                       "--bots", "greedy,random,greedy"]),
    ("contract_s22_p5_greedy", ["--seed", "22", "--rules", "contract", "--players", "5",
                                "--bots", "greedy"]),
    ("contract_s23_p4_options", ["--seed", "23", "--rules", "contract", "--players", "4",
                                 "--rule", "joker_limit=table", "--rule", "initial_meld=exact",
                                 "--rule", "joker_swap=down_only", "--rule", "buy_priority=turn_order",
                                 "--bots", "greedy,greedy:buy=always,random,greedy"]),
    ("contract_s24_p4_smart", ["--seed", "24", "--rules", "contract", "--bots", "smart:v=1"]),
    # progressive
    ("progressive_s31_p2_greedy", ["--seed", "31", "--rules", "progressive", "--players", "2",
                                   "--bots", "greedy"]),
    ("progressive_s32_p4_random_greedy", ["--seed", "32", "--rules", "progressive",
                                          "--bots", "random,greedy,random,greedy"]),
    ("progressive_s33_p3_options", ["--seed", "33", "--rules", "progressive", "--players", "3",
                                    "--rule", "go_out=discard_required", "--rule", "max_hand_turns=40",
                                    "--bots", "greedy:buy=always,random,greedy:wait_blind=true"]),
]
