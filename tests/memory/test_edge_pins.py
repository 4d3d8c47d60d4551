"""Pins of qdrant-edge-py behaviour the embedded backend relies on (or works around).

If an upgrade changes one of these, the payload layout in
``crewgraph/memory/storage/_qdrant_base.py`` must be revisited.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

qe = pytest.importorskip("qdrant_edge")


def _shard(path: Path) -> Any:
    config = qe.EdgeConfig(vectors={"v": qe.EdgeVectorParams(size=2, distance=qe.Distance.Cosine)})
    shard = qe.EdgeShard.create(str(path), config)
    shard.update(qe.UpdateOperation.create_field_index("flag", qe.PayloadSchemaType.Bool))
    shard.update(qe.UpdateOperation.create_field_index("flag_int", qe.PayloadSchemaType.Integer))
    shard.update(qe.UpdateOperation.create_field_index("scope", qe.PayloadSchemaType.Keyword))
    shard.update(qe.UpdateOperation.create_field_index("anc", qe.PayloadSchemaType.Keyword))
    points = [
        qe.Point(id=str(uuid.uuid4()), vector={"v": [1.0, 0.0]}, payload={"flag": False, "flag_int": 0, "scope": "/a/b", "anc": ["/", "/a", "/a/b"]}),
        qe.Point(id=str(uuid.uuid4()), vector={"v": [0.0, 1.0]}, payload={"flag": True, "flag_int": 1, "scope": "/a/bc", "anc": ["/", "/a", "/a/bc"]}),
    ]
    shard.update(qe.UpdateOperation.upsert_points(points))
    return shard


def _count(shard: Any, condition: Any) -> int:
    return int(shard.count(qe.CountRequest(exact=True, filter=qe.Filter(must=[condition]))))


def test_boolean_payloads_cannot_be_filtered_so_flags_are_integers(tmp_path: Path) -> None:
    shard = _shard(tmp_path / "s")
    try:
        assert _count(shard, qe.FieldCondition(key="flag", match=qe.MatchValue(False))) == 0  # the trap
        assert _count(shard, qe.FieldCondition(key="flag_int", match=qe.MatchValue(0))) == 1
    finally:
        shard.close()


def test_prefix_match_crosses_segment_boundaries_so_ancestors_are_stored(tmp_path: Path) -> None:
    shard = _shard(tmp_path / "s")
    try:
        assert _count(shard, qe.FieldCondition(key="scope", match=qe.MatchPrefix("/a/b"))) == 2  # "/a/bc" too
        assert _count(shard, qe.FieldCondition(key="anc", match=qe.MatchValue("/a/b"))) == 1
        assert _count(shard, qe.FieldCondition(key="anc", match=qe.MatchAny(["/a/b", "/a/bc"]))) == 2
    finally:
        shard.close()


def test_a_shard_opens_once_per_process(tmp_path: Path) -> None:
    shard = _shard(tmp_path / "s")
    try:
        with pytest.raises(Exception, match=r"WouldBlock|WAL"):
            qe.EdgeShard.load(str(tmp_path / "s"))
    finally:
        shard.close()


def test_cosine_scores_and_facets(tmp_path: Path) -> None:
    shard = _shard(tmp_path / "s")
    try:
        hits = shard.query(qe.QueryRequest(limit=2, query=qe.Query.Nearest([1.0, 0.0], using="v"), with_payload=True))
        assert [round(h.score, 4) for h in hits] == [1.0, 0.0]  # cosine similarity, not distance
        facet = shard.facet(qe.FacetRequest(key="anc", limit=10, exact=True))
        assert {(h.value, h.count) for h in facet} == {("/", 2), ("/a", 2), ("/a/b", 1), ("/a/bc", 1)}
    finally:
        shard.close()


def test_backend_creates_payload_indexes(tmp_path: Path) -> None:
    from crewgraph.memory import MemoryRecord
    from crewgraph.memory.storage._qdrant_base import INDEXES
    from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage

    store = QdrantEdgeStorage(tmp_path / "mem")
    try:
        store.save([MemoryRecord(content="x", embedding=[1.0, 0.0])])
        schema = store._run(lambda s: s.shard.info().payload_schema)
        assert set(INDEXES) <= set(schema)
        assert str(schema["private"].data_type).endswith("Integer")
    finally:
        store.close()
