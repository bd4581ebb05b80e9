"""Records in storage (memory, designer drafts, confirmed tasks): one JSON object per file, one
folder per kind (each kind names its folder where it is defined).

```
agent/memory/experiences/{id}.json       a recipe (experience library)
agent/memory/experience_audit/{id}.json  the audit's mark and the person's decision on it
agent/memory/actions/{id}.json           a named action (action library)
agent/designer/draft.json                the designer's latest draft (only the latest is kept)
agent/tasks/{id}.json                    a confirmed step task
```
One file per record, written whole (atomically, one PUT on an object store), so writers of
different records never collide and a reader never sees half a record. Each file is one JSON
object on one line, so DuckDB reads a folder as a table:
`SELECT * FROM read_json('<root>/agent/memory/experiences/*.json')`.
A file that cannot be read is skipped and named in `unreadable`, never a crash.
"""

from __future__ import annotations

import logging
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from rlauto_core.agent.events.layout import checked_id
from rlauto_core.store.storage import Storage

log = logging.getLogger("rlauto.agent.memory")
M = TypeVar("M", bound=BaseModel)

# a record is small (a recipe, four steps); anything bigger in the folder is not ours
MAX_RECORD_BYTES = 1024 * 1024


class RecordDir(Generic[M]):
    """The records of one kind under `folder`, keyed by id (the file name)."""

    def __init__(self, storage: Storage, folder: str, model: type[M]) -> None:
        self.storage = storage
        self.folder = folder
        self.model = model
        self.unreadable: list[str] = []

    def path(self, record_id: str) -> str:
        return f"{self.folder}/{checked_id(record_id, 'record id')}.json"

    def _read(self, path: str) -> M | None:
        try:
            data = self.storage.read_bytes(path)
            if len(data) > MAX_RECORD_BYTES:
                raise ValueError(f"{len(data)} bytes, more than a record holds")
            return self.model.model_validate_json(data)
        except FileNotFoundError:
            return None
        except (ValidationError, ValueError, OSError) as exc:
            problem = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            log.warning("%s: skipped, not a readable record: %s", path, problem[:200])
            self.unreadable.append(path)
            return None

    def load(self, record_id: str) -> M | None:
        return self._read(self.path(record_id))

    def all(self) -> list[M]:
        return [record for _path, record in self.entries()]

    def entries(self) -> list[tuple[str, M]]:
        """(path, record) of every readable record; the others named in `unreadable`."""
        self.unreadable = []
        out: list[tuple[str, M]] = []
        for path in self.storage.list(self.folder):
            if not path.startswith(self.folder + "/") or not path.endswith(".json"):
                continue
            record = self._read(path)
            if record is not None:
                out.append((path, record))
        return out

    def save(self, record_id: str, record: M) -> None:
        self.storage.write_bytes(self.path(record_id), (record.model_dump_json() + "\n").encode("utf-8"))

    def delete(self, record_id: str) -> bool:
        path = self.path(record_id)
        if not self.storage.exists(path):
            return False
        self.storage.delete(path)
        return True
