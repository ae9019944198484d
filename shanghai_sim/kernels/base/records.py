"""Record layouts the game kernels fill and the batch runner reads.

hand_out: int32[n_games, hands, players, NHF], one row per game x hand x seat
(seat = position at the table, 0..players-1; the first dealer is drawn from
the game seed and the deal moves one seat left each hand, docs/rules.md §5.1).

Fields (last axis):
  HF_DEALER        dealer seat of that hand
  HF_DOWN_TURN     the seat's own turn number in the hand (1 = its first turn)
                   on which it went down; -1 if it never went down
  HF_WENT_OUT      1 if this seat went out (emptied its hand), else 0
  HF_BUYS          buys made by this seat in the hand
  HF_BUY_CARDS     cards taken by buying (each bought upcard + its penalty cards)
  HF_POINTS        hand score (points of cards left; blind bonus included)
  HF_CARDS_LEFT    cards left in hand when the hand ended
  HF_JOKERS_LEFT   jokers among them
  HF_TURNS         turns this seat took in the hand
  HF_STOCK_PASSES  stock passes (reshuffles) in the hand (same for every seat)
  HF_BLIND         1 if this seat went out blind (docs/rules.md §3 blind_bonus), else 0
  HF_STOPPED       how the hand ended (same for every seat), a code of codes.ENDINGS:
                   END_OUT a player went out, END_STOCK stopped by the stock (docs/rules.md
                   §5.5: max_stock_passes used up or nothing to reshuffle), END_TURN_CAP
                   stopped by the turn cap (the rules' max_hand_turns, §5.8; no winner,
                   everybody scores their cards)
"""

HF_DEALER = 0
HF_DOWN_TURN = 1
HF_WENT_OUT = 2
HF_BUYS = 3
HF_BUY_CARDS = 4
HF_POINTS = 5
HF_CARDS_LEFT = 6
HF_JOKERS_LEFT = 7
HF_TURNS = 8
HF_STOCK_PASSES = 9
HF_BLIND = 10
HF_STOPPED = 11
NHF = 12

HAND_FIELDS = ("dealer", "down_turn", "went_out", "buys", "buy_cards", "points", "cards_left",
               "jokers_left", "turns", "stock_passes", "blind", "stopped")
