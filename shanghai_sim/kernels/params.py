"""The scalar layout of the rules arrays the kernels read (``rules.RulesArrays``).

``rules.py`` builds the arrays and imports these names from here, never the
other way round, so the kernels depend on no module outside ``kernels/``
(and their cache key, ``kernels.cache``, covers every line they compile in).
numba freezes module-level integers into the machine code, so ``params[P_GO_OUT]``
costs what ``params[8]`` costs.
"""

MIN_PLAYERS, MAX_PLAYERS = 2, 8
MAX_MELDS = 8          # melds in one contract (kernel array width)
MAX_MELD_SIZE = 128    # joker_cap table length: sets may grow past 13 with many packs

# Indices into RulesArrays.params (int64). Enum values as in rules.py's IntEnums.
P_PLAYERS, P_DECKS, P_JOKERS, P_BUY_PENALTY, P_BUY_PRIORITY, P_JOKER_LIMIT, P_INITIAL_EXACT, \
    P_SAME_SUIT_GAP, P_GO_OUT, P_JOKER_SWAP, P_SET_JOKER_CARD, P_BLIND_JOKER, P_BLIND_NO_JOKER, \
    P_DOWN_MAY_BUY, P_MAX_STOCK_PASSES, P_NHANDS, P_MAX_HAND_TURNS = range(17)
NPARAMS = 17
