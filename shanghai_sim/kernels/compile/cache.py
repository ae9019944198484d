"""Where compiled kernels are cached, and telling the user while they compile.

numba's own cache (``cache=True``) writes beside the source, into
``site-packages/shanghai_sim/kernels/__pycache__`` for an installed package,
and keys each entry by that path. Two problems follow: a ``pip install -e``
after a ``pip install .`` leaves the old files behind as a ``shanghai_sim``
folder without ``__init__.py`` that shadows the new install, and the same
source installed at another path compiles again from scratch.

So every kernel of this package is cached in a per-user folder instead:

    $SHANGHAI_SIM_CACHE_DIR                  (if set)
    else $XDG_CACHE_HOME/shanghai-sim        (if set)
    else ~/.cache/shanghai-sim

below ``numba-<version>-py<major><minor>/<module>-<closure hash>/``: one folder per
kernel module (named by its dotted path below ``kernels/``, ``melds.lay``), keyed by the hash
of the kernel sources that module can reach through its imports, in every sub-folder (its
dependency closure: ``melds.lay`` reaches the meld finder's modules, ``base.layout`` and
``compile.linking``, never ``bots.players``). The kernels import nothing from the rest of the package
(the state and rules arrays' layout is ``kernels/base/layout.py``), and a kernel can only call
what its module imports, so a cached kernel stays valid until a module of its own closure
changes: editing ``kernels/bots/players.py`` recompiles the bots and the engine above them, not the
meld finder. The same source therefore shares one cache wherever it is installed (a
wheel, an editable checkout, a second checkout). ``compile/cache.py``, every ``__init__.py``,
``compile/inlining.py`` and ``compile/frontend.py`` hold no kernel and are in no closure (the last two
patch how numba inlines and analyses, not what it compiles: the same machine code). (numba alone checks only a
function's own file, while a cached caller embeds the machine code of what it calls in
other files.)

Several processes may fill the cache at once (``shanghai-sim warmup`` compiles in
parallel): numba's index update is a read-modify-write of the index file that picks the
next free data file number, so two writers could give two signatures one data file. Every
save here holds an exclusive lock on the index (``_locked_save``), re-reads it inside the
lock, and writes index and data before letting go.

``shanghai-sim cache`` shows the folder; ``shanghai-sim cache --clear``
empties it. A folder that cannot be used (:func:`cache_problem`: a file, below ``/proc``,
``/sys`` or ``/dev``, not writable) is never replaced by numba's own locations, which would
write into the installed package's ``kernels/__pycache__``: the process caches into a
temporary folder of its own instead (:func:`active_root`; deleted at exit, so every run
compiles again) and says so once on stderr, naming the folder and why; ``shanghai-sim
cache`` reports it as an error.

Compiling the engine takes a while on first use. :func:`install_compile_notice`
registers a numba event listener: a compile of more than a second prints one line on
stderr and keeps an elapsed-time ticker going until it is done (a line at least every
:data:`TICK` seconds in a log); a load from the cache, however slow, prints nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
import threading
import time
import tokenize
from pathlib import Path

from numba.core import caching as _caching
from numba.core import dispatcher as _dispatcher
from numba.core import sigutils as _sigutils
from numba.core import event as _event

_KERNELS = Path(__file__).resolve().parent.parent     # .../shanghai_sim/kernels
_PKG = _KERNELS.parent                                 # .../shanghai_sim
# Every module the kernels are compiled from: kernels/**/*.py but this one and the
# packages' __init__ files, which hold no kernel, so editing them recompiles nothing.
# inlining.py and frontend.py patch how numba inlines and analyses, not what it compiles
# (the same machine code). Paths below kernels/.
NOT_KERNELS = ("compile/cache.py", "compile/inlining.py", "compile/frontend.py")


def is_kernel_source(rel: str) -> bool:
    """Whether the file at ``rel`` (a path below ``kernels/``, with ``/``) holds kernels."""
    return rel.endswith(".py") and rel not in NOT_KERNELS and rel.rsplit("/", 1)[-1] != "__init__.py"


def module_key(rel: str) -> str:
    """A kernel module's key from its path below ``kernels/``: ``melds/lay.py`` -> ``melds.lay``."""
    return rel[:-3].replace("/", ".")


