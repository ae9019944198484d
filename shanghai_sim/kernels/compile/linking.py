"""Kernels compiled once in a library of their own: their callers call them by symbol.

numba links the LLVM module of every kernel a function calls (and of everything below
it) into that function's own module, optimises the whole module again and emits its
machine code. A kernel's compile therefore costs the size of everything under it, once
per kernel above it: the meld finder (about a third of the engine's code) sat under some
twenty kernels of a greedy game (``hand_def_nb``, ``def_of_nb``, ``can_go_down_nb``, the
swap and go-down checks, the bots' helpers, the engine) and was optimised and compiled
again in each, about 8 s a time on this machine. Its fast paths and general search are
now separate (``deficiency_ws_nb`` itself, small and called often, stays linked).

``separate(kernel)`` marks a kernel whose callers do not take a copy of its code: they call
it through its *cell*, a pointer with a symbol of its own (``_shsep...``: the kernel's name
and a hash of the argument types, the same in every process) given to the JIT with
``llvmlite.binding.add_symbol``; the cell points at the kernel's own machine code once that
is compiled or loaded. Only the call cannot be inlined by LLVM, so mark only large kernels
that do much work per call (``deficiency_ws_nb`` marked separate cost greedy games about 4%:
many of its calls are cheap).

Callers do not wait for it. numba types a call by compiling the callee first, for its
return type; a separate kernel declares its return type (``@separate`` is int64,
``@separate(returns=nb.boolean)``; checked when the kernel is compiled), so a caller is
typed, lowered and compiled without it, and the outermost compile, once done, compiles (or
loads) every kernel whose cell is still empty before anything can call it (until then a
cell points at numba's stand-in that raises RuntimeError). So a command compiles its engine
from the top while a second process compiles the kernels below (``compiling.engine_helper``:
the command announces each cell it makes in a file, :func:`announce_to`, which the helper
reads, :func:`compile_announced`); the engine no longer waits for the meld finder.

A cached caller's object code names its cells. Their argument types are kept beside the
callee's cache index (``<index>.<hash>.cell``), so loading the caller makes the cells and the
callees are loaded (or compiled) at the end of that compile; without those types (a callee's
cache files gone) the cached caller is not used and numba compiles it again.

Two more cuts of every compile of this package's kernels (``install``): a kernel compiled for
another kernel (while that one compiles, or to fill a cell) gets no CPython or C wrapper,
which only Python calls use (see ``NO_WRAPPERS``); and Python's garbage collector pauses
while a compile runs (``_collector_paused``).
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import gc
import hashlib
import inspect
import os
import pickle
import re
import threading
import time

import llvmlite.binding as ll
import numba
from numba.core import base as _base
from numba.core import caching as _caching
from numba.core import codegen as _codegen
from numba.core import dispatcher as _dispatcher
from numba.core import event as _event
from numba.core import sigutils as _sigutils
from numba.core import typed_passes as _typed_passes
from numba.core import types as _types
from numba.core import typing as _typing

_SEPARATE: dict[tuple[str, str], object] = {}     # (module, qualname) -> dispatcher
_RETURNS: dict[object, object] = {}               # their Python functions -> declared return type
_PREFIXES: dict[str, object] = {}                 # cell-name prefix -> dispatcher
_CELLS: dict[str, ctypes.c_void_p] = {}           # cell symbol -> the pointer it holds
_CELL_OF: dict[str, tuple] = {}                   # cell symbol -> (dispatcher, argument types)
_ABORT: int | None = None
_ANNOUNCE = None                                  # announce_to(): where new empty cells are written
_NO_FUNCTION_PASSES: set[str] = set()             # libraries (kernel names) not given them
_UNFILLABLE: set[str] = set()                     # cells whose kernel failed to compile
_HELPER = False                                   # compile_announced() runs in this process
_PATTERN: re.Pattern | None = None


def _mangled_prefix(module: str, qualname: str) -> bytes:
    """The start of numba's (Itanium) mangled name of every signature of this function."""
    return ("_ZN" + "".join(f"{len(p)}{p}" for p in f"{module}.{qualname}".split("."))).encode()


