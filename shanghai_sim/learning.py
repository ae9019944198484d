"""Models learned from the simulator's own games (issue #57, docs/learning.md): the value
model, a seat's expected points at the hand's end and its chance to go out, from the features
of the ``positions`` table (what the seat can see, ``shanghai_sim.positions``).

    >>> from shanghai_sim.learning import train_value, value_model
    >>> model, report = train_value("positions-demo")       # doctest: +SKIP
    >>> model.save("value.npz")                             # doctest: +SKIP
    >>> value_model("shanghai").model_id                    # the shipped model  # doctest: +SKIP

The model is linear in fixed terms of the features (``kernels.bots.value``: a cell per
contract, deficiency and turn bucket, and terms for points, outs, buys and what the other
seats show), fitted by ridge least squares with numpy's linear algebra on whole games, and
tested on other whole games (``holdout``, chosen from each game's seed): its error there is
reported beside the two baselines of ../ANALYSIS (a mean by contract and deficiency; and by
contract, deficiency and turn bucket), with a 95% confidence interval clustered by game, and
its calibration in bins. The same dataset, seed and options give the same weights.

The weights are a ``float64[n_terms, 2]`` array (points, chance to go out) with the model's
metadata (the rules it learned, the data, the held-out report) in one ``.npz`` file; the
models for the presets ship in ``shanghai_sim/models/`` (package data). A model's identity
``model_id`` is the hash of its terms' version and weights.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from .dataset import POSITIONS
from .integrity import NotADatasetError, iter_parts, load_manifest
from .kernels.base.codes import PHASE_WORD
from .kernels.base.positions import FEATURE_NAMES, F_DEF, F_HAND, F_OWN_TURNS
from .kernels.bots.value import NGLOBAL, NOUT, NTERMS, TURN_EDGES, VALUE_OUT, VALUE_POINTS, n_terms

MODELS = Path(__file__).parent / "models"
# the terms' version (kernels.bots.value): weights fitted to other terms are another model
TERMS_VERSION = 1
DEFAULT_HOLDOUT = 0.2
DEFAULT_RIDGE = 1.0
_CHUNK = 1 << 15
_PHASE_OF_WORD = {w: v for v, w in PHASE_WORD.items()}


class ModelError(ValueError):
    """A model file that cannot be used, or a dataset a model cannot be trained on (one line)."""


@dataclass(frozen=True)
class ValueModel:
    """A value model: ``weights`` (float64[n_terms, 2]: points, chance to go out) for the rules
    ``meta["rules"]`` names, with the data it learned from and its held-out report."""
    weights: np.ndarray
    meta: dict[str, Any]

    @property
    def model_id(self) -> str:
        """``value-`` and 12 hex digits of the SHA-256 of the terms' version and the weights."""
        h = hashlib.sha256(f"terms={TERMS_VERSION};shape={self.weights.shape}".encode())
        h.update(np.ascontiguousarray(self.weights, "<f8").tobytes())
        return "value-" + h.hexdigest()[:12]

    @property
    def contracts(self) -> int:
        return int(self.meta["contracts"])

    def save(self, path: str | os.PathLike) -> None:
        """Write the model to ``path`` (``.npz``) whole or not at all (a temporary file renamed)."""
        path = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=".value-", suffix=".npz", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, weights=self.weights, meta=np.array(json.dumps(self.meta, sort_keys=True)))
            mask = os.umask(0o022)          # a new file's mode, as open() would give it (mkstemp: 0600)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike) -> "ValueModel":
        """Read a model written by ``save``; anything else is a one-line ``ModelError``."""
        try:
            with np.load(path, allow_pickle=False) as z:
                weights = np.array(z["weights"], np.float64)
                meta = json.loads(str(z["meta"]))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
            raise ModelError(f"{str(path)!r} is not a value model file ({type(e).__name__}: {e})") from None
        if (not isinstance(meta, dict) or meta.get("terms") != TERMS_VERSION
                or not isinstance(meta.get("contracts"), int) or meta["contracts"] < 1
                or weights.shape != (n_terms(meta["contracts"]), NOUT) or not np.isfinite(weights).all()):
            raise ModelError(f"{str(path)!r} is not a value model of this version (terms {TERMS_VERSION}, "
                             "finite weights for its contracts)")
        return cls(weights, meta)

    def predict(self, features: np.ndarray, phases: np.ndarray) -> np.ndarray:
        """float64[n, 2]: points and chance to go out for rows of features (``FEATURES``
        order) at decisions of ``phases`` (``PH_*`` codes); the chance is not clipped here."""
        out = np.empty((len(features), NOUT))
        for lo, X in _term_chunks(features, phases, self.contracts):
            out[lo:lo + len(X)] = X @ self.weights
        return out


