"""NodePrefix: a prefix of a shared, growing list of node ids, immutable once made."""

from __future__ import annotations

import pickle

import pytest

from crewgraph.graph import NodePrefix


def test_a_prefix_shows_only_the_ids_it_was_made_with() -> None:
    pool = ["a", "b"]
    view = NodePrefix(pool, 2)
    pool.append("c")  # the compiler appends later tasks' finals to the same list
    assert list(view) == ["a", "b"]
    assert len(view) == 2
    assert view[-1] == "b"
    assert view[0:1] == ("a",)
    assert "c" not in view
    with pytest.raises(IndexError):
        view[2]


def test_equal_to_the_tuple_of_its_ids_and_hashes_alike() -> None:
    view = NodePrefix(["a", "b", "c"], 2)
    assert view == ("a", "b")
    assert view == NodePrefix(["a", "b"], 2)
    assert view != ("a", "b", "c")
    assert hash(view) == hash(("a", "b"))


def test_cannot_be_longer_than_its_pool() -> None:
    with pytest.raises(ValueError, match="prefix of 3 ids over a pool of 2"):
        NodePrefix(["a", "b"], 3)


def test_pickles_to_its_own_ids_only() -> None:
    pool = [f"t{i}" for i in range(1000)]
    view = NodePrefix(pool, 3)
    data = pickle.dumps(view)
    assert b"t999" not in data
    assert pickle.loads(data) == ("t0", "t1", "t2")