# The numba this was written against and tested with (tests/test_compile.py): the patches
# below replace or wrap numba internals and read its cache records' layout. With any other
# numba they are not installed and ``separate`` marks nothing: every kernel is linked into
# its callers as numba does by default (the same results, only a longer first compile).
TESTED_NUMBA = ((0, 68),)
COMPILE_EVENT = "custom/shanghai_sim:compile"    # a whole compile: the outermost kernel and the cells
_TEMPLATE_LINES = (
    "pysig, args = self._compiler.fold_argument_types(args, kws)",
    "self.compile(tuple(args))",
)
_FUNCTION_PASS_LINES = (
    "ll_module.data_layout = self._codegen._data_layout",
    "fpm, pb = self._codegen._function_pass_manager()",
    "fpm.run(func, pb)",
)
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
        tsrc = inspect.getsource(_dispatcher.Dispatcher.get_call_template)
        fsrc = inspect.getsource(_codegen.CPUCodeLibrary._optimize_functions)
        getf = list(inspect.signature(_base.BaseContext.get_function).parameters)
        overload = list(inspect.signature(_dispatcher.Dispatcher.add_overload).parameters)
        _base._wrap_impl                                         # noqa: B018
    except (ValueError, OSError, TypeError, AttributeError):
        return False
    return (version in TESTED_NUMBA and all(line in src for line in _LOAD_OVERLOAD_LINES)
            and all(line in tsrc for line in _TEMPLATE_LINES)
            and all(line in fsrc for line in _FUNCTION_PASS_LINES)
            and getf == ["self", "fn", "sig", "_firstcall"] and overload == ["self", "cres"])


def separate(kernel=None, *, returns=_types.int64, function_passes=True):
    """Decorator, above ``@nb.njit``: callers call this kernel's own compiled code through its
    cell instead of linking (and optimising and compiling again) a copy of it, and they are
    typed from ``returns`` (a numba type, checked when the kernel is compiled) without
    compiling it first. ``@separate`` or ``@separate(returns=nb.boolean)``.

    ``function_passes=False``: numba optimises each function of a new library on its own
    (LLVM's function passes, at ``NUMBA_OPT``) before it optimises the whole module; for the
    engine's one very large function that first round is most of its LLVM time and the
    module's own passes give code that plays as fast (BENCHMARKS.md), so it is skipped.

    A no-op with a numba the patches were not tested with (``patchable``)."""
    global _PATTERN
    if kernel is None:
        return lambda k: separate(k, returns=returns, function_passes=function_passes)
    if not install():
        return kernel
    f = kernel.py_func
    key = (f.__module__, f.__qualname__)
    _SEPARATE[key] = kernel
    _RETURNS[f] = returns
    if not function_passes:
        _NO_FUNCTION_PASSES.add(f.__qualname__)
    _PREFIXES[_cell_prefix(*key)] = kernel
    _PATTERN = re.compile(b"(?:" + b"|".join(re.escape(p.encode()) for p in _PREFIXES) + b")[0-9a-f]{16}")
    return kernel


def _cell_prefix(module: str, qualname: str) -> str:
    return "_shsep" + _mangled_prefix(module, qualname).decode() + "_"


def _cell_name(disp, args) -> str:
    """The symbol of the pointer cell through which callers call ``disp`` compiled for
    ``args``: the kernel's name and a hash of the argument types (the same in every process)."""
    f = disp.py_func
    digest = hashlib.sha256(str(tuple(args)).encode()).hexdigest()[:16]
    return _cell_prefix(f.__module__, f.__qualname__) + digest


def _abort_address() -> int:
    """numba's stand-in for a function not loaded yet: it raises RuntimeError ("aborted due
    to unresolved symbol"), whatever the arguments (numba's own recursion uses it so)."""
    global _ABORT
    if _ABORT is None:
        from numba.core.runtime import rtsys
        _ABORT = rtsys.library.get_pointer_to_function("nrt_unresolved_abort")
    return _ABORT


def _cell(disp, args) -> str:
    """The cell of ``disp`` for ``args``, made and given to the JIT as a symbol if new (it
    points at :func:`_abort_address` until the kernel is compiled or loaded)."""
    name = _cell_name(disp, args)
    if name not in _CELLS:
        cell = ctypes.c_void_p(_abort_address())
        ll.add_symbol(name, ctypes.addressof(cell))
        _CELLS[name] = cell
        _CELL_OF[name] = (disp, tuple(args))
    return name


def _check_return(cres) -> None:
    """A separate kernel must return what it declares (its callers were typed from that):
    checked before numba adds the compiled kernel to its dispatcher."""
    fd = cres.fndesc
    disp = _SEPARATE.get((fd.modname, fd.qualname))
    if disp is None:
        return
    declared = _RETURNS[disp.py_func]
    if cres.signature.return_type != declared:
        raise TypeError(f"{fd.modname}.{fd.qualname} is declared to return {declared} "
                        f"(kernels.compile.linking.separate) but returns {cres.signature.return_type}")


