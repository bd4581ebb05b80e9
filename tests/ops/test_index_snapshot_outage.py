"""The dashboard's index snapshot after an S3 outage that overlapped its reads: the refresh
during the outage shows what it could read and names the rest unreadable; the next refresh
after the outage reads them, shows every item and reports nothing unreadable (no restart)."""

from __future__ import annotations

import pytest

from dashboards.repository import Repository
from rlauto_core.store import open_storage
from tests.dashboards.conftest import sample_specs
from tests.dashboards.index_builder import write_item
from tests.fakes.outage_relay import FaultRelay


def is_index_read(method: str, target: str) -> bool:
    """A GET of one index file (the listing is a GET of the bucket with `list-type`)."""
    return method == "GET" and "/index/" in target.split("?", 1)[0]


@pytest.mark.slow
def test_an_outage_during_one_refresh_hides_nothing_after_the_next(relay: FaultRelay, s3_url: str) -> None:
    specs = sample_specs()[:2]
    storage = open_storage(s3_url)
    for spec in specs:
        write_item(storage, spec, with_files=False)
    repository = Repository(s3_url, refresh_seconds=3600)  # refreshed when the test says

    relay.fail(503, "ServiceUnavailable", match=is_index_read)  # longer than the storage layer's retries
    assert repository.count_items() == 0
    unreadable = repository.health().unreadable
    assert unreadable and all(p.startswith("index/") for p in unreadable)
    assert relay.faulted and all(is_index_read(m, t) for m, t in relay.faulted)  # the outage hit reads

    relay.clear()
    repository.refresh()
    assert repository.count_items() == len(specs)  # the next refresh, same process
    assert repository.health().unreadable == []