def value_model(rules: str) -> ValueModel:
    """The model shipped for the preset ``rules`` (``shanghai_sim/models/value-RULES.npz``)."""
    path = MODELS / f"value-{rules}.npz"
    if not path.is_file():
        have = sorted(p.stem[len("value-"):] for p in MODELS.glob("value-*.npz"))
        raise ModelError(f"no value model ships for rules {rules!r} (models for: {', '.join(have) or 'none'})")
    return ValueModel.load(path)


def _term_chunks(F: np.ndarray, phases: np.ndarray, nh: int):
    """(first row, terms of rows first.. first+len) in chunks of ``_CHUNK`` rows."""
    from .kernels.bots.value import value_rows_nb
    buf = np.empty((min(_CHUNK, max(len(F), 1)), n_terms(nh)))
    for lo in range(0, len(F), _CHUNK):
        f = np.ascontiguousarray(F[lo:lo + _CHUNK])
        X = buf[:len(f)]
        value_rows_nb(f, np.ascontiguousarray(phases[lo:lo + _CHUNK], np.int64), nh, X)
        yield lo, X


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, vectorised (uint64 arithmetic wraps)."""
    x = np.asarray(x, np.uint64)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def held_out(game_seeds: np.ndarray, seed: int, share: float) -> np.ndarray:
    """bool per row: its game is held out (a share of the games, chosen by a hash of the game's
    seed and ``seed``: whole games, the same whatever the rows' order)."""
    with np.errstate(over="ignore"):
        h = _mix(np.asarray(game_seeds, np.uint64) ^ _mix(np.array([seed % 2**64], np.uint64))[0])
    return (h % np.uint64(1_000_000)).astype(np.int64) < round(share * 1_000_000)


def turn_buckets(own_turns: np.ndarray) -> np.ndarray:
    """The turn bucket of each row (``kernels.bots.value.turn_bucket_nb``)."""
    return np.searchsorted(np.array(TURN_EDGES), np.asarray(own_turns), side="left")


@dataclass
class Positions:
    """The columns of a positions table a model reads: the features (int16[n, 68]), the
    decisions (``PH_*``), each row's game seed and outcomes."""
    features: np.ndarray
    phases: np.ndarray
    game_seeds: np.ndarray
    points: np.ndarray
    went_out: np.ndarray


def read_positions(dataset: str) -> tuple[Positions, dict[str, Any]]:
    """The positions of ``dataset`` (every part checked, ``integrity.iter_parts``) and its manifest."""
    from .dataset import Store
    m = load_manifest(Store(dataset))
    if POSITIONS not in (m.get("tables") or ()):
        raise ModelError(f"{dataset!r} has no positions/ table: write one with `shanghai-sim run --positions ...`")
    cols = ["game_seed", "decision", "points", "went_out", *FEATURE_NAMES]
    parts = [t for _, t in iter_parts(dataset, POSITIONS, cols)]
    if not parts or sum(t.num_rows for t in parts) == 0:
        raise ModelError(f"{dataset!r} holds no finished positions yet")
    feats, phases, seeds, pts, out = [], [], [], [], []
    for t in parts:
        feats.append(np.column_stack([t.column(n).to_numpy() for n in FEATURE_NAMES]).astype(np.int16))
        decision = t.column("decision").to_pandas()           # dictionary-encoded: categorical
        code = np.array([_PHASE_OF_WORD[w] for w in decision.cat.categories], np.int8)
        phases.append(code[decision.cat.codes.to_numpy()])
        seeds.append(t.column("game_seed").to_numpy())
        pts.append(t.column("points").to_numpy().astype(np.float64))
        out.append(t.column("went_out").to_numpy(zero_copy_only=False).astype(np.float64))
    cat = np.concatenate
    return Positions(cat(feats), cat(phases), cat(seeds), cat(pts), cat(out)), m


def _baseline(train: pd.DataFrame, test: pd.DataFrame, keys: list[str], target: str) -> np.ndarray:
    """The mean of ``target`` over training rows of each key, for the test rows (an unseen key:
    its contract's mean, then the overall mean)."""
    cell = train.groupby(keys)[target].mean().rename("cell")
    hand = train.groupby("hand")[target].mean().rename("by_hand")
    p = test[keys].join(cell, on=keys)["cell"]
    p = p.fillna(test[["hand"]].join(hand, on="hand")["by_hand"])
    return p.fillna(train[target].mean()).to_numpy()


def _paired(err_base: np.ndarray, err_model: np.ndarray, games: np.ndarray) -> dict[str, float]:
    """The base's mean squared error less the model's, with a 95% interval clustered by game."""
    d = pd.Series(err_base ** 2 - err_model ** 2).groupby(games).sum().to_numpy()
    n = len(err_base)
    gain = d.sum() / n
    se = math.sqrt(len(d) * d.var(ddof=1)) / n if len(d) > 1 else float("nan")
    return {"gain": gain, "lo": gain - 1.96 * se, "hi": gain + 1.96 * se}


def _calibration(pred: np.ndarray, obs: np.ndarray, edges: np.ndarray) -> list[dict[str, float]]:
    b = np.digitize(pred, edges[1:-1])
    rows = []
    for k in range(len(edges) - 1):
        sel = b == k
        if sel.any():
            rows.append({"lo": float(edges[k]), "hi": float(edges[k + 1]), "n": int(sel.sum()),
                         "predicted": float(pred[sel].mean()), "observed": float(obs[sel].mean())})
    return rows


def train_value(dataset: str, *, seed: int = 1, holdout: float = DEFAULT_HOLDOUT, ridge: float = DEFAULT_RIDGE,
                progress: Callable[[str], None] | None = None,
                timings: dict[str, float] | None = None) -> tuple[ValueModel, dict[str, Any]]:
    """Fit the value model on the positions of ``dataset`` but a held-out share of its games
    (``held_out``), and test it on those: (the model, its held-out report). ``timings``, when
    given, receives the seconds spent reading, fitting and testing."""
    say = progress or (lambda s: None)
    clock = {} if timings is None else timings
    t0 = time.perf_counter()
    if not 0 < holdout < 1:
        raise ModelError(f"holdout {holdout!r}: the share of games held out, above 0 and below 1")
    if not (ridge >= 0 and math.isfinite(ridge)):
        raise ModelError(f"ridge {ridge!r}: a penalty of 0 or more")
    P, m = read_positions(dataset)
    clock["read"] = time.perf_counter() - t0
    nh = len(m["rules"]["contracts"])
    test = held_out(P.game_seeds, seed, holdout)
    games_test = int(len(np.unique(P.game_seeds[test])))
    games_train = int(len(np.unique(P.game_seeds[~test])))
    if games_test == 0 or games_train == 0:
        raise ModelError(f"{dataset!r}: {games_train + games_test} games, too few to hold some out "
                         f"(holdout {holdout}); run more games")
    say(f"{len(P.points):,} positions of {games_train + games_test:,} games: {int((~test).sum()):,} to fit, "
        f"{int(test.sum()):,} of {games_test:,} games held out")
    # ridge least squares: (X'X + ridge I) w = X'y over the training rows, the intercept free
    t0 = time.perf_counter()
    k = n_terms(nh)
    A = np.zeros((k, k))
    b = np.zeros((k, NOUT))
    Y = np.column_stack([P.points, P.went_out])
    Ftr, phtr, Ytr = P.features[~test], P.phases[~test], Y[~test]
    for lo, X in _term_chunks(Ftr, phtr, nh):
        A += X.T @ X
        b += X.T @ Ytr[lo:lo + len(X)]
    pen = np.full(k, ridge)
    pen[k - NGLOBAL] = 0.0                      # the intercept, the first shared term
    W = np.linalg.solve(A + np.diag(pen), b)
    meta = {"terms": TERMS_VERSION, "contracts": nh, "rules": m["rules"], "trained_on": {
        "dataset": os.path.basename(os.path.normpath(dataset)), "job": m["job"], "bots": m.get("bots", {}).get("versions"),
        "positions": len(P.points), "games": games_train + games_test},
        "fit": {"seed": seed, "holdout": holdout, "ridge": ridge, "rows": int((~test).sum()), "games": games_train}}
    model = ValueModel(W, meta)
    clock["fit"] = time.perf_counter() - t0
    say("fitted; testing on the held-out games")
    t0 = time.perf_counter()
    report = _held_out_report(model, P, test)
    clock["test"] = time.perf_counter() - t0
    meta["held_out"] = report
    return model, report


def _held_out_report(model: ValueModel, P: Positions, test: np.ndarray) -> dict[str, Any]:
    F = P.features
    frame = pd.DataFrame({"hand": F[:, F_HAND], "deficiency": F[:, F_DEF],
                          "turns": turn_buckets(F[:, F_OWN_TURNS]), "points": P.points, "went_out": P.went_out})
    tr, te = frame[~test], frame[test]
    pred = model.predict(F[test], P.phases[test])
    games = P.game_seeds[test]
    out: dict[str, Any] = {"rows": int(test.sum()), "games": int(len(np.unique(games))), "targets": {}}
    for target, col, edges in (("points", VALUE_POINTS, None), ("went_out", VALUE_OUT, np.linspace(0, 1, 11))):
        y = te[target].to_numpy()
        mp = pred[:, col] if target == "points" else np.clip(pred[:, col], 0, 1)
        preds = {"model": mp,
                 "contract_deficiency": _baseline(tr, te, ["hand", "deficiency"], target),
                 "contract_deficiency_turns": _baseline(tr, te, ["hand", "deficiency", "turns"], target)}
        t: dict[str, Any] = {"mean": float(y.mean())}
        for name, p in preds.items():
            e = p - y
            t[name] = {"rmse": float(np.sqrt(np.mean(e ** 2))), "mae": float(np.mean(np.abs(e)))}
            if name != "model":
                t[name]["model_gain"] = _paired(e, mp - y, games)
        if edges is None:
            edges = np.unique(np.quantile(mp, np.linspace(0, 1, 11)))
        t["calibration"] = _calibration(mp, y, edges)
        out["targets"][target] = t
    return out


_PREDICTORS = (("model", "the model"), ("contract_deficiency", "mean by contract and deficiency"),
               ("contract_deficiency_turns", "mean by contract, deficiency and turn bucket"))


def format_report(model: ValueModel, report: dict[str, Any]) -> str:
    """The held-out report as text: each target's error beside the baselines', the squared
    error each baseline loses to the model (95% interval clustered by game), and calibration."""
    fit = model.meta["fit"]
    lines = [f"value model {model.model_id}: fitted on {fit['rows']:,} positions of {fit['games']:,} games, "
             f"tested on {report['rows']:,} of {report['games']:,} other games (seed {fit['seed']}, "
             f"holdout {fit['holdout']:g}, ridge {fit['ridge']:g})"]
    for target, title, fmt in (("points", "points at the hand's end", "{:7.2f}"),
                               ("went_out", "went out (RMSE: the root of the Brier score)", "{:7.3f}")):
        t = report["targets"][target]
        lines += ["", f"{title}, held out (mean {t['mean']:.3g}):",
                  f"  {'predictor':<46} {'RMSE':>7} {'MAE':>7}   squared error less the model's [95% CI]"]
        for key, name in _PREDICTORS:
            e = t[key]
            gain = e.get("model_gain")
            g = "" if gain is None else f"   {gain['gain']:+.4g} [{gain['lo']:+.4g}, {gain['hi']:+.4g}]"
            lines.append(f"  {name:<46} {fmt.format(e['rmse'])} {fmt.format(e['mae'])}{g}")
        lines.append(f"  calibration (bins of the model's prediction): {'predicted':>9} {'observed':>9} {'n':>9}")
        for c in t["calibration"]:
            lines.append(f"  {'':<46} {fmt.format(c['predicted']):>9} {fmt.format(c['observed']):>9} {c['n']:>9,}")
    return "\n".join(lines)


def seat_value(game: Any, seat: int | None = None, model: ValueModel | None = None) -> dict[str, float]:
    """The value model's estimate for ``seat`` (default: the seat to act) of ``game`` (a
    ``shanghai_sim.game.Game``), from its seat's features (``positions.seat_features``) at the
    game's decision: ``points`` expected at the hand's end, ``went_out`` its chance to go out.
    The model: ``model``, or the one shipped for the game's rules preset."""
    from .kernels.bots.value import value_nb
    from .positions import seat_features
    if model is None:
        model = value_model(game.rules.name)
    x = np.array(list(seat_features(game, seat).values()), np.int32)
    phase = _PHASE_OF_WORD.get(game.phase)
    if phase is None:
        raise ValueError(f"the game is at {game.phase!r}: no seat decides there")
    idx = np.empty(NTERMS, np.int64)
    val = np.empty(NTERMS, np.float64)
    p, o = value_nb(model.weights, x, np.int64(phase), idx, val)
    return {"points": float(p), "went_out": float(o)}
