"""Fixtures of the dashboard tests: a storage tree built like the pipeline's (the S3 tests use the
shared moto server, `moto_s3` in tests/fixtures/s3.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from streamlit import config as streamlit_config

from dashboards.repository import Repository
from rlauto_core.store.storage import FsspecStorage, open_storage
from tests.dashboards.index_builder import BASE_TIME, ItemSpec, write_item

CANARY_AUTH = "Bearer CANARY-AUTH-7f3a9c21e5"
CANARY_COOKIE = "session=CANARY-COOKIE-51d0b7"
CANARY_API_KEY = "sk-CANARY-APIKEY-88e2f1c4d9"

UNICODE_INSTRUCTION = "在 #产品 频道回复张伟的最新消息“收到”，然后把频道标为已读 ✅"


def sample_specs() -> list[ItemSpec]:
    """A small index covering the boundary cases the tests name."""
    t = BASE_TIME
    return [
        ItemSpec(
            "job-a",
            "it-pass",
            "reply 'got it' to Alice, then mark #general read",
            scores=[[1, 2, 1, 1, 2, 1], [2, 2, 2, 2, 2, 1]],
            flag_codes=["NOISE_TOOL"],
            finished_at=t + timedelta(minutes=1),
        ),
        ItemSpec(
            "job-a",
            "it-full",
            "archive Bob's three oldest tickets and label them 'stale'",
            scores=[[2, 2, 2, 2, 2, 2]],
            mode="mcp",
            rule_profile="rl-env-4.30",
            finished_at=t + timedelta(minutes=2),
        ),
        ItemSpec(
            "job-a",
            "it-zero",
            "click the button",
            scores=[[0, 0, 0, 0, 0, 0]],
            flag_codes=["CROSS_ENTITY_IDS", "UNREAD_CHECK_MISSING"],
            finished_at=t + timedelta(minutes=3),
        ),
        ItemSpec(
            "job-b",
            "it-unicode",
            UNICODE_INSTRUCTION,
            scores=[[2, 1, 2, 2, 2, 2]],
            finished_at=t + timedelta(minutes=4),
        ),
        ItemSpec(
            "job-b",
            "it-noiter",
            "an item whose analyzer failed",
            scores=[],
            status="failed",
            error="analyzer timed out after 3 attempts",
            finished_at=t + timedelta(minutes=5),
        ),
        ItemSpec(
            "job-b",
            "it-canary",
            "rename the board 'Q3 plan' to 'Q4 plan'",
            scores=[[2, 2, 2, 2, 1, 2], [2, 2, 2, 2, 2, 2]],
            call_headers={"Authorization": CANARY_AUTH, "Cookie": CANARY_COOKIE},
            answer_echo=f"served to {CANARY_AUTH.split()[1]}",
            url_echo=f"ref={CANARY_COOKIE.split('=')[1]}",
            error=f"first analyzer call refused key {CANARY_API_KEY}; retried",
            finished_at=t + timedelta(minutes=6),
        ),
    ]


@pytest.fixture
def storage(tmp_path: Path) -> FsspecStorage:
    return open_storage((tmp_path / "empty-storage").as_uri())


@pytest.fixture(scope="session")
def _sample_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dash-sample") / "storage"
    template = open_storage(root.as_uri())
    for spec in sample_specs():
        write_item(template, spec)
    return root


@pytest.fixture
def filled_storage(tmp_path: Path, _sample_tree: Path) -> FsspecStorage:
    """The sample index, copied fresh for each test (tests append reviews and re-runs to it)."""
    root = tmp_path / "storage"
    shutil.copytree(_sample_tree, root)
    return open_storage(root.as_uri())


@pytest.fixture
def repository(filled_storage: FsspecStorage) -> Repository:
    return Repository(filled_storage.url, refresh_seconds=0)


@pytest.fixture
def loopback_address() -> Iterator[None]:
    """What `rlauto dashboard` sets: AppTest runs in-process, so the option is set here."""
    saved = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "127.0.0.1")
    try:
        yield
    finally:
        streamlit_config.set_option("server.address", saved)
