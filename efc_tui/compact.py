"""What the live hook's per-event states need to be pickled by one process and loaded by
the next, on every call: ``stable_digest``, a hash that is the same in every process
(Python's ``hash`` of a str is not), and containers (a set of ints, a map of int to int,
a map of int to a list of floats) that pickle as a few numpy arrays, so that loading a
20,000-event session's state copies arrays instead of building a Python object per member.

Members added since the state was loaded stay in plain Python containers; lookups search
the sorted arrays (``np.searchsorted``) for the rest. Each offers only the operations the
states use, with the meaning of ``set`` / ``dict``.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any, Protocol

import numpy as np

_I64 = np.int64


def _encode(x: Any) -> str:
    """A prefix-free text of a str, int, None or tuple of them (equal values, equal text)."""
    if isinstance(x, str):
        return f"s{len(x)}:{x}"
    if x is None:
        return "n"
    if isinstance(x, int):
        return f"i{x};"
    if isinstance(x, tuple):
        return f"t{len(x)}:" + "".join(map(_encode, x))
    raise TypeError(f"no stable digest for {type(x).__name__}")


def stable_digest(x: Any) -> int:
    """A 64-bit digest of a str, int, None or tuple of them that is the same in every
    process (``hash`` of a str changes with each interpreter: PYTHONHASHSEED)."""
    data = _encode(x).encode("utf-8", "surrogatepass")
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little", signed=True)


def _sorted_ints(values: Any) -> np.ndarray:
    return np.asarray(sorted(values), dtype=_I64)


def _find(arr: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Positions of ``keys`` in the sorted ``arr`` (-1 where absent)."""
    if not len(arr):
        return np.full(len(keys), -1, dtype=_I64)
    pos = np.searchsorted(arr, keys)
    pos = np.minimum(pos, len(arr) - 1)
    return np.where(arr[pos] == keys, pos, -1)


class GrowingSet(Protocol):
    """What ``PrefixState`` asks of its set of shingles: ``set[int]`` or ``IntSet``."""

    def __len__(self) -> int: ...

    def __ior__(self, other: set[int], /) -> Any: ...


class IntSet:
    """A set of 64-bit ints: ``len``, ``in`` and ``|=`` with a set."""

    __slots__ = ("_arr", "_new")

    def __init__(self) -> None:
        self._arr = np.empty(0, dtype=_I64)
        self._new: set[int] = set()

    def __len__(self) -> int:
        return len(self._arr) + len(self._new)

    def __contains__(self, x: int) -> bool:
        return x in self._new or bool(_find(self._arr, np.asarray([x], dtype=_I64))[0] >= 0)

    def __ior__(self, other: set[int]) -> IntSet:
        fresh = other - self._new
        if fresh and len(self._arr):
            keys = np.fromiter(fresh, dtype=_I64, count=len(fresh))
            found = _find(self._arr, keys) >= 0
            fresh = set(keys[~found].tolist())
        self._new |= fresh
        return self

    def __getstate__(self) -> bytes:
        if self._new:  # not in the array (``|=``): inserted where they sort
            new = _sorted_ints(self._new)
            self._arr = np.insert(self._arr, np.searchsorted(self._arr, new), new)
            self._new = set()
        return self._arr.tobytes()

    def __setstate__(self, state: bytes) -> None:
        self._arr = np.frombuffer(state, dtype=_I64)
        self._new = set()


class IntMap:
    """A map of 64-bit int to 64-bit int whose keys are set once: ``get`` and ``[k] = v``."""

    __slots__ = ("_keys", "_new", "_values")

    def __init__(self) -> None:
        self._keys = np.empty(0, dtype=_I64)
        self._values = np.empty(0, dtype=_I64)
        self._new: dict[int, int] = {}

    def get(self, key: int) -> int | None:
        got = self._new.get(key)
        if got is not None:
            return got
        pos = int(_find(self._keys, np.asarray([key], dtype=_I64))[0])
        return int(self._values[pos]) if pos >= 0 else None

    def __setitem__(self, key: int, value: int) -> None:
        self._new[key] = value

    def __getstate__(self) -> tuple[bytes, bytes]:
        if self._new:  # keys set once: not in the arrays, inserted where they sort
            keys = _sorted_ints(self._new)
            values = np.asarray([self._new[k] for k in keys.tolist()], dtype=_I64)
            at = np.searchsorted(self._keys, keys)
            self._keys = np.insert(self._keys, at, keys)
            self._values = np.insert(self._values, at, values)
            self._new = {}
        return self._keys.tobytes(), self._values.tobytes()

    def __setstate__(self, state: tuple[bytes, bytes]) -> None:
        self._keys = np.frombuffer(state[0], dtype=_I64)
        self._values = np.frombuffer(state[1], dtype=_I64)
        self._new = {}


class ListMap:
    """A map of int to a list of floats: ``setdefault(k, [])`` gives the list to append to
    (``DecideState.groups``: a step's ROI keys)."""

    __slots__ = ("_keys", "_new", "_values")

    def __init__(self) -> None:
        self._keys = np.empty(0, dtype=_I64)  # sorted; a key once per value
        self._values = np.empty(0, dtype=np.float64)
        self._new: dict[int, list[float]] = {}

    def setdefault(self, key: int, default: list[float]) -> list[float]:
        got = self._new.get(key)
        if got is None:
            lo = int(np.searchsorted(self._keys, key, side="left"))
            hi = int(np.searchsorted(self._keys, key, side="right"))
            got = self._new[key] = self._values[lo:hi].tolist() if hi > lo else default
        return got

    def __getstate__(self) -> tuple[bytes, bytes]:
        if self._new:  # the lists taken out replace their keys' values, in order
            taken = _sorted_ints(self._new)
            keep = _find(taken, self._keys) < 0
            base_k, base_v = self._keys[keep], self._values[keep]
            keys: list[int] = []
            values: list[float] = []
            for k in taken.tolist():
                lst = self._new[k]
                keys += [k] * len(lst)
                values += lst
            new_k = np.asarray(keys, dtype=_I64)
            at = np.searchsorted(base_k, new_k)
            self._keys = np.insert(base_k, at, new_k)
            self._values = np.insert(base_v, at, np.asarray(values, dtype=np.float64))
            self._new = {}
        return self._keys.tobytes(), self._values.tobytes()

    def __setstate__(self, state: tuple[bytes, bytes]) -> None:
        self._keys = np.frombuffer(state[0], dtype=_I64)
        self._values = np.frombuffer(state[1], dtype=np.float64)
        self._new = {}
