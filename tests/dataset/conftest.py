"""A store filled by the real core loop (tests/dataset/store_builder.py), copied fresh per test;
the S3 tests use the shared moto server (tests/fixtures/s3.py)."""

from __future__ import annotations

import os

# before `datasets` is imported anywhere: it reads these once; loading local files needs no hub
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rlauto_core.pipeline import ItemOutcome, index_rows
from rlauto_core.store import FsspecStorage, add_review, append_item, open_storage
from tests.dataset.store_builder import (
    CANARY_AUTH,
    CANARY_COOKIE,
    EN,
    ZH,
    example_recordings,
    package_into,
    with_task,
)

MAIN = "job-main"
OTHER = "job-other"


@dataclass
class Store:
    """A copy of the session's store and what was put in it, by recording name."""

    storage: FsspecStorage
    root: Path
    outcomes: dict[str, ItemOutcome] = field(default_factory=dict)

    def item(self, name: str) -> ItemOutcome:
        return self.outcomes[name]


def _fill(storage: FsspecStorage) -> dict[str, ItemOutcome]:
    outcomes: dict[str, ItemOutcome] = {}
    recordings = [
        *example_recordings(),
        ("slack_bilingual.zip", with_task("slack_incident_channel.zip", {"instructions": {"zh": ZH, "en": EN}})),
        ("discord_zh.zip", with_task("discord_reply.zip", {"instruction": "在 #release 频道回复：今天发布登录修复"})),
        (
            "tracker_canary.zip",
            with_task("issue_tracker.zip", {}, {"Authorization": CANARY_AUTH, "Cookie": CANARY_COOKIE}),
        ),
        ("broken.zip", b"PK\x03\x04 not really a zip"),
    ]
    for name, data in recordings:
        outcomes[name] = package_into(storage, name, data, MAIN)
    outcomes["other:discord_reply.zip"] = package_into(storage, "discord_reply.zip", recordings[0][1], OTHER)
    # an older row of a passing item that says otherwise: the newest row must win
    tracker = outcomes["issue_tracker.zip"]
    stale = tracker.model_copy(
        update={"finished_at": datetime(2020, 1, 1, tzinfo=UTC), "total_score": 3, "verdict": "NEEDS_REVISION"}
    )
    append_item(storage, *index_rows(stale))
    # reviews through the dashboard's own call: the newest one counts
    add_review(storage, MAIN, outcomes["discord_reply.zip"].item_id, "accept", "ana", "clean")
    add_review(storage, MAIN, outcomes["shop_checkout.zip"].item_id, "accept", "ana")
    add_review(storage, MAIN, outcomes["shop_checkout.zip"].item_id, "reject", "bo", "wrong cart")
    add_review(storage, MAIN, outcomes["notes_jsonrpc.zip"].item_id, "needs-work", "bo", f"token {CANARY_AUTH}")
    add_review(storage, OTHER, outcomes["other:discord_reply.zip"].item_id, "accept", "cy")
    return outcomes


@pytest.fixture(scope="session")
def _template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, ItemOutcome]]:
    root = tmp_path_factory.mktemp("dataset-template") / "store"
    outcomes = _fill(open_storage(root.as_uri()))
    return root, outcomes


@pytest.fixture
def store(tmp_path: Path, _template: tuple[Path, dict[str, ItemOutcome]]) -> Store:
    source, outcomes = _template
    root = tmp_path / "store"
    shutil.copytree(source, root)
    return Store(open_storage(root.as_uri()), root, outcomes)
