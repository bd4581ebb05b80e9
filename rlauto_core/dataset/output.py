"""The export's folder (a local path or an fsspec URL): it holds only the export's own files.

The export writes `README.md` (the dataset card) and `tasks.parquet` or `tasks.jsonl`. A folder
that holds anything else is refused: the export never overwrites or mixes with files it did not
write. A folder holding only an earlier export's files is reused: the new files replace them and
the other format's data file is removed, so the card always describes what is there. A card is
the export's when it carries `CARD_MARKER`.

Each file is written under a temporary name in the folder and renamed into place once every
file is complete, the card last; a failed export removes its temporary files and leaves an
earlier export as it was.
"""

from __future__ import annotations

import re
import uuid
from typing import IO, Any

import fsspec
from fsspec.spec import AbstractFileSystem

from rlauto_core.dataset.errors import DatasetError
from rlauto_core.store import STREAM_BLOCK_BYTES, with_storage_retry

CARD_NAME = "README.md"
CARD_MARKER = "<!-- rlauto dataset export: this folder holds only the files of one export -->"
DATA_NAMES = {"parquet": "tasks.parquet", "jsonl": "tasks.jsonl"}
OWN_NAMES = frozenset({CARD_NAME, *DATA_NAMES.values()})
_TEMP = re.compile(r"^\.(README\.md|tasks\.parquet|tasks\.jsonl)\.[0-9a-f]{32}\.tmp$")
MAX_LISTED = 5


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit // 2] + "…" + text[-limit // 2 :]


class OutputFolder:
    def __init__(self, out: str) -> None:
        self.out = out
        try:
            fs, root = fsspec.core.url_to_fs(out)
        except (ValueError, ImportError) as exc:
            raise DatasetError(f"--out {_short(out)}: {exc}") from None
        self.fs: AbstractFileSystem = fs
        self.root = root.rstrip("/") or root
        self._temps: dict[str, str] = {}  # final name -> temporary path

    def path(self, name: str) -> str:
        return f"{self.root}/{name}"

    def uri(self, name: str) -> str:
        return f"{self.out.rstrip('/')}/{name}"

    def prepare(self) -> None:
        """Refuse a folder that holds files this export did not write; create it when missing."""
        fs = self.fs
        try:
            if with_storage_retry(lambda: fs.isfile(self.root)):
                raise DatasetError(f"--out {_short(self.out)}: is a file, not a folder")
            exists = with_storage_retry(lambda: fs.exists(self.root))
            entries = with_storage_retry(lambda: fs.ls(self.root, detail=True)) if exists else []
        except DatasetError:
            raise
        except OSError as exc:
            raise DatasetError(f"--out {_short(self.out)}: cannot be read ({exc})") from None
        foreign: list[str] = []
        for entry in entries:
            name = str(entry["name"]).rstrip("/").rsplit("/", 1)[-1]
            if entry.get("type") == "directory":
                foreign.append(name + "/")
            elif name == CARD_NAME and not self._own_card():
                foreign.append(f"{name} (not an export's card)")
            elif name not in OWN_NAMES and not _TEMP.match(name):
                foreign.append(name)
        if foreign:
            listed = ", ".join(_short(n, 60) for n in sorted(foreign)[:MAX_LISTED])
            more = f" and {len(foreign) - MAX_LISTED} more" if len(foreign) > MAX_LISTED else ""
            raise DatasetError(
                f"--out {_short(self.out)}: holds files the export did not write ({listed}{more}); "
                f"give a new or empty folder (the export writes only {CARD_NAME} and tasks.parquet or tasks.jsonl)"
            )
        for entry in entries:  # an interrupted export's temporary files
            name = str(entry["name"]).rstrip("/").rsplit("/", 1)[-1]
            if _TEMP.match(name):
                self.fs.rm(str(entry["name"]))
        if not exists:
            try:
                self.fs.makedirs(self.root, exist_ok=True)
            except OSError as exc:
                raise DatasetError(f"--out {_short(self.out)}: cannot be created ({exc})") from None

    def _own_card(self) -> bool:
        try:
            with self.fs.open(self.path(CARD_NAME), "rb") as handle:
                head = handle.read(4096)
        except OSError:
            return False
        return CARD_MARKER.encode() in head

    def open(self, name: str) -> IO[Any]:
        """A binary file for `name`, written under a temporary name until `commit`."""
        temp = self.path(f".{name}.{uuid.uuid4().hex}.tmp")
        self._temps[name] = temp
        # streamed a part at a time (an S3 multipart upload), not s3fs's default 50 MiB buffer
        handle: IO[Any] = self.fs.open(temp, "wb", block_size=STREAM_BLOCK_BYTES)
        return handle

    def commit(self, order: list[str]) -> None:
        """Rename the written files into place in `order`, then remove the export's other files."""
        for name in order:
            temp = self._temps.pop(name)
            self.fs.mv(temp, self.path(name))  # replaces an earlier export's file
        for stale in OWN_NAMES - set(order):
            if self.fs.exists(self.path(stale)):
                self.fs.rm(self.path(stale))

    def discard(self) -> None:
        for temp in self._temps.values():
            try:
                if self.fs.exists(temp):
                    self.fs.rm(temp)
            except OSError:
                pass  # best effort: a later export removes what is left
        self._temps.clear()
