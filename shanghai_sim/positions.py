"""Decision positions as numbers: the features of the ``positions`` table (docs/dataset.md),
what a seat can see of a game, for a pandas user or a model.

``FEATURES`` names them, in the order of the table's feature columns, each with its meaning;
``seat_features(game)`` computes them for the seat to act of a ``Game``, from its seat's view
alone (``kernels.bots.features``), as ``run --positions`` records them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .kernels.base.positions import FEATURES, NFEATURES

if TYPE_CHECKING:
    from .game import Game

FEATURE_NAMES = tuple(n for n, _ in FEATURES)
__all__ = ["FEATURES", "FEATURE_NAMES", "seat_features"]


def seat_features(game: "Game", seat: int | None = None) -> dict[str, int]:
    """The features of ``seat`` (default: the seat to act) in ``game``, read from its view."""
    from .kernels.bots.features import features_nb
    from .kernels.engine.state import seat_view, seat_view_done_nb
    p = game.to_act if seat is None else int(seat)
    if not 0 <= p < game.players:
        raise ValueError(f"seat {seat}: the table has seats 0..{game.players - 1}")
    x = np.zeros(NFEATURES, np.int32)
    G = game.G
    V = seat_view(G, p)
    try:
        features_nb(game.R, V, np.int64(p), x)
    finally:
        seat_view_done_nb(G, np.int64(p))
    return dict(zip(FEATURE_NAMES, (int(v) for v in x)))