def _register(cres) -> None:
    """A separate kernel just compiled or loaded: its cell now points at its code."""
    fd = cres.fndesc
    disp = _SEPARATE.get((fd.modname, fd.qualname))
    if disp is None:
        return
    name = _cell(disp, fd.argtypes)
    if _CELLS[name].value == _abort_address():
        _CELLS[name].value = cres.library.get_pointer_to_function(fd.mangled_name)


def _cell_file(disp, name: str) -> "str | None":
    """Where the argument types of cell ``name`` of cached kernel ``disp`` are kept, beside
    the kernel's cache index (None: the kernel is not cached)."""
    path = getattr(getattr(getattr(disp, "_cache", None), "_cache_file", None), "_index_path", None)
    return None if path is None else f"{path}.{name[-16:]}.cell"


def _remember(disp, args, name: str) -> None:
    """Keep the argument types of a cell a caller's code names, so that a process that
    loads the cached caller can compile the callee for them."""
    path = _cell_file(disp, name)
    if path is None or os.path.exists(path):
        return
    try:
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            pickle.dump(tuple(args), f)
        os.replace(tmp, path)
    except OSError:
        pass


def _callees_loaded(data) -> bool:
    """Make the cells a cached library's object code names (empty: the outermost compile
    fills them when it is done). Whether every such cell is known: its argument types are
    kept beside the callee's cache index (:func:`_remember`); without them the cached
    caller is not used (numba compiles it again, which makes the cell)."""
    try:
        obj = data[0][2][0]           # CompileResult._reduce: (libdata, ...); libdata (name, 'object', (obj, bitcode))
    except (IndexError, TypeError):
        return True
    if not isinstance(obj, (bytes, bytearray)):
        return True
    for m in set(_PATTERN.findall(obj)):
        name = m.decode()
        if name in _CELLS:
            continue
        disp = next(d for p, d in _PREFIXES.items() if name.startswith(p))
        path = _cell_file(disp, name)
        try:
            with open(path, "rb") as f:
                args = pickle.load(f)
        except (OSError, TypeError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return False
        if _cell_name(disp, args) != name:
            return False
        _cell(disp, args)
    return True


def _call_separate(disp):
    """The lowering of a call of separate kernel ``disp``: load the function pointer from its
    cell and call it with numba's calling convention (as numba's ``user_function`` does
    with a declared symbol)."""
    from numba.core import cgutils
    from numba.core.imputils import impl_ret_new_ref
    from llvmlite import ir

    restype = _RETURNS[disp.py_func]

    def imp(context, builder, sig, args):
        new = _cell_name(disp, sig.args) not in _CELLS
        name = _cell(disp, sig.args)
        _remember(disp, sig.args, name)
        if new and _ANNOUNCE is not None and _CELLS[name].value == _abort_address():
            _announce(disp, sig.args)
        fnty = context.call_conv.get_function_type(restype, sig.args)
        module = builder.module
        gv = module.globals.get(name)
        if gv is None:
            gv = ir.GlobalVariable(module, fnty.as_pointer(), name=name)
            gv.linkage = "external"
        fn = builder.load(gv)
        status, retval = context.call_conv.call_function(builder, fn, restype, sig.args, args)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return impl_ret_new_ref(context, builder, restype, retval)

    return imp


def _fill_cells() -> None:
    """Compile (or load) every separate kernel whose cell a compiled or loaded caller names
    and that is not loaded yet, so nothing calls numba's stand-in: the last found first (a
    helper reading the announcements takes the first found first). The kernels another
    process is compiling now (``kernels.compile.cache``'s locks) come last: the others are compiled
    meanwhile, and those are then loaded from the cache once that process has saved them.
    A helper (:func:`compile_announced`), which runs nothing, leaves those to that process."""
    from .cache import compiling_elsewhere
    skipped: set[str] = set()
    while True:
        todo = [n for n, c in _CELLS.items()
                if c.value == _abort_address() and n not in skipped and n not in _UNFILLABLE]
        if not _HELPER:
            todo.reverse()
        todo.sort(key=lambda n: compiling_elsewhere(*_CELL_OF[n]))
        if todo and _HELPER and compiling_elsewhere(*_CELL_OF[todo[0]]):
            skipped.update(todo)
            todo = []
        if not todo:
            return
        name = todo[0]
        disp, args = _CELL_OF[name]
        try:
            disp.compile(args)
            if _CELLS[name].value == _abort_address():
                raise RuntimeError(f"{disp.py_func.__qualname__}{args}: compiled, but its cell is "
                                   "still empty (kernels.compile.linking)")
        except BaseException:
            # its callers raise RuntimeError if called; later compiles do not try it again
            _UNFILLABLE.add(name)
            raise


def _announce(disp, args) -> None:
    f = disp.py_func
    rec = base64.b64encode(pickle.dumps((f.__module__, f.__qualname__, tuple(args))))
    try:
        _ANNOUNCE.write(f"{time.time():.3f} {rec.decode()}\n")
        _ANNOUNCE.flush()
    except (OSError, ValueError):
        pass


def announce_to(path: "str | None") -> None:
    """From now on, write each separate kernel a compile here finds it will need (its cell,
    still empty) to the file ``path``, for :func:`compile_announced` in a helper process
    (``compiling.engine_helper``); None stops it."""
    global _ANNOUNCE
    if _ANNOUNCE is not None:
        _ANNOUNCE.close()
    _ANNOUNCE = None if path is None else open(path, "a")


def compile_announced(path: str, wait: float = 1.0, until=None) -> None:
    """A helper's loop: compile (into the cache) the separate kernels another process
    announces in ``path`` (:func:`announce_to`), first found first, each once it has waited
    ``wait`` seconds and nobody is compiling it (the announcing process takes its newest
    itself, at once). Returns once ``until()`` is true (None: never)."""
    global _HELPER
    from .cache import compiling_elsewhere
    import importlib
    _HELPER = True
    queue: list[tuple[float, object, tuple]] = []
    done: set[tuple] = set()
    pos = 0
    while until is None or not until():
        try:
            with open(path, "rb") as f:
                f.seek(pos)
                data = f.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1
        pos += end
        for line in data[:end].splitlines():
            t, rec = line.split(b" ", 1)
            module, qualname, args = pickle.loads(base64.b64decode(rec))
            queue.append((float(t), getattr(importlib.import_module(module), qualname), args))
        now = time.time()
        ready = [q for q in queue if now - q[0] >= wait and (q[1], q[2]) not in done
                 and not compiling_elsewhere(q[1], q[2])]
        if not ready:
            time.sleep(0.1)
            continue
        _, disp, args = ready[0]
        done.add((disp, args))

        if not _cached(disp, args):
            disp.compile(args)


def _cached(disp, args) -> bool:
    """Whether ``disp`` is in the cache (or loaded here) for ``args``."""
    if tuple(args) in disp.overloads:
        return True
    try:
        # with or without wrappers: one with them does for a caller (_load_overload)
        return any(k[0] == tuple(args) for k in disp._cache._cache_file._load_index())
    except Exception:                 # noqa: BLE001  (no cache, or an unreadable index)
        return False


_INSTALLED = False


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off for the block, and what the block made moved
    straight to the oldest generation after it (``gc.freeze`` then ``gc.unfreeze``: no pass
    of the young generation over it). A compile allocates millions of IR and typing objects:
    the collector's passes over them were a fifth of a compile's time (``play_game_nb`` 18.6
    -> 15.3 s), and its first pass after the compile, over all of them at once, took 1.3 s
    more. Their cyclic garbage is collected with the oldest generation, as Python would in
    time; a first run's peak memory is about 0.85 GB instead of 0.7 (README's main job)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


