"""How the kernels are compiled and cached: patches to numba, no game.

``cache`` (the per-user cache keyed by each module's dependency closure, the compile notice),
``linking`` (large kernels compiled once in a library of their own and called through a
pointer cell: ``separate``), ``inlining`` and ``frontend`` (cheaper inlining and analyses, the
same machine code). May import: numba and the standard library only, never another folder of
``kernels/`` (every other folder may import ``compile.linking``).
"""
