"""Loopback relays in front of a real server: `OutageRelay` (TCP) whose listening side can be
taken down, `FaultRelay` (HTTP) that counts requests and answers chosen ones with faults.

Taking it down closes the listening socket and every open connection, so clients see exactly
what they see when the server process is gone (connection refused / reset); bringing it back
up restores the same server with its state (moto keeps objects in memory, so killing moto
itself would also lose the bucket).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from device_flows.demo.pipes import pump
from tests.servers import free_port


class OutageRelay:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        # bound again after each outage: a port no outgoing connection can take meanwhile
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self.last_up_at: float | None = None  # time.monotonic() when the relay last came back up
        self.up()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self._listener = listener
        self.last_up_at = time.monotonic()
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def outage(self, seconds: float) -> None:
        """Down now, up again after `seconds` (in the background)."""
        self.down()

        def later() -> None:
            time.sleep(seconds)
            self.up()

        threading.Thread(target=later, daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, server]
            for src, dst in ((client, server), (server, client)):
                threading.Thread(target=pump, args=(src, dst), daemon=True).start()


# (method, request target such as "/bucket/key?uploads"): which requests a fault applies to
Match = Callable[[str, str], bool]


@dataclass
class _Fault:
    match: Match
    status: int  # 0: forward the request, then drop the answer (it landed; the client never hears)
    code: str
    remaining: int | None  # None: every matching request
    delay_s: float = 0.0  # > 0: held this long, then forwarded as it is (`slow`)


@dataclass
class _Request:
    method: str
    target: str
    head: bytes  # request line and headers, "Connection: close" forced, Expect removed
    expects_continue: bool
    length: int | None
    chunked: bool


class FaultRelay:
    """An HTTP relay in front of a real S3 server that counts requests and injects faults.

    Each connection carries one request (the relay asks both sides to close after it), so every
    request the client sends is seen and counted here, retries included. `fail()` answers
    matching requests with an S3 error (`503 ServiceUnavailable` by default) without the server
    seeing them; `lose_answers()` lets matching requests reach the server and then cuts the
    connection before the client reads the answer (the write happened; the client cannot know);
    `slow()` holds matching requests a while before they go on. It relays Prefect's API too
    (websockets pass through as they are).
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self.port = int(self._listener.getsockname()[1])
        self._lock = threading.Lock()
        self._faults: list[_Fault] = []
        self.requests: list[tuple[str, str]] = []  # every request, in arrival order
        self.faulted: list[tuple[str, str]] = []  # the ones a fault answered or cut
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def fail(self, status: int = 503, code: str = "ServiceUnavailable", match: Match | None = None,
             times: int | None = None) -> None:  # fmt: skip
        with self._lock:
            self._faults.append(_Fault(match or (lambda m, t: True), status, code, times))

    def lose_answers(self, match: Match, times: int | None = 1) -> None:
        with self._lock:
            self._faults.append(_Fault(match, 0, "", times))

    def slow(self, seconds: float, match: Match, times: int | None = None) -> None:
        """Hold matching requests `seconds` before they reach the server (a slow link or server)."""
        with self._lock:
            self._faults.append(_Fault(match, 0, "", times, delay_s=seconds))

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def close(self) -> None:
        self._listener.close()

    def count(self, match: Match) -> int:
        with self._lock:
            return sum(match(m, t) for m, t in self.requests)

    def _fault_for(self, method: str, target: str) -> _Fault | None:
        with self._lock:
            self.requests.append((method, target))
            for fault in self._faults:
                if fault.remaining != 0 and fault.match(method, target):
                    if fault.remaining is not None:
                        fault.remaining -= 1
                    self.faulted.append((method, target))
                    return fault
        return None

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        client.settimeout(30)
        try:
            request, rest = _read_head(client)
            if request is None:
                return
            if b"\r\nupgrade:" in request.head.lower():
                client.settimeout(None)  # a websocket may stay quiet for long
            fault = self._fault_for(request.method, request.target)
            if fault is not None and fault.delay_s:
                time.sleep(fault.delay_s)
                fault = None
            if fault is None:
                self._forward(client, request, rest)
            elif fault.status:
                if not request.expects_continue:
                    _read_body(client, request, rest)  # answered once sent, as a server would
                client.sendall(_s3_error(fault.status, fault.code, request.method))
            else:
                if request.expects_continue:
                    client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                body = _read_body(client, request, rest)
                with socket.create_connection(("127.0.0.1", self.target_port)) as server:
                    server.sendall(request.head + body)
                    while server.recv(65536):  # the server's whole answer, then nothing of it
                        pass
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
            client.close()

    def _forward(self, client: socket.socket, request: _Request, rest: bytes) -> None:
        server = socket.create_connection(("127.0.0.1", self.target_port))
        # a client waiting for 100 Continue: let the server say it itself
        head = request.head[:-2] + b"Expect: 100-continue\r\n\r\n" if request.expects_continue else request.head
        server.sendall(head + rest)
        back = threading.Thread(target=pump, args=(server, client), daemon=True)
        back.start()
        pump(client, server)
        back.join(timeout=30)
        server.close()


def _read_head(sock: socket.socket) -> tuple[_Request | None, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = [line for line in lines[1:] if line]
    names = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in headers}
    kept = [line for line in headers if line.split(":", 1)[0].strip().lower() not in ("connection", "expect")]
    rebuilt = "\r\n".join([lines[0], *kept, "Connection: close"]) + "\r\n\r\n"
    if "upgrade" in names:  # a websocket (Prefect's events): relayed as it is, for as long as it lasts
        rebuilt = head.decode("latin-1") + "\r\n\r\n"
    length = names.get("content-length")
    return _Request(
        method=method,
        target=target,
        head=rebuilt.encode("latin-1"),
        expects_continue=names.get("expect", "").lower() == "100-continue",
        length=int(length) if length is not None else None,
        chunked="chunked" in names.get("transfer-encoding", "").lower(),
    ), rest


def _read_body(sock: socket.socket, request: _Request, rest: bytes) -> bytes:
    data = rest
    if request.chunked:  # until the last (empty) chunk and its trailers
        while not ((data.startswith(b"0\r\n") or b"\r\n0\r\n" in data) and data.endswith(b"\r\n\r\n")):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        return data
    while len(data) < (request.length or 0):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def _s3_error(status: int, code: str, method: str) -> bytes:
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
        f"<Message>injected by the test relay</Message><RequestId>relay</RequestId></Error>"
    ).encode()
    reason = {403: "Forbidden", 404: "Not Found", 500: "Internal Server Error", 503: "Service Unavailable"}
    head = (
        f"HTTP/1.1 {status} {reason.get(status, 'Error')}\r\nContent-Type: application/xml\r\n"
        f"Content-Length: {0 if method == 'HEAD' else len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    return head if method == "HEAD" else head + body
