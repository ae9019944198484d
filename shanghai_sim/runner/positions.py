"""The positions of a shard: the recorder's buffers (``kernels.base.positions.Positions``) and what one
shard's kernel calls recorded, in the shard's game order (docs/dataset.md "positions")."""

from __future__ import annotations

import numpy as np

from ..kernels.base.positions import CTL_ROWS, NCTL, NFEATURES, NPC, NPI, PI_GAME, PI_STEP, POS_CANDS, Positions

FIRST_ROWS = 4096        # rows a thread's buffers start with; they double when a game does not fit


def new_buffers(rate: float, rows: int = FIRST_ROWS) -> Positions:
    """Empty recorder buffers for ``rows`` positions recorded at ``rate``."""
    return Positions(float(rate), np.zeros(4, np.uint64), np.zeros((rows, NPI), np.int64),
                     np.zeros((rows, NFEATURES), np.int32), np.zeros((rows, POS_CANDS, NPC), np.float64),
                     np.zeros(NCTL, np.int64))


class ShardPositions:
    """The positions one shard's kernel calls recorded (``Engine.play_games(...,
    positions=)`` adds to it): integer columns, features and candidates, PI_GAME the game's
    index in the shard."""

    def __init__(self, rate: float):
        self.rate = float(rate)
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.games: np.ndarray | None = None      # the shard indices of the call being played

    def take(self, PO: Positions, first_game: int) -> None:
        """Keep the rows PO holds (games ``first_game`` on of the call's seeds) and empty it."""
        n = int(PO.ctl[CTL_ROWS])
        if n:
            ints = PO.ints[:n].copy()
            local = ints[:, PI_GAME] + first_game
            ints[:, PI_GAME] = local if self.games is None else self.games[local]
            self._parts.append((ints, PO.feats[:n].copy(), PO.cands[:n].copy()))
        PO.ctl[CTL_ROWS] = 0

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ints, features, candidates), ordered by game and, in a game, by the decision."""
        if not self._parts:
            return (np.zeros((0, NPI), np.int64), np.zeros((0, NFEATURES), np.int32),
                    np.zeros((0, POS_CANDS, NPC), np.float64))
        ints = np.concatenate([p[0] for p in self._parts])
        feats = np.concatenate([p[1] for p in self._parts])
        cands = np.concatenate([p[2] for p in self._parts])
        order = np.lexsort((ints[:, PI_STEP], ints[:, PI_GAME]))
        return ints[order], feats[order], cands[order]
