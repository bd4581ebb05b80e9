"""Screenshots of a run, kept in its storage folder: the scaled JPEG the model saw and a
thumbnail for step cards. The run's state and messages hold only references (`ScreenRef`),
so a long run's state stays small and the latest screen is read back when a request is built.
"""

from __future__ import annotations

from pydantic import BaseModel

from rlauto_core.agent.events import layout
from rlauto_core.agent.tools.images import scale_screenshot, thumbnail
from rlauto_core.steps.phone import Phone
from rlauto_core.store.storage import Storage


class ScreenRef(BaseModel):
    """One stored screenshot; paths are storage paths (thumbnail for pages, path for the model)."""

    number: int
    path: str
    thumbnail: str
    width: int
    height: int
    bytes: int
    caption: str

    @property
    def run_relative(self) -> str:
        """The path inside the run folder (`screens/000003.jpg`), usable as a deliverable."""
        return self.path.split("/", 3)[-1]


class ScreenStore:
    def __init__(self, storage: Storage, run_id: str, max_bytes: int, taken: int = 0) -> None:
        self._storage = storage
        self._run_id = run_id
        self._prefix = layout.run_dir(run_id) + "/"
        self.max_bytes = max_bytes
        self.taken = taken

    def capture(self, phone: Phone, caption: str) -> ScreenRef:
        """Take a screenshot now, scale it under the byte cap, store it and its thumbnail."""
        return self.keep(phone.screenshot(), caption)

    def keep(self, raw: bytes, caption: str) -> ScreenRef:
        scaled = scale_screenshot(raw, self.max_bytes)
        self.taken += 1
        path, thumb = layout.screen_path(self._run_id, self.taken), layout.thumb_path(self._run_id, self.taken)
        self._storage.write_bytes(path, scaled.data)
        self._storage.write_bytes(thumb, thumbnail(scaled.data))
        return ScreenRef(
            number=self.taken,
            path=path,
            thumbnail=thumb,
            width=scaled.width,
            height=scaled.height,
            bytes=len(scaled.data),
            caption=caption,
        )

    def read(self, ref: ScreenRef) -> bytes:
        if not ref.path.startswith(self._prefix):
            raise ValueError(f"{ref.path}: not a screen of run {self._run_id}")
        return self._storage.read_bytes(ref.path)
