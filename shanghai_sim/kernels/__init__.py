"""numba kernels: numpy in, numpy out, no Python objects.

Conventions (stated once): hands are int64 count arrays of length 53 in the
layout of ``shanghai_sim.cards``; rules come in as the arrays of
``shanghai_sim.rules.RulesArrays``; randomness comes in as a 64-bit seed per
game (``rng``). Every jitted function ends in ``_nb`` and is compiled with
``cache=True``.
"""
