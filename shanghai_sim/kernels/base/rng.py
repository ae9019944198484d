"""Seeded randomness for the kernels: splitmix64 seeding + xoshiro256**.

A game draws every random number from one ``state`` array (uint64[4]) made
by ``seed_state_nb(game_seed)``, so a game is a pure function of its seed,
whatever thread or process plays it. ``game_seed_nb(job_seed, index)`` derives
the seed of game ``index`` of a job: no two games of a job share a stream,
and the mapping never depends on shards or threads.
"""

import numba as nb
import numpy as np

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


@nb.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True, _nrt=False)
def splitmix64_nb(x):
    x = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, _nrt=False)
def game_seed_nb(job_seed, index):
    """Seed of game ``index`` of the job seeded ``job_seed`` (both non-negative)."""
    a = splitmix64_nb(np.uint64(job_seed))
    return splitmix64_nb(a ^ splitmix64_nb(np.uint64(index) + np.uint64(0x632BE59BD9B4E019)))


@nb.njit(cache=True, _nrt=False)
def seed_state_nb(seed, state):
    """Fill ``state`` (uint64[4]) from ``seed``."""
    s = np.uint64(seed)
    for i in range(4):
        s = s + np.uint64(0x9E3779B97F4A7C15)
        z = s
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        state[i] = z ^ (z >> np.uint64(31))


@nb.njit(cache=True, _nrt=False)
def next_u64_nb(state):
    result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
    t = state[1] << np.uint64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@nb.njit(cache=True, _nrt=False)
def randint_nb(state, n):
    """Uniform integer in [0, n) (n >= 1), unbiased (Lemire's method with rejection)."""
    bound = np.uint64(n)
    while True:
        r = next_u64_nb(state)
        # 128-bit multiply emulated with 32-bit halves: take the high 64 bits of r * bound.
        r_hi = r >> np.uint64(32)
        r_lo = r & np.uint64(0xFFFFFFFF)
        b_hi = bound >> np.uint64(32)
        b_lo = bound & np.uint64(0xFFFFFFFF)
        lo_lo = r_lo * b_lo
        hi_lo = r_hi * b_lo
        lo_hi = r_lo * b_hi
        hi_hi = r_hi * b_hi
        cross = (lo_lo >> np.uint64(32)) + (hi_lo & np.uint64(0xFFFFFFFF)) + lo_hi
        high = hi_hi + (hi_lo >> np.uint64(32)) + (cross >> np.uint64(32))
        low = (cross << np.uint64(32)) | (lo_lo & np.uint64(0xFFFFFFFF))
        if low >= (np.uint64(0) - bound) % bound:
            return np.int64(high)


@nb.njit(cache=True, _nrt=False)
def shuffle_nb(state, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = randint_nb(state, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
