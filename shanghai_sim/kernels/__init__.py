"""numba kernels: numpy in, numpy out, no Python objects.

Conventions (stated once): hands are int64 count arrays of length 53 in the
layout of ``shanghai_sim.cards``; rules come in as the arrays of
``shanghai_sim.rules.RulesArrays``; randomness comes in as a 64-bit seed per
game (``rng``). Every jitted function is compiled with ``cache=True``; a public
kernel's name ends in ``_nb`` (a few small inlined helpers, such as ``codes.a_type`` and
``state.add_card``, do not; docs/DEVELOPING.md lists them).

Reference counting: a kernel that allocates nothing and returns no array is
compiled with ``_nrt=False`` (numba's switch for its runtime's reference
counts). Otherwise every call of a function that takes the rules and state
tuples atomically increments and decrements the count of each of their arrays
(8 in R, 22 in G), which cost more than the work of most of these helpers (measured
at f2f6dc4: engine 57 -> 127 greedy games/s, docs/DEVELOPING.md). Kernels that allocate
say ``_nrt=True`` explicitly: a callee without the flag inherits its caller's, and numba
keeps one compiled version per signature whichever caller came first. So every kernel
that is not inlined states it (an ``inline="always"`` helper becomes part of its caller
and needs none), and a kernel compiled with ``_nrt=False`` must never return
an array or call one that does (its count would be lost, or dropped twice).

Compile time: numba compiles a non-inlined callee once per distinct tuple of argument
types, and a literal argument (``f(x, 0)``, or a counter started at ``0`` whose type is
still ``Literal[int](0)`` when type inference first reaches the call) is a type of its own.
Such literals cost a compile each and are never used at run time (one fast-path helper
was compiled 12 times, 188 s of a 715 s first use). So a value passed to a non-inlined
kernel is an int64 variable: counters start at ``np.int64(0)``, constants are
``np.int64(...)``, and one call site serves several cases. The engine takes the search
bots' workspace W, or None for a line-up without a search bot: numba then prunes the
search branch unseen (``kernels.games.dispatch``); the smart bot likewise with SM. Two more
cuts: the largest kernels under many callers are compiled once in a library of their own
and called through a pointer cell (``kernels.compile.linking``: numba otherwise re-optimises and
re-emits a callee's code inside every caller), their callers typed from a declared return
type without waiting for them (so two processes can compile the two ends of an engine at
once), and numba's inliner runs a callee's untyped passes once per function and copies its
IR once instead of block by block twice (``kernels.compile.inlining``; same machine code), and two
of numba's
analyses that grow with an inlined body run on bit sets and on the blocks that matter
(``kernels.compile.frontend``; the same IR).

Caching: every kernel is cached per user, keyed by the source's content, not
beside the installed files (``kernels.compile.cache``); a compile longer than a second
says so on stderr with its elapsed time.
"""

from .compile.cache import install_compile_notice, install_locator
from .compile.frontend import install as install_frontend
from .compile.inlining import install as install_inlining
from .compile.linking import install as install_linking

install_locator()
install_compile_notice()
install_inlining()
install_frontend()
install_linking()
