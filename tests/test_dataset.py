"""The dataset layer: schemas, game results, atomic part files, storage by path or URL."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from shanghai_sim import dataset as D
from shanghai_sim.kernels.base import records as R


def _records(n=3, hands=2, players=4, seed=0):
    rng = np.random.default_rng(seed)
    out = np.zeros((n, hands, players, R.NHF), dtype=np.int32)
    out[..., R.HF_POINTS] = rng.integers(0, 80, out.shape[:3])
    out[..., R.HF_DOWN_TURN] = rng.integers(-1, 5, out.shape[:3])
    out[..., R.HF_TURNS] = rng.integers(1, 30, out.shape[:3])
    return out


def _tables(rec):
    n, h, p, _ = rec.shape
    games = np.arange(10, 10 + n)
    seeds = np.arange(n, dtype=np.uint64) + np.uint64(2**63)
    player = (np.arange(p)[None, :] - games[:, None]) % p
    bot_code = (player > 0).astype(np.int64)                  # player 0 is "random"
    hands = D.hands_table(rec, games, seeds, player, bot_code, ["random", "greedy"],
                          np.arange(h) % 2, ["set3 set3", "set3 run4"])
    return hands, D.games_table(rec, games, seeds, player, bot_code, ["random", "greedy"])


# docs/rules.md §5.7: the lowest total wins; equal totals share the win.
@pytest.mark.parametrize("totals, ranks, shares", [
    ([10, 20, 30, 40], [1, 2, 3, 4], [1, 0, 0, 0]),
    ([10, 10, 20, 30], [1, 1, 3, 4], [0.5, 0.5, 0, 0]),
    ([30, 20, 20, 20], [4, 1, 1, 1], [0, 1 / 3, 1 / 3, 1 / 3]),
    ([50, 50, 50, 50], [1, 1, 1, 1], [0.25] * 4),
    ([-25, 0, 0, 5], [1, 2, 2, 4], [1, 0, 0, 0]),             # a blind bonus can go negative
])
def test_rank_and_win_share_ties_share_the_better_rank(totals, ranks, shares):
    rec = np.zeros((1, 2, 4, R.NHF), dtype=np.int32)
    rec[0, 0, :, R.HF_POINTS] = totals                         # hand 2 scores 0 for everyone
    total, rank, share = D.game_results(rec)
    assert total[0].tolist() == totals
    assert rank[0].tolist() == ranks
    np.testing.assert_allclose(share[0], shares)
    assert share.sum() == pytest.approx(1.0)


def test_tables_follow_the_schemas_row_order_and_nulls():
    rec = _records()
    hands, games = _tables(rec)
    assert hands.schema.equals(D.HANDS_SCHEMA) and games.schema.equals(D.GAMES_SCHEMA)
    assert hands.num_rows == 3 * 2 * 4 and games.num_rows == 3 * 4
    h = hands.to_pandas()
    assert set(h.ended) == {"out"} and list(h.ended.cat.categories) == ["out", "stock", "turn_cap"]
    # game-major, then hand, then seat
    assert list(zip(h.game, h.hand, h.seat))[:5] == [(10, 1, 0), (10, 1, 1), (10, 1, 2), (10, 1, 3), (10, 2, 0)]
    never = rec[..., R.HF_DOWN_TURN].ravel() < 0
    assert h.down_turn.isna().to_numpy().tolist() == never.tolist()
    assert h.game_seed.iloc[0] == 2**63                        # uint64 survives
    assert str(h.contract.dtype) == "category" and str(h.bot.dtype) == "category"
    g = games.to_pandas()
    assert (g.points.to_numpy().reshape(3, 4) == rec[..., R.HF_POINTS].sum(axis=1)).all()
    assert g.loc[g.player == 0, "bot"].eq("random").all() and g.loc[g.player > 0, "bot"].eq("greedy").all()


def test_a_value_outside_the_compact_type_raises_instead_of_wrapping():
    rec = _records()
    rec[0, 0, 0, R.HF_CARDS_LEFT] = 300                        # uint8 column
    with pytest.raises(OverflowError, match="cards_left"):
        _tables(rec)


def test_part_files_are_written_atomically(tmp_path, monkeypatch):
    store = D.Store(tmp_path / "out")
    store.makedirs("games")
    hands, games = _tables(_records())
    store.write_table(games, "games", D.part_name(0))
    assert store.listdir("games") == ["part-00000.parquet"]
    assert pq.read_table(tmp_path / "out" / "games" / "part-00000.parquet").equals(games)

    # A writer that dies half way (bytes written, not yet synced and renamed) leaves
    # neither a part file nor its temporary.
    def broken(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(D.os, "fsync", broken)
    with pytest.raises(KeyboardInterrupt):
        store.write_table(games, "games", D.part_name(1))
    assert store.listdir("games") == ["part-00000.parquet"]


def test_a_full_disk_is_a_write_error_naming_the_file_and_leaves_nothing(tmp_path, monkeypatch):
    import errno
    store = D.Store(tmp_path / "out")
    store.makedirs("games")
    _, games = _tables(_records())

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(D.os, "fsync", full)
    with pytest.raises(D.WriteError, match=r"cannot write .*games/part-00001.parquet: No space left") as e:
        store.write_table(games, "games", D.part_name(1))
    assert e.value.errno == errno.ENOSPC
    assert store.listdir("games") == []


def test_parts_carry_page_checksums_and_a_record_of_their_bytes(tmp_path):
    import hashlib
    store = D.Store(tmp_path)
    store.makedirs("games")
    _, games = _tables(_records())
    rec = store.write_table(games, "games", "part-00000.parquet")
    data = (tmp_path / "games" / "part-00000.parquet").read_bytes()
    assert rec == {"bytes": len(data), "rows": games.num_rows, "sha256": hashlib.sha256(data).hexdigest()}
    assert D.table_bytes(games) == data                        # the same table, the same bytes
    # a byte changed inside a data page: the page checksum catches it on reading
    pf = pq.ParquetFile(tmp_path / "games" / "part-00000.parquet")
    col = pf.metadata.row_group(0).column(5)                   # points
    bad = bytearray(data)
    start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
    at = start + col.total_compressed_size - 4                 # the last bytes of its data page
    bad[at] ^= 0xFF
    (tmp_path / "bad.parquet").write_bytes(bytes(bad))
    with pytest.raises(OSError, match="(?i)checksum|crc"):
        pq.read_table(tmp_path / "bad.parquet", page_checksum_verification=True)


def test_readers_skip_leftover_temporaries(tmp_path):
    store = D.Store(tmp_path)
    store.makedirs("games")
    _, games = _tables(_records())
    store.write_table(games, "games", "part-00000.parquet")
    (tmp_path / "games" / ".part-00001.parquet.tmp-123-abcd").write_bytes(b"junk from a kill -9")
    assert len(pd.read_parquet(tmp_path / "games")) == games.num_rows
    assert store.sweep_temporaries("games") == 1
    assert store.listdir("games") == ["part-00000.parquet"]


def test_a_url_location_works_like_a_path(tmp_path):
    store = D.Store(f"file://{tmp_path}/viaurl")
    assert store.fs is not None
    store.makedirs("games")
    _, games = _tables(_records())
    store.write_table(games, "games", "part-00000.parquet")
    store.write_json({"a": 1}, "manifest.json")
    assert store.listdir() == ["games", "manifest.json"]
    assert store.read_text("manifest.json").strip().startswith("{")
    assert pq.read_table(tmp_path / "viaurl" / "games").num_rows == games.num_rows
    store.delete("games")
    assert not store.exists("games")


def test_an_unwritable_location_is_one_line(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(D.DatasetError, match="not writable"):
        D.Store(tmp_path / "file" / "out").probe()
