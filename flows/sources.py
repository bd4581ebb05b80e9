"""What a batch's `sources` name: local paths, folders, globs and fsspec URLs, at most MAX_BATCH_FILES."""

from __future__ import annotations

import fsspec

from rlauto_core.errors import ConfigError, RecordingError

RECORDING_SUFFIXES = (".zip", ".har")
_GLOB_CHARS = "*?["


def _is_recording(path: str) -> bool:
    return path.lower().endswith(RECORDING_SUFFIXES)


def expand_sources(sources: list[str], max_files: int) -> list[str]:
    """Every recording the sources name, in order, each once; a source matching nothing is an error."""
    found: list[str] = []
    for source in sources:
        fs, path = fsspec.core.url_to_fs(source)
        # fsspec paths come back without the protocol; object-store ones need it again
        protocol = source.split("://", 1)[0] + "://" if "://" in source else ""
        prefix = "" if protocol in ("", "file://") else protocol
        if any(ch in source for ch in _GLOB_CHARS):
            matches = [p for p in sorted(fs.glob(path)) if _is_recording(p) and fs.isfile(p)]
        elif fs.isdir(path):
            matches = [p for p in sorted(fs.find(path, maxdepth=1)) if _is_recording(p)]
        elif fs.isfile(path):
            matches = [path]
        else:
            raise RecordingError(source, "no such file or folder")
        if not matches:
            raise RecordingError(source, "matches no recording (.zip or .har)")
        found.extend(prefix + m for m in matches)
    unique = list(dict.fromkeys(found))
    if len(unique) > max_files:
        raise ConfigError(f"the batch names {len(unique)} recordings; at most MAX_BATCH_FILES={max_files} per batch")
    return unique
