"""shanghai-sim: simulate and analyse Shanghai Rummy.

Public API (see README):
    analyze_hand, deficiency_batch      hand analysis (RULES.md §6)
    Rules, preset, load_rules           rules as data (RULES.md §3)
"""

__version__ = "0.1.0"

from .rules import Rules, RulesError, preset, load_rules  # noqa: E402
from .cards import CardError  # noqa: E402
from .hand import analyze_hand, deficiency_batch, HandAnalysis  # noqa: E402
from .game import Game  # noqa: E402

__all__ = ["Rules", "RulesError", "CardError", "preset", "load_rules", "analyze_hand",
           "deficiency_batch", "HandAnalysis", "Game", "__version__"]
