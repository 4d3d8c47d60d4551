"""The text of earlier outputs in a checkpointed run: stored once, not in every node's pickle.

Why: with CrewAI's default context, task *k*'s prompt holds every earlier output. A run
keeps that text once (:mod:`crewgraph._internal.shared_prompt`: each kept prompt is a
``CompactMessage`` whose context is a ``ContextRef``, the first *k* entries of one
append-only list the run shares). A plain pickle writes a ``CompactMessage`` as the dict it
reads as, so a checkpointed run of N tasks wrote N^2/2 entries of text (265 MB at 2,000
small tasks, see docs/benchmarks.md).

What the store writes instead:

- a node's pickle holds each unchanged ``CompactMessage`` as its parts (head, ref, tail)
  and each ref as ``(list key, count, separator)``; the key is a random id this process
  gives each entry list the first time one of the run's saves meets it;
- the entries themselves go into ``context_entries (run_id, list_key, idx, text)``: a save
  adds only the entries no earlier save of the run stored, in the same transaction as the
  node's row (so what a committed save refers to is committed with it, and a save refused
  by a lost lease adds nothing);
- :meth:`SharedContext.loads` rebuilds each list of the run once, and every restored
  message refers to it: ``TaskOutput.messages`` read, byte for byte, as the run's own.

Rows written before this format are plain pickles and load as before. A pickle of this
format loaded without the store (``pickle.loads`` of a raw row) fails with a message
saying so. A run resumed in a new process builds new lists, stored once more under new
keys: a resume costs one more copy of the entries, not one per task.
"""

from __future__ import annotations

import io
import pickle
import secrets
from collections.abc import Iterable
from typing import Any

from crewgraph._internal.shared_prompt import (
    CompactMessage,
    ContextRef,
    compact_message,
    compact_parts,
)
from crewgraph.errors import CheckpointError

__all__ = ["ENTRIES_TABLE", "SharedContext", "SharedDump", "shared_ref"]

ENTRIES_TABLE = """
CREATE TABLE IF NOT EXISTS context_entries (
    run_id   TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    list_key TEXT NOT NULL,
    idx      INTEGER NOT NULL,
    text     TEXT NOT NULL,
    PRIMARY KEY (run_id, list_key, idx)
)"""

_INSERT = ("INSERT INTO context_entries (run_id, list_key, idx, text) VALUES (?, ?, ?, ?)"
           " ON CONFLICT DO NOTHING")
_SELECT = "SELECT list_key, idx, text FROM context_entries WHERE run_id = ? ORDER BY list_key, idx"


def shared_ref(key: str, count: int, separator: str) -> ContextRef:
    """What a row of this format names for its refs; only the store's unpickler can answer it."""
    raise CheckpointError(
        "this checkpointed output refers to its run's shared context entries (the text of earlier "
        "outputs, stored once per run); load it through the checkpoint store "
        "(SQLiteCheckpointStore.completed), not with pickle.loads"
    )


class _RunLists:
    """The entry lists one run's saves met in this process, and how many entries are stored."""

    __slots__ = ("lists", "stored")

    def __init__(self) -> None:
        self.lists: dict[int, tuple[list[str], str]] = {}  # id(list) -> (the list, its key)
        self.stored: dict[str, int] = {}  # key -> entries committed


class SharedDump:
    """One node's pickle and the entries its save must add."""

    __slots__ = ("blob", "new_lists", "rows", "wanted")

    def __init__(self) -> None:
        self.blob: bytes = b""
        self.new_lists: dict[int, tuple[list[str], str]] = {}
        self.wanted: dict[str, int] = {}  # key -> entries this pickle refers to
        self.rows: list[tuple[str, str, int, str]] = []


