/* The pages' Help: the entries of docs/glossary.md's sections "At the table", "The bots' search", "Rules and presets", "Bots".
   Written by python -m shanghai_sim.web.glossary from docs/glossary.md: edit that file, not this one. */
var GLOSSARY = [
{
"section": "At the table",
"term": "hand",
"text": "One deal played out, from the deal until someone goes out (or the hand is stopped). A game is a fixed number of hands (10 under shanghai), each with its own contract and deal size; the scores of all hands add up to the totals."
},
{
"section": "At the table",
"term": "contract",
"text": "What every player must lay down to go down in this hand, written as meld tokens: set3 run4 is one set of at least 3 cards and one run of at least 4 cards (exactly 3 and 4 under initial_meld = exact); set3 set3 set3 run5 is three sets and a run. Each hand has its own contract (rules.md §2). Not to be confused with the preset named contract (see preset)."
},
{
"section": "At the table",
"term": "set",
"text": "Three or more cards of one rank, suits free and repeatable (several packs are shuffled together): 8C 8C 8H is a set (rules.md §4)."
},
{
"section": "At the table",
"term": "run",
"text": "Four or more cards of one suit in consecutive ranks, 4C 5C 6C 7C; the ace is low or high but runs do not wrap around (rules.md §4)."
},
{
"section": "At the table",
"term": "meld",
"text": "A set or a run laid on the table. Melds are numbered on the table (meld 0, meld 1, ...) so that a lay-off can name the one it goes on."
},
{
"section": "At the table",
"term": "joker",
"text": "JK: stands for any card in a meld; in a run its place fixes what it stands for (3S 4S JK 6S: the joker is the 5 of spades). How many jokers one meld may hold is the rules' joker limit. A joker left in hand costs 25 points."
},
{
"section": "At the table",
"term": "deal",
"text": "The cards each player gets at the start of a hand (11 in every hand of shanghai). The dealer moves one seat to the left each hand; the player at the dealer's left plays first."
},
{
"section": "At the table",
"term": "upcard",
"text": "The card lying face up on the discard pile: the first card turned after the deal, then each discard. It is offered once, before the next player draws: the next player may take it as their draw (first refusal); if they pass, the others may buy it."
},
{
"section": "At the table",
"term": "stock",
"text": "The face-down cards players draw from. When it runs out the pile (less the upcard) is shuffled into a new stock: a stock pass. When no more passes are allowed the hand is stopped."
},
{
"section": "At the table",
"term": "pile",
"text": "The discard pile. Only its top card, the upcard, can be taken; the cards under it are dead until a stock pass shuffles them back in."
},
{
"section": "At the table",
"term": "first refusal",
"text": "The right of the next player (not yet down) to take the upcard as their draw, at no cost. If they take it, nobody can buy it."
},
{
"section": "At the table",
"term": "buy",
"text": "Claiming the upcard out of turn: the buyer takes it together with penalty cards from the stock (2 under shanghai). Each player has a few buys per hand (3 under shanghai, 4 in the last two hands); \"buys left\" counts what remains. A player who is down may not buy (in every preset). Buying gets the cards a contract needs, at the price of more cards (and points) in hand (rules.md §5.4)."
},
{
"section": "At the table",
"term": "penalty card",
"text": "A card from the stock that a buyer must take along with the upcard (rules option buy_penalty). Other players do not see which cards they are."
},
{
"section": "At the table",
"term": "going down",
"text": "Laying the contract down from your hand on your own turn, after drawing: exactly the melds the contract lists. A player who has gone down is down: from then on they only lay off and discard, and never buy."
},
{
"section": "At the table",
"term": "lay off",
"text": "Adding a card from your hand to a meld on the table, yours or another player's: a card of a set's rank to that set, or a card extending a run at either end. Only a player who is down may lay off."
},
{
"section": "At the table",
"term": "swap",
"text": "Putting a natural card in place of the table joker that stands for it; the joker goes to your hand."
},
{
"section": "At the table",
"term": "discard",
"text": "Ending your turn by putting one card face up on the pile: it becomes the upcard."
},
{
"section": "At the table",
"term": "going out",
"text": "Getting rid of your last card in a way the rules allow (under shanghai: by laying it off or melding it, never by discarding). The hand ends at once; the player who went out scores 0."
},
{
"section": "At the table",
"term": "blind",
"text": "Going down and out in the same turn, without having been down before. Under the contract preset it earns a bonus (-50 points, -25 with a joker)."
},
{
"section": "At the table",
"term": "deficiency",
"text": "How far a hand is from the contract: the fewest cards that would have to be added to it before it could lay the contract down. Deficiency 0 means you can go down now (rules.md §6). Taking or buying a card that lowers it brings you closer; a discard that raises it sets you back."
},
{
"section": "At the table",
"term": "deadwood",
"text": "The points of the cards that would stay in your hand after laying the contract down the best way: what you would still risk if the hand ended then."
},
{
"section": "At the table",
"term": "points",
"text": "What each card left in a hand costs when the hand ends: 2s 20, 3 to 9 5, tens and faces 10, aces 15 (20 under contract), jokers 25. A hand's points for a player are the sum over the cards they hold at its end (0 for the player who went out); lower is better."
},
{
"section": "At the table",
"term": "total",
"text": "A player's points summed over the hands played so far. After the last hand the lowest total wins; equal lowest totals share the win."
},
{
"section": "At the table",
"term": "stopped hand",
"text": "A hand that ended with nobody going out: the stock ran out and no stock pass was left (stock), or the hand reached the turn cap (turn_cap). Everybody scores the cards they hold; the studies count these hands apart."
},
{
"section": "At the table",
"term": "hint",
"text": "What the strongest built-in bot (smart) would do now, and why, in one line. Asking for it does not change the game."
},
{
"section": "The bots' search",
"term": "search",
"text": "A decision the rollout bot thought about: it lists a few candidate actions, plays the hand out many times from each (guessing the cards it cannot see), and compares the outcomes. The replay page's search panel shows each search."
},
{
"section": "The bots' search",
"term": "candidate",
"text": "One action a search compared (take or pass, buy or pass, a discard, go down or wait). The first candidate is smart's own choice: the search keeps it unless another is clearly better."
},
{
"section": "The bots' search",
"term": "samples",
"text": "How many times the hand was played out from a candidate, each time on a fresh guess of the hidden cards (the same guesses for every candidate)."
},
{
"section": "The bots' search",
"term": "mean",
"text": "A candidate's average outcome over its samples: the searching player's points for the hand, by default. Lower is better."
},
{
"section": "The bots' search",
"term": "diff",
"text": "A candidate's mean less the first candidate's, on the same samples (a paired difference). Negative: it did better than smart's choice there."
},
{
"section": "The bots' search",
"term": "se",
"text": "The standard error of the diff: how much the diff could move by chance with this many samples. A diff of -3 with an se of 2 is not convincing."
},
{
"section": "The bots' search",
"term": "margin",
"text": "How many points a candidate's diff must be below zero to replace smart's choice (0 by default). A candidate replaces it only when its diff is below minus the margin and its diff plus z standard errors is still below zero."
},
{
"section": "The bots' search",
"term": "z",
"text": "How many standard errors of doubt the search allows (2 by default): a candidate whose diff + z x se is not below 0 could be no better than smart's choice, so smart's choice is kept even if its mean is lower."
},
{
"section": "The bots' search",
"term": "race",
"text": "The search's budget rule: a few samples first (16), then twice as many while a candidate is neither clearly better nor clearly out, up to a cap. A challenger whose diff - z x se is above -tie drops out early (it cannot beat smart's choice by tie points), so it has fewer samples."
},
{
"section": "The bots' search",
"term": "tie",
"text": "The race's drop-out line: a challenger that cannot be better than smart's choice by this many points (20 by default) is no longer sampled."
},
{
"section": "Rules and presets",
"term": "preset",
"text": "A complete, named set of rules: shanghai (the default), contract and progressive (rules.md §1). The preset named contract is a set of rules (Go Camping America's); a hand's contract is what must be laid down in that hand. --rules contract picks the preset."
},
{
"section": "Rules and presets",
"term": "rules option",
"text": "One setting of the rules (buy_penalty, go_out, contracts, ...), changed with --rule NAME=VALUE or a TOML rules file (rules.md §3 and §7)."
},
{
"section": "Rules and presets",
"term": "turn cap",
"text": "The most turns a hand may last (max_hand_turns, 3000): a hand that reaches it is stopped (rules.md §5.8)."
},
{
"section": "Rules and presets",
"term": "stock pass",
"text": "Shuffling the pile (less the upcard) into a new stock when the stock is empty; max_stock_passes limits how many per hand (rules.md §5.5)."
},
{
"section": "Bots",
"term": "bot spec",
"text": "How a bot is named on the command line: its name, then options after colons, smart, greedy:buy=never, rollout:v=5 (shanghai-sim bots lists them)."
},
{
"section": "Bots",
"term": "greedy, smart, rollout",
"text": "The built-in bots. greedy lowers its deficiency and nothing more (the baseline); smart also counts the cards it has not seen, its points and what the next player needs (docs/bots.md); rollout searches the decisions that matter by playing them out, over smart (docs/rollout.md)."
}
];
