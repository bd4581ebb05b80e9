"""A minimal SOCKS5 proxy on loopback (no auth, CONNECT only) that records where it connected."""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
from typing import Any

from device_flows.demo.pipes import splice


class Socks5Proxy:
    def __init__(self) -> None:
        self.connections: list[tuple[str, int]] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy._handle(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"socks5://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Socks5Proxy:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, client: socket.socket) -> None:
        def read(n: int) -> bytes:
            data = b""
            while len(data) < n:
                chunk = client.recv(n - len(data))
                if not chunk:
                    raise ConnectionError("client closed")
                data += chunk
            return data

        try:
            _version, nmethods = read(2)
            read(nmethods)
            client.sendall(b"\x05\x00")  # no authentication
            _ver, cmd, _rsv, atyp = read(4)
            if atyp == 1:
                host = socket.inet_ntoa(read(4))
            elif atyp == 3:
                host = read(read(1)[0]).decode()
            else:
                host = socket.inet_ntop(socket.AF_INET6, read(16))
            (port,) = struct.unpack("!H", read(2))
            if cmd != 1:
                client.sendall(b"\x05\x07\x00\x01" + b"\x00" * 6)
                return
            with self._lock:
                self.connections.append((host, port))
            upstream = socket.create_connection((host, port), timeout=10)
        except (OSError, ConnectionError, ValueError):
            return
        client.sendall(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack("!H", 0))
        splice(client, upstream).join(timeout=10)