_SOURCES = sorted(p for p in _KERNELS.rglob("*.py")
                  if is_kernel_source(p.relative_to(_KERNELS).as_posix()))


def cache_root() -> Path:
    """The per-user cache folder of this package (every version and source hash below it)."""
    env = os.environ.get("SHANGHAI_SIM_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "shanghai-sim"


_SYSTEM = ("/proc", "/sys", "/dev")
_FALLBACK: dict[str, tuple[Path, str]] = {}     # a configured folder that cannot be used -> (temporary, why)


def cache_problem(root: "Path | None" = None) -> "str | None":
    """Why the cache folder ``root`` (default :func:`cache_root`) cannot hold the kernels, in
    words (``it is a file, not a folder``); None when it can: a writable folder, or a path
    whose first existing folder above it is writable (the folders are made on first use)."""
    root = cache_root() if root is None else Path(root)
    full = Path(os.path.abspath(root))
    for d in _SYSTEM:
        if full == Path(d) or Path(d) in full.parents:
            return f"it is below {d}, which holds the system's own files"
    p = full
    while not os.path.lexists(p) and p.parent != p:
        p = p.parent
    if not p.is_dir():
        what = "a broken link" if p.is_symlink() and not p.exists() else "a file, not a folder"
        return f"it is {what}" if p == full else f"{p} is {what}"
    if not os.access(p, os.W_OK | os.X_OK):
        return "it is not writable" if p == full else f"{p} is not writable"
    return None


def active_root() -> Path:
    """The folder this process caches its kernels in: :func:`cache_root`, or when that cannot
    be used (:func:`cache_problem`) a temporary folder of this process, made once, deleted at
    exit and announced once on stderr (never the installed package's ``__pycache__``)."""
    root = cache_root()
    hit = _FALLBACK.get(str(root))
    if hit is not None:
        return hit[0]
    why = cache_problem(root)
    return root if why is None else _fall_back(root, why)


def _fall_back(root: Path, why: str) -> Path:
    import atexit
    import shutil
    import tempfile
    hit = _FALLBACK.get(str(root))
    if hit is not None:
        return hit[0]
    tmp = Path(tempfile.mkdtemp(prefix="shanghai-sim-cache-"))
    atexit.register(shutil.rmtree, tmp, True)
    _FALLBACK[str(root)] = (tmp, why)
    if not os.environ.get("SHANGHAI_SIM_CACHE_WARNED"):     # once: child processes inherit it
        os.environ["SHANGHAI_SIM_CACHE_WARNED"] = "1"
        try:
            sys.stderr.write(f"shanghai-sim: warning: the kernel cache folder {root} cannot be used ({why}); "
                             f"this run caches into {tmp}, deleted at exit, so every run compiles the "
                             "kernels again: set SHANGHAI_SIM_CACHE_DIR to a writable folder "
                             "(shanghai-sim cache)\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
    return tmp


def _import_statements(text: str):
    """``(level, module, names)`` of each ``from ... import`` statement of a module's source, and
    ``(0, module, [])`` of each ``import module``, read with ``tokenize`` (strings and comments
    skipped, imports inside functions included). Not ``ast.parse``: CPython 3.11's AST
    constructor keeps one recursion count per interpreter, which another thread parsing at the
    same moment breaks (python/cpython#106905; seen in the tests, a Dask thread beside)."""
    logical: list[str] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NAME, tokenize.OP):
            logical.append(tok.string)
            continue
        if tok.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
            continue
        stmt: list[str] = []
        for t in logical + [";"]:
            if t not in (";", ":"):
                stmt.append(t)
                continue
            if stmt[:1] == ["from"] and "import" in stmt:
                i = stmt.index("import")
                head = "".join(stmt[1:i])
                level = len(head) - len(head.lstrip("."))
                names, skip = [], False
                for x in stmt[i + 1:]:
                    if x in ("(", ")", ","):
                        skip = False
                    elif x == "as":
                        skip = True
                    elif not skip and x != "*":
                        names.append(x)
                        skip = True
                yield level, head.lstrip("."), names
            elif stmt[:1] == ["import"]:
                for part in " ".join(stmt[1:]).split(","):      # import a.b as c, d
                    dotted = part.split(" as ")[0].replace(" ", "")
                    if dotted:
                        yield 0, dotted, []
            stmt = []
        logical = []


def _kernel_imports(key: str, text: str, names: set[str], name: str = "") -> set[str]:
    """The kernel modules (keys in ``names``) that the module ``key`` (``melds.lay``), whose
    source is ``text``, imports: relative imports at any depth (``from .bits import``,
    ``from ..base.layout import``, ``from ..base import layout``) and absolute ones
    (``from shanghai_sim.kernels.base.layout import``)."""
    package = key.split(".")[:-1]                      # the module's folder below kernels/
    out = set()

    def found(parts: list[str], imported: list[str]) -> None:
        for cand in [".".join(parts)] + [".".join(parts + [a]) for a in imported]:
            if cand in names:
                out.add(cand)

    for level, module, imported in _import_statements(text):
        mod = module.split(".") if module else []
        if level:
            if level - 1 > len(package):
                continue                                # above kernels/: no kernel
            found(package[:len(package) - (level - 1)] + mod, imported)
        elif module.startswith("shanghai_sim.kernels."):
            found(mod[2:], imported)
    return out


def _keyed(sources) -> "dict[str, object]":
    """``sources`` by module key: paths below this package's ``kernels/`` (their key read from
    the path), objects with a ``key`` and ``read_text()`` (a benchmark reading a commit), or
    a dict ``{key: path}`` (a copy of the sources elsewhere)."""
    if isinstance(sources, dict):
        return dict(sources)
    out = {}
    for p in sources:
        key = getattr(p, "key", None)
        if key is None:
            key = module_key(Path(p).resolve().relative_to(_KERNELS).as_posix())
        out[key] = p
    return out


def closures(sources=None) -> dict[str, tuple[str, ...]]:
    """Each kernel module's dependency closure: itself and every kernel module it reaches
    through imports, as sorted keys (``sources``: the module files, default this package's)."""
    files = _keyed(_SOURCES if sources is None else sources)
    direct = {key: _kernel_imports(key, p.read_text(), set(files), str(p)) for key, p in files.items()}
    out = {}
    for key in files:
        seen, todo = {key}, [key]
        while todo:
            for m in direct[todo.pop()]:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        out[key] = tuple(sorted(seen))
    return out


def _hash(keyed) -> str:
    """The hash of ``(key, source)`` pairs: each module's key and its text."""
    h = hashlib.sha256()
    for key, p in keyed:
        h.update(key.encode() + b"\0")
        h.update(p.read_text().encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def module_hashes(sources=None) -> dict[str, str]:
    """Each kernel module's cache key: the hash of the sources of its dependency closure."""
    files = _keyed(_SOURCES if sources is None else sources)
    return {key: _hash((m, files[m]) for m in clo) for key, clo in closures(sources).items()}


SOURCE_HASH = _hash(sorted(_keyed(_SOURCES).items()))          # every kernel source: names this source as a whole
MODULE_HASHES = module_hashes()


def cache_dir() -> Path:
    """The folder of this numba and Python: one subfolder per kernel module and closure hash."""
    import numba
    v = sys.version_info
    return active_root() / f"numba-{numba.__version__}-py{v[0]}{v[1]}"


def module_cache_dir(key: str) -> Path:
    """Where the kernels of module ``key`` (``melds.lay``: ``kernels/melds/lay.py``) of this
    source are cached."""
    return cache_dir() / f"{key}-{MODULE_HASHES[key]}"


def source_dirs() -> list[Path]:
    """The cache folders of this source's kernel modules (some may not exist yet)."""
    return [module_cache_dir(key) for key in sorted(MODULE_HASHES)]


class PackageCacheLocator(_caching._CacheLocator):
    """numba cache locator for this package's kernels: per-user folder, keyed by source content."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        path = Path(py_file).resolve()
        try:
            key = module_key(path.relative_to(_KERNELS).as_posix())
        except ValueError:
            key = None
        if key in MODULE_HASHES:
            self._stamp = MODULE_HASHES[key]
            self._cache_path = str(module_cache_dir(key))
        else:                               # a kernel elsewhere in the package: every source
            self._stamp = SOURCE_HASH
            self._cache_path = str(cache_dir() / f"{path.stem}-{SOURCE_HASH}")

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return self._stamp

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            Path(py_file).resolve().relative_to(_PKG)
        except (ValueError, OSError):
            return None                     # not one of ours: numba's own locators
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError as e:                # passed cache_problem, failed here (full disk, a race):
            root = cache_root()             # a temporary folder, never numba's own locators
            _fall_back(root, f"{e.strerror or e}")
            self = cls(py_func, py_file)
            self.ensure_cache_path()
        return self


def _lock_file(path: str):
    """An open lock file for :func:`_flock` (None where fcntl is absent: not POSIX)."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return None
    return open(path, "a")


@contextlib.contextmanager
def _flock(f):
    """An exclusive lock between processes on the open lock file f (None: no lock), closed after."""
    if f is None:
        yield
        return
    import fcntl
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _index_lock(index_path: str):
    """An exclusive lock on one cache index, between processes (a no-op where fcntl is absent)."""
    return _flock(_lock_file(index_path + ".lock"))


_NUMBA_SAVE = _caching.IndexDataCacheFile.save


def _locked_save(self, key, data):
    # numba's save re-reads the index, picks a data file name, writes the index, then the
    # data: all of it inside the lock, so a second process sees the first one's entry
    with _index_lock(self._index_path):
        _NUMBA_SAVE(self, key, data)


_NUMBA_COMPILE = _dispatcher.Dispatcher.compile
_HELD: set[str] = set()                 # compile locks this process holds (a nested compile
#                                         of the same kernel and signature takes none again)


def _ours(disp) -> "_caching.IndexDataCacheFile | None":
    """The cache file of one of this package's cached kernels (None for any other)."""
    cache = getattr(disp, "_cache", None)
    impl = getattr(cache, "_impl", None)
    if isinstance(getattr(impl, "_locator", None), PackageCacheLocator):
        return getattr(cache, "_cache_file", None)
    return None


def _compile_lock_path(disp, args) -> str | None:
    file = _ours(disp)
    if file is None:
        return None
    key = hashlib.sha256(repr(tuple(args)).encode()).hexdigest()[:16]
    return f"{file._index_path}.{key}.lock"


def compiling_elsewhere(disp, args) -> bool:
    """Whether another process holds the compile lock of ``disp`` for ``args`` right now
    (it is compiling it: a compile here would wait for it)."""
    path = _compile_lock_path(disp, args)
    if path is None or path in _HELD or not os.path.exists(path):
        return False
    try:
        import fcntl
        with open(path, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
    except (ImportError, OSError):
        pass
    return False


def _compile_once(self, sig):
    """numba's Dispatcher.compile, one process at a time for each kernel and signature.

    Two processes that fill one cache (the parallel warm-up, a command beside it) would
    otherwise both compile whatever kernel both need. Here the first takes an exclusive
    lock on that (kernel, signature) and compiles; the second waits for the lock, then
    loads the kernel from the cache (numba's compile looks in the cache first) and goes on.
    The lock is taken inside numba's compiler lock (one compiling thread per process), and
    a process holds the locks of the kernels it is compiling, one inside the other in call
    order; callees never call their callers, so two processes never wait on each other."""
    if _ours(self) is None:
        return _NUMBA_COMPILE(self, sig)
    with _dispatcher.global_compiler_lock:
        args, _ = _sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return _NUMBA_COMPILE(self, sig)
        path = _compile_lock_path(self, args)
        if path in _HELD:
            return _NUMBA_COMPILE(self, sig)
        try:
            f = _lock_file(path)
        except OSError:                     # not writable: numba's own behaviour
            return _NUMBA_COMPILE(self, sig)
        with _flock(f):
            _HELD.add(path)
            try:
                return _NUMBA_COMPILE(self, sig)
            finally:
                _HELD.discard(path)


def install_locator() -> None:
    """Put :class:`PackageCacheLocator` first in numba's list, lock index saves, and compile
    each kernel and signature in one process at a time (idempotent)."""
    impl = getattr(_caching, "CacheImpl", None) or getattr(_caching, "_CacheImpl")   # renamed in numba 0.60
    classes = impl._locator_classes
    if PackageCacheLocator not in classes:
        classes.insert(0, PackageCacheLocator)
    _caching.IndexDataCacheFile.save = _locked_save
    _dispatcher.Dispatcher.compile = _compile_once


def clear() -> tuple[int, int]:
    """Delete every cached kernel of this package (all versions); returns (files, bytes)."""
    import shutil
    root = cache_root()
    files = size = 0
    if root.is_dir():
        for p in root.rglob("*"):
            if p.is_file():
                files += 1
                size += p.stat().st_size
        shutil.rmtree(root)
    return files, size


def cached_bytes(path: Path | None = None) -> tuple[int, int]:
    """(files, bytes) of compiled kernels cached under ``path`` (default: this source's folders)."""
    paths = source_dirs() if path is None else [path]
    files = size = 0
    for folder in paths:
        if folder.is_dir():
            for p in folder.rglob("*.nb[ci]"):
                files += 1
                size += p.stat().st_size
    return files, size


TICK = 10.0     # seconds: off a terminal (a log, CI) a running compile prints a line at least this often
_EARLY = 0.5    # a line falls due this much before TICK: the ticker wakes every 0.25 s and may wait
#                 for the CPU, and a line must not come late


def _fmt(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def _package_kernel(event) -> bool:
    """numba's compile event ``event`` is for one of this package's kernels."""
    data = getattr(event, "data", None)
    disp = data.get("dispatcher") if isinstance(data, dict) else None
    mod = getattr(getattr(disp, "py_func", None), "__module__", None) or ""
    return mod == "shanghai_sim" or mod.startswith("shanghai_sim.")


class _CompileNotice(_event.Listener):
    """Says on stderr that numba is compiling this package's kernels, with the elapsed time.

    Only a real compile counts, never a load from the cache. numba raises ``numba:compile``
    around its compiler alone, once its cache had no entry (``Dispatcher.compile`` looks in
    the cache first; a hit raises no event). ``kernels.compile.linking``'s
    ``custom/shanghai_sim:compile`` spans a whole top-level compile (the outermost kernel,
    then the separate kernels its code calls), cache loads included: it only groups, so that
    everything inside it is one compile to the notice, ended when it ends. The time that
    counts is the time inside numba's compiler for this package's kernels (a kernel of a
    user's own script compiles unannounced), and a load, however slow (a loaded machine, a
    stopped process), adds nothing to it.

    A group that has compiled for a second prints a line (the first of the process names the
    cache folder), then the time since its first compile began: on a terminal one line
    rewritten every second, elsewhere (logs, CI) a line at least every :data:`TICK` seconds,
    and a last line when the group ends.
    """

    def __init__(self, stream=None):
        self.stream = stream
        self.depth = 0              # events open: a group (one compile to the notice) ends at 0
        self._counted = []          # each open numba:compile: whether it counts (a package kernel's)
        self.busy = 0               # counted numba:compile events open: > 0 while compiling
        self.since = None           # monotonic start of the counted compile running now
        self.group_spent = 0.0      # seconds compiled in this group, by the compiles already done
        self.total = 0.0            # seconds compiled in this process, by the compiles already done
        self.started = None         # monotonic start of this group's first compile (None: none yet)
        self.silent = False         # this group says nothing (muted, or SHANGHAI_SIM_QUIET_COMPILE)
        self.announced = False      # this group has printed its first line
        self.first = True           # no group of this process has printed yet
        self.muted = False          # compile_notice_muted(): say nothing
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread = None

    def _out(self):
        return self.stream if self.stream is not None else sys.stderr

    def _tty(self) -> bool:
        try:
            return bool(self._out().isatty())
        except (AttributeError, ValueError):
            return False

    def _write(self, text: str, final: bool = False) -> None:
        out = self._out()
        try:
            if self._tty():
                out.write("\r\033[K" + text + ("\n" if final else ""))
            else:
                out.write(text + "\n")
            out.flush()
        except (ValueError, OSError):
            pass

    def seconds(self) -> float:
        """Seconds this process has spent compiling this package's kernels, the running compile
        included (loads from the cache count nothing)."""
        with self._lock:
            return self.total + (time.monotonic() - self.since if self.busy else 0.0)

    def _run(self):
        last = 0.0
        while True:
            self._wake.clear()
            with self._lock:
                active = self.started is not None and not self.silent
            self._wake.wait(0.25 if active else None)
            with self._lock:
                if self.started is None or self.silent:
                    continue
                now = time.monotonic()
                t = now - self.started
                if not self.announced:
                    if self.group_spent + (now - self.since if self.busy else 0.0) < 1.0:
                        continue
                    self.announced = True
                    last = t
                    if self.first:
                        self.first = False
                        self._write("shanghai-sim: compiling the numba kernels (first use of this "
                                    f"version; cached afterwards in {cache_dir()}) ...", final=self._tty())
                    else:
                        self._write("shanghai-sim: compiling more kernels ...", final=self._tty())
                elif t - last >= (1.0 if self._tty() else TICK - _EARLY):
                    last = t
                    self._write(f"shanghai-sim: compiling ... {_fmt(t)}")

    def on_start(self, event):
        with self._lock:
            if self.depth == 0:                 # a new group
                self.group_spent = 0.0
                self.started = None
                self.announced = False
                self.silent = self.muted or bool(os.environ.get("SHANGHAI_SIM_QUIET_COMPILE"))
            self.depth += 1
            if getattr(event, "kind", None) != "numba:compile":
                return
            counts = self.busy > 0 or _package_kernel(event)
            self._counted.append(counts)
            if not counts:
                return
            self.busy += 1
            if self.busy == 1:
                self.since = time.monotonic()
                if self.started is None:
                    self.started = self.since
                if not self.silent:
                    if self._thread is None:
                        self._thread = threading.Thread(target=self._run, name="compile-notice",
                                                        daemon=True)
                        self._thread.start()
                    self._wake.set()

    def on_end(self, event):
        with self._lock:
            now = time.monotonic()
            if getattr(event, "kind", None) == "numba:compile" and self._counted and self._counted.pop():
                self.busy -= 1
                if self.busy == 0:
                    self.group_spent += now - self.since
                    self.total += now - self.since
                    self.since = None
            self.depth = max(0, self.depth - 1)
            if self.depth:
                return
            if self.announced:
                self._write(f"shanghai-sim: compiled in {_fmt(now - self.started)}", final=True)
            self.started = None
            self.announced = False


_NOTICE: _CompileNotice | None = None


def compile_seconds() -> float:
    """Seconds this process has spent in numba's compiler on this package's kernels (a load
    from the cache counts nothing; 0.0 before :func:`install_compile_notice`)."""
    return _NOTICE.seconds() if _NOTICE is not None else 0.0


class compile_notice_muted:
    """``with compile_notice_muted(flag):`` no compile notice inside when ``flag`` is true."""

    def __init__(self, flag: bool = True):
        self.flag = flag
        self.before = False

    def __enter__(self):
        if _NOTICE is not None:
            self.before = _NOTICE.muted
            _NOTICE.muted = self.before or self.flag
        return self

    def __exit__(self, *exc):
        if _NOTICE is not None:
            _NOTICE.muted = self.before
        return False


def install_compile_notice(stream=None) -> None:
    """Register the compile notice (idempotent)."""
    global _NOTICE
    if _NOTICE is None:
        _NOTICE = _CompileNotice(stream)
        # numba's compiler (raised only on a cache miss): the time that counts
        _event.register("numba:compile", _NOTICE)
        # kernels.compile.linking: a whole compile (the outermost kernel, then the separate kernels its
        # code calls, compiled or loaded) is one compile to the notice; it groups, never counts
        _event.register("custom/shanghai_sim:compile", _NOTICE)
