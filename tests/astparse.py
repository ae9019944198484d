"""ast.parse in a child process, for the tests that read the project's source.

CPython 3.11 keeps ast.parse's recursion count in one place per interpreter, shared by every
thread (python/cpython#106905, fixed in 3.12): when another thread parses at the same time (a
dask thread reading its config with ast.literal_eval, say, left over from an earlier test in
the same pytest worker), the parse fails with "SystemError: AST constructor recursion depth
mismatch". A child process has no other threads, and the trees come back pickled."""

import ast
import pickle
import subprocess
import sys
from pathlib import Path

_CHILD = ("import ast, pickle, sys\n"
          "sources = pickle.load(sys.stdin.buffer)\n"
          "pickle.dump([ast.parse(text, name) for text, name in sources], sys.stdout.buffer)\n")


def parse_texts(sources: "list[tuple[str, str]]") -> "list[ast.Module]":
    """The tree of each ``(text, filename)``, parsed in one child process."""
    done = subprocess.run([sys.executable, "-c", _CHILD], input=pickle.dumps(list(sources)),
                          capture_output=True, check=False, timeout=120)
    if done.returncode:
        raise RuntimeError(f"parsing in a child process failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return pickle.loads(done.stdout)


def parse_files(paths) -> "dict[Path, ast.Module]":
    """The tree of each file in ``paths``, parsed in one child process."""
    paths = [Path(p) for p in paths]
    return dict(zip(paths, parse_texts([(p.read_text(), str(p)) for p in paths])))
