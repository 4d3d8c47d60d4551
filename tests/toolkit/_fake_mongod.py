"""A tiny server speaking MongoDB's wire protocol, enough for pymongo and Atlas Vector Search.

No mongod (let alone Atlas, whose ``$vectorSearch`` stage exists nowhere else)
can be had offline, so the MongoDB tool is contract-tested against this: real
pymongo, real BSON over a real socket (OP_QUERY for the legacy handshake,
OP_MSG for everything else), and Atlas's documented semantics for the few
commands the tool sends — ``insert``, ``createSearchIndexes``, ``aggregate``
with ``$vectorSearch`` (cosine scores ``(1 + cos) / 2``, ``filter`` on
equality/``$in``), ``$set``/``$project``/``$match`` and ``$listSearchIndexes``.

It also answers Azure DocumentDB's (ex Cosmos DB vCore's) documented vector
search for AzureDocumentDBVectorSearchTool: ``createIndexes`` with a
``cosmosSearch`` key and ``cosmosSearchOptions``, and ``$search`` with
``cosmosSearch`` (``k``, ``filter``; COS scores are the cosine, L2 the
distance, IP the dot product) projected with ``{"$meta": "searchScore"}`` and
``"$$ROOT"``. An unknown index is DocumentDB's error, not an empty answer.
"""

from __future__ import annotations

import datetime as dt
import math
import socket
import struct
import threading
from typing import Any

import bson

