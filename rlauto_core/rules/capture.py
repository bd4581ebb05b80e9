"""What the importer read past instead of refusing the file (ImportNote), shown as flags so the
recording's gaps are visible in `rlauto inspect`, the evidence and the judge's prompt."""

from __future__ import annotations

from rlauto_core.recording import Recording
from rlauto_core.rules.flags import Flag


def import_flags(recording: Recording) -> list[Flag]:
    return [
        Flag(code=note.code, message=f"{note.file}: {note.message}", call_ids=list(note.ids), severity="warning")
        for note in recording.import_notes
    ]
