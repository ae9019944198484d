"""numba kernels: numpy in, numpy out, no Python objects.

Conventions (stated once): hands are int64 count arrays of length 53 in the
layout of ``shanghai_sim.cards``; rules come in as the arrays of
``shanghai_sim.rules.RulesArrays``; randomness comes in as a 64-bit seed per
game (``rng``). Every jitted function ends in ``_nb`` and is compiled with
``cache=True``.

Reference counting: a kernel that allocates nothing and returns no array is
compiled with ``_nrt=False`` (numba's switch for its runtime's reference
counts). Otherwise every call of a function that takes the rules and state
tuples atomically increments and decrements the count of each of their 28
arrays, which cost more than the work of most of these helpers (measured:
engine 57 -> 90 greedy games/s). Kernels that allocate say ``_nrt=True``
explicitly: a callee without the flag inherits its caller's, and numba keeps
one compiled version per signature whichever caller came first. So every
kernel states it, and a kernel compiled with ``_nrt=False`` must never return
an array or call one that does (its count would be lost, or dropped twice).

Caching: every kernel is cached per user, keyed by the source's content, not
beside the installed files (``kernels.cache``); a compile longer than a second
says so on stderr with its elapsed time.
"""

from .cache import install_compile_notice, install_locator

install_locator()
install_compile_notice()
