"""The database diff a session would leave: the recorded rows whose writes the session made,
with its own ids and what it wrote.

A recorded row belongs to the writes that explain it: the write whose answer made an id the row
holds, and the one write that sent a value it holds (a value several writes sent, like the
project every call names, explains nothing). The row is in the session's diff when the session
made all of them; its values are the session's (its ids, what its writes sent instead). A row no
write explains is a server-side effect the recording cannot tie to a call: it is left out, and
`coverage` lists it.
"""

from __future__ import annotations

from typing import Any

from rlauto_core.checkers.outputs import scalars
from rlauto_core.recording import DbDiff, RowUpdate, TableDiff
from rlauto_core.replay.values import SessionValues, scalars_of, walk
from rlauto_core.replay.world import World


def _sent_by(world: World) -> dict[str, set[str]]:
    """Value -> the writes that sent it."""
    found: dict[str, set[str]] = {}
    for write in world.writes:
        for value in write.inputs.values():
            for single in scalars(value):
                if single is not None and not isinstance(single, bool):
                    found.setdefault(str(single), set()).add(write.id)
    return found


def row_writes(world: World, row: dict[str, Any], before: dict[str, Any] | None = None) -> set[str]:
    """The recorded writes that explain a row (empty: none does)."""
    sent = _sent_by(world)
    needed: set[str] = set()
    for value in scalars_of(row) + scalars_of(before or {}):
        text = str(value)
        creator = world.creator(value) if value is not None else None
        if creator is not None:
            needed.add(creator)
        senders = sent.get(text, set())
        if len(senders) == 1 and value is not None and not isinstance(value, bool):
            needed |= senders
    return needed


def unexplained_rows(world: World) -> list[str]:
    """`table op` of each recorded row no write explains."""
    diff = world.recording.dbdiff
    if diff is None:
        return []
    out = []
    for table, rows in diff.tables.items():
        for op, row, before in _rows(rows):
            if not row_writes(world, row, before):
                out.append(f"{table} {op}")
    return out


def _rows(rows: TableDiff) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    found: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [("insert", r, None) for r in rows.inserted]
    found += [("update", u.after, u.before) for u in rows.updated]
    found += [("delete", r, None) for r in rows.deleted]
    return found


def session_diff(world: World, values: SessionValues, performed: dict[str, dict[str, Any]]) -> DbDiff | None:
    """The session's diff: None when the recording has none, or the session wrote nothing."""
    diff = world.recording.dbdiff
    if diff is None:
        return None
    order = {w.id: w.position for w in world.writes}
    tables: dict[str, TableDiff] = {}
    for table, rows in diff.tables.items():
        out = TableDiff()
        for op, row, before in _rows(rows):
            needed = row_writes(world, row, before)
            if not needed or not needed <= set(performed):
                continue
            subs: dict[str, Any] = {}
            for write in sorted(needed, key=lambda w: order.get(w, 0)):
                subs.update(performed[write])  # a later write's value wins for the row it explains

            def leaf(path: str, value: Any, subs: dict[str, Any] = subs) -> Any:
                text = str(value)
                return subs[text] if text in subs else values.session_value(value, path.rsplit(".", 1)[-1])

            new = walk(row, leaf, lambda _: False)
            if op == "insert":
                out.inserted.append(new)
            elif op == "delete":
                out.deleted.append(new)
            else:
                out.updated.append(RowUpdate(before=walk(before or {}, leaf, lambda _: False), after=new))
        if out.inserted or out.updated or out.deleted:
            tables[table] = out
    return DbDiff(tables=tables) if tables else None
