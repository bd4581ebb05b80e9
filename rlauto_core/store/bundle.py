"""One ZIP of a job's passing packages, each named `<recording>.task-package.zip`.

The batch streams it into storage as `all-results-<job>.zip` (`write_bundle`: one member's block
in memory at a time, not the bundle); the dashboard offers the same bundle for download.
"""

from __future__ import annotations

import io
import shutil
import zipfile
from dataclasses import dataclass, field
from typing import IO

from rlauto_core.package.export import package_file_name
from rlauto_core.store.storage import Storage

_COPY_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class BundleMember:
    item_id: str
    source_name: str
    output_zip_path: str | None


@dataclass
class Bundle:
    data: bytes
    included: list[str] = field(default_factory=list)  # item ids
    missing: list[str] = field(default_factory=list)  # item ids whose package ZIP was not found


def write_bundle(storage: Storage, members: list[BundleMember], out: IO[bytes]) -> Bundle:
    """The bundle written into `out`, each member copied from storage a block at a time; the
    returned `Bundle` lists what it holds (its `data` stays empty)."""
    bundle = Bundle(data=b"")
    names: set[str] = set()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:  # members are ZIPs already
        for member in sorted(members, key=lambda m: (m.source_name, m.item_id)):
            try:
                if not member.output_zip_path:
                    raise FileNotFoundError(member.item_id)
                source = storage.open_read(member.output_zip_path)
            except FileNotFoundError:
                bundle.missing.append(member.item_id)
                continue
            name = package_file_name(member.source_name or member.item_id)
            if name in names:
                name = package_file_name(f"{member.item_id}-{member.source_name}")
            names.add(name)
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            with source as src, archive.open(info, "w") as dst:
                shutil.copyfileobj(src, dst, _COPY_CHUNK)
            bundle.included.append(member.item_id)
        if bundle.missing:
            archive.writestr("MISSING.txt", "\n".join(bundle.missing) + "\n")
    return bundle


def bundle_packages(storage: Storage, members: list[BundleMember]) -> Bundle:
    """The bundle in memory (a download); members in name order, two recordings of one name both
    kept, missing ones listed in MISSING.txt."""
    buffer = io.BytesIO()
    bundle = write_bundle(storage, members, buffer)
    bundle.data = buffer.getvalue()
    return bundle
