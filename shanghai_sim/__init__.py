"""shanghai-sim: simulate and analyse Shanghai Rummy.

Public API (see README):
    analyze_hand, deficiency_batch      hand analysis (docs/rules.md §6)
    Rules, preset, load_rules           rules as data (docs/rules.md §3)
    Game                                the step-by-step game API
    warmup                              compile (or load) every kernel up front

Names are imported on first use, so ``import shanghai_sim`` (and the
command's ``--help`` and ``--version``) stays fast: the numba kernels load
only when something needs them.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "Rules": "rules", "RulesError": "rules", "preset": "rules", "load_rules": "rules",
    "CardError": "cards",
    "analyze_hand": "hand", "deficiency_batch": "hand", "HandAnalysis": "hand",
    "Game": "game",
    "warmup": "precompile",
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'shanghai_sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
