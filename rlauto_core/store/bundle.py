"""One ZIP of a job's passing packages, each named `<recording>.task-package.zip`.

The batch writes it as `all-results-<job>.zip`; the dashboard offers the same bundle for download.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field

from rlauto_core.package.export import package_file_name
from rlauto_core.store.storage import Storage


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


def bundle_packages(storage: Storage, members: list[BundleMember]) -> Bundle:
    """Members in name order; two recordings of one name both kept; missing ones listed in MISSING.txt."""
    buffer = io.BytesIO()
    bundle = Bundle(data=b"")
    names: set[str] = set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:  # members are ZIPs already
        for member in sorted(members, key=lambda m: (m.source_name, m.item_id)):
            try:
                if not member.output_zip_path:
                    raise FileNotFoundError(member.item_id)
                data = storage.read_bytes(member.output_zip_path)
            except FileNotFoundError:
                bundle.missing.append(member.item_id)
                continue
            name = package_file_name(member.source_name or member.item_id)
            if name in names:
                name = package_file_name(f"{member.item_id}-{member.source_name}")
            names.add(name)
            archive.writestr(name, data)
            bundle.included.append(member.item_id)
        if bundle.missing:
            archive.writestr("MISSING.txt", "\n".join(bundle.missing) + "\n")
    bundle.data = buffer.getvalue()
    return bundle
