"""The containers the live hook pickles on every call (``efc_tui/compact.py``) behave as
the set / dict they stand for, through any number of pickle round trips in between."""

from __future__ import annotations

import pickle
import random

from efc_tui.compact import IntMap, IntSet, ListMap, stable_digest


def _again(x: object) -> object:
    return pickle.loads(pickle.dumps(x))


def test_intset_counts_new_members_as_a_set_does() -> None:
    rng = random.Random(1)
    ref: set[int] = set()
    got = IntSet()
    for i in range(300):
        batch = {rng.randrange(-(2**63), 2**63) if i % 3 else rng.randrange(50) for _ in range(7)}
        before = len(ref), len(got)
        ref |= batch
        got |= batch
        assert len(got) - before[1] == len(ref) - before[0]
        assert all(x in got for x in batch) and 51 not in got
        if i % 5 == 0:
            got = _again(got)  # type: ignore[assignment]
    assert len(got) == len(ref)


def test_intmap_keeps_the_first_value_of_each_key() -> None:
    rng = random.Random(2)
    ref: dict[int, int] = {}
    got = IntMap()
    for i in range(500):
        k = rng.randrange(80) * (2**40) - 2**45
        assert got.get(k) == ref.get(k)
        if k not in ref:
            ref[k] = got_v = rng.randrange(-(2**63), 2**63)
            got[k] = got_v
        if i % 7 == 0:
            got = _again(got)  # type: ignore[assignment]
    assert all(got.get(k) == v for k, v in ref.items())


def test_listmap_gives_each_key_its_list_in_order() -> None:
    rng = random.Random(3)
    ref: dict[int, list[float]] = {}
    got = ListMap()
    for i in range(400):
        k = rng.randrange(30)
        v = rng.choice([rng.random(), float("inf"), 0.0])
        assert got.setdefault(k, []) == ref.setdefault(k, [])
        got.setdefault(k, []).append(v)
        ref[k].append(v)
        if i % 9 == 0:
            got = _again(got)  # type: ignore[assignment]
    assert all(got.setdefault(k, []) == lst for k, lst in ref.items())


def test_the_stable_digest_tells_values_apart_by_type_and_boundaries() -> None:
    values = ["ab", ("ab",), ("a", "b"), (1, None, "x"), (1, "None", "x"), 1, "1", None, ""]
    assert len({stable_digest(v) for v in values}) == len(values)
