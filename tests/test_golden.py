"""Tier (a): golden replays. Each case of tests/golden/cases.py is replayed with
`shanghai-sim replay --json` and must match its stored transcript event for event.

A failure means play or the replay log changed. If that was deliberate, regenerate with
`python tests/golden/regen.py` and say in the commit what changed and why.
"""

import difflib
import json
import pathlib
import sys

import pytest

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))
from cases import CASES  # noqa: E402
from regen import transcript  # noqa: E402


@pytest.mark.parametrize("stem,args", CASES, ids=[c[0] for c in CASES])
def test_replay_matches_golden(stem, args):
    want = (GOLDEN / f"{stem}.jsonl").read_text().splitlines()
    got = transcript(args).splitlines()
    if got != want:
        diff = list(difflib.unified_diff(want, got, "golden", "now", n=2, lineterm=""))
        pytest.fail(f"{stem}: replay differs from tests/golden/{stem}.jsonl "
                    f"({len(want)} vs {len(got)} events):\n" + "\n".join(diff[:40]))
    # every line is one JSON event, and the game ends with game_end
    assert json.loads(got[-1])["event"] == "game_end"


def test_every_preset_and_a_random_bot_are_covered():
    presets = {a[a.index("--rules") + 1] for _, a in CASES}
    assert presets == {"shanghai", "contract", "progressive"}
    assert any("random" in a[a.index("--bots") + 1] for _, a in CASES)