# Wrappers. numba gives every compiled kernel a CPython wrapper (and a C one), to be called
# from Python; a kernel that only other kernels call never uses them, and they were a fifth
# of the machine code of a first run's kernels and more of its compile (single process: 73 ->
# 57 CPU s). A kernel compiled for another kernel (while that one compiles, or to fill a
# cell) is compiled without them; one that Python calls (or compiles by signature, unless
# separate) keeps them. The two are cached apart (the index key of one without ends with
# NO_WRAPPERS), and one without is never entered in numba's table of what Python may call:
# a call from Python compiles (or loads) the kernel again with its wrappers. A kernel the
# package's Python code calls as well keeps them everywhere (python_called), and a kernel
# wanted without them that is cached only with them is loaded as it is (_load_overload).
NO_WRAPPERS = "no-wrappers"
_WRAP = threading.local()        # .stack: per compile in progress, whether it keeps wrappers
_BARE: set = set()               # (dispatcher id, argument types) compiled without wrappers


_KERNELS_PACKAGE = __package__.rsplit(".", 1)[0]        # shanghai_sim.kernels (this is its compile/)


def _in_package(disp) -> bool:
    """A kernel of this package (the wrappers rule is for those only)."""
    return getattr(disp.py_func, "__module__", "").startswith(_KERNELS_PACKAGE + ".")


