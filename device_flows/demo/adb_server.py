"""The demo phone's ADB server on loopback: the ADB host protocol, with emulated phones behind it.

The real `adbutils.AdbClient(host="127.0.0.1", port=server.port)` talks to it, and so does
the real uiautomator2 client: its JSON-RPC over HTTP reaches `DeviceAgent` (u2_agent.py) through
the `tcp:9008` service, which this server pipes to the agent's loopback port. A phone may carry
the demo apps (`Home`) whose screens its UI dumps and screenshots show.

Supported: host:version, host:kill, host:devices, host:devices-l, host:transport:SERIAL,
host:tport:serial:SERIAL, host-serial:SERIAL:(get-state|features|forward...|list-forward),
and after a transport: shell:CMD (output streamed; `getevent -lt` replays a canned trace
at its recorded pace, then stays open like the real one until the client hangs up) and
tcp:PORT. Everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import re
import socket
import socketserver
import threading
import time

from device_flows.demo.device import DemoPhone
from device_flows.demo.pipes import splice
from device_flows.demo.u2_agent import DeviceAgent

TRACE_TIME = re.compile(rb"^\[\s*(\d+\.\d+)\]")


class DemoAdbServer:
    """`with DemoAdbServer([DemoPhone("serial-1", ...)]) as adb:` then use `adb.port` (0 picks a free one)."""

    def __init__(self, phones: list[DemoPhone], version: int = 41, *, port: int = 0) -> None:
        self.phones = {p.serial: p for p in phones}
        self.agents = {p.serial: DeviceAgent(p) for p in phones}
        self.version = version
        self.commands: list[str] = []
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer._serve(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", port), Handler, bind_and_activate=False)
        self._server.daemon_threads = True
        self._server.allow_reuse_address = True
        self._server.server_bind()
        self._server.server_activate()
        self.port = int(self._server.server_address[1])
        # poll 20x a second: shutdown() waits one poll, and every test stops a server
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="demo-adb", daemon=True)

    def __enter__(self) -> DemoAdbServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        for agent in self.agents.values():
            agent.close()

    # -- protocol -------------------------------------------------------------------
    @staticmethod
    def _read_request(sock: socket.socket) -> str | None:
        header = _recv_exact(sock, 4)
        if header is None:
            return None
        body = _recv_exact(sock, int(header, 16))
        return None if body is None else body.decode()

    @staticmethod
    def _okay(sock: socket.socket, payload: str | None = None) -> None:
        data = b"OKAY"
        if payload is not None:
            encoded = payload.encode()
            data += f"{len(encoded):04x}".encode() + encoded
        sock.sendall(data)

    @staticmethod
    def _fail(sock: socket.socket, message: str) -> None:
        encoded = message.encode()
        sock.sendall(b"FAIL" + f"{len(encoded):04x}".encode() + encoded)

    def _serve(self, sock: socket.socket) -> None:
        try:
            phone: DemoPhone | None = None
            while True:
                request = self._read_request(sock)
                if request is None:
                    return
                self.commands.append(request)
                if phone is not None:
                    self._device_service(sock, phone, request)
                    return
                phone = self._host_service(sock, request)
                if phone is None:
                    return
        except (BrokenPipeError, ConnectionResetError):
            return
        finally:
            sock.close()

    def _host_service(self, sock: socket.socket, request: str) -> DemoPhone | None:
        """Answer a host request; return the phone when the connection switches to it."""
        if request == "host:version":
            self._okay(sock, f"{self.version:04x}")
        elif request == "host:kill":
            self._okay(sock)
        elif request in ("host:devices", "host:devices-l"):
            long = request.endswith("-l")
            lines = [
                f"{s}\tdevice" + (f" product:demo model:{p.model} device:demo transport_id:1" if long else "")
                for s, p in self.phones.items()
            ]
            self._okay(sock, "".join(line + "\n" for line in lines))
        elif request.startswith(("host:transport:", "host:tport:serial:")):
            serial = request.rsplit(":", 1)[1] if request.startswith("host:transport:") else request[18:]
            phone = self.phones.get(serial)
            if phone is None:
                self._fail(sock, f"device '{serial}' not found")
                return None
            self._okay(sock)
            if request.startswith("host:tport"):
                sock.sendall((1).to_bytes(8, "little"))
            return phone
        elif request.startswith("host-serial:"):
            _, serial, command = request.split(":", 2)
            if serial not in self.phones:
                self._fail(sock, f"device '{serial}' not found")
            elif command == "get-state":
                self._okay(sock, "device")
            elif command == "features":
                self._okay(sock, "shell_v2,cmd,stat_v2")
            elif command == "list-forward":
                self._okay(sock, "")
            else:
                self._okay(sock)
        else:
            self._fail(sock, f"unknown host service {request}")
        return None

    def _device_service(self, sock: socket.socket, phone: DemoPhone, request: str) -> None:
        if request.startswith("shell:"):
            command = request[6:]
            exit_marker = "; echo X4EXIT:$?"  # adbutils' shell2 over shell v1
            phone.commands.append(command.removesuffix(exit_marker))
            self._okay(sock)
            if command.endswith(exit_marker):
                sock.sendall(phone.shell_output(command[: -len(exit_marker)]) + b"X4EXIT:0")
            elif command.startswith("getevent") and "-t" in command.replace("-lt", "-t"):
                self._stream_trace(sock, phone)
            else:
                sock.sendall(phone.shell_output(command))
        elif request.startswith("tcp:"):
            agent = self.agents[phone.serial]
            self._okay(sock)
            _pipe(sock, socket.create_connection(("127.0.0.1", agent.port)))
        else:
            self._fail(sock, f"unsupported service {request}")

    def _stream_trace(self, sock: socket.socket, phone: DemoPhone) -> None:
        """Replay the trace at its own pace, then hold the stream open like getevent does;
        a hang-up by the client is noticed within 0.1 s, even in a long pause."""
        started = time.monotonic()
        first: float | None = None
        try:
            for line in phone.trace.encode().splitlines(keepends=True):
                match = TRACE_TIME.match(line)
                if match:
                    stamp = float(match.group(1))
                    first = stamp if first is None else first
                    due = started + (stamp - first) / phone.trace_speed
                    if not _wait_unless_closed(sock, due):
                        break
                sock.sendall(line)
            else:
                _wait_unless_closed(sock, float("inf"))
        except OSError:
            pass
        phone.streams_closed_by_client += 1


def _wait_unless_closed(sock: socket.socket, until: float) -> bool:
    """Sleep until `until` (monotonic); False as soon as the peer closes the socket."""
    while (left := until - time.monotonic()) > 0:
        sock.settimeout(min(left, 0.1))
        try:
            if sock.recv(1024) == b"":
                return False
        except TimeoutError:
            continue
    sock.settimeout(None)
    return True


def _recv_exact(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _pipe(client: socket.socket, upstream: socket.socket) -> None:
    """Copy both ways until either side closes (the `tcp:` forward to the agent)."""
    # without NODELAY each relayed request waits out Nagle + delayed ACK (~40 ms a call)
    for sock in (client, upstream):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    splice(client, upstream, half_close=True).join(timeout=10)
    upstream.close()