class SharedContext:
    """One store's bookkeeping of the run entry lists it has stored (see the module docstring).

    Not thread-safe on its own: the store calls it under its lock.
    """

    def __init__(self) -> None:
        self._runs: dict[str, _RunLists] = {}

    def dump_output(self, run_id: str, output: Any) -> tuple[SharedDump | None, str | None]:
        """``(dump, None)``, or ``(None, reason)`` when ``output`` cannot be pickled (any exception:
        see :func:`crewgraph.checkpoint._codec.dump_output`)."""
        try:
            return self.dumps(run_id, output), None
        except Exception as exc:
            return None, f"{type(exc).__name__}: {exc}"

    def dumps(self, run_id: str, output: Any) -> SharedDump:
        """Pickle ``output`` for ``run_id``'s row; ``rows`` are the entries to insert with it."""
        known = self._runs.get(run_id)
        dump = SharedDump()
        buffer = io.BytesIO()
        _Pickler(buffer, known, dump).dump(output)
        dump.blob = buffer.getvalue()
        stored = known.stored if known is not None else {}
        lists = {key: parts for parts, key in dump.new_lists.values()}
        if known is not None:
            lists.update((key, parts) for parts, key in known.lists.values() if key in dump.wanted)
        for key, count in dump.wanted.items():
            parts = lists[key]
            dump.rows.extend((run_id, key, i, parts[i]) for i in range(stored.get(key, 0), count))
        return dump

    @staticmethod
    def insert(conn: Any, dump: SharedDump) -> None:
        """Add ``dump``'s entries in the save's open transaction."""
        if dump.rows:
            conn.executemany(_INSERT, dump.rows)

    def committed(self, run_id: str, dump: SharedDump) -> None:
        """After the save's commit: its entries are stored."""
        if not dump.wanted:
            return
        known = self._runs.get(run_id)
        if known is None:
            known = self._runs[run_id] = _RunLists()
        known.lists.update(dump.new_lists)
        for key, count in dump.wanted.items():
            if count > known.stored.get(key, 0):
                known.stored[key] = count

    def forget(self, run_id: str) -> None:
        """The run finished (or was deleted): drop the lists this store held for it."""
        self._runs.pop(run_id, None)

    def clear(self) -> None:
        self._runs.clear()

    @staticmethod
    def entries(conn: Any, run_id: str) -> dict[str, list[str]]:
        """The run's stored entry lists, each rebuilt once (read in the caller's transaction)."""
        lists: dict[str, list[str]] = {}
        for key, idx, text in conn.execute(_SELECT, (run_id,)).fetchall():
            parts = lists.setdefault(key, [])
            if idx != len(parts):
                raise CheckpointError(
                    f"the shared context entries of run {run_id!r} are damaged: list {key!r} has no entry "
                    f"#{len(parts)} (next stored is #{idx})"
                )
            parts.append(text)
        return lists

    @staticmethod
    def loads(blob: bytes, lists: dict[str, list[str]]) -> Any:
        """Unpickle a row (of this format or an older, plain one) against the run's ``lists``."""
        return _Unpickler(io.BytesIO(blob), lists).load()

    @staticmethod
    def copy_entries(conn: Any, from_run: str, to_run: str) -> None:
        """Copy a run's entries to another run (a fork), in the caller's transaction."""
        rows: Iterable[tuple[Any, ...]] = conn.execute(_SELECT, (from_run,)).fetchall()
        conn.executemany(_INSERT, [(to_run, key, idx, text) for key, idx, text in rows])


class _Pickler(pickle.Pickler):
    """A pickler that writes unchanged compact messages as parts and their refs as keys."""

    def __init__(self, file: io.BytesIO, known: _RunLists | None, dump: SharedDump) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._known = known
        self._dump = dump

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is CompactMessage:
            parts = compact_parts(obj)
            if parts is not None:
                return compact_message, parts
        elif kind is ContextRef:
            return shared_ref, (self._key(obj.parts, obj.count), obj.count, obj.separator)
        return NotImplemented

    def _key(self, parts: list[str], count: int) -> str:
        dump = self._dump
        found = dump.new_lists.get(id(parts))
        if found is None and self._known is not None:
            found = self._known.lists.get(id(parts))
        if found is None or found[0] is not parts:
            found = dump.new_lists[id(parts)] = (parts, secrets.token_hex(8))
        key = found[1]
        if count > dump.wanted.get(key, 0):
            dump.wanted[key] = count
        return key


class _Unpickler(pickle.Unpickler):
    """Answers a row's refs from the run's rebuilt entry lists."""

    def __init__(self, file: io.BytesIO, lists: dict[str, list[str]]) -> None:
        super().__init__(file)
        self._lists = lists

    def find_class(self, module: str, name: str) -> Any:
        if name == "shared_ref" and module == __name__:
            return self._ref
        return super().find_class(module, name)

    def _ref(self, key: str, count: int, separator: str) -> ContextRef:
        parts = self._lists.get(key)
        if parts is None or len(parts) < count:
            have = 0 if parts is None else len(parts)
            raise CheckpointError(f"its prompt refers to {count} shared context entries of list {key!r}, "
                                  f"the store has {have}")
        return ContextRef(parts, count, separator)