OP_REPLY, OP_QUERY, OP_MSG = 1, 2004, 2013


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def _matches(doc: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    for key, cond in (flt or {}).items():
        value = doc.get(key)
        if isinstance(cond, dict):
            if "$eq" in cond and value != cond["$eq"]:
                return False
            if "$in" in cond and value not in cond["$in"]:
                return False
        elif value != cond:
            return False
    return True


class FakeMongod:
    def __init__(self) -> None:
        self.collections: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.search_indexes: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.cosmos_indexes: dict[tuple[str, str], dict[str, Any]] = {}
        """(db, collection) -> {path: cosmosSearchOptions} of DocumentDB vector indexes."""
        self.commands: list[dict[str, Any]] = []
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._stop = False
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def uri(self) -> str:
        return f"mongodb://127.0.0.1:{self._sock.getsockname()[1]}/?directConnection=true&serverSelectionTimeoutMS=5000"

    def __enter__(self) -> FakeMongod:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop = True
        self._sock.close()

    # -- transport ------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            while True:
                header = self._read(conn, 16)
                if header is None:
                    return
                length, request_id, _to, opcode = struct.unpack("<iiii", header)
                body = self._read(conn, length - 16)
                if body is None:
                    return
                if opcode == OP_QUERY:
                    cstring_end = body.index(b"\x00", 4)
                    query = bson.decode_all(body[cstring_end + 9 :])[0]
                    reply = bson.encode(self._command(query, "admin"))
                    payload = struct.pack("<iqii", 0, 0, 0, 1) + reply
                    conn.sendall(struct.pack("<iiii", 16 + len(payload), request_id + 1, request_id, OP_REPLY) + payload)
                elif opcode == OP_MSG:
                    flags = struct.unpack("<I", body[:4])[0]
                    command = self._sections(body[4 : len(body) - (4 if flags & 1 else 0)])
                    reply = bson.encode(self._command(command, command.get("$db", "admin")))
                    if not flags & 2:  # moreToCome: the client expects no answer
                        payload = struct.pack("<I", 0) + b"\x00" + reply
                        conn.sendall(struct.pack("<iiii", 16 + len(payload), request_id + 1, request_id, OP_MSG) + payload)
                else:
                    return

    @staticmethod
    def _read(conn: socket.socket, size: int) -> bytes | None:
        data = b""
        while len(data) < size:
            try:
                chunk = conn.recv(size - len(data))
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk
        return data

    @staticmethod
    def _sections(raw: bytes) -> dict[str, Any]:
        command: dict[str, Any] = {}
        pos = 0
        while pos < len(raw):
            kind = raw[pos]
            pos += 1
            size = struct.unpack("<i", raw[pos : pos + 4])[0]
            if kind == 0:
                command.update(bson.decode(raw[pos : pos + size]))
            else:
                end = raw.index(b"\x00", pos + 4)
                name = raw[pos + 4 : end].decode()
                command[name] = bson.decode_all(raw[end + 1 : pos + size])
            pos += size
        return command

    # -- commands -------------------------------------------------------------------
    def _command(self, cmd: dict[str, Any], db: str) -> dict[str, Any]:
        name = next(iter(cmd))
        self.commands.append(cmd)
        if name.lower() in ("ismaster", "hello"):
            return {"helloOk": True, "ismaster": True, "isWritablePrimary": True, "maxBsonObjectSize": 16 * 1024 * 1024,
                    "maxMessageSizeBytes": 48_000_000, "maxWriteBatchSize": 100_000, "localTime": dt.datetime.now(dt.UTC),
                    "logicalSessionTimeoutMinutes": 30, "connectionId": 1, "minWireVersion": 0, "maxWireVersion": 21,
                    "readOnly": False, "ok": 1.0}
        if name in ("ping", "endSessions", "buildInfo", "buildinfo"):
            return {"ok": 1.0, "version": "7.0.0"}
        if name == "insert":
            docs = self.collections.setdefault((db, cmd["insert"]), [])
            docs.extend(cmd.get("documents", []))
            return {"n": len(cmd.get("documents", [])), "ok": 1.0}
        if name == "createSearchIndexes":
            indexes = self.search_indexes.setdefault((db, cmd["createSearchIndexes"]), [])
            for spec in cmd["indexes"]:
                indexes.append({"id": f"idx{len(indexes)}", "name": spec["name"], "type": spec.get("type", "search"),
                                "status": "READY", "queryable": True, "latestDefinition": spec["definition"]})
            return {"indexesCreated": [{"id": i["id"], "name": i["name"]} for i in indexes], "ok": 1.0}
        if name == "createIndexes":
            for spec in cmd["indexes"]:
                for path, kind in spec["key"].items():
                    if kind == "cosmosSearch":
                        self.cosmos_indexes.setdefault((db, cmd["createIndexes"]), {})[path] = spec["cosmosSearchOptions"]
            return {"createdCollectionAutomatically": False, "numIndexesBefore": 1, "numIndexesAfter": 2, "ok": 1.0}
        if name == "aggregate":
            key = (db, cmd["aggregate"])
            if any("$search" in stage for stage in cmd["pipeline"]):
                search = next(s["$search"] for s in cmd["pipeline"] if "$search" in s)["cosmosSearch"]
                if search["path"] not in self.cosmos_indexes.get(key, {}):
                    return {"ok": 0.0, "errmsg": f"no vector index on {search['path']}", "code": 2, "codeName": "BadValue"}
            batch = self._pipeline(key, cmd["pipeline"])
            return {"cursor": {"firstBatch": batch, "id": 0, "ns": f"{db}.{cmd['aggregate']}"}, "ok": 1.0}
        return {"ok": 0.0, "errmsg": f"no such command: '{name}'", "code": 59, "codeName": "CommandNotFound"}

    def _pipeline(self, key: tuple[str, str], stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        docs = [dict(d) for d in self.collections.get(key, [])]
        for stage in stages:
            op, arg = next(iter(stage.items()))
            if op == "$listSearchIndexes":
                docs = [dict(i) for i in self.search_indexes.get(key, []) if not arg.get("name") or i["name"] == arg["name"]]
            elif op == "$vectorSearch":
                names = [i["name"] for i in self.search_indexes.get(key, [])]
                if arg["index"] not in names:
                    return []  # Atlas answers an unknown index with no results, not an error
                scored = [
                    (d, (1 + _cosine(arg["queryVector"], d[arg["path"]])) / 2)
                    for d in docs if isinstance(d.get(arg["path"]), list) and _matches(d, arg.get("filter"))
                ]
                scored.sort(key=lambda pair: -pair[1])
                docs = []
                for doc, score in scored[: arg["limit"]]:
                    doc["__score"] = score
                    docs.append(doc)
            elif op == "$search":
                search = arg["cosmosSearch"]
                options = self.cosmos_indexes[key][search["path"]]
                scored = []
                for d in docs:
                    vec = d.get(search["path"])
                    if not isinstance(vec, list) or not _matches(d, search.get("filter")):
                        continue
                    if options["similarity"] == "COS":
                        score = _cosine(search["vector"], vec)
                    elif options["similarity"] == "IP":
                        score = sum(x * y for x, y in zip(search["vector"], vec, strict=False))
                    else:
                        score = -math.dist(search["vector"], vec)
                    scored.append((d, score))
                scored.sort(key=lambda pair: -pair[1])
                docs = []
                for doc, score in scored[: search["k"]]:
                    doc["__score"] = score if options["similarity"] != "L2" else -score
                    docs.append(doc)
            elif op == "$project" and "document" in arg and arg["document"] == "$$ROOT":
                projected = []
                for doc in docs:
                    score = doc.pop("__score", None)
                    row: dict[str, Any] = {"document": doc}
                    for field, value in arg.items():
                        if value == {"$meta": "searchScore"}:
                            row[field] = score
                    projected.append(row)
                docs = projected
            elif op == "$set":
                for doc in docs:
                    for field, value in arg.items():
                        doc[field] = doc.get("__score") if value == {"$meta": "vectorSearchScore"} else value
            elif op == "$project":
                for doc in docs:
                    for field, keep in arg.items():
                        if not keep:
                            doc.pop(field, None)
            elif op == "$match":
                docs = [d for d in docs if _matches(d, arg)]
            elif op == "$limit":
                docs = docs[: int(arg)]
        for doc in docs:
            doc.pop("__score", None)
        return docs
