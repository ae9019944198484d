"""Batch runs: a job of many games -> a Parquet dataset (docs/dataset.md).

A ``Job`` is what the user asks for (options, a TOML job file, or the
manifest of a run to resume). ``plan()`` resolves it into a ``Plan``: rules,
bot line-up, and a fixed split of the games into shards. Shard ``k`` holds
games ``k * shard_size ...``; game ``g`` is played from
``game_seed_nb(job seed, g)`` with the line-up rotated ``g`` seats when
``rotate`` is on. The paired seatings play each seed (a *deal*) once in each
of ``k`` seatings, a table ``[k, players]`` of line-up indices
(``Plan.seatings()``): game ``g`` plays seed ``game_seed_nb(job seed, g // k)``
in seating ``g % k``. ``"duplicate"`` (paired experiments, ``experiment``) uses
the ``players`` rotations, so player 0 sits in every seat of every deal;
``"tournament"`` (``tournament``) uses every distinct seating of the line-up's
multiset of specs, or the rotations when those would exceed
``MAX_TOURNAMENT_SEATINGS`` (``tournament_seatings``). Nothing about a game
depends on threads, workers or which shards ran before, so a resumed or
distributed run writes the same rows.

``run_shard`` plays one shard and writes its part files; ``run`` runs the
pending shards on a thread pool (the game kernel releases the GIL) or hands
them to another executor (``cluster.DaskExecutor``), keeps ``manifest.json``
up to date as shards finish, and shows progress on stderr.

The package is split by concern: ``job`` (options, job files, validation),
``planning`` (``Plan``, engine hooks, seatings, seeds, shards), ``manifest``
(manifest writing and reading, resume identity, part checks, the output lock),
``progress`` and ``execute`` (shards, ``run``, executors, signals). Every name
is re-exported here: ``runner.run``, ``runner.Job`` ... as before the split.
"""

from .. import __version__  # noqa: F401
# re-exported: runner.DEFAULT_GAMES, runner.GAMES ... as when runner was one module
from ..dataset import GAMES, HANDS, MANIFEST, SCHEMA_VERSION, DatasetError, Store, WriteError, \
    games_table, hands_table, part_name  # noqa: F401
from ..defaults import DEFAULT_GAMES, DEFAULT_OUT, DETAILS  # noqa: F401
from ..integrity import FOREIGN, JOB_META, check_part, job_meta  # noqa: F401
from ..kernels.base.records import NHF  # noqa: F401
from ..kernels.base.rng import game_seed_nb  # noqa: F401
from ..rules import MAX_PLAYERS, MIN_PLAYERS, Rules, RulesError, load_rules, overrides, preset  # noqa: F401
from .execute import (CHUNK_SECONDS, MAX_CHUNK, Interrupted, LocalExecutor, RunResult, RunStopped,  # noqa: F401
                      ShardResult, Tracker, _codes, _last_manifest, _run_locked, _say_repairs,
                      _sigterm_as_interrupt, _warm_up, play_shard, run, run_shard)
from .job import (IDENTITY_KEYS, JOB_KEYS, MAX_GAMES, MAX_SEED, SEATINGS, Job, JobError,  # noqa: F401
                  _check_int, _is_url, load_job_file, normalise, split_bots)
from .manifest import (LOCK, OutputLock, Prepared, _describe_difference, _differences,  # noqa: F401
                       _fmt_value, _manifest_or_none, _now, _part_names, _prepare, _ranges,
                       check_shards, job_for_resume, job_from_parts, new_manifest, quarantine,
                       read_manifest, rules_from_dict, same_job)
from .planning import (MAX_TOURNAMENT_SEATINGS, WARM_STATES, Engine, Plan, _bot_name, _tournament_seatings,  # noqa: F401
                   default_engine, default_shard_size, distinct_seatings_count, game_seeds, plan, play_games_warm,
                   rotations, tournament_seatings)
from .progress import Progress, _fmt_duration  # noqa: F401