_PY_NAMES: "frozenset[str] | None" = None
# from ...kernels.<folder>.<module> import a, b: kernel names (and, if a module, its alias)
_FROM_KERNEL_MODULE = re.compile(r"^\s*from\s+[\w.]*\bkernels(?:\.\w+)+\s+import\s+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT_AS = re.compile(r"^\s*import\s+[\w.]*\bkernels(?:\.\w+)+\s+as\s+(\w+)", re.M)


def _imported(clause: str, bound: bool = False) -> list[str]:
    """The names an import clause (``a, b as c``, or in parentheses) imports, or with
    ``bound`` the names it binds."""
    out = []
    for part in re.sub(r"#[^\n]*", "", clause).strip("() \n").replace("\n", " ").split(","):
        words = part.split()
        if words:
            out.append(words[-1] if bound else words[0])
    return out


def python_called() -> frozenset:
    """The names of the kernels Python code calls: what the package's modules outside
    ``kernels/`` (and the repository's ``benchmarks/`` and ``analyses/``, where they are)
    import from a kernel module, or read as an attribute of a kernel module they import
    (``precompile.py`` and ``compiling.py`` aside: they compile kernels by signature as their
    callers would).
    Such a kernel always keeps its wrappers: ``replay`` calls ``play_game_nb`` from Python
    and the batch engine calls it from ``play_games_on_nb``, and compiled once without and
    once with them it cost a first replay (and a warm-up) the engine's largest compile again.
    Read from the sources (not from what happens to be imported), so every process decides
    alike; a name that is not a kernel is never asked about."""
    global _PY_NAMES
    if _PY_NAMES is None:
        from pathlib import Path

        pkg = Path(__file__).resolve().parents[2]        # .../shanghai_sim
        # precompile.py and compiling.py compile kernels by signature as their callers would, not for Python
        files = [p for p in pkg.rglob("*.py")
                 if p.relative_to(pkg).parts[0] != "kernels" and p.name not in ("precompile.py", "compiling.py")]
        for extra in ("benchmarks", "analyses"):
            files += sorted((pkg.parent / extra).glob("*.py"))
        names: set[str] = set()
        for path in files:          # read with patterns, not parsed: every process asks
            try:
                text = path.read_text()
            except (OSError, UnicodeDecodeError):
                continue
            if "kernels" not in text:
                continue
            aliases = set()
            for m in _FROM_KERNEL_MODULE.finditer(text):       # from .kernels.games.batch import x
                names.update(_imported(m.group(1)))
                aliases.update(_imported(m.group(1), True))    # from ...kernels.<folder> import <module> as K
            aliases.update(_IMPORT_AS.findall(text))           # import ....kernels.melds.finder as K
            for a in aliases:                                  # K.deficiency_nb
                names.update(re.findall(r"\b" + re.escape(a) + r"\.(\w+)", text))
        _PY_NAMES = frozenset(names)
    return _PY_NAMES


def _stack() -> list:
    st = getattr(_WRAP, "stack", None)
    if st is None:
        st = _WRAP.stack = []
    return st


def _bare_now() -> bool:
    """The compile in progress (its lowering, cache key, registration) leaves out wrappers."""
    st = _stack()
    return bool(st) and st[-1] is False


def install() -> bool:
    """Patch numba (idempotent): calls of separate kernels typed from their declared return
    type and made through their cells, the kernels compiled or loaded once the outermost
    compile is done, cached callers loaded with their cells. Whether it is patched (not with
    a numba it was not tested with)."""
    global _INSTALLED
    if _INSTALLED:
        return True
    if not patchable():
        return False
    _INSTALLED = True

    template = _dispatcher.Dispatcher.get_call_template

    def get_call_template(self, args, kws):
        if self.py_func not in _RETURNS:
            return template(self, args, kws)
        # numba compiles the callee here to learn its return type; a separate kernel's is
        # declared, so the caller is typed (and lowered, and compiled) without it
        pysig, args = self._compiler.fold_argument_types(args, kws)
        sig = _typing.signature(_RETURNS[self.py_func], *args)
        call = _typing.make_concrete_template(f"CallTemplate({self.py_func.__name__})",
                                              key=self.py_func.__name__, signatures=[sig])
        return call, pysig, args, {}

    _dispatcher.Dispatcher.get_call_template = get_call_template

    get_function = _base.BaseContext.get_function

    def get_function_or_cell(self, fn, sig, _firstcall=True):
        if isinstance(fn, _types.Dispatcher) and fn.dispatcher.py_func in _RETURNS:
            return _base._wrap_impl(_call_separate(fn.dispatcher), self, sig.as_function())
        return get_function(self, fn, sig, _firstcall)

    _base.BaseContext.get_function = get_function_or_cell

    add_overload = _dispatcher.Dispatcher.add_overload

    def add_overload_registered(self, cres):
        _check_return(cres)
        args = tuple(cres.signature.args)
        wrapped = getattr(_WRAP, "loaded_wrapped", None) is cres
        _WRAP.loaded_wrapped = None
        if _bare_now() and _in_package(self) and not wrapped:
            self.overloads[args] = cres      # numba's add_overload, minus Python's table
            _BARE.add((id(self), args))
        else:
            add_overload(self, cres)
            _BARE.discard((id(self), args))
        _register(cres)

    _dispatcher.Dispatcher.add_overload = add_overload_registered

    index_key = _caching.Cache._index_key

    def index_key_wrappers(self, sig, codegen):
        key = index_key(self, sig, codegen)
        return key + (NO_WRAPPERS,) if _bare_now() else key

    _caching.Cache._index_key = index_key_wrappers

    lowering_pass = _typed_passes.NativeLowering.run_pass

    def lower_without_wrappers(self, state):
        if _bare_now():
            state.flags.no_cpython_wrapper = True
            state.flags.no_cfunc_wrapper = True
        return lowering_pass(self, state)

    _typed_passes.NativeLowering.run_pass = lower_without_wrappers

    compile_for_args = _dispatcher.Dispatcher._compile_for_args

    def compile_for_python(self, *args, **kws):
        _WRAP.python = True                 # the compile this asks for keeps its wrappers
        try:
            return compile_for_args(self, *args, **kws)
        finally:
            _WRAP.python = False

    _dispatcher.Dispatcher._compile_for_args = compile_for_python

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        data = self._cache_file.load(key)
        wrapped = False
        if data is None and key[-1] == NO_WRAPPERS:
            # wanted without wrappers, cached with them (Python called it first): as good
            data = self._cache_file.load(key[:-1])
            wrapped = True
        if data is None:
            return None
        if _PATTERN is not None and not _callees_loaded(data):
            return None
        cres = self._impl.rebuild(target_context, data)
        if wrapped:                           # add_overload, next, enters it in Python's table
            _WRAP.loaded_wrapped = cres
        return cres

    _caching.Cache._load_overload = _load_overload

    optimize_functions = _codegen.CPUCodeLibrary._optimize_functions

    def optimize_functions_unless_skipped(self, ll_module):
        if self.name in _NO_FUNCTION_PASSES:
            ll_module.data_layout = self._codegen._data_layout
            return
        optimize_functions(self, ll_module)

    _codegen.CPUCodeLibrary._optimize_functions = optimize_functions_unless_skipped

    compile_ = _dispatcher.Dispatcher.compile
    depth = [0]

    def compile_wrapped_or_bare(self, sig, top):
        python = getattr(_WRAP, "python", False)
        _WRAP.python = False
        wrap = (not _in_package(self) or python
                or (top and self.py_func not in _RETURNS and not _HELPER)
                or self.py_func.__name__ in python_called())
        args = tuple(_sigutils.normalize_signature(sig)[0])
        bare = None
        if wrap and (id(self), args) in _BARE:
            bare = self.overloads.pop(args, None)      # Python calls it: again, wrapped
        st = _stack()
        st.append(wrap)
        try:
            return compile_(self, sig)
        except BaseException:
            if bare is not None and args not in self.overloads:
                self.overloads[args] = bare
            raise
        finally:
            st.pop()

    def compile_then_fill(self, sig):
        # under numba's compiler lock (one compiling thread per process); the outermost
        # compile fills the cells its callers name before anything can call them
        with _dispatcher.global_compiler_lock:
            if depth[0]:
                depth[0] += 1
                try:
                    return compile_wrapped_or_bare(self, sig, False)
                finally:
                    depth[0] -= 1
            with _event.trigger_event(COMPILE_EVENT), _collector_paused():
                depth[0] += 1
                try:
                    out = compile_wrapped_or_bare(self, sig, True)
                    _fill_cells()
                finally:
                    depth[0] -= 1
            return out

    _dispatcher.Dispatcher.compile = compile_then_fill
    return True
