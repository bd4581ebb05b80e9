"""The helpers every server fixture relies on: `stop_process` leaves no process of the group it
stopped behind, whatever the leader and its child do with SIGTERM; `free_port` hands out ports
that no other worker and no outgoing connection can take; the Prefect servers of one run start
from one migrated database."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from tests.servers import (
    FIRST_PORT,
    PORTS_PER_WORKER,
    SLICES,
    free_port,
    seeded_from,
    stop_process,
    worker_index,
)

# A leader that starts a child in its process group, prints the child's pid once the child is
# ready, and then sleeps. What each does on SIGTERM is the test's choice:
# "exit" (at once), "linger" (exit after 0.5 s, as uvicorn winding down) or "ignore".
FAMILY = textwrap.dedent(
    """
    import signal, subprocess, sys, time
    on_term = {"exit": "lambda *a: sys.exit(0)", "linger": "lambda *a: (time.sleep(0.5), sys.exit(0))",
               "ignore": "signal.SIG_IGN"}
    leader, child = sys.argv[1], sys.argv[2]
    code = f"import signal, sys, time\\nsignal.signal(signal.SIGTERM, {on_term[child]})\\nprint('ready', flush=True)\\ntime.sleep(600)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    proc.stdout.readline()
    signal.signal(signal.SIGTERM, eval(on_term[leader]))
    print(proc.pid, flush=True)
    time.sleep(600)
    """
)


def ended(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def start_family(leader: str, child: str, log: Path) -> tuple[subprocess.Popen[bytes], psutil.Process]:
    """The leader in a session of its own, as the server fixtures start theirs; and its child."""
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", FAMILY, leader, child], stdout=out, start_new_session=True)
    deadline = time.monotonic() + 60
    while not log.read_text().strip():
        assert proc.poll() is None and time.monotonic() < deadline, f"the family did not start: {log.read_text()}"
        time.sleep(0.05)
    return proc, psutil.Process(int(log.read_text().split()[0]))


@pytest.mark.parametrize(
    ("leader", "child"),
    [
        ("exit", "linger"),  # the leader goes at once, its child is still shutting down
        # the child would serve forever: killed once it outlives the leader
        pytest.param("exit", "ignore", marks=pytest.mark.slow),  # waits out the 2 s timeout twice
        # nothing listens to SIGTERM: the whole group is killed
        pytest.param("ignore", "ignore", marks=pytest.mark.slow),  # waits out the 2 s timeout twice
        ("linger", "exit"),
    ],
)
def test_stop_process_returns_only_when_the_whole_group_has_ended(leader: str, child: str, tmp_path: Path) -> None:
    proc, grandchild = start_family(leader, child, tmp_path / "family.log")
    family = [psutil.Process(proc.pid), grandchild]
    try:
        stop_process(proc, timeout=2.0)
        assert proc.returncode is not None
        assert [p.pid for p in family if not ended(p)] == [], "a process of the stopped group is still running"
    finally:
        for p in family:
            if not ended(p):
                p.kill()
        if proc.poll() is None:
            proc.wait(10)


def test_stop_process_of_a_process_that_already_ended_returns(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    proc.wait(30)
    stop_process(proc)
    assert proc.returncode == 0


def test_free_port_hands_out_distinct_bindable_ports_of_this_workers_slice_below_the_ephemeral_range() -> None:
    first = FIRST_PORT + (worker_index() % SLICES) * PORTS_PER_WORKER
    ephemeral_low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports = [free_port() for _ in range(20)]
    assert len(set(ports)) == len(ports)
    assert all(first <= port < first + PORTS_PER_WORKER for port in ports)
    assert max(ports) < ephemeral_low
    for port in ports:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # nobody holds it


def test_free_port_skips_a_port_someone_listens_on(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = free_port()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", taken))
        listener.listen()
        monkeypatch.setattr("tests.servers._handed_out", set())  # as if another process had handed it out
        monkeypatch.setattr("tests.servers.random.randrange", lambda n: (taken - FIRST_PORT) % PORTS_PER_WORKER)
        assert free_port() != taken  # the walk started at the taken port and went past it


def _make_database(path: Path, marker: str) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("create table migrated (marker text)")
        db.execute("insert into migrated values (?)", (marker,))
        db.commit()


def _marker(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return str(db.execute("select marker from migrated").fetchone()[0])


def test_the_first_server_makes_the_template_and_the_next_ones_start_from_a_copy(tmp_path: Path) -> None:
    """The second worker waits while the first migrates, then starts from its database."""
    template = tmp_path / "template.db"
    first_inside, second_done = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def second() -> None:
        first_inside.wait(10)
        with seeded_from(template, tmp_path / "second.db") as save:
            seen["second waited"] = template.exists()  # it got in only once the template was there
            seen["second seeded"] = _marker(tmp_path / "second.db")
            save()  # nothing to save: it did not migrate anything
        second_done.set()

    thread = threading.Thread(target=second)
    thread.start()
    with seeded_from(template, tmp_path / "first.db") as save:
        first_inside.set()
        time.sleep(0.3)  # the second is at the lock by now
        assert not second_done.is_set() and not template.exists()
        _make_database(tmp_path / "first.db", "migrated by the first")
        save()
    thread.join(10)
    assert seen == {"second waited": True, "second seeded": "migrated by the first"}
    assert _marker(template) == "migrated by the first"


def test_a_server_that_failed_to_start_leaves_the_template_to_the_next(tmp_path: Path) -> None:
    template = tmp_path / "template.db"
    with pytest.raises(RuntimeError), seeded_from(template, tmp_path / "first.db"):
        raise RuntimeError("the server exited")
    assert not template.exists()
    with seeded_from(template, tmp_path / "second.db") as save:
        _make_database(tmp_path / "second.db", "second")
        save()
    assert _marker(template) == "second"


@pytest.mark.slow  # waits out a 1.5 s answer twice: about 4 s
def test_the_fake_models_calls_in_flight_count_only_requests_since_the_last_reset() -> None:
    """A slow answer an earlier test left being served does not count for the next test."""
    import httpx

    from tests.fakes.llm_server import FakeLlmServer

    def ask(timeout: float) -> None:
        body = {"model": "analyzer", "messages": [{"role": "user", "content": "x"}]}
        with contextlib.suppress(httpx.TimeoutException):
            httpx.post(f"{server.base_url()}/chat/completions", json=body, timeout=timeout)

    with FakeLlmServer() as server:
        server.script("analyzer", {"delay": 1.5, "json": {"ok": True}}, {"json": {"ok": True}})
        earlier = threading.Thread(target=ask, args=(0.2,))  # its client gives up; the server goes on
        earlier.start()
        earlier.join()
        server.reset()  # the next test starts while that answer is still being served
        ask(10)
        assert server.max_in_flight() == 1
        time.sleep(1.5)  # the earlier answer ends: the count stays right for what comes next
        ask(10)
        assert server.max_in_flight() == 1
