"""The run-window rules that every run enumeration and the gap check share (kernels/melds/search.py)."""

from shanghai_sim.kernels.base.layout import NPOS
from shanghai_sim.kernels.melds.search import runs_touch, win_maxl, win_skip


def test_runs_touch_matches_position_sets():
    # Two runs of one suit touch when their positions overlap or are adjacent.
    for alo in range(NPOS):
        for al in range(1, NPOS - alo + 1):
            a = set(range(alo, alo + al))
            for blo in range(NPOS):
                for bl in range(1, NPOS - blo + 1):
                    b = set(range(blo, blo + bl))
                    near = any(abs(p - q) <= 1 for p in a for q in b)
                    assert runs_touch.py_func(alo, al, blo, bl) == near
                    assert runs_touch.py_func(blo, bl, alo, al) == near


def test_window_lengths_and_skips():
    for s in range(3, 14):
        for lo in range(NPOS - s + 1):
            assert win_maxl.py_func(lo, s, True) == s
            top = win_maxl.py_func(lo, s, False)
            assert lo + top <= NPOS and top <= 13
    assert not win_skip.py_func(4, 4, False, False)     # a window of exactly s is always tried
    assert win_skip.py_func(5, 4, True, False)
    assert win_skip.py_func(5, 4, False, True)
    assert not win_skip.py_func(5, 4, True, True)
