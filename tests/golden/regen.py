"""Rewrite the golden replay transcripts (tests/golden/*.jsonl) from the current engine.

    .venv/bin/python tests/golden/regen.py

Only on purpose: tests/test_golden.py fails whenever play or the log changes, and the
diff of these files is the record of what changed.
"""

import pathlib
import sys

from click.testing import CliRunner

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cases import CASES  # noqa: E402

from shanghai_sim.cli.main import main  # noqa: E402


def transcript(args: list[str]) -> str:
    r = CliRunner().invoke(main, ["replay", "--json", *args])
    if r.exit_code != 0:
        raise SystemExit(f"replay {' '.join(args)} failed: {r.output}")
    return r.output


if __name__ == "__main__":
    for stem, args in CASES:
        out = transcript(args)
        (HERE / f"{stem}.jsonl").write_text(out)
        print(f"{stem}.jsonl: {out.count(chr(10))} events", file=sys.stderr)
