"""numba's inliner without its quadratic copies (compile time only; same machine code).

Each ``inline="always"`` call site costs numba's ``InlineWorker.inline_ir`` two deep copies
of the callee's IR, block by block with a fresh ``copy.deepcopy`` memo per block. Every IR
variable refers to the function's scope, which holds every variable of the function, so
each block's copy copies the whole scope again: blocks x variables, twice per site and per
level of inlining. In the engine (``play_game_nb``) and the meld finder's runs paths
(``_split_min`` and its 21 inlined helpers) that was about half of the compile
(``_runs_fast`` 10.2 -> 6.3 s, ``play_game_nb``'s body 13.6 -> 8.4 s).

``install`` lets ``inline_ir`` copy the callee's blocks once, with one memo for all of
them (one copy of the scope; the copies refer to it as the originals referred to theirs),
and skips the second copy, which inline_ir only returns and both of numba's callers
(InlineInlinables, InlineOverloads) discard. That one copy is made by ``_ir_deepcopy``:
``copy.deepcopy``'s result without its generic machinery for the IR's own classes, and with
the source locations (``ir.Loc``, never changed once made) shared (``play_game_nb``'s copies
3.1 -> 0.8 s). The inlined IR is otherwise the same, and so
is the compiled code (``tests/test_compile.py`` compares the assembly with and without).
And ``inline_function`` ran the callee's untyped passes (bytecode to IR, with the callee's
own inlining) at every call site: 273 times for 66 functions in ``play_game_nb``. They now
run once per function (and flags); each site gets that IR under a fresh identity, as numba
makes one per run, and inline_ir copies it before changing anything (``play_game_nb``'s
inlining pass 8.7 -> 5.3 s).

It patches only a numba whose ``inline_ir`` and ``run_untyped_passes`` have the expected
source; any other is left alone. This module compiles no kernel, so the cache's source hash leaves it out
(``kernels.compile.cache``).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import threading
import types

from numba.core import bytecode as _bytecode
from numba.core import inline_closurecall as _icc
from numba.core import ir as _ir

_TLS = threading.local()
_INSTALLED = False


class _CopyShim:
    """What ``numba.core.inline_closurecall`` sees as its ``copy`` module."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(x, memo=None, _nil=[]):  # noqa: B006  (copy.deepcopy's own signature)
        st = getattr(_TLS, "state", None)
        if st is None or memo is not None:
            return copy.deepcopy(x, memo)
        made, shared = st
        if id(x) in made:
            return x            # the second copy of a block inline_ir has just copied
        y = _ir_deepcopy(x, shared)
        made.add(id(y))
        return y


_NIL = object()
_ATOMIC = frozenset((type(None), int, float, bool, str, complex, bytes, type, range,
                     type(Ellipsis), type(NotImplemented), types.BuiltinFunctionType,
                     types.FunctionType))
_PLAIN: dict = {}        # class -> whether copy.deepcopy copies it as its __dict__ alone


def _plain(cls) -> bool:
    """copy.deepcopy treats an instance of ``cls`` as a new object with a deep copy of its
    ``__dict__``: no hook of its own, no slots, no copyreg entry."""
    ok = _PLAIN.get(cls)
    if ok is None:
        import copyreg
        ok = (cls.__module__ == _ir.__name__
              and getattr(cls, "__deepcopy__", None) is None
              and cls.__reduce_ex__ is object.__reduce_ex__
              and cls.__reduce__ is object.__reduce__
              and getattr(cls, "__getstate__", object.__getstate__) is object.__getstate__
              and getattr(cls, "__setstate__", None) is None
              and not any(b.__dict__.get("__slots__") for b in cls.__mro__)
              and cls not in copyreg.dispatch_table)
        _PLAIN[cls] = ok
    return ok


