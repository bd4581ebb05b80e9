"""A long-running worker in miniature, run as its own process by test_gc_pause.py.

`python -m tests.importers.gc_worker ITEMS THREADS` imports a recording large enough for the
collector pause to freeze (about 150k objects) and builds its evidence, ITEMS times over
THREADS item threads, as a batch worker does. After each import, the item leaves cyclic
garbage as real code does: a caught error kept in a local makes frame -> locals -> error ->
traceback -> frame, holding the upload's bytes (GARBAGE_BYTES). Prints one JSON line: the
process's resident set size after every finished item, and how many bytes of garbage were left.

Every ROUND items a thread waits until all threads have finished theirs, as a real worker's
items all wait on I/O now and then (model calls, storage writes). Without it, on a busy
machine the threads' imports may overlap from the first item to the last, the pause never
ends in between, and the freeze path would not run at all (a CI run saw one freeze, at the
end, and no thaw): the rounds make "it froze and thawed along the way" certain, not luck.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
from collections.abc import Callable

from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from tests.importers.corpus import TASK, request
from tests.importers.zipcraft import jbytes, zip_bytes

GARBAGE_BYTES = 2 * 1024 * 1024
REQUESTS = 1_500
ROUND = 10


def recording_bytes() -> bytes:
    requests = []
    for n in range(REQUESTS):
        body = json.dumps(
            {"items": [{"id": n * 10 + k, "title": f"issue {k}", "labels": ["bug", "ui"]} for k in range(6)]}
        )
        requests.append(
            request(
                id=f"r{n}", method="GET" if n % 3 else "POST", url=f"https://tracker.example.com/api/issues/{n}",
                requestBody=None if n % 3 else '{"title":"x"}', status=200, responseBody=body,
            )
        )  # fmt: skip
    task = {**TASK, "task": {**TASK["task"], "networkRequests": [f"r{n}" for n in range(0, REQUESTS, 3)]}}
    return zip_bytes({"task.json": jbytes(task), "network.json": jbytes({"version": 1, "requests": requests})})


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def leave_cyclic_garbage() -> None:
    upload = bytearray(GARBAGE_BYTES)  # touched, so it is resident
    upload[::4096] = b"x" * len(upload[::4096])
    try:
        raise ValueError("the upload was refused")
    except ValueError as exc:
        kept = exc  # noqa: F841  (the cycle: this frame -> kept -> traceback -> this frame)


def main(items: int, threads: int) -> None:
    data = recording_bytes()
    calls = {"freeze": 0, "unfreeze": 0}
    for name in calls:  # count what the pause does to the collector (it calls gc.freeze/unfreeze)
        real = getattr(gc, name)

        def counted(real: Callable[[], None] = real, name: str = name) -> None:
            calls[name] += 1
            real()

        setattr(gc, name, counted)
    samples: list[int] = []
    lock = threading.Lock()

    def item(n: int) -> None:
        recording = import_bytes(data, f"rec-{n}.zip")
        evidence = build_evidence(recording)
        assert evidence.state_changing
        leave_cyclic_garbage()
        with lock:
            samples.append(rss())

    everyone_between_items = threading.Barrier(threads)
    errors: list[BaseException] = []

    def item_thread(first: int) -> None:
        try:
            for done, n in enumerate(range(first, items, threads), start=1):
                item(n)
                if done % ROUND == 0 and done <= items // threads:  # a round every thread reaches
                    everyone_between_items.wait()  # no pause runs now: the last one has ended
        except BaseException as exc:  # reported below, the other threads released
            errors.append(exc)
            everyone_between_items.abort()

    workers = [threading.Thread(target=item_thread, args=(first,)) for first in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    summary = {"rss": samples, "garbage_per_item": GARBAGE_BYTES, "gc_enabled": gc.isenabled(), **calls}
    print(json.dumps(summary))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
