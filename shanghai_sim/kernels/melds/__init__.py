"""The meld finder: whether a hand meets its contract, its deadwood and its deficiency
(docs/rules.md §6), with sets, runs, wild jokers, ace high or low and joker limits; the
lay-down search; the memo of answers. ``finder`` is its front (what the engine and
``shanghai_sim.hand`` call); the other modules are its fast paths and search. May import:
``base/`` and ``compile/``.
"""