def _ir_deepcopy(x, memo):
    """``copy.deepcopy(x, memo)`` for numba IR, without deepcopy's generic machinery for the
    IR's own plain classes (``Assign``, ``Expr``, ``Block``, ``Scope``...), its lists, dicts
    and tuples, and its variables (``Var.__deepcopy__``'s copy); a source location
    (``ir.Loc``, never changed once made) is shared rather than copied. Anything else goes to
    ``copy.deepcopy`` with the same memo, so the result is the same graph."""
    cls = type(x)
    if cls in _ATOMIC or cls is _ir.Loc:
        return x
    y = memo.get(id(x), _NIL)
    if y is not _NIL:
        return y
    if cls is _ir.Var:
        y = _ir.Var.__new__(_ir.Var)
        y.scope = _ir_deepcopy(x.scope, memo)
        y.name = x.name
        y.loc = x.loc
    elif cls is _ir.Global:              # Global.__deepcopy__, sharing the location
        y = _ir.Global(x.name, x.value, x.loc)
    elif cls is list:
        y = []
        memo[id(x)] = y
        y.extend([_ir_deepcopy(a, memo) for a in x])
        return y
    elif cls is dict:
        y = {}
        memo[id(x)] = y
        for k, v in x.items():
            y[_ir_deepcopy(k, memo)] = _ir_deepcopy(v, memo)
        return y
    elif cls is tuple:
        items = [_ir_deepcopy(a, memo) for a in x]
        y = memo.get(id(x), _NIL)        # a cycle through the tuple copied it already
        if y is not _NIL:
            return y
        y = x if all(a is b for a, b in zip(items, x)) else tuple(items)
    elif _plain(cls):
        y = cls.__new__(cls)
        memo[id(x)] = y
        state = {k: _ir_deepcopy(v, memo) for k, v in x.__dict__.items()}
        y.__dict__.update(state)
        return y
    else:
        return copy.deepcopy(x, memo)
    memo[id(x)] = y
    return y


def _patchable() -> bool:
    try:
        src = inspect.getsource(_icc.InlineWorker.inline_ir)
        untyped = inspect.getsource(_icc.InlineWorker.run_untyped_passes)
        fn = inspect.getsource(_icc.InlineWorker.inline_function)
    except (OSError, TypeError):
        return False
    return ("callee_ir_original = copy_ir(callee_ir)" in src
            and "state.func_id = bytecode.FunctionIdentity.from_function(func)" in untyped
            and "return state.func_ir" in untyped
            and "callee_ir = self.run_untyped_passes(function)" in fn
            and hasattr(_bytecode.FunctionIdentity, "_unique_ids")
            and "copy.deepcopy(the_ir.blocks[block_label])" in src
            and getattr(_icc, "copy", None) is copy)


_UNTYPED: dict = {}      # (function, SSA, flags, locals) -> its IR after the untyped passes


def _untyped_key(worker, func, enable_ssa):
    return (func, enable_ssa, repr(worker.flags), repr(sorted(worker.locals.items())),
            worker._compiler_pipeline)


def install() -> bool:
    """Patch numba's inliner (idempotent); whether it is patched."""
    global _INSTALLED
    if _INSTALLED:
        return True
    if not _patchable():
        return False
    inline_ir = _icc.InlineWorker.inline_ir

    def inline_ir_copy_once(self, *args, **kwargs):
        prev = getattr(_TLS, "state", None)
        _TLS.state = None if getattr(_TLS, "off", False) else (set(), {})
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _TLS.state = prev

    _icc.InlineWorker.inline_ir = inline_ir_copy_once

    run_untyped = _icc.InlineWorker.run_untyped_passes

    def run_untyped_once(self, func, enable_ssa=False):
        # the untyped passes (bytecode to IR, with the callee's own inlining) once per
        # function: each call site gets the IR under a fresh identity, as from numba
        if getattr(_TLS, "off", False):
            return run_untyped(self, func, enable_ssa)
        key = _untyped_key(self, func, enable_ssa)
        try:
            hit = _UNTYPED.get(key)
        except TypeError:                    # an unhashable part: numba's own way
            return run_untyped(self, func, enable_ssa)
        if hit is None:
            hit = _UNTYPED[key] = run_untyped(self, func, enable_ssa)
        self.flags.enable_ssa = enable_ssa   # what numba's own run leaves set
        out = copy.copy(hit)
        fid = copy.copy(hit.func_id)
        fid.unique_id = next(_bytecode.FunctionIdentity._unique_ids)
        fid.unique_name = f"{fid.func_qualname}${fid.unique_id}"
        out.func_id = fid
        return out

    _icc.InlineWorker.run_untyped_passes = run_untyped_once
    _icc.copy = _CopyShim()
    _INSTALLED = True
    return True


@contextlib.contextmanager
def switched_off(tls):
    """Inside: ``tls.off`` is set, so a patch of this thread calls numba's own code."""
    before = getattr(tls, "off", False)
    tls.off = True
    try:
        yield
    finally:
        tls.off = before


def numba_copies():
    """Inside: numba's own copying (for the test that compares the code)."""
    return switched_off(_TLS)
