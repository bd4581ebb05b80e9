"""The export's one error: bad input (storage, options, output folder), said on one line."""

from __future__ import annotations

from rlauto_core.errors import RlautoError


class DatasetError(RlautoError):
    """The export cannot run: the message names the storage, the option or the folder, and why."""
