"""The rules arrays' layout, kept for imports written before ``kernels.layout`` held it."""

from .layout import (MAX_MELD_SIZE, MAX_MELDS, MAX_PLAYERS, MIN_PLAYERS, NPARAMS,  # noqa: F401
                     P_BLIND_JOKER, P_BLIND_NO_JOKER, P_BUY_PENALTY, P_BUY_PRIORITY, P_DECKS,
                     P_DOWN_MAY_BUY, P_GO_OUT, P_INITIAL_EXACT, P_JOKER_LIMIT, P_JOKER_SWAP,
                     P_JOKERS, P_MAX_HAND_TURNS, P_MAX_STOCK_PASSES, P_NHANDS, P_PLAYERS,
                     P_SAME_SUIT_GAP, P_SET_JOKER_CARD)
