"""A loopback TCP relay in front of a real server whose listening side can be taken down.

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

from tests.fakes.pipes import pump


class OutageRelay:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
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
