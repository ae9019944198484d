"""Kernels compiled once in a library of their own: their callers call them by symbol.

numba links the LLVM module of every kernel a function calls (and of everything below
it) into that function's own module, optimises the whole module again and emits its
machine code. A kernel's compile therefore costs the size of everything under it, once
per kernel above it: the meld finder (about a third of the engine's code) sat under some
twenty kernels of a greedy game (``hand_def_nb``, ``def_of_nb``, ``can_go_down_nb``, the
swap and go-down checks, the bots' helpers, the engine) and was optimised and compiled
again in each, about 8 s a time on this machine. Its fast paths and general search are
now separate (``deficiency_ws_nb`` itself, small and called often, stays linked).

``separate(kernel)`` marks a kernel whose callers do not take a copy of its code: they
only declare its symbol, and numba's JIT resolves it against the kernel's own compiled
code, registered with ``llvmlite.binding.add_symbol`` when that code is compiled or
loaded from the cache. The machine code is the kernel's own; only the call cannot be
inlined by LLVM any more, so mark only large kernels that do much work per call
(``deficiency_ws_nb`` marked separate cost greedy games about 4%: many of its calls are cheap).

Order of loading: a caller's machine code can be loaded once the symbols it calls are
known. In a compile that holds, as typing the call compiles (or loads) the callee first.
A caller loaded from the cache in a new process declares the callee's symbols in its
object code: before loading it, ``_load_overload`` below loads the callee's cached
signatures; if a symbol is still missing (a callee's cache entry gone), the cached caller
is not used and numba compiles it again, which compiles the callee as well.
"""

from __future__ import annotations

import inspect
import re

import llvmlite.binding as ll
import numba
from numba.core import base as _base
from numba.core import caching as _caching
from numba.core import dispatcher as _dispatcher

_SEPARATE: dict[tuple[str, str], object] = {}     # (module, qualname) -> dispatcher
_PREFIXES: dict[bytes, object] = {}               # mangled-name prefix -> dispatcher
_LOADED: set[str] = set()                         # symbols registered with the JIT
_PATTERN: re.Pattern | None = None


def _mangled_prefix(module: str, qualname: str) -> bytes:
    """The start of numba's (Itanium) mangled name of every signature of this function."""
    return ("_ZN" + "".join(f"{len(p)}{p}" for p in f"{module}.{qualname}".split("."))).encode()


# The numba this was written against and tested with (tests/test_compile.py): the patches
# below replace or wrap numba internals and read its cache records' layout. With any other
# numba they are not installed and ``separate`` marks nothing: every kernel is linked into
# its callers as numba does by default (the same results, only a longer first compile).
TESTED_NUMBA = ((0, 68),)
_LOAD_OVERLOAD_LINES = (
    "if not self._enabled:",
    "key = self._index_key(sig, target_context.codegen())",
    "data = self._cache_file.load(key)",
    "data = self._impl.rebuild(target_context, data)",
)


def patchable() -> bool:
    """Whether this numba is one the patches were tested with (version and source)."""
    try:
        version = tuple(int(x) for x in numba.__version__.split(".")[:2])
        src = inspect.getsource(_caching.Cache._load_overload)
        insert = list(inspect.signature(_base.BaseContext.insert_user_function).parameters)
        overload = list(inspect.signature(_dispatcher.Dispatcher.add_overload).parameters)
    except (ValueError, OSError, TypeError, AttributeError):
        return False
    return (version in TESTED_NUMBA and all(line in src for line in _LOAD_OVERLOAD_LINES)
            and insert == ["self", "func", "fndesc", "libs"] and overload == ["self", "cres"])


def separate(kernel):
    """Decorator, above ``@nb.njit``: callers call this kernel's own compiled code by symbol
    instead of linking (and optimising and compiling again) a copy of it. A no-op with a
    numba the patches were not tested with (``patchable``)."""
    global _PATTERN
    if not install():
        return kernel
    f = kernel.py_func
    key = (f.__module__, f.__qualname__)
    _SEPARATE[key] = kernel
    _PREFIXES[_mangled_prefix(*key)] = kernel
    _PATTERN = re.compile(b"(?:" + b"|".join(re.escape(p) for p in _PREFIXES) + b")[A-Za-z0-9_$]*")
    return kernel


def _register(cres) -> None:
    fd = cres.fndesc
    if (fd.modname, fd.qualname) in _SEPARATE and fd.mangled_name not in _LOADED:
        addr = cres.library.get_pointer_to_function(fd.mangled_name)
        if addr:
            ll.add_symbol(fd.mangled_name, addr)
            _LOADED.add(fd.mangled_name)


def _callees_loaded(data, own) -> bool:
    """Load the separate kernels whose symbols a cached library's object code names (all
    their cached signatures); whether every such symbol is then known to the JIT."""
    try:
        obj = data[0][2][0]           # CompileResult._reduce: (libdata, ...); libdata (name, 'object', (obj, bitcode))
    except (IndexError, TypeError):
        return True
    if not isinstance(obj, (bytes, bytearray)):
        return True
    for m in set(_PATTERN.findall(obj)):
        name = m.decode()
        if name in _LOADED:
            continue
        disp = next(d for p, d in _PREFIXES.items() if m.startswith(p))
        if disp.py_func is own:
            continue                  # the kernel's own definition
        cache = getattr(disp, "_cache", None)
        if cache is not None:
            for key in list(cache._cache_file._load_index()):
                try:
                    disp.compile(key[0])
                except Exception:     # noqa: BLE001  (a stale entry: the caller then compiles)
                    pass
        if name not in _LOADED:
            return False
    return True


_INSTALLED = False


def install() -> bool:
    """Patch numba (idempotent): no linking of separate kernels into callers, their symbols
    registered once compiled or loaded, cached callers loaded after their callees. Whether
    it is patched (not with a numba it was not tested with)."""
    global _INSTALLED
    if _INSTALLED:
        return True
    if not patchable():
        return False
    _INSTALLED = True

    insert = _base.BaseContext.insert_user_function

    def insert_user_function(self, func, fndesc, libs=()):
        if (fndesc.modname, fndesc.qualname) in _SEPARATE:
            libs = ()
        return insert(self, func, fndesc, libs)

    _base.BaseContext.insert_user_function = insert_user_function

    add_overload = _dispatcher.Dispatcher.add_overload

    def add_overload_registered(self, cres):
        add_overload(self, cres)
        _register(cres)

    _dispatcher.Dispatcher.add_overload = add_overload_registered

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        data = self._cache_file.load(key)
        if data is None:
            return None
        if _PATTERN is not None and not _callees_loaded(data, self._py_func):
            return None
        return self._impl.rebuild(target_context, data)

    _caching.Cache._load_overload = _load_overload
    return True
