"""Rewrite the sample outputs of README.md and docs/*.md from what the tool prints now.

    python docs/make_samples.py            # every document; rewrites the samples in place
    python docs/make_samples.py README.md  # one document
    python docs/make_samples.py --check    # rewrite nothing; exit 1 if a sample is stale

The documents run as tests/test_docs.py runs them, as a reader follows them: README, then the
documents in the order README links them, each document's blocks in order, all in one temporary
folder (docs/docblocks.py, ``Reading``; markers in docs/DEVELOPING.md, "Docs are executed"). One
document asked runs after the documents before it, whose samples are left as they are. A sample is a
block marked ``<!-- docs: sample="CMD" -->`` (the output of CMD at that point) or the lines
shown under a ``$`` command of a console block. Run it after any change that moves a figure
(a bot's play, a report's wording) and commit the documents it changed with that change.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docblocks import DOCUMENTS, DocError, Reading, rewrite_samples  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("documents", nargs="*", help="documents relative to the checkout "
                    "(default: README.md, docs/*.md, analyses/README.md)")
    ap.add_argument("--check", action="store_true",
                    help="rewrite nothing; list stale samples, exit 1 if any")
    ap.add_argument("--verbose", "-v", action="store_true", help="print each command as it runs")
    a = ap.parse_args(argv)
    docs = a.documents or list(DOCUMENTS)
    unknown = [d for d in docs if d not in DOCUMENTS]
    if unknown:
        print(f"make_samples: not a checked document: {', '.join(unknown)} "
              f"(known: {', '.join(DOCUMENTS)})", file=sys.stderr)
        return 2
    stale = 0
    log = (lambda s: print(s, file=sys.stderr)) if a.verbose else None
    with tempfile.TemporaryDirectory(prefix="shanghai-docs-") as tmp:
        reading = Reading(Path(tmp), rewrite=set() if a.check else set(docs), log=log)
        for doc in sorted(docs, key=DOCUMENTS.index):
            try:
                r = reading.upto(doc)
            except DocError as e:
                print(f"make_samples: {e}", file=sys.stderr)
                return 1
            stale += _report(doc, r, a.check)
    if a.check and stale:
        print(f"{stale} stale sample(s): python docs/make_samples.py rewrites them", file=sys.stderr)
        return 1
    return 0


def _report(doc: str, r, check: bool) -> int:
    """Print what became of ``doc``'s samples; the number of stale ones (``check``)."""
    if check:
        for d in r.diffs:
            print(d)
        return len(r.diffs)
    if r.samples and rewrite_samples(doc, r.samples):
        print(f"{doc}: samples rewritten")
    else:
        print(f"{doc}: {'samples unchanged' if r.samples else 'no samples'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
